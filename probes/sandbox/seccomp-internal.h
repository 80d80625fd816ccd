/* SPDX-License-Identifier: Apache-2.0 */
/* The syscall group tables behind seccomp.h (seccomp-groups.c), the built-in filters compiled
 * at build time (packaging/seccomp-cgen.c) and the run-time compiler. Internal: for seccomp.c,
 * the generator and the unit tests. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

struct sock_filter; /* linux/filter.h */
struct xpu_seccomp_program;

/* A named filter ("default", "strict", "xpud") compiled at build time: packaging/seccomp-cgen
 * runs xpu_seccomp_compile() on the build machine (its native architecture, the libseccomp the
 * build links) and writes the classic BPF as static data, $(BUILD)/gen/builtin-seccomp.inc,
 * which seccomp.c includes when built with -DXPU_SECCOMP_BUILTIN (docs/seccomp.md). */
struct xpu_sc_builtin {
        const char *name;                /* the spec */
        const struct sock_filter *insns; /* len instructions, static */
        unsigned short len;
};

/* The built-in filters (xpu_sc_n_builtins of them; none, NULL, in a build without
 * -DXPU_SECCOMP_BUILTIN such as the generator's own and the libFuzzer build). */
extern const struct xpu_sc_builtin *const xpu_sc_builtins;
extern const size_t xpu_sc_n_builtins;

/* xpu_seccomp_build() without the built-in filters: SPEC is always compiled now with libseccomp
 * (seccomp_init/seccomp_rule_add/seccomp_export_bpf). Same arguments, results and errors. For the
 * generator, and for the tests that compare a built-in program with a fresh compilation. */
int xpu_seccomp_compile(const char *spec, int root_fd, struct xpu_seccomp_program **ret, char *err,
                        size_t err_size);

/* xpu_seccomp_compile() for the architecture ARCH, a libseccomp SCMP_ARCH_* token (the kernel's
 * AUDIT_ARCH_* value; SCMP_ARCH_NATIVE, 0, for the native one): the generator of a cross build
 * (make ARCH=arm64: seccomp-cgen runs on the build machine) compiles the built-ins for the target.
 * The rules' names are translated to ARCH's call numbers by libseccomp; a call ARCH lacks
 * ("open", "arch_prctl" on aarch64) gives no rule, as in a native compilation there. x86_64 gets
 * the i386 and x32 filters too; any other ARCH its own only (no x32 on aarch64). Same results and
 * errors as xpu_seccomp_compile(); an ARCH libseccomp does not know fails with its -errno. */
int xpu_seccomp_compile_arch(const char *spec, uint32_t arch, int root_fd, struct xpu_seccomp_program **ret,
                             char *err, size_t err_size);

/* Whether P's instructions are a built-in filter's static data (false for NULL). For the tests. */
bool xpu_seccomp_is_builtin(const struct xpu_seccomp_program *p);
