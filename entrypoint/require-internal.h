/* SPDX-License-Identifier: Apache-2.0 */
/* What the requirement parser (require-parse.c) and the checks (require.c) share: keys, factors
 * and terms of a parsed expression. Not an interface: require.h is. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe.h"
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


/* S[0..LEN) quoted for a message into BUF, cut and escaped (require-parse.c). */
const char *xpu_require_show(char *buf, size_t size, const char *s, size_t len);

/* S is a dotted version: digits, '.' between components. */
bool xpu_require_is_dotted(const char *s);
