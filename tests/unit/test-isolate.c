/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base/isolate: forked, unprivileged, time-bounded helper runner. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "isolate-test.h"

static int fn_str(void *arg, int out) {
        const char *s = arg;
        return xpu_write_full(out, s, strlen(s));
}
static int fn_exit3(void *arg, int out) {
        _exit(3);
}

static int fn_flood(void *arg, int out) {
        char block[4096];
        memset(block, 'x', sizeof block);
        for (;;)
                if (xpu_write_full(out, block, sizeof block))
                        return 1;
}
/* The whole environment, one "K=V\n" per entry. */
static int fn_env(void *arg, int out) {
        extern char **environ;
        for (char **e = environ; *e; e++)
                if (xpu_write_full(out, *e, strlen(*e)) || xpu_write_full(out, "\n", 1))
                        return 1;
        return 0;
}
/* "out=N open=0 1 2 N" (every open fd below 1024), then stdin's and stdout's targets. */
static int fn_fds(void *arg, int out) {
        char buf[512];
        int n = snprintf(buf, sizeof buf, "out=%d open=", out);
        for (int fd = 0; fd < 1024; fd++)
                if (fcntl(fd, F_GETFD) >= 0)
                        n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%d", buf[n - 1] == '=' ? "" : " ", fd);
        for (int fd = 0; fd <= 1; fd++) {
                char path[64], target[128] = "";
                snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
                ssize_t l = readlink(path, target, sizeof target - 1);
                if (l > 0)
                        target[l] = '\0';
                n += snprintf(buf + n, sizeof buf - (size_t)n, " %d=%s", fd, target);
        }
        return xpu_write_full(out, buf, (size_t)n);
}
/* Selected lines of /proc/self/status, then pgid, PDEATHSIG, RLIMIT_CORE and cwd. */
static int fn_status(void *arg, int out) {
        static const char *const keys[] = { "Uid:", "Gid:", "Groups:", "SigBlk:", "SigIgn:", "SigCgt:",
                                            "CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:", "NoNewPrivs:" };
        FILE *f = fopen("/proc/self/status", "re");
        if (!f)
                return 10;
        char line[512];
        while (fgets(line, sizeof line, f))
                for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                        if (strncmp(line, keys[i], strlen(keys[i])) == 0 && xpu_write_full(out, line, strlen(line)))
                                return 11;
        fclose(f);
        int sig = -1;
        prctl(PR_GET_PDEATHSIG, &sig, 0, 0, 0);
        struct rlimit rl;
        getrlimit(RLIMIT_CORE, &rl);
        char cwd[256] = "";
        if (!getcwd(cwd, sizeof cwd))
                return 12;
        char buf[512];
        int n = snprintf(buf, sizeof buf, "pgid=%s pdeathsig=%d core=%llu/%llu cwd=%s\n",
                         getpgid(0) == getpid() ? "self" : "other", sig, (unsigned long long)rl.rlim_cur,
                         (unsigned long long)rl.rlim_max, cwd);
        return xpu_write_full(out, buf, (size_t)n);
}

/* The value of KEY's line ("CapEff:\t0000...\n") in a fn_status reply. */
static const char *line_of(const char *reply, const char *key, char *buf, size_t size) {
        const char *p = strstr(reply, key);
        ck_assert_msg(p, "%s missing in %s", key, reply);
        size_t n = strcspn(p, "\n");
        ck_assert_uint_lt(n, size);
        memcpy(buf, p, n);
        buf[n] = '\0';
        return buf;
}

START_TEST(test_reply_hello) {
        struct xpu_isolate_options o = opts(2000, false);
        char *reply, reason[256];
        size_t len;
        ck_assert_int_eq(run(fn_str, (void *)"hello", &o, &reply, &len, reason), 0);
        ck_assert_uint_eq(len, 5);
        ck_assert_str_eq(reply, "hello"); /* NUL-terminated */
        ck_assert_str_eq(reason, "");
        free(reply);
}
END_TEST

START_TEST(test_reply_empty) {
        struct xpu_isolate_options o = opts(2000, false);
        char *reply, reason[256];
        size_t len;
        ck_assert_int_eq(run(fn_nothing, NULL, &o, &reply, &len, reason), 0);
        ck_assert_uint_eq(len, 0);
        ck_assert_ptr_nonnull(reply);
        ck_assert_str_eq(reply, "");
        free(reply);
}
END_TEST

START_TEST(test_abort) {
        struct xpu_isolate_options o = opts(2000, false);
        char *reply, reason[256];
        size_t len;
        ck_assert_int_eq(run(fn_abort, NULL, &o, &reply, &len, reason), -ECONNABORTED);
        ck_assert_str_eq(reason, "killed by signal 6 (Aborted)");
        ck_assert_ptr_null(reply);
        ck_assert_uint_eq(len, 12345); /* untouched */
}
END_TEST

START_TEST(test_exit_status) {
        struct xpu_isolate_options o = opts(2000, false);
        char *reply, reason[256];
        size_t len;
        ck_assert_int_eq(run(fn_exit3, NULL, &o, &reply, &len, reason), -EPROTO);
        ck_assert_str_eq(reason, "exited with status 3");
        int v = 3;
        ck_assert_int_eq(run(fn_return, &v, &o, &reply, &len, reason), -EPROTO);
        ck_assert_str_eq(reason, "exited with status 3");
        v = -5; /* out of 0..255 */
        ck_assert_int_eq(run(fn_return, &v, &o, &reply, &len, reason), -EPROTO);
        ck_assert_str_eq(reason, "exited with status 255");
        ck_assert_ptr_null(reply);
}
END_TEST

START_TEST(test_timeout_kills_group) {
        ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
        struct shared *sh = shared_new();
        struct xpu_isolate_options o = opts(200, false);
        char *reply, reason[256];
        size_t len;
        uint64_t t0 = ms_now();
        ck_assert_int_eq(run(fn_family_hang, sh, &o, &reply, &len, reason), -ETIMEDOUT);
        uint64_t took = ms_now() - t0;
        ck_assert_str_eq(reason, "timed out after 200 ms");
        ck_assert_uint_ge(took, 190);
        ck_assert_uint_le(took, 1000);
        ck_assert_ptr_null(reply);
        assert_family_gone(sh);
}
END_TEST

START_TEST(test_timeout_reason_seconds) {
        struct xpu_isolate_options o = opts(1000, false);
        char *reply, reason[256];
        size_t len;
        struct shared *sh = shared_new();
        ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
        ck_assert_int_eq(run(fn_family_hang, sh, &o, &reply, &len, reason), -ETIMEDOUT);
        ck_assert_str_eq(reason, "timed out after 1 s");
        assert_family_gone(sh);
}
END_TEST

START_TEST(test_success_kills_strays) {
        ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
        struct shared *sh = shared_new();
        struct xpu_isolate_options o = opts(2000, false);
        char *reply, reason[256];
        size_t len;
        uint64_t t0 = ms_now();
        /* The sleeping grandchild holds the pipe's write end: no EOF until it dies. */
        ck_assert_int_eq(run(fn_family_ok, sh, &o, &reply, &len, reason), 0);
        ck_assert_uint_le(ms_now() - t0, 500);
        ck_assert_str_eq(reply, "ok");
        free(reply);
        assert_family_gone(sh);
}
END_TEST

START_TEST(test_oversized) {
        struct xpu_isolate_options o = opts(2000, false);
        o.max_reply_bytes = 16;
        char *reply, reason[256];
        size_t len;
        ck_assert_int_eq(run(fn_str, (void *)"0123456789abcdef", &o, &reply, &len, reason), 0);
        ck_assert_uint_eq(len, 16);
        free(reply);
        ck_assert_int_eq(run(fn_str, (void *)"0123456789abcdefg", &o, &reply, &len, reason), -EMSGSIZE);
        ck_assert_str_eq(reason, "reply larger than 16 bytes");
        ck_assert_ptr_null(reply);
        /* An endless writer is cut off at the limit, long before the timeout. */
        o.max_reply_bytes = 100000;
        uint64_t t0 = ms_now();
        ck_assert_int_eq(run(fn_flood, NULL, &o, &reply, &len, reason), -EMSGSIZE);
        ck_assert_str_eq(reason, "reply larger than 100000 bytes");
        ck_assert_uint_le(ms_now() - t0, 1000);
}
END_TEST

START_TEST(test_clean_environment) {
        ck_assert_int_eq(setenv("LD_PRELOAD", "/nonexistent/preload.so", 1), 0);
        ck_assert_int_eq(setenv("LD_LIBRARY_PATH", "/nonexistent/lib", 1), 0);
        ck_assert_int_eq(setenv("LD_AUDIT", "/nonexistent/audit.so", 1), 0);
        ck_assert_int_eq(setenv("PATH", "/evil:/usr/bin", 1), 0);
        struct xpu_isolate_options o = opts(2000, false);
        char *reply, reason[256];
        size_t len;
        ck_assert_int_eq(run(fn_env, NULL, &o, &reply, &len, reason), 0);
        ck_assert_str_eq(reply, "PATH=/usr/bin:/bin\n");
        free(reply);
        ck_assert_str_eq(getenv("LD_PRELOAD"), "/nonexistent/preload.so"); /* parent untouched */
}
END_TEST

START_TEST(test_fds_closed) {
        int leak = open("/dev/null", O_RDONLY); /* deliberately without O_CLOEXEC */
        ck_assert_int_ge(leak, 3);
        int leak2 = dup2(leak, 200);
        ck_assert_int_eq(leak2, 200);
        struct xpu_isolate_options o = opts(2000, false);
        char *reply, reason[256];
        size_t len;
        ck_assert_int_eq(run(fn_fds, NULL, &o, &reply, &len, reason), 0);
        int out = -1;
        ck_assert_int_eq(sscanf(reply, "out=%d", &out), 1);
        ck_assert_int_ge(out, 3);
        char want[128];
        snprintf(want, sizeof want, "out=%d open=0 1 2 %d 0=/dev/null 1=/dev/null", out, out);
        ck_assert_str_eq(reply, want);
        free(reply);
}
END_TEST

/* A caller with stdin and stdout closed gets the pipe on a low fd: it must still work and the
 * helper's stdio must be /dev/null, not the reply pipe. */
START_TEST(test_closed_stdio) {
        ck_assert_int_eq(close(STDIN_FILENO), 0);
        ck_assert_int_eq(close(STDOUT_FILENO), 0);
        struct xpu_isolate_options o = opts(2000, false);
        char *reply, reason[256];
        size_t len;
        ck_assert_int_eq(run(fn_fds, NULL, &o, &reply, &len, reason), 0);
        int out = -1;
        ck_assert_int_eq(sscanf(reply, "out=%d", &out), 1);
        char want[128];
        snprintf(want, sizeof want, "out=%d open=0 1 2 %d 0=/dev/null 1=/dev/null", out, out);
        ck_assert_str_eq(reply, want);
        free(reply);
}
END_TEST

START_TEST(test_signals_reset) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGUSR1);
        sigaddset(&set, SIGCHLD);
        ck_assert_int_eq(sigprocmask(SIG_BLOCK, &set, NULL), 0);
        ck_assert_ptr_ne(signal(SIGTERM, SIG_IGN), SIG_ERR);
        ck_assert_ptr_ne(signal(SIGPIPE, SIG_IGN), SIG_ERR);
        struct xpu_isolate_options o = opts(2000, false);
        char *reply, reason[256], b[128];
        size_t len;
        ck_assert_int_eq(run(fn_status, NULL, &o, &reply, &len, reason), 0);
        ck_assert_str_eq(line_of(reply, "SigBlk:", b, sizeof b), "SigBlk:\t0000000000000000");
        ck_assert_str_eq(line_of(reply, "SigIgn:", b, sizeof b), "SigIgn:\t0000000000000000");
        ck_assert_str_eq(line_of(reply, "SigCgt:", b, sizeof b), "SigCgt:\t0000000000000000");
        ck_assert_str_eq(line_of(reply, "pgid=", b, sizeof b), "pgid=self pdeathsig=9 core=0/0 cwd=/");
        /* Even without drop_privileges: no capabilities, no new privileges; ids and bounding
         * set kept (we run as root here, so CapBnd is not empty). */
        ck_assert_str_eq(line_of(reply, "CapEff:", b, sizeof b), "CapEff:\t0000000000000000");
        ck_assert_str_eq(line_of(reply, "CapPrm:", b, sizeof b), "CapPrm:\t0000000000000000");
        ck_assert_str_eq(line_of(reply, "NoNewPrivs:", b, sizeof b), "NoNewPrivs:\t1");
        if (geteuid() == 0) {
                ck_assert_str_eq(line_of(reply, "Uid:", b, sizeof b), "Uid:\t0\t0\t0\t0");
                ck_assert_str_ne(line_of(reply, "CapBnd:", b, sizeof b), "CapBnd:\t0000000000000000");
        }
        free(reply);
}
END_TEST

static void assert_dropped(const char *reply, const char *uid) {
        char b[128], want[128];
        snprintf(want, sizeof want, "Uid:\t%s\t%s\t%s\t%s", uid, uid, uid, uid);
        ck_assert_str_eq(line_of(reply, "Uid:", b, sizeof b), want);
        snprintf(want, sizeof want, "Gid:\t%s\t%s\t%s\t%s", uid, uid, uid, uid);
        ck_assert_str_eq(line_of(reply, "Gid:", b, sizeof b), want);
        ck_assert_str_eq(line_of(reply, "Groups:", b, sizeof b), "Groups:\t "); /* no supplementary groups */
        ck_assert_str_eq(line_of(reply, "CapInh:", b, sizeof b), "CapInh:\t0000000000000000");
        ck_assert_str_eq(line_of(reply, "CapPrm:", b, sizeof b), "CapPrm:\t0000000000000000");
        ck_assert_str_eq(line_of(reply, "CapEff:", b, sizeof b), "CapEff:\t0000000000000000");
        ck_assert_str_eq(line_of(reply, "CapAmb:", b, sizeof b), "CapAmb:\t0000000000000000");
        ck_assert_str_eq(line_of(reply, "NoNewPrivs:", b, sizeof b), "NoNewPrivs:\t1");
        /* PR_SET_PDEATHSIG survives the id change (it is set again after it). */
        ck_assert_str_eq(line_of(reply, "pgid=", b, sizeof b), "pgid=self pdeathsig=9 core=0/0 cwd=/");
}

START_TEST(test_drop_privileges_root) {
        char *reply, reason[256], b[128];
        size_t len;
        /* NULL options = defaults: drop to 65534:65534. */
        ck_assert_int_eq(run(fn_status, NULL, NULL, &reply, &len, reason), 0);
        assert_dropped(reply, "65534");
        ck_assert_str_eq(line_of(reply, "CapBnd:", b, sizeof b), "CapBnd:\t0000000000000000");
        free(reply);
        struct xpu_isolate_options o = opts(2000, true);
        o.uid = 4321;
        o.gid = 4321;
        ck_assert_int_eq(run(fn_status, NULL, &o, &reply, &len, reason), 0);
        assert_dropped(reply, "4321");
        ck_assert_str_eq(line_of(reply, "CapBnd:", b, sizeof b), "CapBnd:\t0000000000000000");
        free(reply);
}
END_TEST

/* A caller that is already unprivileged keeps its ids (it cannot change them) and still gets
 * no capabilities and no new privileges. */
START_TEST(test_drop_privileges_nonroot) {
        ck_assert_int_eq(setgroups(0, NULL), 0);
        ck_assert_int_eq(setresgid(1000, 1000, 1000), 0);
        ck_assert_int_eq(setresuid(1000, 1000, 1000), 0);
        char *reply, reason[256];
        size_t len;
        struct xpu_isolate_options o = opts(2000, true);
        ck_assert_int_eq(run(fn_status, NULL, &o, &reply, &len, reason), 0);
        assert_dropped(reply, "1000");
        free(reply);
}
END_TEST

/* When the caller dies, the helper dies too, even after switching ids. */
START_TEST(test_parent_death) {
        ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
        struct shared *sh = shared_new();
        pid_t mid = fork();
        ck_assert_int_ge(mid, 0);
        if (mid == 0) {
                struct xpu_isolate_options o = opts(10000, true);
                (void)xpu_isolate_run(fn_family_hang, sh, &o, NULL, NULL, NULL, 0);
                _exit(0);
        }
        uint64_t t0 = ms_now();
        while (!sh->ready && ms_now() - t0 < 1500)
                usleep(1000);
        ck_assert_int_eq(sh->ready, 1);
        ck_assert_int_eq(kill(mid, SIGKILL), 0);
        int st = 0;
        ck_assert_int_eq(waitpid(mid, &st, 0), mid);
        /* The helper (the reaper of its PID namespace), orphaned to us, was killed by its
         * parent-death signal, and the namespace with it: FN's process and its grandchild. */
        uint64_t t1 = ms_now();
        bool child_alive = true, grandchild_alive = true;
        while ((child_alive || grandchild_alive) && ms_now() - t1 < 2000) {
                while (waitpid(-1, &st, WNOHANG) > 0)
                        ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
                child_alive = kill(sh->child, 0) == 0 || errno != ESRCH;
                grandchild_alive = kill(sh->grandchild, 0) == 0 || errno != ESRCH;
                usleep(1000);
        }
        if (grandchild_alive) /* clean up before failing */
                (void)kill(sh->grandchild, SIGKILL);
        ck_assert_msg(!child_alive, "the helper survived its parent");
        ck_assert_msg(!grandchild_alive, "the helper's child survived its parent (no PID namespace?)");
}
END_TEST

/* ---- termination signals (xpu_isolate_set_interrupt) -------------------------------------- */

static void block_term(sigset_t *term) {
        sigemptyset(term);
        sigaddset(term, SIGTERM);
        ck_assert_int_eq(sigprocmask(SIG_BLOCK, term, NULL), 0);
}

static bool term_pending(void) {
        sigset_t p;
        ck_assert_int_eq(sigpending(&p), 0);
        return sigismember(&p, SIGTERM) == 1;
}

START_TEST(test_interrupt_kills_helper) {
        /* SIGTERM arrives 200 ms into a helper that would hang for 100 s (timeout 5 s): the run
         * ends at once, the helper and its child are killed, and the signal stays pending. */
        ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
        sigset_t term;
        block_term(&term);
        xpu_isolate_set_interrupt(&term);
        struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGTERM };
        timer_t timer;
        ck_assert_int_eq(timer_create(CLOCK_MONOTONIC, &ev, &timer), 0);
        struct itimerspec at = { .it_value = { .tv_nsec = 200 * 1000 * 1000 } };
        struct shared *sh = shared_new();
        struct xpu_isolate_options o = opts(5000, false);
        char *reply, reason[256];
        size_t len;
        uint64_t t0 = ms_now();
        ck_assert_int_eq(timer_settime(timer, 0, &at, NULL), 0);
        ck_assert_int_eq(run(fn_family_hang, sh, &o, &reply, &len, reason), -EINTR);
        uint64_t took = ms_now() - t0;
        ck_assert_str_eq(reason, "interrupted by SIGTERM");
        ck_assert_uint_ge(took, 190);
        ck_assert_uint_le(took, 1500);
        ck_assert_ptr_null(reply);
        ck_assert_int_eq(sh->ready, 1); /* it was running */
        assert_family_gone(sh);
        ck_assert(term_pending());
}
END_TEST

START_TEST(test_interrupt_pending_before) {
        /* Already pending: no helper is started at all. */
        sigset_t term;
        block_term(&term);
        xpu_isolate_set_interrupt(&term);
        ck_assert_int_eq(kill(getpid(), SIGTERM), 0);
        struct shared *sh = shared_new();
        struct xpu_isolate_options o = opts(5000, false);
        char *reply, reason[256];
        size_t len;
        uint64_t t0 = ms_now();
        ck_assert_int_eq(run(fn_family_hang, sh, &o, &reply, &len, reason), -EINTR);
        ck_assert_uint_le(ms_now() - t0, 200);
        ck_assert_str_eq(reason, "interrupted by SIGTERM");
        ck_assert_ptr_null(reply);
        usleep(100 * 1000);
        ck_assert_int_eq(sh->ready, 0);
        errno = 0;
        ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1); /* nothing was forked */
        ck_assert_int_eq(errno, ECHILD);
        ck_assert(term_pending());
        /* Without an interrupt set (xpud) a pending SIGTERM changes nothing. */
        xpu_isolate_set_interrupt(NULL);
        ck_assert_int_eq(run(fn_str, (void *)"hello", &o, &reply, &len, reason), 0);
        ck_assert_str_eq(reply, "hello");
        free(reply);
}
END_TEST

static Suite *isolate_suite(void) {
        Suite *s = suite_create("isolate");
        TCase *tc = tcase_create("core");
        tcase_add_checked_fixture(tc, host_proc_setup, NULL);
        tcase_set_timeout(tc, 10);
        tcase_add_test(tc, test_reply_hello);
        tcase_add_test(tc, test_reply_empty);
        tcase_add_test(tc, test_abort);
        tcase_add_test(tc, test_exit_status);
        tcase_add_test(tc, test_timeout_kills_group);
        tcase_add_test(tc, test_timeout_reason_seconds);
        tcase_add_test(tc, test_success_kills_strays);
        tcase_add_test(tc, test_oversized);
        tcase_add_test(tc, test_clean_environment);
        tcase_add_test(tc, test_fds_closed);
        tcase_add_test(tc, test_closed_stdio);
        tcase_add_test(tc, test_signals_reset);
        tcase_add_test(tc, test_interrupt_kills_helper);
        tcase_add_test(tc, test_interrupt_pending_before);
        suite_add_tcase(s, tc);
        if (geteuid() == 0) {
                TCase *priv = tcase_create("root");
                tcase_add_checked_fixture(priv, host_proc_setup, NULL);
                tcase_set_timeout(priv, 10);
                tcase_add_test(priv, test_drop_privileges_root);
                tcase_add_test(priv, test_drop_privileges_nonroot);
                tcase_add_test(priv, test_parent_death);
                suite_add_tcase(s, priv);
        }
        return s;
}

int main(void) {
        return xpu_test_run(isolate_suite());
}
