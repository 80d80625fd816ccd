/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: xpud's request routing (daemon/server.h) as the request handler runs it, without
 * sockets: the request target's path (up to '?', as libmicrohttpd splits it) is percent-decoded by
 * xpud_uri_unescape(), routed by xpud_route_parse() for the UNIX or the TCP listener, and answered
 * from a fixed snapshot (tests/unit/xpud-fixture.h: 2 NVIDIA + 2 AMD devices): a cached body
 * (xpud_snapshot_body), a device (xpud_snapshot_device_json), or the JSON error body
 * (xpud_error_json) with the handler's messages (the method cut at 32 bytes for 405, the device
 * key for 404).
 *
 * Input: "METHOD\nTARGET\nLISTENER": the method, the request target, and "tcp" for the TCP
 * listener (anything else, or nothing, is the UNIX socket). A missing line is empty.
 *
 * Checked besides memory safety (abort() when broken): the decoded length is strlen() of the
 * result and never grows; the status is 200, 404 or 405; a 200 is GET or HEAD, names a known
 * target, on TCP only /metrics, and a device key that is non-empty, at most XPUD_DEVICE_KEY_MAX
 * printable bytes without '/', inside the path; every body answered is valid JSON (or the
 * Prometheus text of /metrics), an error body carries the status and the message unchanged.
 * Corpus: tests/fuzz/corpus/xpud-route/. */
#include <cJSON.h>
#include <errno.h>
#include <stdio.h>

#include "fuzz.h"
#include "server.h"
#include "xpud-fixture.h"

#define N_FIELDS 3

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_strndup(data, size);
        if (!text)
                return 0;
        char *field[N_FIELDS];
        for (size_t i = 0; i < N_FIELDS; i++)
                field[i] = text + size; /* a missing line: empty (and writable, as the URL must be) */
        char *p = text;
        for (size_t i = 0; i < N_FIELDS && p; i++) {
                field[i] = p;
                p = strchr(p, '\n');
                if (p)
                        *p++ = '\0';
        }
        const char *method = field[0];
        char *url = field[1];
        bool tcp = strcmp(field[2], "tcp") == 0;

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
                if (xpud_snapshot_body(snap, req.route, &b) == 0) {
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
                int r = xpud_snapshot_device_json(snap, req.key, &json, &len);
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
