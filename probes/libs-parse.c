/* SPDX-License-Identifier: Apache-2.0 */
/* The ELF reader of probes/libs (see libs.h): DT_SONAME. Facts: the ELF gABI (headers,
 * PT_DYNAMIC, DT_SONAME). A fuzz target: every offset read from the input is checked before use.
 * Silent. */
#include "libs.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/macro.h"

/* Bounds on what an ELF file may make us read. */
#define ELF_PHDRS_MAX 1024
#define ELF_DYNS_MAX  16384

/* ---- byte readers ------------------------------------------------------------------------ */

static uint32_t rd32(const unsigned char *p, bool be) {
        return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}
static uint16_t rd16(const unsigned char *p, bool be) {
        return (uint16_t)(be ? p[0] << 8 | p[1] : p[1] << 8 | p[0]);
}
static uint64_t rd64(const unsigned char *p, bool be) {
        uint64_t hi = rd32(p + (be ? 0 : 4), be), lo = rd32(p + (be ? 4 : 0), be);
        return hi << 32 | lo;
}

/* ---- ELF --------------------------------------------------------------------------------- */

struct elf {
        int fd;
        bool is64, be;
        uint64_t size; /* file size */
};

/* pread exactly LEN bytes at OFF, all inside the file; -EINVAL when the file is too short. */
static int elf_read(const struct elf *e, void *buf, size_t len, uint64_t off) {
        if (off > e->size || len > e->size - off)
                return -EINVAL;
        ssize_t n = xpu_pread_full(e->fd, buf, len, off);
        if (n < 0)
                return (int)n;
        return (size_t)n == len ? 0 : -EINVAL;
}

/* An address-sized field: 4 bytes in ELFCLASS32, 8 in ELFCLASS64. */
static uint64_t elf_word(const struct elf *e, const unsigned char *p) {
        return e->is64 ? rd64(p, e->be) : rd32(p, e->be);
}

/* Map virtual address ADDR to a file offset through the PT_LOAD headers in PH. */
static int elf_vaddr_to_offset(const struct elf *e, const unsigned char *ph, size_t phnum,
                               size_t phent, uint64_t addr, uint64_t *ret) {
        for (size_t i = 0; i < phnum; i++) {
                const unsigned char *p = ph + i * phent;
                if (rd32(p, e->be) != 1 /* PT_LOAD */)
                        continue;
                uint64_t off = elf_word(e, p + (e->is64 ? 8 : 4));
                uint64_t vaddr = elf_word(e, p + (e->is64 ? 16 : 8));
                uint64_t filesz = elf_word(e, p + (e->is64 ? 32 : 16));
                if (addr < vaddr || addr - vaddr >= filesz)
                        continue;
                if (__builtin_add_overflow(off, addr - vaddr, ret))
                        return -EINVAL;
                return 0;
        }
        return -EINVAL;
}

int xpu_elf_soname(int fd, char *buf, size_t size) {
        unsigned char eh[64];
        struct stat st;
        if (!buf || size == 0)
                return -EINVAL;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        struct elf e = {.fd = fd, .size = (uint64_t)st.st_size};
        int r = elf_read(&e, eh, 16, 0);
        if (r < 0)
                return r;
        if (memcmp(eh, "\177ELF", 4) != 0 || (eh[4] != 1 && eh[4] != 2) || (eh[5] != 1 && eh[5] != 2))
                return -EINVAL;
        e.is64 = eh[4] == 2;
        e.be = eh[5] == 2;
        r = elf_read(&e, eh, e.is64 ? 64 : 52, 0);
        if (r < 0)
                return r;
        uint64_t phoff = elf_word(&e, eh + (e.is64 ? 32 : 28));
        size_t phent = rd16(eh + (e.is64 ? 54 : 42), e.be);
        size_t phnum = rd16(eh + (e.is64 ? 56 : 44), e.be);
        if (phent < (e.is64 ? 56u : 32u) || phnum == 0 || phnum > ELF_PHDRS_MAX)
                return -EINVAL;
        _cleanup_free_ unsigned char *ph = malloc(phent * phnum);
        if (!ph)
                return -ENOMEM;
        r = elf_read(&e, ph, phent * phnum, phoff);
        if (r < 0)
                return r;

        uint64_t dyn_off = 0, dyn_size = 0;
        bool have_dyn = false;
        for (size_t i = 0; i < phnum && !have_dyn; i++) {
                const unsigned char *p = ph + i * phent;
                if (rd32(p, e.be) != 2 /* PT_DYNAMIC */)
                        continue;
                dyn_off = elf_word(&e, p + (e.is64 ? 8 : 4));
                dyn_size = elf_word(&e, p + (e.is64 ? 32 : 16));
                have_dyn = true;
        }
        if (!have_dyn)
                return -ENOENT;
        size_t dynent = e.is64 ? 16 : 8;
        /* A dynamic segment cut by the end of the file is a truncated file. */
        if (dyn_off > e.size || dyn_size > e.size - dyn_off)
                return -EINVAL;
        size_t ndyn = (size_t)(dyn_size / dynent < ELF_DYNS_MAX ? dyn_size / dynent : ELF_DYNS_MAX);
        if (ndyn == 0)
                return -EINVAL;
        _cleanup_free_ unsigned char *dyn = malloc(ndyn * dynent);
        if (!dyn)
                return -ENOMEM;
        r = elf_read(&e, dyn, ndyn * dynent, dyn_off);
        if (r < 0)
                return r;

        uint64_t soname = 0, strtab = 0, strsz = UINT64_MAX;
        bool have_soname = false, have_strtab = false;
        for (size_t i = 0; i < ndyn; i++) {
                const unsigned char *d = dyn + i * dynent;
                uint64_t tag = elf_word(&e, d), val = elf_word(&e, d + dynent / 2);
                if (tag == 0 /* DT_NULL */)
                        break;
                if (tag == 14 /* DT_SONAME */) {
                        soname = val;
                        have_soname = true;
                } else if (tag == 5 /* DT_STRTAB */) {
                        strtab = val;
                        have_strtab = true;
                } else if (tag == 10 /* DT_STRSZ */)
                        strsz = val;
        }
        if (!have_soname)
                return -ENOENT;
        if (!have_strtab || soname >= strsz)
                return -EINVAL;
        uint64_t str_off;
        r = elf_vaddr_to_offset(&e, ph, phnum, phent, strtab, &str_off);
        if (r < 0)
                return r;
        if (__builtin_add_overflow(str_off, soname, &str_off) || str_off >= e.size)
                return -EINVAL;
        /* Read at most SIZE bytes, never past the file or the string table. */
        uint64_t limit = e.size - str_off;
        if (strsz - soname < limit)
                limit = strsz - soname;
        size_t want = limit < size ? (size_t)limit : size;
        r = elf_read(&e, buf, want, str_off);
        if (r < 0)
                return r;
        char *nul = memchr(buf, '\0', want);
        if (!nul) {
                buf[0] = '\0';
                return want == size ? -ENAMETOOLONG : -EINVAL;
        }
        return nul == buf ? -ENOENT : 0;
}
