/* SPDX-License-Identifier: Apache-2.0 */
/* plan: the plan as data (plan.h): its names, its lifetime, and the helpers the planner's files
 * (planner.c, plan-*.c) edit it with. */
#include "plan.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "sandbox/privilege.h"
#include "sandbox/seccomp.h"
#include "base/strv.h"
#include "vendor.h"
#include "base/str.h"


static const char *const op_names[_XPU_OP_MAX] = {
        [XPU_OP_MKDIR] = "mkdir",
        [XPU_OP_TMPFS] = "tmpfs",
        [XPU_OP_BIND] = "bind",
        [XPU_OP_SYMLINK] = "symlink",
        [XPU_OP_REMOUNT_RO] = "remount-ro",
        [XPU_OP_WRITE_FILE] = "write-file",
        [XPU_OP_LDCONFIG] = "ldconfig",
        [XPU_OP_CHECK_DEVNODE] = "check-device-node",
};


const char *xpu_op_type_to_string(enum xpu_op_type t) {
        return (unsigned)t < _XPU_OP_MAX ? op_names[t] : NULL;
}

struct xpu_plan *xpu_plan_free(struct xpu_plan *p) {
        if (!p)
                return NULL;
        free(p->device_code);
        xpu_strv_free(p->capabilities);
        xpu_driver_files_free(p->files);
        xpu_host_files_free(p->host_files);
        xpu_driver_files_free(p->files32);
        free(p->given);
        for (size_t i = 0; i < p->n_ops; i++)
                free(p->ops[i].content);
        free(p->ops);
        free(p->groups);
        xpu_strv_free(p->groups_from);
        xpu_strv_free(p->env);
        xpu_strv_free(p->argv);
        free(p->devices);
        xpu_strv_free(p->notes);
        xpu_strv_free(p->warnings);
        free(p);
        return NULL;
}

/* Append one formatted line to the string vector *V (*N counts it). */
static int push_line(char ***v, size_t *n, const char *fmt, va_list ap) _printf_(3, 0);
static int push_line(char ***v, size_t *n, const char *fmt, va_list ap) {
        char *s = NULL;
        if (vasprintf(&s, fmt, ap) < 0)
                return -ENOMEM;
        int r = xpu_strv_push(v, s);
        free(s);
        if (r >= 0)
                (*n)++;
        return r;
}

int xpu_plan_warning(struct xpu_plan *p, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = push_line(&p->warnings, &p->n_warnings, fmt, ap);
        va_end(ap);
        return r;
}

struct xpu_op *xpu_plan_add_op(struct xpu_plan *p, enum xpu_op_type type, const char *path) {
        if (p->n_ops >= p->ops_allocated) {
                size_t cap = p->ops_allocated ? p->ops_allocated * 2 : 16;
                struct xpu_op *n = reallocarray(p->ops, cap, sizeof *n);
                if (!n)
                        return NULL;
                p->ops = n;
                p->ops_allocated = cap;
        }
        struct xpu_op *op = &p->ops[p->n_ops];
        memset(op, 0, sizeof *op);
        op->type = type;
        op->filesystem = type != XPU_OP_CHECK_DEVNODE;
        if (xpu_strlcpy(op->path, path, sizeof op->path) < 0)
                return NULL;
        p->n_ops++;
        return op;
}

bool xpu_plan_mounts(const struct xpu_plan *p) {
        for (size_t i = 0; i < p->n_ops; i++)
                if (p->ops[i].type == XPU_OP_BIND || p->ops[i].type == XPU_OP_TMPFS)
                        return true;
        return false;
}

int xpu_plan_note(struct xpu_plan *p, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = push_line(&p->notes, &p->n_notes, fmt, ap);
        va_end(ap);
        return r;
}


int xpu_plan_warn_seccomp(struct xpu_plan *p, const struct xpu_seccomp_program *filter) {
        if (!p->cap_explicit)
                return 0;
        for (int cap = 0; cap <= XPU_CAP_LAST; cap++) {
                char calls[256];
                if (!(p->cap_keep & XPU_CAP_BIT(cap)) ||
                    xpu_capability_denied_calls(cap, filter, calls, sizeof calls) == 0)
                        continue;
                if (xpu_plan_warning(p, "keep_capabilities %s: the seccomp filter \"%s\" denies %s, what the capability is "
                            "for, so the workload cannot use it; use a JSON allow list that includes them, e.g. "
                            "[\"@strict\", \"%.*s\"] (docs/seccomp.md)",
                            xpu_capability_to_name(cap), xpu_seccomp_name(filter), calls,
                            (int)strcspn(calls, ","), calls) < 0)
                        return -ENOMEM;
        }
        return 0;
}
