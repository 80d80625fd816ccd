/* SPDX-License-Identifier: Apache-2.0 */
/* The forked side of the helper runner (isolate.h, docs/isolation.md): the helper's set-up, and
 * in a PID namespace the reaper (PID 1) and the worker (PID 2) that runs FN. Nothing here returns:
 * every path ends in _exit(), so the caller's atexit handlers and stdio buffers never run twice. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/isolate-internal.h"
#include "sandbox/isolate.h"
#include "base/macro.h"
#include "base/signals.h"

extern char **environ;

/* The helper's whole environment. Not const: environ is char **. */
static char clean_path[] = "PATH=/usr/bin:/bin";
static char *clean_env[] = { clean_path, NULL };

static const char *const step_names[_XPU_ISOLATE_STEP_MAX] = {
        [XPU_ISOLATE_STEP_SETSID] = "setsid",
        [XPU_ISOLATE_STEP_PDEATHSIG] = "PR_SET_PDEATHSIG",
        [XPU_ISOLATE_STEP_SIGNALS] = "signal reset",
        [XPU_ISOLATE_STEP_FDS] = "moving pipe fds",
        [XPU_ISOLATE_STEP_DEVNULL] = "opening /dev/null",
        [XPU_ISOLATE_STEP_STDIO] = "stdio",
        [XPU_ISOLATE_STEP_CLOSE] = "closing fds",
        [XPU_ISOLATE_STEP_RLIMIT] = "RLIMIT_CORE",
        [XPU_ISOLATE_STEP_CHDIR] = "chdir /",
        [XPU_ISOLATE_STEP_FORK] = "fork of the worker",
        [XPU_ISOLATE_STEP_REAP] = "waiting for the worker",
        [XPU_ISOLATE_STEP_SETPGID] = "setpgid",
        [XPU_ISOLATE_STEP_AMBIENT] = "clearing ambient capabilities",
        [XPU_ISOLATE_STEP_BOUNDING] = "PR_CAPBSET_DROP",
        [XPU_ISOLATE_STEP_SETGROUPS] = "setgroups",
        [XPU_ISOLATE_STEP_SETRESGID] = "setresgid",
        [XPU_ISOLATE_STEP_SETRESUID] = "setresuid",
        [XPU_ISOLATE_STEP_CAPSET] = "capset",
        [XPU_ISOLATE_STEP_NNP] = "PR_SET_NO_NEW_PRIVS",
};

const char *xpu_isolate_step_name(int step) {
        return step >= 0 && step < _XPU_ISOLATE_STEP_MAX ? step_names[step] : NULL;
}

static void put_record(int err_fd, int32_t step, int32_t value) {
        const struct xpu_isolate_record rec = { .step = step, .value = value };
        ssize_t _unused_ n = write(err_fd, &rec, sizeof rec);
}

static _Noreturn void child_fail(int err_fd, enum xpu_isolate_step step, int err) {
        put_record(err_fd, (int32_t)step, err > 0 ? err : EIO);
        _exit(XPU_ISOLATE_SETUP_FAILED);
}

/* Close every fd >= 3 except KEEP_A and KEEP_B (both >= 3, KEEP_A < KEEP_B). */
static int close_all_but(int keep_a, int keep_b) {
        const unsigned a = (unsigned)keep_a, b = (unsigned)keep_b;
        const unsigned ranges[3][2] = { { 3u, a - 1u }, { a + 1u, b - 1u }, { b + 1u, ~0u } };
        bool done = true;
        for (size_t i = 0; i < ELEMENTSOF(ranges) && done; i++)
                if (ranges[i][0] <= ranges[i][1] &&
                    syscall(SYS_close_range, ranges[i][0], ranges[i][1], 0u) < 0) {
                        if (errno != ENOSYS)
                                return -errno;
                        done = false;
                }
        if (done)
                return 0;
        /* Linux < 5.9: walk /proc/self/fd (collect first, then close). */
        DIR *d = opendir("/proc/self/fd");
        if (!d)
                return -errno;
        int dfd = dirfd(d);
        struct dirent *de;
        while ((de = readdir(d))) {
                char *end;
                long fd = strtol(de->d_name, &end, 10);
                if (*end || end == de->d_name || fd < 3 || fd == keep_a || fd == keep_b || fd == dfd)
                        continue;
                close((int)fd);
        }
        closedir(d);
        return 0;
}

/* Lower every capability set of this thread to empty. Allowed without privilege. */
static int caps_clear(void) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { { 0 } };
        return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

/* Drop every capability from the bounding set; a caller without CAP_SETPCAP may keep it only
 * when not root (TOLERATE_EPERM). */
static int bounding_clear(bool tolerate_eperm) {
        for (unsigned long cap = 0; cap < 64; cap++) {
                int r = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
                if (r < 0 && errno == EINVAL)
                        break; /* past CAP_LAST_CAP */
                if (r <= 0)
                        continue;
                if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && !(errno == EPERM && tolerate_eperm))
                        return -errno;
        }
        return 0;
}

/* Is the process that forked us gone? Outside a PID namespace its pid is our parent's; inside,
 * getppid() is 0, so the parent's pidfd (readable once it exited) answers. */
static bool parent_gone(const struct xpu_isolate_child *c) {
        if (c->parent_fd < 0)
                return getppid() != c->parent;
        struct pollfd p = { .fd = c->parent_fd, .events = POLLIN };
        return poll(&p, 1, 0) != 0; /* readable, or an error: either way, stop */
}

/* The worker: ids and capabilities, then FN. OUT and ERR are the pipe ends; PARENT is the pid
 * getppid() must answer (the caller's, or 1 for the reaper in a PID namespace). */
static _Noreturn void worker_main(const struct xpu_isolate_child *c, int out, int err, pid_t parent) {
        const struct xpu_isolate_options *o = c->o;
        int r;
        if (c->pid_ns) {
                /* Its own process group inside the reaper's session: the reaper, not FN, leads
                 * the session, so FN can never acquire a controlling terminal. */
                if (setpgid(0, 0) < 0)
                        child_fail(err, XPU_ISOLATE_STEP_SETPGID, errno);
                if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                        child_fail(err, XPU_ISOLATE_STEP_PDEATHSIG, errno);
                if (getppid() != parent)
                        _exit(XPU_ISOLATE_SETUP_FAILED);
        }
        if (o->drop_privileges) {
                bool root = geteuid() == 0;
                if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                        child_fail(err, XPU_ISOLATE_STEP_AMBIENT, errno);
                r = bounding_clear(!root);
                if (r < 0)
                        child_fail(err, XPU_ISOLATE_STEP_BOUNDING, -r);
                if (root) {
                        if (setgroups(0, NULL) < 0)
                                child_fail(err, XPU_ISOLATE_STEP_SETGROUPS, errno);
                        if (setresgid(o->gid, o->gid, o->gid) < 0)
                                child_fail(err, XPU_ISOLATE_STEP_SETRESGID, errno);
                        if (setresuid(o->uid, o->uid, o->uid) < 0)
                                child_fail(err, XPU_ISOLATE_STEP_SETRESUID, errno);
                }
        }
        r = caps_clear();
        if (r < 0)
                child_fail(err, XPU_ISOLATE_STEP_CAPSET, -r);
        /* A change of effective ids cleared the parent-death signal: set it again. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                child_fail(err, XPU_ISOLATE_STEP_PDEATHSIG, errno);
        if (getppid() != parent)
                _exit(XPU_ISOLATE_SETUP_FAILED);
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                child_fail(err, XPU_ISOLATE_STEP_NNP, errno);

        close(err); /* vendor code never gets the side channel */
        r = c->fn(c->arg, out);
        _exit(r >= 0 && r <= 255 ? r : 255);
}

/* PID 1 of the helper's PID namespace. PID 1 ignores every signal it has no handler for (from
 * inside the namespace), so vendor code must not run here: the worker (PID 2) runs FN. The reaper
 * reaps whatever is reparented to it until the worker is gone, hands the worker's wait status to
 * the parent on the side channel, and exits: the kernel then kills everything left in the
 * namespace (setsid()ed and double-forked strays included) before the parent can reap us. */
/* Vendor code that builds "/proc/<getpid()>" paths (not /proc/self) must find itself, not the
 * caller's process of that number: a mount namespace of the helper's own (host mounts still
 * propagate in) with this PID namespace's /proc on top. Best effort: a runtime that masks parts
 * of /proc makes the kernel refuse a new proc mount, and /proc stays the caller's
 * (docs/isolation.md). Runs in the reaper, before the worker exists and while it is still root. */
static void mount_own_proc(void) {
        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
                return;
        (void)mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
}

static _Noreturn void reaper_main(const struct xpu_isolate_child *c, int out, int err) {
        pid_t self = getpid(); /* 1 */
        mount_own_proc();
        pid_t worker = fork();
        if (worker < 0)
                child_fail(err, XPU_ISOLATE_STEP_FORK, errno);
        if (worker == 0)
                worker_main(c, out, err, self);
        close(out);
        /* The reaper runs none of the vendor's code, yet holds nothing it needs privileges for:
         * best effort, as the worker's fate matters more than these. */
        (void)caps_clear();
        (void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        (void)prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        int status = 0;
        for (;;) {
                pid_t w = waitpid(-1, &status, 0);
                if (w == worker)
                        break;
                if (w < 0 && errno != EINTR)
                        child_fail(err, XPU_ISOLATE_STEP_REAP, errno);
        }
        put_record(err, XPU_ISOLATE_RECORD_FATE, (int32_t)status);
        /* The same exit status when the worker exited; the parent reads the fate for a signal. */
        _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
}

_Noreturn void xpu_isolate_child_main(const struct xpu_isolate_child *c) {
        int err_fd = c->err_fd;
        /* A new session: no controlling terminal, so /dev/tty is ENXIO and TIOCSTI into the
         * caller's terminal is refused; also a new process group for the parent's group kill. */
        if (setsid() < 0)
                child_fail(err_fd, XPU_ISOLATE_STEP_SETSID, errno);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                child_fail(err_fd, XPU_ISOLATE_STEP_PDEATHSIG, errno);
        if (parent_gone(c))
                _exit(XPU_ISOLATE_SETUP_FAILED); /* nobody is listening any more */

        /* Handlers do not survive exec, but vendor code runs here without exec: every signal
         * (glibc's reserved two included, through the raw call) back to SIG_DFL. The reaper
         * needs SIGCHLD at SIG_DFL too, or waitpid() would find nothing. */
        const struct xpu_ksigaction dfl = { .handler = SIG_DFL };
        for (int sig = 1; sig <= 64; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void)xpu_ksigaction(sig, &dfl, NULL);
        sigset_t none;
        sigemptyset(&none);
        if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
                child_fail(err_fd, XPU_ISOLATE_STEP_SIGNALS, errno);

        /* Move both pipe ends above stdio (a caller with closed stdio may have got 0..2). */
        int out = fcntl(c->out_fd, F_DUPFD_CLOEXEC, 3), err = fcntl(err_fd, F_DUPFD_CLOEXEC, 3);
        if (out < 0 || err < 0)
                child_fail(err_fd, XPU_ISOLATE_STEP_FDS, errno);
        err_fd = err;
        int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null_fd < 0)
                child_fail(err_fd, XPU_ISOLATE_STEP_DEVNULL, errno);
        if (dup2(null_fd, STDIN_FILENO) < 0 || dup2(null_fd, STDOUT_FILENO) < 0 ||
            ((fcntl(STDERR_FILENO, F_GETFD) < 0 || STDERR_FILENO == c->out_fd || STDERR_FILENO == c->err_fd) &&
             dup2(null_fd, STDERR_FILENO) < 0))
                child_fail(err_fd, XPU_ISOLATE_STEP_STDIO, errno);
        for (int fd = 0; fd <= 2; fd++)
                if (fcntl(fd, F_SETFD, 0) < 0)
                        child_fail(err_fd, XPU_ISOLATE_STEP_STDIO, errno);
        /* Also closes the parent's pidfd and the read ends of both pipes. */
        int r = close_all_but(out < err ? out : err, out < err ? err : out);
        if (r < 0)
                child_fail(err_fd, XPU_ISOLATE_STEP_CLOSE, -r);

        environ = clean_env;
        const struct rlimit no_core = { 0, 0 };
        if (setrlimit(RLIMIT_CORE, &no_core) < 0)
                child_fail(err_fd, XPU_ISOLATE_STEP_RLIMIT, errno);
        if (chdir("/") < 0)
                child_fail(err_fd, XPU_ISOLATE_STEP_CHDIR, errno);

        if (c->pid_ns)
                reaper_main(c, out, err);
        worker_main(c, out, err, c->parent);
}
