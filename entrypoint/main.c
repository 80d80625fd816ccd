/* SPDX-License-Identifier: Apache-2.0 */
/* xpuinit: command line (design §4) and the top-level flow
 * probe → profile → select → plan → apply → exec/supervise. */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/log.h"
#include "base/strv.h"
#include "init.h"
#include "inventory-json.h"
#include "plan.h"
#include "probe.h"
#include "profile.h"
#include "render.h"
#include "require.h"
#include "select.h"

#define EXIT_SETUP 125 /* xpuinit failed before the workload started */
#define EXIT_USAGE 2

extern char **environ;

enum command {
        CMD_RUN = 0,
        CMD_PROBE,
        CMD_PLAN,
        CMD_PROFILES,
        CMD_INJECT,
        CMD_VERSION,
        CMD_HELP,
};

static const char *const command_names[] = {
        [CMD_RUN] = "run", [CMD_PROBE] = "probe", [CMD_PLAN] = "plan", [CMD_PROFILES] = "profiles",
        [CMD_INJECT] = "inject", [CMD_VERSION] = "version", [CMD_HELP] = "help",
};

static enum command arg_command = CMD_RUN;
static const char *arg_sys_root;
static const char *arg_dev_root;
static const char *arg_driver_root;
static const char *arg_profile;
static const char *arg_profile_dir = "/etc/xpuinit/profiles.d";
static bool arg_profile_dir_set; /* given by the user: a missing directory is worth a warning */
static enum xpu_inject_mode arg_inject = XPU_INJECT_AUTO;
static const char *arg_require;
static bool arg_group;
static unsigned arg_grace = 10;
static bool arg_exec;
static bool arg_json;
static const char *arg_rootfs;
static char **arg_argv; /* the workload's argv (points into main's argv) */

/* Driver roots tried in order when --driver-root is not given (design §4). */
static const char *const default_driver_roots[] = { "/run/nvidia/driver", "/host", "/" };

static void usage(FILE *f) {
        fputs("Usage:\n"
              "  xpuinit [OPTIONS] [--] COMMAND [ARG...]   probe, select, inject, run COMMAND\n"
              "  xpuinit probe    [--json]                 list accelerators and driver facts\n"
              "  xpuinit plan     [--json] [--] COMMAND... print what would be done; change nothing\n"
              "  xpuinit profiles [--json]                 list profiles and say which one matches and why\n"
              "  xpuinit inject --rootfs DIR [--json]      apply the filesystem part of the plan under DIR\n"
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
              "  --json                                   machine-readable output\n"
              "  --rootfs DIR                             container root for inject\n"
              "\n"
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

static int set_inject(const char *s, const char *from) {
        int m = xpu_inject_mode_from_string(s);
        if (m < 0) {
                log_error("%s: unknown injection mode \"%s\" (use auto, mount, link or none)", from, s);
                return -EINVAL;
        }
        arg_inject = (enum xpu_inject_mode)m;
        return 0;
}

static int set_grace(const char *s, const char *from) {
        uint64_t v;
        if (xpu_parse_u64(s, 10, &v) < 0 || v > 86400) {
                log_error("%s: grace period \"%s\" is not a whole number of seconds between 0 and 86400", from, s);
                return -EINVAL;
        }
        arg_grace = (unsigned)v;
        return 0;
}

/* Which settings the command line gave: their environment twins are not read at all. */
static struct {
        bool profile_dir, inject, log_level, grace, group, exec;
} cli_set;

/* Environment twins, read after the command line, for what it did not set. */
static int parse_env(void) {
        const char *v;
        if (!arg_sys_root && (v = secure_getenv("XPUINIT_SYS_ROOT")) && *v)
                arg_sys_root = v;
        if (!arg_dev_root && (v = secure_getenv("XPUINIT_DEV_ROOT")) && *v)
                arg_dev_root = v;
        if (!arg_driver_root && (v = secure_getenv("XPUINIT_DRIVER_ROOT")) && *v)
                arg_driver_root = v;
        if (!arg_profile && (v = secure_getenv("XPUINIT_PROFILE")) && *v)
                arg_profile = v;
        if (!cli_set.profile_dir && (v = secure_getenv("XPUINIT_PROFILE_DIR")) && *v) {
                arg_profile_dir = v;
                arg_profile_dir_set = true;
        }
        if (!arg_require && (v = secure_getenv("XPU_REQUIRE")) && *v)
                arg_require = v;
        if (!cli_set.inject && (v = secure_getenv("XPUINIT_INJECT")) && *v && set_inject(v, "XPUINIT_INJECT") < 0)
                return -EINVAL;
        if (!cli_set.log_level && (v = secure_getenv("XPUINIT_LOG_LEVEL")) && *v &&
            set_log_level(v, "XPUINIT_LOG_LEVEL") < 0)
                return -EINVAL;
        if (!cli_set.grace && (v = secure_getenv("XPUINIT_GRACE")) && *v && set_grace(v, "XPUINIT_GRACE") < 0)
                return -EINVAL;
        const struct {
                const char *name;
                bool *target;
                bool from_cli;
        } bools[] = {
                { "XPUINIT_GROUP", &arg_group, cli_set.group },
                { "XPUINIT_EXEC", &arg_exec, cli_set.exec },
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
};

/* Options may stand before or after the subcommand's name; "--" ends them. Returns 0, or
 * EXIT_USAGE after printing the problem. */
static int parse_argv(int argc, char **argv) {
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
                {},
        };
        bool have_command = false;
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
                                for (size_t i = 1; i < ELEMENTSOF(command_names); i++)
                                        if (strcmp(argv[optind], command_names[i]) == 0) {
                                                arg_command = (enum command)i;
                                                found = true;
                                        }
                                if (found) {
                                        have_command = true;
                                        optind++;
                                        continue;
                                }
                        }
                        break;
                }
                switch (c) {
                case OPT_SYS_ROOT:
                        arg_sys_root = optarg;
                        break;
                case OPT_DEV_ROOT:
                        arg_dev_root = optarg;
                        break;
                case OPT_DRIVER_ROOT:
                        arg_driver_root = optarg;
                        break;
                case OPT_PROFILE:
                        arg_profile = optarg;
                        break;
                case OPT_PROFILE_DIR:
                        arg_profile_dir = optarg;
                        arg_profile_dir_set = cli_set.profile_dir = true;
                        break;
                case OPT_INJECT:
                        cli_set.inject = true;
                        if (set_inject(optarg, "--inject") < 0)
                                return EXIT_USAGE;
                        break;
                case OPT_REQUIRE:
                        arg_require = optarg;
                        break;
                case OPT_LOG_LEVEL:
                        cli_set.log_level = true;
                        if (set_log_level(optarg, "--log-level") < 0)
                                return EXIT_USAGE;
                        break;
                case 'v':
                        cli_set.log_level = true;
                        xpu_log_set_level(xpu_log_get_level() < XPU_LOG_INFO ? XPU_LOG_INFO : XPU_LOG_DEBUG);
                        break;
                case 'g':
                        arg_group = cli_set.group = true;
                        break;
                case OPT_GRACE:
                        cli_set.grace = true;
                        if (set_grace(optarg, "--grace") < 0)
                                return EXIT_USAGE;
                        break;
                case OPT_EXEC:
                        arg_exec = cli_set.exec = true;
                        break;
                case OPT_JSON:
                        arg_json = true;
                        break;
                case OPT_ROOTFS:
                        arg_rootfs = optarg;
                        break;
                case 'h':
                        arg_command = CMD_HELP;
                        break;
                case OPT_VERSION:
                        arg_command = CMD_VERSION;
                        break;
                case ':':
                        log_error("option %s needs a value; see xpuinit --help", argv[optind - 1]);
                        return EXIT_USAGE;
                case '?':
                default:
                        log_error("unknown option \"%s\"; see xpuinit --help", argv[optind - 1]);
                        return EXIT_USAGE;
                }
        }
        arg_argv = argv + optind;
        size_t rest = (size_t)(argc - optind);
        switch (arg_command) {
        case CMD_RUN:
                if (rest == 0) {
                        log_error("no command to run; usage: xpuinit [OPTIONS] -- COMMAND [ARG...]");
                        return EXIT_USAGE;
                }
                break;
        case CMD_PLAN:
                break; /* a plan without a command shows the injection only */
        case CMD_INJECT:
                if (!arg_rootfs) {
                        log_error("inject needs --rootfs DIR (the container's root directory)");
                        return EXIT_USAGE;
                }
                if (rest) {
                        log_error("inject takes no command (got \"%s\")", arg_argv[0]);
                        return EXIT_USAGE;
                }
                break;
        case CMD_PROBE:
        case CMD_PROFILES:
        case CMD_VERSION:
        case CMD_HELP:
        default:
                if (rest) {
                        log_error("%s takes no arguments (got \"%s\")", command_names[arg_command], arg_argv[0]);
                        return EXIT_USAGE;
                }
                break;
        }
        if (arg_rootfs && arg_command != CMD_INJECT) {
                log_error("--rootfs only goes with inject");
                return EXIT_USAGE;
        }
        return 0;
}

/* CAP_SYS_ADMIN in the effective set: mounts are permitted (--inject auto). */
static bool can_mount(void) {
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct d[2] = {};
        if (syscall(SYS_capget, &h, d) < 0)
                return false;
        return d[CAP_SYS_ADMIN / 32].effective & (1u << (CAP_SYS_ADMIN % 32));
}

/* The driver root: --driver-root, else the first default that holds versioned driver
 * libraries, else "/". Only searched when the probe found a device: a GPU-less host needs no
 * driver files, and start-up there must stay as cheap as tini's. */
static const char *pick_driver_root(const struct xpu_inventory *inv) {
        if (arg_driver_root)
                return arg_driver_root;
        if (inv->n_devices == 0)
                return "/";
        for (size_t i = 0; i + 1 < ELEMENTSOF(default_driver_roots); i++) {
                int fd = xpu_open_root(default_driver_roots[i]);
                if (fd < 0)
                        continue;
                char ver[32];
                bool has = xpu_driver_version_from_libraries(fd, ver, sizeof ver) >= 0;
                close(fd);
                if (has)
                        return default_driver_roots[i];
        }
        return default_driver_roots[ELEMENTSOF(default_driver_roots) - 1];
}

/* Everything the subcommands share: roots, inventory, profiles, selection, chosen profile. */
struct context {
        struct xpu_roots roots;
        struct xpu_inventory *inv;
        struct xpu_profile_set *profiles;
        struct xpu_selection *sel;
        const struct xpu_profile *profile;
        int container_fd;
        const char *container_path;
};

static void context_done(struct context *c) {
        xpu_roots_close(&c->roots);
        xpu_inventory_free(c->inv);
        xpu_profile_set_free(c->profiles);
        xpu_selection_free(c->sel);
        if (c->container_fd >= 0)
                close(c->container_fd);
}

static int context_probe(struct context *c) {
        const char *which = NULL;
        /* The fast path reads only the sys and dev roots; the driver root follows the probe. */
        int r = xpu_roots_open(&c->roots, arg_sys_root, arg_dev_root, "/", &which);
        if (r < 0) {
                bool sys = which && !strcmp(which, "sys");
                log_error("cannot open the %s root \"%s\": %s; check --%s-root", sys ? "sys" : "dev",
                          (sys ? arg_sys_root : arg_dev_root) ? (sys ? arg_sys_root : arg_dev_root) : "/",
                          strerror(-r), sys ? "sys" : "dev");
                return -r;
        }
        r = xpu_inventory_probe(&c->roots, &c->inv);
        if (r < 0) {
                log_error("probing failed: %s", strerror(-r));
                return -r;
        }
        for (size_t i = 0; i < c->inv->n_warnings; i++)
                log_warning("%s", c->inv->warnings[i]);
        const char *driver_root = pick_driver_root(c->inv);
        log_debug("sys root %s, dev root %s, driver root %s", c->roots.sys, c->roots.dev, driver_root);
        if (strcmp(driver_root, "/") != 0) {
                int fd = xpu_open_root(driver_root);
                if (fd < 0) {
                        log_error("cannot open the driver root \"%s\": %s; check --driver-root", driver_root,
                                  strerror(-fd));
                        return -fd;
                }
                close(c->roots.driver_fd);
                c->roots.driver_fd = fd;
                xpu_strlcpy(c->roots.driver, driver_root, sizeof c->roots.driver);
        }
        return 0;
}

static int context_select(struct context *c) {
        char err[4096]; /* a selection error lists every device */
        err[0] = '\0';
        struct stat st;
        if (arg_profile_dir_set && stat(arg_profile_dir, &st) < 0)
                log_warning("profile directory %s: %s; only the built-in profiles are used", arg_profile_dir,
                            strerror(errno));
        log_debug("profile directory %s", arg_profile_dir);
        int r = xpu_profile_set_load(arg_profile_dir, &c->profiles, err, sizeof err);
        if (r < 0) {
                log_error("%s", err[0] ? err : strerror(-r));
                return r;
        }
        /* A vendor's own variable means nothing on a host without that vendor's driver: one image
         * for both vendors may carry both variables. */
        static const struct {
                enum xpu_vendor vendor;
                const char *name;
        } vendor_vars[] = {
                { XPU_VENDOR_NVIDIA, "NVIDIA_VISIBLE_DEVICES" },
                { XPU_VENDOR_AMD, "AMD_VISIBLE_DEVICES" },
        };
        const char *values[ELEMENTSOF(vendor_vars)];
        for (size_t i = 0; i < ELEMENTSOF(vendor_vars); i++) {
                values[i] = secure_getenv(vendor_vars[i].name);
                enum xpu_vendor v = vendor_vars[i].vendor;
                if (values[i] && xpu_inventory_count(c->inv, v) == 0 && !c->inv->vendors[v].driver_loaded) {
                        log_info("%s=%s ignored: no %s driver on this host", vendor_vars[i].name, values[i],
                                 xpu_vendor_to_string(v));
                        values[i] = NULL;
                }
        }
        r = xpu_selection_parse(c->inv, secure_getenv("XPU_VISIBLE_DEVICES"), values[0], values[1], &c->sel, err,
                                sizeof err);
        if (r < 0) {
                log_error("%s", err[0] ? err : strerror(-r));
                return r;
        }
        if (arg_profile) {
                c->profile = xpu_profile_set_find(c->profiles, arg_profile);
                if (!c->profile) {
                        log_error("profile \"%s\" (--profile/XPUINIT_PROFILE) does not exist; `xpuinit profiles` "
                                  "lists them",
                                  arg_profile);
                        return -ENOENT;
                }
                /* A forced profile is used even when its match.require fails; the warning says why. */
                char why[1024];
                if (!xpu_profile_matches(c->profile, c->inv, c->sel->selected, why, sizeof why))
                        log_warning("profile \"%s\" is forced although it would not be chosen (%s)", arg_profile, why);
        } else {
                c->profile = xpu_profile_select(c->profiles, c->inv, c->sel->selected);
                if (!c->profile) {
                        log_error("no profile matches this host and no cpu profile exists; add one to %s",
                                  arg_profile_dir);
                        return -ENOENT;
                }
        }
        return xpu_require_check_start(c->inv, c->sel, c->profile, arg_require, environ,
                                       arg_command == CMD_PROFILES);
}

static int context_plan(struct context *c, char **argv, struct xpu_plan **ret) {
        const char *caps = secure_getenv("XPU_DRIVER_CAPABILITIES");
        if (!caps)
                caps = secure_getenv("NVIDIA_DRIVER_CAPABILITIES");
        c->container_fd = xpu_open_root(c->container_path);
        if (c->container_fd < 0) {
                log_error("cannot open the container root \"%s\": %s", c->container_path, strerror(-c->container_fd));
                return c->container_fd;
        }
        struct xpu_plan_options o = {
                .inject = arg_inject,
                .can_mount = can_mount(),
                .driver_root = c->roots.driver,
                .driver_fd = c->roots.driver_fd,
                .container_fd = c->container_fd,
                .dev_fd = c->roots.dev_fd,
                .capabilities_env = caps,
                .envp = environ,
                .argv = argv,
        };
        char err[1024];
        err[0] = '\0';
        int r = xpu_plan_build(c->inv, c->sel, c->profile, &o, ret, err, sizeof err);
        if (r < 0) {
                log_error("%s", err[0] ? err : strerror(-r));
                return r;
        }
        return 0;
}

/* Supplementary groups of the device nodes (plan->groups), added to xpuinit itself before the
 * workload starts, so the workload inherits them and a failure is reported once, here. DEV_FD is
 * the dev root, where the nodes are checked for access when the groups cannot be added. */
static int add_groups(const struct xpu_plan *p, int dev_fd) {
        if (p->n_groups == 0)
                return 0;
        int n = getgroups(0, NULL);
        if (n < 0)
                return negative_errno();
        _cleanup_free_ gid_t *g = calloc((size_t)n + p->n_groups, sizeof(gid_t));
        if (!g)
                return -ENOMEM;
        n = getgroups(n, g);
        if (n < 0)
                return negative_errno();
        size_t total = (size_t)n;
        for (size_t i = 0; i < p->n_groups; i++) {
                bool have = getegid() == p->groups[i];
                for (size_t j = 0; j < total && !have; j++)
                        have = g[j] == p->groups[i];
                if (!have)
                        g[total++] = p->groups[i];
        }
        if (total == (size_t)n || setgroups(total, g) == 0)
                return 0;
        int r = negative_errno();
        /* Without CAP_SETGID the groups cannot be added; fine if the nodes are usable anyway. */
        for (size_t i = 0; i < p->n_groups; i++) {
                const char *rel = p->groups_from[i] + strspn(p->groups_from[i], "/");
                if (faccessat(dev_fd, rel, R_OK | W_OK, AT_EACCESS) < 0) {
                        log_error("cannot add group %u (owner of %s) to the workload: %s; give the container "
                                  "CAP_SETGID or run it with --group-add %u",
                                  (unsigned)p->groups[i], p->groups_from[i], strerror(-r), (unsigned)p->groups[i]);
                        return r;
                }
        }
        log_info("could not add the device groups (%s), but the device nodes are accessible", strerror(-r));
        return 0;
}

static void log_no_devices(const struct xpu_inventory *inv) {
        if (inv->n_devices > 0)
                return;
        for (int v = 0; v < _XPU_VENDOR_MAX; v++)
                if (!inv->vendors[v].driver_loaded && inv->vendors[v].looked_for[0])
                        log_info("no %s accelerator: looked for %s", xpu_vendor_to_string(v), inv->vendors[v].looked_for);
}

/* Open the container, dev and driver roots again by path (after changing mount namespace). */
static int reopen_roots(struct context *c) {
        struct {
                int *fd;
                const char *path;
        } roots[] = {
                { &c->container_fd, c->container_path },
                { &c->roots.dev_fd, c->roots.dev },
                { &c->roots.driver_fd, c->roots.driver },
        };
        for (size_t i = 0; i < ELEMENTSOF(roots); i++) {
                int fd = xpu_open_root(roots[i].path);
                if (fd < 0) {
                        log_error("cannot open %s in the new mount namespace: %s", roots[i].path, strerror(-fd));
                        return fd;
                }
                close(*roots[i].fd);
                *roots[i].fd = fd;
        }
        return 0;
}

static int run(struct context *c) {
        if (context_probe(c) != 0 || context_select(c) < 0)
                return EXIT_SETUP;
        log_no_devices(c->inv);
        struct xpu_plan *p = NULL;
        c->container_path = "/";
        if (context_plan(c, arg_argv, &p) < 0)
                return EXIT_SETUP;
        log_info("profile %s (%s); %zu device(s); inject %s", p->profile->name, p->profile->origin, p->n_devices,
                 xpu_inject_mode_to_string(p->inject));
        for (size_t i = 0; i < p->n_notes; i++)
                log_info("%s", p->notes[i]);
        for (size_t i = 0; i < p->n_warnings; i++)
                log_warning("%s", p->warnings[i]);
        char err[1024];
        err[0] = '\0';
        /* Mounts go into a mount namespace of our own (propagation: host to us only), so nothing
         * leaks to the host or the runtime's namespace, and they vanish with the workload. */
        if (p->inject == XPU_INJECT_MOUNT && p->files && p->files->n > 0) {
                if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0) {
                        log_error("cannot make a private mount namespace for the injected files: %s; use --inject "
                                  "link",
                                  strerror(errno));
                        xpu_plan_free(p);
                        return EXIT_SETUP;
                }
                /* Descriptors opened before point into the old namespace, which is torn down with
                 * its mounts (/dev of the container among them) now that no process is in it. */
                if (reopen_roots(c) < 0) {
                        xpu_plan_free(p);
                        return EXIT_SETUP;
                }
        }
        const struct xpu_apply_roots roots = {
                .container_fd = c->container_fd,
                .container_path = "/",
                .driver_fd = c->roots.driver_fd,
                .dev_fd = c->roots.dev_fd,
                .dev_path = c->roots.dev,
        };
        int r = xpu_plan_apply(p, &roots, false, err, sizeof err);
        if (r < 0) {
                log_error("%s", err);
                xpu_plan_free(p);
                return EXIT_SETUP;
        }
        if (p->files)
                log_info("injected %zu driver file(s) into %s", p->files->n, p->library_dir);
        if (add_groups(p, c->roots.dev_fd) < 0) {
                xpu_plan_free(p);
                return EXIT_SETUP;
        }
        /* Nothing of ours may reach the workload: close what we opened. */
        context_done(c);
        c->inv = NULL;
        c->profiles = NULL;
        c->sel = NULL;
        c->profile = NULL;
        c->container_fd = -EBADF; /* (context_done closed the roots and reset their fds) */

        struct xpu_supervise_options so = {
                .group = arg_group,
                .grace_seconds = arg_grace,
        };
        int status = arg_exec ? xpu_exec_workload(p->argv, p->env, &so) : xpu_supervise(p->argv, p->env, &so);
        xpu_plan_free(p);
        return status;
}

static int cmd_probe(struct context *c) {
        if (context_probe(c) != 0)
                return EXIT_SETUP;
        if (arg_json)
                return xpu_render_inventory_json(c->inv, stdout) < 0 ? EXIT_SETUP : 0;
        xpu_render_inventory_text(c->inv, stdout);
        return 0;
}

static int cmd_profiles(struct context *c) {
        if (context_probe(c) != 0 || context_select(c) < 0)
                return EXIT_SETUP;
        int r = arg_json ? xpu_render_profiles_json(c->profiles, c->inv, c->sel, c->profile, stdout)
                         : xpu_render_profiles_text(c->profiles, c->inv, c->sel, c->profile, stdout);
        return r < 0 ? EXIT_SETUP : 0;
}

static int cmd_plan(struct context *c, bool inject) {
        if (context_probe(c) != 0 || context_select(c) < 0)
                return EXIT_SETUP;
        c->container_path = inject ? arg_rootfs : "/";
        struct xpu_plan *p = NULL;
        if (inject && arg_inject == XPU_INJECT_AUTO)
                arg_inject = XPU_INJECT_MOUNT; /* from outside, links into the host would dangle */
        if (context_plan(c, arg_argv, &p) < 0)
                return EXIT_SETUP;
        int status = 0;
        if (inject && p->inject == XPU_INJECT_LINK && p->files) {
                /* Links name the driver root's path: from outside they only work when the container
                 * sees the driver root at that same path (ldconfig would drop dangling links). */
                struct stat st;
                if (xpu_stat_in_root(c->container_fd, c->roots.driver, false, &st) < 0 || !S_ISDIR(st.st_mode)) {
                        log_error("inject --rootfs %s --inject link: the links would point into %s, which the "
                                  "container does not have; use --inject mount, or mount the driver root at %s "
                                  "in the container",
                                  arg_rootfs, c->roots.driver, c->roots.driver);
                        xpu_plan_free(p);
                        return EXIT_SETUP;
                }
        }
        if (inject) {
                char err[1024];
                err[0] = '\0';
                const struct xpu_apply_roots roots = {
                        .container_fd = c->container_fd,
                        .container_path = arg_rootfs,
                        .driver_fd = c->roots.driver_fd,
                        .dev_fd = c->roots.dev_fd,
                        .dev_path = c->roots.dev,
                };
                for (size_t i = 0; i < p->n_warnings; i++)
                        log_warning("%s", p->warnings[i]);
                int r = xpu_plan_apply(p, &roots, true, err, sizeof err);
                if (r < 0) {
                        log_error("inject into %s: %s", arg_rootfs, err);
                        status = EXIT_SETUP;
                }
        }
        if (status == 0) {
                int r = arg_json ? xpu_render_plan_json(p, c->inv, environ, inject, stdout)
                                 : xpu_render_plan_text(p, c->inv, environ, inject, stdout);
                if (r < 0)
                        status = EXIT_SETUP;
        }
        xpu_plan_free(p);
        return status;
}

int main(int argc, char **argv) {
        xpu_log_set_program("xpuinit");
        int r = parse_argv(argc, argv);
        if (r != 0)
                return r;
        /* version and help need no settings: a bad environment twin must not break them. */
        if (arg_command != CMD_VERSION && arg_command != CMD_HELP && parse_env() < 0)
                return arg_command == CMD_RUN ? EXIT_SETUP : EXIT_USAGE;

        /* Field by field: the roots' three PATH_MAX buffers need no zeroing (xpu_roots_open fills
         * them), and 12 KiB of memset on every start shows in the start-up benchmark. */
        struct context c;
        c.roots.sys_fd = c.roots.dev_fd = c.roots.driver_fd = c.container_fd = -EBADF;
        c.roots.sys[0] = c.roots.dev[0] = c.roots.driver[0] = '\0';
        c.inv = NULL;
        c.profiles = NULL;
        c.sel = NULL;
        c.profile = NULL;
        c.container_path = "/";
        int status;
        switch (arg_command) {
        case CMD_VERSION:
                printf("xpuinit %s\n", XPU_VERSION);
                return 0;
        case CMD_HELP:
                usage(stdout);
                return 0;
        case CMD_PROBE:
                status = cmd_probe(&c);
                break;
        case CMD_PROFILES:
                status = cmd_profiles(&c);
                break;
        case CMD_PLAN:
                status = cmd_plan(&c, false);
                break;
        case CMD_INJECT:
                status = cmd_plan(&c, true);
                break;
        case CMD_RUN:
        default:
                status = run(&c);
                break;
        }
        context_done(&c);
        return status;
}
