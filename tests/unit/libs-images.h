/* SPDX-License-Identifier: Apache-2.0 */
/* Builders of ld.so.cache and ELF images and small file helpers for the probes/libs tests
 * (test-libs.c, test-libs-parse.c). Header-only: all static, some unused in one of them. */
#pragma once

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libs.h"
#include "testlib.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"

static void put32(unsigned char *p, uint32_t v, bool be) {
        for (int i = 0; i < 4; i++)
                p[be ? 3 - i : i] = (unsigned char)(v >> (8 * i));
}
static void put16(unsigned char *p, uint16_t v, bool be) {
        p[be ? 1 : 0] = (unsigned char)v;
        p[be ? 0 : 1] = (unsigned char)(v >> 8);
}
static void putword(unsigned char *p, uint64_t v, bool is64, bool be) {
        if (!is64) {
                put32(p, (uint32_t)v, be);
                return;
        }
        for (int i = 0; i < 8; i++)
                p[be ? 7 - i : i] = (unsigned char)(v >> (8 * i));
}

static const bool host_be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

struct entry {
        int32_t flags;
        const char *key, *value;
};

enum cache_format { CACHE_NEW, CACHE_OLD, CACHE_COMPAT /* old, then new appended */ };

/* Build an ld.so.cache image with glibc's layout (see libs.h); returns its size. */
static size_t build_cache(unsigned char *buf, size_t cap, enum cache_format fmt, const struct entry *e, size_t n) {
        memset(buf, 0, cap);
        size_t off = 0, old_strings = 0;
        if (fmt != CACHE_NEW) {
                memcpy(buf, "ld.so-1.7.0", 11);
                put32(buf + 12, (uint32_t)n, host_be);
                off = 16 + n * 12;
                old_strings = off;
                off = fmt == CACHE_COMPAT ? (off + 7) & ~(size_t)7 : off;
        }
        size_t base = off;
        size_t strings = fmt == CACHE_OLD ? off : base + 48 + n * 24;
        ck_assert_uint_lt(strings + 4096, cap);
        if (fmt != CACHE_OLD) {
                memcpy(buf + base, "glibc-ld.so.cache1.1", 20);
                put32(buf + base + 20, (uint32_t)n, host_be);
                buf[base + 28] = host_be ? 3 : 2;
        }
        size_t s = strings;
        for (size_t i = 0; i < n; i++) {
                size_t k = s, v = k + strlen(e[i].key) + 1;
                memcpy(buf + k, e[i].key, strlen(e[i].key) + 1);
                memcpy(buf + v, e[i].value, strlen(e[i].value) + 1);
                s = v + strlen(e[i].value) + 1;
                if (fmt != CACHE_NEW) {
                        unsigned char *p = buf + 16 + i * 12;
                        put32(p, (uint32_t)e[i].flags, host_be);
                        put32(p + 4, (uint32_t)(k - old_strings), host_be);
                        put32(p + 8, (uint32_t)(v - old_strings), host_be);
                }
                if (fmt != CACHE_OLD) {
                        unsigned char *p = buf + base + 48 + i * 24;
                        put32(p, (uint32_t)e[i].flags, host_be);
                        put32(p + 4, (uint32_t)(k - base), host_be);
                        put32(p + 8, (uint32_t)(v - base), host_be);
                }
        }
        if (fmt != CACHE_OLD)
                put32(buf + base + 24, (uint32_t)(s - strings), host_be);
        return s;
}

static void write_bytes(const char *root, const char *rel, const void *data, size_t len, mode_t mode) {
        char path[PATH_MAX];
        xpu_test_write(root, rel, "");
        snprintf(path, sizeof path, "%s/%s", root, rel);
        int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
        ck_assert_int_eq(fchmod(fd, mode), 0);
        close(fd);
}

static size_t build_elf(unsigned char *b, size_t cap, bool is64, bool be, uint16_t machine, const char *soname) {
        size_t eh = is64 ? 64 : 52, ph = is64 ? 56 : 32, dyn = is64 ? 16 : 8;
        size_t dyn_off = eh + 2 * ph, str_off = dyn_off + 4 * dyn, strsz = strlen(soname) + 2;
        size_t total = str_off + strsz;
        const uint64_t bias = 0x1000;
        ck_assert_uint_le(total, cap);
        memset(b, 0, cap);
        memcpy(b, "\177ELF", 4);
        b[4] = is64 ? 2 : 1;
        b[5] = be ? 2 : 1;
        b[6] = 1;
        put16(b + 16, 3 /* ET_DYN */, be);
        put16(b + 18, machine, be);
        put32(b + 20, 1, be);
        putword(b + (is64 ? 32 : 28), eh, is64, be); /* e_phoff */
        put16(b + (is64 ? 52 : 40), (uint16_t)eh, be);
        put16(b + (is64 ? 54 : 42), (uint16_t)ph, be);
        put16(b + (is64 ? 56 : 44), 2, be);
        for (int i = 0; i < 2; i++) {
                unsigned char *p = b + eh + (size_t)i * ph;
                uint64_t off = i == 0 ? 0 : dyn_off, size = i == 0 ? total : 4 * dyn;
                put32(p, i == 0 ? 1 /* PT_LOAD */ : 2 /* PT_DYNAMIC */, be);
                putword(p + (is64 ? 8 : 4), off, is64, be);
                putword(p + (is64 ? 16 : 8), off + bias, is64, be);
                putword(p + (is64 ? 24 : 12), off + bias, is64, be);
                putword(p + (is64 ? 32 : 16), size, is64, be);
                putword(p + (is64 ? 40 : 20), size, is64, be);
                if (is64)
                        put32(p + 4, 4 /* PF_R */, be);
                else
                        put32(p + 24, 4, be);
        }
        const uint64_t tags[4][2] = {{5, str_off + bias}, {10, strsz}, {14, 1}, {0, 0}};
        for (int i = 0; i < 4; i++) {
                putword(b + dyn_off + (size_t)i * dyn, tags[i][0], is64, be);
                putword(b + dyn_off + (size_t)i * dyn + dyn / 2, tags[i][1], is64, be);
        }
        memcpy(b + str_off + 1, soname, strlen(soname) + 1);
        return total;
}

#if defined(__x86_64__)
#define NATIVE_MACHINE 62 /* EM_X86_64 */
#elif defined(__aarch64__)
#define NATIVE_MACHINE 183
#elif defined(__powerpc64__)
#define NATIVE_MACHINE 21
#else
#define NATIVE_MACHINE 3
#endif
#define NATIVE_64 (sizeof(void *) == 8)

static void write_elf(const char *root, const char *rel, const char *soname) {
        unsigned char b[512];
        size_t n = build_elf(b, sizeof b, NATIVE_64, host_be, NATIVE_MACHINE, soname);
        write_bytes(root, rel, b, n, 0755);
}

/* xpu_elf_soname() of LEN bytes held in a memfd (a regular file, no temporary directory). */
struct seen {
        char key[256], value[PATH_MAX];
        const char *want;
        int count;
};

static void find_key_cb(const char *key, const char *value, void *userdata) {
        struct seen *s = userdata;
        s->count++;
        if (strcmp(key, s->want) == 0 && !s->key[0]) {
                snprintf(s->key, sizeof s->key, "%s", key);
                snprintf(s->value, sizeof s->value, "%s", value);
        }
}

static size_t read_whole(const char *path, unsigned char **ret) {
        FILE *f = fopen(path, "re");
        ck_assert_msg(f != NULL, "open %s", path);
        unsigned char *b = malloc(1 << 24);
        ck_assert_ptr_nonnull(b);
        size_t n = fread(b, 1, 1 << 24, f);
        fclose(f);
        *ret = b;
        return n;
}

static const char *real_libc_path(char *buf, size_t size) {
        unsigned char *cache;
        size_t n = read_whole("/etc/ld.so.cache", &cache);
        struct seen s = {.want = "libc.so.6"};
        ck_assert_int_gt(xpu_ldcache_parse(cache, n, find_key_cb, &s), 0);
        free(cache);
        ck_assert_str_eq(s.key, "libc.so.6");
        snprintf(buf, size, "%s", s.value);
        return buf;
}

#pragma GCC diagnostic pop
