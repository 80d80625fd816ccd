/* SPDX-License-Identifier: Apache-2.0 */
/* The head of a CCOB's compressed stream, through libzstd or zlib loaded at first use. */
#include "devcode/ccob.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "base/log.h"
#include "base/macro.h"

/* The few functions used, by the names the libraries export (zlib's inflateInit is a macro of
 * inflateInit_, which takes the header's version and struct size). */
static struct {
        bool tried_zstd, tried_zlib;
        void *zstd, *zlib;
        ZSTD_DCtx *(*createDCtx)(void);
        size_t (*resetDCtx)(ZSTD_DCtx *, ZSTD_ResetDirective);
        ZSTD_DCtx *dctx; /* one for the process, reset per stream */
        size_t (*decompressStream)(ZSTD_DCtx *, ZSTD_outBuffer *, ZSTD_inBuffer *);
        unsigned (*isError)(size_t);
        const char *(*getErrorName)(size_t);
        int (*inflateInit_)(z_streamp, const char *, int);
        int (*inflate)(z_streamp, int);
        int (*inflateEnd)(z_streamp);
} lib;

/* dlopen SONAME and resolve N symbols NAMES into PTRS. Returns the handle or NULL. */
static void *load(const char *soname, const char *const *names, void **ptrs, size_t n) {
        void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
        if (!h)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                ptrs[i] = dlsym(h, names[i]);
                if (!ptrs[i]) {
                        dlclose(h);
                        return NULL;
                }
        }
        return h;
}

static int load_zstd(char *err, size_t err_size) {
        if (!lib.tried_zstd) {
                static const char *const names[] = { "ZSTD_createDCtx", "ZSTD_DCtx_reset", "ZSTD_decompressStream",
                                                     "ZSTD_isError", "ZSTD_getErrorName" };
                void *ptrs[ELEMENTSOF(names)];
                lib.tried_zstd = true;
                lib.zstd = load("libzstd.so.1", names, ptrs, ELEMENTSOF(names));
                if (lib.zstd) {
                        lib.createDCtx = (ZSTD_DCtx * (*)(void)) ptrs[0];
                        lib.resetDCtx = (size_t(*)(ZSTD_DCtx *, ZSTD_ResetDirective))ptrs[1];
                        lib.decompressStream = (size_t(*)(ZSTD_DCtx *, ZSTD_outBuffer *, ZSTD_inBuffer *))ptrs[2];
                        lib.isError = (unsigned (*)(size_t))ptrs[3];
                        lib.getErrorName = (const char *(*)(size_t))ptrs[4];
                }
        }
        if (!lib.zstd) {
                xpu_format_error(err, err_size, "cannot load libzstd.so.1 to read a zstd-compressed offload bundle: apt-get install libzstd1");
                return -ENOSYS;
        }
        return 0;
}

static int load_zlib(char *err, size_t err_size) {
        if (!lib.tried_zlib) {
                static const char *const names[] = { "inflateInit_", "inflate", "inflateEnd" };
                void *ptrs[ELEMENTSOF(names)];
                lib.tried_zlib = true;
                lib.zlib = load("libz.so.1", names, ptrs, ELEMENTSOF(names));
                if (lib.zlib) {
                        lib.inflateInit_ = (int (*)(z_streamp, const char *, int))ptrs[0];
                        lib.inflate = (int (*)(z_streamp, int))ptrs[1];
                        lib.inflateEnd = (int (*)(z_streamp))ptrs[2];
                }
        }
        if (!lib.zlib) {
                xpu_format_error(err, err_size, "cannot load libz.so.1 to read a zlib-compressed offload bundle: apt-get install zlib1g");
                return -ENOSYS;
        }
        return 0;
}

/* Decompress up to OUT_SIZE bytes of IN into OUT; *RET_LEN gets how many. A stream cut short is
 * fine as long as it yields bytes: only the head is wanted. */
static int head_zstd(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_size, size_t *ret_len,
                     size_t *ret_used, char *err, size_t err_size) {
        int r = load_zstd(err, err_size);
        if (r < 0)
                return r;
        if (!lib.dctx)
                lib.dctx = lib.createDCtx();
        ZSTD_DCtx *d = lib.dctx;
        if (!d)
                return -ENOMEM;
        lib.resetDCtx(d, ZSTD_reset_session_only);
        ZSTD_inBuffer ib = { in, in_len, 0 };
        ZSTD_outBuffer ob = { out, out_size, 0 };
        r = 0;
        while (ob.pos < ob.size && ib.pos < ib.size) {
                size_t z = lib.decompressStream(d, &ob, &ib);
                if (lib.isError(z)) {
                        xpu_format_error(err, err_size, "the zstd stream is corrupt (%s)", lib.getErrorName(z));
                        r = -EBADMSG;
                        break;
                }
                if (z == 0) /* a frame ended */
                        break;
        }
        *ret_len = ob.pos;
        *ret_used = ib.pos;
        return r;
}

static int head_zlib(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_size, size_t *ret_len,
                     size_t *ret_used, char *err, size_t err_size) {
        int r = load_zlib(err, err_size);
        if (r < 0)
                return r;
        z_stream z = { 0 };
        if (lib.inflateInit_(&z, ZLIB_VERSION, (int)sizeof z) != Z_OK)
                return -ENOMEM;
        /* Both sizes fit: in_len comes from a CCOB of at most 4 GiB (v2) and is capped below. */
        z.next_in = (Bytef *)in;
        z.avail_in = (uInt)(in_len > UINT32_MAX ? UINT32_MAX : in_len);
        z.next_out = out;
        z.avail_out = (uInt)out_size;
        int s = lib.inflate(&z, Z_SYNC_FLUSH);
        if (s != Z_OK && s != Z_STREAM_END && s != Z_BUF_ERROR) {
                xpu_format_error(err, err_size, "the zlib stream is corrupt (%s)", z.msg ? z.msg : "inflate failed");
                r = -EBADMSG;
        }
        *ret_len = out_size - z.avail_out;
        *ret_used = (size_t)(z.next_in - (const Bytef *)in);
        lib.inflateEnd(&z);
        return r;
}

struct wrap {
        const struct xpu_bundle *ccob;
        xpu_bundle_cb cb;
        void *userdata;
        bool head_short_possible; /* the head is not the whole stream */
        bool last;                /* the head is as long as it will get */
        bool short_head;          /* set instead of calling CB: the table ran past the head */
};

static int rewrap(const struct xpu_bundle *inner, void *userdata) {
        struct wrap *w = userdata;
        struct xpu_bundle b = *inner;
        if (inner->malformed && inner->table_cut && w->head_short_possible) {
                if (!w->last) {
                        w->short_head = true;
                        return 0;
                }
                b.reason = "its entry table runs past the first 1 MiB of the stream, far longer than a real one";
        }
        b.offset = w->ccob->offset;
        b.compressed = true;
        b.ccob_version = w->ccob->ccob_version;
        b.ccob_method = w->ccob->ccob_method;
        b.ccob_uncompressed_size = w->ccob->ccob_uncompressed_size;
        b.size = w->ccob->size;
        return w->cb(&b, w->userdata);
}

/* Decompress the first WANT bytes of C's stream and read the table from them. Sets *SHORT when
 * the table did not fit in what came out and the stream has more. */
static int read_with(const uint8_t *in, size_t in_len, const struct xpu_bundle *c, size_t want, struct wrap *w,
                     bool *short_head, struct xpu_ccob_work *work, char *err, size_t err_size) {
        _cleanup_free_ uint8_t *out = malloc(want);
        if (!out)
                return -ENOMEM;
        /* Real compressed data never needs much more input than the output it gives (zstd frames
         * 3 bytes per block of up to 128 KiB, zlib's stored blocks 5 per 64 KiB): a stream that
         * would consume more, such as one of empty blocks, is not read further. */
        size_t cap = want + want / 4 + (64u << 10);
        if (in_len > cap)
                in_len = cap;
        size_t got = 0, used = 0;
        int r = c->ccob_method == XPU_CCOB_ZSTD ? head_zstd(in, in_len, out, want, &got, &used, err, err_size)
                : c->ccob_method == XPU_CCOB_ZLIB ? head_zlib(in, in_len, out, want, &got, &used, err, err_size)
                                                  : -EINVAL;
        work->out += got;
        work->in += used;
        if (r < 0)
                return r;
        w->short_head = false;
        w->head_short_possible = got == want && want < c->ccob_uncompressed_size;
        r = xpu_bundle_read_head(out, got, c->ccob_uncompressed_size, rewrap, w);
        if (r == -EBADMSG)
                xpu_format_error(err, err_size, "the decompressed data is not an offload bundle (no __CLANG_OFFLOAD_BUNDLE__ magic)");
        *short_head = w->short_head;
        return r;
}

int xpu_ccob_read(const uint8_t *buf, size_t len, const struct xpu_bundle *c, uint64_t max_unpacked, xpu_bundle_cb cb,
                  void *userdata, struct xpu_ccob_work *work, char *err, size_t err_size) {
        *work = (struct xpu_ccob_work){ 0 };
        size_t header = xpu_ccob_header_size(c->ccob_version);
        if (!c->compressed || c->malformed || c->offset > len || header == 0)
                return -EINVAL;
        /* Version 1 states no total size: the stream runs to the end of the buffer. */
        uint64_t end = c->ccob_version == 1 || c->size <= header ? len - c->offset : c->size;
        if (end < header || end > len - c->offset)
                return -EINVAL;
        if (c->ccob_uncompressed_size == 0) {
                xpu_format_error(err, err_size, "the compressed bundle states an uncompressed size of 0");
                return -EBADMSG;
        }
        const uint8_t *in = buf + c->offset + header;
        size_t in_len = (size_t)(end - header);
        struct wrap w = { .ccob = c, .cb = cb, .userdata = userdata };
        /* A real table is a few hundred bytes: try a small head first, the largest only when the
         * table runs past it. */
        size_t first = XPU_CCOB_HEAD_FIRST, max = XPU_CCOB_HEAD_MAX;
        if (c->ccob_uncompressed_size < max)
                max = (size_t)c->ccob_uncompressed_size;
        if (first > max)
                first = max;
        if (first > max_unpacked)
                return -ECANCELED;
        bool short_head = false;
        w.last = first == max;
        int r = read_with(in, in_len, c, first, &w, &short_head, work, err, err_size);
        if (r == 0 && short_head) {
                if (work->out + max > max_unpacked)
                        return -ECANCELED;
                w.last = true;
                r = read_with(in, in_len, c, max, &w, &short_head, work, err, err_size);
        }
        return r;
}
