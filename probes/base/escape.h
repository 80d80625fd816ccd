/* SPDX-License-Identifier: Apache-2.0 */
/* Text from the environment or from files on its way to a terminal, a log line or JSON:
 * printable UTF-8 is kept, everything else is escaped. Nothing here logs or allocates. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Names read from sysfs, procfs or a vendor library (a product name such as "AMD Radeon™ Pro
 * W7900") are UTF-8 text: kept byte for byte when they are well formed, so they reach JSON,
 * Prometheus label values (UTF-8 by the text format's definition) and terminals as the vendor
 * wrote them, with nothing raw that could break those: every byte that is not part of a
 * well-formed UTF-8 sequence (RFC 3629: no overlong forms, no UTF-16 surrogates, nothing above
 * U+10FFFF), every control character (C0 U+0000..U+001F, DEL U+007F, C1 U+0080..U+009F) and
 * every format character that changes how a line reads (U+061C, U+200B..U+200F,
 * U+2028..U+202E, U+2060..U+2064, U+2066..U+2069, U+FEFF: zero-width characters, line and
 * paragraph separators, bidirectional controls) becomes U+FFFD (EF BF BD). */

/* Length in bytes (1 to 4) of the well-formed UTF-8 sequence at S, or 0 when S does not start
 * one (a NUL is a sequence of 1). Reads at most up to the first byte that breaks it. */
size_t xpu_utf8_char_len(const char *s);
/* True when S is non-empty well-formed UTF-8 without control characters: what
 * xpu_utf8_sanitize() leaves as it is. */
bool xpu_str_is_text(const char *s);
/* Copy SRC into DST (SIZE bytes, at least 1; always NUL-terminated) as text: well-formed
 * sequences other than control characters kept, one U+FFFD for each ill-formed byte and for each
 * control character. When that does not fit, it is cut at a character boundary (never inside a
 * sequence). Returns the number of U+FFFD put in; *CUT (may be NULL) tells whether the text was
 * cut. */
size_t xpu_utf8_sanitize(char *dst, size_t size, const char *src, bool *cut);

/* Length of the printable UTF-8 character at S (xpu_utf8_char_len() of a sequence that is not a
 * control character), or 0 when S starts with a control byte (C0, DEL, a C1 control
 * U+0080-U+009F), a byte that does not begin a well-formed sequence, a truncated sequence, or the
 * terminating NUL. */
size_t xpu_utf8_printable_len(const char *s);

/* Copy IN to OUT (SIZE bytes, NUL-terminated, cut at a whole escape) with every byte that is not
 * part of a printable UTF-8 character (xpu_utf8_printable_len()) written as "\xNN" and a
 * backslash as "\\" (so a literal "\x0a" in IN cannot pass for an escaped newline): text read
 * from the environment or from files keeps one line and puts no escape sequence on a terminal,
 * while "Radeon\u2122" stays readable. Returns OUT. */
char *xpu_escape_text(const char *in, char *out, size_t size);
