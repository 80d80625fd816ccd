/* SPDX-License-Identifier: Apache-2.0 */
/* How a selection variable's entries are read and reported (select-entries.h). */
#include "select-entries.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/macro.h"
#include "vendor.h"

void xpu_sel_out_add(struct out *o, const char *fmt, ...) {
        if (!o->buf || o->size == 0 || o->used >= o->size)
                return;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(o->buf + o->used, o->size - o->used, fmt, ap);
        va_end(ap);
        if (n > 0)
                o->used += (size_t)n;
}

bool xpu_sel_in_scope(const struct var_rules *r, const struct xpu_device *d) {
        return r->vendor < 0 || (int)d->vendor == r->vendor;
}

/* "0 (nvidia:0 GPU-... 0000:1a:00.0)" for XPU_, "0 (GPU-... 0000:1a:00.0)" for a vendor's
 * variable (its numbers are vendor indices). */
void xpu_sel_describe_device(struct out *o, const struct var_rules *r, const struct xpu_device *d,
                             bool mark_unavailable) {
        if (r->global_index)
                xpu_sel_out_add(o, "%u (%s:%u", d->index, xpu_vendor_to_string(d->vendor), d->vendor_index);
        else
                xpu_sel_out_add(o, "%u (", d->vendor_index);
        const char *sep = r->global_index ? " " : "";
        if (d->uuid[0]) {
                xpu_sel_out_add(o, "%s%s", sep, d->uuid);
                sep = " ";
        }
        if (d->pci_bus_id[0]) {
                xpu_sel_out_add(o, "%s%s", sep, d->pci_bus_id);
                sep = " ";
        }
        if (mark_unavailable && !xpu_device_available(d))
                xpu_sel_out_add(o, "%snot given to this container", sep);
        xpu_sel_out_add(o, ")");
}

/* "; devices: 0 (...), 1 (...)" or "; no devices". */
static void list_devices(struct out *o, const struct var_rules *r, const struct xpu_inventory *inv) {
        const char *vendor = r->vendor >= 0 ? xpu_vendor_to_string((enum xpu_vendor)r->vendor) : NULL;
        size_t shown = 0;
        for (size_t i = 0; i < inv->n_devices; i++) {
                if (!xpu_sel_in_scope(r, &inv->devices[i]))
                        continue;
                if (shown++ == 0)
                        xpu_sel_out_add(o, "; %s%sdevices: ", vendor ? vendor : "", vendor ? " " : "");
                else
                        xpu_sel_out_add(o, ", ");
                xpu_sel_describe_device(o, r, &inv->devices[i], true);
        }
        if (shown == 0)
                xpu_sel_out_add(o, "; no %s%sdevices", vendor ? vendor : "", vendor ? " " : "");
}

int xpu_sel_fail_list(char *err, size_t err_size, const struct var_rules *r, const struct xpu_inventory *inv,
                      void (*list)(struct out *, const struct var_rules *, const struct xpu_inventory *),
                      const char *fmt, va_list ap) {
        struct out o = { .buf = err, .size = err_size };
        if (!err || !err_size)
                return -EINVAL;
        err[0] = '\0';
        xpu_sel_out_add(&o, "%s: ", r->name);
        if (o.used < o.size) {
                int n = vsnprintf(o.buf + o.used, o.size - o.used, fmt, ap);
                if (n > 0)
                        o.used += (size_t)n;
        }
        if (inv && list)
                list(&o, r, inv);
        return -EINVAL;
}

int xpu_sel_fail(char *err, size_t err_size, const struct var_rules *r, const struct xpu_inventory *inv,
                 const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int e = xpu_sel_fail_list(err, err_size, r, inv, list_devices, fmt, ap);
        va_end(ap);
        return e;
}

/* ---- entries --------------------------------------------------------------------------------- */

bool xpu_sel_all_digits(const char *s, size_t len) {
        if (len == 0)
                return false;
        for (size_t i = 0; i < len; i++)
                if (s[i] < '0' || s[i] > '9')
                        return false;
        return true;
}

const char *xpu_sel_missing_node(const struct xpu_device *d) {
        for (size_t i = 0; i < d->n_nodes; i++)
                if (!d->nodes[i].optional && !d->nodes[i].present)
                        return d->nodes[i].path;
        return "its device nodes";
}
