/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/init.c: supervision of real workloads (/bin/sh scripts). Each test runs in its own
 * process (CK_FORK), which plays xpuinit: it calls xpu_supervise() and the workload is its
 * child. Signals are "sent from outside" by the workload itself with kill -SIG $PPID, which is
 * the supervising test process. Tests that must own fd 3 or replace the process run the
 * supervisor in a further forked process (run_forked). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "entrypoint/init.h"
#include "testlib.h"

static char *tmp;           /* per-test scratch directory */
static char out_path[PATH_MAX];
static char out_env[PATH_MAX + 8]; /* "OUT=<tmp>/out" */

static void setup(void) {
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(dup2(fd, STDIN_FILENO), STDIN_FILENO); /* never a terminal here */
        close(fd);
        tmp = xpu_test_mkdtemp();
        snprintf(out_path, sizeof(out_path), "%s/out", tmp);
        snprintf(out_env, sizeof(out_env), "OUT=%s", out_path);
        xpu_log_set_program("xpuinit");
}

static void teardown(void) {
        xpu_test_rm_rf(tmp);
        free(tmp);
}

static int64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Contents of PATH (malloc'd, "" when missing). */
static char *slurp(const char *path) {
        char *buf = calloc(1, 8192);
        ck_assert_ptr_nonnull(buf);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
                ssize_t n = read(fd, buf, 8191);
                buf[n > 0 ? n : 0] = '\0';
                close(fd);
        }
        return buf;
}

/* Supervise /bin/sh -c SCRIPT with PATH and OUT set. */
static int sh_opts(const char *script, const struct xpu_supervise_options *o) {
        char *const argv[] = { (char *)"/bin/sh", (char *)"-c", (char *)script, NULL };
        char *const envp[] = { (char *)"PATH=/usr/bin:/bin", out_env, NULL };
        return xpu_supervise(argv, envp, o);
}

static int sh(const char *script) {
        const struct xpu_supervise_options o = { .grace_seconds = 10 };
        return sh_opts(script, &o);
}

/* Redirect stderr to a file while running; returns what was printed (malloc'd). */
static int err_fd_saved = -1;
static void stderr_capture(void) {
        char p[PATH_MAX];
        snprintf(p, sizeof(p), "%s/stderr", tmp);
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        ck_assert_int_ge(fd, 0);
        err_fd_saved = dup(STDERR_FILENO);
        ck_assert_int_eq(dup2(fd, STDERR_FILENO), STDERR_FILENO);
        close(fd);
}
static char *stderr_release(void) {
        char p[PATH_MAX];
        dup2(err_fd_saved, STDERR_FILENO);
        close(err_fd_saved);
        snprintf(p, sizeof(p), "%s/stderr", tmp);
        return slurp(p);
}

/* Run FN in a forked process and return its exit status as xpuinit's would be (or 128+N). */
static int run_forked(void (*fn)(void)) {
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                fn();
                _exit(99);
        }
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---- exit statuses ---------------------------------------------------------------------- */

static const struct {
        const char *script;
        int status;
} exit_cases[] = {
        { "exit 0", 0 },
        { "exit 3", 3 },
        { "exit 255", 255 },
        { "kill -KILL $$", 128 + SIGKILL }, /* killed: 128+N */
        { "kill -USR2 $$", 128 + SIGUSR2 },
        { "kill -TERM $$", 128 + SIGTERM },
};

START_TEST(test_exit_status) {
        ck_assert_int_eq(sh(exit_cases[_i].script), exit_cases[_i].status);
}
END_TEST

START_TEST(test_not_found) {
        char *const argv[] = { (char *)"xpu-no-such-command", (char *)"x", NULL };
        char *const envp[] = { (char *)"PATH=/nonexistent:/usr/bin", NULL };
        stderr_capture();
        int r = xpu_supervise(argv, envp, NULL);
        _cleanup_free_ char *err = stderr_release();
        ck_assert_int_eq(r, 127);
        ck_assert_str_eq(err, "xpuinit: error: cannot run \"xpu-no-such-command\": not found in "
                              "PATH (/nonexistent:/usr/bin); check the command name\n");

        char *const argv2[] = { (char *)"/nonexistent/cmd", NULL };
        stderr_capture();
        r = xpu_supervise(argv2, envp, NULL);
        _cleanup_free_ char *err2 = stderr_release();
        ck_assert_int_eq(r, 127);
        ck_assert_ptr_nonnull(strstr(err2, "cannot run \"/nonexistent/cmd\": No such file"));
}
END_TEST

START_TEST(test_not_executable) {
        xpu_test_write(tmp, "plain", "#!/bin/sh\nexit 0\n"); /* mode 0644 */
        xpu_test_write(tmp, "garbage", "\x01\x02 not a program\n");
        char garbage[PATH_MAX], plain[PATH_MAX], pathenv[PATH_MAX + 8];
        snprintf(garbage, sizeof(garbage), "%s/garbage", tmp);
        snprintf(plain, sizeof(plain), "%s/plain", tmp);
        snprintf(pathenv, sizeof(pathenv), "PATH=/nonexistent:%s", tmp);
        ck_assert_int_eq(chmod(garbage, 0755), 0);
        char *const envp[] = { pathenv, NULL };
        const char *cases[] = { plain, tmp /* a directory */, garbage, "plain" /* via PATH */ };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *const argv[] = { (char *)cases[i], NULL };
                stderr_capture();
                int r = xpu_supervise(argv, envp, NULL);
                _cleanup_free_ char *err = stderr_release();
                ck_assert_msg(r == 126, "%s: status %d", cases[i], r);
                ck_assert_msg(strstr(err, "xpuinit: error: cannot run \"") == err, "%s", err);
                ck_assert_msg(strstr(err, i == 2 ? "Exec format error" : "Permission denied"),
                              "%s", err);
        }
}
END_TEST

START_TEST(test_path_from_workload_env) {
        /* Found through the workload's PATH, which the test process does not have. */
        xpu_test_write(tmp, "bin/xpu-test-cmd", "#!/bin/sh\nexit 9\n");
        char cmd[PATH_MAX], pathenv[PATH_MAX + 8];
        snprintf(cmd, sizeof(cmd), "%s/bin/xpu-test-cmd", tmp);
        ck_assert_int_eq(chmod(cmd, 0755), 0);
        snprintf(pathenv, sizeof(pathenv), "PATH=/nonexistent::%s/bin", tmp);
        char *const argv[] = { (char *)"xpu-test-cmd", NULL };
        char *const envp[] = { pathenv, NULL };
        ck_assert_int_eq(xpu_supervise(argv, envp, NULL), 9);

        /* No PATH at all: the default one finds sh. */
        char *const argv2[] = { (char *)"sh", (char *)"-c", (char *)"exit 4", NULL };
        char *const noenv[] = { NULL };
        ck_assert_int_eq(xpu_supervise(argv2, noenv, NULL), 4);
}
END_TEST

/* ---- child setup hook ------------------------------------------------------------------- */

static int setup_fails(void *userdata) {
        (void)userdata;
        return -EPERM;
}
static int setup_umask(void *userdata) {
        umask(*(mode_t *)userdata);
        return 0;
}

START_TEST(test_child_setup) {
        struct xpu_supervise_options o = { .grace_seconds = 10, .child_setup = setup_fails };
        stderr_capture();
        int r = sh_opts("exit 0", &o);
        _cleanup_free_ char *err = stderr_release();
        ck_assert_int_eq(r, 125);
        ck_assert_str_eq(err, "xpuinit: error: cannot set up the workload \"/bin/sh\": Operation "
                              "not permitted\n");

        mode_t m = 027; /* the hook runs in the child, before exec */
        o.child_setup = setup_umask;
        o.userdata = &m;
        ck_assert_int_eq(sh_opts("[ \"$(umask)\" = 0027 ] && exit 5; exit 1", &o), 5);
}
END_TEST

/* ---- signals ---------------------------------------------------------------------------- */

/* The end of a workload that waits for a trap: 5 s of short sleeps in the foreground (a trap
 * runs between two), then exit 1. */
#define WAIT_5S "i=0; while [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done; exit 1"

static const struct {
        const char *name;
        int sig;
} fwd_cases[] = {
        { "TERM", SIGTERM }, { "INT", SIGINT },   { "HUP", SIGHUP },   { "USR1", SIGUSR1 },
        { "USR2", SIGUSR2 }, { "QUIT", SIGQUIT }, { "TSTP", SIGTSTP }, { "CONT", SIGCONT },
        { "TTIN", SIGTTIN }, { "TTOU", SIGTTOU }, { "WINCH", SIGWINCH }, { "ALRM", SIGALRM },
        { "PIPE", SIGPIPE },
};

START_TEST(test_forward) {
        /* The workload traps the signal, asks its supervisor to get it, and exits 100+_i only
         * if the forwarded copy arrives; otherwise 1 after 5 s. (Short sleeps in the foreground:
         * a background child forked with the trap's handler could lose the leftovers' SIGTERM
         * before its exec, and would then be waited for.) */
        char script[512];
        snprintf(script, sizeof(script), "trap 'exit %d' %s; kill -%s $PPID; " WAIT_5S, 100 + _i,
                 fwd_cases[_i].name, fwd_cases[_i].name);
        int64_t t0 = now_ms();
        ck_assert_int_eq(sh(script), 100 + _i);
        ck_assert_int_lt(now_ms() - t0, 4000);
}
END_TEST

START_TEST(test_own_sigpipe_not_forwarded) {
        /* xpuinit blocks signals from its first line, so a log line written to a closed stderr
         * during set-up leaves the kernel's SIGPIPE pending: it is xpuinit's, not the
         * workload's, which must exit with its own status. A SIGPIPE someone sends still is. */
        sigset_t pipe_set;
        sigemptyset(&pipe_set);
        sigaddset(&pipe_set, SIGPIPE);
        ck_assert_int_eq(sigprocmask(SIG_BLOCK, &pipe_set, NULL), 0);
        int p[2];
        ck_assert_int_eq(pipe(p), 0);
        close(p[0]);
        errno = 0;
        ck_assert_int_eq(write(p[1], "x", 1), -1);
        ck_assert_int_eq(errno, EPIPE);
        close(p[1]);
        sigset_t pending;
        ck_assert_int_eq(sigpending(&pending), 0);
        ck_assert_int_eq(sigismember(&pending, SIGPIPE), 1);
        ck_assert_int_eq(sh("sleep 0.3; exit 3"), 3);
        ck_assert_int_eq(sh("trap 'exit 42' PIPE; kill -PIPE $PPID; " WAIT_5S), 42);
}
END_TEST

START_TEST(test_clean_signal_state) {
        /* The supervisor blocks everything and the caller ignores SIGUSR2: the workload starts
         * with an empty mask and nothing ignored. */
        signal(SIGUSR2, SIG_IGN);
        ck_assert_int_eq(sh("exec grep -E '^Sig(Blk|Ign)' /proc/self/status > \"$OUT\""), 0);
        _cleanup_free_ char *s = slurp(out_path);
        ck_assert_str_eq(s, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
        /* and the supervisor's own mask is back as it was */
        sigset_t cur;
        sigprocmask(SIG_BLOCK, NULL, &cur);
        ck_assert(!sigismember(&cur, SIGTERM));
}
END_TEST

START_TEST(test_ignored_by_caller) {
        /* Signals the caller ignores still reach the workload (a shell starts background jobs
         * with SIGINT ignored), SIGCHLD ignored does not lose the exit status, and the caller's
         * dispositions are back afterwards. */
        signal(SIGINT, SIG_IGN);
        signal(SIGCHLD, SIG_IGN);
        ck_assert_int_eq(sh("trap 'exit 42' INT; kill -INT $PPID; " WAIT_5S), 42);
        ck_assert_ptr_eq(signal(SIGINT, SIG_DFL), SIG_IGN);
        ck_assert_ptr_eq(signal(SIGCHLD, SIG_DFL), SIG_IGN);
}
END_TEST

START_TEST(test_grace_kill) {
        /* TERM (and INT) are ignored by the workload: SIGKILL after the 1 s grace period. */
        const struct xpu_supervise_options o = { .grace_seconds = 1 };
        const char *sig = _i == 0 ? "TERM" : "INT";
        char script[256];
        snprintf(script, sizeof(script), "trap '' %s; kill -%s $PPID; exec sleep 10", sig, sig);
        int64_t t0 = now_ms();
        ck_assert_int_eq(sh_opts(script, &o), 128 + SIGKILL);
        int64_t dt = now_ms() - t0;
        ck_assert_int_ge(dt, 900);
        ck_assert_int_lt(dt, 4000);
}
END_TEST

/* A subshell traps USR1 (exit 7) and asks the supervisor for USR1; the workload's main process
 * ignores USR1 and waits for the subshell, so only group delivery ends it quickly. */
static const char group_script[] =
        "trap '' USR1; ( trap 'exit 7' USR1; kill -USR1 $PPID; sleep 2 & wait; exit 1 ) & wait $!";

START_TEST(test_group) {
        const struct xpu_supervise_options g = { .group = true, .grace_seconds = 10 };
        ck_assert_int_eq(sh_opts(group_script, &g), 7);
        /* without --group only the main process gets it (and ignores it) */
        ck_assert_int_eq(sh(group_script), 1);
}
END_TEST

START_TEST(test_group_term_on_exit) {
        /* With its own group, the rest of the group gets SIGTERM when the main process exits, and
         * is reaped before xpu_supervise() returns. */
        const struct xpu_supervise_options g = { .group = true, .grace_seconds = 10 };
        int64_t t0 = now_ms();
        ck_assert_int_eq(sh_opts("sh -c 'trap \"echo term >> \\\"$OUT\\\"; exit 0\" TERM; "
                                 "sleep 30 & wait' & sleep 0.3; exit 2",
                                 &g),
                         2);
        ck_assert_int_lt(now_ms() - t0, 3000);
        _cleanup_free_ char *s = slurp(out_path);
        ck_assert_str_eq(s, "term\n");
        errno = 0;
        ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
        ck_assert_int_eq(errno, ECHILD);
}
END_TEST

/* ---- what outlives the main process ----------------------------------------------------- */

/* The pids the workload wrote to OUT, one per line, that still exist (a zombie counts): each is
 * SIGKILLed so a failure leaves nothing behind. Returns how many; *N_LISTED gets how many were
 * listed. */
static int survivors(int *n_listed) {
        _cleanup_free_ char *s = slurp(out_path);
        int alive = 0;
        *n_listed = 0;
        for (char *p = s, *line; (line = strsep(&p, "\n"));) {
                pid_t pid = (pid_t)strtol(line, NULL, 10);
                if (pid <= 1)
                        continue;
                (*n_listed)++;
                if (kill(pid, 0) == 0) {
                        alive++;
                        (void)kill(pid, SIGKILL);
                }
        }
        return alive;
}

START_TEST(test_leftovers_terminated) {
        /* Not PID 1 (the test is the supervisor): the workload leaves a background job in its
         * group, a process that left the group with setsid() from a subshell (an orphan that came
         * back to the subreaper while the workload ran), and a shell whose own child is orphaned
         * only once that shell ends. When the main process exits, all of them get SIGTERM and are
         * reaped before xpu_supervise() returns with the workload's status. */
        int64_t t0 = now_ms();
        ck_assert_int_eq(sh("sleep 1000 & echo $! >> \"$OUT\"; "
                            "(setsid sleep 1000 & echo $! >> \"$OUT\"); "
                            "sh -c 'sleep 1000 & echo $! >> \"$OUT\"; wait' & echo $! >> \"$OUT\"; "
                            "sleep 0.3; exit 3"),
                         3);
        ck_assert_int_lt(now_ms() - t0, 3000);
        int listed = 0;
        ck_assert_int_eq(survivors(&listed), 0);
        ck_assert_int_eq(listed, 4);
        errno = 0;
        ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
        ck_assert_int_eq(errno, ECHILD);
}
END_TEST

START_TEST(test_leftovers_killed) {
        /* A leftover that ignores SIGTERM gets SIGKILL after --grace 1 (counted from the main
         * process's exit, 0.3 s in), and is gone when xpu_supervise() returns. */
        const struct xpu_supervise_options o = { .grace_seconds = 1 };
        int64_t t0 = now_ms();
        ck_assert_int_eq(sh_opts("sh -c 'trap \"\" TERM; echo $$ >> \"$OUT\"; while :; do sleep 0.1; done' & "
                                 "sleep 0.3; exit 4",
                                 &o),
                         4);
        int64_t dt = now_ms() - t0;
        int listed = 0;
        ck_assert_int_eq(survivors(&listed), 0);
        ck_assert_int_eq(listed, 1);
        ck_assert_int_ge(dt, 1200);
        ck_assert_int_lt(dt, 4000);
        errno = 0;
        ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
        ck_assert_int_eq(errno, ECHILD);
}
END_TEST

/* ---- job control ------------------------------------------------------------------------ */

/* Field 3 of /proc/PID/stat ('T' = stopped), '?' when unreadable. */
static char proc_state(pid_t pid) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        _cleanup_free_ char *s = slurp(path);
        const char *e = strrchr(s, ')');
        return e && e[1] == ' ' && e[2] ? e[2] : '?';
}

/* Wait up to MS for PID's state to be 'T' (STOPPED true) or anything else (false). */
static char wait_state(pid_t pid, bool stopped, int ms) {
        char st = '?';
        for (int64_t t0 = now_ms(); now_ms() - t0 < ms; usleep(10000))
                if (((st = proc_state(pid)) == 'T') == stopped)
                        break;
        return st;
}

static const int job_signals[] = { SIGTSTP, SIGTTIN, SIGTTOU };

START_TEST(test_job_stop_orphaned) {
        /* The supervisor leads a session of its own, as xpuinit does in a container: the group
         * it shares with the workload is orphaned, where the kernel discards a forwarded
         * SIGTSTP/SIGTTIN/SIGTTOU. The workload must stop anyway (SIGSTOP), resume on SIGCONT, and
         * its exit status must come through unchanged. */
        pid_t sup = fork();
        ck_assert_int_ge(sup, 0);
        if (sup == 0) {
                if (setsid() < 0)
                        _exit(98);
                _exit(sh("echo $$ > \"$OUT.tmp\"; mv \"$OUT.tmp\" \"$OUT\"; i=0; "
                         "while [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done; exit 7"));
        }
        pid_t w = 0;
        for (int64_t t0 = now_ms(); w <= 0 && now_ms() - t0 < 5000; usleep(10000)) {
                _cleanup_free_ char *s = slurp(out_path);
                w = (pid_t)strtol(s, NULL, 10);
        }
        ck_assert_int_gt(w, 1);
        /* Running or asleep (on a loaded machine it may still be running): not stopped yet. */
        char st0 = proc_state(w);
        ck_assert_msg(st0 == 'R' || st0 == 'S', "workload state '%c', want R or S", st0);
        ck_assert_int_eq(kill(sup, job_signals[_i]), 0);
        char st = wait_state(w, true, 2000);
        if (st != 'T')
                (void)kill(sup, SIGKILL); /* the workload dies with it (PDEATHSIG) */
        ck_assert_int_eq(st, 'T');
        usleep(300 * 1000);
        ck_assert_int_eq(proc_state(w), 'T'); /* stays stopped */
        ck_assert_int_eq(kill(sup, SIGCONT), 0);
        ck_assert_int_ne(wait_state(w, false, 2000), 'T');
        int status = 0;
        ck_assert_int_eq(waitpid(sup, &status, 0), sup);
        ck_assert(WIFEXITED(status));
        ck_assert_int_eq(WEXITSTATUS(status), 7);
}
END_TEST

/* ---- reaping, fds, argv, env ------------------------------------------------------------ */

START_TEST(test_reap_orphans) {
        /* An orphaned grandchild exits while the workload runs: as subreaper we get and reap
         * it; afterwards no child of ours is left, zombie or not. */
        ck_assert_int_eq(sh("sh -c 'sleep 0.2 & echo $! > \"$OUT\"'; sleep 1; exit 0"), 0);
        int v = -1;
        ck_assert_int_eq(prctl(PR_GET_CHILD_SUBREAPER, &v), 0);
        ck_assert_int_eq(v, 1);
        _cleanup_free_ char *s = slurp(out_path);
        pid_t orphan = (pid_t)strtol(s, NULL, 10);
        ck_assert_int_gt(orphan, 1);
        errno = 0;
        ck_assert_int_eq(kill(orphan, 0), -1); /* a zombie would still accept kill(0) */
        ck_assert_int_eq(errno, ESRCH);
        errno = 0;
        ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
        ck_assert_int_eq(errno, ECHILD);
}
END_TEST

static void fds_body(void) {
        int fd = open("/dev/null", O_RDONLY); /* no O_CLOEXEC: must not leak anyway */
        dup2(fd, 9);
        dup2(fd, 40);
        _exit(sh("exec ls /proc/self/fd > \"$OUT\""));
}

START_TEST(test_no_fd_leak) {
        ck_assert_int_eq(run_forked(fds_body), 0);
        _cleanup_free_ char *s = slurp(out_path);
        ck_assert_str_eq(s, "0\n1\n2\n3\n"); /* 3 = ls's own directory fd */
}
END_TEST

static bool listen_pid_ours;
static const char *listen_fds_value = "LISTEN_FDS=1";
static void listen_body(void) {
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        dup2(fd, 3); /* the socket-activation fd (dup2 clears CLOEXEC, systemd passes it so) */
        dup2(fd, 4); /* a stray one */
        close_range(5, ~0U, 0); /* whatever the test runner left open: from 5 on, only xpuinit's */
        char lpid[32];
        snprintf(lpid, sizeof(lpid), "LISTEN_PID=%d", listen_pid_ours ? (int)getpid() : 1);
        char *const argv[] = { (char *)"/bin/sh", (char *)"-c",
                               (char *)"echo \"$LISTEN_PID $$ $LISTEN_FDS\" > \"$OUT\"; "
                                       "exec ls /proc/self/fd >> \"$OUT\"",
                               NULL };
        char *const envp[] = { (char *)"PATH=/usr/bin:/bin", lpid, (char *)listen_fds_value, out_env,
                               NULL };
        _exit(xpu_supervise(argv, envp, NULL));
}

START_TEST(test_listen_fds) {
        listen_pid_ours = true;
        ck_assert_int_eq(run_forked(listen_body), 0);
        _cleanup_free_ char *s = slurp(out_path);
        int lpid = -1, pid = -2, n = -1;
        ck_assert_int_eq(sscanf(s, "%d %d %d", &lpid, &pid, &n), 3);
        ck_assert_int_eq(lpid, pid); /* rewritten to the workload's pid */
        ck_assert_int_eq(n, 1);
        ck_assert_str_eq(strchr(s, '\n') + 1, "0\n1\n2\n3\n4\n"); /* 3 kept, 4 = ls's dir fd */

        /* LISTEN_PID names another process: the fds are not ours to pass on. */
        listen_pid_ours = false;
        ck_assert_int_eq(run_forked(listen_body), 0);
        _cleanup_free_ char *s2 = slurp(out_path);
        ck_assert_int_eq(sscanf(s2, "%d %d %d", &lpid, &pid, &n), 3);
        ck_assert_int_eq(lpid, 1);
        ck_assert_str_eq(strchr(s2, '\n') + 1, "0\n1\n2\n3\n");

        /* LISTEN_FDS claims more than was passed: xpuinit's own descriptors in that range (signalfd,
         * report pipe) still never reach the workload; only the two real ones (3, 4) do. */
        listen_pid_ours = true;
        listen_fds_value = "LISTEN_FDS=12";
        ck_assert_int_eq(run_forked(listen_body), 0);
        listen_fds_value = "LISTEN_FDS=1";
        _cleanup_free_ char *s3 = slurp(out_path);
        ck_assert_str_eq(strchr(s3, '\n') + 1, "0\n1\n2\n3\n4\n5\n"); /* 5 = ls's dir fd */
}
END_TEST

START_TEST(test_argv_env) {
        setenv("XPU_TEST_LEAK", "1", 1); /* ours, not the workload's */
        char *const argv[] = { (char *)"/bin/sh", (char *)"-c",
                               (char *)"printf '[%s]' \"$0\" \"$@\" \"$XV\" \"${XPU_TEST_LEAK-unset}\" "
                                       "> \"$OUT\"",
                               (char *)"zero", (char *)"a b", (char *)"", (char *)"  c\td ",
                               (char *)"*", NULL };
        char *const envp[] = { (char *)"PATH=/usr/bin:/bin", (char *)"XV=k=v=w ", out_env, NULL };
        ck_assert_int_eq(xpu_supervise(argv, envp, NULL), 0);
        _cleanup_free_ char *s = slurp(out_path);
        ck_assert_str_eq(s, "[zero][a b][][  c\td ][*][k=v=w ][unset]");
}
END_TEST

/* ---- parent death, terminal, --exec ----------------------------------------------------- */

START_TEST(test_pdeathsig) {
        ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0); /* the workload comes back to us */
        pid_t sup = fork();
        ck_assert_int_ge(sup, 0);
        if (sup == 0)
                _exit(sh("echo $$ > \"$OUT.tmp\"; mv \"$OUT.tmp\" \"$OUT\"; exec sleep 30"));
        pid_t w = 0;
        for (int64_t t0 = now_ms(); w <= 0 && now_ms() - t0 < 5000; usleep(10000)) {
                _cleanup_free_ char *s = slurp(out_path);
                w = (pid_t)strtol(s, NULL, 10);
        }
        ck_assert_int_gt(w, 1);
        ck_assert_int_eq(kill(sup, SIGKILL), 0);
        int st = 0;
        ck_assert_int_eq(waitpid(sup, &st, 0), sup);
        pid_t r = -1;
        for (int64_t t0 = now_ms(); r != w && now_ms() - t0 < 3000; usleep(10000))
                r = waitpid(w, &st, WNOHANG); /* ECHILD until it is reparented to us */
        ck_assert_int_eq(r, w);
        ck_assert(WIFSIGNALED(st));
        ck_assert_int_eq(WTERMSIG(st), SIGKILL);
}
END_TEST

static void tty_body(void) {
        int master, slave;
        if (openpty(&master, &slave, NULL, NULL, NULL) < 0 || setsid() < 0 ||
            ioctl(slave, TIOCSCTTY, 0) < 0 || dup2(slave, STDIN_FILENO) < 0)
                _exit(98);
        /* fields 5 and 8 of /proc/PID/stat: process group and terminal foreground group */
        _exit(sh("set -- $(cat /proc/$$/stat); echo \"$$ $5 $8\" > \"$OUT\""));
}

START_TEST(test_terminal_foreground) {
        ck_assert_int_eq(run_forked(tty_body), 0);
        _cleanup_free_ char *s = slurp(out_path);
        int pid = -1, pgrp = -2, tpgid = -3;
        ck_assert_int_eq(sscanf(s, "%d %d %d", &pid, &pgrp, &tpgid), 3);
        ck_assert_int_eq(pgrp, pid);  /* its own process group ... */
        ck_assert_int_eq(tpgid, pid); /* ... in the terminal's foreground */
}
END_TEST

static void exec_ok_body(void) {
        sigset_t all;
        sigfillset(&all);
        sigprocmask(SIG_BLOCK, &all, NULL);
        signal(SIGUSR1, SIG_IGN);
        int fd = open("/dev/null", O_RDONLY);
        dup2(fd, 12);
        char *const argv[] = { (char *)"sh", (char *)"-c",
                               (char *)"exec > \"$OUT\"; echo $$; grep -E '^Sig(Blk|Ign)' "
                                       "/proc/self/status; ls /proc/self/fd; exit 6",
                               NULL };
        char *const envp[] = { (char *)"PATH=/usr/bin:/bin", out_env, NULL };
        char pid[32];
        snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
        xpu_test_write(tmp, "pid", pid);
        _exit(100 + xpu_exec_workload(argv, envp, NULL));
}

START_TEST(test_exec_workload) {
        ck_assert_int_eq(run_forked(exec_ok_body), 6);
        _cleanup_free_ char *s = slurp(out_path);
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/pid", tmp);
        _cleanup_free_ char *pid = slurp(path);
        char want[512];
        snprintf(want, sizeof(want), "%sSigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n"
                                     "0\n1\n2\n3\n", pid); /* same pid: replaced, not forked */
        ck_assert_str_eq(s, want);
}
END_TEST

static int exec_fail_status;
static void exec_fail_body(void) {
        char *const argv[] = { (char *)"xpu-no-such-command", NULL };
        char *const envp[] = { (char *)"PATH=/nonexistent", NULL };
        stderr_capture();
        exec_fail_status = xpu_exec_workload(argv, envp, NULL);
        _cleanup_free_ char *err = stderr_release();
        if (strcmp(err, "xpuinit: error: cannot run \"xpu-no-such-command\": not found in PATH "
                        "(/nonexistent); check the command name\n") != 0)
                _exit(1);
        struct xpu_supervise_options o = { .child_setup = setup_fails };
        char *const argv2[] = { (char *)"/bin/true", NULL };
        stderr_capture();
        int r = xpu_exec_workload(argv2, envp, &o);
        free(stderr_release());
        _exit(exec_fail_status == 127 && r == 125 ? 0 : 2);
}

START_TEST(test_exec_workload_fails) {
        ck_assert_int_eq(run_forked(exec_fail_body), 0);
}
END_TEST

static Suite *init_suite(void) {
        Suite *s = suite_create("init");
        TCase *tc = tcase_create("supervise");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 30);
        tcase_add_loop_test(tc, test_exit_status, 0, ELEMENTSOF(exit_cases));
        tcase_add_test(tc, test_not_found);
        tcase_add_test(tc, test_not_executable);
        tcase_add_test(tc, test_path_from_workload_env);
        tcase_add_test(tc, test_child_setup);
        tcase_add_loop_test(tc, test_forward, 0, ELEMENTSOF(fwd_cases));
        tcase_add_test(tc, test_own_sigpipe_not_forwarded);
        tcase_add_test(tc, test_clean_signal_state);
        tcase_add_test(tc, test_ignored_by_caller);
        tcase_add_loop_test(tc, test_grace_kill, 0, 2);
        tcase_add_test(tc, test_group);
        tcase_add_test(tc, test_group_term_on_exit);
        tcase_add_test(tc, test_leftovers_terminated);
        tcase_add_test(tc, test_leftovers_killed);
        tcase_add_loop_test(tc, test_job_stop_orphaned, 0, ELEMENTSOF(job_signals));
        tcase_add_test(tc, test_reap_orphans);
        tcase_add_test(tc, test_no_fd_leak);
        tcase_add_test(tc, test_listen_fds);
        tcase_add_test(tc, test_argv_env);
        tcase_add_test(tc, test_pdeathsig);
        tcase_add_test(tc, test_terminal_foreground);
        tcase_add_test(tc, test_exec_workload);
        tcase_add_test(tc, test_exec_workload_fails);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(init_suite());
}
