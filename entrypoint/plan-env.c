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

/* ---- environment ------------------------------------------------------------------------- */

int xpu_plan_env_edits(struct xpu_plan *p, const struct xpu_profile *pr, const char *const values[_XPU_PLACEHOLDER_MAX]) {
        return xpu_profile_env_apply(pr, &p->env, values);
}

