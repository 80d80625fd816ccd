/* SPDX-License-Identifier: Apache-2.0 */
/* Run a function in a forked, unprivileged, time-bounded helper child that answers with plain
 * bytes over a pipe (style guide item 7; issue 3 "Loading"). Vendor-neutral: nothing here knows
 * NVML or ROCm SMI. What is and is not guaranteed: docs/isolation.md. Nothing here logs. */
#pragma once

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
 *   -ECHILD        "status lost (reaped elsewhere)"
 *   -errno         "not started: fork: ...", "not started: pipe: ...", "reply unreadable: ..."
 * A timed-out helper that survives SIGKILL for XPU_ISOLATE_KILL_GRACE_MS is left to the
 * process's reaper and REASON says so ("timed out after 10 s; pid N did not die"). */
int xpu_isolate_run(int (*fn)(void *arg, int out_fd), void *arg, const struct xpu_isolate_options *o,
                    void **ret, size_t *ret_len, char *reason, size_t reason_size);
