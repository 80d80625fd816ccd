/* SPDX-License-Identifier: Apache-2.0 */
/* What the GPU drivers' kernel log said, per device, across samples: the sampler's side of
 * kmsg.h. Each sample reads the records written since the last one, adds an event per driver
 * event to /v1/events, counts NVIDIA Xids per device (xpu_xid_errors_total) and holds the worst
 * event's health effect for XPUD_KMSG_HOLD_S seconds (/v1/health, health.h). Devices are matched
 * by PCI bus id: an Xid names domain:bus:device, an amdgpu line the whole bus id; the partitions
 * of an AMD GPU share its bus id and so its events. */
#pragma once

#include <stddef.h>

#include "events.h"
#include "kmsg.h"
#include "snapshot.h"

struct xpud_kernel_entry; /* one bus id's state (kernel-events.c) */

struct xpud_kernel_state {
        struct xpud_kmsg kmsg;
        struct xpud_kernel_entry *entries;
        size_t n_entries;
        int last_error; /* of the last read, logged once per change */
};

/* Take the kernel log FD (xpud_kmsg_open_path(); -1: no kernel log) read as PATH. */
void xpud_kernel_init(struct xpud_kernel_state *ks, int fd, const char *path);
void xpud_kernel_done(struct xpud_kernel_state *ks);

/* Read the records written since the last call; for each driver event append an event to EV at
 * NOW (kind "xid", "amdgpu_ras", ...; device: the matched device's UUID, else the bus id;
 * message "gpu N (<bus id>): Xid 79: GPU has fallen off the bus; <action>: <kernel text>"), count
 * it, and hold its effect; drop holds older than XPUD_KMSG_HOLD_S; then fill the `kernel` field of
 * every device of S. Never blocks. Returns 0, or -ENOMEM. */
int xpud_kernel_update(struct xpud_kernel_state *ks, struct xpud_snapshot *s, struct xpud_events *ev, double now);
