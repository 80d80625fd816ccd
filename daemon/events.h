/* SPDX-License-Identifier: Apache-2.0 */
/* The event ring of /v1/events: state changes found by comparing two snapshots.
 *
 * The ring is the sampler's: one thread appends and copies (no lock). Each snapshot carries a
 * copy (xpud_snapshot.events, oldest first, and events_dropped), so requests never touch the
 * ring. When full, the oldest event is dropped and counted. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"
#include "snapshot.h"

/* Default ring size (xpud_sampler_options.events_max = 0). */
#define XPUD_EVENTS_MAX_DEFAULT 256

struct xpud_events {
        struct xpud_event *ring; /* cap entries */
        size_t cap;
        size_t head;             /* index of the oldest event */
        size_t n;                /* events held, <= cap */
        uint64_t next_seq;       /* seq of the next event; the first is 1 */
        uint64_t dropped;        /* events dropped because the ring was full */
};

/* Make an empty ring of MAX events (0: XPUD_EVENTS_MAX_DEFAULT). Returns 0 or -ENOMEM. */
int xpud_events_init(struct xpud_events *ev, size_t max);
/* Free the ring; EV may be zeroed or already done. */
void xpud_events_done(struct xpud_events *ev);

/* Append an event at TIME (unix seconds) of KIND ("device_lost", "device_back", "health",
 * "backend_error", "backend_up") about DEVICE (uuid or PCI bus id; NULL or "" for the daemon),
 * message from FMT (cut to XPUD_EVENT_MESSAGE_SIZE - 1 bytes ending in "..." by xpud_text_cut()
 * when longer). Drops the oldest when full. Never fails. */
void xpud_events_add(struct xpud_events *ev, double time, const char *kind, const char *device, const char *fmt, ...)
        _printf_(5, 6);

/* Copy the ring, oldest first, into S (s->events, s->n_events, s->events_dropped; S must have
 * none yet). Returns 0 or -ENOMEM (S unchanged). */
int xpud_events_copy_to(const struct xpud_events *ev, struct xpud_snapshot *s);

/* Compare PREV (NULL for the first sample) with NEXT and append, at NEXT's collect_time:
 *   backend_error  a backend of NEXT is down and was up in PREV (or PREV has none: the first
 *                  sample): "<name>: <error>";
 *   backend_up     a backend down in PREV is up in NEXT: "<name> is back";
 *   device_lost    a device lost in NEXT and not in PREV: "gpu N (<pci bus id>) fell off the bus:
 *                  <reason>"; or a device of PREV (not lost there) missing from NEXT: "gpu N (...) is no longer
 *                  listed";
 *   device_back    a device lost in PREV that is not in NEXT, or a device missing from PREV (when
 *                  PREV exists): "gpu N (...) is back";
 *   health         a device's state differs from PREV's: "gpu N (...): healthy -> degraded:
 *                  <first reason>"; on the first sample only states other than healthy and
 *                  unknown are recorded.
 * Devices are matched with xpud_snapshot_find_same(). Events go in that order: backends, then
 * devices in NEXT's order (a device's loss before its health change), then devices gone. */
void xpud_events_diff(struct xpud_events *ev, const struct xpud_snapshot *prev, const struct xpud_snapshot *next);
