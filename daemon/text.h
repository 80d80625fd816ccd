/* SPDX-License-Identifier: Apache-2.0 */
/* xpud's text formatting: numbers as every body writes them, and messages cut to their buffer. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/macro.h"

/* xpud's one number formatter: /metrics sample values and every number of the /v1 JSON bodies
 * (render-json.c), so a time or a reading reads the same on both. Into BUF (32 bytes are always
 * enough): integral
 * values below 2^53 in magnitude as integers ("250", "41", "0"), others in the shortest %g form
 * that reads back as the same double ("0.875", "1.5e-07"), "NaN", "+Inf", "-Inf". Returns BUF. */
const char *xpud_format_double(double v, char *buf, size_t size);

/* Format FMT into BUF (SIZE bytes, SIZE >= 4) like snprintf(), but when the text does not fit,
 * cut it at a UTF-8 character boundary (never inside a multi-byte sequence) and end it with "...",
 * so a cut text is visibly cut and still valid UTF-8 when its input was. Returns true when the
 * whole text fit, false when it was cut. Used for health reasons and event messages. */
bool xpud_text_cut(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4);
bool xpud_text_vcut(char *buf, size_t size, const char *fmt, va_list ap) _printf_(3, 0);
