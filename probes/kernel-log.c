/* SPDX-License-Identifier: Apache-2.0 */
/* The helpers of the vendors' kernel-log rules (kernel-log.h). */
#include "kernel-log.h"

#include <ctype.h>
#include <string.h>

void xpu_kernel_text(char *out, size_t size, const char *s, size_t len) {
        size_t n = len < size - 1 ? len : size - 1;
        for (size_t i = 0; i < n; i++)
                out[i] = isprint((unsigned char)s[i]) ? s[i] : '?';
        out[n] = '\0';
}

bool xpu_kernel_device_line(const char *record, char out[XPU_PCI_BUS_ID_MAX]) {
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
