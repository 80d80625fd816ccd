/* SPDX-License-Identifier: Apache-2.0 */
/* xpud's HTTP server on libmicrohttpd (server.h). */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/macro.h"
#include "render-json.h"

#define CONTENT_TYPE_JSON XPUD_CONTENT_TYPE_JSON

/* ---- server state ----------------------------------------------------------------------------- */

/* Connections per uid on the UNIX socket (at most connection_limit distinct uids at once). */
struct uid_count {
        uid_t uid;
        unsigned n; /* 0: free slot */
};

/* One connection of the UNIX listener (MHD's socket context). */
struct conn {
        struct xpud_peer peer; /* read and judged once, at accept (admit_unix()) */
        bool counted;  /* holds the slot in the uid table that admit_unix() took */
        bool cred_err; /* no peer came with the connection (cannot happen: admit_unix() closes a
                        * connection whose credentials it cannot read): refused */
};

/* What admit_unix() gives libmicrohttpd as a UNIX connection's client address: the peer it read
 * and judged at accept. MHD_add_connection() keeps a copy of the address with the connection
 * (MHD_CONNECTION_INFO_CLIENT_ADDRESS gives it back), so the peer cannot be confused with another
 * connection's, and needs no table of our own. The address accept(2) returned says nothing: a
 * client's socket is usually unnamed, and a name would be the client's choice, not a credential. */
struct peer_address {
        sa_family_t family; /* AF_UNIX */
        struct xpud_peer peer;
};
/* Within what an AF_UNIX address may be, which libmicrohttpd copies whole at any version. */
_Static_assert(sizeof(struct peer_address) <= sizeof(struct sockaddr_un), "peer_address outgrows sockaddr_un");

struct xpud_server {
        struct xpud_store *store;
        pthread_mutex_t uid_lock; /* guards uids */
        struct xpud_auth *auth;
        unsigned per_uid_limit;
        unsigned refused_limit;
        struct MHD_Daemon *unix_d, *tcp_d;
        /* The accept thread: non-blocking duplicates of the listening sockets (-1: none), and an
         * eventfd that stops it. */
        int unix_lfd, tcp_lfd, stop_fd;
        pthread_t acceptor;
        bool acceptor_started;
        bool emfile_logged; /* the accept thread's "out of file descriptors" line (its own) */
        /* Connections handed to each daemon and not closed yet (+1 before MHD_add_connection, -1
         * at its CLOSED notification or a failed add), so the accept thread enforces the total caps
         * itself: libmicrohttpd 0.9.75 must never reach its own limit with added connections. */
        atomic_uint unix_live, tcp_live;
        unsigned unix_limit, tcp_limit;
        struct xpud_server_stats stats; /* counters of the accept thread, under uid_lock */
        /* A listener's handler closure: the server and whether it is the TCP one. */
        struct listener {
                struct xpud_server *srv;
                bool tcp;
        } unix_l, tcp_l;
        /* Fixed responses, made at start. The snapshots' bodies have theirs in the snapshot
         * (queue_cached()). */
        struct MHD_Response *healthz, *ready;
        struct uid_count *uids; /* per-uid table, n_uid_slots entries, under `uid_lock` */
        size_t n_uid_slots;
};

/* ---- responses -------------------------------------------------------------------------------- */

/* A response over BODY_LEN bytes at BODY owned by FREE_CB(CLS) (MHD calls it when the response is
 * destroyed), with CONTENT_TYPE. On failure, FREE_CB(CLS) has been called. */
static struct MHD_Response *make_response(const char *body, size_t body_len, const char *content_type,
                                          MHD_ContentReaderFreeCallback free_cb, void *cls) {
        struct MHD_Response *r =
                MHD_create_response_from_buffer_with_free_callback_cls(body_len, (void *)body, free_cb, cls);
        if (!r) {
                if (free_cb)
                        free_cb(cls);
                return NULL;
        }
        if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type) != MHD_YES) {
                MHD_destroy_response(r);
                return NULL;
        }
        return r;
}

/* Queue R (may be NULL: out of memory) with STATUS; drops the caller's reference to R. */
static enum MHD_Result queue(struct MHD_Connection *c, unsigned status, struct MHD_Response *r) {
        if (!r)
                return MHD_NO; /* MHD closes the connection */
        enum MHD_Result ret = MHD_queue_response(c, status, r);
        MHD_destroy_response(r);
        return ret;
}

/* Queue a fixed response (held by the server; not dropped). */
static enum MHD_Result queue_kept(struct MHD_Connection *c, unsigned status, struct MHD_Response *r) {
        return r ? MHD_queue_response(c, status, r) : MHD_NO;
}

/* An error response: {"error": MESSAGE, "status": STATUS}. CLOSE asks the client to go away
 * (Connection: close). */
static enum MHD_Result queue_error(struct MHD_Connection *c, unsigned status, const char *message, bool close) {
        size_t len = 0;
        char *body = xpud_error_json(status, message, &len);
        if (!body)
                return MHD_NO;
        struct MHD_Response *r = make_response(body, len, CONTENT_TYPE_JSON, free, body);
        if (!r)
                return MHD_NO;
        bool ok = true;
        if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
                ok = MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD") == MHD_YES;
        if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
                ok = ok && MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1") == MHD_YES;
        if (close)
                ok = ok && MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close") == MHD_YES;
        if (!ok) {
                MHD_destroy_response(r);
                return MHD_NO;
        }
        return queue(c, status, r);
}

/* The snapshot's holder of a cached body (snapshot.h): one libmicrohttpd response over it, made
 * with the body and shared by every connection that sends it (libmicrohttpd counts its users).
 * The response owns the bytes (freed by its free callback), so a connection still sending a body
 * keeps it alive after the snapshot is freed, and the snapshot, which drops its reference when
 * freed, is not kept alive by connections. */
static void *hold_body(char *data, size_t len, const char *content_type) {
        return make_response(data, len, content_type, free, data);
}

static void release_body(void *response) {
        MHD_destroy_response(response);
}

static const struct xpud_body_holder body_holder = { hold_body, release_body };

/* Queue the response for cached route ROUTE of SNAP: the snapshot's own, its body rendered once
 * per snapshot and never copied. No lock of ours: the response lives as long as SNAP, and the
 * caller holds a reference to SNAP until the response is queued (libmicrohttpd then holds its
 * own). */
static enum MHD_Result queue_cached(struct MHD_Connection *c, struct xpud_snapshot *snap, enum xpud_route route) {
        struct xpud_body body;
        if (xpud_route_body_held(snap, route, &body_holder, &body) < 0)
                return queue_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory rendering the response", true);
        return MHD_queue_response(c, MHD_HTTP_OK, body.held);
}

/* ---- requests ----------------------------------------------------------------------------------- */

/* The Content-Length field that on_request_line() puts first in every request's header list. Its
 * value is told from the client's fields by its address. */
static const char framing_name[] = MHD_HTTP_HEADER_CONTENT_LENGTH;
static const char framing_zero[] = "0";

/* The request context on_request_line() returns for a target that holds a control byte. */
static char bad_target;

/* MHD_OPTION_URI_LOG_CALLBACK, called once the request line is read and before any header field
 * is, with the target (URI) as the client sent it: neither split at '?' nor percent-decoded yet.
 *
 * The target's bytes are checked here, the only place that sees them raw: the end of the C
 * string (a NUL the client sent cuts it short) is returned as the request's context for
 * xpud_request_line_fault(), &bad_target for a control byte before it.
 *
 * Also: put a "Content-Length: 0" field of our own first in the request's header list. libmicrohttpd
 * 0.9.75 frames the body by the first Content-Length field only, and answers a value it cannot
 * parse ("+5", "5,5", "", one above 2^64) with a 400 or 413 of its own whose status line and
 * header block it sends twice, the second inside the body; on_request() never sees those
 * requests. With this field first, libmicrohttpd always reads a length of 0 and never answers by
 * itself, on_request() sees every field the client sent and judges the framing
 * (xpud_framing_body()), and a request it refuses is answered once, with its connection closed,
 * so bytes after the headers are never read as a second request. Returns the request's initial
 * context: NULL (on_request() keeps its own markers there). */
static void *on_request_line(void *cls, const char *uri, struct MHD_Connection *c) {
        /* Fails only when the request line filled the connection's memory: libmicrohttpd then
         * answers 414 before the headers matter. */
        (void)MHD_set_connection_value(c, MHD_HEADER_KIND, framing_name, framing_zero);
        size_t len = strlen(uri);
        return xpud_request_bytes_ok(uri, len) ? (void *)(uri + len) : &bad_target;
}


/* MHD_get_connection_values() iterator: every header field but ours into the framing. */
static enum MHD_Result add_framing_field(void *cls, enum MHD_ValueKind kind, const char *name, const char *value) {
        if (value != framing_zero)
                xpud_framing_add(cls, name, value);
        return MHD_YES;
}

/* What the request's header fields say about its body (*WHY: the reason when ambiguous). */
static enum xpud_request_body request_body(struct MHD_Connection *c, const char **why) {
        struct xpud_framing f = {};
        (void)MHD_get_connection_values(c, MHD_HEADER_KIND, add_framing_field, &f);
        return xpud_framing_body(&f, why);
}

/* 403 for a peer the allow lists refuse; the first refusal of each uid is logged. */
static enum MHD_Result refuse(struct xpud_server *s, struct MHD_Connection *c, const struct conn *cc) {
        char msg[160];
        if (!cc || cc->cred_err) {
                log_debug("refused a connection whose peer credentials could not be read");
                return queue_error(c, MHD_HTTP_FORBIDDEN, "peer credentials unavailable", true);
        }
        switch (xpud_auth_note_denied(s->auth, &cc->peer)) {
        case XPUD_DENIAL_FIRST:
                log_warning("refused uid %u (gid %u, pid %d): not root and not in --allow-uid/--allow-gid; "
                            "later refusals of this uid are not logged",
                            (unsigned)cc->peer.uid, (unsigned)cc->peer.gid, (int)cc->peer.pid);
                break;
        case XPUD_DENIAL_LOG_FULL:
                log_warning("refused uid %u; more than %d uids were refused, further new ones are not logged",
                            (unsigned)cc->peer.uid, XPUD_AUTH_LOGGED_MAX);
                break;
        case XPUD_DENIAL_REPEATED:
        default:
                break;
        }
        snprintf(msg, sizeof msg, "uid %u is not allowed on this socket (ask for --allow-uid or --allow-gid)",
                 (unsigned)cc->peer.uid);
        return queue_error(c, MHD_HTTP_FORBIDDEN, msg, true);
}

/* /v1/devices/{key}. */
static enum MHD_Result serve_device(struct MHD_Connection *c, struct xpud_snapshot *snap, const char *key) {
        char *json = NULL, msg[160];
        size_t len = 0;
        int r = xpud_render_device_json(snap, key, &json, &len);
        if (r == -ENOENT) {
                snprintf(msg, sizeof msg, "no device \"%s\" (give an index, a UUID or a PCI bus id from /v1/devices)",
                         key);
                return queue_error(c, MHD_HTTP_NOT_FOUND, msg, false);
        }
        if (r < 0 || !json)
                return queue_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory rendering the device", true);
        return queue(c, MHD_HTTP_OK, make_response(json, len, CONTENT_TYPE_JSON, free, json));
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **req_cls) {
        const struct listener *l = cls;
        struct xpud_server *s = l->srv;
        /* libmicrohttpd calls this at least twice per request: once with the headers, then once
         * per piece of body, then once with nothing. A response queued at the first call closes
         * the connection afterwards (0.9.75), so requests without a body are answered at the
         * second; a request with a body is refused at the first, and its body dropped. */
        static char first_seen, answered; /* markers in *req_cls: only their addresses matter */
        if (*req_cls == &answered) {
                *upload_data_size = 0;
                return MHD_YES;
        }
        /* The request line and the header fields are complete at the first call (*req_cls as
         * on_request_line() left it): judged once, and a request that comes back as first_seen
         * has no body. */
        const char *why = NULL;
        enum xpud_request_body framing = XPUD_BODY_NONE;
        if (*req_cls != &first_seen) {
                /* A request line refused is answered as a request whose end is unclear: 400,
                 * closed. */
                why = *req_cls == &bad_target ? XPUD_REQUEST_LINE_WHY
                                                  : xpud_request_line_fault(*req_cls, method, url, version);
                framing = why ? XPUD_BODY_AMBIGUOUS : request_body(c, &why);
                if (framing == XPUD_BODY_NONE) {
                        *req_cls = &first_seen;
                        return MHD_YES;
                }
        }
        bool body = framing != XPUD_BODY_NONE;
        *req_cls = &answered;
        const struct conn *cc = NULL;
        if (!l->tcp) {
                const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
                cc = ci ? ci->socket_context : NULL;
        }
        /* Before the peer check and the route: where this request ends is unclear (or its request
         * line is not what a proxy in front would read), so no answer but this one may go out on
         * the connection, whoever sent it. */
        if (framing == XPUD_BODY_AMBIGUOUS)
                return queue_error(c, MHD_HTTP_BAD_REQUEST, why, true);
        if (!l->tcp && (!cc || !cc->peer.allowed))
                return refuse(s, c, cc);
        struct xpud_request req;
        char msg[160];
        switch (xpud_route_parse(method, url, l->tcp, &req)) {
        case 200:
                break;
        case 405:
                snprintf(msg, sizeof msg, "method %.32s is not allowed: xpud is read-only (GET, HEAD)", method);
                return queue_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, msg, body);
        case 404:
        default:
                return queue_error(c, MHD_HTTP_NOT_FOUND,
                                   l->tcp ? "not found: this listener serves /metrics only"
                                          : "not found: see /v1/devices, /v1/health, /v1/events, /metrics",
                                   body);
        }
        if (body)
                return queue_error(c, MHD_HTTP_BAD_REQUEST, "request bodies are not accepted", true);
        if (req.target == XPUD_TARGET_HEALTHZ)
                return queue_kept(c, MHD_HTTP_OK, s->healthz);
        struct xpud_snapshot *snap = xpud_store_acquire(s->store);
        if (!snap)
                return queue_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "not ready: the first sample is not done yet",
                                   false);
        enum MHD_Result ret;
        switch (req.target) {
        case XPUD_TARGET_READYZ:
                ret = queue_kept(c, MHD_HTTP_OK, s->ready);
                break;
        case XPUD_TARGET_DEVICE:
                ret = serve_device(c, snap, req.key);
                break;
        case XPUD_TARGET_CACHED:
        case XPUD_TARGET_HEALTHZ:
        default:
                ret = queue_cached(c, snap, req.route);
                break;
        }
        xpud_snapshot_unref(snap);
        return ret;
}

/* ---- connections ------------------------------------------------------------------------------ */

/* Count a connection of UID. Returns false when UID already holds LIMIT connections. */
static bool uid_take(struct xpud_server *s, uid_t uid, unsigned limit) {
        struct uid_count *free_slot = NULL, *slot = NULL;
        bool ok = false;
        pthread_mutex_lock(&s->uid_lock);
        for (size_t i = 0; i < s->n_uid_slots && !slot; i++) {
                if (s->uids[i].n > 0 && s->uids[i].uid == uid)
                        slot = &s->uids[i];
                else if (s->uids[i].n == 0 && !free_slot)
                        free_slot = &s->uids[i];
        }
        if (!slot && free_slot) {
                slot = free_slot;
                slot->uid = uid;
        }
        if (slot && slot->n < limit) {
                slot->n++;
                ok = true;
        }
        pthread_mutex_unlock(&s->uid_lock);
        return ok;
}

static void uid_put(struct xpud_server *s, uid_t uid) {
        pthread_mutex_lock(&s->uid_lock);
        for (size_t i = 0; i < s->n_uid_slots; i++)
                if (s->uids[i].n > 0 && s->uids[i].uid == uid) {
                        s->uids[i].n--;
                        break;
                }
        pthread_mutex_unlock(&s->uid_lock);
}

/* At start: keep the peer admit_unix() read, judged and counted at accept, for the request
 * handler. At close: uncount and free. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code) {
        const struct listener *l = cls;
        struct xpud_server *s = l->srv;
        if (code == MHD_CONNECTION_NOTIFY_CLOSED)
                atomic_fetch_sub(l->tcp ? &s->tcp_live : &s->unix_live, 1);
        if (l->tcp)
                return;
        if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
                struct conn *cc = *socket_context;
                if (cc && cc->counted)
                        uid_put(s, cc->peer.uid);
                free(cc);
                *socket_context = NULL;
                return;
        }
        if (code != MHD_CONNECTION_NOTIFY_STARTED)
                return;
        struct conn *cc = calloc(1, sizeof *cc);
        if (!cc) {
                const union MHD_ConnectionInfo *fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
                if (fd)
                        (void)shutdown(fd->connect_fd, SHUT_RDWR);
                return;
        }
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        struct peer_address pa = {};
        if (ci && ci->client_addr)
                memcpy(&pa, ci->client_addr, sizeof pa); /* admit_unix() gave exactly these bytes */
        if (pa.family == AF_UNIX) {
                cc->peer = pa.peer;
                cc->counted = pa.peer.uid != 0; /* as admit_unix() counted it */
        } else {
                cc->cred_err = true;
        }
        *socket_context = cc;
}

/* ---- accepting ------------------------------------------------------------------------------ */

/* Connections taken from a listener per round before the other listener and the stop fd are
 * looked at again. */
#define ACCEPT_BATCH 1024

/* Give FD to daemon D, counted in *LIVE. Returns false when libmicrohttpd refused it (and closed
 * FD). */
static bool hand_over(struct MHD_Daemon *d, atomic_uint *live, int fd, const struct sockaddr *sa, socklen_t len) {
        atomic_fetch_add(live, 1);
        if (MHD_add_connection(d, fd, sa, len) == MHD_YES)
                return true;
        atomic_fetch_sub(live, 1);
        return false;
}

/* One connection just accepted on the UNIX listener. Its peer's credentials are read and judged
 * against the allow lists here, once for the connection's life (SO_PEERCRED and SO_PEERGROUPS
 * are what the kernel recorded at connect(2), fixed for the socket's life): here because the
 * per-uid caps need the uid before libmicrohttpd gets the connection. Refused at once (closed, no
 * work: no libmicrohttpd connection, no read) when the credentials cannot be read or its uid holds
 * its cap already (per_uid_limit, refused_limit for a uid the allow lists refuse); otherwise
 * counted against its uid and handed to libmicrohttpd with the peer as its address (struct
 * peer_address), where on_connection() keeps it for the requests and uncounts it at close.
 * Counted here, not when libmicrohttpd's thread starts the connection: a uid that connects and
 * closes in a tight loop could otherwise get thousands handed over before the first one is
 * counted, and fill the listener's cap with connections nobody reads (until their timeout),
 * locking root out. */
static void admit_unix(struct xpud_server *s, int fd) {
        struct peer_address pa = { .family = AF_UNIX };
        struct xpud_peer *peer = &pa.peer;
        bool admit = atomic_load(&s->unix_live) < s->unix_limit && xpud_auth_check_fd(s->auth, fd, peer) == 0 &&
                     (peer->uid == 0 || uid_take(s, peer->uid, peer->allowed ? s->per_uid_limit : s->refused_limit));
        pthread_mutex_lock(&s->uid_lock);
        if (admit)
                s->stats.accepted++;
        else
                s->stats.closed_at_accept++;
        pthread_mutex_unlock(&s->uid_lock);
        if (!admit) {
                close(fd);
                return;
        }
        if (!hand_over(s->unix_d, &s->unix_live, fd, (const struct sockaddr *)&pa, sizeof pa) && peer->uid != 0)
                uid_put(s, peer->uid);
}

/* Take every connection queued on listener LFD (at most ACCEPT_BATCH). */
static void accept_batch(struct xpud_server *s, int lfd, bool tcp) {
        for (unsigned n = 0; n < ACCEPT_BATCH; n++) {
                struct sockaddr_storage sa;
                socklen_t len = sizeof sa;
                int fd = accept4(lfd, (struct sockaddr *)&sa, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
                if (fd < 0) {
                        if (errno == EINTR || errno == ECONNABORTED)
                                continue;
                        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                                if (!s->emfile_logged)
                                        log_warning("cannot accept connections: %m; retrying (raise LimitNOFILE=)");
                                s->emfile_logged = true;
                                (void)poll(NULL, 0, 10); /* let connections close rather than spin */
                        }
                        return;
                }
                s->emfile_logged = false;
                if (tcp) {
                        bool admit = atomic_load(&s->tcp_live) < s->tcp_limit;
                        pthread_mutex_lock(&s->uid_lock);
                        if (admit)
                                s->stats.accepted++;
                        else
                                s->stats.closed_at_accept++;
                        pthread_mutex_unlock(&s->uid_lock);
                        /* libmicrohttpd applies the per-address cap and closes the excess. */
                        if (admit)
                                hand_over(s->tcp_d, &s->tcp_live, fd, (const struct sockaddr *)&sa, len);
                        else
                                close(fd);
                } else {
                        admit_unix(s, fd);
                }
        }
}

/* The accept thread: drains each listener's queue at every wakeup, so a client that connects and
 * closes in a tight loop cannot keep the kernel's queue full (others would get EAGAIN). */
static void *accept_main(void *arg) {
        struct xpud_server *s = arg;
        struct pollfd p[3] = {
                { .fd = s->stop_fd, .events = POLLIN },
                { .fd = s->unix_lfd, .events = POLLIN },
                { .fd = s->tcp_lfd, .events = POLLIN },
        };
        for (;;) {
                if (poll(p, ELEMENTSOF(p), -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        log_error("the accept thread stops: poll: %m");
                        break;
                }
                if (p[0].revents)
                        break;
                if (p[1].revents & POLLIN)
                        accept_batch(s, s->unix_lfd, false);
                if (p[2].revents & POLLIN)
                        accept_batch(s, s->tcp_lfd, true);
        }
        return NULL;
}

void xpud_server_get_stats(struct xpud_server *s, struct xpud_server_stats *ret) {
        pthread_mutex_lock(&s->uid_lock);
        *ret = s->stats;
        pthread_mutex_unlock(&s->uid_lock);
}

/* MHD_OPTION_UNESCAPE_CALLBACK: xpud_uri_unescape(). */
static size_t unescape_uri(void *cls, struct MHD_Connection *c, char *uri) {
        return xpud_uri_unescape(uri);
}

/* ---- start and stop ----------------------------------------------------------------------------- */

/* libmicrohttpd's messages (malformed requests, closed connections...): debug level. */
_printf_(2, 0) static void on_mhd_log(void *cls, const char *fmt, va_list ap) {
        char line[512];
        vsnprintf(line, sizeof line, fmt, ap);
        line[strcspn(line, "\n")] = '\0';
        log_debug("libmicrohttpd: %s", line);
}

/* A fixed JSON response whose body is static. */
static struct MHD_Response *static_json(const char *body) {
        return make_response(body, strlen(body), CONTENT_TYPE_JSON, NULL, NULL);
}

/* A non-blocking close-on-exec duplicate of the listening socket FD for the accept thread, or -1
 * (logged). */
static int dup_listener(int fd) {
        int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (dfd < 0) {
                log_error("cannot duplicate the listening socket: %m");
                return -1;
        }
        int fl = fcntl(dfd, F_GETFL);
        if (fl < 0 || fcntl(dfd, F_SETFL, fl | O_NONBLOCK) < 0) {
                log_error("cannot make the listening socket non-blocking: %m");
                close(dfd);
                return -1;
        }
        return dfd;
}

/* Start one libmicrohttpd daemon without a listening socket: the accept thread hands it the
 * connections (MHD_add_connection). The TCP one has its own, smaller caps. */
static struct MHD_Daemon *start_listener(struct xpud_server *s, const struct xpud_server_config *c,
                                         struct listener *l) {
        unsigned limit = c->connection_limit ? c->connection_limit : XPUD_CONNECTION_LIMIT;
        unsigned timeout = c->timeout_s ? c->timeout_s : XPUD_CONNECTION_TIMEOUT_S;
        if (l->tcp) {
                limit = c->tcp_connection_limit ? c->tcp_connection_limit : XPUD_TCP_CONNECTION_LIMIT;
                timeout = c->tcp_timeout_s ? c->tcp_timeout_s : XPUD_TCP_TIMEOUT_S;
        }
        size_t memory = c->memory_limit ? c->memory_limit : XPUD_CONNECTION_MEMORY;
        unsigned threads = c->threads > 1 ? c->threads : 1;
        unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | MHD_USE_ERROR_LOG |
                         MHD_USE_NO_LISTEN_SOCKET;
        if (l->tcp)
                s->tcp_limit = limit;
        else
                s->unix_limit = limit;
        struct MHD_OptionItem ops[] = {
                { MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)on_mhd_log, NULL }, /* first, to catch all */
                /* Above the accept thread's cap, which is the one that counts (see unix_live). */
                { MHD_OPTION_CONNECTION_LIMIT, limit + 16, NULL },
                { MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, l },
                { MHD_OPTION_CONNECTION_TIMEOUT, timeout, NULL },
                { MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)memory, NULL },
                /* Not MHD_OPTION_STRICT_FOR_CLIENT 1: libmicrohttpd 0.9.75 then answers an HTTP/1.1
                 * request without Host with its status line and headers twice. */
                { MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)unescape_uri, NULL },
                { MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)on_request_line, NULL },
                threads > 1 ? (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, threads, NULL }
                            : (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, timeout, NULL },
                /* Only the UNIX listener has peer credentials to check and count; on TCP, MHD's
                 * own per-address cap does the counting. */
                l->tcp ? (struct MHD_OptionItem){ MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                                                  c->tcp_per_address_limit ? c->tcp_per_address_limit
                                                                           : XPUD_TCP_PER_ADDRESS_LIMIT,
                                                  NULL }
                       : (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL },
                { MHD_OPTION_END, 0, NULL },
        };
        struct MHD_Daemon *d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, l, MHD_OPTION_ARRAY, ops,
                                                MHD_OPTION_END);
        if (!d)
                log_error("libmicrohttpd did not start on the %s listener (run with -v debug for its reason)",
                          l->tcp ? "TCP" : "UNIX");
        return d;
}

int xpud_server_start(const struct xpud_server_config *c, struct xpud_server **ret) {
        if (!c->store || (c->unix_fd < 0 && c->tcp_fd < 0) || (c->unix_fd >= 0 && !c->auth))
                return -EINVAL;
        struct xpud_server *s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;
        s->store = c->store;
        s->auth = c->auth;
        s->per_uid_limit = c->per_uid_limit ? c->per_uid_limit : XPUD_PER_UID_CONNECTION_LIMIT;
        s->refused_limit = c->refused_limit ? c->refused_limit : XPUD_REFUSED_CONNECTION_LIMIT;
        s->unix_lfd = s->tcp_lfd = s->stop_fd = -1;
        s->n_uid_slots = c->connection_limit ? c->connection_limit : XPUD_CONNECTION_LIMIT;
        s->unix_l = (struct listener){ .srv = s, .tcp = false };
        s->tcp_l = (struct listener){ .srv = s, .tcp = true };
        pthread_mutex_init(&s->uid_lock, NULL);
        s->uids = calloc(s->n_uid_slots, sizeof *s->uids);
        s->healthz = static_json("{\"status\":\"ok\"}");
        s->ready = static_json("{\"status\":\"ready\"}");
        if (!s->uids || !s->healthz || !s->ready) {
                xpud_server_stop(s);
                return -ENOMEM;
        }
        if ((c->unix_fd >= 0 && ((s->unix_lfd = dup_listener(c->unix_fd)) < 0 ||
                                 !(s->unix_d = start_listener(s, c, &s->unix_l)))) ||
            (c->tcp_fd >= 0 &&
             ((s->tcp_lfd = dup_listener(c->tcp_fd)) < 0 || !(s->tcp_d = start_listener(s, c, &s->tcp_l))))) {
                xpud_server_stop(s);
                return -EIO;
        }
        s->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        int r = s->stop_fd < 0 ? negative_errno() : -pthread_create(&s->acceptor, NULL, accept_main, s);
        if (r < 0) {
                log_error("cannot start the accept thread: %s", strerror(-r));
                xpud_server_stop(s);
                return r;
        }
        s->acceptor_started = true;
        *ret = s;
        return 0;
}

struct xpud_server *xpud_server_stop(struct xpud_server *s) {
        if (!s)
                return NULL;
        /* The accept thread first (nothing new is handed over), then the daemons: their threads
         * end and every connection is closed (notify CLOSED), so nothing touches the responses or
         * the tables below any more. */
        if (s->acceptor_started) {
                uint64_t one = 1;
                if (write(s->stop_fd, &one, sizeof one) != (ssize_t)sizeof one)
                        log_error("cannot stop the accept thread: %m");
                pthread_join(s->acceptor, NULL);
        }
        if (s->unix_d)
                MHD_stop_daemon(s->unix_d);
        if (s->tcp_d)
                MHD_stop_daemon(s->tcp_d);
        if (s->healthz)
                MHD_destroy_response(s->healthz);
        if (s->ready)
                MHD_destroy_response(s->ready);
        free(s->uids);
        if (s->unix_lfd >= 0)
                close(s->unix_lfd);
        if (s->tcp_lfd >= 0)
                close(s->tcp_lfd);
        if (s->stop_fd >= 0)
                close(s->stop_fd);
        pthread_mutex_destroy(&s->uid_lock);
        free(s);
        return NULL;
}
