/* SPDX-License-Identifier: Apache-2.0 */
/* planner: inventory + selection + profile + the gathered facts → ordered list of typed
 * operations, environment and argv (planner.h). Pure: no system call, nothing read (gather.c read
 * it all before). The parts live in plan-env.c, plan-devices.c, plan-libdir.c and
 * plan-host-files.c; none of them calls back here. */
#include "base/ldcache.h"
#include "base/str.h"
#include "planner.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/strv.h"
#include "device-code-verdict.h"
#include "plan-devices.h"
#include "plan-fabric.h"
#include "plan-env.h"
#include "plan-host-files.h"
#include "plan-libdir.h"
#include "plan-wsl.h"
#include "sandbox/privilege.h"
#include "vendor.h"


/* ---- files -------------------------------------------------------------------------------- */

/* The first name of a capability's library list is its core library (libnvidia-ml for utility,
 * libcuda for compute: profile data, docs/profiles.md). A driver root that lacks it would give a
 * container that fails later, so say so now, as a warning. */
static int warn_missing_core(struct xpu_plan *p, const struct xpu_profile *pr, const char *driver_root) {
        for (size_t c = 0; c < p->n_capabilities; c++)
                for (size_t i = 0; i < pr->n_libraries; i++) {
                        const struct xpu_capability_files *cf = &pr->libraries[i];
                        if (strcmp(cf->capability, p->capabilities[c]) != 0 || cf->n_names == 0 ||
                            strpbrk(cf->names[0], "*?["))
                                continue;
                        if (!xpu_plan_library(p, cf->names[0]) && xpu_plan_warning(p, "%s (core library of capability %s) of version %s is not in driver "
                                                 "root %s; workloads that need it will fail",
                                              cf->names[0], cf->capability, p->driver_version, driver_root) < 0)
                                return -ENOMEM;
                }
        return 0;
}

/* The profile's capability_32bit in effect: the 32-bit copies of the other capabilities'
 * libraries, for LIB32_DIR (library_dir + "32"). Returns 0, -ELOOP (a refused driver root, ERR),
 * -ENOMEM, -EINVAL. */
static int plan_files32(struct xpu_plan *p, const struct xpu_profile *pr, const struct xpu_plan_options *o,
                        const struct xpu_plan_facts *facts, char *err, size_t err_size) {
        if (!facts->needs.files32)
                return 0;
        if (facts->files32_error < 0)
                return facts->files32_error;
        if (!(p->files32 = xpu_driver_files_copy(facts->files32)))
                return -ENOMEM;
        if (p->files32->refused) {
                xpu_format_error(err, err_size, "%s", p->files32->refused);
                return -ELOOP;
        }
        for (size_t i = 0; i < p->files32->n_skipped; i++)
                if (xpu_plan_note(p, "skipped (32-bit) %s", p->files32->skipped[i]) < 0)
                        return -ENOMEM;
        if (p->files32->n == 0)
                return xpu_plan_warning(p, "capability %s: no 32-bit library of version %s in driver root %s; 32-bit "
                                  "programs will not find the driver", pr->capability_32bit, p->driver_version,
                               o->driver_root) < 0 ? -ENOMEM : 0;
        if (snprintf(p->lib32_dir, sizeof p->lib32_dir, "%s32", p->library_dir) >= (int)sizeof p->lib32_dir)
                return -ENAMETOOLONG;
        return xpu_plan_note(p, "capability %s: %zu 32-bit librar%s in %s", pr->capability_32bit, p->files32->n,
                             p->files32->n == 1 ? "y" : "ies", p->lib32_dir) < 0 ? -ENOMEM : 0;
}

/* Is NAME one of the files CDI gave (P->given)? */
static bool given_by_cdi(const struct xpu_plan *p, const char *name) {
        for (size_t i = 0; i < p->n_given; i++)
                if (strcmp(p->given[i].name, name) == 0)
                        return true;
        return false;
}

/* Driver files the container's CDI spec (its mark: MARK) already mounted (FACTS->given) are not
 * injected again: they leave P->files, in order. Notes say which, and which sonames get a link
 * because no CDI hook made the image's loader find them. Returns 0 or -ENOMEM. */
static int plan_given(struct xpu_plan *p, const struct xpu_plan_options *o, const struct xpu_plan_facts *facts,
                      const char *mark) {
        if (facts->n_given == 0)
                return xpu_plan_note(p, "%s is set, but the container has no driver file of version %s where CDI mounts "
                               "them; injecting from driver root %s",
                            mark, p->driver_version, o->driver_root) < 0
                               ? -ENOMEM
                               : 0;
        if (!(p->given = calloc(facts->n_given, sizeof *p->given)))
                return -ENOMEM;
        memcpy(p->given, facts->given, facts->n_given * sizeof *p->given);
        p->n_given = facts->n_given;
        size_t kept = 0;
        for (size_t i = 0; i < p->files->n; i++)
                if (!given_by_cdi(p, p->files->files[i].name))
                        p->files->files[kept++] = p->files->files[i]; /* left to inject */
        p->files->n = kept;
        /* Lists of names borrowed from P->given, for xpu_strv_join(). */
        _cleanup_free_ char **path_v = calloc(p->n_given + 1, sizeof(char *));
        _cleanup_free_ char **link_v = calloc(p->n_given + 1, sizeof(char *));
        if (!path_v || !link_v)
                return -ENOMEM;
        for (size_t i = 0, n_links = 0; i < p->n_given; i++) {
                path_v[i] = p->given[i].path;
                if (p->given[i].link)
                        link_v[n_links++] = p->given[i].soname;
        }
        _cleanup_free_ char *paths = xpu_strv_join(path_v, ", "), *links = xpu_strv_join(link_v, ", ");
        if (!paths || !links)
                return -ENOMEM;
        if (xpu_plan_note(p, "%s: the container's CDI spec already mounted %zu driver file(s) of version %s, not injected "
                    "again: %s",
                 mark, p->n_given, p->driver_version, paths) < 0)
                return -ENOMEM;
        if (links[0] && xpu_plan_note(p, "the image's ld.so.cache does not list %s (no CDI hook ran ldconfig): soname links to "
                                "the CDI files in %s",
                             links, p->library_dir) < 0)
                return -ENOMEM;
        return 0;
}

/* ---- build -------------------------------------------------------------------------------- */

int xpu_plan_build(const struct xpu_inventory *inv, const struct xpu_selection *sel,
                   const struct xpu_profile *pr, const struct xpu_plan_facts *facts,
                   const struct xpu_plan_options *o, struct xpu_plan **ret, char *err, size_t err_size) {
        const struct xpu_plan_needs *needs = &facts->needs;
        struct xpu_plan *p = calloc(1, sizeof *p);
        if (!p)
                return -ENOMEM;
        p->profile = pr;
        int r = -ENOMEM;
        if (xpu_strlcpy(p->library_dir, o->library_dir ? o->library_dir : XPU_DEFAULT_LIBRARY_DIR,
                        sizeof p->library_dir) < 0 ||
            p->library_dir[0] != '/') {
                xpu_format_error(err, err_size, "library directory \"%s\" must be an absolute path", p->library_dir);
                r = -EINVAL;
                goto fail;
        }
        p->env = xpu_strv_copy(o->envp);
        p->capabilities = calloc(1, sizeof(char *));
        p->notes = calloc(1, sizeof(char *));
        p->warnings = calloc(1, sizeof(char *));
        p->groups_from = calloc(1, sizeof(char *));
        if (!p->env || !p->capabilities || !p->notes || !p->warnings || !p->groups_from)
                goto fail;

        /* Selected devices of the profile's vendor, in inventory order. */
        if (!pr->match_any && xpu_profile_take_devices(pr, inv, sel->selected, &p->devices, &p->n_devices) < 0)
                goto fail;

        if (!pr->match_any && sel->request[pr->vendor] == XPU_REQUEST_CDI) {
                bool unset = strcmp(sel->source[pr->vendor], "default") == 0;
                if (xpu_plan_note(p, "%s is set%s%s%s: the container was made from %s's CDI spec; the %zu device(s) it was given "
                            "are selected",
                         sel->cdi_mark[pr->vendor], unset ? "" : " and ", unset ? "" : sel->source[pr->vendor],
                         unset ? "" : " is void or empty", xpu_vendor_to_string(pr->vendor), p->n_devices) < 0)
                        goto fail;
        }

        /* Injection mode. */
        p->inject = needs->inject;

        r = xpu_plan_capabilities(p, pr, needs, o->capabilities_env, o->capabilities_var, err, err_size);
        if (r < 0)
                goto fail;

        const struct xpu_vendor_info *vi = pr->match_any ? NULL : &inv->vendors[pr->vendor];
        if (vi)
                xpu_strlcpy(p->driver_version, vi->driver_version, sizeof p->driver_version);

        /* Device nodes first: the profile's vendor-wide nodes, then each selected device's. The
         * checks come before any change, so a missing node fails the start with nothing done. */
        r = -ENOMEM;
        /* WSL2: every GPU is /dev/dxg (the devices' node); the profile's Linux nodes do not exist. */
        const bool wsl = inv->platform == XPU_PLATFORM_WSL && vi;
        if (wsl && pr->n_device_nodes && p->n_devices &&
            xpu_plan_note(p, "WSL2: the profile's device nodes (%s, ...) are not looked for", pr->device_nodes[0]) < 0)
                goto fail;
        for (size_t i = 0; vi && !wsl && i < pr->n_device_nodes; i++) {
                struct xpu_devnode probe_node = { .optional = false };
                bool found = false;
                for (size_t j = 0; j < vi->n_nodes && !found; j++)
                        if (strcmp(vi->nodes[j].path, pr->device_nodes[i]) == 0) {
                                probe_node = vi->nodes[j];
                                found = true;
                        }
                if (!found) {
                        xpu_strlcpy(probe_node.path, pr->device_nodes[i], sizeof probe_node.path);
                        probe_node.optional = true; /* the probe does not know it: check if present */
                        probe_node.any_number = true;
                }
                if (xpu_plan_node_check(p, &probe_node, facts) < 0)
                        goto fail;
        }
        for (size_t k = 0; k < p->n_devices; k++) {
                const struct xpu_device *d = &inv->devices[p->devices[k]];
                for (size_t j = 0; j < d->n_nodes; j++)
                        if (xpu_plan_node_check(p, &d->nodes[j], facts) < 0)
                                goto fail;
        }
        if (xpu_plan_mig(p, inv, sel, facts) < 0)
                goto fail;
        if ((r = xpu_plan_mig_caps(p, vi, sel, facts, err, err_size)) < 0)
                goto fail;
        if ((r = xpu_plan_fabric(p, facts, err, err_size)) < 0)
                goto fail;
        r = -ENOMEM;

        /* Files from the driver root, for the capabilities in effect: what the host lists when it
         * has lists (a Jetson), else the profile's. */
        const bool void_request = needs->void_request;
        if (wsl) {
                if (p->inject != XPU_INJECT_NONE && !void_request && p->n_devices &&
                    (r = xpu_plan_wsl(p, o, facts, vi->wsl_store, xpu_vendors[pr->vendor]->wsl, err, err_size)) < 0)
                        goto fail;
                r = -ENOMEM;
                if (p->n_devices && xpu_plan_wsl_env(p, xpu_vendors[pr->vendor]->wsl) < 0)
                        goto fail;
        } else if (facts->host_list || facts->host_list_error < 0) {
                if ((r = xpu_plan_host_list(p, o, facts, err, err_size)) < 0)
                        goto fail;
                r = -ENOMEM;
        } else if (p->n_capabilities > 0 && p->inject != XPU_INJECT_NONE && !void_request && !needs->names_files) {
                /* display alone on nvidia-cuda: the toolkit accepts it, and it has no files here */
                _cleanup_free_ char *caps = xpu_strv_join(p->capabilities, ",");
                if (!caps || xpu_plan_note(p, "capabilities %s: profile \"%s\" names no driver files for them; none injected",
                                  caps, pr->name) < 0)
                        goto fail;
        } else if (p->n_capabilities > 0 && p->inject != XPU_INJECT_NONE && !void_request) {
                if (!p->driver_version[0]) {
                        xpu_strlcpy(p->driver_version, facts->driver_version, sizeof p->driver_version);
                        if (facts->driver_version_error < 0 || !p->driver_version[0]) {
                                xpu_format_error(err, err_size,
                                        "no %s driver version: the kernel driver reported none and no versioned "
                                        "driver library was found in driver root %s; load the kernel driver or "
                                        "pass --driver-root",
                                        xpu_vendor_to_string(pr->vendor), o->driver_root);
                                r = -ENOENT;
                                goto fail;
                        }
                        if (xpu_plan_note(p, "driver version %s taken from the library names in %s (no procfs version file)",
                                 p->driver_version, o->driver_root) < 0)
                                goto fail;
                }
                r = facts->files_error;
                if (r < 0) {
                        xpu_format_error(err, err_size, "cannot list driver files of version %s in driver root %s: %s",
                                p->driver_version, o->driver_root, strerror(-r));
                        goto fail;
                }
                if (!(p->files = xpu_driver_files_copy(facts->files))) {
                        r = -ENOMEM;
                        goto fail;
                }
                if (p->files->refused) { /* a hostile or broken driver root (docs/safe-paths.md) */
                        xpu_format_error(err, err_size, "%s", p->files->refused);
                        r = -ELOOP;
                        goto fail;
                }
                _cleanup_free_ char *caps = xpu_strv_join(p->capabilities, ",");
                if (!caps)
                        goto fail;
                const bool names_libraries = needs->names_libraries;
                if (p->files->n == 0 && names_libraries) {
                        /* where they were looked for: a driver root of another architecture (an
                         * aarch64 host's files read by an x86-64 xpuinit) shows here */
                        char dirs[512] = "";
                        for (size_t i = 0, k = 0; xpu_library_dirs[i] && k < sizeof dirs; i++)
                                k += (size_t)snprintf(dirs + k, sizeof dirs - k, "%s%s", i ? ", " : "",
                                                      xpu_library_dirs[i]);
                        xpu_format_error(err, err_size,
                                "no driver file of version %s in driver root %s for capabilities %s (looked in "
                                "its /etc/ld.so.cache and %s); mount the host driver files and pass --driver-root",
                                p->driver_version, o->driver_root, caps, dirs);
                        r = -ENOENT;
                        goto fail;
                }
                if (warn_missing_core(p, pr, o->driver_root) < 0 ||
                    (r = plan_files32(p, pr, o, facts, err, err_size)) < 0)
                        goto fail;
                r = -ENOMEM;
                for (size_t i = 0; i < p->files->n_skipped; i++)
                        if (xpu_plan_note(p, "skipped %s", p->files->skipped[i]) < 0)
                                goto fail;
                const char *mark = pr->match_any ? NULL : sel->cdi_mark[pr->vendor];
                if (mark && (r = plan_given(p, o, facts, mark)) < 0)
                        goto fail;
                if ((r = xpu_plan_forward_compat(p, pr, facts)) < 0)
                        goto fail;
                r = xpu_plan_library_dir_needed(p) ? xpu_plan_library_dir(p, o, facts) : 0;
                if (r < 0) {
                        xpu_format_error(err, err_size, "cannot plan the library directory %s: %s", p->library_dir,
                                strerror(-r));
                        goto fail;
                }
                r = xpu_plan_host_files(p, o, facts);
                if (r < 0) {
                        xpu_format_error(err, err_size, "cannot plan the driver files at their own path (profile "
                                         "\"%s\" key \"files\"): %s", pr->name, strerror(-r));
                        goto fail;
                }
                if (!names_libraries && p->host_files->n == 0 &&
                    xpu_plan_note(p, "capabilities %s: none of the files profile \"%s\" names for them is in driver "
                                     "root %s; none placed", caps, pr->name, o->driver_root) < 0)
                        goto fail;
        } else if (p->n_capabilities > 0 && void_request) {
                if (xpu_plan_note(p, "%s: void: no driver files injected", sel->source[pr->vendor]) < 0)
                        goto fail;
        }

        /* Environment: the vendor runtime's own mask renumbered for the devices given (select.h),
         * then the profile's edits with placeholders expanded. */
        const char *mask = pr->match_any ? NULL : sel->workload_env[pr->vendor];
        const char *mask_var = pr->match_any ? NULL : xpu_vendors[pr->vendor]->visibility.variable;
        if (mask && !*mask)
                xpu_env_unset(p->env, mask_var);
        else if (mask && xpu_env_set(&p->env, mask_var, mask) < 0)
                goto fail;
        /* The placeholders' values: the rich-facts step's (gathered.h). */
        const char *values[_XPU_PLACEHOLDER_MAX];
        for (int i = 0; i < _XPU_PLACEHOLDER_MAX; i++)
                values[i] = facts->placeholders[i];
        if (xpu_plan_env_edits(p, pr, values) < 0)
                goto fail;

        /* argv */
        p->argv = calloc(1, sizeof(char *));
        if (!p->argv)
                goto fail;
        if (pr->command_mode != XPU_COMMAND_KEEP && xpu_strv_extend(&p->argv, pr->command) < 0)
                goto fail;
        if (pr->command_mode != XPU_COMMAND_REPLACE && xpu_strv_extend(&p->argv, o->argv) < 0)
                goto fail;

        /* Last: the device-code check's verdict (judged before the plan, device-code-verdict.h),
         * recorded, and the override it asks for set. */
        if (o->device_code) {
                const struct xpu_device_code_outcome *dc = o->device_code;
                r = -ENOMEM;
                if (dc->override_name[0] && xpu_env_set(&p->env, dc->override_name, dc->override_value) < 0)
                        goto fail;
                if (dc->message && !(p->device_code = strdup(dc->message)))
                        goto fail;
                p->device_code_verdict = dc->verdict;
                p->device_code_log = dc->log;
                p->device_code_hint = dc->hint_unknown;
                p->device_code_refuse = dc->refuse;
        }
        *ret = p;
        return 0;
fail:
        if (r == -ENOMEM && err && err_size && !err[0])
                xpu_format_error(err, err_size, "out of memory while building the plan");
        xpu_plan_free(p);
        return r;
}

