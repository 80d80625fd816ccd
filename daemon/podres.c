/* SPDX-License-Identifier: Apache-2.0 */
/* The pod-resources call (podres.h): one gRPC unary call, v1.PodResourcesLister/List, over HTTP/2
 * with prior knowledge (h2c, as gRPC speaks on UNIX sockets) on a non-blocking AF_UNIX socket.
 * nghttp2 does the framing (nghttp2_session_mem_send/mem_recv: this file owns the socket and the
 * deadline); gRPC's own layer is small and written here from its published wire format
 * (grpc/grpc doc/PROTOCOL-HTTP2.md): a 5-byte prefix per message (compressed flag, big-endian
 * length), the status in the trailers (grpc-status, grpc-message), or in the headers of a
 * trailers-only reply. Everything, connect included, runs under one CLOCK_MONOTONIC deadline. */
#include "podres.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/macro.h"

#define PODRES_PATH "/v1.PodResourcesLister/List"
#define GRPC_PREFIX 5u
/* Bytes of the request and control frames waiting for the socket; a peer that sends pings or
 * settings faster than it reads their answers is cut off here. */
#define OUT_MAX (256u << 10)
/* The receive windows we announce: a 4 MiB reply in a few round trips, not 64 (64 KiB default). */
#define WINDOW_SIZE (1 << 20)

struct call {
        const char *path;
        nghttp2_session *session;
        int32_t stream_id;
        bool closed;            /* our stream ended */
        uint32_t close_code;    /* its HTTP/2 error code (RST_STREAM), 0 when it ended cleanly */
        int http_status;        /* :status, 0 before the headers */
        bool grpc_type;         /* content-type application/grpc[+proto|;...] */
        int grpc_status;        /* -1: none yet; -2: not a number */
        char grpc_message[200]; /* percent-decoded, control bytes replaced */
        uint8_t *body;          /* DATA: the 5-byte prefix and the message */
        size_t body_len, body_cap;
        bool request_sent;      /* the request's 5 bytes handed to nghttp2 */
        int fail;               /* -errno decided inside a callback, with WHY */
        char why[320];
        char h2err[160];        /* nghttp2's first error text (error_callback2) */
        uint8_t first[8];       /* the first bytes received, to name an HTTP/1 peer */
        size_t first_len;
        uint8_t *out;           /* bytes nghttp2 produced that the socket has not taken */
        size_t out_len;
        bool write_dead;        /* send() failed: the peer is gone, read what is left */
};

static void set_err(char *err, size_t err_size, const char *path, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static void set_err(char *err, size_t err_size, const char *path, const char *fmt, ...) {
        if (!err || err_size == 0)
                return;
        int n = snprintf(err, err_size, "pod-resources socket %s: ", path);
        if (n < 0 || (size_t)n >= err_size)
                return;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + n, err_size - (size_t)n, fmt, ap);
        va_end(ap);
}

static void fail(struct call *c, int e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(struct call *c, int e, const char *fmt, ...) {
        if (c->fail)
                return;
        c->fail = e;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->why, sizeof c->why, fmt, ap);
        va_end(ap);
}

/* Copy header or error text S (N bytes) into D (SIZE bytes): printable ASCII kept, the rest '?'.
 * PERCENT decodes grpc-message's percent-encoding first. */
static void copy_text(char *d, size_t size, const uint8_t *s, size_t n, bool percent) {
        size_t o = 0;
        for (size_t i = 0; i < n && o + 1 < size; i++) {
                unsigned ch = s[i];
                if (percent && ch == '%' && n - i >= 3) {
                        char hex[3] = { (char)s[i + 1], (char)s[i + 2], '\0' }, *end;
                        unsigned long v = strtoul(hex, &end, 16);
                        if (*end == '\0' && end == hex + 2) {
                                ch = (unsigned)v;
                                i += 2;
                        }
                }
                d[o++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
        }
        d[o] = '\0';
}

static uint64_t now_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Milliseconds left before DEADLINE for poll(), rounded up; 0 when it has passed. */
static int ms_left(uint64_t deadline) {
        uint64_t now = now_ns();
        if (now >= deadline)
                return 0;
        uint64_t ms = (deadline - now + 999999u) / 1000000u;
        return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* ---- nghttp2 callbacks -------------------------------------------------------------------------- */

static bool name_is(const uint8_t *name, size_t len, const char *s) {
        return len == strlen(s) && memcmp(name, s, len) == 0;
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *user_data) {
        struct call *c = user_data;
        if (frame->hd.stream_id != c->stream_id)
                return 0;
        if (name_is(name, namelen, ":status")) {
                c->http_status = 0;
                for (size_t i = 0; i < valuelen && i < 3; i++)
                        c->http_status = value[i] >= '0' && value[i] <= '9' ? c->http_status * 10 + value[i] - '0'
                                                                           : -1000;
        } else if (name_is(name, namelen, "content-type")) {
                /* gRPC: "application/grpc" optionally followed by "+format" or ";params". */
                static const char t[] = "application/grpc";
                size_t n = sizeof t - 1;
                c->grpc_type = valuelen >= n && memcmp(value, t, n) == 0 &&
                               (valuelen == n || value[n] == '+' || value[n] == ';');
        } else if (name_is(name, namelen, "grpc-status")) {
                int v = valuelen > 0 && valuelen <= 3 ? 0 : -2;
                for (size_t i = 0; v >= 0 && i < valuelen; i++)
                        v = value[i] >= '0' && value[i] <= '9' ? v * 10 + value[i] - '0' : -2;
                c->grpc_status = v;
        } else if (name_is(name, namelen, "grpc-message")) {
                copy_text(c->grpc_message, sizeof c->grpc_message, value, valuelen, true);
        }
        return 0;
}

static int on_data(nghttp2_session *session, uint8_t flags, int32_t stream_id, const uint8_t *data, size_t len,
                   void *user_data) {
        struct call *c = user_data;
        if (stream_id != c->stream_id)
                return 0;
        /* Refuse a reply past the limit as soon as its prefix says so, not after reading it. */
        if (len > XPUD_PODRES_REPLY_MAX + GRPC_PREFIX - c->body_len) {
                fail(c, -EMSGSIZE, "the reply is larger than the limit of %u bytes", XPUD_PODRES_REPLY_MAX);
                return NGHTTP2_ERR_CALLBACK_FAILURE;
        }
        if (c->body_len + len > c->body_cap) {
                size_t cap = c->body_cap ? c->body_cap : 16384;
                while (cap < c->body_len + len)
                        cap *= 2;
                if (cap > XPUD_PODRES_REPLY_MAX + GRPC_PREFIX)
                        cap = XPUD_PODRES_REPLY_MAX + GRPC_PREFIX;
                uint8_t *b = realloc(c->body, cap);
                if (!b) {
                        fail(c, -ENOMEM, "out of memory");
                        return NGHTTP2_ERR_CALLBACK_FAILURE;
                }
                c->body = b;
                c->body_cap = cap;
        }
        memcpy(c->body + c->body_len, data, len);
        c->body_len += len;
        if (c->body_len >= GRPC_PREFIX) {
                uint32_t n = (uint32_t)c->body[1] << 24 | (uint32_t)c->body[2] << 16 | (uint32_t)c->body[3] << 8 |
                             c->body[4];
                if (n > XPUD_PODRES_REPLY_MAX) {
                        fail(c, -EMSGSIZE, "the reply's message has %" PRIu32 " bytes, more than the limit of %u",
                             n, XPUD_PODRES_REPLY_MAX);
                        return NGHTTP2_ERR_CALLBACK_FAILURE;
                }
        }
        return 0;
}

static int on_stream_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code, void *user_data) {
        struct call *c = user_data;
        if (stream_id == c->stream_id) {
                c->closed = true;
                c->close_code = error_code;
        }
        return 0;
}

static int on_error(nghttp2_session *session, int lib_error_code, const char *msg, size_t len, void *user_data) {
        struct call *c = user_data;
        if (!c->h2err[0])
                copy_text(c->h2err, sizeof c->h2err, (const uint8_t *)msg, len, false);
        return 0;
}

/* The request body: one gRPC message, the empty ListPodResourcesRequest (0 bytes). */
static ssize_t read_request(nghttp2_session *session, int32_t stream_id, uint8_t *buf, size_t length,
                            uint32_t *data_flags, nghttp2_data_source *source, void *user_data) {
        struct call *c = user_data;
        *data_flags |= NGHTTP2_DATA_FLAG_EOF;
        if (c->request_sent || length < GRPC_PREFIX)
                return 0;
        memset(buf, 0, GRPC_PREFIX); /* not compressed, length 0 */
        c->request_sent = true;
        return GRPC_PREFIX;
}

/* ---- the socket ------------------------------------------------------------------------------- */

/* Connect FD to PATH before DEADLINE. Returns 0 or -errno with ERR set. */
static int connect_unix(int fd, const char *path, uint64_t deadline, char *err, size_t err_size) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        size_t n = strlen(path);
        if (n == 0 || n >= sizeof sa.sun_path) {
                set_err(err, err_size, path, "the path is empty or longer than %zu bytes", sizeof sa.sun_path - 1);
                return -ENAMETOOLONG;
        }
        memcpy(sa.sun_path, path, n + 1);
        for (;;) {
                if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
                        return 0;
                int e = errno;
                if (e == EINTR)
                        continue;
                if (e == EAGAIN) {
                        /* The listener's backlog is full (a busy or stuck kubelet): AF_UNIX has no
                         * connect in progress, so try again shortly, within the deadline. */
                        int left = ms_left(deadline);
                        if (left == 0)
                                break;
                        poll(NULL, 0, left < 10 ? left : 10);
                        continue;
                }
                if (e == EINPROGRESS) {
                        struct pollfd p = { .fd = fd, .events = POLLOUT };
                        int left = ms_left(deadline), r = 0;
                        while (left > 0 && (r = poll(&p, 1, left)) < 0 && errno == EINTR)
                                left = ms_left(deadline);
                        if (r == 0)
                                break;
                        socklen_t len = sizeof e;
                        if (r < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
                                e = errno;
                        if (e == 0)
                                return 0;
                }
                if (e == ENOENT)
                        set_err(err, err_size, path, "no such socket (no kubelet here, or another path)");
                else if (e == ECONNREFUSED)
                        set_err(err, err_size, path, "connection refused (nothing listens: the kubelet is down)");
                else if (e == EACCES || e == EPERM)
                        set_err(err, err_size, path, "%s (xpud needs write access to the kubelet's socket)",
                                strerror(e));
                else
                        set_err(err, err_size, path, "connect: %s", strerror(e));
                return -e;
        }
        set_err(err, err_size, path, "connect timed out (the kubelet accepts no connections)");
        return -ETIMEDOUT;
}

/* Move what nghttp2 wants to send into C->out, then as much of C->out as the socket takes.
 * Returns 0 or -errno (C->why set). */
static int pump_out(struct call *c, int fd) {
        for (;;) {
                const uint8_t *data;
                ssize_t n = nghttp2_session_mem_send(c->session, &data);
                if (n < 0) {
                        fail(c, n == NGHTTP2_ERR_NOMEM ? -ENOMEM : -EPROTO, "HTTP/2: %s",
                             nghttp2_strerror((int)n));
                        return c->fail;
                }
                if (n == 0)
                        break;
                if ((size_t)n > OUT_MAX - c->out_len) {
                        fail(c, -EPROTO, "the peer does not read what it asked for (%zu bytes waiting)", c->out_len);
                        return c->fail;
                }
                if (!c->out) {
                        c->out = malloc(OUT_MAX);
                        if (!c->out) {
                                fail(c, -ENOMEM, "out of memory");
                                return c->fail;
                        }
                }
                memcpy(c->out + c->out_len, data, (size_t)n);
                c->out_len += (size_t)n;
        }
        if (c->write_dead)
                c->out_len = 0;
        while (c->out_len > 0) {
                ssize_t n = send(fd, c->out, c->out_len, MSG_NOSIGNAL | MSG_DONTWAIT);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN)
                                return 0;
                        /* The peer closed its side: what it sent before is still to be read, and
                         * says more (an HTTP/1 answer, a GOAWAY) than EPIPE does. */
                        c->write_dead = true;
                        c->out_len = 0;
                        return 0;
                }
                memmove(c->out, c->out + n, c->out_len - (size_t)n);
                c->out_len -= (size_t)n;
        }
        return 0;
}

/* Why the HTTP/2 session ended before the reply: an HTTP/1 peer, nghttp2's reason, or GOAWAY. */
static void fail_session(struct call *c, const char *what) {
        if (c->first_len >= 5 && memcmp(c->first, "HTTP/", 5) == 0)
                fail(c, -EPROTO, "the peer speaks HTTP/1, not HTTP/2 with prior knowledge (not a gRPC server)");
        else if (c->h2err[0])
                fail(c, -EPROTO, "%s (not a gRPC server?): %s", what, c->h2err);
        else
                fail(c, -EPROTO, "%s (not a gRPC server?)", what);
}

/* Run the session on FD until our stream ends, a failure or the deadline. Returns 0 or -errno. */
static int run_session(struct call *c, int fd, uint64_t deadline) {
        uint8_t buf[16384];
        for (;;) {
                if (pump_out(c, fd) < 0 || c->closed)
                        return c->fail;
                if (!nghttp2_session_want_read(c->session) && !nghttp2_session_want_write(c->session) &&
                    c->out_len == 0) {
                        fail_session(c, "the HTTP/2 session ended before the reply");
                        return c->fail;
                }
                struct pollfd p = { .fd = fd, .events = POLLIN | (c->out_len ? POLLOUT : 0) };
                int left = ms_left(deadline), r = 0;
                if (left > 0)
                        r = poll(&p, 1, left);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0) {
                        fail(c, -errno, "poll: %s", strerror(errno));
                        return c->fail;
                }
                if (r == 0) {
                        fail(c, -ETIMEDOUT,
                             "no complete reply within the deadline (%s; the kubelet is slow or stuck)",
                             c->http_status ? "headers received"
                             : c->first_len ? "some bytes received"
                                            : "nothing received");
                        return c->fail;
                }
                if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
                        continue;
                ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
                if (n < 0 && (errno == EINTR || errno == EAGAIN))
                        continue;
                if (n < 0 && errno != ECONNRESET) {
                        fail(c, -ECONNRESET, "recv: %s", strerror(errno));
                        return c->fail;
                }
                /* ECONNRESET: the peer closed with our bytes unread; the same as its EOF. */
                if (n <= 0) {
                        if (c->first_len == 0)
                                fail(c, -ECONNRESET, "the peer closed the connection without a reply");
                        else if (c->http_status == 0)
                                fail_session(c, "the peer closed the connection before the reply's headers");
                        else
                                fail(c, -ECONNRESET, "the peer closed the connection in the middle of the reply");
                        return c->fail;
                }
                while (c->first_len < sizeof c->first && (size_t)n > c->first_len) {
                        c->first[c->first_len] = buf[c->first_len];
                        c->first_len++;
                }
                ssize_t used = nghttp2_session_mem_recv(c->session, buf, (size_t)n);
                if (c->fail)
                        return c->fail;
                if (used < 0) {
                        if (used == NGHTTP2_ERR_NOMEM)
                                fail(c, -ENOMEM, "out of memory");
                        else
                                fail_session(c, nghttp2_strerror((int)used));
                        return c->fail;
                }
        }
}

/* gRPC status codes (grpc/grpc doc/statuscodes.md). */
static const char *const grpc_codes[] = {
        "OK",           "CANCELLED",          "UNKNOWN",   "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
        "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
        "OUT_OF_RANGE", "UNIMPLEMENTED",      "INTERNAL",  "UNAVAILABLE",      "DATA_LOSS",         "UNAUTHENTICATED",
};

/* The finished stream in C: HTTP and gRPC status, then exactly one uncompressed message. */
static int check_reply(struct call *c) {
        if (c->close_code == NGHTTP2_REFUSED_STREAM) {
                /* A GOAWAY before our stream, or its refusal: the kubelet is going away. */
                fail(c, -ECONNRESET, "the peer refused the call (HTTP/2 REFUSED_STREAM: shutting down or restarting)");
                return c->fail;
        }
        if (c->close_code != NGHTTP2_NO_ERROR) {
                fail(c, -EPROTO, "the peer reset the stream (HTTP/2 error %s)",
                     nghttp2_http2_strerror(c->close_code));
                return c->fail;
        }
        if (c->http_status != 200) {
                fail(c, -EPROTO, "HTTP status %d, not 200 (not a gRPC server?)", c->http_status);
                return c->fail;
        }
        /* A gRPC error says the most, whatever else is missing from its trailers-only reply. */
        if (c->grpc_status > 0) {
                const char *name = (size_t)c->grpc_status < sizeof grpc_codes / sizeof grpc_codes[0]
                                           ? grpc_codes[c->grpc_status]
                                           : "unknown code";
                fail(c, -EPROTO, "gRPC status %d (%s): %s", c->grpc_status, name,
                     c->grpc_message[0] ? c->grpc_message : "no message");
                return c->fail;
        }
        if (!c->grpc_type) {
                fail(c, -EPROTO, "the reply's content-type is not application/grpc");
                return c->fail;
        }
        if (c->grpc_status < 0) {
                fail(c, -EPROTO, "%s",
                     c->grpc_status == -1 ? "the reply has no grpc-status" : "grpc-status is not a number");
                return c->fail;
        }
        if (c->body_len < GRPC_PREFIX) {
                fail(c, -EPROTO, "the reply has %s", c->body_len ? "a cut message prefix" : "no message");
                return c->fail;
        }
        if (c->body[0] != 0) {
                fail(c, -EPROTO, "the reply's message is %s", c->body[0] == 1 ? "compressed (none was asked for)"
                                                                             : "flagged with an unknown flag");
                return c->fail;
        }
        size_t n = (size_t)c->body[1] << 24 | (size_t)c->body[2] << 16 | (size_t)c->body[3] << 8 | c->body[4];
        if (c->body_len - GRPC_PREFIX != n) {
                fail(c, -EPROTO, "the reply's message %s (%zu bytes announced, %zu sent)",
                     c->body_len - GRPC_PREFIX < n ? "is cut short" : "is followed by more data", n,
                     c->body_len - GRPC_PREFIX);
                return c->fail;
        }
        return 0;
}

/* The HTTP/2 session of C, with our settings and the request submitted. Returns 0 or -errno. */
static int start_session(struct call *c) {
        nghttp2_session_callbacks *cb;
        if (nghttp2_session_callbacks_new(&cb) != 0)
                return -ENOMEM;
        nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
        nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
        nghttp2_session_callbacks_set_error_callback2(cb, on_error);
        int r = nghttp2_session_client_new(&c->session, cb, c);
        nghttp2_session_callbacks_del(cb);
        if (r != 0)
                return -ENOMEM;

        const nghttp2_settings_entry settings[] = {
                { NGHTTP2_SETTINGS_ENABLE_PUSH, 0 },
                { NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 0 },
                { NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, WINDOW_SIZE },
                { NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, 16384 },
        };
        if (nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, settings, sizeof settings / sizeof settings[0]) !=
                    0 ||
            nghttp2_session_set_local_window_size(c->session, NGHTTP2_FLAG_NONE, 0, WINDOW_SIZE) != 0)
                return -ENOMEM;

#define NV(n, v)                                                                                                   \
        { (uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1,                                        \
          NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE }
        const nghttp2_nv headers[] = {
                NV(":method", "POST"),
                NV(":scheme", "http"),
                NV(":path", PODRES_PATH),
                NV(":authority", "localhost"),
                NV("content-type", "application/grpc"),
                NV("te", "trailers"),
                NV("user-agent", "xpud/" XPU_VERSION),
        };
#undef NV
        const nghttp2_data_provider body = { .read_callback = read_request };
        c->stream_id =
                nghttp2_submit_request(c->session, NULL, headers, sizeof headers / sizeof headers[0], &body, NULL);
        return c->stream_id < 0 ? -ENOMEM : 0;
}

int xpud_podres_call(const char *socket_path, unsigned timeout_ms, struct xpud_podres_list *out, char *err,
                     size_t err_size) {
        *out = (struct xpud_podres_list){ 0 };
        if (err && err_size)
                err[0] = '\0';
        uint64_t deadline = now_ns() + (uint64_t)(timeout_ms ? timeout_ms : XPUD_PODRES_TIMEOUT_MS) * 1000000u;

        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
                int e = errno;
                set_err(err, err_size, socket_path, "socket: %s", strerror(e));
                return -e;
        }
        int r = connect_unix(fd, socket_path, deadline, err, err_size);
        if (r < 0)
                return r;

        struct call c = { .path = socket_path, .grpc_status = -1, .stream_id = -1 };
        r = start_session(&c);
        if (r < 0)
                fail(&c, r, "out of memory");
        else
                r = run_session(&c, fd, deadline);
        if (r == 0)
                r = check_reply(&c);
        if (r == 0) {
                char derr[256];
                r = xpud_podres_decode(c.body + GRPC_PREFIX, c.body_len - GRPC_PREFIX, out, derr, sizeof derr);
                if (r < 0)
                        fail(&c, r, "%s", derr);
        }
        if (r < 0)
                set_err(err, err_size, socket_path, "%s", c.why);
        nghttp2_session_del(c.session);
        free(c.body);
        free(c.out);
        return r;
}
