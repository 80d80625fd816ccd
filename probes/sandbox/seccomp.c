/* SPDX-License-Identifier: Apache-2.0 */
/* Seccomp filters from named syscall groups (seccomp.h, docs/seccomp.md).
 *
 * Build: libseccomp compiles the rules (seccomp_init, seccomp_arch_add, seccomp_rule_add) and
 * exports the classic BPF (seccomp_export_bpf, to a memfd: libseccomp 2.5.4 has no in-memory
 * export) into a struct sock_fprog this program owns. That costs ~3.6 million instructions
 * (callgrind), 9 times the rest of xpuinit's start, so the named filters are compiled once at
 * build time (packaging/seccomp-cgen.c, the same function on the same tables) and included here
 * as static BPF; a start only points at them. JSON lists are compiled at run time. Load: one
 * seccomp(2) system call. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cJSON.h>

#include "base/fileio.h"
#include "base/root-file.h"
#include "base/log.h"
#include "base/macro.h"
#include "sandbox/seccomp-internal.h"
#include "sandbox/seccomp.h"

/* Most entries a JSON list may hold (the whole syscall table is ~450 names). */
#define LIST_MAX_ENTRIES 1024
/* Most distinct rules one filter holds (every allow group together is ~330). */
#define RULES_MAX 2048

struct xpu_seccomp_program {
        char *name;              /* the spec as given */
        struct sock_fprog fprog; /* .len instructions at .filter: malloc'ed, or a built-in's */
        bool builtin;            /* .filter is static data of builtin-seccomp.inc: not freed */
};

#ifdef XPU_SECCOMP_BUILTIN
/* static const struct xpu_sc_builtin builtin_filters[], written by packaging/seccomp-cgen. */
#include "builtin-seccomp.inc"
const struct xpu_sc_builtin *const xpu_sc_builtins = builtin_filters;
const size_t xpu_sc_n_builtins = ELEMENTSOF(builtin_filters);
#else
const struct xpu_sc_builtin *const xpu_sc_builtins = NULL;
const size_t xpu_sc_n_builtins = 0;
#endif

/* The namespace flags clone(2) may carry in its first argument (CLONE_NEWTIME shares its bit
 * with CSIGNAL there and exists only for clone3/unshare). */
static const uint64_t clone_ns_flags[] = {
        CLONE_NEWNS,     /* mount namespace */
        CLONE_NEWCGROUP, /* cgroup namespace */
        CLONE_NEWUTS,    /* host name */
        CLONE_NEWIPC,    /* System V IPC */
        CLONE_NEWUSER,   /* user namespace: the door to every other one without privilege */
        CLONE_NEWPID,    /* PID namespace */
        CLONE_NEWNET,    /* network namespace */
};

/* personality(2) flags that weaken the address space of the caller and what it execs; the
 * personas runtimes allow (PER_LINUX, PER_LINUX32, UNAME26) stay allowed. */
static const uint64_t personality_denied_flags[] = {
        0x0040000, /* ADDR_NO_RANDOMIZE: no ASLR */
        0x0080000, /* FDPIC_FUNCPTRS */
        0x0100000, /* MMAP_PAGE_ZERO: page 0 mapped (NULL dereference exploits) */
        0x0200000, /* ADDR_COMPAT_LAYOUT: legacy, predictable layout */
        0x0400000, /* READ_IMPLIES_EXEC: every readable mapping executable */
        0x0800000, /* ADDR_LIMIT_32BIT */
        0x8000000, /* ADDR_LIMIT_3GB */
};

/* Address families a strict list lets socket(2) create. */
static const uint64_t socket_families[] = {
        AF_UNIX,    /* local IPC: CUDA MPS, NCCL's proxy, sd_notify */
        AF_INET,    /* NCCL/Gloo bootstrap and TCP transports */
        AF_INET6,   /* the same over IPv6 */
        AF_NETLINK, /* getifaddrs() (NCCL picks interfaces), udev lookups */
};

/* One rule to add: a syscall number (libseccomp's, pseudo numbers for other arches' calls) and
 * how. Collected first so an explicit name in a JSON list overrides the same name in a group. */
struct rule {
        int nr;
        enum xpu_sc_kind kind;
        const char *name;
};

struct rules {
        struct rule r[RULES_MAX];
        size_t n;
};

/* Add NAME with KIND to RS; EXPLICIT entries replace a group's kind. -ENOENT when libseccomp
 * does not know NAME, -E2BIG when full. */
static int rules_add(struct rules *rs, const char *name, enum xpu_sc_kind kind, bool explicit) {
        int nr = seccomp_syscall_resolve_name(name);
        if (nr == __NR_SCMP_ERROR)
                return -ENOENT;
        for (size_t i = 0; i < rs->n; i++)
                if (rs->r[i].nr == nr) {
                        if (explicit)
                                rs->r[i].kind = XPU_SC_PLAIN;
                        return 0;
                }
        if (rs->n >= RULES_MAX)
                return -E2BIG;
        rs->r[rs->n++] = (struct rule){ .nr = nr, .kind = kind, .name = name };
        return 0;
}

/* Every entry of group G. Names this libseccomp does not know (a call newer than it) are left
 * out: the list still holds for every call it can name. */
static int rules_add_group(struct rules *rs, const struct xpu_sc_group *g) {
        for (size_t i = 0; i < g->n_entries; i++) {
                int r = rules_add(rs, g->entries[i].name, g->entries[i].kind, false);
                if (r < 0 && r != -ENOENT)
                        return r;
        }
        return 0;
}

static const struct xpu_sc_group *group_find(const char *name) {
        for (size_t i = 0; i < xpu_sc_n_groups; i++)
                if (strcmp(xpu_sc_groups[i].name, name) == 0)
                        return &xpu_sc_groups[i];
        return NULL;
}

/* Add one rule for R in a deny list (DENY) or an allow list. */
static int rule_emit(scmp_filter_ctx ctx, const struct rule *r, bool deny) {
        uint32_t act = deny ? SCMP_ACT_ERRNO(EPERM) : SCMP_ACT_ALLOW;
        int ret = 0;
        switch (r->kind) {
        case XPU_SC_ENOSYS:
                return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), r->nr, 0);
        case XPU_SC_CLONE_NS:
                if (!deny) {
                        uint64_t mask = 0;
                        for (size_t i = 0; i < ELEMENTSOF(clone_ns_flags); i++)
                                mask |= clone_ns_flags[i];
                        return seccomp_rule_add(ctx, act, r->nr, 1, SCMP_A0(SCMP_CMP_MASKED_EQ, mask, 0));
                }
                for (size_t i = 0; i < ELEMENTSOF(clone_ns_flags) && ret == 0; i++)
                        ret = seccomp_rule_add(ctx, act, r->nr, 1,
                                               SCMP_A0(SCMP_CMP_MASKED_EQ, clone_ns_flags[i], clone_ns_flags[i]));
                return ret;
        case XPU_SC_PERSONALITY:
                if (!deny)
                        return seccomp_rule_add(ctx, act, r->nr, 0);
                for (size_t i = 0; i < ELEMENTSOF(personality_denied_flags) && ret == 0; i++)
                        ret = seccomp_rule_add(ctx, act, r->nr, 1,
                                               SCMP_A0(SCMP_CMP_MASKED_EQ, personality_denied_flags[i],
                                                       personality_denied_flags[i]));
                return ret;
        case XPU_SC_SOCKET:
                if (deny)
                        return seccomp_rule_add(ctx, act, r->nr, 0);
                for (size_t i = 0; i < ELEMENTSOF(socket_families) && ret == 0; i++)
                        ret = seccomp_rule_add(ctx, act, r->nr, 1, SCMP_A0(SCMP_CMP_EQ, socket_families[i]));
                return ret;
        case XPU_SC_PLAIN:
        default:
                return seccomp_rule_add(ctx, act, r->nr, 0);
        }
}

/* Compile RS (a deny list returning EPERM, or an allow list with everything else EPERM) for ARCH
 * (an SCMP_ARCH_* token, 0 for the native one) and export it into P->fprog. */
static int compile(const struct rules *rs, bool deny, uint32_t arch, struct xpu_seccomp_program *p, char *err,
                   size_t err_size) {
        scmp_filter_ctx ctx = seccomp_init(deny ? SCMP_ACT_ALLOW : SCMP_ACT_ERRNO(EPERM));
        int r;
        if (!ctx)
                return -ENOMEM;
        /* A call through a foreign ABI would bypass rules written for the native numbers: the
         * ones added here get the same rules, any other is killed. */
        r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
        if (r == 0)
                r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
        /* Another architecture (the generator of a cross build): its filter alone. libseccomp takes
         * the rules' numbers as native ones and translates them to ARCH by name, as it does for
         * the i386 and x32 filters below. */
        const uint32_t native = seccomp_arch_native();
        if (arch == SCMP_ARCH_NATIVE)
                arch = native;
        if (r == 0 && arch != native) {
                r = seccomp_arch_add(ctx, arch);
                if (r == 0)
                        r = seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE);
        }
        if (r == 0 && arch == SCMP_ARCH_X86_64) {
                r = seccomp_arch_add(ctx, SCMP_ARCH_X86); /* i386 (int 0x80, ia32 emulation) */
                if (r == 0)
                        r = seccomp_arch_add(ctx, SCMP_ARCH_X32); /* x32 (syscall numbers | 0x40000000) */
        }
        if (r < 0) {
                xpu_format_error(err, err_size, "seccomp: cannot set up the filter's architectures: %s", strerror(-r));
                seccomp_release(ctx);
                return r;
        }
        for (size_t i = 0; i < rs->n; i++) {
                r = rule_emit(ctx, &rs->r[i], deny);
                if (r < 0) {
                        xpu_format_error(err, err_size, "seccomp: libseccomp refused the rule for %s: %s", rs->r[i].name,
                                strerror(-r));
                        seccomp_release(ctx);
                        return r;
                }
        }
        int fd = memfd_create("xpu-seccomp-bpf", MFD_CLOEXEC);
        if (fd < 0) {
                r = negative_errno();
                seccomp_release(ctx);
                return r;
        }
        r = seccomp_export_bpf(ctx, fd);
        seccomp_release(ctx);
        off_t size = r == 0 ? lseek(fd, 0, SEEK_END) : -1;
        if (r == 0 && (size <= 0 || size % (off_t)sizeof(struct sock_filter) != 0 ||
                       size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS))
                r = -E2BIG;
        struct sock_filter *insns = r == 0 ? malloc((size_t)size) : NULL;
        if (r == 0 && !insns)
                r = -ENOMEM;
        if (r == 0 && pread(fd, insns, (size_t)size, 0) != size)
                r = -EIO;
        close(fd);
        if (r < 0) {
                free(insns);
                xpu_format_error(err, err_size, "seccomp: cannot export the filter: %s", strerror(-r));
                return r;
        }
        p->fprog.filter = insns;
        p->fprog.len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
        return 0;
}

/* The allow groups' names, for error lines: "@strict, @basic-io, ...". */
static void allow_group_names(char *buf, size_t size) {
        size_t off = (size_t)snprintf(buf, size, "@strict");
        for (size_t i = 0; i < xpu_sc_n_groups && off < size; i++)
                if (!xpu_sc_groups[i].deny)
                        off += (size_t)snprintf(buf + off, size - off, ", @%s", xpu_sc_groups[i].name);
}

/* Every allow group: the "strict" list. */
static int rules_add_strict(struct rules *rs) {
        for (size_t i = 0; i < xpu_sc_n_groups; i++) {
                if (xpu_sc_groups[i].deny)
                        continue;
                int r = rules_add_group(rs, &xpu_sc_groups[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Read PATH below ROOT_FD (xpu_open_file_in_root) into BUF (SIZE bytes, NUL-terminated), a NUL byte
 * in the file included, so that the caller can say where it is (xpu_read_file_in_root answers
 * -EINVAL for it, as for a FIFO). Returns the length, -EFBIG when it does not fit, -EISDIR,
 * -EINVAL for a FIFO, device or socket, or open/read's -errno. */
static ssize_t read_list(int root_fd, const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = xpu_open_file_in_root(root_fd, path, NULL);
        if (fd < 0)
                return fd;
        ssize_t len = xpu_read_full(fd, buf, size);
        if (len < 0)
                return len;
        if ((size_t)len >= size)
                return -EFBIG;
        buf[len] = '\0';
        return len;
}

/* ROOT_FD's path for messages: readlink of /proc/self/fd/ROOT_FD ("/" inside the container),
 * or "(fd N)" when procfs cannot tell. */
static const char *root_name(int root_fd, char *buf, size_t size) {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", root_fd);
        ssize_t n = readlink(link, buf, size - 1);
        if (n <= 0 || buf[0] != '/')
                snprintf(buf, size, "(fd %d)", root_fd);
        else
                buf[n] = '\0';
        return buf;
}

/* The calls an allow list must let through: xpuinit loads the filter and then execs the workload,
 * and when that exec fails it still writes its report (the child's pipe, or the error line of
 * --exec) and exits; denied, a failed exec would end in a crash with no message. */
static const char *const rules_needed[] = { "execve", "write", "exit", "exit_group" };

/* Whether RS, an allow list, lets the call named NAME through unconditionally. */
static bool rules_allow(const struct rules *rs, const char *name) {
        int nr = seccomp_syscall_resolve_name(name);
        for (size_t i = 0; i < rs->n; i++)
                if (rs->r[i].nr == nr)
                        return rs->r[i].kind == XPU_SC_PLAIN;
        return false;
}

/* The calls of rules_needed RS denies, comma-separated, into BUF; returns whether any is. */
static bool rules_missing_needed(const struct rules *rs, char *buf, size_t size) {
        size_t used = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < ELEMENTSOF(rules_needed); i++)
                if (!rules_allow(rs, rules_needed[i])) {
                        int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", rules_needed[i]);
                        if (n > 0 && (size_t)n < size - used)
                                used += (size_t)n;
                }
        return used > 0;
}

/* A JSON list at PATH below ROOT_FD into RS (an allow list). */
static int rules_from_file(struct rules *rs, const char *path, int root_fd, char *err, size_t err_size) {
        const char *fix = "write a JSON array of system call names and allow groups, e.g. [\"@strict\", \"ptrace\"] "
                          "(docs/seccomp.md)";
        if (root_fd < 0) {
                xpu_format_error(err, err_size, "seccomp list %s: no root directory to read it from", path);
                return -EBADF;
        }
        _cleanup_free_ char *buf = malloc(XPU_READ_MAX);
        if (!buf)
                return -ENOMEM;
        ssize_t n = read_list(root_fd, path, buf, XPU_READ_MAX);
        if (n == -EFBIG) {
                xpu_format_error(err, err_size, "seccomp list %s: larger than %d bytes; list the groups (\"@strict\") instead "
                        "of every call",
                        path, XPU_READ_MAX);
                return (int)n;
        }
        if (n == -ENOENT || n == -ENOTDIR) {
                char root[256];
                xpu_format_error(err, err_size, "seccomp list %s: no such file inside the container root %s; create the file "
                        "or fix the profile's seccomp path",
                        path, root_name(root_fd, root, sizeof root));
                return (int)n;
        }
        if (n == -EISDIR || n == -EINVAL) {
                xpu_format_error(err, err_size, "seccomp list %s: %s, not a regular file; %s", path,
                        n == -EISDIR ? "a directory" : "a FIFO, device or socket", fix);
                return (int)n;
        }
        if (n < 0) {
                xpu_format_error(err, err_size, "seccomp list %s: cannot read it inside the root: %s (a regular file, no "
                        "symlink or \"..\" leading outside the root)",
                        path, strerror((int)-n));
                return (int)n;
        }
        if (strlen(buf) != (size_t)n) {
                xpu_format_error(err, err_size, "seccomp list %s: contains a NUL byte at offset %zu; %s", path, strlen(buf),
                        fix);
                return -EINVAL;
        }
        /* Names are [a-z0-9_] and "@group": no JSON escape is ever needed, and "\u0000" would
         * end a name early inside cJSON ("read\u0000x" read as "read"). */
        const char *bs = strchr(buf, '\\');
        if (bs) {
                xpu_format_error(err, err_size, "seccomp list %s: a backslash at offset %td: names are plain syscall "
                        "names or \"@group\", without JSON escapes; %s", path, bs - buf, fix);
                return -EINVAL;
        }
        const char *end = NULL;
        cJSON *root = cJSON_ParseWithOpts(buf, &end, true);
        if (!root) {
                xpu_format_error(err, err_size, "seccomp list %s: not valid JSON near byte %td; %s", path,
                        end ? end - buf : (ptrdiff_t)0, fix);
                return -EINVAL;
        }
        int r = 0;
        int count = cJSON_IsArray(root) ? cJSON_GetArraySize(root) : -1;
        if (count < 0)
                xpu_format_error(err, err_size, "seccomp list %s: not a JSON array; %s", path, fix);
        else if (count == 0)
                xpu_format_error(err, err_size, "seccomp list %s: empty: it would deny every call, exec included; %s", path,
                        fix);
        else if (count > LIST_MAX_ENTRIES)
                xpu_format_error(err, err_size, "seccomp list %s: %d entries, at most %d; use groups (\"@strict\")", path,
                        count, LIST_MAX_ENTRIES);
        if (count <= 0 || count > LIST_MAX_ENTRIES)
                r = -EINVAL;
        int idx = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, root) {
                if (r < 0)
                        break;
                const char *s = cJSON_GetStringValue(e);
                char groups[512];
                if (!s || !*s) {
                        xpu_format_error(err, err_size, "seccomp list %s: entry %d is not a non-empty string; %s", path, idx,
                                fix);
                        r = -EINVAL;
                } else if (s[0] == '@') {
                        const struct xpu_sc_group *g = group_find(s + 1);
                        allow_group_names(groups, sizeof groups);
                        if (strcmp(s + 1, "strict") == 0)
                                r = rules_add_strict(rs);
                        else if (g && !g->deny)
                                r = rules_add_group(rs, g);
                        else {
                                xpu_format_error(err, err_size, "seccomp list %s: entry %d \"%s\" is %s; an allow list may name "
                                        "%s",
                                        path, idx, s, g ? "a deny group" : "not a group", groups);
                                r = -EINVAL;
                        }
                } else {
                        r = rules_add(rs, s, XPU_SC_PLAIN, true);
                        if (r == -ENOENT) {
                                const struct scmp_version *v = seccomp_version();
                                xpu_format_error(err, err_size, "seccomp list %s: entry %d \"%s\" is not a system call "
                                        "libseccomp %u.%u.%u knows; check the spelling (man 2 syscalls) or name a "
                                        "group such as \"@strict\"",
                                        path, idx, s, v ? v->major : 0, v ? v->minor : 0, v ? v->micro : 0);
                                r = -EINVAL;
                        }
                }
                if (r == -E2BIG)
                        xpu_format_error(err, err_size, "seccomp list %s: more than %d distinct calls", path, RULES_MAX);
                idx++;
        }
        cJSON_Delete(root);
        char missing[64];
        if (r == 0 && !rules_allow(rs, "execve")) {
                xpu_format_error(err, err_size, "seccomp list %s: does not allow execve, so the workload could not even "
                        "start (\"Operation not permitted\" at its exec); add \"execve\" or \"@process\" to the list",
                        path);
                r = -EINVAL;
        } else if (r == 0 && rules_missing_needed(rs, missing, sizeof missing)) {
                xpu_format_error(err, err_size, "seccomp list %s: does not allow %s, which xpuinit needs after loading the "
                        "filter to report a failed exec of the workload and exit (denied, that exec would end in a "
                        "crash with no message); add them, or \"@basic-io\" and \"@process\", to the list",
                        path, missing);
                r = -EINVAL;
        }
        return r;
}

int xpu_seccomp_compile(const char *spec, int root_fd, struct xpu_seccomp_program **ret, char *err, size_t err_size) {
        return xpu_seccomp_compile_arch(spec, SCMP_ARCH_NATIVE, root_fd, ret, err, err_size);
}

int xpu_seccomp_compile_arch(const char *spec, uint32_t arch, int root_fd, struct xpu_seccomp_program **ret, char *err,
                             size_t err_size) {
        if (!spec || !ret) {
                xpu_format_error(err, err_size, "seccomp: no spec given; use default, strict, xpud or an absolute path");
                return -EINVAL;
        }
        _cleanup_free_ struct rules *rs = calloc(1, sizeof *rs);
        if (!rs)
                return -ENOMEM;
        bool deny = strcmp(spec, "default") == 0 || strcmp(spec, "xpud") == 0;
        int r = 0;
        if (deny) {
                bool xpud = strcmp(spec, "xpud") == 0;
                for (size_t i = 0; i < xpu_sc_n_groups && r == 0; i++)
                        if (xpu_sc_groups[i].deny && (xpud || strcmp(xpu_sc_groups[i].name, "xpud-extra") != 0))
                                r = rules_add_group(rs, &xpu_sc_groups[i]);
        } else if (strcmp(spec, "strict") == 0) {
                r = rules_add_strict(rs);
        } else if (spec[0] == '/') {
                r = rules_from_file(rs, spec, root_fd, err, err_size);
                if (r < 0)
                        return r;
        } else {
                xpu_format_error(err, err_size, "seccomp \"%s\": unknown; use \"default\" (deny list), \"strict\" (allow list), "
                        "\"xpud\" or the absolute path of a JSON list inside the root",
                        spec);
                return -EINVAL;
        }
        if (r < 0) {
                xpu_format_error(err, err_size, "seccomp %s: cannot collect the rules: %s", spec, strerror(-r));
                return r;
        }
        _cleanup_free_ struct xpu_seccomp_program *p = calloc(1, sizeof *p);
        if (!p || !(p->name = strdup(spec))) {
                if (p)
                        free(p->name);
                return -ENOMEM;
        }
        r = compile(rs, deny, arch, p, err, err_size);
        if (r < 0) {
                free(p->name);
                return r;
        }
        *ret = TAKE_PTR(p);
        return 0;
}

int xpu_seccomp_build(const char *spec, int root_fd, struct xpu_seccomp_program **ret, char *err, size_t err_size) {
        const struct xpu_sc_builtin *b = NULL;
        for (size_t i = 0; spec && ret && i < xpu_sc_n_builtins && !b; i++)
                if (strcmp(xpu_sc_builtins[i].name, spec) == 0)
                        b = &xpu_sc_builtins[i];
        if (!b)
                return xpu_seccomp_compile(spec, root_fd, ret, err, err_size);
        struct xpu_seccomp_program *p = calloc(1, sizeof *p);
        if (!p || !(p->name = strdup(spec))) {
                free(p);
                return -ENOMEM;
        }
        /* The kernel copies the program and never writes it: the cast drops only C's const. */
        p->fprog.filter = (struct sock_filter *)b->insns;
        p->fprog.len = b->len;
        p->builtin = true;
        *ret = p;
        return 0;
}

bool xpu_seccomp_is_builtin(const struct xpu_seccomp_program *p) {
        return p && p->builtin;
}

int xpu_seccomp_load(const struct xpu_seccomp_program *p) {
        if (!p || !p->fprog.filter || p->fprog.len == 0)
                return -EINVAL;
        /* The kernel copies the program and never writes it: the cast drops only C's const. */
        struct sock_fprog *fprog = (struct sock_fprog *)&p->fprog;
        if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, fprog) == 0)
                return 0;
        /* ENOSYS: a kernel before 3.17. EPERM: an earlier filter denies seccomp(2) but may allow
         * prctl (systemd's @system-service does; seccomp(2) itself never answers EPERM here). */
        if (errno != ENOSYS && errno != EPERM)
                return -errno;
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, fprog, 0, 0) == 0)
                return 0;
        return -errno;
}

bool xpu_seccomp_same(const struct xpu_seccomp_program *a, const struct xpu_seccomp_program *b) {
        return a && b && a->fprog.len == b->fprog.len &&
               memcmp(a->fprog.filter, b->fprog.filter, a->fprog.len * sizeof a->fprog.filter[0]) == 0;
}

struct xpu_seccomp_program *xpu_seccomp_free(struct xpu_seccomp_program *p) {
        if (!p)
                return NULL;
        if (!p->builtin)
                free(p->fprog.filter);
        free(p->name);
        free(p);
        return NULL;
}

const char *xpu_seccomp_name(const struct xpu_seccomp_program *p) {
        return p ? p->name : "";
}

size_t xpu_seccomp_size(const struct xpu_seccomp_program *p) {
        return p ? p->fprog.len : 0;
}

const struct sock_filter *xpu_seccomp_insns(const struct xpu_seccomp_program *p) {
        return p ? p->fprog.filter : NULL;
}

/* Classic BPF, the instructions libseccomp emits, run on D: the SECCOMP_RET_* value, or 0xdead
 * for an unknown instruction, an out-of-range load or a program that falls off its end. */
static uint32_t bpf_run(const struct sock_filter *prog, size_t n, const struct seccomp_data *d) {
        uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };
        for (size_t pc = 0; pc < n; pc++) {
                const struct sock_filter *f = &prog[pc];
                uint32_t src = BPF_SRC(f->code) == BPF_X ? x : f->k;
                switch (f->code) {
                case BPF_LD | BPF_W | BPF_ABS:
                        if (f->k > sizeof *d - 4)
                                return 0xdead;
                        memcpy(&a, (const unsigned char *)d + f->k, 4);
                        break;
                case BPF_LD | BPF_IMM:
                        a = f->k;
                        break;
                case BPF_LDX | BPF_IMM:
                        x = f->k;
                        break;
                case BPF_LD | BPF_MEM:
                        a = mem[f->k % BPF_MEMWORDS];
                        break;
                case BPF_LDX | BPF_MEM:
                        x = mem[f->k % BPF_MEMWORDS];
                        break;
                case BPF_ST:
                        mem[f->k % BPF_MEMWORDS] = a;
                        break;
                case BPF_STX:
                        mem[f->k % BPF_MEMWORDS] = x;
                        break;
                case BPF_MISC | BPF_TAX:
                        x = a;
                        break;
                case BPF_MISC | BPF_TXA:
                        a = x;
                        break;
                case BPF_ALU | BPF_AND | BPF_K:
                case BPF_ALU | BPF_AND | BPF_X:
                        a &= src;
                        break;
                case BPF_ALU | BPF_OR | BPF_K:
                case BPF_ALU | BPF_OR | BPF_X:
                        a |= src;
                        break;
                case BPF_JMP | BPF_JA:
                        pc += f->k;
                        break;
                case BPF_JMP | BPF_JEQ | BPF_K:
                case BPF_JMP | BPF_JEQ | BPF_X:
                        pc += a == src ? f->jt : f->jf;
                        break;
                case BPF_JMP | BPF_JGT | BPF_K:
                case BPF_JMP | BPF_JGT | BPF_X:
                        pc += a > src ? f->jt : f->jf;
                        break;
                case BPF_JMP | BPF_JGE | BPF_K:
                case BPF_JMP | BPF_JGE | BPF_X:
                        pc += a >= src ? f->jt : f->jf;
                        break;
                case BPF_JMP | BPF_JSET | BPF_K:
                case BPF_JMP | BPF_JSET | BPF_X:
                        pc += (a & src) ? f->jt : f->jf;
                        break;
                case BPF_RET | BPF_K:
                        return f->k;
                case BPF_RET | BPF_A:
                        return a;
                default:
                        return 0xdead;
                }
        }
        return 0xdead;
}

uint32_t xpu_seccomp_verdict_arch(const struct xpu_seccomp_program *p, uint32_t arch, int nr, uint64_t arg0) {
        if (!p)
                return SECCOMP_RET_ALLOW;
        struct seccomp_data d = { .nr = nr, .arch = arch, .args = { arg0 } };
        return bpf_run(p->fprog.filter, p->fprog.len, &d);
}

uint32_t xpu_seccomp_verdict(const struct xpu_seccomp_program *p, int nr, uint64_t arg0) {
        /* libseccomp's architecture tokens are the kernel's AUDIT_ARCH_* values. */
        return xpu_seccomp_verdict_arch(p, seccomp_arch_native(), nr, arg0);
}
