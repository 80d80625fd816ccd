/* SPDX-License-Identifier: Apache-2.0 */
/* probes/devcode/bundle.c and ccob.c: clang offload bundles, CCOB headers and the IDs inside them, on fixtures Debian's clang 14
 * made (tests/fixtures/devcode/mkfixtures-amd.sh) and on damaged copies of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "devcode/bundle.h"
#include "devcode/ccob.h"
#include "testlib.h"

struct seen {
        size_t n;
        struct {
                struct xpu_bundle b;
                char reason[128];
                char ids[4][80];
                char targets[4][64];
                char kinds[4][16];
                uint64_t entry_offset[4], entry_size[4];
        } c[8];
        int stop_after;
};

static int collect(const struct xpu_bundle *b, void *userdata) {
        struct seen *s = userdata;
        if (s->n < ELEMENTSOF(s->c)) {
                s->c[s->n].b = *b;
                s->c[s->n].b.entries = NULL;
                snprintf(s->c[s->n].reason, sizeof s->c[s->n].reason, "%s", b->reason ? b->reason : "");
                for (size_t i = 0; i < b->n_entries && i < 4; i++) {
                        snprintf(s->c[s->n].ids[i], 80, "%s", b->entries[i].id);
                        snprintf(s->c[s->n].targets[i], 64, "%s", b->entries[i].target);
                        snprintf(s->c[s->n].kinds[i], 16, "%s", b->entries[i].kind);
                        s->c[s->n].entry_offset[i] = b->entries[i].offset;
                        s->c[s->n].entry_size[i] = b->entries[i].size;
                }
        }
        s->n++;
        return s->stop_after && (int)s->n == s->stop_after ? -EINTR : 0;
}

static uint8_t *fixture(const char *name, size_t *len) {
        char rel[256];
        snprintf(rel, sizeof rel, "devcode/amd/%s", name);
        return xpu_test_read_fixture(rel, len);
}

static struct seen scan(const uint8_t *b, size_t len, int *ret) {
        struct seen s = { 0 };
        *ret = xpu_bundle_scan(b, len, collect, &s);
        return s;
}

START_TEST(test_plain) {
        size_t len;
        _cleanup_free_ uint8_t *b = fixture("two.bundle", &len);
        int r;
        struct seen s = scan(b, len, &r);
        ck_assert_int_eq(r, 1);
        ck_assert(!s.c[0].b.malformed);
        ck_assert(!s.c[0].b.compressed);
        ck_assert_uint_eq(s.c[0].b.n_entries, 3);
        ck_assert_uint_eq(s.c[0].b.size, len);
        ck_assert_str_eq(s.c[0].ids[0], "host-x86_64-unknown-linux");
        ck_assert_str_eq(s.c[0].kinds[0], "host");
        ck_assert_str_eq(s.c[0].targets[0], "");
        ck_assert_uint_eq(s.c[0].entry_size[0], 4);
        ck_assert_mem_eq(b + s.c[0].entry_offset[0], "host", 4);
        ck_assert_str_eq(s.c[0].ids[1], "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-");
        ck_assert_str_eq(s.c[0].kinds[1], "hipv4");
        ck_assert_str_eq(s.c[0].targets[1], "gfx90a:sramecc+:xnack-");
        ck_assert_str_eq(s.c[0].targets[2], "gfx1030");
        /* The device entries are the code objects themselves: AMDGPU ELF (e_machine 224). */
        for (int i = 1; i < 3; i++) {
                ck_assert_mem_eq(b + s.c[0].entry_offset[i], "\177ELF", 4);
                ck_assert_uint_eq(b[s.c[0].entry_offset[i] + 18], 224);
        }
        ck_assert_uint_eq(s.c[0].entry_size[1], 3576); /* gfx90a.o */
        ck_assert_uint_eq(s.c[0].entry_size[2], 2728); /* gfx1030.o */
}
END_TEST

START_TEST(test_ccob) {
        static const struct {
                const char *name;
                unsigned version;
                uint64_t size;
        } cases[] = { { "two-v1-zlib.ccob", 1, 20 }, { "two-v2-zlib.ccob", 2, 1301 }, { "two-v3-zlib.ccob", 3, 1309 } };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                size_t len;
                _cleanup_free_ uint8_t *b = fixture(cases[i].name, &len);
                int r;
                struct seen s = scan(b, len, &r);
                ck_assert_int_eq(r, 1);
                ck_assert(s.c[0].b.compressed);
                ck_assert(!s.c[0].b.malformed);
                ck_assert_uint_eq(s.c[0].b.ccob_version, cases[i].version);
                ck_assert_uint_eq(s.c[0].b.ccob_method, XPU_CCOB_ZLIB);
                ck_assert_uint_eq(s.c[0].b.ccob_uncompressed_size, 6516); /* two.bundle */
                ck_assert_uint_eq(s.c[0].b.n_entries, 0);
                /* v1 states no total size: only its header is known. */
                ck_assert_uint_eq(s.c[0].b.size, cases[i].size);
        }
}
END_TEST

START_TEST(test_two_in_a_section) {
        /* A .hip_fatbin-like section: a CCOB, zero padding to 4096, then the plain bundle. */
        size_t a, p;
        _cleanup_free_ uint8_t *ccob = fixture("two-v2-zlib.ccob", &a);
        _cleanup_free_ uint8_t *plain = fixture("two.bundle", &p);
        _cleanup_free_ uint8_t *sec = calloc(1, 4096 + p);
        memcpy(sec, ccob, a);
        memcpy(sec + 4096, plain, p);
        int r;
        struct seen s = scan(sec, 4096 + p, &r);
        ck_assert_int_eq(r, 2);
        ck_assert(s.c[0].b.compressed);
        ck_assert_uint_eq(s.c[1].b.offset, 4096);
        ck_assert_mem_eq(sec + s.c[1].entry_offset[1], "\177ELF", 4);

        struct seen t = { .stop_after = 1 };
        ck_assert_int_eq(xpu_bundle_scan(sec, 4096 + p, collect, &t), -EINTR);
        ck_assert_uint_eq(t.n, 1);
}
END_TEST

START_TEST(test_damaged) {
        size_t len;
        _cleanup_free_ uint8_t *b = fixture("two.bundle", &len);
        _cleanup_free_ uint8_t *c = malloc(len);
        int r;
        struct seen s;

        /* Cut inside the third entry's code. */
        s = scan(b, len - 100, &r);
        ck_assert_int_eq(r, 1);
        ck_assert(s.c[0].b.malformed);
        ck_assert_str_eq(s.c[0].reason, "an entry's code lies outside the data");
        ck_assert_uint_eq(s.c[0].b.n_entries, 2);

        /* Cut before the entry count. */
        s = scan(b, 28, &r);
        ck_assert(s.c[0].b.malformed);
        ck_assert_str_eq(s.c[0].reason, "the bundle is cut off before its entry count");

        /* An absurd entry count. */
        memcpy(c, b, len);
        memcpy(c + 24, "\xff\xff\xff\xff\xff\xff\xff\xff", 8);
        s = scan(c, len, &r);
        ck_assert(s.c[0].b.malformed);
        ck_assert_str_eq(s.c[0].reason, "the bundle's entry count is 0 or over 4096");

        /* An ID length past the data. */
        memcpy(c, b, len);
        memcpy(c + 32 + 16, "\x00\x00\x00\x00\x01\x00\x00\x00", 8);
        s = scan(c, len, &r);
        ck_assert(s.c[0].b.malformed);
        ck_assert_str_eq(s.c[0].reason, "an entry ID is empty, over 1024 bytes or cut off");
        ck_assert_uint_eq(s.c[0].b.n_entries, 0);

        /* A NUL inside an ID. */
        memcpy(c, b, len);
        c[32 + 24 + 2] = '\0';
        s = scan(c, len, &r);
        ck_assert(s.c[0].b.malformed);
        ck_assert_str_eq(s.c[0].reason, "an entry ID is not \"<kind>-<triple>[-<target>]\" text");

        /* "CCOB" followed by no CCOB version or method is data, not a bundle. */
        uint8_t data[64] = "xxCCOB\x07\x00\x00\x00 and CCOB\x02\x00\x09\x00 more";
        s = scan(data, sizeof data, &r);
        ck_assert_int_eq(r, 0);

        /* A CCOB whose total size passes the data. */
        size_t n;
        _cleanup_free_ uint8_t *z = fixture("two-v2-zlib.ccob", &n);
        s = scan(z, n - 1, &r);
        ck_assert_int_eq(r, 1);
        ck_assert(s.c[0].b.malformed);
        ck_assert_str_eq(s.c[0].reason, "the compressed bundle's total size is smaller than its header or past the data");
        s = scan(z, 12, &r);
        ck_assert(s.c[0].b.malformed);
        ck_assert_str_eq(s.c[0].reason, "the compressed bundle is cut off in its header");
}
END_TEST

/* Scan the CCOB fixture NAME, read its inner table, and return what the callback saw. */
static struct seen inner(const char *name, int *ret, char *err, size_t err_size) {
        size_t len;
        _cleanup_free_ uint8_t *b = fixture(name, &len);
        int r;
        struct seen outer = scan(b, len, &r);
        ck_assert_int_eq(r, 1);
        struct seen s = { 0 };
        *ret = xpu_ccob_read(b, len, &outer.c[0].b, UINT64_MAX, collect, &s, &(struct xpu_ccob_work){ 0 }, err, err_size);
        return s;
}

START_TEST(test_ccob_ids) {
        static const char *const names[] = { "two-v1-zlib.ccob", "two-v2-zlib.ccob", "two-v3-zlib.ccob",
                                             "two-v2-zstd.ccob" };
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                char err[256] = "";
                int r;
                struct seen s = inner(names[i], &r, err, sizeof err);
                ck_assert_msg(r == 0, "%s: %d %s", names[i], r, err);
                ck_assert_uint_eq(s.n, 1);
                ck_assert(s.c[0].b.compressed && !s.c[0].b.malformed);
                ck_assert_uint_eq(s.c[0].b.n_entries, 3);
                ck_assert_str_eq(s.c[0].ids[0], "host-x86_64-unknown-linux");
                ck_assert_str_eq(s.c[0].targets[1], "gfx90a:sramecc+:xnack-");
                ck_assert_str_eq(s.c[0].targets[2], "gfx1030");
                ck_assert_uint_eq(s.c[0].entry_size[1], 3576);
                ck_assert_uint_eq(s.c[0].b.ccob_uncompressed_size, 6516);
        }
        char err[256] = "";
        int r;
        struct seen s = inner("two-v2-zstd.ccob", &r, err, sizeof err);
        ck_assert_uint_eq(s.c[0].b.ccob_method, XPU_CCOB_ZSTD);

        /* A table longer than the first head: read whole from the second, larger one. */
        s = inner("many-v2-zlib.ccob", &r, err, sizeof err);
        ck_assert_msg(r == 0, "%d %s", r, err);
        ck_assert_uint_eq(s.n, 1);
        ck_assert(!s.c[0].b.malformed);
        ck_assert_uint_eq(s.c[0].b.n_entries, 400);
        ck_assert_str_eq(s.c[0].targets[3], "gfx1003");
        ck_assert_uint_gt(s.c[0].b.ccob_uncompressed_size, XPU_CCOB_HEAD_FIRST);
}
END_TEST

START_TEST(test_ccob_corrupt) {
        size_t len;
        _cleanup_free_ uint8_t *z = fixture("two-v2-zstd.ccob", &len);
        int r;
        struct seen outer = scan(z, len, &r);
        struct xpu_bundle c = outer.c[0].b;
        struct seen s = { 0 };
        char err[256] = "";

        /* A zstd frame whose magic is damaged. */
        z[24] ^= 0xff;
        ck_assert_int_eq(xpu_ccob_read(z, len, &c, UINT64_MAX, collect, &s, &(struct xpu_ccob_work){ 0 }, err, sizeof err), -EBADMSG);
        ck_assert_msg(strstr(err, "the zstd stream is corrupt (") == err, "%s", err);
        ck_assert_uint_eq(s.n, 0);
        z[24] ^= 0xff;

        /* A zlib stream that is not zlib. */
        size_t zl;
        _cleanup_free_ uint8_t *g = fixture("two-v2-zlib.ccob", &zl);
        outer = scan(g, zl, &r);
        c = outer.c[0].b;
        memset(g + 24, 0x55, 8);
        ck_assert_int_eq(xpu_ccob_read(g, zl, &c, UINT64_MAX, collect, &s, &(struct xpu_ccob_work){ 0 }, err, sizeof err), -EBADMSG);
        ck_assert_msg(strstr(err, "the zlib stream is corrupt (") == err, "%s", err);

        /* Compressed data that is not a bundle: a CCOB around two.bundle without its magic. */
        size_t pl;
        _cleanup_free_ uint8_t *plain = fixture("two.bundle", &pl);
        outer = scan(z, len, &r);
        c = outer.c[0].b;
        c.ccob_uncompressed_size = 4; /* only "__CL" comes out */
        ck_assert_int_eq(xpu_ccob_read(z, len, &c, UINT64_MAX, collect, &s, &(struct xpu_ccob_work){ 0 }, err, sizeof err), -EBADMSG);
        ck_assert_str_eq(err, "the decompressed data is not an offload bundle (no __CLANG_OFFLOAD_BUNDLE__ magic)");

        /* Not a CCOB at all, or one the scan called malformed. */
        struct seen p = scan(plain, pl, &r);
        ck_assert_int_eq(xpu_ccob_read(plain, pl, &p.c[0].b, UINT64_MAX, collect, &s, &(struct xpu_ccob_work){ 0 }, NULL, 0), -EINVAL);
        c = outer.c[0].b;
        c.malformed = true;
        ck_assert_int_eq(xpu_ccob_read(z, len, &c, UINT64_MAX, collect, &s, &(struct xpu_ccob_work){ 0 }, NULL, 0), -EINVAL);
        c = outer.c[0].b;
        c.size = len + 1;
        ck_assert_int_eq(xpu_ccob_read(z, len, &c, UINT64_MAX, collect, &s, &(struct xpu_ccob_work){ 0 }, NULL, 0), -EINVAL);
        ck_assert_uint_eq(s.n, 0);
}
END_TEST

START_TEST(test_id_split) {
        struct xpu_bundle_entry e;
        ck_assert_int_eq(xpu_bundle_id_split("hip-amdgcn-amd-amdhsa-unknown-gfx942:xnack+", &e), 0);
        ck_assert_str_eq(e.kind, "hip");
        ck_assert_str_eq(e.triple, "amdgcn-amd-amdhsa-unknown");
        ck_assert_str_eq(e.target, "gfx942:xnack+");
        ck_assert_int_eq(xpu_bundle_id_split("hipv4-amdgcn-amd-amdhsa--gfx11-generic", &e), 0);
        ck_assert_str_eq(e.triple, "amdgcn-amd-amdhsa-");
        ck_assert_str_eq(e.target, "gfx11-generic"); /* a generic target keeps its own dashes */
        ck_assert_int_eq(xpu_bundle_id_split("host-x86_64-unknown-linux-gnu", &e), 0);
        ck_assert_str_eq(e.triple, "x86_64-unknown-linux-gnu");
        ck_assert_str_eq(e.target, "");
        ck_assert_int_eq(xpu_bundle_id_split("nodash", &e), -EINVAL);
        ck_assert_int_eq(xpu_bundle_id_split("-x-y", &e), -EINVAL);
        ck_assert_int_eq(xpu_bundle_id_split("averyveryveryveryveryverylongkindname-a-b-c-d-gfx90a", &e), -EINVAL);
}
END_TEST

static Suite *bundle_suite(void) {
        Suite *s = suite_create("devcode-bundle");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_plain);
        tcase_add_test(tc, test_ccob);
        tcase_add_test(tc, test_two_in_a_section);
        tcase_add_test(tc, test_damaged);
        tcase_add_test(tc, test_ccob_ids);
        tcase_add_test(tc, test_ccob_corrupt);
        tcase_add_test(tc, test_id_split);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(bundle_suite());
}
