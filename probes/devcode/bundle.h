/* SPDX-License-Identifier: Apache-2.0 */
/* Clang offload bundles in memory (AMD device code: a HIP object's .hip_fatbin section, or a
 * standalone bundle file): the entries' IDs, with the gfx target ID of each device entry, read
 * from the bundle header only. Compressed bundles (CCOB) are recognized and their header is read;
 * their entry IDs sit inside the compressed stream, which this reader does not decompress.
 * Every length is checked against the buffer before it is used.
 *
 * Plain bundle: the 24-byte magic "__CLANG_OFFLOAD_BUNDLE__", u64 entry count, then per entry u64
 * offset (from the bundle start), u64 size, u64 ID length and the ID bytes (little-endian).
 * ID: "<kind>-<triple>-<target ID>", e.g. "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-" (an
 * empty triple environment gives "--"); the host entry "host-x86_64-unknown-linux" has no target.
 * CCOB: magic "CCOB", u16 version, u16 method (0 zlib, 1 zstd); version 1 then has a u32
 * uncompressed size, version 2 a u32 total size and a u32 uncompressed size, version 3 a u64
 * total and a u64 uncompressed size; then an 8-byte hash and the compressed data. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XPU_BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define XPU_CCOB_MAGIC   "CCOB"

/* Bounds: more entries, or a longer ID, make a bundle malformed (real ones hold one entry per
 * target plus the host's, IDs of under 100 bytes). */
#define XPU_BUNDLE_ENTRIES_MAX 4096u
#define XPU_BUNDLE_ID_MAX      1024u
/* Table entries one scan reads in all: past this the buffer is crafted (false bundles, each read
 * again) and the scan stops. */
#define XPU_BUNDLE_SCAN_ENTRIES_MAX (1u << 22)

struct xpu_bundle_entry {
        uint64_t offset;      /* of the entry's code, from the start of the buffer */
        uint64_t size;
        char id[XPU_BUNDLE_ID_MAX + 1];     /* as bundled, NUL-terminated ("" when not text) */
        char kind[32];        /* "hipv4", "hip", "openmp", "host" */
        char triple[128];     /* "amdgcn-amd-amdhsa-" */
        char target[XPU_BUNDLE_ID_MAX + 1]; /* "gfx90a:sramecc+:xnack-"; "" for the host entry */
};

enum xpu_ccob_method {
        XPU_CCOB_ZLIB = 0,
        XPU_CCOB_ZSTD = 1,
};

/* One bundle as found. For a CCOB, COMPRESSED is set, the CCOB fields are filled and there are no
 * entries. When MALFORMED is set, REASON says what (static text); ENTRIES holds those read before
 * the problem. */
struct xpu_bundle {
        uint64_t offset;              /* of the magic, from the start of the buffer */
        uint64_t size;                /* bytes the bundle spans from OFFSET as far as known */
        const struct xpu_bundle_entry *entries;
        size_t n_entries;
        bool compressed;
        unsigned ccob_version;        /* 1..3 */
        unsigned ccob_method;         /* enum xpu_ccob_method, or another value as found */
        uint64_t ccob_uncompressed_size;
        bool malformed;
        const char *reason;
        bool table_cut;               /* malformed because the entry table runs past the data */
};

/* Bytes of a CCOB header of VERSION 1..3 (magic to hash): 20, 24, 32; 0 for another version. */
unsigned xpu_ccob_header_size(unsigned version);

/* Called once per bundle found; a negative return stops the scan and is returned. */
typedef int (*xpu_bundle_cb)(const struct xpu_bundle *b, void *userdata);

/* Find and read every plain and compressed bundle in BUF[0..LEN). Both magics are searched at
 * every byte offset; a valid bundle is skipped as a whole (up to the end of its last entry, or
 * for a CCOB of version 2 and 3 its stated total size), a malformed one at its next byte.
 * Returns the number of bundles reported (valid and malformed), -ENOMEM, -E2BIG when more than
 * XPU_BUNDLE_SCAN_ENTRIES_MAX table entries would be read (the bundles reported so far stand),
 * or the callback's negative value. */
int xpu_bundle_scan(const uint8_t *buf, size_t len, xpu_bundle_cb cb, void *userdata);

/* Split an entry ID into its kind, triple and target ID (buffers of the sizes in struct
 * xpu_bundle_entry). The triple is the four components after the kind; with three components
 * or fewer there is no target. Returns 0, or -EINVAL when ID has no '-' or a part is too long. */
int xpu_bundle_id_split(const char *id, struct xpu_bundle_entry *e);

/* Read the plain bundle whose first HEAD_LEN bytes are HEAD and whose whole size is FULL_SIZE
 * (the decompressed head of a CCOB): its table must lie in HEAD, its entries' code in FULL_SIZE.
 * Calls CB once; entry offsets count from the start of the bundle. Returns 0, -EBADMSG when HEAD
 * does not start with the bundle magic, -ENOMEM, or the callback's negative value. */
int xpu_bundle_read_head(const uint8_t *head, size_t head_len, uint64_t full_size, xpu_bundle_cb cb,
                         void *userdata);
