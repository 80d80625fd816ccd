/* SPDX-License-Identifier: Apache-2.0 */
/* xpud's text formatting: see text.h. */
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *xpud_format_double(double v, char *buf, size_t size) {
        if (isnan(v)) {
                snprintf(buf, size, "NaN");
                return buf;
        }
        if (isinf(v)) {
                snprintf(buf, size, v > 0 ? "+Inf" : "-Inf");
                return buf;
        }
        if (v == trunc(v) && fabs(v) < 9007199254740992.0) { /* 2^53: every integer is exact */
                snprintf(buf, size, "%.0f", v == 0 ? 0.0 : v);  /* no "-0" */
                return buf;
        }
        for (int prec = 1; prec <= 17; prec++) {
                snprintf(buf, size, "%.*g", prec, v);
                if (strtod(buf, NULL) == v)
                        break;
        }
        return buf;
}

bool xpud_text_vcut(char *buf, size_t size, const char *fmt, va_list ap) {
        static const char ellipsis[] = "...";
        if (!buf || size == 0)
                return false;
        int n = vsnprintf(buf, size, fmt, ap);
        if (n < 0) {
                buf[0] = '\0';
                return false;
        }
        if ((size_t)n < size)
                return true;
        if (size < sizeof ellipsis) { /* no room for the mark: an empty text rather than a torn one */
                buf[0] = '\0';
                return false;
        }
        /* Keep room for "...", then step back over UTF-8 continuation bytes (10xxxxxx) so the
         * cut falls before a character, never inside one. */
        size_t end = size - sizeof ellipsis;
        while (end > 0 && ((unsigned char)buf[end] & 0xc0) == 0x80)
                end--;
        memcpy(buf + end, ellipsis, sizeof ellipsis);
        return false;
}

bool xpud_text_cut(char *buf, size_t size, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        bool fit = xpud_text_vcut(buf, size, fmt, ap);
        va_end(ap);
        return fit;
}
