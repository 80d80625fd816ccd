/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base/isolate, what an adversarial review found: no controlling terminal,
 * strays that leave the helper's process group (PID namespace), the fallback without one, and a
 * user namespace the helper cannot switch ids in. Needs root (namespaces, a pty as controlling
 * terminal, ids). */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pty.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fileio.h"
#include "isolate-test.h"

/* Try the controlling terminal: "tty=ENXIO" (or "tty=ok"), then TIOCSTI on stderr. */
static int fn_tty(void *arg, int out) {
        char buf[128];
        int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
        int tty_errno = fd < 0 ? errno : 0;
        if (fd >= 0)
                close(fd);
        char c = 'x';
        int sti = ioctl(STDERR_FILENO, TIOCSTI, &c);
        int n = snprintf(buf, sizeof buf, "tty=%s sti=%s", tty_errno ? strerrorname_np(tty_errno) : "ok",
                         sti < 0 ? "refused" : "ok");
        return xpu_write_full(out, buf, (size_t)n);
}

/* Run FN in a forked test child whose controlling terminal is a fresh pty (also its stderr),
 * as xpuinit started from an interactive root shell; reply or reason into SH->text. */
static void run_with_terminal(int (*fn)(void *, int), struct shared *sh) {
        pid_t p = fork();
        ck_assert_int_ge(p, 0);
        if (p == 0) {
                int master, slave;
                if (openpty(&master, &slave, NULL, NULL, NULL) < 0 || setsid() < 0 ||
                    ioctl(slave, TIOCSCTTY, 0) < 0 || dup2(slave, STDERR_FILENO) < 0)
                        _exit(10);
                int self = open("/dev/tty", O_RDWR | O_CLOEXEC); /* the precondition: we have one */
                if (self < 0)
                        _exit(11);
                close(self);
                struct xpu_isolate_options o = XPU_ISOLATE_OPTIONS_DEFAULT;
                void *reply = NULL;
                char reason[256] = "";
                sh->result = xpu_isolate_run(fn, sh, &o, &reply, NULL, reason, sizeof reason);
                snprintf(sh->text, sizeof sh->text, "%s", sh->result == 0 ? (char *)reply : reason);
                _exit(0);
        }
        int st = 0;
        ck_assert_int_eq(waitpid(p, &st, 0), p);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "test child failed to set up a terminal: %d", st);
}

/* A vendor library must not reach the caller's terminal through /dev/tty (TIOCSTI would type
 * commands into a root shell): the helper has no controlling terminal. */
START_TEST(test_no_controlling_terminal) {
        struct shared *sh = shared_new();
        run_with_terminal(fn_tty, sh);
        ck_assert_int_eq(sh->result, 0);
        ck_assert_str_eq(sh->text, "tty=ENXIO sti=refused");
}
END_TEST

/* Fork a child that leaves the helper's process group with setsid() and sleeps 300 s; with
 * DOUBLE, also a double-forked one (its parent exits at once). Their pids in SH->strays. */
static int start_strays(struct shared *sh, bool twice) {
        for (int i = 0; i < (twice ? 2 : 1); i++) {
                pid_t c = fork();
                if (c < 0)
                        return 30;
                if (c == 0) {
                        if (i == 1 && fork() != 0)
                                _exit(0); /* the middle process: its child is orphaned */
                        if (setsid() < 0)
                                _exit(31);
                        sh->strays[i] = global_pid();
                        sleep(300);
                        _exit(0);
                }
                if (!wait_for_pid(&sh->strays[i]))
                        return 32;
        }
        return 0;
}
static int fn_strays_ok(void *arg, int out) {
        struct shared *sh = arg;
        int r = start_strays(sh, true);
        if (r)
                return r;
        char buf[64];
        int n = snprintf(buf, sizeof buf, "%d %d", (int)sh->strays[0], (int)sh->strays[1]);
        return xpu_write_full(out, buf, (size_t)n);
}
static int fn_strays_hang(void *arg, int out) {
        int r = start_strays(arg, false);
        if (r)
                return r;
        sleep(100);
        return 0;
}
static int fn_strays_abort(void *arg, int out) {
        int r = start_strays(arg, false);
        if (r)
                return r;
        abort();
}

/* Each stray in SH is gone: checked, then killed anyway (so a failing run leaves nothing
 * behind), then asserted. */
static void assert_strays_gone(struct shared *sh, int n) {
        for (int i = 0; i < n; i++) {
                pid_t pid = sh->strays[i];
                ck_assert_int_gt(pid, 0);
                int st;
                while (waitpid(-1, &st, WNOHANG) > 0)
                        ;
                errno = 0;
                bool alive = kill(pid, 0) == 0 || errno != ESRCH;
                if (alive)
                        (void)kill(pid, SIGKILL);
                ck_assert_msg(!alive, "stray %d (setsid) survived the run", (int)pid);
        }
}

START_TEST(test_setsid_strays_success) {
        struct shared *sh = shared_new();
        struct xpu_isolate_options o = opts(5000, true);
        char *reply, reason[256], want[64];
        size_t len;
        uint64_t t0 = ms_now();
        ck_assert_int_eq(run(fn_strays_ok, sh, &o, &reply, &len, reason), 0);
        ck_assert_uint_le(ms_now() - t0, 2000);
        snprintf(want, sizeof want, "%d %d", (int)sh->strays[0], (int)sh->strays[1]);
        ck_assert_str_eq(reply, want);
        free(reply);
        assert_strays_gone(sh, 2);
}
END_TEST

START_TEST(test_setsid_strays_timeout) {
        struct shared *sh = shared_new();
        struct xpu_isolate_options o = opts(300, true);
        char *reply, reason[256];
        size_t len;
        ck_assert_int_eq(run(fn_strays_hang, sh, &o, &reply, &len, reason), -ETIMEDOUT);
        ck_assert_str_eq(reason, "timed out after 300 ms");
        assert_strays_gone(sh, 1);
}
END_TEST

START_TEST(test_setsid_strays_abort) {
        struct shared *sh = shared_new();
        struct xpu_isolate_options o = opts(5000, true);
        char *reply, reason[256];
        size_t len;
        ck_assert_int_eq(run(fn_strays_abort, sh, &o, &reply, &len, reason), -ECONNABORTED);
        ck_assert_str_eq(reason, "killed by signal 6 (Aborted)");
        assert_strays_gone(sh, 1);
}
END_TEST

/* Keep only the capabilities in LOW (bits 0..31) and HIGH (32..63) in this thread's effective and
 * permitted sets; the inheritable set is emptied. */
static void caps_keep_only(uint32_t low, uint32_t high) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
        ck_assert_int_eq(syscall(SYS_capget, &h, d), 0);
        const uint32_t keep[2] = { low, high };
        for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
                d[i].effective &= keep[i];
                d[i].permitted &= keep[i];
                d[i].inheritable = 0;
        }
        ck_assert_int_eq(syscall(SYS_capset, &h, d), 0);
}

/* "pid=N ppid=N global=same|other proc=N": getpid() and getppid() as FN sees them, and what
 * /proc/self names (the /proc FN sees belongs to its own PID namespace). */
static int fn_pids(void *arg, int out) {
        char buf[128], self[32] = "?";
        ssize_t k = readlink("/proc/self", self, sizeof self - 1);
        self[k > 0 ? k : 1] = '\0';
        int n = snprintf(buf, sizeof buf, "pid=%d ppid=%d global=%s proc=%s", (int)getpid(), (int)getppid(),
                         global_pid() == getpid() ? "same" : "other", self);
        return xpu_write_full(out, buf, (size_t)n);
}

/* A privileged caller's FN is PID 2 of a fresh PID namespace, under the reaper (PID 1); a set-up
 * failure and FN's exit status pass through the reaper unchanged. */
START_TEST(test_pid_namespace) {
        struct xpu_isolate_options o = opts(2000, true);
        char *reply, reason[256];
        size_t len;
        ck_assert_int_eq(run(fn_pids, NULL, &o, &reply, &len, reason), 0);
        ck_assert_str_eq(reply, "pid=2 ppid=1 global=other proc=2");
        free(reply);
        int v = 127; /* FN's own 127 is not a set-up failure */
        ck_assert_int_eq(run(fn_return, &v, &o, &reply, &len, reason), -EPROTO);
        ck_assert_str_eq(reason, "exited with status 127");
        /* The caller's own next child is still in the caller's namespace. */
        pid_t c = fork();
        ck_assert_int_ge(c, 0);
        if (c == 0)
                _exit(global_pid() == getpid() ? 0 : 1);
        int st;
        ck_assert_int_eq(waitpid(c, &st, 0), c);
        ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        /* A worker's set-up failure reaches the parent through the reaper: root without
         * CAP_SETPCAP cannot empty the bounding set. */
        caps_keep_only(~CAP_TO_MASK(CAP_SETPCAP), ~0u);
        ck_assert_int_eq(run(fn_pids, NULL, &o, &reply, &len, reason), -EPERM);
        ck_assert_str_eq(reason, "set-up failed at PR_CAPBSET_DROP: Operation not permitted");
}
END_TEST

/* Without CAP_SYS_ADMIN no PID namespace is made: FN runs under its real pid and everything
 * else still holds (the group kill of strays that stay in the group included). */
START_TEST(test_pid_namespace_fallback) {
        /* root with only what the runner needs: CAP_SETUID, CAP_SETGID, CAP_SETPCAP for the
         * helper's drop, CAP_KILL to kill a helper that is no longer root */
        caps_keep_only(CAP_TO_MASK(CAP_SETUID) | CAP_TO_MASK(CAP_SETGID) | CAP_TO_MASK(CAP_SETPCAP) |
                               CAP_TO_MASK(CAP_KILL),
                       0);
        ck_assert_int_eq(unshare(CLONE_NEWPID), -1);
        ck_assert_int_eq(errno, EPERM);
        struct xpu_isolate_options o = opts(2000, true);
        char *reply, reason[256];
        size_t len;
        ck_assert_msg(run(fn_pids, NULL, &o, &reply, &len, reason) == 0, "%s", reason);
        int pid = 0;
        ck_assert_int_eq(sscanf(reply, "pid=%d", &pid), 1);
        ck_assert_int_gt(pid, 2);
        char want[96];
        snprintf(want, sizeof want, "pid=%d ppid=%d global=same proc=%d", pid, (int)getpid(), pid);
        ck_assert_str_eq(reply, want);
        free(reply);
        ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
        struct shared *sh = shared_new();
        ck_assert_int_eq(run(fn_family_ok, sh, &o, &reply, &len, reason), 0);
        ck_assert_str_eq(reply, "ok");
        free(reply);
        assert_family_gone(sh);
        ck_assert_int_eq(run(fn_abort, NULL, &o, &reply, &len, reason), -ECONNABORTED);
        ck_assert_str_eq(reason, "killed by signal 6 (Aborted)");
}
END_TEST

/* Run the default helper in a forked test child that is root of a new user namespace mapping
 * only uid and gid 0 ("0 0 1"); DENY denies setgroups there. The maps are written from outside
 * (by the test process, root of the initial namespace), as a container runtime does. */
static void run_in_userns(struct shared *sh, bool deny) {
        sh->ready = 0;
        pid_t p = fork();
        ck_assert_int_ge(p, 0);
        if (p == 0) {
                if (unshare(CLONE_NEWUSER) < 0)
                        _exit(10);
                sh->ready = 1;
                for (int i = 0; i < 2000 && sh->ready != 2; i++)
                        usleep(1000);
                if (sh->ready != 2 || geteuid() != 0)
                        _exit(11);
                char reason[256] = "";
                sh->result = xpu_isolate_run(fn_nothing, NULL, NULL, NULL, NULL, reason, sizeof reason);
                snprintf(sh->text, sizeof sh->text, "%s", reason);
                _exit(0);
        }
        for (int i = 0; i < 2000 && sh->ready != 1; i++)
                usleep(1000);
        ck_assert_int_eq(sh->ready, 1);
        const char *const maps[][2] = { { "uid_map", "0 0 1\n" },
                                        { "setgroups", deny ? "deny\n" : "allow\n" },
                                        { "gid_map", "0 0 1\n" } };
        for (size_t i = 0; i < ELEMENTSOF(maps); i++) {
                char path[64];
                snprintf(path, sizeof path, "/proc/%d/%s", (int)p, maps[i][0]);
                int fd = open(path, O_WRONLY | O_CLOEXEC);
                ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
                ck_assert_msg(write(fd, maps[i][1], strlen(maps[i][1])) > 0, "%s: %s", path, strerror(errno));
                close(fd);
        }
        sh->ready = 2;
        int st = 0;
        ck_assert_int_eq(waitpid(p, &st, 0), p);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "test child failed in its user namespace: %d", st);
}

/* `unshare -r`: root in a user namespace that maps only itself. The helper fails closed and
 * says why and what to do. */
START_TEST(test_user_namespace_ids) {
        struct shared *sh = shared_new();
        run_in_userns(sh, true);
        ck_assert_int_eq(sh->result, -EPERM);
        ck_assert_str_eq(sh->text, "cannot switch to nobody (65534) in this user namespace: setgroups: Operation not "
                                   "permitted; run xpuinit as real root or map uid/gid 65534");
        run_in_userns(sh, false); /* setgroups allowed: 65534 is not mapped */
        ck_assert_int_eq(sh->result, -EINVAL);
        ck_assert_str_eq(sh->text, "cannot switch to nobody (65534) in this user namespace: setresgid: Invalid "
                                   "argument; run xpuinit as real root or map uid/gid 65534");
}
END_TEST

static Suite *isolate_ns_suite(void) {
        Suite *s = suite_create("isolate-child");
        TCase *tc = tcase_create("root");
        tcase_add_checked_fixture(tc, host_proc_setup, NULL);
        tcase_set_timeout(tc, 20);
        tcase_add_test(tc, test_no_controlling_terminal);
        tcase_add_test(tc, test_setsid_strays_success);
        tcase_add_test(tc, test_setsid_strays_timeout);
        tcase_add_test(tc, test_setsid_strays_abort);
        tcase_add_test(tc, test_pid_namespace);
        tcase_add_test(tc, test_pid_namespace_fallback);
        tcase_add_test(tc, test_user_namespace_ids);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(isolate_ns_suite());
}
