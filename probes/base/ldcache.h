/* SPDX-License-Identifier: Apache-2.0 */
/* A driver root's /etc/ld.so.cache (both formats) and the standard library directories of the
 * build architecture: where a library of a driver root is looked for, by the loader of vendor
 * libraries (dl.h) and the driver-file finder (probes/libs.h). Facts: glibc elf/dl-cache.h (the
 * cache layout), sysdeps/generic/ldconfig.h (the flags), Debian's multiarch triplets. Silent:
 * returns -errno. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The build architecture: Debian multiarch triplet and the ld.so.cache flags of its libraries
 * (FLAG_ELF_LIBC6 = 0x03 | the FLAG_<ARCH>_LIB64 byte from glibc's ldconfig.h). */
#if defined(__x86_64__) && !defined(__ILP32__)
#define XPU_TRIPLET       "x86_64-linux-gnu"
#define XPU_LDCACHE_FLAGS 0x0303
#elif defined(__aarch64__)
#define XPU_TRIPLET       "aarch64-linux-gnu"
#define XPU_LDCACHE_FLAGS 0x0a03
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define XPU_TRIPLET       "powerpc64le-linux-gnu"
#define XPU_LDCACHE_FLAGS 0x0503
#elif defined(__i386__)
#define XPU_TRIPLET       "i386-linux-gnu"
#define XPU_LDCACHE_FLAGS 0x0003
#else
#error "unknown architecture: add its multiarch triplet and ld.so.cache flags here"
#endif

/* Library directories searched in the driver root when its ld.so.cache does not list a name
 * (NULL-terminated): /usr/lib64, /usr/lib/<triplet>, /usr/lib/<triplet>/nvidia/current, /lib64,
 * /lib/<triplet>, /usr/lib. */
extern const char *const xpu_library_dirs[];

/* Read ROOT_FD's /etc/ld.so.cache (resolved inside the root): a regular file of at most MAX
 * bytes. *RET is malloc'ed. Returns 0, -ENOENT, -EISDIR, -EINVAL (a FIFO, device or socket),
 * -EFBIG, -errno. */
int xpu_ldcache_read(int root_fd, size_t max, unsigned char **ret, size_t *ret_size);

/* Parse an ld.so.cache image (old "ld.so-1.7.0" and new "glibc-ld.so.cache1.1" formats) and call
 * CB(key, value, userdata) for every entry (key = soname, value = path). Returns the number of
 * entries or -EINVAL for a malformed cache. Never reads outside BUF.
 *
 * Layout (glibc elf/dl-cache.h): the old format is a 16-byte header (11-byte magic, padding,
 * uint32 count) and 12-byte entries (int32 flags, uint32 key, uint32 value) with string offsets
 * relative to the end of the entry table; glibc 2.32+ writes only the new format, older ldconfig
 * may append it after the old table (at the next 8-byte boundary). The new format is a 48-byte
 * header (20-byte magic+version, uint32 count, uint32 string length, uint8 endianness ...) and
 * 24-byte entries (int32 flags, uint32 key, uint32 value, uint32 osversion, uint64 hwcap) with
 * string offsets relative to the new header. When both are present the new table is used. The
 * whole image is validated before the first callback: a malformed cache calls CB never.
 * Numbers are in the host's byte order (a cache of the other order is -EINVAL). */
int xpu_ldcache_parse(const void *buf, size_t size,
                      void (*cb)(const char *key, const char *value, void *userdata), void *userdata);

/* One ld.so.cache entry. FLAGS: glibc's ldconfig flags, the type in the low byte (0x03 = ELF
 * libc6) and the architecture in the next (0x0300 x86-64, 0x0a00 aarch64, 0x0500 ppc64, 0 for
 * 32-bit x86). */
struct xpu_ldcache_entry {
        const char *key;   /* soname: "libcuda.so.1" */
        const char *value; /* path as the cache lists it: "/usr/lib/x86_64-linux-gnu/libcuda.so.1" */
        int32_t flags;
};

/* Like xpu_ldcache_parse(), with the flags of each entry. */
int xpu_ldcache_parse_entries(const void *buf, size_t size,
                              void (*cb)(const struct xpu_ldcache_entry *e, void *userdata),
                              void *userdata);

/* The ld.so.cache flags of a library of the build architecture (0x0303 on x86-64): the driver
 * lookup ignores cache entries with other flags (32-bit copies of the same library). */
int32_t xpu_ldcache_native_flags(void);
