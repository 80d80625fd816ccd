/* SPDX-License-Identifier: Apache-2.0 */
/* Who may use xpud's UNIX socket (docs/xpud.md "Security model").
 *
 * Two gates: the socket file's mode (0660, group xpud: connect(2) needs write permission on it),
 * then these allow lists, checked against the peer's credentials as the kernel recorded them at
 * connect(2) (SO_PEERCRED: pid, uid, primary gid; SO_PEERGROUPS: supplementary groups, Linux
 * 4.13+). Both come from the socket, not from /proc/<pid>, so a client cannot change them after
 * connecting and a reused pid cannot be mistaken for it. Root (uid 0) is always allowed. With no
 * --allow-uid and no --allow-gid, only root is allowed: the socket mode alone is not trusted.
 * The TCP listener (--listen-tcp) has no peer credentials and is not checked here. */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Distinct uids whose first denial is logged; later new uids are counted, not logged. */
#define XPUD_AUTH_LOGGED_MAX 256

/* A connected client, as the kernel saw it at connect(2). */
struct xpud_peer {
        pid_t pid;        /* SO_PEERCRED (the connecting process; it may have exited since) */
        uid_t uid;        /* SO_PEERCRED effective uid */
        gid_t gid;        /* SO_PEERCRED effective (primary) gid */
        bool allowed;     /* the decision of xpud_auth_check_fd() */
};

/* The policy: the resolved --allow-uid and --allow-gid lists (options.h). */
struct xpud_auth {
        const uid_t *uids;
        size_t n_uids;
        const gid_t *gids;
        size_t n_gids;
        /* Denials already logged (uids), under `lock`: a denied client retrying in a loop costs one
         * log line, not one per request. */
        pthread_mutex_t lock;
        uid_t logged[XPUD_AUTH_LOGGED_MAX];
        size_t n_logged;
        bool logged_full;         /* the "no longer logged" line was printed */
        uint64_t denied_total;    /* requests answered 403 since start */
};

/* Set up A for the lists (not copied: they must outlive A). */
void xpud_auth_init(struct xpud_auth *a, const uid_t *uids, size_t n_uids, const gid_t *gids, size_t n_gids);
void xpud_auth_done(struct xpud_auth *a);

/* The decision, pure: true when UID is 0, UID is in the uid list, or GID or one of GROUPS
 * (N_GROUPS supplementary gids) is in the gid list. */
bool xpud_auth_allowed(const struct xpud_auth *a, uid_t uid, gid_t gid, const gid_t *groups, size_t n_groups);

/* Read the credentials of the connected AF_UNIX socket FD and decide: SO_PEERCRED for pid, uid
 * and gid; when the gid lists do not settle it, SO_PEERGROUPS for the supplementary groups (a
 * kernel without it, ENOPROTOOPT: primary gid only). Returns 0 and *RET (ret->allowed set), or
 * -errno from getsockopt (-EBADF, -ENOTSOCK), or -EINVAL for a socket without a connecting process
 * (TCP, not connected: uid and gid -1). */
int xpud_auth_check_fd(const struct xpud_auth *a, int fd, struct xpud_peer *ret);

/* What the caller of xpud_auth_note_denied() logs. */
enum xpud_denial {
        XPUD_DENIAL_FIRST = 0,    /* first refusal of this uid: log it */
        XPUD_DENIAL_REPEATED,     /* logged before (or after the table filled up): stay quiet */
        XPUD_DENIAL_LOG_FULL,     /* a new uid, but XPUD_AUTH_LOGGED_MAX are logged: log once that
                                   * further new uids are not logged */
};

/* Record a request refused for PEER (counts denied_total) and say whether to log it: once per
 * uid, for the first XPUD_AUTH_LOGGED_MAX uids. Silent; thread-safe. */
enum xpud_denial xpud_auth_note_denied(struct xpud_auth *a, const struct xpud_peer *peer);
