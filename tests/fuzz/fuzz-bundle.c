/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the clang offload bundle and CCOB header reader of probes/devcode/bundle.h on one
 * buffer (xpu_bundle_scan), the table inside every CCOB it finds (xpu_ccob_read: libzstd or zlib on
 * the stream's head), and xpu_bundle_id_split on the buffer as text. The callback checks
 * that every bundle starts inside the buffer, that every entry's code lies in it, and that each
 * ID is a terminated string of its parts, so a bound the reader gets wrong shows up under ASan.
 * Corpus: tests/fuzz/corpus/bundle/ (clang 14 bundles, CCOB v1-v3, damaged copies). */
#include "devcode/bundle.h"
#include "devcode/ccob.h"
#include "fuzz.h"

#include <errno.h>

struct ctx {
        const uint8_t *buf;
        size_t len;
        unsigned sum;
};

/* The table of a CCOB: its entries' code lies inside the stated uncompressed size. */
static int touch_inner(const struct xpu_bundle *b, void *userdata) {
        unsigned *sum = userdata;
        if (!b->compressed || (b->malformed && !b->reason))
                abort();
        for (size_t i = 0; i < b->n_entries; i++) {
                const struct xpu_bundle_entry *e = &b->entries[i];
                if (e->offset > b->ccob_uncompressed_size || e->size > b->ccob_uncompressed_size - e->offset)
                        abort();
                *sum += (unsigned)strlen(e->id);
        }
        return 0;
}

static int touch(const struct xpu_bundle *b, void *userdata) {
        struct ctx *x = userdata;
        if (b->offset >= x->len || (b->malformed && !b->reason) || (b->compressed && b->n_entries))
                abort();
        for (size_t i = 0; i < b->n_entries; i++) {
                const struct xpu_bundle_entry *e = &b->entries[i];
                if (e->offset > x->len || e->size > x->len - e->offset)
                        abort();
                if (e->size)
                        x->sum += x->buf[e->offset] + x->buf[e->offset + e->size - 1];
                size_t parts = strlen(e->kind) + strlen(e->triple) + strlen(e->target);
                if (parts > strlen(e->id))
                        abort();
        }
        if (b->compressed && !b->malformed) {
                char err[256];
                int r = xpu_ccob_read(x->buf, x->len, b, UINT64_MAX, touch_inner, &x->sum, &(struct xpu_ccob_work){ 0 }, err, sizeof err);
                if (r < 0 && r != -EBADMSG && r != -ENOMEM && r != -ENOSYS)
                        abort();
                if ((r == -EBADMSG || r == -ENOSYS) && !err[0])
                        abort();
        }
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        uint8_t *buf = fuzz_memdup(data, size);
        if (!buf)
                return 0;
        struct ctx x = { .buf = buf, .len = size };
        (void)xpu_bundle_scan(buf, size, touch, &x);
        free(buf);

        char *id = fuzz_strndup(data, size);
        if (id) {
                struct xpu_bundle_entry *e = malloc(sizeof *e);
                if (e && xpu_bundle_id_split(id, e) == 0 &&
                    strlen(e->kind) + strlen(e->triple) + strlen(e->target) > strlen(id))
                        abort();
                free(e);
                free(id);
        }
        return 0;
}
