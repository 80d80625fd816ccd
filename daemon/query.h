/* SPDX-License-Identifier: Apache-2.0 */
/* `xpud query`: a client of xpud's own socket, for images that have no curl and no shell
 * (`kubectl exec ds/xpud -- xpud query`, a Kubernetes exec probe). One GET over the UNIX socket,
 * the body to a stream, and an exit status a probe can use. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Largest answer accepted (a /metrics body of a large node is a few hundred KiB). */
#define XPUD_QUERY_MAX_BYTES (64u << 20)
/* Time allowed for connecting, sending and reading the whole answer. */
#define XPUD_QUERY_TIMEOUT_MS 10000

/* One parsed HTTP/1.1 answer: STATUS from the status line, BODY (not NUL-terminated) pointing
 * into the buffer given to xpud_query_parse_response(), or into a decoded copy for a chunked
 * body (then OWNED is true and xpud_query_response_done() frees it). */
struct xpud_query_response {
        int status;
        const char *body;
        size_t body_len;
        bool owned;
};

/* Parse the answer BUF (LEN bytes, read until the server closed, the request asks for
 * "Connection: close", or until the framing says it is complete) into *RET. Interim 1xx answers
 * (100 Continue) before the final one are skipped. Framing, in RFC 9112's order: Transfer-Encoding chunked, else
 * Content-Length (the body must be complete), else everything up to the end. Returns 0,
 * -EBADMSG for anything else (no "HTTP/1.x NNN" status line, headers without an end, a bad or
 * short length, a broken chunk), -ENOMEM. */
int xpud_query_parse_response(const char *buf, size_t len, struct xpud_query_response *ret);
void xpud_query_response_done(struct xpud_query_response *r);

/* Whether an answer means "healthy" for `xpud query`'s exit status: a 2xx status and, when the
 * body is a JSON object with a string "status" (/v1/health, /healthz, /readyz), that string is
 * "healthy", "ok" or "ready". A body with a NUL byte, or a JSON value followed by anything but
 * white space, is no healthy answer. Other 2xx bodies (/metrics, /v1/devices) are healthy as
 * answers. */
bool xpud_query_is_healthy(const struct xpud_query_response *r);

/* GET PATH (an absolute path, e.g. "/v1/health") from the xpud listening on SOCKET_PATH, write
 * the body to OUT (a newline added when the body lacks one) and return the exit status of
 * `xpud query`: 0 healthy (xpud_query_is_healthy), 1 anything else (an error line on stderr names
 * the socket and the fix when no answer came: no socket, refused, not allowed, timed out,
 * malformed). */
int xpud_query(const char *socket_path, const char *path, FILE *out);

/* ---- `xpud query --npd`: Node Problem Detector's custom-plugin protocol ------------------------
 * (node-problem-detector pkg/custompluginmonitor: exit 0 OK, 1 NonOK, 2 and above Unknown; NPD
 * keeps stdout, trimmed and cut to max_output_length bytes, 80 by default, as the condition's
 * message, and logs stderr.) */

/* The longest line `xpud query --npd` prints, bytes without the newline: NPD's default
 * max_output_length. */
#define XPUD_NPD_LINE_MAX 80
/* Bytes of a device's UUID named in the line ("GPU-307dcc96": enough to tell a node's GPUs apart). */
#define XPUD_NPD_ID_MAX 12

enum {
        XPUD_NPD_OK = 0,      /* no GPU at or above the level */
        XPUD_NPD_PROBLEM = 1, /* a GPU at or above the level */
        XPUD_NPD_UNKNOWN = 2, /* xpud unreachable or silent (before its first sample it does not answer),
                               * HTTP 503 (no snapshot) or another answer that is not /v1/health's */
};

/* The verdict on a /v1/health answer (HTTP_STATUS, BODY of LEN bytes) for NPD: the level is
 * "unhealthy" (DEGRADED false: condition XPUUnhealthy) or "degraded or worse" (DEGRADED true:
 * XPUDegraded). Writes one line into LINE (SIZE bytes; at most XPUD_NPD_LINE_MAX bytes of text,
 * no control characters, valid UTF-8 when the reasons are):
 *   OK        "OK: 10 GPUs, none unhealthy" (", 2 unknown" when devices are in state unknown)
 *   problem   "gpu 0 GPU-307dcc96: <its first reason, cut with ...> (+2 more)": the worst device
 *             (ties: the first listed, the lowest index), its UUID's first 12 bytes (else its PCI
 *             bus id) and "+N more" when N more devices are at or above the level
 *   unknown   "xpud has no sample yet (HTTP 503); ...", another HTTP status, a body that is not
 *             a /v1/health object with a devices list whose every state is known.
 * Returns XPUD_NPD_OK, XPUD_NPD_PROBLEM or XPUD_NPD_UNKNOWN. Pure. */
int xpud_npd_verdict(int http_status, const char *body, size_t len, bool degraded, char *line, size_t size);

/* `xpud query --npd[=degraded]`: GET /v1/health from SOCKET_PATH and print xpud_npd_verdict()'s
 * line to OUT; an xpud that cannot be reached gives "xpud unreachable: <why, without the socket's
 * path>" ("cannot connect: No such file or directory", "no answer within 10 s (first sample not
 * done, or busy)"; the whole error, socket included, to stderr). Returns the exit status:
 * XPUD_NPD_OK, _PROBLEM or _UNKNOWN. */
int xpud_query_npd(const char *socket_path, bool degraded, FILE *out);
