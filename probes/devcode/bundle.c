/* SPDX-License-Identifier: Apache-2.0 */
/* Clang offload bundles and CCOB headers (bundle.h has the layouts). */
#include "bundle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devcode/find.h"
#include "devcode/le.h"

#define MAGIC_LEN 24u

static int copy_part(char *dst, size_t size, const char *src, size_t n) {
        if (n >= size)
                return -EINVAL;
        memcpy(dst, src, n);
        dst[n] = '\0';
        return 0;
}

int xpu_bundle_id_split(const char *id, struct xpu_bundle_entry *e) {
        e->kind[0] = e->triple[0] = e->target[0] = '\0';
        const char *dash = strchr(id, '-');
        if (!dash || dash == id)
                return -EINVAL;
        if (copy_part(e->kind, sizeof e->kind, id, (size_t)(dash - id)) < 0)
                return -EINVAL;
        const char *t = dash + 1, *p = t;
        for (int i = 0; i < 4; i++) {
                const char *d = strchr(p, '-');
                if (!d) /* three components or fewer: all triple, no target */
                        return copy_part(e->triple, sizeof e->triple, t, strlen(t));
                p = d + 1;
        }
        if (copy_part(e->triple, sizeof e->triple, t, (size_t)(p - 1 - t)) < 0)
                return -EINVAL;
        return copy_part(e->target, sizeof e->target, p, strlen(p));
}

/* A plain bundle at B (AVAIL bytes of it present; BASE the buffer start) into *OUT, its entries
 * into the growing array *ENTRIES of *CAP. Entries' code must lie in the first CODE_LIMIT bytes
 * (AVAIL for a bundle in memory, the uncompressed size for the head of a CCOB). Returns 0 or
 * -ENOMEM. */
static int read_plain(const uint8_t *base, const uint8_t *b, uint64_t avail, uint64_t code_limit,
                      struct xpu_bundle *out, struct xpu_bundle_entry **entries, size_t *cap) {
        *out = (struct xpu_bundle){ .offset = (uint64_t)(b - base), .size = MAGIC_LEN };
        if (avail < MAGIC_LEN + 8) {
                out->malformed = true;
                out->reason = "the bundle is cut off before its entry count";
                out->table_cut = true;
                return 0;
        }
        uint64_t count = xpu_le64(b + MAGIC_LEN), at = MAGIC_LEN + 8, end = at;
        if (count == 0 || count > XPU_BUNDLE_ENTRIES_MAX) {
                out->malformed = true;
                out->reason = "the bundle's entry count is 0 or over 4096";
                return 0;
        }
        for (uint64_t i = 0; i < count; i++) {
                if (avail - at < 24) {
                        out->malformed = true;
                        out->reason = "an entry of the bundle's table is cut off by the end of the data";
                        out->table_cut = true;
                        break;
                }
                uint64_t off = xpu_le64(b + at), size = xpu_le64(b + at + 8), idlen = xpu_le64(b + at + 16);
                at += 24;
                if (idlen == 0 || idlen > XPU_BUNDLE_ID_MAX || idlen > avail - at) {
                        out->malformed = true;
                        out->reason = "an entry ID is empty, over 1024 bytes or cut off";
                        out->table_cut = idlen > 0 && idlen <= XPU_BUNDLE_ID_MAX;
                        break;
                }
                if (off > code_limit || size > code_limit - off) {
                        out->malformed = true;
                        out->reason = "an entry's code lies outside the data";
                        break;
                }
                if (out->n_entries == *cap) {
                        size_t ncap = *cap ? *cap * 2 : 8;
                        struct xpu_bundle_entry *ne = realloc(*entries, ncap * sizeof *ne);
                        if (!ne)
                                return -ENOMEM;
                        *entries = ne;
                        *cap = ncap;
                }
                /* Not cleared whole (2 KiB each): every field is written below. */
                struct xpu_bundle_entry *e = &(*entries)[out->n_entries];
                e->offset = out->offset + off;
                e->size = size;
                memcpy(e->id, b + at, idlen);
                e->id[idlen] = '\0';
                at += idlen;
                if (strlen(e->id) != idlen || xpu_bundle_id_split(e->id, e) < 0) {
                        out->malformed = true;
                        out->reason = "an entry ID is not \"<kind>-<triple>[-<target>]\" text";
                        break;
                }
                out->n_entries++;
                if (at > end)
                        end = at;
                if (off + size > end)
                        end = off + size;
        }
        out->size = end > at ? end : at;
        return 0;
}

unsigned xpu_ccob_header_size(unsigned version) {
        /* v1: u32 uncompressed size, hash; v2: u32 total, u32 uncompressed, hash; v3: u64 total,
         * u64 uncompressed, hash; each after "CCOB", u16 version, u16 method. */
        return version == 1 ? 20 : version == 2 ? 24 : version == 3 ? 32 : 0;
}

/* A CCOB header at B into *OUT. Returns false when the magic is followed by a version or method
 * no CCOB has: data that happens to hold "CCOB", not a bundle. */
static bool read_ccob(const uint8_t *base, const uint8_t *b, uint64_t avail, struct xpu_bundle *out) {
        *out = (struct xpu_bundle){ .offset = (uint64_t)(b - base), .size = 4, .compressed = true };
        if (avail < 8)
                return false;
        out->ccob_version = xpu_le16(b + 4);
        out->ccob_method = xpu_le16(b + 6);
        uint64_t header = xpu_ccob_header_size(out->ccob_version);
        if (header == 0 || (out->ccob_method != XPU_CCOB_ZLIB && out->ccob_method != XPU_CCOB_ZSTD))
                return false;
        if (avail < header) {
                out->malformed = true;
                out->reason = "the compressed bundle is cut off in its header";
                return true;
        }
        uint64_t total = 0;
        if (out->ccob_version == 1) {
                out->ccob_uncompressed_size = xpu_le32(b + 8);
        } else if (out->ccob_version == 2) {
                total = xpu_le32(b + 8);
                out->ccob_uncompressed_size = xpu_le32(b + 12);
        } else {
                total = xpu_le64(b + 8);
                out->ccob_uncompressed_size = xpu_le64(b + 16);
        }
        out->size = header;
        if (total) {
                if (total < header || total > avail) {
                        out->malformed = true;
                        out->reason = "the compressed bundle's total size is smaller than its header or past the data";
                        return true;
                }
                out->size = total;
        }
        return true;
}

int xpu_bundle_scan(const uint8_t *buf, size_t len, xpu_bundle_cb cb, void *userdata) {
        struct xpu_bundle_entry *entries = NULL;
        size_t cap = 0, pos = 0;
        int found = 0, r = 0;
        /* Next hit of each magic at or after POS; each is searched again only once POS passes it,
         * so a section is scanned about twice, not once per bundle. */
        const uint8_t *plain = NULL, *ccob = NULL;
        /* A magic not found from some position on is not searched for again (POS only grows: a
         * section of thousands of plain bundles would otherwise be scanned once per bundle), and
         * the CCOB magic is searched only up to the next plain bundle, so the code inside plain
         * bundles, skipped as a whole, is never read. */
        bool plain_gone = false;
        uint64_t walked = 0; /* table entries read in this scan: bounded, whatever the buffer holds */
        size_t ccob_to = 0; /* [.., CCOB_TO) was searched for the CCOB magic without a hit past CCOB */

        while (pos + 4 <= len) {
                if (!plain_gone && (!plain || plain < buf + pos))
                        plain_gone = !(plain = memmem(buf + pos, len - pos, XPU_BUNDLE_MAGIC, MAGIC_LEN));
                if (ccob && ccob < buf + pos) {
                        ccob = NULL;
                        if (ccob_to < pos)
                                ccob_to = pos;
                }
                size_t need = plain ? (size_t)(plain - buf) + 3 : len; /* a CCOB starting before it */
                if (need > len)
                        need = len;
                if (!ccob && ccob_to < need) {
                        size_t from = ccob_to > pos ? ccob_to : pos;
                        ccob = xpu_find4(buf + from, need - from, (const uint8_t *)XPU_CCOB_MAGIC);
                        ccob_to = ccob ? (size_t)(ccob - buf) : need;
                }
                const uint8_t *m = plain && (!ccob || plain < ccob) ? plain : ccob;
                if (!m)
                        break;
                struct xpu_bundle b;
                uint64_t avail = len - (size_t)(m - buf);
                if (m == plain) {
                        r = read_plain(buf, m, avail, avail, &b, &entries, &cap);
                        if (r < 0)
                                break;
                } else if (!read_ccob(buf, m, avail, &b)) {
                        pos = (size_t)(m - buf) + 1;
                        continue;
                }
                b.entries = entries;
                walked += b.n_entries + 1;
                if (walked > XPU_BUNDLE_SCAN_ENTRIES_MAX) {
                        r = -E2BIG;
                        break;
                }
                found++;
                r = cb(&b, userdata);
                if (r < 0)
                        break;
                pos = (size_t)(m - buf) + (b.malformed ? 1 : (size_t)b.size);
        }
        free(entries);
        return r < 0 ? r : found;
}

int xpu_bundle_read_head(const uint8_t *head, size_t head_len, uint64_t full_size, xpu_bundle_cb cb,
                         void *userdata) {
        if (head_len < MAGIC_LEN || memcmp(head, XPU_BUNDLE_MAGIC, MAGIC_LEN) != 0)
                return -EBADMSG;
        struct xpu_bundle_entry *entries = NULL;
        size_t cap = 0;
        struct xpu_bundle b;
        int r = read_plain(head, head, head_len, full_size, &b, &entries, &cap);
        if (r >= 0) {
                b.entries = entries;
                r = cb(&b, userdata);
        }
        free(entries);
        return r < 0 ? r : 0;
}
