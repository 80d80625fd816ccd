/* SPDX-License-Identifier: Apache-2.0 */
#include "pci.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* LEN hex digits at S (1..MAX_DIGITS) into *RET. */
static int parse_hex_field(const char *s, size_t len, size_t max_digits, uint32_t *ret) {
        if (len == 0 || len > max_digits)
                return -EINVAL;
        uint32_t v = 0;
        for (size_t i = 0; i < len; i++) {
                int c = tolower((unsigned char)s[i]);
                int d;
                if (c >= '0' && c <= '9')
                        d = c - '0';
                else if (c >= 'a' && c <= 'f')
                        d = c - 'a' + 10;
                else
                        return -EINVAL;
                v = (v << 4) | (uint32_t)d;
        }
        *ret = v;
        return 0;
}

int xpu_pci_bus_id_parse(const char *in, struct xpu_pci_bus_id *ret) {
        if (!in || !ret)
                return -EINVAL;
        while (isspace((unsigned char)*in))
                in++;
        size_t n = strlen(in);
        while (n > 0 && isspace((unsigned char)in[n - 1]))
                n--;
        /* Fields from the right: function after '.', device and bus before it, optional domain. */
        const char *dot = memrchr(in, '.', n);
        if (!dot)
                return -EINVAL;
        uint32_t domain = 0, bus, dev, fn;
        if (parse_hex_field(dot + 1, (size_t)(in + n - dot - 1), 1, &fn) < 0 || fn > 7)
                return -EINVAL;
        const char *c2 = memrchr(in, ':', (size_t)(dot - in));
        if (!c2 || parse_hex_field(c2 + 1, (size_t)(dot - c2 - 1), 2, &dev) < 0 || dev > 0x1f)
                return -EINVAL;
        const char *c1 = memrchr(in, ':', (size_t)(c2 - in));
        if (c1) {
                if (parse_hex_field(c1 + 1, (size_t)(c2 - c1 - 1), 2, &bus) < 0 ||
                    parse_hex_field(in, (size_t)(c1 - in), 8, &domain) < 0)
                        return -EINVAL;
        } else if (parse_hex_field(in, (size_t)(c2 - in), 2, &bus) < 0)
                return -EINVAL;
        *ret = (struct xpu_pci_bus_id){
                .domain = domain,
                .bus = (uint8_t)bus,
                .device = (uint8_t)dev,
                .function = (uint8_t)fn,
        };
        return 0;
}

void xpu_pci_bus_id_format(const struct xpu_pci_bus_id *id, char out[XPU_PCI_BUS_ID_MAX]) {
        /* 4 digits as the kernel and procfs print a 16-bit domain; a wider (Hyper-V) domain gets
         * NVML's 8, so that one number always has one spelling. */
        snprintf(out, XPU_PCI_BUS_ID_MAX, id->domain > 0xffff ? "%08" PRIx32 ":%02x:%02x.%x" : "%04" PRIx32 ":%02x:%02x.%x",
                 id->domain, id->bus, id->device & 0x1fu, id->function & 7u);
}

int xpu_pci_bus_id_normalize(const char *in, char out[XPU_PCI_BUS_ID_MAX]) {
        struct xpu_pci_bus_id id;
        int r = xpu_pci_bus_id_parse(in, &id);
        if (r < 0)
                return r;
        xpu_pci_bus_id_format(&id, out);
        return 0;
}

int xpu_pci_bus_id_compare(const struct xpu_pci_bus_id *a, const struct xpu_pci_bus_id *b) {
        if (a->domain != b->domain)
                return a->domain < b->domain ? -1 : 1;
        if (a->bus != b->bus)
                return a->bus < b->bus ? -1 : 1;
        if (a->device != b->device)
                return a->device < b->device ? -1 : 1;
        return (a->function > b->function) - (a->function < b->function);
}

bool xpu_pci_bus_id_equal(const char *a, const char *b) {
        struct xpu_pci_bus_id x, y;
        return a && b && *a && *b && xpu_pci_bus_id_parse(a, &x) == 0 && xpu_pci_bus_id_parse(b, &y) == 0 &&
               xpu_pci_bus_id_compare(&x, &y) == 0;
}

int xpu_pci_sysfs_path(const char *bus_id, const char *leaf, char *out, size_t size) {
        struct xpu_pci_bus_id id;
        if (xpu_pci_bus_id_parse(bus_id, &id) < 0)
                return -EINVAL;
        int n = snprintf(out, size, "/sys/bus/pci/devices/%04" PRIx32 ":%02x:%02x.%x%s%s", id.domain, id.bus,
                         id.device, id.function, leaf ? "/" : "", leaf ? leaf : "");
        return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}
