/* SPDX-License-Identifier: Apache-2.0 */
/* The selection's variables from the environment: see xpu_selection_env_read() in select.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "base/macro.h"
#include "select.h"
#include "rich.h"
#include "vendor.h"

void xpu_selection_env_read(const struct xpu_inventory *inv, struct xpu_selection_env *env) {
        /* A vendor's own variable means nothing on a host without that vendor's driver: one image
         * for every vendor may carry all their variables. The CDI mark is the variable the vendor's
         * CDI spec sets beside the devices and driver files it gives (xpu_vendor_visibility). */
        *env = (struct xpu_selection_env){
                .xpu_visible = secure_getenv("XPU_VISIBLE_DEVICES"),
        };
        const struct xpu_vendor_mig *mv = xpu_mig_vendor() ? &xpu_mig_vendor()->mig : NULL; /* its toolkit's MIG variables */
        if (mv) {
                env->mig_config = secure_getenv(mv->config_variable);
                env->mig_monitor = mv->monitor_variable ? secure_getenv(mv->monitor_variable) : NULL;
        }
        for (int v = 0; v < _XPU_VENDOR_MAX; v++) {
                const struct xpu_vendor_visibility *vis = &xpu_vendors[v]->visibility;
                const char *value = vis->variable ? secure_getenv(vis->variable) : NULL;
                if (xpu_inventory_count(inv, (enum xpu_vendor)v) == 0 && !inv->vendors[v].driver_loaded) {
                        if (value)
                                log_info("%s=%s ignored: no %s driver on this host", vis->variable, value,
                                         xpu_vendor_to_string((enum xpu_vendor)v));
                        continue;
                }
                env->visible[v] = value;
                const char *mark = vis->cdi_mark ? secure_getenv(vis->cdi_mark) : NULL;
                if (mark && *mark && (!vis->cdi_mark_value || strcmp(mark, vis->cdi_mark_value) == 0)) {
                        env->cdi_mark[v] = vis->cdi_mark;
                        env->cdi_libdir[v] = vis->cdi_mark_is_libdir ? mark : NULL;
                        log_debug("%s=%s: the container was made from %s's CDI spec", vis->cdi_mark, mark,
                                  xpu_vendor_to_string((enum xpu_vendor)v));
                }
        }
}

int xpu_selection_translate(const struct xpu_inventory *inv, enum xpu_vendor v, const char *value, char **ret_list,
                            char *err, size_t err_size) {
        const struct xpu_vendor_visibility *vis = &xpu_vendors[v]->visibility;
        *ret_list = NULL;
        if (!vis->translate)
                return 0;
        _cleanup_free_ char *list = malloc(XPU_SELECTION_LIST_MAX);
        if (!list)
                return -ENOMEM;
        int r = vis->translate(inv, value, list, XPU_SELECTION_LIST_MAX, err, err_size);
        if (r < 0)
                return r;
        *ret_list = TAKE_PTR(list);
        return 0;
}

size_t xpu_selection_count(const struct xpu_selection *s, const struct xpu_inventory *inv,
                           enum xpu_vendor vendor) {
        size_t n = 0;
        for (size_t i = 0; s && inv && i < s->n && i < inv->n_devices; i++)
                if (s->selected[i] && inv->devices[i].vendor == vendor)
                        n++;
        return n;
}

int xpu_selection_write_back(const struct xpu_inventory *inv, struct xpu_selection *s, const char *const *visible,
                             char *err, size_t err_size) {
        for (int v = 0; v < _XPU_VENDOR_MAX; v++) {
                const struct xpu_vendor_visibility *vis = &xpu_vendors[v]->visibility;
                if (!vis->mask || (!visible[v] && xpu_selection_count(s, inv, (enum xpu_vendor)v) == 0))
                        continue;
                char *out = malloc(XPU_SELECTION_LIST_MAX);
                if (!out)
                        return -ENOMEM;
                int r = vis->mask(inv, s->selected, out, XPU_SELECTION_LIST_MAX, err, err_size);
                if (r == -ENOBUFS)
                        xpu_format_error(err, err_size, "%s: the selection does not fit in %d bytes", vis->variable,
                                         XPU_SELECTION_LIST_MAX);
                if (r < 0) {
                        free(out);
                        return r == -ENOBUFS ? -EINVAL : r;
                }
                /* the default that nobody asked to narrow needs no variable */
                if (!*out && !visible[v]) {
                        free(out);
                        continue;
                }
                free(s->workload_env[v]);
                s->workload_env[v] = out;
        }
        return 0;
}

/* Does the list VALUE have a "MIG-<uuid>" entry? */
static bool value_names_mig_uuid(const char *value) {
        for (const char *p = value; p && *p;) {
                size_t len = strcspn(p, ",");
                const char *e = p, *end = p + len;
                const char *eq = memchr(p, '=', len);
                if (eq)
                        e = eq + 1;
                while (e < end && (*e == ' ' || *e == '\t'))
                        e++;
                if (end - e >= 4 && strncasecmp(e, "MIG-", 4) == 0 && !(end - e >= 8 && strncasecmp(e, "MIG-GPU-", 8) == 0))
                        return true;
                p = *end ? end + 1 : end;
        }
        return false;
}

/* Does VALUE name devices rather than all, none or none at all? */
static bool value_names_devices(const char *value) {
        if (!value)
                return false;
        value += strspn(value, " \t");
        size_t len = strlen(value);
        while (len > 0 && (value[len - 1] == ' ' || value[len - 1] == '\t'))
                len--;
        static const char *const whole[] = { "all", "none", "void" };
        for (size_t i = 0; i < ELEMENTSOF(whole); i++)
                if (len == strlen(whole[i]) && strncasecmp(value, whole[i], len) == 0)
                        return false;
        return len > 0;
}

uint32_t xpu_selection_env_wsl_sources(const struct xpu_inventory *inv, const struct xpu_selection_env *env) {
        uint32_t sources = 0;
        for (size_t i = 0; i < inv->n_devices; i++) {
                const struct xpu_device *d = &inv->devices[i];
                const struct xpu_vendor_ops *ops = xpu_vendor(d->vendor);
                if (d->source != XPU_SOURCE_WSL || !ops ||
                    !value_names_devices(env->xpu_visible ? env->xpu_visible : env->visible[d->vendor]))
                        continue;
                for (size_t k = 0; ops->probe.rich && ops->probe.rich[k]; k++)
                        sources |= 1u << ops->probe.rich[k]->source;
        }
        return sources;
}

bool xpu_selection_env_names_mig_uuid(const struct xpu_selection_env *env) {
        if (env->xpu_visible)
                return value_names_mig_uuid(env->xpu_visible);
        for (int v = 0; v < _XPU_VENDOR_MAX; v++)
                if (value_names_mig_uuid(env->visible[v]))
                        return true;
        return false;
}
