/* SPDX-License-Identifier: Apache-2.0 */
/* xpuinit: command line and the top-level flow
 * probe → select → gather → plan → check → apply → drop privileges → exec (docs/architecture.md). */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "sandbox/privilege.h"
#include "sandbox/seccomp.h"
#include "base/signals.h"
#include "base/strv.h"
#include "audit.h"
#include "cdi.h"
#include "device-code-verdict.h"
#include "gather.h"
#include "options.h"
#include "pci-ids.h"
#include "init.h"
#include "inventory-json.h"
#include "plan.h"
#include "planner.h"
#include "privileges.h"
#include "probe.h"
#include "profile.h"
#include "render.h"
#include "require-start.h"
#include "rich-facts.h"
#include "select.h"
#include "vendor.h"
#include "stop.h"
#include "version.h"
#include "base/str.h"
#include "base/path.h"

#define EXIT_SETUP 125 /* xpuinit failed before the workload started */

extern char **environ;

/* CAP_SYS_ADMIN in the effective set: mounts are permitted (--inject auto). */
static bool can_mount(void) {
        uint64_t effective = 0;
        return xpu_capability_current(&effective, NULL, NULL) == 0 && (effective & XPU_CAP_BIT(CAP_SYS_ADMIN));
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
        struct xpu_seccomp_program *seccomp;            /* the plan's filter, built with the plan */
        unsigned vendor_timeout;                        /* --vendor-timeout, seconds */
        uint32_t rich_sources;                          /* rich sources read so far */
        struct xpu_rich_report reports[_XPU_SOURCE_MAX]; /* their outcomes */
};

static void context_done(struct context *c) {
        xpu_roots_close(&c->roots);
        xpu_inventory_free(c->inv);
        xpu_profile_set_free(c->profiles);
        xpu_selection_free(c->sel);
        c->seccomp = xpu_seccomp_free(c->seccomp);
        if (c->container_fd >= 0)
                close(c->container_fd);
}

static int context_probe(struct context *c, const struct xpu_options *opts) {
        const char *which = NULL;
        /* The fast path reads only the sys and dev roots; the driver root follows the probe, but
         * one given is read by it (WSL2's driver store is in the driver root, probes/wsl.h). */
        int r = xpu_roots_open(&c->roots, opts->sys_root, opts->dev_root, opts->driver_root ? opts->driver_root : "/",
                               &which);
        if (r < 0 && which && !strcmp(which, "driver")) {
                log_error("cannot open the driver root \"%s\": %s; check --driver-root", opts->driver_root,
                          strerror(-r));
                return -r;
        }
        if (r < 0) {
                bool sys = which && !strcmp(which, "sys");
                log_error("cannot open the %s root \"%s\": %s; check --%s-root", sys ? "sys" : "dev",
                          (sys ? opts->sys_root : opts->dev_root) ? (sys ? opts->sys_root : opts->dev_root) : "/",
                          strerror(-r), sys ? "sys" : "dev");
                return -r;
        }
        r = xpu_inventory_probe(&c->roots, &c->inv);
        if (r < 0) {
                log_error("probing failed: %s", strerror(-r));
                return -r;
        }
        for (size_t i = 0; i < c->inv->n_warnings; i++)
                xpu_log_escaped(XPU_LOG_WARNING, c->inv->warnings[i]);
        const char *why = NULL;
        const char *driver_root = xpu_options_driver_root(opts, c->inv, &why);
        log_debug("sys root %s, dev root %s", c->roots.sys, c->roots.dev);
        log_info("driver root %s (%s)", driver_root, why);
        if (strcmp(driver_root, c->roots.driver) != 0) {
                int fd = xpu_open_root(driver_root);
                if (fd < 0) {
                        log_error("cannot open the driver root \"%s\": %s; check --driver-root", driver_root,
                                  strerror(-fd));
                        return -fd;
                }
                close(c->roots.driver_fd);
                c->roots.driver_fd = fd;
                xpu_strlcpy(c->roots.driver, driver_root, sizeof c->roots.driver);
                size_t seen = c->inv->n_warnings;
                if ((r = xpu_inventory_driver_root_facts(&c->roots, c->inv)) < 0) {
                        log_error("probing failed: %s", strerror(-r));
                        return -r;
                }
                for (size_t i = seen; i < c->inv->n_warnings; i++)
                        xpu_log_escaped(XPU_LOG_WARNING, c->inv->warnings[i]);
        }
        /* Names the kernel drivers do not give (an AMD GPU without a FRU product_name) from the
         * host's PCI ID database, for what is shown; a start does not need them. */
        if (opts->command != XPU_CMD_RUN && opts->command != XPU_CMD_INJECT) {
                r = xpu_inventory_name_from_pci_ids(c->inv, c->roots.driver_fd);
                if (r < 0)
                        log_warning("PCI ID database under %s: %s; device names left out", c->roots.driver, strerror(-r));
        }
        return 0;
}

/* Log what the rich backends of SOURCES did: warnings added since warning BEFORE, one info line
 * per backend, and for a timeout how to give a slow library more time. */
static void log_rich(const struct context *c, uint32_t sources, size_t before) {
        for (size_t i = before; i < c->inv->n_warnings; i++)
                xpu_log_escaped(XPU_LOG_WARNING, c->inv->warnings[i]);
        const struct xpu_rich_ops *ops;
        for (size_t i = 0; (ops = xpu_rich_backend_at(i)); i++) {
                const struct xpu_rich_report *rep = &c->reports[ops->source];
                if (!(sources & XPU_SOURCE_BIT(ops->source)))
                        continue;
                if (!rep->ran)
                        log_debug("%s: %s", xpu_source_to_string(ops->source), rep->message);
                else if (rep->error == 0)
                        log_info("%s: %d device(s) matched in %.1f ms", xpu_source_to_string(ops->source),
                                 rep->matched, (double)rep->elapsed_us / 1000.0);
                else if (rep->error == -ETIMEDOUT)
                        log_info("%s: if the library is only slow (NVML without persistence mode can take "
                                 "seconds), raise --vendor-timeout (now %u s)",
                                 xpu_source_to_string(ops->source), c->vendor_timeout);
        }
}

/* The rich path (probes/rich.h): read what --source asks (EXPLICIT) and, as alternatives per
 * vendor, what the requirements need (NEEDED), each source once; merge into the inventory. A
 * failing vendor library is a warning; the fast-path inventory stays. */
static int context_rich(struct context *c, uint32_t explicit, uint32_t needed) {
        explicit &= XPU_SOURCES_RICH & ~c->rich_sources;
        needed &= XPU_SOURCES_RICH & ~c->rich_sources & ~explicit;
        size_t before = c->inv->n_warnings;
        int r = 0;
        if (explicit)
                r = xpu_rich_probe(&c->roots, c->inv, explicit, c->vendor_timeout * 1000u, c->reports, NULL);
        if (r >= 0 && needed)
                r = xpu_rich_probe_first(&c->roots, c->inv, needed, c->vendor_timeout * 1000u, c->reports);
        if (r < 0) {
                log_error("rich probing failed: %s", strerror(-r));
                return r;
        }
        c->rich_sources |= explicit | needed;
        /* A termination signal ended a helper (or kept it from starting): the start is called
         * off, so there is nothing to report about the libraries. */
        if ((explicit | needed) && xpu_stop_pending())
                return -EINTR;
        log_rich(c, explicit | needed, before);
        return 0;
}

/* For audit's device-code targets: the facts the fast path does not read (an NVIDIA GPU's
 * compute capability, the CUDA version), from whichever library reader of the vendors'
 * code_target_sources answers. */
static int code_target_facts(struct context *c) {
        uint32_t sources = 0;
        for (int v = 0; v < _XPU_VENDOR_MAX; v++)
                sources |= xpu_vendors[v]->code.target_sources;
        return context_rich(c, 0, sources);
}

/* For `cdi generate`: the MIG devices' UUIDs, names of their own in the spec, only NVML knows;
 * read it when the fast path found MIG devices (a warning, not a failure, when it cannot). */
static int cdi_read_mig_uuids(struct context *c) {
        for (size_t i = 0; i < c->inv->n_devices; i++)
                if (xpu_mig_count(&c->inv->devices[i]) > 0)
                        return context_rich(c, 0, XPU_SOURCE_BIT(XPU_SOURCE_NVML));
        return 0;
}

static int context_select(struct context *c, const struct xpu_options *opts) {
        char err[4096]; /* a selection error lists every device */
        err[0] = '\0';
        struct stat st;
        if (opts->profile_dir_set && stat(opts->profile_dir, &st) < 0)
                log_warning("profile directory %s: %s; only the built-in profiles are used", opts->profile_dir,
                            strerror(errno));
        log_debug("profile directory %s", opts->profile_dir);
        int r = xpu_profile_set_load(opts->profile_dir, &c->profiles, err, sizeof err);
        if (r < 0) {
                log_error("%s", err[0] ? err : strerror(-r));
                return r;
        }
        /* --require/XPU_REQUIRE and the image's NVIDIA_REQUIRE_*, parsed once; checked below. */
        _cleanup_(xpu_require_start_done) struct xpu_require_start reqs = { 0 };
        if ((r = xpu_require_start_parse(opts->require, environ, &reqs)) < 0) {
                log_error("requirements: %s", strerror(-r));
                return r;
        }
        struct xpu_selection_env env;
        xpu_selection_env_read(c->inv, &env);
        /* The vendor libraries only when asked (--source) or for facts the fast path lacks, decided
         * once and read in one helper run: the requirements' (a vendor's libraries are alternatives)
         * and a MIG device's UUID, which only NVML knows (NVML is its vendor's first alternative, so
         * joining it reads what a read of each would). Nothing the fast path can answer. */
        uint32_t needed = xpu_require_start_sources(c->profiles, &reqs);
        if (xpu_selection_env_names_mig_uuid(&env))
                needed |= XPU_SOURCE_BIT(XPU_SOURCE_NVML);
        r = context_rich(c, opts->sources, needed);
        if (r < 0)
                return r;
        /* WSL2: an index or UUID names one of the GPUs only the rich path counts */
        if ((r = context_rich(c, 0, xpu_selection_env_wsl_sources(c->inv, &env))) < 0)
                return r;
        r = xpu_selection_parse_env(c->inv, &env, &c->sel, err, sizeof err);
        if (r < 0) {
                log_error("%s", err[0] ? err : strerror(-r));
                return r;
        }
        if (opts->profile) {
                c->profile = xpu_profile_set_find(c->profiles, opts->profile);
                if (!c->profile) {
                        log_error("profile \"%s\" (--profile/XPUINIT_PROFILE) does not exist; `xpuinit profiles` "
                                  "lists them",
                                  opts->profile);
                        return -ENOENT;
                }
                /* A forced profile is used even when its match.require fails; the warning says why. */
                char why[1024];
                if (!xpu_profile_matches(c->profile, c->inv, c->sel->selected, why, sizeof why))
                        log_warning("profile \"%s\" is forced although it would not be chosen (%s)", opts->profile, why);
        } else {
                c->profile = xpu_profile_select(c->profiles, c->inv, c->sel->selected);
                if (!c->profile) {
                        log_error("no profile matches this host and no cpu profile exists; add one to %s",
                                  opts->profile_dir);
                        return -ENOENT;
                }
        }
        return xpu_require_check_start(c->inv, c->sel, c->profile, &reqs, opts->command == XPU_CMD_PROFILES);
}

static void plan_freep(struct xpu_plan **p) {
        xpu_plan_free(*p);
}

/* The device-code check's facts, read before gather (device-code.h): the mode in effect, the
 * image's index, and which vendor libraries its verdict needs. */
static int context_device_code(struct context *c, const struct xpu_options *opts,
                               struct xpu_device_code_facts *dc) {
        const struct xpu_device_code_setting s = {
                .mode = opts->device_code, .mode_set = opts->device_code_set, .index = opts->device_code_index
        };
        int r = xpu_device_code_read(&s, c->profile, c->inv, c->sel, dc);
        if (r < 0)
                log_error("device code: %s", strerror(-r));
        return r;
}

/* Rich facts: those the plan reads (rich-facts.h: forward compatibility's and the device-code
 * check's DC), read in one run of the vendor libraries; then what the plan reads of them:
 * forward_compat.require checked, the placeholders' values (O->library_dir) and, for DC, the
 * device-code verdict into *VERDICT (SHOW: `plan`'s wording). The inventory is frozen after
 * this. A library the check alone asked for that fails is a warning (its verdict says what is
 * unknown); -EINTR: a stop was asked for while it ran. */
static int context_rich_facts(struct context *c, struct xpu_plan_facts *facts, const struct xpu_plan_options *o,
                              const struct xpu_device_code_facts *dc, bool show,
                              struct xpu_device_code_outcome *verdict) {
        uint32_t required;
        int r = context_rich(c, 0, xpu_rich_facts_sources(facts, c->inv, c->profile, dc, &required));
        if (r == -EINTR || (r < 0 && required))
                return r;
        r = xpu_rich_facts_forward_compat(facts, c->inv, c->sel, c->profile);
        if (r >= 0)
                r = xpu_rich_facts_placeholders(facts, c->inv, c->sel, c->profile, o->library_dir);
        if (r >= 0 && dc)
                r = xpu_device_code_verdict(dc, c->inv, c->sel, c->profile, o->envp,
                                            (const char *const *)facts->placeholders, show, verdict);
        if (r == -ENOMEM)
                log_error("out of memory while gathering the plan's facts");
        else if (r < 0) /* a placeholder the profile's parser refuses: not reached */
                log_error("profile \"%s\" (%s): env: %s", c->profile->name, c->profile->origin, strerror(-r));
        return r;
}

/* Check: the device-code verdict V (judged before the plan), logged as the check decided.
 * Returns -EINVAL when it refuses the start. */
static int check_device_code(const struct xpu_device_code_outcome *v) {
        if (v->message && v->log == XPU_DEVICE_CODE_LOG_ERROR)
                log_error("%s", v->message);
        else if (v->message && v->log == XPU_DEVICE_CODE_LOG_WARNING)
                log_warning("%s", v->message);
        else if (v->message && v->log == XPU_DEVICE_CODE_LOG_INFO)
                log_info("%s", v->message);
        if (v->hint_unknown)
                log_info("device code: `xpuinit probe --source all` shows why NVML or libcuda gave no compute capability");
        return v->refuse ? -EINVAL : 0;
}

/* Needs: what the plan needs, decided before anything is read for it (needs.h): *O gets the
 * plan's options (ARGV the workload's; the container root opened), *NEEDS what they and the
 * profile ask for. */
static int context_needs(struct context *c, char **argv, enum xpu_inject_mode inject, struct xpu_plan_options *o,
                         struct xpu_plan_needs *needs) {
        const char *caps_var = "XPU_DRIVER_CAPABILITIES";
        const char *caps = secure_getenv(caps_var);
        /* Then each vendor's toolkit's variable (its descriptor's plan.capabilities_variable). */
        for (int v = 0; !caps && v < _XPU_VENDOR_MAX; v++)
                if (xpu_vendors[v]->plan.capabilities_variable)
                        caps = secure_getenv((caps_var = xpu_vendors[v]->plan.capabilities_variable));
        c->container_fd = xpu_open_root(c->container_path);
        if (c->container_fd < 0) {
                log_error("cannot open the container root \"%s\": %s", c->container_path, strerror(-c->container_fd));
                return c->container_fd;
        }
        *o = (struct xpu_plan_options){
                .inject = inject,
                .can_mount = can_mount(),
                .driver_root = c->roots.driver,
                .driver_fd = c->roots.driver_fd,
                .container_fd = c->container_fd,
                .dev_fd = c->roots.dev_fd,
                .sys_fd = c->roots.sys_fd,
                .capabilities_env = caps,
                .capabilities_var = caps_var,
                .envp = environ,
                .argv = argv,
                .from_outside = strcmp(c->container_path, "/") != 0,
        };
        int r = xpu_plan_needs(c->sel, c->profile, o, needs);
        if (r < 0)
                log_error("out of memory while gathering the plan's facts");
        return r;
}

/* Gather: what the plan needs from the driver, dev and container roots (O), as NEEDS names it,
 * read once (gather.h; the facts take NEEDS over). */
static int context_gather(struct context *c, const struct xpu_plan_options *o, struct xpu_plan_needs *needs,
                          struct xpu_plan_facts **ret) {
        char err[1024];
        err[0] = '\0';
        _cleanup_(xpu_plan_facts_freep) struct xpu_plan_facts *facts = NULL;
        int r = xpu_plan_gather(c->inv, c->sel, c->profile, o, needs, &facts, err, sizeof err);
        if (r == -EINTR)
                return r; /* a stop: run() says so */
        if (r < 0) {
                log_error("%s", err[0] ? err : strerror(-r));
                return r;
        }
        *ret = TAKE_PTR(facts);
        return 0;
}

/* Plan: the plan built from FACTS (reading nothing itself); then, for a start or `plan`, the
 * workload's privileges and its seccomp filter. */
static int context_plan(struct context *c, const struct xpu_options *opts, const struct xpu_plan_facts *facts,
                        const struct xpu_plan_options *o,
                        struct xpu_plan **ret) {
        char err[1024];
        err[0] = '\0';
        int r = xpu_plan_build(c->inv, c->sel, c->profile, facts, o, ret, err, sizeof err);
        if (r < 0) {
                log_error("%s", err[0] ? err : strerror(-r));
                return r;
        }
        if (opts->command == XPU_CMD_INJECT)
                return 0; /* no workload: no privilege to plan, no filter to build */
        r = xpu_plan_privilege(c->profile, opts->user_set, opts->uid, opts->gid, *ret);
        if (r < 0) {
                *ret = xpu_plan_free(*ret);
                return r;
        }
        /* The filter is compiled now, a file spec read inside the container root: a bad one
         * fails `plan` too, and nothing is left to parse or allocate when it is loaded. */
        r = xpu_seccomp_build((*ret)->seccomp, c->container_fd, &c->seccomp, err, sizeof err);
        if (r < 0) {
                log_error("profile \"%s\" (%s): seccomp: %s", c->profile->name, c->profile->origin,
                          err[0] ? err : strerror(-r));
                *ret = xpu_plan_free(*ret);
                return r;
        }
        return xpu_plan_warn_seccomp(*ret, c->seccomp);
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

/* Apply: log what the plan says, then its operations, mounts in a mount namespace of its own.
 * *ROOTS gets where it was applied and RECORD what each operation made (for an undo when a stop
 * comes). Returns 0, a stop's status, or EXIT_SETUP after logging. */
static int context_apply(struct context *c, const struct xpu_plan *p, struct xpu_apply_roots *roots,
                         struct xpu_apply_record *record) {
        log_info("profile %s (%s); %zu device(s); inject %s", p->profile->name, p->profile->origin, p->n_devices,
                 xpu_inject_mode_to_string(p->inject));
        for (size_t i = 0; i < p->n_notes; i++)
                log_info("%s", p->notes[i]);
        for (size_t i = 0; i < p->n_warnings; i++)
                log_warning("%s", p->warnings[i]);
        /* Asked to stop already: nothing is applied. */
        int stop = p->n_ops > 0 ? xpu_stop_requested() : 0;
        if (stop)
                return stop;
        char err[1024];
        err[0] = '\0';
        /* Mounts go into a mount namespace of our own (propagation: host to us only), so nothing
         * leaks to the host or the runtime's namespace, and they vanish with the workload. */
        if (xpu_plan_mounts(p)) {
                if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0) {
                        log_error("cannot make a private mount namespace for the injected files: %s; use --inject "
                                  "link",
                                  strerror(errno));
                        return EXIT_SETUP;
                }
                /* Descriptors opened before point into the old namespace, which is torn down with
                 * its mounts (/dev of the container among them) now that no process is in it. */
                if (reopen_roots(c) < 0)
                        return EXIT_SETUP;
        }
        *roots = (struct xpu_apply_roots){
                .container_fd = c->container_fd,
                .container_path = "/",
                .driver_fd = c->roots.driver_fd,
                .dev_fd = c->roots.dev_fd,
                .dev_path = c->roots.dev,
                .record = record,
        };
        if (xpu_plan_apply(p, roots, false, err, sizeof err) < 0) {
                log_error("%s", err);
                return EXIT_SETUP;
        }
        if (p->files)
                log_info("injected %zu driver file(s) into %s", p->files->n, p->library_dir);
        return 0;
}

/* What xpuinit read for the plan, not needed once it is applied: freed before the workload
 * starts (its descriptors are closed by the privileged sequence, after the stop check). */
static void context_free_facts(struct context *c) {
        xpu_inventory_free(c->inv);
        xpu_profile_set_free(c->profiles);
        xpu_selection_free(c->sel);
        c->inv = NULL;
        c->profiles = NULL;
        c->sel = NULL;
        c->profile = NULL;
}

/* Start the workload: probe → select → gather → plan → check (device code) → apply → drop
 * privileges → exec (docs/architecture.md). The privileged sequence and the why of its order are
 * in privileges.c; the cap_t and the filters are prepared before the clone, so the child
 * allocates nothing. */
static int run(struct context *c, const struct xpu_options *opts) {
        if (context_probe(c, opts) != 0 || context_select(c, opts) < 0)
                return xpu_stop_requested() ?: EXIT_SETUP;
        xpu_selection_warn_not_given(c->inv, c->sel, c->roots.dev);
        log_no_devices(c->inv);
        _cleanup_(plan_freep) struct xpu_plan *p = NULL;
        c->container_path = "/";
        struct xpu_plan_options o;
        _cleanup_(xpu_device_code_facts_done) struct xpu_device_code_facts dc = { 0 };
        _cleanup_(xpu_plan_needs_done) struct xpu_plan_needs needs = { 0 };
        _cleanup_(xpu_plan_facts_freep) struct xpu_plan_facts *facts = NULL;
        if (context_device_code(c, opts, &dc) < 0 || context_needs(c, opts->argv, opts->inject, &o, &needs) < 0)
                return EXIT_SETUP;
        int r = context_gather(c, &o, &needs, &facts);
        if (r < 0)
                return r == -EINTR ? (xpu_stop_requested() ?: EXIT_SETUP) : EXIT_SETUP;
        _cleanup_(xpu_device_code_outcome_clear) struct xpu_device_code_outcome verdict = { 0 };
        r = context_rich_facts(c, facts, &o, &dc, false, &verdict);
        if (r < 0)
                return r == -EINTR ? (xpu_stop_requested() ?: EXIT_SETUP) : EXIT_SETUP;
        o.device_code = &verdict;
        if (context_plan(c, opts, facts, &o, &p) < 0 || check_device_code(&verdict) < 0)
                return EXIT_SETUP;
        facts = xpu_plan_facts_free(facts); /* the plan owns what it took from them */
        xpu_device_code_facts_done(&dc);     /* (the index's objects: not kept while the workload runs) */
        xpu_device_code_outcome_clear(&verdict); /* (the plan holds its line) */
        struct xpu_apply_roots roots;
        _cleanup_(xpu_apply_record_done) struct xpu_apply_record record = { 0 };
        int stop = context_apply(c, p, &roots, &record);
        if (stop)
                return stop;
        context_free_facts(c);
        _cleanup_(xpu_start_privileges_done) struct xpu_start_privileges sp = XPU_START_PRIVILEGES_INIT;
        const struct xpu_start_own own = {
                .applied = &roots,
                .fds = { &c->container_fd, &c->roots.sys_fd, &c->roots.dev_fd, &c->roots.driver_fd },
        };
        stop = xpu_start_privileges(&sp, p, TAKE_PTR(c->seccomp), &own, opts->exec);
        if (stop)
                return stop > 0 ? stop : EXIT_SETUP;
        struct xpu_supervise_options so = {
                .group = opts->group,
                .grace_seconds = opts->grace,
                .privilege = &sp.workload,
                .supervisor_privilege = opts->exec ? NULL : &sp.supervisor,
        };
        return opts->exec ? xpu_exec_workload(p->argv, p->env, &so) : xpu_supervise(p->argv, p->env, &so);
}

/* probe --source with one library and not the fast path: that library's own view. */
static int probe_one_source(struct context *c, const struct xpu_options *opts, const struct xpu_rich_ops *ops) {
        struct xpu_rich_report rep = { .source = ops->source };
        void *result = NULL;
        const struct xpu_vendor_info *vi = &c->inv->vendors[ops->vendor];
        const char *name = xpu_source_to_string(ops->source);
        if (!vi->driver_loaded) {
                /* The library would only fail inside (rsmi_init status 8, NVML "Driver Not Loaded"). */
                snprintf(rep.message, sizeof rep.message, "skipped: no %s kernel driver loaded (looked for %s)",
                         xpu_vendor_to_string(ops->vendor), vi->looked_for[0] ? vi->looked_for : "its kernel driver");
        } else if (xpu_rich_read(ops, &c->roots, c->inv, c->vendor_timeout * 1000u, &result, &rep) == -ENOMEM) {
                log_error("%s: %s", name, strerror(ENOMEM));
                return EXIT_SETUP;
        }
        int r = 0;
        if (opts->json)
                r = xpu_render_source_json(ops, result, &rep, stdout);
        else if (result)
                xpu_render_source_text(ops, result, &rep, stdout);
        if (result) {
                free(result);
                return r < 0 ? EXIT_SETUP : 0;
        }
        log_error("%s: %s", name, rep.message);
        if (rep.error == -ETIMEDOUT)
                log_info("%s: raise --vendor-timeout (now %u s) if the library is only slow", name, c->vendor_timeout);
        return EXIT_SETUP;
}

static int cmd_probe(struct context *c, const struct xpu_options *opts) {
        if (context_probe(c, opts) != 0)
                return EXIT_SETUP;
        uint32_t rich = opts->sources & XPU_SOURCES_RICH;
        if (!(opts->sources & XPU_SOURCES_FAST) && rich && !(rich & (rich - 1))) {
                const struct xpu_rich_ops *ops;
                for (size_t i = 0; (ops = xpu_rich_backend_at(i)); i++)
                        if (rich == XPU_SOURCE_BIT(ops->source))
                                return probe_one_source(c, opts, ops);
        }
        if (context_rich(c, rich, 0) < 0)
                return EXIT_SETUP;
        if (opts->json)
                return xpu_render_inventory_json(c->inv, c->reports, rich, stdout) < 0 ? EXIT_SETUP : 0;
        xpu_render_inventory_text(c->inv, c->reports, rich, stdout);
        return 0;
}

/* audit: the --for targets, else this host's GPUs (with the rich path for NVIDIA's compute
 * capabilities, which the fast path does not read). */
static int cmd_audit(struct context *c, const struct xpu_options *opts) {
        struct xpu_code_target t[XPU_DEVICE_CODE_TARGETS_MAX];
        size_t n = 0, unknown;
        int cuda = opts->cuda_driver ? xpu_version_parse_cuda(opts->cuda_driver) : 0;
        for (size_t i = 0; i < opts->n_audit_for && n < ELEMENTSOF(t); i++)
                n += xpu_code_target_parse(opts->audit_for[i], &t[n]) == 0;
        if (!opts->n_audit_for && !opts->k8s_affinity) {
                if (context_probe(c, opts) != 0 ||
                    (xpu_device_code_targets_missing(c->inv, NULL, 0) && code_target_facts(c) < 0))
                        return EXIT_SETUP;
                n = xpu_device_code_targets(c->inv, NULL, 0, t, ELEMENTSOF(t), &unknown);
                cuda = cuda ?: xpu_device_code_cuda_driver(c->inv);
        }
        if (opts->fail_on >= 0 && n == 0) {
                log_error("audit --fail-on: no GPU to judge (this host has none); name the GPUs the image must run on "
                          "with --for (sm_90, gfx942)");
                return XPU_EXIT_USAGE;
        }
        const struct xpu_audit_options ao = {
                .audit_root = opts->audit_root,
                .fail_on = opts->fail_on,
                .json = opts->json,
                .k8s_affinity = opts->k8s_affinity,
                .write_index = opts->write_index,
        };
        return xpu_audit_run(&ao, t, n, cuda, environ, stdout);
}

static int cmd_profiles(struct context *c, const struct xpu_options *opts) {
        if (context_probe(c, opts) != 0 || context_select(c, opts) < 0)
                return EXIT_SETUP;
        int r = opts->json ? xpu_render_profiles_json(c->profiles, c->inv, c->sel, c->profile, stdout)
                         : xpu_render_profiles_text(c->profiles, c->inv, c->sel, c->profile, stdout);
        return r < 0 ? EXIT_SETUP : 0;
}

static int cmd_plan(struct context *c, const struct xpu_options *opts, bool inject) {
        if (inject) { /* a host-side hook: an image's LD_PRELOAD must not get here (docs/safe-paths.md) */
                char err[1024];
                int rfd = xpu_open_root(opts->rootfs);
                if (rfd < 0) {
                        log_error("inject --rootfs %s: cannot open the container root: %s; give the bundle's rootfs "
                                  "directory",
                                  opts->rootfs, strerror(-rfd));
                        return EXIT_SETUP;
                }
                close(rfd);
                if (xpu_loader_env_check(environ, err, sizeof err) < 0 ||
                    ((opts->inject == XPU_INJECT_AUTO || opts->inject == XPU_INJECT_MOUNT) &&
                     xpu_inject_mount_ns_check(err, sizeof err) < 0)) {
                        log_error("inject --rootfs %s: %s", opts->rootfs, err);
                        return EXIT_SETUP;
                }
        }
        if (context_probe(c, opts) != 0 || context_select(c, opts) < 0)
                return EXIT_SETUP;
        if (!inject)
                xpu_selection_warn_not_given(c->inv, c->sel, c->roots.dev); /* what a start would say */
        c->container_path = inject ? opts->rootfs : "/";
        _cleanup_(plan_freep) struct xpu_plan *p = NULL;
        enum xpu_inject_mode mode = opts->inject;
        if (inject && mode == XPU_INJECT_AUTO)
                mode = XPU_INJECT_MOUNT; /* from outside, links into the host would dangle */
        struct xpu_plan_options o;
        _cleanup_(xpu_device_code_facts_done) struct xpu_device_code_facts dc = { 0 };
        _cleanup_(xpu_plan_needs_done) struct xpu_plan_needs needs = { 0 };
        _cleanup_(xpu_plan_facts_freep) struct xpu_plan_facts *facts = NULL;
        _cleanup_(xpu_device_code_outcome_clear) struct xpu_device_code_outcome verdict = { 0 };
        if ((!inject && context_device_code(c, opts, &dc) < 0) || context_needs(c, opts->argv, mode, &o, &needs) < 0 ||
            context_gather(c, &o, &needs, &facts) < 0 ||
            context_rich_facts(c, facts, &o, inject ? NULL : &dc, true, &verdict) < 0)
                return EXIT_SETUP;
        o.device_code = inject ? NULL : &verdict; /* inject: no workload to check */
        if (context_plan(c, opts, facts, &o, &p) < 0 || (!inject && check_device_code(&verdict) < 0))
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
                                  opts->rootfs, c->roots.driver, c->roots.driver);
                        return EXIT_SETUP;
                }
        }
        if (inject) {
                char err[1024];
                err[0] = '\0';
                const struct xpu_apply_roots roots = {
                        .container_fd = c->container_fd,
                        .container_path = opts->rootfs,
                        .driver_fd = c->roots.driver_fd,
                        .dev_fd = c->roots.dev_fd,
                        .dev_path = c->roots.dev,
                };
                for (size_t i = 0; i < p->n_warnings; i++)
                        log_warning("%s", p->warnings[i]);
                int r = xpu_plan_apply(p, &roots, true, err, sizeof err);
                if (r < 0) {
                        log_error("inject into %s: %s", opts->rootfs, err);
                        status = EXIT_SETUP;
                }
        }
        if (status == 0) {
                int r = opts->json ? xpu_render_plan_json(p, c->inv, environ, inject, stdout)
                                 : xpu_render_plan_text(p, c->inv, environ, inject, stdout);
                if (r < 0)
                        status = EXIT_SETUP;
        }
        return status;
}

int main(int argc, char **argv) {
        /* First: as PID 1 the kernel drops a signal left at its default disposition, so a
         * `docker stop` during set-up would be lost; blocked, it waits in the pending set
         * (docs/supervision.md). One system call; xpu_supervise() reads them from a signalfd. */
        sigset_t blocked, original;
        xpu_signals_supervised(&blocked);
        (void)sigprocmask(SIG_BLOCK, &blocked, &original);
        xpu_log_set_program("xpuinit");
        struct xpu_options opt = XPU_OPTIONS_DEFAULT; /* the command line and its environment twins */
        /* An ignored SIGCHLD survives execve; with it the vendor-library helpers and the workload
         * could not be waited for (children would be reaped by the kernel). */
        signal(SIGCHLD, SIG_DFL);
        int r = xpu_options_parse(&opt, argc, argv);
        if (r != 0)
                return r;
        if (opt.command == XPU_CMD_RUN)
                xpu_stop_arm();
        else /* the other subcommands keep the signals their caller gave them */
                (void)sigprocmask(SIG_SETMASK, &original, NULL);
        /* version and help need no settings: a bad environment twin must not break them. */
        if (opt.command != XPU_CMD_VERSION && opt.command != XPU_CMD_HELP && xpu_options_env(&opt) < 0)
                return opt.command == XPU_CMD_RUN ? EXIT_SETUP : XPU_EXIT_USAGE;

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
        c.vendor_timeout = opt.vendor_timeout;
        c.rich_sources = 0;
        c.seccomp = NULL;
        int status;
        switch (opt.command) {
        case XPU_CMD_VERSION:
                printf("xpuinit %s\n", XPU_VERSION);
                return 0;
        case XPU_CMD_HELP:
                xpu_options_usage(stdout);
                return 0;
        case XPU_CMD_PROBE:
                status = cmd_probe(&c, &opt);
                break;
        case XPU_CMD_PROFILES:
                status = cmd_profiles(&c, &opt);
                break;
        case XPU_CMD_PLAN:
                status = cmd_plan(&c, &opt, false);
                break;
        case XPU_CMD_INJECT:
                status = cmd_plan(&c, &opt, true);
                break;
        case XPU_CMD_AUDIT:
                status = cmd_audit(&c, &opt);
                break;
        case XPU_CMD_CDI: {
                const struct xpu_cdi_options co = {
                        .cdi_output = opt.cdi_output,
                        .cdi_format = opt.cdi_format,
                        .cdi_kind = opt.cdi_kind,
                        .cdi_host_root = opt.cdi_host_root,
                };
                status = context_probe(&c, &opt) != 0 || cdi_read_mig_uuids(&c) < 0
                                 ? EXIT_SETUP
                                 : xpu_cdi_generate(&co, &c.roots, c.inv, stdout);
                break;
        }
        case XPU_CMD_RUN:
        default:
                status = run(&c, &opt);
                break;
        }
        context_done(&c);
        return status;
}
