/* SPDX-License-Identifier: Apache-2.0 */
/* Stable xpud indices: the `gpu` label of /metrics, `index` in /v1/devices and the {index} of
 * /v1/devices/{index} name one GPU for the daemon's whole life. Every sample probes the inventory
 * again, and the probes number it in their own order (NVIDIA devices first in PCI bus order, then
 * AMD devices in KFD order): a GPU that disappears, or a KFD order that changes, would renumber
 * the others, and one series name would mean two GPUs over time. The map remembers which index
 * each device got, by its identity (xpud_device_same(): vendor, partition number, UUID, else PCI
 * bus id):
 *   - the first sample keeps the probes' numbering (so does every daemon start: indices follow
 *     probe order there, not what an earlier daemon had);
 *   - a device seen before gets its index back, whatever its place in the probe order, also when
 *     it comes back after being gone;
 *   - a device never seen gets the next index never given (one above the highest so far), so a
 *     lost GPU's index is never reused.
 * Entries are never dropped: the map grows with the number of distinct devices the daemon saw. */
#pragma once

#include <stddef.h>

#include "probe.h"

struct xpud_index_entry {
        struct xpu_device id; /* the device as last seen: its identity fields count */
        unsigned index;
};

struct xpud_index_map {
        struct xpud_index_entry *entries; /* n of them, in the order they were first seen */
        size_t n;
        unsigned next; /* the index the next new device gets */
};

/* Give each of the N devices of DEVS (one sample's inventory, each numbered by the probes in
 * xpu_device.index) its stable index, in place, and remember them in M (zero-initialised before
 * the first call). Devices matching no entry are numbered in the probes' order. Returns 0, or
 * -ENOMEM (DEVS and M unchanged). */
int xpud_index_map_assign(struct xpud_index_map *m, struct xpu_device *devs, size_t n);

/* Free M's entries; M is empty again. */
void xpud_index_map_done(struct xpud_index_map *m);
