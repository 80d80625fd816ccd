/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel log events of the GPU drivers (kmsg.h). */
#include "kmsg.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/macro.h"

/* NVIDIA's Xid catalogue (docs.nvidia.com/deploy/xid-errors, "Xid Error Listing" and the actions of
 * its "Xid Error Action" table): the Xids an operator acts on. 13, 31, 43 and 45 are faults of the
 * application, not the GPU. */
static const struct xpud_xid_info xids[] = {
        { 13, XPUD_KMSG_NONE, "graphics engine exception (an application fault)", "check the application" },
        { 31, XPUD_KMSG_NONE, "GPU memory page fault (an application fault)", "check the application" },
        { 43, XPUD_KMSG_NONE, "GPU stopped processing (an application fault)", "check the application" },
        { 45, XPUD_KMSG_NONE, "preemptive cleanup after an earlier error", "" },
        { 48, XPUD_KMSG_UNHEALTHY, "double-bit ECC error", "drain the node and reset the GPU" },
        { 61, XPUD_KMSG_DEGRADED, "internal micro-controller breakpoint or warning", "reset the GPU" },
        { 62, XPUD_KMSG_UNHEALTHY, "internal micro-controller halt", "drain the node and reset the GPU" },
        { 63, XPUD_KMSG_DEGRADED, "ECC page retirement or row remapping recorded",
          "reset the GPU when convenient so the remapping takes effect" },
        { 64, XPUD_KMSG_UNHEALTHY, "ECC page retirement or row remapping failed",
          "drain the node and reset the GPU; replace it if this repeats" },
        { 74, XPUD_KMSG_DEGRADED, "NVLink error", "check the NVLink connections and reset the GPU" },
        { 79, XPUD_KMSG_UNHEALTHY, "GPU has fallen off the bus",
          "drain the node, reboot it and inspect the GPU's seating, power and cooling" },
        { 92, XPUD_KMSG_DEGRADED, "high single-bit ECC error rate", "watch the ECC counts; reset the GPU" },
        { 94, XPUD_KMSG_DEGRADED, "contained ECC error", "restart the affected application" },
        { 95, XPUD_KMSG_UNHEALTHY, "uncontained ECC error", "drain the node and reset the GPU" },
        { 119, XPUD_KMSG_UNHEALTHY, "GSP RPC timeout", "drain the node and reset the GPU" },
        { 120, XPUD_KMSG_UNHEALTHY, "GSP error", "drain the node and reset the GPU" },
};

const struct xpud_xid_info *xpud_xid_lookup(unsigned xid) {
        for (size_t i = 0; i < ELEMENTSOF(xids); i++)
                if (xids[i].xid == xid)
                        return &xids[i];
        return NULL;
}

/* amdgpu's messages worth an event: a substring of the message and what it means. */
static const struct {
        const char *needle;
        const char *kind;
        enum xpud_kmsg_effect effect;
        const char *what;
        const char *action;
} amd_events[] = {
        { "uncorrectable hardware errors detected", "amdgpu_ras", XPUD_KMSG_UNHEALTHY, "uncorrectable RAS error",
          "drain the node and reset the GPU; replace it if this repeats" },
        { "correctable hardware errors detected", "amdgpu_ras", XPUD_KMSG_NONE, "correctable RAS error", "" },
        { "GPU reset begin", "amdgpu_reset", XPUD_KMSG_DEGRADED, "GPU reset (its jobs were lost)",
          "check the application that hung it" },
        { " timeout", "amdgpu_ring_timeout", XPUD_KMSG_DEGRADED, "ring timeout (a job hung the GPU)",
          "check the application that hung it" },
};

/* Copy the printable part of S (LEN bytes) into OUT (SIZE bytes), other bytes as '?'. */
static void copy_text(char *out, size_t size, const char *s, size_t len) {
        size_t n = len < size - 1 ? len : size - 1;
        for (size_t i = 0; i < n; i++)
                out[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
        out[n] = '\0';
}

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

/* The bus id of a " DEVICE=+pci:0000:03:00.0" continuation line of RECORD into OUT. */
static bool device_line(const char *record, char out[XPU_PCI_BUS_ID_MAX]) {
        const char *p = strstr(record, "\n DEVICE=+pci:");
        if (!p)
                return false;
        p += strlen("\n DEVICE=+pci:");
        char id[32];
        size_t n = strcspn(p, "\n");
        if (n >= sizeof id)
                return false;
        memcpy(id, p, n);
        id[n] = '\0';
        return xpu_pci_bus_id_normalize(id, out) == 0;
}

/* "NVRM: Xid (PCI:0000:3b:00): 79, ...": the Xid and the GPU's domain:bus:device. */
static int parse_xid(const char *msg, size_t len, struct xpud_kmsg_event *ev) {
        const char *p = strstr(msg, "NVRM: Xid (PCI:");
        if (!p || (size_t)(p - msg) >= len)
                return 0;
        p += strlen("NVRM: Xid (PCI:");
        char bus[24];
        size_t n = strcspn(p, ")");
        if (n == 0 || n >= sizeof bus - 2 || strncmp(p + n, "): ", 3) != 0)
                return 0;
        memcpy(bus, p, n);
        bus[n] = '\0';
        if (strchr(bus, '.') == NULL)
                memcpy(bus + n, ".0", 3); /* the Xid names domain:bus:device, no function */
        struct xpu_pci_bus_id id;
        if (xpu_pci_bus_id_parse(bus, &id) < 0)
                return 0;
        /* The GPU is the PCI device: a function, where a driver prints one, is not kept (one
         * state per GPU whichever form its Xids use). */
        id.function = 0;
        xpu_pci_bus_id_format(&id, ev->bus_id);
        ev->bus_has_function = false;
        const char *num = p + n + 3;
        char *end = NULL;
        errno = 0;
        unsigned long xid = strtoul(num, &end, 10);
        if (errno || end == num || !isdigit((unsigned char)*num) || xid == 0 || xid > 65535)
                return 0; /* NVIDIA numbers Xids from 1 */
        snprintf(ev->kind, sizeof ev->kind, "xid");
        ev->xid = (unsigned)xid;
        const struct xpud_xid_info *info = xpud_xid_lookup(ev->xid);
        ev->effect = info ? info->effect : XPUD_KMSG_NONE;
        snprintf(ev->what, sizeof ev->what, "%s", info ? info->what : "an Xid not in xpud's catalogue");
        snprintf(ev->action, sizeof ev->action, "%s", info ? info->action : "look it up in NVIDIA's Xid catalogue");
        return 1;
}

/* "amdgpu 0000:03:00.0: ...": one of amd_events[], with the bus id of the prefix or of the
 * record's DEVICE= line. */
static int parse_amdgpu(const char *record, const char *msg, size_t len, struct xpud_kmsg_event *ev) {
        char m[512];
        copy_text(m, sizeof m, msg, len);
        if (strncmp(m, "amdgpu ", 7) != 0 && !strstr(m, "[drm:amdgpu_") && !strstr(m, "amdgpu: "))
                return 0;
        size_t k = 0;
        while (k < ELEMENTSOF(amd_events) && !strstr(m, amd_events[k].needle))
                k++;
        if (k == ELEMENTSOF(amd_events))
                return 0;
        /* A ring timeout names its ring: "ring gfx_0.0.0 timeout", "ring sdma0 timeout". */
        if (strcmp(amd_events[k].kind, "amdgpu_ring_timeout") == 0 && !strstr(m, "ring "))
                return 0;
        bool have = false;
        if (strncmp(m, "amdgpu ", 7) == 0) {
                char id[32];
                const char *end = strstr(m + 7, ": "); /* "amdgpu 0000:c1:00.0: ..." */
                size_t n = end ? (size_t)(end - (m + 7)) : sizeof id;
                if (n < sizeof id) {
                        memcpy(id, m + 7, n);
                        id[n] = '\0';
                        have = xpu_pci_bus_id_normalize(id, ev->bus_id) == 0;
                }
        }
        if (!have)
                have = device_line(record, ev->bus_id);
        if (!have)
                ev->bus_id[0] = '\0';
        ev->bus_has_function = true;
        snprintf(ev->kind, sizeof ev->kind, "%s", amd_events[k].kind);
        ev->effect = amd_events[k].effect;
        snprintf(ev->what, sizeof ev->what, "%s", amd_events[k].what);
        snprintf(ev->action, sizeof ev->action, "%s", amd_events[k].action);
        return 1;
}

int xpud_kmsg_parse(const char *record, struct xpud_kmsg_event *ev) {
        uint64_t usec = 0;
        if (!record || !ev)
                return -EINVAL;
        const char *msg = record_header(record, &usec);
        if (!msg)
                return -EINVAL;
        size_t len = strcspn(msg, "\n");
        memset(ev, 0, sizeof *ev);
        ev->kernel_time = (double)usec / 1e6;
        int r = parse_xid(msg, len, ev);
        if (r == 0)
                r = parse_amdgpu(record, msg, len, ev);
        if (r == 1)
                copy_text(ev->text, sizeof ev->text, msg, len);
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
static int drain(struct xpud_kmsg *k, bool done, void (*fn)(void *, const struct xpud_kmsg_event *), void *userdata) {
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
                struct xpud_kmsg_event ev;
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

int xpud_kmsg_poll(struct xpud_kmsg *k, void (*fn)(void *userdata, const struct xpud_kmsg_event *ev),
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
