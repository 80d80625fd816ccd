/* SPDX-License-Identifier: Apache-2.0 */
/* AMD's kernel-log rules (vendor.h kernel_log, kernel-log.h): amdgpu's dev_printk lines
 * ("amdgpu 0000:03:00.0: amdgpu: GPU reset begin!", "... ring gfx_0.0.0 timeout, ...",
 * "... N uncorrectable hardware errors detected in umc block"): one of amd_events[], with the
 * bus id of the prefix or of the record's DEVICE= line. */
#include <stdio.h>
#include <string.h>

#include "base/macro.h"
#include "base/pci.h"
#include "kernel-log.h"
#include "amd/amd.h"

/* amdgpu's messages worth an event: a substring of the message and what it means. */
static const struct {
        const char *needle;
        const char *kind;
        enum xpu_kernel_effect effect;
        const char *what;
        const char *action;
} amd_events[] = {
        { "uncorrectable hardware errors detected", "amdgpu_ras", XPU_KERNEL_UNHEALTHY, "uncorrectable RAS error",
          "drain the node and reset the GPU; replace it if this repeats" },
        { "correctable hardware errors detected", "amdgpu_ras", XPU_KERNEL_NONE, "correctable RAS error", "" },
        { "GPU reset begin", "amdgpu_reset", XPU_KERNEL_DEGRADED, "GPU reset (its jobs were lost)",
          "check the application that hung it" },
        { " timeout", "amdgpu_ring_timeout", XPU_KERNEL_DEGRADED, "ring timeout (a job hung the GPU)",
          "check the application that hung it" },
};

int xpu_amd_kernel_log(const char *record, const char *msg, size_t len, struct xpu_kernel_event *ev) {
        char m[512];
        xpu_kernel_text(m, sizeof m, msg, len);
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
                have = xpu_kernel_device_line(record, ev->bus_id);
        if (!have)
                ev->bus_id[0] = '\0';
        ev->bus_has_function = true;
        snprintf(ev->kind, sizeof ev->kind, "%s", amd_events[k].kind);
        snprintf(ev->label, sizeof ev->label, "amdgpu");
        ev->effect = amd_events[k].effect;
        snprintf(ev->what, sizeof ev->what, "%s", amd_events[k].what);
        snprintf(ev->action, sizeof ev->action, "%s", amd_events[k].action);
        return 1;
}
