/* SPDX-License-Identifier: Apache-2.0 */
/* Logging to stderr with a program prefix and a level filter.
 * Functions are either loggers or silent: the probes and parsers are
 * silent and return -errno or collect warnings; the caller that knows the path logs once. */
#pragma once

#include <stdarg.h>
#include <stddef.h>

#include "escape.h"
#include "macro.h"

enum xpu_log_level {
        XPU_LOG_ERROR = 0,
        XPU_LOG_WARNING,
        XPU_LOG_INFO,
        XPU_LOG_DEBUG,
};

/* Set the program name printed before every line ("xpuinit", "xpud"). The string is not copied. */
void xpu_log_set_program(const char *name);
/* Set the highest level printed (default XPU_LOG_WARNING). */
void xpu_log_set_level(enum xpu_log_level level);
enum xpu_log_level xpu_log_get_level(void);
/* Parse "error", "warning", "info", "debug" (also "warn", "0".."3"). Returns the level or -EINVAL. */
int xpu_log_level_from_string(const char *s);

/* Print "<program>: <level>: <message>\n" to stderr when level is enabled, the message escaped
 * with xpu_escape_text() (one message is one line). Keeps errno. */
void xpu_log(enum xpu_log_level level, const char *fmt, ...) _printf_(2, 3);

/* Like xpu_log() for TEXT that is escaped already (xpu_escape_text(): an inventory warning, which
 * JSON shows too): printed as it is, so "\x0a" stays "\x0a" and does not become "\\x0a"; a byte
 * that is not printable is still escaped (a backslash is not doubled). Keeps errno. */
void xpu_log_escaped(enum xpu_log_level level, const char *text);

/* Not a logger: format one error line into ERR (ERR_SIZE bytes; nothing when ERR is NULL or
 * ERR_SIZE is 0), for silent functions that hand their caller the message to log. */
void xpu_format_error(char *err, size_t err_size, const char *fmt, ...) _printf_(3, 4);

#define log_error(...)   xpu_log(XPU_LOG_ERROR, __VA_ARGS__)
#define log_warning(...) xpu_log(XPU_LOG_WARNING, __VA_ARGS__)
#define log_info(...)    xpu_log(XPU_LOG_INFO, __VA_ARGS__)
#define log_debug(...)   xpu_log(XPU_LOG_DEBUG, __VA_ARGS__)
