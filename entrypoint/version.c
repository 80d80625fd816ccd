/* SPDX-License-Identifier: Apache-2.0 */
/* Version numbers compared and parsed (version.h has the contract). */
#include "version.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dl.h"

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
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

bool xpu_version_is_dotted(const char *s) {
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

bool xpu_plain_driver_version(const char *v) {
        if (!xpu_is_driver_version(v) || (v[0] == '0' && v[1] != '.'))
                return false;
        for (const char *c = v; *c; c += strcspn(c, ".") + (c[strcspn(c, ".")] == '.'))
                if (strcspn(c, ".") > 9)
                        return false;
        return true;
}

bool xpu_forward_compat_newer(const char *compat_version, const char *host_version) {
        return xpu_plain_driver_version(compat_version) && xpu_plain_driver_version(host_version) &&
               strtoul(compat_version, NULL, 10) > strtoul(host_version, NULL, 10);
}

int xpu_version_parse_cuda(const char *s) {
        unsigned major, minor = 0;
        int used = 0;
        if (!s || !*s || strspn(s, "0123456789.") != strlen(s))
                return -EINVAL;
        if (sscanf(s, "%u.%u%n", &major, &minor, &used) != 2 && sscanf(s, "%u%n", &major, &used) != 1)
                return -EINVAL;
        if (s[used] != '\0' || major < 1 || major > 99 || minor > 9)
                return -EINVAL;
        return (int)(major * 1000 + minor * 10);
}
