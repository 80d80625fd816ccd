/* SPDX-License-Identifier: Apache-2.0 */
/* A file's range read through a window of preads (window.h). */
#include "devcode/window.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/fileio.h"
#include "devcode/find.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451 /* the same on every architecture (Linux 6.5) */
#endif

/* Bytes a read asks for at least: a read of one header costs about what a page costs. */
#define READ_MIN 4096u
/* A read that starts at most this far past the end of the last one goes on with a pass over the
 * range: copying the bytes between costs less than the extra read would (a pread here costs about
 * what copying 16 KiB does). */
#define GAP_MAX (16u << 10)

/* Bytes looked at, at most, to tell whether a range is in the page cache: eight samples spread
 * over it, as asking about every page of a large range costs more than a few reads. */
#define SAMPLES 8u
#define SAMPLE (64u << 10)

/* Pages of FD in [START, START + LEN) (START page-aligned) that the page cache holds: cachestat(2),
 * else mincore(2) on a mapping that is never touched; -1 when neither answers. */
static int64_t pages_cached(int fd, uint64_t start, uint64_t len, size_t page) {
        struct {
                uint64_t off, len;
        } range = { start, len };
        struct {
                uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
        } cs;
        if (syscall(__NR_cachestat, fd, &range, &cs, 0) == 0)
                return (int64_t)cs.nr_cache;
        void *map = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, fd, (off_t)start);
        if (map == MAP_FAILED)
                return -1;
        unsigned char vec[SAMPLE / 4096];
        size_t pages = (size_t)((len + page - 1) / page);
        int64_t n = pages <= sizeof vec && mincore(map, (size_t)len, vec) == 0 ? 0 : -1;
        for (size_t i = 0; n >= 0 && i < pages; i++)
                n += vec[i] & 1;
        munmap(map, (size_t)len);
        return n;
}

/* Whether at least three quarters of FD's pages in [START, START + SPAN) (START page-aligned)
 * are in the page cache, by samples. */
static bool mostly_cached(int fd, uint64_t start, uint64_t span, size_t page) {
        uint64_t step = span / SAMPLES, cached = 0, pages = 0;
        for (unsigned i = 0; i < SAMPLES; i++) {
                uint64_t at = step > SAMPLE ? start + ((i * step) & ~(uint64_t)(page - 1)) : start + i * SAMPLE;
                if (at >= start + span)
                        break;
                uint64_t len = start + span - at < SAMPLE ? start + span - at : SAMPLE;
                int64_t n = pages_cached(fd, at, len, page);
                if (n < 0)
                        return false;
                cached += (uint64_t)n;
                pages += (len + page - 1) / page;
        }
        return cached >= pages - pages / 4;
}

int xpu_window_open(struct xpu_window *w, int fd, uint64_t offset, uint64_t len) {
        *w = (struct xpu_window){ .fd = fd, .base = offset, .ahead = READ_MIN };
        if (len > SIZE_MAX || len > INT64_MAX || offset > (uint64_t)INT64_MAX - len)
                return -EFBIG;
        w->len = (size_t)len;
        w->buf = malloc(XPU_WINDOW_MAX);
        if (!w->buf)
                return -ENOMEM;
        /* Mostly cached: reading ahead costs few disk reads, if any. */
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        uint64_t start = offset & ~(uint64_t)(page - 1);
        w->cached = len && mostly_cached(fd, start, offset + len - start, page);
        /* Otherwise the kernel is not to read ahead either (it would read pages around each
         * header, or whole large folios): the reads say what is wanted. */
        if (!w->cached)
                w->fadvised = posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM) == 0;
        return 0;
}

void xpu_window_close(struct xpu_window *w) {
        if (w->fadvised)
                (void)posix_fadvise(w->fd, 0, 0, POSIX_FADV_NORMAL);
        free(w->buf);
        w->buf = NULL;
        w->have = 0;
}

/* Read range bytes from OFF into the window: NEED of them (OFF + NEED <= the range's length,
 * NEED <= XPU_WINDOW_MAX - READ_MIN) and further as window.h describes, in whole pages of the
 * file; SEARCH when a search asks. */
static int refill(struct xpu_window *w, size_t off, size_t need, bool search) {
        size_t end = w->off + w->have;
        bool follows = w->have && off >= w->off && (off <= end || off - end <= GAP_MAX);
        bool grow = w->cached ? follows : search && w->have && off >= w->off && off < end;
        w->ahead = !grow ? READ_MIN : w->ahead >= XPU_WINDOW_MAX / 2 ? XPU_WINDOW_MAX : w->ahead * 2;
        size_t lead = (size_t)((w->base + off) % READ_MIN), want = w->cached || search ? w->ahead : READ_MIN;
        if (lead > off)
                lead = off; /* not before the range */
        off -= lead;
        need += lead;
        if (want < need)
                want = need;
        want += (READ_MIN - (size_t)((w->base + off + want) % READ_MIN)) % READ_MIN;
        if (want > XPU_WINDOW_MAX)
                want = XPU_WINDOW_MAX;
        if (want > w->len - off)
                want = w->len - off;
        /* What the window holds from OFF on is kept, not read again (a search goes on three bytes
         * before the end). */
        size_t keep = w->have && off >= w->off && off < end ? end - off : 0;
        if (keep)
                memmove(w->buf, w->buf + (off - w->off), keep);
        w->have = 0;
        ssize_t n = xpu_pread_full(w->fd, w->buf + keep, want - keep, w->base + off + keep);
        if (n < 0)
                return (int)n;
        if (keep + (size_t)n < need)
                return -ENODATA;
        w->off = off;
        w->have = keep + (size_t)n;
        return 0;
}

int xpu_window_get(struct xpu_window *w, size_t off, size_t n, const uint8_t **ret) {
        if (n > 0 && (off < w->off || off - w->off > w->have || n > w->have - (off - w->off))) {
                int r = refill(w, off, n, false);
                if (r < 0)
                        return r;
        }
        *ret = n > 0 ? w->buf + (off - w->off) : w->buf;
        return 0;
}

int xpu_window_find4(struct xpu_window *w, size_t pos, const uint8_t needle[4], size_t *ret) {
        for (;;) {
                if (pos < w->off || pos - w->off > w->have || w->have - (pos - w->off) < 4) {
                        int r = refill(w, pos, 4, true);
                        if (r < 0)
                                return r;
                }
                size_t end = w->off + w->have;
                const uint8_t *p = w->buf + (pos - w->off), *m = xpu_find4(p, end - pos, needle);
                if (w->seen)
                        w->seen(pos, p, m ? (size_t)(m - p) : end - pos, w->seen_data);
                if (m) {
                        *ret = pos + (size_t)(m - p);
                        return 1;
                }
                if (end == w->len)
                        return 0;
                pos = end - 3; /* a needle may start in the last three bytes */
        }
}
