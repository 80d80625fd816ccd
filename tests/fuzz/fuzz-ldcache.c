/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the binary readers of base/ldcache.h and libs.h on one image: xpu_ldcache_parse() and
 * xpu_ldcache_parse_entries() (a driver root's /etc/ld.so.cache, both formats) with the image in
 * memory, and xpu_elf_soname() (DT_SONAME of a driver library) on a memfd holding the same bytes.
 * The callbacks read every key and value they get, so a string that is not terminated inside the
 * image shows up under ASan. Nothing is written to the file system: the memfd is anonymous.
 * Corpus: tests/fuzz/corpus/ldcache/ (real and crafted caches, small ELF libraries). */
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "libs.h"

static void touch_cb(const char *key, const char *value, void *userdata) {
        size_t *total = userdata;
        *total += strlen(key) + strlen(value);
}

static void touch_entry_cb(const struct xpu_ldcache_entry *e, void *userdata) {
        size_t *total = userdata;
        *total += strlen(e->key) + strlen(e->value) + (size_t)(e->flags & 0xff);
}

/* One memfd for the whole run, truncated and refilled per input. */
static int elf_fd = -1;

static void soname_of(const uint8_t *data, size_t size) {
        if (fuzz_memfd_fill(&elf_fd, data, size) < 0)
                return;
        char soname[256], tiny[4];
        (void)xpu_elf_soname(elf_fd, soname, sizeof soname);
        (void)xpu_elf_soname(elf_fd, tiny, sizeof tiny);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        uint8_t *image = fuzz_memdup(data, size);
        if (!image)
                return 0;

        size_t total = 0;
        (void)xpu_ldcache_parse(image, size, touch_cb, &total);
        (void)xpu_ldcache_parse_entries(image, size, touch_entry_cb, &total);
        (void)xpu_ldcache_parse(image, size, NULL, NULL);
        free(image);

        soname_of(data, size);
        return 0;
}
