/* SPDX-License-Identifier: Apache-2.0 */
/* xpud, the node daemon (design §6, issue 4): the process around the sampler and the server.
 *
 * Start order: options → signals blocked (read from a signalfd) → the listening sockets (from
 * systemd, else bound here) → privileges dropped (--user) → the first sample → the server → the
 * sampler thread → READY=1. Then the main thread waits on the signalfd, sending WATCHDOG=1 at half
 * the watchdog interval while samples keep coming; SIGTERM/SIGINT: STOPPING=1, server stopped,
 * sampler stopped, the socket file removed if this process created it, exit 0. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
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
#include "xpud-options.h"
#include "sampler.h"
#include "server.h"
#include "snapshot.h"

#define EXIT_USAGE 2
/* Open files wanted: every connection (two listeners) plus the sampler's and helpers' own. */
#define NOFILE_WANTED (2 * XPUD_CONNECTION_LIMIT + 256)
/* Group of the socket file when it exists (design §6). */
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
};

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

/* Is a process listening on the UNIX socket at SA? 1 yes (a full backlog, EAGAIN, counts as yes:
 * the connect does not block), 0 no (ECONNREFUSED: stale), -errno. */
static int socket_is_live(const struct sockaddr_un *sa) {
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return negative_errno();
        if (connect(fd, (const struct sockaddr *)sa, sizeof *sa) == 0 || errno == EAGAIN)
                return 1;
        return errno == ECONNREFUSED ? 0 : negative_errno();
}

/* Bind the socket at PATH: the directory made if missing (0755), a live socket there refused, a
 * stale one (nobody listening) replaced, mode 0660 from the start (umask around bind), group
 * "xpud" when that group exists, listening. Logs; returns 0 or -errno. */
static int bind_unix(const char *path, struct unix_listener *u) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        if (strlen(path) >= sizeof sa.sun_path) {
                log_error("--socket: \"%s\" is longer than %zu bytes (a limit of UNIX sockets); choose a shorter "
                          "path",
                          path, sizeof sa.sun_path - 1);
                return -ENAMETOOLONG;
        }
        memcpy(sa.sun_path, path, strlen(path) + 1);
        const char *slash = strrchr(path, '/');
        if (slash && slash != path) {
                size_t len = (size_t)(slash - path);
                if (len >= sizeof u->dir)
                        return -ENAMETOOLONG;
                memcpy(u->dir, path, len);
                u->dir[len] = '\0';
                int r = mkdir_parents(u->dir, &u->made_dir);
                if (r < 0) {
                        log_error("cannot create the directory %s: %s", u->dir, strerror(-r));
                        return r;
                }
        }
        struct stat st;
        if (lstat(path, &st) == 0) {
                if (!S_ISSOCK(st.st_mode)) {
                        log_error("%s exists and is not a socket; remove it or choose another --socket", path);
                        return -EEXIST;
                }
                int live = socket_is_live(&sa);
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
                if (unlink(path) < 0 && errno != ENOENT) {
                        log_error("cannot remove the stale socket %s: %m", path);
                        return negative_errno();
                }
                log_info("replaced the stale socket %s", path);
        }
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        mode_t old = umask(0117); /* the socket is born 0660: no window with a wider mode */
        int r = bind(fd, (struct sockaddr *)&sa, sizeof sa);
        umask(old);
        if (r < 0) {
                log_error("cannot bind %s: %m", path);
                return negative_errno();
        }
        u->created = true;
        if (lstat(path, &st) == 0) {
                u->dev = st.st_dev;
                u->ino = st.st_ino;
        }
        if (chmod(path, 0660) < 0) {
                log_error("cannot set the mode of %s: %m", path);
                return negative_errno();
        }
        char buf[4096];
        struct group g, *gr = NULL;
        if (getgrnam_r(SOCKET_GROUP, &g, buf, sizeof buf, &gr) == 0 && gr) {
                if (lchown(path, (uid_t)-1, gr->gr_gid) < 0) {
                        log_error("cannot give %s to group " SOCKET_GROUP ": %m", path);
                        return negative_errno();
                }
        } else {
                log_info("no group \"" SOCKET_GROUP "\": %s stays root-only (mode 0660, group %u)", path,
                         (unsigned)getegid());
        }
        if (listen(fd, SOMAXCONN) < 0) {
                log_error("cannot listen on %s: %m", path);
                return negative_errno();
        }
        u->fd = TAKE_FD(fd);
        return 0;
}

/* Remove the socket file at exit: only one bound here, and only while it is still the same file
 * (a newer xpud may have replaced it). */
static void remove_socket(const struct unix_listener *u) {
        struct stat st;
        if (!u->created || lstat(arg.socket_path, &st) < 0 || st.st_dev != u->dev || st.st_ino != u->ino)
                return;
        if (unlink(arg.socket_path) < 0)
                log_info("cannot remove %s: %m (the next start replaces it)", arg.socket_path);
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
        if (bind(fd, (struct sockaddr *)&arg.tcp_addr, arg.tcp_addr_len) < 0 || listen(fd, SOMAXCONN) < 0) {
                log_error("--listen-tcp %s: cannot listen: %m", arg.tcp_text);
                return negative_errno();
        }
        log_warning("serving /metrics without authentication on TCP %s (--listen-tcp)", arg.tcp_text);
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

/* ---- sampler and service manager ---------------------------------------------------------------- */

/* On the sampler thread after each snapshot: note the progress for the watchdog. */
static void on_sample(void *userdata, const struct xpud_snapshot *s) {
        atomic_store(&last_sample_s, monotonic_s());
}

/* The watchdog is fed only while samples keep coming: a sampler stuck longer than an interval
 * plus three vendor timeouts (each backend is bounded by one) and some slack is the "stale
 * values, /health still OK" failure (research/ecosystem.md §6), and systemd should restart us. */
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
        struct unix_listener u = { .fd = -1 };
        _cleanup_close_ int tcp_fd = -EBADF;
        struct xpud_store store;
        struct xpud_auth auth;
        struct xpud_sampler *smp = NULL;
        struct xpud_server *srv = NULL;
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
        xpud_store_init(&store);
        xpud_auth_init(&auth, arg.allow_uids, arg.n_allow_uids, arg.allow_gids, arg.n_allow_gids);

        if (take_listen_fds(&u, &tcp_fd) < 0)
                goto out;
        if (u.inherited)
                log_info("socket from systemd (fd %d)", u.fd);
        else if (bind_unix(arg.socket_path, &u) < 0)
                goto out;
        if (arg.tcp && tcp_fd < 0 && (tcp_fd = bind_tcp()) < 0)
                goto out;
        if (arg.user_set) {
                /* The socket's directory, when made here, goes to the user, so it can remove the
                 * socket file at exit. */
                if (u.made_dir && chown(u.dir, arg.user_uid, arg.user_gid) < 0)
                        log_warning("cannot give %s to %s: %m", u.dir, arg.user);
                if (drop_privileges() < 0)
                        goto out;
        }

        const struct xpud_sampler_options so = {
                .sys_root = arg.sys_root,
                .dev_root = arg.dev_root,
                .driver_root = arg.driver_root,
                .interval_s = arg.interval_s,
                .vendor_timeout_s = arg.vendor_timeout_s,
                .nfd_file = arg.nfd_file,
        };
        int r = xpud_sampler_new(&so, &store, on_sample, NULL, &smp);
        if (r < 0) {
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
        xpud_store_done(&store);
        xpud_auth_done(&auth);
        return ret;
}

int main(int argc, char **argv) {
        char err[512] = "";
        xpu_log_set_program("xpud");
        if (xpud_options_parse(argc, argv, &arg, err, sizeof err) < 0) {
                log_error("%s", err);
                return EXIT_USAGE;
        }
        if (arg.log_level >= 0)
                xpu_log_set_level((enum xpu_log_level)arg.log_level);
        switch (arg.action) {
        case XPUD_ACTION_HELP:
                xpud_options_usage(stdout);
                return EXIT_SUCCESS;
        case XPUD_ACTION_VERSION:
                printf("xpud %s\n", XPU_VERSION);
                return EXIT_SUCCESS;
        case XPUD_ACTION_RUN:
        default:
                return run();
        }
}
