/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel log events per device across samples (kernel-events.h). */
#include "kernel-events.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/macro.h"
#include "health.h"

struct xpud_kernel_entry {
        struct xpu_pci_bus_id bus;  /* as the event named it */
        bool has_function;          /* false: an Xid, which names no function */
        struct xpud_kernel_events ev;
        double held_since;          /* unix seconds of the event ev.health holds */
};

void xpud_kernel_init(struct xpud_kernel_state *ks, int fd, const char *path) {
        memset(ks, 0, sizeof *ks);
        xpud_kmsg_init(&ks->kmsg, fd, path);
}

void xpud_kernel_done(struct xpud_kernel_state *ks) {
        xpud_kmsg_done(&ks->kmsg);
        free(ks->entries);
        ks->entries = NULL;
        ks->n_entries = 0;
}

/* Does the device's bus id DEV match the entry (by domain, bus, device; and function when the
 * event named one)? */
static bool entry_matches(const struct xpud_kernel_entry *e, const char *dev) {
        struct xpu_pci_bus_id id;
        if (!dev[0] || xpu_pci_bus_id_parse(dev, &id) < 0)
                return false;
        return id.domain == e->bus.domain && id.bus == e->bus.bus && id.device == e->bus.device &&
               (!e->has_function || id.function == e->bus.function);
}

static struct xpud_kernel_entry *entry_get(struct xpud_kernel_state *ks, const struct xpu_kernel_event *ev) {
        struct xpu_pci_bus_id id;
        if (xpu_pci_bus_id_parse(ev->bus_id, &id) < 0)
                return NULL;
        for (size_t i = 0; i < ks->n_entries; i++) {
                struct xpud_kernel_entry *e = &ks->entries[i];
                if (e->has_function == ev->bus_has_function && xpu_pci_bus_id_compare(&e->bus, &id) == 0)
                        return e;
        }
        struct xpud_kernel_entry *n = reallocarray(ks->entries, ks->n_entries + 1, sizeof *n);
        if (!n)
                return NULL;
        ks->entries = n;
        struct xpud_kernel_entry *e = &n[ks->n_entries++];
        *e = (struct xpud_kernel_entry){ .bus = id, .has_function = ev->bus_has_function };
        e->ev.health = XPUD_HEALTH_HEALTHY;
        return e;
}

struct update {
        struct xpud_kernel_state *ks;
        struct xpud_snapshot *s;
        struct xpud_events *events;
        double now;
        bool oom;
};

/* Count XID; when XPUD_XIDS_MAX - 1 other Xids are counted already, under 0 ("other"), the last
 * slot, so an Xid's own series never holds another's counts. */
static void count_xid(struct xpud_kernel_events *k, unsigned xid) {
        for (size_t i = 0; i < k->n_xids; i++)
                if (k->xids[i].xid == xid) {
                        k->xids[i].count++;
                        return;
                }
        if (k->n_xids == XPUD_XIDS_MAX - 1)
                k->xids[k->n_xids++].xid = 0;
        if (k->n_xids == XPUD_XIDS_MAX) {
                k->xids[XPUD_XIDS_MAX - 1].count++;
                return;
        }
        k->xids[k->n_xids].xid = xid;
        k->xids[k->n_xids++].count = 1;
}

static void on_event(void *userdata, const struct xpu_kernel_event *ev) {
        struct update *u = userdata;
        const struct xpud_device *d = NULL;
        const char *label = ev->label; /* the vendor's rules name it: "Xid 79", "amdgpu" */
        struct xpud_kernel_entry *e = ev->bus_id[0] ? entry_get(u->ks, ev) : NULL;
        if (ev->bus_id[0] && !e) {
                u->oom = true;
                return;
        }
        for (size_t i = 0; e && i < u->s->n_devices && !d; i++)
                if (entry_matches(e, u->s->devices[i].dev.pci_bus_id))
                        d = &u->s->devices[i];
        char who[64];
        if (d)
                snprintf(who, sizeof who, "gpu %u (%s)", d->dev.index, d->dev.pci_bus_id);
        else
                snprintf(who, sizeof who, "%s (no GPU of the inventory)", ev->bus_id[0] ? ev->bus_id : "a GPU");
        xpud_events_add(u->events, u->now, ev->kind, d ? (d->dev.uuid[0] ? d->dev.uuid : d->dev.pci_bus_id) : ev->bus_id,
                        "%s: %s: %s%s%s: %s", who, label, ev->what, ev->action[0] ? "; " : "", ev->action, ev->text);
        if (!e)
                return;
        if (ev->xid)
                count_xid(&e->ev, ev->xid);
        enum xpud_health h = ev->effect == XPU_KERNEL_UNHEALTHY ? XPUD_HEALTH_UNHEALTHY
                             : ev->effect == XPU_KERNEL_DEGRADED ? XPUD_HEALTH_DEGRADED
                                                                : XPUD_HEALTH_HEALTHY;
        if (h == XPUD_HEALTH_HEALTHY || xpud_health_rank(h) < xpud_health_rank(e->ev.health))
                return;
        e->ev.health = h;
        e->held_since = u->now;
        xpud_text_cut(e->ev.reason, sizeof e->ev.reason, "%s: %s (kernel log at %.6f s after boot: \"%s\")", label,
                      ev->what, ev->kernel_time, ev->text);
        snprintf(e->ev.action, sizeof e->ev.action, "%s", ev->action);
}

int xpud_kernel_update(struct xpud_kernel_state *ks, struct xpud_snapshot *s, struct xpud_events *ev, double now) {
        struct update u = { .ks = ks, .s = s, .events = ev, .now = now };
        uint64_t lost = ks->kmsg.lost;
        int r = xpud_kmsg_poll(&ks->kmsg, on_event, &u);
        if (u.oom)
                return -ENOMEM;
        if (ks->kmsg.lost > lost) {
                xpud_events_add(ev, now, "kmsg_lost", NULL, "%" PRIu64 " kernel log record(s) lost before xpud read "
                                "them (overwritten by the kernel, or longer than %zu bytes); driver events among them "
                                "are not seen", ks->kmsg.lost - lost, sizeof ks->kmsg.buf - 1);
                log_warning("--kmsg %s: %" PRIu64 " record(s) lost before they were read", ks->kmsg.path,
                            ks->kmsg.lost - lost);
        }
        if (r < 0 && r != ks->last_error)
                log_warning("--kmsg %s: %s; trying again at the next sample", ks->kmsg.path, strerror(-r));
        ks->last_error = r < 0 ? r : 0;
        for (size_t i = 0; i < ks->n_entries; i++) {
                struct xpud_kernel_entry *e = &ks->entries[i];
                if (e->ev.health != XPUD_HEALTH_HEALTHY && now - e->held_since > XPUD_KMSG_HOLD_S) {
                        e->ev.health = XPUD_HEALTH_HEALTHY;
                        e->ev.reason[0] = e->ev.action[0] = '\0';
                }
        }
        for (size_t k = 0; k < s->n_devices; k++) {
                struct xpud_device *d = &s->devices[k];
                d->kernel = (struct xpud_kernel_events){ .health = XPUD_HEALTH_HEALTHY };
                bool first = true;
                for (size_t i = 0; i < ks->n_entries; i++) {
                        const struct xpud_kernel_entry *e = &ks->entries[i];
                        if (!entry_matches(e, d->dev.pci_bus_id))
                                continue;
                        /* the Xid counts of the first; the worst held event of all */
                        if (first)
                                d->kernel = e->ev;
                        else if (xpud_health_rank(e->ev.health) > xpud_health_rank(d->kernel.health)) {
                                d->kernel.health = e->ev.health;
                                snprintf(d->kernel.reason, sizeof d->kernel.reason, "%s", e->ev.reason);
                                snprintf(d->kernel.action, sizeof d->kernel.action, "%s", e->ev.action);
                        }
                        first = false;
                }
        }
        return 0;
}
