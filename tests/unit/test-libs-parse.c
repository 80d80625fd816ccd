/* SPDX-License-Identifier: Apache-2.0 */
/* probes/libs: ld.so.cache parser and ELF SONAME reader, on real and crafted images. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libs.h"
#include "testlib.h"
#include "libs-images.h"

static int soname_of_bytes(const void *data, size_t len, char *buf, size_t size) {
        int fd = xpu_test_memfd(data, len);
        int r = xpu_elf_soname(fd, buf, size);
        close(fd);
        return r;
}

/* ---- ld.so.cache ------------------------------------------------------------------------- */

START_TEST(test_ldcache_real) {
        /* This machine's own cache (glibc 2.36 writes the new format): libc.so.6 must be listed
         * with a path that exists, and every entry must come back. */
        char path[PATH_MAX];
        real_libc_path(path, sizeof path);
        ck_assert_msg(path[0] == '/' && access(path, F_OK) == 0, "libc.so.6 -> %s", path);
        unsigned char *cache;
        size_t n = read_whole("/etc/ld.so.cache", &cache);
        struct seen s = {.want = "libc.so.6"};
        int count = xpu_ldcache_parse(cache, n, find_key_cb, &s);
        ck_assert_int_gt(count, 10);
        ck_assert_int_eq(s.count, count);
        free(cache);
}
END_TEST

struct collected {
        char text[4096];
        int n;
};

static void collect_cb(const struct xpu_ldcache_entry *e, void *userdata) {
        struct collected *c = userdata;
        size_t len = strlen(c->text);
        snprintf(c->text + len, sizeof c->text - len, "%s=%s/%#x;", e->key, e->value, (unsigned)e->flags);
        c->n++;
}

static const struct entry two[] = {
        {0x0303, "libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1"},
        {0x0003, "libcuda.so.1", "/usr/lib/i386-linux-gnu/libcuda.so.1"},
};

START_TEST(test_ldcache_formats) {
        static unsigned char buf[8192];
        static const enum cache_format fmts[] = {CACHE_NEW, CACHE_OLD, CACHE_COMPAT};
        for (size_t i = 0; i < 3; i++) {
                size_t n = build_cache(buf, sizeof buf, fmts[i], two, 2);
                struct collected c = {""};
                ck_assert_int_eq(xpu_ldcache_parse_entries(buf, n, collect_cb, &c), 2);
                ck_assert_str_eq(c.text, "libcuda.so.1=/usr/lib/x86_64-linux-gnu/libcuda.so.1/0x303;"
                                         "libcuda.so.1=/usr/lib/i386-linux-gnu/libcuda.so.1/0x3;");
        }
        /* Old table first, new appended: the new table is the one read (old flags differ). */
        size_t n = build_cache(buf, sizeof buf, CACHE_COMPAT, two, 2);
        put32(buf + 16, 0x0999, host_be);
        struct collected c = {""};
        ck_assert_int_eq(xpu_ldcache_parse_entries(buf, n, collect_cb, &c), 2);
        ck_assert_str_eq(c.text, "libcuda.so.1=/usr/lib/x86_64-linux-gnu/libcuda.so.1/0x303;"
                                 "libcuda.so.1=/usr/lib/i386-linux-gnu/libcuda.so.1/0x3;");
        /* A damaged appended header: the old table is used. */
        buf[16 + 24 + 2] = 'X';
        c = (struct collected){""};
        ck_assert_int_eq(xpu_ldcache_parse_entries(buf, n, collect_cb, &c), 2);
        ck_assert_str_eq(c.text, "libcuda.so.1=/usr/lib/x86_64-linux-gnu/libcuda.so.1/0x999;"
                                 "libcuda.so.1=/usr/lib/i386-linux-gnu/libcuda.so.1/0x3;");
        /* Empty caches are valid. */
        n = build_cache(buf, sizeof buf, CACHE_NEW, NULL, 0);
        ck_assert_int_eq(xpu_ldcache_parse(buf, n, NULL, NULL), 0);
        n = build_cache(buf, sizeof buf, CACHE_OLD, NULL, 0);
        ck_assert_int_eq(xpu_ldcache_parse(buf, n, NULL, NULL), 0);
}
END_TEST

static void count_cb(const char *key, const char *value, void *userdata) {
        (*(int *)userdata)++;
}

START_TEST(test_ldcache_malformed) {
        static unsigned char buf[8192];
        int calls = 0;
        ck_assert_int_eq(xpu_ldcache_parse(NULL, 0, count_cb, &calls), -EINVAL);
        ck_assert_int_eq(xpu_ldcache_parse("", 0, count_cb, &calls), -EINVAL);
        ck_assert_int_eq(xpu_ldcache_parse("ld.so-1.7.0", 11, count_cb, &calls), -EINVAL);
        ck_assert_int_eq(xpu_ldcache_parse("glibc-ld.so.cache1.1", 20, count_cb, &calls), -EINVAL);
        ck_assert_int_eq(xpu_ldcache_parse("not a cache at all, just text......................", 50,
                                           count_cb, &calls), -EINVAL);

        /* Count overflow: 0xffffffff entries (x24 wraps 32 bits) in both formats. */
        size_t n = build_cache(buf, sizeof buf, CACHE_NEW, two, 2);
        put32(buf + 20, 0xffffffffu, host_be);
        ck_assert_int_eq(xpu_ldcache_parse(buf, n, count_cb, &calls), -EINVAL);
        put32(buf + 20, 0x0aaaaaabu, host_be); /* 0x0aaaaaab * 24 = 2^32 + 8 */
        ck_assert_int_eq(xpu_ldcache_parse(buf, n, count_cb, &calls), -EINVAL);
        n = build_cache(buf, sizeof buf, CACHE_OLD, two, 2);
        put32(buf + 12, 0xffffffffu, host_be);
        ck_assert_int_eq(xpu_ldcache_parse(buf, n, count_cb, &calls), -EINVAL);

        /* Key offset far out of range; value offset exactly at the end. */
        n = build_cache(buf, sizeof buf, CACHE_NEW, two, 2);
        put32(buf + 48 + 24 + 4, 0x7fffffffu, host_be);
        ck_assert_int_eq(xpu_ldcache_parse(buf, n, count_cb, &calls), -EINVAL);
        n = build_cache(buf, sizeof buf, CACHE_NEW, two, 2);
        put32(buf + 48 + 8, (uint32_t)n, host_be);
        ck_assert_int_eq(xpu_ldcache_parse(buf, n, count_cb, &calls), -EINVAL);
        n = build_cache(buf, sizeof buf, CACHE_OLD, two, 2);
        put32(buf + 16 + 8, 0xfffffff0u, host_be);
        ck_assert_int_eq(xpu_ldcache_parse(buf, n, count_cb, &calls), -EINVAL);

        /* Unterminated last string: cut the final NUL. */
        n = build_cache(buf, sizeof buf, CACHE_NEW, two, 2);
        ck_assert_int_eq(xpu_ldcache_parse(buf, n - 1, count_cb, &calls), -EINVAL);

        /* Other byte order declared. */
        n = build_cache(buf, sizeof buf, CACHE_NEW, two, 2);
        buf[28] = host_be ? 2 : 3;
        ck_assert_int_eq(xpu_ldcache_parse(buf, n, count_cb, &calls), -EINVAL);

        /* A malformed second entry: the first one is not reported either. */
        ck_assert_int_eq(calls, 0);
        n = build_cache(buf, sizeof buf, CACHE_NEW, two, 2);
        put32(buf + 48 + 24 + 8, 0x10000u, host_be);
        ck_assert_int_eq(xpu_ldcache_parse(buf, n, count_cb, &calls), -EINVAL);
        ck_assert_int_eq(calls, 0);

        /* Every truncation of a valid image of each format parses or fails cleanly. */
        static const enum cache_format fmts[] = {CACHE_NEW, CACHE_OLD, CACHE_COMPAT};
        for (size_t f = 0; f < 3; f++) {
                n = build_cache(buf, sizeof buf, fmts[f], two, 2);
                for (size_t len = 0; len < n; len++) {
                        int r = xpu_ldcache_parse(buf, len, count_cb, &calls);
                        ck_assert_msg(r == -EINVAL || r == 1 || r == 2 || (f == 2 && r >= 0),
                                      "format %zu length %zu: %d", f, len, r);
                }
        }
}
END_TEST

START_TEST(test_ldcache_mutations) {
        /* Deterministic byte flips over the real cache's header and table: never a crash (ASan
         * and valgrind runs check the bounds), always -EINVAL or a count. */
        unsigned char *orig;
        size_t n = read_whole("/etc/ld.so.cache", &orig);
        unsigned char *b = malloc(n);
        ck_assert_ptr_nonnull(b);
        uint32_t seed = 12345;
        for (int iter = 0; iter < 3000; iter++) {
                memcpy(b, orig, n);
                for (int k = 0; k < 4; k++) {
                        seed = seed * 1103515245u + 12345u;
                        size_t at = (seed >> 8) % (n < 4096 ? n : 4096);
                        b[at] = (unsigned char)(seed >> 24);
                }
                int calls = 0, r = xpu_ldcache_parse(b, n, count_cb, &calls);
                ck_assert(r == -EINVAL || (r >= 0 && calls == r));
        }
        free(b);
        free(orig);
}
END_TEST

/* ---- ELF --------------------------------------------------------------------------------- */

START_TEST(test_elf_soname_real) {
        char path[PATH_MAX], name[256];
        real_libc_path(path, sizeof path);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(xpu_elf_soname(fd, name, sizeof name), 0);
        ck_assert_str_eq(name, "libc.so.6");
        ck_assert_int_eq(xpu_elf_soname(fd, name, 9), -ENAMETOOLONG);
        ck_assert_int_eq(xpu_elf_soname(fd, name, 10), 0);
        ck_assert_str_eq(name, "libc.so.6");
        close(fd);
        /* An executable has PT_DYNAMIC but no SONAME. */
        fd = open("/bin/true", O_RDONLY | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(xpu_elf_soname(fd, name, sizeof name), -ENOENT);
        close(fd);
        /* A directory and a FIFO are not ELF files. */
        fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_eq(xpu_elf_soname(fd, name, sizeof name), -EINVAL);
        close(fd);
        /* The first 4 KiB of libc: headers present, PT_DYNAMIC beyond the end. */
        unsigned char *lib;
        size_t len = read_whole(path, &lib);
        ck_assert_uint_gt(len, 4096);
        ck_assert_int_eq(soname_of_bytes(lib, 4096, name, sizeof name), -EINVAL);
        free(lib);
}
END_TEST

START_TEST(test_elf_soname_crafted) {
        unsigned char b[512];
        char name[64];
        /* Each class and byte order. */
        for (int c = 0; c < 4; c++) {
                bool is64 = c & 1, be = c & 2;
                size_t n = build_elf(b, sizeof b, is64, be, 2, "libfoo.so.2");
                ck_assert_int_eq(soname_of_bytes(b, n, name, sizeof name), 0);
                ck_assert_str_eq(name, "libfoo.so.2");
                /* Every truncation fails cleanly. */
                for (size_t len = 0; len < n; len++)
                        ck_assert_int_eq(soname_of_bytes(b, len, name, sizeof name), -EINVAL);
        }
        size_t n = build_elf(b, sizeof b, true, false, 62, "libfoo.so.2");
        /* Garbage and bad identification bytes. */
        ck_assert_int_eq(soname_of_bytes("", 0, name, sizeof name), -EINVAL);
        ck_assert_int_eq(soname_of_bytes("\177ELF", 4, name, sizeof name), -EINVAL);
        ck_assert_int_eq(soname_of_bytes("hello world, not an ELF file at all.....", 40, name, sizeof name),
                         -EINVAL);
        b[4] = 3; /* no such class */
        ck_assert_int_eq(soname_of_bytes(b, n, name, sizeof name), -EINVAL);
        /* Absurd program-header count, too-small entry size, offset past the end. */
        n = build_elf(b, sizeof b, true, false, 62, "libfoo.so.2");
        put16(b + 56, 0xffff, false);
        ck_assert_int_eq(soname_of_bytes(b, n, name, sizeof name), -EINVAL);
        n = build_elf(b, sizeof b, true, false, 62, "libfoo.so.2");
        put16(b + 54, 8, false);
        ck_assert_int_eq(soname_of_bytes(b, n, name, sizeof name), -EINVAL);
        n = build_elf(b, sizeof b, true, false, 62, "libfoo.so.2");
        putword(b + 32, UINT64_MAX - 8, true, false);
        ck_assert_int_eq(soname_of_bytes(b, n, name, sizeof name), -EINVAL);
        /* DT_SONAME outside DT_STRSZ; DT_STRTAB outside every PT_LOAD. */
        size_t dyn = 64 + 2 * 56;
        n = build_elf(b, sizeof b, true, false, 62, "libfoo.so.2");
        putword(b + dyn + 2 * 16 + 8, 200, true, false);
        ck_assert_int_eq(soname_of_bytes(b, n, name, sizeof name), -EINVAL);
        n = build_elf(b, sizeof b, true, false, 62, "libfoo.so.2");
        putword(b + dyn + 8, 0x900000, true, false);
        ck_assert_int_eq(soname_of_bytes(b, n, name, sizeof name), -EINVAL);
        /* Unterminated name at the end of the file (DT_STRSZ claims more). */
        n = build_elf(b, sizeof b, true, false, 62, "libfoo.so.2");
        putword(b + dyn + 16 + 8, 1000, true, false);
        ck_assert_int_eq(soname_of_bytes(b, n - 1, name, sizeof name), -EINVAL);
        /* No DT_SONAME: turn the tag into DT_NEEDED. */
        n = build_elf(b, sizeof b, true, false, 62, "libfoo.so.2");
        putword(b + dyn + 2 * 16, 1, true, false);
        ck_assert_int_eq(soname_of_bytes(b, n, name, sizeof name), -ENOENT);
}
END_TEST

static Suite *libs_parse_suite(void) {
        Suite *s = suite_create("libs-parse");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 30);
        tcase_add_test(tc, test_ldcache_real);
        tcase_add_test(tc, test_ldcache_formats);
        tcase_add_test(tc, test_ldcache_malformed);
        tcase_add_test(tc, test_ldcache_mutations);
        tcase_add_test(tc, test_elf_soname_real);
        tcase_add_test(tc, test_elf_soname_crafted);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(libs_parse_suite());
}
