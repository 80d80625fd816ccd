/* SPDX-License-Identifier: Apache-2.0 */
/* xpud, the node daemon: the process around the sampler and the server.
 *
 * Start order: options → signals blocked (read from a signalfd) → the seccomp filter built → the
 * listening sockets (from systemd, else bound here) → privileges dropped (--user) → hardened
 * (capabilities, no_new_privs, the "xpud" filter loaded) → the first sample → the
 * server → the sampler thread → READY=1. Then the main thread waits on the signalfd, sending WATCHDOG=1 at half
 * the watchdog interval while samples keep coming; SIGTERM/SIGINT: STOPPING=1, server stopped,
 * sampler stopped, the socket file removed if this process created it, exit 0. */
#include <errno.h>
#include <malloc.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>

#include "auth.h"
#include "base/fileio.h"
#include "base/log.h"
#include "base/macro.h"
#include "sandbox/privilege.h"
#include "sandbox/seccomp.h"
#include "kmsg.h"
#include "query.h"
#include "xpud-options.h"
#include "sampler.h"
#include "server.h"
#include "snapshot.h"

#define EXIT_USAGE 2
/* Open files wanted: every connection (two listeners) plus the sampler's and helpers' own. */
#define NOFILE_WANTED (2 * XPUD_CONNECTION_LIMIT + 256)
/* Group of the socket file when it exists. */
#define SOCKET_GROUP "xpud"
/* Name of the UNIX listener passed by systemd (FileDescriptorName= in xpud.socket); a TCP
 * listener passed under the name "metrics" stands for --listen-tcp. */
#define FDNAME_API "api"
#define FDNAME_METRICS "metrics"

static struct xpud_options arg;

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

/* The lock file beside a socket bound here: "<socket>.lock". */
#define LOCK_SUFFIX ".lock"

/* The backlog of a socket bound here (the kernel caps it at net.core.somaxconn). */
#define LISTEN_BACKLOG 4096

/* Progress of the sampler, for the watchdog (CLOCK_MONOTONIC seconds of the last snapshot). */
static atomic_llong last_sample_s;

static long long monotonic_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long)ts.tv_sec;
}

/* ---- sockets ------------------------------------------------------------------------------------ */

/* Take the listeners systemd passed (LISTEN_FDS, LISTEN_FDNAMES; the variables are unset so the
 * vendor helpers do not see them). The UNIX one: the one named "api", else the first listening
 * AF_UNIX stream socket. A listening TCP socket named "metrics" becomes the TCP listener. Others
 * are closed. Returns 0 (U->fd stays -1 when systemd passed nothing) or -EINVAL (logged). */
static int take_listen_fds(struct unix_listener *u, int *tcp_fd) {
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
        bool owner_ok = st.st_uid == 0 || st.st_uid == geteuid() || (arg.user_set && st.st_uid == arg.user_uid);
        if (!owner_ok || (st.st_mode & (S_IWGRP | S_IWOTH))) {
                /* A shared directory (/tmp, sticky and writable by all) is for everybody: the fix is
                 * a directory of xpud's own, never a chmod of the shared one. */
                char owner[128] = "root";
                if (geteuid() != 0)
                        snprintf(owner, sizeof owner, "root or uid %u", (unsigned)geteuid());
                else if (arg.user_set && arg.user_uid != 0)
                        snprintf(owner, sizeof owner, "root or uid %u (--user %s)", (unsigned)arg.user_uid,
                                 arg.user);
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

/* Make this process the only one that serves the socket NAME of the directory DIR_FD (PATH, for
 * messages): a write lock on NAME.lock beside it, taken before the socket file is looked at and
 * held until the process exits. Checking for a live socket, removing a stale one, binding and
 * listening are separate steps, and two processes could interleave them (the second one removing
 * the socket the first just bound); under the lock only one process runs them. The lock goes with
 * the process (exit, crash, SIGKILL), so a lock file left behind does not block the next start.
 * A classic POSIX record lock (fcntl F_SETLK) rather than flock(2) or an OFD lock: F_GETLK then
 * names the holder's pid, and the vendor helper, forked without exec, does not inherit it. The
 * holder's pid is also written into the file, for people and for a holder in another PID
 * namespace (F_GETLK answers 0 for it). Logs; returns the fd, -EADDRINUSE when another process
 * holds the lock (the message names its pid), or -errno. */
static int lock_socket(int dir_fd, const char *name, const char *path) {
        char lock_name[NAME_MAX + 1];
        if (snprintf(lock_name, sizeof lock_name, "%s" LOCK_SUFFIX, name) >= (int)sizeof lock_name) {
                log_error("--socket %s: the name is too long for its lock file %s" LOCK_SUFFIX, path, path);
                return -ENAMETOOLONG;
        }
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
        if (st.st_nlink != 1 || (st.st_uid != 0 && st.st_uid != geteuid() && !(arg.user_set && st.st_uid == arg.user_uid))) {
                log_error("%s" LOCK_SUFFIX " has %ju links and owner uid %u: not a lock file xpud made; remove it "
                          "(no xpud runs on it) or choose another --socket",
                          path, (uintmax_t)st.st_nlink, (unsigned)st.st_uid);
                return -EEXIST;
        }
        for (unsigned attempt = 0;; attempt++) {
                struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
                if (fcntl(fd, F_SETLK, &fl) == 0)
                        break;
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
        char pid[24];
        int n = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
        if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n)
                log_info("cannot write the pid into %s" LOCK_SUFFIX ": %m (the lock holds all the same)", path);
        return TAKE_FD(fd);
}

/* Bind the socket at PATH: the directory made if missing (0755) and checked (open_socket_dir), the
 * lock beside the socket taken (lock_socket: exactly one xpud binds a path), a live socket there
 * refused, a stale one (nobody listening) replaced, mode 0660 from the start
 * (umask around bind: no chmod by path afterwards), group "xpud" when that group exists (fchownat
 * in the checked directory, no symlink followed), listening. Logs; returns 0 or -errno. */
static int bind_unix(const char *path, struct unix_listener *u) {
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
        } else if (arg.n_allow_uids > 0 || arg.n_allow_gids > 0) {
                log_warning("no group \"" SOCKET_GROUP "\": %s stays root:%u mode 0660, so the users of "
                            "--allow-uid/--allow-gid cannot connect; create the group (systemd-sysusers "
                            "packaging/systemd/xpud.sysusers, or groupadd --system " SOCKET_GROUP ") and restart, or "
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
static bool dir_owned_by_user(const struct unix_listener *u) {
        struct stat st;
        return u->dir_fd >= 0 && fstat(u->dir_fd, &st) == 0 && st.st_uid == arg.user_uid;
}

/* Remove the socket file at exit: only one bound here, and only while it is still the same file
 * (a newer xpud may have replaced it). */
static void remove_socket(const struct unix_listener *u) {
        struct stat st;
        if (!u->created || u->dir_fd < 0 || fstatat(u->dir_fd, u->name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
            st.st_dev != u->dev || st.st_ino != u->ino)
                return;
        if (unlinkat(u->dir_fd, u->name, 0) < 0)
                log_info("cannot remove %s: %m (the next start replaces it)", arg.socket_path);
}

/* Is SA a loopback address (127.0.0.0/8, ::1)? */
static bool is_loopback(const struct sockaddr_storage *sa) {
        if (sa->ss_family == AF_INET)
                return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
        return sa->ss_family == AF_INET6 && IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

/* --listen-tcp: bound, listening, close-on-exec. Logs; returns the fd or -errno. */
static int bind_tcp(void) {
        _cleanup_close_ int fd = socket(arg.tcp_addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0) {
                log_error("--listen-tcp %s: %m", arg.tcp_text);
                return negative_errno();
        }
        if (arg.tcp_addr.ss_family == AF_INET6)
                (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
        if (bind(fd, (struct sockaddr *)&arg.tcp_addr, arg.tcp_addr_len) < 0 || listen(fd, LISTEN_BACKLOG) < 0) {
                log_error("--listen-tcp %s: cannot listen: %m", arg.tcp_text);
                return negative_errno();
        }
        if (is_loopback(&arg.tcp_addr))
                log_info("serving /metrics without authentication on TCP %s (--listen-tcp)", arg.tcp_text);
        else
                log_warning("serving /metrics without authentication on TCP %s, not a loopback address: anyone who "
                            "can reach it reads /metrics and can hold its %d connections; bind 127.0.0.1 or a "
                            "firewalled node address (docs/xpud.md)",
                            arg.tcp_text, XPUD_TCP_CONNECTION_LIMIT);
        return TAKE_FD(fd);
}

/* ---- privileges --------------------------------------------------------------------------------- */

/* Become --user, in this order: bounding set emptied (needs CAP_SETPCAP, so before the uid
 * changes), supplementary groups (initgroups), gid, uid (setres*: real, effective and saved, so
 * there is no way back), then no-new-privileges. Changing the uid away from 0 without KEEPCAPS
 * clears the permitted, effective and ambient capability sets. The vendor helper (NVML, ROCm SMI)
 * then runs as this user too (it switches to nobody itself only when it starts as root). */
static int drop_privileges(void) {
        if (geteuid() == arg.user_uid && getuid() == arg.user_uid) {
                log_info("running as %s already", arg.user);
                return 0;
        }
        for (unsigned long cap = 0; cap <= CAP_LAST_CAP; cap++)
                if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL) {
                        log_error("--user %s: cannot drop capability %lu from the bounding set: %m", arg.user, cap);
                        return negative_errno();
                }
        if (initgroups(arg.user, arg.user_gid) < 0 || setresgid(arg.user_gid, arg.user_gid, arg.user_gid) < 0 ||
            setresuid(arg.user_uid, arg.user_uid, arg.user_uid) < 0) {
                log_error("--user %s: cannot switch to uid %u gid %u: %m (xpud must start as root for --user)",
                          arg.user, (unsigned)arg.user_uid, (unsigned)arg.user_gid);
                return negative_errno();
        }
        if (arg.user_uid != 0 && setuid(0) == 0) {
                log_error("--user %s: could switch back to root; refusing to run", arg.user);
                return -EPERM;
        }
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
                log_error("--user %s: cannot set no-new-privileges: %m", arg.user);
                return negative_errno();
        }
        log_info("running as %s (uid %u, gid %u)", arg.user, (unsigned)arg.user_uid, (unsigned)arg.user_gid);
        return 0;
}

/* Capabilities xpud keeps when it still runs as uid 0 after binding (no --user): what its vendor
 * helper needs (probes/sandbox/isolate.h: a helper started as root switches to nobody and is
 * SIGKILLed by its parent at the end). Everything else goes, the bounding set included; with
 * --user (or started unprivileged) nothing is kept. */
static const int root_helper_caps[] = {
        CAP_SETUID, /* the helper's setresuid(nobody) */
        CAP_SETGID, /* the helper's setgroups(0) and setresgid(nogroup) */
        CAP_KILL,   /* SIGKILL to a helper that runs as nobody (and its process group) */
};

/* Threads of this process (entries of /proc/self/task), or -errno. */
static int count_threads(void) {
        _cleanup_closedir_ DIR *d = opendir("/proc/self/task");
        if (!d)
                return negative_errno();
        int n = 0;
        for (struct dirent *e; (e = readdir(d));)
                n += e->d_name[0] != '.';
        return n;
}

/* Harden this process after binding and --user, as xpuinit hardens a workload:
 * through xpu_privilege_apply() (the fixed order of probes/sandbox/privilege.h, ids unchanged):
 * bounding set emptied (when CAP_SETPCAP allows; otherwise it stays, unreachable under
 * no_new_privs), permitted = effective = root_helper_caps when still uid 0, else empty;
 * inheritable and ambient empty; PR_SET_NO_NEW_PRIVS; FILTER ("xpud", docs/seccomp.md) loaded.
 * All of these are per thread and inherited by threads and children created later, so it runs
 * before the first thread (checked: /proc/self/task). Logs; returns 0 or -errno. */
static int harden(const struct xpu_seccomp_program *filter) {
        int n = count_threads();
        if (n != 1) {
                log_error("cannot harden xpud: %d threads exist already (internal error)", n);
                return n < 0 ? n : -EBUSY;
        }
        uint64_t eff = 0, perm = 0, bnd = 0, want = 0;
        int r = xpu_capability_current(&eff, &perm, &bnd);
        if (r < 0) {
                log_error("cannot read xpud's capabilities: %s", strerror(-r));
                return r;
        }
        if (geteuid() == 0)
                for (size_t i = 0; i < ELEMENTSOF(root_helper_caps); i++)
                        want |= XPU_CAP_BIT(root_helper_caps[i]);
        struct xpu_privilege p = XPU_PRIVILEGE_INIT;
        p.keep = want & perm;
        p.bounding = eff & XPU_CAP_BIT(CAP_SETPCAP) ? 0 : bnd;
        p.seccomp = filter;
        char names[512];
        if (p.keep != want) {
                (void)xpu_capability_mask_to_names(want & ~perm, names, sizeof names);
                log_warning("xpud runs as root without %s: its vendor helper cannot switch to nobody and fails; "
                            "start xpud with them, or give --user",
                            names);
        }
        if (p.bounding)
                log_info("the capability bounding set stays as it is (no CAP_SETPCAP to empty it); no_new_privs "
                         "keeps it out of reach");
        r = xpu_privilege_prepare(&p);
        const char *step = "prepare";
        if (r == 0)
                r = xpu_privilege_apply(&p, &step);
        xpu_privilege_done(&p);
        if (r < 0) {
                log_error("cannot harden xpud at step %s: %s", step ? step : "?", strerror(-r));
                return r;
        }
        (void)xpu_capability_mask_to_names(p.keep, names, sizeof names);
        log_info("hardened: capabilities %s, no_new_privs, seccomp filter \"%s\" (%zu instructions)",
                 p.keep ? names : "none", xpu_seccomp_name(filter), xpu_seccomp_size(filter));
        return 0;
}

/* Room for XPUD_CONNECTION_LIMIT connections: raise the soft RLIMIT_NOFILE up to the hard one. */
static void raise_nofile(void) {
        struct rlimit rl;
        if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= NOFILE_WANTED)
                return;
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= NOFILE_WANTED ? NOFILE_WANTED : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur < NOFILE_WANTED)
                log_info("open files limited to %llu: fewer than %d connections fit", (unsigned long long)rl.rlim_cur,
                         XPUD_CONNECTION_LIMIT);
}

/* --cdi-dir, before privileges and the filter: the directory made when missing (/var/run/cdi is
 * not there until something makes it), and the roots the spec names made absolute (the engine
 * reads the spec from its own working directory). Returns 0 or -1 (logged). */
static int prepare_cdi_dir(void) {
        static char dev[PATH_MAX], driver[PATH_MAX];
        if (mkdir(arg.cdi_dir, 0755) < 0 && errno != EEXIST) {
                log_error("--cdi-dir %s: %m (make the directory, or give one that exists)", arg.cdi_dir);
                return -1;
        }
        if ((arg.dev_root && !realpath(arg.dev_root, dev)) || (arg.driver_root && !realpath(arg.driver_root, driver))) {
                log_error("--cdi-dir: cannot resolve --dev-root or --driver-root: %m");
                return -1;
        }
        if (arg.dev_root)
                arg.dev_root = dev;
        if (arg.driver_root)
                arg.driver_root = driver;
        return 0;
}

/* ---- sampler and service manager ---------------------------------------------------------------- */

/* On the sampler thread after each snapshot: note the progress for the watchdog. */
static void on_sample(void *userdata, const struct xpud_snapshot *s) {
        atomic_store(&last_sample_s, monotonic_s());
}

/* The watchdog is fed only while samples keep coming: a sampler stuck longer than an interval
 * plus three vendor timeouts (each backend is bounded by one) and some slack is the "stale
 * values, /health still OK" failure of GPU exporters, and systemd should restart us. */
static bool sampler_alive(void) {
        long long bound = (long long)arg.interval_s + 3LL * arg.vendor_timeout_s + 10;
        return monotonic_s() - atomic_load(&last_sample_s) <= bound;
}

/* Wait for SIGTERM/SIGINT on SFD; feed the watchdog meanwhile. SIGHUP is logged and ignored
 * (nothing to reload: options come from the command line). Returns the signal. */
static int wait_for_stop(int sfd) {
        uint64_t wd_usec = 0;
        int timeout_ms = -1;
        if (sd_watchdog_enabled(0, &wd_usec) > 0 && wd_usec > 0) {
                uint64_t ms = wd_usec / 2000;
                timeout_ms = ms < 1 ? 1 : ms > INT_MAX ? INT_MAX : (int)ms;
                log_info("watchdog every %d ms", timeout_ms);
        }
        bool warned = false;
        for (;;) {
                struct pollfd p = { .fd = sfd, .events = POLLIN };
                int r = poll(&p, 1, timeout_ms);
                if (r < 0 && errno != EINTR) {
                        log_error("poll: %m");
                        return SIGTERM;
                }
                if (timeout_ms >= 0) {
                        if (sampler_alive()) {
                                sd_notify(0, "WATCHDOG=1");
                                warned = false;
                        } else if (!warned) {
                                log_error("no sample for more than %u s: not feeding the watchdog",
                                          arg.interval_s + 3 * arg.vendor_timeout_s + 10);
                                warned = true;
                        }
                }
                if (r <= 0 || !(p.revents & POLLIN))
                        continue;
                struct signalfd_siginfo si;
                if (read(sfd, &si, sizeof si) != (ssize_t)sizeof si)
                        continue;
                if (si.ssi_signo == SIGHUP) {
                        log_info("SIGHUP ignored: nothing to reload (options come from the command line)");
                        continue;
                }
                return (int)si.ssi_signo;
        }
}

/* ---- main ------------------------------------------------------------------------------------------ */

static int run(void) {
        struct unix_listener u = { .fd = -1, .dir_fd = -1, .lock_fd = -1 };
        _cleanup_close_ int tcp_fd = -EBADF;
        struct xpud_store store;
        struct xpud_auth auth;
        struct xpud_sampler *smp = NULL;
        struct xpud_server *srv = NULL;
        struct xpu_seccomp_program *filter = NULL;
        int ret = EXIT_FAILURE;

        /* Signals are read from a signalfd; block them before any thread exists so every thread
         * (libmicrohttpd's, the sampler's) inherits the mask. */
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        signal(SIGPIPE, SIG_IGN);
        _cleanup_close_ int sfd = -EBADF;
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0 || (sfd = signalfd(-1, &mask, SFD_CLOEXEC)) < 0) {
                log_error("cannot set up signal handling: %m");
                return EXIT_FAILURE;
        }
        raise_nofile();
        /* Built early (parsing and allocation), loaded last, by harden(). */
        char err[512] = "";
        if (xpu_seccomp_build("xpud", -1, &filter, err, sizeof err) < 0) {
                log_error("%s", err[0] ? err : "cannot build the seccomp filter");
                return EXIT_FAILURE;
        }
        xpud_store_init(&store);
        xpud_auth_init(&auth, arg.allow_uids, arg.n_allow_uids, arg.allow_gids, arg.n_allow_gids);

        if (take_listen_fds(&u, &tcp_fd) < 0)
                goto out;
        if (u.inherited)
                log_info("socket from systemd (fd %d)", u.fd);
        else if (bind_unix(arg.socket_path, &u) < 0)
                goto out;
        if (tcp_fd >= 0 && !arg.tcp)
                log_warning("serving /metrics without authentication on the TCP socket \"" FDNAME_METRICS "\" "
                            "from systemd: anyone who can reach it reads /metrics (docs/xpud.md)");
        if (arg.tcp && tcp_fd < 0 && (tcp_fd = bind_tcp()) < 0)
                goto out;
        if (arg.cdi_dir && prepare_cdi_dir() < 0)
                goto out;
        /* The kernel log before privileges go: /dev/kmsg needs CAP_SYSLOG under dmesg_restrict. */
        int kmsg_fd = -1;
        if (arg.kmsg) {
                kmsg_fd = xpud_kmsg_open_path(arg.kmsg);
                if (kmsg_fd < 0 && arg.kmsg_set) {
                        log_error("--kmsg %s: %s", arg.kmsg, strerror(-kmsg_fd));
                        goto out;
                }
                if (kmsg_fd < 0)
                        log_info("kernel log events off: %s: %s (reading it needs root or CAP_SYSLOG; "
                                 "--kmsg none silences this)", arg.kmsg, strerror(-kmsg_fd));
        }
        if (arg.user_set) {
                /* The socket's directory, when made here, goes to the user, so it can remove the
                 * socket file at exit (through the checked fd: no path, no symlink followed). */
                if (u.made_dir && fchownat(u.dir_fd, "", arg.user_uid, arg.user_gid, AT_EMPTY_PATH) < 0)
                        log_warning("cannot give %s to %s: %m", u.dir, arg.user);
                else if (u.created && !u.made_dir && arg.user_uid != geteuid() && !dir_owned_by_user(&u))
                        log_warning("--user %s: %s was not made by xpud, so %s cannot remove the socket at exit "
                                    "(the next start replaces it); let xpud make the directory, or give it to %s",
                                    arg.user, u.dir, arg.user, arg.user);
                if (drop_privileges() < 0)
                        goto out;
        }
        if (harden(filter) < 0)
                goto out;

        const struct xpud_sampler_options so = {
                .sys_root = arg.sys_root,
                .dev_root = arg.dev_root,
                .driver_root = arg.driver_root,
                .interval_s = arg.interval_s,
                .vendor_timeout_s = arg.vendor_timeout_s,
                .nfd_file = arg.nfd_file,
                .cdi_dir = arg.cdi_dir,
                .cdi_host_root = arg.cdi_host_root,
                .kmsg_fd = kmsg_fd,
                .kmsg_path = arg.kmsg,
        };
        int r = xpud_sampler_new(&so, &store, on_sample, NULL, &smp);
        if (r < 0) {
                if (r == -ENOMEM) /* other errors are logged by the sampler, naming the root */
                        log_error("cannot set up the sampler: %s", strerror(-r));
                goto out;
        }
        r = xpud_sampler_sample(smp);
        if (r < 0) {
                log_error("the first sample failed: %s", strerror(-r));
                goto out;
        }
        atomic_store(&last_sample_s, monotonic_s());

        const struct xpud_server_config sc = {
                .store = &store,
                .auth = &auth,
                .unix_fd = u.fd,
                .tcp_fd = tcp_fd,
        };
        if (xpud_server_start(&sc, &srv) < 0)
                goto out;
        r = xpud_sampler_start(smp);
        if (r < 0) {
                log_error("cannot start the sampler thread: %s", strerror(-r));
                goto out;
        }
        struct xpud_snapshot *first = xpud_store_acquire(&store);
        sd_notifyf(0, "READY=1\nSTATUS=serving %zu device(s) on %s", first ? first->n_devices : 0,
                   u.inherited ? "the socket from systemd" : arg.socket_path);
        xpud_snapshot_unref(first);
        log_info("serving on %s%s%s", u.inherited ? "the socket from systemd" : arg.socket_path,
                 tcp_fd >= 0 ? " and TCP " : "", tcp_fd >= 0 ? (arg.tcp ? arg.tcp_text : "(from systemd)") : "");

        int sig = wait_for_stop(sfd);
        log_info("%s: stopping", sigabbrev_np(sig) ? sigabbrev_np(sig) : "signal");
        sd_notify(0, "STOPPING=1");
        ret = EXIT_SUCCESS;
out:
        srv = xpud_server_stop(srv);
        if (smp)
                smp = xpud_sampler_free(smp);
        if (u.fd >= 0)
                close(u.fd);
        remove_socket(&u);
        if (u.dir_fd >= 0)
                close(u.dir_fd);
        if (u.lock_fd >= 0) /* after the socket is gone: the next xpud may bind from here on */
                close(u.lock_fd);
        xpud_store_done(&store);
        xpud_auth_done(&auth);
        xpu_seccomp_free(filter);
        return ret;
}

int main(int argc, char **argv) {
        char err[512] = "";
        xpu_log_set_program("xpud");
        /* Each connection's memory pool (XPUD_CONNECTION_MEMORY) comes from malloc: mapped on its
         * own, it goes back to the kernel when the connection closes, instead of staying resident
         * in the serving thread's arena after a burst of clients (xpud's RSS stays under 8 MiB). */
        mallopt(M_MMAP_THRESHOLD, XPUD_CONNECTION_MEMORY);
        if (xpud_options_parse(argc, argv, &arg, err, sizeof err) < 0) {
                log_error("%s", err);
                return EXIT_USAGE;
        }
        if (arg.log_level >= 0)
                xpu_log_set_level((enum xpu_log_level)arg.log_level);
        switch (arg.action) {
        case XPUD_ACTION_HELP:
                if (arg.query_path)
                        xpud_query_usage(stdout);
                else
                        xpud_options_usage(stdout);
                return EXIT_SUCCESS;
        case XPUD_ACTION_QUERY:
                return xpud_query(arg.socket_path, arg.query_path, stdout);
        case XPUD_ACTION_VERSION:
                printf("xpud %s\n", XPU_VERSION);
                return EXIT_SUCCESS;
        case XPUD_ACTION_RUN:
        default:
                if (arg.user_set && geteuid() != 0 && arg.user_uid != geteuid()) {
                        log_error("--user needs xpud to start as root");
                        return EXIT_USAGE;
                }
                return run();
        }
}
