/* SPDX-License-Identifier: Apache-2.0 */
/* How one selection variable's entries are read and reported (select-entries.c): the variable's
 * rules, the message buffer, where entries go, and the error lines that list the devices. Shared
 * by the list reader (select.c) and the MIG forms (select-mig.h); includes neither. Not an
 * interface of the selection: select.h is. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"
#include "probe.h"

/* How one variable's list entries are read. */
struct var_rules {
        const char *name;   /* the variable */
        int vendor;         /* -1: every vendor (XPU_); else only that vendor's devices */
        bool global_index;  /* a plain number is an xpuinit index (else the vendor index) */
        bool vendor_prefix; /* "nvidia:1" */
        bool ranges;        /* "0-3" (amd-container-runtime) */
        bool unique_id;     /* "0x<hex>": a vendor's unique id (visibility.unique_id: AMD KFD, amd-container-runtime) */
};

struct out {
        char *buf;
        size_t size;
        size_t used;
};

/* Append FMT to O (cut at its size). */
void xpu_sel_out_add(struct out *o, const char *fmt, ...) _printf_(2, 3);

/* Is D one of the devices R's variable speaks of? */
bool xpu_sel_in_scope(const struct var_rules *r, const struct xpu_device *d);

/* Append D as a message names it: "0 (nvidia:0 GPU-... 0000:1a:00.0)" for XPU_, "0 (GPU-...
 * 0000:1a:00.0)" for a vendor's variable (its numbers are vendor indices); MARK_UNAVAILABLE adds
 * what the runtime did not give. */
void xpu_sel_describe_device(struct out *o, const struct var_rules *r, const struct xpu_device *d,
                             bool mark_unavailable);

/* ERR = "<variable>: <FMT...>" followed by what LIST adds (NULL: nothing). Returns -EINVAL. */
int xpu_sel_fail_list(char *err, size_t err_size, const struct var_rules *r, const struct xpu_inventory *inv,
                      void (*list)(struct out *, const struct var_rules *, const struct xpu_inventory *),
                      const char *fmt, va_list ap) _printf_(6, 0);

/* The error line, with the devices of INV (NULL: without) listed. Returns -EINVAL. */
int xpu_sel_fail(char *err, size_t err_size, const struct var_rules *r, const struct xpu_inventory *inv,
                 const char *fmt, ...) _printf_(5, 6);

/* S[0..LEN) is one or more decimal digits. */
bool xpu_sel_all_digits(const char *s, size_t len);

/* First non-optional per-device node of D that is missing, for the message. */
const char *xpu_sel_missing_node(const struct xpu_device *d);

/* Where one variable's entries go: whole devices, and MIG devices of a device (select.h). */
struct sel_out {
        bool *whole;
        uint32_t *mig;
};
