/* SPDX-License-Identifier: Apache-2.0 */
/* What a start needs, decided before anything is gathered: the plan's options, the injection mode,
 * the capabilities in effect and which driver files are looked for (from the profile, the
 * selection and the options alone). The gathering step (gather.h)
 * reads what these name; the plan (plan.h) reads both. Includes neither. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric.h"
#include "profile.h"
#include "select.h"

enum xpu_inject_mode {
        XPU_INJECT_AUTO = 0, /* mount when CAP_SYS_ADMIN is effective, else link */
        XPU_INJECT_MOUNT,    /* bind mounts on a private tmpfs */
        XPU_INJECT_LINK,     /* symlinks into the driver root, no privilege */
        XPU_INJECT_NONE,     /* inject no files */
        _XPU_INJECT_MAX,
};
const char *xpu_inject_mode_to_string(enum xpu_inject_mode m);
int xpu_inject_mode_from_string(const char *s);

struct xpu_device_code_outcome; /* device-code-verdict.h */

/* Where the plan injects libraries unless O->library_dir says otherwise. */
#define XPU_DEFAULT_LIBRARY_DIR "/run/xpuinit/lib"

/* Where and how the plan is applied; all strings are borrowed. The three descriptors are read by
 * xpu_plan_gather() only; xpu_plan_build() never uses them. */
struct xpu_plan_options {
        enum xpu_inject_mode inject;  /* resolved by the caller unless AUTO */
        bool can_mount;               /* CAP_SYS_ADMIN is effective (for AUTO) */
        const char *driver_root;      /* driver root path as seen where the links will be read */
        int driver_fd;                /* driver root fd (library discovery; gathering only) */
        int container_fd;             /* container root fd (CDI files, ldconfig, forward compatibility,
                                       * files at their own path; gathering only) */
        int dev_fd;                   /* dev root fd (device node group ids; gathering only) */
        int sys_fd;                   /* sys root fd (/proc/devices for fabric nodes; gathering only;
                                       * 0: not given, majors unknown) */
        const char *library_dir;      /* default "/run/xpuinit/lib" */
        const char *capabilities_env; /* XPU_DRIVER_CAPABILITIES or NVIDIA_DRIVER_CAPABILITIES value */
        const char *capabilities_var; /* which of the two it is, for messages (NULL: NVIDIA_...) */
        char *const *envp;            /* the environment the workload would get without us */
        char *const *argv;            /* workload argv (may be empty for inject) */
        bool from_outside;            /* inject --rootfs: the host's ldconfig -X -r runs, not the image's */
        const struct xpu_device_code_outcome *device_code; /* the start-time device-code check's
                                       * verdict (device-code-verdict.h), judged before the plan, which
                                       * records it and sets the override it asks for; NULL: no check */
};

/* The fabric device sets a start asks for (fabric.h), from the profile's "fabric" and the sets'
 * variables in the workload's environment (needs-fabric.c). */
struct xpu_fabric_needs {
        size_t n; /* sets known (xpu_fabric_sets()): SETS[i], VENDOR[i], REQ[i] */
        const struct xpu_fabric_set *sets[XPU_FABRIC_SETS_MAX];
        enum xpu_vendor vendor[XPU_FABRIC_SETS_MAX];
        struct xpu_fabric_request req[XPU_FABRIC_SETS_MAX];
        bool any;         /* some set is wanted */
        /* A vendor's set whose variable is set while the profile is not that vendor's: not read
         * (the plan notes it). NULL: none. */
        const char *ignored[XPU_FABRIC_SETS_MAX];
        int error;        /* 0, or -EINVAL/-E2BIG: a variable's value is bad (the plan fails with ERROR_TEXT) */
        char error_text[512];
};

/* What a plan needs from the host, decided from the profile, the selection and the options alone
 * (xpu_plan_needs). The gathering step (gather.h) reads what it names and keeps it with the facts;
 * xpu_plan_build() plans from that copy. */
struct xpu_plan_needs {
        enum xpu_inject_mode inject; /* the mode in effect: AUTO resolved with can_mount */
        char **capabilities;         /* capabilities in effect (NULL-terminated): the image's variable,
                                      * else the profile's default; none when the profile injects no files */
        size_t n_capabilities;
        char **ignored;              /* words of that variable the profile has no files for (a warning) */
        size_t n_ignored;
        bool no_capability;          /* the variable is set but names none (",,,"): the plan fails */
        bool void_request;           /* the vendor's visibility variable said void: no driver files */
        bool names_files;            /* the profile names libraries, binaries or files at their own path
                                      * for the capabilities in effect */
        bool names_libraries;        /* ... libraries or binaries */
        bool files;                  /* driver files are looked for: capabilities in effect, a mode that
                                      * injects, no void request, and the profile names some for them */
        bool files32;                /* and their 32-bit copies (the profile's capability_32bit is in effect) */
        uint32_t forward_compat_sources; /* the rich sources (bits of enum xpu_source) the profile's
                                      * forward_compat.require names (xpu_require_sources): the
                                      * rich-facts step reads them when gather finds a newer
                                      * forward-compatibility build (rich-facts.h); 0: none */
        struct xpu_fabric_needs fabric; /* the fabric device sets asked for */
};

/* Decide what a plan for PR needs (needs.c): the mode, the capabilities in effect from
 * O->capabilities_env (comma-separated, "all"; a word PR has no files for goes to ->ignored), and
 * which driver files are looked for, and which rich sources forward_compat.require names. Pure.
 * Returns 0 or -ENOMEM; free with xpu_plan_needs_done() (gathered.c: the facts take the needs
 * over, xpu_plan_gather()). */
int xpu_plan_needs(const struct xpu_selection *sel, const struct xpu_profile *pr, const struct xpu_plan_options *o,
                   struct xpu_plan_needs *ret);
void xpu_plan_needs_done(struct xpu_plan_needs *n);

/* The fabric device sets PR and the environment ENVP ("NAME=VALUE", NULL-terminated) ask for: a
 * set's variable (or its vendor's alias of it) decides when set, else the profile's "fabric"; a
 * vendor's own sets and aliases only when PR is that vendor's. Pure; a bad value is kept in
 * RET->error for the plan to report. */
void xpu_fabric_needs(const struct xpu_profile *pr, char *const *envp, struct xpu_fabric_needs *ret);
