/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA fat binary containers in memory: which SASS, PTX and LTO-IR entries a buffer (an ELF
 * section, or a standalone .fatbin/.cubin file) carries, for which SM architecture, read from the
 * container and entry headers only. Nothing is decompressed and nothing is written; every length
 * is checked against the buffer before it is used.
 *
 * Container header (16 bytes, little-endian): u32 magic 0xBA55ED50, u16 version 1, u16 header
 * size 16, u64 size of the entries that follow. Entry header (at least 64 bytes): u16 kind at 0,
 * u32 header size at 4, u32 padded payload size at 8, u32 compressed size at 0x10, u16 minor and
 * u16 major (PTX ISA version) at 0x18/0x1a, u32 SM number at 0x1c, u64 flags at 0x28. The next
 * entry starts at entry + header size + padded payload size. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XPU_FATBIN_MAGIC 0xBA55ED50u

/* Entry kinds (entry header offset 0). */
enum xpu_fatbin_kind {
        XPU_FATBIN_PTX = 1,  /* PTX text, JIT-compiled by the driver */
        XPU_FATBIN_SASS = 2, /* an ELF cubin of machine code for one SM */
        XPU_FATBIN_LTO = 8,  /* NVVM LTO-IR (-gencode code=lto_XY): linked by nvJitLink, never loaded */
};

/* Which GPUs SASS or PTX of an SM number is for (entry flags 0x100000 and 0x200000). */
enum xpu_sm_variant {
        XPU_SM_PLAIN = 0,  /* sm_90: CC 9.0 and later minors of 9 (PTX: any later CC) */
        XPU_SM_ARCH = 1,   /* sm_90a: exactly CC 9.0 */
        XPU_SM_FAMILY = 2, /* sm_100f: CC 10.0 and later minors of 10, PTX too */
};

enum xpu_fatbin_compression {
        XPU_FATBIN_STORED = 0,
        XPU_FATBIN_LZ4 = 1,  /* flag 0x2000 */
        XPU_FATBIN_ZSTD = 2, /* flag 0x8000 */
};

/* Entry flags (entry header offset 0x28) this reader uses. */
#define XPU_FATBIN_FLAG_LZ4    0x2000u
#define XPU_FATBIN_FLAG_ZSTD   0x8000u
#define XPU_FATBIN_FLAG_ARCH   0x100000u
#define XPU_FATBIN_FLAG_FAMILY 0x200000u

/* Bounds: entry headers beyond this size are refused as malformed (CUDA 13 writes 64..120), and a
 * container with more entries stops being read (real containers hold one per architecture). */
#define XPU_FATBIN_ENTRY_HEADER_MAX 4096u
#define XPU_FATBIN_ENTRIES_MAX      4096u
/* Entry headers one scan reads in all (cuFFT 12's .ldata: about 240,000): past this the buffer is
 * crafted (overlapping false containers, each walked again) and the scan stops. */
#define XPU_FATBIN_SCAN_ENTRIES_MAX (1u << 22)

/* A stored cubin larger than this is taken to hold kernels without opening it: device-link stubs
 * are about 2 KiB (cuFFTW 12's: 1,904 bytes), and opening every large cubin's section table would
 * touch pages all over a library. */
#define XPU_FATBIN_STUB_MAX (64u << 10)
/* ... and one with more sections than this is taken to hold kernels without looking further. */
#define XPU_FATBIN_STUB_SECTIONS_MAX 64u

struct xpu_fatbin_entry {
        unsigned kind;                   /* enum xpu_fatbin_kind, or another value as found */
        unsigned sm;                     /* SM number: 90 for sm_90/compute_90 */
        enum xpu_sm_variant variant;
        unsigned ptx_major, ptx_minor;   /* PTX ISA version of a PTX entry (9.0 from CUDA 13.0); 0 else */
        enum xpu_fatbin_compression compression;
        /* False only for a stored SASS cubin without any .text.<kernel> section: the device-link
         * stub every `nvcc -shared` library gets. A compressed cubin, or a stored one larger than
         * XPU_FATBIN_STUB_MAX, is not opened and counts as holding kernels (kernels_known false). */
        bool has_kernels;
        bool kernels_known;
        uint64_t payload_offset;         /* of the stored payload, from the start of the buffer */
        uint64_t payload_size;           /* stored bytes (compressed size when compressed) */
};

/* One container as found in the buffer. When MALFORMED is set, REASON says what (static text)
 * and ENTRIES holds the entries read before the problem. */
struct xpu_fatbin_container {
        uint64_t offset;                 /* of the container header, from the start of the buffer */
        uint64_t size;                   /* header + entries as the header states (may pass the end
                                          * of the buffer when truncated) */
        const struct xpu_fatbin_entry *entries;
        size_t n_entries;
        bool malformed;
        const char *reason;
};

/* Called once per container found; a negative return stops the scan and is returned. */
typedef int (*xpu_fatbin_cb)(const struct xpu_fatbin_container *c, void *userdata);

/* Find and read every container in BUF[0..LEN).
 *
 * The magic is searched at every byte offset (cuFFT's .ldata places containers at 8-aligned file
 * offsets inside a section that starts at 4 mod 8). A magic whose version or header size is not
 * 1/16 is taken for data and the search goes on at the next byte; a real header whose entries run past
 * the end of the buffer, or an entry whose sizes do not fit, is reported as a malformed container
 * and the search goes on at the next byte. A valid container is skipped as a whole.
 *
 * Returns the number of containers reported (valid and malformed), -ENOMEM, -E2BIG when more
 * than XPU_FATBIN_SCAN_ENTRIES_MAX entry headers would be read (the containers reported so far
 * stand), or the callback's negative value. */
int xpu_fatbin_scan(const uint8_t *buf, size_t len, xpu_fatbin_cb cb, void *userdata);

/* Called with each run of bytes the search for the magic looked at, from offset OFF: the bytes
 * between the containers a scan skips, in order (a run may repeat a few bytes of the one before),
 * never a valid container's. */
typedef void (*xpu_fatbin_seen_cb)(size_t off, const uint8_t *p, size_t n, void *userdata);

/* xpu_fatbin_scan() of the LEN bytes at OFFSET of the file FD, read through a window of pread(2)s
 * (window.h) instead of mapped. The same containers, entries and bounds as xpu_fatbin_scan() on
 * those bytes (offsets count from OFFSET); SEEN (may be NULL) gets the bytes searched, with
 * USERDATA. Returns what xpu_fatbin_scan() returns, -ENODATA when the file ends before OFFSET +
 * LEN (it shrank), or pread's -errno. */
int xpu_fatbin_scan_fd(int fd, uint64_t offset, uint64_t len, xpu_fatbin_cb cb, xpu_fatbin_seen_cb seen,
                       void *userdata);

/* True when the stored cubin CUBIN[0..LEN) is an ELF64 object with at least one section whose
 * name starts with ".text." (one per kernel). Sets *OK false when it is not a readable ELF64
 * object (bad magic, section headers or string table out of bounds) or has more than
 * XPU_FATBIN_STUB_SECTIONS_MAX sections (not walked: such a cubin is no stub). */
bool xpu_cubin_has_kernels(const uint8_t *cubin, size_t len, bool *ok);

/* "sm_90", "sm_90a", "sm_100f", or "compute_…" for PTX (kind PTX), "lto_…" for LTO-IR, into BUF
 * of SIZE bytes (16 is enough). Returns BUF. */
const char *xpu_fatbin_entry_name(const struct xpu_fatbin_entry *e, char *buf, size_t size);
