/* SPDX-License-Identifier: Apache-2.0 */
/* loadgen: HTTP/1.1 keep-alive load over a UNIX stream socket (the xpud benchmark,
 * against xpud and nginx alike).
 *
 *   loadgen -s SOCKET [-c CLIENTS] [-t THREADS] [-d SECONDS] [-w SECONDS] [-p PATH] [-m BYTES]
 *           [-n NAME]
 *
 * CLIENTS connections (default 1) are opened to SOCKET and spread over THREADS threads (default
 * 1), each thread running one epoll loop (level-triggered, non-blocking sockets). Every
 * connection sends "GET PATH HTTP/1.1" (default /metrics, header "Host: bench"), reads the whole
 * answer and sends the next request at once: one request in flight per connection, never
 * pipelined. For the first -w seconds (default 1) answers are checked but not counted (warm-up);
 * then for -d seconds (default 5) every answer completed is counted and its latency recorded:
 * CLOCK_MONOTONIC from the first byte of the request written to the last byte of the body read,
 * in microseconds.
 *
 * An answer counts as good when its status is 200, it has a Content-Length (chunked bodies are
 * refused) and exactly that many body bytes arrive, no byte more, and the body has at least -m
 * bytes (default 1). Anything else is an error of one kind: "status" (not 200; the body is read
 * first), "short" (the server closed before the end of the body),
 * "small" (body under -m bytes), "protocol" (unparsable status line or headers, no
 * Content-Length, chunked, bytes after the body, headers over 16 KiB), "closed" (the server
 * closed a connection with a request outstanding and nothing read), "io" (a read or write
 * error), "connect" (connect failed; retried every 10 ms). After an error the connection is
 * closed and opened again. A server's "Connection: close" is obeyed and counted as a reconnect,
 * not an error.
 *
 * Output: one line for people, then one for scripts:
 *   RESULT name=NAME clients=N threads=N duration_s=F requests=N rps=F p50_us=F p90_us=F p99_us=F
 *          mean_us=F max_us=F errors=N reconnects=N body_min=N body_max=N cpu_pct=F
 * (one line; cpu_pct is loadgen's own user + system time during the measured seconds, in percent
 * of one CPU, so a run where the load generator itself was the limit shows it). Error kinds with a
 * count above 0 are printed on stderr.
 * Exit status: 0; 1 when any error happened or nothing was answered; 2 on bad usage or when the
 * first connections cannot be made. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "stats.h"

#include "base/macro.h"
#include "base/str.h"

#define CLIENTS_MAX 4096
#define THREADS_MAX 64
#define HEAD_MAX (16 * 1024) /* status line + headers of one answer */
#define READ_CHUNK (256 * 1024)
#define CONNECT_RETRY_US 10000.0
#define LATENCIES_MAX (64u * 1024 * 1024) /* recorded samples per thread (512 MiB of doubles) */

enum err_kind { E_STATUS, E_SHORT, E_SMALL, E_PROTOCOL, E_CLOSED, E_IO, E_CONNECT, _E_MAX };
static const char *const err_names[_E_MAX] = {
        [E_STATUS] = "status", [E_SHORT] = "short", [E_SMALL] = "small", [E_PROTOCOL] = "protocol",
        [E_CLOSED] = "closed", [E_IO] = "io",       [E_CONNECT] = "connect",
};

struct config {
        const char *socket_path;
        const char *path;
        const char *name;
        unsigned clients, threads;
        double duration_s, warmup_s;
        uint64_t min_body;
        char request[512];
        size_t request_len;
        /* Phase boundaries on CLOCK_MONOTONIC, microseconds; set before the threads start. */
        double t_measure, t_end;
};

enum conn_state { C_CONNECT, C_SEND, C_HEAD, C_BODY };

struct conn {
        int fd;                 /* -1 while (re)connecting */
        enum conn_state state;
        size_t sent;            /* request bytes written */
        char head[HEAD_MAX + 1];
        size_t head_len;
        uint64_t body_len, body_left;
        int status;
        bool close_after;       /* "Connection: close" */
        double t_sent;          /* when the request's first byte was written */
        double retry_at;        /* C_CONNECT: not before */
};

struct worker {
        const struct config *cfg;
        struct conn *conns;
        size_t n_conns;
        int ep;
        pthread_t thread;
        double *lat;            /* latencies of the measured answers, microseconds */
        size_t n_lat, cap_lat;
        uint64_t done;          /* good answers completed in the measured window */
        uint64_t errors[_E_MAX];
        uint64_t reconnects;
        uint64_t body_min, body_max;
        int fail;               /* -errno of a fatal set-up or memory failure */
};

/* Open one connection to the socket: a blocking connect (it waits for room in a full listen
 * backlog, at most 5 s), then non-blocking. Returns the fd or -errno. */
static int connect_unix(const char *path) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        if (xpu_strlcpy(sa.sun_path, path, sizeof sa.sun_path) < 0)
                return -ENAMETOOLONG;
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        struct timeval tv = { .tv_sec = 5 };
        (void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
                return negative_errno();
        int fl = fcntl(fd, F_GETFL);
        if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
                return negative_errno();
        return TAKE_FD(fd);
}

static void conn_close(struct worker *w, struct conn *c) {
        if (c->fd >= 0) {
                (void)epoll_ctl(w->ep, EPOLL_CTL_DEL, c->fd, NULL);
                close(c->fd);
        }
        c->fd = -1;
        c->state = C_CONNECT;
        c->retry_at = 0;
}

static void conn_error(struct worker *w, struct conn *c, enum err_kind k) {
        w->errors[k]++;
        conn_close(w, c);
}

/* Write (the rest of) the request; wait for EPOLLOUT when the socket is full. Returns 0 or -1
 * after an error (connection closed). */
static int conn_send(struct worker *w, struct conn *c, double now) {
        const struct config *cfg = w->cfg;
        if (c->state != C_SEND) {
                c->state = C_SEND;
                c->sent = 0;
                c->t_sent = now;
        }
        while (c->sent < cfg->request_len) {
                ssize_t n = write(c->fd, cfg->request + c->sent, cfg->request_len - c->sent);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN) {
                        struct epoll_event ev = { .events = EPOLLOUT, .data.ptr = c };
                        (void)epoll_ctl(w->ep, EPOLL_CTL_MOD, c->fd, &ev);
                        return 0;
                }
                if (n <= 0) {
                        conn_error(w, c, E_IO);
                        return -1;
                }
                c->sent += (size_t)n;
        }
        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
        (void)epoll_ctl(w->ep, EPOLL_CTL_MOD, c->fd, &ev);
        c->state = C_HEAD;
        c->head_len = 0;
        return 0;
}

/* (Re)connect C and send its first request. */
static void conn_open(struct worker *w, struct conn *c, double now) {
        int fd = connect_unix(w->cfg->socket_path);
        if (fd < 0) {
                w->errors[E_CONNECT]++;
                c->retry_at = now + CONNECT_RETRY_US;
                return;
        }
        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
        if (epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
                close(fd);
                w->errors[E_IO]++;
                c->retry_at = now + CONNECT_RETRY_US;
                return;
        }
        c->fd = fd;
        (void)conn_send(w, c, now);
}

static int record(struct worker *w, double us) {
        if (w->n_lat == w->cap_lat) {
                size_t cap = w->cap_lat ? w->cap_lat * 2 : 65536;
                if (cap > LATENCIES_MAX)
                        return -ENOMEM;
                double *p = realloc(w->lat, cap * sizeof(double));
                if (!p)
                        return -ENOMEM;
                w->lat = p;
                w->cap_lat = cap;
        }
        w->lat[w->n_lat++] = us;
        return 0;
}

/* Parse the status line and headers in c->head (NUL-terminated, ending in the blank line).
 * Returns 0, or -1 for an answer this tool does not accept. */
static int parse_head(struct conn *c) {
        char *line = c->head, *eol = strstr(line, "\r\n");
        int status = 0;
        bool have_length = false;

        if (!eol || strncmp(line, "HTTP/1.", 7) != 0 || (line[7] != '0' && line[7] != '1') || line[8] != ' ')
                return -1;
        for (int i = 9; i < 12; i++) {
                if (line[i] < '0' || line[i] > '9')
                        return -1;
                status = status * 10 + (line[i] - '0');
        }
        c->status = status;
        c->close_after = line[7] == '0'; /* HTTP/1.0 closes unless told otherwise */
        for (line = eol + 2; (eol = strstr(line, "\r\n")) && eol != line; line = eol + 2) {
                *eol = '\0';
                char *colon = strchr(line, ':');
                if (!colon)
                        return -1;
                char *v = colon + 1;
                v += strspn(v, " \t");
                size_t klen = (size_t)(colon - line);
                if (klen == 14 && strncasecmp(line, "content-length", 14) == 0) {
                        v[strcspn(v, " \t")] = '\0';
                        if (have_length || xpu_parse_u64(v, 10, &c->body_len) < 0)
                                return -1;
                        have_length = true;
                } else if (klen == 17 && strncasecmp(line, "transfer-encoding", 17) == 0) {
                        return -1;
                } else if (klen == 10 && strncasecmp(line, "connection", 10) == 0) {
                        if (strcasestr(v, "close"))
                                c->close_after = true;
                        else if (strcasestr(v, "keep-alive"))
                                c->close_after = false;
                }
        }
        if (!have_length)
                return -1;
        c->body_left = c->body_len;
        return 0;
}

/* One answer is complete: count it, then send the next request (or reconnect). */
static void conn_complete(struct worker *w, struct conn *c, double now) {
        const struct config *cfg = w->cfg;
        if (c->status != 200) {
                w->errors[E_STATUS]++;
        } else if (c->body_len < cfg->min_body) {
                w->errors[E_SMALL]++;
        } else {
                if (w->body_min == 0 || c->body_len < w->body_min)
                        w->body_min = c->body_len;
                if (c->body_len > w->body_max)
                        w->body_max = c->body_len;
                if (now >= cfg->t_measure && now < cfg->t_end) {
                        w->done++;
                        if (record(w, now - c->t_sent) < 0)
                                w->fail = -ENOMEM;
                }
        }
        if (c->close_after || c->status != 200 || c->body_len < cfg->min_body) {
                if (c->close_after)
                        w->reconnects++;
                conn_close(w, c);
                if (now < cfg->t_end)
                        conn_open(w, c, now);
                return;
        }
        if (now < cfg->t_end)
                (void)conn_send(w, c, now);
}

/* Feed N bytes read from C's socket through its answer parser. */
static void conn_feed(struct worker *w, struct conn *c, const char *buf, size_t n, double now) {
        while (n > 0) {
                if (c->state == C_HEAD) {
                        size_t take = HEAD_MAX - c->head_len;
                        if (take == 0) {
                                conn_error(w, c, E_PROTOCOL);
                                return;
                        }
                        if (take > n)
                                take = n;
                        size_t from = c->head_len > 3 ? c->head_len - 3 : 0;
                        memcpy(c->head + c->head_len, buf, take);
                        c->head_len += take;
                        c->head[c->head_len] = '\0';
                        char *end = memmem(c->head + from, c->head_len - from, "\r\n\r\n", 4);
                        if (!end) {
                                buf += take;
                                n -= take;
                                continue;
                        }
                        size_t used = (size_t)(end + 4 - c->head) - (c->head_len - take);
                        end[2] = '\0'; /* keep the last header's CRLF for the line loop */
                        buf += used;
                        n -= used;
                        if (parse_head(c) < 0) {
                                conn_error(w, c, E_PROTOCOL);
                                return;
                        }
                        c->state = C_BODY;
                } else if (c->state == C_BODY) {
                        uint64_t take = c->body_left < n ? c->body_left : n;
                        c->body_left -= take;
                        buf += take;
                        n -= (size_t)take;
                } else {
                        conn_error(w, c, E_PROTOCOL); /* bytes nobody asked for */
                        return;
                }
                if (c->state == C_BODY && c->body_left == 0) {
                        if (n > 0) {
                                conn_error(w, c, E_PROTOCOL); /* more than Content-Length */
                                return;
                        }
                        conn_complete(w, c, now);
                        return;
                }
        }
}

static void conn_readable(struct worker *w, struct conn *c, char *buf) {
        for (;;) {
                ssize_t n = read(c->fd, buf, READ_CHUNK);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return;
                if (n < 0) {
                        conn_error(w, c, E_IO);
                        return;
                }
                if (n == 0) {
                        bool nothing = c->state == C_HEAD && c->head_len == 0;
                        conn_error(w, c, c->state == C_BODY ? E_SHORT : nothing ? E_CLOSED : E_PROTOCOL);
                        return;
                }
                double now = bench_now_us();
                conn_feed(w, c, buf, (size_t)n, now);
                if (c->fd < 0 || c->state == C_SEND || (c->state == C_HEAD && c->head_len == 0))
                        return; /* answer complete (next request sent) or connection closed */
        }
}

static void *worker_main(void *arg) {
        struct worker *w = arg;
        const struct config *cfg = w->cfg;
        _cleanup_free_ char *buf = malloc(READ_CHUNK);
        struct epoll_event evs[256];
        if (!buf) {
                w->fail = -ENOMEM;
                return NULL;
        }
        for (size_t i = 0; i < w->n_conns; i++)
                (void)conn_send(w, &w->conns[i], bench_now_us());

        for (;;) {
                double now = bench_now_us();
                if (now >= cfg->t_end || w->fail < 0)
                        break;
                for (size_t i = 0; i < w->n_conns; i++)
                        if (w->conns[i].fd < 0 && now >= w->conns[i].retry_at)
                                conn_open(w, &w->conns[i], now);
                int timeout_ms = (int)((cfg->t_end - now) / 1000.0) + 1;
                if (timeout_ms > 10)
                        timeout_ms = 10;
                int n = epoll_wait(w->ep, evs, (int)ELEMENTSOF(evs), timeout_ms);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        w->fail = negative_errno();
                        break;
                }
                for (int i = 0; i < n; i++) {
                        struct conn *c = evs[i].data.ptr;
                        if (c->fd < 0)
                                continue;
                        if (c->state == C_SEND)
                                (void)conn_send(w, c, bench_now_us());
                        else
                                conn_readable(w, c, buf);
                }
        }
        return NULL;
}

static double rusage_cpu_us(void) {
        struct rusage ru;
        if (getrusage(RUSAGE_SELF, &ru) < 0)
                return 0;
        return (double)ru.ru_utime.tv_sec * 1e6 + (double)ru.ru_utime.tv_usec +
               (double)ru.ru_stime.tv_sec * 1e6 + (double)ru.ru_stime.tv_usec;
}

/* Sleep until the monotonic time T (microseconds). */
static void sleep_until(double t) {
        for (double now = bench_now_us(); now < t; now = bench_now_us()) {
                long long ns = (long long)((t - now) * 1e3) + 1;
                struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000), .tv_nsec = (long)(ns % 1000000000) };
                nanosleep(&ts, NULL);
        }
}

static int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret) {
        uint64_t v;
        if (xpu_parse_u64(s, 10, &v) < 0 || v < min || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int parse_seconds(const char *s, double min, double *ret) {
        char *end = NULL;
        errno = 0;
        double v = strtod(s, &end);
        if (errno != 0 || end == s || *end != '\0' || !(v >= min) || v > 86400)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int usage(void) {
        fputs("usage: loadgen -s SOCKET [-c CLIENTS] [-t THREADS] [-d SECONDS] [-w SECONDS] [-p PATH] "
              "[-m BYTES] [-n NAME]\n",
              stderr);
        return 2;
}

int main(int argc, char **argv) {
        struct config cfg = { .path = "/metrics", .name = "loadgen", .clients = 1, .threads = 1,
                              .duration_s = 5, .warmup_s = 1, .min_body = 1 };
        uint64_t v;
        int opt;

        while ((opt = getopt(argc, argv, "s:c:t:d:w:p:m:n:")) != -1) {
                switch (opt) {
                case 's': cfg.socket_path = optarg; break;
                case 'p': cfg.path = optarg; break;
                case 'n': cfg.name = optarg; break;
                case 'c':
                        if (parse_uint(optarg, 1, CLIENTS_MAX, &v) < 0)
                                return usage();
                        cfg.clients = (unsigned)v;
                        break;
                case 't':
                        if (parse_uint(optarg, 1, THREADS_MAX, &v) < 0)
                                return usage();
                        cfg.threads = (unsigned)v;
                        break;
                case 'm':
                        if (parse_uint(optarg, 0, UINT64_MAX, &cfg.min_body) < 0)
                                return usage();
                        break;
                case 'd':
                        if (parse_seconds(optarg, 0.1, &cfg.duration_s) < 0)
                                return usage();
                        break;
                case 'w':
                        if (parse_seconds(optarg, 0, &cfg.warmup_s) < 0)
                                return usage();
                        break;
                default:
                        return usage();
                }
        }
        if (!cfg.socket_path || optind != argc || cfg.path[0] != '/' || strpbrk(cfg.path, " \r\n"))
                return usage();
        if (cfg.threads > cfg.clients)
                cfg.threads = cfg.clients;
        int len = snprintf(cfg.request, sizeof cfg.request, "GET %s HTTP/1.1\r\nHost: bench\r\n\r\n", cfg.path);
        if (len < 0 || (size_t)len >= sizeof cfg.request)
                return usage();
        cfg.request_len = (size_t)len;
        signal(SIGPIPE, SIG_IGN);

        _cleanup_free_ struct conn *conns = calloc(cfg.clients, sizeof(struct conn));
        _cleanup_free_ struct worker *ws = calloc(cfg.threads, sizeof(struct worker));
        if (!conns || !ws) {
                perror("loadgen");
                return 2;
        }
        /* Every connection is made before the clock starts; one that cannot be made is fatal. */
        for (unsigned i = 0; i < cfg.clients; i++) {
                conns[i].fd = connect_unix(cfg.socket_path);
                if (conns[i].fd < 0) {
                        fprintf(stderr, "loadgen: cannot connect to %s (client %u): %s\n", cfg.socket_path, i + 1,
                                strerror(-conns[i].fd));
                        for (unsigned j = 0; j < i; j++)
                                close(conns[j].fd);
                        return 2;
                }
        }
        for (unsigned t = 0; t < cfg.threads; t++) {
                struct worker *w = &ws[t];
                w->cfg = &cfg;
                w->conns = conns + (size_t)cfg.clients * t / cfg.threads;
                w->n_conns = (size_t)cfg.clients * (t + 1) / cfg.threads - (size_t)cfg.clients * t / cfg.threads;
                w->ep = epoll_create1(EPOLL_CLOEXEC);
                if (w->ep < 0) {
                        perror("loadgen: epoll_create1");
                        return 2;
                }
                for (size_t i = 0; i < w->n_conns; i++) {
                        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &w->conns[i] };
                        if (epoll_ctl(w->ep, EPOLL_CTL_ADD, w->conns[i].fd, &ev) < 0) {
                                perror("loadgen: epoll_ctl");
                                return 2;
                        }
                }
        }

        double t0 = bench_now_us();
        cfg.t_measure = t0 + cfg.warmup_s * 1e6;
        cfg.t_end = cfg.t_measure + cfg.duration_s * 1e6;
        for (unsigned t = 0; t < cfg.threads; t++) {
                int r = pthread_create(&ws[t].thread, NULL, worker_main, &ws[t]);
                if (r != 0) {
                        fprintf(stderr, "loadgen: pthread_create: %s\n", strerror(r));
                        return 2;
                }
        }
        sleep_until(cfg.t_measure);
        double cpu0 = rusage_cpu_us();
        sleep_until(cfg.t_end);
        double cpu1 = rusage_cpu_us();

        uint64_t done = 0, errors[_E_MAX] = { 0 }, errors_total = 0, reconnects = 0, body_min = 0, body_max = 0;
        size_t n_lat = 0;
        int fail = 0;
        for (unsigned t = 0; t < cfg.threads; t++) {
                struct worker *w = &ws[t];
                pthread_join(w->thread, NULL);
                done += w->done;
                reconnects += w->reconnects;
                n_lat += w->n_lat;
                for (int k = 0; k < _E_MAX; k++)
                        errors[k] += w->errors[k];
                if (w->body_min && (!body_min || w->body_min < body_min))
                        body_min = w->body_min;
                if (w->body_max > body_max)
                        body_max = w->body_max;
                if (w->fail < 0)
                        fail = w->fail;
        }
        for (unsigned t = 0; t < cfg.threads; t++) {
                for (size_t i = 0; i < ws[t].n_conns; i++)
                        if (ws[t].conns[i].fd >= 0)
                                close(ws[t].conns[i].fd);
                close(ws[t].ep);
        }
        for (int k = 0; k < _E_MAX; k++)
                errors_total += errors[k];

        _cleanup_free_ double *lat = malloc((n_lat ? n_lat : 1) * sizeof(double));
        if (!lat || fail < 0) {
                fprintf(stderr, "loadgen: %s\n", strerror(fail < 0 ? -fail : ENOMEM));
                for (unsigned t = 0; t < cfg.threads; t++)
                        free(ws[t].lat);
                return 2;
        }
        double sum = 0;
        size_t k = 0;
        for (unsigned t = 0; t < cfg.threads; t++) {
                for (size_t i = 0; i < ws[t].n_lat; i++) {
                        lat[k++] = ws[t].lat[i];
                        sum += ws[t].lat[i];
                }
                free(ws[t].lat);
        }
        double p50 = 0, p90 = 0, p99 = 0, mean = 0, max = 0;
        if (n_lat > 0) {
                bench_sort(lat, n_lat);
                p50 = bench_percentile(lat, n_lat, 0.50);
                p90 = bench_percentile(lat, n_lat, 0.90);
                p99 = bench_percentile(lat, n_lat, 0.99);
                mean = sum / (double)n_lat;
                max = lat[n_lat - 1];
        }
        double rps = (double)done / cfg.duration_s;
        double cpu_pct = (cpu1 - cpu0) / (cfg.duration_s * 1e6) * 100.0;

        printf("%s: %u clients, %u threads, %.1f s after %.1f s warm-up: %" PRIu64 " requests, %.0f req/s; "
               "latency p50 %.1f us, p90 %.1f us, p99 %.1f us, max %.1f us; errors %" PRIu64 ", reconnects %" PRIu64
               "; body %" PRIu64 "..%" PRIu64 " bytes; loadgen CPU %.0f %%\n",
               cfg.name, cfg.clients, cfg.threads, cfg.duration_s, cfg.warmup_s, done, rps, p50, p90, p99, max,
               errors_total, reconnects, body_min, body_max, cpu_pct);
        printf("RESULT name=%s clients=%u threads=%u duration_s=%.3f requests=%" PRIu64 " rps=%.1f p50_us=%.1f "
               "p90_us=%.1f p99_us=%.1f mean_us=%.1f max_us=%.1f errors=%" PRIu64 " reconnects=%" PRIu64
               " body_min=%" PRIu64 " body_max=%" PRIu64 " cpu_pct=%.1f\n",
               cfg.name, cfg.clients, cfg.threads, cfg.duration_s, done, rps, p50, p90, p99, mean, max, errors_total,
               reconnects, body_min, body_max, cpu_pct);
        for (int e = 0; e < _E_MAX; e++)
                if (errors[e])
                        fprintf(stderr, "loadgen: %s: %" PRIu64 " %s error(s)\n", cfg.name, errors[e], err_names[e]);
        return errors_total == 0 && done > 0 ? 0 : 1;
}
