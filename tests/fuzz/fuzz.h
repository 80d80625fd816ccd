/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the fuzz targets (tests/fuzz/fuzz-*.c) and their replay driver (replay.c).
 *
 * Each target defines LLVMFuzzerTestOneInput(): libFuzzer calls it with arbitrary bytes under
 * `make fuzz` (clang, -fsanitize=fuzzer,address,undefined); replay.c calls it with every file of
 * the target's corpus in `make check` (gcc, no libFuzzer). A target returns 0 and never writes a
 * file: inputs that must be a file descriptor go through a memfd. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* libFuzzer's entry point: DATA is SIZE bytes (not NUL-terminated, may hold NULs). Returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A malloc'ed copy of DATA (SIZE bytes) with a NUL appended, for parsers that take C strings (a
 * parser then sees the bytes up to the first NUL). Returns NULL when out of memory. */
static inline char *fuzz_strndup(const uint8_t *data, size_t size) {
        char *s = malloc(size + 1);
        if (!s)
                return NULL;
        if (size > 0)
                memcpy(s, data, size);
        s[size] = '\0';
        return s;
}

/* A malloc'ed copy of exactly SIZE bytes of DATA (one zero byte for SIZE 0), for binary parsers:
 * a read one byte past the input then lands outside the allocation, where ASan sees it. Returns
 * NULL when out of memory. */
static inline uint8_t *fuzz_memdup(const uint8_t *data, size_t size) {
        uint8_t *b = calloc(size ? size : 1, 1);
        if (b && size > 0)
                memcpy(b, data, size);
        return b;
}

/* Refill the memfd *FD (created on first use, then kept for the whole run) with exactly SIZE bytes
 * of DATA, for readers that take a file descriptor. Returns the fd, or -1 when that fails (the
 * input is then skipped). */
static inline int fuzz_memfd_fill(int *fd, const uint8_t *data, size_t size) {
        if (*fd < 0)
                *fd = memfd_create("fuzz-input", MFD_CLOEXEC);
        if (*fd < 0 || ftruncate(*fd, 0) < 0)
                return -1;
        for (size_t done = 0; done < size;) {
                ssize_t n = pwrite(*fd, data + done, size - done, (off_t)done);
                if (n <= 0)
                        return -1;
                done += (size_t)n;
        }
        return *fd;
}
