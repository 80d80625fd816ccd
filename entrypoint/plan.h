/* SPDX-License-Identifier: Apache-2.0 */
/* The plan: pure data built (planner.h) from inventory + selection + profile and the facts
 * gathered (gathered.h) for what it needs (needs.h), without side effects and without reading
 * anything. `xpuinit plan` prints it; apply.c walks it in order. This header holds the data and
 * the helpers that edit it (plan.c); it includes neither the planner nor its parts. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/macro.h"
#include "gathered.h"
#include "host-files.h"
#include "libs.h"
#include "needs.h"
#include "probe.h"
#include "profile.h"
#include "select.h"

enum xpu_op_type {
        XPU_OP_MKDIR = 0,     /* create directory PATH (mode) in the container root */
        XPU_OP_TMPFS,         /* mount a private tmpfs on PATH (mount mode) */
        XPU_OP_BIND,          /* bind-mount SOURCE (in the driver root) on PATH: ro, nosuid, nodev */
        XPU_OP_SYMLINK,       /* symlink PATH -> TARGET */
        XPU_OP_REMOUNT_RO,    /* make the tmpfs on PATH read-only once populated */
        XPU_OP_WRITE_FILE,    /* write CONTENT to PATH (mode) */
        XPU_OP_LDCONFIG,      /* run the image's ldconfig (PATH) with an empty environment */
        XPU_OP_CHECK_DEVNODE, /* PATH must be a character device major:minor in the container */
        _XPU_OP_MAX,
};
const char *xpu_op_type_to_string(enum xpu_op_type t);

struct xpu_op {
        enum xpu_op_type type;
        char path[PATH_MAX];   /* inside the container root */
        char source[PATH_MAX]; /* BIND: inside the driver root */
        char target[PATH_MAX]; /* SYMLINK: link text */
        char *content;         /* WRITE_FILE */
        mode_t mode;
        uint32_t major, minor; /* CHECK_DEVNODE */
        bool have_major;
        bool any_number; /* CHECK_DEVNODE: numbers unknown, any character device passes */
        bool optional; /* CHECK_DEVNODE: a missing node is only a warning */
        bool filesystem; /* part of the filesystem plan (`inject --rootfs` applies only these) */
        bool host_file;  /* BIND: a file placed at its own path (host-files.h), of kind HOST_KIND,
                          * not a driver library (an ELF file, or an empty stand-in) */
        enum xpu_host_file_kind host_kind;
        char origin[64]; /* the host list's line that asked for it ("drivers.csv:12"), "" otherwise */
};

struct xpu_plan {
        const struct xpu_profile *profile; /* borrowed from the profile set */
        enum xpu_inject_mode inject;       /* resolved mode */
        char library_dir[PATH_MAX];
        char driver_version[32];
        char **capabilities; /* capabilities in effect */
        size_t n_capabilities;
        struct xpu_driver_files *files; /* what is injected */
        struct xpu_host_files *host_files; /* placed at their own path (NULL: none looked for) */
        struct xpu_driver_files *files32;  /* 32-bit copies (the profile's capability_32bit), NULL: none
                                            * asked for */
        char lib32_dir[PATH_MAX];          /* where they go: library_dir + "32"; "" when none */
        struct xpu_given_file *given;   /* driver files CDI already put in the container */
        size_t n_given;
        struct xpu_op *ops;
        size_t n_ops;
        size_t ops_allocated; /* OPS' room, doubled by xpu_plan_add_op() (an op is 12 KiB) */
        gid_t *groups; /* supplementary groups for the workload (device node owners) */
        size_t n_groups;
        char **groups_from; /* node path that asked for each group */
        char **env;  /* final environment (NULL-terminated) */
        char **argv; /* final argv (NULL-terminated) */
        size_t *devices; /* inventory indices of the selected devices, in order */
        size_t n_devices;
        char forward_compat_dir[PATH_MAX]; /* the profile's forward_compat directory when the loader
                                            * prefers it to the library directory; "" otherwise */
        char **notes; /* info lines: why things were chosen */
        size_t n_notes;
        char **warnings; /* problems that do not stop the start (a core library missing) */
        size_t n_warnings;
        const char *device_code_verdict; /* the start-time device-code check's level, NULL: not judged */
        char *device_code;               /* its line, NULL when there is nothing to say */
        int device_code_log;             /* how a start logs that line: enum xpu_device_code_log
                                          * (device-code.h) */
        bool device_code_hint;           /* and the hint on an unknown architecture (device-code.h) */
        bool device_code_refuse;         /* the check refuses the start (exit 125; never for `plan`) */

        /* The workload's privilege (docs/privileges.md). Filled by the caller after
         * xpu_plan_build (entrypoint/main.c, plan_privilege: profile keep_capabilities and seccomp,
         * --user, xpuinit's own capability sets); applied by xpu_privilege_apply. */
        bool user_set;         /* --user: setgroups(groups)/setresgid(gid)/setresuid(uid) */
        uid_t uid;             /* the workload's uid (xpuinit's own without --user) */
        gid_t gid;             /* the workload's gid (xpuinit's own without --user) */
        uint64_t cap_have_effective, cap_have_permitted, cap_have_bounding; /* xpuinit's own sets
                                * when planned (capget, /proc/thread-self/status CapBnd) */
        bool cap_explicit;     /* the profile lists keep_capabilities (false: the default set) */
        uint64_t cap_keep;     /* permitted/effective/inheritable set, bit N = capability N */
        uint64_t cap_bounding; /* bounding set */
        bool cap_ambient;      /* KEEP also raised in the ambient set (non-root workload) */
        const char *seccomp;   /* filter spec: "default", "strict" or a path inside the container
                                * root (borrowed from the profile or a literal) */
};

struct xpu_plan *xpu_plan_free(struct xpu_plan *p);

/* Does P mount anything (a tmpfs, a bind of a library or of a file at its own path)? Then the
 * start applies it in a mount namespace of its own. */
bool xpu_plan_mounts(const struct xpu_plan *p);

/* For the planner's files (planner.c, plan-*.c): append an operation of TYPE on PATH (NULL on
 * -ENOMEM or a path too long), an info line, and a problem that does not stop the start (one line
 * of P's warnings). The notes and warnings return 0 or -ENOMEM. */
struct xpu_op *xpu_plan_add_op(struct xpu_plan *p, enum xpu_op_type type, const char *path);
int xpu_plan_note(struct xpu_plan *p, const char *fmt, ...) _printf_(2, 3);
int xpu_plan_warning(struct xpu_plan *p, const char *fmt, ...) _printf_(2, 3);

/* What one operation of an apply made in the container root, so that its undo (apply-undo.h)
 * takes back that and nothing the image had. */
struct xpu_op_made {
        bool done;      /* the operation completed */
        bool created;   /* bind: the mount point (empty file or directory) was made; symlink: the
                         * link was made where nothing was; write-file: the file was new */
        size_t kept;    /* mkdir: length of PATH's leading part that was there already (PATH's
                         * whole length: nothing made) */
        char *replaced; /* symlink: the text of the image's link it replaced, NULL: none */
};

/* The record of one xpu_plan_apply(): OPS[i] for the plan's operation i (N of them; operations
 * past N were never run). */
struct xpu_apply_record {
        struct xpu_op_made *ops;
        size_t n;
};

/* Free what R holds (R itself is the caller's); R may be empty. */
void xpu_apply_record_done(struct xpu_apply_record *r);

/* Where a plan is applied. */
struct xpu_apply_roots {
        int container_fd;           /* the container root */
        const char *container_path; /* its path: "/" inside the container */
        int driver_fd;              /* bind sources */
        int dev_fd;                 /* where device nodes are checked ("/" in a container) */
        const char *dev_path;       /* its path, for messages */
        struct xpu_apply_record *record; /* filled by xpu_plan_apply() when not NULL (what an undo
                                          * may take back); NULL: nothing recorded */
};

/* Apply the plan's operations in order: device-node checks under R->dev_fd, everything else below
 * R->container_fd. With FILESYSTEM_ONLY only the filesystem operations run (inject --rootfs).
 * From outside the container (R->container_path not "/") ldconfig is the host's, run as
 * "ldconfig -r CONTAINER_PATH"; the image's own binary never runs. A symlink operation leaves
 * something of the image's that is not a link (a file, a directory) as it is, with a warning. When
 * R->record is set it gets what each completed operation made (-ENOMEM when it cannot be
 * allocated). Returns 0 or -errno with ERR naming the operation and path. */
int xpu_plan_apply(const struct xpu_plan *p, const struct xpu_apply_roots *r, bool filesystem_only, char *err,
                   size_t err_size);

/* `inject --rootfs` runs on the host, often as a runtime hook: refuse when ENVP carries a loader
 * variable (LD_PRELOAD, LD_AUDIT, LD_LIBRARY_PATH, any other LD_*, GCONV_PATH, GLIBC_TUNABLES,
 * LOCPATH, NLSPATH, MALLOC_TRACE, ...; CVE-2025-23266). Returns 0, or -EPERM with ERR naming the
 * variable and value and the fix. */
int xpu_loader_env_check(char *const *envp, char *err, size_t err_size);

/* inject --rootfs in mount mode must run in a mount namespace of its own (the container's, as a
 * createContainer hook, or `unshare -m`): in PID 1's, the host's, the workload would not see the
 * mounts and they would outlive the container. Compares st_dev/st_ino of /proc/self/ns/mnt and
 * /proc/1/ns/mnt (stat(2)); one that cannot be read is refused, not guessed (docs/xpuinit.md).
 * Returns 0 when the namespaces differ, -1 with ERR set otherwise. */
int xpu_inject_mount_ns_check(char *err, size_t err_size);

struct xpu_seccomp_program; /* probes/sandbox/seccomp.h */
/* After the privilege planning (P->cap_explicit, P->cap_keep) and the filter's build: add one
 * warning to P for each capability of an explicit keep_capabilities list whose main system calls
 * FILTER denies (xpu_capability_denied_calls: CAP_SYS_ADMIN and mount/unshare/setns,
 * CAP_SYS_PTRACE and ptrace, ...), naming the capability, the denied calls and the fix (a JSON
 * allow list that includes them). Source: FILTER's BPF run on each call (xpu_seccomp_verdict).
 * `plan` shows the warnings and a start logs them. Returns 0 or -ENOMEM. */
int xpu_plan_warn_seccomp(struct xpu_plan *p, const struct xpu_seccomp_program *filter);
