/* SPDX-License-Identifier: Apache-2.0 */
/* The privileged sequence before exec: bounding set, ids, groups,
 * capabilities, ambient set, no_new_privs, stray fds, seccomp, in that order, in ONE function.
 *
 * Shared by xpuinit's workload launch (entrypoint/init.c, child between clone and exec), the
 * ldconfig child and xpud (on itself after binding). Everything is prepared before the fork
 * (xpu_privilege_prepare) so that xpu_privilege_apply() allocates nothing: a child made with
 * clone(CLONE_VM) shares its parent's memory until it execs.
 *
 * Capability sets are uint64_t bitmasks: bit N = capability N of linux/capability.h
 * (CAP_CHOWN = 0 .. CAP_CHECKPOINT_RESTORE = 40). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/capability.h>
#include <sys/types.h>

struct xpu_seccomp_program; /* probes/sandbox/seccomp.h (built early, loaded last) */

#define XPU_CAP_BIT(cap) (UINT64_C(1) << (cap))

/* What one process keeps when it hands over to less privileged code. Fill it with
 * XPU_PRIVILEGE_INIT, set the fields, call xpu_privilege_prepare() before forking, apply it in
 * the child (or in the process itself), xpu_privilege_done() in the parent afterwards. All
 * pointers are borrowed and must stay valid until the apply. */
struct xpu_privilege {
        bool set_ids;          /* change uid/gid/groups; false: keep the process's own ids and groups */
        uid_t uid;             /* setresuid(uid, uid, uid) when set_ids */
        gid_t gid;             /* setresgid(gid, gid, gid) when set_ids */
        const gid_t *groups;   /* setgroups(n_groups, groups) when set_ids (n_groups 0: none) */
        size_t n_groups;
        uint64_t bounding;     /* capabilities left in the bounding set; the others are dropped
                                * (PR_CAPBSET_DROP, needs CAP_SETPCAP when there is one to drop) */
        uint64_t bounding_now; /* the bounding set the process has (xpu_capability_current): only
                                * these are dropped; XPU_PRIVILEGE_INIT: every capability */
        uint64_t keep;         /* permitted = effective = KEEP (a subset of the permitted set and
                                * of BOUNDING); inheritable = KEEP with AMBIENT, else empty */
        bool ambient;          /* also raise KEEP in the ambient set (a non-root workload keeps
                                * them across execve) */
        int pdeathsig;         /* 0, or the signal to re-arm with PR_SET_PDEATHSIG after the id
                                * change (which clears it) ... */
        pid_t pdeathsig_parent; /* ... killing this process at once when its parent is no longer
                                 * this pid (the parent died in between) */
        bool close_fds;        /* close every fd above 2 except the inherited range and KEEP_FD */
        unsigned n_inherit;    /* fds 3 .. 3+n_inherit-1 stay open (socket activation, LISTEN_FDS) */
        int keep_fd;           /* -1, or one more fd to keep (a report pipe, O_CLOEXEC) */
        const struct xpu_seccomp_program *seccomp; /* NULL: no filter */

        cap_t caps_; /* private: the cap_t that xpu_privilege_prepare() built for KEEP */
};

#define XPU_PRIVILEGE_INIT { .keep_fd = -1, .bounding_now = ~UINT64_C(0) }

/* Build what the apply needs and may not allocate (a libcap cap_t for KEEP and AMBIENT: cap_init,
 * cap_set_flag). Call in the parent before forking; call again after changing KEEP or AMBIENT. Returns 0,
 * -ENOMEM, or -EINVAL when KEEP names a capability above the running kernel's last one
 * (cap_max_bits(): /proc/sys/kernel/cap_last_cap, read by libcap). */
int xpu_privilege_prepare(struct xpu_privilege *p);

/* Free what xpu_privilege_prepare() built (P may be half-prepared; idempotent). */
void xpu_privilege_done(struct xpu_privilege *p);

/* Drop from the calling thread's bounding set every capability in NOW (its set as read; all
 * bits when unknown) that KEEP lacks: PR_CAPBSET_DROP, one per capability (each commits new
 * credentials), PR_CAPBSET_READ only after a refused drop, to accept one already gone. Needs
 * CAP_SETPCAP when there is anything to drop. Returns 0 or -errno (-EPERM: a capability to drop
 * is still there without CAP_SETPCAP). Step 1 of xpu_privilege_apply(); also for a starter that
 * narrows the bounding set once for itself and the process it starts. */
int xpu_capability_bounding_drop(uint64_t keep, uint64_t now);

/* Apply P to the calling thread, in this fixed order:
 *   1. bounding set: drop every capability of P->bounding_now not in P->bounding
 *      (xpu_capability_bounding_drop())
 *   2. PR_SET_KEEPCAPS 1 (the permitted set survives setresuid to a non-zero uid)
 *   3. setgroups, 4. setresgid, 5. setresuid (raw syscalls, only when P->set_ids)
 *   6. PR_SET_PDEATHSIG again when P->pdeathsig (an id change clears it)
 *   7. capset: permitted/effective = P->keep, inheritable = P->keep with P->ambient, else empty
 *      (cap_set_proc on the prepared cap_t; runc CVE-2022-24769 for the empty inheritable set)
 *   8. ambient set: cleared, then P->keep raised when P->ambient (PR_CAP_AMBIENT_CLEAR_ALL,
 *      cap_set_ambient = PR_CAP_AMBIENT_RAISE)
 *   9. PR_SET_NO_NEW_PRIVS 1 (always)
 *  10. close stray fds (close_range) when P->close_fds
 *  11. load P->seccomp (xpu_seccomp_load) when not NULL: the last step before execve
 * Allocates nothing and takes no lock another thread may hold. Uses raw syscalls for the ids
 * (glibc's setresuid would signal every thread of the process it thinks it is in, which in a
 * clone(CLONE_VM) child are its parent's threads), so it changes the CALLING THREAD only: call
 * it in a child before exec or in a process that has no other threads yet.
 * Returns 0, or -errno with *FAILED_STEP (may be NULL) naming the step that failed:
 * "bounding set", "keepcaps", "setgroups", "setresgid", "setresuid", "pdeathsig", "capset",
 * "ambient", "no_new_privs", "close fds", "seccomp". */
int xpu_privilege_apply(const struct xpu_privilege *p, const char **failed_step);

/* Capability number of NAME: "CAP_NET_ADMIN", "cap_net_admin" or "NET_ADMIN" (any case) -> 12,
 * as in linux/capability.h (0 .. 40, written out here). Returns -EINVAL for anything else. */
int xpu_capability_from_name(const char *name);

/* "CAP_NET_ADMIN" for 12; NULL outside 0 .. 40. */
const char *xpu_capability_to_name(int cap);

/* Highest capability number this code knows (40, CAP_CHECKPOINT_RESTORE). */
#define XPU_CAP_LAST 40
#define XPU_CAP_ALL ((XPU_CAP_BIT(XPU_CAP_LAST) << 1) - 1)

/* The container runtimes' default set for a container: CHOWN, DAC_OVERRIDE, FSETID, FOWNER,
 * MKNOD, NET_RAW, SETGID, SETUID, SETFCAP, SETPCAP, NET_BIND_SERVICE, SYS_CHROOT, KILL,
 * AUDIT_WRITE (containerd pkg/oci/spec.go defaultUnixCaps, moby oci/caps/defaults.go
 * DefaultCapabilities: the same 14). */
uint64_t xpu_capability_runtime_default(void);

/* The calling thread's capability sets as bitmasks (capget(2) for effective and permitted; the
 * bounding set from the "CapBnd:" line of /proc/thread-self/status, or PR_CAPBSET_READ for each
 * capability up to XPU_CAP_LAST where /proc cannot be read); any pointer may be NULL. Returns 0
 * or -errno. */
int xpu_capability_current(uint64_t *effective, uint64_t *permitted, uint64_t *bounding);

/* What a workload asks for and what the process that starts it has. */
struct xpu_capability_request {
        bool explicit_list;  /* the profile lists keep_capabilities (false: the default applies) */
        uint64_t requested;  /* that list, as a mask */
        bool workload_root;  /* the workload runs as uid 0 */
        uint64_t effective, permitted, bounding; /* the starter's own sets (xpu_capability_current) */
};

/* The sets to apply (struct xpu_privilege's keep, bounding, ambient). */
struct xpu_capability_plan {
        uint64_t keep;
        uint64_t bounding;
        bool ambient;
        bool bounding_wide; /* the bounding set could not be narrowed (no CAP_SETPCAP): it stays
                             * the starter's own, and no_new_privs alone keeps the workload from
                             * reaching it */
};

/* Capabilities xpuinit uses only to set the workload up, never kept by default: CAP_SYS_ADMIN
 * (mounts) and CAP_SETPCAP (the bounding-set drop). */
#define XPU_CAP_SETUP_ONLY (XPU_CAP_BIT(CAP_SYS_ADMIN) | XPU_CAP_BIT(CAP_SETPCAP))

/* Resolve RQ into *RET (docs/privileges.md "Capabilities"). HAVE = permitted & bounding.
 *   default, root workload:     keep = bounding = runtime default & HAVE & ~XPU_CAP_SETUP_ONLY
 *   default, non-root workload: keep = 0, bounding = runtime default & HAVE & ~CAP_SYS_ADMIN
 *   explicit list:              keep = bounding = the list; ambient = the list when non-root
 * Without CAP_SETPCAP in EFFECTIVE a bounding set narrower than the current one is impossible:
 * bounding stays the current one (bounding_wide). Returns 0, or -EPERM when the list names
 * capabilities not in HAVE (*MISSING, may be NULL, gets them). */
int xpu_capability_resolve(const struct xpu_capability_request *rq, struct xpu_capability_plan *ret,
                           uint64_t *missing);

/* Write MASK as comma-separated names ("CAP_CHOWN,CAP_KILL"; "" for 0) into BUF. Returns the
 * length, or -ENOBUFS when it did not fit (BUF then holds the names that fitted whole). */
int xpu_capability_mask_to_names(uint64_t mask, char *buf, size_t size);

/* The system calls capability CAP chiefly exists for (capabilities(7): CAP_SYS_ADMIN mount,
 * umount2, unshare, setns, pivot_root, perf_event_open; CAP_SYS_PTRACE ptrace,
 * process_vm_readv/writev; CAP_PERFMON perf_event_open; CAP_BPF bpf; CAP_SYS_TIME settimeofday,
 * clock_settime, adjtimex, clock_adjtime; CAP_SYS_MODULE init_module, finit_module,
 * delete_module; CAP_SYS_BOOT reboot, kexec_load; CAP_SYSLOG syslog; CAP_SYS_PACCT acct;
 * CAP_DAC_READ_SEARCH open_by_handle_at; CAP_SYS_RAWIO iopl, ioperm on x86) that FILTER does not
 * allow (xpu_seccomp_verdict with all arguments 0). Writes their names, ", "-separated, into BUF
 * (SIZE bytes; "" for none, cut when it does not fit) and returns how many: 0 also for a
 * capability without such calls or a NULL filter. For the plan warning that a kept capability
 * is useless under the chosen filter (docs/seccomp.md). */
int xpu_capability_denied_calls(int cap, const struct xpu_seccomp_program *filter, char *buf, size_t size);

/* Whether running the workload as UID:GID (--user) needs an id change and whether EFFECTIVE
 * (the starter's effective capability set) allows it. Source: getresuid/getresgid. Returns 1:
 * change and possible (setgroups/setresgid/setresuid); 0: the real, effective and saved ids are
 * already UID:GID and there is no CAP_SETGID to replace the supplementary groups, so there is
 * nothing to change (the caller skips the switch); -EPERM: a change is needed but CAP_SETGID
 * (always, for setgroups) or CAP_SETUID (for another uid) is missing; or getresuid's -errno. */
int xpu_user_switch_check(uid_t uid, gid_t gid, uint64_t effective);
