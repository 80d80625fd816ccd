/* SPDX-License-Identifier: Apache-2.0 */
/* The privileged sequence before exec (privilege.h; the order is
 * crun's apply_security_settings in src/libcrun/container.c, except that stray fds are closed
 * before the filter is loaded, so no close is ever subject to it).
 *
 * libcap for the capability sets: cap_set_proc on a cap_t built before the fork, cap_set_ambient;
 * the bounding set and the ambient reset with raw prctl (fewer system calls than libcap's
 * cap_get_bound/cap_drop_bound loop and cap_reset_ambient). None of these allocates (each is one
 * prctl or capset through libcap's syscaller); cap_get_proc and libcap's cap_setuid/cap_setgroups would, so the
 * ids are changed with raw syscalls instead (which also keeps glibc from signalling the
 * parent's threads from a clone(CLONE_VM) child, see privilege.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/macro.h"
#include "sandbox/privilege.h"
#include "base/procfs.h"
#include "sandbox/seccomp.h"

/* linux/capability.h, in number order (0 CAP_CHOWN .. 40 CAP_CHECKPOINT_RESTORE). */
static const char *const cap_names[XPU_CAP_LAST + 1] = {
        "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID", /* 0-4 */
        "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",       /* 5-9 */
        "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW",       /* 10-13 */
        "CAP_IPC_LOCK", "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO",                /* 14-17 */
        "CAP_SYS_CHROOT", "CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN",              /* 18-21 */
        "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE", "CAP_SYS_TIME",                /* 22-25 */
        "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE",                 /* 26-29 */
        "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN",           /* 30-33 */
        "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ",             /* 34-37 */
        "CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE",                                /* 38-40 */
};
_Static_assert(CAP_CHECKPOINT_RESTORE == XPU_CAP_LAST, "the table ends at CAP_CHECKPOINT_RESTORE");

int xpu_capability_from_name(const char *name) {
        if (!name)
                return -EINVAL;
        const char *bare = strncasecmp(name, "CAP_", 4) == 0 ? name + 4 : name;
        for (int i = 0; i <= XPU_CAP_LAST; i++)
                if (strcasecmp(bare, cap_names[i] + 4) == 0)
                        return i;
        return -EINVAL;
}

const char *xpu_capability_to_name(int cap) {
        return cap >= 0 && cap <= XPU_CAP_LAST ? cap_names[cap] : NULL;
}

uint64_t xpu_capability_runtime_default(void) {
        static const int caps[] = {
                CAP_CHOWN,  CAP_DAC_OVERRIDE, CAP_FSETID,  CAP_FOWNER,           CAP_MKNOD,
                CAP_NET_RAW, CAP_SETGID,      CAP_SETUID,  CAP_SETFCAP,          CAP_SETPCAP,
                CAP_NET_BIND_SERVICE, CAP_SYS_CHROOT, CAP_KILL, CAP_AUDIT_WRITE,
        };
        uint64_t m = 0;
        for (size_t i = 0; i < ELEMENTSOF(caps); i++)
                m |= XPU_CAP_BIT(caps[i]);
        return m;
}

int xpu_capability_current(uint64_t *effective, uint64_t *permitted, uint64_t *bounding) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct d[2] = {};
        if (syscall(SYS_capget, &h, d) < 0)
                return negative_errno();
        if (effective)
                *effective = d[0].effective | (uint64_t)d[1].effective << 32;
        if (permitted)
                *permitted = d[0].permitted | (uint64_t)d[1].permitted << 32;
        if (bounding) {
                /* /proc/thread-self/status "CapBnd:" is one read, where a PR_CAPBSET_READ per
                 * capability is 41 calls, each through the LSM hooks of prctl. The calls remain for
                 * a process without /proc. */
                if (xpu_proc_status_mask("/proc/thread-self/status", "CapBnd", bounding) == 0)
                        return 0;
                *bounding = 0;
                for (int c = 0; c < 64; c++) {
                        int in = prctl(PR_CAPBSET_READ, c);
                        if (in < 0)
                                break; /* EINVAL: above the kernel's last capability */
                        if (in > 0)
                                *bounding |= XPU_CAP_BIT(c);
                }
        }
        return 0;
}

int xpu_capability_mask_to_names(uint64_t mask, char *buf, size_t size) {
        size_t len = 0;
        if (size == 0)
                return -ENOBUFS;
        buf[0] = '\0';
        for (int c = 0; c < 64; c++) {
                if (!(mask & XPU_CAP_BIT(c)))
                        continue;
                char num[16];
                const char *name = xpu_capability_to_name(c);
                if (!name) {
                        (void)snprintf(num, sizeof num, "%d", c);
                        name = num;
                }
                int n = snprintf(buf + len, size - len, "%s%s", len ? "," : "", name);
                if (n < 0 || (size_t)n >= size - len) {
                        buf[len] = '\0'; /* whole names only */
                        return -ENOBUFS;
                }
                len += (size_t)n;
        }
        return (int)len;
}

int xpu_capability_resolve(const struct xpu_capability_request *rq, struct xpu_capability_plan *ret,
                           uint64_t *missing) {
        uint64_t have = rq->permitted & rq->bounding, rd = xpu_capability_runtime_default();
        *ret = (struct xpu_capability_plan){};
        if (missing)
                *missing = 0;
        if (rq->explicit_list) {
                if (rq->requested & ~have) {
                        if (missing)
                                *missing = rq->requested & ~have;
                        return -EPERM;
                }
                ret->keep = ret->bounding = rq->requested;
                ret->ambient = !rq->workload_root && rq->requested != 0;
        } else if (rq->workload_root) {
                ret->keep = ret->bounding = rd & have & ~XPU_CAP_SETUP_ONLY;
        } else {
                ret->bounding = rd & have & ~XPU_CAP_BIT(CAP_SYS_ADMIN);
        }
        if ((rq->bounding & ~ret->bounding) && !(rq->effective & XPU_CAP_BIT(CAP_SETPCAP))) {
                ret->bounding = rq->bounding;
                ret->bounding_wide = true;
        }
        return 0;
}

/* The system calls each capability chiefly exists for (capabilities(7)), where a seccomp filter
 * can make the capability useless: the ones the deny groups of docs/seccomp.md hold. */
static const struct {
        int cap;
        int nrs[8]; /* __NR_* numbers of the native ABI, 0-terminated (none is 0 where used) */
        const char *names[8];
} cap_calls[] = {
        { CAP_SYS_ADMIN,
          { __NR_mount, __NR_umount2, __NR_unshare, __NR_setns, __NR_pivot_root, __NR_perf_event_open },
          { "mount", "umount2", "unshare", "setns", "pivot_root", "perf_event_open" } },
        { CAP_SYS_PTRACE,
          { __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev },
          { "ptrace", "process_vm_readv", "process_vm_writev" } },
        { CAP_PERFMON, { __NR_perf_event_open }, { "perf_event_open" } },
        { CAP_BPF, { __NR_bpf }, { "bpf" } },
        { CAP_SYS_TIME,
          { __NR_settimeofday, __NR_clock_settime, __NR_adjtimex, __NR_clock_adjtime },
          { "settimeofday", "clock_settime", "adjtimex", "clock_adjtime" } },
        { CAP_SYS_MODULE,
          { __NR_init_module, __NR_finit_module, __NR_delete_module },
          { "init_module", "finit_module", "delete_module" } },
        { CAP_SYS_BOOT, { __NR_reboot, __NR_kexec_load }, { "reboot", "kexec_load" } },
        { CAP_SYSLOG, { __NR_syslog }, { "syslog" } },
        { CAP_SYS_PACCT, { __NR_acct }, { "acct" } },
        { CAP_DAC_READ_SEARCH, { __NR_open_by_handle_at }, { "open_by_handle_at" } },
#if defined(__NR_iopl) && defined(__NR_ioperm)
        { CAP_SYS_RAWIO, { __NR_iopl, __NR_ioperm }, { "iopl", "ioperm" } },
#endif
};

int xpu_capability_denied_calls(int cap, const struct xpu_seccomp_program *filter, char *buf, size_t size) {
        int n = 0;
        size_t off = 0;
        if (size > 0)
                buf[0] = '\0';
        for (size_t i = 0; i < ELEMENTSOF(cap_calls); i++) {
                if (cap_calls[i].cap != cap)
                        continue;
                for (size_t j = 0; j < ELEMENTSOF(cap_calls[i].nrs) && cap_calls[i].names[j]; j++) {
                        uint32_t v = xpu_seccomp_verdict(filter, cap_calls[i].nrs[j], 0);
                        if ((v & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ALLOW)
                                continue;
                        if (off < size) {
                                int k = snprintf(buf + off, size - off, "%s%s", n ? ", " : "", cap_calls[i].names[j]);
                                off += k > 0 ? (size_t)k : 0;
                        }
                        n++;
                }
        }
        return n;
}

int xpu_user_switch_check(uid_t uid, gid_t gid, uint64_t effective) {
        uid_t ru, eu, su;
        gid_t rg, eg, sg;
        if (getresuid(&ru, &eu, &su) < 0 || getresgid(&rg, &eg, &sg) < 0)
                return negative_errno();
        bool same_uid = ru == uid && eu == uid && su == uid;
        bool same_gid = rg == gid && eg == gid && sg == gid;
        bool can_setgid = effective & XPU_CAP_BIT(CAP_SETGID);
        bool can_setuid = effective & XPU_CAP_BIT(CAP_SETUID);
        /* setgroups always needs CAP_SETGID; without it, ids that are already the process's own
         * leave nothing the switch could do. */
        if (same_uid && same_gid && !can_setgid)
                return 0;
        if (!can_setgid || (!same_uid && !can_setuid))
                return -EPERM;
        return 1;
}

int xpu_privilege_prepare(struct xpu_privilege *p) {
        xpu_privilege_done(p);
        cap_t caps = cap_init(); /* every flag clear */
        if (!caps)
                return -ENOMEM;
        for (int c = 0; c < 64; c++) {
                if (!(p->keep & XPU_CAP_BIT(c)))
                        continue;
                cap_value_t v = c;
                if (c >= cap_max_bits()) {
                        cap_free(caps);
                        return -EINVAL;
                }
                if (cap_set_flag(caps, CAP_PERMITTED, 1, &v, CAP_SET) < 0 ||
                    cap_set_flag(caps, CAP_EFFECTIVE, 1, &v, CAP_SET) < 0 ||
                    (p->ambient && cap_set_flag(caps, CAP_INHERITABLE, 1, &v, CAP_SET) < 0)) {
                        int r = negative_errno();
                        cap_free(caps);
                        return r;
                }
        }
        p->caps_ = caps;
        return 0;
}

void xpu_privilege_done(struct xpu_privilege *p) {
        if (p && p->caps_) {
                cap_free(p->caps_);
                p->caps_ = NULL;
        }
}

/* close_range(FIRST, LAST), or close() on each open fd up to the fd limit where the kernel has
 * no close_range (before Linux 5.9). */
static int close_fds(unsigned first, unsigned last) {
        if (first > last)
                return 0;
        if (close_range(first, last, 0) == 0)
                return 0;
        if (errno != ENOSYS)
                return negative_errno();
        struct rlimit rl;
        unsigned max = 65536;
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < max)
                max = (unsigned)rl.rlim_cur;
        for (unsigned fd = first; fd < max && fd <= last; fd++)
                (void)close((int)fd);
        return 0;
}

/* Record STEP and return the errno of the call that just failed. */
#define FAIL(step)                                                                                 \
        do {                                                                                       \
                *failed_step = (step);                                                             \
                return negative_errno();                                                           \
        } while (0)

int xpu_capability_bounding_drop(uint64_t keep, uint64_t now) {
        /* One PR_CAPBSET_DROP per capability not kept that is still in the set (each drop
         * allocates and commits new credentials, even for one already gone; EINVAL above the
         * kernel's last); PR_CAPBSET_READ only when a drop is refused (EPERM without
         * CAP_SETPCAP, even above the last), to accept what is already gone: a read before every
         * drop would double the calls. */
        for (int c = 0; c < 64; c++) {
                if ((keep & XPU_CAP_BIT(c)) || !(now & XPU_CAP_BIT(c)))
                        continue; /* kept (never above the last: a subset of what was read), or gone */
                if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == 0)
                        continue;
                if (errno == EINVAL)
                        break;
                if (errno != EPERM)
                        return negative_errno();
                /* The kernel checks CAP_SETPCAP before the number: EPERM above the last too. */
                int in = prctl(PR_CAPBSET_READ, c, 0, 0, 0);
                if (in < 0)
                        break;
                if (in > 0)
                        return -EPERM;
        }
        return 0;
}

int xpu_privilege_apply(const struct xpu_privilege *p, const char **failed_step) {
        const char *ignored;
        if (!failed_step)
                failed_step = &ignored;
        *failed_step = NULL;
        if (!p->caps_) {
                *failed_step = "capset";
                return -EINVAL; /* xpu_privilege_prepare() was not called */
        }

        /* 1. Bounding set: drop what the process (and anything it execs, setuid-root binaries
         *    included) may never hold again. Needs CAP_SETPCAP, so it comes first. */
        int r = xpu_capability_bounding_drop(p->bounding, p->bounding_now);
        if (r < 0) {
                *failed_step = "bounding set";
                return r;
        }

        if (p->set_ids) {
                /* 2. Keep the permitted set across the uid change (cleared again by execve). */
                if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
                        FAIL("keepcaps");
                /* 3.-5. Groups, gid, uid: groups and gid first, while CAP_SETGID is effective;
                 *    the uid last, since it clears the effective set. */
                if (syscall(SYS_setgroups, p->n_groups, p->groups) < 0)
                        FAIL("setgroups");
                if (syscall(SYS_setresgid, p->gid, p->gid, p->gid) < 0)
                        FAIL("setresgid");
                if (syscall(SYS_setresuid, p->uid, p->uid, p->uid) < 0)
                        FAIL("setresuid");
                /* 6. A credential change clears the parent-death signal: set it again, and die at
                 *    once if the parent is already gone. */
                if (p->pdeathsig) {
                        if (prctl(PR_SET_PDEATHSIG, p->pdeathsig, 0, 0, 0) < 0)
                                FAIL("pdeathsig");
                        if (p->pdeathsig_parent > 0 && getppid() != p->pdeathsig_parent)
                                (void)kill(getpid(), SIGKILL);
                }
        }

        /* 7. Capabilities: permitted = effective = KEEP; inheritable = KEEP only for the ambient
         *    set (which needs it), else empty: an inheritable set lets a file with inheritable
         *    file capabilities gain them (runc CVE-2022-24769). */
        if (cap_set_proc(p->caps_) < 0)
                FAIL("capset");
        if (p->set_ids && prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
                FAIL("keepcaps");

        /* 8. Ambient set: nothing inherited from us; KEEP when asked (a non-root workload keeps
         *    its capabilities across execve only through it). EINVAL: a kernel before 4.3, which
         *    has no ambient set to clear. */
        /*    One PR_CAP_AMBIENT_CLEAR_ALL (libcap's cap_reset_ambient asks PR_CAP_AMBIENT_IS_SET of
         *    every capability first: 41 system calls). */
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && (errno != EINVAL || p->ambient))
                FAIL("ambient");
        if (p->ambient)
                for (int c = 0; c < 64; c++)
                        if ((p->keep & XPU_CAP_BIT(c)) && cap_set_ambient(c, CAP_SET) < 0)
                                FAIL("ambient");

        /* 9. No setuid bit or file capability can give anything back after this. */
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                FAIL("no_new_privs");

        /* 10. Stray fds: everything above 2, except the inherited range and KEEP_FD. Before the
         *     filter, so that a filter denying close_range cannot leave them open. */
        if (p->close_fds) {
                unsigned lo = 3 + p->n_inherit;
                if (p->keep_fd >= 0 && (unsigned)p->keep_fd >= lo) {
                        r = close_fds(lo, (unsigned)p->keep_fd - 1);
                        if (r == 0)
                                r = close_fds((unsigned)p->keep_fd + 1, ~0U);
                } else
                        r = close_fds(lo, ~0U);
                if (r < 0) {
                        *failed_step = "close fds";
                        return r;
                }
        }

        /* 11. The filter, built long before: the last thing before execve. */
        if (p->seccomp) {
                r = xpu_seccomp_load(p->seccomp);
                if (r < 0) {
                        *failed_step = "seccomp";
                        return r;
                }
        }
        return 0;
}
