/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/server.c: route dispatch, error bodies, the HTTP server over a real UNIX socket (status
 * codes, content types, HEAD, 404/405/400/403/503, one render per snapshot, the TCP listener
 * serving /metrics only, the per-uid connection cap) on the model's snapshots (xpud-fixture.h).
 * Peer checks against other uids need root (setresuid in a child): without it those tests fail
 * loudly. */
#include <arpa/inet.h>
#include <cJSON.h>
#include <errno.h>
#include <grp.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "auth.h"
#include "render-json.h"
#include "server.h"
#include "snapshot.h"
#include "testlib.h"
#include "xpud-fixture.h"
#include "xpud-http-test.h"

/* The snapshots served are the model's own (daemon/snapshot.c) built by xpud-fixture.h: 4
 * devices, the bodies rendered by render-json.c and render-prom.c. The server must hand out
 * exactly what xpud_route_body() and xpud_render_device_json() give, and render nothing
 * itself. */

/* ---- pure parts ---------------------------------------------------------------------------------- */

START_TEST(test_route_table) {
        static const struct {
                const char *method, *url;
                bool tcp;
                unsigned status;
                enum xpud_target target;
                enum xpud_route route;
                const char *key;
        } cases[] = {
                { "GET", "/healthz", false, 200, XPUD_TARGET_HEALTHZ, 0, NULL },
                { "HEAD", "/healthz", false, 200, XPUD_TARGET_HEALTHZ, 0, NULL },
                { "GET", "/readyz", false, 200, XPUD_TARGET_READYZ, 0, NULL },
                { "GET", "/metrics", false, 200, XPUD_TARGET_CACHED, XPUD_ROUTE_METRICS, NULL },
                { "GET", "/v1/version", false, 200, XPUD_TARGET_CACHED, XPUD_ROUTE_VERSION, NULL },
                { "GET", "/v1/devices", false, 200, XPUD_TARGET_CACHED, XPUD_ROUTE_DEVICES, NULL },
                { "GET", "/v1/health", false, 200, XPUD_TARGET_CACHED, XPUD_ROUTE_HEALTH, NULL },
                { "GET", "/v1/events", false, 200, XPUD_TARGET_CACHED, XPUD_ROUTE_EVENTS, NULL },
                { "GET", "/v1/devices/0", false, 200, XPUD_TARGET_DEVICE, 0, "0" },
                { "GET", "/v1/devices/GPU-307dcc96-618a-4416-c1ef-87823c2e1a31", false, 200, XPUD_TARGET_DEVICE, 0,
                  "GPU-307dcc96-618a-4416-c1ef-87823c2e1a31" },
                { "HEAD", "/v1/devices/0000:3b:00.0", false, 200, XPUD_TARGET_DEVICE, 0, "0000:3b:00.0" },
                /* The absolute form (RFC 9112 §3.2.2): scheme and authority ignored. */
                { "GET", "http://xpud/metrics", false, 200, XPUD_TARGET_CACHED, XPUD_ROUTE_METRICS, NULL },
                { "GET", "HTTP://127.0.0.1:9400/metrics", true, 200, XPUD_TARGET_CACHED, XPUD_ROUTE_METRICS, NULL },
                { "GET", "http://xpud/v1/devices/0", false, 200, XPUD_TARGET_DEVICE, 0, "0" },
                { "GET", "http://xpud", false, 404, 0, 0, NULL },
                { "GET", "metrics", false, 404, 0, 0, NULL },
                /* Unknown paths, whatever the method. */
                { "GET", "/", false, 404, 0, 0, NULL },
                { "GET", "", false, 404, 0, 0, NULL },
                { "GET", "/HEALTHZ", false, 404, 0, 0, NULL },
                { "GET", "/metrics/", false, 404, 0, 0, NULL },
                { "GET", "/v1/devices/", false, 404, 0, 0, NULL },
                { "GET", "/v1/devices/0/x", false, 404, 0, 0, NULL },
                { "GET", "/v1/devices/a b", false, 200, XPUD_TARGET_DEVICE, 0, "a b" },
                { "GET", "/v1/devices/\001", false, 404, 0, 0, NULL },
                { "POST", "/nope", false, 404, 0, 0, NULL },
                /* Known paths, other methods. */
                { "POST", "/metrics", false, 405, 0, 0, NULL },
                { "PUT", "/v1/devices", false, 405, 0, 0, NULL },
                { "DELETE", "/v1/devices/0", false, 405, 0, 0, NULL },
                { "get", "/healthz", false, 405, 0, 0, NULL },
                { "OPTIONS", "/healthz", false, 405, 0, 0, NULL },
                /* The TCP listener: /metrics and nothing else. */
                { "GET", "/metrics", true, 200, XPUD_TARGET_CACHED, XPUD_ROUTE_METRICS, NULL },
                { "HEAD", "/metrics", true, 200, XPUD_TARGET_CACHED, XPUD_ROUTE_METRICS, NULL },
                { "POST", "/metrics", true, 405, 0, 0, NULL },
                { "GET", "/healthz", true, 404, 0, 0, NULL },
                { "GET", "/v1/devices", true, 404, 0, 0, NULL },
                { "GET", "/v1/devices/0", true, 404, 0, 0, NULL },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct xpud_request r = { .target = 99 };
                unsigned st = xpud_route_parse(cases[i].method, cases[i].url, cases[i].tcp, &r);
                ck_assert_msg(st == cases[i].status, "%s %s (tcp %d): %u, want %u", cases[i].method, cases[i].url,
                              cases[i].tcp, st, cases[i].status);
                if (st != 200) {
                        ck_assert_int_eq(r.target, 99); /* untouched */
                        continue;
                }
                ck_assert_int_eq(r.target, cases[i].target);
                if (r.target == XPUD_TARGET_CACHED)
                        ck_assert_int_eq(r.route, cases[i].route);
                if (cases[i].key)
                        ck_assert_str_eq(r.key, cases[i].key);
        }
        /* A device key longer than XPUD_DEVICE_KEY_MAX is not looked up. */
        char url[128];
        snprintf(url, sizeof url, "/v1/devices/%0*d", XPUD_DEVICE_KEY_MAX + 1, 0);
        struct xpud_request r;
        ck_assert_uint_eq(xpud_route_parse("GET", url, false, &r), 404);
        url[strlen(url) - 1] = '\0';
        ck_assert_uint_eq(xpud_route_parse("GET", url, false, &r), 200);
        ck_assert_uint_eq(strlen(r.key), XPUD_DEVICE_KEY_MAX);
        ck_assert_uint_eq(xpud_route_parse(NULL, "/healthz", false, &r), 404);
        ck_assert_uint_eq(xpud_route_parse("GET", NULL, false, &r), 404);
}
END_TEST

/* Parse an error body and check both fields. */
static void assert_error_body(const char *body, unsigned status, const char *message_part) {
        cJSON *j = cJSON_Parse(body);
        ck_assert_msg(j != NULL, "not JSON: %s", body);
        ck_assert_int_eq(cJSON_GetArraySize(j), 2);
        cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error"), *s = cJSON_GetObjectItemCaseSensitive(j, "status");
        ck_assert(cJSON_IsString(e));
        ck_assert(cJSON_IsNumber(s));
        ck_assert_int_eq(s->valueint, (int)status);
        ck_assert_msg(strstr(e->valuestring, message_part), "\"%s\" lacks \"%s\"", e->valuestring, message_part);
        cJSON_Delete(j);
}

START_TEST(test_error_json) {
        size_t len = 0;
        char *s = xpud_error_json(404, "not found", &len);
        ck_assert_str_eq(s, "{\"error\":\"not found\",\"status\":404}");
        ck_assert_uint_eq(len, strlen(s));
        free(s);
        /* Quotes, backslashes and control characters come out escaped: still one valid object. */
        s = xpud_error_json(400, "bad \"x\"\\\n\001", &len);
        ck_assert_str_eq(s, "{\"error\":\"bad \\\"x\\\"\\\\\\n\\u0001\",\"status\":400}");
        assert_error_body(s, 400, "bad \"x\"\\\n\001");
        free(s);
}
END_TEST

/* ---- the server on a real socket ------------------------------------------------------------------ */

struct fixture {
        char *dir;
        char sock[256];
        int fd;
        struct xpud_store store;
        struct xpud_auth auth;
        struct xpud_server *srv;
        int tcp_fd;
        unsigned short tcp_port;
};

static int listen_unix(const char *path) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        ck_assert_uint_lt(strlen(path), sizeof sa.sun_path);
        memcpy(sa.sun_path, path, strlen(path) + 1);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
        ck_assert_int_eq(chmod(path, 0666), 0); /* the tests check the allow lists, not the mode */
        ck_assert_int_eq(listen(fd, 128), 0);
        return fd;
}

static int listen_tcp(unsigned short *port) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof sa;
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
        ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
        ck_assert_int_eq(listen(fd, 16), 0);
        *port = ntohs(sa.sin_port);
        return fd;
}

static const uid_t allow_uids[] = { 1001 };
static const gid_t allow_gids[] = { 3000 };

static void fixture_start(struct fixture *f, bool tcp, unsigned per_uid) {
        memset(f, 0, sizeof *f);
        f->dir = xpu_test_mkdtemp();
        ck_assert_int_eq(chmod(f->dir, 0755), 0);
        snprintf(f->sock, sizeof f->sock, "%s/xpud.sock", f->dir);
        f->fd = listen_unix(f->sock);
        f->tcp_fd = tcp ? listen_tcp(&f->tcp_port) : -1;
        xpud_store_init(&f->store);
        xpud_auth_init(&f->auth, allow_uids, ELEMENTSOF(allow_uids), allow_gids, ELEMENTSOF(allow_gids));
        struct xpud_server_config c = {
                .store = &f->store,
                .auth = &f->auth,
                .unix_fd = f->fd,
                .tcp_fd = f->tcp_fd,
                .per_uid_limit = per_uid,
                .timeout_s = 2,
        };
        ck_assert_int_eq(xpud_server_start(&c, &f->srv), 0);
}

static void fixture_stop(struct fixture *f) {
        f->srv = xpud_server_stop(f->srv);
        ck_assert_ptr_null(f->srv);
        xpud_store_done(&f->store);
        xpud_auth_done(&f->auth);
        close(f->fd);
        if (f->tcp_fd >= 0)
                close(f->tcp_fd);
        xpu_test_rm_rf(f->dir);
        free(f->dir);
}

/* Publish the fixture snapshot with SEQ; returns a reference of the caller's (unref it). */
static struct xpud_snapshot *publish(struct fixture *f, uint64_t seq) {
        struct xpud_snapshot *s = fx_snapshot();
        s->seq = seq;
        s->collect_time += (double)seq;
        xpud_store_publish(&f->store, xpud_snapshot_ref(s));
        return s;
}

/* The body xpud_route_body() gives for ROUTE of S, as a string (static buffer). */
static const char *expected_body(struct xpud_snapshot *s, enum xpud_route route, const char **type) {
        static char buf[65536];
        struct xpud_body b;
        ck_assert_int_eq(xpud_route_body(s, route, &b), 0);
        ck_assert_uint_lt(b.len, sizeof buf);
        memcpy(buf, b.data, b.len);
        buf[b.len] = '\0';
        if (type)
                *type = b.content_type;
        return buf;
}

static const char *expected_device(struct xpud_snapshot *s, const char *key) {
        static char buf[16384];
        char *json = NULL;
        size_t len = 0;
        ck_assert_int_eq(xpud_render_device_json(s, key, &json, &len), 0);
        ck_assert_uint_lt(len, sizeof buf);
        memcpy(buf, json, len);
        buf[len] = '\0';
        free(json);
        return buf;
}

static void assert_type(const struct http_reply *r, const char *want) {
        char v[256];
        ck_assert_msg(http_header(r, "Content-Type", v, sizeof v), "no Content-Type in:\n%s", r->head);
        ck_assert_str_eq(v, want);
}

START_TEST(test_before_first_sample) {
        struct fixture f;
        struct http_reply r;
        fixture_start(&f, false, 0);
        http_unix(f.sock, "GET", "/healthz", &r);
        ck_assert_int_eq(r.status, 200);
        assert_type(&r, "application/json");
        ck_assert_str_eq(r.body, "{\"status\":\"ok\"}");
        static const char *const need_snapshot[] = { "/readyz", "/metrics", "/v1/devices", "/v1/devices/0",
                                                     "/v1/health", "/v1/events", "/v1/version" };
        for (size_t i = 0; i < ELEMENTSOF(need_snapshot); i++) {
                http_unix(f.sock, "GET", need_snapshot[i], &r);
                ck_assert_msg(r.status == 503, "%s: %d", need_snapshot[i], r.status);
                assert_type(&r, "application/json");
                assert_error_body(r.body, 503, "not ready");
                char v[16];
                ck_assert_str_eq(http_header(&r, "Retry-After", v, sizeof v), "1");
        }
        fixture_stop(&f);
}
END_TEST

START_TEST(test_routes_served) {
        struct fixture f;
        struct http_reply r;
        char v[256], want_len[32];
        const char *type;
        fixture_start(&f, false, 0);
        struct xpud_snapshot *snap = publish(&f, 7);
        uint64_t renders = xpud_snapshot_render_count();

        http_unix(f.sock, "GET", "/readyz", &r);
        ck_assert_int_eq(r.status, 200);
        assert_type(&r, "application/json");
        ck_assert_str_eq(r.body, "{\"status\":\"ready\"}");
        static const struct {
                const char *path;
                enum xpud_route route;
                const char *type;
        } cached[] = {
                { "/metrics", XPUD_ROUTE_METRICS, "text/plain; version=0.0.4; charset=utf-8" },
                { "/v1/version", XPUD_ROUTE_VERSION, "application/json" },
                { "/v1/devices", XPUD_ROUTE_DEVICES, "application/json" },
                { "/v1/health", XPUD_ROUTE_HEALTH, "application/json" },
                { "/v1/events", XPUD_ROUTE_EVENTS, "application/json" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cached); i++) {
                http_unix(f.sock, "GET", cached[i].path, &r);
                ck_assert_msg(r.status == 200, "%s: %d", cached[i].path, r.status);
                assert_type(&r, cached[i].type);
                ck_assert_uint_gt(r.body_len, 0);
                ck_assert_uint_eq(xpud_snapshot_render_count(), renders + i + 1); /* rendered by this request */
                ck_assert_str_eq(r.body, expected_body(snap, cached[i].route, &type));
                ck_assert_str_eq(type, cached[i].type);
                snprintf(want_len, sizeof want_len, "%zu", r.body_len);
                ck_assert_str_eq(http_header(&r, "Content-Length", v, sizeof v), want_len);
        }
        /* Each body was rendered once, and its response made with it is the snapshot's (the one
         * cache, snapshot.h); asking again renders nothing. */
        ck_assert_uint_eq(xpud_snapshot_render_count(), renders + ELEMENTSOF(cached));
        for (size_t i = 0; i < ELEMENTSOF(cached); i++)
                ck_assert_ptr_nonnull(snap->cache[cached[i].route].held);
        for (int i = 0; i < 5; i++) {
                http_unix(f.sock, "GET", "/metrics", &r);
                ck_assert_str_eq(r.body, expected_body(snap, XPUD_ROUTE_METRICS, NULL));
        }
        ck_assert_uint_eq(xpud_snapshot_render_count(), renders + ELEMENTSOF(cached));
        ck_assert(strstr(r.body, "xpu_up{") != NULL);

        /* HEAD: the headers of GET, no body. */
        snprintf(want_len, sizeof want_len, "%zu", strlen(expected_body(snap, XPUD_ROUTE_METRICS, NULL)));
        http_unix(f.sock, "HEAD", "/metrics", &r);
        ck_assert_int_eq(r.status, 200);
        assert_type(&r, "text/plain; version=0.0.4; charset=utf-8");
        ck_assert_str_eq(http_header(&r, "Content-Length", v, sizeof v), want_len);
        ck_assert_uint_eq(r.body_len, 0);

        /* One device, by index, UUID and PCI bus id (two spellings); an unknown one is 404. */
        static const char *const keys[] = { "1", FX_UUID1, "0000:1b:00.0", "1b:00.0" };
        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                char path[128];
                snprintf(path, sizeof path, "/v1/devices/%s", keys[i]);
                http_unix(f.sock, "GET", path, &r);
                ck_assert_msg(r.status == 200, "%s: %d", path, r.status);
                assert_type(&r, "application/json");
                ck_assert_str_eq(r.body, expected_device(snap, "1"));
        }
        ck_assert(strstr(r.body, FX_UUID1) != NULL);
        http_unix(f.sock, "GET", "/v1/devices/GPU-nope", &r);
        ck_assert_int_eq(r.status, 404);
        assert_type(&r, "application/json");
        assert_error_body(r.body, 404, "no device \"GPU-nope\"");
        http_unix(f.sock, "GET", "/v1/devices/4", &r);
        ck_assert_int_eq(r.status, 404);

        /* A new snapshot: its bodies are served, and neither the server nor its responses hold
         * the old one (only this test's reference is left). */
        struct xpud_snapshot *next = publish(&f, 8);
        http_unix(f.sock, "GET", "/metrics", &r);
        ck_assert_str_eq(r.body, expected_body(next, XPUD_ROUTE_METRICS, NULL));
        ck_assert_str_ne(r.body, expected_body(snap, XPUD_ROUTE_METRICS, NULL));
        ck_assert_uint_eq(atomic_load(&snap->refs), 1);
        xpud_snapshot_unref(snap);
        fixture_stop(&f);
        /* Stopped: the store lets go of the new one too. */
        ck_assert_uint_eq(atomic_load(&next->refs), 1);
        xpud_snapshot_unref(next);
}
END_TEST

START_TEST(test_errors) {
        struct fixture f;
        struct http_reply r;
        char v[256];
        fixture_start(&f, false, 0);
        xpud_snapshot_unref(publish(&f, 1));

        http_unix(f.sock, "GET", "/nope", &r);
        ck_assert_int_eq(r.status, 404);
        assert_type(&r, "application/json");
        assert_error_body(r.body, 404, "not found");
        /* HEAD of an unknown path: 404, headers only. */
        http_unix(f.sock, "HEAD", "/nope", &r);
        ck_assert_int_eq(r.status, 404);
        ck_assert_uint_eq(r.body_len, 0);

        static const char *const methods[] = { "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "BREW" };
        for (size_t i = 0; i < ELEMENTSOF(methods); i++) {
                http_unix(f.sock, methods[i], "/metrics", &r);
                ck_assert_msg(r.status == 405, "%s: %d", methods[i], r.status);
                assert_type(&r, "application/json");
                ck_assert_str_eq(http_header(&r, "Allow", v, sizeof v), "GET, HEAD");
                assert_error_body(r.body, 405, methods[i]);
        }

        /* POST with a body: 405, and the connection closes. */
        static const char post[] = "POST /v1/devices HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello";
        ck_assert_int_eq(http_exchange(http_connect_unix(f.sock), post, sizeof post - 1, &r, 3000), 0);
        ck_assert_int_eq(r.status, 405);
        ck_assert_str_eq(http_header(&r, "Connection", v, sizeof v), "close");
        /* GET with a body: 400. Chunked too. */
        static const char get_body[] = "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc";
        ck_assert_int_eq(http_exchange(http_connect_unix(f.sock), get_body, sizeof get_body - 1, &r, 3000), 0);
        ck_assert_int_eq(r.status, 400);
        assert_error_body(r.body, 400, "bodies are not accepted");
        static const char chunked[] =
                "GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
        ck_assert_int_eq(http_exchange(http_connect_unix(f.sock), chunked, sizeof chunked - 1, &r, 3000), 0);
        ck_assert_int_eq(r.status, 400);

        /* Garbage, a request without Host (strict HTTP/1.1), an over-long URL, over-long headers:
         * 4xx from libmicrohttpd, and the server keeps serving. */
        static const char garbage[] = "\x16\x03\x01 hello there\r\n\r\n";
        ck_assert_int_eq(http_exchange(http_connect_unix(f.sock), garbage, sizeof garbage - 1, &r, 3000), 0);
        ck_assert_msg(r.status >= 400 && r.status < 500, "garbage: %d", r.status);
        /* Without Host: served (libmicrohttpd's strict mode answered 400 with its status line and
         * headers twice), one status line. */
        static const char no_host[] = "GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n";
        ck_assert_int_eq(http_exchange(http_connect_unix(f.sock), no_host, sizeof no_host - 1, &r, 3000), 0);
        ck_assert_int_eq(r.status, 200);
        ck_assert_ptr_null(strstr(r.body, "HTTP/1.1"));
        /* A path with %00 or a NUL routes nowhere; the absolute form is routed by its path. */
        static const char *const nul_paths[] = { "/metrics%00x", "/metrics%00", "/v1/devices/0%00abc" };
        for (size_t i = 0; i < ELEMENTSOF(nul_paths); i++) {
                http_unix(f.sock, "GET", nul_paths[i], &r);
                ck_assert_msg(r.status == 404, "%s: %d", nul_paths[i], r.status);
        }
        http_unix(f.sock, "GET", "/met%72ics", &r);
        ck_assert_int_eq(r.status, 200);
        static const char absolute[] = "GET http://xpud:9400/metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
        ck_assert_int_eq(http_exchange(http_connect_unix(f.sock), absolute, sizeof absolute - 1, &r, 3000), 0);
        ck_assert_int_eq(r.status, 200);
        size_t big = 40000;
        char *req = malloc(big + 128);
        int n = snprintf(req, 64, "GET /");
        memset(req + n, 'a', big);
        n += (int)big;
        n += snprintf(req + n, 64, " HTTP/1.1\r\nHost: x\r\n\r\n");
        ck_assert_int_eq(http_exchange(http_connect_unix(f.sock), req, (size_t)n, &r, 3000), 0);
        ck_assert_msg(r.status == 414 || r.status == 431 || r.status == 0, "long URL: %d", r.status);
        n = snprintf(req, 64, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ");
        memset(req + n, 'b', big);
        n += (int)big;
        n += snprintf(req + n, 16, "\r\n\r\n");
        ck_assert_int_eq(http_exchange(http_connect_unix(f.sock), req, (size_t)n, &r, 3000), 0);
        ck_assert_msg(r.status == 431 || r.status == 413 || r.status == 0, "long header: %d", r.status);
        free(req);
        http_unix(f.sock, "GET", "/metrics", &r);
        ck_assert_int_eq(r.status, 200);
        fixture_stop(&f);
}
END_TEST

/* Requests whose end is unclear (request smuggling): exactly one answer, a 400 with the JSON error
 * body and Connection: close, and the connection closed; no second status line anywhere (in the
 * body, a header block libmicrohttpd 0.9.75 sent twice), nothing answered for the bytes after the
 * headers. On the TCP listener as on the UNIX socket. */
static void assert_one_400_n(int fd, const char *req, size_t req_len, const char *why, const char *what) {
        struct http_reply r;
        char v[256];
        int e = http_exchange(fd, req, req_len, &r, 3000);
        ck_assert_msg(e == 0, "%s: %s (the connection stayed open)", what, strerror(-e));
        ck_assert_msg(strncmp(r.head, "HTTP/1.1 400 ", 13) == 0, "%s: %s", what, r.head);
        ck_assert_msg(!strstr(r.head + 1, "HTTP/1.") && !strstr(r.body, "HTTP/1."), "%s: two status lines:\n%s\n\n%s",
                      what, r.head, r.body);
        ck_assert_str_eq(http_header(&r, "Connection", v, sizeof v), "close");
        assert_type(&r, "application/json");
        ck_assert_str_eq(http_header(&r, "Content-Length", v, sizeof v), (snprintf(v, sizeof v, "%zu", r.body_len), v));
        assert_error_body(r.body, 400, why);
        ck_assert_msg(r.body[r.body_len - 1] == '}', "%s: bytes after the body: %s", what, r.body);
}

static void assert_one_400(int fd, const char *req, const char *why, const char *what) {
        assert_one_400_n(fd, req, strlen(req), why, what);
}

/* Connect to the TCP listener on loopback PORT; returns the fd (asserts). */
static int connect_tcp(unsigned short port) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
        return fd;
}

START_TEST(test_framing_on_the_wire) {
        static const struct {
                const char *what, *req, *why;
        } cases[] = {
                { "two equal Content-Length",
                  "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n",
                  "more than one Content-Length" },
                { "Content-Length 0 then 40, a second request inside",
                  "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 40\r\n\r\n"
                  "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n",
                  "more than one Content-Length" },
                { "Content-Length 5 then 0", "GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\ncontent-length: 0\r\n\r\nhello",
                  "more than one Content-Length" },
                { "+5", "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\nhello", "not one decimal number" },
                { "0x10", "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0x10\r\n\r\n", "not one decimal number" },
                { " 5 5", "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length:  5 5\r\n\r\nhello", "not one decimal number" },
                { "5,5", "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5,5\r\n\r\nhello", "not one decimal number" },
                { "empty", "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: \r\n\r\n", "not one decimal number" },
                { "huge", "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n",
                  "not one decimal number" },
                { "2^64", "GET /healthz HTTP/1.0\r\nContent-Length: 18446744073709551616\r\n\r\n",
                  "not one decimal number" },
                { "Content-Length with chunked",
                  "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                  "together with Transfer-Encoding" },
                { "chunked with Content-Length, a second request inside",
                  "GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n"
                  "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n",
                  "together with Transfer-Encoding" },
                { "a blank before the colon", "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length : 5\r\n\r\nhello",
                  "field name holds a blank" },
                { "a folded Content-Length, a second request after it",
                  "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 38\r\n 0\r\n\r\nGET /readyz HTTP/1.1\r\nHost: x\r\n\r\n",
                  "starts with Content-Length" },
                { "POST, two Content-Length", "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 5\r\n\r\nhello",
                  "more than one Content-Length" },
                { "unknown path, two Content-Length",
                  "GET /nope HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 5\r\n\r\nhello",
                  "more than one Content-Length" },
        };
        struct fixture f;
        struct http_reply r;
        fixture_start(&f, true, 0);
        xpud_snapshot_unref(publish(&f, 1));
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                assert_one_400(http_connect_unix(f.sock), cases[i].req, cases[i].why, cases[i].what);
                assert_one_400(connect_tcp(f.tcp_port), cases[i].req, cases[i].why, cases[i].what);
        }
        /* One valid Content-Length of 0 (leading zeros or blanks around it too) is no body. */
        static const char *const zero[] = { "0", "00", "\t0\t" };
        for (size_t i = 0; i < ELEMENTSOF(zero); i++) {
                char req[256];
                snprintf(req, sizeof req, "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length:%s\r\nConnection: close\r\n\r\n",
                         zero[i]);
                ck_assert_int_eq(http_exchange(http_connect_unix(f.sock), req, strlen(req), &r, 3000), 0);
                ck_assert_msg(r.status == 200, "Content-Length \"%s\": %d", zero[i], r.status);
                ck_assert_str_eq(r.body, "{\"status\":\"ok\"}");
        }
        /* HEAD with two: the 400's headers, no body. */
        static const char head[] = "HEAD /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n";
        ck_assert_int_eq(http_exchange(http_connect_unix(f.sock), head, sizeof head - 1, &r, 3000), 0);
        ck_assert_int_eq(r.status, 400);
        ck_assert_uint_eq(r.body_len, 0);
        http_unix(f.sock, "GET", "/metrics", &r);
        ck_assert_int_eq(r.status, 200);
        fixture_stop(&f);
}
END_TEST

/* Bytes a proxy in front of xpud could read otherwise: a control byte in the request line (a NUL
 * among them, which libmicrohttpd 0.9.75 cuts the line at) and a CR that ends no line in a header
 * field. Exactly one 400 with the JSON error body, the connection closed, on both listeners, for
 * every path and method; the same requests without the byte are served. */
START_TEST(test_request_bytes_on_the_wire) {
#define REQ(s) s, sizeof(s) - 1
        static const struct {
                const char *what, *req;
                size_t len;
                const char *why;
        } cases[] = {
                { "a NUL in the target", REQ("GET /v1/devices/0\0x HTTP/1.1\r\nHost: x\r\n\r\n"), "control byte" },
                { "a NUL ending the target", REQ("GET /metrics\0 HTTP/1.1\r\nHost: x\r\n\r\n"), "control byte" },
                { "two NULs, a version between them",
                  REQ("GET /metrics\0HTTP/1.1\0x HTTP/1.1\r\nHost: x\r\n\r\n"), "control byte" },
                { "a NUL in the query", REQ("GET /metrics?a\0b HTTP/1.1\r\nHost: x\r\n\r\n"), "control byte" },
                { "a NUL in the method", REQ("GE\0T /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), "control byte" },
                { "a NUL ending the method", REQ("GET\0 /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), "control byte" },
                { "a NUL ending the method, two spaces", REQ("GET\0  /metrics HTTP/1.1\r\nHost: x\r\n\r\n"),
                  "control byte" },
                { "0x01 in the method", REQ("G\x01T /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), "control byte" },
                { "a tab in the target", REQ("GET /met\trics HTTP/1.1\r\nHost: x\r\n\r\n"), "control byte" },
                { "a CR in the target", REQ("GET /metrics\r HTTP/1.1\r\nHost: x\r\n\r\n"), "control byte" },
                { "0x7f in the query", REQ("GET /healthz?\x7f HTTP/1.1\r\nHost: x\r\n\r\n"), "control byte" },
                { "0x1f on an unknown path", REQ("GET /nope\x1f HTTP/1.1\r\nHost: x\r\n\r\n"), "control byte" },
                { "a bare CR in a value, a field after it",
                  REQ("GET /healthz HTTP/1.1\r\nHost: x\rContent-Length: 5\r\n\r\nhello"), "a CR that does not end" },
                { "a bare CR ending a value", REQ("GET /healthz HTTP/1.1\r\nHost: x\r\r\n\r\n"), "a CR that does not end" },
                { "a bare CR in a name", REQ("GET /metrics HTTP/1.1\r\nHost: x\r\nX-A\rB: 1\r\n\r\n"),
                  "a CR that does not end" },
                { "a bare CR in a folded line", REQ("GET /metrics HTTP/1.1\r\nX-A: 1\r\n \r2\r\nHost: x\r\n\r\n"),
                  "a CR that does not end" },
                { "POST, a bare CR", REQ("POST /metrics HTTP/1.1\r\nHost: x\rX: 1\r\n\r\n"), "a CR that does not end" },
        };
#undef REQ
        struct fixture f;
        struct http_reply r;
        fixture_start(&f, true, 0);
        xpud_snapshot_unref(publish(&f, 1));
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                assert_one_400_n(http_connect_unix(f.sock), cases[i].req, cases[i].len, cases[i].why, cases[i].what);
                assert_one_400_n(connect_tcp(f.tcp_port), cases[i].req, cases[i].len, cases[i].why, cases[i].what);
        }
        /* Without the byte: served. Bytes above 0x7f are the route's (404), and a request line
         * with two spaces before the target or a tab in a value is well formed. */
        static const struct {
                const char *req;
                int status;
        } fine[] = {
                { "GET /v1/devices/0 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 200 },
                { "GET  /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 200 },
                { "GET /healthz?a=b HTTP/1.1\r\nHost: x\r\nX-A: a\tb\r\nConnection: close\r\n\r\n", 200 },
                { "GET /v1/devices/\xc3\xa9 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404 },
        };
        for (size_t i = 0; i < ELEMENTSOF(fine); i++) {
                int fd = http_connect_unix(f.sock);
                ck_assert_int_eq(http_exchange(fd, fine[i].req, strlen(fine[i].req), &r, 3000), 0);
                ck_assert_msg(r.status == fine[i].status, "%s: %d", fine[i].req, r.status);
        }
        http_unix(f.sock, "GET", "/metrics", &r);
        ck_assert_int_eq(r.status, 200);
        fixture_stop(&f);
}
END_TEST

START_TEST(test_tcp_metrics_only) {
        struct fixture f;
        struct http_reply r;
        fixture_start(&f, true, 0);
        struct xpud_snapshot *snap = publish(&f, 3);
        static const struct {
                const char *path;
                int status;
        } cases[] = { { "/metrics", 200 }, { "/healthz", 404 }, { "/readyz", 404 }, { "/v1/devices", 404 },
                      { "/v1/devices/0", 404 }, { "/v1/health", 404 } };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(f.tcp_port),
                                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
                int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
                ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
                char req[256];
                int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                                 cases[i].path);
                ck_assert_int_eq(http_exchange(fd, req, (size_t)n, &r, 3000), 0);
                ck_assert_msg(r.status == cases[i].status, "%s: %d", cases[i].path, r.status);
                if (r.status == 200) {
                        assert_type(&r, "text/plain; version=0.0.4; charset=utf-8");
                        ck_assert_str_eq(r.body, expected_body(snap, XPUD_ROUTE_METRICS, NULL));
                } else {
                        assert_error_body(r.body, 404, "/metrics only");
                }
        }
        xpud_snapshot_unref(snap);
        fixture_stop(&f);
}
END_TEST

/* ---- peers of other uids (root needed to become them) --------------------------------------------- */

/* In a child: take UID, GID (and supplementary GROUP when not 0), GET PATH, exit with the status
 * divided by 100 * 10 + last digit... simpler: exit 0 when the reply status is WANT. */
static void expect_as(const char *sock, uid_t uid, gid_t gid, gid_t group, const char *path, int want,
                      const char *body_part) {
        ck_assert_msg(geteuid() == 0, "this test must run as root (it switches uids to be a client)");
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                gid_t groups[1] = { group };
                if (setgroups(group ? 1 : 0, groups) < 0 || setresgid(gid, gid, gid) < 0 ||
                    setresuid(uid, uid, uid) < 0)
                        _exit(90);
                struct http_reply r;
                http_unix(sock, "GET", path, &r);
                if (r.status != want)
                        _exit(91);
                if (body_part && !strstr(r.body, body_part))
                        _exit(92);
                _exit(0);
        }
        int st = 0;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                      "uid %u gid %u group %u on %s: want %d (child status %d: 90 set-up, 91 status, 92 body)",
                      (unsigned)uid, (unsigned)gid, (unsigned)group, path, want, WEXITSTATUS(st));
}

START_TEST(test_peer_checks) {
        struct fixture f;
        struct http_reply r;
        fixture_start(&f, false, 0);
        xpud_snapshot_unref(publish(&f, 1));
        http_unix(f.sock, "GET", "/metrics", &r); /* root: always */
        ck_assert_int_eq(r.status, 200);
        expect_as(f.sock, 1001, 1001, 0, "/metrics", 200, NULL);         /* --allow-uid 1001 */
        expect_as(f.sock, 1003, 3000, 0, "/metrics", 200, NULL);         /* primary gid 3000 */
        expect_as(f.sock, 1004, 1004, 3000, "/metrics", 200, NULL);      /* supplementary 3000 */
        expect_as(f.sock, 1000, 1000, 0, "/metrics", 403, "uid 1000 is not allowed");
        expect_as(f.sock, 1000, 1000, 3001, "/healthz", 403, "\"status\":403");
        /* A refused client learns nothing about the paths either. */
        expect_as(f.sock, 1000, 1000, 0, "/nope", 403, NULL);
        ck_assert_uint_eq(f.auth.denied_total, 3);
        ck_assert_uint_eq(f.auth.n_logged, 1); /* one line for uid 1000, not three */
        fixture_stop(&f);
}
END_TEST

/* A connection of uid 1001 beyond the cap is closed at once without an answer; those within it
 * and root's are served. */
START_TEST(test_per_uid_cap) {
        ck_assert_msg(geteuid() == 0, "this test must run as root (it switches uids to be a client)");
        struct fixture f;
        fixture_start(&f, false, 2);
        xpud_snapshot_unref(publish(&f, 1));
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                if (setgroups(0, NULL) < 0 || setresgid(1001, 1001, 1001) < 0 || setresuid(1001, 1001, 1001) < 0)
                        _exit(90);
                int a = http_connect_unix(f.sock), b = http_connect_unix(f.sock), c = http_connect_unix(f.sock);
                static const char req[] = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
                struct http_reply r;
                int e = http_exchange(c, req, sizeof req - 1, &r, 3000);
                if (e == 0 ? r.status != 0 : e != -EPIPE && e != -ECONNRESET)
                        _exit(91); /* the third: shut down at accept, nothing said */
                if (http_exchange(a, req, sizeof req - 1, &r, 3000) < 0 || r.status != 200)
                        _exit(92);
                /* a is closed now: a new connection fits again, once the server has counted a's
                 * close (its CLOSED notification can come after the client read EOF: on a loaded
                 * machine the next connect may still find the cap full, so retry, up to 5 s). */
                bool served = false;
                for (int i = 0; i < 250 && !served; i++) {
                        served = http_exchange(http_connect_unix(f.sock), req, sizeof req - 1, &r, 3000) == 0 &&
                                 r.status == 200;
                        if (!served)
                                usleep(20 * 1000);
                }
                if (!served)
                        _exit(93);
                close(b);
                _exit(0);
        }
        int st = 0;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d (90 set-up, 91 cap, 92/93 served)",
                      WEXITSTATUS(st));
        /* Root is not capped. */
        int fds[4];
        for (size_t i = 0; i < ELEMENTSOF(fds); i++)
                fds[i] = http_connect_unix(f.sock);
        struct http_reply r;
        http_unix(f.sock, "GET", "/healthz", &r);
        ck_assert_int_eq(r.status, 200);
        for (size_t i = 0; i < ELEMENTSOF(fds); i++)
                close(fds[i]);
        fixture_stop(&f);
}
END_TEST

START_TEST(test_start_refuses) {
        struct xpud_store st;
        struct xpud_auth a;
        struct xpud_server *s = NULL;
        xpud_store_init(&st);
        xpud_auth_init(&a, NULL, 0, NULL, 0);
        struct xpud_server_config c = { .store = &st, .auth = &a, .unix_fd = -1, .tcp_fd = -1 };
        ck_assert_int_eq(xpud_server_start(&c, &s), -EINVAL); /* no listener */
        c.unix_fd = 0;
        c.auth = NULL;
        ck_assert_int_eq(xpud_server_start(&c, &s), -EINVAL); /* UNIX without a policy */
        c.auth = &a;
        c.store = NULL;
        ck_assert_int_eq(xpud_server_start(&c, &s), -EINVAL);
        ck_assert_ptr_null(s);
        ck_assert_ptr_null(xpud_server_stop(NULL));
        xpud_auth_done(&a);
        xpud_store_done(&st);
}
END_TEST

static Suite *server_suite(void) {
        Suite *s = suite_create("xpud-server");
        TCase *tc = tcase_create("routes");
        tcase_add_test(tc, test_route_table);
        tcase_add_test(tc, test_error_json);
        tcase_add_test(tc, test_start_refuses);
        suite_add_tcase(s, tc);
        tc = tcase_create("http");
        tcase_set_timeout(tc, 20);
        tcase_add_test(tc, test_before_first_sample);
        tcase_add_test(tc, test_routes_served);
        tcase_add_test(tc, test_errors);
        tcase_add_test(tc, test_framing_on_the_wire);
        tcase_add_test(tc, test_request_bytes_on_the_wire);
        tcase_add_test(tc, test_tcp_metrics_only);
        tcase_add_test(tc, test_peer_checks);
        tcase_add_test(tc, test_per_uid_cap);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        signal(SIGPIPE, SIG_IGN);
        return xpu_test_run(server_suite());
}
