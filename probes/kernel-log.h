/* SPDX-License-Identifier: Apache-2.0 */
/* A GPU driver's event in the kernel log: what a vendor's kernel-log rules (vendor.h,
 * xpu_vendor_ops.kernel_log: NVIDIA's Xid lines, amdgpu's resets, ring timeouts and RAS errors)
 * find in one /dev/kmsg record, and the helpers those rules share. xpud's reader (daemon/kmsg.h)
 * splits the log into records and asks each vendor's rules in turn.
 *
 * Source: the kernel's /dev/kmsg record format (Documentation/ABI/testing/dev-kmsg: one record
 * per read, "PRIORITY,SEQ,TIMESTAMP_USEC,FLAGS[,...];MESSAGE\n", then continuation lines
 * " KEY=VALUE\n", e.g. " DEVICE=+pci:0000:03:00.0" for a dev_printk line). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "base/pci.h"

/* What a kernel log event does to its device's health. */
enum xpu_kernel_effect {
        XPU_KERNEL_NONE = 0, /* recorded as an event only (an application fault, a correctable error) */
        XPU_KERNEL_DEGRADED,
        XPU_KERNEL_UNHEALTHY,
};

/* The size of an event's action: xpud's health action (daemon/snapshot.h XPUD_ACTION_SIZE, which
 * checks that the two agree). */
#define XPU_KERNEL_ACTION_SIZE 192

/* One event found in a record. */
struct xpu_kernel_event {
        char kind[24];                   /* "xid", "amdgpu_reset", "amdgpu_ring_timeout", "amdgpu_ras" */
        char label[40];                  /* the event in a message: "Xid 79", "amdgpu" */
        char bus_id[XPU_PCI_BUS_ID_MAX]; /* canonical; an Xid names no function: function 0; "" unknown */
        bool bus_has_function;           /* false for an Xid (match the device by domain, bus, device) */
        unsigned xid;                    /* the Xid number, 1..65535 (kind "xid"), else 0 */
        enum xpu_kernel_effect effect;
        char what[160];                  /* "GPU has fallen off the bus" (the vendor's words) */
        char action[XPU_KERNEL_ACTION_SIZE]; /* suggested action, "" when none */
        char text[256];                  /* the kernel's message, printable ASCII, cut */
        double kernel_time;              /* seconds since boot (the record's timestamp) */
};

/* Copy the printable part of S (LEN bytes) into OUT (SIZE > 0 bytes, NUL-terminated, cut), other
 * bytes as '?'. */
void xpu_kernel_text(char *out, size_t size, const char *s, size_t len);

/* The bus id of RECORD's " DEVICE=+pci:0000:03:00.0" continuation line, canonical, into OUT.
 * Returns false when it has none or that is no bus id. */
bool xpu_kernel_device_line(const char *record, char out[XPU_PCI_BUS_ID_MAX]);
