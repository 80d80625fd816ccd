/* SPDX-License-Identifier: Apache-2.0 */
/* The plan's capabilities (which driver files the image asks for) and its environment (the
 * profile's edits with the placeholders expanded): plan-env.h. */
#include "plan-env.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "base/macro.h"
#include "base/str.h"
#include "base/strv.h"
#include "plan.h"
#include "vendor.h"



static void strv_freep(char ***v) {
        xpu_strv_free(*v);
}

int xpu_plan_capabilities(struct xpu_plan *p, const struct xpu_profile *pr, const struct xpu_plan_needs *n,
                          const char *env, const char *var, char *err, size_t err_size) {
        if (!var)
                var = xpu_capabilities_variable();
        if (n->no_capability) { /* ",,," names nothing: never inject nothing silently */
                xpu_format_error(err, err_size,
                                 "%s=\"%s\" names no capability; use a list such as \"utility,compute\", \"all\", "
                                 "or leave it unset",
                                 var, env);
                return -EINVAL;
        }
        for (size_t i = 0; i < n->n_capabilities; i++)
                if (xpu_strv_push(&p->capabilities, n->capabilities[i]) < 0)
                        return -ENOMEM;
        p->n_capabilities = n->n_capabilities;
        if (n->n_ignored == 0)
                return 0;
        _cleanup_(strv_freep) char **known = calloc(1, sizeof(char *));
        size_t n_known = 0;
        if (!known || xpu_profile_capabilities_push(&known, &n_known, pr) < 0)
                return -ENOMEM;
        _cleanup_free_ char *ign = xpu_strv_join(n->ignored, ",");
        _cleanup_free_ char *kn = xpu_strv_join(known, ", ");
        _cleanup_free_ char *eff = xpu_strv_join(p->capabilities, ",");
        if (!ign || !kn || !eff)
                return -ENOMEM;
        return xpu_plan_warning(p, "%s: ignoring \"%s\": profile \"%s\" has no driver files for %s (it knows %s, and all); %s%s",
                       var, ign, pr->name, n->n_ignored == 1 ? "it" : "them", kn,
                       p->n_capabilities ? "injecting " : "no driver files are injected", eff) < 0
                       ? -ENOMEM
                       : 0;
}

/* ---- environment placeholders ------------------------------------------------------------- */

/* Append ITEM to the comma list *OUT. Returns 0 or -ENOMEM. */
static int list_append(char **out, const char *item) {
        char *n = NULL;
        if (asprintf(&n, "%s%s%s", *out, **out ? "," : "", item) < 0)
                return -ENOMEM;
        free(*out);
        *out = n;
        return 0;
}

/* Comma list of the selected devices: UUID when it names exactly one device, else the vendor
 * index (partitions of one AMD GPU share a UUID). A device whose MIG devices were selected is
 * listed as those MIG devices: NVML's "MIG-<uuid>", else the form CUDA_VISIBLE_DEVICES also takes,
 * "MIG-<gpu uuid>/<gi>/<ci>" (CUDA programming guide, CUDA_VISIBLE_DEVICES); INDICES_ONLY lists
 * the vendor index of each device once. */
char *xpu_plan_visible_ids(const struct xpu_inventory *inv, const struct xpu_selection *sel, const struct xpu_plan *p,
                           bool indices_only) {
        _cleanup_free_ char *out = strdup("");
        if (!out)
                return NULL;
        for (size_t k = 0; k < p->n_devices; k++) {
                const struct xpu_device *d = &inv->devices[p->devices[k]];
                uint32_t mig = sel->mig[p->devices[k]];
                char item[96];
                size_t same = 0;
                for (size_t j = 0; j < inv->n_devices && d->uuid[0]; j++)
                        same += strcasecmp(inv->devices[j].uuid, d->uuid) == 0;
                size_t n_mig;
                const struct xpu_mig_device *migs = xpu_mig_devices(d, &n_mig);
                for (size_t m = 0; !indices_only && m < n_mig; m++) {
                        if (!(mig & (1u << m)))
                                continue;
                        const struct xpu_mig_device *g = &migs[m];
                        if (g->uuid[0])
                                snprintf(item, sizeof item, "%s", g->uuid);
                        else
                                snprintf(item, sizeof item, "MIG-%s/%u/%u", d->uuid, g->gi, g->ci);
                        if (list_append(&out, item) < 0)
                                return NULL;
                }
                if (mig && !indices_only)
                        continue;
                if (!indices_only && d->uuid[0] && same == 1)
                        snprintf(item, sizeof item, "%s", d->uuid);
                else
                        snprintf(item, sizeof item, "%u", d->vendor_index);
                if (list_append(&out, item) < 0)
                        return NULL;
        }
        return TAKE_PTR(out);
}

/* The profile's environment edits, with the placeholders of profile.h expanded from VALUES. */
int xpu_plan_env_edits(struct xpu_plan *p, const struct xpu_profile *pr, const char *const values[_XPU_PLACEHOLDER_MAX]) {
        for (size_t i = 0; i < pr->n_env; i++) {
                const struct xpu_env_edit *e = &pr->env[i];
                if (e->op == XPU_ENV_UNSET) {
                        xpu_env_unset(p->env, e->name);
                        continue;
                }
                _cleanup_free_ char *v = NULL;
                int r = xpu_env_expand(e->value ? e->value : "", values, &v);
                if (r < 0)
                        return r;
                const char *old = xpu_env_get(p->env, e->name);
                _cleanup_free_ char *joined = NULL;
                if (e->op == XPU_ENV_PREPEND && old && *old) {
                        if (asprintf(&joined, "%s:%s", v, old) < 0)
                                return -ENOMEM;
                } else if (e->op == XPU_ENV_APPEND && old && *old) {
                        if (asprintf(&joined, "%s:%s", old, v) < 0)
                                return -ENOMEM;
                }
                if (xpu_env_set(&p->env, e->name, joined ? joined : v) < 0)
                        return -ENOMEM;
        }
        return 0;
}

