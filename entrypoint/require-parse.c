/* SPDX-License-Identifier: Apache-2.0 */
/* Requirement expressions, the parser (require.h): silent, into terms of factors in normal form. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/macro.h"
#include "base/str.h"
#include "require-parse.h"
#include "version.h"

const struct require_key xpu_require_keys[_KEY_MAX] = {
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
        /* a Jetson's L4T (Jetson Linux) release: its fast path reads /etc/nv_tegra_release */
        [KEY_L4T] = { "l4t", KIND_VERSION, true, 0 },
};

static const char *const op_names[_OP_MAX] = {
        [OP_EQ] = "=", [OP_NE] = "!=", [OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=",
};

struct xpu_require *xpu_require_free(struct xpu_require *r) {
        if (r) {
                free(r->factors);
                free(r->text);
                free(r);
        }
        return NULL;
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
const char *xpu_require_show(char *buf, size_t size, const char *s, size_t len) {
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
                snprintf(err, err_size, "requirement \"%s\": %s", xpu_require_show(shown, sizeof shown, s, len), what);
        }
        return -EINVAL;
}

/* Parse the factor S[0..LEN) into F. */
static int parse_factor(const char *s, size_t len, struct factor *f, char *err, size_t err_size) {
        char shown[SHOW_MAX + 4];
        size_t k = 0;
        while (k < len && (is_alpha(s[k]) || (k && s[k] >= '0' && s[k] <= '9'))) /* "l4t" */
                k++;
        if (k == 0)
                return parse_fail(err, err_size, s, len, "expected KEY OP VALUE, e.g. cuda>=12.2");
        int key = -1;
        for (int i = 0; i < _KEY_MAX && key < 0; i++)
                if (strlen(xpu_require_keys[i].name) == k && strncasecmp(s, xpu_require_keys[i].name, k) == 0)
                        key = i;
        if (key < 0)
                return parse_fail(err, err_size, s, len, "unknown key \"%s\"; expected %s",
                                  xpu_require_show(shown, sizeof shown, s, k), KEYS_EXPECTED);
        size_t o = k;
        while (o < len && strchr("=!<>", s[o]))
                o++;
        if (o == k)
                return parse_fail(err, err_size, s, len, "expected an operator after \"%s\", %s", xpu_require_keys[key].name,
                                  OPS_EXPECTED);
        int op = -1;
        for (int i = 0; i < _OP_MAX && op < 0; i++)
                if (strlen(op_names[i]) == o - k && strncmp(s + k, op_names[i], o - k) == 0)
                        op = i;
        if (op < 0)
                return parse_fail(err, err_size, s, len, "unknown operator \"%s\"; expected %s",
                                  xpu_require_show(shown, sizeof shown, s + k, o - k), OPS_EXPECTED);
        if (o == len)
                return parse_fail(err, err_size, s, len, "no value after \"%s\"", op_names[op]);
        if (len - o > XPU_REQUIRE_VALUE_MAX)
                return parse_fail(err, err_size, s, len, "value longer than %d bytes",
                                  XPU_REQUIRE_VALUE_MAX);
        *f = (struct factor){ .key = (enum key)key, .op = (enum op)op };
        memcpy(f->value, s + o, len - o);
        f->value[len - o] = '\0';
        const char *v = xpu_require_show(shown, sizeof shown, f->value, len - o);
        switch (xpu_require_keys[key].kind) {
        case KIND_NAME:
        case KIND_EXACT:
                if (op != OP_EQ && op != OP_NE)
                        return parse_fail(err, err_size, s, len, "%s compares only with = or !=", xpu_require_keys[key].name);
                if (!is_name(f->value))
                        return parse_fail(err, err_size, s, len,
                                          "\"%s\" is not a name (letters, digits, '.', '_', '-')", v);
                break;
        case KIND_VERSION:
                if (!xpu_version_is_dotted(f->value))
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
        snprintf(f->text, sizeof f->text, "%s%s%s", xpu_require_keys[key].name, op_names[op], f->value);
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
