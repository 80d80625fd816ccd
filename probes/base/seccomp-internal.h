/* SPDX-License-Identifier: Apache-2.0 */
/* The syscall group tables behind seccomp.h (seccomp-groups.c). Internal. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* How an entry becomes a rule. */
enum xpu_sc_kind {
        XPU_SC_PLAIN,       /* the whole call: denied (EPERM) or allowed */
        XPU_SC_CLONE_NS,    /* clone: denied / allowed only when no CLONE_NEW* flag is set (arg 0) */
        XPU_SC_ENOSYS,      /* answered ENOSYS in every list (clone3: libc falls back to clone) */
        XPU_SC_SOCKET,      /* socket: allowed for AF_UNIX, AF_INET, AF_INET6, AF_NETLINK (arg 0) */
        XPU_SC_PERSONALITY, /* personality: denied when it sets a flag weakening the address space */
};

struct xpu_sc_entry {
        const char *name; /* the syscall's name as libseccomp knows it */
        enum xpu_sc_kind kind;
};

struct xpu_sc_group {
        const char *name; /* without the '@' */
        bool deny;        /* part of the deny lists ("default", "xpud") rather than of "strict" */
        const struct xpu_sc_entry *entries;
        size_t n_entries;
        const char *summary; /* one line for docs and errors */
};

extern const struct xpu_sc_group xpu_sc_groups[];
extern const size_t xpu_sc_n_groups;
