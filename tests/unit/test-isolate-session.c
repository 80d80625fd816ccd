/* SPDX-License-Identifier: Apache-2.0 */
/* Long-lived isolated helpers (probes/sandbox/isolate-session.c) and the NVML session built on them
 * (xpu_nvml_session_* in probes/nvidia/nvidia-nvml.c): several requests served by one helper
 * pid; a hang, an abort, a bad frame or bytes nobody asked for end the session with the right
 * error and leave no process behind; the fake NVML sees nvmlInit_v2 once across several reads and
 * nvmlShutdown at the end; a hang or abort in the middle of a session costs that read only (the
 * next one works with a new helper); repeated failures back off; a GPU lost while the session runs
 * is reported lost by the same helper. Needs root (PID namespaces, ids). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/path.h"
#include "isolate-test.h"
#include "shim-root.h"

/* ---- the generic session -------------------------------------------------------------------- */

/* Serve requests: "hang" never answers, "abort" aborts, "garbage" sends a bad frame, "extra"
 * answers and adds bytes nobody asked for, "exit3" exits with status 3; anything else gets
 * "reply N to REQ from PID" (N counts the requests of this helper, PID as the test sees it). */
static int fn_serve(void *arg, int fd) {
        struct shared *sh = arg;
        char req[XPU_ISOLATE_REQUEST_MAX], out[160];
        unsigned n = 0;
        sh->child = global_pid();
        for (;;) {
                ssize_t r = xpu_isolate_session_next(fd, req, sizeof req);
                if (r <= 0) {
                        sh->result = r == 0 ? 1 : (int)r; /* 1: EOF, the parent ended the session */
                        return 0;
                }
                n++;
                if (strcmp(req, "hang") == 0)
                        for (;;)
                                pause();
                if (strcmp(req, "abort") == 0)
                        abort();
                if (strcmp(req, "exit3") == 0)
                        return 3;
                if (strcmp(req, "garbage") == 0) {
                        (void)xpu_write_full(fd, "12x\n", 4);
                        continue;
                }
                if (strcmp(req, "big") == 0) { /* 9000 bytes: the frame's start, a pause, the rest */
                        static char big[9000];
                        for (size_t i = 0; i < sizeof big; i++)
                                big[i] = (char)('a' + i % 26);
                        (void)xpu_write_full(fd, "9000\n", 5);
                        (void)xpu_write_full(fd, big, 100);
                        usleep(100 * 1000);
                        (void)xpu_write_full(fd, big + 100, sizeof big - 100);
                        continue;
                }
                int len = snprintf(out, sizeof out, "reply %u to %s from %d", n, req, (int)global_pid());
                if (xpu_isolate_session_send(fd, out, (size_t)len) < 0)
                        return 20;
                if (strcmp(req, "extra") == 0)
                        (void)xpu_write_full(fd, "junk", 4);
        }
}

/* A helper that answers an error before any request, then exits (a failed library load). */
static int fn_early_error(void *arg, int fd) {
        return xpu_isolate_session_send(fd, "error -2 not found", 18) < 0 ? 1 : 0;
}

static struct xpu_isolate_session *start(struct shared *sh, unsigned timeout_ms) {
        struct xpu_isolate_options o = opts(timeout_ms, true);
        struct xpu_isolate_session *s = NULL;
        char reason[256] = "";
        int r = xpu_isolate_session_start(fn_serve, sh, &o, &s, reason, sizeof reason);
        ck_assert_msg(r == 0, "start: %d %s", r, reason);
        ck_assert(xpu_isolate_session_alive(s));
        ck_assert_int_gt(xpu_isolate_session_pid(s), 0);
        return s;
}

/* Call REQ; return the status, the reply or reason in BUF. */
static int call(struct xpu_isolate_session *s, const char *req, unsigned timeout_ms, char *buf, size_t size) {
        void *reply = NULL;
        size_t len = 0;
        char reason[256] = "";
        int r = xpu_isolate_session_call(s, req, timeout_ms, &reply, &len, reason, sizeof reason);
        if (r == 0) {
                ck_assert_uint_eq(strlen(reply), len);
                snprintf(buf, size, "%s", (char *)reply);
                free(reply);
        } else
                snprintf(buf, size, "%s", reason);
        return r;
}

START_TEST(test_session_one_helper) {
        struct shared *sh = shared_new();
        struct xpu_isolate_session *s = start(sh, 5000);
        char buf[256], want[256];
        ck_assert_int_eq(call(s, "sample", 0, buf, sizeof buf), 0);
        ck_assert_int_gt(wait_for_pid(&sh->child), 0);
        snprintf(want, sizeof want, "reply 1 to sample from %d", (int)sh->child);
        ck_assert_str_eq(buf, want);
        ck_assert_int_eq(call(s, "sample\n", 0, buf, sizeof buf), 0); /* a newline is taken as given */
        snprintf(want, sizeof want, "reply 2 to sample from %d", (int)sh->child);
        ck_assert_str_eq(buf, want);
        ck_assert(xpu_isolate_session_alive(s));
        /* bad requests are refused before anything is sent */
        ck_assert_int_eq(call(s, "", 0, buf, sizeof buf), -EINVAL);
        ck_assert_int_eq(call(s, "a\nb", 0, buf, sizeof buf), -EINVAL);
        ck_assert_int_eq(call(s, "sample", 0, buf, sizeof buf), 0);
        ck_assert(strstr(buf, "reply 3 to sample"));
        pid_t helper = xpu_isolate_session_pid(s);
        s = xpu_isolate_session_end(s);
        ck_assert_ptr_null(s);
        ck_assert_int_eq(sh->result, 1); /* the helper saw EOF and returned on its own */
        assert_gone(sh->child);
        ck_assert_int_eq(kill(helper, 0), -1);
}
END_TEST

START_TEST(test_session_hang) {
        struct shared *sh = shared_new();
        struct xpu_isolate_session *s = start(sh, 5000);
        char buf[256];
        ck_assert_int_eq(call(s, "sample", 0, buf, sizeof buf), 0);
        uint64_t t0 = ms_now();
        ck_assert_int_eq(call(s, "hang", 300, buf, sizeof buf), -ETIMEDOUT);
        uint64_t took = ms_now() - t0;
        ck_assert_str_eq(buf, "timed out after 300 ms");
        ck_assert_msg(took >= 290 && took < 2500, "took %llu ms", (unsigned long long)took);
        ck_assert(!xpu_isolate_session_alive(s));
        ck_assert_int_eq(xpu_isolate_session_pid(s), 0);
        assert_gone(sh->child);
        ck_assert_int_eq(call(s, "sample", 0, buf, sizeof buf), -ESRCH);
        ck_assert_str_eq(buf, "has ended");
        xpu_isolate_session_end(s);
}
END_TEST

START_TEST(test_session_abort) {
        struct shared *sh = shared_new();
        struct xpu_isolate_session *s = start(sh, 5000);
        char buf[256];
        ck_assert_int_eq(call(s, "one", 0, buf, sizeof buf), 0);
        ck_assert_int_eq(call(s, "abort", 0, buf, sizeof buf), -ECONNABORTED);
        ck_assert_str_eq(buf, "killed by signal 6 (Aborted)");
        ck_assert(!xpu_isolate_session_alive(s));
        assert_gone(sh->child);
        xpu_isolate_session_end(s);
}
END_TEST

START_TEST(test_session_exit_status) {
        struct shared *sh = shared_new();
        struct xpu_isolate_session *s = start(sh, 5000);
        char buf[256];
        ck_assert_int_eq(call(s, "exit3", 0, buf, sizeof buf), -EPROTO);
        ck_assert_str_eq(buf, "exited with status 3");
        xpu_isolate_session_end(s);
}
END_TEST

START_TEST(test_session_garbage) {
        struct shared *sh = shared_new();
        struct xpu_isolate_session *s = start(sh, 5000);
        char buf[256];
        ck_assert_int_eq(call(s, "garbage", 0, buf, sizeof buf), -EBADMSG);
        ck_assert_str_eq(buf, "sent a bad frame");
        ck_assert(!xpu_isolate_session_alive(s));
        assert_gone(sh->child);
        xpu_isolate_session_end(s);

        /* A good reply followed by bytes nobody asked for: this call still gets its reply (the
         * extra bytes may come after it), the next one finds them and ends the session. */
        sh = shared_new();
        s = start(sh, 5000);
        int r = call(s, "extra", 0, buf, sizeof buf);
        if (r == 0) {
                ck_assert(strstr(buf, "reply 1 to extra"));
                usleep(100 * 1000);
                r = call(s, "sample", 0, buf, sizeof buf);
        }
        ck_assert_int_eq(r, -EBADMSG);
        ck_assert_str_eq(buf, "sent data nobody asked for");
        assert_gone(sh->child);
        xpu_isolate_session_end(s);
}
END_TEST

START_TEST(test_session_early_reply) {
        struct xpu_isolate_options o = opts(5000, true);
        struct xpu_isolate_session *s = NULL;
        char buf[256], reason[256] = "";
        ck_assert_int_eq(xpu_isolate_session_start(fn_early_error, NULL, &o, &s, reason, sizeof reason), 0);
        usleep(200 * 1000); /* the helper has answered and exited before the request is sent */
        ck_assert_int_eq(call(s, "sample", 0, buf, sizeof buf), 0);
        ck_assert_str_eq(buf, "error -2 not found");
        /* it is gone now: the next call says how it ended */
        ck_assert_int_eq(call(s, "sample", 0, buf, sizeof buf), -EPROTO);
        ck_assert_str_eq(buf, "exited before answering");
        xpu_isolate_session_end(s);
}
END_TEST

/* A reply larger than the first read's buffer whose start arrives alone: the buffer grows to the
 * whole frame before more is read into it (make check-asan catches a write past it). */
START_TEST(test_session_big_reply) {
        struct shared *sh = shared_new();
        struct xpu_isolate_session *s = start(sh, 5000);
        void *reply = NULL;
        size_t len = 0;
        char reason[256] = "";
        ck_assert_int_eq(xpu_isolate_session_call(s, "big", 0, &reply, &len, reason, sizeof reason), 0);
        ck_assert_uint_eq(len, 9000);
        for (size_t i = 0; i < len; i++)
                ck_assert_int_eq(((char *)reply)[i], 'a' + (int)(i % 26));
        free(reply);
        char buf[256];
        ck_assert_int_eq(call(s, "sample", 0, buf, sizeof buf), 0); /* the session goes on */
        ck_assert(strstr(buf, "reply 2 to sample"));
        xpu_isolate_session_end(s);
}
END_TEST

START_TEST(test_session_reply_limit) {
        struct shared *sh = shared_new();
        struct xpu_isolate_options o = opts(5000, true);
        o.max_reply_bytes = 10;
        struct xpu_isolate_session *s = NULL;
        char buf[256], reason[256] = "";
        ck_assert_int_eq(xpu_isolate_session_start(fn_serve, sh, &o, &s, reason, sizeof reason), 0);
        ck_assert_int_eq(call(s, "sample", 0, buf, sizeof buf), -EMSGSIZE);
        ck_assert_str_eq(buf, "reply larger than 10 bytes");
        xpu_isolate_session_end(s);
}
END_TEST

/* ---- the NVML session ----------------------------------------------------------------------- */

#define DRIVER "465.19.01"

/* Two GPUs with readings; CALLS is the calls_log the fake appends to. */
static char *nvml_state(const char *calls, const char *extra) {
        char *s = NULL;
        ck_assert_int_ge(asprintf(&s,
                                  "driver_version " DRIVER "\n"
                                  "calls_log %s\n"
                                  "%s"
                                  "device_count 2\n"
                                  "device.0.name NVIDIA A100-SXM4-80GB\n"
                                  "device.0.uuid GPU-307dcc96-618a-4416-c1ef-87823c2e1a31\n"
                                  "device.0.bus_id 00000000:1A:00.0\n"
                                  "device.0.power_usage_mw 250000\n"
                                  "device.0.temperature 41\n"
                                  "device.1.name NVIDIA A100-SXM4-80GB\n"
                                  "device.1.uuid GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe\n"
                                  "device.1.bus_id 00000000:1B:00.0\n"
                                  "device.1.power_usage_mw 71234\n",
                                  calls, extra),
                         0);
        return s;
}

struct nvml_fixture {
        char *root;
        char calls[PATH_MAX];
        int fd;
        struct xpu_nvml_session *s;
};

static void nvml_setup(struct nvml_fixture *f, const char *extra) {
        f->root = shim_root_new();
        snprintf(f->calls, sizeof f->calls, "%s/calls", f->root);
        int fd = open(f->calls, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(fchmod(fd, 0666), 0); /* the helper runs as nobody */
        close(fd);
        char *state = nvml_state(f->calls, extra);
        shim_write_state(f->root, state);
        free(state);
        shim_install(f->root, "libnvidia-ml.so.shim", "libnvidia-ml.so", DRIVER);
        f->fd = xpu_open_root(f->root);
        ck_assert_int_ge(f->fd, 0);
        ck_assert_int_eq(xpu_nvml_session_new(&f->s), 0);
}

static void nvml_set_state(struct nvml_fixture *f, const char *extra) {
        char *state = nvml_state(f->calls, extra);
        shim_write_state(f->root, state);
        free(state);
}

static void nvml_teardown(struct nvml_fixture *f) {
        f->s = xpu_nvml_session_free(f->s);
        close(f->fd);
        shim_drop_root(f->root);
}

/* Lines of the calls log that start with FUNCTION. */
static int calls_count(const struct nvml_fixture *f, const char *function) {
        FILE *fp = fopen(f->calls, "re");
        char line[256];
        int n = 0;
        ck_assert_ptr_nonnull(fp);
        while (fgets(line, sizeof line, fp))
                if (strncmp(line, function, strlen(function)) == 0 && line[strlen(function)] == ' ')
                        n++;
        fclose(fp);
        return n;
}

static int nvml_read(struct nvml_fixture *f, unsigned timeout_ms, struct xpu_nvml_result **ret, char *err,
                     size_t size) {
        err[0] = '\0';
        return xpu_nvml_session_read(f->s, f->fd, DRIVER, timeout_ms, ret, err, size);
}

/* A read that must work; returns the result. */
static struct xpu_nvml_result *nvml_read_ok(struct nvml_fixture *f) {
        struct xpu_nvml_result *r = NULL;
        char err[512];
        int e = nvml_read(f, 5000, &r, err, sizeof err);
        ck_assert_msg(e == 0, "read: %d %s", e, err);
        ck_assert_uint_eq(r->n, 2);
        return r;
}

START_TEST(test_nvml_session_one_init) {
        struct nvml_fixture f;
        nvml_setup(&f, "");
        ck_assert_int_eq(xpu_nvml_session_pid(f.s), 0); /* nothing runs before the first read */
        struct xpu_nvml_result *r = nvml_read_ok(&f);
        pid_t pid = xpu_nvml_session_pid(f.s);
        ck_assert_int_gt(pid, 0);
        ck_assert_uint_eq(r->devices[0].power_usage_milliwatts, 250000);
        ck_assert_uint_eq(r->devices[0].temperature_celsius, 41);
        xpu_nvml_result_free(r);

        /* readings change between reads; the same helper answers with the new ones */
        nvml_set_state(&f, "");
        for (int i = 0; i < 3; i++) {
                r = nvml_read_ok(&f);
                ck_assert_int_eq(xpu_nvml_session_pid(f.s), pid);
                xpu_nvml_result_free(r);
        }
        char *changed = nvml_state(f.calls, "device.0.power_usage_mw 260500\n");
        shim_write_state(f.root, changed); /* first key wins: the extra line comes before device.0's */
        free(changed);
        r = nvml_read_ok(&f);
        ck_assert_uint_eq(r->devices[0].power_usage_milliwatts, 260500);
        ck_assert_int_eq(xpu_nvml_session_pid(f.s), pid);
        xpu_nvml_result_free(r);

        ck_assert_int_eq(calls_count(&f, "nvmlInit_v2"), 1); /* five reads, one session */
        ck_assert_int_eq(calls_count(&f, "nvmlShutdown"), 0);
        f.s = xpu_nvml_session_free(f.s);
        ck_assert_int_eq(calls_count(&f, "nvmlShutdown"), 1); /* ended cleanly */
        ck_assert_int_eq(kill(pid, 0), -1);
        nvml_teardown(&f);
}
END_TEST

/* A hang (or an abort) in the middle of a session: that read fails with the helper's fate, the
 * next one works with a new helper (a second nvmlInit_v2). */
static void fault_mid_session(const char *fault, int want_err, const char *want_msg) {
        struct nvml_fixture f;
        nvml_setup(&f, "");
        xpu_nvml_result_free(nvml_read_ok(&f));
        pid_t first = xpu_nvml_session_pid(f.s);
        ck_assert_int_gt(first, 0);

        nvml_set_state(&f, fault);
        struct xpu_nvml_result *r = NULL;
        char err[512];
        uint64_t t0 = ms_now();
        ck_assert_int_eq(nvml_read(&f, 400, &r, err, sizeof err), want_err);
        ck_assert_ptr_null(r);
        ck_assert_str_eq(err, want_msg);
        ck_assert_msg(ms_now() - t0 < 3000, "the failed read took %llu ms", (unsigned long long)(ms_now() - t0));
        ck_assert_int_eq(xpu_nvml_session_pid(f.s), 0);
        errno = 0;
        ck_assert_int_eq(kill(first, 0), -1);
        ck_assert_int_eq(errno, ESRCH);

        nvml_set_state(&f, "");
        r = nvml_read_ok(&f); /* the first failure: restarted at once */
        pid_t second = xpu_nvml_session_pid(f.s);
        ck_assert_int_gt(second, 0);
        ck_assert_int_ne(second, first);
        ck_assert_uint_eq(r->devices[0].power_usage_milliwatts, 250000);
        xpu_nvml_result_free(r);
        ck_assert_int_eq(calls_count(&f, "nvmlInit_v2"), 2);
        nvml_teardown(&f);
}

START_TEST(test_nvml_session_hang) {
        fault_mid_session("hang.nvmlDeviceGetPowerUsage 1\n", -ETIMEDOUT, "NVML helper timed out after 400 ms");
}
END_TEST

START_TEST(test_nvml_session_abort) {
        fault_mid_session("abort.nvmlDeviceGetPowerUsage 1\n", -ECONNABORTED,
                          "NVML helper killed by signal 6 (Aborted)");
}
END_TEST

START_TEST(test_nvml_session_backoff) {
        struct nvml_fixture f;
        nvml_setup(&f, "abort.nvmlDeviceGetCount_v2 1\n");
        xpu_nvml_session_set_backoff(f.s, 600, 5000);
        struct xpu_nvml_result *r = NULL;
        char err[512];
        ck_assert_int_eq(nvml_read(&f, 2000, &r, err, sizeof err), -ECONNABORTED);
        /* one failure: the next read starts a helper at once, and it aborts too */
        ck_assert_int_eq(nvml_read(&f, 2000, &r, err, sizeof err), -ECONNABORTED);
        ck_assert_int_eq(calls_count(&f, "nvmlInit_v2"), 2);
        /* two in a row: no helper for 600 ms; reads say so at once */
        uint64_t t0 = ms_now();
        ck_assert_int_eq(nvml_read(&f, 2000, &r, err, sizeof err), -EAGAIN);
        ck_assert_msg(ms_now() - t0 < 100, "a read during the backoff waited");
        ck_assert_msg(strstr(err, "NVML helper not restarted for ") &&
                              strstr(err, " s after 2 failures in a row: NVML helper killed by signal 6 (Aborted)"),
                      "%s", err);
        ck_assert_int_eq(xpu_nvml_session_pid(f.s), 0);
        ck_assert_int_eq(calls_count(&f, "nvmlInit_v2"), 2);
        /* the fault goes away; after the backoff the next read works and resets the count */
        nvml_set_state(&f, "");
        usleep(700 * 1000);
        xpu_nvml_result_free(nvml_read_ok(&f));
        ck_assert_int_eq(calls_count(&f, "nvmlInit_v2"), 3);
        nvml_teardown(&f);
}
END_TEST

START_TEST(test_nvml_session_lost_gpu) {
        struct nvml_fixture f;
        nvml_setup(&f, "");
        xpu_nvml_result_free(nvml_read_ok(&f));
        pid_t pid = xpu_nvml_session_pid(f.s);
        nvml_set_state(&f, "device.1.lost 1\n");
        struct xpu_nvml_result *r = nvml_read_ok(&f);
        ck_assert_int_eq(xpu_nvml_session_pid(f.s), pid); /* a lost GPU is a reading, not a failure */
        ck_assert(!r->devices[0].lost);
        ck_assert(r->devices[1].lost);
        ck_assert_str_eq(r->devices[1].lost_reason, "nvmlDeviceGetHandleByIndex_v2 failed: GPU is lost (error 15)");
        struct xpu_readings rd;
        xpu_nvml_device_readings(&r->devices[1], &rd);
        ck_assert(rd.lost);
        ck_assert_uint_eq(rd.have, 0);
        ck_assert_str_eq(rd.lost_reason, "nvmlDeviceGetHandleByIndex_v2 failed: GPU is lost (error 15)");
        xpu_nvml_result_free(r);
        nvml_set_state(&f, "");
        r = nvml_read_ok(&f);
        ck_assert(!r->devices[1].lost);
        ck_assert_int_eq(xpu_nvml_session_pid(f.s), pid);
        xpu_nvml_result_free(r);
        ck_assert_int_eq(calls_count(&f, "nvmlInit_v2"), 1);
        nvml_teardown(&f);
}
END_TEST

START_TEST(test_nvml_session_init_error) {
        struct nvml_fixture f;
        nvml_setup(&f, "error.nvmlInit_v2 9\n");
        struct xpu_nvml_result *r = NULL;
        char err[512];
        ck_assert_int_eq(nvml_read(&f, 2000, &r, err, sizeof err), -ENODEV);
        ck_assert_str_eq(err, "nvmlInit_v2 failed: Driver Not Loaded (error 9)");
        ck_assert_int_eq(xpu_nvml_session_pid(f.s), 0);
        /* no driver version: nothing is started at all */
        ck_assert_int_eq(xpu_nvml_session_read(f.s, f.fd, NULL, 2000, &r, err, sizeof err), -ENODATA);
        ck_assert_int_eq(xpu_nvml_session_pid(f.s), 0);
        nvml_teardown(&f);
}
END_TEST

START_TEST(test_nvml_readings_units) {
        struct xpu_nvml_device d = { 0 };
        d.have = XPU_NVML_HAVE_UTIL_GPU | XPU_NVML_HAVE_UTIL_MEMORY | XPU_NVML_HAVE_MEMORY_USED |
                 XPU_NVML_HAVE_MEMORY_TOTAL | XPU_NVML_HAVE_TEMPERATURE | XPU_NVML_HAVE_POWER_USAGE |
                 XPU_NVML_HAVE_POWER_LIMIT | XPU_NVML_HAVE_ENERGY | XPU_NVML_HAVE_CLOCK_SM |
                 XPU_NVML_HAVE_CLOCK_MEMORY | XPU_NVML_HAVE_ECC_CORRECTED | XPU_NVML_HAVE_ECC_UNCORRECTED |
                 XPU_NVML_HAVE_CLOCK_EVENTS;
        d.utilization_gpu_percent = 35;
        d.utilization_memory_percent = 12;
        d.memory_used_bytes = 911212544;
        d.memory_total_bytes = 85899345920ull;
        d.temperature_celsius = 41;
        d.power_usage_milliwatts = 250000;
        d.power_limit_milliwatts = 400000;
        d.energy_millijoules = 123456789012ull;
        d.clock_sm_hz = 1410000000ull;
        d.clock_memory_hz = 1593000000ull;
        d.ecc_corrected = 3;
        d.ecc_uncorrected = 1;
        d.clock_event_reasons = 0x24 | 0x1; /* SW power cap, SW thermal, idle */
        struct xpu_readings r;
        xpu_nvml_device_readings(&d, &r);
        ck_assert_uint_eq(r.have, XPU_READ_UTILIZATION | XPU_READ_MEMORY_UTILIZATION | XPU_READ_MEMORY_USED |
                                          XPU_READ_MEMORY_TOTAL | XPU_READ_POWER | XPU_READ_POWER_LIMIT |
                                          XPU_READ_ENERGY | XPU_READ_ECC | XPU_READ_THROTTLE);
        ck_assert_double_eq(r.utilization_ratio, 0.35);
        ck_assert_double_eq(r.memory_bandwidth_utilization_ratio, 0.12);
        ck_assert_uint_eq(r.memory_used_bytes, 911212544);
        ck_assert_uint_eq(r.memory_total_bytes, 85899345920ull);
        ck_assert_uint_eq(r.have_temperature, 1u << XPU_TEMP_GPU);
        ck_assert_double_eq(r.temperature_celsius[XPU_TEMP_GPU], 41);
        ck_assert_double_eq(r.power_watts, 250);
        ck_assert_double_eq(r.power_limit_watts, 400);
        ck_assert_double_eq(r.energy_joules, 123456789.012);
        ck_assert_uint_eq(r.have_clock, (1u << XPU_CLOCK_GRAPHICS) | (1u << XPU_CLOCK_MEMORY));
        ck_assert_uint_eq(r.clock_hertz[XPU_CLOCK_GRAPHICS], 1410000000ull);
        ck_assert_uint_eq(r.clock_hertz[XPU_CLOCK_MEMORY], 1593000000ull);
        ck_assert_uint_eq(r.ecc_corrected, 3);
        ck_assert_uint_eq(r.ecc_uncorrected, 1);
        ck_assert_uint_eq(r.throttle, (1u << XPU_THROTTLE_POWER) | (1u << XPU_THROTTLE_THERMAL));
        ck_assert(!r.lost);

        /* one ECC count alone is not enough; the hardware reasons */
        d.have &= ~XPU_NVML_HAVE_ECC_UNCORRECTED;
        d.clock_event_reasons = 0x8 | 0x40 | 0x80 | 0x10 | 0x100;
        xpu_nvml_device_readings(&d, &r);
        ck_assert(!(r.have & XPU_READ_ECC));
        ck_assert_uint_eq(r.throttle, (1u << XPU_THROTTLE_HW_SLOWDOWN) | (1u << XPU_THROTTLE_THERMAL) |
                                              (1u << XPU_THROTTLE_SYNC_BOOST));
        ck_assert_uint_eq(xpu_nvml_throttle_from_reasons(0x1 | 0x2 | 0x100), 0);
}
END_TEST

static Suite *isolate_session_suite(void) {
        Suite *s = suite_create("isolate-session");
        TCase *tc = tcase_create("session");
        tcase_add_checked_fixture(tc, host_proc_setup, NULL);
        tcase_set_timeout(tc, 30);
        tcase_add_test(tc, test_session_one_helper);
        tcase_add_test(tc, test_session_hang);
        tcase_add_test(tc, test_session_abort);
        tcase_add_test(tc, test_session_exit_status);
        tcase_add_test(tc, test_session_garbage);
        tcase_add_test(tc, test_session_early_reply);
        tcase_add_test(tc, test_session_big_reply);
        tcase_add_test(tc, test_session_reply_limit);
        suite_add_tcase(s, tc);
        TCase *nv = tcase_create("nvml");
        tcase_set_timeout(nv, 30);
        tcase_add_test(nv, test_nvml_session_one_init);
        tcase_add_test(nv, test_nvml_session_hang);
        tcase_add_test(nv, test_nvml_session_abort);
        tcase_add_test(nv, test_nvml_session_backoff);
        tcase_add_test(nv, test_nvml_session_lost_gpu);
        tcase_add_test(nv, test_nvml_session_init_error);
        tcase_add_test(nv, test_nvml_readings_units);
        suite_add_tcase(s, nv);
        return s;
}

int main(void) {
        return xpu_test_run(isolate_session_suite());
}
