/* SPDX-License-Identifier: Apache-2.0 */
/* The PCIe link of a GPU from PCI sysfs: see pci-link.h for the files and their forms. */
#include "pci-link.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/root-file.h"
#include "base/macro.h"
#include "base/str.h"

int xpu_pcie_parse_link_speed(const char *text, uint64_t *ret_tps) {
        if (!text || !ret_tps)
                return -EINVAL;
        if (strcmp(text, "Unknown") == 0 || strcmp(text, "Unknown speed") == 0)
                return -ENODATA;
        /* Whole GT/s, then at most one decimal: every speed PCIe defines is a multiple of 0.5. */
        uint64_t whole = 0, tenths = 0;
        const char *p = text;
        size_t digits = 0;
        for (; *p >= '0' && *p <= '9' && digits < 5; p++, digits++)
                whole = whole * 10 + (uint64_t)(*p - '0');
        if (digits == 0 || (*p >= '0' && *p <= '9'))
                return -EINVAL;
        if (*p == '.') {
                p++;
                if (!(*p >= '0' && *p <= '9'))
                        return -EINVAL;
                tenths = (uint64_t)(*p++ - '0');
        }
        if (strcmp(p, " GT/s") != 0 && strcmp(p, " GT/s PCIe") != 0)
                return -EINVAL;
        uint64_t tps = whole * 1000000000ull + tenths * 100000000ull;
        if (tps == 0 || tps > 1000ull * 1000000000ull)
                return -EINVAL;
        *ret_tps = tps;
        return 0;
}

/* DIR/NAME (a PCI function's attribute) into BUF. Returns the length; 0 quietly when absent (a
 * function without a PCIe capability has none of the files); 0 with a warning when unreadable or
 * not printable. */
static ssize_t read_attr(int sys_fd, const char *dir, const char *name, struct xpu_inventory *inv, char *buf,
                         size_t size, int *oom) {
        char path[160];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        ssize_t n = xpu_read_value_in_root(sys_fd, path, buf, size);
        if (n == -ENOENT || n == -ENODATA || n == -EOPNOTSUPP || n == 0)
                return 0;
        if (n < 0 || !xpu_str_is_printable(buf)) {
                if (xpu_inventory_warn(inv, "%s: %s; left out", path, n < 0 ? strerror((int)-n) : "not printable text") <
                    0)
                        *oom = -ENOMEM;
                return 0;
        }
        return n;
}

static void warn_odd(struct xpu_inventory *inv, const char *dir, const char *name, const char *text, const char *what,
                     int *oom) {
        if (xpu_inventory_warn(inv, "%s/%s: \"%s\" is not %s; the link's %s left out", dir, name, text, what,
                               strstr(name, "width") ? "width" : "speed") < 0)
                *oom = -ENOMEM;
}

int xpu_pcie_link_read(int sys_fd, const char *bus_id, struct xpu_inventory *inv, struct xpu_readings *r) {
        static const char *const width_files[_XPU_LINK_END_MAX] = { "current_link_width", "max_link_width" };
        static const char *const speed_files[_XPU_LINK_END_MAX] = { "current_link_speed", "max_link_speed" };
        if (!bus_id || !bus_id[0] || !inv || !r)
                return 0;
        char dir[64];
        snprintf(dir, sizeof dir, "/sys/bus/pci/devices/%s", bus_id);
        int oom = 0;
        uint32_t width[_XPU_LINK_END_MAX];
        uint64_t speed[_XPU_LINK_END_MAX];
        bool width_ok = true, speed_ok = true;
        for (int e = 0; e < _XPU_LINK_END_MAX; e++) {
                char buf[64];
                uint64_t v;
                if (read_attr(sys_fd, dir, width_files[e], inv, buf, sizeof buf, &oom) <= 0)
                        width_ok = false;
                else if (xpu_parse_u64(buf, 10, &v) < 0 || v > XPU_PCIE_WIDTH_MAX) {
                        warn_odd(inv, dir, width_files[e], buf, "a lane count (0 to 32)", &oom);
                        width_ok = false;
                } else
                        width[e] = (uint32_t)v;
                if (read_attr(sys_fd, dir, speed_files[e], inv, buf, sizeof buf, &oom) <= 0)
                        speed_ok = false;
                else {
                        int p = xpu_pcie_parse_link_speed(buf, &speed[e]);
                        if (p == -EINVAL)
                                warn_odd(inv, dir, speed_files[e], buf, "a link speed (\"16.0 GT/s PCIe\")", &oom);
                        speed_ok = speed_ok && p == 0;
                }
        }
        /* A maximum of 0 lanes is no capability at all: the pair says nothing. */
        if (width_ok && width[XPU_LINK_MAX] > 0) {
                memcpy(r->pcie_link_width, width, sizeof width);
                r->have |= XPU_READ_PCIE_WIDTH;
        }
        if (speed_ok) {
                memcpy(r->pcie_link_speed, speed, sizeof speed);
                r->have |= XPU_READ_PCIE_SPEED;
        }
        return oom;
}
