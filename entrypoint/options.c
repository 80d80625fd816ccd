/* SPDX-License-Identifier: Apache-2.0 */
/* xpuinit's command line and environment twins: parsing only, no side effects but
 * the log level. */
#include "options.h"

#include <errno.h>
#include <getopt.h>
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

static int set_log_level(const char *s, const char *from) {
        int l = xpu_log_level_from_string(s);
        if (l < 0) {
                log_error("%s: unknown log level \"%s\" (use error, warning, info or debug)", from, s);
                return -EINVAL;
        }
        xpu_log_set_level((enum xpu_log_level)l);
        return 0;
}

static int set_inject(struct xpu_options *o, const char *s, const char *from) {
        int m = xpu_inject_mode_from_string(s);
        if (m < 0) {
                log_error("%s: unknown injection mode \"%s\" (use auto, mount, link or none)", from, s);
                return -EINVAL;
        }
        o->inject = (enum xpu_inject_mode)m;
        return 0;
}

static int set_vendor_timeout(struct xpu_options *o, const char *s, const char *from) {
        uint64_t v;
        if (xpu_parse_u64(s, 10, &v) < 0 || v < 1 || v > XPU_VENDOR_TIMEOUT_S_MAX) {
                log_error("%s: vendor timeout \"%s\" is not a whole number of seconds between 1 and %u", from, s,
                          XPU_VENDOR_TIMEOUT_S_MAX);
                return -EINVAL;
        }
        o->vendor_timeout = (unsigned)v;
        return 0;
}

int xpu_options_parse_cuda_version(const char *s) {
        unsigned major, minor = 0;
        int used = 0;
        if (!s || !*s || strspn(s, "0123456789.") != strlen(s))
                return -EINVAL;
        if (sscanf(s, "%u.%u%n", &major, &minor, &used) != 2 && sscanf(s, "%u%n", &major, &used) != 1)
                return -EINVAL;
        if (s[used] != '\0' || major < 1 || major > 99 || minor > 9)
                return -EINVAL;
        return (int)(major * 1000 + minor * 10);
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

static int set_grace(struct xpu_options *o, const char *s, const char *from) {
        uint64_t v;
        if (xpu_parse_u64(s, 10, &v) < 0 || v > 86400) {
                log_error("%s: grace period \"%s\" is not a whole number of seconds between 0 and 86400", from, s);
                return -EINVAL;
        }
        o->grace = (unsigned)v;
        return 0;
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

/* Environment twins, read after the command line, for what it did not set. */
int xpu_options_env(struct xpu_options *o) {
        const char *v;
        if (!o->sys_root && (v = secure_getenv("XPUINIT_SYS_ROOT")) && *v)
                o->sys_root = v;
        if (!o->dev_root && (v = secure_getenv("XPUINIT_DEV_ROOT")) && *v)
                o->dev_root = v;
        if (!o->driver_root && (v = secure_getenv("XPUINIT_DRIVER_ROOT")) && *v)
                o->driver_root = v;
        if (!o->profile && (v = secure_getenv("XPUINIT_PROFILE")) && *v)
                o->profile = v;
        if (!o->cli.profile_dir && (v = secure_getenv("XPUINIT_PROFILE_DIR")) && *v) {
                o->profile_dir = v;
                o->profile_dir_set = true;
        }
        if (!o->require && (v = secure_getenv("XPU_REQUIRE")) && *v)
                o->require = v;
        if (!o->cli.inject && (v = secure_getenv("XPUINIT_INJECT")) && *v && set_inject(o, v, "XPUINIT_INJECT") < 0)
                return -EINVAL;
        if (!o->cli.log_level && (v = secure_getenv("XPUINIT_LOG_LEVEL")) && *v &&
            set_log_level(v, "XPUINIT_LOG_LEVEL") < 0)
                return -EINVAL;
        if (!o->cli.vendor_timeout && (v = secure_getenv("XPUINIT_VENDOR_TIMEOUT")) && *v &&
            set_vendor_timeout(o, v, "XPUINIT_VENDOR_TIMEOUT") < 0)
                return -EINVAL;
        if (!o->cli.user && (v = secure_getenv("XPUINIT_USER")) && *v) {
                if (xpu_options_parse_user(v, "XPUINIT_USER", &o->uid, &o->gid) < 0)
                        return -EINVAL;
                o->user_set = true;
        }
        if ((v = secure_getenv("XPUINIT_DEVICE_CODE")) && *v) {
                int m = xpu_device_code_mode_from_string(v);
                if (m < 0) {
                        log_error("XPUINIT_DEVICE_CODE: unknown mode \"%s\" (use enforce, apply, warn or off)", v);
                        return -EINVAL;
                }
                o->device_code = (enum xpu_device_code_mode)m;
                o->device_code_set = true;
        }
        if ((v = secure_getenv("XPUINIT_DEVICE_CODE_INDEX")) && *v)
                o->device_code_index = v;
        if (!o->cli.grace && (v = secure_getenv("XPUINIT_GRACE")) && *v && set_grace(o, v, "XPUINIT_GRACE") < 0)
                return -EINVAL;
        const struct {
                const char *name;
                bool *target;
                bool from_cli;
        } bools[] = {
                { "XPUINIT_GROUP", &o->group, o->cli.group },
                { "XPUINIT_EXEC", &o->exec, o->cli.exec },
        };
        for (size_t i = 0; i < ELEMENTSOF(bools); i++) {
                if (bools[i].from_cli || !(v = secure_getenv(bools[i].name)))
                        continue;
                int b = xpu_parse_bool(v);
                if (b < 0) {
                        log_error("%s: \"%s\" is not a boolean (use 1/0, true/false)", bools[i].name, v);
                        return -EINVAL;
                }
                *bools[i].target = b;
        }
        return 0;
}

enum {
        OPT_SYS_ROOT = 0x100,
        OPT_DEV_ROOT,
        OPT_DRIVER_ROOT,
        OPT_PROFILE,
        OPT_PROFILE_DIR,
        OPT_INJECT,
        OPT_REQUIRE,
        OPT_LOG_LEVEL,
        OPT_GRACE,
        OPT_EXEC,
        OPT_JSON,
        OPT_ROOTFS,
        OPT_VERSION,
        OPT_SOURCE,
        OPT_VENDOR_TIMEOUT,
        OPT_USER,
        OPT_FOR,
        OPT_CUDA_DRIVER,
        OPT_FAIL_ON,
        OPT_WRITE_INDEX,
        OPT_K8S_AFFINITY,
        OPT_OUTPUT,
        OPT_FORMAT,
        OPT_KIND,
        OPT_HOST_ROOT,
};

/* Options may stand before or after the subcommand's name; "--" ends them. Returns 0, or
 * XPU_EXIT_USAGE after printing the problem. */
int xpu_options_parse(struct xpu_options *o, int argc, char **argv) {
        static const struct option options[] = {
                { "sys-root", required_argument, NULL, OPT_SYS_ROOT },
                { "dev-root", required_argument, NULL, OPT_DEV_ROOT },
                { "driver-root", required_argument, NULL, OPT_DRIVER_ROOT },
                { "profile", required_argument, NULL, OPT_PROFILE },
                { "profile-dir", required_argument, NULL, OPT_PROFILE_DIR },
                { "inject", required_argument, NULL, OPT_INJECT },
                { "require", required_argument, NULL, OPT_REQUIRE },
                { "log-level", required_argument, NULL, OPT_LOG_LEVEL },
                { "group", no_argument, NULL, 'g' },
                { "grace", required_argument, NULL, OPT_GRACE },
                { "exec", no_argument, NULL, OPT_EXEC },
                { "json", no_argument, NULL, OPT_JSON },
                { "rootfs", required_argument, NULL, OPT_ROOTFS },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, OPT_VERSION },
                { "source", required_argument, NULL, OPT_SOURCE },
                { "vendor-timeout", required_argument, NULL, OPT_VENDOR_TIMEOUT },
                { "user", required_argument, NULL, OPT_USER },
                { "for", required_argument, NULL, OPT_FOR },
                { "cuda-driver", required_argument, NULL, OPT_CUDA_DRIVER },
                { "fail-on", required_argument, NULL, OPT_FAIL_ON },
                { "write-index", required_argument, NULL, OPT_WRITE_INDEX },
                { "k8s-affinity", no_argument, NULL, OPT_K8S_AFFINITY },
                { "output", required_argument, NULL, OPT_OUTPUT },
                { "format", required_argument, NULL, OPT_FORMAT },
                { "kind", required_argument, NULL, OPT_KIND },
                { "host-root", required_argument, NULL, OPT_HOST_ROOT },
                {},
        };
        bool have_command = false, have_verb = false;
        opterr = 0;
        optind = 1;
        for (;;) {
                int c = getopt_long(argc, argv, "+:vgh", options, NULL);
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
                switch (c) {
                case OPT_SYS_ROOT:
                        o->sys_root = optarg;
                        break;
                case OPT_DEV_ROOT:
                        o->dev_root = optarg;
                        break;
                case OPT_DRIVER_ROOT:
                        o->driver_root = optarg;
                        break;
                case OPT_PROFILE:
                        o->profile = optarg;
                        break;
                case OPT_PROFILE_DIR:
                        o->profile_dir = optarg;
                        o->profile_dir_set = o->cli.profile_dir = true;
                        break;
                case OPT_INJECT:
                        o->cli.inject = true;
                        if (set_inject(o, optarg, "--inject") < 0)
                                return XPU_EXIT_USAGE;
                        break;
                case OPT_REQUIRE:
                        o->require = optarg;
                        break;
                case OPT_LOG_LEVEL:
                        o->cli.log_level = true;
                        if (set_log_level(optarg, "--log-level") < 0)
                                return XPU_EXIT_USAGE;
                        break;
                case 'v':
                        o->cli.log_level = true;
                        xpu_log_set_level(xpu_log_get_level() < XPU_LOG_INFO ? XPU_LOG_INFO : XPU_LOG_DEBUG);
                        break;
                case 'g':
                        o->group = o->cli.group = true;
                        break;
                case OPT_GRACE:
                        o->cli.grace = true;
                        if (set_grace(o, optarg, "--grace") < 0)
                                return XPU_EXIT_USAGE;
                        break;
                case OPT_EXEC:
                        o->exec = o->cli.exec = true;
                        break;
                case OPT_USER:
                        if (xpu_options_parse_user(optarg, "--user", &o->uid, &o->gid) < 0)
                                return XPU_EXIT_USAGE;
                        o->user_set = o->cli.user = true;
                        break;
                case OPT_JSON:
                        o->json = true;
                        break;
                case OPT_ROOTFS:
                        o->rootfs = optarg;
                        break;
                case 'h':
                        o->command = XPU_CMD_HELP;
                        break;
                case OPT_VERSION:
                        o->command = XPU_CMD_VERSION;
                        break;
                case OPT_SOURCE: {
                        int bits = xpu_options_parse_sources(optarg);
                        if (bits < 0) {
                                log_error("--source: unknown source list \"%s\" (use fast, nvml, cuda, rocm_smi or "
                                          "all, comma-separated)",
                                          optarg);
                                return XPU_EXIT_USAGE;
                        }
                        o->sources = (uint32_t)bits;
                        o->sources_set = true;
                        break;
                }
                case OPT_VENDOR_TIMEOUT:
                        o->cli.vendor_timeout = true;
                        if (set_vendor_timeout(o, optarg, "--vendor-timeout") < 0)
                                return XPU_EXIT_USAGE;
                        break;
                case OPT_FOR: {
                        struct xpu_code_target t;
                        if (xpu_code_target_parse(optarg, &t) < 0) {
                                log_error("--for: \"%s\" is not a GPU target: give sm_XY or X.Y for compute capability "
                                          "X.Y (sm_90, 12.0) or an AMD target ID (gfx1031, gfx90a:sramecc-:xnack-)",
                                          optarg);
                                return XPU_EXIT_USAGE;
                        }
                        if (o->n_audit_for == XPU_AUDIT_TARGETS_MAX) {
                                log_error("--for: at most %d targets", XPU_AUDIT_TARGETS_MAX);
                                return XPU_EXIT_USAGE;
                        }
                        o->audit_for[o->n_audit_for++] = optarg;
                        break;
                }
                case OPT_CUDA_DRIVER:
                        if (xpu_options_parse_cuda_version(optarg) < 0) {
                                log_error("--cuda-driver: \"%s\" is not a CUDA version such as 12.4, 13.0 or 13", optarg);
                                return XPU_EXIT_USAGE;
                        }
                        o->cuda_driver = optarg;
                        break;
                case OPT_FAIL_ON: {
                        static const enum xpu_code_level levels[] = { XPU_CODE_PTX_JIT, XPU_CODE_OVERRIDE,
                                                                      XPU_CODE_CANNOT_RUN };
                        o->fail_on = -1;
                        for (size_t i = 0; i < ELEMENTSOF(levels); i++)
                                if (strcmp(optarg, xpu_code_level_name(levels[i])) == 0)
                                        o->fail_on = (int)levels[i];
                        if (o->fail_on < 0) {
                                log_error("--fail-on: unknown level \"%s\" (use ptx-jit, override or cannot-run)",
                                          optarg);
                                return XPU_EXIT_USAGE;
                        }
                        break;
                }
                case OPT_WRITE_INDEX:
                        o->write_index = optarg;
                        break;
                case OPT_K8S_AFFINITY:
                        o->k8s_affinity = true;
                        break;
                case OPT_OUTPUT:
                        if (o->cdi_output) {
                                log_error("--output given twice (\"%s\", then \"%s\"): give one file", o->cdi_output,
                                          optarg);
                                return XPU_EXIT_USAGE;
                        }
                        o->cdi_output = optarg;
                        break;
                case OPT_FORMAT:
                        if (o->cdi_format && strcmp(o->cdi_format, optarg) != 0) {
                                log_error("--format given twice (%s, then %s): give one", o->cdi_format, optarg);
                                return XPU_EXIT_USAGE;
                        }
                        if (strcmp(optarg, "json") != 0 && strcmp(optarg, "yaml") != 0) {
                                log_error("--format: unknown format \"%s\" (use json or yaml)", optarg);
                                return XPU_EXIT_USAGE;
                        }
                        o->cdi_format = optarg;
                        break;
                case OPT_KIND: {
                        char err[512];
                        if (o->cdi_kind) {
                                log_error("--kind given twice (%s, then %s): give one", o->cdi_kind, optarg);
                                return XPU_EXIT_USAGE;
                        }
                        if (xpu_cdi_kind_check(optarg, err, sizeof err) < 0) {
                                log_error("%s", err);
                                return XPU_EXIT_USAGE;
                        }
                        o->cdi_kind = optarg;
                        break;
                }
                case OPT_HOST_ROOT:
                        if (o->cdi_host_root) {
                                log_error("--host-root given twice (%s, then %s): give one", o->cdi_host_root, optarg);
                                return XPU_EXIT_USAGE;
                        }
                        if (optarg[0] != '/') {
                                log_error("--host-root: \"%s\" is not an absolute path (give where the host's / is "
                                          "mounted here, e.g. /host)", optarg);
                                return XPU_EXIT_USAGE;
                        }
                        o->cdi_host_root = optarg;
                        break;
                case ':':
                        log_error("option %s needs a value; see xpuinit --help", argv[optind - 1]);
                        return XPU_EXIT_USAGE;
                case '?':
                default:
                        log_error("unknown option \"%s\"; see xpuinit --help", argv[optind - 1]);
                        return XPU_EXIT_USAGE;
                }
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

/* Driver roots tried in order when --driver-root is not given. */
static const char *const default_driver_roots[] = { "/run/nvidia/driver", "/host", "/" };

const char *xpu_options_driver_root(const struct xpu_options *o, const struct xpu_inventory *inv, const char **why) {
        if (o->driver_root) {
                *why = "--driver-root/XPUINIT_DRIVER_ROOT";
                return o->driver_root;
        }
        if (inv->n_devices == 0) {
                *why = "no GPU found, so no driver files are needed";
                return "/";
        }
        for (size_t i = 0; i + 1 < ELEMENTSOF(default_driver_roots); i++) {
                int fd = xpu_open_root(default_driver_roots[i]);
                if (fd < 0)
                        continue;
                char ver[32];
                bool has = xpu_driver_version_from_libraries(fd, ver, sizeof ver) >= 0;
                close(fd);
                if (has) {
                        *why = "the first of /run/nvidia/driver, /host, / that holds driver libraries";
                        return default_driver_roots[i];
                }
        }
        *why = "neither /run/nvidia/driver nor /host holds driver libraries";
        return default_driver_roots[ELEMENTSOF(default_driver_roots) - 1];
}
