/* SPDX-License-Identifier: Apache-2.0 */
/* needs: which fabric device sets a start asks for (needs.h, xpu_fabric_needs), from the
 * profile's "fabric" and each set's variable; read from the workload's environment as given. */
#include "needs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/str.h"
#include "vendor.h"

/* The value of NAME in ENVP, NULL when unset. */
static const char *env_value(char *const *envp, const char *name) {
        const size_t len = strlen(name);
        for (char *const *e = envp; e && *e; e++)
                if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
                        return *e + len + 1;
        return NULL;
}

/* The variable of set I that decides, and its value: the set's own, else its vendor's alias (the
 * profile's vendor's: PR_VENDOR); NULL *VALUE when neither is set. */
static const char *deciding_variable(const struct xpu_fabric_set *set, int pr_vendor, char *const *envp,
                                     const char **value) {
        *value = env_value(envp, set->variable);
        if (*value)
                return set->variable;
        const struct xpu_vendor_ops *vo = xpu_vendor((enum xpu_vendor)pr_vendor);
        for (const struct xpu_fabric_alias *a = vo ? vo->fabric_aliases : NULL; a && a->set; a++)
                if (strcmp(a->set, set->name) == 0 && (*value = env_value(envp, a->variable)))
                        return a->variable;
        return set->variable;
}

static bool profile_names(const struct xpu_profile *pr, const char *set) {
        for (size_t i = 0; i < pr->n_fabric; i++)
                if (strcmp(pr->fabric[i], set) == 0)
                        return true;
        return false;
}

void xpu_fabric_needs(const struct xpu_profile *pr, char *const *envp, struct xpu_fabric_needs *ret) {
        memset(ret, 0, sizeof *ret);
        ret->n = xpu_fabric_sets(ret->sets, ret->vendor);
        const int pr_vendor = pr->match_any ? _XPU_VENDOR_MAX : (int)pr->vendor;
        for (size_t i = 0; i < ret->n && !ret->error; i++) {
                const struct xpu_fabric_set *set = ret->sets[i];
                struct xpu_fabric_request *r = &ret->req[i];
                /* A vendor's own set is its profiles' only: an image for every vendor may set them all. */
                if (ret->vendor[i] != _XPU_VENDOR_MAX && (int)ret->vendor[i] != pr_vendor) {
                        if (env_value(envp, set->variable))
                                ret->ignored[i] = set->variable;
                        continue;
                }
                const char *value;
                const char *var = deciding_variable(set, pr_vendor, envp, &value);
                if (!value) {
                        if (!profile_names(pr, set->name))
                                continue;
                        r->wanted = r->all = true; /* a profile asks for the whole set */
                        snprintf(r->source, sizeof r->source, "profile %s", pr->name);
                        continue;
                }
                char why[256] = "";
                int k;
                if (set->channels) {
                        k = xpu_fabric_parse_channels(value, r, why, sizeof why);
                } else {
                        k = xpu_fabric_parse_enabled(value);
                        r->wanted = r->all = k > 0;
                        if (k < 0)
                                snprintf(why, sizeof why, "expected \"enabled\" or \"disabled\"");
                }
                if (k < 0) {
                        ret->error = k;
                        snprintf(ret->error_text, sizeof ret->error_text,
                                 "%s=\"%.64s%s\": %s; fix the variable or unset it", var, value,
                                 strlen(value) > 64 ? "..." : "", why);
                        continue;
                }
                r->required = r->wanted;
                snprintf(r->source, sizeof r->source, "%s=%.40s%s", var, value, strlen(value) > 40 ? "..." : "");
        }
        for (size_t i = 0; i < ret->n; i++)
                ret->any |= ret->req[i].wanted;
}
