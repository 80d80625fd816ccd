/* SPDX-License-Identifier: Apache-2.0 */
/* The device-code verdict, before the plan (device-code-verdict.h has the contract). */
#include "device-code-verdict.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/macro.h"
#include "base/str.h"
#include "base/strv.h"
#include "vendor.h"
#include "version.h"

int xpu_device_code_cuda_driver(const struct xpu_inventory *inv) {
        int k = xpu_version_parse_cuda(xpu_inventory_cuda_driver_version(inv));
        return k < 0 ? 0 : k;
}

void xpu_device_code_result_clear(struct xpu_device_code_result *r) {
        free(r->message);
        memset(r, 0, sizeof *r);
}

int xpu_device_code_check(const struct xpu_object *objects, size_t n_objects, const struct xpu_code_target *t,
                          size_t n, enum xpu_device_code_mode mode, char *const *env, int cuda_driver,
                          struct xpu_device_code_result *r) {
        memset(r, 0, sizeof *r);
        char err[256];
        struct xpu_code_env e;
        /* A value the runtime does not read as set is taken as unset, with a warning: a variable for
         * another vendor's GPU must not stop this start. */
        if (xpu_code_env_from(env, false, &e, err, sizeof err) > 0)
                log_warning("device code: %s; judged as if it were unset", err);
        e.cuda_driver = cuda_driver;
        struct xpu_code_verdict worst = { .level = XPU_CODE_NATIVE };
        const struct xpu_code_target *worst_t = NULL;
        for (size_t i = 0; i < n; i++) {
                struct xpu_code_verdict v;
                if (xpu_code_judge(objects, n_objects, &t[i], &e, &v) < 0) {
                        xpu_code_verdict_clear(&worst);
                        return -ENOMEM;
                }
                /* Worse first; at a tie, a GPU that could not be judged is said. */
                if (!worst_t || v.level > worst.level || (v.level == worst.level && v.not_judged && !worst.not_judged)) {
                        xpu_code_verdict_clear(&worst);
                        worst = v;
                        worst_t = &t[i];
                } else {
                        xpu_code_verdict_clear(&v);
                }
        }
        /* The override is process-wide: on a node with GPUs of several kinds it must not stop the
         * others. */
        if (worst.level == XPU_CODE_OVERRIDE && !worst.override_from_env && n > 1) {
                struct xpu_code_env with = e;
                if (strcmp(worst.override_name, "HSA_XNACK") == 0)
                        with.hsa_xnack = 1;
                else
                        xpu_strlcpy(with.hsa_override, worst.override_value, sizeof with.hsa_override);
                for (size_t i = 0; i < n; i++) {
                        struct xpu_code_verdict v;
                        if (xpu_code_judge(objects, n_objects, &t[i], &with, &v) < 0) {
                                xpu_code_verdict_clear(&worst);
                                return -ENOMEM;
                        }
                        bool stops = v.level == XPU_CODE_CANNOT_RUN;
                        if (stops) {
                                char *m = NULL;
                                if (asprintf(&m, "%s needs %s=%s, which this process-wide setting would give %s too: %s",
                                             worst_t->name, worst.override_name, worst.override_value, t[i].name,
                                             v.reason ? v.reason : "") < 0)
                                        m = NULL;
                                xpu_code_verdict_clear(&worst);
                                worst = (struct xpu_code_verdict){ .level = XPU_CODE_CANNOT_RUN, .reason = m };
                                worst_t = &t[i];
                        }
                        xpu_code_verdict_clear(&v);
                        if (stops)
                                break;
                }
        }
        r->level = worst.level;
        int q = 0;
        const char *reason = worst.reason ? worst.reason : "";
        bool strict = mode == XPU_DEVICE_CODE_ENFORCE || mode == XPU_DEVICE_CODE_APPLY;
        r->override_from_env = worst.override_from_env;
        r->not_judged = worst.not_judged;
        switch (worst.level) {
        case XPU_CODE_NATIVE:
                if (worst.not_judged)
                        q = asprintf(&r->message, "device code: %s", reason);
                break;
        case XPU_CODE_PTX_JIT:
                q = asprintf(&r->message, "device code for %s is PTX only: %s", worst_t->name, reason);
                break;
        case XPU_CODE_OVERRIDE:
                if (worst.override_from_env) {
                        q = asprintf(&r->message, "device code for %s runs with %s=%s: %s", worst_t->name,
                                     worst.override_name, worst.override_value, reason);
                } else if (mode == XPU_DEVICE_CODE_APPLY) {
                        xpu_strlcpy(r->override_name, worst.override_name, sizeof r->override_name);
                        xpu_strlcpy(r->override_value, worst.override_value, sizeof r->override_value);
                        q = asprintf(&r->message, "device code for %s: setting %s=%s for the workload "
                                     "(XPUINIT_DEVICE_CODE=apply): %s",
                                     worst_t->name, worst.override_name, worst.override_value, reason);
                } else {
                        r->refuse = strict;
                        q = asprintf(&r->message,
                                     "device code for %s runs only with %s=%s: %s; set %s=%s for the container, or "
                                     "XPUINIT_DEVICE_CODE=apply to have xpuinit set it%s",
                                     worst_t->name, worst.override_name, worst.override_value, reason,
                                     worst.override_name, worst.override_value,
                                     strict ? "" : " (XPUINIT_DEVICE_CODE=warn: starting anyway)");
                }
                break;
        case XPU_CODE_CANNOT_RUN:
        default:
                r->refuse = strict;
                q = asprintf(&r->message, "the image cannot run on %s: %s (%s)", worst_t->name, reason,
                             strict ? "XPUINIT_DEVICE_CODE=warn starts it anyway"
                                    : "XPUINIT_DEVICE_CODE=warn: starting anyway");
                break;
        }
        xpu_code_verdict_clear(&worst);
        if (q < 0) {
                r->message = NULL;
                return -ENOMEM;
        }
        return 0;
}

void xpu_device_code_outcome_clear(struct xpu_device_code_outcome *out) {
        free(out->message);
        *out = (struct xpu_device_code_outcome){ 0 };
}

int xpu_device_code_judge(const struct xpu_device_code_facts *f, const struct xpu_inventory *inv,
                          const size_t *devices, size_t n, char *const *env, bool show,
                          struct xpu_device_code_outcome *out) {
        *out = (struct xpu_device_code_outcome){ 0 };
        if (!f->judged || n == 0)
                return 0;
        bool strict = f->mode == XPU_DEVICE_CODE_ENFORCE || f->mode == XPU_DEVICE_CODE_APPLY;
        if (f->error == -ENOENT) {
                out->log = XPU_DEVICE_CODE_LOG_INFO;
                return asprintf(&out->message,
                                "no device-code index at %s, so the start cannot tell whether the image has code for "
                                "its GPU; add `RUN xpuinit audit --write-index %s /` to the image's Dockerfile after "
                                "its last install step",
                                f->index, f->index) < 0
                               ? (out->message = NULL, -ENOMEM)
                               : 0;
        }
        if (f->error < 0) {
                int q;
                if (show) { /* plan: what a start would do */
                        q = asprintf(&out->message, "%s%s", strict ? "a start exits 125: " : "", f->err);
                } else if (strict) {
                        out->log = XPU_DEVICE_CODE_LOG_ERROR;
                        out->refuse = true;
                        q = asprintf(&out->message, "%s (or set XPUINIT_DEVICE_CODE=off to start without the check)",
                                     f->err);
                } else {
                        out->log = XPU_DEVICE_CODE_LOG_WARNING;
                        q = asprintf(&out->message, "%s", f->err);
                }
                if (q < 0) {
                        out->message = NULL;
                        return -ENOMEM;
                }
                return 0;
        }
        struct xpu_device_code_result res = { 0 };
        struct xpu_code_target t[XPU_DEVICE_CODE_TARGETS_MAX];
        size_t unknown = 0;
        size_t nt = xpu_device_code_targets(inv, devices, n, t, ELEMENTSOF(t), &unknown);
        int r = xpu_device_code_check(f->objects, f->n, t, nt, f->mode, env, xpu_device_code_cuda_driver(inv), &res);
        if (r < 0)
                return r;
        if (res.message) {
                if (res.refuse && !show)
                        out->log = XPU_DEVICE_CODE_LOG_ERROR;
                else if (res.override_from_env)
                        out->log = XPU_DEVICE_CODE_LOG_INFO;
                else if (!show)
                        out->log = XPU_DEVICE_CODE_LOG_WARNING;
        }
        out->hint_unknown = res.message && res.not_judged && unknown && !show;
        if (res.refuse && show && res.message) {
                /* plan: what a start would do, in the same line. */
                char *m = NULL;
                if (asprintf(&m, "a start exits 125 (XPUINIT_DEVICE_CODE=%s): %s",
                             xpu_device_code_mode_to_string(f->mode), res.message) < 0) {
                        xpu_device_code_result_clear(&res);
                        return -ENOMEM;
                }
                free(res.message);
                res.message = m;
        }
        memcpy(out->override_name, res.override_name, sizeof out->override_name);
        memcpy(out->override_value, res.override_value, sizeof out->override_value);
        out->verdict = res.not_judged && res.level == XPU_CODE_NATIVE ? NULL : xpu_code_level_name(res.level);
        out->message = TAKE_PTR(res.message);
        out->refuse = res.refuse && !show;
        xpu_device_code_result_clear(&res);
        return 0;
}

static void strv_freep(char ***v) {
        xpu_strv_free(*v);
}

int xpu_device_code_verdict(const struct xpu_device_code_facts *f, const struct xpu_inventory *inv,
                            const struct xpu_selection *sel, const struct xpu_profile *pr, char *const *envp,
                            const char *const values[_XPU_PLACEHOLDER_MAX], bool show,
                            struct xpu_device_code_outcome *out) {
        *out = (struct xpu_device_code_outcome){ 0 };
        if (!f->judged)
                return 0;
        /* The devices the plan takes (planner.c): the selected ones of the profile's vendor. */
        _cleanup_free_ size_t *devices = NULL;
        size_t n = 0;
        if (xpu_profile_take_devices(pr, inv, sel->selected, &devices, &n) < 0)
                return -ENOMEM;
        /* The environment only when an index is judged (no copy on a start without one). */
        _cleanup_(strv_freep) char **env = NULL;
        if (f->error == 0) {
                env = xpu_strv_copy(envp);
                if (!env)
                        return -ENOMEM;
                int r = xpu_profile_env_apply(pr, &env, values);
                if (r < 0)
                        return r;
        }
        return xpu_device_code_judge(f, inv, devices, n, env, show, out);
}
