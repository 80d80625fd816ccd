/* SPDX-License-Identifier: Apache-2.0 */
/* Device names from pci.ids (pci-ids.h). */
#include "pci-ids.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/escape.h"
#include "base/fileio.h"
#include "base/root-file.h"
#include "base/macro.h"
#include "base/path.h"

const char *const xpu_pci_ids_paths[] = {
        "usr/share/misc/pci.ids",   /* Debian's pci.ids (pciutils depends on it) */
        "usr/share/hwdata/pci.ids", /* hwdata */
        NULL,
};

/* A real pci.ids is about 1.4 MB; anything past this is not one. */
#define PCI_IDS_MAX_BYTES (16u << 20)
/* Longest line looked at: real names are under 120 bytes. */
#define PCI_IDS_LINE_MAX 512

/* "hhhh" at S (four hex digits) followed by two spaces: the id, else -1. */
static int parse_id(const char *s) {
        int v = 0;
        for (int i = 0; i < 4; i++) {
                char c = s[i];
                int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
                if (d < 0)
                        return -1;
                v = v << 4 | d;
        }
        return s[4] == ' ' && s[5] == ' ' ? v : -1;
}

/* The state of one scan: which line kind we are in. */
struct scan {
        uint16_t vendor, device;
        bool in_vendor; /* inside VENDOR's block */
        bool done;
        char *name;
        size_t size;
        int found;
};

static void scan_line(struct scan *s, char *line) {
        if (line[0] == '#' || line[0] == '\0')
                return;
        if (line[0] != '\t') {
                /* A vendor line, or the "C xx  class" section at the end. */
                if (s->in_vendor) {
                        s->done = true; /* VENDOR's block ended without the device */
                        return;
                }
                s->in_vendor = parse_id(line) == s->vendor;
                return;
        }
        if (!s->in_vendor || line[1] == '\t')
                return; /* another vendor's device, or a subsystem line */
        if (parse_id(line + 1) != s->device)
                return;
        const char *n = line + 1 + 6;
        if (xpu_str_is_text(n) && strlen(n) < s->size) {
                memcpy(s->name, n, strlen(n) + 1);
                s->found = 1;
        }
        s->done = true;
}

int xpu_pci_ids_name(int root_fd, const char *path, uint16_t vendor, uint16_t device, char *name, size_t size) {
        _cleanup_close_ int fd = xpu_open_file_in_root(root_fd, path, NULL);
        if (fd < 0)
                return fd; /* a FIFO would block, a device is no database */
        struct scan s = { .vendor = vendor, .device = device, .name = name, .size = size };
        char buf[16384], line[PCI_IDS_LINE_MAX + 1];
        size_t len = 0, total = 0;
        bool overlong = false;
        while (!s.done && total < PCI_IDS_MAX_BYTES) {
                ssize_t n = xpu_read_full(fd, buf, sizeof buf);
                if (n < 0)
                        return (int)n;
                if (n == 0)
                        break;
                total += (size_t)n;
                for (ssize_t i = 0; i < n && !s.done; i++) {
                        char c = buf[i];
                        if (c == '\n') {
                                line[len] = '\0';
                                if (!overlong)
                                        scan_line(&s, line);
                                len = 0;
                                overlong = false;
                        } else if (len < PCI_IDS_LINE_MAX) {
                                line[len++] = c == '\r' ? '\0' : c;
                        } else {
                                overlong = true;
                        }
                }
        }
        if (!s.done && len > 0 && !overlong) { /* a last line without a newline */
                line[len] = '\0';
                scan_line(&s, line);
        }
        return s.found;
}

int xpu_inventory_name_from_pci_ids(struct xpu_inventory *inv, int root_fd) {
        const char *path = NULL;
        for (size_t i = 0; xpu_pci_ids_paths[i] && !path; i++) {
                struct stat st;
                if (xpu_stat_in_root(root_fd, xpu_pci_ids_paths[i], false, &st) == 0 && S_ISREG(st.st_mode))
                        path = xpu_pci_ids_paths[i];
        }
        if (!path)
                return 0;
        int named = 0;
        for (size_t i = 0; i < inv->n_devices; i++) {
                struct xpu_device *d = &inv->devices[i];
                if (d->name[0] || !(d->have & XPU_HAVE_PCI_IDS))
                        continue;
                /* One scan per model: the devices of a host are mostly alike. */
                const struct xpu_device *same = NULL;
                for (size_t j = 0; j < i && !same; j++) {
                        const struct xpu_device *o = &inv->devices[j];
                        if (o->name_from_pci_ids && o->pci_vendor_id == d->pci_vendor_id &&
                            o->pci_device_id == d->pci_device_id)
                                same = o;
                }
                if (same) {
                        memcpy(d->name, same->name, sizeof d->name);
                } else {
                        int r = xpu_pci_ids_name(root_fd, path, d->pci_vendor_id, d->pci_device_id, d->name,
                                                 sizeof d->name);
                        if (r < 0)
                                return r;
                        if (r == 0)
                                continue;
                }
                d->name_from_pci_ids = true;
                named++;
        }
        return named;
}
