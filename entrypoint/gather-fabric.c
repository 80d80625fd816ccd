/* SPDX-License-Identifier: Apache-2.0 */
/* gather: the nodes of the fabric device sets a start asks for (gather.h, xpu_gather_fabric),
 * found under the dev root by each set's globs, with the majors /proc/devices gives their drivers.
 * Reads only; silent. Bounded: at most XPU_FABRIC_NODES_MAX nodes a set and DIR_VISIT_MAX
 * entries a directory. */
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

#define DIR_VISIT_MAX 16384 /* entries read from one directory (a /dev holds a few hundred) */

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

/* The entries of the glob's directory that match its last component, in version order, into
 * *RET (*N of them, at most XPU_FABRIC_NODES_MAX; *TRUNCATED when more matched). */
static int list_glob(int dev_fd, const char *glob, node_name **ret, size_t *n, bool *truncated) {
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
        size_t visited = 0;
        for (struct dirent *de; (de = readdir(d)) && visited < DIR_VISIT_MAX; visited++) {
                if (de->d_name[0] == '.' || fnmatch(slash + 1, de->d_name, FNM_PERIOD) != 0)
                        continue;
                if (strlen(dir) + 1 + strlen(de->d_name) >= sizeof(node_name))
                        continue; /* longer than any node path the plan holds */
                if (*n == XPU_FABRIC_NODES_MAX) {
                        *truncated = true;
                        break;
                }
                size_t dl = strlen(dir);
                memcpy(names[*n], dir, dl);
                names[*n][dl] = '/';
                memcpy(names[*n] + dl + 1, de->d_name, strlen(de->d_name) + 1); /* fits: checked above */
                (*n)++;
        }
        if (visited >= DIR_VISIT_MAX)
                *truncated = true;
        qsort(names, *n, sizeof *names, by_version);
        *ret = names;
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
                for (const struct xpu_fabric_node *node = fn->sets[s]->nodes; node->glob; node++) {
                        int want = -ENOENT;
                        if (node->major)
                                want = dl >= 0 ? xpu_proc_devices_major(devices, node->major) : (int)dl;
                        if (want == -ENOMEM)
                                return -ENOMEM;
                        if (!strchr(node->glob, '*')) {
                                if (add_found(f, s, node, want, dev_fd, node->glob) < 0)
                                        return -ENOMEM;
                                continue;
                        }
                        _cleanup_free_ node_name *names = NULL;
                        size_t n = 0;
                        if (list_glob(dev_fd, node->glob, &names, &n, &f->fabric_truncated[s]) < 0)
                                return -ENOMEM;
                        for (size_t i = 0; i < n; i++)
                                if (add_found(f, s, node, want, dev_fd, names[i]) < 0)
                                        return -ENOMEM;
                }
        }
        return 0;
}
