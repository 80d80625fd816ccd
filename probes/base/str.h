/* SPDX-License-Identifier: Apache-2.0 */
/* Small string helpers: copy, strip and test strings, parse numbers and booleans. What the
 * probes read from sysfs, procfs, helper replies and the command line goes through these. Nothing
 * here logs; errors are returned as -errno. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Strip leading and trailing white space in place; returns S. */
char *xpu_strstrip(char *s);
/* True when S is non-empty printable ASCII (0x20..0x7e): what a name or version read from sysfs
 * or procfs must be before it reaches JSON, a terminal or an environment variable. */
bool xpu_str_is_printable(const char *s);
/* True when S starts with PREFIX. */
bool xpu_startswith(const char *s, const char *prefix);
/* Parse an unsigned integer in BASE (0 = auto, as strtoull) spanning the whole string (white space
 * around it allowed). Returns 0 and sets *RET, -EINVAL for empty/garbage or a plus sign, -ERANGE
 * on overflow or a minus sign (strtoull would wrap "-1" to UINT64_MAX). */
int xpu_parse_u64(const char *s, int base, uint64_t *ret);
/* Parse a signed integer in BASE spanning the whole string (white space around it and a sign
 * allowed). Returns 0 and sets *RET, -EINVAL or -ERANGE. */
int xpu_parse_i64(const char *s, int base, int64_t *ret);
/* Parse a boolean: 1/true/yes/on → 1, 0/false/no/off/"" → 0 (any case). Returns 1, 0 or -EINVAL. */
int xpu_parse_bool(const char *s);
/* Copy SRC into DST (SIZE bytes) always NUL-terminating; returns -ENAMETOOLONG when truncated. */
int xpu_strlcpy(char *dst, const char *src, size_t size);
