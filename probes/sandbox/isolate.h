/* SPDX-License-Identifier: Apache-2.0 */
/* Run a function in a forked, unprivileged, time-bounded helper child that answers with plain
 * bytes over a pipe. Vendor-neutral: nothing here knows
 * NVML or ROCm SMI. What is and is not guaranteed: docs/isolation.md. Nothing here logs. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Defaults used by XPU_ISOLATE_OPTIONS_DEFAULT (and for a NULL options pointer). */
#define XPU_ISOLATE_TIMEOUT_MS_DEFAULT 10000u           /* --vendor-timeout 10 */
#define XPU_ISOLATE_MAX_REPLY_DEFAULT  (1024u * 1024u)  /* bytes */
#define XPU_ISOLATE_NOBODY             ((uid_t)65534)   /* uid and gid "nobody"/"nogroup" */
/* Exit status the child uses when its own set-up (before FN) failed; the parent then reports
 * the failed step from a side channel instead of "exited with status 127". */
#define XPU_ISOLATE_SETUP_FAILED 127
/* How long the parent waits for a SIGKILLed child to disappear before giving up on it (a task
 * stuck in uninterruptible sleep in a driver cannot die until the driver lets go), in ms. */
#define XPU_ISOLATE_KILL_GRACE_MS 1000u

struct xpu_isolate_options {
        unsigned timeout_ms;    /* whole run: set-up, FN, reply, exit; 0 = default (10 s) */
        uid_t uid;              /* ids to switch to when drop_privileges and we are root */
        gid_t gid;
        bool drop_privileges;   /* see xpu_isolate_run() */
        size_t max_reply_bytes; /* 0 = default (1 MiB); a longer reply is an error */
};

#define XPU_ISOLATE_OPTIONS_DEFAULT                                                                \
        ((struct xpu_isolate_options){ .timeout_ms = XPU_ISOLATE_TIMEOUT_MS_DEFAULT,              \
                                       .uid = XPU_ISOLATE_NOBODY,                                 \
                                       .gid = (gid_t)XPU_ISOLATE_NOBODY,                          \
                                       .drop_privileges = true,                                   \
                                       .max_reply_bytes = XPU_ISOLATE_MAX_REPLY_DEFAULT })

/* Run FN(ARG, OUT_FD) in a forked child and collect what it writes to OUT_FD.
 *
 * Where FN runs. When the calling thread may create a PID namespace and return to its own
 * (CAP_SYS_ADMIN over both: xpud, xpuinit as root on the host), the forked helper is PID 1 of a
 * new PID namespace, a reaper that runs no vendor code: it forks the worker (PID 2, where FN sees
 * getpid() == 2; /proc is not remounted, so /proc/self still works), reaps what is reparented to
 * it, and once the worker is gone hands its exact fate to the parent and exits, and the kernel
 * kills everything left in the namespace, strays that left the process group with setsid() or a
 * double fork included. Otherwise (unprivileged, in a user namespace, in a container without
 * CAP_SYS_ADMIN) the helper itself runs FN, and only strays that stay in its process group are
 * killed (docs/isolation.md).
 *
 * Before FN, in this order, the helper: starts a new session (setsid(): no controlling terminal,
 * so /dev/tty is ENXIO and TIOCSTI into the caller's terminal is refused; a new process group);
 * sets PR_SET_PDEATHSIG SIGKILL (and exits if the parent is already gone); resets every signal
 * disposition to SIG_DFL and unblocks all signals; points stdin and stdout at /dev/null (vendor
 * chatter must not corrupt our output), keeps stderr (vendor diagnostics stay visible; /dev/null
 * when it was closed); closes every other fd but OUT_FD; replaces the environment with only
 * PATH=/usr/bin:/bin; sets RLIMIT_CORE to 0; chdir("/"). In a PID namespace the worker then
 * becomes its own process-group leader (inside the reaper's session) and sets PR_SET_PDEATHSIG.
 * When O->drop_privileges: clears the ambient set, drops every capability from the bounding set,
 * and, when running as root, setgroups(0) + setresgid(O->gid) + setresuid(O->uid); a non-root
 * caller keeps its ids (it cannot change them) and the bounding set when it lacks CAP_SETPCAP.
 * Then, with or without drop_privileges: clears all capability sets (capset), sets
 * PR_SET_PDEATHSIG again (a credential change clears it) and PR_SET_NO_NEW_PRIVS. FN's return
 * value is the exit status (0..255; anything else becomes 255); the helper leaves with _exit(),
 * so the parent's atexit handlers and stdio buffers are not run twice. OUT_FD is O_CLOEXEC.
 *
 * The parent reads the reply with a deadline of O->timeout_ms from the fork (poll +
 * CLOCK_MONOTONIC), waits for the helper's exit within the same deadline, then always SIGKILLs
 * the helper and its whole process group (strays FN left behind) and reaps it with waitpid() on
 * its pid: no signal handler is installed and no other child is touched. The caller must not
 * ignore SIGCHLD (SIG_IGN/SA_NOCLDWAIT) nor run waitpid(-1) concurrently, and needs CAP_KILL
 * (root has it) to kill a helper that switched to other ids.
 *
 * O may be NULL (XPU_ISOLATE_OPTIONS_DEFAULT). RET and RET_LEN may be NULL.
 * Returns 0 when FN returned 0: *RET is a malloc'ed copy of the reply with a NUL added after it
 * (not counted in *RET_LEN); an empty reply is success with *RET_LEN 0 and *RET "".
 * Otherwise *RET and *RET_LEN are untouched and one line goes to REASON (REASON_SIZE bytes),
 * worded to follow "<WHAT> helper " (xpu_reply_run() prefixes it so):
 *   -ETIMEDOUT     "timed out after 10 s" / "timed out after 200 ms"
 *   -ECONNABORTED  "killed by signal 6 (Aborted)" (FN's process, also in a PID namespace)
 *   -EPROTO        "exited with status 3"
 *   -EMSGSIZE      "reply larger than N bytes"
 *   -errno         "set-up failed at setresuid: Operation not permitted" (the helper's errno)
 *   -EPERM/-EINVAL "cannot switch to nobody (65534) in this user namespace: setgroups: Operation
 *                  not permitted; run xpuinit as real root or map uid/gid 65534" (root of a user
 *                  namespace that denies setgroups or maps no uid/gid O->uid/O->gid: FN never runs)
 *   -EINTR         "interrupted by SIGTERM": a signal of the set given to
 *                  xpu_isolate_set_interrupt() was pending before the fork (no helper is started)
 *                  or became pending while the helper ran (it is killed at once, as on a timeout).
 *                  The signal is left pending for the caller to act on.
 *   -ECHILD        "status lost (reaped elsewhere)"
 *   -errno         "not started: fork: ...", "not started: pipe: ...", "reply unreadable: ..."
 * A timed-out helper that survives SIGKILL for XPU_ISOLATE_KILL_GRACE_MS is left to the
 * process's reaper and REASON says so ("timed out after 10 s; pid N did not die"). */
int xpu_isolate_run(int (*fn)(void *arg, int out_fd), void *arg, const struct xpu_isolate_options *o,
                    void **ret, size_t *ret_len, char *reason, size_t reason_size);

/* Make every later xpu_isolate_run() of this process end at once, killing its helper, when a
 * signal of SET is pending: one that is already pending starts no helper, and one that arrives
 * while the helper runs is seen through a signalfd polled next to the reply (so it is never read:
 * it stays pending). The caller blocks SET (sigprocmask) first; an unblocked signal is delivered
 * instead. NULL: no signal ends a run (the default; xpud's sampler). xpuinit gives its
 * termination signals, so `docker stop` during a hanging vendor library ends the start at once
 * instead of after --vendor-timeout. Sessions are not affected. Not thread-safe: call it before
 * starting threads. */
void xpu_isolate_set_interrupt(const sigset_t *set);

/* The pending signal of the set given to xpu_isolate_set_interrupt(), 0 when none is or no set
 * was given: for long work of the probes outside a helper (a host's list of many lines), which
 * then stops with -EINTR and leaves the signal pending. Silent. */
int xpu_isolate_interrupted(void);

/* ---- sessions: one long-lived helper answering many requests ----
 *
 * For a library that must stay loaded between readings (xpud keeps one NVML session):
 * the helper is started exactly as by xpu_isolate_run() (same set-up, ids, capabilities, PID
 * namespace when possible, clean environment, no terminal, parent-death signal) but FN gets one
 * end of a socket pair (AF_UNIX stream, O_CLOEXEC) instead of a pipe, and serves requests on it
 * until the parent ends the session:
 *
 *   parent → helper   one request line per call ("sample\n"), at most XPU_ISOLATE_REQUEST_MAX bytes
 *   helper → parent   one framed reply per request: its length in decimal, '\n', then exactly that
 *                     many bytes (xpu_isolate_session_send()); a helper may also send one reply
 *                     before the first request arrives (a set-up error), answered to that request.
 *
 * Each call is bounded by its own timeout. A call that times out, a helper that dies (signal,
 * exit) before its reply is complete, a frame that is not a length line or is longer than
 * O->max_reply_bytes, or bytes nobody asked for ends the session: the helper and its process
 * group are SIGKILLed and reaped, and every later call answers -ESRCH. Nothing here logs. */

/* Longest request line, newline included. */
#define XPU_ISOLATE_REQUEST_MAX 64u

struct xpu_isolate_session;

/* Fork the helper running FN(ARG, FD) and return at once (set-up and FN run meanwhile; a failed
 * set-up is reported by the first call). O may be NULL (defaults; O->timeout_ms is the default of
 * calls given 0). Returns 0 and *RET, or -errno with REASON "not started: ...". The caller must not
 * ignore SIGCHLD nor run waitpid(-1), as for xpu_isolate_run(). */
int xpu_isolate_session_start(int (*fn)(void *arg, int fd), void *arg, const struct xpu_isolate_options *o,
                              struct xpu_isolate_session **ret, char *reason, size_t reason_size);

/* Send REQUEST (one line, newline added when missing) and wait for the helper's framed reply,
 * at most TIMEOUT_MS (0 = the session's default) from now. Returns 0 with *RET (malloc'ed copy,
 * NUL added, not counted in *RET_LEN; both may be NULL); otherwise the session has ended and
 * REASON (worded to follow "<WHAT> helper ") says why:
 *   -ETIMEDOUT     "timed out after 10 s"
 *   -ECONNABORTED  "killed by signal 6 (Aborted)"
 *   -EPROTO        "exited with status 3" / "exited before answering"
 *   -EBADMSG       "sent a bad frame" / "sent data nobody asked for"
 *   -EMSGSIZE      "reply larger than N bytes"
 *   -errno         "set-up failed at setresuid: ..." (as xpu_isolate_run())
 *   -ESRCH         "has ended" (an earlier call ended it)
 *   -EINVAL        REQUEST empty, longer than XPU_ISOLATE_REQUEST_MAX or holding a newline inside. */
int xpu_isolate_session_call(struct xpu_isolate_session *s, const char *request, unsigned timeout_ms, void **ret,
                             size_t *ret_len, char *reason, size_t reason_size);

/* True until a call ended the session (the helper is gone then). */
bool xpu_isolate_session_alive(const struct xpu_isolate_session *s);
/* The helper's pid as this process sees it (the reaper's in a PID namespace); 0 once ended. */
pid_t xpu_isolate_session_pid(const struct xpu_isolate_session *s);

/* End the session: close the socket (the helper's next read sees EOF and FN returns), give the
 * helper XPU_ISOLATE_KILL_GRACE_MS to exit, then SIGKILL it and its process group and reap it.
 * NULL-safe; returns NULL. */
struct xpu_isolate_session *xpu_isolate_session_end(struct xpu_isolate_session *s);

/* Helper side: wait for the next request on FD and copy it without its newline into BUF (SIZE
 * bytes). Returns its length (> 0), 0 at EOF (the parent ended the session: return from FN),
 * -EMSGSIZE for a line longer than SIZE - 1 bytes or without a newline at EOF, -errno. Reads one
 * byte at a time, so nothing of the next request is consumed. */
ssize_t xpu_isolate_session_next(int fd, char *buf, size_t size);

/* Helper side: send BUF (LEN bytes) as one framed reply on FD. Returns 0 or -errno. */
int xpu_isolate_session_send(int fd, const void *buf, size_t len);
