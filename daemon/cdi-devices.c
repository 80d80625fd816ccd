/* SPDX-License-Identifier: Apache-2.0 */
/* The node's CDI specs read back (cdi-devices.h): the directories, each device node's numbers,
 * and which spec's device counts when two name the same one. One file's contents: cdi-spec-read.h. */
#include "cdi-devices.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/root-file.h"
#include "base/log.h"
#include "base/macro.h"
#include "base/path.h"
#include "cdi-spec-read.h"

/* One device as one spec file gave it. */
struct cdi_dev {
        char *name;    /* qualified: "<kind>=<name>" */
        unsigned prio; /* the index of its directory: higher wins */
        unsigned file; /* the index of its file in this load (name order within a directory) */
        dev_t *nodes;
        size_t n_nodes;
};

struct xpud_cdi_devices {
        struct cdi_dev *devs; /* sorted by name after the load: one per name */
        size_t n_devs;
        size_t n_files;
};

/* What one load works with. */
struct load {
        struct xpud_cdi_devices *c;
        size_t cap;
        int root_fd;
        int dev_fd;
        const char *root;    /* for messages: "" when "/" */
        char *buf;           /* one file's bytes, XPUD_CDI_SPEC_FILE_MAX + 1 */
        char **paths;        /* each file's path (for the messages about two files) */
        size_t n_paths;
        size_t n_listed;     /* spec files listed so far, all directories */
        bool warned_too_many;
};

static void dev_clear(struct cdi_dev *d) {
        free(d->name);
        free(d->nodes);
}

struct xpud_cdi_devices *xpud_cdi_devices_free(struct xpud_cdi_devices *c) {
        if (!c)
                return NULL;
        for (size_t i = 0; i < c->n_devs; i++)
                dev_clear(&c->devs[i]);
        free(c->devs);
        free(c);
        return NULL;
}

size_t xpud_cdi_devices_n_files(const struct xpud_cdi_devices *c) {
        return c ? c->n_files : 0;
}

/* The numbers of node N: those the spec gives (a major that is not 0: CDI's rule, its writers
 * omit a minor of 0), else the node's own (hostPath, else path, under the dev root), when it is a
 * character device. An untyped node with numbers is looked at too: one that is there and is no
 * character device counts for nothing, one that is not there keeps the spec's numbers (xpud may
 * see less of /dev than the engine). Returns 1 with *RET, 0 when it is no GPU's node (a block
 * device, a FIFO, a node without numbers that is not there). */
static int node_number(const struct load *l, const struct xpud_cdi_node *n, dev_t *ret) {
        if (n->type == XPUD_CDI_NODE_OTHER)
                return 0;
        if (n->has_numbers && n->type == XPUD_CDI_NODE_CHAR) {
                *ret = makedev(n->major, n->minor);
                return 1;
        }
        const char *p = n->host_path ? n->host_path : n->path;
        struct stat st;
        int r = l->dev_fd < 0 ? l->dev_fd : xpu_stat_in_root(l->dev_fd, p, false, &st);
        if (r == 0 && S_ISCHR(st.st_mode)) {
                *ret = n->has_numbers ? makedev(n->major, n->minor) : st.st_rdev;
                return 1;
        }
        if (r < 0 && n->has_numbers) {
                *ret = makedev(n->major, n->minor);
                return 1;
        }
        /* The engine cannot give a container this node either; nothing to map. */
        log_debug("CDI device node %s: %s; left out", p, r < 0 ? strerror(-r) : "not a character device");
        return 0;
}

/* Append the numbers of NODES (N) to V (*NV, at most XPUD_CDI_DEVICE_NODES_MAX), each once.
 * Returns the number that did not fit. */
static size_t add_nodes(const struct load *l, const struct xpud_cdi_node *nodes, size_t n, dev_t *v, size_t *nv) {
        size_t over = 0;
        for (size_t i = 0; i < n; i++) {
                dev_t d;
                if (!node_number(l, &nodes[i], &d))
                        continue;
                bool seen = false;
                for (size_t k = 0; k < *nv && !seen; k++)
                        seen = v[k] == d;
                if (seen)
                        continue;
                if (*nv >= XPUD_CDI_DEVICE_NODES_MAX)
                        over++;
                else
                        v[(*nv)++] = d;
        }
        return over;
}

/* The devices of spec S (read from the file of index FILE, path PATH) into the load. */
static int take_spec(struct load *l, const struct xpud_cdi_spec *s, unsigned prio, unsigned file, const char *path) {
        dev_t common[XPUD_CDI_DEVICE_NODES_MAX];
        size_t n_common = 0, over = add_nodes(l, s->common, s->n_common, common, &n_common);
        for (size_t i = 0; i < s->n_devices; i++) {
                const struct xpud_cdi_spec_device *sd = &s->devices[i];
                dev_t v[XPUD_CDI_DEVICE_NODES_MAX];
                size_t nv = 0;
                over += add_nodes(l, sd->nodes, sd->n_nodes, v, &nv);
                /* The spec's own nodes come with every one of its devices. */
                for (size_t k = 0; k < n_common; k++) {
                        bool seen = false;
                        for (size_t j = 0; j < nv && !seen; j++)
                                seen = v[j] == common[k];
                        if (seen)
                                continue;
                        if (nv < XPUD_CDI_DEVICE_NODES_MAX)
                                v[nv++] = common[k];
                        else
                                over++;
                }
                if (l->c->n_devs == l->cap) {
                        size_t cap = l->cap ? 2 * l->cap : 16;
                        struct cdi_dev *p = reallocarray(l->c->devs, cap, sizeof *p);
                        if (!p)
                                return -ENOMEM;
                        l->c->devs = p;
                        l->cap = cap;
                }
                struct cdi_dev *d = &l->c->devs[l->c->n_devs];
                *d = (struct cdi_dev){ .prio = prio, .file = file, .n_nodes = nv };
                if (asprintf(&d->name, "%s=%s", s->kind, sd->name) < 0) {
                        d->name = NULL;
                        return -ENOMEM;
                }
                if (nv && !(d->nodes = malloc(nv * sizeof *v))) {
                        free(d->name);
                        return -ENOMEM;
                }
                if (nv)
                        memcpy(d->nodes, v, nv * sizeof *v);
                l->c->n_devs++;
        }
        if (over)
                log_warning("CDI spec %s%s: %zu device nodes past the %u a device may have are left out; a GPU "
                            "they stand for is not matched to its claim (split the device)",
                            l->root, path, over, XPUD_CDI_DEVICE_NODES_MAX);
        return 0;
}

/* Read spec file NAME of directory DIR (index PRIO). Returns 0 (also when the file is left out,
 * with a warning) or -ENOMEM. */
static int read_file(struct load *l, const char *dir, const char *name, unsigned prio) {
        char path[PATH_MAX];
        size_t dl = strlen(dir);
        while (dl > 1 && dir[dl - 1] == '/')
                dl--;
        if (snprintf(path, sizeof path, "%.*s%s%s", (int)dl, dir, dl > 1 ? "/" : "", name) >= (int)sizeof path) {
                log_warning("CDI spec %s%s/%s: the path is too long; left out", l->root, dir, name);
                return 0;
        }
        struct stat st;
        _cleanup_close_ int fd = xpu_open_file_in_root(l->root_fd, path, &st);
        if (fd == -EISDIR)
                return 0; /* a directory named *.json: not descended into, as the engines do */
        if (fd == -EINVAL) {
                log_warning("CDI spec %s%s is not a regular file (a FIFO, device node or socket); left out: make it "
                            "a regular file", l->root, path);
                return 0;
        }
        if (fd == -ENOENT || fd == -ELOOP) {
                log_warning("CDI spec %s%s cannot be read: %s; left out (a symlink that leads nowhere below %s? "
                            "links resolve inside it)",
                            l->root, path, strerror(-fd), *l->root ? l->root : "/");
                return 0;
        }
        if (fd < 0) {
                log_warning("CDI spec %s%s cannot be read: %s; left out (check xpud's access to it)", l->root, path,
                            strerror(-fd));
                return 0;
        }
        ssize_t n = st.st_size > (off_t)XPUD_CDI_SPEC_FILE_MAX ? (ssize_t)XPUD_CDI_SPEC_FILE_MAX + 1
                                                             : xpu_read_full(fd, l->buf, XPUD_CDI_SPEC_FILE_MAX + 1);
        if (n < 0) {
                log_warning("CDI spec %s%s cannot be read: %s; left out", l->root, path, strerror((int)-n));
                return 0;
        }
        if ((size_t)n > XPUD_CDI_SPEC_FILE_MAX) {
                log_warning("CDI spec %s%s is larger than %u bytes, the most xpud reads; left out (one spec per "
                            "device class or claim is far smaller)",
                            l->root, path, XPUD_CDI_SPEC_FILE_MAX);
                return 0;
        }
        char err[256] = "";
        struct xpud_cdi_spec *s = NULL;
        int r = xpud_cdi_spec_read(l->buf, (size_t)n, &s, err, sizeof err);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                log_warning("CDI spec %s%s left out: %s (%s)", l->root, path, err,
                            r == -E2BIG ? "past xpud's bounds on one spec: a real one is far smaller"
                                        : "container engines refuse it too: fix or regenerate it");
                return 0;
        }
        char **p = reallocarray(l->paths, l->n_paths + 1, sizeof *p);
        if (p)
                l->paths = p;
        if (!p || !(l->paths[l->n_paths] = strdup(path))) {
                xpud_cdi_spec_free(s);
                return -ENOMEM;
        }
        unsigned file = (unsigned)l->n_paths++;
        r = take_spec(l, s, prio, file, path);
        xpud_cdi_spec_free(s);
        if (r < 0)
                return r;
        l->c->n_files++;
        return 0;
}

static bool spec_name(const struct dirent *de) {
        size_t n = strlen(de->d_name);
        if (de->d_name[0] == '.' || de->d_type == DT_DIR || n < 6)
                return false;
        return strcmp(de->d_name + n - 5, ".json") == 0 || strcmp(de->d_name + n - 5, ".yaml") == 0;
}

static int str_cmp(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The spec files of directory DIR (index PRIO), in name order. Returns 0 or -ENOMEM. */
static int scan_dir(struct load *l, const char *dir, unsigned prio) {
        int fd = xpu_open_in_root(l->root_fd, dir, O_RDONLY | O_DIRECTORY, 0);
        if (fd == -ENOENT) {
                log_debug("CDI spec directory %s%s: not there", l->root, dir);
                return 0;
        }
        if (fd < 0) {
                log_warning("CDI spec directory %s%s cannot be read: %s; its specs are left out (check "
                            "--cdi-spec-dirs and xpud's access to it)",
                            l->root, dir, strerror(-fd));
                return 0;
        }
        _cleanup_closedir_ DIR *d = fdopendir(fd);
        if (!d) {
                int e = negative_errno();
                close(fd);
                if (e == -ENOMEM)
                        return e;
                log_warning("CDI spec directory %s%s cannot be listed: %s; its specs are left out", l->root, dir,
                            strerror(-e));
                return 0;
        }
        char **names = NULL;
        size_t n = 0;
        int r = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (!spec_name(de))
                        continue;
                if (l->n_listed >= XPUD_CDI_SPEC_FILES_MAX) {
                        if (!l->warned_too_many)
                                log_warning("CDI spec directory %s%s: more than %u spec files in all; the rest "
                                            "are left out, which ones depending on the directory's order "
                                            "(remove stale specs)",
                                            l->root, dir, XPUD_CDI_SPEC_FILES_MAX);
                        l->warned_too_many = true;
                        break;
                }
                char **p = reallocarray(names, n + 1, sizeof *p);
                if (!p || !(p[n] = strdup(de->d_name))) {
                        names = p ? p : names;
                        r = -ENOMEM;
                        break;
                }
                names = p;
                n++;
                l->n_listed++;
        }
        if (r == 0 && n)
                qsort(names, n, sizeof *names, str_cmp);
        for (size_t i = 0; i < n && r == 0; i++)
                r = read_file(l, dir, names[i], prio);
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
        return r;
}

/* By name, then the higher directory first, then the earlier file. */
static int dev_cmp(const void *a, const void *b) {
        const struct cdi_dev *x = a, *y = b;
        int r = strcmp(x->name, y->name);
        if (r)
                return r;
        if (x->prio != y->prio)
                return x->prio > y->prio ? -1 : 1;
        return x->file < y->file ? -1 : x->file > y->file;
}

/* One device per name: the one of the latest directory. Two files of that directory naming it
 * are a conflict the CDI library (pkg/cdi/cache.go) resolves by using neither: so does xpud. */
static void resolve(struct load *l) {
        struct xpud_cdi_devices *c = l->c;
        if (c->n_devs > 1)
                qsort(c->devs, c->n_devs, sizeof *c->devs, dev_cmp);
        size_t out = 0;
        for (size_t i = 0; i < c->n_devs;) {
                size_t j = i + 1;
                bool conflict = false;
                for (; j < c->n_devs && strcmp(c->devs[j].name, c->devs[i].name) == 0; j++) {
                        if (c->devs[j].prio == c->devs[i].prio) {
                                conflict = true;
                                log_warning("CDI device %s is in both %s%s and %s%s: container engines use "
                                            "neither, so xpud leaves it out (remove one of them)",
                                            c->devs[i].name, l->root, l->paths[c->devs[i].file], l->root,
                                            l->paths[c->devs[j].file]);
                        } else
                                log_debug("CDI device %s of %s%s replaces the one of %s%s", c->devs[i].name,
                                          l->root, l->paths[c->devs[i].file], l->root, l->paths[c->devs[j].file]);
                }
                for (size_t k = i + 1; k < j; k++)
                        dev_clear(&c->devs[k]);
                if (conflict)
                        dev_clear(&c->devs[i]);
                else
                        c->devs[out++] = c->devs[i];
                i = j;
        }
        c->n_devs = out;
}

int xpud_cdi_devices_load(const char *const *dirs, size_t n_dirs, const char *root, const char *dev_root,
                          struct xpud_cdi_devices **ret, char *err, size_t err_size) {
        for (size_t i = 0; i < n_dirs; i++)
                if (!dirs[i] || dirs[i][0] != '/') {
                        xpu_format_error(err, err_size,
                                         "CDI spec directory \"%s\" is not an absolute path: give it as /etc/cdi, "
                                         "/var/run/cdi, ...",
                                         dirs[i] ? dirs[i] : "");
                        return -EINVAL;
                }
        if (n_dirs > UINT_MAX) {
                xpu_format_error(err, err_size, "%zu CDI spec directories: too many", n_dirs);
                return -EINVAL;
        }
        bool rooted = root && strcmp(root, "/") != 0;
        struct load l = { .root = rooted ? root : "", .root_fd = -EBADF, .dev_fd = -EBADF };
        int r = -ENOMEM;
        if (!(l.c = calloc(1, sizeof *l.c)) || !(l.buf = malloc(XPUD_CDI_SPEC_FILE_MAX + 1)))
                goto out;
        r = 0;
        if (n_dirs == 0)
                goto out;
        l.root_fd = xpu_open_root(rooted ? root : "/");
        if (l.root_fd < 0) {
                log_warning("CDI specs below %s cannot be read: %s; no DRA claim is matched to a GPU (check the "
                            "host root's mount)",
                            rooted ? root : "/", strerror(-l.root_fd));
                goto out;
        }
        l.dev_fd = xpu_open_root(dev_root ? dev_root : "/");
        if (l.dev_fd < 0)
                log_warning("dev root %s cannot be opened: %s; CDI device nodes without numbers are left out",
                            dev_root ? dev_root : "/", strerror(-l.dev_fd));
        for (size_t i = 0; i < n_dirs && r == 0; i++)
                r = scan_dir(&l, dirs[i], (unsigned)i);
        if (r == 0)
                resolve(&l);
out:
        if (l.root_fd >= 0)
                close(l.root_fd);
        if (l.dev_fd >= 0)
                close(l.dev_fd);
        for (size_t i = 0; i < l.n_paths; i++)
                free(l.paths[i]);
        free(l.paths);
        free(l.buf);
        if (r < 0) {
                xpud_cdi_devices_free(l.c);
                return r;
        }
        *ret = l.c;
        return 0;
}

static int dev_key_cmp(const void *key, const void *elem) {
        return strcmp(key, ((const struct cdi_dev *)elem)->name);
}

int xpud_cdi_devices_lookup(const struct xpud_cdi_devices *c, const char *name, dev_t *nodes, size_t max,
                            size_t *n) {
        if (!xpud_cdi_qualified_name_valid(name))
                return -EINVAL;
        const struct cdi_dev *d = c && c->n_devs ? bsearch(name, c->devs, c->n_devs, sizeof *c->devs, dev_key_cmp)
                                                 : NULL;
        if (!d)
                return -ENOENT;
        size_t k = d->n_nodes < max ? d->n_nodes : max;
        if (k)
                memcpy(nodes, d->nodes, k * sizeof *nodes);
        *n = k;
        return 0;
}
