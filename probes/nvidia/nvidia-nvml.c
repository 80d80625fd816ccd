/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML reader, parent side: see nvidia-nvml.h. Runs the helper (nvidia-nvml-helper.c) once
 * per read or as xpud's session, hands its reply to the parser (nvidia-nvml-parse.c), and is the
 * rich-path backend of NVML (rich.h). Calls go one way: this file calls the helper side and the
 * parser, neither calls back. Nothing here logs. */
#include "nvidia/nvidia-nvml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/dl.h"
#include "base/macro.h"
#include "nvidia/nvidia-nvml-helper.h"
#include "nvidia/nvidia-nvml-parse.h"
#include "rich.h"
#include "sandbox/helper-job.h"
#include "sandbox/isolate.h"
#include "sandbox/reply.h"
#include "base/str.h"
#include "wsl.h"

struct xpu_nvml_result *xpu_nvml_result_free(struct xpu_nvml_result *r) {
        free(r);
        return NULL;
}

int xpu_nvidia_library_version_check(const char *driver_version, const char *soname, char *err, size_t err_size) {
        if (driver_version && xpu_is_driver_version(driver_version))
                return 0;
        if (err)
                snprintf(err, err_size,
                         "not loading %s: the NVIDIA kernel module's version is unknown (no readable "
                         "/proc/driver/nvidia/version), so the library cannot be checked against it",
                         soname);
        return -ENODATA;
}

void xpu_nvidia_lib_of(const struct xpu_inventory *inv, struct xpu_nvidia_lib *ret) {
        const struct xpu_vendor_info *vi = &inv->vendors[XPU_VENDOR_NVIDIA];
        *ret = (struct xpu_nvidia_lib){ .driver_version = vi->driver_version };
        if (inv->platform == XPU_PLATFORM_WSL && vi->wsl_store[0])
                *ret = (struct xpu_nvidia_lib){ .wsl = true, .wsl_store = vi->wsl_store };
}

int xpu_nvidia_job_prepare(struct xpu_nvidia_job *job, int driver_root_fd, const struct xpu_nvidia_lib *lib,
                           const char *soname, char *err, size_t err_size) {
        if (!job || !lib) {
                if (err)
                        snprintf(err, err_size, "invalid arguments");
                return -EINVAL;
        }
        memset(job, 0, sizeof *job);
        if (!lib->wsl) {
                int r = xpu_nvidia_library_version_check(lib->driver_version, soname, err, err_size);
                if (r < 0)
                        return r;
                return xpu_helper_job_prepare(&job->base, driver_root_fd, lib->driver_version, err, err_size);
        }
        job->wsl = true;
        snprintf(job->dirs[0], sizeof job->dirs[0], "%s", XPU_WSL_LIB_DIR);
        if (lib->wsl_store && xpu_strlcpy(job->dirs[1], lib->wsl_store, sizeof job->dirs[1]) < 0)
                job->dirs[1][0] = '\0'; /* cannot be: the probe's folder is shorter */
        int r = xpu_helper_job_prepare(&job->base, driver_root_fd, NULL, err, err_size);
        job->base.dirs_first = true; /* the Windows driver's own library, whatever the image holds */
        return r;
}

int xpu_nvml_read_lib(int driver_root_fd, const struct xpu_nvidia_lib *lib, unsigned timeout_ms,
                      struct xpu_nvml_result **ret, char *err, size_t err_size) {
        struct xpu_nvidia_job job;
        _cleanup_free_ char *reply = NULL;
        int r = xpu_nvidia_job_prepare(&job, driver_root_fd, lib, "libnvidia-ml.so.1", err, err_size);
        if (r < 0)
                return r;
        if (!ret) {
                if (err)
                        snprintf(err, err_size, "invalid arguments");
                return -EINVAL;
        }
        r = xpu_reply_run(xpu_nvml_helper, &job, timeout_ms, "NVML", &reply, err, err_size);
        if (r < 0)
                return r;
        return xpu_nvml_parse_reply(reply, ret, err, err_size);
}

int xpu_nvml_read(int driver_root_fd, const char *driver_version, unsigned timeout_ms,
                  struct xpu_nvml_result **ret, char *err, size_t err_size) {
        const struct xpu_nvidia_lib lib = { .driver_version = driver_version };
        return xpu_nvml_read_lib(driver_root_fd, &lib, timeout_ms, ret, err, err_size);
}

/* ---- the session (xpud): one helper, one nvmlInit_v2, many reads ---- */

struct xpu_nvml_session {
        struct xpu_nvidia_job job;           /* what the running helper was started with */
        struct xpu_isolate_session *helper;  /* NULL when none runs */
        char rule[256];                      /* its library rule: the kernel module's version, or "wsl:<folder>" */
        unsigned failures;                   /* failed reads in a row */
        uint64_t retry_at_ms;                /* CLOCK_MONOTONIC: no new helper before this */
        unsigned backoff_first_ms, backoff_max_ms;
        char last_error[256];                /* of the last failed read */
};

static uint64_t monotonic_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int xpu_nvml_session_new(struct xpu_nvml_session **ret) {
        struct xpu_nvml_session *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->backoff_first_ms = XPU_NVML_SESSION_BACKOFF_FIRST_MS;
        s->backoff_max_ms = XPU_NVML_SESSION_BACKOFF_MAX_MS;
        *ret = s;
        return 0;
}

void xpu_nvml_session_set_backoff(struct xpu_nvml_session *s, unsigned first_ms, unsigned max_ms) {
        s->backoff_first_ms = first_ms;
        s->backoff_max_ms = max_ms < first_ms ? first_ms : max_ms;
}

pid_t xpu_nvml_session_pid(const struct xpu_nvml_session *s) {
        return s && s->helper ? xpu_isolate_session_pid(s->helper) : 0;
}

static void session_stop(struct xpu_nvml_session *s) {
        s->helper = xpu_isolate_session_end(s->helper);
}

void xpu_nvml_session_stop(struct xpu_nvml_session *s) {
        if (s)
                session_stop(s);
}

/* A read failed with ERR (message in MSG): end the helper, count the failure, schedule the next
 * start. Returns ERR. */
static int session_failed(struct xpu_nvml_session *s, int err, const char *msg) {
        session_stop(s);
        s->failures++;
        snprintf(s->last_error, sizeof(s->last_error), "%s", msg);
        uint64_t wait = 0;
        if (s->failures >= 2) {
                wait = s->backoff_first_ms;
                for (unsigned k = 2; k < s->failures && wait < s->backoff_max_ms; k++)
                        wait *= 2;
                if (wait > s->backoff_max_ms)
                        wait = s->backoff_max_ms;
        }
        s->retry_at_ms = monotonic_ms() + wait;
        return err;
}

int xpu_nvml_session_read_lib(struct xpu_nvml_session *s, int driver_root_fd, const struct xpu_nvidia_lib *lib,
                              unsigned timeout_ms, struct xpu_nvml_result **ret, char *err, size_t err_size) {
        char fallback[8];
        if (!err) {
                err = fallback;
                err_size = sizeof(fallback);
        }
        if (!s || !ret || !lib) {
                snprintf(err, err_size, "invalid arguments");
                return -EINVAL;
        }
        int r = lib->wsl ? 0
                         : xpu_nvidia_library_version_check(lib->driver_version, "libnvidia-ml.so.1", err, err_size);
        if (r < 0) {
                session_stop(s); /* no driver (any more): nothing to keep loaded */
                return r;
        }
        char rule[sizeof s->rule];
        snprintf(rule, sizeof rule, "%s%s", lib->wsl ? "wsl:" : "",
                 lib->wsl ? (lib->wsl_store ? lib->wsl_store : "") : lib->driver_version);
        /* A reloaded kernel module of another version needs a helper that checked that one. */
        if (s->helper && strcmp(s->rule, rule) != 0)
                session_stop(s);
        if (!s->helper) {
                uint64_t now = monotonic_ms();
                if (s->failures > 0 && now < s->retry_at_ms) {
                        uint64_t left = s->retry_at_ms - now;
                        snprintf(err, err_size, "NVML helper not restarted for %llu.%llu s after %u failures in a row: %s",
                                 (unsigned long long)(left / 1000), (unsigned long long)(left % 1000 / 100), s->failures,
                                 s->last_error);
                        return -EAGAIN;
                }
                r = xpu_nvidia_job_prepare(&s->job, driver_root_fd, lib, "libnvidia-ml.so.1", err, err_size);
                if (r < 0)
                        return session_failed(s, r, err);
                struct xpu_isolate_options o = XPU_ISOLATE_OPTIONS_DEFAULT;
                o.timeout_ms = timeout_ms ? timeout_ms : XPU_ISOLATE_TIMEOUT_MS_DEFAULT;
                o.max_reply_bytes = XPU_REPLY_MAX;
                char reason[256];
                r = xpu_isolate_session_start(xpu_nvml_session_helper, &s->job, &o, &s->helper, reason, sizeof(reason));
                if (r < 0) {
                        snprintf(err, err_size, "NVML helper %s", reason);
                        return session_failed(s, r, err);
                }
                memcpy(s->rule, rule, sizeof rule);
        }
        _cleanup_free_ char *reply = NULL;
        r = xpu_reply_session_call(s->helper, "sample", timeout_ms, "NVML", &reply, err, err_size);
        if (r < 0)
                return session_failed(s, r, err);
        r = xpu_nvml_parse_reply(reply, ret, err, err_size);
        if (r < 0)
                return session_failed(s, r, err); /* an error reply or garbage: start afresh next time */
        s->failures = 0;
        s->last_error[0] = '\0';
        return 0;
}

int xpu_nvml_session_read(struct xpu_nvml_session *s, int driver_root_fd, const char *driver_version,
                          unsigned timeout_ms, struct xpu_nvml_result **ret, char *err, size_t err_size) {
        const struct xpu_nvidia_lib lib = { .driver_version = driver_version };
        return xpu_nvml_session_read_lib(s, driver_root_fd, &lib, timeout_ms, ret, err, err_size);
}

struct xpu_nvml_session *xpu_nvml_session_free(struct xpu_nvml_session *s) {
        if (!s)
                return NULL;
        session_stop(s);
        free(s);
        return NULL;
}

/* ---- the rich-path backend (rich.h) ---- */

static int rich_read(const struct xpu_roots *roots, const struct xpu_inventory *inv, unsigned timeout_ms, void **ret,
                     char *err, size_t err_size) {
        struct xpu_nvml_result *r = NULL;
        struct xpu_nvidia_lib lib;
        xpu_nvidia_lib_of(inv, &lib);
        int e = xpu_nvml_read_lib(roots->driver_fd, &lib, timeout_ms, &r, err, err_size);
        if (e >= 0)
                *ret = r;
        return e;
}

static int rich_merge(struct xpu_inventory *inv, const void *result) {
        return xpu_nvml_merge(inv, result);
}

static cJSON *rich_to_json(const void *result) {
        return xpu_nvml_result_to_json(result);
}

static void rich_print(const void *result, FILE *f) {
        xpu_nvml_result_print(result, f);
}

const struct xpu_rich_ops xpu_rich_nvml = {
        .vendor = XPU_VENDOR_NVIDIA,
        .source = XPU_SOURCE_NVML,
        .library = "libnvidia-ml.so.1",
        .read = rich_read,
        .merge = rich_merge,
        .to_json = rich_to_json,
        .print = rich_print,
};
