/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel log events of the GPU drivers (kmsg.h): the records, read; the events in them are each
 * vendor's kernel-log rules (vendor.h kernel_log). */
#include "kmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vendor.h"

/* "PRIORITY,SEQ,TIMESTAMP_USEC,FLAGS...;": the header of a record. Returns the message after ';'
 * and *USEC, or NULL when LINE has no such header. */
static const char *record_header(const char *line, uint64_t *usec) {
        const char *semi = strchr(line, ';');
        const char *nl = strchr(line, '\n');
        if (!semi || (nl && nl < semi))
                return NULL;
        unsigned long long prio, seq, ts;
        int used = 0;
        if (sscanf(line, "%llu,%llu,%llu%n", &prio, &seq, &ts, &used) != 3 || used <= 0 ||
            (line[used] != ',' && line[used] != ';'))
                return NULL;
        *usec = ts;
        return semi + 1;
}

int xpud_kmsg_parse(const char *record, struct xpu_kernel_event *ev) {
        uint64_t usec = 0;
        if (!record || !ev)
                return -EINVAL;
        const char *msg = record_header(record, &usec);
        if (!msg)
                return -EINVAL;
        size_t len = strcspn(msg, "\n");
        memset(ev, 0, sizeof *ev);
        ev->kernel_time = (double)usec / 1e6;
        /* Each vendor's rules in the order of the list; the first that knows the message wins. */
        int r = 0;
        for (int v = 0; v < _XPU_VENDOR_MAX && r == 0; v++)
                if (xpu_vendors[v]->kernel_log)
                        r = xpu_vendors[v]->kernel_log(record, msg, len, ev);
        if (r == 1)
                xpu_kernel_text(ev->text, sizeof ev->text, msg, len);
        return r;
}

int xpud_kmsg_open_path(const char *path) {
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0) {
                int e = -errno;
                close(fd);
                return e;
        }
        if (S_ISCHR(st.st_mode) && lseek(fd, 0, SEEK_END) < 0) {
                int e = -errno;
                close(fd);
                return e;
        }
        if (!S_ISCHR(st.st_mode) && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
                close(fd);
                return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
        }
        return fd;
}

void xpud_kmsg_init(struct xpud_kmsg *k, int fd, const char *path) {
        memset(k, 0, sizeof *k);
        k->fd = fd;
        snprintf(k->path, sizeof k->path, "%s", path ? path : "");
}

void xpud_kmsg_done(struct xpud_kmsg *k) {
        if (k->fd >= 0)
                close(k->fd);
        k->fd = -1;
        k->len = 0;
}

/* Parse the complete records at the start of K's buffer: a record ends at a newline that is not
 * followed by a continuation line (" KEY=VALUE"); the last one waits for more bytes unless DONE. */
static int drain(struct xpud_kmsg *k, bool done, void (*fn)(void *, const struct xpu_kernel_event *), void *userdata) {
        int events = 0;
        size_t start = 0;
        for (;;) {
                size_t end = start;
                bool complete = false;
                while (end < k->len) {
                        char *nl = memchr(k->buf + end, '\n', k->len - end);
                        if (!nl)
                                break;
                        end = (size_t)(nl - k->buf) + 1;
                        if (end < k->len && k->buf[end] == ' ')
                                continue;
                        complete = end < k->len || done;
                        break;
                }
                if (!complete)
                        break;
                char rec[sizeof k->buf + 1];
                memcpy(rec, k->buf + start, end - start);
                rec[end - start] = '\0';
                struct xpu_kernel_event ev;
                if (xpud_kmsg_parse(rec, &ev) == 1) {
                        fn(userdata, &ev);
                        events++;
                }
                start = end;
        }
        memmove(k->buf, k->buf + start, k->len - start);
        k->len -= start;
        return events;
}

int xpud_kmsg_poll(struct xpud_kmsg *k, void (*fn)(void *userdata, const struct xpu_kernel_event *ev),
                   void *userdata) {
        int events = 0;
        size_t total = 0;
        if (k->fd < 0)
                return 0;
        /* Bounded: a log that never runs dry (a device such as /dev/zero given as --kmsg, or a
         * flood) is read on at the next sample instead of holding this one. */
        while (total < XPUD_KMSG_POLL_MAX) {
                if (k->len == sizeof k->buf - 1) {
                        k->len = 0; /* one record longer than the buffer: no kernel writes those */
                        k->lost++;
                }
                ssize_t n = read(k->fd, k->buf + k->len, sizeof k->buf - 1 - k->len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EPIPE) { /* records overwritten before we read them */
                        k->lost++;
                        continue;
                }
                if (n < 0 && errno == EAGAIN)
                        break;
                if (n < 0)
                        return events > 0 ? events : -errno;
                if (n == 0)
                        break;
                total += (size_t)n;
                k->len += (size_t)n;
                events += drain(k, false, fn, userdata);
        }
        /* /dev/kmsg hands out whole records; a file's last record is whole at its end. */
        return events + drain(k, true, fn, userdata);
}
