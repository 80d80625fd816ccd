/* SPDX-License-Identifier: Apache-2.0 */
/* DT_NEEDED and DT_SONAME from PT_DYNAMIC (elf-dynamic.h has the contract). */
#include "elf-dynamic.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "macro.h"

struct elf {
        int fd;
        bool is64, be;
        uint64_t size;
};

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

/* An address-sized field: 4 bytes in ELFCLASS32, 8 in ELFCLASS64. */
static uint64_t word(const struct elf *e, const unsigned char *p) {
        return e->is64 ? rd64(p, e->be) : rd32(p, e->be);
}

/* pread exactly LEN bytes at OFF, all inside the file: -EBADMSG when they are not there. */
static int read_at(const struct elf *e, void *buf, size_t len, uint64_t off) {
        if (off > e->size || len > e->size - off)
                return -EBADMSG;
        ssize_t n = xpu_pread_full(e->fd, buf, len, off);
        if (n < 0)
                return (int)n;
        return (size_t)n == len ? 0 : -EBADMSG;
}

/* Map virtual address ADDR to a file offset through the PT_LOAD headers in PH, as the loader maps
 * the file; *FILE_LEFT (may be NULL) gets the bytes of that segment's file image from there on,
 * *MEM_LEFT (may be NULL) the bytes of its memory image (the rest of which the loader fills with
 * zeros). */
static int vaddr_to_offset(const struct elf *e, const unsigned char *ph, size_t phnum, size_t phent, uint64_t addr,
                           uint64_t *ret, uint64_t *file_left, uint64_t *mem_left) {
        for (size_t i = 0; i < phnum; i++) {
                const unsigned char *p = ph + i * phent;
                if (rd32(p, e->be) != 1 /* PT_LOAD */)
                        continue;
                uint64_t off = word(e, p + (e->is64 ? 8 : 4)), vaddr = word(e, p + (e->is64 ? 16 : 8)),
                         filesz = word(e, p + (e->is64 ? 32 : 16)), memsz = word(e, p + (e->is64 ? 40 : 20));
                if (addr < vaddr || addr - vaddr >= filesz)
                        continue;
                if (__builtin_add_overflow(off, addr - vaddr, ret))
                        return -EBADMSG;
                if (file_left)
                        *file_left = filesz - (addr - vaddr);
                if (mem_left)
                        *mem_left = memsz > addr - vaddr ? memsz - (addr - vaddr) : filesz - (addr - vaddr);
                return 0;
        }
        return -EBADMSG;
}

int xpu_elf_dynamic_strings(int fd, uint64_t file_size, int want_needed, int want_soname, xpu_elf_dynamic_cb cb,
                            void *userdata, const char **err) {
        static const char *unused;
        if (!err)
                err = &unused;
        *err = NULL;
        struct elf e = { .fd = fd, .size = file_size };
        unsigned char eh[64];
        int r = read_at(&e, eh, 16, 0);
        if (r < 0)
                return r == -EBADMSG ? -ENOEXEC : r;
        if (memcmp(eh, "\177ELF", 4) != 0 || (eh[4] != 1 && eh[4] != 2) || (eh[5] != 1 && eh[5] != 2))
                return -ENOEXEC;
        e.is64 = eh[4] == 2;
        e.be = eh[5] == 2;
        if ((r = read_at(&e, eh, e.is64 ? 64 : 52, 0)) < 0) {
                *err = "the ELF header is cut off";
                return r;
        }
        uint64_t phoff = word(&e, eh + (e.is64 ? 32 : 28));
        size_t phent = rd16(eh + (e.is64 ? 54 : 42), e.be), phnum = rd16(eh + (e.is64 ? 56 : 44), e.be);
        if (phnum == 0)
                return -ENOENT;
        if (phent < (e.is64 ? 56u : 32u) || phnum > XPU_ELF_PHDRS_MAX) {
                *err = "the program header table has entries of a wrong size or too many of them";
                return -EBADMSG;
        }
        _cleanup_free_ unsigned char *ph = malloc(phent * phnum);
        if (!ph)
                return -ENOMEM;
        if ((r = read_at(&e, ph, phent * phnum, phoff)) < 0) {
                *err = "the program header table lies outside the file";
                return r;
        }
        /* The loader takes the last PT_DYNAMIC, at its address (p_vaddr), and reads its entries up
         * to DT_NULL whatever p_offset and p_filesz say: so does this reader. */
        uint64_t dyn_vaddr = 0;
        bool have_dyn = false;
        for (size_t i = 0; i < phnum; i++) {
                const unsigned char *p = ph + i * phent;
                if (rd32(p, e.be) != 2 /* PT_DYNAMIC */)
                        continue;
                dyn_vaddr = word(&e, p + (e.is64 ? 16 : 8));
                have_dyn = true;
        }
        if (!have_dyn)
                return -ENOENT;
        uint64_t dyn_off, file_left, mem_left;
        if (vaddr_to_offset(&e, ph, phnum, phent, dyn_vaddr, &dyn_off, &file_left, &mem_left) < 0 ||
            dyn_off >= e.size) {
                *err = "the dynamic segment (PT_DYNAMIC) lies outside the file's loaded segments";
                return -EBADMSG;
        }
        bool cut = file_left > e.size - dyn_off; /* a file cut short: what is there is read */
        if (cut)
                file_left = e.size - dyn_off;
        size_t dynent = e.is64 ? 16 : 8;
        uint64_t in_file = file_left / dynent;
        size_t ndyn = (size_t)(in_file < XPU_ELF_DYNS_MAX ? in_file : XPU_ELF_DYNS_MAX);
        _cleanup_free_ unsigned char *dyn = malloc((ndyn ? ndyn : 1) * dynent);
        if (!dyn)
                return -ENOMEM;
        if ((r = read_at(&e, dyn, ndyn * dynent, dyn_off)) < 0) {
                *err = "the dynamic segment (PT_DYNAMIC) lies outside the file";
                return r;
        }
        /* Past the file image, the segment's memory is zeros: a DT_NULL. */
        bool zeros_after = !cut && ndyn == in_file && mem_left > file_left;
        uint64_t strtab = 0, strsz = 0;
        bool have_strtab = false, have_strsz = false, any = false, terminated = zeros_after;
        size_t end = ndyn;
        for (size_t i = 0; i < ndyn; i++) {
                const unsigned char *d = dyn + i * dynent;
                uint64_t tag = word(&e, d), val = word(&e, d + dynent / 2);
                if (tag == 0 /* DT_NULL */) {
                        end = i;
                        terminated = true;
                        break;
                }
                if (tag == 5 /* DT_STRTAB */) {
                        strtab = val;
                        have_strtab = true;
                } else if (tag == 10 /* DT_STRSZ */) {
                        strsz = val;
                        have_strsz = true;
                } else if ((tag == XPU_ELF_DT_NEEDED && want_needed) || (tag == XPU_ELF_DT_SONAME && want_soname)) {
                        any = true;
                }
        }
        if (!terminated) {
                *err = "the dynamic segment has no DT_NULL within 16,384 entries or the file";
                return -EBADMSG;
        }
        if (!any)
                return 0;
        uint64_t str_off;
        if (!have_strtab || !have_strsz || vaddr_to_offset(&e, ph, phnum, phent, strtab, &str_off, NULL, NULL) < 0 ||
            str_off > e.size || strsz > e.size - str_off) {
                *err = "the dynamic string table (DT_STRTAB, DT_STRSZ) is missing or lies outside the file";
                return -EBADMSG;
        }
        for (size_t i = 0; i < end; i++) {
                const unsigned char *d = dyn + i * dynent;
                uint64_t tag = word(&e, d), val = word(&e, d + dynent / 2);
                if (!((tag == XPU_ELF_DT_NEEDED && want_needed) || (tag == XPU_ELF_DT_SONAME && want_soname)))
                        continue;
                if (val >= strsz) {
                        *err = "a DT_NEEDED or DT_SONAME string lies outside the dynamic string table";
                        return -EBADMSG;
                }
                char buf[XPU_ELF_DYN_STRING_MAX + 1];
                uint64_t left = strsz - val;
                size_t want = left < XPU_ELF_DYN_STRING_MAX + 1 ? (size_t)left : XPU_ELF_DYN_STRING_MAX + 1;
                if ((r = read_at(&e, buf, want, str_off + val)) < 0) {
                        *err = "a DT_NEEDED or DT_SONAME string lies outside the file";
                        return r;
                }
                char *nul = memchr(buf, '\0', want);
                if (!nul) {
                        *err = want > XPU_ELF_DYN_STRING_MAX
                                       ? "a DT_NEEDED or DT_SONAME string is longer than 4096 bytes"
                                       : "a DT_NEEDED or DT_SONAME string is not terminated";
                        return -EBADMSG;
                }
                if ((r = cb((unsigned)tag, buf, userdata)) < 0)
                        return r;
        }
        return 0;
}
