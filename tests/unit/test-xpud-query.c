/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/query.c: the answer parser (status line, Content-Length, chunked, to the end, and every
 * malformed shape), the healthy verdict behind `xpud query`'s exit status, the command line of
 * `xpud query`, and whole exchanges with a canned server on a UNIX socket (an answer in pieces,
 * a closed connection without answer, no socket). The same client against the real server is in
 * tests/e2e/xpud-server.sh. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "base/macro.h"
#include "query.h"
#include "testlib.h"
#include "xpud-options.h"

#define S(x) x, sizeof(x) - 1

START_TEST(test_parse) {
        static const struct {
                const char *what, *in;
                int ret, status;
                const char *body;
        } cases[] = {
                { "content-length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 0, 200, "hello" },
                { "content-length shorter than the data", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhello", 0, 200,
                  "he" },
                { "field name case", "HTTP/1.1 503 Service Unavailable\r\ncontent-length:  3 \r\n\r\nabc", 0, 503,
                  "abc" },
                { "to the end", "HTTP/1.0 200 OK\r\nX: y\r\n\r\nall of it\n", 0, 200, "all of it\n" },
                { "bare LF", "HTTP/1.1 404 Not Found\nContent-Length: 2\n\n{}", 0, 404, "{}" },
                { "no reason phrase", "HTTP/1.1 200\r\n\r\nx", 0, 200, "x" },
                { "chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n1;ext=1\r\n!\r\n0\r\n\r\n",
                  0, 200, "hello!" },
                { "chunked wins over content-length",
                  "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: Chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n", 0, 200,
                  "ab" },
                { "empty", "", -EBADMSG, 0, NULL },
                { "not HTTP", "SSH-2.0-OpenSSH_9.2\r\n", -EBADMSG, 0, NULL },
                { "HTTP/2", "HTTP/2.0 200 OK\r\n\r\n", -EBADMSG, 0, NULL },
                { "status letters", "HTTP/1.1 2x0 OK\r\n\r\n", -EBADMSG, 0, NULL },
                { "status too long", "HTTP/1.1 2000 OK\r\n\r\n", -EBADMSG, 0, NULL },
                { "status below 100", "HTTP/1.1 099 Hm\r\n\r\n", -EBADMSG, 0, NULL },
                { "headers without end", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", -EBADMSG, 0, NULL },
                { "body shorter than content-length", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nhello", -EBADMSG, 0,
                  NULL },
                { "content-length not a number", "HTTP/1.1 200 OK\r\nContent-Length: 5x\r\n\r\nhello", -EBADMSG, 0,
                  NULL },
                { "content-length negative", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nhello", -EBADMSG, 0, NULL },
                { "content-length empty", "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\nhello", -EBADMSG, 0, NULL },
                { "other transfer coding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nxx", -EBADMSG, 0, NULL },
                { "chunk size not hex", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n",
                  -EBADMSG, 0, NULL },
                { "chunk longer than the data", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nff\r\nab\r\n",
                  -EBADMSG, 0, NULL },
                { "chunk without CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n0\r\n\r\n",
                  -EBADMSG, 0, NULL },
                { "no last chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n", -EBADMSG, 0,
                  NULL },
                { "chunk size overflows", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n",
                  -EBADMSG, 0, NULL },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct xpud_query_response r = { .status = -1 };
                /* A copy without a terminating NUL: the parser must keep to LEN. */
                size_t len = strlen(cases[i].in);
                char *buf = malloc(len ? len : 1);
                ck_assert_ptr_nonnull(buf);
                memcpy(buf, cases[i].in, len);
                int ret = xpud_query_parse_response(buf, len, &r);
                ck_assert_msg(ret == cases[i].ret, "%s: %d, want %d", cases[i].what, ret, cases[i].ret);
                if (ret == 0) {
                        ck_assert_msg(r.status == cases[i].status, "%s: status %d", cases[i].what, r.status);
                        ck_assert_msg(r.body_len == strlen(cases[i].body) &&
                                              memcmp(r.body, cases[i].body, r.body_len) == 0,
                                      "%s: body \"%.*s\"", cases[i].what, (int)r.body_len, r.body);
                }
                xpud_query_response_done(&r);
                ck_assert_ptr_null(r.body);
                free(buf);
        }
}
END_TEST

START_TEST(test_healthy) {
        static const struct {
                int status;
                const char *body;
                bool healthy;
        } cases[] = {
                { 200, "{\"status\":\"healthy\",\"devices\":[]}", true },
                { 200, "{\"status\":\"ok\"}", true },
                { 200, "{\"status\":\"ready\"}", true },
                { 200, "{\"status\":\"degraded\"}", false },
                { 200, "{\"status\":\"unhealthy\"}", false },
                { 200, "{\"status\":\"unknown\"}", false },
                { 200, "{\"status\":\"Healthy\"}", false },
                { 200, "{\"status\":7}", true },          /* not a verdict: the answer itself counts */
                { 200, "[{\"status\":\"unhealthy\"}]", true }, /* only a top-level object is read */
                { 200, "# HELP xpu_info x\nxpu_info 1\n", true },
                { 200, "", true },
                { 204, "", true },
                { 503, "{\"status\":\"ready\"}", false },
                { 404, "{\"error\":\"not found\",\"status\":404}", false },
                { 301, "", false },
                { 200, "{\"status\":\"healthy\"} \n", true },
                { 200, "{\"status\":\"healthy\"}{\"status\":\"unhealthy\"}", false }, /* two values */
                { 200, "{\"status\":\"healthy\"} x", false },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct xpud_query_response r = { .status = cases[i].status, .body = cases[i].body,
                                                 .body_len = strlen(cases[i].body) };
                ck_assert_msg(xpud_query_is_healthy(&r) == cases[i].healthy, "%d %s", cases[i].status, cases[i].body);
        }
        /* A NUL hides what follows it from a JSON parser: no healthy answer. */
        static const char nul[] = "{\"status\":\"healthy\"}\0{\"status\":\"unhealthy\"}";
        struct xpud_query_response r = { .status = 200, .body = nul, .body_len = sizeof nul - 1 };
        ck_assert(!xpud_query_is_healthy(&r));
}
END_TEST

static int parse(struct xpud_options *o, char *err, size_t size, const char *const *args) {
        char *argv[16] = { (char *)"xpud" };
        int argc = 1;
        for (; args[argc - 1]; argc++)
                argv[argc] = (char *)args[argc - 1];
        argv[argc] = NULL;
        err[0] = '\0';
        *o = (struct xpud_options){ 0 };
        return xpud_options_parse(argc, argv, o, err, size);
}

#define PARSE(o, err, ...) parse(o, err, sizeof err, (const char *const[]){ __VA_ARGS__, NULL })

START_TEST(test_options) {
        struct xpud_options o;
        char err[256];
        ck_assert_int_eq(PARSE(&o, err, "query"), 0);
        ck_assert_int_eq(o.action, XPUD_ACTION_QUERY);
        ck_assert_str_eq(o.socket_path, XPUD_SOCKET_DEFAULT);
        ck_assert_str_eq(o.query_path, "/v1/health");
        ck_assert_int_eq(PARSE(&o, err, "query", "--socket", "/tmp/x.sock", "/metrics"), 0);
        ck_assert_str_eq(o.socket_path, "/tmp/x.sock");
        ck_assert_str_eq(o.query_path, "/metrics");
        ck_assert_int_eq(PARSE(&o, err, "query", "--socket=/tmp/y.sock", "-v", "/readyz"), 0);
        ck_assert_str_eq(o.socket_path, "/tmp/y.sock");
        ck_assert_str_eq(o.query_path, "/readyz");
        ck_assert_int_eq(o.log_level, XPU_LOG_INFO);
        ck_assert_int_eq(PARSE(&o, err, "query", "--help"), 0);
        ck_assert_int_eq(o.action, XPUD_ACTION_HELP);
        ck_assert_ptr_nonnull(o.query_path); /* main prints the query's help, not xpud's */
        ck_assert_int_eq(PARSE(&o, err, "--help"), 0);
        ck_assert_ptr_null(o.query_path);

        static const struct {
                const char *args[4];
                const char *message;
        } bad[] = {
                { { "query", "v1/health" }, "xpud query: \"v1/health\" is not an endpoint path" },
                { { "query", "/v1 /health" }, "xpud query: \"/v1 /health\" is not an endpoint path" },
                { { "query", "/a", "/b" }, "xpud query: unexpected argument \"/b\"" },
                { { "query", "--interval", "5" }, "unknown option \"--interval\" of xpud query" },
                { { "query", "--socket" }, "option --socket needs a value; see xpud query --help" },
                { { "query", "--socket", "" }, "--socket: empty path" },
                { { "query", "--log-level", "loud" }, "--log-level: unknown level \"loud\"" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                ck_assert_int_eq(parse(&o, err, sizeof err, bad[i].args), -EINVAL);
                ck_assert_msg(strstr(err, bad[i].message) == err, "got \"%s\", want \"%s...\"", err, bad[i].message);
        }
}
END_TEST

/* ---- whole exchanges with a canned server ---------------------------------------------------- */

struct canned {
        char dir[64], path[128];
        pid_t pid;
};

/* A piece that makes the server hold the connection open until the client closes it. */
#define HOLD "<hold>"

/* A server on a UNIX socket in a new directory that accepts one connection, reads the request
 * into DIR/request, writes each of PIECES (NULL-terminated) with a pause between, and closes. */
static void canned_start(struct canned *c, const char *const *pieces) {
        snprintf(c->dir, sizeof c->dir, "/tmp/xpud-query-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(c->dir));
        snprintf(c->path, sizeof c->path, "%s/s", c->dir);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        memcpy(sa.sun_path, c->path, strlen(c->path) + 1);
        ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
        ck_assert_int_eq(listen(fd, 1), 0);
        c->pid = fork();
        ck_assert_int_ge(c->pid, 0);
        if (c->pid == 0) {
                alarm(10);
                int cfd = accept(fd, NULL, NULL);
                char req[2048];
                ssize_t n = read(cfd, req, sizeof req);
                char rpath[192];
                snprintf(rpath, sizeof rpath, "%s/request", c->dir);
                FILE *f = fopen(rpath, "w");
                if (f && n > 0)
                        fwrite(req, 1, (size_t)n, f);
                if (f)
                        fclose(f);
                for (size_t i = 0; pieces[i]; i++) {
                        if (strcmp(pieces[i], HOLD) == 0) { /* keep the connection until the client closes it */
                                char b;
                                while (read(cfd, &b, 1) > 0)
                                        ;
                                continue;
                        }
                        if (write(cfd, pieces[i], strlen(pieces[i])) < 0)
                                _exit(1);
                        usleep(20000);
                }
                close(cfd);
                _exit(0);
        }
        close(fd);
}

static void canned_done(struct canned *c, char *request, size_t size) {
        int status;
        ck_assert_int_eq(waitpid(c->pid, &status, 0), c->pid);
        ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        char rpath[192];
        snprintf(rpath, sizeof rpath, "%s/request", c->dir);
        FILE *f = fopen(rpath, "r");
        size_t n = f ? fread(request, 1, size - 1, f) : 0;
        request[n] = '\0';
        if (f)
                fclose(f);
        unlink(rpath);
        unlink(c->path);
        rmdir(c->dir);
}

/* xpud_query against PIECES: its exit status, its output in OUT. */
static int query(const char *const *pieces, const char *path, char *out, size_t out_size, char *req, size_t req_size) {
        struct canned c;
        canned_start(&c, pieces);
        FILE *f = tmpfile();
        ck_assert_ptr_nonnull(f);
        int rc = xpud_query(c.path, path, f);
        rewind(f);
        size_t n = fread(out, 1, out_size - 1, f);
        out[n] = '\0';
        fclose(f);
        canned_done(&c, req, req_size);
        return rc;
}

START_TEST(test_exchange) {
        char out[256], req[2048];
        /* An answer in pieces, split inside the headers and inside a chunk. */
        const char *const chunked[] = { "HTTP/1.1 200 OK\r\nTransfer-", "Encoding: chunked\r\n\r\n1a\r\n{\"status\":",
                                        "\"healthy\",\"x\":1}\r\n0\r\n\r\n", NULL };
        ck_assert_int_eq(query(chunked, "/v1/health", out, sizeof out, req, sizeof req), 0);
        ck_assert_str_eq(out, "{\"status\":\"healthy\",\"x\":1}\n"); /* a newline added */
        ck_assert_msg(strncmp(req, "GET /v1/health HTTP/1.1\r\n", 25) == 0, "request: %s", req);
        ck_assert_ptr_nonnull(strstr(req, "\r\nHost: xpud\r\n"));
        ck_assert_ptr_nonnull(strstr(req, "\r\nConnection: close\r\n\r\n"));

        const char *const degraded[] = { "HTTP/1.1 200 OK\r\nContent-Length: 22\r\n\r\n{\"status\":\"degraded\"}\n",
                                         NULL };
        ck_assert_int_eq(query(degraded, "/v1/health", out, sizeof out, req, sizeof req), 1);
        ck_assert_str_eq(out, "{\"status\":\"degraded\"}\n");

        const char *const notfound[] = { "HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\n{}", NULL };
        ck_assert_int_eq(query(notfound, "/nope", out, sizeof out, req, sizeof req), 1);
        ck_assert_str_eq(out, "{}\n");

        /* A complete Content-Length answer on a connection the server keeps open: taken at once
         * (the server waits for our close: waiting for its close would time out, exit 1). */
        const char *const held[] = { "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n{\"status\":\"healthy\"}", HOLD,
                                     NULL };
        ck_assert_int_eq(query(held, "/v1/health", out, sizeof out, req, sizeof req), 0);
        ck_assert_str_eq(out, "{\"status\":\"healthy\"}\n");
        /* An interim 100 Continue before the final answer. */
        const char *const interim[] = { "HTTP/1.1 100 Continue\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n"
                                        "{\"status\":\"ok\"}", HOLD, NULL };
        ck_assert_int_eq(query(interim, "/healthz", out, sizeof out, req, sizeof req), 0);
        ck_assert_str_eq(out, "{\"status\":\"ok\"}\n");

        /* Closed without a word (as xpud does for a peer it refuses before answering). */
        const char *const nothing[] = { NULL };
        ck_assert_int_eq(query(nothing, "/v1/health", out, sizeof out, req, sizeof req), 1);
        ck_assert_str_eq(out, "");

        const char *const garbage[] = { "220 smtp.example ESMTP\r\n", NULL };
        ck_assert_int_eq(query(garbage, "/v1/health", out, sizeof out, req, sizeof req), 1);
        ck_assert_str_eq(out, "");

        /* No socket there. */
        FILE *f = tmpfile();
        ck_assert_int_eq(xpud_query("/tmp/xpud-query-none/does-not-exist.sock", "/v1/health", f), 1);
        ck_assert_int_eq(ftell(f), 0);
        fclose(f);
}
END_TEST

static Suite *query_suite(void) {
        Suite *s = suite_create("xpud-query");
        TCase *tc = tcase_create("query");
        tcase_add_test(tc, test_parse);
        tcase_add_test(tc, test_healthy);
        tcase_add_test(tc, test_options);
        tcase_add_test(tc, test_exchange);
        tcase_set_timeout(tc, 30);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        signal(SIGPIPE, SIG_IGN);
        return xpu_test_run(query_suite());
}
