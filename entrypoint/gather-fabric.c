/* SPDX-License-Identifier: Apache-2.0 */
/* gather: the nodes of the fabric device sets a start asks for (gather.h, xpu_gather_fabric),
 * found under the dev root by each set's globs, with the majors /proc/devices gives their drivers.
 * The channels a list names are looked up by their own paths; a glob keeps the lowest
 * XPU_FABRIC_NODES_MAX of its directory in version order, reading at most XPU_FABRIC_VISIT_MAX
 * entries. Reads only; silent. */
#include "gather.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/macro.h"
#include "base/path.h"
#include "base/procfs.h"
#include "base/root-file.h"
#include "base/str.h"

typedef char node_name[sizeof(((struct xpu_devnode *)0)->path)];

static int by_version(const void *a, const void *b) {
        return strverscmp((const char *)a, (const char *)b); /* uverbs2 before uverbs10 */
}

static bool have_path(const struct xpu_plan_facts *f, const char *path) {
        for (size_t i = 0; i < f->n_fabric; i++)
                if (strcmp(f->fabric[i].path, path) == 0)
                        return true;
        return false;
}

/* PATH as a node of set SET (once), stat'ed under DEV_FD; a missing path is not added. */
static int add_found(struct xpu_plan_facts *f, size_t set, const struct xpu_fabric_node *node, int want_major,
                     int dev_fd, const char *path) {
        struct stat st;
        if (have_path(f, path) || xpu_stat_in_root(dev_fd, path, false, &st) < 0)
                return 0;
        struct xpu_fabric_found *n = reallocarray(f->fabric, f->n_fabric + 1, sizeof *n);
        if (!n)
                return -ENOMEM;
        f->fabric = n;
        struct xpu_fabric_found *x = &n[f->n_fabric++];
        memset(x, 0, sizeof *x);
        xpu_strlcpy(x->path, path, sizeof x->path);
        x->set = set;
        x->chr = S_ISCHR(st.st_mode);
        x->major = major(st.st_rdev);
        x->minor = minor(st.st_rdev);
        x->major_name = node->major;
        x->want_major = want_major;
        return xpu_gather_node(f, dev_fd, path);
}

/* Swap two names of a heap. */
static void swap_names(node_name *h, size_t a, size_t b) {
        node_name t;
        memcpy(t, h[a], sizeof t);
        memcpy(h[a], h[b], sizeof t);
        memcpy(h[b], t, sizeof t);
}

/* Keep NAME among the XPU_FABRIC_NODES_MAX lowest in version order seen so far: H is a max-heap of
 * *N names, so the highest kept is the one a lower name replaces. Returns true when a name (NAME or
 * the one it replaced) was left out. */
static bool keep_lowest(node_name *h, size_t *n, const char *name) {
        size_t i;
        if (*n < XPU_FABRIC_NODES_MAX) {
                i = (*n)++;
                xpu_strlcpy(h[i], name, sizeof h[i]);
                for (size_t up; i > 0 && by_version(h[i], h[up = (i - 1) / 2]) > 0; i = up)
                        swap_names(h, i, up);
                return false;
        }
        if (by_version(name, h[0]) >= 0)
                return true;
        xpu_strlcpy(h[0], name, sizeof h[0]);
        for (i = 0;;) {
                size_t l = 2 * i + 1, r = l + 1, m = i;
                if (l < *n && by_version(h[l], h[m]) > 0)
                        m = l;
                if (r < *n && by_version(h[r], h[m]) > 0)
                        m = r;
                if (m == i)
                        return true;
                swap_names(h, i, m);
                i = m;
        }
}

/* The lowest XPU_FABRIC_NODES_MAX entries (in version order) of the glob's directory that match its
 * last component, as paths in ascending version order, into *RET (*N of them); what was left out is
 * added to *CUT. The whole directory is read, up to XPU_FABRIC_VISIT_MAX entries. */
static int list_glob(int dev_fd, const char *glob, node_name **ret, size_t *n, struct xpu_fabric_cut *cut) {
        *ret = NULL;
        *n = 0;
        const char *slash = strrchr(glob, '/');
        char dir[sizeof(node_name)];
        if (!slash || (size_t)(slash - glob) >= sizeof dir)
                return 0;
        memcpy(dir, glob, (size_t)(slash - glob));
        dir[slash - glob] = '\0';
        int fd = xpu_open_in_root(dev_fd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
        if (fd < 0)
                return 0; /* no such directory: no node */
        _cleanup_closedir_ DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -ENOMEM;
        }
        node_name *names = calloc(XPU_FABRIC_NODES_MAX, sizeof *names);
        if (!names)
                return -ENOMEM;
        size_t matched = 0, left_out = 0;
        size_t visited = 0;
        for (struct dirent *de; (de = readdir(d)); visited++) {
                if (visited == XPU_FABRIC_VISIT_MAX) {
                        cut->unread = true;
                        cut->glob = glob;
                        break;
                }
                if (de->d_name[0] == '.' || fnmatch(slash + 1, de->d_name, FNM_PERIOD) != 0)
                        continue;
                node_name path;
                if (snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= (int)sizeof path)
                        continue; /* longer than any node path the plan holds */
                matched++;
                left_out += keep_lowest(names, n, path);
        }
        qsort(names, *n, sizeof *names, by_version);
        if (left_out) {
                cut->matched += matched;
                cut->left_out += left_out;
                cut->glob = glob;
                xpu_strlcpy(cut->highest, names[*n - 1], sizeof cut->highest);
        }
        *ret = names;
        return 0;
}

/* The nodes of GLOB (one node of set S) into F: the lowest of its directory, what was left out in *CUT. */
static int gather_glob(struct xpu_plan_facts *f, size_t s, const struct xpu_fabric_node *node, int want, int dev_fd,
                       struct xpu_fabric_cut *cut) {
        _cleanup_free_ node_name *names = NULL;
        size_t n = 0;
        if (list_glob(dev_fd, node->glob, &names, &n, cut) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                if (add_found(f, s, node, want, dev_fd, names[i]) < 0)
                        return -ENOMEM;
        return 0;
}

/* The channels request R names of set S, each by its own path (so a directory of any size holds
 * it). When one is missing, the lowest channels the container has come first, for the plan's
 * message (the start fails then: what that listing leaves out is not warned of). */
static int gather_channels(struct xpu_plan_facts *f, size_t s, const struct xpu_fabric_request *r, int want,
                           int dev_fd) {
        const struct xpu_fabric_set *set = f->needs.fabric.sets[s];
        char path[sizeof(node_name)];
        bool missing = false;
        for (size_t c = 0; c < r->n_channels && !missing; c++) {
                struct stat st;
                missing = xpu_fabric_channel_path(set, r->channels[c], path, sizeof path) < 0 ||
                          xpu_stat_in_root(dev_fd, path, false, &st) < 0;
        }
        struct xpu_fabric_cut context = { 0 };
        if (missing && gather_glob(f, s, &set->nodes[0], want, dev_fd, &context) < 0)
                return -ENOMEM;
        for (size_t c = 0; c < r->n_channels; c++)
                if (xpu_fabric_channel_path(set, r->channels[c], path, sizeof path) == 0 &&
                    add_found(f, s, &set->nodes[0], want, dev_fd, path) < 0)
                        return -ENOMEM;
        return 0;
}

int xpu_gather_fabric(struct xpu_plan_facts *f, int dev_fd, int sys_fd) {
        const struct xpu_fabric_needs *fn = &f->needs.fabric;
        /* One read of /proc/devices for every set's majors; a failed read leaves each major unknown. */
        _cleanup_free_ char *devices = malloc(XPU_READ_MAX + 1);
        if (!devices)
                return -ENOMEM;
        ssize_t dl = sys_fd > 0 ? xpu_read_file_in_root(sys_fd, "/proc/devices", devices, XPU_READ_MAX + 1) : -EBADF;
        for (size_t s = 0; s < fn->n; s++) {
                if (!fn->req[s].wanted)
                        continue;
                const struct xpu_fabric_set *set = fn->sets[s];
                for (const struct xpu_fabric_node *node = set->nodes; node->glob; node++) {
                        int want = -ENOENT;
                        if (node->major)
                                want = dl >= 0 ? xpu_proc_devices_major(devices, node->major) : (int)dl;
                        if (want == -ENOMEM)
                                return -ENOMEM;
                        if (set->channels && !fn->req[s].all) {
                                if (gather_channels(f, s, &fn->req[s], want, dev_fd) < 0)
                                        return -ENOMEM;
                                break; /* a channel set has one glob */
                        }
                        if (!strchr(node->glob, '*')) {
                                if (add_found(f, s, node, want, dev_fd, node->glob) < 0)
                                        return -ENOMEM;
                                continue;
                        }
                        if (gather_glob(f, s, node, want, dev_fd, &f->fabric_cut[s]) < 0)
                                return -ENOMEM;
                }
        }
        return 0;
}
