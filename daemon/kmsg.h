/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel log events of the GPU drivers, read from /dev/kmsg: NVIDIA Xid lines and amdgpu GPU
 * resets, ring timeouts and RAS errors, each mapped to a PCI bus id and to a health effect.
 *
 * Sources: the kernel's /dev/kmsg record format (Documentation/ABI/testing/dev-kmsg: one record
 * per read, "PRIORITY,SEQ,TIMESTAMP_USEC,FLAGS[,...];MESSAGE\n", then continuation lines
 * " KEY=VALUE\n", e.g. " DEVICE=+pci:0000:03:00.0" for a dev_printk line); NVIDIA's Xid messages
 * ("NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen off the bus.", nvidia.ko) with the
 * meanings of NVIDIA's Xid catalogue (docs.nvidia.com/deploy/xid-errors); amdgpu's dev_printk
 * lines ("amdgpu 0000:03:00.0: amdgpu: GPU reset begin!", "... ring gfx_0.0.0 timeout, ...",
 * "... N uncorrectable hardware errors detected in umc block"). A regular file or FIFO holding
 * such records stands in for /dev/kmsg in tests. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/pci.h"
#include "snapshot.h"

/* What a kernel log event does to its device's health. */
enum xpud_kmsg_effect {
        XPUD_KMSG_NONE = 0, /* recorded as an event only (an application fault, a correctable error) */
        XPUD_KMSG_DEGRADED,
        XPUD_KMSG_UNHEALTHY,
};

/* One event found in a record. */
struct xpud_kmsg_event {
        char kind[24];                   /* "xid", "amdgpu_reset", "amdgpu_ring_timeout", "amdgpu_ras" */
        char bus_id[XPU_PCI_BUS_ID_MAX]; /* canonical; an Xid names no function: function 0 */
        bool bus_has_function;           /* false for an Xid (match the device by domain, bus, device) */
        unsigned xid;                    /* the Xid number, 1..65535 (kind "xid"), else 0 */
        enum xpud_kmsg_effect effect;
        char what[160];                  /* "GPU has fallen off the bus" (the catalogue's words) */
        char action[XPUD_ACTION_SIZE];   /* suggested action, "" when none */
        char text[256];                  /* the kernel's message, printable ASCII, cut */
        double kernel_time;              /* seconds since boot (the record's timestamp) */
};

/* One entry of the Xid catalogue: the Xids xpud knows, with NVIDIA's meaning and action. */
struct xpud_xid_info {
        unsigned xid;
        enum xpud_kmsg_effect effect;
        const char *what;
        const char *action;
};
/* The catalogue entry of XID, or NULL for an Xid xpud does not know (an event, no health effect). */
const struct xpud_xid_info *xpud_xid_lookup(unsigned xid);

/* Parse one record (its first line and any continuation lines, NUL-terminated, as /dev/kmsg
 * returns it or as one record of a file). Returns 1 and fills *EV when the record is a GPU driver
 * event, 0 when it is some other message, -EINVAL when it is not a kmsg record at all. */
int xpud_kmsg_parse(const char *record, struct xpud_kmsg_event *ev);

/* The reader: a non-blocking descriptor and the bytes of a record not yet complete. */
struct xpud_kmsg {
        int fd;             /* -1: off */
        char path[128];     /* for messages */
        char buf[8192];     /* bytes read and not yet parsed (a file hands out partial records) */
        size_t len;
        uint64_t lost;      /* records lost: overwritten by the kernel before read (EPIPE), or
                             * longer than the buffer */
};

/* Open PATH for reading events from now on: /dev/kmsg (a character device) is read from its end,
 * so only records written after the start count; a regular file or FIFO (tests) from its start.
 * Returns the descriptor (O_RDONLY | O_NONBLOCK | O_CLOEXEC) or -errno. Call before privileges
 * are dropped: reading /dev/kmsg needs CAP_SYSLOG when kernel.dmesg_restrict is 1. */
int xpud_kmsg_open_path(const char *path);

/* Take FD (from xpud_kmsg_open_path(), -1 for none) for K. */
void xpud_kmsg_init(struct xpud_kmsg *k, int fd, const char *path);
void xpud_kmsg_done(struct xpud_kmsg *k);

/* Bytes one xpud_kmsg_poll() reads at most; the rest waits for the next call. */
#define XPUD_KMSG_POLL_MAX (1u << 20)

/* Read the records available now (at most XPUD_KMSG_POLL_MAX bytes), calling FN for each event
 * (USERDATA passed through). Never blocks. Returns the number of events, or -errno when reading
 * failed (the reader stays usable). Records the kernel overwrote before they were read (EPIPE)
 * and records longer than the buffer are counted in K->lost, no error. */
int xpud_kmsg_poll(struct xpud_kmsg *k, void (*fn)(void *userdata, const struct xpud_kmsg_event *ev),
                   void *userdata);
