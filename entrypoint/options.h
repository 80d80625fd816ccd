/* SPDX-License-Identifier: Apache-2.0 */
/* xpuinit's command line: subcommands, options and their environment twins. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "plan.h"
#include "rich.h"

#define XPU_EXIT_USAGE 2

enum xpu_command {
        XPU_CMD_RUN = 0,
        XPU_CMD_PROBE,
        XPU_CMD_PLAN,
        XPU_CMD_PROFILES,
        XPU_CMD_INJECT,
        XPU_CMD_AUDIT,
        XPU_CMD_CDI,
        XPU_CMD_VERSION,
        XPU_CMD_HELP,
        _XPU_CMD_MAX,
};

/* "run", "probe", ... indexed by enum xpu_command. */
extern const char *const xpu_command_names[_XPU_CMD_MAX];

/* Most --for targets one audit judges. */
#define XPU_AUDIT_TARGETS_MAX 16

/* The bit of SOURCE in xpu_options.sources. */
#define XPU_SOURCE_BIT(source) (1u << (source))
/* Every rich source (NVML, CUDA driver API, ROCm SMI): --source all. */
#define XPU_SOURCES_RICH                                                                           \
        (XPU_SOURCE_BIT(XPU_SOURCE_NVML) | XPU_SOURCE_BIT(XPU_SOURCE_CUDA) | XPU_SOURCE_BIT(XPU_SOURCE_ROCM_SMI))
/* The fast path (procfs and sysfs): --source fast. */
#define XPU_SOURCES_FAST (XPU_SOURCE_BIT(XPU_SOURCE_PROCFS) | XPU_SOURCE_BIT(XPU_SOURCE_SYSFS))

struct xpu_options {
        enum xpu_command command;
        const char *sys_root, *dev_root, *driver_root; /* NULL: default */
        const char *profile;                           /* --profile NAME; NULL: auto */
        const char *profile_dir;
        bool profile_dir_set; /* given by the user: a missing directory is worth a warning */
        enum xpu_inject_mode inject;
        const char *require; /* --require / XPU_REQUIRE; NULL: none */
        bool group;
        unsigned grace;         /* seconds */
        bool exec;
        bool user_set;          /* --user / XPUINIT_USER given */
        uid_t uid;              /* the workload's uid, with user_set */
        gid_t gid;              /* its gid: the GID of UID:GID, else UID's value as a gid */
        bool json;
        const char *rootfs;     /* inject --rootfs DIR */
        char **argv;            /* the workload's argv (points into main's argv) */
        uint32_t sources;       /* --source: XPU_SOURCE_BIT()s; the fast path is always read */
        bool sources_set;       /* --source given */
        unsigned vendor_timeout; /* --vendor-timeout / XPUINIT_VENDOR_TIMEOUT, seconds (1..600) */
        /* audit */
        const char *audit_for[XPU_AUDIT_TARGETS_MAX]; /* --for TARGET, as given (checked when parsed) */
        size_t n_audit_for;
        const char *cuda_driver;  /* --cuda-driver X.Y */
        int fail_on;              /* --fail-on: an enum xpu_code_level, or -1 */
        const char *write_index;  /* --write-index FILE */
        bool k8s_affinity;        /* --k8s-affinity */
        const char *audit_root;   /* ROOT (default "/") */
        /* cdi generate */
        const char *cdi_output;   /* --output FILE; NULL or "-": standard output */
        const char *cdi_format;   /* --format: "json", "yaml", or NULL (from --output's name, else json) */
        const char *cdi_kind;     /* --kind VENDOR/CLASS (checked); NULL: XPU_CDI_KIND_DEFAULT */
        const char *cdi_host_root; /* --host-root DIR: where the host's / is seen here (absolute) */
        /* start-time device-code check */
        enum xpu_device_code_mode device_code;      /* XPUINIT_DEVICE_CODE */
        bool device_code_set;                        /* given in the environment (wins over a profile) */
        const char *device_code_index;               /* XPUINIT_DEVICE_CODE_INDEX */
        /* Which settings the command line gave: their environment twins are not read. */
        struct {
                bool profile_dir, inject, log_level, grace, group, exec, vendor_timeout, user;
        } cli;
};

#define XPU_OPTIONS_DEFAULT                                                                                  \
        ((struct xpu_options){ .profile_dir = "/etc/xpuinit/profiles.d",                                      \
                               .inject = XPU_INJECT_AUTO,                                                     \
                               .grace = 10,                                                                   \
                               .sources = XPU_SOURCES_FAST,                                                   \
                               .fail_on = -1,                                                                 \
                               .device_code_index = "/etc/xpuinit/device-code.json",                          \
                               .vendor_timeout = XPU_VENDOR_TIMEOUT_S_DEFAULT })

/* Parse ARGV into O (start from XPU_OPTIONS_DEFAULT). Options may stand before or after the
 * subcommand's name; "--" ends them. Returns 0, or XPU_EXIT_USAGE after logging the problem. */
int xpu_options_parse(struct xpu_options *o, int argc, char **argv);

/* Read the environment twins (secure_getenv) of what the command line did not set. Returns 0, or
 * -EINVAL after logging the bad variable. */
int xpu_options_env(struct xpu_options *o);


/* Parse a --source LIST: comma-separated "fast", "all", "procfs", "sysfs", "nvml", "cuda",
 * "rocm_smi". Returns the XPU_SOURCE_BIT()s (the fast path's always included), or -EINVAL. */
int xpu_options_parse_sources(const char *list);

/* Parse a --user value "UID" or "UID:GID" (decimal, each 0 .. 4294967294; a name is refused:
 * it would have to be looked up in the image's /etc/passwd). Without ":GID" the gid is UID's
 * number. Returns 0, or -EINVAL after logging one line naming FROM and the fix. */
int xpu_options_parse_user(const char *s, const char *from, uid_t *uid, gid_t *gid);

void xpu_options_usage(FILE *f);

struct xpu_inventory;
/* The driver root of a start: O->driver_root (--driver-root), else the default one
 * (xpu_default_driver_root(), probes/libs.h: the first of the default roots that holds versioned
 * driver libraries, else "/"). Only searched when INV has a device: a GPU-less
 * host needs no driver files, and start-up there must stay as cheap as tini's. *WHY says how it
 * was chosen, for the info line. Returns a path that lives as long as O or the program. */
const char *xpu_options_driver_root(const struct xpu_options *o, const struct xpu_inventory *inv, const char **why);
