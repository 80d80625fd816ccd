/* SPDX-License-Identifier: Apache-2.0 */
/* The plan of a WSL2 start: see plan-wsl.h. */
#include "plan-wsl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/macro.h"
#include "base/strv.h"
#include "plan-host-files.h"
#include "wsl.h"

/* ldconfig reads the drop-ins in name order, after 000-xpuinit.conf (plan-libdir.c) */
#define WSL_LDSO_CONF_DROPIN "/etc/ld.so.conf.d/001-xpuinit-wsl.conf"

static bool placed_below(const struct xpu_host_files *f, const char *dir) {
        const size_t n = strlen(dir);
        for (size_t i = 0; dir[0] && i < f->n; i++)
                if (strncmp(f->files[i].path, dir, n) == 0 && f->files[i].path[n] == '/')
                        return true;
        return false;
}

/* The links of W (LINK=NAME) to the placed file NAME, where the image has nothing at LINK. */
static int plan_links(struct xpu_plan *p, const struct xpu_plan_facts *facts, const struct xpu_vendor_wsl *w) {
        for (size_t i = 0; w && w->links && w->links[i] && i < 32; i++) {
                const char *eq = strchr(w->links[i], '=');
                if (!eq || (size_t)(eq - w->links[i]) >= PATH_MAX)
                        continue;
                char link[PATH_MAX];
                memcpy(link, w->links[i], (size_t)(eq - w->links[i]));
                link[eq - w->links[i]] = '\0';
                const struct xpu_host_file *to = NULL;
                for (size_t k = 0; !to && k < facts->host_files->n; k++) {
                        const char *slash = strrchr(facts->host_files->files[k].path, '/');
                        if (slash && strcmp(slash + 1, eq + 1) == 0)
                                to = &facts->host_files->files[k];
                }
                if (!to)
                        continue;
                if (facts->wsl_links_taken & (1u << i)) {
                        if (xpu_plan_note(p, "WSL2: %s is the image's; not linked to %s", link, to->path) < 0)
                                return -ENOMEM;
                        continue;
                }
                char parent[PATH_MAX];
                memcpy(parent, link, strlen(link) + 1);
                char *slash = strrchr(parent, '/');
                if (slash && slash != parent)
                        *slash = '\0';
                struct xpu_op *op = xpu_plan_add_op(p, XPU_OP_MKDIR, parent);
                if (!op)
                        return -ENOMEM;
                op->mode = 0755;
                if (!(op = xpu_plan_add_op(p, XPU_OP_SYMLINK, link)))
                        return -ENOMEM;
                memcpy(op->target, to->path, strlen(to->path) + 1);
                if (xpu_plan_note(p, "WSL2: %s -> %s", link, to->path) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int xpu_plan_wsl(struct xpu_plan *p, const struct xpu_plan_options *o, const struct xpu_plan_facts *facts,
                 const char *store, const struct xpu_vendor_wsl *w, char *err, size_t err_size) {
        if (facts->host_files_error < 0 || !facts->host_files) {
                int r = facts->host_files_error < 0 ? facts->host_files_error : -EINVAL;
                xpu_format_error(err, err_size, "cannot list the WSL2 driver files in driver root %s: %s",
                                 o->driver_root, strerror(-r));
                return r;
        }
        if (facts->host_files->n == 0) {
                xpu_format_error(err, err_size,
                                 "WSL2: none of the driver files was found in %s%s%s in driver root %s; give the "
                                 "container the host's /usr/lib/wsl (-v /usr/lib/wsl:/usr/lib/wsl:ro) or pass "
                                 "--driver-root",
                                 store && *store ? store : "", store && *store ? " or " : "", XPU_WSL_LIB_DIR,
                                 o->driver_root);
                return -ENOENT;
        }
        int r = xpu_plan_host_files(p, o, facts);
        if (r < 0) {
                xpu_format_error(err, err_size, "cannot plan the WSL2 driver files at their own path: %s",
                                 strerror(-r));
                return r;
        }
        /* The loader: WSL's own directory first (Microsoft's loaders, libdxcore), then the folder the
         * vendor's libraries came from. */
        const bool in_store = store && placed_below(facts->host_files, store);
        char dirs[2 * PATH_MAX];
        snprintf(dirs, sizeof dirs, "%s%s%s", XPU_WSL_LIB_DIR, in_store ? "\n" : "", in_store ? store : "");
        struct xpu_op *op;
        if (facts->ldconfig && facts->ld_so_conf) {
                if (!(op = xpu_plan_add_op(p, XPU_OP_MKDIR, "/etc/ld.so.conf.d")))
                        return -ENOMEM;
                op->mode = 0755;
                if (!(op = xpu_plan_add_op(p, XPU_OP_WRITE_FILE, WSL_LDSO_CONF_DROPIN)))
                        return -ENOMEM;
                op->mode = 0644;
                if (asprintf(&op->content, "# written by xpuinit: the WSL2 driver's libraries\n%s\n", dirs) < 0) {
                        op->content = NULL;
                        return -ENOMEM;
                }
                if (!(op = xpu_plan_add_op(p, XPU_OP_LDCONFIG, facts->ldconfig)))
                        return -ENOMEM;
                for (char *nl = strchr(dirs, '\n'); nl; nl = strchr(nl, '\n'))
                        *nl = ',';
                if (xpu_plan_note(p, "loader: %s lists %s; %s rebuilds the cache", WSL_LDSO_CONF_DROPIN, dirs,
                                  facts->ldconfig) < 0)
                        return -ENOMEM;
        } else {
                for (char *nl = strchr(dirs, '\n'); nl; nl = strchr(nl, '\n'))
                        *nl = ':';
                const char *old = xpu_env_get(p->env, "LD_LIBRARY_PATH");
                _cleanup_free_ char *v = NULL;
                if (asprintf(&v, "%s%s%s", dirs, old && *old ? ":" : "", old && *old ? old : "") < 0 ||
                    xpu_env_set(&p->env, "LD_LIBRARY_PATH", v) < 0)
                        return -ENOMEM;
                if (xpu_plan_note(p, "loader: LD_LIBRARY_PATH starts with %s (the image has no ldconfig and "
                                     "/etc/ld.so.conf)", dirs) < 0)
                        return -ENOMEM;
        }
        if ((r = plan_links(p, facts, w)) < 0)
                return r;
        return xpu_plan_note(p, "WSL2: the GPU is %s; the Windows driver's files are placed at their own path%s%s",
                             XPU_WSL_DXG, in_store ? ", from its driver store " : "", in_store ? store : "") < 0
                       ? -ENOMEM
                       : 0;
}

int xpu_plan_wsl_env(struct xpu_plan *p, const struct xpu_vendor_wsl *w) {
        for (size_t i = 0; w && w->env && w->env[i]; i++) {
                const char *eq = strchr(w->env[i], '=');
                if (!eq)
                        continue;
                char name[128];
                if ((size_t)(eq - w->env[i]) >= sizeof name)
                        continue;
                memcpy(name, w->env[i], (size_t)(eq - w->env[i]));
                name[eq - w->env[i]] = '\0';
                if (xpu_env_get(p->env, name))
                        continue; /* the image's own choice */
                if (xpu_env_set(&p->env, name, eq + 1) < 0 ||
                    xpu_plan_note(p, "WSL2: %s set for the vendor runtime's WSL2 path", w->env[i]) < 0)
                        return -ENOMEM;
        }
        return 0;
}
