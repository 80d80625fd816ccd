/* SPDX-License-Identifier: Apache-2.0 */
/* The plan's library directory (/run/xpuinit/lib): the injected driver files, their soname and
 * library links, the links to files CDI gave, and how the loader is pointed at it. */
#include "plan-libdir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/str.h"
#include "base/strv.h"
#include "gathered.h"
#include "plan.h"
#include "version.h"

/* Is NAME a file of the library BASE (LEN bytes): "<base>." and its version? */
static bool is_library_of(const char *name, const char *base, size_t len) {
        return strncmp(name, base, len) == 0 && name[len] == '.';
}

const char *xpu_plan_library(const struct xpu_plan *p, const char *base) {
        const size_t len = strlen(base);
        for (size_t i = 0; p->files && i < p->files->n; i++)
                if (!p->files->files[i].is_binary && is_library_of(p->files->files[i].name, base, len))
                        return p->files->files[i].name;
        for (size_t i = 0; i < p->n_given; i++)
                if (!p->given[i].is_binary && is_library_of(p->given[i].name, base, len))
                        return p->given[i].path;
        return NULL;
}

static const struct xpu_op *find_op_path(const struct xpu_plan *p, const char *path) {
        for (size_t i = 0; i < p->n_ops; i++)
                if (strcmp(p->ops[i].path, path) == 0)
                        return &p->ops[i];
        return NULL;
}

#define LDSO_CONF_DROPIN "/etc/ld.so.conf.d/000-xpuinit.conf"

static int path_join(char *out, size_t size, const char *dir, const char *name) {
        int n = snprintf(out, size, "%s%s%s", dir, (*dir && dir[strlen(dir) - 1] == '/') ? "" : "/", name);
        return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int env_prepend_path(char ***env, const char *name, const char *dir) {
        const char *old = xpu_env_get(*env, name);
        _cleanup_free_ char *v = NULL;
        if (asprintf(&v, "%s%s%s", dir, old && *old ? ":" : "", old && *old ? old : "") < 0)
                return -ENOMEM;
        return xpu_env_set(env, name, v);
}

/* The profile's library_links: LINK -> the injected library of that base (libGLX_indirect.so.0 ->
 * libGLX_nvidia.so.<version>, as the toolkit makes it), or the file CDI gave; none when neither
 * is there, or when LINK is already a name in the directory (a soname link). */
static int plan_library_links(struct xpu_plan *p) {
        for (size_t k = 0; k < p->profile->n_library_links; k++) {
                const char *link = p->profile->library_links[2 * k];
                const char *target = xpu_plan_library(p, p->profile->library_links[2 * k + 1]);
                char path[PATH_MAX];
                if (!target || path_join(path, sizeof path, p->library_dir, link) < 0)
                        continue;
                if (find_op_path(p, path)) {
                        if (xpu_plan_note(p, "library link %s not made: %s already has that name", link,
                                          p->library_dir) < 0)
                                return -ENOMEM;
                        continue;
                }
                struct xpu_op *op = xpu_plan_add_op(p, XPU_OP_SYMLINK, path);
                if (!op || xpu_strlcpy(op->target, target, sizeof op->target) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* The library directory: the injected files (bind mounts or links), their soname links, and soname
 * links to the files CDI gave that the image's loader would not find; then the loader and PATH. */
/* FILES into DIR (binaries into BINDIR): a read-only bind mount (MOUNT) or a symlink into the
 * driver root each, and each library's soname link beside it. */
static int plan_dir_files(struct xpu_plan *p, const struct xpu_plan_options *o, const struct xpu_driver_files *files,
                          bool mount, const char *dir, const char *bindir) {
        struct xpu_op *op;
        for (size_t i = 0; files && i < files->n; i++) {
                const struct xpu_driver_file *f = &files->files[i];
                char dst[PATH_MAX];
                if (path_join(dst, sizeof dst, f->is_binary ? bindir : dir, f->name) < 0)
                        return -ENAMETOOLONG;
                if (mount) {
                        if (!(op = xpu_plan_add_op(p, XPU_OP_BIND, dst)))
                                return -ENOMEM;
                        if (xpu_strlcpy(op->source, f->path, sizeof op->source) < 0)
                                return -ENAMETOOLONG;
                } else {
                        if (!(op = xpu_plan_add_op(p, XPU_OP_SYMLINK, dst)))
                                return -ENOMEM;
                        if (path_join(op->target, sizeof op->target, o->driver_root, f->path + (f->path[0] == '/')) < 0)
                                return -ENAMETOOLONG;
                }
                /* soname link (libcuda.so.1 -> libcuda.so.550.90.07) */
                /* (libs.c only hands out plain file names; a '/' would leave the directory.) */
                if (!f->is_binary && f->soname[0] && strcmp(f->soname, f->name) != 0 && !strchr(f->soname, '/')) {
                        char link[PATH_MAX];
                        if (path_join(link, sizeof link, dir, f->soname) < 0)
                                return -ENAMETOOLONG;
                        if (!(op = xpu_plan_add_op(p, XPU_OP_SYMLINK, link)))
                                return -ENOMEM;
                        xpu_strlcpy(op->target, f->name, sizeof op->target);
                }
        }
        return 0;
}

int xpu_plan_library_dir(struct xpu_plan *p, const struct xpu_plan_options *o, const struct xpu_plan_facts *facts) {
        /* Nothing to bind (only links to what CDI gave): no tmpfs, no private namespace needed. */
        const bool mount = p->inject == XPU_INJECT_MOUNT && (p->files->n > 0 || (p->files32 && p->files32->n > 0));
        bool have_bins = false;
        for (size_t i = 0; i < p->files->n; i++)
                have_bins |= p->files->files[i].is_binary;

        char base[PATH_MAX], bindir[PATH_MAX];
        if (xpu_strlcpy(base, p->library_dir, sizeof base) < 0)
                return -ENAMETOOLONG;
        char *slash = strrchr(base, '/');
        if (!slash || slash == base)
                return -EINVAL;
        *slash = '\0'; /* "/run/xpuinit" holds lib/ and bin/ */
        if (path_join(bindir, sizeof bindir, base, "bin") < 0)
                return -ENAMETOOLONG;

        struct xpu_op *op;
        if (mount) {
                if (!(op = xpu_plan_add_op(p, XPU_OP_MKDIR, base)))
                        return -ENOMEM;
                op->mode = 0755;
                if (!(op = xpu_plan_add_op(p, XPU_OP_TMPFS, base)))
                        return -ENOMEM;
                op->mode = 0755;
        }
        if (!(op = xpu_plan_add_op(p, XPU_OP_MKDIR, p->library_dir)))
                return -ENOMEM;
        op->mode = 0755;
        if (have_bins) {
                if (!(op = xpu_plan_add_op(p, XPU_OP_MKDIR, bindir)))
                        return -ENOMEM;
                op->mode = 0755;
        }
        int r = plan_dir_files(p, o, p->files, mount, p->library_dir, bindir);
        if (r < 0)
                return r;
        if (p->lib32_dir[0]) {
                if (!(op = xpu_plan_add_op(p, XPU_OP_MKDIR, p->lib32_dir)))
                        return -ENOMEM;
                op->mode = 0755;
                if ((r = plan_dir_files(p, o, p->files32, mount, p->lib32_dir, bindir)) < 0)
                        return r;
        }
        for (size_t i = 0; i < p->n_given; i++) {
                const struct xpu_given_file *g = &p->given[i];
                char link[PATH_MAX];
                if (!g->link)
                        continue;
                if (path_join(link, sizeof link, p->library_dir, g->soname) < 0)
                        return -ENAMETOOLONG;
                if (!(op = xpu_plan_add_op(p, XPU_OP_SYMLINK, link)))
                        return -ENOMEM;
                if (xpu_strlcpy(op->target, g->path, sizeof op->target) < 0) /* a path in the container */
                        return -ENAMETOOLONG;
        }
        if ((r = plan_library_links(p)) < 0)
                return r;
        if (mount && !(op = xpu_plan_add_op(p, XPU_OP_REMOUNT_RO, base)))
                return -ENOMEM;

        /* Loader: an ld.so.conf.d drop-in plus ldconfig when the image has both, else
         * LD_LIBRARY_PATH. */
        const char *ldconfig = facts->ldconfig;
        if (ldconfig && facts->ld_so_conf) {
                if (!(op = xpu_plan_add_op(p, XPU_OP_MKDIR, "/etc/ld.so.conf.d")))
                        return -ENOMEM;
                op->mode = 0755;
                if (!(op = xpu_plan_add_op(p, XPU_OP_WRITE_FILE, LDSO_CONF_DROPIN)))
                        return -ENOMEM;
                op->mode = 0644;
                const bool fc = p->forward_compat_dir[0], l32 = p->lib32_dir[0];
                if (asprintf(&op->content, "# written by xpuinit: %shost driver libraries%s\n%s%s%s%s%s\n",
                             fc ? "the image's forward-compatibility libraries first, then the " : "",
                             l32 ? " (64-bit, then 32-bit)" : "", fc ? p->forward_compat_dir : "", fc ? "\n" : "",
                             p->library_dir, l32 ? "\n" : "", p->lib32_dir) < 0) {
                        op->content = NULL;
                        return -ENOMEM;
                }
                if (!(op = xpu_plan_add_op(p, XPU_OP_LDCONFIG, ldconfig)))
                        return -ENOMEM;
                char dirs[3 * PATH_MAX + 8];
                snprintf(dirs, sizeof dirs, "%s%s%s%s%s", fc ? p->forward_compat_dir : "", fc ? ", " : "",
                         p->library_dir, l32 ? ", " : "", p->lib32_dir);
                if (o->from_outside
                            ? xpu_plan_note(p, "loader: %s lists %s; the host's ldconfig -X -r rebuilds the cache (the image "
                                      "has %s, which never runs from outside)",
                                   LDSO_CONF_DROPIN, dirs, ldconfig) < 0
                            : xpu_plan_note(p, "loader: %s lists %s; %s rebuilds the cache", LDSO_CONF_DROPIN, dirs,
                                   ldconfig) < 0)
                        return -ENOMEM;
        } else {
                const char *old_llp = xpu_env_get(p->env, "LD_LIBRARY_PATH");
                const size_t old_len = old_llp && *old_llp ? strlen(old_llp) + 1 : 0; /* with its ':' */
                /* (the loader skips a library of the other ELF class and goes on) */
                if ((p->lib32_dir[0] && env_prepend_path(&p->env, "LD_LIBRARY_PATH", p->lib32_dir) < 0) ||
                    env_prepend_path(&p->env, "LD_LIBRARY_PATH", p->library_dir) < 0 ||
                    (p->forward_compat_dir[0] && env_prepend_path(&p->env, "LD_LIBRARY_PATH", p->forward_compat_dir) < 0))
                        return -ENOMEM;
                const char *llp = xpu_env_get(p->env, "LD_LIBRARY_PATH");
                size_t ours = strlen(llp) - old_len;
                if (xpu_plan_note(p, "loader: LD_LIBRARY_PATH starts with %.*s (the image has no ldconfig and "
                                     "/etc/ld.so.conf)", (int)ours, llp) < 0)
                        return -ENOMEM;
        }
        if (have_bins) {
                const char *old = xpu_env_get(p->env, "PATH");
                _cleanup_free_ char *v = NULL;
                if (asprintf(&v, "%s:%s", old ? old : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                             bindir) < 0)
                        return -ENOMEM;
                if (xpu_env_set(&p->env, "PATH", v) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* Is there anything for the library directory: a file to inject, or a link to a CDI file? */
bool xpu_plan_library_dir_needed(const struct xpu_plan *p) {
        if (p->files->n > 0 || (p->files32 && p->files32->n > 0))
                return true;
        for (size_t i = 0; i < p->n_given; i++)
                if (p->given[i].link)
                        return true;
        return false;
}


/* ---- forward compatibility -------------------------------------------------------------------- */


int xpu_plan_forward_compat(struct xpu_plan *p, const struct xpu_profile *pr, const struct xpu_plan_facts *facts) {
        /* Only when the plan gives the workload the host's build of that library (compute for
         * libcuda): with no library directory, or without that library, there is no order to set. */
        if (!pr->forward_compat_library || !xpu_plan_library(p, pr->forward_compat_library))
                return 0;
        int r = facts->forward_compat;
        if (r <= 0)
                return r == -ENOMEM ? r : 0; /* none in the image (or unreadable: the host's, as always) */
        const char *version = facts->forward_compat_version;
        const char *dir = pr->forward_compat_dir, *lib = pr->forward_compat_library;
        if (!xpu_forward_compat_newer(version, p->driver_version))
                return xpu_plan_note(p, "forward compatibility: the image's %s/%s.%s is not of a newer driver branch "
                                        "than the running driver %s; the host's libraries are used",
                                     dir, lib, version, p->driver_version);
        /* The requirement as checked once the rich facts were read (gather.h). */
        const char *why = facts->forward_compat_why;
        r = facts->forward_compat_require;
        if (r == -ENOMEM)
                return r;
        if (r <= 0)
                return xpu_plan_note(p, "forward compatibility: the image's %s/%s.%s is newer than the running "
                                        "driver %s, but the profile's forward_compat.require is not met (%s); "
                                        "the host's libraries are used",
                                     dir, lib, version, p->driver_version, why);
        if (xpu_strlcpy(p->forward_compat_dir, dir, sizeof p->forward_compat_dir) < 0)
                return 0;
        return xpu_plan_note(p, "forward compatibility: the image's %s/%s.%s is newer than the running driver %s "
                                "(%s): the loader finds %s before %s",
                             dir, lib, version, p->driver_version, why, dir, p->library_dir);
}
