/* SPDX-License-Identifier: Apache-2.0 */
/* Reading a range of a file for a scan: through one buffer filled by pread(2), not a mapping. A
 * mapped page costs a page fault for every few pages touched, and on a virtual machine those
 * faults are most of a scan's time; a read copies from the page cache at memory speed. How much
 * each read asks for follows what the scan does. When the range is mostly in the page cache (by
 * samples, when the window opens), reads that follow each other closely (a search through data,
 * small containers back to back) grow to XPU_WINDOW_MAX, and a jump (a large payload skipped)
 * starts again at a page. When it is not, a read asks for the pages the scan needs and no more (a
 * search: as far as it has gone without a hit), so payloads the scan skips are not read from the
 * disk for it. Silent; one window serves one scan at a time. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes one read asks for at most: a search runs over them in the CPU's cache. */
#define XPU_WINDOW_MAX (256u << 10)

struct xpu_window {
        int fd;
        uint64_t base;  /* the range's offset in the file */
        size_t len;     /* bytes of the range */
        uint8_t *buf;   /* XPU_WINDOW_MAX bytes, holding range bytes [OFF, OFF + HAVE) */
        size_t off, have;
        size_t ahead;   /* bytes the next read asks for, when it may read ahead */
        bool cached;    /* the range was mostly in the page cache when the window opened */
        bool fadvised;  /* FD was set to POSIX_FADV_RANDOM for the scan */
        /* Called by xpu_window_find4() with each run of range bytes it searched, from range offset
         * OFF (a run may repeat the last three bytes of the one before), or NULL. */
        void (*seen)(size_t off, const uint8_t *p, size_t n, void *data);
        void *seen_data;
};

/* Open a window on the LEN bytes at OFFSET of FD (a regular file that holds them). Returns 0,
 * -EFBIG when the range does not fit this machine's offsets, or -ENOMEM. */
int xpu_window_open(struct xpu_window *w, int fd, uint64_t offset, uint64_t len);
void xpu_window_close(struct xpu_window *w);

/* Range bytes [OFF, OFF + N) (inside the range; N <= XPU_WINDOW_MAX - 4096) into *RET, valid
 * until the next call on W. Returns 0, -ENODATA when the file ends before them (it shrank), or
 * pread's -errno. */
int xpu_window_get(struct xpu_window *w, size_t off, size_t n, const uint8_t **ret);

/* The first occurrence at or after POS (POS + 4 <= the range's length) of the four bytes NEEDLE
 * into *RET. Returns 1, 0 when there is none, or what xpu_window_get() returns. */
int xpu_window_find4(struct xpu_window *w, size_t pos, const uint8_t needle[4], size_t *ret);
