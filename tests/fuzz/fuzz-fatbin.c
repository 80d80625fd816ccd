/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the NVIDIA fat binary reader of probes/devcode/fatbin.h on one buffer:
 * xpu_fatbin_scan() over all of it, and xpu_cubin_has_kernels() on the buffer as a cubin. The
 * callback checks that every entry's payload lies inside the buffer and reads its first and last
 * byte, so a bound the reader gets wrong shows up under ASan.
 * Corpus: tests/fuzz/corpus/fatbin/ (nvcc 13.0 fixtures, whole and damaged). */
#include "devcode/fatbin.h"
#include "fuzz.h"

struct ctx {
        const uint8_t *buf;
        size_t len;
        unsigned sum;
};

static int touch(const struct xpu_fatbin_container *c, void *userdata) {
        struct ctx *x = userdata;
        if (c->offset >= x->len)
                abort();
        for (size_t i = 0; i < c->n_entries; i++) {
                const struct xpu_fatbin_entry *e = &c->entries[i];
                if (e->payload_offset > x->len || e->payload_size > x->len - e->payload_offset)
                        abort();
                if (e->payload_size)
                        x->sum += x->buf[e->payload_offset] + x->buf[e->payload_offset + e->payload_size - 1];
                char name[16];
                x->sum += (unsigned)strlen(xpu_fatbin_entry_name(e, name, sizeof name));
        }
        if (c->malformed && !c->reason)
                abort();
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        uint8_t *buf = fuzz_memdup(data, size);
        if (!buf)
                return 0;
        struct ctx x = { .buf = buf, .len = size };
        (void)xpu_fatbin_scan(buf, size, touch, &x);
        bool ok;
        (void)xpu_cubin_has_kernels(buf, size, &ok);
        free(buf);
        return 0;
}
