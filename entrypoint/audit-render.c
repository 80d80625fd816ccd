/* SPDX-License-Identifier: Apache-2.0 */
/* `xpuinit audit` output: JSON (the contract in docs/audit.md), a report for people, a nodeAffinity. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "audit-render.h"
#include "base/escape.h"
#include "base/log.h"
#include "base/macro.h"
#include "devcode/object-json.h"
#include "render.h"

static const char *level_name(enum xpu_code_level l) {
        return xpu_code_level_name(l);
}

/* PART as a percentage of WHOLE (0 for an empty image). */
static double percent(uint64_t part, uint64_t whole) {
        return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* {"objects", "bytes"}, with "bytes_percent" (of WHOLE bytes, rounded to 0.01) when WHOLE is given. */
static cJSON *tally_json(const struct xpu_audit_tally *t, const uint64_t *whole) {
        cJSON *j = cJSON_CreateObject();
        double pct = whole ? (double)(uint64_t)(percent(t->bytes, *whole) * 100 + 0.5) / 100 : 0;
        if (j && (!cJSON_AddNumberToObject(j, "objects", (double)t->objects) ||
                  !cJSON_AddNumberToObject(j, "bytes", (double)t->bytes) ||
                  (whole && !cJSON_AddNumberToObject(j, "bytes_percent", pct)))) {
                cJSON_Delete(j);
                return NULL;
        }
        return j;
}

static bool add_strings(cJSON *o, const char *key, char *const *v) {
        cJSON *a = cJSON_AddArrayToObject(o, key);
        for (char *const *p = v; a && p && *p; p++)
                if (!cJSON_AddItemToArray(a, cJSON_CreateString(*p)))
                        return false;
        return a != NULL;
}

static bool add_item(cJSON *o, const char *key, cJSON *item) {
        if (!item || !cJSON_AddItemToObject(o, key, item)) {
                cJSON_Delete(item);
                return false;
        }
        return true;
}

static cJSON *summary_json(const struct xpu_audit *a) {
        cJSON *s = cJSON_CreateObject(), *vendors = NULL, *layers = NULL, *needs = NULL, *tied = NULL, *targets = NULL,
              *nv = NULL, *amd = NULL, *walk = NULL;
        bool ok = s && cJSON_AddNumberToObject(s, "objects", (double)a->total.objects) &&
                  cJSON_AddNumberToObject(s, "bytes", (double)a->total.bytes) &&
                  (vendors = cJSON_AddObjectToObject(s, "vendors")) && (layers = cJSON_AddObjectToObject(s, "layers")) &&
                  (needs = cJSON_AddObjectToObject(s, "needs")) && (tied = cJSON_AddObjectToObject(s, "vendor_tied")) &&
                  (targets = cJSON_AddObjectToObject(s, "targets")) && (walk = cJSON_AddObjectToObject(s, "walk"));
        for (unsigned c = 0; ok && c < _XPU_AUDIT_CLASS_MAX; c++)
                ok = add_item(vendors, xpu_audit_class_name(c), tally_json(&a->by_class[c], &a->total.bytes));
        /* Each object once: every class, vendor-neutral included, so each row and column adds up. */
        for (unsigned row = 0; ok && row < _XPU_AUDIT_ROW_MAX; row++) {
                cJSON *per = cJSON_AddObjectToObject(layers, xpu_audit_row_name(row));
                ok = per != NULL;
                for (unsigned c = 0; ok && c < _XPU_AUDIT_CLASS_MAX; c++)
                        ok = add_item(per, xpu_audit_class_name(c), tally_json(&a->by_row[row][c], &a->total.bytes));
        }
        for (unsigned l = 0; ok && l < _XPU_LAYER_MAX; l++) {
                cJSON *per = cJSON_AddObjectToObject(needs, xpu_layer_name((enum xpu_layer)l));
                ok = per != NULL;
                for (unsigned c = XPU_AUDIT_NVIDIA; ok && c < _XPU_AUDIT_CLASS_MAX; c++)
                        ok = add_item(per, xpu_audit_class_name(c), tally_json(&a->needs[l][c], NULL));
        }
        const struct xpu_audit_tally *neutral = &a->by_class[XPU_AUDIT_NEUTRAL];
        ok = ok &&
             cJSON_AddNumberToObject(tied, "objects",
                                     a->total.objects ? (double)(a->total.objects - neutral->objects) / (double)a->total.objects : 0) &&
             cJSON_AddNumberToObject(tied, "bytes",
                                     a->total.bytes ? (double)(a->total.bytes - neutral->bytes) / (double)a->total.bytes : 0) &&
             (nv = cJSON_AddObjectToObject(targets, "nvidia")) && add_strings(nv, "sass", a->nv_sass) &&
             add_strings(nv, "ptx", a->nv_ptx) && (amd = cJSON_AddObjectToObject(targets, "amd")) &&
             add_strings(amd, "gfx", a->amd_gfx);
        const struct {
                const char *key;
                uint64_t value;
        } counts[] = {
                { "files", a->walk.files },   { "directories", a->walk.dirs },      { "links", a->walk.links },
                { "special", a->walk.special }, { "pseudo_filesystems", a->walk.pseudo }, { "cycles", a->walk.cycles },
                { "errors", a->walk.errors }, { "read_errors", a->read_errors },
        };
        for (size_t i = 0; ok && i < ELEMENTSOF(counts); i++)
                ok = cJSON_AddNumberToObject(walk, counts[i].key, (double)counts[i].value) != NULL;
        ok = ok && (a->walk.stopped_by ? cJSON_AddStringToObject(walk, "stopped_by", a->walk.stopped_by)
                                       : cJSON_AddNullToObject(walk, "stopped_by"));
        if (!ok) {
                cJSON_Delete(s);
                return NULL;
        }
        return s;
}

static cJSON *target_json(const struct xpu_code_target *t, const struct xpu_code_verdict *v) {
        cJSON *j = cJSON_CreateObject(), *ov = NULL;
        bool ok = j && cJSON_AddStringToObject(j, "target", t->name) &&
                  (t->gpus[0] ? cJSON_AddStringToObject(j, "gpus", t->gpus) : cJSON_AddNullToObject(j, "gpus")) &&
                  cJSON_AddStringToObject(j, "verdict", level_name(v->level));
        if (ok && v->override_name[0]) {
                ok = (ov = cJSON_AddObjectToObject(j, "override")) &&
                     cJSON_AddStringToObject(ov, v->override_name, v->override_value) &&
                     cJSON_AddBoolToObject(j, "override_from_environment", v->override_from_env);
        } else if (ok) {
                ok = cJSON_AddNullToObject(j, "override") != NULL;
        }
        ok = ok && add_strings(j, "blocking", v->blocking) && cJSON_AddStringToObject(j, "reason", v->reason ? v->reason : "");
        if (!ok) {
                cJSON_Delete(j);
                return NULL;
        }
        return j;
}

int xpu_audit_render_json(const struct xpu_audit *a, FILE *f) {
        cJSON *j = cJSON_CreateObject(), *objects = NULL, *issues = NULL, *targets = NULL;
        bool ok = j && cJSON_AddStringToObject(j, "root", a->root) && (objects = cJSON_AddArrayToObject(j, "objects"));
        for (size_t i = 0; ok && i < a->n_objects; i++) {
                const struct xpu_object *o = &a->objects[i];
                cJSON *oj = xpu_object_to_json(o), *verdicts = NULL;
                ok = oj && cJSON_AddItemToArray(objects, oj);
                if (!ok) {
                        cJSON_Delete(oj);
                        break;
                }
                for (size_t t = 0; ok && t < a->n_targets; t++) {
                        if (!xpu_object_has_code(o, a->targets[t].vendor))
                                continue;
                        if (!verdicts)
                                ok = (verdicts = cJSON_AddObjectToObject(oj, "verdicts")) != NULL;
                        ok = ok && cJSON_AddStringToObject(
                                           verdicts, a->targets[t].name,
                                           level_name(xpu_code_object_level(o, &a->targets[t], &a->env)));
                }
        }
        ok = ok && add_item(j, "summary", summary_json(a)) && (issues = cJSON_AddArrayToObject(j, "issues"));
        for (size_t i = 0; ok && i < a->n_issues; i++) {
                cJSON *ij = cJSON_CreateObject();
                ok = ij && cJSON_AddItemToArray(issues, ij) && cJSON_AddStringToObject(ij, "kind", a->issues[i].kind) &&
                     (a->issues[i].path ? cJSON_AddStringToObject(ij, "path", a->issues[i].path)
                                        : cJSON_AddNullToObject(ij, "path")) &&
                     cJSON_AddStringToObject(ij, "message", a->issues[i].message);
        }
        ok = ok && (targets = cJSON_AddArrayToObject(j, "targets"));
        for (size_t t = 0; ok && t < a->n_targets; t++) {
                cJSON *tj = target_json(&a->targets[t], &a->verdicts[t]);
                ok = tj && cJSON_AddItemToArray(targets, tj);
                if (!ok)
                        cJSON_Delete(tj);
        }
        ok = ok && cJSON_AddNumberToObject(j, "elapsed_seconds", a->elapsed_seconds);
        if (!ok) {
                cJSON_Delete(j);
                j = NULL;
        }
        return xpu_render_json_print(j, f);
}

/* ---- text --------------------------------------------------------------------------------------- */

/* S as text for a terminal: paths and IDs come from the image, so control characters and
 * ill-formed bytes become U+FFFD (a file name cannot forge a report line). Four calls may share
 * one printf. */
static const char *safe(const char *s) {
        static char buf[4][8192];
        static unsigned i;
        i = (i + 1) % 4;
        xpu_utf8_sanitize(buf[i], sizeof buf[i], s ? s : "", NULL);
        return buf[i];
}

static const char *human(uint64_t bytes, char *buf, size_t size) {
        static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
        double v = (double)bytes;
        size_t u = 0;
        while (v >= 1024 && u + 1 < ELEMENTSOF(units)) {
                v /= 1024;
                u++;
        }
        snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, units[u]);
        return buf;
}

static void print_list(FILE *f, const char *label, char *const *v) {
        fprintf(f, "  %-13s", label);
        if (!v || !*v)
                fputs("none", f);
        for (char *const *p = v; p && *p; p++)
                fprintf(f, "%s%s", p == v ? "" : ", ", safe(*p));
        fputc('\n', f);
}

/* "sm_80 sm_90 compute_90" or "gfx90a:xnack- gfx1030": what O carries, shortened. */
static void object_code(const struct xpu_object *o, char *buf, size_t size) {
        char *const *lists[] = { o->nv_sass, o->nv_ptx, o->amd_gfx };
        size_t used = 0, shown = 0, total = 0;
        buf[0] = '\0';
        for (size_t l = 0; l < ELEMENTSOF(lists); l++)
                for (char *const *p = lists[l]; p && *p; p++, total++)
                        if (shown < 10 && used + strlen(*p) + 5 < size) {
                                used += (size_t)snprintf(buf + used, size - used, "%s%s", shown ? " " : "", *p);
                                shown++;
                        }
        if (shown < total)
                snprintf(buf + used, size - used, " (+%zu)", total - shown);
}

/* One "objects / bytes" cell of the needs table. */
static void needs_cell(const struct xpu_audit_tally *t, char *buf, size_t size) {
        char b[32];
        snprintf(buf, size, "%llu / %s", (unsigned long long)t->objects, human(t->bytes, b, sizeof b));
}

/* One "objects bytes %" cell of the layer table, 25 columns; "-" for none. */
static void layer_cell(const struct xpu_audit_tally *t, uint64_t whole, char *buf, size_t size) {
        char b[32];
        if (!t->objects) {
                snprintf(buf, size, "%7s%18s", "-", "");
                return;
        }
        snprintf(buf, size, "%7llu %10s %5.1f%%", (unsigned long long)t->objects, human(t->bytes, b, sizeof b),
                 percent(t->bytes, whole));
}

/* LINE without its trailing blanks, and a newline. */
static void put_line(FILE *f, char *line) {
        size_t n = strlen(line);
        while (n > 0 && line[n - 1] == ' ')
                line[--n] = '\0';
        fprintf(f, "%s\n", line);
}

/* One row of the layer table: LABEL, then the cells of the classes shown. */
static void layer_row(FILE *f, const char *label, const struct xpu_audit_tally *per_class, uint64_t whole, bool both) {
        char line[160], cell[48];
        size_t used = (size_t)snprintf(line, sizeof line, "%-20s", label);
        for (unsigned c = 0; c < (both ? _XPU_AUDIT_CLASS_MAX : XPU_AUDIT_BOTH); c++) {
                layer_cell(&per_class[c], whole, cell, sizeof cell);
                used += (size_t)snprintf(line + used, sizeof line - used, "  %s", cell);
        }
        put_line(f, line);
}

/* The ratio, per layer: each object once, so the rows add up to the total row. */
static void print_layer_table(FILE *f, const struct xpu_audit *a) {
        static const char *const titles[_XPU_AUDIT_CLASS_MAX] = { "vendor-neutral", "NVIDIA", "AMD", "NVIDIA+AMD" };
        bool both = a->by_class[XPU_AUDIT_BOTH].objects > 0;
        unsigned shown = both ? _XPU_AUDIT_CLASS_MAX : XPU_AUDIT_BOTH;
        char line[160];
        size_t used = (size_t)snprintf(line, sizeof line, "\n%-20s", "Layer");
        for (unsigned c = 0; c < shown; c++) {
                int pad = (25 - (int)strlen(titles[c])) / 2; /* centred over its cell */
                used += (size_t)snprintf(line + used, sizeof line - used, "  %*s%-*s", pad, "", 25 - pad, titles[c]);
        }
        put_line(f, line);
        used = (size_t)snprintf(line, sizeof line, "%-20s", "");
        for (unsigned c = 0; c < shown; c++)
                used += (size_t)snprintf(line + used, sizeof line - used, "  %7s %10s %6s", "objects", "bytes", "%");
        put_line(f, line);
        for (unsigned row = 0; row < _XPU_AUDIT_ROW_MAX; row++)
                layer_row(f, xpu_audit_row_name(row), a->by_row[row], a->total.bytes, both);
        layer_row(f, "total", a->by_class, a->total.bytes, both);
        fputs("(each object once: in the layer of the vendor library it is, else runtime for device code of its own,\n"
              " else the layer it needs most; % of the image's bytes)\n",
              f);
        fprintf(f, "Vendor-tied: %.1f%% of the objects, %.1f%% of their bytes\n",
                percent(a->total.objects - a->by_class[XPU_AUDIT_NEUTRAL].objects, a->total.objects),
                percent(a->total.bytes - a->by_class[XPU_AUDIT_NEUTRAL].bytes, a->total.bytes));
}

/* Where the lock-in reaches: an object in every layer it is or needs. */
static void print_needs_table(FILE *f, const struct xpu_audit *a) {
        bool both = a->by_class[XPU_AUDIT_BOTH].objects > 0;
        fputs("\nWhat the objects need (an object counts in each layer it is or needs, so rows overlap)\n", f);
        fprintf(f, "%-20s %22s %22s", "Layer (objects / bytes)", "NVIDIA", "AMD");
        fprintf(f, both ? " %22s\n" : "\n", "NVIDIA+AMD");
        for (unsigned l = 0; l < _XPU_LAYER_MAX; l++) {
                char c[3][48];
                for (unsigned k = 0; k < 3; k++)
                        needs_cell(&a->needs[l][XPU_AUDIT_NVIDIA + k], c[k], sizeof c[k]);
                fprintf(f, "%-20s %22s %22s", xpu_layer_name((enum xpu_layer)l), c[0], c[1]);
                fprintf(f, both ? " %22s\n" : "\n", c[2]);
        }
}

int xpu_audit_render_text(const struct xpu_audit *a, FILE *f) {
        char b1[32];
        fprintf(f, "Audit of %s: %llu files, %llu objects (%s) in %.2f s\n", safe(a->root),
                (unsigned long long)a->walk.files, (unsigned long long)a->total.objects, human(a->total.bytes, b1, sizeof b1),
                a->elapsed_seconds);
        if (a->walk.stopped_by)
                fprintf(f, "INCOMPLETE: the walk stopped at its %s; the report covers what was read\n", a->walk.stopped_by);
        if (a->walk.skipped_deep)
                fprintf(f, "INCOMPLETE: %llu directories deeper than %u levels were not read\n",
                        (unsigned long long)a->walk.skipped_deep, a->max_depth);
        print_layer_table(f, a);
        print_needs_table(f, a);
        fputs("\nDevice code in the image\n", f);
        print_list(f, "NVIDIA SASS", a->nv_sass);
        print_list(f, "NVIDIA PTX", a->nv_ptx);
        print_list(f, "AMD", a->amd_gfx);
        bool header = false;
        for (size_t i = 0; i < a->n_objects; i++) {
                const struct xpu_object *o = &a->objects[i];
                if (!o->vendors)
                        continue;
                if (!header) {
                        fputs("\nVendor-tied objects (library; layers; device code)\n", f);
                        header = true;
                }
                char code[256], layers[160] = "";
                size_t used = 0;
                for (unsigned l = 0; l < _XPU_LAYER_MAX; l++)
                        if (o->layers & (1u << l))
                                used += (size_t)snprintf(layers + used, sizeof layers - used, "%s%s", used ? "," : "",
                                                         xpu_layer_name((enum xpu_layer)l));
                object_code(o, code, sizeof code);
                fprintf(f, "  %s (%s, %s, %s)\n      %s; %s; %s\n", safe(o->path), xpu_object_kind_name(o->kind),
                        xpu_code_vendor_name(o->vendors), human(o->size_bytes, b1, sizeof b1),
                        o->library_name ? o->library_name : "-", layers, code[0] ? safe(code) : "no device code");
        }
        if (a->n_targets) {
                fputs("\nVerdicts\n", f);
                for (size_t t = 0; t < a->n_targets; t++) {
                        const struct xpu_code_verdict *v = &a->verdicts[t];
                        fprintf(f, "  %-24s %-10s %s\n", safe(a->targets[t].name), v->not_judged ? "unknown" : level_name(v->level),
                                safe(v->reason));
                        if (v->override_name[0])
                                fprintf(f, "  %-24s %-10s %s=%s%s\n", "", "set", v->override_name, v->override_value,
                                        v->override_from_env ? " (from the environment)" : "");
                        /* A few name the problem; the JSON's "blocking" has them all. */
                        for (size_t i = 0; i < v->n_blocking && i < 3; i++)
                                fprintf(f, "  %-24s %-10s %s\n", "", i == 0 ? "decided by" : "", safe(v->blocking[i]));
                        if (v->n_blocking > 3)
                                fprintf(f, "  %-24s %-10s and %zu more (--json lists them all)\n", "", "",
                                        v->n_blocking - 3);
                }
        } else {
                fputs("\nVerdicts: no GPU to judge (no GPU on this host; pass --for sm_90 or --for gfx90a)\n", f);
        }
        if (a->n_issues) {
                fputs("\nIssues\n", f);
                for (size_t i = 0; i < a->n_issues; i++)
                        fprintf(f, "  %s: %s\n", a->issues[i].kind, safe(a->issues[i].message));
        }
        if (a->index_path)
                fprintf(f, "\nIndex: wrote %s (%zu vendor-tied objects)\n", safe(a->index_path), a->index_objects);
        return ferror(f) ? -EIO : 0;
}

/* ---- Kubernetes --------------------------------------------------------------------------------- */

int xpu_audit_render_k8s_affinity(const struct xpu_audit *a, FILE *f) {
        /* Every GPU kind a node label xpu.arch can name: NVIDIA compute capabilities CUDA knows,
         * AMD processors of LLVM's AMDGPUUsage processor table that ROCm runs on. */
        static const char *const kinds[] = {
                "sm_50",   "sm_52",   "sm_53",   "sm_60",   "sm_61",   "sm_62",   "sm_70",   "sm_72",   "sm_75",
                "sm_80",   "sm_86",   "sm_87",   "sm_88",   "sm_89",   "sm_90",   "sm_100",  "sm_101",  "sm_103",
                "sm_110",  "sm_120",  "sm_121",  "gfx900",  "gfx902",  "gfx904",  "gfx906",  "gfx908",  "gfx909",
                "gfx90a",  "gfx90c",  "gfx940",  "gfx941",  "gfx942",  "gfx950",  "gfx1010", "gfx1011", "gfx1012",
                "gfx1013", "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036", "gfx1100",
                "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153", "gfx1200", "gfx1201",
        };
        const char *admitted[ELEMENTSOF(kinds)];
        size_t n = 0;
        for (size_t i = 0; i < ELEMENTSOF(kinds); i++) {
                struct xpu_code_target t;
                struct xpu_code_verdict v;
                if (xpu_code_target_parse(kinds[i], &t) < 0)
                        continue;
                if (xpu_code_judge(a->objects, a->n_objects, &t, &a->env, &v) < 0)
                        return -ENOMEM;
                if (v.level <= XPU_CODE_PTX_JIT)
                        admitted[n++] = kinds[i];
                xpu_code_verdict_clear(&v);
        }
        if (n == 0) {
                log_error("audit --k8s-affinity: the device code of %s runs on no GPU kind natively or by PTX JIT "
                          "(see `xpuinit audit %s`); no nodeAffinity can admit a node",
                          a->root, a->root);
                return -ENOENT;
        }
        fprintf(f,
                "# xpuinit audit --k8s-affinity %s: nodes whose GPUs run this image's device code natively or by\n"
                "# PTX JIT, by the node label feature.node.kubernetes.io/xpu.arch (sm_90, gfx942, ...). Nodes that\n"
                "# mix GPU kinds (xpu.arch=mixed) are left out: the pod could get any of their GPUs. Neither the\n"
                "# driver's CUDA version nor an HSA override is considered.\n"
                "affinity:\n"
                "  nodeAffinity:\n"
                "    requiredDuringSchedulingIgnoredDuringExecution:\n"
                "      nodeSelectorTerms:\n"
                "        - matchExpressions:\n",
                safe(a->root));
        if (n == ELEMENTSOF(kinds)) {
                fputs("            - key: feature.node.kubernetes.io/xpu.present\n"
                      "              operator: In\n"
                      "              values: [\"true\"]\n",
                      f);
        } else {
                fputs("            - key: feature.node.kubernetes.io/xpu.arch\n"
                      "              operator: In\n"
                      "              values:\n",
                      f);
                for (size_t i = 0; i < n; i++)
                        fprintf(f, "                - \"%s\"\n", admitted[i]);
        }
        return ferror(f) ? -EIO : 0;
}
