/* SPDX-License-Identifier: Apache-2.0 */
/* The pure part of request handling (request.h): routes, percent-decoding, body framing, error
 * bodies. */
#include "request.h"

#include <cJSON.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "base/macro.h"
#include "base/str.h"
#include "render-json.h"
#include "render-prom.h"

/* ---- routes --------------------------------------------------------------------------------- */

/* The fixed paths. /v1/devices/{key} is matched by prefix below. */
static const struct route_entry {
        const char *path;
        enum xpud_target target;
        enum xpud_route route; /* XPUD_TARGET_CACHED only */
        bool tcp;              /* served on the TCP listener too */
} routes[] = {
        { "/healthz", XPUD_TARGET_HEALTHZ, 0, false },
        { "/readyz", XPUD_TARGET_READYZ, 0, false },
        { "/metrics", XPUD_TARGET_CACHED, XPUD_ROUTE_METRICS, true },
        { "/v1/version", XPUD_TARGET_CACHED, XPUD_ROUTE_VERSION, false },
        { "/v1/devices", XPUD_TARGET_CACHED, XPUD_ROUTE_DEVICES, false },
        { "/v1/health", XPUD_TARGET_CACHED, XPUD_ROUTE_HEALTH, false },
        { "/v1/events", XPUD_TARGET_CACHED, XPUD_ROUTE_EVENTS, false },
};

#define DEVICE_PREFIX "/v1/devices/"

/* The path of URL: URL itself in origin form ("/metrics"); in absolute form
 * ("http://host:9400/metrics", RFC 9112 §3.2.2) what follows the scheme and the authority, which
 * are ignored ("" when nothing follows them). */
static const char *origin_path(const char *url) {
        if (url[0] == '/')
                return url;
        size_t n = strspn(url, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.");
        if (n == 0 || strncmp(url + n, "://", 3) != 0)
                return url;
        const char *path = strchr(url + n + 3, '/');
        return path ? path : "";
}

unsigned xpud_route_parse(const char *method, const char *url, bool metrics_only, struct xpud_request *ret) {
        struct xpud_request r = {};
        bool found = false;
        if (!method || !url)
                return 404;
        url = origin_path(url);
        for (size_t i = 0; i < ELEMENTSOF(routes) && !found; i++)
                if (strcmp(url, routes[i].path) == 0 && (routes[i].tcp || !metrics_only)) {
                        r.target = routes[i].target;
                        r.route = routes[i].route;
                        found = true;
                }
        if (!found && !metrics_only && xpu_startswith(url, DEVICE_PREFIX)) {
                const char *key = url + strlen(DEVICE_PREFIX);
                size_t len = strlen(key);
                /* An index, a UUID or a PCI bus id: short, printable, one path segment. */
                if (len == 0 || len > XPUD_DEVICE_KEY_MAX || !xpu_str_is_printable(key) || strchr(key, '/'))
                        return 404;
                r.target = XPUD_TARGET_DEVICE;
                r.key = key;
                found = true;
        }
        if (!found)
                return 404;
        if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
                return 405;
        *ret = r;
        return 200;
}

bool xpud_request_bytes_ok(const char *p, size_t len) {
        for (size_t i = 0; i < len; i++)
                if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
                        return false;
        return true;
}

char *xpud_error_json(unsigned status, const char *message, size_t *len) {
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddStringToObject(o, "error", message ? message : "") ||
            !cJSON_AddNumberToObject(o, "status", status)) {
                cJSON_Delete(o);
                return NULL;
        }
        char *s = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
        if (s && len)
                *len = strlen(s);
        return s;
}

size_t xpud_uri_unescape(char *uri) {
        static const char hex[] = "0123456789abcdef0123456789ABCDEF";
        size_t len = strlen(uri);
        if (strstr(uri, "%00"))
                return len;
        char *w = uri;
        for (const char *p = uri; *p; p++) {
                const char *hi = p[0] == '%' && p[1] ? strchr(hex, p[1]) : NULL;
                const char *lo = hi && p[2] ? strchr(hex, p[2]) : NULL;
                if (hi && lo) {
                        *w++ = (char)(((hi - hex) % 16) * 16 + (lo - hex) % 16);
                        p += 2;
                } else {
                        *w++ = *p;
                }
        }
        *w = '\0';
        return (size_t)(w - uri);
}

/* ---- framing ------------------------------------------------------------------------------- */

/* The blanks a field value may start or end with (RFC 9110 section 5.6.3, OWS). */
#define OWS " \t"

int xpud_content_length_parse(const char *value, uint64_t *ret) {
        if (!value)
                return -EINVAL;
        value += strspn(value, OWS);
        size_t n = strspn(value, "0123456789");
        if (n == 0 || value[n + strspn(value + n, OWS)] != '\0')
                return -EINVAL;
        uint64_t v = 0;
        for (size_t i = 0; i < n; i++) {
                unsigned d = (unsigned)(value[i] - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        *ret = v;
        return 0;
}

void xpud_framing_add(struct xpud_framing *f, const char *name, const char *value) {
        if (!name)
                return;
        /* libmicrohttpd 0.9.75 ends a line at CRLF or LF only and keeps a bare CR in the name or the
         * value; a proxy that ends lines at a CR too reads other fields (RFC 9112 section 2.2). */
        if (strchr(name, '\r') || (value && strchr(value, '\r')))
                f->bare_cr = true;
        /* libmicrohttpd 0.9.75 keeps the blanks before the colon in the name and then does not take
         * "Content-Length : 5" for a Content-Length; a proxy in front of xpud may. */
        if (strpbrk(name, OWS))
                f->bad_name = true;
        /* The same for a line folded onto the next (obsolete line folding, RFC 9112 section 5.2):
         * libmicrohttpd 0.9.75 appends the next line to the field's name, so "Content-Length: 5"
         * followed by " 0" reaches us as "Content-Length0: 5", which a proxy that drops the
         * folded line reads as a Content-Length of 5. */
        else if ((strncasecmp(name, "Content-Length", 14) == 0 && name[14]) ||
                 (strncasecmp(name, "Transfer-Encoding", 17) == 0 && name[17]))
                f->folded_name = true;
        if (strcasecmp(name, "Content-Length") == 0) {
                uint64_t v;
                f->n_content_length++;
                if (xpud_content_length_parse(value ? value : "", &v) < 0)
                        f->bad_length = true;
                else
                        f->content_length = v;
        } else if (strcasecmp(name, "Transfer-Encoding") == 0) {
                f->n_transfer_encoding++;
        }
}

enum xpud_request_body xpud_framing_body(const struct xpud_framing *f, const char **why) {
        const char *w = NULL;
        if (f->bare_cr)
                w = "a header field holds a CR that does not end its line (RFC 9112 section 2.2): end every line "
                    "with CRLF and send no other CR";
        else if (f->bad_name)
                w = "a header field name holds a blank (RFC 9112 section 5.1): remove the blank before the colon";
        else if (f->folded_name)
                w = "a header field name starts with Content-Length or Transfer-Encoding but goes on (a line folded "
                    "onto the next?): send each header field on one line";
        else if (f->n_content_length > 1)
                w = "more than one Content-Length header: send one (xpud accepts no request body, so 0) or none";
        else if (f->bad_length)
                w = "Content-Length is not one decimal number: send one (xpud accepts no request body, so 0) or none";
        else if (f->n_content_length > 0 && f->n_transfer_encoding > 0)
                w = "Content-Length together with Transfer-Encoding: send neither (xpud accepts no request body)";
        if (why)
                *why = w;
        if (w)
                return XPUD_BODY_AMBIGUOUS;
        if (f->n_transfer_encoding > 0 || (f->n_content_length > 0 && f->content_length > 0))
                return XPUD_BODY_PRESENT;
        return XPUD_BODY_NONE;
}

const char *xpud_request_line_fault(const void *line, const char *method, const char *url, const char *version) {
        if (!line || (const char *)line + 1 != version)
                return XPUD_REQUEST_LINE_WHY;
        const char *method_end = url - 1;
        while (method_end > method && *method_end == ' ')
                method_end--;
        return xpud_request_bytes_ok(method, (size_t)(method_end - method)) ? NULL : XPUD_REQUEST_LINE_WHY;
}

/* /metrics: xpud_render_prom() has one body per snapshot and no route. */
static int render_prom(const struct xpud_snapshot *s, enum xpud_route route, char **ret, size_t *ret_len) {
        return xpud_render_prom(s, ret, ret_len);
}

/* The renderer of each cached route, by enum xpud_route. */
static const struct xpud_renderer renderers[_XPUD_ROUTE_CACHED_MAX] = {
        [XPUD_ROUTE_METRICS] = { render_prom, XPUD_CONTENT_TYPE_PROM },
        [XPUD_ROUTE_DEVICES] = { xpud_render_json, XPUD_CONTENT_TYPE_JSON },
        [XPUD_ROUTE_HEALTH] = { xpud_render_json, XPUD_CONTENT_TYPE_JSON },
        [XPUD_ROUTE_EVENTS] = { xpud_render_json, XPUD_CONTENT_TYPE_JSON },
        [XPUD_ROUTE_VERSION] = { xpud_render_json, XPUD_CONTENT_TYPE_JSON },
};

int xpud_route_body_held(struct xpud_snapshot *snap, enum xpud_route route, const struct xpud_body_holder *holder,
                         struct xpud_body *out) {
        if ((unsigned)route >= ELEMENTSOF(renderers))
                return -EINVAL;
        return xpud_snapshot_body(snap, route, &renderers[route], holder, out);
}

int xpud_route_body(struct xpud_snapshot *snap, enum xpud_route route, struct xpud_body *out) {
        return xpud_route_body_held(snap, route, NULL, out);
}
