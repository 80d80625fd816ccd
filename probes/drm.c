/* SPDX-License-Identifier: Apache-2.0 */
/* DRM cards in sysfs: see drm.h. */
#include "drm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/root-file.h"
#include "base/macro.h"
#include "base/path.h"
#include "base/str.h"

/* Parse "<prefix>N" with N plain decimal (no sign, no leading zero), N < XPU_DRM_NUMBER_LIMIT. */
static int parse_numbered_name(const char *name, const char *prefix, uint32_t *ret) {
        if (!xpu_startswith(name, prefix))
                return -EINVAL;
        const char *num = name + strlen(prefix);
        size_t len = strlen(num);
        uint64_t v;
        if (len == 0 || len > 7 || strspn(num, "0123456789") != len || (num[0] == '0' && len > 1) ||
            xpu_parse_u64(num, 10, &v) < 0 || v >= XPU_DRM_NUMBER_LIMIT)
                return -EINVAL;
        *ret = (uint32_t)v;
        return 0;
}

static int cmp_u32(const void *a, const void *b) {
        uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
        return (x > y) - (x < y);
}

int xpu_sysfs_list_numbered(int root_fd, const char *path, const char *prefix, uint32_t *ret, size_t max,
                            bool *ret_more) {
        int fd = xpu_open_in_root(root_fd, path, O_RDONLY | O_DIRECTORY, 0);
        if (fd < 0)
                return fd;
        _cleanup_closedir_ DIR *d = fdopendir(fd);
        if (!d) {
                int r = negative_errno();
                close(fd);
                return r;
        }
        size_t n = 0;
        bool more = false;
        for (struct dirent *de; (de = readdir(d));) {
                uint32_t v;
                if (parse_numbered_name(de->d_name, prefix, &v) < 0)
                        continue;
                if (n < max) {
                        ret[n++] = v;
                        continue;
                }
                more = true;
                size_t hi = 0; /* full: keep the lowest numbers */
                for (size_t i = 1; i < n; i++)
                        if (ret[i] > ret[hi])
                                hi = i;
                if (n > 0 && v < ret[hi])
                        ret[hi] = v;
        }
        qsort(ret, n, sizeof *ret, cmp_u32);
        if (ret_more)
                *ret_more = more;
        return (int)n;
}

/* Last path component of a link text or path. */
static const char *basename_of(const char *s) {
        const char *slash = strrchr(s, '/');
        return slash ? slash + 1 : s;
}

/* The driver a card is bound to: device/driver is a symlink on a real host; a plain file holding
 * the link text is accepted too (flattened captures). Returns 0 or -errno. */
static int card_driver(int fd, uint32_t n, char *buf, size_t size) {
        char path[96];
        snprintf(path, sizeof path, XPU_DRM_CLASS "/card%u/device/driver", n);
        ssize_t r = xpu_readlink_in_root(fd, path, buf, size);
        if (r == -EINVAL)
                r = xpu_read_value_in_root(fd, path, buf, size);
        if (r < 0)
                return (int)r;
        memmove(buf, basename_of(buf), strlen(basename_of(buf)) + 1);
        return 0;
}

/* PCI bus id of a card: the last component of the cardN/device link, else PCI_SLOT_NAME from
 * device/uevent. Leaves OUT empty when neither says. */
static void card_bus_id(int fd, uint32_t n, char out[XPU_PCI_BUS_ID_MAX]) {
        char buf[PATH_MAX], path[96];
        out[0] = '\0';
        snprintf(path, sizeof path, XPU_DRM_CLASS "/card%u/device", n);
        if (xpu_readlink_in_root(fd, path, buf, sizeof buf) >= 0 &&
            xpu_pci_bus_id_normalize(basename_of(buf), out) == 0)
                return;
        out[0] = '\0';
        snprintf(path, sizeof path, XPU_DRM_CLASS "/card%u/device/uevent", n);
        if (xpu_read_value_in_root(fd, path, buf, 4096) < 0)
                return;
        char *save = NULL;
        for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                if (xpu_startswith(line, "PCI_SLOT_NAME=")) {
                        if (xpu_pci_bus_id_normalize(line + strlen("PCI_SLOT_NAME="), out) < 0)
                                out[0] = '\0';
                        return;
                }
}

size_t xpu_drm_cards_scan(int root_fd, uint16_t pci_vendor, bool (*driver_ok)(const char *driver),
                          struct xpu_drm_card *cards, size_t max, bool *ret_more) {
        uint32_t nums[XPU_DRM_CARDS_MAX];
        int n = xpu_sysfs_list_numbered(root_fd, XPU_DRM_CLASS, "card", nums, max < ELEMENTSOF(nums) ? max : ELEMENTSOF(nums),
                                        ret_more);
        size_t k = 0;
        for (int i = 0; i < n; i++) {
                char buf[PATH_MAX], path[96];
                uint64_t vendor;
                /* Another vendor's, or not a PCI device (simpledrm): not this vendor's, quietly. */
                snprintf(path, sizeof path, XPU_DRM_CLASS "/card%u/device/vendor", nums[i]);
                if (xpu_read_value_in_root(root_fd, path, buf, 32) < 0 || xpu_parse_u64(buf, 16, &vendor) < 0 ||
                    vendor != pci_vendor)
                        continue;
                struct xpu_drm_card *c = &cards[k];
                *c = (struct xpu_drm_card){ .n = nums[i] };
                /* An unreadable driver link is no reason to drop a card; a known other driver is. */
                if (card_driver(root_fd, nums[i], buf, sizeof buf) == 0) {
                        if (driver_ok && !driver_ok(buf))
                                continue;
                        if (strlen(buf) < sizeof c->driver)
                                memcpy(c->driver, buf, strlen(buf) + 1);
                }
                card_bus_id(root_fd, nums[i], c->bus_id);
                k++;
        }
        return k;
}

int xpu_drm_card_render_minor(int root_fd, uint32_t n, uint32_t *ret) {
        char path[96];
        uint32_t render[1];
        snprintf(path, sizeof path, XPU_DRM_CLASS "/card%u/device/drm", n);
        if (xpu_sysfs_list_numbered(root_fd, path, "renderD", render, 1, NULL) != 1 ||
            render[0] < XPU_DRM_RENDER_MINOR_BASE)
                return -ENOENT;
        *ret = render[0];
        return 0;
}
