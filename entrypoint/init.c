/* SPDX-License-Identifier: Apache-2.0 */
/* Launch and supervision of the workload (docs/supervision.md).
 *
 * xpu_supervise() starts the workload (clone(CLONE_VM | CLONE_VFORK), like posix_spawn) and
 * stays as its supervisor: every catchable signal is blocked in xpuinit and read from a
 * signalfd, forwarded to the workload (or its process group), zombies are reaped, SIGTERM and
 * SIGINT arm a grace timer that ends in SIGKILL, job-control stops reach a workload in an
 * orphaned process group as SIGSTOP, what the main process leaves behind is terminated and
 * reaped, and the workload's own exit status becomes xpuinit's. Once the workload runs nothing
 * here gives up: errors in the loop are retried or ignored, never returned. xpu_exec_workload()
 * is the --exec variant that prepares this process the same way and replaces it with the
 * workload. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "base/str.h"
#include "base/log.h"
#include "sandbox/privilege.h"
#include "base/signals.h"
#include "base/strv.h"
#include "base/macro.h"
#include "entrypoint/init.h"
#include "entrypoint/init-exec.h"
#include "entrypoint/init-procs.h"

/* Why the child failed before its exec, sent to the supervisor over a CLOEXEC pipe (EOF on the
 * pipe means the exec succeeded). */
enum child_stage {
        CHILD_STAGE_SETUP = 1, /* the child_setup hook failed */
        CHILD_STAGE_EXEC = 2,  /* execve failed (or nothing found in PATH) */
};
struct child_report {
        int stage;        /* enum child_stage */
        int err;          /* positive errno */
        const char *step; /* SETUP: the privilege step that failed (a literal of privilege.c), or NULL */
};

/* Everything the child needs, prepared before clone so the child allocates nothing (it shares
 * our memory until it execs). */
struct launch {
        char *const *argv;
        char **envp;           /* the workload's environment; LISTEN_PID points into listen_pid */
        int listen_pid_index;  /* index of LISTEN_PID in envp, -1 when not passed on */
        char listen_pid[32];   /* "LISTEN_PID=<pid>", filled in the child */
        unsigned listen_fds;   /* socket-activation fds kept open at 3.., 0 when none */
        bool own_group;        /* the child gets its own process group */
        bool foreground;       /* ... and that group becomes the terminal's foreground group */
        bool pdeathsig;        /* SIGKILL the child when PARENT dies */
        pid_t parent;
        int report_fd;         /* write end of the report pipe, -1 in --exec mode */
        int report_rd;         /* its read end (xpuinit's: never the workload's), -1 in --exec mode */
        int signal_fd;         /* xpuinit's signalfd, -1 in --exec mode */
        const struct xpu_supervise_options *o;
};

/* Copy ENVP into L->envp (the pointer array only; free it) and find the socket-activation fds
 * (sd_listen_fds(3)): they are ours to pass on when LISTEN_FDS is set and LISTEN_PID names this
 * process; LISTEN_PID is then rewritten to the child's pid in the child. Returns 0 or -ENOMEM. */
static int launch_init(struct launch *l, char *const argv[], char *const envp[],
                       const struct xpu_supervise_options *o) {
        size_t n = 0;
        while (envp && envp[n])
                n++;
        *l = (struct launch){ .argv = argv, .listen_pid_index = -1, .parent = getpid(),
                              .report_fd = -1, .report_rd = -1, .signal_fd = -1, .o = o };
        l->envp = calloc(n + 1, sizeof(char *));
        if (!l->envp)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                l->envp[i] = envp[i];
                if (strncmp(envp[i], "LISTEN_PID=", 11) == 0)
                        l->listen_pid_index = (int)i;
        }

        const char *fds = xpu_env_get(envp, "LISTEN_FDS"), *pid = xpu_env_get(envp, "LISTEN_PID");
        uint64_t nfds = 0, lpid = 0;
        if (fds && pid && xpu_parse_u64(fds, 10, &nfds) == 0 && xpu_parse_u64(pid, 10, &lpid) == 0 &&
            lpid == (uint64_t)l->parent && nfds < INT_MAX - 3)
                l->listen_fds = (unsigned)nfds;
        else
                l->listen_pid_index = -1; /* not ours: leave the variables as they are */
        return 0;
}

/* Mark every fd above 2 close-on-exec, except the socket-activation fds, which lose it. Silent,
 * best effort: close_range(CLOSE_RANGE_CLOEXEC) (Linux 5.11), else fcntl on each fd up to the
 * fd limit. */
static void fds_prepare(const struct launch *l) {
        unsigned first = 3 + l->listen_fds;
        if (close_range(first, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
                struct rlimit rl;
                unsigned max = 65536;
                if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < max)
                        max = (unsigned)rl.rlim_cur;
                for (unsigned fd = first; fd < max; fd++) {
                        int flags = fcntl((int)fd, F_GETFD);
                        if (flags >= 0)
                                (void)fcntl((int)fd, F_SETFD, flags | FD_CLOEXEC);
                }
        }
        for (unsigned fd = 3; fd < first; fd++) {
                if ((int)fd == l->report_fd || (int)fd == l->report_rd || (int)fd == l->signal_fd)
                        continue; /* LISTEN_FDS larger than what was passed: not these */
                int flags = fcntl((int)fd, F_GETFD);
                if (flags >= 0)
                        (void)fcntl((int)fd, F_SETFD, flags & ~FD_CLOEXEC);
        }
}

/* Set by xpu_supervise() once it has reset the ignored signals: the child inherits that. */
static bool dispositions_clean;

/* Default disposition for every signal and an empty signal mask, as a freshly started program
 * expects (SIG_IGN survives exec; handlers do not). */
static void signals_reset(void) {
        sigset_t none;
        if (!dispositions_clean)
                xpu_signals_ignored_to_default(NULL, NULL);
        sigemptyset(&none);
        (void)sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Set PR_SET_PDEATHSIG and close the race with a parent that died before it took effect. */
static void pdeathsig_arm(const struct launch *l) {
        if (!l->pdeathsig)
                return;
        (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != l->parent) /* kill(getpid()): raise() would aim at the parent's thread id */
                (void)kill(getpid(), SIGKILL);
}

/* Prepare this process for the workload and exec it. Returns only on failure, with the stage in
 * *RET_STAGE (and the failed privilege step in *RET_STEP) and a positive errno. */
static int launch_exec(struct launch *l, int *ret_stage, const char **ret_step) {
        if (l->listen_pid_index >= 0) {
                (void)snprintf(l->listen_pid, sizeof(l->listen_pid), "LISTEN_PID=%d", (int)getpid());
                l->envp[l->listen_pid_index] = l->listen_pid;
        }
        fds_prepare(l);
        if (l->o && l->o->child_setup) {
                int r = l->o->child_setup(l->o->userdata);
                if (r < 0) {
                        *ret_stage = CHILD_STAGE_SETUP;
                        return -r;
                }
                /* Changing credentials clears the parent-death signal: set it again. */
                pdeathsig_arm(l);
        }
        signals_reset();
        if (l->o && l->o->privilege) {
                /* The privileged sequence (privilege.c); a copy on this stack, not an allocation. */
                struct xpu_privilege pv = *l->o->privilege;
                pv.close_fds = true;
                pv.n_inherit = l->listen_fds;
                pv.keep_fd = l->report_fd;
                pv.pdeathsig = l->pdeathsig ? SIGKILL : 0;
                pv.pdeathsig_parent = l->parent;
                int r = xpu_privilege_apply(&pv, ret_step);
                if (r < 0) {
                        *ret_stage = CHILD_STAGE_SETUP;
                        return -r;
                }
        }
        int r = xpu_exec_search(l->argv, l->envp);
        *ret_stage = CHILD_STAGE_EXEC;
        return -r;
}

/* The child between clone and exec: shares xpuinit's memory (xpuinit waits), signals still blocked. */
_Noreturn static void child_run(struct launch *l) {
        pdeathsig_arm(l);
        if (l->own_group) {
                (void)setpgid(0, 0);
                if (l->foreground) {
                        /* tcsetpgrp from a group that is not (yet) the foreground one raises
                         * SIGTTOU unless it is ignored. */
                        struct sigaction ign = { .sa_handler = SIG_IGN }, old;
                        sigemptyset(&ign.sa_mask);
                        (void)sigaction(SIGTTOU, &ign, &old);
                        (void)tcsetpgrp(STDIN_FILENO, getpgrp());
                        (void)sigaction(SIGTTOU, &old, NULL);
                }
        }
        int stage = 0;
        const char *step = NULL;
        int err = launch_exec(l, &stage, &step);
        struct child_report rep = { .stage = stage, .err = err, .step = step };
        (void)!write(l->report_fd, &rep, sizeof(rep));
        _exit(stage == CHILD_STAGE_SETUP ? XPU_STATUS_SETUP
              : err == ENOENT            ? XPU_STATUS_NOTFOUND
                                         : XPU_STATUS_NOEXEC);
}

static int child_entry(void *arg) _unused_;
static int child_entry(void *arg) {
        child_run(arg);
}

/* Status xpuinit exits with for a wait status: the exit code, or 128+N for signal N. */
static int status_from_wait(int st) {
        if (WIFEXITED(st))
                return WEXITSTATUS(st);
        if (WIFSIGNALED(st))
                return XPU_STATUS_SIGNAL_BASE + WTERMSIG(st);
        return XPU_STATUS_SETUP; /* not reached: stopped children are not reported */
}

static int64_t now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Supervisor state. */
struct supervisor {
        pid_t self;          /* xpuinit's pid */
        pid_t child;
        pid_t target;        /* where signals go: child, or -child with --group */
        bool own_group;      /* the child leads its own process group */
        bool reaper;         /* PID 1 or child subreaper: every orphan of the workload comes to us */
        bool pid1;           /* PID 1 of a pid namespace */
        bool children_left;  /* the last waitpid(-1, WNOHANG) said some child is still running */
        pid_t stopped;       /* where a SIGSTOP for job control went (child or -child), 0 when none */
        int64_t kill_at_ms;  /* CLOCK_MONOTONIC deadline for SIGKILL, -1 when not armed */
        int64_t grace_end_ms; /* the first such deadline (kept once it passed), -1 before any */
        unsigned grace_s;
        bool exited;
        int wait_status;
};

/* Reap every zombie without blocking; note the workload's own status, and whether children are
 * left (waitpid returned 0, not ECHILD): that costs nothing more than the loop itself. */
static void reap(struct supervisor *s) {
        for (;;) {
                int st;
                pid_t pid = waitpid(-1, &st, WNOHANG);
                if (pid < 0 && errno == EINTR)
                        continue;
                if (pid <= 0) {
                        s->children_left = pid == 0; /* -1 ECHILD: none at all */
                        return;
                }
                if (pid == s->child) {
                        s->exited = true;
                        s->wait_status = st;
                }
        }
}

/* SIGTSTP, SIGTTIN and SIGTTOU stop a process only when its process group is not orphaned; in an
 * orphaned group the kernel discards them when their action is the default (POSIX job control).
 * The group is orphaned when xpuinit leads a session whose parent is outside it, as a container's
 * PID 1 does: forwarded, ^Z or `docker kill -s TSTP` would do nothing. Then the workload gets
 * SIGSTOP instead, its whole group when it leads one of its own (xpuinit's group holds xpuinit,
 * which never stops). A workload that catches or ignores SIG gets SIG itself: it is its to
 * handle. /proc is read only here, when such a signal arrives; when it cannot be read, the
 * action counts as the default and the group as orphaned (SIGSTOP then stops what SIG would).
 * Returns true when SIGSTOP was sent instead of SIG. */
static bool job_stop(struct supervisor *s, int sig) {
        int action = xpu_proc_signal_action(s->child, sig);
        if (action == XPU_SIGNAL_CAUGHT || action == XPU_SIGNAL_IGNORED)
                return false;
        /* The workload's own view: it may have made a group or session of its own. */
        struct xpu_proc_stat st;
        if (xpu_proc_stat_read(s->child, &st) < 0) {
                st.pgrp = s->own_group ? s->child : getpgrp();
                st.session = getsid(0);
        }
        if (xpu_proc_pgrp_orphaned(st.pgrp, st.session) == 0)
                return false;
        pid_t to = st.pgrp == s->child ? -s->child : s->child;
        log_debug("SIG%s for an orphaned process group (the kernel would discard it): sending SIGSTOP to %d",
                  sigabbrev_np(sig), (int)to);
        if (kill(to, SIGSTOP) == 0)
                s->stopped = to;
        return true;
}

/* Forward one signal read from the signalfd. */
static void forward(struct supervisor *s, int sig) {
        if (sig == SIGCHLD)
                return; /* ours: handled by reap() */
        if ((sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) && job_stop(s, sig))
                return;
        if (kill(s->target, sig) < 0)
                log_debug("forwarding signal %d to %d: %m", sig, (int)s->target);
        if (sig == SIGCONT) {
                /* A group stopped for job control resumes as a whole. */
                if (s->stopped != 0 && s->stopped != s->target)
                        (void)kill(s->stopped, SIGCONT);
                s->stopped = 0;
        }
        if ((sig == SIGTERM || sig == SIGINT) && s->kill_at_ms < 0) {
                s->kill_at_ms = now_ms() + (int64_t)s->grace_s * 1000;
                if (s->grace_end_ms < 0)
                        s->grace_end_ms = s->kill_at_ms;
        }
}

/* Read every queued signal from SFD and act on it. */
static void drain_signals(struct supervisor *s, int sfd) {
        struct signalfd_siginfo si[16];
        for (;;) {
                ssize_t n = read(sfd, si, sizeof(si));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return;
                for (size_t i = 0; i < (size_t)n / sizeof(si[0]); i++) {
                        /* The kernel's SIGPIPE (or SIGXFSZ) for a write of xpuinit's own, to a
                         * closed stderr say, comes as SI_USER from our own pid (send_sig());
                         * xpuinit never signals itself otherwise. It is not the workload's. */
                        if (si[i].ssi_code == SI_USER && (pid_t)si[i].ssi_pid == s->self)
                                continue;
                        forward(s, (int)si[i].ssi_signo);
                }
        }
}

/* The supervision loop; returns once the workload's main process has been reaped. */
static void supervise_loop(struct supervisor *s, int sfd) {
        for (;;) {
                reap(s);
                if (s->exited)
                        return;
                int timeout = -1;
                if (s->kill_at_ms >= 0) {
                        int64_t left = s->kill_at_ms - now_ms();
                        if (left <= 0) {
                                log_info("workload still running %u s after SIGTERM/SIGINT: "
                                         "sending SIGKILL", s->grace_s);
                                (void)kill(s->target, SIGKILL);
                                s->kill_at_ms = -1;
                                continue;
                        }
                        timeout = left > INT_MAX ? INT_MAX : (int)left;
                }
                struct pollfd p = { .fd = sfd, .events = POLLIN };
                if (poll(&p, 1, timeout) > 0)
                        drain_signals(s, sfd);
                /* poll errors (EINTR, ENOMEM) are retried: never give up on a running workload */
        }
}

/* How often the processes left behind are listed again while they are given time to end: an
 * orphan reparented to us from deeper down the tree raises no SIGCHLD here. */
#define LEFTOVER_SCAN_MS 50
/* How long processes that got SIGKILL may take to be reaped before xpuinit exits without them (a
 * task in uninterruptible sleep cannot die until the driver lets go). */
#define LEFTOVER_KILL_WAIT_MS 1000

/* The processes that got SIG already (children are listed every LEFTOVER_SCAN_MS). */
struct leftovers {
        pid_t *sent;
        size_t n_sent, cap_sent;
        bool no_proc_logged;
        bool group_gone; /* the workload's process group was found empty: its number is free for
                          * reuse, so it is never signalled again */
};

/* Whether the workload's process group still has a member (kill(-pgid, 0)); once it is found
 * empty it stays gone, whatever later takes the number. */
static bool leftovers_group_alive(const struct supervisor *s, struct leftovers *l) {
        if (!l->group_gone && kill(-s->child, 0) < 0 && errno == ESRCH)
                l->group_gone = true;
        return !l->group_gone;
}

/* Forget the signalled pids that are no longer among our children KIDS (reaped): a new orphan
 * that gets such a pid again is another process, and gets its own SIGTERM. */
static void leftovers_prune(struct leftovers *l, const pid_t *kids, size_t n) {
        size_t w = 0;
        for (size_t i = 0; i < l->n_sent; i++)
                for (size_t j = 0; j < n; j++)
                        if (kids[j] == l->sent[i]) {
                                l->sent[w++] = l->sent[i];
                                break;
                        }
        l->n_sent = w;
}

static bool leftovers_sent(const struct leftovers *l, pid_t pid) {
        for (size_t i = 0; i < l->n_sent; i++)
                if (l->sent[i] == pid)
                        return true;
        return false;
}

/* Remember PID as signalled. Without memory it is signalled again on the next round: harmless. */
static void leftovers_note(struct leftovers *l, pid_t pid) {
        if (l->n_sent == l->cap_sent) {
                size_t ncap = l->cap_sent * 2 + 16;
                pid_t *n = realloc(l->sent, ncap * sizeof(pid_t));
                if (!n)
                        return;
                l->sent = n;
                l->cap_sent = ncap;
        }
        l->sent[l->n_sent++] = pid;
}

/* Send SIG to what the workload left: as PID 1 every other process of the namespace (kill(-1));
 * else the rest of its process group when it has one of its own, and each child of ours (orphans
 * reparented to the subreaper) not signalled yet, each process once. A child stays our unreaped child until we reap
 * it, so its pid cannot name another process meanwhile. SIGCONT follows SIGTERM, so that a stopped
 * process sees it. */
static void leftovers_signal(const struct supervisor *s, struct leftovers *l, int sig, bool first) {
        if (s->pid1) {
                if (first || sig == SIGKILL)
                        (void)kill(-1, sig);
                if (first && sig == SIGTERM)
                        (void)kill(-1, SIGCONT);
                return;
        }
        if (s->own_group && first && leftovers_group_alive(s, l)) {
                (void)kill(-s->child, sig);
                if (sig == SIGTERM)
                        (void)kill(-s->child, SIGCONT);
        }
        _cleanup_free_ pid_t *kids = NULL;
        size_t n = 0;
        int r = xpu_proc_children(s->self, &kids, &n);
        if (r < 0) {
                if (!l->no_proc_logged)
                        log_warning("cannot list the processes the workload left behind (/proc: %s); only its "
                                    "process group is signalled",
                                    strerror(-r));
                l->no_proc_logged = true;
                return;
        }
        leftovers_prune(l, kids, n);
        for (size_t i = 0; i < n; i++) {
                if (sig != SIGKILL && leftovers_sent(l, kids[i]))
                        continue;
                /* The group's members got it with the group: a second SIGTERM would run a
                 * handler twice (and many programs take it as "quit now"). */
                if (sig != SIGKILL && s->own_group && getpgid(kids[i]) == s->child) {
                        leftovers_note(l, kids[i]);
                        continue;
                }
                (void)kill(kids[i], sig);
                if (sig == SIGTERM)
                        (void)kill(kids[i], SIGCONT);
                if (sig != SIGKILL)
                        leftovers_note(l, kids[i]);
        }
}

/* Once the main process is gone, nothing it started may outlive xpuinit: SIGTERM to what is left
 * (leftovers_signal()), reaping it as it ends, SIGKILL to whatever is still there when the grace
 * period is over (the one that started with a forwarded SIGTERM/SIGINT, even when it is over
 * already, else --grace from now), and xpuinit exits once all are reaped. When the last waitpid() found no child at all and
 * every orphan comes to us, nothing can be left and nothing is read from /proc. Signals arriving
 * meanwhile are read and dropped: the workload they were for is gone. */
static void end_leftovers(struct supervisor *s, int sfd) {
        if (!s->children_left && (s->reaper || !s->own_group))
                return;
        struct leftovers l = { 0 };
        int64_t deadline = s->grace_end_ms >= 0 ? s->grace_end_ms : now_ms() + (int64_t)s->grace_s * 1000;
        int sig = SIGTERM;
        leftovers_signal(s, &l, sig, true);
        for (;;) {
                reap(s);
                if (!s->children_left)
                        break;
                int64_t now = now_ms();
                if (now >= deadline) {
                        if (sig == SIGKILL) {
                                log_warning("processes the workload left behind did not die after SIGKILL; "
                                            "exiting without them");
                                break;
                        }
                        log_info("processes the workload left behind still run at the end of the grace period "
                                 "(--grace %u): sending SIGKILL",
                                 s->grace_s);
                        sig = SIGKILL;
                        deadline = now + LEFTOVER_KILL_WAIT_MS;
                        leftovers_signal(s, &l, sig, true);
                        continue;
                }
                struct pollfd p = { .fd = sfd, .events = POLLIN };
                int64_t left = deadline - now;
                if (poll(&p, 1, left < LEFTOVER_SCAN_MS ? (int)left : LEFTOVER_SCAN_MS) > 0) {
                        struct signalfd_siginfo si[16];
                        while (read(sfd, si, sizeof si) > 0)
                                ;
                }
                reap(s);
                if (s->own_group && !s->pid1)
                        (void)leftovers_group_alive(s, &l); /* notice it empty before its number is reused */
                if (s->children_left)
                        leftovers_signal(s, &l, sig, false);
        }
        free(l.sent);
}

/* Ignored dispositions come from xpuinit's parent (a shell starts background jobs with SIGINT
 * and SIGQUIT ignored) and would pass to the workload through execve; SIGCHLD ignored makes the
 * kernel reap children itself, losing the workload's status. (A blocked signal is queued even
 * while ignored, kernel/signal.c sig_ignored(), so the signalfd still sees it.) Every ignored
 * signal is set to SIG_DFL (harmless while blocked) and put back when supervision ends. xpuinit
 * installs no handler, so nothing else needs resetting. */
struct saved_actions {
        struct xpu_ksigaction saved[64];
        uint64_t changed;
};

static void dispositions_default(struct saved_actions *sa) {
        xpu_signals_ignored_to_default(sa->saved, &sa->changed);
        dispositions_clean = true;
}

static void dispositions_restore(const struct saved_actions *sa) {
        for (int sig = 1; sig <= 64; sig++)
                if (sa->changed & (UINT64_C(1) << (sig - 1)))
                        (void)xpu_ksigaction(sig, &sa->saved[sig - 1], NULL);
        dispositions_clean = false;
}

int xpu_supervise(char *const argv[], char *const envp[], const struct xpu_supervise_options *o) {
        static const struct xpu_supervise_options defaults = { .grace_seconds = 10 };
        if (!o)
                o = &defaults;

        struct launch l;
        if (launch_init(&l, argv, envp, o) < 0) {
                log_error("cannot start \"%s\": out of memory", argv[0] ? argv[0] : "");
                return XPU_STATUS_SETUP;
        }
        _cleanup_free_ char **env_owner = l.envp;

        /* Orphans of the workload come back to us when we are not PID 1 already. */
        bool reaper = true;
        if (l.parent != 1 && prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
                log_warning("cannot become child subreaper, orphans go to PID 1: %m");
                reaper = false;
        }

        sigset_t all, old;
        xpu_signals_supervised(&all);
        if (sigprocmask(SIG_BLOCK, &all, &old) < 0) {
                log_error("cannot block signals: %m");
                return XPU_STATUS_SETUP;
        }
        static struct saved_actions actions;
        dispositions_default(&actions);
        _cleanup_close_ int sfd = signalfd(-1, &all, SFD_CLOEXEC | SFD_NONBLOCK);
        int pipefd[2] = { -EBADF, -EBADF };
        if (sfd < 0 || pipe2(pipefd, O_CLOEXEC | O_NONBLOCK) < 0) {
                log_error("cannot set up signal handling: %m");
                dispositions_restore(&actions);
                (void)sigprocmask(SIG_SETMASK, &old, NULL);
                return XPU_STATUS_SETUP;
        }
        _cleanup_close_ int report_rd = pipefd[0];
        _cleanup_close_ int report_wr = pipefd[1];
        /* The child blocks on nothing it reads, but the write end must block to be atomic. */
        (void)fcntl(report_wr, F_SETFL, 0);

        /* On a terminal where we are the foreground group, the workload takes over the
         * foreground (so ^C and ^Z reach it directly, as tini does). */
        pid_t fg = isatty(STDIN_FILENO) ? tcgetpgrp(STDIN_FILENO) : -1;
        l.foreground = fg > 0 && fg == getpgrp();
        l.own_group = o->group || l.foreground;
        l.pdeathsig = true;
        l.report_fd = report_wr;
        l.report_rd = report_rd;
        l.signal_fd = sfd;

        /* clone(CLONE_VM | CLONE_VFORK) as posix_spawn does: no copy of our page tables and no
         * copy-on-write faults for a child that only sets itself up and execs (fork cost about
         * 0.5 ms per start on the benchmark machine). We wait until it has exec'd or exited; it
         * runs on a stack of its own and allocates nothing (struct launch is prepared above). */
#ifdef __SANITIZE_ADDRESS__
        /* ASan cannot follow a child on a stack of its own (it warns on every start): fork. */
        pid_t pid = fork();
        if (pid == 0)
                child_run(&l);
#else
        const size_t stack_size = 256 * 1024;
        void *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        pid_t pid = stack == MAP_FAILED ? -1
                                        : clone(child_entry, (char *)stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD,
                                                &l);
        if (stack != MAP_FAILED)
                munmap(stack, stack_size);
#endif
        if (pid < 0) {
                log_error("cannot start \"%s\": clone: %m", argv[0] ? argv[0] : "");
                dispositions_restore(&actions);
                (void)sigprocmask(SIG_SETMASK, &old, NULL);
                return XPU_STATUS_SETUP;
        }

        close(TAKE_FD(report_wr)); /* EOF on the read end once the child has exec'd */
        if (l.own_group)
                (void)setpgid(pid, pid); /* also in the child: whichever runs first wins */

        /* The workload runs (or failed): what xpuinit still needs is CAP_KILL, for signals. */
        if (o->supervisor_privilege) {
                /* Not dumpable, before the capabilities go: holding no more than CAP_KILL, we
                 * would pass the kernel's ptrace access check of a root workload (same uid, a
                 * subset of its capabilities), which could then open /proc/<our pid>/mem for
                 * writing (no seccomp rule sees that) and run code here, where its filter does
                 * not apply. Non-dumpable, the check needs CAP_SYS_PTRACE (ptrace(2), "Ptrace
                 * access mode checking"). */
                if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                        log_warning("cannot make xpuinit non-dumpable after the start: %m");
                const char *step = NULL;
                int r = xpu_privilege_apply(o->supervisor_privilege, &step);
                if (r < 0)
                        log_warning("cannot drop xpuinit's own capabilities after the start (%s): %s",
                                    step ? step : "?", strerror(-r));
        }

        struct supervisor s = { .self = l.parent, .child = pid, .target = o->group ? -pid : pid,
                                .own_group = l.own_group, .reaper = reaper, .pid1 = l.parent == 1,
                                .kill_at_ms = -1, .grace_end_ms = -1, .grace_s = o->grace_seconds };
        supervise_loop(&s, sfd);
        end_leftovers(&s, sfd);

        int status = status_from_wait(s.wait_status);
        struct child_report rep;
        if (read(report_rd, &rep, sizeof(rep)) == (ssize_t)sizeof(rep))
                status = xpu_exec_report(argv, l.envp, rep.stage == CHILD_STAGE_SETUP, rep.err, rep.step);

        /* Leave the caller as we found it; signals that came too late are dropped. */
        struct signalfd_siginfo si;
        while (read(sfd, &si, sizeof(si)) > 0)
                ;
        dispositions_restore(&actions);
        (void)sigprocmask(SIG_SETMASK, &old, NULL);
        return status;
}

int xpu_exec_workload(char *const argv[], char *const envp[], const struct xpu_supervise_options *o) {
        struct launch l;
        if (launch_init(&l, argv, envp, o) < 0) {
                log_error("cannot start \"%s\": out of memory", argv[0] ? argv[0] : "");
                return XPU_STATUS_SETUP;
        }
        _cleanup_free_ char **env_owner = l.envp;
        int stage = 0;
        const char *step = NULL;
        int err = launch_exec(&l, &stage, &step);
        return xpu_exec_report(argv, l.envp, stage == CHILD_STAGE_SETUP, err, step);
}
