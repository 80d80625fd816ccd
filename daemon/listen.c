/* SPDX-License-Identifier: Apache-2.0 */
/* xpud's listening sockets: see listen.h. */
#include "listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "base/log.h"
#include "base/macro.h"
#include "base/str.h"
#include "server.h"

/* Group of the socket file when it exists. */
#define SOCKET_GROUP "xpud"
/* The lock file beside a socket bound here: "<socket>.lock". */
#define LOCK_SUFFIX ".lock"

/* The backlog of a socket bound here (the kernel caps it at net.core.somaxconn). */
#define LISTEN_BACKLOG 4096


static const struct xpud_options *opt;

void xpud_listen_init(const struct xpud_options *o) {
        opt = o;
}

/* Take the listeners systemd passed (LISTEN_FDS, LISTEN_FDNAMES; the variables are unset so the
 * vendor helpers do not see them). The UNIX one: the one named "api", else the first listening
 * AF_UNIX stream socket. A listening TCP socket named "metrics" becomes the TCP listener. Others
 * are closed. Returns 0 (U->fd stays -1 when systemd passed nothing) or -EINVAL (logged). */
int xpud_listen_take_fds(struct unix_listener *u, int *tcp_fd) {
        char **names = NULL;
        int n = sd_listen_fds_with_names(1, &names);
        if (n < 0) {
                log_error("LISTEN_FDS is set but unusable: %s", strerror(-n));
                return -EINVAL;
        }
        for (int pass = 0; pass < 2 && u->fd < 0; pass++)
                for (int i = 0; i < n && u->fd < 0; i++) {
                        int fd = SD_LISTEN_FDS_START + i;
                        bool named_api = names && names[i] && strcmp(names[i], FDNAME_API) == 0;
                        if ((pass == 1 || named_api) && sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) > 0)
                                u->fd = fd;
                }
        for (int i = 0; i < n; i++) {
                int fd = SD_LISTEN_FDS_START + i;
                bool named_metrics = names && names[i] && strcmp(names[i], FDNAME_METRICS) == 0;
                if (fd == u->fd)
                        continue;
                if (named_metrics && *tcp_fd < 0 && sd_is_socket_inet(fd, AF_UNSPEC, SOCK_STREAM, 1, 0) > 0) {
                        *tcp_fd = fd;
                        continue;
                }
                log_warning("ignoring socket %d (\"%s\") passed by systemd: not a listening AF_UNIX stream socket "
                            "named \"" FDNAME_API "\" nor a TCP one named \"" FDNAME_METRICS "\"",
                            fd, names && names[i] ? names[i] : "");
                close(fd);
        }
        for (int i = 0; names && names[i]; i++)
                free(names[i]);
        free(names);
        if (n > 0 && u->fd < 0) {
                log_error("systemd passed %d socket(s), none a listening AF_UNIX stream socket; check ListenStream= "
                          "in xpud.socket",
                          n);
                return -EINVAL;
        }
        u->inherited = u->fd >= 0;
        return 0;
}

/* Create DIR's missing components (0755). Sets *MADE when the last one was created here. */
static int mkdir_parents(char *dir, bool *made) {
        *made = false;
        for (char *p = dir + 1;; p++) {
                if (*p != '/' && *p != '\0')
                        continue;
                char c = *p;
                *p = '\0';
                int r = mkdir(dir, 0755);
                *p = c;
                if (r < 0 && errno != EEXIST)
                        return negative_errno();
                if (c == '\0') {
                        *made = r == 0;
                        return 0;
                }
        }
}

/* Run bind (CONNECT false) or connect of FD to the socket NAME of the directory DIR_FD (the one
 * open_socket_dir() checked), never through its path: with the directory as the working
 * directory for the call, so a directory swapped for another after the check (by whoever may
 * rename it or a parent) is not where the socket goes. xpud has no other thread yet. Returns 0
 * or -errno. */
static int socket_call_at(int fd, int dir_fd, const char *name, bool do_connect) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        if (strlen(name) >= sizeof sa.sun_path)
                return -ENAMETOOLONG;
        memcpy(sa.sun_path, name, strlen(name) + 1);
        _cleanup_close_ int cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (cwd < 0 || fchdir(dir_fd) < 0)
                return negative_errno();
        int r = do_connect ? connect(fd, (const struct sockaddr *)&sa, sizeof sa) : bind(fd, (const struct sockaddr *)&sa, sizeof sa);
        int e = errno;
        if (fchdir(cwd) < 0)
                return negative_errno(); /* cannot happen for a directory we were in; never go on elsewhere */
        errno = e;
        return r < 0 ? -e : 0;
}

static int bind_at(int fd, int dir_fd, const char *name) {
        int r = socket_call_at(fd, dir_fd, name, false);
        if (r < 0)
                errno = -r;
        return r;
}

/* Is a process listening on the UNIX socket NAME of DIR_FD? 1 yes (a full backlog, EAGAIN, counts
 * as yes: the connect does not block), 0 no (ECONNREFUSED: stale), -errno. */
static int socket_is_live_at(int dir_fd, const char *name) {
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return negative_errno();
        int r = socket_call_at(fd, dir_fd, name, true);
        if (r == 0 || r == -EAGAIN)
                return 1;
        return r == -ECONNREFUSED ? 0 : r;
}

/* Open the socket's directory DIR (O_PATH, not through a symlink) and check that nobody but root
 * and us can change what is in it (as sshd's StrictModes): owned by root, our euid or the --user
 * we are about to become (who serves the socket from then on, and needs the directory to remove
 * it at exit), not writable by group or others. Another user who could write there could swap
 * the socket for their own between our checks and clients' connects. Logs; returns the fd or
 * -errno. */
static int open_socket_dir(const char *dir) {
        _cleanup_close_ int fd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0) {
                log_error("cannot open the socket's directory %s: %m (a directory, not a symlink)", dir);
                return negative_errno();
        }
        bool owner_ok = st.st_uid == 0 || st.st_uid == geteuid() || (opt->user_set && st.st_uid == opt->user_uid);
        if (!owner_ok || (st.st_mode & (S_IWGRP | S_IWOTH))) {
                /* A shared directory (/tmp, sticky and writable by all) is for everybody: the fix is
                 * a directory of xpud's own, never a chmod of the shared one. */
                char owner[128] = "root";
                if (geteuid() != 0)
                        snprintf(owner, sizeof owner, "root or uid %u", (unsigned)geteuid());
                else if (opt->user_set && opt->user_uid != 0)
                        snprintf(owner, sizeof owner, "root or uid %u (--user %s)", (unsigned)opt->user_uid,
                                 opt->user);
                if (st.st_mode & S_ISVTX)
                        log_error("refusing the socket's directory %s (owner uid %u, mode %04o): a shared directory, "
                                  "where others could replace the socket; put the socket in a directory of its own "
                                  "that only %s can write, e.g. /run/xpud (mkdir -m 0755 /run/xpud) or d=$(mktemp -d)",
                                  dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), owner);
                else {
                        /* The fix for this directory: the owner, the mode, or both. */
                        char fix[PATH_MAX * 2 + 64];
                        snprintf(fix, sizeof fix, "%s%s%s%s%s", owner_ok ? "" : "chown root ", owner_ok ? "" : dir,
                                 owner_ok || !(st.st_mode & (S_IWGRP | S_IWOTH)) ? "" : " and ",
                                 st.st_mode & (S_IWGRP | S_IWOTH) ? "chmod go-w " : "",
                                 st.st_mode & (S_IWGRP | S_IWOTH) ? dir : "");
                        log_error("refusing the socket's directory %s (owner uid %u, mode %04o): others could replace "
                                  "the socket; it must be owned by %s and writable by its owner only (%s)",
                                  dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), owner, fix);
                }
                return -EPERM;
        }
        return TAKE_FD(fd);
}

/* The pid written into the lock file FD by its holder, or 0. */
static pid_t lock_file_pid(int fd) {
        char buf[32];
        ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
        uint64_t v;
        if (n <= 0)
                return 0;
        buf[n] = '\0';
        if (xpu_parse_u64(xpu_strstrip(buf), 10, &v) < 0 || v == 0 || v > INT_MAX)
                return 0;
        return (pid_t)v;
}

/* The lock file's name beside the socket NAME into BUF. Returns false when it does not fit. */
static bool lock_file_name(const char *name, char buf[static NAME_MAX + 1]) {
        return snprintf(buf, NAME_MAX + 1, "%s" LOCK_SUFFIX, name) < NAME_MAX + 1;
}

/* Open the lock file LOCK_NAME of the directory DIR_FD (PATH: the socket, for messages), made if
 * missing, and check it is one xpud could have made. Logs; returns the fd or -errno. */
static int open_lock_file(int dir_fd, const char *lock_name, const char *path) {
        _cleanup_close_ int fd =
                openat(dir_fd, lock_name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0) {
                log_error("cannot open the lock file %s" LOCK_SUFFIX ": %m (it must be a regular file xpud can write; "
                          "remove it if no xpud runs)",
                          path);
                return negative_errno();
        }
        if (!S_ISREG(st.st_mode)) {
                log_error("%s" LOCK_SUFFIX " is not a regular file; remove it or choose another --socket", path);
                return -EEXIST;
        }
        /* A hard link to another file (planted where the directory's owner could write) would
         * have that file truncated below; so would a file someone else made. */
        if (st.st_nlink != 1 || (st.st_uid != 0 && st.st_uid != geteuid() && !(opt->user_set && st.st_uid == opt->user_uid))) {
                log_error("%s" LOCK_SUFFIX " has %ju links and owner uid %u: not a lock file xpud made; remove it "
                          "(no xpud runs on it) or choose another --socket",
                          path, (uintmax_t)st.st_nlink, (unsigned)st.st_uid);
                return -EEXIST;
        }
        return TAKE_FD(fd);
}

/* Take the write lock on the lock file FD of the socket PATH. Logs; returns 0, -EADDRINUSE when
 * another process holds it (the message names its pid), or -errno. */
static int take_lock(int fd, const char *path) {
        for (unsigned attempt = 0;; attempt++) {
                struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
                if (fcntl(fd, F_SETLK, &fl) == 0)
                        return 0;
                if (errno != EAGAIN && errno != EACCES) {
                        log_error("cannot lock %s" LOCK_SUFFIX ": %m", path);
                        return negative_errno();
                }
                fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET };
                if (fcntl(fd, F_GETLK, &fl) < 0) {
                        log_error("cannot tell who holds %s" LOCK_SUFFIX ": %m", path);
                        return negative_errno();
                }
                if (fl.l_type == F_UNLCK && attempt < 3)
                        continue; /* released in between: try again */
                pid_t pid = fl.l_type != F_UNLCK && fl.l_pid > 0 ? fl.l_pid : lock_file_pid(fd);
                if (pid > 0)
                        log_error("another xpud (pid %d) is serving %s (it holds %s" LOCK_SUFFIX "); stop it or "
                                  "choose another --socket",
                                  (int)pid, path, path);
                else
                        log_error("another process is serving %s (it holds %s" LOCK_SUFFIX ", pid unknown); stop it "
                                  "or choose another --socket",
                                  path, path);
                return -EADDRINUSE;
        }
}

/* Is the file open at FD the one named NAME in the directory DIR_FD? */
static bool same_file_at(int fd, int dir_fd, const char *name) {
        struct stat held, now;
        return fstat(fd, &held) == 0 && fstatat(dir_fd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
               held.st_dev == now.st_dev && held.st_ino == now.st_ino;
}

/* Make this process the only one that serves the socket NAME of the directory DIR_FD (PATH, for
 * messages): a write lock on NAME.lock beside it, taken before the socket file is looked at and
 * held until the process exits. Checking for a live socket, removing a stale one, binding and
 * listening are separate steps, and two processes could interleave them (the second one removing
 * the socket the first just bound); under the lock only one process runs them. The lock goes with
 * the process (exit, crash, SIGKILL), so a lock file left behind does not block the next start.
 * A classic POSIX record lock (fcntl F_SETLK) rather than flock(2) or an OFD lock: F_GETLK then
 * names the holder's pid, and the vendor helper, forked without exec, does not inherit it. The
 * holder's pid is also written into the file, for people and for a holder in another PID
 * namespace (F_GETLK answers 0 for it).
 *
 * An xpud that stops removes the file while it still holds the lock (xpud_listen_remove()): a
 * process that opened it just before then gets the lock of a file no longer at the path, which
 * guards nothing, so once locked the file must still be the one at the path, else it is opened
 * (made) again. Logs; returns the fd, -EADDRINUSE when another process holds the lock (the
 * message names its pid), or -errno. */
static int lock_socket(int dir_fd, const char *name, const char *path) {
        char lock_name[NAME_MAX + 1];
        if (!lock_file_name(name, lock_name)) {
                log_error("--socket %s: the name is too long for its lock file %s" LOCK_SUFFIX, path, path);
                return -ENAMETOOLONG;
        }
        for (unsigned attempt = 0;; attempt++) {
                _cleanup_close_ int fd = open_lock_file(dir_fd, lock_name, path);
                if (fd < 0)
                        return fd;
                int r = take_lock(fd, path);
                if (r < 0)
                        return r;
                if (!same_file_at(fd, dir_fd, lock_name)) {
                        if (attempt < 16)
                                continue; /* removed by the xpud that held it: lock the new one */
                        log_error("%s" LOCK_SUFFIX " keeps being removed or replaced while xpud locks it", path);
                        return -EBUSY;
                }
                char pid[24];
                int n = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
                if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n)
                        log_info("cannot write the pid into %s" LOCK_SUFFIX ": %m (the lock holds all the same)", path);
                return TAKE_FD(fd);
        }
}

/* Do --allow-uid/--allow-gid admit someone who is neither root nor in group GID, the group the
 * socket keeps without an "xpud" group (mode 0660)? They could not connect. Any allowed uid other
 * than 0 counts, since its groups are not looked up here. */
static bool allowed_outside_group(const struct xpud_options *o, gid_t gid) {
        for (size_t i = 0; i < o->n_allow_uids; i++)
                if (o->allow_uids[i] != 0)
                        return true;
        for (size_t i = 0; i < o->n_allow_gids; i++)
                if (o->allow_gids[i] != gid)
                        return true;
        return false;
}

/* Bind the socket at PATH: the directory made if missing (0755) and checked (open_socket_dir), the
 * lock beside the socket taken (lock_socket: exactly one xpud binds a path), a live socket there
 * refused, a stale one (nobody listening) replaced, mode 0660 from the start
 * (umask around bind: no chmod by path afterwards), group "xpud" when that group exists (fchownat
 * in the checked directory, no symlink followed), listening. Logs; returns 0 or -errno. */
int xpud_listen_bind_unix(const char *path, struct unix_listener *u) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        if (strlen(path) >= sizeof sa.sun_path)
                return -ENAMETOOLONG; /* refused by the option parser already */
        memcpy(sa.sun_path, path, strlen(path) + 1);
        const char *slash = strrchr(path, '/');
        u->name = slash ? slash + 1 : path;
        if (!slash)
                snprintf(u->dir, sizeof u->dir, ".");
        else if (slash == path)
                snprintf(u->dir, sizeof u->dir, "/");
        else if ((size_t)(slash - path) >= sizeof u->dir)
                return -ENAMETOOLONG;
        else
                snprintf(u->dir, sizeof u->dir, "%.*s", (int)(slash - path), path);
        if (slash && slash != path) {
                int r = mkdir_parents(u->dir, &u->made_dir);
                if (r < 0) {
                        log_error("cannot create the directory %s: %s", u->dir, strerror(-r));
                        return r;
                }
        }
        u->dir_fd = open_socket_dir(u->dir);
        if (u->dir_fd < 0)
                return u->dir_fd;
        u->lock_fd = lock_socket(u->dir_fd, u->name, path);
        if (u->lock_fd < 0)
                return u->lock_fd;
        struct stat st;
        if (fstatat(u->dir_fd, u->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
                if (!S_ISSOCK(st.st_mode)) {
                        log_error("%s exists and is not a socket; remove it or choose another --socket", path);
                        return -EEXIST;
                }
                int live = socket_is_live_at(u->dir_fd, u->name);
                if (live > 0) {
                        log_error("another process is serving %s (xpud running already?); stop it or choose another "
                                  "--socket",
                                  path);
                        return -EADDRINUSE;
                }
                if (live < 0) {
                        log_error("cannot tell whether %s is in use: %s", path, strerror(-live));
                        return live;
                }
                if (unlinkat(u->dir_fd, u->name, 0) < 0 && errno != ENOENT) {
                        log_error("cannot remove the stale socket %s: %m", path);
                        return negative_errno();
                }
                log_info("replaced the stale socket %s", path);
        }
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        mode_t old = umask(0117); /* the socket is born 0660: no window with a wider mode */
        int r = bind_at(fd, u->dir_fd, u->name);
        umask(old);
        if (r < 0) {
                log_error("cannot bind %s: %m", path);
                return negative_errno();
        }
        u->created = true;
        if (fstatat(u->dir_fd, u->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
                u->dev = st.st_dev;
                u->ino = st.st_ino;
        }
        char buf[4096];
        struct group g, *gr = NULL;
        if (getgrnam_r(SOCKET_GROUP, &g, buf, sizeof buf, &gr) == 0 && gr) {
                if (fchownat(u->dir_fd, u->name, (uid_t)-1, gr->gr_gid, AT_SYMLINK_NOFOLLOW) < 0) {
                        log_error("cannot give %s to group " SOCKET_GROUP ": %m", path);
                        return negative_errno();
                }
        } else if (allowed_outside_group(opt, getegid())) {
                log_warning("no group \"" SOCKET_GROUP "\": %s stays root:%u mode 0660, so the users of "
                            "--allow-uid/--allow-gid cannot connect; create the group (systemd-sysusers "
                            "$PWD/packaging/systemd/xpud.sysusers in the source tree, or groupadd --system " SOCKET_GROUP
                            ") and restart, or "
                            "give --socket in a directory they can reach with a group they have",
                            path, (unsigned)getegid());
        } else {
                log_info("no group \"" SOCKET_GROUP "\": %s stays root-only (mode 0660, group %u)", path,
                         (unsigned)getegid());
        }
        if (listen(fd, LISTEN_BACKLOG) < 0) {
                log_error("cannot listen on %s: %m", path);
                return negative_errno();
        }
        u->fd = TAKE_FD(fd);
        return 0;
}

/* Is the socket's directory U->dir_fd owned by the --user uid (who can then remove the socket at
 * exit)? false when it cannot be told. */
bool xpud_listen_dir_owned_by_user(const struct unix_listener *u) {
        struct stat st;
        return u->dir_fd >= 0 && fstat(u->dir_fd, &st) == 0 && st.st_uid == opt->user_uid;
}

/* Remove the socket file at exit: only one bound here, and only while it is still the same file
 * (a newer xpud may have replaced it). Then the lock file, while its lock is still held (the
 * caller closes U->lock_fd afterwards): the next xpud may bind once the socket is gone, and one
 * that opened the lock file before it was removed finds it gone once it holds the lock, and
 * locks a new one (lock_socket()). */
void xpud_listen_remove(const struct unix_listener *u) {
        struct stat st;
        if (u->created && u->dir_fd >= 0 && fstatat(u->dir_fd, u->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            st.st_dev == u->dev && st.st_ino == u->ino && unlinkat(u->dir_fd, u->name, 0) < 0)
                log_info("cannot remove %s: %m (the next start replaces it)", opt->socket_path);
        char lock_name[NAME_MAX + 1];
        if (u->lock_fd < 0 || u->dir_fd < 0 || !lock_file_name(u->name, lock_name) ||
            !same_file_at(u->lock_fd, u->dir_fd, lock_name))
                return;
        if (unlinkat(u->dir_fd, lock_name, 0) < 0)
                log_info("cannot remove %s" LOCK_SUFFIX ": %m (it does not block the next start)", opt->socket_path);
}

/* Is SA a loopback address (127.0.0.0/8, ::1)? */
static bool is_loopback(const struct sockaddr_storage *sa) {
        if (sa->ss_family == AF_INET)
                return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
        return sa->ss_family == AF_INET6 && IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

/* --listen-tcp: bound, listening, close-on-exec. Logs; returns the fd or -errno. */
int xpud_listen_bind_tcp(void) {
        _cleanup_close_ int fd = socket(opt->tcp_addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0) {
                log_error("--listen-tcp %s: %m", opt->tcp_text);
                return negative_errno();
        }
        if (opt->tcp_addr.ss_family == AF_INET6)
                (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
        if (bind(fd, (struct sockaddr *)&opt->tcp_addr, opt->tcp_addr_len) < 0 || listen(fd, LISTEN_BACKLOG) < 0) {
                log_error("--listen-tcp %s: cannot listen: %m", opt->tcp_text);
                return negative_errno();
        }
        if (is_loopback(&opt->tcp_addr))
                log_info("serving /metrics without authentication on TCP %s (--listen-tcp)", opt->tcp_text);
        else
                log_warning("serving /metrics without authentication on TCP %s, not a loopback address: anyone who "
                            "can reach it reads /metrics and can hold its %d connections; bind 127.0.0.1 or a "
                            "firewalled node address (docs/xpud.md)",
                            opt->tcp_text, XPUD_TCP_CONNECTION_LIMIT);
        return TAKE_FD(fd);
}

