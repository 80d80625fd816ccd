/* SPDX-License-Identifier: Apache-2.0 */
/* Forked, unprivileged, time-bounded helper runner (isolate.h, docs/isolation.md).
 * Anchor: libnvidia-container src/rpc.c + src/driver.c (vendor code in an unprivileged child). */
#include "base/isolate.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/macro.h"
#include "base/signals.h"

extern char **environ;

/* The child's whole environment. Not const: environ is char **. */
static char clean_path[] = "PATH=/usr/bin:/bin";
static char *clean_env[] = { clean_path, NULL };

/* Steps of the child's set-up, in the order they run; the name goes into the parent's reason. */
enum setup_step {
        STEP_SETPGID,
        STEP_PDEATHSIG,
        STEP_SIGNALS,
        STEP_FDS,
        STEP_DEVNULL,
        STEP_STDIO,
        STEP_CLOSE,
        STEP_RLIMIT,
        STEP_CHDIR,
        STEP_AMBIENT,
        STEP_BOUNDING,
        STEP_SETGROUPS,
        STEP_SETRESGID,
        STEP_SETRESUID,
        STEP_CAPSET,
        STEP_NNP,
        _STEP_MAX,
};

static const char *const step_names[_STEP_MAX] = {
        [STEP_SETPGID] = "setpgid",
        [STEP_PDEATHSIG] = "PR_SET_PDEATHSIG",
        [STEP_SIGNALS] = "signal reset",
        [STEP_FDS] = "moving pipe fds",
        [STEP_DEVNULL] = "opening /dev/null",
        [STEP_STDIO] = "stdio",
        [STEP_CLOSE] = "closing fds",
        [STEP_RLIMIT] = "RLIMIT_CORE",
        [STEP_CHDIR] = "chdir /",
        [STEP_AMBIENT] = "clearing ambient capabilities",
        [STEP_BOUNDING] = "PR_CAPBSET_DROP",
        [STEP_SETGROUPS] = "setgroups",
        [STEP_SETRESGID] = "setresgid",
        [STEP_SETRESUID] = "setresuid",
        [STEP_CAPSET] = "capset",
        [STEP_NNP] = "PR_SET_NO_NEW_PRIVS",
};

/* What the child writes to the side channel when its set-up fails. */
struct setup_error {
        int32_t step;
        int32_t err;
};

static uint64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static _Noreturn void child_fail(int err_fd, enum setup_step step, int err) {
        struct setup_error e = { .step = (int32_t)step, .err = err > 0 ? err : EIO };
        ssize_t _unused_ n = write(err_fd, &e, sizeof e);
        _exit(XPU_ISOLATE_SETUP_FAILED);
}

/* Close every fd >= 3 except KEEP_A and KEEP_B (both >= 3, KEEP_A < KEEP_B). */
static int close_all_but(int keep_a, int keep_b) {
        const unsigned a = (unsigned)keep_a, b = (unsigned)keep_b;
        const unsigned ranges[3][2] = { { 3u, a - 1u }, { a + 1u, b - 1u }, { b + 1u, ~0u } };
        bool done = true;
        for (size_t i = 0; i < ELEMENTSOF(ranges) && done; i++)
                if (ranges[i][0] <= ranges[i][1] &&
                    syscall(SYS_close_range, ranges[i][0], ranges[i][1], 0u) < 0) {
                        if (errno != ENOSYS)
                                return -errno;
                        done = false;
                }
        if (done)
                return 0;
        /* Linux < 5.9: walk /proc/self/fd (collect first, then close). */
        DIR *d = opendir("/proc/self/fd");
        if (!d)
                return -errno;
        int dfd = dirfd(d);
        struct dirent *de;
        while ((de = readdir(d))) {
                char *end;
                long fd = strtol(de->d_name, &end, 10);
                if (*end || end == de->d_name || fd < 3 || fd == keep_a || fd == keep_b || fd == dfd)
                        continue;
                close((int)fd);
        }
        closedir(d);
        return 0;
}

/* Lower every capability set of this thread to empty. Allowed without privilege. */
static int caps_clear(void) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { { 0 } };
        return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

/* Drop every capability from the bounding set; a caller without CAP_SETPCAP may keep it only
 * when not root (TOLERATE_EPERM). */
static int bounding_clear(bool tolerate_eperm) {
        for (unsigned long cap = 0; cap < 64; cap++) {
                int r = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
                if (r < 0 && errno == EINVAL)
                        break; /* past CAP_LAST_CAP */
                if (r <= 0)
                        continue;
                if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && !(errno == EPERM && tolerate_eperm))
                        return -errno;
        }
        return 0;
}

static _Noreturn void child_main(int (*fn)(void *, int), void *arg,
                                 const struct xpu_isolate_options *o, pid_t parent, int out_fd,
                                 int err_fd) {
        if (setpgid(0, 0) < 0)
                child_fail(err_fd, STEP_SETPGID, errno);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                child_fail(err_fd, STEP_PDEATHSIG, errno);
        if (getppid() != parent)
                _exit(XPU_ISOLATE_SETUP_FAILED); /* nobody is listening any more */

        /* Handlers do not survive exec, but vendor code runs here without exec: every signal
         * (glibc's reserved two included, through the raw call) back to SIG_DFL. */
        const struct xpu_ksigaction dfl = { .handler = SIG_DFL };
        for (int sig = 1; sig <= 64; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void)xpu_ksigaction(sig, &dfl, NULL);
        sigset_t none;
        sigemptyset(&none);
        if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
                child_fail(err_fd, STEP_SIGNALS, errno);

        /* Move both pipe ends above stdio (a caller with closed stdio may have got 0..2). */
        int out = fcntl(out_fd, F_DUPFD_CLOEXEC, 3), err = fcntl(err_fd, F_DUPFD_CLOEXEC, 3);
        if (out < 0 || err < 0)
                child_fail(err_fd, STEP_FDS, errno);
        err_fd = err;
        int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null_fd < 0)
                child_fail(err_fd, STEP_DEVNULL, errno);
        if (dup2(null_fd, STDIN_FILENO) < 0 || dup2(null_fd, STDOUT_FILENO) < 0 ||
            ((fcntl(STDERR_FILENO, F_GETFD) < 0 || STDERR_FILENO == out_fd || STDERR_FILENO == err_fd) &&
             dup2(null_fd, STDERR_FILENO) < 0))
                child_fail(err_fd, STEP_STDIO, errno);
        for (int fd = 0; fd <= 2; fd++)
                if (fcntl(fd, F_SETFD, 0) < 0)
                        child_fail(err_fd, STEP_STDIO, errno);
        int r = close_all_but(out < err ? out : err, out < err ? err : out);
        if (r < 0)
                child_fail(err_fd, STEP_CLOSE, -r);

        environ = clean_env;
        const struct rlimit no_core = { 0, 0 };
        if (setrlimit(RLIMIT_CORE, &no_core) < 0)
                child_fail(err_fd, STEP_RLIMIT, errno);
        if (chdir("/") < 0)
                child_fail(err_fd, STEP_CHDIR, errno);

        if (o->drop_privileges) {
                bool root = geteuid() == 0;
                if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                        child_fail(err_fd, STEP_AMBIENT, errno);
                r = bounding_clear(!root);
                if (r < 0)
                        child_fail(err_fd, STEP_BOUNDING, -r);
                if (root) {
                        if (setgroups(0, NULL) < 0)
                                child_fail(err_fd, STEP_SETGROUPS, errno);
                        if (setresgid(o->gid, o->gid, o->gid) < 0)
                                child_fail(err_fd, STEP_SETRESGID, errno);
                        if (setresuid(o->uid, o->uid, o->uid) < 0)
                                child_fail(err_fd, STEP_SETRESUID, errno);
                }
        }
        r = caps_clear();
        if (r < 0)
                child_fail(err_fd, STEP_CAPSET, -r);
        /* A change of effective ids cleared the parent-death signal: set it again. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                child_fail(err_fd, STEP_PDEATHSIG, errno);
        if (getppid() != parent)
                _exit(XPU_ISOLATE_SETUP_FAILED);
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                child_fail(err_fd, STEP_NNP, errno);

        close(err_fd);
        r = fn(arg, out);
        _exit(r >= 0 && r <= 255 ? r : 255);
}

/* Has PID exited (without reaping it)? 1 yes, 0 no, -errno (-ECHILD: reaped by someone else). */
static int child_exited(pid_t pid) {
        siginfo_t si = { 0 };
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
                return errno == EINTR ? 0 : -errno;
        return si.si_pid == pid;
}

/* Sleep until PIDFD is readable (the child exited) or MS pass; MS is capped at 10 when there is
 * no pidfd, so the caller polls waitid. */
static void wait_a_little(int pidfd, uint64_t ms) {
        struct pollfd p = { .fd = pidfd, .events = POLLIN };
        if (pidfd < 0 && ms > 10)
                ms = 10;
        (void)poll(&p, pidfd >= 0 ? 1 : 0, (int)(ms > 60000 ? 60000 : ms));
}

/* Reap PID with waitpid(); give up at DEADLINE (CLOCK_MONOTONIC ms). 0 or -errno/-ETIMEDOUT. */
static int reap(pid_t pid, int pidfd, uint64_t deadline, int *status) {
        for (;;) {
                pid_t w = waitpid(pid, status, WNOHANG);
                if (w == pid)
                        return 0;
                if (w < 0 && errno != EINTR)
                        return -errno;
                uint64_t now = now_ms();
                if (now >= deadline)
                        return -ETIMEDOUT;
                wait_a_little(pidfd, deadline - now);
        }
}

/* Read what is in the pipe now into *BUF (grown as needed, at most MAX+1 bytes kept).
 * Returns 1 at EOF, 0 when it would block, -EMSGSIZE past MAX, -errno. */
static int read_some(int fd, char **buf, size_t *len, size_t *cap, size_t max) {
        for (;;) {
                if (*len == *cap) {
                        size_t ncap = *cap ? *cap * 2 : 4096;
                        if (ncap > max + 1)
                                ncap = max + 1;
                        if (ncap <= *cap)
                                return -EMSGSIZE;
                        char *n = realloc(*buf, ncap + 1);
                        if (!n)
                                return -ENOMEM;
                        *buf = n;
                        *cap = ncap;
                }
                ssize_t n = read(fd, *buf + *len, *cap - *len);
                if (n < 0)
                        return errno == EAGAIN || errno == EINTR ? 0 : -errno;
                if (n == 0)
                        return 1;
                *len += (size_t)n;
                if (*len > max)
                        return -EMSGSIZE;
        }
}

static void format_ms(char *buf, size_t size, unsigned ms) {
        if (ms % 1000u == 0)
                snprintf(buf, size, "%u s", ms / 1000u);
        else
                snprintf(buf, size, "%u ms", ms);
}

/* Turn a wait status into the return value and reason. ERR_FD holds a struct setup_error when
 * the child's set-up failed. */
static int status_reason(int status, int err_fd, char *reason, size_t size) {
        if (WIFSIGNALED(status)) {
                const char *d = sigdescr_np(WTERMSIG(status));
                snprintf(reason, size, "killed by signal %d (%s)", WTERMSIG(status), d ? d : "unknown");
                return -ECONNABORTED;
        }
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 255;
        struct setup_error e;
        if (code == XPU_ISOLATE_SETUP_FAILED && read(err_fd, &e, sizeof e) == (ssize_t)sizeof e &&
            e.step >= 0 && e.step < _STEP_MAX && e.err > 0) {
                snprintf(reason, size, "helper set-up failed at %s: %s", step_names[e.step],
                         strerrordesc_np(e.err) ?: "unknown error");
                return -e.err;
        }
        if (code == 0)
                return 0;
        snprintf(reason, size, "exited with status %d", code);
        return -EPROTO;
}

int xpu_isolate_run(int (*fn)(void *arg, int out_fd), void *arg, const struct xpu_isolate_options *o,
                    void **ret, size_t *ret_len, char *reason, size_t reason_size) {
        struct xpu_isolate_options opt = o ? *o : XPU_ISOLATE_OPTIONS_DEFAULT;
        char dummy[1];
        if (!reason || reason_size == 0) {
                reason = dummy;
                reason_size = sizeof dummy;
        }
        reason[0] = '\0';
        if (opt.timeout_ms == 0)
                opt.timeout_ms = XPU_ISOLATE_TIMEOUT_MS_DEFAULT;
        if (opt.max_reply_bytes == 0)
                opt.max_reply_bytes = XPU_ISOLATE_MAX_REPLY_DEFAULT;
        if (!fn || opt.max_reply_bytes >= SIZE_MAX / 2)
                return -EINVAL;

        int data[2], errp[2];
        if (pipe2(data, O_CLOEXEC) < 0) {
                int r = -errno;
                snprintf(reason, reason_size, "pipe: %s", strerrordesc_np(-r));
                return r;
        }
        _cleanup_close_ int data_r = data[0];
        int data_w = data[1];
        if (pipe2(errp, O_CLOEXEC | O_NONBLOCK) < 0) {
                int r = -errno;
                close(data_w);
                snprintf(reason, reason_size, "pipe: %s", strerrordesc_np(-r));
                return r;
        }
        _cleanup_close_ int err_r = errp[0];
        int err_w = errp[1];

        uint64_t start = now_ms(), deadline = start + opt.timeout_ms;
        pid_t parent = getpid();
        pid_t pid = fork();
        if (pid < 0) {
                int r = -errno;
                close(data_w);
                close(err_w);
                snprintf(reason, reason_size, "fork: %s", strerrordesc_np(-r));
                return r;
        }
        if (pid == 0)
                child_main(fn, arg, &opt, parent, data_w, err_w);

        close(data_w);
        close(err_w);
        (void)setpgid(pid, pid); /* also done by the child; whoever comes first wins the race */
        _cleanup_close_ int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
        (void)fcntl(data_r, F_SETFL, O_NONBLOCK);

        _cleanup_free_ char *buf = NULL;
        size_t len = 0, cap = 0;
        bool eof = false;
        int fail = 0; /* -ETIMEDOUT, -EMSGSIZE, read error, -ECHILD */
        for (;;) {
                int r = eof ? 0 : read_some(data_r, &buf, &len, &cap, opt.max_reply_bytes);
                if (r < 0) {
                        fail = r;
                        break;
                }
                eof = eof || r == 1;
                r = child_exited(pid);
                if (r < 0) {
                        fail = -ECHILD;
                        break;
                }
                if (r == 1) {
                        /* Everything the child wrote is in the pipe; a stray holding the write
                         * end open must not make us wait for EOF. */
                        if (!eof) {
                                r = read_some(data_r, &buf, &len, &cap, opt.max_reply_bytes);
                                if (r < 0)
                                        fail = r;
                        }
                        break;
                }
                uint64_t now = now_ms();
                if (now >= deadline) {
                        fail = -ETIMEDOUT;
                        break;
                }
                struct pollfd p[2] = { { .fd = data_r, .events = POLLIN },
                                       { .fd = pidfd, .events = POLLIN } };
                uint64_t ms = deadline - now;
                if (pidfd < 0 && ms > 10)
                        ms = 10;
                if (eof) /* only the exit is left to wait for */
                        wait_a_little(pidfd, ms);
                else
                        (void)poll(p, pidfd >= 0 ? 2 : 1, (int)(ms > 60000 ? 60000 : ms));
        }

        /* Strays in the child's group die with it. The child is unreaped (or was never seen to
         * exit), so its pid, which names the group, cannot have been reused; after -ECHILD
         * (someone else reaped it) it could have been, so nothing is killed then. */
        if (fail != -ECHILD && kill(-pid, SIGKILL) < 0 && errno == ESRCH)
                (void)kill(pid, SIGKILL);
        int status = 0;
        int r = fail == -ECHILD ? -ECHILD : reap(pid, pidfd, now_ms() + XPU_ISOLATE_KILL_GRACE_MS, &status);
        char when[32];
        format_ms(when, sizeof when, opt.timeout_ms);
        switch (fail) {
        case 0:
                break;
        case -ETIMEDOUT:
                snprintf(reason, reason_size, "timed out after %s", when);
                break;
        case -EMSGSIZE:
                snprintf(reason, reason_size, "reply larger than %zu bytes", opt.max_reply_bytes);
                break;
        case -ECHILD:
                snprintf(reason, reason_size, "helper status lost (reaped elsewhere)");
                return fail;
        default:
                snprintf(reason, reason_size, "reading the reply: %s",
                         strerrordesc_np(-fail) ?: "unknown error");
                break;
        }
        if (r == -ETIMEDOUT) {
                size_t l = strlen(reason);
                snprintf(reason + l, reason_size - l, "%shelper pid %d did not die", l ? "; " : "",
                         (int)pid);
                return fail < 0 ? fail : -ETIMEDOUT;
        }
        if (r < 0) {
                snprintf(reason, reason_size, "helper status lost (reaped elsewhere)");
                return -ECHILD;
        }
        if (fail < 0)
                return fail;
        r = status_reason(status, err_r, reason, reason_size);
        if (r < 0)
                return r;
        if (!buf) {
                buf = malloc(1);
                if (!buf)
                        return -ENOMEM;
        }
        buf[len] = '\0';
        if (ret_len)
                *ret_len = len;
        if (ret)
                *ret = TAKE_PTR(buf);
        return 0;
}
