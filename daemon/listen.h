/* SPDX-License-Identifier: Apache-2.0 */
/* xpud's listening sockets: the ones systemd passed, else the UNIX socket bound here (its
 * directory checked, a lock beside it, a stale socket replaced) and --listen-tcp; at exit the
 * socket file removed while it is still ours, then the lock file. Reads the options given to xpud_listen_init(). */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "xpud-options.h"

/* Name of the UNIX listener passed by systemd (FileDescriptorName= in xpud.socket); a TCP
 * listener passed under the name "metrics" stands for --listen-tcp. */
#define FDNAME_API "api"
#define FDNAME_METRICS "metrics"

/* The UNIX listener and how it was obtained. */
struct unix_listener {
        int fd;
        bool inherited; /* from systemd: never unlinked */
        bool created;   /* bound here: removed at exit if still ours */
        dev_t dev;      /* the socket file bound, to recognise it at exit */
        ino_t ino;
        bool made_dir;  /* the parent directory was created here */
        char dir[PATH_MAX];
        int dir_fd;     /* O_PATH fd of the checked directory (bound here), or -1 */
        const char *name; /* the socket's name in it */
        int lock_fd;    /* NAME.lock in that directory, locked for the daemon's life, or -1 */
};

/* The options the functions below read (--socket, --user, --allow-*, --listen-tcp); kept, not
 * copied. */
void xpud_listen_init(const struct xpud_options *o);

/* Take the listeners systemd passed (LISTEN_FDS, LISTEN_FDNAMES; the variables are unset so the
 * vendor helpers do not see them). The UNIX one: the one named "api", else the first listening
 * AF_UNIX stream socket. A listening TCP socket named "metrics" becomes the TCP listener. Others
 * are closed. Returns 0 (U->fd stays -1 when systemd passed nothing) or -EINVAL (logged). */
int xpud_listen_take_fds(struct unix_listener *u, int *tcp_fd);

/* Bind the socket at PATH: the directory made if missing (0755) and checked (open_socket_dir), the
 * lock beside the socket taken (lock_socket: exactly one xpud binds a path), a live socket there
 * refused, a stale one (nobody listening) replaced, mode 0660 from the start
 * (umask around bind: no chmod by path afterwards), group "xpud" when that group exists (fchownat
 * in the checked directory, no symlink followed), listening. Logs; returns 0 or -errno. */
int xpud_listen_bind_unix(const char *path, struct unix_listener *u);

/* Is the socket's directory U->dir_fd owned by the --user uid (who can then remove the socket at
 * exit)? false when it cannot be told. */
bool xpud_listen_dir_owned_by_user(const struct unix_listener *u);

/* Remove the socket file at exit: only one bound here, and only while it is still the same file
 * (a newer xpud may have replaced it); then the lock file xpud holds, while it still holds it
 * (close U->lock_fd only afterwards). */
void xpud_listen_remove(const struct unix_listener *u);

/* --listen-tcp: bound, listening, close-on-exec. Logs; returns the fd or -errno. */
int xpud_listen_bind_tcp(void);
