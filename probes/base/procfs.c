/* SPDX-License-Identifier: Apache-2.0 */
/* /proc/PID/stat and /proc/PID/status readers, /proc/devices parsed (procfs.h). */
#include "procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "macro.h"
#include "str.h"

/* Read the whole file PATH into BUF (SIZE bytes, NUL-terminated); a longer one is cut (the
 * fields read here come first). Returns the length or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        ssize_t n = xpu_read_full(fd, buf, size - 1);
        if (n < 0)
                return n;
        buf[n] = '\0';
        return n;
}

ssize_t xpu_proc_read_alloc(const char *path, size_t max, char **ret) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return negative_errno();
        size_t len = 0, cap = 0;
        _cleanup_free_ char *buf = NULL;
        for (;;) {
                if (len + 1 >= cap) {
                        size_t ncap = cap ? cap * 2 : 4096;
                        if (ncap > max + 1)
                                ncap = max + 1;
                        if (ncap <= len + 1)
                                return -EFBIG;
                        char *n = realloc(buf, ncap);
                        if (!n)
                                return -ENOMEM;
                        buf = n;
                        cap = ncap;
                }
                size_t want = cap - len - 1;
                ssize_t n = xpu_read_full(fd, buf + len, want);
                if (n < 0)
                        return n;
                len += (size_t)n;
                if ((size_t)n < want)
                        break; /* the end of the file */
        }
        buf[len] = '\0';
        *ret = TAKE_PTR(buf);
        return (ssize_t)len;
}

/* The decimal number at *P (a minus sign allowed), then past it and the blanks after it. */
static int next_number(const char **p, long long *ret) {
        char *e;
        errno = 0;
        long long v = strtoll(*p, &e, 10);
        if (errno || e == *p || (*e != ' ' && *e != '\n' && *e != '\0'))
                return -EBADMSG;
        *p = e + strspn(e, " \n");
        *ret = v;
        return 0;
}

int xpu_proc_stat_read_file(const char *path, struct xpu_proc_stat *ret) {
        char buf[2048];
        ssize_t n = read_small(path, buf, sizeof buf);
        if (n < 0)
                return (int)n;
        const char *end = strrchr(buf, ')');
        const char *p = buf;
        long long v[22]; /* v[F - 1] is field F; field 2 (comm) and 3 (state) are not numbers */
        if (!end || next_number(&p, &v[0]) < 0 || end[1] != ' ' || !end[2] || end[3] != ' ')
                return -EBADMSG;
        struct xpu_proc_stat st = { .pid = (pid_t)v[0], .state = end[2] };
        p = end + 4;
        for (int field = 4; field <= 22; field++)
                if (next_number(&p, &v[field - 1]) < 0)
                        return -EBADMSG;
        if (v[0] <= 0 || v[0] > INT32_MAX || v[3] < 0 || v[3] > INT32_MAX || v[4] < 0 || v[4] > INT32_MAX ||
            v[5] < 0 || v[5] > INT32_MAX || v[21] < 0)
                return -EBADMSG;
        st.ppid = (pid_t)v[3];
        st.pgrp = (pid_t)v[4];
        st.session = (pid_t)v[5];
        st.starttime = (uint64_t)v[21];
        *ret = st;
        return 0;
}

int xpu_proc_stat_read(pid_t pid, struct xpu_proc_stat *ret) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        return xpu_proc_stat_read_file(path, ret);
}

bool xpu_proc_self_is(pid_t pid) {
        char buf[32], want[32];
        ssize_t n = readlink("/proc/self", buf, sizeof buf - 1);
        if (n <= 0)
                return false;
        buf[n] = '\0';
        snprintf(want, sizeof want, "%d", (int)pid);
        return strcmp(buf, want) == 0;
}

int xpu_proc_status_mask(const char *path, const char *key, uint64_t *ret) {
        char buf[8192], want[64];
        ssize_t n = read_small(path, buf, sizeof buf);
        if (n < 0)
                return (int)n;
        if (snprintf(want, sizeof want, "\n%s:", key) >= (int)sizeof want)
                return -EINVAL;
        /* The line is KEY at the start of the file or after a newline; P is past "KEY:". */
        const char *line = want + 1, *p;
        if (strncmp(buf, line, strlen(line)) == 0)
                p = buf + strlen(line);
        else if ((p = strstr(buf, want)) != NULL)
                p += strlen(want);
        else
                return -ENOENT;
        p += strspn(p, " \t");
        size_t digits = strspn(p, "0123456789abcdefABCDEF");
        if (digits == 0 || digits > 16)
                return -EBADMSG;
        char hex[17];
        memcpy(hex, p, digits);
        hex[digits] = '\0';
        return xpu_parse_u64(hex, 16, ret) < 0 ? -EBADMSG : 0;
}

int xpu_proc_devices_major(const char *text, const char *name) {
        if (!text || !name)
                return -ENOENT;
        size_t name_len = strlen(name);
        bool in_char = false;
        for (const char *line = text; *line;) {
                const char *nl = strchr(line, '\n');
                size_t len = nl ? (size_t)(nl - line) : strlen(line);
                const char *next = nl ? nl + 1 : line + len;
                /* The line without its leading and trailing blanks: [p, end). */
                const char *p = line, *end = line + len;
                while (p < end && (*p == ' ' || *p == '\t'))
                        p++;
                while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
                        end--;
                size_t n = (size_t)(end - p);
                line = next;
                if (n == strlen("Character devices:") && memcmp(p, "Character devices:", n) == 0) {
                        in_char = true;
                        continue;
                }
                if (n == strlen("Block devices:") && memcmp(p, "Block devices:", n) == 0) {
                        in_char = false;
                        continue;
                }
                if (!in_char)
                        continue;
                /* "195 nvidia-frontend": up to 4 digits, blanks, the name. */
                size_t digits = strspn(p, "0123456789");
                if (digits == 0 || digits > 4 || digits >= n || (p[digits] != ' ' && p[digits] != '\t'))
                        continue;
                const char *dev = p + digits;
                while (dev < end && (*dev == ' ' || *dev == '\t'))
                        dev++;
                if ((size_t)(end - dev) != name_len || memcmp(dev, name, name_len) != 0)
                        continue;
                char num[5];
                memcpy(num, p, digits);
                num[digits] = '\0';
                uint64_t major;
                if (xpu_parse_u64(num, 10, &major) == 0 && major < 4096)
                        return (int)major;
        }
        return -ENOENT;
}
