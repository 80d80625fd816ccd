/* SPDX-License-Identifier: Apache-2.0 */
/* Runtime profiles: JSON data, parsed with cJSON, built-ins embedded at build time,
 * files in the profile directory override built-ins by name. */
#pragma once

#include <stdbool.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "libs.h"
#include "probe.h"

/* The start-time device-code check (XPUINIT_DEVICE_CODE, a profile's "device_code"). */
enum xpu_device_code_mode {
        XPU_DEVICE_CODE_ENFORCE = 0, /* cannot-run and unset overrides exit 125 */
        XPU_DEVICE_CODE_APPLY,       /* as enforce, but an override is set for the workload */
        XPU_DEVICE_CODE_WARN,        /* only log */
        XPU_DEVICE_CODE_OFF,         /* no check */
};

/* "enforce", "apply", "warn", "off"; NULL out of range. */
static inline const char *xpu_device_code_mode_to_string(enum xpu_device_code_mode m) {
        static const char *const names[] = { "enforce", "apply", "warn", "off" };
        return (unsigned)m < sizeof names / sizeof names[0] ? names[m] : NULL;
}

/* Inverse of xpu_device_code_mode_to_string(): the mode, or -EINVAL. */
static inline int xpu_device_code_mode_from_string(const char *s) {
        for (int m = XPU_DEVICE_CODE_ENFORCE; m <= XPU_DEVICE_CODE_OFF && s; m++)
                if (strcmp(s, xpu_device_code_mode_to_string((enum xpu_device_code_mode)m)) == 0)
                        return m;
        return -EINVAL;
}

enum xpu_env_op {
        XPU_ENV_SET = 0, /* NAME=VALUE */
        XPU_ENV_PREPEND, /* NAME=VALUE:old (":" separator; VALUE alone when unset) */
        XPU_ENV_APPEND,  /* NAME=old:VALUE */
        XPU_ENV_UNSET,   /* remove NAME */
};

/* One environment edit. VALUE may hold these placeholders, expanded by the plan:
 *   ${XPU_VISIBLE_IDS}     selected devices of the profile's vendor, comma-separated: the UUID
 *                          when it names exactly one device, else the vendor index
 *   ${XPU_VISIBLE_INDICES} vendor indices, comma-separated
 *   ${XPU_DRIVER_VERSION}  the vendor's kernel driver version
 *   ${XPU_LIBRARY_DIR}     the private library directory of the plan */
struct xpu_env_edit {
        enum xpu_env_op op;
        char *name;
        char *value; /* NULL for XPU_ENV_UNSET */
};

/* The placeholders above, in this order. */
enum xpu_placeholder {
        XPU_PLACEHOLDER_VISIBLE_IDS = 0, /* XPU_VISIBLE_IDS */
        XPU_PLACEHOLDER_VISIBLE_INDICES, /* XPU_VISIBLE_INDICES */
        XPU_PLACEHOLDER_DRIVER_VERSION,  /* XPU_DRIVER_VERSION */
        XPU_PLACEHOLDER_LIBRARY_DIR,     /* XPU_LIBRARY_DIR */
        _XPU_PLACEHOLDER_MAX,
};
/* "XPU_VISIBLE_IDS", ...; NULL for an out-of-range value. */
const char *xpu_placeholder_to_string(enum xpu_placeholder p);

/* Expand the ${...} placeholders of VALUE with VALUES (indexed by enum xpu_placeholder; a NULL
 * entry expands to ""). A "$" not followed by "{" is kept as is. *RET is malloc'ed.
 * Returns 0, -EINVAL for an unknown or unterminated placeholder (profiles are checked for that
 * when parsed), or -ENOMEM. */
int xpu_env_expand(const char *value, const char *const values[_XPU_PLACEHOLDER_MAX], char **ret);

/* Check VALUE's ${...} placeholders (for the parser, profile-parse.c). Returns 0, or -EINVAL with
 * *BAD the offset of the first unknown or unterminated "${". */
int xpu_env_check_placeholders(const char *value, size_t *bad);

struct xpu_require; /* a parsed requirement expression (require.h) */

enum xpu_command_mode {
        XPU_COMMAND_KEEP = 0, /* run the workload's argv as given */
        XPU_COMMAND_REPLACE,  /* run the profile's argv instead */
        XPU_COMMAND_PREFIX,   /* run the profile's argv followed by the workload's */
};

struct xpu_profile {
        char *name;        /* unique; a profile-dir file with a built-in's name replaces it */
        char *description;
        char *origin;      /* "built-in <file>" or the file path it was read from */
        bool builtin;      /* compiled into the binary (static data, never freed) */
        int priority;      /* higher wins; ties broken by name */

        /* "match": when this profile applies. */
        bool match_any;         /* no "vendor" in match: matches every host (the cpu profile) */
        enum xpu_vendor vendor; /* valid unless match_any */
        unsigned min_devices;   /* selected devices of that vendor needed (default 1) */
        /* match.require, parsed (require.h) when the profile is parsed (a built-in's at build
         * time, by packaging/profile-cgen); NULL when absent. Checked by xpu_profile_matches(). */
        struct xpu_require *require;

        char **capabilities; /* default capabilities when the image asks for none */
        size_t n_capabilities;
        struct xpu_capability_files *libraries; /* per capability */
        size_t n_libraries;
        struct xpu_capability_files *binaries; /* per capability, e.g. nvidia-smi for utility */
        size_t n_binaries;
        struct xpu_capability_files *files; /* per capability: driver-root path patterns placed at
                                             * the same path in the container (host-files.h) */
        size_t n_files;
        /* "library_links": extra links in the library directory, pairs (link name, library base
         * name): "libGLX_indirect.so.0" -> the injected "libGLX_nvidia.so.<version>". */
        char **library_links; /* 2 * n_library_links entries */
        size_t n_library_links;
        /* "capability_32bit": the capability ("compat32") that asks for the 32-bit copies of the
         * other capabilities' libraries (xpu_driver_files_find32), injected into the library
         * directory's 32-bit sibling; NULL when absent */
        char *capability_32bit;
        char **device_nodes; /* vendor-wide nodes to pass ("/dev/nvidiactl", "/dev/kfd") */
        size_t n_device_nodes;
        /* "fabric": the fabric device sets the profile asks for (fabric.h names: "rdma", "imex",
         * ...); a set's variable, when set, decides instead (entrypoint/needs-fabric.c). */
        char **fabric;
        size_t n_fabric;
        struct xpu_env_edit *env; /* in file order: set, prepend, append, unset */
        size_t n_env;
        enum xpu_command_mode command_mode;
        char **command; /* NULL-terminated argv for REPLACE/PREFIX */
        size_t n_command;
        /* Capabilities the workload keeps (docs/privileges.md): names as written
         * ("CAP_NET_ADMIN", "net_admin"). keep_capabilities_set false: the key is absent and the
         * default applies; true with n 0: "keep_capabilities": [] (keep none). */
        char **keep_capabilities;
        size_t n_keep_capabilities;
        bool keep_capabilities_set;
        char *seccomp; /* "default", "strict" or a path; NULL = default */
        /* "device_code": the start-time check's mode when XPUINIT_DEVICE_CODE does not say;
         * device_code_set false: the key is absent (enforce). */
        enum xpu_device_code_mode device_code;
        bool device_code_set;
        /* "forward_compat": a directory in the image with a newer user-mode driver (CUDA's
         * cuda-compat package) that the loader is to prefer when FORWARD_COMPAT_LIBRARY there
         * ("libcuda.so" -> libcuda.so.<version>) is of a newer driver branch than the host's and
         * FORWARD_COMPAT_REQUIRE (NULL: none; parsed with the profile, require.h) holds for the
         * selected devices. All NULL when the key is absent. */
        char *forward_compat_dir;
        char *forward_compat_library;
        struct xpu_require *forward_compat_require;
};

/* A loaded set of profiles in selection order: descending priority, then name, with "cpu" always
 * last whatever its priority. */
struct xpu_profile_set {
        struct xpu_profile **profiles;
        size_t n;
};

struct xpu_profile *xpu_profile_free(struct xpu_profile *p);
struct xpu_profile_set *xpu_profile_set_free(struct xpu_profile_set *s);

/* Free N strings of V and V (NULL: nothing), and N per-capability file lists of C and C: the
 * profile's own lists (xpu_profile_free) and the parser's on failure. */
void xpu_profile_strv_free(char **v, size_t n);
void xpu_profile_capfiles_free(struct xpu_capability_files *c, size_t n);

/* Parse one profile from JSON text (profile-parse.c), its requirement expressions (match.require,
 * forward_compat.require) included, once every other key is checked. ORIGIN names it in errors
 * ("built-in nvidia-cuda.json" or a path). On error returns -EINVAL (-ENOMEM) and, when ERR is not
 * NULL, writes one line naming ORIGIN, the key and what was expected, e.g.
 * "/etc/xpuinit/profiles.d/x.json: key \"match.vendor\": expected one of nvidia, amd, got \"intel\"",
 * "x.json: key \"match.require\": requirement \"cuda>=x\": \"x\" is not a dotted number (e.g. 12.2)". */
int xpu_profile_parse(const char *json, const char *origin, struct xpu_profile **ret, char *err,
                      size_t err_size);

/* Load the built-ins, then every "*.json" in DIR (NULL or a missing directory = none), a file
 * replacing the built-in of the same "name". Any bad file is an error (-EINVAL with ERR set):
 * an image's profile is never silently ignored. */
int xpu_profile_set_load(const char *dir, struct xpu_profile_set **ret, char *err, size_t err_size);

/* Find a profile by name; NULL when absent. */
const struct xpu_profile *xpu_profile_set_find(const struct xpu_profile_set *s, const char *name);

/* Largest profile file read from the profile directory, in bytes. */
#define XPU_PROFILE_FILE_MAX (1024 * 1024)

/* Does P match the selected devices in INV (SELECTED: flags per inventory device, NULL = none
 * selected)? Checks match.vendor and match.min_devices, then, when both hold, P->require against
 * the host with P's vendor (strictly: a fact the host does not report fails; require.h). Writes a
 * short reason either way into WHY (may be NULL): "matches: 2 nvidia devices selected (needs >=
 * 1)", "no: 0 amd devices selected (needs >= 1)", "matches any host (no match.vendor)",
 * "matches: ...; requirement \"driver>=465\" met", "no: requirement \"cuda>=99\" not met: ...". */
bool xpu_profile_matches(const struct xpu_profile *p, const struct xpu_inventory *inv,
                         const bool *selected, char *why, size_t why_size);

/* Highest-priority matching profile (ties by name; "cpu" matches last), or NULL; matching as
 * xpu_profile_matches(), requirements included. */
const struct xpu_profile *xpu_profile_select(const struct xpu_profile_set *s,
                                             const struct xpu_inventory *inv, const bool *selected);

/* The profile's per-capability lists: libraries, binaries, files (K = 0, 1, 2; NULL after). */
const struct xpu_capability_files *xpu_profile_capability_list(const struct xpu_profile *pr, int k, size_t *n);

/* Push every capability PR names files for onto *V (*N entries; libraries first, then binaries,
 * then files, then the 32-bit capability), each once. Returns 0 or -ENOMEM. */
int xpu_profile_capabilities_push(char ***v, size_t *n, const struct xpu_profile *pr);

/* PR's environment edits (set, prepend, append, unset, in the profile's order) applied to the
 * environment *ENV (a NULL-terminated strv, grown as needed), with the placeholders expanded from
 * VALUES (xpu_env_expand). The plan's environment is made with them (plan-env.c), and the
 * device-code verdict reads the same (device-code-verdict.c). Returns 0, -EINVAL (a placeholder
 * the profile's parser would have refused), or -ENOMEM. */
int xpu_profile_env_apply(const struct xpu_profile *pr, char ***env, const char *const values[_XPU_PLACEHOLDER_MAX]);

/* The devices PR takes of a start's selection, the rule the plan and every step before it use: the
 * selected devices (SELECTED: one flag per inventory device) of PR's vendor, in inventory order;
 * none for a profile that matches any vendor. *RET gets their inventory indexes (malloc'ed, at least
 * one slot, the caller frees), *N their number. Returns 0 or -ENOMEM. */
int xpu_profile_take_devices(const struct xpu_profile *pr, const struct xpu_inventory *inv, const bool *selected,
                             size_t **ret, size_t *n);
