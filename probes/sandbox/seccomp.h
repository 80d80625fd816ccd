/* SPDX-License-Identifier: Apache-2.0 */
/* Seccomp filters built from named syscall groups (built early, loaded last).
 *
 * xpu_seccomp_build() does all the parsing and allocation: it compiles a libseccomp filter for
 * the spec and exports the classic BPF (seccomp_export_bpf) into a struct sock_fprog owned by the
 * program; the named specs were compiled so at build time (packaging/seccomp-cgen) and are only
 * pointed at. xpu_seccomp_load() is then one seccomp(SECCOMP_SET_MODE_FILTER) system call: no
 * allocation, no libseccomp, no locks, so it is async-signal-safe and may run in a vfork/CLONE_VM
 * child between clone and exec. It does NOT set PR_SET_NO_NEW_PRIVS: the privilege sequence
 * (probes/sandbox/privilege.c) sets it before loading; without it or CAP_SYS_ADMIN the kernel answers
 * -EACCES.
 *
 * Specs (docs/seccomp.md):
 *   "default"  deny list returning EPERM, in the spirit of the container runtimes' defaults
 *              (mount API, kernel modules, kexec, bpf, perf_event_open, ptrace, keyring, namespace
 *              creation, reboot, swap, clock setting, ...); everything else allowed.
 *   "strict"   allow list for plain compute workloads; everything else EPERM.
 *   "xpud"     deny list for xpud after binding: "default" plus execve/execveat and more.
 *   "/path"    a JSON array of syscall names and "@group" names read below ROOT_FD: an allow list,
 *              everything else EPERM.
 *
 * ABIs: on x86_64 the filter covers the native, x32 and i386 ABIs with the same rules (libseccomp
 * adds the arches to one filter); any other ABI is killed (SECCOMP_RET_KILL_PROCESS). On other
 * architectures the native ABI only, foreign ABIs killed. Nothing here logs (style item 2). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A compiled filter: the spec's name and its exported classic BPF (struct sock_fprog). Opaque. */
struct xpu_seccomp_program;

/* Compile SPEC ("default", "strict", "xpud" or an absolute path of a JSON list resolved below
 * ROOT_FD with xpu_open_in_root; ROOT_FD is unused for the named specs and may be -1) into
 * *RET. On failure writes one line naming the spec (and file entry) and the fix into ERR
 * (ERR_SIZE bytes; may be NULL) and returns -errno: -EINVAL bad spec/JSON/unknown syscall or
 * group, a list that does not allow execve (the workload's exec would fail), a NUL byte (its
 * offset named), a FIFO/device/socket; -EISDIR; -ENOENT (the container root named, from
 * /proc/self/fd/ROOT_FD)/-EXDEV/-ELOOP/-EFBIG from reading the file, -ENOMEM, or libseccomp's
 * error.
 * Source: libseccomp seccomp_init/seccomp_rule_add/seccomp_export_bpf, at build time for the
 * named specs (static BPF of builtin-seccomp.inc, docs/seccomp.md), at run time for a path. */
int xpu_seccomp_build(const char *spec, int root_fd, struct xpu_seccomp_program **ret, char *err,
                      size_t err_size);

/* Install P on the calling thread: one seccomp(SECCOMP_SET_MODE_FILTER, 0, &fprog) syscall (raw
 * syscall(2); falls back to prctl(PR_SET_SECCOMP) when seccomp(2) answers ENOSYS, or EPERM from an
 * earlier filter that denies seccomp(2) but not prctl, as systemd's @system-service). No allocation,
 * async-signal-safe. The caller sets PR_SET_NO_NEW_PRIVS first (or holds CAP_SYS_ADMIN).
 * Returns 0 or -errno (-EACCES without NO_NEW_PRIVS, -EINVAL when P is NULL or empty). */
int xpu_seccomp_load(const struct xpu_seccomp_program *p);

/* Whether A and B are the same filter: the same BPF instructions (a built-in named twice, or two
 * compilations of one spec). False when either is NULL. */
bool xpu_seccomp_same(const struct xpu_seccomp_program *a, const struct xpu_seccomp_program *b);

/* Free P (NULL is fine); returns NULL. */
struct xpu_seccomp_program *xpu_seccomp_free(struct xpu_seccomp_program *p);

/* The spec P was built from: "default", "strict", "xpud" or the path as given. Never NULL for a
 * built program; "" for NULL. */
const char *xpu_seccomp_name(const struct xpu_seccomp_program *p);

/* Number of BPF instructions in P (for the plan and the tests); 0 for NULL. */
size_t xpu_seccomp_size(const struct xpu_seccomp_program *p);

struct sock_filter; /* linux/filter.h */
/* P's classic BPF instructions (xpu_seccomp_size() of them), owned by P; NULL for NULL. For the
 * tests, which run the program on synthetic seccomp_data (foreign ABIs this kernel may lack). */
const struct sock_filter *xpu_seccomp_insns(const struct xpu_seccomp_program *p);

/* The action P takes for system call NR (a __NR_* number of the native ABI) with ARG0 as its
 * first argument and 0 for the others: SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | errno,
 * SECCOMP_RET_KILL_PROCESS ... (linux/seccomp.h; compare with SECCOMP_RET_ACTION_FULL for the
 * action alone). Source: P's classic BPF run on a synthetic struct seccomp_data (arch:
 * seccomp_arch_native(), the AUDIT_ARCH_* value) by a small interpreter of the instructions
 * libseccomp emits; 0xdead for one it does not know. SECCOMP_RET_ALLOW for NULL (no filter).
 * For the plan's warnings (xpu_capability_denied_calls) and the tests. */
uint32_t xpu_seccomp_verdict(const struct xpu_seccomp_program *p, int nr, uint64_t arg0);

/* The same for the ABI ARCH (an AUDIT_ARCH_* value, e.g. AUDIT_ARCH_I386) and its call numbers:
 * how the filter treats a foreign ABI's calls, which the tests check without that ABI's kernel
 * support. */
uint32_t xpu_seccomp_verdict_arch(const struct xpu_seccomp_program *p, uint32_t arch, int nr, uint64_t arg0);
