/* SPDX-License-Identifier: Apache-2.0 */
/* A minimal HTTP/1.1 client for xpud's unit tests: one raw request over a UNIX or TCP socket,
 * read until the server closes, split into status, headers and body. Header-only (static
 * functions) so each test program carries its own copy. */
#pragma once

#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct http_reply {
        int status;        /* 0 when the server closed without answering */
        char head[8192];   /* status line and headers */
        char body[65536];  /* NUL-terminated */
        size_t body_len;
};

/* Connect to the UNIX socket at PATH; returns the fd (asserts). */
static inline int http_connect_unix(const char *path) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        ck_assert_uint_lt(strlen(path), sizeof sa.sun_path);
        memcpy(sa.sun_path, path, strlen(path) + 1);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ck_assert_int_ge(fd, 0);
        ck_assert_msg(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "connect %s: %s", path, strerror(errno));
        return fd;
}

/* Send REQ on FD, read the reply until EOF (at most TIMEOUT_MS of silence), close FD. Returns 0,
 * or -errno / -ETIMEDOUT. A reply that ends before the header block is status 0. */
static inline int http_exchange(int fd, const char *req, size_t req_len, struct http_reply *r, int timeout_ms) {
        static char buf[sizeof r->head + sizeof r->body];
        size_t len = 0;
        memset(r, 0, sizeof *r);
        for (size_t off = 0; off < req_len;) {
                ssize_t n = send(fd, req + off, req_len - off, MSG_NOSIGNAL);
                if (n < 0) {
                        int e = errno;
                        close(fd);
                        return -e;
                }
                off += (size_t)n;
        }
        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                int pr = poll(&p, 1, timeout_ms);
                if (pr == 0) {
                        close(fd);
                        return -ETIMEDOUT;
                }
                ssize_t n = read(fd, buf + len, sizeof buf - 1 - len);
                if (n < 0 && errno == ECONNRESET)
                        break;
                if (n < 0) {
                        int e = errno;
                        close(fd);
                        return -e;
                }
                if (n == 0 || len + (size_t)n >= sizeof buf - 1) {
                        len += (size_t)n;
                        break;
                }
                len += (size_t)n;
        }
        close(fd);
        buf[len] = '\0';
        char *end = strstr(buf, "\r\n\r\n");
        if (!end)
                return 0;
        size_t hl = (size_t)(end - buf);
        ck_assert_uint_lt(hl, sizeof r->head);
        memcpy(r->head, buf, hl);
        r->head[hl] = '\0';
        r->body_len = len - hl - 4;
        ck_assert_uint_lt(r->body_len, sizeof r->body);
        memcpy(r->body, end + 4, r->body_len);
        r->body[r->body_len] = '\0';
        if (sscanf(r->head, "HTTP/1.%*d %d", &r->status) != 1)
                r->status = 0;
        return 0;
}

/* "METHOD PATH" with Host and Connection: close, over the UNIX socket at SOCK. Asserts success. */
static inline void http_unix(const char *sock, const char *method, const char *path, struct http_reply *r) {
        char req[1024];
        int n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: xpud\r\nConnection: close\r\n\r\n", method, path);
        ck_assert_int_eq(http_exchange(http_connect_unix(sock), req, (size_t)n, r, 3000), 0);
}

/* The value of header NAME in R (case-insensitive name), copied to OUT; NULL when absent. */
static inline const char *http_header(const struct http_reply *r, const char *name, char *out, size_t size) {
        size_t nl = strlen(name);
        for (const char *p = strstr(r->head, "\r\n"); p; p = strstr(p + 2, "\r\n")) {
                const char *h = p + 2;
                if (strncasecmp(h, name, nl) == 0 && h[nl] == ':') {
                        h += nl + 1;
                        while (*h == ' ')
                                h++;
                        size_t l = strcspn(h, "\r");
                        if (l >= size)
                                l = size - 1;
                        memcpy(out, h, l);
                        out[l] = '\0';
                        return out;
                }
        }
        return NULL;
}
