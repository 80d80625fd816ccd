/* SPDX-License-Identifier: Apache-2.0 */
#include "str.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "macro.h"

char *xpu_strstrip(char *s) {
        while (*s && isspace((unsigned char)*s))
                s++;
        size_t len = strlen(s);
        while (len > 0 && isspace((unsigned char)s[len - 1]))
                s[--len] = '\0';
        return s;
}

bool xpu_str_is_printable(const char *s) {
        if (!s || !*s)
                return false;
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
                if (*p < 0x20 || *p > 0x7e)
                        return false;
        return true;
}

bool xpu_startswith(const char *s, const char *prefix) {
        return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The one checked core of xpu_parse_u64() and xpu_parse_i64(): white space around the number,
 * nothing else; strto*'s own leniencies (an empty string is 0, trailing garbage ignored, ERANGE
 * only in errno) become errors. Unsigned refuses a sign: strtoull accepts "-1" and wraps it. *U
 * or *I (the one that SIGNED names) is set only on success. */
static int parse_integer(const char *s, int base, bool is_signed, uint64_t *u, int64_t *i) {
        if (!s)
                return -EINVAL;
        while (isspace((unsigned char)*s))
                s++;
        if (!is_signed && *s == '-')
                return -ERANGE;
        if (!*s || (!is_signed && *s == '+'))
                return -EINVAL;
        char *end = NULL;
        errno = 0;
        unsigned long long uv = 0;
        long long iv = 0;
        if (is_signed)
                iv = strtoll(s, &end, base);
        else
                uv = strtoull(s, &end, base);
        if (errno == ERANGE)
                return -ERANGE;
        if (end == s)
                return -EINVAL;
        while (isspace((unsigned char)*end))
                end++;
        if (*end)
                return -EINVAL;
        if (is_signed)
                *i = (int64_t)iv;
        else
                *u = (uint64_t)uv;
        return 0;
}

int xpu_parse_u64(const char *s, int base, uint64_t *ret) {
        return parse_integer(s, base, false, ret, NULL);
}

int xpu_parse_i64(const char *s, int base, int64_t *ret) {
        return parse_integer(s, base, true, NULL, ret);
}

int xpu_parse_bool(const char *s) {
        static const char *const yes[] = { "1", "true", "yes", "on" }, *const no[] = { "0", "false", "no", "off", "" };
        for (size_t i = 0; s && i < ELEMENTSOF(yes); i++)
                if (strcasecmp(s, yes[i]) == 0)
                        return 1;
        for (size_t i = 0; s && i < ELEMENTSOF(no); i++)
                if (strcasecmp(s, no[i]) == 0)
                        return 0;
        return -EINVAL;
}

int xpu_strlcpy(char *dst, const char *src, size_t size) {
        if (size == 0)
                return -ENAMETOOLONG;
        size_t len = strlen(src);
        if (len >= size) {
                memcpy(dst, src, size - 1);
                dst[size - 1] = '\0';
                return -ENAMETOOLONG;
        }
        memcpy(dst, src, len + 1);
        return 0;
}
