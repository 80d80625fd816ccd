/* SPDX-License-Identifier: Apache-2.0 */
/* Peer-credential checks of xpud's UNIX socket (auth.h). */
#include "auth.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/macro.h"

void xpud_auth_init(struct xpud_auth *a, const uid_t *uids, size_t n_uids, const gid_t *gids, size_t n_gids) {
        *a = (struct xpud_auth){ .uids = uids, .n_uids = n_uids, .gids = gids, .n_gids = n_gids };
        pthread_mutex_init(&a->lock, NULL);
}

void xpud_auth_done(struct xpud_auth *a) {
        pthread_mutex_destroy(&a->lock);
}

static bool gid_listed(const struct xpud_auth *a, gid_t gid) {
        for (size_t i = 0; i < a->n_gids; i++)
                if (a->gids[i] == gid)
                        return true;
        return false;
}

static bool groups_listed(const struct xpud_auth *a, const gid_t *groups, size_t n_groups) {
        for (size_t i = 0; i < n_groups; i++)
                if (gid_listed(a, groups[i]))
                        return true;
        return false;
}

bool xpud_auth_allowed(const struct xpud_auth *a, uid_t uid, gid_t gid, const gid_t *groups, size_t n_groups) {
        if (uid == 0)
                return true;
        for (size_t i = 0; i < a->n_uids; i++)
                if (a->uids[i] == uid)
                        return true;
        return gid_listed(a, gid) || groups_listed(a, groups, n_groups);
}

/* Is one of the peer's supplementary groups (SO_PEERGROUPS, recorded at connect) listed? The
 * first try uses a stack buffer; a peer in more groups gets ERANGE and the size it needs. */
static bool peer_groups_listed(const struct xpud_auth *a, int fd) {
        gid_t small[64];
        _cleanup_free_ gid_t *big = NULL;
        gid_t *groups = small;
        socklen_t len = sizeof small;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0) {
                if (errno != ERANGE || len == 0 || len > 65536 * sizeof(gid_t))
                        return false; /* ENOPROTOOPT (kernel < 4.13): primary gid only */
                big = malloc(len);
                if (!big)
                        return false;
                groups = big;
                if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
                        return false;
        }
        return groups_listed(a, groups, len / sizeof(gid_t));
}

int xpud_auth_check_fd(const struct xpud_auth *a, int fd, struct xpud_peer *ret) {
        struct ucred cred;
        socklen_t len = sizeof cred;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
                return negative_errno();
        if (len != sizeof cred)
                return -EINVAL;
        /* Sockets without a connecting process (TCP, not connected) report uid and gid -1. */
        if (cred.uid == (uid_t)-1 || cred.gid == (gid_t)-1)
                return -EINVAL;
        struct xpud_peer p = { .pid = cred.pid, .uid = cred.uid, .gid = cred.gid };
        p.allowed = xpud_auth_allowed(a, cred.uid, cred.gid, NULL, 0);
        if (!p.allowed && a->n_gids > 0)
                p.allowed = peer_groups_listed(a, fd);
        *ret = p;
        return 0;
}

enum xpud_denial xpud_auth_note_denied(struct xpud_auth *a, const struct xpud_peer *peer) {
        enum xpud_denial d = XPUD_DENIAL_FIRST;
        pthread_mutex_lock(&a->lock);
        a->denied_total++;
        for (size_t i = 0; i < a->n_logged && d == XPUD_DENIAL_FIRST; i++)
                if (a->logged[i] == peer->uid)
                        d = XPUD_DENIAL_REPEATED;
        if (d == XPUD_DENIAL_FIRST) {
                if (a->n_logged < ELEMENTSOF(a->logged)) {
                        a->logged[a->n_logged++] = peer->uid;
                } else {
                        d = a->logged_full ? XPUD_DENIAL_REPEATED : XPUD_DENIAL_LOG_FULL;
                        a->logged_full = true;
                }
        }
        pthread_mutex_unlock(&a->lock);
        return d;
}
