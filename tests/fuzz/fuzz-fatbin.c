/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the NVIDIA fat binary reader of probes/devcode/fatbin.h on one buffer:
 * xpu_fatbin_scan() over all of it, xpu_fatbin_scan_fd() over the same bytes in a memfd (it must
 * report the same, read through a window instead of from memory), and xpu_cubin_has_kernels()
 * on the buffer as a cubin. The callback checks that every entry's payload lies inside the buffer
 * and reads its first and last byte, so a bound the reader gets wrong shows up under ASan.
 * Corpus: tests/fuzz/corpus/fatbin/ (nvcc 13.0 fixtures, whole and damaged). */
#include "devcode/fatbin.h"
#include "fuzz.h"

struct ctx {
        const uint8_t *buf;
        size_t len;
        unsigned sum;
        uint64_t digest; /* of everything reported, to compare the two scans */
};

static void mix(struct ctx *x, uint64_t v) {
        x->digest = (x->digest ^ v) * 0x100000001b3ull;
}

static int touch(const struct xpu_fatbin_container *c, void *userdata) {
        struct ctx *x = userdata;
        if (c->offset >= x->len)
                abort();
        mix(x, c->offset);
        mix(x, c->size);
        mix(x, c->n_entries);
        mix(x, c->malformed);
        mix(x, (uintptr_t)c->reason);
        for (size_t i = 0; i < c->n_entries; i++) {
                const struct xpu_fatbin_entry *e = &c->entries[i];
                if (e->payload_offset > x->len || e->payload_size > x->len - e->payload_offset)
                        abort();
                mix(x, (uint64_t)e->kind << 32 | e->sm);
                mix(x, (uint64_t)e->variant << 32 | e->compression);
                mix(x, (uint64_t)e->ptx_major << 32 | e->ptx_minor);
                mix(x, (uint64_t)e->has_kernels << 1 | e->kernels_known);
                mix(x, e->payload_offset);
                mix(x, e->payload_size);
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
        int r = xpu_fatbin_scan(buf, size, touch, &x);
        static int fd = -1;
        if (fuzz_memfd_fill(&fd, data, size) >= 0) {
                struct ctx y = { .buf = buf, .len = size };
                if (xpu_fatbin_scan_fd(fd, 0, size, touch, NULL, &y) != r || y.digest != x.digest)
                        abort();
        }
        bool ok;
        (void)xpu_cubin_has_kernels(buf, size, &ok);
        free(buf);
        return 0;
}
