/* SPDX-License-Identifier: Apache-2.0 */
/* Stable xpud indices across samples (device-index.h). */
#include "device-index.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base/macro.h"
#include "health.h"

/* Does entry E stand for device D? In a first pass only a UUID that both have counts (a device
 * whose UUID is known is never taken for another one at its bus id); in the second, whatever
 * xpud_device_same() accepts, and for devices that have neither a UUID nor a bus id (WSL2's
 * driver-store entries, whom xpud_device_same() also takes by it) the same vendor ordinal. */
static bool matches(const struct xpu_device *e, const struct xpu_device *d, bool uuid_pass) {
        if (uuid_pass)
                return e->uuid[0] && d->uuid[0] && xpud_device_same(e, d);
        if (xpud_device_same(e, d))
                return true;
        return e->vendor == d->vendor && !e->uuid[0] && !d->uuid[0] && !e->pci_bus_id[0] && !d->pci_bus_id[0] &&
               e->vendor_index == d->vendor_index && e->partition == d->partition;
}

int xpud_index_map_assign(struct xpud_index_map *m, struct xpu_device *devs, size_t n) {
        if (n == 0)
                return 0;
        /* Room for every device to be new, taken before anything changes. */
        struct xpud_index_entry *grown = reallocarray(m->entries, m->n + n, sizeof *grown);
        if (!grown)
                return -ENOMEM;
        m->entries = grown;
        _cleanup_free_ bool *claimed = calloc(m->n, sizeof *claimed);
        _cleanup_free_ size_t *entry = malloc(n * sizeof *entry);
        if ((m->n && !claimed) || !entry)
                return -ENOMEM;
        const size_t none = SIZE_MAX;
        for (size_t i = 0; i < n; i++)
                entry[i] = none;
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < n; i++)
                        for (size_t k = 0; k < m->n && entry[i] == none; k++)
                                if (!claimed[k] && matches(&m->entries[k].id, &devs[i], pass == 0)) {
                                        claimed[k] = true;
                                        entry[i] = k;
                                }
        /* New devices, in the probes' order (their index in this sample). */
        for (;;) {
                size_t first = none;
                for (size_t i = 0; i < n; i++)
                        if (entry[i] == none && (first == none || devs[i].index < devs[first].index))
                                first = i;
                if (first == none)
                        break;
                entry[first] = m->n;
                m->entries[m->n++].index = m->next++;
        }
        for (size_t i = 0; i < n; i++) {
                struct xpud_index_entry *e = &m->entries[entry[i]];
                e->id = devs[i];
                e->id.index = e->index;
                devs[i].index = e->index;
        }
        return 0;
}

void xpud_index_map_done(struct xpud_index_map *m) {
        free(m->entries);
        *m = (struct xpud_index_map){};
}
