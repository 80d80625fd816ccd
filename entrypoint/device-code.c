/* SPDX-License-Identifier: Apache-2.0 */
/* Judged GPUs and the start-time device-code check (device-code.h has the contract). */
#include "device-code.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/macro.h"
#include "base/str.h"
#include "base/strv.h"
#include "devcode/object-json.h"
#include "vendor.h"

int xpu_device_code_cuda_driver(const struct xpu_inventory *inv) {
        int k = xpu_options_parse_cuda_version(xpu_inventory_cuda_driver_version(inv));
        return k < 0 ? 0 : k;
}

int xpu_device_code_index_load(const char *path, struct xpu_object **objects, size_t *n, char *err,
                               size_t err_size) {
        /* O_PATH, then reopened only when it is a regular file: a FIFO there is never opened. */
        _cleanup_close_ int pfd = open(path, O_PATH | O_CLOEXEC);
        if (pfd < 0) {
                if (errno == ENOENT)
                        return -ENOENT;
                xpu_format_error(err, err_size, "device-code index %s: %s", path, strerror(errno));
                return -EINVAL;
        }
        struct stat st;
        _cleanup_close_ int fd = xpu_reopen_regular(pfd, O_NONBLOCK, &st);
        if (fd < 0 && fd != -EISDIR && fd != -EINVAL) {
                xpu_format_error(err, err_size, "device-code index %s: %s", path, strerror(-fd));
                return -EINVAL;
        }
        if (fd < 0 || st.st_size > (off_t)XPU_DEVICE_CODE_INDEX_MAX) {
                xpu_format_error(err, err_size, "device-code index %s is not a regular file of at most %u MiB", path,
                                 XPU_DEVICE_CODE_INDEX_MAX >> 20);
                return -EINVAL;
        }
        _cleanup_free_ char *text = malloc((size_t)st.st_size + 1);
        if (!text)
                return -ENOMEM;
        ssize_t len = xpu_read_full(fd, text, (size_t)st.st_size);
        if (len < 0) {
                xpu_format_error(err, err_size, "device-code index %s: %s", path, strerror((int)-len));
                return -EINVAL;
        }
        char why[512];
        int r = xpu_index_parse(text, (size_t)len, objects, n, why, sizeof why);
        if (r == -EINVAL)
                xpu_format_error(err, err_size,
                                 "device-code index %s: %s; write it again with `xpuinit audit --write-index %s /` "
                                 "in the image build",
                                 path, why, path);
        return r;
}

bool xpu_device_code_needs_rich_facts(const struct xpu_object *objects, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (xpu_object_has_code(&objects[i], XPU_CODE_VENDOR_NVIDIA) || objects[i].cudart_major)
                        return true;
        return false;
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

bool xpu_device_code_targets_missing(const struct xpu_inventory *inv, const size_t *devices, size_t n) {
        for (size_t i = 0; i < (devices ? n : inv->n_devices); i++) {
                const struct xpu_device *d = &inv->devices[devices ? devices[i] : i];
                const struct xpu_vendor_ops *ops = xpu_vendor(d->vendor);
                char target[32];
                if (!ops || !ops->code_target_sources || !ops->code_target)
                        continue;
                ops->code_target(d, target, sizeof target);
                if (!target[0])
                        return true;
        }
        return false;
}

int xpu_device_code_gate(const struct xpu_options *o, struct xpu_inventory *inv, struct xpu_plan *p, bool show,
                         int (*load_rich_facts)(void *userdata), void *userdata) {
        /* XPUINIT_DEVICE_CODE, else the profile's "device_code", else enforce. */
        enum xpu_device_code_mode mode = o->device_code_set          ? o->device_code
                                         : p->profile->device_code_set ? p->profile->device_code
                                                                       : XPU_DEVICE_CODE_ENFORCE;
        if (mode == XPU_DEVICE_CODE_OFF || p->n_devices == 0)
                return 0;
        struct xpu_object *objects = NULL;
        size_t n = 0;
        char err[1024];
        bool strict = mode == XPU_DEVICE_CODE_ENFORCE || mode == XPU_DEVICE_CODE_APPLY;
        int r = xpu_device_code_index_load(o->device_code_index, &objects, &n, err, sizeof err);
        if (r == -ENOENT) {
                char *m = NULL;
                if (asprintf(&m, "no device-code index at %s, so the start cannot tell whether the image has code for "
                                 "its GPU; add `RUN xpuinit audit --write-index %s /` to the image's Dockerfile after "
                                 "its last install step",
                             o->device_code_index, o->device_code_index) < 0)
                        return -EINVAL;
                log_info("%s", m);
                free(p->device_code);
                p->device_code = m;
                return 0;
        }
        if (r < 0) {
                if (r == -ENOMEM)
                        xpu_format_error(err, sizeof err, "device-code index %s: %s", o->device_code_index,
                                         strerror(ENOMEM));
                if (strict && !show) {
                        log_error("%s (or set XPUINIT_DEVICE_CODE=off to start without the check)", err);
                        return -EINVAL;
                }
                if (show) { /* plan: what a start would do */
                        free(p->device_code);
                        if (asprintf(&p->device_code, "%s%s", strict ? "a start exits 125: " : "", err) < 0)
                                p->device_code = NULL;
                } else {
                        log_warning("%s", err);
                }
                return 0;
        }
        int status = 0;
        struct xpu_device_code_result res = { 0 };
        struct xpu_code_target t[XPU_DEVICE_CODE_TARGETS_MAX];
        size_t unknown = 0, nt;
        /* The compute capability and the CUDA version come from the rich path, asked for only here:
         * an image without NVIDIA device code never loads a vendor library for the check. */
        if (xpu_device_code_needs_rich_facts(objects, n) &&
            xpu_device_code_targets_missing(inv, p->devices, p->n_devices) &&
            load_rich_facts(userdata) == -EINTR) {
                status = -EINTR;
                goto out;
        }
        nt = xpu_device_code_targets(inv, p->devices, p->n_devices, t, ELEMENTSOF(t), &unknown);
        r = xpu_device_code_check(objects, n, t, nt, mode, p->env, xpu_device_code_cuda_driver(inv), &res);
        if (r < 0) {
                log_error("device code: %s", strerror(-r));
                status = -EINVAL;
                goto out;
        }
        if (res.message) {
                if (res.refuse && !show)
                        log_error("%s", res.message);
                else if (res.override_from_env)
                        log_info("%s", res.message);
                else if (!show)
                        log_warning("%s", res.message);
        }
        if (res.message && res.not_judged && unknown && !show)
                log_info("device code: `xpuinit probe --source all` shows why NVML or libcuda gave no compute capability");
        if (res.refuse && show && res.message) {
                /* plan: what a start would do, in the same line. */
                char *m = NULL;
                if (asprintf(&m, "a start exits 125 (XPUINIT_DEVICE_CODE=%s): %s", xpu_device_code_mode_to_string(mode),
                             res.message) < 0) {
                        status = -EINVAL;
                        goto out;
                }
                free(res.message);
                res.message = m;
        }
        if (res.override_name[0] && xpu_env_set(&p->env, res.override_name, res.override_value) < 0) {
                log_error("device code: %s", strerror(ENOMEM));
                status = -EINVAL;
                goto out;
        }
        p->device_code_verdict = res.not_judged && res.level == XPU_CODE_NATIVE ? NULL : xpu_code_level_name(res.level);
        p->device_code = res.message;
        res.message = NULL;
        if (res.refuse && !show)
                status = -EINVAL;
out:
        xpu_device_code_result_clear(&res);
        for (size_t i = 0; i < n; i++)
                xpu_object_clear(&objects[i]);
        free(objects);
        return status;
}

