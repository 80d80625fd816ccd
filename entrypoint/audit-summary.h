/* SPDX-License-Identifier: Apache-2.0 */
/* What `xpuinit audit` found, summarized (audit-summary.c): the objects, the verdicts, the issues
 * and the tallies by vendor class and layer. Filled by the audit (audit.c), printed by the
 * renderers (audit-render.h); includes neither. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devcode/judge.h"
#include "devcode/object.h"
#include "devcode/walk.h"

/* Vendor classes of the summary: vendor-neutral, NVIDIA, AMD, both. */
enum { XPU_AUDIT_NEUTRAL = 0, XPU_AUDIT_NVIDIA, XPU_AUDIT_AMD, XPU_AUDIT_BOTH, _XPU_AUDIT_CLASS_MAX };

/* Rows of the summary's one-count table: the layers (enum xpu_layer), then the vendor-neutral
 * objects, which belong to no layer. */
enum { XPU_AUDIT_ROW_NEUTRAL = _XPU_LAYER_MAX, _XPU_AUDIT_ROW_MAX };

struct xpu_audit_tally {
        uint64_t objects, bytes;
};

struct xpu_audit_issue {
        const char *kind;    /* "stub-driver-library", "malformed-object", "kernel-files-without-host-target" */
        const char *path;    /* borrowed: an object's path, or a verdict's kernel-file directory */
        char *message;
};

struct xpu_audit {
        const char *root;
        struct xpu_object *objects;     /* sorted by path */
        size_t n_objects;
        struct xpu_walk_stats walk;
        uint64_t read_errors;           /* objects that could not be read (I/O errors) */
        const struct xpu_code_target *targets;
        size_t n_targets;
        struct xpu_code_verdict *verdicts; /* one per target */
        struct xpu_code_env env;
        struct xpu_audit_issue *issues;
        size_t n_issues;
        struct xpu_audit_tally total, by_class[_XPU_AUDIT_CLASS_MAX];
        /* Each object once, in its row (xpu_audit_row()): the rows add up to TOTAL and BY_CLASS. */
        struct xpu_audit_tally by_row[_XPU_AUDIT_ROW_MAX][_XPU_AUDIT_CLASS_MAX];
        /* Each object in every layer it is or needs: where the lock-in reaches; rows overlap. */
        struct xpu_audit_tally needs[_XPU_LAYER_MAX][_XPU_AUDIT_CLASS_MAX];
        char **nv_sass, **nv_ptx, **amd_gfx; /* the union of targets the image covers, sorted */
        double elapsed_seconds;
        unsigned max_depth;             /* the walk's depth limit */
        const char *index_path;         /* --write-index, once written */
        size_t index_objects;
};

/* The summary class of VENDORS (XPU_CODE_VENDOR_* bits). */
unsigned xpu_audit_class(unsigned vendors);
/* "vendor-neutral", "nvidia", "amd", "nvidia+amd". */
const char *xpu_audit_class_name(unsigned c);
/* The row O counts in once: XPU_AUDIT_ROW_NEUTRAL for a vendor-neutral object; else the layer of
 * the vendor library it is; else runtime when it carries device code of its own (a statically
 * linked runtime registers it, and standalone kernel files are the runtime's to load); else the
 * first of its layers (those of the vendor libraries it needs, and parallel-algorithms for Thrust
 * or rocPRIM instantiations) in the order dnn, blas, sparse, fft-rand-solver, collectives,
 * parallel-algorithms, jit, other, runtime: the most specific library it needs, as every vendor
 * library needs the runtime, and DT_NEEDED's order is only the link line's. */
unsigned xpu_audit_row(const struct xpu_object *o);
/* "runtime", ..., "other", "vendor-neutral". */
const char *xpu_audit_row_name(unsigned row);
/* Fill A's totals, BY_CLASS, BY_ROW, NEEDS and the unions of targets from A->objects. Returns 0
 * or -ENOMEM. */
int xpu_audit_summarize(struct xpu_audit *a);
