/* SPDX-License-Identifier: Apache-2.0 */
/* The requirement parser (require-parse.c): an expression's parsed form (keys, factors and terms,
 * which the checks in require.c read), its bounds, and the parse and print helpers (version.h compares).
 * Includes nothing of the checks; require.h (the grammar, the checks) includes it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe.h"

#define XPU_REQUIRE_TERMS_MAX 64   /* OR terms (space-separated) */
#define XPU_REQUIRE_FACTORS_MAX 64 /* AND factors (comma-separated) per term */
#define XPU_REQUIRE_VALUE_MAX 64   /* bytes of one factor's value */
#define XPU_REQUIRE_ERROR_MAX 512  /* bytes a parse error's line needs (it quotes at most 80 of the input) */

struct xpu_require;

/* Parse EXPR. Returns 0, or -EINVAL with ERR naming the bad factor and what is expected
 * ("requirement \"cuda>=x\": \"x\" is not a dotted number (e.g. 12.2)"), or -ENOMEM. An empty
 * expression (only white space) parses to "no requirement" (always met). Silent. */
int xpu_require_parse(const char *expr, struct xpu_require **ret, char *err, size_t err_size);
struct xpu_require *xpu_require_free(struct xpu_require *r);
static inline void xpu_require_freep(struct xpu_require **r) {
        xpu_require_free(*r);
}

/* The parsed expression in normal form: terms joined by one space, factors by ",", keys in lower
 * case ("" for no requirement). Valid while R lives. */
const char *xpu_require_to_string(const struct xpu_require *r);

enum key {
        KEY_VENDOR = 0,
        KEY_DRIVER,
        KEY_CUDA,
        KEY_ARCH,
        KEY_BRAND,
        KEY_ROCM,
        KEY_GFX,
        KEY_MEMORY,
        KEY_L4T,
        _KEY_MAX,
};

/* How a key's values are written and compared. */
enum kind {
        KIND_NAME,    /* = and != only, case-insensitive: [A-Za-z0-9._-]+ */
        KIND_EXACT,   /* = and != only, exact: [A-Za-z0-9._-]+ */
        KIND_VERSION, /* every operator, dotted numbers */
        KIND_BYTES,   /* every operator, an unsigned decimal number */
};

/* One key of the expressions: how its values are written, and which sources report it. */
struct require_key {
        const char *name;
        enum kind kind;
        bool per_device; /* checked on every selected device of the vendor */
        uint32_t sources; /* the rich sources (bits of enum xpu_source) that report this fact */
};
/* The keys, by enum key (require-parse.c). */
extern const struct require_key xpu_require_keys[_KEY_MAX];

enum op { OP_EQ = 0, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, _OP_MAX };

#define OPS_EXPECTED "one of = != < <= > >="
#define KEYS_EXPECTED "one of vendor, driver, cuda, arch, brand, rocm, gfx, memory, l4t"
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


/* S[0..LEN) quoted for a message into BUF, cut and escaped (require-parse.c). */
const char *xpu_require_show(char *buf, size_t size, const char *s, size_t len);
