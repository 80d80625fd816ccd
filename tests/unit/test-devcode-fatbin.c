/* SPDX-License-Identifier: Apache-2.0 */
/* probes/devcode/fatbin.c: NVIDIA fat binary containers, on fixtures nvcc 13.0 made
 * (tests/fixtures/devcode/mkfixtures-nvidia.sh) and on damaged copies of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devcode/fatbin.h"
#include "testlib.h"

struct seen {
        size_t n;
        struct {
                uint64_t offset;
                bool malformed;
                char reason[128];
                size_t n_entries;
                char names[8][16];
                struct xpu_fatbin_entry e[8];
        } c[8];
        int stop_after; /* return -EINTR from the callback after this many containers; 0: never */
};

static int collect(const struct xpu_fatbin_container *c, void *userdata) {
        struct seen *s = userdata;
        if (s->n < ELEMENTSOF(s->c)) {
                s->c[s->n].offset = c->offset;
                s->c[s->n].malformed = c->malformed;
                snprintf(s->c[s->n].reason, sizeof s->c[s->n].reason, "%s", c->reason ? c->reason : "");
                s->c[s->n].n_entries = c->n_entries;
                for (size_t i = 0; i < c->n_entries && i < 8; i++) {
                        s->c[s->n].e[i] = c->entries[i];
                        xpu_fatbin_entry_name(&c->entries[i], s->c[s->n].names[i], 16);
                }
        }
        s->n++;
        if (s->stop_after && (int)s->n == s->stop_after)
                return -EINTR;
        return 0;
}

static uint8_t *fixture(const char *name, size_t *len) {
        char rel[256];
        snprintf(rel, sizeof rel, "devcode/nvidia/%s", name);
        return xpu_test_read_fixture(rel, len);
}

static struct seen scan(const uint8_t *b, size_t len, int *ret) {
        struct seen s = { 0 };
        *ret = xpu_fatbin_scan(b, len, collect, &s);
        return s;
}

START_TEST(test_mixed) {
        size_t len;
        _cleanup_free_ uint8_t *b = fixture("mixed.fatbin", &len);
        int r;
        struct seen s = scan(b, len, &r);
        ck_assert_int_eq(r, 1);
        ck_assert_uint_eq(s.n, 1);
        ck_assert(!s.c[0].malformed);
        ck_assert_uint_eq(s.c[0].offset, 0);
        ck_assert_uint_eq(s.c[0].n_entries, 4);
        ck_assert_str_eq(s.c[0].names[0], "sm_80");
        ck_assert_str_eq(s.c[0].names[1], "sm_90a");
        ck_assert_str_eq(s.c[0].names[2], "sm_100f");
        ck_assert_str_eq(s.c[0].names[3], "compute_90");
        for (int i = 0; i < 3; i++) {
                ck_assert_uint_eq(s.c[0].e[i].kind, XPU_FATBIN_SASS);
                ck_assert_int_eq(s.c[0].e[i].compression, XPU_FATBIN_STORED);
                ck_assert(s.c[0].e[i].has_kernels && s.c[0].e[i].kernels_known);
                ck_assert_uint_eq(s.c[0].e[i].ptx_major, 0);
        }
        ck_assert_uint_eq(s.c[0].e[1].sm, 90);
        ck_assert_int_eq(s.c[0].e[1].variant, XPU_SM_ARCH);
        ck_assert_uint_eq(s.c[0].e[2].sm, 100);
        ck_assert_int_eq(s.c[0].e[2].variant, XPU_SM_FAMILY);
        const struct xpu_fatbin_entry *ptx = &s.c[0].e[3];
        ck_assert_uint_eq(ptx->kind, XPU_FATBIN_PTX);
        ck_assert_uint_eq(ptx->ptx_major, 9); /* CUDA 13.0 writes PTX ISA 9.0 */
        ck_assert_uint_eq(ptx->ptx_minor, 0);
        ck_assert_int_eq(ptx->compression, XPU_FATBIN_ZSTD);
        ck_assert_uint_le(ptx->payload_offset + ptx->payload_size, len);
        /* A stored cubin's payload is the ELF itself. */
        ck_assert_mem_eq(b + s.c[0].e[0].payload_offset, "\177ELF", 4);
}
END_TEST

START_TEST(test_compression_and_lto) {
        size_t len;
        int r;
        _cleanup_free_ uint8_t *lz4 = fixture("lz4.fatbin", &len);
        struct seen s = scan(lz4, len, &r);
        ck_assert_int_eq(r, 1);
        ck_assert_uint_eq(s.c[0].n_entries, 2);
        ck_assert_str_eq(s.c[0].names[0], "sm_86");
        ck_assert_int_eq(s.c[0].e[0].compression, XPU_FATBIN_LZ4);
        /* A compressed cubin is not opened: it counts as holding kernels, not known. */
        ck_assert(s.c[0].e[0].has_kernels && !s.c[0].e[0].kernels_known);
        ck_assert_str_eq(s.c[0].names[1], "compute_120");
        ck_assert_int_eq(s.c[0].e[1].compression, XPU_FATBIN_LZ4);

        _cleanup_free_ uint8_t *st = fixture("stored.fatbin", &len);
        s = scan(st, len, &r);
        ck_assert_int_eq(r, 1);
        ck_assert_uint_eq(s.c[0].n_entries, 2);
        ck_assert_str_eq(s.c[0].names[0], "compute_75");
        ck_assert_str_eq(s.c[0].names[1], "sm_75");
        ck_assert_int_eq(s.c[0].e[0].compression, XPU_FATBIN_STORED);
        ck_assert_int_eq(s.c[0].e[1].compression, XPU_FATBIN_STORED);
        ck_assert(s.c[0].e[1].has_kernels && s.c[0].e[1].kernels_known);

        _cleanup_free_ uint8_t *lto = fixture("lto.fatbin", &len);
        s = scan(lto, len, &r);
        ck_assert_int_eq(r, 1);
        ck_assert_uint_eq(s.c[0].n_entries, 1);
        ck_assert_uint_eq(s.c[0].e[0].kind, XPU_FATBIN_LTO);
        ck_assert_str_eq(s.c[0].names[0], "lto_86");
}
END_TEST

START_TEST(test_device_link_stub) {
        size_t len;
        int r;
        _cleanup_free_ uint8_t *b = fixture("nv_fatbin.bin", &len);
        struct seen s = scan(b, len, &r);
        ck_assert_int_eq(r, 2);
        /* nvcc -shared puts a stub first: an sm_80 cubin without any .text.<kernel> section. */
        ck_assert_uint_eq(s.c[0].n_entries, 1);
        ck_assert_str_eq(s.c[0].names[0], "sm_80");
        ck_assert(!s.c[0].e[0].has_kernels && s.c[0].e[0].kernels_known);
        ck_assert_uint_eq(s.c[1].offset, 1528);
        ck_assert_uint_eq(s.c[1].n_entries, 2);
        ck_assert(s.c[1].e[0].has_kernels);
        ck_assert_str_eq(s.c[1].names[1], "compute_90");

        /* The whole library: the same containers, found at the section's file offset. */
        _cleanup_free_ uint8_t *so = fixture("libkernel.so", &len);
        struct seen w = scan(so, len, &r);
        ck_assert_int_eq(r, 2);
        ck_assert_uint_eq(w.c[0].offset, 0x2018);
        ck_assert_uint_eq(w.c[1].offset, 0x2018 + 1528);
        ck_assert_str_eq(w.c[1].names[0], "sm_80");
}
END_TEST

START_TEST(test_any_offset_and_false_magic) {
        size_t len;
        _cleanup_free_ uint8_t *fb = fixture("stored.fatbin", &len);
        /* 5 bytes of data, a magic with version 2 (data, not a container), then the container at
         * an odd offset. */
        size_t pre = 5 + 16;
        _cleanup_free_ uint8_t *b = malloc(pre + len);
        ck_assert_ptr_nonnull(b);
        memcpy(b, "abcde", 5);
        memcpy(b + 5, "\x50\xed\x55\xba\x02\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00\x00", 16);
        memcpy(b + pre, fb, len);
        int r;
        struct seen s = scan(b, pre + len, &r);
        ck_assert_int_eq(r, 1);
        ck_assert_uint_eq(s.c[0].offset, pre);
        ck_assert(!s.c[0].malformed);
        ck_assert_str_eq(s.c[0].names[1], "sm_75");
        ck_assert_mem_eq(b + s.c[0].e[1].payload_offset, "\177ELF", 4);
}
END_TEST

START_TEST(test_truncated_and_corrupt) {
        size_t len;
        _cleanup_free_ uint8_t *b = fixture("mixed.fatbin", &len);
        int r;
        /* Cut in the middle of the second cubin: the first entry is kept, the container is
         * reported malformed with its reason. */
        struct seen s = scan(b, 5000, &r);
        ck_assert_int_eq(r, 1);
        ck_assert(s.c[0].malformed);
        ck_assert_str_eq(s.c[0].reason, "the container is cut off: its header states more bytes than are there");
        ck_assert_uint_eq(s.c[0].n_entries, 1);
        ck_assert_str_eq(s.c[0].names[0], "sm_80");

        /* Just the container header: malformed, no entries, and nothing read past the end. */
        s = scan(b, 16, &r);
        ck_assert_int_eq(r, 1);
        ck_assert(s.c[0].malformed);
        ck_assert_uint_eq(s.c[0].n_entries, 0);

        /* Fewer bytes than a header: nothing. */
        s = scan(b, 15, &r);
        ck_assert_int_eq(r, 0);

        /* The second entry's header size made absurd. */
        _cleanup_free_ uint8_t *c = malloc(len);
        memcpy(c, b, len);
        uint64_t second = 16 + 64 + 3368; /* header + first entry (fixture values above) */
        memcpy(c + second + 4, "\xff\xff\xff\x7f", 4);
        s = scan(c, len, &r);
        ck_assert_int_eq(r, 1);
        ck_assert(s.c[0].malformed);
        ck_assert_str_eq(s.c[0].reason, "an entry header size is out of range (64..4096 bytes inside its container)");
        ck_assert_uint_eq(s.c[0].n_entries, 1);

        /* The first entry's payload size past the container. */
        memcpy(c, b, len);
        memcpy(c + 16 + 8, "\x00\x00\x00\x10", 4);
        s = scan(c, len, &r);
        ck_assert(s.c[0].malformed);
        ck_assert_str_eq(s.c[0].reason, "an entry's payload runs past the end of its container");
        ck_assert_uint_eq(s.c[0].n_entries, 0);

        /* A stored cubin whose section headers point outside it: not a stub, kernels unknown. */
        memcpy(c, b, len);
        memcpy(c + 16 + 64 + 0x28, "\xff\xff\xff\xff\x00\x00\x00\x00", 8);
        s = scan(c, len, &r);
        ck_assert(!s.c[0].malformed);
        ck_assert(s.c[0].e[0].has_kernels && !s.c[0].e[0].kernels_known);
}
END_TEST

START_TEST(test_no_container_and_stop) {
        uint8_t zero[4096] = { 0 };
        int r;
        struct seen s = scan(zero, sizeof zero, &r);
        ck_assert_int_eq(r, 0);
        ck_assert_uint_eq(s.n, 0);
        s = scan(zero, 0, &r);
        ck_assert_int_eq(r, 0);

        size_t len;
        _cleanup_free_ uint8_t *b = fixture("nv_fatbin.bin", &len);
        struct seen t = { .stop_after = 1 };
        ck_assert_int_eq(xpu_fatbin_scan(b, len, collect, &t), -EINTR);
        ck_assert_uint_eq(t.n, 1);

        bool ok = true;
        ck_assert(!xpu_cubin_has_kernels(zero, sizeof zero, &ok));
        ck_assert(!ok);
        ck_assert(!xpu_cubin_has_kernels((const uint8_t *)"\177ELF", 4, &ok));
        ck_assert(!ok);
}
END_TEST

static Suite *fatbin_suite(void) {
        Suite *s = suite_create("devcode-fatbin");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_mixed);
        tcase_add_test(tc, test_compression_and_lto);
        tcase_add_test(tc, test_device_link_stub);
        tcase_add_test(tc, test_any_offset_and_false_magic);
        tcase_add_test(tc, test_truncated_and_corrupt);
        tcase_add_test(tc, test_no_container_and_stop);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(fatbin_suite());
}
