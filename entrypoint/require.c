/* SPDX-License-Identifier: Apache-2.0 */
/* Requirement expressions (require.h), the checks: the factors of a parsed expression
 * (require-parse.c) against the inventory, saying, on failure, what was required and what the
 * host has. */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "base/macro.h"
#include "base/str.h"
#include "base/strv.h"
#include "require-parse.h"
#include "require.h"
#include "version.h"
#include "vendor.h"

/* ---- checking --------------------------------------------------------------------------------- */

struct host {
        const struct xpu_inventory *inv;
        const bool *selected; /* NULL: none */
        enum xpu_vendor vendor; /* _XPU_VENDOR_MAX: none */
};

static bool op_holds(enum op op, int cmp) {
        switch (op) {
        case OP_EQ:
                return cmp == 0;
        case OP_NE:
                return cmp != 0;
        case OP_LT:
                return cmp < 0;
        case OP_LE:
                return cmp <= 0;
        case OP_GT:
                return cmp > 0;
        case OP_GE:
                return cmp >= 0;
        default:
                return false;
        }
}

/* Compare the fact FACT (a string of F's kind) with F's value. */
static int fact_cmp(const struct factor *f, const char *fact) {
        switch (xpu_require_keys[f->key].kind) {
        case KIND_NAME:
                return strcasecmp(fact, f->value);
        case KIND_EXACT:
                return strcmp(fact, f->value);
        case KIND_VERSION:
                return xpu_version_cmp(fact, f->value);
        case KIND_BYTES:
        default:
                return 0; /* numbers are compared by the caller */
        }
}

/* A host-wide version fact (driver, cuda, rocm) against F. FOUND gets what the host has, as the
 * end of "<factor> but ...". *KNOWN says whether the host reported the fact. */
static bool check_version_fact(const struct factor *f, const char *fact, const char *what, const char *extra,
                               char *found, size_t size, bool *known) {
        if (!xpu_version_is_dotted(fact)) {
                *known = false;
                snprintf(found, size, "host %s \"%s\" is not a dotted number", what, fact);
                return false;
        }
        *known = true;
        snprintf(found, size, "host has %s %s%s", what, fact, extra);
        return op_holds(f->op, fact_cmp(f, fact));
}

/* Why a rich-path fact of VENDOR is unknown, into BUF: no driver; the backends that answered but
 * did not report it; the first backend's error; or that no backend ran. Returns BUF. */
static const char *rich_unknown(const struct xpu_inventory *inv, enum xpu_vendor vendor, char *buf, size_t size) {
        const struct xpu_vendor_info *vi = &inv->vendors[vendor];
        if (!vi->driver_loaded && !vi->driver_version[0]) {
                snprintf(buf, size, "no %s driver loaded", xpu_vendor_to_string(vendor));
                return buf;
        }
        if (vi->rich_ok) {
                size_t len = (size_t)snprintf(buf, size, "not reported by");
                for (int src = 0; src < _XPU_SOURCE_MAX && len < size; src++)
                        if (vi->rich_ok & (1u << src))
                                len += (size_t)snprintf(buf + len, size - len, " %s", xpu_source_to_string(src));
                return buf;
        }
        snprintf(buf, size, "%s", vi->rich_note[0] ? vi->rich_note : "needs the rich probe");
        return buf;
}

/* The host's CUDA driver version against F (KEY_CUDA), as check_host_factor() does. */
static bool check_cuda_factor(const struct factor *f, const struct xpu_inventory *inv, char *found, size_t size,
                              bool *known) {
        enum xpu_vendor cv = xpu_vendor_cuda();
        if (cv == _XPU_VENDOR_MAX) {
                snprintf(found, size, "host CUDA driver version unknown (no backend reports it)");
                return false;
        }
        const char *driver = inv->vendors[cv].driver_version;
        const char *cuda = inv->vendors[cv].cuda_driver_version;
        if (!cuda[0]) {
                char why[700];
                snprintf(found, size, "host CUDA driver version unknown (%s)%s%s",
                         rich_unknown(inv, cv, why, sizeof why), driver[0] ? "; driver " : "", driver);
                return false;
        }
        char extra[48] = "";
        if (driver[0])
                snprintf(extra, sizeof extra, " (driver %s)", driver);
        return check_version_fact(f, cuda, "CUDA driver", extra, found, size, known);
}

static bool check_host_factor(const struct factor *f, const struct host *h, char *found, size_t size, bool *known) {
        const struct xpu_inventory *inv = h->inv;
        const char *vendor = xpu_vendor_to_string(h->vendor);
        *known = false;
        switch (f->key) {
        case KEY_VENDOR:
                *known = true;
                if (vendor)
                        snprintf(found, size, "host has vendor %s", vendor);
                else
                        snprintf(found, size, "host has no vendor (cpu profile)");
                return op_holds(f->op, vendor ? fact_cmp(f, vendor) : 1);
        case KEY_DRIVER: {
                if (!vendor) {
                        snprintf(found, size, "host has no vendor driver (cpu profile)");
                        return false;
                }
                const struct xpu_vendor_info *vi = &inv->vendors[h->vendor];
                if (!vi->driver_version[0]) {
                        snprintf(found, size, "host %s driver version unknown%s", vendor,
                                 vi->driver_loaded ? "" : " (no driver loaded)");
                        return false;
                }
                char what[32];
                snprintf(what, sizeof what, "%s driver", vendor);
                return check_version_fact(f, vi->driver_version, what, "", found, size, known);
        }
        case KEY_CUDA:
                return check_cuda_factor(f, inv, found, size, known);
        case KEY_ROCM:
                snprintf(found, size, "host ROCm version unknown (no backend reports it yet)");
                return false;
        case KEY_ARCH:
        case KEY_BRAND:
        case KEY_GFX:
        case KEY_MEMORY:
        case KEY_L4T:
        case _KEY_MAX:
        default:
                return false; /* per-device keys: check_device_factor() */
        }
}

/* A per-device factor against device D. */
static bool check_device_factor(const struct factor *f, const struct xpu_inventory *inv, const struct xpu_device *d,
                                char *found, size_t size, bool *known) {
        char name[40];
        snprintf(name, sizeof name, "%s:%u", xpu_vendor_to_string(d->vendor), d->vendor_index);
        *known = false;
        /* The vendor's own fact under this key (its descriptor's require_facts): "" when its GPUs
         * have none or this one does not know it. */
        const struct xpu_vendor_ops *ops = xpu_vendor(d->vendor);
        const char *fact = xpu_fact_label_value(ops ? ops->require.facts : NULL, d, xpu_require_keys[f->key].name);
        switch (f->key) {
        case KEY_ARCH:
                if (!fact[0]) {
                        char why[700];
                        snprintf(found, size, "%s compute capability unknown (%s)", name,
                                 rich_unknown(inv, d->vendor, why, sizeof why));
                        return false;
                }
                if (!xpu_version_is_dotted(fact)) {
                        snprintf(found, size, "%s compute capability \"%s\" is not a dotted number", name,
                                 fact);
                        return false;
                }
                *known = true;
                snprintf(found, size, "host has %s with compute capability %s", name, fact);
                return op_holds(f->op, fact_cmp(f, fact));
        case KEY_BRAND:
                /* No source on the fast path: NVML's brand comes with the rich probe. */
                if (!fact[0]) {
                        char why[700];
                        snprintf(found, size, "%s brand unknown (%s)", name, rich_unknown(inv, d->vendor, why, sizeof why));
                        return false;
                }
                *known = true;
                snprintf(found, size, "host has %s of brand %s", name, fact);
                return op_holds(f->op, fact_cmp(f, fact));
        case KEY_GFX:
                if (!fact[0]) {
                        snprintf(found, size, "%s gfx target unknown", name);
                        return false;
                }
                *known = true;
                snprintf(found, size, "host has %s with %s", name, fact);
                return op_holds(f->op, fact_cmp(f, fact));
        case KEY_MEMORY:
                if (!(d->have & XPU_HAVE_MEMORY_TOTAL)) {
                        char why[700];
                        snprintf(found, size, "%s memory size unknown (%s)", name, rich_unknown(inv, d->vendor, why, sizeof why));
                        return false;
                }
                *known = true;
                snprintf(found, size, "host has %s with %" PRIu64 " bytes", name, d->memory_total_bytes);
                return op_holds(f->op, d->memory_total_bytes < f->bytes   ? -1
                                       : d->memory_total_bytes > f->bytes ? 1
                                                                          : 0);
        case KEY_L4T:
                /* The vendor's own version fact (an NVIDIA Jetson's L4T release); a GPU that is
                 * not a Jetson's has none, so the factor fails there (lenient checks: unchecked). */
                if (!fact[0]) {
                        snprintf(found, size, "%s has no L4T release (not a Jetson, or /etc/nv_tegra_release "
                                 "unreadable)", name);
                        return false;
                }
                *known = true;
                snprintf(found, size, "host has %s on L4T %s (a newer L4T comes with a newer JetPack)", name, fact);
                return op_holds(f->op, fact_cmp(f, fact));
        case KEY_VENDOR:
        case KEY_DRIVER:
        case KEY_CUDA:
        case KEY_ROCM:
        case _KEY_MAX:
        default:
                return false;
        }
}

static bool check_factor(const struct factor *f, const struct host *h, char *found, size_t size, bool *known) {
        if (!xpu_require_keys[f->key].per_device)
                return check_host_factor(f, h, found, size, known);
        for (size_t i = 0; h->selected && i < h->inv->n_devices; i++) {
                const struct xpu_device *d = &h->inv->devices[i];
                if (h->selected[i] && d->vendor == h->vendor && !check_device_factor(f, h->inv, d, found, size, known))
                        return false;
        }
        return true;
}

/* UNKNOWN_MET: a factor whose fact the host does not report counts as met; its text is listed
 * in UNCHECKED (may be NULL). */
static int check_selected(const struct xpu_require *r, const struct xpu_inventory *inv, const bool *selected,
                          enum xpu_vendor vendor, bool unknown_met, char *unchecked, size_t unchecked_size,
                          char *why, size_t why_size) {
        if (unchecked && unchecked_size)
                unchecked[0] = '\0';
        if (!inv || (unsigned)vendor > _XPU_VENDOR_MAX)
                return -EINVAL;
        if (!r || r->n_terms == 0) {
                if (why && why_size)
                        snprintf(why, why_size, "no requirement");
                return 1;
        }
        const struct host h = { .inv = inv, .selected = selected, .vendor = vendor };
        const struct factor *first = NULL;
        bool first_known = false;
        char first_found[1024] = "";
        for (size_t t = 0; t < r->n_terms; t++) {
                bool ok = true;
                for (size_t i = 0; ok && i < r->terms[t].n; i++) {
                        const struct factor *f = &r->factors[r->terms[t].first + i];
                        char found[1024];
                        bool known = false;
                        ok = check_factor(f, &h, found, sizeof found, &known);
                        if (!ok && !known && unknown_met) {
                                ok = true;
                                if (unchecked && unchecked_size) {
                                        size_t len = strlen(unchecked);
                                        snprintf(unchecked + len, unchecked_size - len, "%s%s (%s)", len ? "; " : "",
                                                 f->text, found);
                                }
                                continue;
                        }
                        if (!ok && !first) {
                                first = f;
                                first_known = known;
                                xpu_strlcpy(first_found, found, sizeof first_found);
                        }
                }
                if (ok) {
                        if (why && why_size)
                                snprintf(why, why_size, "requirement \"%s\" met", r->text);
                        return 1;
                }
        }
        if (why && why_size && first) {
                /* Advice only where a known version was the problem: an unknown one is not fixed by
                 * updating anything. */
                const struct xpu_vendor_ops *ops = NULL;
                if (first_known && first->key == KEY_CUDA)
                        ops = xpu_vendor(xpu_vendor_cuda());
                else if (first_known && first->key == KEY_DRIVER)
                        ops = xpu_vendor(vendor);
                const char *advice = !ops ? NULL : ops->require.advice ? ops->require.advice : "update the driver";
                snprintf(why, why_size, "requirement \"%s\" not met: %s%s but %s%s%s", r->text,
                         r->n_terms > 1 ? "no alternative met; first: " : "", first->text, first_found,
                         advice ? "; " : "", advice ? advice : "");
        }
        return 0;
}

int xpu_require_check_selected(const struct xpu_require *r, const struct xpu_inventory *inv, const bool *selected,
                               enum xpu_vendor vendor, char *why, size_t why_size) {
        return check_selected(r, inv, selected, vendor, false, NULL, 0, why, why_size);
}

int xpu_require_check_lenient(const struct xpu_require *r, const struct xpu_inventory *inv, const bool *selected,
                              enum xpu_vendor vendor, char *unchecked, size_t unchecked_size, char *why,
                              size_t why_size) {
        return check_selected(r, inv, selected, vendor, true, unchecked, unchecked_size, why, why_size);
}

int xpu_require_check(const struct xpu_require *r, const struct xpu_inventory *inv, const struct xpu_selection *sel,
                      enum xpu_vendor vendor, char *why, size_t why_size) {
        if (inv && sel && sel->n != inv->n_devices)
                return -EINVAL;
        return xpu_require_check_selected(r, inv, sel ? sel->selected : NULL, vendor, why, why_size);
}

uint32_t xpu_require_sources(const struct xpu_require *r) {
        uint32_t s = 0;
        for (size_t i = 0; r && i < r->n_factors; i++)
                s |= xpu_require_keys[r->factors[i].key].sources;
        return s;
}
