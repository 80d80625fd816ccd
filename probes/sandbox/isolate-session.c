/* SPDX-License-Identifier: Apache-2.0 */
/* Long-lived isolated helpers ("sessions", isolate.h): the helper is forked and set up exactly as
 * by xpu_isolate_run() (isolate-child.c), then answers framed replies to request lines over a
 * socket pair, each call bounded by its own deadline. Any failure of a call ends the session. */
#include "sandbox/isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/isolate-internal.h"
#include "base/macro.h"

/* Digits of the longest length line ("18446744073709551615"), newline not counted. */
#define FRAME_DIGITS_MAX 20

struct xpu_isolate_session {
        struct xpu_isolate_options o;
        pid_t pid;   /* the helper; 0 once reaped or given up */
        int pidfd;   /* -1 when pidfd_open is not available */
        int sock;    /* our end of the socket pair */
        int err_r;   /* side channel: set-up failures, the worker's fate in a PID namespace */
        uint64_t calls; /* calls made so far */
};

int xpu_isolate_session_start(int (*fn)(void *arg, int fd), void *arg, const struct xpu_isolate_options *o,
                              struct xpu_isolate_session **ret, char *reason, size_t reason_size) {
        char dummy[1];
        if (!reason || reason_size == 0) {
                reason = dummy;
                reason_size = sizeof dummy;
        }
        reason[0] = '\0';
        if (!fn || !ret)
                return -EINVAL;
        _cleanup_free_ struct xpu_isolate_session *s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        s->o = o ? *o : XPU_ISOLATE_OPTIONS_DEFAULT;
        if (s->o.timeout_ms == 0)
                s->o.timeout_ms = XPU_ISOLATE_TIMEOUT_MS_DEFAULT;
        if (s->o.max_reply_bytes == 0)
                s->o.max_reply_bytes = XPU_ISOLATE_MAX_REPLY_DEFAULT;
        if (s->o.max_reply_bytes >= SIZE_MAX / 2)
                return -EINVAL;

        int sp[2], errp[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) {
                int r = negative_errno();
                snprintf(reason, reason_size, "not started: socketpair: %s", strerrordesc_np(-r));
                return r;
        }
        if (pipe2(errp, O_CLOEXEC | O_NONBLOCK) < 0) {
                int r = negative_errno();
                close(sp[0]);
                close(sp[1]);
                snprintf(reason, reason_size, "not started: pipe: %s", strerrordesc_np(-r));
                return r;
        }
        struct xpu_isolate_child c = { .fn = fn, .arg = arg, .o = &s->o, .out_fd = sp[1], .err_fd = errp[1] };
        pid_t pid = -1;
        int r = xpu_isolate_fork(&c, &pid, reason, reason_size);
        close(sp[1]);
        close(errp[1]);
        if (r < 0) {
                close(sp[0]);
                close(errp[0]);
                return r;
        }
        s->pid = pid;
        s->sock = sp[0];
        s->err_r = errp[0];
        s->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
        (void)fcntl(s->sock, F_SETFL, O_NONBLOCK);
        *ret = TAKE_PTR(s);
        return 0;
}

bool xpu_isolate_session_alive(const struct xpu_isolate_session *s) {
        return s && s->pid > 0;
}

pid_t xpu_isolate_session_pid(const struct xpu_isolate_session *s) {
        return s ? s->pid : 0;
}

/* Kill the helper and its process group, reap it (XPU_ISOLATE_KILL_GRACE_MS at most), close the
 * socket. *STATUS gets its wait status. Returns 0, -ETIMEDOUT when it did not die (left to the
 * process's reaper), -ECHILD when someone else reaped it. */
static int session_kill(struct xpu_isolate_session *s, int *status) {
        int r = 0;
        *status = 0;
        if (s->pid > 0) {
                if (xpu_isolate_child_exited(s->pid) < 0)
                        r = -ECHILD; /* its pid may have been reused: kill nothing */
                else {
                        (void)kill(s->pid, SIGKILL);
                        (void)kill(-s->pid, SIGKILL);
                        r = xpu_isolate_reap(s->pid, s->pidfd, xpu_isolate_now_ms() + XPU_ISOLATE_KILL_GRACE_MS,
                                             status);
                }
        }
        s->pid = 0;
        if (s->pidfd >= 0)
                close(s->pidfd);
        s->pidfd = -1;
        if (s->sock >= 0)
                close(s->sock);
        s->sock = -1;
        return r;
}

/* End S after a failed call: kill and reap the helper; REASON gets WHY (when not NULL), else the
 * helper's fate (a set-up failure, a signal, an exit status). Returns the error for the call:
 * ERR when WHY is given, else the fate's. */
static int session_fail(struct xpu_isolate_session *s, int err, const char *why, char *reason, size_t size) {
        pid_t pid = s->pid;
        int status = 0;
        if (!why) {
                /* The helper is going away on its own (its socket end closed): let it finish, so
                 * that in a PID namespace the reaper can hand the worker's fate on before the kill
                 * below would cut it short. */
                uint64_t deadline = xpu_isolate_now_ms() + XPU_ISOLATE_KILL_GRACE_MS;
                for (uint64_t now; xpu_isolate_child_exited(pid) == 0 && (now = xpu_isolate_now_ms()) < deadline;)
                        xpu_isolate_wait_a_little(s->pidfd, deadline - now);
        }
        int r = session_kill(s, &status);
        if (r == -ECHILD) {
                snprintf(reason, size, "status lost (reaped elsewhere)");
                return why ? err : -ECHILD;
        }
        if (why) {
                snprintf(reason, size, "%s", why);
                if (r == -ETIMEDOUT) {
                        size_t l = strlen(reason);
                        snprintf(reason + l, size - l, "; pid %d did not die", (int)pid);
                }
                return err;
        }
        if (r == -ETIMEDOUT) {
                snprintf(reason, size, "pid %d did not die", (int)pid);
                return -ETIMEDOUT;
        }
        r = xpu_isolate_status_reason(status, s->err_r, &s->o, reason, size);
        if (r == 0) { /* it exited with status 0 before its reply was complete */
                snprintf(reason, size, "exited before answering");
                return -EPROTO;
        }
        return r;
}

/* Parse the length line at the start of BUF (LEN bytes). Returns 1 with *RET_BODY (offset of the
 * reply) and *RET_SIZE, 0 when the line is not complete yet, -EBADMSG for a bad frame. */
static int frame_header(const char *buf, size_t len, size_t *ret_body, size_t *ret_size) {
        size_t i = 0;
        uint64_t v = 0;
        for (; i < len && buf[i] >= '0' && buf[i] <= '9'; i++) {
                if (i >= FRAME_DIGITS_MAX || v > (UINT64_MAX - 9) / 10)
                        return -EBADMSG;
                v = v * 10 + (uint64_t)(buf[i] - '0');
        }
        if (i == len)
                return i > FRAME_DIGITS_MAX ? -EBADMSG : 0;
        if (i == 0 || buf[i] != '\n' || (buf[0] == '0' && i > 1) || v > SIZE_MAX / 2)
                return -EBADMSG;
        *ret_body = i + 1;
        *ret_size = (size_t)v;
        return 1;
}

/* Is something waiting on the socket before we asked (or is the helper gone)? 0 when the socket
 * is quiet; otherwise the session has been ended and the error is returned. */
static int check_quiet(struct xpu_isolate_session *s, char *reason, size_t size) {
        struct pollfd p = { .fd = s->sock, .events = POLLIN };
        if (poll(&p, 1, 0) <= 0)
                return 0;
        char c;
        ssize_t n = recv(s->sock, &c, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n > 0)
                return session_fail(s, -EBADMSG, "sent data nobody asked for", reason, size);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return 0;
        return session_fail(s, 0, NULL, reason, size); /* EOF or an error: it is gone */
}

int xpu_isolate_session_call(struct xpu_isolate_session *s, const char *request, unsigned timeout_ms, void **ret,
                             size_t *ret_len, char *reason, size_t reason_size) {
        char dummy[1];
        if (!reason || reason_size == 0) {
                reason = dummy;
                reason_size = sizeof dummy;
        }
        reason[0] = '\0';
        if (!s || !request)
                return -EINVAL;
        size_t rlen = strlen(request);
        if (rlen > 0 && request[rlen - 1] == '\n')
                rlen--;
        if (rlen == 0 || rlen + 1 > XPU_ISOLATE_REQUEST_MAX || memchr(request, '\n', rlen))
                return -EINVAL;
        if (s->pid <= 0) {
                snprintf(reason, reason_size, "has ended");
                return -ESRCH;
        }
        if (timeout_ms == 0)
                timeout_ms = s->o.timeout_ms;
        uint64_t deadline = xpu_isolate_now_ms() + timeout_ms;

        /* Before the first request a helper may have answered already (a set-up error). */
        int r = s->calls++ > 0 ? check_quiet(s, reason, reason_size) : 0;
        if (r < 0)
                return r;
        char line[XPU_ISOLATE_REQUEST_MAX];
        memcpy(line, request, rlen);
        line[rlen] = '\n';
        /* A helper that already exited (after a set-up error reply) makes this fail with EPIPE;
         * its reply may still be waiting in the socket, so read on. */
        (void)send(s->sock, line, rlen + 1, MSG_NOSIGNAL | MSG_DONTWAIT);

        _cleanup_free_ char *buf = NULL;
        size_t len = 0, cap = 0, body = 0, size = 0;
        bool have_header = false;
        for (;;) {
                /* Read what is there. */
                for (;;) {
                        /* Grow when full, and to the whole frame once its size is known: a first
                         * read shorter than the buffer must not leave room counted past it. */
                        if (len == cap || (have_header && cap < body + size)) {
                                size_t want = have_header ? body + size : cap + 4096;
                                if (want <= cap)
                                        want = cap + 4096;
                                char *nb = realloc(buf, want + 1);
                                if (!nb)
                                        return session_fail(s, -ENOMEM, "out of memory", reason, reason_size);
                                buf = nb;
                                cap = want;
                        }
                        size_t room = have_header ? body + size - len : cap - len;
                        if (room == 0)
                                break;
                        ssize_t n = recv(s->sock, buf + len, room, MSG_DONTWAIT);
                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n < 0 && errno == EAGAIN)
                                break;
                        if (n <= 0) /* EOF or error: the helper is gone before its reply was complete */
                                return session_fail(s, 0, NULL, reason, reason_size);
                        len += (size_t)n;
                        if (!have_header) {
                                int h = frame_header(buf, len, &body, &size);
                                if (h < 0)
                                        return session_fail(s, -EBADMSG, "sent a bad frame", reason, reason_size);
                                if (h > 0) {
                                        if (size > s->o.max_reply_bytes) {
                                                char why[64];
                                                snprintf(why, sizeof why, "reply larger than %zu bytes",
                                                         s->o.max_reply_bytes);
                                                return session_fail(s, -EMSGSIZE, why, reason, reason_size);
                                        }
                                        have_header = true;
                                        if (len > body + size)
                                                return session_fail(s, -EBADMSG, "sent data nobody asked for",
                                                                    reason, reason_size);
                                }
                        }
                        if (have_header && len == body + size)
                                break;
                }
                if (have_header && len == body + size)
                        break;
                uint64_t now = xpu_isolate_now_ms();
                if (now >= deadline) {
                        char when[32], why[64];
                        xpu_isolate_format_ms(when, sizeof when, timeout_ms);
                        snprintf(why, sizeof why, "timed out after %s", when);
                        return session_fail(s, -ETIMEDOUT, why, reason, reason_size);
                }
                uint64_t ms = deadline - now;
                struct pollfd p = { .fd = s->sock, .events = POLLIN };
                (void)poll(&p, 1, (int)(ms > 60000 ? 60000 : ms));
        }

        memmove(buf, buf + body, size);
        buf[size] = '\0';
        if (ret_len)
                *ret_len = size;
        if (ret)
                *ret = TAKE_PTR(buf);
        return 0;
}

struct xpu_isolate_session *xpu_isolate_session_end(struct xpu_isolate_session *s) {
        if (!s)
                return NULL;
        if (s->pid > 0) {
                /* EOF for the helper: FN returns and the helper exits on its own (NVML shut down
                 * cleanly); whatever is left after the grace period is killed. */
                shutdown(s->sock, SHUT_WR);
                uint64_t deadline = xpu_isolate_now_ms() + XPU_ISOLATE_KILL_GRACE_MS;
                for (uint64_t now; xpu_isolate_child_exited(s->pid) == 0 && (now = xpu_isolate_now_ms()) < deadline;)
                        xpu_isolate_wait_a_little(s->pidfd, deadline - now);
                int status;
                (void)session_kill(s, &status);
        }
        if (s->pidfd >= 0)
                close(s->pidfd);
        if (s->sock >= 0)
                close(s->sock);
        if (s->err_r >= 0)
                close(s->err_r);
        free(s);
        return NULL;
}

/* ---- helper side ------------------------------------------------------------------------------ */

ssize_t xpu_isolate_session_next(int fd, char *buf, size_t size) {
        size_t n = 0;
        if (!buf || size == 0)
                return -EINVAL;
        for (;;) {
                char c;
                ssize_t r = read(fd, &c, 1);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0 && errno == EAGAIN) {
                        struct pollfd p = { .fd = fd, .events = POLLIN };
                        (void)poll(&p, 1, -1);
                        continue;
                }
                if (r < 0)
                        return negative_errno();
                if (r == 0)
                        return n == 0 ? 0 : -EMSGSIZE;
                if (c == '\n') {
                        buf[n] = '\0';
                        return n == 0 ? -EMSGSIZE : (ssize_t)n;
                }
                if (n + 1 >= size)
                        return -EMSGSIZE;
                buf[n++] = c;
        }
}

static int write_all(int fd, const char *p, size_t len) {
        while (len > 0) {
                ssize_t n = write(fd, p, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN) {
                        struct pollfd pf = { .fd = fd, .events = POLLOUT };
                        (void)poll(&pf, 1, -1);
                        continue;
                }
                if (n <= 0)
                        return n < 0 ? negative_errno() : -EIO;
                p += n;
                len -= (size_t)n;
        }
        return 0;
}

int xpu_isolate_session_send(int fd, const void *buf, size_t len) {
        char head[FRAME_DIGITS_MAX + 2];
        int n = snprintf(head, sizeof head, "%zu\n", len);
        int r = write_all(fd, head, (size_t)n);
        return r < 0 ? r : write_all(fd, buf, len);
}
