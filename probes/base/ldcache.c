/* SPDX-License-Identifier: Apache-2.0 */
/* A driver root's ld.so.cache and the standard library directories (see ldcache.h). The parser
 * is a fuzz target (tests/fuzz/fuzz-ldcache.c): every offset read from the image is checked
 * before use. Silent. */
#include "base/ldcache.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"
#include "base/root-file.h"
#include "base/macro.h"

const char *const xpu_library_dirs[] = {
        "/usr/lib64",                              /* Fedora, RHEL, SUSE */
        "/usr/lib/" XPU_TRIPLET,                   /* Debian, Ubuntu */
        "/usr/lib/" XPU_TRIPLET "/nvidia/current", /* Debian's nvidia-driver packages */
        "/lib64",                                  /* unmerged /usr */
        "/lib/" XPU_TRIPLET,                       /* unmerged /usr, Debian */
        "/usr/lib",                                /* Arch */
        NULL,
};

int32_t xpu_ldcache_native_flags(void) {
        return XPU_LDCACHE_FLAGS;
}

int xpu_ldcache_read(int root_fd, size_t max, unsigned char **ret, size_t *ret_size) {
        struct stat st;
        _cleanup_close_ int fd = xpu_open_file_in_root(root_fd, "/etc/ld.so.cache", &st);
        if (fd < 0)
                return fd;
        if (st.st_size <= 0 || (uint64_t)st.st_size > max)
                return -EFBIG;
        _cleanup_free_ unsigned char *b = malloc((size_t)st.st_size);
        if (!b)
                return -ENOMEM;
        ssize_t len = xpu_read_full(fd, b, (size_t)st.st_size);
        if (len < 0)
                return (int)len;
        *ret = TAKE_PTR(b);
        *ret_size = (size_t)len;
        return 0;
}

/* ---- the image ----------------------------------------------------------------------------- */

/* A 32-bit number of the image in its byte order BE. */
static uint32_t rd32(const unsigned char *p, bool be) {
        return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static const bool host_be = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

/* ---- the parser ---------------------------------------------------------------------------- */

#define LDCACHE_OLD_MAGIC  "ld.so-1.7.0"
#define LDCACHE_OLD_HEADER 16 /* char magic[11], pad, uint32 nlibs */
#define LDCACHE_OLD_ENTRY  12 /* int32 flags, uint32 key, uint32 value */
#define LDCACHE_NEW_MAGIC  "glibc-ld.so.cache1.1"
#define LDCACHE_NEW_HEADER 48 /* magic+version[20], nlibs, len_strings, u8 flags, pad[3], ext, unused[3] */
#define LDCACHE_NEW_ENTRY  24 /* flags, key, value, uint32 osversion, uint64 hwcap */
#define LDCACHE_NEW_ENDIAN 28 /* offset of the endianness byte: 0 unset, 2 little, 3 big */

struct ldcache_table {
        size_t entries; /* offset of the first entry */
        size_t n;
        size_t entry_size;
        size_t strings; /* string offsets are relative to this */
};

static bool ldcache_new_at(const unsigned char *b, size_t size, size_t off) {
        if (off > size || size - off < LDCACHE_NEW_HEADER)
                return false;
        if (memcmp(b + off, LDCACHE_NEW_MAGIC, strlen(LDCACHE_NEW_MAGIC)) != 0)
                return false;
        uint8_t endian = b[off + LDCACHE_NEW_ENDIAN];
        return endian == 0 || endian == (host_be ? 3 : 2);
}

static int ldcache_table(const unsigned char *b, size_t size, struct ldcache_table *ret) {
        size_t base = 0;
        if (size >= LDCACHE_OLD_HEADER && memcmp(b, LDCACHE_OLD_MAGIC, strlen(LDCACHE_OLD_MAGIC)) == 0) {
                uint32_t n = rd32(b + 12, host_be);
                if (n > (size - LDCACHE_OLD_HEADER) / LDCACHE_OLD_ENTRY)
                        return -EINVAL;
                size_t end = LDCACHE_OLD_HEADER + (size_t)n * LDCACHE_OLD_ENTRY;
                size_t next = (end + 7) & ~(size_t)7;
                if (!ldcache_new_at(b, size, next)) {
                        *ret = (struct ldcache_table){LDCACHE_OLD_HEADER, n, LDCACHE_OLD_ENTRY, end};
                        return 0;
                }
                base = next;
        } else if (!ldcache_new_at(b, size, 0))
                return -EINVAL;
        uint32_t n = rd32(b + base + 20, host_be);
        if (n > (size - base - LDCACHE_NEW_HEADER) / LDCACHE_NEW_ENTRY)
                return -EINVAL;
        *ret = (struct ldcache_table){base + LDCACHE_NEW_HEADER, n, LDCACHE_NEW_ENTRY, base};
        return 0;
}

/* The NUL-terminated string at STRINGS + OFF, or NULL when it leaves the buffer. */
static const char *ldcache_string(const unsigned char *b, size_t size, size_t strings, uint32_t off) {
        if (strings > size || off >= size - strings)
                return NULL;
        const unsigned char *s = b + strings + off;
        return memchr(s, '\0', size - strings - off) ? (const char *)s : NULL;
}

static int ldcache_entry(const unsigned char *b, size_t size, const struct ldcache_table *t, size_t i,
                         struct xpu_ldcache_entry *e) {
        const unsigned char *p = b + t->entries + i * t->entry_size;
        e->flags = (int32_t)rd32(p, host_be);
        e->key = ldcache_string(b, size, t->strings, rd32(p + 4, host_be));
        e->value = ldcache_string(b, size, t->strings, rd32(p + 8, host_be));
        return e->key && e->value ? 0 : -EINVAL;
}

int xpu_ldcache_parse_entries(const void *buf, size_t size,
                              void (*cb)(const struct xpu_ldcache_entry *e, void *userdata),
                              void *userdata) {
        const unsigned char *b = buf;
        struct ldcache_table t;
        struct xpu_ldcache_entry e;
        if (!b || size > INT32_MAX)
                return -EINVAL;
        int r = ldcache_table(b, size, &t);
        if (r < 0)
                return r;
        /* Validate everything first, so a malformed cache gives no partial result. */
        for (size_t i = 0; i < t.n; i++)
                if (ldcache_entry(b, size, &t, i, &e) < 0)
                        return -EINVAL;
        for (size_t i = 0; cb && i < t.n; i++) {
                (void)ldcache_entry(b, size, &t, i, &e);
                cb(&e, userdata);
        }
        return (int)t.n;
}

struct ldcache_plain {
        void (*cb)(const char *key, const char *value, void *userdata);
        void *userdata;
};

static void ldcache_plain_cb(const struct xpu_ldcache_entry *e, void *userdata) {
        struct ldcache_plain *p = userdata;
        p->cb(e->key, e->value, p->userdata);
}

int xpu_ldcache_parse(const void *buf, size_t size,
                      void (*cb)(const char *key, const char *value, void *userdata), void *userdata) {
        struct ldcache_plain p = {cb, userdata};
        return xpu_ldcache_parse_entries(buf, size, cb ? ldcache_plain_cb : NULL, &p);
}
