/* SPDX-License-Identifier: Apache-2.0 */
/* The requirement expressions of a start (require-start.h): parsed once, the rich sources their
 * checks need, and checked after the profile is chosen, with the evaluator of require.c. */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "base/macro.h"
#include "base/str.h"
#include "base/strv.h"
#include "require-parse.h"
#include "require-start.h"
#include "vendor.h"

/* ---- the start's expressions ------------------------------------------------------------------ */

void xpu_require_start_done(struct xpu_require_start *s) {
        for (size_t i = 0; i < s->n; i++) {
                free(s->exprs[i].name);
                xpu_require_free(s->exprs[i].req);
                free(s->exprs[i].message);
        }
        free(s->exprs);
        for (size_t v = 0; v < ELEMENTSOF(s->disable); v++)
                free(s->disable[v]);
        *s = (struct xpu_require_start){ 0 };
}

/* Append the expression EXPR named by NAME[0..NAME_LEN) for VENDOR to S, parsed; a parse error is
 * kept in the entry. Returns 0 or -ENOMEM. */
static int start_add(struct xpu_require_start *s, const char *name, size_t name_len, enum xpu_vendor vendor,
                     const char *expr) {
        struct xpu_require_expr *v = realloc(s->exprs, (s->n + 1) * sizeof *v);
        if (!v)
                return -ENOMEM;
        s->exprs = v;
        struct xpu_require_expr *x = &s->exprs[s->n];
        *x = (struct xpu_require_expr){ .vendor = vendor, .name = strndup(name, name_len) };
        if (!x->name)
                return -ENOMEM;
        s->n++;
        char err[XPU_REQUIRE_ERROR_MAX];
        err[0] = '\0';
        x->error = xpu_require_parse(expr, &x->req, err, sizeof err);
        if (x->error == -EINVAL && !(x->message = strdup(err[0] ? err : strerror(EINVAL))))
                return -ENOMEM;
        return 0;
}

/* Is ENTRY ("NAME=VALUE", NAME LEN bytes) one of OPS's image variables that are not checked? A
 * skip entry "NAME" skips NAME, "PREFIX*" every name with PREFIX, and "NAME=VALUE" NAME only
 * with that value (vendor.h). */
static bool env_skipped(const struct xpu_vendor_ops *ops, const char *entry, size_t len) {
        for (const char *const *k = ops->require.env_skip; k && *k; k++) {
                const char *eq = strchr(*k, '=');
                size_t kl = eq ? (size_t)(eq - *k) : strlen(*k);
                bool prefix = kl && (*k)[kl - 1] == '*';
                bool name = prefix ? len >= kl - 1 && strncmp(*k, entry, kl - 1) == 0
                                   : kl == len && strncmp(*k, entry, len) == 0;
                if (name && (!eq || strcmp(eq + 1, entry + len + 1) == 0))
                        return true;
        }
        return false;
}

/* The expression of ENTRY ("NAME=EXPR") when it is one of OPS's image variables to check, else NULL. */
static const char *env_expr(const struct xpu_vendor_ops *ops, const char *entry) {
        if (!xpu_startswith(entry, ops->require.env_prefix))
                return NULL;
        const char *eq = strchr(entry, '=');
        return eq && !env_skipped(ops, entry, (size_t)(eq - entry)) ? eq + 1 : NULL;
}

int xpu_require_start_parse(const char *user_expr, char *const *envp, struct xpu_require_start *ret) {
        static const char user[] = "--require/XPU_REQUIRE";
        _cleanup_(xpu_require_start_done) struct xpu_require_start st = { 0 };
        struct xpu_require_start *s = &st;
        if (user_expr && start_add(s, user, sizeof user - 1, _XPU_VENDOR_MAX, user_expr) < 0)
                return -ENOMEM;
        for (int v = 0; v < _XPU_VENDOR_MAX; v++) {
                const struct xpu_vendor_ops *ops = xpu_vendors[v];
                if (!ops->require.env_prefix)
                        continue;
                const char *off = ops->require.env_disable ? xpu_env_get(envp, ops->require.env_disable) : NULL;
                if (off && !(s->disable[v] = strdup(off)))
                        return -ENOMEM;
                if (off && xpu_parse_bool(off) > 0)
                        continue; /* not checked: not parsed either */
                for (char *const *e = envp; e && *e; e++) {
                        const char *expr = env_expr(ops, *e);
                        if (expr && start_add(s, *e, (size_t)(expr - 1 - *e), (enum xpu_vendor)v, expr) < 0)
                                return -ENOMEM;
                }
        }
        *ret = st;
        st = (struct xpu_require_start){ 0 };
        return 0;
}

uint32_t xpu_require_start_sources(const struct xpu_profile_set *set, const struct xpu_require_start *start) {
        uint32_t s = 0;
        for (size_t i = 0; start && i < start->n; i++)
                s |= xpu_require_sources(start->exprs[i].req);
        for (size_t i = 0; set && i < set->n; i++)
                s |= xpu_require_sources(set->profiles[i]->require);
        return s;
}

/* ---- the checks at start-up (a logger: one line per problem) ------------------------------ */

/* One expression X of the start against the chosen profile's vendor. Returns 0 when met (or when
 * only listing profiles, where a failure is a warning), else logs the one line and returns -EINVAL
 * (-ENOMEM). LENIENT: an image's variable (see xpu_require_check_lenient()), named at the start of
 * its line and followed by HINT; the user's own (--require, XPU_REQUIRE) is not named. */
static int check_one(const struct xpu_inventory *inv, const struct xpu_selection *sel, enum xpu_vendor vendor,
                     const struct xpu_require_expr *x, const char *hint, bool lenient, bool warn_only) {
        char why[2048], unchecked[1024] = "";
        int r = x->error;
        if (r == -EINVAL)
                xpu_strlcpy(why, x->message, sizeof why);
        else if (r == 0)
                r = lenient ? xpu_require_check_lenient(x->req, inv, sel->selected, vendor, unchecked, sizeof unchecked,
                                                        why, sizeof why)
                            : xpu_require_check_selected(x->req, inv, sel->selected, vendor, why, sizeof why);
        if (r == 1) {
                if (unchecked[0])
                        log_warning("%s: not checked: %s", x->name, unchecked);
                log_debug("%s: %s", x->name, why);
                return 0;
        }
        if (r == 0 && warn_only) {
                /* `profiles` is where one looks for the reason: show the list anyway. */
                log_warning("%s: %s%s", x->name, why, hint);
                return 0;
        }
        if (r == 0 && lenient)
                log_error("%s: %s%s", x->name, why, hint); /* an image's variable: name it */
        else if (r == 0)
                log_error("%s", why);
        else if (r == -EINVAL)
                log_error("%s: %s", x->name, why);
        else
                log_error("%s: %s", x->name, strerror(-r));
        return r == 0 ? -EINVAL : r;
}

int xpu_require_check_start(const struct xpu_inventory *inv, const struct xpu_selection *sel,
                            const struct xpu_profile *profile, const struct xpu_require_start *start,
                            bool warn_only) {
        enum xpu_vendor vendor = profile->match_any ? _XPU_VENDOR_MAX : profile->vendor;
        int r;
        for (size_t i = 0; start && i < start->n; i++)
                if (start->exprs[i].vendor == _XPU_VENDOR_MAX &&
                    (r = check_one(inv, sel, vendor, &start->exprs[i], "", false, warn_only)) < 0)
                        return r;
        const struct xpu_vendor_ops *ops = xpu_vendor(vendor);
        if (!start || !ops || !ops->require.env_prefix)
                return 0;
        const char *v = start->disable[vendor];
        int disable = v ? xpu_parse_bool(v) : 0;
        if (disable < 0)
                log_warning("%s: \"%s\" is not a boolean (use 1/0, true/false); requirements are checked",
                            ops->require.env_disable, v);
        if (disable > 0) {
                log_debug("%s=%s: %s* not checked", ops->require.env_disable, v, ops->require.env_prefix);
                return 0;
        }
        /* The image's own variables (every CUDA image sets NVIDIA_REQUIRE_CUDA): facts the probe
         * cannot know yet are warned about, not enforced; known ones (driver) are. */
        char hint[160] = "";
        if (ops->require.env_disable)
                snprintf(hint, sizeof hint, "; %s=1 skips the %s* checks", ops->require.env_disable,
                         ops->require.env_prefix);
        for (size_t i = 0; i < start->n; i++)
                if (start->exprs[i].vendor == vendor &&
                    (r = check_one(inv, sel, vendor, &start->exprs[i], hint, true, warn_only)) < 0)
                        return r;
        return 0;
}
