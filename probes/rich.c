/* SPDX-License-Identifier: Apache-2.0 */
/* The rich-path driver: see rich.h. */
#include "rich.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/macro.h"
#include "vendor.h"

const struct xpu_rich_ops *xpu_rich_backend_at(size_t i) {
        for (size_t v = 0; v < _XPU_VENDOR_MAX; v++)
                for (size_t k = 0; xpu_vendors[v]->probe.rich && xpu_vendors[v]->probe.rich[k]; k++)
                        if (i-- == 0)
                                return xpu_vendors[v]->probe.rich[k];
        return NULL;
}

const struct xpu_rich_ops *xpu_rich_backend(enum xpu_source source) {
        const struct xpu_rich_ops *ops;
        for (size_t i = 0; (ops = xpu_rich_backend_at(i)); i++)
                if (ops->source == source)
                        return ops;
        return NULL;
}

static uint64_t now_us(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int xpu_rich_read(const struct xpu_rich_ops *ops, const struct xpu_roots *roots, const struct xpu_inventory *inv,
                  unsigned timeout_ms, void **ret, struct xpu_rich_report *rep) {
        *rep = (struct xpu_rich_report){ .source = ops->source, .ran = true };
        *ret = NULL;
        uint64_t t0 = now_us();
        rep->error = ops->read(roots, inv, timeout_ms, ret, rep->message, sizeof rep->message);
        rep->elapsed_us = now_us() - t0;
        if (rep->error < 0 && !rep->message[0])
                snprintf(rep->message, sizeof rep->message, "%s", strerror(-rep->error));
        return rep->error;
}

static int probe(const struct xpu_roots *roots, struct xpu_inventory *inv, uint32_t sources, bool alternatives,
                 unsigned timeout_ms, struct xpu_rich_report *reports, void **keep) {
        const char *answered[_XPU_VENDOR_MAX] = { NULL }; /* per vendor: the backend that answered */
        const struct xpu_rich_ops *ops;
        for (size_t i = 0; (ops = xpu_rich_backend_at(i)); i++) {
                if (!(sources & (1u << ops->source)))
                        continue;
                struct xpu_rich_report rep = { .source = ops->source };
                const char *name = xpu_source_to_string(ops->source);
                if (!inv->vendors[ops->vendor].driver_loaded || (alternatives && answered[ops->vendor])) {
                        if (answered[ops->vendor])
                                snprintf(rep.message, sizeof rep.message, "skipped: %s answered", answered[ops->vendor]);
                        else
                                snprintf(rep.message, sizeof rep.message, "skipped: no %s kernel driver loaded",
                                         xpu_vendor_to_string(ops->vendor));
                        if (reports)
                                reports[ops->source] = rep;
                        continue;
                }
                void *result = NULL;
                if (xpu_rich_read(ops, roots, inv, timeout_ms, &result, &rep) == -ENOMEM)
                        return -ENOMEM;
                if (rep.error < 0) {
                        if (xpu_inventory_warn(inv, "%s: %s; keeping the fast-path inventory", name, rep.message) < 0)
                                return -ENOMEM;
                        char *note = inv->vendors[ops->vendor].rich_note;
                        if (!note[0])
                                snprintf(note, sizeof(inv->vendors[0].rich_note), "%s: %s", name, rep.message);
                } else {
                        rep.matched = ops->merge(inv, result);
                        if (rep.matched < 0) {
                                free(result);
                                return rep.matched;
                        }
                        inv->vendors[ops->vendor].rich_ok |= 1u << ops->source;
                        answered[ops->vendor] = name;
                        if (keep)
                                keep[ops->source] = result;
                        else
                                free(result);
                }
                if (reports)
                        reports[ops->source] = rep;
        }
        return 0;
}

int xpu_rich_probe(const struct xpu_roots *roots, struct xpu_inventory *inv, uint32_t sources, unsigned timeout_ms,
                   struct xpu_rich_report *reports, void **keep) {
        return probe(roots, inv, sources, false, timeout_ms, reports, keep);
}

int xpu_rich_probe_first(const struct xpu_roots *roots, struct xpu_inventory *inv, uint32_t sources,
                         unsigned timeout_ms, struct xpu_rich_report *reports) {
        return probe(roots, inv, sources, true, timeout_ms, reports, NULL);
}

cJSON *xpu_rich_reports_to_json(const struct xpu_rich_report *reports, uint32_t sources) {
        cJSON *root = cJSON_CreateObject();
        bool ok = root != NULL;
        const struct xpu_rich_ops *ops;
        for (size_t i = 0; ok && (ops = xpu_rich_backend_at(i)); i++) {
                if (!(sources & (1u << ops->source)))
                        continue;
                const struct xpu_rich_report *r = &reports[ops->source];
                cJSON *o = cJSON_AddObjectToObject(root, xpu_source_to_string(ops->source));
                const char *status = !r->ran ? "skipped" : r->error < 0 ? "error" : "ok";
                ok = o && cJSON_AddStringToObject(o, "status", status) &&
                     cJSON_AddStringToObject(o, "library", ops->library);
                if (ok && r->ran)
                        ok = cJSON_AddNumberToObject(o, "elapsed_us", (double)r->elapsed_us) != NULL;
                if (ok && r->ran && r->error == 0)
                        ok = cJSON_AddNumberToObject(o, "devices", r->matched) != NULL;
                if (ok && r->message[0])
                        ok = cJSON_AddStringToObject(o, r->ran ? "error" : "reason", r->message) != NULL;
        }
        if (!ok) {
                cJSON_Delete(root);
                return NULL;
        }
        return root;
}
