/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA's kernel-log rules (vendor.h kernel_log, kernel-log.h): Xid lines of nvidia.ko,
 * "NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus.", with the meanings of
 * NVIDIA's Xid catalogue (docs.nvidia.com/deploy/xid-errors). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/pci.h"
#include "kernel-log.h"
#include "nvidia/nvidia.h"

/* One entry of the Xid catalogue: the Xids xpud knows, with NVIDIA's meaning and action. */
struct xid_info {
        unsigned xid;
        enum xpu_kernel_effect effect;
        const char *what;
        const char *action;
};

/* NVIDIA's Xid catalogue (docs.nvidia.com/deploy/xid-errors, "Xid Error Listing" and the actions of
 * its "Xid Error Action" table): the Xids an operator acts on. 13, 31, 43 and 45 are faults of the
 * application, not the GPU. */
static const struct xid_info xids[] = {
        { 13, XPU_KERNEL_NONE, "graphics engine exception (an application fault)", "check the application" },
        { 31, XPU_KERNEL_NONE, "GPU memory page fault (an application fault)", "check the application" },
        { 43, XPU_KERNEL_NONE, "GPU stopped processing (an application fault)", "check the application" },
        { 45, XPU_KERNEL_NONE, "preemptive cleanup after an earlier error", "" },
        { 48, XPU_KERNEL_UNHEALTHY, "double-bit ECC error", "drain the node and reset the GPU" },
        { 61, XPU_KERNEL_DEGRADED, "internal micro-controller breakpoint or warning", "reset the GPU" },
        { 62, XPU_KERNEL_UNHEALTHY, "internal micro-controller halt", "drain the node and reset the GPU" },
        { 63, XPU_KERNEL_DEGRADED, "ECC page retirement or row remapping recorded",
          "reset the GPU when convenient so the remapping takes effect" },
        { 64, XPU_KERNEL_UNHEALTHY, "ECC page retirement or row remapping failed",
          "drain the node and reset the GPU; replace it if this repeats" },
        { 74, XPU_KERNEL_DEGRADED, "NVLink error", "check the NVLink connections and reset the GPU" },
        { 79, XPU_KERNEL_UNHEALTHY, "GPU has fallen off the bus",
          "drain the node, reboot it and inspect the GPU's seating, power and cooling" },
        { 92, XPU_KERNEL_DEGRADED, "high single-bit ECC error rate", "watch the ECC counts; reset the GPU" },
        { 94, XPU_KERNEL_DEGRADED, "contained ECC error", "restart the affected application" },
        { 95, XPU_KERNEL_UNHEALTHY, "uncontained ECC error", "drain the node and reset the GPU" },
        { 119, XPU_KERNEL_UNHEALTHY, "GSP RPC timeout", "drain the node and reset the GPU" },
        { 120, XPU_KERNEL_UNHEALTHY, "GSP error", "drain the node and reset the GPU" },
};

/* The catalogue entry of XID, or NULL for an Xid not in it (an event, no health effect). */
static const struct xid_info *xid_lookup(unsigned xid) {
        for (size_t i = 0; i < ELEMENTSOF(xids); i++)
                if (xids[i].xid == xid)
                        return &xids[i];
        return NULL;
}

int xpu_nvidia_kernel_log(const char *record, const char *msg, size_t len, struct xpu_kernel_event *ev) {
        (void)record;
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
        snprintf(ev->label, sizeof ev->label, "Xid %lu", xid);
        ev->xid = (unsigned)xid;
        const struct xid_info *info = xid_lookup(ev->xid);
        ev->effect = info ? info->effect : XPU_KERNEL_NONE;
        snprintf(ev->what, sizeof ev->what, "%s", info ? info->what : "an Xid not in xpud's catalogue");
        snprintf(ev->action, sizeof ev->action, "%s", info ? info->action : "look it up in NVIDIA's Xid catalogue");
        return 1;
}

