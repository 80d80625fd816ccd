/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the runner's unit tests (test-isolate.c, test-isolate-child.c). */
#pragma once

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "sandbox/isolate.h"
#include "testlib.h"

/* Pids the helper reports to the test outside the reply (the reply is lost on failure):
 * anonymous shared memory survives fork and is not an fd, so the child's fd sweep keeps it.
 * Pids are as the test sees them (global_pid()), not as the helper's PID namespace numbers them. */
struct shared {
        volatile pid_t child;
        volatile pid_t grandchild;
        volatile pid_t strays[2];
        volatile int ready;
        volatile int result;  /* a forked test child's xpu_isolate_run() return */
        char text[512];       /* and its reply or reason */
};

static inline struct shared *shared_new(void) {
        void *p = mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        ck_assert_ptr_ne(p, MAP_FAILED);
        memset(p, 0, sizeof(struct shared));
        return p;
}

static inline uint64_t ms_now(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static inline int fn_nothing(void *arg, int out) {
        return 0;
}

static inline int fn_abort(void *arg, int out) {
        abort();
}

static inline int fn_return(void *arg, int out) {
        return *(const int *)arg;
}

/* The test's /proc, also mounted here by host_proc_setup(): a helper in a PID namespace gets a
 * /proc of its own on /proc, but this one still names processes as the test sees them. */
#define HOST_PROC "/run/xpu-isolate-test-proc"

/* Checked fixture (runs in each forked test): a private mount namespace for the test process
 * with its /proc also at HOST_PROC, so nothing outlives the test. Not root: nothing to do (then
 * no helper gets a PID namespace either). */
static inline void host_proc_setup(void) {
        if (geteuid() != 0)
                return;
        ck_assert_int_eq(unshare(CLONE_NEWNS), 0);
        ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
        (void)mkdir(HOST_PROC, 0755);
        ck_assert_int_eq(mount("/proc", HOST_PROC, NULL, MS_BIND | MS_REC, NULL), 0);
}

/* This process's pid as the test sees it, even inside the helper's PID namespace (where
 * getpid() is 2 and /proc is the namespace's own): HOST_PROC/self of the test's procfs. */
static inline pid_t global_pid(void) {
        char buf[32];
        ssize_t n = readlink(HOST_PROC "/self", buf, sizeof buf - 1);
        if (n <= 0)
                n = readlink("/proc/self", buf, sizeof buf - 1);
        if (n <= 0)
                return -1;
        buf[n] = '\0';
        return (pid_t)strtol(buf, NULL, 10);
}

/* Wait up to 2 s for *P to be set by another process; its value or 0. */
static inline pid_t wait_for_pid(volatile pid_t *p) {
        for (int i = 0; i < 2000 && !*p; i++)
                usleep(1000);
        return *p;
}

/* Fork a grandchild that sleeps and record both pids; 0 or 20. */
static inline int fn_family(void *arg, int out) {
        struct shared *sh = arg;
        pid_t g = fork();
        if (g < 0)
                return 20;
        if (g == 0) {
                sh->grandchild = global_pid();
                sleep(100);
                _exit(0);
        }
        if (!wait_for_pid(&sh->grandchild))
                return 21;
        sh->child = global_pid();
        sh->ready = 1;
        return 0;
}

static inline int fn_family_hang(void *arg, int out) {
        (void)fn_family(arg, out);
        sleep(100);
        return 0;
}

static inline int fn_family_ok(void *arg, int out) {
        (void)fn_family(arg, out);
        return xpu_write_full(out, "ok", 2);
}

/* Run FN with O; return the status, the reply in *REPLY (or NULL) and the reason in REASON. */
static inline int run(int (*fn)(void *, int), void *arg, const struct xpu_isolate_options *o, char **reply,
                      size_t *len, char reason[static 256]) {
        void *r = NULL;
        *len = 12345;
        int ret = xpu_isolate_run(fn, arg, o, &r, len, reason, 256);
        *reply = r;
        return ret;
}

static inline struct xpu_isolate_options opts(unsigned timeout_ms, bool drop) {
        struct xpu_isolate_options o = XPU_ISOLATE_OPTIONS_DEFAULT;
        o.timeout_ms = timeout_ms;
        o.drop_privileges = drop;
        return o;
}

/* PID is gone: no process, no zombie. The test process is a subreaper, so a stray orphaned
 * outside a PID namespace comes back to it: such a one must have died of SIGKILL and is reaped
 * here, instead of racing init's reaping. Inside a namespace its init reaped it. */
static inline void assert_gone(pid_t pid) {
        ck_assert_int_gt(pid, 0);
        int st = 0;
        pid_t w = 0;
        for (int i = 0; i < 2000 && w == 0; i++) /* a SIGKILLed child is reaped in far less than 2 s */
                if ((w = waitpid(pid, &st, WNOHANG)) == 0)
                        usleep(1000);
        if (w == 0)
                (void)kill(pid, SIGKILL); /* do not leave it behind */
        ck_assert_msg(w != 0, "process %d is still alive", (int)pid);
        if (w == pid) {
                ck_assert(WIFSIGNALED(st));
                ck_assert_int_eq(WTERMSIG(st), SIGKILL);
        } else {
                ck_assert_int_eq(w, -1);
                ck_assert_int_eq(errno, ECHILD);
        }
        errno = 0;
        ck_assert_int_eq(kill(pid, 0), -1);
        ck_assert_int_eq(errno, ESRCH);
}

static inline void assert_family_gone(const struct shared *sh) {
        assert_gone(sh->child); /* reaped by xpu_isolate_run */
        assert_gone(sh->grandchild);
        int st = 0;
        ck_assert_int_eq(waitpid(-1, &st, WNOHANG), -1); /* no other child left */
        ck_assert_int_eq(errno, ECHILD);
}
