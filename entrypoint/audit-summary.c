/* SPDX-License-Identifier: Apache-2.0 */
/* The audit's summary (audit-summary.h): vendor classes, layer rows, tallies and the unions of
 * targets. */
#include "audit-summary.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/strv.h"

unsigned xpu_audit_class(unsigned vendors) {
        bool nv = vendors & XPU_CODE_VENDOR_NVIDIA, amd = vendors & XPU_CODE_VENDOR_AMD;
        return nv && amd ? XPU_AUDIT_BOTH : nv ? XPU_AUDIT_NVIDIA : amd ? XPU_AUDIT_AMD : XPU_AUDIT_NEUTRAL;
}

const char *xpu_audit_class_name(unsigned c) {
        static const char *const names[_XPU_AUDIT_CLASS_MAX] = { "vendor-neutral", "nvidia", "amd", "nvidia+amd" };
        return c < _XPU_AUDIT_CLASS_MAX ? names[c] : NULL;
}

static int add_union(char ***dst, char *const *src) {
        for (char *const *p = src; p && *p; p++) {
                bool have = false;
                for (char **q = *dst; q && *q && !have; q++)
                        have = strcmp(*q, *p) == 0;
                if (!have && xpu_strv_push(dst, *p) < 0)
                        return -ENOMEM;
        }
        return 0;
}

static void tally(struct xpu_audit_tally *t, const struct xpu_object *o) {
        t->objects++;
        t->bytes += o->size_bytes;
}

unsigned xpu_audit_row(const struct xpu_object *o) {
        /* The order a needed layer is picked in: the most specific first, the runtime last. */
        static const enum xpu_layer needed_order[] = {
                XPU_LAYER_DNN,         XPU_LAYER_BLAS,       XPU_LAYER_SPARSE,
                XPU_LAYER_FFT_RAND_SOLVER, XPU_LAYER_COLLECTIVES, XPU_LAYER_PARALLEL_ALGORITHMS,
                XPU_LAYER_JIT,         XPU_LAYER_OTHER,      XPU_LAYER_RUNTIME,
        };
        if (!o->vendors)
                return XPU_AUDIT_ROW_NEUTRAL;
        if (o->library)
                return o->library->layer;
        if (o->kind != XPU_OBJECT_ELF || xpu_object_has_code(o, XPU_CODE_VENDOR_NVIDIA) ||
            xpu_object_has_code(o, XPU_CODE_VENDOR_AMD))
                return XPU_LAYER_RUNTIME;
        for (size_t i = 0; i < ELEMENTSOF(needed_order); i++)
                if (o->layers & (1u << needed_order[i]))
                        return needed_order[i];
        return XPU_LAYER_RUNTIME; /* tied by code the reader could not place: the runtime's */
}

const char *xpu_audit_row_name(unsigned row) {
        return row == XPU_AUDIT_ROW_NEUTRAL ? "vendor-neutral" : xpu_layer_name((enum xpu_layer)row);
}

int xpu_audit_summarize(struct xpu_audit *a) {
        for (size_t i = 0; i < a->n_objects; i++) {
                const struct xpu_object *o = &a->objects[i];
                unsigned c = xpu_audit_class(o->vendors);
                tally(&a->total, o);
                tally(&a->by_class[c], o);
                tally(&a->by_row[xpu_audit_row(o)][c], o);
                for (unsigned l = 0; l < _XPU_LAYER_MAX; l++)
                        if (o->layers & (1u << l))
                                tally(&a->needs[l][c], o);
                if (add_union(&a->nv_sass, o->nv_sass) < 0 || add_union(&a->nv_ptx, o->nv_ptx) < 0 ||
                    add_union(&a->amd_gfx, o->amd_gfx) < 0)
                        return -ENOMEM;
        }
        char **lists[] = { a->nv_sass, a->nv_ptx, a->amd_gfx };
        for (size_t i = 0; i < ELEMENTSOF(lists); i++)
                if (lists[i])
                        qsort(lists[i], xpu_strv_length(lists[i]), sizeof(char *), xpu_code_name_cmp);
        return 0;
}
