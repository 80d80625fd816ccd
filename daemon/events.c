/* SPDX-License-Identifier: Apache-2.0 */
/* The event ring and the transitions between two snapshots (events.h). */
#include "events.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "health.h"

int xpud_events_init(struct xpud_events *ev, size_t max) {
        *ev = (struct xpud_events){ .next_seq = 1 };
        ev->cap = max ? max : XPUD_EVENTS_MAX_DEFAULT;
        ev->ring = calloc(ev->cap, sizeof *ev->ring);
        if (!ev->ring) {
                ev->cap = 0;
                return -ENOMEM;
        }
        return 0;
}

void xpud_events_done(struct xpud_events *ev) {
        free(ev->ring);
        *ev = (struct xpud_events){ 0 };
}

void xpud_events_add(struct xpud_events *ev, double time, const char *kind, const char *device, const char *fmt, ...) {
        if (ev->cap == 0)
                return;
        struct xpud_event *e;
        if (ev->n == ev->cap) {
                e = &ev->ring[ev->head]; /* overwrite the oldest */
                ev->head = (ev->head + 1) % ev->cap;
                ev->dropped++;
        } else {
                e = &ev->ring[(ev->head + ev->n) % ev->cap];
                ev->n++;
        }
        *e = (struct xpud_event){ .time = time, .seq = ev->next_seq++ };
        xpu_strlcpy(e->kind, kind, sizeof e->kind);
        xpu_strlcpy(e->device, device ? device : "", sizeof e->device);
        va_list ap;
        va_start(ap, fmt);
        xpud_text_vcut(e->message, sizeof e->message, fmt, ap);
        va_end(ap);
}

int xpud_events_copy_to(const struct xpud_events *ev, struct xpud_snapshot *s) {
        struct xpud_event *copy = NULL;
        if (ev->n > 0) {
                copy = calloc(ev->n, sizeof *copy);
                if (!copy)
                        return -ENOMEM;
                for (size_t i = 0; i < ev->n; i++)
                        copy[i] = ev->ring[(ev->head + i) % ev->cap];
        }
        s->events = copy;
        s->n_events = ev->n;
        s->events_dropped = ev->dropped;
        return 0;
}

/* The event's device field: the UUID, else the PCI bus id. */
static const char *device_key(const struct xpud_device *d) {
        return d->dev.uuid[0] ? d->dev.uuid : d->dev.pci_bus_id;
}

/* "gpu 3 (0000:1a:00.0)": how messages name a device. */
static void device_label(const struct xpud_device *d, char *buf, size_t size) {
        snprintf(buf, size, "gpu %u (%s)", d->dev.index, d->dev.pci_bus_id[0] ? d->dev.pci_bus_id : d->dev.uuid);
}

static void diff_backends(struct xpud_events *ev, const struct xpud_snapshot *prev, const struct xpud_snapshot *next) {
        for (size_t i = 0; i < next->n_backends; i++) {
                const struct xpud_backend *b = &next->backends[i];
                const struct xpud_backend *p = xpud_snapshot_find_backend(prev, b->name);
                bool was_up = !p || p->up;
                if (was_up && !b->up)
                        xpud_events_add(ev, next->collect_time, "backend_error", NULL, "%s: %s", b->name,
                                        b->error[0] ? b->error : "collection failed");
                else if (!was_up && b->up)
                        xpud_events_add(ev, next->collect_time, "backend_up", NULL, "%s is back", b->name);
        }
}

static void diff_device(struct xpud_events *ev, const struct xpud_snapshot *prev, const struct xpud_snapshot *next,
                        const struct xpud_device *d) {
        const struct xpud_device *p = xpud_snapshot_find_same(prev, d);
        char label[96];
        device_label(d, label, sizeof label);
        double t = next->collect_time;

        if (d->r.lost && !(p && p->r.lost))
                xpud_events_add(ev, t, "device_lost", device_key(d), "%s fell off the bus: %s", label,
                                d->r.lost_reason[0] ? d->r.lost_reason : "no reason given");
        else if (!d->r.lost && ((p && p->r.lost) || (prev && !p)))
                xpud_events_add(ev, t, "device_back", device_key(d), "%s is back", label);

        enum xpud_health was = p ? p->health : XPUD_HEALTH_UNKNOWN;
        bool record = p ? was != d->health : d->health != XPUD_HEALTH_HEALTHY && d->health != XPUD_HEALTH_UNKNOWN;
        if (record)
                xpud_events_add(ev, t, "health", device_key(d), "%s: %s -> %s%s%s", label, xpud_health_to_string(was),
                                xpud_health_to_string(d->health), d->n_reasons ? ": " : "",
                                d->n_reasons ? d->reasons[0] : "");
}

void xpud_events_diff(struct xpud_events *ev, const struct xpud_snapshot *prev, const struct xpud_snapshot *next) {
        diff_backends(ev, prev, next);
        for (size_t i = 0; i < next->n_devices; i++)
                diff_device(ev, prev, next, &next->devices[i]);
        for (size_t i = 0; prev && i < prev->n_devices; i++) {
                const struct xpud_device *p = &prev->devices[i];
                if (p->r.lost || xpud_snapshot_find_same(next, p))
                        continue; /* a lost device that disappears was reported when it was lost */
                char label[96];
                device_label(p, label, sizeof label);
                xpud_events_add(ev, next->collect_time, "device_lost", device_key(p), "%s is no longer listed", label);
        }
}
