/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: xpud's request routing (daemon/server.h) as the request handler runs it, without
 * sockets: the request target's path (up to '?', as libmicrohttpd splits it) is percent-decoded by
 * xpud_uri_unescape(), routed by xpud_route_parse() for the UNIX or the TCP listener, and answered
 * from a fixed snapshot (tests/unit/xpud-fixture.h: 2 NVIDIA + 2 AMD devices): a cached body
 * (xpud_route_body), a device (xpud_render_device_json), or the JSON error body
 * (xpud_error_json) with the handler's messages (the method cut at 32 bytes for 405, the device
 * key for 404).
 *
 * Before the route, the request line's method and target are checked for control bytes
 * (xpud_request_bytes_ok(), NULs included: the lines are split by length) and the request's header
 * fields are judged as the handler judges them (xpud_framing_add(), xpud_framing_body()): a
 * request line with a control byte, or a request whose end is unclear, is answered 400 and nothing
 * else; a request with a body that would be served is answered 400 too.
 *
 * Input: "METHOD\nTARGET\nLISTENER\nFIELD\n...": the method, the request target, "tcp" for the
 * TCP listener (anything else, or nothing, is the UNIX socket), then one header field per line,
 * "Name: value" (split at the first ':'; a line without one is a name without a value; the fields
 * end at a NUL, as libmicrohttpd cuts them). A missing line is empty.
 *
 * Checked besides memory safety (abort() when broken): a method or target with a byte below 0x20
 * or 0x7f is refused, any other is not; the framing verdict is the one the header
 * rules give, computed here on their own (a CR in a field, more than one Content-Length, one that is not 1*DIGIT
 * between blanks or does not fit in 64 bits, Content-Length with Transfer-Encoding, a blank in a
 * field name, a name that starts with Content-Length or Transfer-Encoding and goes on: ambiguous), with a one-line reason exactly when ambiguous; the decoded length is
 * strlen() of the result and never grows; the status is 200, 404 or 405; a 200 is GET or HEAD,
 * names a known target, on TCP only /metrics, and a device key that is non-empty, at most
 * XPUD_DEVICE_KEY_MAX printable bytes without '/', inside the path; every body answered is valid
 * JSON (or the Prometheus text of /metrics), an error body carries the status and the message
 * unchanged. Corpus: tests/fuzz/corpus/xpud-route/. */
#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <strings.h>

#include "base/str.h"
#include "fuzz.h"
#include "render-json.h"
#include "server.h"
#include "xpud-fixture.h"

#define N_LINES 3 /* method, target, listener */

static struct xpud_snapshot *snapshot(void) {
        static struct xpud_snapshot *snap;
        if (!snap)
                snap = fx_snapshot();
        return snap;
}

/* BODY (LEN bytes, NUL-terminated) must be JSON; with STATUS other than 0 an error body
 * {"error": MESSAGE, "status": STATUS}. */
static void check_json(const char *body, size_t len, unsigned status, const char *message) {
        if (!body || strlen(body) != len)
                abort();
        cJSON *o = cJSON_ParseWithLength(body, len);
        if (!o)
                abort();
        if (status) {
                const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
                const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "status");
                /* cJSON stops a string at an escaped NUL; the messages here hold none. */
                if (!cJSON_IsString(e) || strcmp(e->valuestring, message) != 0 || !cJSON_IsNumber(st) ||
                    st->valuedouble != (double)status)
                        abort();
        }
        cJSON_Delete(o);
}

static void answer_error(unsigned status, const char *message) {
        size_t len = 0;
        char *body = xpud_error_json(status, message, &len);
        if (!body)
                return; /* out of memory */
        check_json(body, len, status, message);
        free(body);
}

/* The framing rules on their own, for the header lines at FIELDS (one "Name: value" per line, NUL
 * at the end): is the request ambiguous, and does it carry a body? */
static void expected_framing(const char *fields, bool *ambiguous, bool *body) {
        unsigned n_cl = 0, n_te = 0;
        bool bad = false, blank = false;
        unsigned long long length = 0;
        for (const char *line = fields; line && *line;) {
                const char *end = strchr(line, '\n');
                size_t len = end ? (size_t)(end - line) : strlen(line);
                const char *colon = memchr(line, ':', len);
                size_t name_len = colon ? (size_t)(colon - line) : len;
                if (memchr(line, '\r', len))
                        blank = true; /* a bare CR */
                else if (memchr(line, ' ', name_len) || memchr(line, '\t', name_len))
                        blank = true;
                else if ((name_len > 14 && strncasecmp(line, "Content-Length", 14) == 0) ||
                         (name_len > 17 && strncasecmp(line, "Transfer-Encoding", 17) == 0))
                        blank = true; /* a folded line, as libmicrohttpd joins it */
                if (name_len == 14 && strncasecmp(line, "Content-Length", 14) == 0) {
                        n_cl++;
                        char *v = strndup(colon ? colon + 1 : "", colon ? len - name_len - 1 : 0);
                        if (!v)
                                abort();
                        /* Blanks around, digits within, nothing else; at most 2^64 - 1. */
                        size_t a = strspn(v, " \t"), d = strspn(v + a, "0123456789");
                        errno = 0;
                        if (d == 0 || v[a + d + strspn(v + a + d, " \t")] != '\0')
                                bad = true;
                        else if ((length = strtoull(v + a, NULL, 10)), errno == ERANGE)
                                bad = true;
                        free(v);
                } else if (name_len == 17 && strncasecmp(line, "Transfer-Encoding", 17) == 0) {
                        n_te++;
                }
                line = end ? end + 1 : NULL;
        }
        *ambiguous = blank || n_cl > 1 || bad || (n_cl && n_te);
        *body = n_te > 0 || (n_cl == 1 && length > 0);
}

/* Feed the header lines at FIELDS (modified: split in place) to xpud_framing_add(). */
static enum xpud_request_body framing(char *fields, const char **why) {
        struct xpud_framing f = {};
        for (char *line = fields; line && *line;) {
                char *end = strchr(line, '\n');
                if (end)
                        *end = '\0';
                char *colon = strchr(line, ':');
                if (colon)
                        *colon = '\0';
                xpud_framing_add(&f, line, colon ? colon + 1 : NULL);
                line = end ? end + 1 : NULL;
        }
        return xpud_framing_body(&f, why);
}

/* Does P (LEN bytes) hold a byte below 0x20 or 0x7f? */
static bool has_control(const char *p, size_t len) {
        for (size_t i = 0; i < len; i++)
                if ((unsigned char)p[i] < 0x20 || (unsigned char)p[i] == 0x7f)
                        return true;
        return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_strndup(data, size);
        if (!text)
                return 0;
        /* The first lines split by length, so a NUL inside one stays in it. */
        char *line[N_LINES];
        size_t line_len[N_LINES];
        char *p = text, *end = text + size;
        for (size_t i = 0; i < N_LINES; i++) {
                char *nl = memchr(p, '\n', (size_t)(end - p));
                line[i] = p; /* a missing line: empty (and writable, as the URL must be) */
                line_len[i] = nl ? (size_t)(nl - p) : (size_t)(end - p);
                if (nl)
                        *nl = '\0';
                p = nl ? nl + 1 : end;
        }
        const char *method = line[0];
        char *url = line[1];
        bool tcp = strcmp(line[2], "tcp") == 0;
        char *fields = p; /* what follows the third line */

        bool bad_line = has_control(method, line_len[0]) || has_control(url, line_len[1]);
        if (xpud_request_bytes_ok(method, line_len[0]) == has_control(method, line_len[0]) ||
            xpud_request_bytes_ok(url, line_len[1]) == has_control(url, line_len[1]))
                abort();
        if (bad_line) {
                if (strpbrk(XPUD_REQUEST_LINE_WHY, "\r\n"))
                        abort();
                answer_error(400, XPUD_REQUEST_LINE_WHY);
                goto done;
        }

        bool want_ambiguous, want_body;
        expected_framing(fields, &want_ambiguous, &want_body);
        const char *why = NULL;
        enum xpud_request_body body = framing(fields, &why);
        if ((body == XPUD_BODY_AMBIGUOUS) != want_ambiguous || (!why) != (body != XPUD_BODY_AMBIGUOUS))
                abort();
        if (body == XPUD_BODY_AMBIGUOUS) {
                if (strpbrk(why, "\r\n"))
                        abort();
                answer_error(400, why);
                goto done;
        }
        if ((body == XPUD_BODY_PRESENT) != want_body)
                abort();

        url[strcspn(url, "?")] = '\0';
        size_t before = strlen(url);
        size_t after = xpud_uri_unescape(url);
        if (after != strlen(url) || after > before)
                abort();

        struct xpud_request req = {.key = NULL};
        char msg[160];
        unsigned status = xpud_route_parse(method, url, tcp, &req);
        switch (status) {
        case 200:
                break;
        case 405:
                snprintf(msg, sizeof msg, "method %.32s is not allowed: xpud is read-only (GET, HEAD)", method);
                answer_error(405, msg);
                goto done;
        case 404:
                answer_error(404, "not found: see /v1/devices, /v1/health, /v1/events, /metrics");
                goto done;
        default:
                abort();
        }

        if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
                abort();
        if (body == XPUD_BODY_PRESENT) {
                answer_error(400, "request bodies are not accepted");
                goto done;
        }
        if (tcp && (req.target != XPUD_TARGET_CACHED || req.route != XPUD_ROUTE_METRICS))
                abort();
        struct xpud_snapshot *snap = snapshot();
        switch (req.target) {
        case XPUD_TARGET_HEALTHZ:
        case XPUD_TARGET_READYZ:
                break;
        case XPUD_TARGET_CACHED: {
                if ((unsigned)req.route >= _XPUD_ROUTE_CACHED_MAX)
                        abort();
                struct xpud_body b;
                if (xpud_route_body(snap, req.route, &b) == 0) {
                        if (!b.data || b.len == 0)
                                abort();
                        if (req.route != XPUD_ROUTE_METRICS)
                                check_json(b.data, b.len, 0, NULL);
                }
                break;
        }
        case XPUD_TARGET_DEVICE: {
                size_t klen = req.key ? strlen(req.key) : 0;
                if (klen == 0 || klen > XPUD_DEVICE_KEY_MAX || !xpu_str_is_printable(req.key) ||
                    strchr(req.key, '/') || req.key < url || req.key + klen != url + after)
                        abort();
                char *json = NULL;
                size_t len = 0;
                int r = xpud_render_device_json(snap, req.key, &json, &len);
                if (r == 0)
                        check_json(json, len, 0, NULL);
                else if (r == -ENOENT) {
                        snprintf(msg, sizeof msg,
                                 "no device \"%s\" (give an index, a UUID or a PCI bus id from /v1/devices)", req.key);
                        answer_error(404, msg);
                } else if (r != -ENOMEM)
                        abort();
                free(json);
                break;
        }
        default:
                abort();
        }
done:
        free(text);
        return 0;
}
