/* SPDX-License-Identifier: Apache-2.0 */
/* The select step's requirements (require-start.c): --require/XPU_REQUIRE and the image's
 * requirement variables (NVIDIA_REQUIRE_*), parsed once, the rich sources their checks need,
 * and checked for the chosen profile with the evaluator of require.h (a library the select and
 * rich-facts steps both call down into). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe.h"
#include "profile.h"
#include "require.h"
#include "select.h"

/* One requirement expression of a start, parsed once by xpu_require_start_parse(). */
struct xpu_require_expr {
        char *name;              /* where it came from: "--require/XPU_REQUIRE", "NVIDIA_REQUIRE_CUDA" */
        enum xpu_vendor vendor;  /* the image variable's vendor; _XPU_VENDOR_MAX: the user's (every profile) */
        struct xpu_require *req; /* NULL when it did not parse */
        int error;               /* 0, or what the parse returned: -EINVAL (MESSAGE says why), -ENOMEM */
        char *message;           /* the parse error's line; NULL unless ERROR is -EINVAL */
};

/* The requirement expressions of a start: the user's (--require/XPU_REQUIRE), then each vendor's
 * image variables (xpu_vendor_ops.require.env_prefix: NVIDIA_REQUIRE_*) in environment order,
 * left out for a vendor whose require_env_disable variable is true. */
struct xpu_require_start {
        struct xpu_require_expr *exprs;
        size_t n;
        char *disable[_XPU_VENDOR_MAX]; /* the value of the vendor's require_env_disable variable; NULL: unset */
};

/* Parse the start's expressions once into *RET: USER_EXPR (NULL: none) and the image variables of
 * ENVP. An expression that does not parse is kept with its error, reported by
 * xpu_require_check_start() when it is checked. The caller's struct, released with
 * xpu_require_start_done(): a start with no expression allocates nothing. Returns 0 or -ENOMEM.
 * Silent. */
int xpu_require_start_parse(const char *user_expr, char *const *envp, struct xpu_require_start *ret);
/* Release what S holds and empty it (a _cleanup_ function). */
void xpu_require_start_done(struct xpu_require_start *s);

/* The rich sources a start needs for its requirement checks: every expression of START (NULL:
 * none) and every profile's match.require in SET. Expressions that do not parse count as needing
 * nothing (their check reports them). */
uint32_t xpu_require_start_sources(const struct xpu_profile_set *set, const struct xpu_require_start *start);

/* The requirement checks of a start, after the profile is chosen: START's user expression
 * (strict) and, for a profile whose vendor has image variables, that vendor's (lenient, see
 * xpu_require_check_lenient(); none when its require_env_disable variable is true). A logger: one
 * line per problem. With WARN_ONLY (xpuinit profiles) an unmet requirement is a warning. Returns
 * 0, or -EINVAL (-ENOMEM) after logging the one line (xpuinit exits 125). */
int xpu_require_check_start(const struct xpu_inventory *inv, const struct xpu_selection *sel,
                            const struct xpu_profile *profile, const struct xpu_require_start *start,
                            bool warn_only);
