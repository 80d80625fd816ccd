/* SPDX-License-Identifier: Apache-2.0 */
/* The plan's files at their own path (firmware, sockets, loader configuration), from the gathered
 * facts: see xpu_plan_host_files() in plan.h. */
#include "plan-host-files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/str.h"
#include "base/strv.h"
#include "gathered.h"
#include "plan-devices.h"

/* The loader's drop-in for a host list's library directories (as plan-libdir.c's, one name). */
#define HOST_LIST_DROPIN "/etc/ld.so.conf.d/000-xpuinit.conf"
#include "plan.h"

/* Is PATH the library directory's tree (/run/xpuinit) or inside it? */
static bool in_tree(const char *path, const char *tree) {
        size_t n = strlen(tree);
        return strncmp(path, tree, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int xpu_plan_host_files(struct xpu_plan *p, const struct xpu_plan_options *o, const struct xpu_plan_facts *facts) {
        if (facts->host_files_error < 0)
                return facts->host_files_error;
        if (!(p->host_files = xpu_host_files_copy(facts->host_files)))
                return -ENOMEM;
        char tree[PATH_MAX];
        if (xpu_strlcpy(tree, p->library_dir, sizeof tree) < 0)
                return -ENAMETOOLONG;
        *strrchr(tree, '/') = '\0'; /* "/run/xpuinit": absolute, checked by xpu_plan_build */

        _cleanup_free_ char **placed = calloc(p->host_files->n + 1, sizeof(char *));
        _cleanup_free_ char **present = calloc(p->host_files->n + 1, sizeof(char *));
        if (!placed || !present)
                return -ENOMEM;
        size_t n_placed = 0, n_present = 0;
        char last_parent[PATH_MAX] = "";
        for (size_t i = 0; i < p->host_files->n; i++) {
                const struct xpu_host_file *f = &p->host_files->files[i];
                if (tree[0] && (in_tree(f->path, tree) || in_tree(tree, f->path))) {
                        if (xpu_plan_note(p, "skipped %s: it %s %s, which xpuinit's library directory owns", f->path,
                                          in_tree(f->path, tree) ? "is inside" : "would cover", tree) < 0)
                                return -ENOMEM;
                        continue;
                }
                if (facts->host_file_present[i]) {
                        present[n_present++] = (char *)f->path;
                        continue;
                }
                if (facts->host_dir_has_entries[i]) {
                        if (xpu_plan_note(p, f->kind == XPU_HOST_FILE_SYMLINK
                                                     ? "skipped %s: the image has a directory there, which the host's "
                                                       "symlink would replace"
                                                     : "skipped %s: the image has a directory with files there, which "
                                                       "a mount would hide",
                                          f->path) < 0)
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
                struct xpu_op *op;
                /* One mkdir for a run of files in one directory (a list names hundreds there). */
                if (strcmp(parent, last_parent) != 0) {
                        if (!(op = xpu_plan_add_op(p, XPU_OP_MKDIR, parent)))
                                return -ENOMEM;
                        op->mode = 0755;
                        memcpy(last_parent, parent, strlen(parent) + 1);
                }
                if (f->kind == XPU_HOST_FILE_SYMLINK) {
                        /* A host list's sym line: the same link, in either mode. */
                        if (!(op = xpu_plan_add_op(p, XPU_OP_SYMLINK, f->path)))
                                return -ENOMEM;
                        memcpy(op->target, f->resolved, strlen(f->resolved) + 1);
                } else if (p->inject == XPU_INJECT_MOUNT) {
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
                memcpy(op->origin, f->origin, sizeof op->origin);
                placed[n_placed++] = (char *)f->path;
        }
        _cleanup_free_ char *placed_s = xpu_strv_join(placed, ", "), *present_s = xpu_strv_join(present, ", ");
        if (!placed_s || !present_s)
                return -ENOMEM;
        bool links = false; /* a host list's sym lines: made again, neither bound nor linked into the root */
        for (size_t i = 0; i < p->host_files->n; i++)
                links |= p->host_files->files[i].kind == XPU_HOST_FILE_SYMLINK;
        if (n_placed && xpu_plan_note(p, "driver files at their own path (%s from driver root %s%s): %s",
                                      p->inject == XPU_INJECT_MOUNT ? "bind mounts" : "symlinks", o->driver_root,
                                      links ? "; the host's symlinks made again as they are" : "", placed_s) < 0)
                return -ENOMEM;
        if (n_present && xpu_plan_note(p, "already in the container as the driver root's own file(s): %s",
                                       present_s) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < p->host_files->n_skipped; i++)
                if (xpu_plan_note(p, "skipped %s", p->host_files->skipped[i]) < 0)
                        return -ENOMEM;
        return 0;
}

/* Add PATH's directory to *DIRS unless it is there. Returns 0 or -ENOMEM. */
static int push_dir(char ***dirs, const char *path) {
        char dir[PATH_MAX] = "/";
        size_t n = (size_t)(strrchr(path, '/') - path);
        if (n) {
                memcpy(dir, path, n);
                dir[n] = '\0';
        }
        for (char **d = *dirs; d && *d; d++)
                if (strcmp(*d, dir) == 0)
                        return 0;
        return xpu_strv_push(dirs, dir);
}

/* The directories of the shared libraries a host list placed (its lines' "lib" files and links
 * named *.so*), then of its "lib" files the container already has as the host's very file (a CDI
 * spec mounted them at their own path: they need the loader as much), each once, in order,
 * joined by SEP into *RET ("" when none). */
static int listed_library_dirs(const struct xpu_plan *p, const struct xpu_plan_facts *facts, const char *sep,
                               char **ret) {
        char **dirs = NULL;
        int r = 0;
        for (size_t i = 0; i < p->n_ops && r >= 0; i++) {
                const struct xpu_op *op = &p->ops[i];
                if (!op->origin[0] || (op->type != XPU_OP_BIND && op->type != XPU_OP_SYMLINK) ||
                    (op->type == XPU_OP_BIND && op->host_kind != XPU_HOST_FILE_REGULAR) ||
                    !strstr(strrchr(op->path, '/'), ".so"))
                        continue;
                r = push_dir(&dirs, op->path);
        }
        for (size_t i = 0; p->host_files && facts->host_file_present && i < p->host_files->n && r >= 0; i++) {
                const struct xpu_host_file *f = &p->host_files->files[i];
                if (facts->host_file_present[i] && f->kind == XPU_HOST_FILE_REGULAR && f->origin[0] &&
                    strstr(strrchr(f->path, '/'), ".so"))
                        r = push_dir(&dirs, f->path);
        }
        *ret = r < 0 ? NULL : dirs ? xpu_strv_join(dirs, sep) : strdup("");
        xpu_strv_free(dirs);
        return *ret ? 0 : -ENOMEM;
}

/* The loader for a host list's libraries, which keep the host's directories: the image's own
 * ld.so.conf.d drop-in plus its ldconfig when it has both (the toolkit's csv mode runs
 * update-ldcache on those directories too), else LD_LIBRARY_PATH. */
static int plan_host_list_loader(struct xpu_plan *p, const struct xpu_plan_facts *facts) {
        _cleanup_free_ char *lines = NULL, *path = NULL;
        if (listed_library_dirs(p, facts, "\n", &lines) < 0 || listed_library_dirs(p, facts, ":", &path) < 0)
                return -ENOMEM;
        if (!lines[0])
                return 0;
        struct xpu_op *op;
        if (facts->ldconfig && facts->ld_so_conf) {
                if (!(op = xpu_plan_add_op(p, XPU_OP_MKDIR, "/etc/ld.so.conf.d")))
                        return -ENOMEM;
                op->mode = 0755;
                if (!(op = xpu_plan_add_op(p, XPU_OP_WRITE_FILE, HOST_LIST_DROPIN)))
                        return -ENOMEM;
                op->mode = 0644;
                if (asprintf(&op->content, "# written by xpuinit: the directories of the libraries the host lists\n%s\n",
                             lines) < 0) {
                        op->content = NULL;
                        return -ENOMEM;
                }
                if (!xpu_plan_add_op(p, XPU_OP_LDCONFIG, facts->ldconfig))
                        return -ENOMEM;
                return xpu_plan_note(p, "loader: %s lists %s; %s rebuilds the cache", HOST_LIST_DROPIN, path,
                                     facts->ldconfig) < 0
                               ? -ENOMEM
                               : 0;
        }
        const char *old = xpu_env_get(p->env, "LD_LIBRARY_PATH");
        _cleanup_free_ char *v = NULL;
        if (asprintf(&v, "%s%s%s", path, old && *old ? ":" : "", old && *old ? old : "") < 0)
                return -ENOMEM;
        if (xpu_env_set(&p->env, "LD_LIBRARY_PATH", v) < 0)
                return -ENOMEM;
        return xpu_plan_note(p, "loader: LD_LIBRARY_PATH starts with %s (the image has no ldconfig and "
                                "/etc/ld.so.conf)", path) < 0
                       ? -ENOMEM
                       : 0;
}

int xpu_plan_host_list(struct xpu_plan *p, const struct xpu_plan_options *o, const struct xpu_plan_facts *facts,
                       char *err, size_t err_size) {
        if (facts->host_list_error < 0) {
                xpu_format_error(err, err_size, "%s", facts->host_list_why);
                return facts->host_list_error;
        }
        const struct xpu_host_list *l = facts->host_list;
        if (xpu_plan_note(p, "the host lists what its containers get (%s in driver root %s): %zu device node(s) and "
                             "%zu file(s) of it found; the profile's own driver files are not looked for",
                          l->source, o->driver_root, l->nodes->n, facts->host_files ? facts->host_files->n : 0) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < l->n_notes; i++)
                if (xpu_plan_note(p, "%s", l->notes[i]) < 0)
                        return -ENOMEM;
        /* The listed nodes, checked like the GPU's own: their numbers are the host's (dynamic on a
         * Jetson), so only that each is a character device is checked. */
        for (size_t i = 0; i < l->nodes->n; i++) {
                struct xpu_devnode node = { .have_major = false, .optional = false, .any_number = true };
                xpu_strlcpy(node.path, l->nodes->files[i].path, sizeof node.path);
                if (xpu_plan_node_check(p, &node, facts) < 0)
                        return -ENOMEM;
                for (size_t k = 0; k < p->n_ops; k++)
                        if (p->ops[k].type == XPU_OP_CHECK_DEVNODE && strcmp(p->ops[k].path, node.path) == 0 &&
                            !p->ops[k].origin[0])
                                memcpy(p->ops[k].origin, l->nodes->files[i].origin, sizeof p->ops[k].origin);
        }
        for (size_t i = 0; i < l->nodes->n_skipped; i++)
                if (xpu_plan_note(p, "skipped %s", l->nodes->skipped[i]) < 0)
                        return -ENOMEM;
        int r = facts->host_files ? xpu_plan_host_files(p, o, facts) : 0;
        if (r >= 0)
                r = plan_host_list_loader(p, facts);
        if (r == -ENOMEM)
                xpu_format_error(err, err_size, "cannot plan the %zu files the host lists (%s): out of memory; give "
                                 "xpuinit more memory (ulimit -v) or shorten the lists",
                                 facts->host_files ? facts->host_files->n : 0, l->source);
        else if (r < 0)
                xpu_format_error(err, err_size, "cannot plan the files the host lists: %s", strerror(-r));
        return r;
}
