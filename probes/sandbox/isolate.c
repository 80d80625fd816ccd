/* SPDX-License-Identifier: Apache-2.0 */
/* Forked, unprivileged, time-bounded helper runner (isolate.h, docs/isolation.md).
 * Anchor: libnvidia-container src/rpc.c + src/driver.c (vendor code in an unprivileged child). */
#include "sandbox/isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/isolate-internal.h"
#include "base/macro.h"
#include "base/signals.h"

/* Inode number of the initial user namespace (the kernel's PROC_USER_INIT_INO). */
#define USER_NS_INIT_INO 0xEFFFFFFDu

/* xpu_isolate_set_interrupt(): the signals that end a run at once (none by default). */
static sigset_t interrupt_set;
static bool interrupt_on;

void xpu_isolate_set_interrupt(const sigset_t *set) {
        interrupt_on = set != NULL;
        if (set)
                interrupt_set = *set;
        else
                sigemptyset(&interrupt_set);
}

int xpu_isolate_interrupted(void) {
        return interrupt_on ? xpu_signals_pending(&interrupt_set) : 0;
}

uint64_t xpu_isolate_now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}


int xpu_isolate_child_exited(pid_t pid) {
        siginfo_t si = { 0 };
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
                return errno == EINTR ? 0 : -errno;
        return si.si_pid == pid;
}

void xpu_isolate_wait_a_little(int pidfd, uint64_t ms) {
        struct pollfd p = { .fd = pidfd, .events = POLLIN };
        if (pidfd < 0 && ms > 10)
                ms = 10;
        (void)poll(&p, pidfd >= 0 ? 1 : 0, (int)(ms > 60000 ? 60000 : ms));
}

int xpu_isolate_reap(pid_t pid, int pidfd, uint64_t deadline, int *status) {
        for (;;) {
                pid_t w = waitpid(pid, status, WNOHANG);
                if (w == pid)
                        return 0;
                if (w < 0 && errno != EINTR)
                        return -errno;
                uint64_t now = xpu_isolate_now_ms();
                if (now >= deadline)
                        return -ETIMEDOUT;
                xpu_isolate_wait_a_little(pidfd, deadline - now);
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

void xpu_isolate_format_ms(char *buf, size_t size, unsigned ms) {
        if (ms % 1000u == 0)
                snprintf(buf, size, "%u s", ms / 1000u);
        else
                snprintf(buf, size, "%u ms", ms);
}

/* Is this process in a user namespace other than the initial one? (/proc/self/ns/user's inode;
 * false when /proc cannot tell.) */
static bool in_user_namespace(void) {
        struct stat st;
        return stat("/proc/self/ns/user", &st) == 0 && st.st_ino != USER_NS_INIT_INO;
}

/* The reason for a failed set-up step E. Switching ids fails in a user namespace that maps no
 * uid/gid O->uid/O->gid or denies setgroups (`unshare -r`): the helper fails closed (vendor code
 * never runs with ids we could not drop), and the reason says why and what to do. */
static void setup_reason(const struct xpu_isolate_record *e, const struct xpu_isolate_options *o, char *reason,
                         size_t size) {
        const char *step = xpu_isolate_step_name(e->step), *what = strerrordesc_np(e->value) ?: "unknown error";
        bool ids = e->step == XPU_ISOLATE_STEP_SETGROUPS || e->step == XPU_ISOLATE_STEP_SETRESGID ||
                   e->step == XPU_ISOLATE_STEP_SETRESUID;
        if (!ids || (e->value != EPERM && e->value != EINVAL) || !in_user_namespace()) {
                snprintf(reason, size, "set-up failed at %s: %s", step, what);
                return;
        }
        unsigned uid = (unsigned)o->uid, gid = (unsigned)o->gid;
        char who[64], map[64];
        if (uid == gid && uid == XPU_ISOLATE_NOBODY)
                snprintf(who, sizeof who, "nobody (%u)", uid);
        else
                snprintf(who, sizeof who, "uid %u, gid %u", uid, gid);
        if (uid == gid)
                snprintf(map, sizeof map, "uid/gid %u", uid);
        else
                snprintf(map, sizeof map, "uid %u and gid %u", uid, gid);
        snprintf(reason, size,
                 "cannot switch to %s in this user namespace: %s: %s; run xpuinit as real root or map %s", who,
                 step, what, map);
}

int xpu_isolate_status_reason(int status, int err_fd, const struct xpu_isolate_options *o, char *reason,
                              size_t size) {
        struct xpu_isolate_record recs[4];
        const struct xpu_isolate_record *setup = NULL;
        ssize_t n = read(err_fd, recs, sizeof recs);
        for (size_t i = 0; n > 0 && i < (size_t)n / sizeof recs[0]; i++) {
                if (recs[i].step == XPU_ISOLATE_RECORD_FATE)
                        status = recs[i].value;
                else if (!setup && xpu_isolate_step_name(recs[i].step) && recs[i].value > 0)
                        setup = &recs[i];
        }
        if (WIFSIGNALED(status)) {
                const char *d = sigdescr_np(WTERMSIG(status));
                snprintf(reason, size, "killed by signal %d (%s)", WTERMSIG(status), d ? d : "unknown");
                return -ECONNABORTED;
        }
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 255;
        if (code == XPU_ISOLATE_SETUP_FAILED && setup) {
                setup_reason(setup, o, reason, size);
                return -setup->value;
        }
        if (code == 0)
                return 0;
        snprintf(reason, size, "exited with status %d", code);
        return -EPROTO;
}

/* Make this thread's next child PID 1 of a new PID namespace, when it may and when it can come
 * back: unshare(CLONE_NEWPID) changes only this thread's namespace for future children, and
 * setns() back to the saved one needs CAP_SYS_ADMIN over the namespace's owner, which a caller
 * in a user namespace lacks (it could create the namespace but never leave it): the no-op setns()
 * to the current one tries that first. *RET_NS_FD: where to return after fork(); *RET_SELF_FD: a
 * pidfd of this process for the helper's parent check (its getppid() is 0 in the namespace).
 * Returns 0, or -errno when the helper must run without a namespace (nothing changed then). */
static int pidns_enter(int *ret_ns_fd, int *ret_self_fd) {
        _cleanup_close_ int self = (int)syscall(SYS_pidfd_open, getpid(), 0);
        if (self < 0)
                return -errno;
        _cleanup_close_ int ns = open("/proc/thread-self/ns/pid_for_children", O_RDONLY | O_CLOEXEC);
        if (ns < 0)
                return -errno;
        if (setns(ns, CLONE_NEWPID) < 0 || unshare(CLONE_NEWPID) < 0)
                return -errno;
        *ret_ns_fd = TAKE_FD(ns);
        *ret_self_fd = TAKE_FD(self);
        return 0;
}

int xpu_isolate_fork(struct xpu_isolate_child *c, pid_t *ret_pid, char *reason, size_t reason_size) {
        c->parent = getpid();
        c->parent_fd = -EBADF;
        _cleanup_close_ int ns_fd = -EBADF, self_fd = -EBADF;
        c->pid_ns = pidns_enter(&ns_fd, &self_fd) == 0;
        c->parent_fd = self_fd;

        pid_t pid = fork();
        if (pid == 0)
                xpu_isolate_child_main(c);
        int fork_err = errno;
        if (c->pid_ns && setns(ns_fd, CLONE_NEWPID) < 0) {
                /* Cannot happen (the same setns() worked before unshare()), but this thread's
                 * next child must not land in the helper's namespace unnoticed. */
                int r = -errno;
                if (pid > 0) {
                        (void)kill(pid, SIGKILL);
                        (void)waitpid(pid, NULL, 0);
                }
                snprintf(reason, reason_size, "not started: cannot return to our PID namespace: %s",
                         strerrordesc_np(-r));
                return r;
        }
        if (pid < 0) {
                int r = -fork_err;
                snprintf(reason, reason_size, "not started: fork: %s", strerrordesc_np(-r));
                return r;
        }
        *ret_pid = pid;
        return 0;
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
        /* Asked to stop already: no helper is started at all. */
        int sig = xpu_isolate_interrupted();
        if (sig) {
                snprintf(reason, reason_size, "interrupted by SIG%s", sigabbrev_np(sig) ?: "?");
                return -EINTR;
        }

        int data[2], errp[2];
        if (pipe2(data, O_CLOEXEC) < 0) {
                int r = -errno;
                snprintf(reason, reason_size, "not started: pipe: %s", strerrordesc_np(-r));
                return r;
        }
        _cleanup_close_ int data_r = data[0];
        int data_w = data[1];
        if (pipe2(errp, O_CLOEXEC | O_NONBLOCK) < 0) {
                int r = -errno;
                close(data_w);
                snprintf(reason, reason_size, "not started: pipe: %s", strerrordesc_np(-r));
                return r;
        }
        _cleanup_close_ int err_r = errp[0];
        int err_w = errp[1];

        struct xpu_isolate_child c = { .fn = fn, .arg = arg, .o = &opt, .out_fd = data_w, .err_fd = err_w };
        uint64_t start = xpu_isolate_now_ms(), deadline = start + opt.timeout_ms;
        pid_t pid = -1;
        int fr = xpu_isolate_fork(&c, &pid, reason, reason_size);
        close(data_w);
        close(err_w);
        if (fr < 0)
                return fr;
        _cleanup_close_ int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
        (void)fcntl(data_r, F_SETFL, O_NONBLOCK);
        /* Readable while a signal of the interrupt set is pending; polled, never read, so the
         * signal stays for the caller. A signal that arrived before it existed counts too. */
        _cleanup_close_ int sigfd = interrupt_on ? signalfd(-1, &interrupt_set, SFD_CLOEXEC | SFD_NONBLOCK) : -EBADF;

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
                r = xpu_isolate_child_exited(pid);
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
                uint64_t now = xpu_isolate_now_ms();
                if (now >= deadline) {
                        fail = -ETIMEDOUT;
                        break;
                }
                uint64_t ms = deadline - now;
                if (pidfd < 0 && ms > 10)
                        ms = 10;
                if (eof && sigfd < 0) /* only the exit is left to wait for */
                        xpu_isolate_wait_a_little(pidfd, ms);
                else {
                        struct pollfd p[3];
                        nfds_t np = 0;
                        if (!eof)
                                p[np++] = (struct pollfd){ .fd = data_r, .events = POLLIN };
                        if (pidfd >= 0)
                                p[np++] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
                        if (sigfd >= 0)
                                p[np++] = (struct pollfd){ .fd = sigfd, .events = POLLIN };
                        if (poll(p, np, (int)(ms > 60000 ? 60000 : ms)) > 0 && sigfd >= 0 &&
                            (p[np - 1].revents & POLLIN) && (sig = xpu_isolate_interrupted()) != 0) {
                                fail = -EINTR;
                                break;
                        }
                }
        }

        /* The helper first: once SIGKILL is pending it can fork no more. In a PID namespace its
         * death kills everything in the namespace. Then, for the fallback, the strays in its
         * process group (it made the group with setsid(); before that it had no child). The
         * helper is unreaped (or was never seen to exit), so its pid, which names the group,
         * cannot have been reused; after -ECHILD (someone else reaped it) it could have been,
         * so nothing is killed then. */
        if (fail != -ECHILD) {
                (void)kill(pid, SIGKILL);
                (void)kill(-pid, SIGKILL);
        }
        int status = 0;
        int r = fail == -ECHILD ? -ECHILD
                                : xpu_isolate_reap(pid, pidfd, xpu_isolate_now_ms() + XPU_ISOLATE_KILL_GRACE_MS, &status);
        char when[32];
        xpu_isolate_format_ms(when, sizeof when, opt.timeout_ms);
        switch (fail) {
        case 0:
                break;
        case -ETIMEDOUT:
                snprintf(reason, reason_size, "timed out after %s", when);
                break;
        case -EMSGSIZE:
                snprintf(reason, reason_size, "reply larger than %zu bytes", opt.max_reply_bytes);
                break;
        case -EINTR:
                snprintf(reason, reason_size, "interrupted by SIG%s", sigabbrev_np(sig) ?: "?");
                break;
        case -ECHILD:
                snprintf(reason, reason_size, "status lost (reaped elsewhere)");
                return fail;
        default:
                snprintf(reason, reason_size, "reply unreadable: %s",
                         strerrordesc_np(-fail) ?: "unknown error");
                break;
        }
        if (r == -ETIMEDOUT) {
                size_t l = strlen(reason);
                snprintf(reason + l, reason_size - l, "%spid %d did not die", l ? "; " : "",
                         (int)pid);
                return fail < 0 ? fail : -ETIMEDOUT;
        }
        if (r < 0) {
                snprintf(reason, reason_size, "status lost (reaped elsewhere)");
                return -ECHILD;
        }
        if (fail < 0)
                return fail;
        r = xpu_isolate_status_reason(status, err_r, &opt, reason, reason_size);
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
