/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel log events of the GPU drivers, read from /dev/kmsg: NVIDIA Xid lines and amdgpu GPU
 * resets, ring timeouts and RAS errors, each mapped to a PCI bus id and to a health effect. The
 * reader is here; what a message means is each vendor's kernel-log rules (vendor.h kernel_log,
 * probes/<vendor>/<vendor>-kmsg.c), each returning a struct xpu_kernel_event (kernel-log.h).
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
#include "kernel-log.h"
#include "snapshot.h"

/* Bytes of an event's action and of a health action agree (kernel-log.h). */
_Static_assert(XPU_KERNEL_ACTION_SIZE == XPUD_ACTION_SIZE, "an event's action is a health action");

/* Parse one record (its first line and any continuation lines, NUL-terminated, as /dev/kmsg
 * returns it or as one record of a file). Returns 1 and fills *EV when the record is a GPU driver
 * event, 0 when it is some other message, -EINVAL when it is not a kmsg record at all. */
int xpud_kmsg_parse(const char *record, struct xpu_kernel_event *ev);

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
int xpud_kmsg_poll(struct xpud_kmsg *k, void (*fn)(void *userdata, const struct xpu_kernel_event *ev),
                   void *userdata);
