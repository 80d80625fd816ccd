/* SPDX-License-Identifier: Apache-2.0 */
/* The plan's files at their own path (firmware, sockets, loader configuration): see
 * xpu_plan_host_files() in plan.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/strv.h"
#include "plan.h"

/* Does the container root already hold F's path as the driver root's very file? */
static bool already_there(const struct xpu_plan_options *o, const struct xpu_host_file *f) {
        struct stat here;
        return o->container_fd >= 0 && xpu_stat_in_root(o->container_fd, f->path, false, &here) == 0 &&
               here.st_dev == f->dev && here.st_ino == f->ino;
}

/* Does the container root hold PATH as a directory with entries (other than . and ..)? */
static bool image_dir_has_entries(int container_fd, const char *path) {
        if (container_fd < 0)
                return false;
        int fd = xpu_open_in_root(container_fd, path, O_RDONLY | O_DIRECTORY, 0);
        if (fd < 0)
                return false;
        DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return true; /* cannot tell: do not hide it */
        }
        bool any = false;
        for (struct dirent *de; !any && (de = readdir(d));)
                any = strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
        closedir(d);
        return any;
}

/* Is PATH the library directory's tree (/run/xpuinit) or inside it? */
static bool in_tree(const char *path, const char *tree) {
        size_t n = strlen(tree);
        return strncmp(path, tree, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int xpu_plan_host_files(struct xpu_plan *p, const struct xpu_profile *pr, const struct xpu_plan_options *o) {
        int r = xpu_host_files_find(o->driver_fd, p->driver_version, (const char *const *)p->capabilities,
                                    p->n_capabilities, pr->files, pr->n_files, &p->host_files);
        if (r < 0)
                return r;
        char tree[PATH_MAX];
        if (xpu_strlcpy(tree, p->library_dir, sizeof tree) < 0)
                return -ENAMETOOLONG;
        *strrchr(tree, '/') = '\0'; /* "/run/xpuinit": absolute, checked by xpu_plan_build */

        _cleanup_free_ char **placed = calloc(p->host_files->n + 1, sizeof(char *));
        _cleanup_free_ char **present = calloc(p->host_files->n + 1, sizeof(char *));
        if (!placed || !present)
                return -ENOMEM;
        size_t n_placed = 0, n_present = 0;
        for (size_t i = 0; i < p->host_files->n; i++) {
                const struct xpu_host_file *f = &p->host_files->files[i];
                if (tree[0] && (in_tree(f->path, tree) || in_tree(tree, f->path))) {
                        if (xpu_plan_note(p, "skipped %s: it %s %s, which xpuinit's library directory owns", f->path,
                                          in_tree(f->path, tree) ? "is inside" : "would cover", tree) < 0)
                                return -ENOMEM;
                        continue;
                }
                if (already_there(o, f)) {
                        present[n_present++] = (char *)f->path;
                        continue;
                }
                if (f->kind == XPU_HOST_FILE_DIRECTORY && image_dir_has_entries(o->container_fd, f->path)) {
                        if (xpu_plan_note(p, "skipped %s: the image has a directory with files there, which a "
                                             "mount would hide", f->path) < 0)
                                return -ENOMEM;
                        continue;
                }
                char parent[PATH_MAX];
                memcpy(parent, f->path, strlen(f->path) + 1);
                char *slash = strrchr(parent, '/');
                if (slash == parent)
                        slash[1] = '\0';
                else
                        *slash = '\0';
                struct xpu_op *op = xpu_plan_add_op(p, XPU_OP_MKDIR, parent);
                if (!op)
                        return -ENOMEM;
                op->mode = 0755;
                if (p->inject == XPU_INJECT_MOUNT) {
                        if (!(op = xpu_plan_add_op(p, XPU_OP_BIND, f->path)))
                                return -ENOMEM;
                        op->host_file = true;
                        op->host_kind = f->kind;
                        memcpy(op->source, f->resolved, strlen(f->resolved) + 1);
                } else {
                        if (!(op = xpu_plan_add_op(p, XPU_OP_SYMLINK, f->path)))
                                return -ENOMEM;
                        int n = snprintf(op->target, sizeof op->target, "%s%s",
                                         strcmp(o->driver_root, "/") == 0 ? "" : o->driver_root, f->resolved);
                        if (n < 0 || (size_t)n >= sizeof op->target)
                                return -ENAMETOOLONG;
                }
                placed[n_placed++] = (char *)f->path;
        }
        _cleanup_free_ char *placed_s = xpu_strv_join(placed, ", "), *present_s = xpu_strv_join(present, ", ");
        if (!placed_s || !present_s)
                return -ENOMEM;
        if (n_placed && xpu_plan_note(p, "driver files at their own path (%s from driver root %s): %s",
                                      p->inject == XPU_INJECT_MOUNT ? "bind mounts" : "symlinks", o->driver_root,
                                      placed_s) < 0)
                return -ENOMEM;
        if (n_present && xpu_plan_note(p, "already in the container as the driver root's own file(s): %s",
                                       present_s) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < p->host_files->n_skipped; i++)
                if (xpu_plan_note(p, "skipped %s", p->host_files->skipped[i]) < 0)
                        return -ENOMEM;
        return 0;
}
