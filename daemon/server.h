/* SPDX-License-Identifier: Apache-2.0 */
/* xpud's HTTP/1.1 server: libmicrohttpd on pre-bound listening sockets, one
 * internal epoll thread per listener, a fixed route table, bodies taken only from the current
 * snapshot (snapshot.h) and never rendered or copied on the request path.
 *
 * Routes (GET and HEAD; any other method on a known path is 405 with "Allow: GET, HEAD"; an
 * unknown path is 404; every error has the body {"error": "...", "status": N}):
 *   /healthz                   200 {"status":"ok"} while the server runs
 *   /readyz                    200 {"status":"ready"} once a snapshot exists, else 503
 *   /v1/version /v1/devices /v1/health /v1/events /metrics
 *                              the snapshot's cached body (xpud_route_body, request.h), 503 before one
 *   /v1/devices/{key}          xpud_render_device_json(key): 200, or 404 for no such device
 * The TCP listener serves /metrics only (everything else 404) and checks no credentials. Before
 * the peer check and the route, a request whose end is unclear (xpud_framing_body(): two
 * Content-Length fields, one that is not a decimal number, Content-Length with Transfer-Encoding,
 * a blank or a folded line in a field name) gets one 400 and its connection is closed.
 *
 * Accepting: one accept thread takes every queued connection of both listeners at each wakeup
 * (so a client connecting and closing in a tight loop cannot keep the kernel's listen queue full)
 * and hands them to libmicrohttpd (MHD_add_connection; the daemons have no listening socket). A
 * UNIX connection's peer credentials are read and judged there, once (auth.h): the per-uid caps
 * below need the uid before the connection is handed over, and every request on it is answered
 * by that verdict (403 for a refused peer, its first refusal logged).
 *
 * Bodies: the snapshot keeps each cached body with the one libmicrohttpd response that sends it
 * (xpud_route_body_held(), snapshot.h), so a body is rendered once per snapshot, never copied,
 * and shared by every connection; the server keeps no cache of its own.
 *
 * Limits (a slow or hostile client never blocks others): on the UNIX socket at most
 * connection_limit connections, at most per_uid_limit per uid other than root, and at most
 * refused_limit per uid the allow lists refuse (they get 403); a connection over its uid's cap is
 * closed at accept, before any read (MHD's own per-IP limit ignores AF_UNIX). The TCP listener has
 * its own smaller caps (tcp_connection_limit in all, tcp_per_address_limit per client address,
 * tcp_timeout_s idle seconds), so filling it never costs the UNIX socket a connection.
 * timeout_s idle seconds per UNIX connection; memory_limit bytes per connection for the request
 * line and headers (a longer one gets 414/431 from libmicrohttpd); no request body is accepted
 * (400; 405 for other methods). A path holding %00 is 404; an absolute-form request target
 * ("GET http://host/metrics", RFC 9112 §3.2.2) is routed by its path. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "auth.h"
#include "request.h"
#include "snapshot.h"

#define XPUD_CONNECTION_LIMIT 1024      /* connections per listener (MHD_OPTION_CONNECTION_LIMIT) */
#define XPUD_PER_UID_CONNECTION_LIMIT 64 /* connections per non-root uid on the UNIX socket */
#define XPUD_REFUSED_CONNECTION_LIMIT 4 /* connections per refused uid (each gets its 403) */
#define XPUD_CONNECTION_TIMEOUT_S 10    /* idle seconds (MHD_OPTION_CONNECTION_TIMEOUT) */
#define XPUD_TCP_CONNECTION_LIMIT 64    /* connections of the TCP listener, all addresses */
#define XPUD_TCP_PER_ADDRESS_LIMIT 8    /* TCP connections per client address */
#define XPUD_TCP_TIMEOUT_S 5            /* idle seconds on TCP */
#define XPUD_CONNECTION_MEMORY 16384    /* bytes per connection (MHD_OPTION_CONNECTION_MEMORY_LIMIT); a scrape's request is < 1 KiB */

#define XPUD_CONTENT_TYPE_JSON "application/json"

struct xpud_server_config {
        struct xpud_store *store;  /* the snapshots to serve (not owned; outlives the server) */
        struct xpud_auth *auth;    /* the UNIX socket's policy (not owned); required with unix_fd */
        int unix_fd;               /* bound, listening AF_UNIX stream socket, or -1 */
        int tcp_fd;                /* bound, listening TCP socket for /metrics only, or -1 */
        unsigned connection_limit; /* UNIX listener; 0: XPUD_CONNECTION_LIMIT */
        unsigned per_uid_limit;    /* 0: XPUD_PER_UID_CONNECTION_LIMIT */
        unsigned refused_limit;    /* 0: XPUD_REFUSED_CONNECTION_LIMIT */
        unsigned timeout_s;        /* UNIX listener, idle seconds; 0: XPUD_CONNECTION_TIMEOUT_S */
        unsigned tcp_connection_limit; /* 0: XPUD_TCP_CONNECTION_LIMIT */
        unsigned tcp_per_address_limit; /* 0: XPUD_TCP_PER_ADDRESS_LIMIT */
        unsigned tcp_timeout_s;    /* idle seconds; 0: XPUD_TCP_TIMEOUT_S */
        size_t memory_limit;       /* 0: XPUD_CONNECTION_MEMORY */
        unsigned threads;          /* polling threads per listener; 0 or 1: one (MHD thread pool above) */
};

struct xpud_server;

/* Start serving. The listening fds stay the caller's (the server works on duplicates, closed at
 * stop), so the caller decides what happens to the socket file. Returns 0 and *RET, -EINVAL (no
 * listener, no store, a UNIX listener without auth), -ENOMEM, or -EIO when libmicrohttpd refuses
 * to start (its reason logged). Logs. */
int xpud_server_start(const struct xpud_server_config *c, struct xpud_server **ret);

/* Counters of the accept thread since start (tests, logs). */
struct xpud_server_stats {
        uint64_t accepted;         /* connections handed to libmicrohttpd (both listeners) */
        uint64_t closed_at_accept; /* UNIX connections closed at accept: over their uid's cap, or
                                    * credentials unreadable */
};

/* Copy the counters into *RET. Thread-safe. */
void xpud_server_get_stats(struct xpud_server *s, struct xpud_server_stats *ret);

/* Stop accepting, close every connection, join the threads, free. NULL-safe; returns NULL. */
struct xpud_server *xpud_server_stop(struct xpud_server *s);
