/* SPDX-License-Identifier: Apache-2.0 */
#include "render.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/privilege.h"
#include "base/strv.h"
#include "inventory-json.h"
#include "vendor.h"
#include "base/str.h"

int xpu_render_json_print(cJSON *o, FILE *f) {
        if (!o)
                return -ENOMEM;
        char *s = cJSON_Print(o);
        cJSON_Delete(o);
        if (!s)
                return -ENOMEM;
        int r = fprintf(f, "%s\n", s) < 0 ? -EIO : 0;
        free(s);
        return r;
}

int xpu_render_inventory_json(const struct xpu_inventory *inv, const struct xpu_rich_report *reports,
                              uint32_t sources, FILE *f) {
        cJSON *o = xpu_inventory_to_json(inv);
        if (o && reports && (sources & ~((1u << XPU_SOURCE_PROCFS) | (1u << XPU_SOURCE_SYSFS)))) {
                cJSON *b = xpu_rich_reports_to_json(reports, sources);
                if (!b || !cJSON_AddItemToObject(o, "backends", b)) {
                        cJSON_Delete(b);
                        cJSON_Delete(o);
                        return -ENOMEM;
                }
        }
        return xpu_render_json_print(o, f);
}

int xpu_render_source_json(const struct xpu_rich_ops *ops, const void *result, const struct xpu_rich_report *rep,
                           FILE *f) {
        cJSON *o = result ? ops->to_json(result) : cJSON_CreateObject();
        bool ok = o != NULL;
        const char *status = result ? "ok" : rep->ran ? "error" : "skipped";
        if (ok && !result)
                ok = cJSON_AddStringToObject(o, "source", xpu_source_to_string(ops->source)) &&
                     cJSON_AddStringToObject(o, "library", ops->library) &&
                     cJSON_AddStringToObject(o, rep->ran ? "error" : "reason", rep->message);
        if (ok && rep->ran)
                ok = cJSON_AddNumberToObject(o, "elapsed_us", (double)rep->elapsed_us) != NULL;
        ok = ok && cJSON_AddStringToObject(o, "status", status);
        if (!ok) {
                cJSON_Delete(o);
                return -ENOMEM;
        }
        return xpu_render_json_print(o, f);
}

void xpu_render_source_text(const struct xpu_rich_ops *ops, const void *result, const struct xpu_rich_report *rep,
                            FILE *f) {
        if (result)
                ops->print(result, f);
        else
                fprintf(f, "%s: %s: %s\n", xpu_source_to_string(ops->source), rep->ran ? "error" : "skipped",
                        rep->message);
}

void xpu_render_inventory_text(const struct xpu_inventory *inv, const struct xpu_rich_report *reports,
                               uint32_t sources, FILE *f) {
        if (inv->platform != XPU_PLATFORM_LINUX)
                fprintf(f, "platform: %s\n", xpu_platform_name(inv->platform));
        for (int v = 0; v < _XPU_VENDOR_MAX; v++) {
                const struct xpu_vendor_info *vi = &inv->vendors[v];
                size_t n = xpu_inventory_count(inv, (enum xpu_vendor)v);
                if (!vi->driver_loaded && n == 0) {
                        fprintf(f, "%s: none (looked for %s)\n", xpu_vendor_to_string(v),
                                vi->looked_for[0] ? vi->looked_for : "its kernel driver");
                        continue;
                }
                fprintf(f, "%s: %zu device%s", xpu_vendor_to_string(v), n, n == 1 ? "" : "s");
                if (vi->driver_version[0])
                        fprintf(f, ", driver %s", vi->driver_version);
                if (vi->driver_flavor[0])
                        fprintf(f, " (%s)", vi->driver_flavor);
                if (vi->cuda_driver_version[0])
                        fprintf(f, ", CUDA %s (%s)", vi->cuda_driver_version,
                                xpu_source_to_string(vi->cuda_driver_version_source));
                if (vi->wsl_store[0]) {
                        bool counted = true; /* unless its store's entry is still there (no rich path) */
                        for (size_t i = 0; i < inv->n_devices; i++)
                                counted &= (int)inv->devices[i].vendor != v || inv->devices[i].source != XPU_SOURCE_WSL;
                        fprintf(f, ", WSL2 driver store %s%s", vi->wsl_store, counted ? "" : " (GPUs not counted)");
                }
                fputc('\n', f);
                for (size_t i = 0; i < vi->n_nodes; i++)
                        fprintf(f, "  node %s%s\n", vi->nodes[i].path, vi->nodes[i].present ? "" : " (absent)");
        }
        for (size_t i = 0; i < inv->n_devices; i++) {
                const struct xpu_device *d = &inv->devices[i];
                char mem[32] = "";
                if (d->have & XPU_HAVE_MEMORY_TOTAL)
                        xpu_format_bytes(d->memory_total_bytes, mem, sizeof mem);
                fprintf(f, "%u  %s:%u  %s  %s  %s", d->index, xpu_vendor_to_string(d->vendor), d->vendor_index,
                        d->pci_bus_id[0] ? d->pci_bus_id : "-", d->name[0] ? d->name : "(name unknown)",
                        d->uuid[0] ? d->uuid : "-");
                char named[XPU_PCI_BUS_ID_MAX];
                if ((d->have & XPU_HAVE_PARTITION) && xpu_device_named_bus_id(d, named))
                        fprintf(f, "  partition %u (%s)", d->partition, named);
                if (mem[0])
                        fprintf(f, "  %s", mem);
                const struct xpu_vendor_ops *ops = xpu_vendor(d->vendor);
                if (ops && ops->view.facts_text)
                        ops->view.facts_text(d, f);
                for (size_t j = 0; j < d->n_nodes; j++)
                        fprintf(f, "  %s%s", d->nodes[j].path, d->nodes[j].present ? "" : " (absent)");
                fputc('\n', f);
                if (ops && ops->view.subdevices_text)
                        ops->view.subdevices_text(d, f);
        }
        if (inv->n_devices == 0)
                fputs("no accelerators found\n", f);
        const struct xpu_rich_ops *ops;
        for (size_t i = 0; reports && (ops = xpu_rich_backend_at(i)); i++) {
                const struct xpu_rich_report *r = &reports[ops->source];
                if (!(sources & (1u << ops->source)))
                        continue;
                fprintf(f, "backend %s: ", xpu_source_to_string(ops->source));
                if (!r->ran)
                        fprintf(f, "%s\n", r->message);
                else if (r->error < 0)
                        fprintf(f, "error: %s\n", r->message);
                else
                        fprintf(f, "ok, %d device%s matched, %.1f ms\n", r->matched, r->matched == 1 ? "" : "s",
                                (double)r->elapsed_us / 1000.0);
        }
}

int xpu_render_profiles_json(const struct xpu_profile_set *s, const struct xpu_inventory *inv,
                             const struct xpu_selection *sel, const struct xpu_profile *chosen, FILE *f) {
        cJSON *a = cJSON_CreateArray();
        for (size_t i = 0; a && i < s->n; i++) {
                const struct xpu_profile *p = s->profiles[i];
                char why[1024]; /* a requirement reason quotes the expression */
                bool m = xpu_profile_matches(p, inv, sel->selected, why, sizeof why);
                cJSON *o = cJSON_CreateObject();
                if (!o || !cJSON_AddItemToArray(a, o) || !cJSON_AddStringToObject(o, "name", p->name) ||
                    !cJSON_AddStringToObject(o, "origin", p->origin) ||
                    !cJSON_AddNumberToObject(o, "priority", p->priority) || !cJSON_AddBoolToObject(o, "matches", m) ||
                    !cJSON_AddStringToObject(o, "why", why) || !cJSON_AddBoolToObject(o, "selected", p == chosen) ||
                    (p->description && !cJSON_AddStringToObject(o, "description", p->description))) {
                        cJSON_Delete(a);
                        return -ENOMEM;
                }
        }
        return xpu_render_json_print(a, f);
}

int xpu_render_profiles_text(const struct xpu_profile_set *s, const struct xpu_inventory *inv,
                             const struct xpu_selection *sel, const struct xpu_profile *chosen, FILE *f) {
        for (size_t i = 0; i < s->n; i++) {
                const struct xpu_profile *p = s->profiles[i];
                char why[1024]; /* a requirement reason quotes the expression */
                /* The reason itself starts with "matches" or "no". */
                (void)xpu_profile_matches(p, inv, sel->selected, why, sizeof why);
                fprintf(f, "%s %-16s priority %-4d %s  [%s]\n", p == chosen ? "*" : " ", p->name, p->priority, why,
                        p->origin);
        }
        if (chosen)
                fprintf(f, "selected: %s\n", chosen->name);
        return 0;
}

/* Entries of ENV that are new or changed relative to OLD, and names removed. */
static int env_diff(char *const *old, char *const *env, cJSON *set, cJSON *unset, FILE *text) {
        for (size_t i = 0; env && env[i]; i++) {
                const char *eq = strchr(env[i], '=');
                if (!eq)
                        continue;
                char name[256];
                snprintf(name, sizeof name, "%.*s", (int)(eq - env[i]), env[i]);
                const char *prev = xpu_env_get(old, name);
                if (prev && strcmp(prev, eq + 1) == 0)
                        continue;
                if (set && !cJSON_AddStringToObject(set, name, eq + 1))
                        return -ENOMEM;
                if (text)
                        fprintf(text, "  env %s=%s\n", name, eq + 1);
        }
        for (size_t i = 0; old && old[i]; i++) {
                const char *eq = strchr(old[i], '=');
                if (!eq)
                        continue;
                char name[256];
                snprintf(name, sizeof name, "%.*s", (int)(eq - old[i]), old[i]);
                if (xpu_env_get(env, name))
                        continue;
                if (unset && !cJSON_AddItemToArray(unset, cJSON_CreateString(name)))
                        return -ENOMEM;
                if (text)
                        fprintf(text, "  unset %s\n", name);
        }
        return 0;
}

/* Add MASK to A as capability names ("CAP_CHOWN"; a number the table does not know as "cap_N"). */
static bool add_caps(cJSON *a, uint64_t mask) {
        for (int c = 0; c < 64; c++) {
                if (!(mask & XPU_CAP_BIT(c)))
                        continue;
                char num[16];
                const char *name = xpu_capability_to_name(c);
                if (!name) {
                        snprintf(num, sizeof num, "cap_%d", c);
                        name = num;
                }
                if (!cJSON_AddItemToArray(a, cJSON_CreateString(name)))
                        return false;
        }
        return true;
}

/* The workload's privilege (plan only; inject has none): JSON keys user, keep_capabilities,
 * keep_capabilities_from, bounding_capabilities, ambient, no_new_privs, seccomp. */
static bool plan_privilege_json(const struct xpu_plan *p, cJSON *o) {
        cJSON *user, *keep, *bset;
        return (user = cJSON_AddObjectToObject(o, "user")) && cJSON_AddNumberToObject(user, "uid", p->uid) &&
               cJSON_AddNumberToObject(user, "gid", p->gid) &&
               cJSON_AddStringToObject(user, "from", p->user_set ? "--user" : "xpuinit") &&
               (keep = cJSON_AddArrayToObject(o, "keep_capabilities")) && add_caps(keep, p->cap_keep) &&
               cJSON_AddStringToObject(o, "keep_capabilities_from", p->cap_explicit ? "profile" : "default") &&
               (bset = cJSON_AddArrayToObject(o, "bounding_capabilities")) && add_caps(bset, p->cap_bounding) &&
               cJSON_AddBoolToObject(o, "ambient", p->cap_ambient) && cJSON_AddBoolToObject(o, "no_new_privs", true) &&
               cJSON_AddStringToObject(o, "seccomp", p->seccomp ? p->seccomp : "default");
}

/* The same as text lines. */
static void plan_privilege_text(const struct xpu_plan *p, FILE *f) {
        char names[1024];
        fprintf(f, "  user %u:%u (%s)\n", (unsigned)p->uid, (unsigned)p->gid, p->user_set ? "--user" : "xpuinit's own");
        (void)xpu_capability_mask_to_names(p->cap_keep, names, sizeof names);
        fprintf(f, "  keep_capabilities %s (%s%s)\n", names[0] ? names : "none", p->cap_explicit ? "profile" : "default",
                p->cap_ambient ? ", ambient" : "");
        (void)xpu_capability_mask_to_names(p->cap_bounding, names, sizeof names);
        fprintf(f, "  bounding_capabilities %s\n", names[0] ? names : "none");
        fprintf(f, "  no_new_privs yes\n  seccomp %s\n", p->seccomp ? p->seccomp : "default");
}

int xpu_render_plan_json(const struct xpu_plan *p, const struct xpu_inventory *inv, char *const *envp,
                         bool filesystem_only, FILE *f) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
                return -ENOMEM;
        cJSON *devs, *ops, *groups, *set, *unset, *argv, *caps, *notes, *warnings;
        bool ok = cJSON_AddStringToObject(o, "profile", p->profile->name) &&
                  cJSON_AddStringToObject(o, "inject", xpu_inject_mode_to_string(p->inject)) &&
                  cJSON_AddStringToObject(o, "library_dir", p->library_dir) &&
                  (!p->driver_version[0] || cJSON_AddStringToObject(o, "driver_version", p->driver_version)) &&
                  (caps = cJSON_AddArrayToObject(o, "capabilities")) && (devs = cJSON_AddArrayToObject(o, "devices")) &&
                  (ops = cJSON_AddArrayToObject(o, "operations")) && (groups = cJSON_AddArrayToObject(o, "groups")) &&
                  (set = cJSON_AddObjectToObject(o, "env")) && (unset = cJSON_AddArrayToObject(o, "env_unset")) &&
                  (argv = cJSON_AddArrayToObject(o, "argv")) && (notes = cJSON_AddArrayToObject(o, "notes")) &&
                  (warnings = cJSON_AddArrayToObject(o, "warnings"));
        for (size_t i = 0; ok && i < p->n_capabilities; i++)
                ok = cJSON_AddItemToArray(caps, cJSON_CreateString(p->capabilities[i]));
        for (size_t i = 0; ok && i < p->n_devices; i++) {
                const struct xpu_device *d = &inv->devices[p->devices[i]];
                cJSON *dj = cJSON_CreateObject();
                ok = dj && cJSON_AddItemToArray(devs, dj) && cJSON_AddNumberToObject(dj, "index", d->index) &&
                     cJSON_AddStringToObject(dj, "vendor", xpu_vendor_to_string(d->vendor)) &&
                     cJSON_AddNumberToObject(dj, "vendor_index", d->vendor_index) &&
                     (!d->uuid[0] || cJSON_AddStringToObject(dj, "uuid", d->uuid)) &&
                     (!d->pci_bus_id[0] || cJSON_AddStringToObject(dj, "pci_bus_id", d->pci_bus_id));
        }
        for (size_t i = 0; ok && i < p->n_ops; i++) {
                const struct xpu_op *op = &p->ops[i];
                if (filesystem_only && !op->filesystem)
                        continue;
                cJSON *oj = cJSON_CreateObject();
                ok = oj && cJSON_AddItemToArray(ops, oj) &&
                     cJSON_AddStringToObject(oj, "op", xpu_op_type_to_string(op->type)) &&
                     cJSON_AddStringToObject(oj, "path", op->path) &&
                     (!op->source[0] || cJSON_AddStringToObject(oj, "source", op->source)) &&
                     (!op->target[0] || cJSON_AddStringToObject(oj, "target", op->target));
                if (ok && op->type == XPU_OP_CHECK_DEVNODE) {
                        char mm[32];
                        if (op->have_major)
                                snprintf(mm, sizeof mm, "%u:%u", op->major, op->minor);
                        else
                                snprintf(mm, sizeof mm, op->any_number ? "?:?" : "?:%u", op->minor);
                        ok = cJSON_AddStringToObject(oj, "device", mm) &&
                             cJSON_AddBoolToObject(oj, "optional", op->optional);
                }
                if (ok && op->content)
                        ok = cJSON_AddStringToObject(oj, "content", op->content) != NULL;
                if (ok && op->type == XPU_OP_BIND && op->host_file)
                        ok = cJSON_AddStringToObject(oj, "kind", xpu_host_file_kind_to_string(op->host_kind)) != NULL;
                if (ok && op->origin[0])
                        ok = cJSON_AddStringToObject(oj, "origin", op->origin) != NULL;
        }
        for (size_t i = 0; ok && i < p->n_groups; i++) {
                cJSON *gj = cJSON_CreateObject();
                ok = gj && cJSON_AddItemToArray(groups, gj) && cJSON_AddNumberToObject(gj, "gid", p->groups[i]) &&
                     cJSON_AddStringToObject(gj, "from", p->groups_from[i]);
        }
        ok = ok && (filesystem_only || plan_privilege_json(p, o));
        ok = ok && env_diff(envp, p->env, set, unset, NULL) == 0;
        for (size_t i = 0; ok && p->argv[i]; i++)
                ok = cJSON_AddItemToArray(argv, cJSON_CreateString(p->argv[i]));
        for (size_t i = 0; ok && i < p->n_notes; i++)
                ok = cJSON_AddItemToArray(notes, cJSON_CreateString(p->notes[i]));
        for (size_t i = 0; ok && i < p->n_warnings; i++)
                ok = cJSON_AddItemToArray(warnings, cJSON_CreateString(p->warnings[i]));
        if (ok && (p->device_code_verdict || p->device_code)) {
                cJSON *dc = cJSON_AddObjectToObject(o, "device_code");
                ok = dc &&
                     (p->device_code_verdict ? cJSON_AddStringToObject(dc, "verdict", p->device_code_verdict)
                                             : cJSON_AddNullToObject(dc, "verdict")) &&
                     (p->device_code ? cJSON_AddStringToObject(dc, "message", p->device_code)
                                     : cJSON_AddNullToObject(dc, "message"));
        } else if (ok && !filesystem_only) {
                ok = cJSON_AddNullToObject(o, "device_code") != NULL;
        }
        if (!ok) {
                cJSON_Delete(o);
                return -ENOMEM;
        }
        return xpu_render_json_print(o, f);
}

int xpu_render_plan_text(const struct xpu_plan *p, const struct xpu_inventory *inv, char *const *envp,
                         bool filesystem_only, FILE *f) {
        fprintf(f, "profile %s (%s), inject %s", p->profile->name, p->profile->origin,
                xpu_inject_mode_to_string(p->inject));
        if (p->driver_version[0])
                fprintf(f, ", driver %s", p->driver_version);
        fputc('\n', f);
        for (size_t i = 0; i < p->n_devices; i++) {
                const struct xpu_device *d = &inv->devices[p->devices[i]];
                fprintf(f, "  device %u %s:%u %s %s\n", d->index, xpu_vendor_to_string(d->vendor), d->vendor_index,
                        d->uuid[0] ? d->uuid : "-", d->pci_bus_id[0] ? d->pci_bus_id : "-");
        }
        for (size_t i = 0; i < p->n_ops; i++) {
                const struct xpu_op *op = &p->ops[i];
                if (filesystem_only && !op->filesystem)
                        continue;
                fprintf(f, "  %s %s", xpu_op_type_to_string(op->type), op->path);
                if (op->source[0])
                        fprintf(f, " <- %s", op->source);
                if (op->type == XPU_OP_BIND && op->host_file)
                        fprintf(f, " (%s%s)", xpu_host_file_kind_to_string(op->host_kind),
                                op->host_kind == XPU_HOST_FILE_REGULAR || op->host_kind == XPU_HOST_FILE_TREE
                                        ? ", read-only"
                                        : ", writable");
                if (op->target[0])
                        fprintf(f, " -> %s", op->target);
                if (op->type == XPU_OP_CHECK_DEVNODE) {
                        if (op->have_major)
                                fprintf(f, " (c %u:%u)", op->major, op->minor);
                        else if (op->any_number) /* a host list's node: the numbers are the host's */
                                fputs(" (c)", f);
                        else
                                fprintf(f, " (c ?:%u)", op->minor);
                        if (op->optional)
                                fputs(" optional", f);
                }
                if (op->origin[0])
                        fprintf(f, " [%s]", op->origin);
                fputc('\n', f);
        }
        for (size_t i = 0; i < p->n_groups; i++)
                fprintf(f, "  group %u (from %s)\n", (unsigned)p->groups[i], p->groups_from[i]);
        if (!filesystem_only)
                plan_privilege_text(p, f);
        if (env_diff(envp, p->env, NULL, NULL, f) < 0)
                return -ENOMEM;
        if (p->argv[0]) {
                fputs("  argv", f);
                for (size_t i = 0; p->argv[i]; i++)
                        fprintf(f, " %s", p->argv[i]);
                fputc('\n', f);
        }
        for (size_t i = 0; i < p->n_notes; i++)
                fprintf(f, "  note: %s\n", p->notes[i]);
        for (size_t i = 0; i < p->n_warnings; i++)
                fprintf(f, "  warning: %s\n", p->warnings[i]);
        if (p->device_code_verdict || p->device_code) {
                /* The message is also a start's log line, which says what it is about. */
                const char *m = p->device_code;
                if (m && xpu_startswith(m, "device code: "))
                        m += strlen("device code: ");
                fprintf(f, "  device code: %s%s%s\n", p->device_code_verdict ? p->device_code_verdict : "not judged",
                        m ? ": " : "", m ? m : "");
        }
        return 0;
}
