/* SPDX-License-Identifier: Apache-2.0 */
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "escape.h"
#include "fileio.h"

static const char *log_program = "xpuinit";
static enum xpu_log_level log_level = XPU_LOG_WARNING;

static const char *const level_names[] = {
        [XPU_LOG_ERROR] = "error",
        [XPU_LOG_WARNING] = "warning",
        [XPU_LOG_INFO] = "info",
        [XPU_LOG_DEBUG] = "debug",
};

void xpu_log_set_program(const char *name) {
        log_program = name;
}

void xpu_log_set_level(enum xpu_log_level level) {
        log_level = level;
}

enum xpu_log_level xpu_log_get_level(void) {
        return log_level;
}

int xpu_log_level_from_string(const char *s) {
        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(level_names); i++)
                if (strcasecmp(s, level_names[i]) == 0)
                        return (int)i;
        if (strcasecmp(s, "warn") == 0)
                return XPU_LOG_WARNING;
        if (s[0] >= '0' && s[0] <= '3' && s[1] == '\0')
                return s[0] - '0';
        return -EINVAL;
}

void xpu_log(enum xpu_log_level level, const char *fmt, ...) {
        if (level > log_level)
                return;
        int saved = errno;
        char line[2048], safe[sizeof line * 4];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        /* One write(2) per line: concurrent writers do not interleave mid-line, and nothing but
         * write runs, so a line still goes out under a seccomp list that allows write and not
         * the fstat and lseek stdio's dprintf does first (a failed exec under --exec). */
        char out[sizeof safe + 64];
        int n = snprintf(out, sizeof out, "%s: %s: %s\n", log_program, level_names[level],
                         xpu_escape_text(line, safe, sizeof safe));
        if (n > 0) {
                size_t len = (size_t)n < sizeof out ? (size_t)n : sizeof out - 1;
                if ((size_t)n >= sizeof out)
                        out[len - 1] = '\n';
                (void)xpu_write_full(STDERR_FILENO, out, len);
        }
        errno = saved;
}

void xpu_log_escaped(enum xpu_log_level level, const char *text) {
        if (level > log_level)
                return;
        int saved = errno;
        static const char hex[] = "0123456789abcdef";
        char out[2048 * 4 + 64];
        int head = snprintf(out, sizeof out, "%s: %s: ", log_program, level_names[level]);
        size_t o = head > 0 ? (size_t)head : 0;
        for (const char *p = text; *p && o + 5 < sizeof out;) {
                size_t n = xpu_utf8_printable_len(p);
                if (n == 0) {
                        unsigned char b = (unsigned char)*p++;
                        out[o++] = '\\';
                        out[o++] = 'x';
                        out[o++] = hex[b >> 4];
                        out[o++] = hex[b & 0xf];
                } else if (o + n + 1 < sizeof out) {
                        memcpy(out + o, p, n);
                        o += n;
                        p += n;
                } else
                        break;
        }
        out[o++] = '\n';
        (void)xpu_write_full(STDERR_FILENO, out, o);
        errno = saved;
}

void xpu_format_error(char *err, size_t err_size, const char *fmt, ...) {
        if (!err || err_size == 0)
                return;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_size, fmt, ap);
        va_end(ap);
}
