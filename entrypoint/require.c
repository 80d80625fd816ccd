/* SPDX-License-Identifier: Apache-2.0 */
/* Requirement expressions (require.h): a silent parser into terms of factors, and a check of the
 * factors against the inventory that says, on failure, what was required and what the host has. */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/macro.h"
#include "base/strv.h"
#include "require.h"

enum key {
        KEY_VENDOR = 0,
        KEY_DRIVER,
        KEY_CUDA,
        KEY_ARCH,
        KEY_BRAND,
        KEY_ROCM,
        KEY_GFX,
        KEY_MEMORY,
        _KEY_MAX,
};

/* How a key's values are written and compared. */
enum kind {
        KIND_NAME,    /* = and != only, case-insensitive: [A-Za-z0-9._-]+ */
        KIND_EXACT,   /* = and != only, exact: [A-Za-z0-9._-]+ */
        KIND_VERSION, /* every operator, dotted numbers */
        KIND_BYTES,   /* every operator, an unsigned decimal number */
};

static const struct {
        const char *name;
        enum kind kind;
        bool per_device; /* checked on every selected device of the vendor */
        uint32_t sources; /* the rich sources (bits of enum xpu_source) that report this fact */
} keys[_KEY_MAX] = {
        [KEY_VENDOR] = { "vendor", KIND_NAME, false, 0 }, /* the chosen profile's vendor */
        [KEY_DRIVER] = { "driver", KIND_VERSION, false, 0 },
        [KEY_CUDA] = { "cuda", KIND_VERSION, false, (1u << XPU_SOURCE_NVML) | (1u << XPU_SOURCE_CUDA) },
        /* compute capability */
        [KEY_ARCH] = { "arch", KIND_VERSION, true, (1u << XPU_SOURCE_NVML) | (1u << XPU_SOURCE_CUDA) },
        [KEY_BRAND] = { "brand", KIND_NAME, true, 1u << XPU_SOURCE_NVML }, /* NVML brand: tesla, geforce, ... */
        [KEY_ROCM] = { "rocm", KIND_VERSION, false, 0 },
        [KEY_GFX] = { "gfx", KIND_EXACT, true, 0 },       /* gfx target: gfx90a */
        /* bytes; sysfs has it for AMD, NVIDIA's procfs does not */
        [KEY_MEMORY] = { "memory", KIND_BYTES, true, (1u << XPU_SOURCE_NVML) | (1u << XPU_SOURCE_CUDA) },
};

enum op { OP_EQ = 0, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, _OP_MAX };

static const char *const op_names[_OP_MAX] = {
        [OP_EQ] = "=", [OP_NE] = "!=", [OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=",
};

#define OPS_EXPECTED "one of = != < <= > >="
#define KEYS_EXPECTED "one of vendor, driver, cuda, arch, brand, rocm, gfx, memory"
#define FACTOR_TEXT_MAX (8 + 2 + XPU_REQUIRE_VALUE_MAX + 1) /* key, operator, value, NUL */
#define SHOW_MAX 80                                         /* bytes of user text quoted in an error */

struct factor {
        enum key key;
        enum op op;
        char value[XPU_REQUIRE_VALUE_MAX + 1];
        uint64_t bytes;              /* KIND_BYTES */
        char text[FACTOR_TEXT_MAX]; /* "driver>=465", key in lower case */
};

struct term {
        size_t first; /* index into factors */
        size_t n;
};

struct xpu_require {
        struct factor *factors;
        size_t n_factors;
        size_t cap_factors; /* allocated */
        struct term terms[XPU_REQUIRE_TERMS_MAX];
        size_t n_terms;
        char *text; /* normal form */
};

struct xpu_require *xpu_require_free(struct xpu_require *r) {
        if (r) {
                free(r->factors);
                free(r->text);
                free(r);
        }
        return NULL;
}

static void xpu_require_freep(struct xpu_require **r) {
        xpu_require_free(*r);
}

const char *xpu_require_to_string(const struct xpu_require *r) {
        return r && r->text ? r->text : "";
}

/* ---- parsing ---------------------------------------------------------------------------------- */

static bool is_space(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_alpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

/* S[0..LEN) for an error message: at most SHOW_MAX bytes ("..." after), anything but printable
 * ASCII shown as '?'. */
static const char *show(char *buf, size_t size, const char *s, size_t len) {
        size_t n = 0;
        for (size_t i = 0; i < len && i < SHOW_MAX && n + 1 < size; i++) {
                unsigned char c = (unsigned char)s[i];
                buf[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
        }
        buf[n] = '\0';
        if (len > SHOW_MAX && n + 4 <= size)
                memcpy(buf + n, "...", 4);
        return buf;
}

/* One component of a dotted number at *S (digits), advanced past it and its '.'. Returns 0 and
 * the value, -EINVAL when *S does not start with a digit, -ERANGE above UINT64_MAX. */
static int take_component(const char **s, uint64_t *ret) {
        const char *p = *s;
        if (!is_digit(*p))
                return -EINVAL;
        uint64_t v = 0;
        for (; is_digit(*p); p++) {
                uint64_t d = (uint64_t)(*p - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        if (*p == '.') {
                p++;
                if (!is_digit(*p))
                        return -EINVAL; /* "12." or "12..1" */
        }
        *s = p;
        *ret = v;
        return 0;
}

/* True when S is a dotted number: digits ('.' digits)*, each component within 64 bits. */
static bool is_dotted(const char *s) {
        if (!*s)
                return false;
        while (*s) {
                uint64_t v;
                if (take_component(&s, &v) < 0)
                        return false;
        }
        return true;
}

int xpu_version_cmp(const char *a, const char *b) {
        while (*a || *b) {
                uint64_t x = 0, y = 0;
                if (*a && take_component(&a, &x) < 0)
                        return 0; /* not reached for checked input */
                if (*b && take_component(&b, &y) < 0)
                        return 0;
                if (x != y)
                        return x < y ? -1 : 1;
        }
        return 0;
}

static bool is_name(const char *s) {
        if (!*s)
                return false;
        for (; *s; s++)
                if (!is_alpha(*s) && !is_digit(*s) && *s != '.' && *s != '_' && *s != '-')
                        return false;
        return true;
}

_printf_(5, 6) static int parse_fail(char *err, size_t err_size, const char *s, size_t len, const char *fmt, ...) {
        if (err && err_size) {
                char shown[SHOW_MAX + 4];
                char what[256];
                va_list ap;
                va_start(ap, fmt);
                vsnprintf(what, sizeof what, fmt, ap);
                va_end(ap);
                snprintf(err, err_size, "requirement \"%s\": %s", show(shown, sizeof shown, s, len), what);
        }
        return -EINVAL;
}

/* Parse the factor S[0..LEN) into F. */
static int parse_factor(const char *s, size_t len, struct factor *f, char *err, size_t err_size) {
        char shown[SHOW_MAX + 4];
        size_t k = 0;
        while (k < len && is_alpha(s[k]))
                k++;
        if (k == 0)
                return parse_fail(err, err_size, s, len, "expected KEY OP VALUE, e.g. cuda>=12.2");
        int key = -1;
        for (int i = 0; i < _KEY_MAX && key < 0; i++)
                if (strlen(keys[i].name) == k && strncasecmp(s, keys[i].name, k) == 0)
                        key = i;
        if (key < 0)
                return parse_fail(err, err_size, s, len, "unknown key \"%s\"; expected %s",
                                  show(shown, sizeof shown, s, k), KEYS_EXPECTED);
        size_t o = k;
        while (o < len && strchr("=!<>", s[o]))
                o++;
        if (o == k)
                return parse_fail(err, err_size, s, len, "expected an operator after \"%s\", %s", keys[key].name,
                                  OPS_EXPECTED);
        int op = -1;
        for (int i = 0; i < _OP_MAX && op < 0; i++)
                if (strlen(op_names[i]) == o - k && strncmp(s + k, op_names[i], o - k) == 0)
                        op = i;
        if (op < 0)
                return parse_fail(err, err_size, s, len, "unknown operator \"%s\"; expected %s",
                                  show(shown, sizeof shown, s + k, o - k), OPS_EXPECTED);
        if (o == len)
                return parse_fail(err, err_size, s, len, "no value after \"%s\"", op_names[op]);
        if (len - o > XPU_REQUIRE_VALUE_MAX)
                return parse_fail(err, err_size, s, len, "value longer than %d bytes",
                                  XPU_REQUIRE_VALUE_MAX);
        *f = (struct factor){ .key = (enum key)key, .op = (enum op)op };
        memcpy(f->value, s + o, len - o);
        f->value[len - o] = '\0';
        const char *v = show(shown, sizeof shown, f->value, len - o);
        switch (keys[key].kind) {
        case KIND_NAME:
        case KIND_EXACT:
                if (op != OP_EQ && op != OP_NE)
                        return parse_fail(err, err_size, s, len, "%s compares only with = or !=", keys[key].name);
                if (!is_name(f->value))
                        return parse_fail(err, err_size, s, len,
                                          "\"%s\" is not a name (letters, digits, '.', '_', '-')", v);
                break;
        case KIND_VERSION:
                if (!is_dotted(f->value))
                        return parse_fail(err, err_size, s, len, "\"%s\" is not a dotted number (e.g. 12.2)", v);
                break;
        case KIND_BYTES: {
                bool digits = true;
                for (const char *q = f->value; *q; q++)
                        digits = digits && is_digit(*q);
                if (!digits || xpu_parse_u64(f->value, 10, &f->bytes) < 0)
                        return parse_fail(err, err_size, s, len,
                                          "\"%s\" is not a number of bytes (plain decimal, no suffix)", v);
                break;
        }
        default:
                return -EINVAL;
        }
        snprintf(f->text, sizeof f->text, "%s%s%s", keys[key].name, op_names[op], f->value);
        return 0;
}

/* Parse the term S[0..LEN) (no white space in it) into R. */
static int parse_term(struct xpu_require *r, const char *s, size_t len, char *err, size_t err_size) {
        struct term *t = &r->terms[r->n_terms];
        *t = (struct term){ .first = r->n_factors };
        for (size_t at = 0;;) {
                size_t end = at;
                while (end < len && s[end] != ',')
                        end++;
                if (end == at)
                        return parse_fail(err, err_size, s, len,
                                          "empty factor (a comma at either end, or two in a row)");
                if (t->n == XPU_REQUIRE_FACTORS_MAX)
                        return parse_fail(err, err_size, s, len, "more than %d factors (separated by commas)",
                                          XPU_REQUIRE_FACTORS_MAX);
                if (r->n_factors == r->cap_factors) {
                        size_t cap = r->cap_factors ? 2 * r->cap_factors : 8; /* <= 2 * 64 * 64 */
                        struct factor *v = realloc(r->factors, cap * sizeof *v);
                        if (!v)
                                return -ENOMEM;
                        r->factors = v;
                        r->cap_factors = cap;
                }
                int k = parse_factor(s + at, end - at, &r->factors[r->n_factors], err, err_size);
                if (k < 0)
                        return k;
                r->n_factors++;
                t->n++;
                if (end == len)
                        break;
                at = end + 1;
        }
        r->n_terms++;
        return 0;
}

/* The normal form: factors' text, "," within a term, " " between terms. */
static int build_text(struct xpu_require *r) {
        size_t size = 1;
        for (size_t i = 0; i < r->n_factors; i++)
                size += strlen(r->factors[i].text) + 1;
        r->text = malloc(size);
        if (!r->text)
                return -ENOMEM;
        size_t n = 0;
        for (size_t t = 0; t < r->n_terms; t++)
                for (size_t i = 0; i < r->terms[t].n; i++) {
                        const char *sep = i ? "," : t ? " " : "";
                        n += (size_t)snprintf(r->text + n, size - n, "%s%s", sep,
                                              r->factors[r->terms[t].first + i].text);
                }
        r->text[n] = '\0';
        return 0;
}

int xpu_require_parse(const char *expr, struct xpu_require **ret, char *err, size_t err_size) {
        if (!expr || !ret)
                return -EINVAL;
        _cleanup_(xpu_require_freep) struct xpu_require *r = calloc(1, sizeof *r);
        if (!r)
                return -ENOMEM;
        for (const char *p = expr;;) {
                while (is_space(*p))
                        p++;
                if (!*p)
                        break;
                const char *start = p;
                while (*p && !is_space(*p))
                        p++;
                if (r->n_terms == XPU_REQUIRE_TERMS_MAX) {
                        if (err && err_size)
                                snprintf(err, err_size,
                                         "requirement: more than %d alternatives (terms separated by spaces)",
                                         XPU_REQUIRE_TERMS_MAX);
                        return -EINVAL;
                }
                int k = parse_term(r, start, (size_t)(p - start), err, err_size);
                if (k < 0)
                        return k;
        }
        int k = build_text(r);
        if (k < 0)
                return k;
        *ret = TAKE_PTR(r);
        return 0;
}

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
        switch (keys[f->key].kind) {
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
        if (!is_dotted(fact)) {
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

static bool check_host_factor(const struct factor *f, const struct host *h, char *found, size_t size, bool *known) {
        const struct xpu_inventory *inv = h->inv;
        const char *vendor = xpu_vendor_to_string(h->vendor);
        const char *nv_driver = inv->vendors[XPU_VENDOR_NVIDIA].driver_version;
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
        case KEY_CUDA: {
                const char *cuda = inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version;
                if (!cuda[0]) {
                        char why[700];
                        snprintf(found, size, "host CUDA driver version unknown (%s)%s%s",
                                 rich_unknown(inv, XPU_VENDOR_NVIDIA, why, sizeof why), nv_driver[0] ? "; driver " : "",
                                 nv_driver);
                        return false;
                }
                char extra[48] = "";
                if (nv_driver[0])
                        snprintf(extra, sizeof extra, " (driver %s)", nv_driver);
                return check_version_fact(f, cuda, "CUDA driver", extra, found, size, known);
        }
        case KEY_ROCM:
                snprintf(found, size, "host ROCm version unknown (no backend reports it yet)");
                return false;
        case KEY_ARCH:
        case KEY_BRAND:
        case KEY_GFX:
        case KEY_MEMORY:
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
        switch (f->key) {
        case KEY_ARCH:
                if (!d->compute_capability[0]) {
                        char why[700];
                        snprintf(found, size, "%s compute capability unknown (%s)", name,
                                 rich_unknown(inv, d->vendor, why, sizeof why));
                        return false;
                }
                if (!is_dotted(d->compute_capability)) {
                        snprintf(found, size, "%s compute capability \"%s\" is not a dotted number", name,
                                 d->compute_capability);
                        return false;
                }
                *known = true;
                snprintf(found, size, "host has %s with compute capability %s", name, d->compute_capability);
                return op_holds(f->op, fact_cmp(f, d->compute_capability));
        case KEY_BRAND:
                /* No source on the fast path: NVML's brand comes with the rich probe. */
                if (!d->brand[0]) {
                        char why[700];
                        snprintf(found, size, "%s brand unknown (%s)", name, rich_unknown(inv, d->vendor, why, sizeof why));
                        return false;
                }
                *known = true;
                snprintf(found, size, "host has %s of brand %s", name, d->brand);
                return op_holds(f->op, fact_cmp(f, d->brand));
        case KEY_GFX:
                if (!(d->have & XPU_HAVE_GFX_TARGET_VERSION) || !d->gfx_target[0]) {
                        snprintf(found, size, "%s gfx target unknown", name);
                        return false;
                }
                *known = true;
                snprintf(found, size, "host has %s with %s", name, d->gfx_target);
                return op_holds(f->op, fact_cmp(f, d->gfx_target));
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
        if (!keys[f->key].per_device)
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
                const char *hint = "";
                if (first_known && (first->key == KEY_CUDA || (first->key == KEY_DRIVER && vendor == XPU_VENDOR_NVIDIA)))
                        hint = "; update the driver or use CUDA forward compatibility";
                else if (first_known && first->key == KEY_DRIVER)
                        hint = "; update the driver";
                snprintf(why, why_size, "requirement \"%s\" not met: %s%s but %s%s", r->text,
                         r->n_terms > 1 ? "no alternative met; first: " : "", first->text, first_found, hint);
        }
        return 0;
}

int xpu_require_check_selected(const struct xpu_require *r, const struct xpu_inventory *inv, const bool *selected,
                               enum xpu_vendor vendor, char *why, size_t why_size) {
        return check_selected(r, inv, selected, vendor, false, NULL, 0, why, why_size);
}

int xpu_require_eval_lenient(const char *expr, const struct xpu_inventory *inv, const bool *selected,
                             enum xpu_vendor vendor, char *unchecked, size_t unchecked_size, char *why,
                             size_t why_size) {
        _cleanup_(xpu_require_freep) struct xpu_require *r = NULL;
        int k = xpu_require_parse(expr, &r, why, why_size);
        if (k < 0)
                return k;
        return check_selected(r, inv, selected, vendor, true, unchecked, unchecked_size, why, why_size);
}

int xpu_require_check(const struct xpu_require *r, const struct xpu_inventory *inv, const struct xpu_selection *sel,
                      enum xpu_vendor vendor, char *why, size_t why_size) {
        if (inv && sel && sel->n != inv->n_devices)
                return -EINVAL;
        return xpu_require_check_selected(r, inv, sel ? sel->selected : NULL, vendor, why, why_size);
}

int xpu_require_eval(const char *expr, const struct xpu_inventory *inv, const bool *selected,
                     enum xpu_vendor vendor, char *why, size_t why_size) {
        _cleanup_(xpu_require_freep) struct xpu_require *r = NULL;
        int k = xpu_require_parse(expr, &r, why, why_size);
        if (k < 0)
                return k;
        return xpu_require_check_selected(r, inv, selected, vendor, why, why_size);
}

uint32_t xpu_require_sources(const struct xpu_require *r) {
        uint32_t s = 0;
        for (size_t i = 0; r && i < r->n_factors; i++)
                s |= keys[r->factors[i].key].sources;
        return s;
}

/* xpu_require_sources() of EXPR; an expression that does not parse needs nothing (its error comes
 * with the check). */
static uint32_t expr_sources(const char *expr) {
        struct xpu_require *r = NULL;
        if (!expr || xpu_require_parse(expr, &r, NULL, 0) < 0)
                return 0;
        uint32_t s = xpu_require_sources(r);
        xpu_require_free(r);
        return s;
}

static bool nvidia_require_disabled(char *const *envp) {
        const char *v = xpu_env_get(envp, "NVIDIA_DISABLE_REQUIRE");
        return v && xpu_parse_bool(v) > 0;
}

uint32_t xpu_require_start_sources(const struct xpu_profile_set *set, const char *user_expr, char *const *envp) {
        uint32_t s = expr_sources(user_expr);
        for (size_t i = 0; set && i < set->n; i++)
                s |= expr_sources(set->profiles[i]->require);
        if (nvidia_require_disabled(envp))
                return s;
        for (char *const *e = envp; e && *e; e++)
                if (xpu_startswith(*e, "NVIDIA_REQUIRE_") && !xpu_startswith(*e, "NVIDIA_REQUIRE_JETPACK="))
                        s |= expr_sources(strchr(*e, '=') ? strchr(*e, '=') + 1 : NULL);
        return s;
}

/* ---- the checks at start-up (a logger: one line per problem) ------------------------------ */

/* One requirement expression EXPR, from SOURCE, against the chosen profile's vendor. Returns 0 when
 * met (or when only listing profiles, where a failure is a warning), else logs the one line and
 * returns -EINVAL. HINT follows an unmet requirement's line; with a HINT the line also starts with
 * SOURCE ("" for neither: --require and XPU_REQUIRE are the user's own). */
static int check_one(const struct xpu_inventory *inv, const struct xpu_selection *sel, enum xpu_vendor vendor,
                     const char *source, const char *expr, const char *hint, bool lenient, bool warn_only) {
        char why[2048], unchecked[1024] = "";
        int r = lenient ? xpu_require_eval_lenient(expr, inv, sel->selected, vendor, unchecked, sizeof unchecked,
                                                   why, sizeof why)
                        : xpu_require_eval(expr, inv, sel->selected, vendor, why, sizeof why);
        if (r == 1) {
                if (unchecked[0])
                        log_warning("%s: not checked: %s", source, unchecked);
                log_debug("%s: %s", source, why);
                return 0;
        }
        if (r == 0 && warn_only) {
                /* `profiles` is where one looks for the reason: show the list anyway. */
                log_warning("%s: %s%s", source, why, hint);
                return 0;
        }
        if (r == 0 && *hint)
                log_error("%s: %s%s", source, why, hint); /* an image's variable: name it */
        else if (r == 0)
                log_error("%s", why);
        else if (r == -EINVAL)
                log_error("%s: %s", source, why);
        else
                log_error("%s: %s", source, strerror(-r));
        return r == 0 ? -EINVAL : r;
}

/* Requirements: --require/XPU_REQUIRE, and on an NVIDIA profile every
 * NVIDIA_REQUIRE_* variable (each an expression of its own, all must hold; NVIDIA_REQUIRE_JETPACK
 * is skipped, as the toolkit does) unless NVIDIA_DISABLE_REQUIRE is true. */
int xpu_require_check_start(const struct xpu_inventory *inv, const struct xpu_selection *sel,
                            const struct xpu_profile *profile, const char *user_expr, char *const *envp,
                            bool warn_only) {
        enum xpu_vendor vendor = profile->match_any ? _XPU_VENDOR_MAX : profile->vendor;
        int r;
        if (user_expr && (r = check_one(inv, sel, vendor, "--require/XPU_REQUIRE", user_expr, "", false, warn_only)) < 0)
                return r;
        if (vendor != XPU_VENDOR_NVIDIA)
                return 0;
        const char *v = xpu_env_get(envp, "NVIDIA_DISABLE_REQUIRE");
        int disable = v ? xpu_parse_bool(v) : 0;
        if (disable < 0)
                log_warning("NVIDIA_DISABLE_REQUIRE: \"%s\" is not a boolean (use 1/0, true/false); requirements "
                            "are checked",
                            v);
        if (disable > 0) {
                log_debug("NVIDIA_DISABLE_REQUIRE=%s: NVIDIA_REQUIRE_* not checked", v);
                return 0;
        }
        static const char prefix[] = "NVIDIA_REQUIRE_";
        for (char *const *e = envp; e && *e; e++) {
                const char *eq = strchr(*e, '=');
                if (!eq || !xpu_startswith(*e, prefix))
                        continue;
                _cleanup_free_ char *name = strndup(*e, (size_t)(eq - *e));
                if (!name)
                        return -ENOMEM;
                if (strcmp(name, "NVIDIA_REQUIRE_JETPACK") == 0)
                        continue;
                v = eq + 1;
                /* The image's own variable (every CUDA image sets NVIDIA_REQUIRE_CUDA): facts the probe
                 * cannot know yet are warned about, not enforced; known ones (driver) are. */
                r = check_one(inv, sel, vendor, name, v, "; NVIDIA_DISABLE_REQUIRE=1 skips the NVIDIA_REQUIRE_* checks",
                              true, warn_only);
                if (r < 0)
                        return r;
        }
        return 0;
}
