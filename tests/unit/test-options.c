/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/options.c: xpuinit's command line and its environment twins: every option, the
 * subcommands and their arguments, which of a setting's command line and environment wins, and the
 * one-line message and exit status for each kind of bad input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/macro.h"
#include "devcode/compat.h"
#include "options.h"
#include "testlib.h"

/* Every environment twin xpu_options_env() reads. */
static const char *const env_names[] = {
        "XPUINIT_SYS_ROOT",    "XPUINIT_DEV_ROOT",       "XPUINIT_DRIVER_ROOT", "XPUINIT_PROFILE",
        "XPUINIT_PROFILE_DIR", "XPU_REQUIRE",            "XPUINIT_INJECT",      "XPUINIT_LOG_LEVEL",
        "XPUINIT_VENDOR_TIMEOUT", "XPUINIT_USER",        "XPUINIT_DEVICE_CODE", "XPUINIT_DEVICE_CODE_INDEX",
        "XPUINIT_GRACE",       "XPUINIT_GROUP",          "XPUINIT_EXEC",
};

static void clear_env(void) {
        for (size_t i = 0; i < ELEMENTSOF(env_names); i++)
                unsetenv(env_names[i]);
        xpu_log_set_level(XPU_LOG_WARNING);
}

/* What one call logged: stderr goes to a temporary file for the call. */
static char logged[4096];

static void capture_begin(FILE **f, int *saved) {
        fflush(stderr);
        *f = tmpfile();
        ck_assert_ptr_nonnull(*f);
        *saved = dup(STDERR_FILENO);
        ck_assert_int_ge(*saved, 0);
        ck_assert_int_ge(dup2(fileno(*f), STDERR_FILENO), 0);
}

static void capture_end(FILE *f, int saved) {
        fflush(stderr);
        ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
        close(saved);
        rewind(f);
        size_t n = fread(logged, 1, sizeof logged - 1, f);
        logged[n] = '\0';
        fclose(f);
}

/* Parse a NULL-terminated argument list (argv[0] added) into *O, from XPU_OPTIONS_DEFAULT. */
static char *argv_store[40];
static int parse(struct xpu_options *o, const char *const *args) {
        int argc = 1;
        FILE *f;
        int saved;
        argv_store[0] = (char *)"xpuinit";
        for (; args[argc - 1]; argc++) {
                ck_assert_int_lt(argc, (int)ELEMENTSOF(argv_store) - 1);
                argv_store[argc] = (char *)args[argc - 1];
        }
        argv_store[argc] = NULL;
        *o = XPU_OPTIONS_DEFAULT;
        capture_begin(&f, &saved);
        int r = xpu_options_parse(o, argc, argv_store);
        capture_end(f, saved);
        return r;
}
#define PARSE(o, ...) parse(o, (const char *const[]){ __VA_ARGS__, NULL })

static int env(struct xpu_options *o) {
        FILE *f;
        int saved;
        capture_begin(&f, &saved);
        int r = xpu_options_env(o);
        capture_end(f, saved);
        return r;
}

/* The message of the one logged line, without "xpuinit: error: " and the newline. */
static void assert_logged(const char *want) {
        const char *p = strstr(logged, "error: ");
        ck_assert_msg(p, "nothing logged (wanted \"%s\")", want);
        p += strlen("error: ");
        size_t n = strcspn(p, "\n");
        ck_assert_msg(strlen(want) == n && strncmp(p, want, n) == 0, "logged \"%s\", wanted \"%s\"", logged, want);
        ck_assert_msg(!strchr(p + n + 1, '\n'), "more than one line: \"%s\"", logged);
}

START_TEST(test_defaults) {
        struct xpu_options o;
        clear_env();
        ck_assert_int_eq(PARSE(&o, "--", "sleep", "1"), 0);
        ck_assert_int_eq(o.command, XPU_CMD_RUN);
        ck_assert_str_eq(o.argv[0], "sleep");
        ck_assert_str_eq(o.argv[1], "1");
        ck_assert_ptr_null(o.argv[2]);
        ck_assert_ptr_null(o.sys_root);
        ck_assert_ptr_null(o.profile);
        ck_assert_str_eq(o.profile_dir, "/etc/xpuinit/profiles.d");
        ck_assert(!o.profile_dir_set);
        ck_assert_int_eq(o.inject, XPU_INJECT_AUTO);
        ck_assert_uint_eq(o.grace, 10);
        ck_assert_uint_eq(o.sources, XPU_SOURCES_FAST);
        ck_assert(!o.sources_set);
        ck_assert_int_eq(o.fail_on, -1);
        ck_assert_uint_eq(o.vendor_timeout, XPU_VENDOR_TIMEOUT_S_DEFAULT);
        ck_assert_str_eq(o.device_code_index, "/etc/xpuinit/device-code.json");
        ck_assert_int_eq(env(&o), 0);
        ck_assert_ptr_null(o.sys_root);
        ck_assert(!o.user_set && !o.group && !o.exec && !o.device_code_set);
        /* The workload's own options are its own. */
        ck_assert_int_eq(PARSE(&o, "sleep", "--json"), 0);
        ck_assert_str_eq(o.argv[0], "sleep");
        ck_assert_str_eq(o.argv[1], "--json");
        ck_assert(!o.json);
}
END_TEST

START_TEST(test_every_option) {
        struct xpu_options o;
        clear_env();
        ck_assert_int_eq(PARSE(&o, "--sys-root", "/s", "--dev-root", "/d", "--driver-root", "/r", "--profile", "p",
                               "--profile-dir", "/pd", "--inject", "link", "--require", "cuda>=12", "--log-level",
                               "debug", "-g", "--grace", "3", "--exec", "--user", "1000:44", "--source", "nvml,cuda",
                               "--vendor-timeout", "7", "--json", "probe"),
                         0);
        ck_assert_int_eq(o.command, XPU_CMD_PROBE);
        ck_assert_str_eq(o.sys_root, "/s");
        ck_assert_str_eq(o.dev_root, "/d");
        ck_assert_str_eq(o.driver_root, "/r");
        ck_assert_str_eq(o.profile, "p");
        ck_assert_str_eq(o.profile_dir, "/pd");
        ck_assert(o.profile_dir_set && o.cli.profile_dir);
        ck_assert_int_eq(o.inject, XPU_INJECT_LINK);
        ck_assert(o.cli.inject);
        ck_assert_str_eq(o.require, "cuda>=12");
        ck_assert_int_eq(xpu_log_get_level(), XPU_LOG_DEBUG);
        ck_assert(o.cli.log_level);
        ck_assert(o.group && o.cli.group);
        ck_assert_uint_eq(o.grace, 3);
        ck_assert(o.cli.grace);
        ck_assert(o.exec && o.cli.exec);
        ck_assert(o.user_set && o.cli.user);
        ck_assert_uint_eq(o.uid, 1000);
        ck_assert_uint_eq(o.gid, 44);
        ck_assert_uint_eq(o.sources, XPU_SOURCE_BIT(XPU_SOURCE_NVML) | XPU_SOURCE_BIT(XPU_SOURCE_CUDA));
        ck_assert(o.sources_set);
        ck_assert_uint_eq(o.vendor_timeout, 7);
        ck_assert(o.cli.vendor_timeout);
        ck_assert(o.json);

        /* Long forms, options after the subcommand, getopt's unambiguous abbreviations. */
        clear_env();
        ck_assert_int_eq(PARSE(&o, "inject", "--group", "--rootfs", "/c", "--sys", "/s2", "-v"), 0);
        ck_assert_int_eq(o.command, XPU_CMD_INJECT);
        ck_assert(o.group && o.cli.group);
        ck_assert_str_eq(o.rootfs, "/c");
        ck_assert_str_eq(o.sys_root, "/s2");
        ck_assert_int_eq(xpu_log_get_level(), XPU_LOG_INFO);
        ck_assert(o.cli.log_level);
        ck_assert_int_eq(PARSE(&o, "-v", "-v", "probe"), 0);
        ck_assert_int_eq(xpu_log_get_level(), XPU_LOG_DEBUG);

        ck_assert_int_eq(PARSE(&o, "--help"), 0);
        ck_assert_int_eq(o.command, XPU_CMD_HELP);
        ck_assert_int_eq(PARSE(&o, "-h"), 0);
        ck_assert_int_eq(o.command, XPU_CMD_HELP);
        ck_assert_int_eq(PARSE(&o, "--version"), 0);
        ck_assert_int_eq(o.command, XPU_CMD_VERSION);
        ck_assert_int_eq(PARSE(&o, "version"), 0);
        ck_assert_int_eq(o.command, XPU_CMD_VERSION);
        ck_assert_int_eq(PARSE(&o, "plan"), 0);
        ck_assert_int_eq(o.command, XPU_CMD_PLAN);
        ck_assert_int_eq(PARSE(&o, "profiles", "--json"), 0);
        ck_assert_int_eq(o.command, XPU_CMD_PROFILES);
        ck_assert_int_eq(PARSE(&o, "--source", "all", "probe"), 0);
        ck_assert_uint_eq(o.sources, XPU_SOURCES_FAST | XPU_SOURCES_RICH);

        ck_assert_int_eq(PARSE(&o, "audit", "--for", "sm_90", "--for", "gfx90a", "--cuda-driver", "12.4", "--fail-on",
                               "override", "--write-index", "/i.json", "/img"),
                         0);
        ck_assert_int_eq(o.command, XPU_CMD_AUDIT);
        ck_assert_uint_eq(o.n_audit_for, 2);
        ck_assert_str_eq(o.audit_for[0], "sm_90");
        ck_assert_str_eq(o.audit_for[1], "gfx90a");
        ck_assert_str_eq(o.cuda_driver, "12.4");
        ck_assert_int_eq(o.fail_on, XPU_CODE_OVERRIDE);
        ck_assert_str_eq(o.write_index, "/i.json");
        ck_assert_str_eq(o.audit_root, "/img");
        ck_assert_int_eq(PARSE(&o, "audit", "--k8s-affinity"), 0);
        ck_assert(o.k8s_affinity);
        ck_assert_str_eq(o.audit_root, "/");
        ck_assert_int_eq(PARSE(&o, "audit", "--fail-on", "ptx-jit"), 0);
        ck_assert_int_eq(o.fail_on, XPU_CODE_PTX_JIT);
        ck_assert_int_eq(PARSE(&o, "audit", "--fail-on", "cannot-run"), 0);
        ck_assert_int_eq(o.fail_on, XPU_CODE_CANNOT_RUN);

        ck_assert_int_eq(PARSE(&o, "cdi", "--output", "/o.yaml", "generate", "--format", "yaml", "--format", "yaml",
                               "--kind", "example.com/gpu", "--host-root", "/host"),
                         0);
        ck_assert_int_eq(o.command, XPU_CMD_CDI);
        ck_assert_str_eq(o.cdi_output, "/o.yaml");
        ck_assert_str_eq(o.cdi_format, "yaml");
        ck_assert_str_eq(o.cdi_kind, "example.com/gpu");
        ck_assert_str_eq(o.cdi_host_root, "/host");
}
END_TEST

/* Each bad command line: exit status 2 and one line naming the input and the fix. */
START_TEST(test_refusals) {
        static const struct {
                const char *args[8];
                const char *msg;
        } cases[] = {
                { { "--inject", "copy", "probe" },
                  "--inject: unknown injection mode \"copy\" (use auto, mount, link or none)" },
                { { "--log-level", "loud", "probe" },
                  "--log-level: unknown log level \"loud\" (use error, warning, info or debug)" },
                { { "--grace", "86401", "probe" },
                  "--grace: grace period \"86401\" is not a whole number of seconds between 0 and 86400" },
                { { "--vendor-timeout", "0", "probe" },
                  "--vendor-timeout: vendor timeout \"0\" is not a whole number of seconds between 1 and 600" },
                { { "--source", "nvml,foo", "probe" },
                  "--source: unknown source list \"nvml,foo\" (use fast, nvml, cuda, rocm_smi or all, comma-separated)" },
                { { "audit", "--for", "sm90x" },
                  "--for: \"sm90x\" is not a GPU target: give sm_XY or X.Y for compute capability X.Y (sm_90, 12.0) "
                  "or an AMD target ID (gfx1031, gfx90a:sramecc-:xnack-)" },
                { { "audit", "--cuda-driver", "12.x" },
                  "--cuda-driver: \"12.x\" is not a CUDA version such as 12.4, 13.0 or 13" },
                { { "audit", "--fail-on", "never" },
                  "--fail-on: unknown level \"never\" (use ptx-jit, override or cannot-run)" },
                { { "cdi", "generate", "--output", "a", "--output", "b" },
                  "--output given twice (\"a\", then \"b\"): give one file" },
                { { "cdi", "generate", "--format", "json", "--format", "yaml" },
                  "--format given twice (json, then yaml): give one" },
                { { "cdi", "generate", "--format", "toml" }, "--format: unknown format \"toml\" (use json or yaml)" },
                { { "cdi", "generate", "--kind", "a/b", "--kind", "c/d" }, "--kind given twice (a/b, then c/d): give one" },
                { { "cdi", "generate", "--host-root", "/a", "--host-root", "/b" },
                  "--host-root given twice (/a, then /b): give one" },
                { { "cdi", "generate", "--host-root", "host" },
                  "--host-root: \"host\" is not an absolute path (give where the host's / is mounted here, e.g. /host)" },
                { { "--sys-root" }, "option --sys-root needs a value; see xpuinit --help" },
                { { "--bogus", "probe" }, "unknown option \"--bogus\"; see xpuinit --help" },
                { { "--pro", "x", "probe" }, "unknown option \"--pro\"; see xpuinit --help" },
                { { "-x", "probe" }, "unknown option \"-x\"; see xpuinit --help" },
                { { NULL }, "no command to run; usage: xpuinit [OPTIONS] -- COMMAND [ARG...]" },
                { { "inject" }, "inject needs --rootfs DIR (the container's root directory)" },
                { { "inject", "--rootfs", "/c", "sh" }, "inject takes no command (got \"sh\")" },
                { { "audit", "/a", "/b" }, "audit takes one ROOT directory (got \"/a\" and \"/b\")" },
                { { "cdi" },
                  "cdi: say what to do: xpuinit cdi generate [--output FILE] [--format json|yaml] [--kind VENDOR/CLASS]" },
                { { "cdi", "make" },
                  "cdi: say what to do: xpuinit cdi generate [--output FILE] [--format json|yaml] "
                  "[--kind VENDOR/CLASS] (got \"make\")" },
                { { "probe", "x" }, "probe takes no arguments (got \"x\")" },
                { { "version", "x" }, "version takes no arguments (got \"x\")" },
                { { "audit", "--k8s-affinity", "--json" },
                  "--k8s-affinity prints YAML for every GPU kind: it takes no --json, --for or --fail-on" },
                { { "probe", "--cuda-driver", "12.4" },
                  "--for, --cuda-driver, --fail-on, --write-index and --k8s-affinity only go with audit" },
                { { "probe", "--kind", "a/b" }, "--output, --format, --kind and --host-root only go with cdi generate" },
                { { "cdi", "generate", "--json" },
                  "cdi generate takes no --json: the spec is JSON unless --format yaml (or an --output named *.yaml) "
                  "says otherwise" },
                { { "probe", "--rootfs", "/c" }, "--rootfs only goes with inject" },
                { { "--user", "root", "probe" }, NULL },
        };
        struct xpu_options o;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const char *args[10] = { 0 };
                for (size_t k = 0; k < ELEMENTSOF(cases[i].args) && cases[i].args[k]; k++)
                        args[k] = cases[i].args[k];
                clear_env();
                ck_assert_msg(parse(&o, args) == XPU_EXIT_USAGE, "case %zu accepted", i);
                if (cases[i].msg)
                        assert_logged(cases[i].msg);
                else
                        ck_assert_msg(strstr(logged, "--user"), "case %zu: \"%s\"", i, logged);
        }
        /* At most XPU_AUDIT_TARGETS_MAX --for. */
        const char *many[2 * XPU_AUDIT_TARGETS_MAX + 4] = { "audit" };
        size_t n = 1;
        for (int k = 0; k <= XPU_AUDIT_TARGETS_MAX; k++) {
                many[n++] = "--for";
                many[n++] = "sm_90";
        }
        ck_assert_int_lt(n, ELEMENTSOF(argv_store) - 1);
        ck_assert_int_eq(parse(&o, many), XPU_EXIT_USAGE);
        assert_logged("--for: at most 16 targets");
}
END_TEST

/* The environment twins: read only where the command line said nothing. */
START_TEST(test_env_twins) {
        struct xpu_options o;
        clear_env();
        setenv("XPUINIT_SYS_ROOT", "/es", 1);
        setenv("XPUINIT_DEV_ROOT", "/ed", 1);
        setenv("XPUINIT_DRIVER_ROOT", "", 1); /* empty: not set */
        setenv("XPUINIT_PROFILE", "ep", 1);
        setenv("XPUINIT_PROFILE_DIR", "/epd", 1);
        setenv("XPU_REQUIRE", "rocm", 1);
        setenv("XPUINIT_INJECT", "none", 1);
        setenv("XPUINIT_LOG_LEVEL", "error", 1);
        setenv("XPUINIT_VENDOR_TIMEOUT", "30", 1);
        setenv("XPUINIT_USER", "7", 1);
        setenv("XPUINIT_DEVICE_CODE", "warn", 1);
        setenv("XPUINIT_DEVICE_CODE_INDEX", "/idx.json", 1);
        setenv("XPUINIT_GRACE", "0", 1);
        setenv("XPUINIT_GROUP", "true", 1);
        setenv("XPUINIT_EXEC", "1", 1);
        ck_assert_int_eq(PARSE(&o, "probe"), 0);
        ck_assert_int_eq(env(&o), 0);
        ck_assert_str_eq(o.sys_root, "/es");
        ck_assert_str_eq(o.dev_root, "/ed");
        ck_assert_ptr_null(o.driver_root);
        ck_assert_str_eq(o.profile, "ep");
        ck_assert_str_eq(o.profile_dir, "/epd");
        ck_assert(o.profile_dir_set && !o.cli.profile_dir);
        ck_assert_str_eq(o.require, "rocm");
        ck_assert_int_eq(o.inject, XPU_INJECT_NONE);
        ck_assert_int_eq(xpu_log_get_level(), XPU_LOG_ERROR);
        ck_assert_uint_eq(o.vendor_timeout, 30);
        ck_assert(o.user_set && !o.cli.user);
        ck_assert_uint_eq(o.uid, 7);
        ck_assert_uint_eq(o.gid, 7);
        ck_assert(o.device_code_set);
        ck_assert_int_eq(o.device_code, XPU_DEVICE_CODE_WARN);
        ck_assert_str_eq(o.device_code_index, "/idx.json");
        ck_assert_uint_eq(o.grace, 0);
        ck_assert(o.group && o.exec);

        /* The command line wins, even where it gives the default or an empty value. */
        ck_assert_int_eq(PARSE(&o, "--sys-root", "", "--dev-root", "/cd", "--profile", "cp", "--profile-dir", "/cpd",
                               "--require", "cuda", "--inject", "auto", "--log-level", "warning", "--vendor-timeout",
                               "10", "--user", "9:9", "--grace", "10", "-g", "--exec", "probe"),
                         0);
        setenv("XPUINIT_GROUP", "0", 1);
        setenv("XPUINIT_EXEC", "false", 1);
        ck_assert_int_eq(env(&o), 0);
        ck_assert_str_eq(o.sys_root, "");
        ck_assert_str_eq(o.dev_root, "/cd");
        ck_assert_str_eq(o.profile, "cp");
        ck_assert_str_eq(o.profile_dir, "/cpd");
        ck_assert_str_eq(o.require, "cuda");
        ck_assert_int_eq(o.inject, XPU_INJECT_AUTO);
        ck_assert_int_eq(xpu_log_get_level(), XPU_LOG_WARNING);
        ck_assert_uint_eq(o.vendor_timeout, 10);
        ck_assert_uint_eq(o.uid, 9);
        ck_assert_uint_eq(o.grace, 10);
        ck_assert(o.group && o.exec);
        /* -v is the command line's log level too. */
        ck_assert_int_eq(PARSE(&o, "-v", "probe"), 0);
        ck_assert_int_eq(env(&o), 0);
        ck_assert_int_eq(xpu_log_get_level(), XPU_LOG_INFO);
        /* Without -g/--exec the variables count, false included; an empty one is false. */
        ck_assert_int_eq(PARSE(&o, "probe"), 0);
        o.group = o.exec = true;
        setenv("XPUINIT_EXEC", "", 1);
        ck_assert_int_eq(env(&o), 0);
        ck_assert(!o.group && !o.exec);
}
END_TEST

/* A bad variable: -EINVAL and one line naming it; the first bad one in reading order is named. */
START_TEST(test_env_refusals) {
        static const struct {
                const char *name, *value, *msg;
        } cases[] = {
                { "XPUINIT_INJECT", "copy", "XPUINIT_INJECT: unknown injection mode \"copy\" (use auto, mount, link or none)" },
                { "XPUINIT_LOG_LEVEL", "loud",
                  "XPUINIT_LOG_LEVEL: unknown log level \"loud\" (use error, warning, info or debug)" },
                { "XPUINIT_VENDOR_TIMEOUT", "601",
                  "XPUINIT_VENDOR_TIMEOUT: vendor timeout \"601\" is not a whole number of seconds between 1 and 600" },
                { "XPUINIT_DEVICE_CODE", "maybe",
                  "XPUINIT_DEVICE_CODE: unknown mode \"maybe\" (use enforce, apply, warn or off)" },
                { "XPUINIT_GRACE", "-1",
                  "XPUINIT_GRACE: grace period \"-1\" is not a whole number of seconds between 0 and 86400" },
                { "XPUINIT_GROUP", "yes please", "XPUINIT_GROUP: \"yes please\" is not a boolean (use 1/0, true/false)" },
                { "XPUINIT_EXEC", "maybe", "XPUINIT_EXEC: \"maybe\" is not a boolean (use 1/0, true/false)" },
                { "XPUINIT_USER", "nobody", NULL },
        };
        struct xpu_options o;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                clear_env();
                setenv(cases[i].name, cases[i].value, 1);
                ck_assert_int_eq(PARSE(&o, "probe"), 0);
                ck_assert_msg(env(&o) == -EINVAL, "%s=%s accepted", cases[i].name, cases[i].value);
                if (cases[i].msg)
                        assert_logged(cases[i].msg);
                else
                        ck_assert_msg(strstr(logged, cases[i].name), "%s: \"%s\"", cases[i].name, logged);
        }
        /* Two bad ones: the first in reading order. */
        clear_env();
        setenv("XPUINIT_GRACE", "x", 1);
        setenv("XPUINIT_INJECT", "x", 1);
        setenv("XPUINIT_EXEC", "x", 1);
        ck_assert_int_eq(PARSE(&o, "probe"), 0);
        ck_assert_int_eq(env(&o), -EINVAL);
        assert_logged("XPUINIT_INJECT: unknown injection mode \"x\" (use auto, mount, link or none)");
        clear_env();
        setenv("XPUINIT_GRACE", "x", 1);
        setenv("XPUINIT_DEVICE_CODE", "x", 1);
        ck_assert_int_eq(PARSE(&o, "probe"), 0);
        ck_assert_int_eq(env(&o), -EINVAL);
        assert_logged("XPUINIT_DEVICE_CODE: unknown mode \"x\" (use enforce, apply, warn or off)");
        /* A bad variable the command line overrides is not read. */
        clear_env();
        setenv("XPUINIT_GRACE", "x", 1);
        setenv("XPUINIT_EXEC", "x", 1);
        ck_assert_int_eq(PARSE(&o, "--grace", "1", "--exec", "probe"), 0);
        ck_assert_int_eq(env(&o), 0);
        clear_env();
}
END_TEST

/* The help text is part of the interface (docs/man/xpuinit.8 quotes it): its first and last lines. */
START_TEST(test_usage) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        ck_assert_ptr_nonnull(f);
        xpu_options_usage(f);
        fclose(f);
        ck_assert(strncmp(buf, "Usage:\n  xpuinit [OPTIONS] [--] COMMAND [ARG...]   probe, select, inject, run COMMAND\n",
                          strlen("Usage:\n  xpuinit [OPTIONS] [--] COMMAND [ARG...]   probe, select, inject, run COMMAND\n")) == 0);
        ck_assert_ptr_nonnull(strstr(buf, "  --sys-root DIR      XPUINIT_SYS_ROOT     prefix for /sys and /proc reads (default /)\n"));
        ck_assert_ptr_nonnull(strstr(buf, "executable; 127 not found; 2 usage error.\n"));
        free(buf);
}
END_TEST

/* --source names: the sets, and each source by its name in the one list (xpu_source_to_string());
 * a fast source names the whole fast path. */
START_TEST(test_sources) {
        const uint32_t fast = XPU_SOURCES_FAST, nvml = XPU_SOURCE_BIT(XPU_SOURCE_NVML),
                       cuda = XPU_SOURCE_BIT(XPU_SOURCE_CUDA), rocm = XPU_SOURCE_BIT(XPU_SOURCE_ROCM_SMI);
        ck_assert_int_eq(xpu_options_parse_sources("fast"), (int)fast);
        ck_assert_int_eq(xpu_options_parse_sources("all"), (int)(fast | XPU_SOURCES_RICH));
        ck_assert_int_eq(xpu_options_parse_sources("procfs"), (int)fast);
        ck_assert_int_eq(xpu_options_parse_sources("sysfs"), (int)fast);
        ck_assert_int_eq(xpu_options_parse_sources("nvml"), (int)nvml);
        ck_assert_int_eq(xpu_options_parse_sources("cuda"), (int)cuda);
        ck_assert_int_eq(xpu_options_parse_sources("rocm_smi"), (int)rocm);
        ck_assert_int_eq(xpu_options_parse_sources("nvml,rocm_smi,cuda"), (int)(nvml | rocm | cuda));
        ck_assert_int_eq(xpu_options_parse_sources("fast,nvml"), (int)(fast | nvml));
        ck_assert_int_eq(XPU_SOURCES_RICH, nvml | cuda | rocm);
        static const char *const bad[] = { "", "nvm", "nvmlx", "NVML", "nvml,", ",nvml", "nvml,,cuda", "rocm" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(xpu_options_parse_sources(bad[i]) == -EINVAL, "\"%s\"", bad[i]);
        ck_assert_int_eq(xpu_options_parse_sources(NULL), -EINVAL);
}
END_TEST

static Suite *options_suite(void) {
        Suite *s = suite_create("options");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_defaults);
        tcase_add_test(tc, test_every_option);
        tcase_add_test(tc, test_refusals);
        tcase_add_test(tc, test_env_twins);
        tcase_add_test(tc, test_env_refusals);
        tcase_add_test(tc, test_usage);
        tcase_add_test(tc, test_sources);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(options_suite());
}
