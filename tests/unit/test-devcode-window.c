/* SPDX-License-Identifier: Apache-2.0 */
/* probes/devcode/window.c and xpu_fatbin_scan_fd(): the window's bytes and searches against the
 * file's in both of its modes, and a scan through a file against the same scan in memory, on
 * containers placed across the window's edges and on overlapping ones. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "devcode/fatbin.h"
#include "devcode/window.h"
#include "testlib.h"

static const uint8_t magic[4] = { 0x50, 0xed, 0x55, 0xba };

static uint32_t rnd_state = 12345;
static uint32_t rnd(void) {
        rnd_state = rnd_state * 1103515245u + 12345u;
        return rnd_state >> 8;
}

static const uint8_t *naive_find4(const uint8_t *b, size_t len, const uint8_t n[4]) {
        for (size_t i = 0; i + 4 <= len; i++)
                if (memcmp(b + i, n, 4) == 0)
                        return b + i;
        return NULL;
}

/* A file of LEN bytes of DATA: a memfd, or when PLAIN an unlinked file in /tmp. */
static int data_file(const uint8_t *data, size_t len, bool plain) {
        if (!plain)
                return xpu_test_memfd(data, len);
        char path[] = "/tmp/xpu-test-window-XXXXXX";
        int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(xpu_write_full(fd, data, len), 0);
        ck_assert_int_eq(fsync(fd), 0);
        return fd;
}

START_TEST(test_window_bytes) {
        size_t len = 3 * XPU_WINDOW_MAX + 12345, base = 4099;
        _cleanup_free_ uint8_t *d = malloc(base + len);
        ck_assert_ptr_nonnull(d);
        for (size_t i = 0; i < base + len; i++)
                d[i] = (uint8_t)rnd();
        /* Needles across page boundaries of the file, where windows end, and at the range's ends. */
        for (size_t p = (4096 - base % 4096) % 4096 + 4096; p + 4 <= len; p += 5 * 4096)
                memcpy(d + base + p - 1 - (p / 4096) % 3, magic, 4);
        memcpy(d + base, magic, 4);
        memcpy(d + base + len - 4, magic, 4);
        for (int plain = 0; plain < 2; plain++) {
                int fd = data_file(d, base + len, plain);
                for (int cached = 0; cached < 2; cached++) {
                        struct xpu_window w;
                        ck_assert_int_eq(xpu_window_open(&w, fd, base, len), 0);
                        w.cached = cached; /* both modes, whatever the page cache holds */
                        for (int i = 0; i < 2000; i++) {
                                size_t off = rnd() % len, n = rnd() % 3 == 0 ? rnd() % (64u << 10) : rnd() % 100;
                                if (i % 50 < 10) /* runs that follow each other */
                                        off = (i * 7919u) % len;
                                if (n > len - off)
                                        n = len - off;
                                const uint8_t *p;
                                ck_assert_int_eq(xpu_window_get(&w, off, n, &p), 0);
                                ck_assert(n == 0 || memcmp(p, d + base + off, n) == 0);
                                if (off + 4 > len)
                                        continue;
                                size_t at;
                                const uint8_t *want = naive_find4(d + base + off, len - off, magic);
                                int r = xpu_window_find4(&w, off, magic, &at);
                                ck_assert_int_eq(r, want != NULL);
                                if (want)
                                        ck_assert_uint_eq(at, (size_t)(want - d - base));
                        }
                        xpu_window_close(&w);
                }
                close(fd);
        }
}
END_TEST

/* Every container and entry a scan reports, as text. */
static int record(const struct xpu_fatbin_container *c, void *userdata) {
        FILE *f = userdata;
        fprintf(f, "container %llu size %llu malformed %d (%s) entries %zu\n", (unsigned long long)c->offset,
                (unsigned long long)c->size, c->malformed, c->reason ? c->reason : "", c->n_entries);
        for (size_t i = 0; i < c->n_entries; i++) {
                const struct xpu_fatbin_entry *e = &c->entries[i];
                fprintf(f, "  %u %u %d %u.%u %d %d %d %llu %llu\n", e->kind, e->sm, e->variant, e->ptx_major,
                        e->ptx_minor, e->compression, e->has_kernels, e->kernels_known,
                        (unsigned long long)e->payload_offset, (unsigned long long)e->payload_size);
        }
        return 0;
}

/* What xpu_fatbin_scan() (FD < 0) or xpu_fatbin_scan_fd() reports, as text; *RET its result. */
static char *scan_text(const uint8_t *b, size_t len, int fd, uint64_t offset, int *ret) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        ck_assert_ptr_nonnull(f);
        *ret = fd < 0 ? xpu_fatbin_scan(b, len, record, f) : xpu_fatbin_scan_fd(fd, offset, len, record, NULL, f);
        fprintf(f, "result %d\n", *ret);
        fclose(f);
        return text;
}

/* A container at B of N entries of KIND with PAYLOAD bytes each. Returns its size. */
static size_t put_container(uint8_t *b, unsigned n, unsigned kind, uint32_t payload) {
        size_t at = 16;
        for (unsigned i = 0; i < n; i++) {
                uint8_t *e = b + at;
                memset(e, 0, 64);
                e[0] = (uint8_t)kind;
                e[4] = 64;
                memcpy(e + 8, &payload, 4);
                e[0x1c] = (uint8_t)(70 + i);
                at += 64 + payload;
        }
        uint64_t fat = at - 16;
        memcpy(b, magic, 4);
        memcpy(b + 4, "\x01\x00\x10\x00", 4);
        memcpy(b + 8, &fat, 8);
        return at;
}

START_TEST(test_scan_fd_same_as_memory) {
        size_t fx_len[3];
        _cleanup_free_ uint8_t *fx0 = xpu_test_read_fixture("devcode/nvidia/mixed.fatbin", &fx_len[0]);
        _cleanup_free_ uint8_t *fx1 = xpu_test_read_fixture("devcode/nvidia/stored.fatbin", &fx_len[1]);
        _cleanup_free_ uint8_t *fx2 = xpu_test_read_fixture("devcode/nvidia/nv_fatbin.bin", &fx_len[2]);
        const uint8_t *fx[3] = { fx0, fx1, fx2 };
        size_t len = 6 * XPU_WINDOW_MAX + 333, base = 1000;
        _cleanup_free_ uint8_t *d = malloc(base + len);
        ck_assert_ptr_nonnull(d);
        for (size_t i = 0; i < base + len; i++)
                d[i] = (uint8_t)rnd();
        uint8_t *s = d + base;
        /* Real containers at the window's edges and at odd offsets. */
        size_t at[] = { 0, XPU_WINDOW_MAX - 40, XPU_WINDOW_MAX + 5001, 2 * XPU_WINDOW_MAX - 17, 2 * XPU_WINDOW_MAX + 20001 };
        for (size_t i = 0; i < ELEMENTSOF(at); i++)
                memcpy(s + at[i], fx[i % 3], fx_len[i % 3]);
        /* A container larger than the window, its headers far apart. */
        size_t big = 3 * XPU_WINDOW_MAX;
        big += put_container(s + big, 5, XPU_FATBIN_PTX, 70000);
        /* Small containers back to back, SASS of stub size among them. */
        for (unsigned i = 0; i < 60; i++)
                big += put_container(s + big, 1 + i % 3, i % 2 ? XPU_FATBIN_SASS : XPU_FATBIN_PTX, 100 + 37 * i);
        ck_assert_uint_lt(big, 5 * XPU_WINDOW_MAX);
        /* Data that only looks like a container, and one cut off by the end. */
        memcpy(s + 5 * XPU_WINDOW_MAX, "\x50\xed\x55\xba\x02\x00\x10\x00", 8);
        size_t cut = len - 3000;
        memcpy(s + cut, fx0, 3000);
        memcpy(s + len - 10, magic, 4);

        int want_r;
        _cleanup_free_ char *want = scan_text(s, len, -1, 0, &want_r);
        ck_assert_int_ge(want_r, 60);
        for (int plain = 0; plain < 3; plain++) {
                int fd = data_file(d, base + len, plain > 0);
                if (plain == 2) /* not in the page cache, where the file system can drop it */
                        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
                int r;
                _cleanup_free_ char *got = scan_text(NULL, len, fd, base, &r);
                ck_assert_str_eq(got, want);
                ck_assert_int_eq(r, want_r);
                close(fd);
        }
}
END_TEST

START_TEST(test_scan_fd_overlapping_containers) {
        /* A chain of entries, each behind the header of a container cut off by the end: every
         * container walks the rest of the chain again (up to 4096 entries), as a crafted file can
         * make the scan do; from a file the entries already read are not read again. */
        size_t cubin_len, stub_len;
        _cleanup_free_ uint8_t *cubin = xpu_test_read_fixture("devcode/nvidia/kernel.cubin", &cubin_len);
        _cleanup_free_ uint8_t *stub = xpu_test_read_fixture("devcode/nvidia/nv_fatbin.bin", &stub_len);
        stub_len = 1528 - 16 - 64; /* the first container's only entry: the device-link stub */
        size_t step = cubin_len + 100, n = 500, len = n * step + 4096;
        _cleanup_free_ uint8_t *d = calloc(1, len);
        ck_assert_ptr_nonnull(d);
        for (size_t i = 0; i < n; i++) {
                uint8_t *c = d + 100 + i * step, *e = c + 16;
                uint64_t fat = UINT64_C(1) << 40;
                uint32_t header = 64, padded = (uint32_t)step - 64;
                memcpy(c, magic, 4);
                memcpy(c + 4, "\x01\x00\x10\x00", 4);
                memcpy(c + 8, &fat, 8);
                e[0] = i % 3 ? XPU_FATBIN_PTX : XPU_FATBIN_SASS; /* SASS: a stub check each */
                memcpy(e + 4, &header, 4);
                memcpy(e + 8, &padded, 4);
                e[0x1c] = (uint8_t)(50 + i % 70);
                if (i % 3 == 0) /* a cubin with kernels, or a stub without */
                        memcpy(e + 64, i % 2 ? cubin : stub + 16 + 64, i % 2 ? cubin_len : stub_len);
        }
        int want_r;
        _cleanup_free_ char *want = scan_text(d, len, -1, 0, &want_r);
        ck_assert_int_eq(want_r, (int)n);
        for (int plain = 0; plain < 2; plain++) {
                int fd = data_file(d, len, plain), r;
                _cleanup_free_ char *got = scan_text(NULL, len, fd, 0, &r);
                ck_assert_str_eq(got, want);
                close(fd);
        }
}
END_TEST

static int ignore(const struct xpu_fatbin_container *c, void *userdata) {
        return 0;
}

static int shrink(const struct xpu_fatbin_container *c, void *userdata) {
        int fd = *(int *)userdata;
        ck_assert_int_eq(ftruncate(fd, 1000), 0);
        return 0;
}

START_TEST(test_scan_fd_file_shrank) {
        size_t len = 4 * XPU_WINDOW_MAX;
        _cleanup_free_ uint8_t *d = calloc(1, len);
        ck_assert_ptr_nonnull(d);
        put_container(d, 1, XPU_FATBIN_PTX, 100);
        put_container(d + len - 4096, 1, XPU_FATBIN_PTX, 100);
        int fd = xpu_test_memfd(d, len);
        /* Shorter than the range from the start, and made shorter while it is read. */
        ck_assert_int_eq(xpu_fatbin_scan_fd(fd, 0, len + 4096, ignore, NULL, NULL), -ENODATA);
        ck_assert_int_eq(xpu_fatbin_scan_fd(fd, 0, len, shrink, NULL, &fd), -ENODATA);
        close(fd);
        ck_assert_int_eq(xpu_fatbin_scan_fd(-1, 0, len, ignore, NULL, NULL), -EBADF);
}
END_TEST

static Suite *window_suite(void) {
        Suite *s = suite_create("devcode-window");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_window_bytes);
        tcase_add_test(tc, test_scan_fd_same_as_memory);
        tcase_add_test(tc, test_scan_fd_overlapping_containers);
        tcase_add_test(tc, test_scan_fd_file_shrank);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(window_suite());
}
