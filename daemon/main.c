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
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>

#include "auth.h"
#include "base/log.h"
#include "base/macro.h"
#include "sandbox/privilege.h"
#include "sandbox/seccomp.h"
#include "kmsg.h"
#include "listen.h"
#include "query.h"
#include "xpud-options.h"
#include "sampler.h"
#include "server.h"
#include "snapshot.h"

#define EXIT_USAGE 2
/* Open files wanted: every connection (two listeners) plus the sampler's and helpers' own. */
#define NOFILE_WANTED (2 * XPUD_CONNECTION_LIMIT + 256)

static struct xpud_options arg;

/* Progress of the sampler, for the watchdog (CLOCK_MONOTONIC seconds of the last snapshot). */
static atomic_llong last_sample_s;

static long long monotonic_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long)ts.tv_sec;
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
        struct xpud_workloads *workloads = NULL;
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

        xpud_listen_init(&arg);
        if (xpud_listen_take_fds(&u, &tcp_fd) < 0)
                goto out;
        if (u.inherited)
                log_info("socket from systemd (fd %d)", u.fd);
        else if (xpud_listen_bind_unix(arg.socket_path, &u) < 0)
                goto out;
        if (tcp_fd >= 0 && !arg.tcp)
                log_warning("serving /metrics without authentication on the TCP socket \"" FDNAME_METRICS "\" "
                            "from systemd: anyone who can reach it reads /metrics (docs/xpud.md)");
        if (arg.tcp && tcp_fd < 0 && (tcp_fd = xpud_listen_bind_tcp()) < 0)
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
                else if (u.created && !u.made_dir && arg.user_uid != geteuid() && !xpud_listen_dir_owned_by_user(&u))
                        log_warning("--user %s: %s was not made by xpud, so %s cannot remove the socket at exit "
                                    "(the next start replaces it); let xpud make the directory, or give it to %s",
                                    arg.user, u.dir, arg.user, arg.user);
                if (drop_privileges() < 0)
                        goto out;
        }
        if (harden(filter) < 0)
                goto out;

        const struct xpud_workloads_options wo = {
                .socket_path = arg.pod_resources,
                .socket_given = arg.pod_resources != NULL,
                .interval_s = arg.interval_s,
                .cdi_spec_dirs = arg.cdi_spec_dirs,
                .dev_root = arg.dev_root,
                .labels = arg.workload_labels,
        };
        if (xpud_workloads_new(&wo, &workloads) < 0)
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
                .workloads = workloads,
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
        r = xpud_workloads_start(workloads);
        if (r < 0) {
                log_error("cannot start the pod-resources thread: %s", strerror(-r));
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
        workloads = xpud_workloads_free(workloads); /* after the sampler, which borrows it */
        if (u.fd >= 0)
                close(u.fd);
        xpud_listen_remove(&u);
        if (u.dir_fd >= 0)
                close(u.dir_fd);
        if (u.lock_fd >= 0) /* after the socket and the lock file are gone: the next xpud may bind */
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
                if (arg.query_npd)
                        return xpud_query_npd(arg.socket_path, arg.query_npd_degraded, stdout);
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
