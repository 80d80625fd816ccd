/* SPDX-License-Identifier: Apache-2.0 */
/* xpuinit's command line and environment twins: parsing only, no side effects but
 * the log level. */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/macro.h"
#include "base/path.h"
#include "base/str.h"
#include "cdi-spec.h"
#include "devcode/judge.h"
#include "libs.h"
#include "version.h"

const char *const xpu_command_names[_XPU_CMD_MAX] = {
        [XPU_CMD_RUN] = "run", [XPU_CMD_PROBE] = "probe", [XPU_CMD_PLAN] = "plan", [XPU_CMD_PROFILES] = "profiles",
        [XPU_CMD_INJECT] = "inject", [XPU_CMD_AUDIT] = "audit", [XPU_CMD_CDI] = "cdi", [XPU_CMD_VERSION] = "version",
        [XPU_CMD_HELP] = "help",
};

void xpu_options_usage(FILE *f) {
        fputs("Usage:\n"
              "  xpuinit [OPTIONS] [--] COMMAND [ARG...]   probe, select, inject, run COMMAND\n"
              "  xpuinit probe    [--json] [--source LIST] list accelerators and driver facts\n"
              "  xpuinit plan     [--json] [--] COMMAND... print what would be done; change nothing\n"
              "  xpuinit profiles [--json]                 list profiles and say which one matches and why\n"
              "  xpuinit inject --rootfs DIR [--json]      apply the filesystem part of the plan under DIR\n"
              "  xpuinit audit    [--json] [--for TARGET]... [--cuda-driver X.Y] [--fail-on LEVEL]\n"
              "                   [--write-index FILE] [--k8s-affinity] [ROOT]\n"
              "                                           vendor-tied code of an image and whether its device\n"
              "                                           code runs on a GPU (sm_90, gfx90a:xnack-; default: this host's)\n"
              "  xpuinit cdi generate [--output FILE] [--format json|yaml] [--kind VENDOR/CLASS]\n"
              "                   [--host-root DIR]\n"
              "                                           a CDI spec for this host's GPUs (kind xpuinit.dev/gpu)\n"
              "  xpuinit version\n"
              "\n"
              "Options (each also read from its environment twin):\n"
              "  --sys-root DIR      XPUINIT_SYS_ROOT     prefix for /sys and /proc reads (default /)\n"
              "  --dev-root DIR      XPUINIT_DEV_ROOT     prefix of dev/ device nodes (default /)\n"
              "  --driver-root DIR   XPUINIT_DRIVER_ROOT  host driver files (default: first of /run/nvidia/driver,\n"
              "                                           /host, / holding driver files)\n"
              "  --profile NAME      XPUINIT_PROFILE      force a profile\n"
              "  --profile-dir DIR   XPUINIT_PROFILE_DIR  image profiles (default /etc/xpuinit/profiles.d)\n"
              "  --inject MODE       XPUINIT_INJECT       auto, mount, link or none (default auto)\n"
              "  --require EXPR      XPU_REQUIRE          requirement expression\n"
              "  -v, --log-level L   XPUINIT_LOG_LEVEL    error, warning, info, debug (-v alone: info)\n"
              "  -g, --group         XPUINIT_GROUP        signal the workload's whole process group\n"
              "  --grace SECONDS     XPUINIT_GRACE        SIGTERM/SIGINT to SIGKILL delay (default 10)\n"
              "  --exec              XPUINIT_EXEC         replace xpuinit with the workload after setup\n"
              "  --user UID[:GID]    XPUINIT_USER         run the workload as UID:GID (numbers; GID default UID),\n"
              "                                           keeping the device nodes' groups\n"
              "  --source LIST                            fast (default), nvml, cuda, rocm_smi or all: which\n"
              "                                           backends to read; probe with one library shows its view\n"
              "  --vendor-timeout S  XPUINIT_VENDOR_TIMEOUT  bound on each vendor-library helper (default 10)\n"
              "  --json                                   machine-readable output\n"
              "  --rootfs DIR                             container root for inject\n"
              "\n"
              "Device code at start: XPUINIT_DEVICE_CODE=enforce|apply|warn|off judges the index\n"
              "XPUINIT_DEVICE_CODE_INDEX (default /etc/xpuinit/device-code.json) for the selected GPUs.\n"
              "Device selection: XPU_VISIBLE_DEVICES, else NVIDIA_VISIBLE_DEVICES / AMD_VISIBLE_DEVICES.\n"
              "Exit status: the workload's; 128+N if killed by signal N; 125 setup failure; 126 not\n"
              "executable; 127 not found; 2 usage error.\n",
              f);
}

int xpu_options_parse_sources(const char *list) {
        static const struct {
                const char *name;
                uint32_t bits;
        } names[] = {
                { "fast", XPU_SOURCES_FAST },
                { "all", XPU_SOURCES_FAST | XPU_SOURCES_RICH },
                { "procfs", XPU_SOURCES_FAST },
                { "sysfs", XPU_SOURCES_FAST },
                { "nvml", XPU_SOURCE_BIT(XPU_SOURCE_NVML) },
                { "cuda", XPU_SOURCE_BIT(XPU_SOURCE_CUDA) },
                { "rocm_smi", XPU_SOURCE_BIT(XPU_SOURCE_ROCM_SMI) },
        };
        uint32_t bits = 0;
        const char *p = list;
        if (!list || !*list)
                return -EINVAL;
        for (;;) {
                size_t len = strcspn(p, ",");
                bool found = false;
                for (size_t i = 0; i < ELEMENTSOF(names) && !found; i++)
                        if (strlen(names[i].name) == len && strncmp(p, names[i].name, len) == 0) {
                                bits |= names[i].bits;
                                found = true;
                        }
                if (!found)
                        return -EINVAL;
                if (!p[len])
                        break;
                p += len + 1;
        }
        return (int)bits;
}

int xpu_options_parse_user(const char *s, const char *from, uid_t *uid, gid_t *gid) {
        char u[32];
        const char *colon = strchr(s, ':');
        size_t ulen = colon ? (size_t)(colon - s) : strlen(s);
        uint64_t uv = 0, gv = 0;
        bool ok = ulen > 0 && ulen < sizeof u;
        if (ok) {
                memcpy(u, s, ulen);
                u[ulen] = '\0';
                /* digits only: xpu_parse_u64 would take " 12" and "0x10" */
                ok = strspn(u, "0123456789") == ulen && xpu_parse_u64(u, 10, &uv) == 0 && uv < UINT32_MAX;
        }
        if (ok && colon)
                ok = colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1) &&
                     xpu_parse_u64(colon + 1, 10, &gv) == 0 && gv < UINT32_MAX;
        else
                gv = uv;
        if (!ok) {
                log_error("%s: \"%s\" is not UID or UID:GID in numbers (0 to 4294967294); user and group names "
                          "are not looked up: give the numbers from the image's /etc/passwd",
                          from, s);
                return -EINVAL;
        }
        *uid = (uid_t)uv;
        *gid = (gid_t)gv;
        return 0;
}

/* ---- the options as a table ----
 * Each row is one setting: its long and short names on the command line, its environment twin,
 * and the handler that checks and stores a value. xpu_options_parse() and xpu_options_env() are
 * two small loops over it. A handler gets FROM ("--grace" or "XPUINIT_GRACE") for its message
 * and returns 0 or -EINVAL after logging one line naming FROM, the value and the fix. */

struct option_row;
typedef int (*option_set_fn)(struct xpu_options *o, const struct option_row *row, const char *value,
                             const char *from);

/* When an option's environment twin is read (xpu_options_env()). */
enum env_when {
        ENV_NONE = 0,   /* no twin */
        ENV_IF_UNSET,   /* while the string at DEST is NULL: the command line gave nothing */
        ENV_IF_NOT_CLI, /* while the o->cli flag at CLI is false */
        ENV_ALWAYS,     /* a setting of the environment only */
};

struct option_row {
        const char *name;  /* long option without "--"; NULL: none */
        char short_name;   /* single-letter option; 0: none */
        bool value;        /* takes a value (getopt's required_argument); else SET gets NULL */
        const char *env;   /* the environment twin, or NULL */
        enum env_when when;
        bool env_empty;    /* an empty variable is a value (a boolean's false), else it is unset */
        size_t dest;       /* offsetof() the field of struct xpu_options that SET stores into, or 0 */
        size_t cli;        /* offsetof() the o->cli flag the command line sets, or 0 */
        option_set_fn set;
};

#define FIELD_AT(o, type, offset) ((type *)(void *)((char *)(o) + (offset)))

/* A path or name, as given (checked where it is used). */
static int set_string(struct xpu_options *o, const struct option_row *row, const char *value, const char *from) {
        (void)from;
        *FIELD_AT(o, const char *, row->dest) = value;
        return 0;
}

/* A flag: the command line's bare option is true; a variable is 1/0, true/false, yes/no, on/off
 * or empty (false). */
static int set_bool(struct xpu_options *o, const struct option_row *row, const char *value, const char *from) {
        int b = value ? xpu_parse_bool(value) : 1;
        if (b < 0) {
                log_error("%s: \"%s\" is not a boolean (use 1/0, true/false)", from, value);
                return -EINVAL;
        }
        *FIELD_AT(o, bool, row->dest) = b;
        return 0;
}

static int set_profile_dir(struct xpu_options *o, const struct option_row *row, const char *value,
                           const char *from) {
        (void)row, (void)from;
        o->profile_dir = value;
        o->profile_dir_set = true;
        return 0;
}

static int set_inject(struct xpu_options *o, const struct option_row *row, const char *value, const char *from) {
        (void)row;
        int m = xpu_inject_mode_from_string(value);
        if (m < 0) {
                log_error("%s: unknown injection mode \"%s\" (use auto, mount, link or none)", from, value);
                return -EINVAL;
        }
        o->inject = (enum xpu_inject_mode)m;
        return 0;
}

static int set_log_level(struct xpu_options *o, const struct option_row *row, const char *value, const char *from) {
        (void)o, (void)row;
        int l = xpu_log_level_from_string(value);
        if (l < 0) {
                log_error("%s: unknown log level \"%s\" (use error, warning, info or debug)", from, value);
                return -EINVAL;
        }
        xpu_log_set_level((enum xpu_log_level)l);
        return 0;
}

/* -v: info, and debug when given again. */
static int set_verbose(struct xpu_options *o, const struct option_row *row, const char *value, const char *from) {
        (void)o, (void)row, (void)value, (void)from;
        xpu_log_set_level(xpu_log_get_level() < XPU_LOG_INFO ? XPU_LOG_INFO : XPU_LOG_DEBUG);
        return 0;
}

static int set_vendor_timeout(struct xpu_options *o, const struct option_row *row, const char *value,
                              const char *from) {
        (void)row;
        uint64_t v;
        if (xpu_parse_u64(value, 10, &v) < 0 || v < 1 || v > XPU_VENDOR_TIMEOUT_S_MAX) {
                log_error("%s: vendor timeout \"%s\" is not a whole number of seconds between 1 and %u", from, value,
                          XPU_VENDOR_TIMEOUT_S_MAX);
                return -EINVAL;
        }
        o->vendor_timeout = (unsigned)v;
        return 0;
}

static int set_grace(struct xpu_options *o, const struct option_row *row, const char *value, const char *from) {
        (void)row;
        uint64_t v;
        if (xpu_parse_u64(value, 10, &v) < 0 || v > 86400) {
                log_error("%s: grace period \"%s\" is not a whole number of seconds between 0 and 86400", from, value);
                return -EINVAL;
        }
        o->grace = (unsigned)v;
        return 0;
}

static int set_user(struct xpu_options *o, const struct option_row *row, const char *value, const char *from) {
        (void)row;
        if (xpu_options_parse_user(value, from, &o->uid, &o->gid) < 0)
                return -EINVAL;
        o->user_set = true;
        return 0;
}

static int set_device_code(struct xpu_options *o, const struct option_row *row, const char *value,
                           const char *from) {
        (void)row;
        int m = xpu_device_code_mode_from_string(value);
        if (m < 0) {
                log_error("%s: unknown mode \"%s\" (use enforce, apply, warn or off)", from, value);
                return -EINVAL;
        }
        o->device_code = (enum xpu_device_code_mode)m;
        o->device_code_set = true;
        return 0;
}

static int set_help(struct xpu_options *o, const struct option_row *row, const char *value, const char *from) {
        (void)row, (void)value, (void)from;
        o->command = XPU_CMD_HELP;
        return 0;
}

static int set_version(struct xpu_options *o, const struct option_row *row, const char *value, const char *from) {
        (void)row, (void)value, (void)from;
        o->command = XPU_CMD_VERSION;
        return 0;
}

static int set_sources(struct xpu_options *o, const struct option_row *row, const char *value, const char *from) {
        (void)row;
        int bits = xpu_options_parse_sources(value);
        if (bits < 0) {
                log_error("%s: unknown source list \"%s\" (use fast, nvml, cuda, rocm_smi or all, comma-separated)",
                          from, value);
                return -EINVAL;
        }
        o->sources = (uint32_t)bits;
        o->sources_set = true;
        return 0;
}

/* audit --for TARGET: checked now, kept as given. */
static int set_for(struct xpu_options *o, const struct option_row *row, const char *value, const char *from) {
        (void)row;
        struct xpu_code_target t;
        if (xpu_code_target_parse(value, &t) < 0) {
                log_error("%s: \"%s\" is not a GPU target: give sm_XY or X.Y for compute capability X.Y (sm_90, "
                          "12.0) or an AMD target ID (gfx1031, gfx90a:sramecc-:xnack-)",
                          from, value);
                return -EINVAL;
        }
        if (o->n_audit_for == XPU_AUDIT_TARGETS_MAX) {
                log_error("%s: at most %d targets", from, XPU_AUDIT_TARGETS_MAX);
                return -EINVAL;
        }
        o->audit_for[o->n_audit_for++] = value;
        return 0;
}

static int set_cuda_driver(struct xpu_options *o, const struct option_row *row, const char *value,
                           const char *from) {
        (void)row;
        if (xpu_version_parse_cuda(value) < 0) {
                log_error("%s: \"%s\" is not a CUDA version such as 12.4, 13.0 or 13", from, value);
                return -EINVAL;
        }
        o->cuda_driver = value;
        return 0;
}

static int set_fail_on(struct xpu_options *o, const struct option_row *row, const char *value, const char *from) {
        (void)row;
        static const enum xpu_code_level levels[] = { XPU_CODE_PTX_JIT, XPU_CODE_OVERRIDE, XPU_CODE_CANNOT_RUN };
        o->fail_on = -1;
        for (size_t i = 0; i < ELEMENTSOF(levels); i++)
                if (strcmp(value, xpu_code_level_name(levels[i])) == 0)
                        o->fail_on = (int)levels[i];
        if (o->fail_on < 0) {
                log_error("%s: unknown level \"%s\" (use ptx-jit, override or cannot-run)", from, value);
                return -EINVAL;
        }
        return 0;
}

/* cdi generate --output FILE: once. */
static int set_output(struct xpu_options *o, const struct option_row *row, const char *value, const char *from) {
        (void)row;
        if (o->cdi_output) {
                log_error("%s given twice (\"%s\", then \"%s\"): give one file", from, o->cdi_output, value);
                return -EINVAL;
        }
        o->cdi_output = value;
        return 0;
}

/* cdi generate --format json|yaml: the same one again is no conflict. */
static int set_format(struct xpu_options *o, const struct option_row *row, const char *value, const char *from) {
        (void)row;
        if (o->cdi_format && strcmp(o->cdi_format, value) != 0) {
                log_error("%s given twice (%s, then %s): give one", from, o->cdi_format, value);
                return -EINVAL;
        }
        if (strcmp(value, "json") != 0 && strcmp(value, "yaml") != 0) {
                log_error("%s: unknown format \"%s\" (use json or yaml)", from, value);
                return -EINVAL;
        }
        o->cdi_format = value;
        return 0;
}

static int set_kind(struct xpu_options *o, const struct option_row *row, const char *value, const char *from) {
        (void)row;
        char err[512];
        if (o->cdi_kind) {
                log_error("%s given twice (%s, then %s): give one", from, o->cdi_kind, value);
                return -EINVAL;
        }
        if (xpu_cdi_kind_check(value, err, sizeof err) < 0) {
                log_error("%s", err);
                return -EINVAL;
        }
        o->cdi_kind = value;
        return 0;
}

static int set_host_root(struct xpu_options *o, const struct option_row *row, const char *value, const char *from) {
        (void)row;
        if (o->cdi_host_root) {
                log_error("%s given twice (%s, then %s): give one", from, o->cdi_host_root, value);
                return -EINVAL;
        }
        if (value[0] != '/') {
                log_error("%s: \"%s\" is not an absolute path (give where the host's / is mounted here, e.g. /host)",
                          from, value);
                return -EINVAL;
        }
        o->cdi_host_root = value;
        return 0;
}

#define DEST(member) offsetof(struct xpu_options, member)
#define CLI(member)  offsetof(struct xpu_options, cli.member)

/* Every option and environment variable. The rows with a twin come first, in the order
 * xpu_options_env() reads them: with two bad variables, the first here is the one named. */
static const struct option_row option_rows[] = {
        /* name, short, value, env, when, env_empty, dest, cli, set */
        { "sys-root", 0, true, "XPUINIT_SYS_ROOT", ENV_IF_UNSET, false, DEST(sys_root), 0, set_string },
        { "dev-root", 0, true, "XPUINIT_DEV_ROOT", ENV_IF_UNSET, false, DEST(dev_root), 0, set_string },
        { "driver-root", 0, true, "XPUINIT_DRIVER_ROOT", ENV_IF_UNSET, false, DEST(driver_root), 0, set_string },
        { "profile", 0, true, "XPUINIT_PROFILE", ENV_IF_UNSET, false, DEST(profile), 0, set_string },
        { "profile-dir", 0, true, "XPUINIT_PROFILE_DIR", ENV_IF_NOT_CLI, false, 0, CLI(profile_dir), set_profile_dir },
        { "require", 0, true, "XPU_REQUIRE", ENV_IF_UNSET, false, DEST(require), 0, set_string },
        { "inject", 0, true, "XPUINIT_INJECT", ENV_IF_NOT_CLI, false, 0, CLI(inject), set_inject },
        { "log-level", 0, true, "XPUINIT_LOG_LEVEL", ENV_IF_NOT_CLI, false, 0, CLI(log_level), set_log_level },
        { "vendor-timeout", 0, true, "XPUINIT_VENDOR_TIMEOUT", ENV_IF_NOT_CLI, false, 0, CLI(vendor_timeout),
          set_vendor_timeout },
        { "user", 0, true, "XPUINIT_USER", ENV_IF_NOT_CLI, false, 0, CLI(user), set_user },
        { NULL, 0, false, "XPUINIT_DEVICE_CODE", ENV_ALWAYS, false, 0, 0, set_device_code },
        { NULL, 0, false, "XPUINIT_DEVICE_CODE_INDEX", ENV_ALWAYS, false, DEST(device_code_index), 0, set_string },
        { "grace", 0, true, "XPUINIT_GRACE", ENV_IF_NOT_CLI, false, 0, CLI(grace), set_grace },
        { "group", 'g', false, "XPUINIT_GROUP", ENV_IF_NOT_CLI, true, DEST(group), CLI(group), set_bool },
        { "exec", 0, false, "XPUINIT_EXEC", ENV_IF_NOT_CLI, true, DEST(exec), CLI(exec), set_bool },
        /* the command line only */
        { NULL, 'v', false, NULL, ENV_NONE, false, 0, CLI(log_level), set_verbose },
        { "json", 0, false, NULL, ENV_NONE, false, DEST(json), 0, set_bool },
        { "rootfs", 0, true, NULL, ENV_NONE, false, DEST(rootfs), 0, set_string },
        { "help", 'h', false, NULL, ENV_NONE, false, 0, 0, set_help },
        { "version", 0, false, NULL, ENV_NONE, false, 0, 0, set_version },
        { "source", 0, true, NULL, ENV_NONE, false, 0, 0, set_sources },
        { "for", 0, true, NULL, ENV_NONE, false, 0, 0, set_for },
        { "cuda-driver", 0, true, NULL, ENV_NONE, false, 0, 0, set_cuda_driver },
        { "fail-on", 0, true, NULL, ENV_NONE, false, 0, 0, set_fail_on },
        { "write-index", 0, true, NULL, ENV_NONE, false, DEST(write_index), 0, set_string },
        { "k8s-affinity", 0, false, NULL, ENV_NONE, false, DEST(k8s_affinity), 0, set_bool },
        { "output", 0, true, NULL, ENV_NONE, false, 0, 0, set_output },
        { "format", 0, true, NULL, ENV_NONE, false, 0, 0, set_format },
        { "kind", 0, true, NULL, ENV_NONE, false, 0, 0, set_kind },
        { "host-root", 0, true, NULL, ENV_NONE, false, 0, 0, set_host_root },
};

/* getopt_long()'s value of row I's long option: above every single-byte option. */
#define LONG_VAL(i) (0x100 + (int)(i))

int xpu_options_env(struct xpu_options *o) {
        for (size_t i = 0; i < ELEMENTSOF(option_rows); i++) {
                const struct option_row *row = &option_rows[i];
                const char *v;
                if (row->when == ENV_NONE || (row->when == ENV_IF_UNSET && *FIELD_AT(o, const char *, row->dest)) ||
                    (row->when == ENV_IF_NOT_CLI && *FIELD_AT(o, bool, row->cli)))
                        continue;
                if (!(v = secure_getenv(row->env)) || (!*v && !row->env_empty))
                        continue;
                if (row->set(o, row, v, row->env) < 0)
                        return -EINVAL;
        }
        return 0;
}

/* The row of getopt_long()'s return C, or NULL (':' and '?'). */
static const struct option_row *row_of(int c) {
        if (c >= LONG_VAL(0) && c < LONG_VAL(ELEMENTSOF(option_rows)))
                return &option_rows[c - LONG_VAL(0)];
        for (size_t i = 0; c > 0 && i < ELEMENTSOF(option_rows); i++)
                if (option_rows[i].short_name == c)
                        return &option_rows[i];
        return NULL;
}

/* Options may stand before or after the subcommand's name; "--" ends them. Returns 0, or
 * XPU_EXIT_USAGE after printing the problem. */
int xpu_options_parse(struct xpu_options *o, int argc, char **argv) {
        struct option longopts[ELEMENTSOF(option_rows) + 1];
        char shortopts[ELEMENTSOF(option_rows) + 3] = "+:"; /* "+": stop at the first non-option */
        size_t n_long = 0, n_short = 2;
        for (size_t i = 0; i < ELEMENTSOF(option_rows); i++) {
                if (option_rows[i].name)
                        longopts[n_long++] = (struct option){ option_rows[i].name,
                                                              option_rows[i].value ? required_argument : no_argument,
                                                              NULL, LONG_VAL(i) };
                if (option_rows[i].short_name)
                        shortopts[n_short++] = option_rows[i].short_name; /* none takes a value */
        }
        longopts[n_long] = (struct option){ 0 };
        shortopts[n_short] = '\0';

        bool have_command = false, have_verb = false;
        opterr = 0;
        optind = 1;
        for (;;) {
                int c = getopt_long(argc, argv, shortopts, longopts, NULL);
                if (c == -1) {
                        if (optind >= argc)
                                break;
                        if (strcmp(argv[optind - 1], "--") == 0)
                                break; /* "--": the rest is the workload */
                        /* A non-option: the subcommand's name (once, first), else the workload. */
                        if (!have_command) {
                                bool found = false;
                                for (size_t i = 1; i < ELEMENTSOF(xpu_command_names); i++)
                                        if (strcmp(argv[optind], xpu_command_names[i]) == 0) {
                                                o->command = (enum xpu_command)i;
                                                found = true;
                                        }
                                if (found) {
                                        have_command = true;
                                        optind++;
                                        continue;
                                }
                        } else if (o->command == XPU_CMD_CDI && !have_verb && strcmp(argv[optind], "generate") == 0) {
                                have_verb = true; /* cdi's verb: options may follow it too */
                                optind++;
                                continue;
                        }
                        break;
                }
                const struct option_row *row = row_of(c);
                if (!row) {
                        if (c == ':')
                                log_error("option %s needs a value; see xpuinit --help", argv[optind - 1]);
                        else
                                log_error("unknown option \"%s\"; see xpuinit --help", argv[optind - 1]);
                        return XPU_EXIT_USAGE;
                }
                char from[32];
                if (row->name)
                        snprintf(from, sizeof from, "--%s", row->name);
                else
                        snprintf(from, sizeof from, "-%c", row->short_name);
                if (row->set(o, row, row->value ? optarg : NULL, from) < 0)
                        return XPU_EXIT_USAGE;
                if (row->cli)
                        *FIELD_AT(o, bool, row->cli) = true;
        }
        o->argv = argv + optind;
        size_t rest = (size_t)(argc - optind);
        switch (o->command) {
        case XPU_CMD_RUN:
                if (rest == 0) {
                        log_error("no command to run; usage: xpuinit [OPTIONS] -- COMMAND [ARG...]");
                        return XPU_EXIT_USAGE;
                }
                break;
        case XPU_CMD_PLAN:
                break; /* a plan without a command shows the injection only */
        case XPU_CMD_INJECT:
                if (!o->rootfs) {
                        log_error("inject needs --rootfs DIR (the container's root directory)");
                        return XPU_EXIT_USAGE;
                }
                if (rest) {
                        log_error("inject takes no command (got \"%s\")", o->argv[0]);
                        return XPU_EXIT_USAGE;
                }
                break;
        case XPU_CMD_AUDIT:
                if (rest > 1) {
                        log_error("audit takes one ROOT directory (got \"%s\" and \"%s\")", o->argv[0], o->argv[1]);
                        return XPU_EXIT_USAGE;
                }
                o->audit_root = rest ? o->argv[0] : "/";
                break;
        case XPU_CMD_CDI:
                if (!have_verb || rest) {
                        log_error("cdi: say what to do: xpuinit cdi generate [--output FILE] [--format json|yaml] "
                                  "[--kind VENDOR/CLASS]%s%s%s", rest ? " (got \"" : "", rest ? o->argv[0] : "",
                                  rest ? "\")" : "");
                        return XPU_EXIT_USAGE;
                }
                break;
        case XPU_CMD_PROBE:
        case XPU_CMD_PROFILES:
        case XPU_CMD_VERSION:
        case XPU_CMD_HELP:
        default:
                if (rest) {
                        log_error("%s takes no arguments (got \"%s\")", xpu_command_names[o->command], o->argv[0]);
                        return XPU_EXIT_USAGE;
                }
                break;
        }
        if (o->k8s_affinity && (o->json || o->n_audit_for || o->fail_on >= 0)) {
                log_error("--k8s-affinity prints YAML for every GPU kind: it takes no --json, --for or --fail-on");
                return XPU_EXIT_USAGE;
        }
        if (o->command != XPU_CMD_AUDIT &&
            (o->n_audit_for || o->cuda_driver || o->fail_on >= 0 || o->write_index || o->k8s_affinity)) {
                log_error("--for, --cuda-driver, --fail-on, --write-index and --k8s-affinity only go with audit");
                return XPU_EXIT_USAGE;
        }
        if (o->command != XPU_CMD_CDI && (o->cdi_output || o->cdi_format || o->cdi_kind || o->cdi_host_root)) {
                log_error("--output, --format, --kind and --host-root only go with cdi generate");
                return XPU_EXIT_USAGE;
        }
        if (o->command == XPU_CMD_CDI && o->json) {
                log_error("cdi generate takes no --json: the spec is JSON unless --format yaml (or an --output "
                          "named *.yaml) says otherwise");
                return XPU_EXIT_USAGE;
        }
        if (o->rootfs && o->command != XPU_CMD_INJECT) {
                log_error("--rootfs only goes with inject");
                return XPU_EXIT_USAGE;
        }
        return 0;
}

const char *xpu_options_driver_root(const struct xpu_options *o, const struct xpu_inventory *inv, const char **why) {
        if (o->driver_root) {
                *why = "--driver-root/XPUINIT_DRIVER_ROOT";
                return o->driver_root;
        }
        if (inv->n_devices == 0) {
                *why = "no GPU found, so no driver files are needed";
                return "/";
        }
        return xpu_default_driver_root(why);
}
