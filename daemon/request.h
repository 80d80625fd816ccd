/* SPDX-License-Identifier: Apache-2.0 */
/* What xpud makes of a request before it answers, as pure functions (no sockets, no
 * libmicrohttpd): the bytes of its request line, the route of its path, the percent-decoding of
 * the path, how its body is framed, the body a cached route answers, and the JSON error body. The server (server.c) calls them on every request; the unit
 * tests and the fuzz target (tests/fuzz/fuzz-xpud-route.c) call them directly. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"

#define XPUD_DEVICE_KEY_MAX 64 /* longest {key} of /v1/devices/{key} looked up, bytes */

/* What a request names: the result of xpud_route_parse(). */
enum xpud_target {
        XPUD_TARGET_HEALTHZ = 0,
        XPUD_TARGET_READYZ,
        XPUD_TARGET_CACHED, /* a cached route of the snapshot (xpud_request.route) */
        XPUD_TARGET_DEVICE, /* /v1/devices/{key} (xpud_request.key) */
};

struct xpud_request {
        enum xpud_target target;
        enum xpud_route route; /* XPUD_TARGET_CACHED: which body */
        const char *key;       /* XPUD_TARGET_DEVICE: points into the URL passed in */
};

/* Route METHOD and URL (the path, without the query string, as libmicrohttpd passes it).
 * METRICS_ONLY: the TCP listener (only /metrics exists). Returns the HTTP status: 200 and *RET
 * filled; 404 for an unknown path (or a device key longer than XPUD_DEVICE_KEY_MAX or not
 * printable); 405 for a method other than GET or HEAD on a known path. */
unsigned xpud_route_parse(const char *method, const char *url, bool metrics_only, struct xpud_request *ret);

/* Percent-decode URI in place (the server's MHD_OPTION_UNESCAPE_CALLBACK), as libmicrohttpd's own
 * decoder does ("%2f" and "%2F" are '/'; a '%' not followed by two hex digits stays as it is),
 * except that a URI holding "%00" is left undecoded, so it routes nowhere (404): a NUL would cut
 * the path short ("/metrics%00x" must not be "/metrics"). Returns the new length (strlen(URI)
 * afterwards, never more than before). */
size_t xpud_uri_unescape(char *uri);

/* The reason of the 400 for a request line that holds a control byte. */
#define XPUD_REQUEST_LINE_WHY                                                                                  \
        "the request line holds a control byte (a NUL, CR, tab or another byte below 0x20, or 0x7f): send "  \
        "printable bytes only, and percent-encode them in the path"

/* Whether the LEN bytes at P, a part of a request line (the method, or the request target with its
 * query), hold no control byte: none below 0x20 (NUL, tab, CR included) and no 0x7f, which RFC 9112
 * (section 3) allows in neither. Bytes above 0x7f are left to the route. */
bool xpud_request_bytes_ok(const char *p, size_t len);

/* Why the request line is refused (XPUD_REQUEST_LINE_WHY), or NULL. LINE: the end of the request
 * target as the URI log callback saw it (a C string, so a NUL the client sent ends it early), or
 * NULL. libmicrohttpd 0.9.75 cuts the line into C strings in place, in its read buffer: METHOD, a
 * NUL where the first space was, the spaces before the target, the target, a NUL where the space
 * before the version was, VERSION (8 bytes, checked by libmicrohttpd). The target held a NUL of its
 * own when LINE is not right before VERSION; the method's bytes are what lies before the NUL that
 * precedes URL's spaces, NULs the client sent included. */
const char *xpud_request_line_fault(const void *line, const char *method, const char *url, const char *version);

/* The JSON error body {"error": MESSAGE, "status": STATUS} (MESSAGE escaped as JSON needs),
 * malloc'ed, *LEN bytes without a trailing NUL (there is one). NULL on -ENOMEM. */
char *xpud_error_json(unsigned status, const char *message, size_t *len);

/* The value of one Content-Length field (RFC 9110 section 8.6: 1*DIGIT, with the optional
 * blanks, SP and HTAB, that may surround a field value): 0 and *RET, -EINVAL when it is not one
 * decimal number ("", "+5", "-0", "0x10", "5 5", "5,5"), -ERANGE when it does not fit in 64 bits.
 * Leading zeros are digits like any other ("007" is 7). */
int xpud_content_length_parse(const char *value, uint64_t *ret);

/* How a request's body is framed, from its header fields, collected with xpud_framing_add() and
 * judged by xpud_framing_body(). Start from a zeroed struct. */
struct xpud_framing {
        unsigned n_content_length;    /* Content-Length fields */
        unsigned n_transfer_encoding; /* Transfer-Encoding fields */
        bool bad_length;              /* a Content-Length value xpud_content_length_parse() refuses */
        bool bad_name;                /* a field name holding a blank ("Content-Length : 5") */
        bool folded_name;             /* a name that starts with Content-Length or Transfer-Encoding and
                                       * goes on ("Content-Length0": a folded line, as libmicrohttpd
                                       * joins it) */
        bool bare_cr;                 /* a CR in a field's name or value: one that did not end a line */
        uint64_t content_length;      /* the value of the (last) valid Content-Length, bytes */
};

/* Take one header field, NAME: VALUE, as the client sent it (NAME in any case; NULL VALUE is "").
 * Only Content-Length and Transfer-Encoding count, names with a blank in them, names that start
 * with one of those two and go on, and a CR anywhere in a name or value. */
void xpud_framing_add(struct xpud_framing *f, const char *name, const char *value);

/* What a request's framing says about its body. */
enum xpud_request_body {
        XPUD_BODY_NONE = 0,  /* none: no Content-Length nor Transfer-Encoding, or one Content-Length of 0 */
        XPUD_BODY_PRESENT,   /* one, framed one way only: a Content-Length above 0, or Transfer-Encoding */
        XPUD_BODY_AMBIGUOUS, /* two readers of the request could disagree where it ends (request
                              * smuggling): answer 400 and close the connection */
};

/* The verdict on F. Ambiguous, in this order (RFC 9112 sections 2.2, 5.1, 5.2, 6.1 and 6.3 allow or
 * require a 400 for each): a bare CR in a field (a reader that ends lines at a CR sees other
 * fields); a field name with a blank before its colon; a field name that starts
 * with Content-Length or Transfer-Encoding and goes on (a folded line); more than one
 * Content-Length field, equal or not; a Content-Length value that is not one decimal number;
 * Content-Length together with Transfer-Encoding. *WHY (may be NULL) is then the one-line reason for the 400
 * body, a static string; otherwise NULL. */
enum xpud_request_body xpud_framing_body(const struct xpud_framing *f, const char **why);

/* The body of the cached ROUTE for SNAP: xpud_snapshot_body() with the route's renderer from the
 * table of request.c (Prometheus text for /metrics, render-prom.h; JSON for the /v1 routes,
 * render-json.h), so every caller gets the one body cached with the snapshot. Returns 0 and *OUT,
 * -EINVAL for a route that is not cached, or -ENOMEM. */
int xpud_route_body(struct xpud_snapshot *snap, enum xpud_route route, struct xpud_body *out);
/* xpud_route_body() with HOLDER's object over the body in out->held (the server's response,
 * server.c; made once per body and kept with it, snapshot.h). The same returns, and -ENOMEM when
 * the hold failed. */
int xpud_route_body_held(struct xpud_snapshot *snap, enum xpud_route route, const struct xpud_body_holder *holder,
                         struct xpud_body *out);
