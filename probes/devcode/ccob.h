/* SPDX-License-Identifier: Apache-2.0 */
/* The entry IDs of a compressed offload bundle (CCOB), which sit inside its compressed stream:
 * the head of the stream is decompressed, never the whole bundle, with Debian's libzstd (method 1)
 * or zlib (method 0). Both are loaded with dlopen() the first time a CCOB needs them, so a
 * container start, which never reads device code, does not pay for loading them. Not thread-safe
 * (the loaded functions and one zstd decompression context are kept in a static table). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "devcode/bundle.h"

/* Bytes of a CCOB's stream decompressed to read its bundle table: enough for 4096 entries with
 * 200-byte IDs; a table longer than this makes the CCOB malformed. */
#define XPU_CCOB_HEAD_MAX (1u << 20)
/* Bytes decompressed first (a real table: 32 bytes and about 90 per target); the whole
 * XPU_CCOB_HEAD_MAX only when the table runs past them. */
#define XPU_CCOB_HEAD_FIRST (4u << 10)

/* What one xpu_ccob_read() cost: bytes of the compressed stream consumed, bytes decompressed. */
struct xpu_ccob_work {
        size_t in, out;
};

/* Decompress the head of the CCOB C (as xpu_bundle_scan() reported it, inside BUF[0..LEN)) and
 * read the plain bundle's table from it (XPU_CCOB_HEAD_FIRST bytes, then up to XPU_CCOB_HEAD_MAX
 * when the table is longer): calls CB once with the inner bundle (entry offsets count
 * from the start of the uncompressed bundle; COMPRESSED set, the CCOB fields copied from C).
 * At most MAX_UNPACKED bytes are decompressed in all, from at most a little more compressed input
 * than that (a stream padded with empty blocks is not read through); *WORK says what it cost.
 * Returns 0; -EBADMSG with ERR naming what when the stream is corrupt or does not hold a bundle;
 * -ENOSYS with ERR naming the library and the package when libzstd.so.1 or libz.so.1 cannot be
 * loaded; -EINVAL for a C that is not a well-formed CCOB; -ECANCELED when reading the table
 * needs more than MAX_UNPACKED bytes (CB not called); -ENOMEM; or the callback's negative value.
 * ERR may be NULL. */
int xpu_ccob_read(const uint8_t *buf, size_t len, const struct xpu_bundle *c, uint64_t max_unpacked,
                  xpu_bundle_cb cb, void *userdata, struct xpu_ccob_work *work, char *err, size_t err_size);
