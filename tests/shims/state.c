/* SPDX-License-Identifier: Apache-2.0 */
/* Reader of the fake vendor libraries' state file; format in state.h. */
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Longest state file read, bytes; the tests write a few hundred. */
#define STATE_MAX 65536

/* Read the whole state file into a malloc'ed NUL-terminated buffer. Returns it or NULL with
 * errno set (ENODATA when XPU_FAKE_STATE is unset or empty). */
/* The state file next to this library when XPU_FAKE_STATE is unset: "<dir>/xpu-fake-state",
 * <dir> being the directory of the file this code is mapped from (/proc/self/maps). The helper
 * child of xpu_isolate_run() gets an environment without XPU_FAKE_STATE, so tests put the state
 * file into the driver root's library directory instead. Returns 0 or -ENODATA. */
static int state_path_beside_library(char *buf, size_t size) {
        const uintptr_t self = (uintptr_t)&state_path_beside_library;
        FILE *f = fopen("/proc/self/maps", "re");
        char line[PATH_MAX + 128];
        int ret = -ENODATA;
        if (!f)
                return -ENODATA;
        while (ret < 0 && fgets(line, sizeof(line), f)) {
                unsigned long lo = 0, hi = 0;
                int off = 0;
                if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &off) < 2 || off <= 0)
                        continue;
                if (self < lo || self >= hi || line[off] != '/')
                        continue;
                line[strcspn(line, "\n")] = '\0';
                char *slash = strrchr(line + off, '/');
                *slash = '\0';
                if (snprintf(buf, size, "%s/xpu-fake-state", line + off) < (int)size)
                        ret = 0;
        }
        fclose(f);
        return ret;
}

static char *state_load(void) {
        /* Where this library lies does not change while it is loaded: found once, since reading
         * /proc/self/maps on every call made a 64-GPU read crawl under qemu-user. The file itself
         * is read anew each time (tests change readings while xpud runs). */
        static char beside[PATH_MAX];
        const char *path = getenv("XPU_FAKE_STATE");
        if (!path || !*path) {
                if (!beside[0] && state_path_beside_library(beside, sizeof(beside)) < 0) {
                        beside[0] = '\0';
                        errno = ENODATA;
                        return NULL;
                }
                path = beside;
        }
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return NULL;
        char *buf = malloc(STATE_MAX + 1);
        if (!buf) {
                close(fd);
                errno = ENOMEM;
                return NULL;
        }
        size_t len = 0;
        while (len < STATE_MAX) {
                ssize_t n = read(fd, buf + len, STATE_MAX - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        int e = errno;
                        free(buf);
                        close(fd);
                        errno = e;
                        return NULL;
                }
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        close(fd);
        buf[len] = '\0';
        return buf;
}

int xpu_fake_state_get(const char *key, char *buf, size_t size) {
        char *text = state_load();
        if (!text)
                return -errno;
        size_t klen = strlen(key);
        int ret = -ENOENT;
        for (char *line = text, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                if (strncmp(line, key, klen) != 0 || (line[klen] != ' ' && line[klen] != '\t'))
                        continue;
                const char *v = line + klen + strspn(line + klen, " \t");
                size_t vlen = strlen(v);
                while (vlen > 0 && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t' || v[vlen - 1] == '\r'))
                        vlen--;
                if (size > 0) {
                        size_t n = vlen < size - 1 ? vlen : size - 1;
                        memcpy(buf, v, n);
                        buf[n] = '\0';
                }
                ret = 0;
                break;
        }
        free(text);
        return ret;
}

static int state_vgetf(char *buf, size_t size, const char *fmt, va_list ap) {
        char key[128];
        int n = vsnprintf(key, sizeof(key), fmt, ap);
        if (n < 0 || (size_t)n >= sizeof(key))
                return -ENAMETOOLONG;
        return xpu_fake_state_get(key, buf, size);
}

int xpu_fake_state_getf(char *buf, size_t size, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int r = state_vgetf(buf, size, fmt, ap);
        va_end(ap);
        return r;
}

int xpu_fake_state_get_long(long long *ret, const char *fmt, ...) {
        char value[64];
        va_list ap;
        va_start(ap, fmt);
        int r = state_vgetf(value, sizeof(value), fmt, ap);
        va_end(ap);
        if (r < 0)
                return r;
        char *end = NULL;
        errno = 0;
        long long v = strtoll(value, &end, 10);
        if (errno != 0 || end == value || *end != '\0')
                return -EINVAL;
        *ret = v;
        return 0;
}

int xpu_fake_state_available(void) {
        char *text = state_load();
        if (!text)
                return -errno;
        free(text);
        return 0;
}

long long xpu_fake_forced_error(const char *function) {
        long long code = 0;
        if (xpu_fake_state_get_long(&code, "error.%s", function) < 0)
                return 0;
        return code;
}

int xpu_fake_state_cuda_version(int *ret) {
        char value[32], tail;
        unsigned major = 0, minor = 0;
        if (xpu_fake_state_get("cuda_version", value, sizeof(value)) < 0)
                return -ENODATA;
        if (sscanf(value, "%u.%u%c", &major, &minor, &tail) == 2 && major < 1000 && minor < 100) {
                *ret = (int)(major * 1000 + minor * 10);
                return 0;
        }
        if (sscanf(value, "%u%c", &major, &tail) == 1 && major < 1000000) {
                *ret = (int)major;
                return 0;
        }
        return -EINVAL;
}
