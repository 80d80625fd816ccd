/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA fat binary containers: header walking only (fatbin.h has the layout). */
#include "fatbin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devcode/find.h"
#include "devcode/le.h"
#include "devcode/window.h"

#define CONTAINER_HEADER 16u
#define ENTRY_HEADER_MIN 64u

bool xpu_cubin_has_kernels(const uint8_t *cubin, size_t len, bool *ok) {
        *ok = false;
        /* ELF64 little-endian: e_shoff at 0x28, e_shentsize 0x3a, e_shnum 0x3c, e_shstrndx 0x3e. */
        if (len < 64 || memcmp(cubin, "\177ELF", 4) != 0 || cubin[4] != 2 || cubin[5] != 1)
                return false;
        uint64_t shoff = xpu_le64(cubin + 0x28);
        uint16_t shentsize = xpu_le16(cubin + 0x3a), shnum = xpu_le16(cubin + 0x3c), shstrndx = xpu_le16(cubin + 0x3e);
        /* A device-link stub has about ten sections; a cubin with more holds kernels (each adds
         * three or four), and not walking them bounds what a crafted cubin checked again and again
         * costs. */
        if (shentsize < 64 || shnum == 0 || shnum > XPU_FATBIN_STUB_SECTIONS_MAX || shstrndx >= shnum || shoff > len ||
            (uint64_t)shnum * shentsize > len - shoff)
                return false;
        const uint8_t *str_sh = cubin + shoff + (size_t)shstrndx * shentsize;
        uint64_t str_off = xpu_le64(str_sh + 0x18), str_size = xpu_le64(str_sh + 0x20);
        if (str_off > len || str_size > len - str_off)
                return false;
        *ok = true;
        static const char prefix[] = ".text.";
        for (size_t i = 0; i < shnum; i++) {
                uint32_t name = xpu_le32(cubin + shoff + i * shentsize);
                if (name >= str_size || str_size - name < sizeof prefix - 1)
                        continue;
                if (memcmp(cubin + str_off + name, prefix, sizeof prefix - 1) == 0)
                        return true;
        }
        return false;
}

const char *xpu_fatbin_entry_name(const struct xpu_fatbin_entry *e, char *buf, size_t size) {
        const char *kind = e->kind == XPU_FATBIN_PTX ? "compute" : e->kind == XPU_FATBIN_LTO ? "lto" : "sm";
        const char *suffix = e->variant == XPU_SM_ARCH ? "a" : e->variant == XPU_SM_FAMILY ? "f" : "";
        snprintf(buf, size, "%s_%u%s", kind, e->sm, suffix);
        return buf;
}

/* Where a scan reads: a buffer in memory (xpu_fatbin_scan), or a range of a file through a window
 * of reads (xpu_fatbin_scan_fd). Pointers it gives stay valid until the next read. */
struct source {
        const uint8_t *mem; /* the whole range, or NULL for a file */
        size_t len;
        struct xpu_window *w;
        struct memo *memo;  /* a file's, once a container was malformed */
};

/* Entry headers a file scan has read, by offset, kept once a container turned out malformed: the
 * search goes on inside it, and containers that overlap (only crafted files have them) walk the
 * same entries again, which from a file would cost a read each time instead of a memory access.
 * Direct-mapped: a slot keeps the last entry whose offset hashes to it. */
#define MEMO_SLOTS 16384u
#define MEMO_HEAD  0x30u /* the header bytes this reader uses */

struct memo {
        uint64_t at1;           /* the entry's offset + 1; 0: empty */
        uint8_t head[MEMO_HEAD];
        int8_t kernels;         /* the stub check's result: -1 not made, else has_kernels | ok << 1 */
};

static struct memo *memo_slot(struct source *s, size_t at) {
        return s->memo ? &s->memo[((uint64_t)at * 0x9e3779b97f4a7c15ull) >> 50] : NULL;
}

static int source_get(struct source *s, size_t off, size_t n, const uint8_t **ret) {
        if (s->mem) {
                *ret = s->mem + off;
                return 0;
        }
        return xpu_window_get(s->w, off, n, ret);
}

/* The first magic at or after POS (POS + 4 <= LEN) into *RET. Returns 1, 0 when there is none, or
 * the window's negative errno. */
static int source_find(struct source *s, size_t pos, size_t *ret) {
        static const uint8_t magic[4] = { 0x50, 0xed, 0x55, 0xba };
        if (!s->mem)
                return xpu_window_find4(s->w, pos, magic, ret);
        const uint8_t *m = xpu_find4(s->mem + pos, s->len - pos, magic);
        if (m)
                *ret = (size_t)(m - s->mem);
        return m != NULL;
}

/* Read the entry header at AT (AVAIL bytes of the container left from AT) into E. Sets *STEP to
 * the entry's total length (header + padded payload), or to 0 with *REASON set when it does not
 * fit. Returns 0 or the source's negative errno. */
static int read_entry(struct source *s, size_t at, uint64_t avail, struct xpu_fatbin_entry *e, uint64_t *step,
                      const char **reason) {
        *step = 0;
        if (avail < ENTRY_HEADER_MIN) {
                *reason = "an entry header is cut off by the end of its container";
                return 0;
        }
        const uint8_t *p;
        struct memo *m = memo_slot(s, at);
        int r = 0;
        if (m && m->at1 == (uint64_t)at + 1) {
                p = m->head;
        } else {
                r = source_get(s, at, ENTRY_HEADER_MIN, &p);
                if (r < 0)
                        return r;
                if (m) {
                        memcpy(m->head, p, MEMO_HEAD);
                        m->at1 = (uint64_t)at + 1;
                        m->kernels = -1;
                }
        }
        uint32_t header = xpu_le32(p + 4), padded = xpu_le32(p + 8), compressed = xpu_le32(p + 0x10);
        if (header < ENTRY_HEADER_MIN || header > XPU_FATBIN_ENTRY_HEADER_MAX || header > avail) {
                *reason = "an entry header size is out of range (64..4096 bytes inside its container)";
                return 0;
        }
        if (padded > avail - header) {
                *reason = "an entry's payload runs past the end of its container";
                return 0;
        }
        uint64_t flags = xpu_le64(p + 0x28);
        *e = (struct xpu_fatbin_entry){
                .kind = xpu_le16(p),
                .sm = xpu_le32(p + 0x1c),
                .variant = flags & XPU_FATBIN_FLAG_ARCH     ? XPU_SM_ARCH
                           : flags & XPU_FATBIN_FLAG_FAMILY ? XPU_SM_FAMILY
                                                            : XPU_SM_PLAIN,
                .compression = flags & XPU_FATBIN_FLAG_ZSTD  ? XPU_FATBIN_ZSTD
                               : flags & XPU_FATBIN_FLAG_LZ4 ? XPU_FATBIN_LZ4
                                                             : XPU_FATBIN_STORED,
                .payload_offset = (uint64_t)at + header,
                /* A compressed size beyond the padded payload is not believed. */
                .payload_size = compressed && compressed <= padded ? compressed : padded,
                .has_kernels = true,
        };
        if (e->kind == XPU_FATBIN_PTX) {
                e->ptx_minor = xpu_le16(p + 0x18);
                e->ptx_major = xpu_le16(p + 0x1a);
        }
        if (e->kind == XPU_FATBIN_SASS && e->compression == XPU_FATBIN_STORED && padded <= XPU_FATBIN_STUB_MAX) {
                bool ok;
                if (m && m->kernels >= 0) {
                        e->has_kernels = m->kernels & 1;
                        ok = m->kernels >> 1;
                } else {
                        const uint8_t *cubin;
                        r = source_get(s, at + header, padded, &cubin);
                        if (r < 0)
                                return r;
                        e->has_kernels = xpu_cubin_has_kernels(cubin, padded, &ok);
                        if (m)
                                m->kernels = (int8_t)(e->has_kernels | ok << 1);
                }
                e->kernels_known = ok;
                if (!ok)
                        e->has_kernels = true; /* unreadable: never judged as a stub */
        } else {
                e->kernels_known = e->kind == XPU_FATBIN_PTX;
        }
        *step = (uint64_t)header + padded;
        return 0;
}

static int scan(struct source *s, xpu_fatbin_cb cb, void *userdata) {
        struct xpu_fatbin_entry *entries = NULL;
        size_t cap = 0, len = s->len;
        int found = 0, r = 0;
        size_t pos = 0;
        uint64_t walked = 0; /* entry headers read in this scan: bounded, whatever the buffer holds */

        while (pos + CONTAINER_HEADER <= len) {
                size_t off;
                r = source_find(s, pos, &off);
                if (r <= 0)
                        break;
                r = 0;
                if (len - off < CONTAINER_HEADER)
                        break;
                const uint8_t *m;
                r = source_get(s, off, CONTAINER_HEADER, &m);
                if (r < 0)
                        break;
                if (xpu_le16(m + 4) != 1 || xpu_le16(m + 6) != CONTAINER_HEADER) {
                        pos = off + 1;
                        continue;
                }
                uint64_t fat = xpu_le64(m + 8);
                struct xpu_fatbin_container c = { .offset = off, .size = CONTAINER_HEADER + fat };
                uint64_t avail = len - off - CONTAINER_HEADER;
                if (fat > avail) {
                        c.malformed = true;
                        c.reason = "the container is cut off: its header states more bytes than are there";
                }
                uint64_t left = fat > avail ? avail : fat, at = off + CONTAINER_HEADER;
                size_t n = 0;
                while (left > 0) {
                        if (++walked > XPU_FATBIN_SCAN_ENTRIES_MAX) {
                                free(entries);
                                return -E2BIG;
                        }
                        if (n == XPU_FATBIN_ENTRIES_MAX) {
                                c.malformed = true;
                                c.reason = "the container has more entries than this reader accepts (4096)";
                                break;
                        }
                        if (n == cap) {
                                size_t ncap = cap ? cap * 2 : 16;
                                struct xpu_fatbin_entry *ne = realloc(entries, ncap * sizeof *ne);
                                if (!ne) {
                                        free(entries);
                                        return -ENOMEM;
                                }
                                entries = ne;
                                cap = ncap;
                        }
                        const char *why = NULL;
                        uint64_t step;
                        r = read_entry(s, (size_t)at, left, &entries[n], &step, &why);
                        if (r < 0) {
                                free(entries);
                                return r;
                        }
                        if (!step) {
                                c.malformed = true;
                                if (!c.reason)
                                        c.reason = why;
                                break;
                        }
                        n++;
                        at += step;
                        left -= step;
                }
                c.entries = entries;
                c.n_entries = n;
                found++;
                r = cb(&c, userdata);
                if (r < 0)
                        break;
                pos = c.malformed ? off + 1 : off + CONTAINER_HEADER + fat;
                if (c.malformed && !s->mem && !s->memo)
                        s->memo = calloc(MEMO_SLOTS, sizeof *s->memo); /* without it, only slower */
        }
        free(entries);
        return r < 0 ? r : found;
}

int xpu_fatbin_scan(const uint8_t *buf, size_t len, xpu_fatbin_cb cb, void *userdata) {
        struct source s = { .mem = buf, .len = len };
        return scan(&s, cb, userdata);
}

int xpu_fatbin_scan_fd(int fd, uint64_t offset, uint64_t len, xpu_fatbin_cb cb, xpu_fatbin_seen_cb seen,
                       void *userdata) {
        struct xpu_window w;
        int r = xpu_window_open(&w, fd, offset, len);
        w.seen = seen;
        w.seen_data = userdata;
        if (r == 0) {
                struct source s = { .len = w.len, .w = &w };
                r = scan(&s, cb, userdata);
                free(s.memo);
        }
        xpu_window_close(&w);
        return r;
}
