/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA fat binary containers: header walking only (fatbin.h has the layout). */
#include "fatbin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devcode/find.h"
#include "devcode/le.h"

#define CONTAINER_HEADER 16u
#define ENTRY_HEADER_MIN 64u

bool xpu_cubin_has_kernels(const uint8_t *cubin, size_t len, bool *ok) {
        *ok = false;
        /* ELF64 little-endian: e_shoff at 0x28, e_shentsize 0x3a, e_shnum 0x3c, e_shstrndx 0x3e. */
        if (len < 64 || memcmp(cubin, "\177ELF", 4) != 0 || cubin[4] != 2 || cubin[5] != 1)
                return false;
        uint64_t shoff = xpu_le64(cubin + 0x28);
        uint16_t shentsize = xpu_le16(cubin + 0x3a), shnum = xpu_le16(cubin + 0x3c), shstrndx = xpu_le16(cubin + 0x3e);
        if (shentsize < 64 || shnum == 0 || shstrndx >= shnum || shoff > len ||
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

/* Read one entry header at P (AVAIL bytes of the container left from P) into E, with BASE the
 * buffer start. Returns the entry's total length (header + padded payload), or 0 with *REASON
 * set when it does not fit. */
static uint64_t read_entry(const uint8_t *base, const uint8_t *p, uint64_t avail, struct xpu_fatbin_entry *e,
                           const char **reason) {
        if (avail < ENTRY_HEADER_MIN) {
                *reason = "an entry header is cut off by the end of its container";
                return 0;
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
                .payload_offset = (uint64_t)(p + header - base),
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
                e->has_kernels = xpu_cubin_has_kernels(p + header, padded, &ok);
                e->kernels_known = ok;
                if (!ok)
                        e->has_kernels = true; /* unreadable: never judged as a stub */
        } else {
                e->kernels_known = e->kind == XPU_FATBIN_PTX;
        }
        return (uint64_t)header + padded;
}

int xpu_fatbin_scan(const uint8_t *buf, size_t len, xpu_fatbin_cb cb, void *userdata) {
        static const uint8_t magic[4] = { 0x50, 0xed, 0x55, 0xba };
        struct xpu_fatbin_entry *entries = NULL;
        size_t cap = 0;
        int found = 0, r = 0;
        size_t pos = 0;
        uint64_t walked = 0; /* entry headers read in this scan: bounded, whatever the buffer holds */

        while (pos + CONTAINER_HEADER <= len) {
                const uint8_t *m = xpu_find4(buf + pos, len - pos, magic);
                if (!m)
                        break;
                size_t off = (size_t)(m - buf);
                if (len - off < CONTAINER_HEADER)
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
                        uint64_t step = read_entry(buf, buf + at, left, &entries[n], &why);
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
        }
        free(entries);
        return r < 0 ? r : found;
}
