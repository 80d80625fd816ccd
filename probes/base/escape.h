/* SPDX-License-Identifier: Apache-2.0 */
/* Text from the environment or from files on its way to a terminal, a log line or JSON:
 * printable UTF-8 is kept, everything else is escaped. Nothing here logs or allocates. */
#pragma once

#include <stddef.h>

/* Length of the valid, printable UTF-8 sequence at S (1 for printable ASCII, 2-4 for a
 * multi-byte character), or 0 when S starts with a control byte (C0, DEL, or a C1 control
 * U+0080-U+009F), a byte that does not begin a valid sequence (stray continuation, overlong
 * form, surrogate, above U+10FFFF) or a truncated sequence. S is NUL-terminated. */
size_t xpu_utf8_printable_len(const char *s);

/* Copy IN to OUT (SIZE bytes, NUL-terminated, cut at a whole escape) with every byte that is not
 * part of a printable UTF-8 character (xpu_utf8_printable_len()) written as "\xNN": text read
 * from the environment or from files keeps one line and puts no escape sequence on a terminal,
 * while "Radeon\u2122" stays readable. Returns OUT. */
char *xpu_escape_text(const char *in, char *out, size_t size);
