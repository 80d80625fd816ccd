/* SPDX-License-Identifier: Apache-2.0 */
/* ELF64 section headers and names through pread, dynamic entries from PT_DYNAMIC (elf.h has the
 * contract). */
#include "devcode/elf.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/elf-dynamic.h"
#include "base/fileio.h"
#include "base/macro.h"

/* Read exactly SIZE bytes at OFFSET, which the caller checked to lie inside the file. */
static int pread_all(int fd, void *buf, size_t size, uint64_t offset) {
        ssize_t n = xpu_pread_full(fd, buf, size, offset);
        if (n < 0)
                return (int)n;
        return (size_t)n == size ? 0 : -EBADMSG; /* the file shrank under us */
}

static bool fits(uint64_t offset, uint64_t size, uint64_t file_size) {
        return offset <= file_size && size <= file_size - offset;
}

/* Read section S's bytes (at most MAX) into a new NUL-terminated buffer. */
static int read_section(int fd, const struct xpu_elf *e, const Elf64_Shdr *s, uint64_t max, char **ret) {
        if (s->sh_type == SHT_NOBITS || s->sh_size > max || !fits(s->sh_offset, s->sh_size, e->file_size))
                return -EBADMSG;
        char *b = malloc(s->sh_size + 1);
        if (!b)
                return -ENOMEM;
        int r = pread_all(fd, b, s->sh_size, s->sh_offset);
        if (r < 0) {
                free(b);
                return r;
        }
        b[s->sh_size] = '\0';
        *ret = b;
        return 0;
}

void xpu_elf_clear(struct xpu_elf *e) {
        free(e->sections);
        for (size_t i = 0; i < e->n_needed; i++)
                free(e->needed[i]);
        free(e->needed);
        free(e->soname);
        memset(e, 0, sizeof *e);
}

const struct xpu_elf_section *xpu_elf_find(const struct xpu_elf *e, const char *name) {
        for (size_t i = 0; i < e->n_sections; i++)
                if (strcmp(e->sections[i].name, name) == 0)
                        return &e->sections[i];
        return NULL;
}

/* DT_NEEDED and DT_SONAME into E, as xpu_elf_dynamic_strings() hands them over. */
static int dynamic_cb(unsigned tag, const char *value, void *userdata) {
        struct xpu_elf *e = userdata;
        if (tag == XPU_ELF_DT_SONAME) {
                if (!e->soname && !(e->soname = strdup(value)))
                        return -ENOMEM;
                return 0;
        }
        if (e->n_needed == XPU_ELF_NEEDED_MAX)
                return -E2BIG;
        char **nn = realloc(e->needed, (e->n_needed + 1) * sizeof *nn);
        if (!nn)
                return -ENOMEM;
        e->needed = nn;
        if (!(e->needed[e->n_needed] = strdup(value)))
                return -ENOMEM;
        e->n_needed++;
        return 0;
}

/* The section headers and their names into E. Returns 0, or -EBADMSG with *ERR when the table or
 * its name table does not fit the file or the bounds (E then has no sections), -ENOMEM, -errno. */
static int read_sections(int fd, struct xpu_elf *e, const Elf64_Ehdr *h, const char **err) {
        /* e_shnum 0 with a table means the count is in section 0's sh_size (over 0xff00 sections):
         * past this reader's bound anyway. */
        if (h->e_shentsize != sizeof(Elf64_Shdr) || h->e_shnum == 0 || h->e_shnum > XPU_ELF_SECTIONS_MAX ||
            !fits(h->e_shoff, (uint64_t)h->e_shnum * sizeof(Elf64_Shdr), e->file_size)) {
                *err = "the section header table does not fit the file or has too many entries";
                return -EBADMSG;
        }
        _cleanup_free_ Elf64_Shdr *sh = malloc((size_t)h->e_shnum * sizeof *sh);
        _cleanup_free_ struct xpu_elf_section *sections = calloc(h->e_shnum, sizeof *sections);
        if (!sh || !sections)
                return -ENOMEM;
        int r = pread_all(fd, sh, (size_t)h->e_shnum * sizeof *sh, h->e_shoff);
        if (r < 0)
                return r;
        /* Device code is found by section names: without them it cannot be. */
        if (h->e_shstrndx == SHN_UNDEF) {
                *err = "the section headers have no name table (e_shstrndx is 0)";
                return -EBADMSG;
        }
        _cleanup_free_ char *names = NULL;
        r = h->e_shstrndx >= h->e_shnum ? -EBADMSG
                                        : read_section(fd, e, &sh[h->e_shstrndx], XPU_ELF_STRTAB_MAX, &names);
        if (r < 0) {
                if (r == -EBADMSG)
                        *err = "the section name table lies outside the file or is too large";
                return r;
        }
        uint64_t names_size = sh[h->e_shstrndx].sh_size;
        for (size_t i = 0; i < h->e_shnum; i++) {
                struct xpu_elf_section *s = &sections[i];
                s->type = sh[i].sh_type;
                s->flags = sh[i].sh_flags;
                s->offset = sh[i].sh_offset;
                s->size = sh[i].sh_size;
                if (i > 0 && sh[i].sh_name >= names_size) {
                        *err = "the section name table does not hold every section's name";
                        return -EBADMSG;
                }
                if (sh[i].sh_name < names_size) {
                        const char *n = names + sh[i].sh_name;
                        size_t nl = strnlen(n, sizeof s->name);
                        if (nl < sizeof s->name)
                                memcpy(s->name, n, nl + 1);
                }
        }
        e->sections = TAKE_PTR(sections);
        e->n_sections = h->e_shnum;
        return 0;
}

static int elf_read(int fd, struct xpu_elf *e, const char **err) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        e->file_size = (uint64_t)st.st_size;
        Elf64_Ehdr h;
        if (e->file_size < EI_NIDENT)
                return -ENOEXEC;
        int r = pread_all(fd, h.e_ident, EI_NIDENT, 0);
        if (r < 0)
                return r;
        if (memcmp(h.e_ident, ELFMAG, SELFMAG) != 0)
                return -ENOEXEC;
        if (h.e_ident[EI_CLASS] != ELFCLASS64 || h.e_ident[EI_DATA] != ELFDATA2LSB) {
                *err = "not a 64-bit little-endian ELF object";
                return -EPROTONOSUPPORT;
        }
        if (e->file_size < sizeof h) {
                *err = "the ELF header is cut off";
                return -EBADMSG;
        }
        r = pread_all(fd, &h, sizeof h, 0);
        if (r < 0)
                return r;
        e->type = h.e_type;
        e->machine = h.e_machine;
        e->e_flags = h.e_flags;
        e->osabi = h.e_ident[EI_OSABI];
        /* What the loader reads first: the dynamic segment, whatever the sections
         * say. */
        const char *why = NULL;
        r = xpu_elf_dynamic_strings(fd, e->file_size, true, true, dynamic_cb, e, &why);
        if (r == -E2BIG)
                e->dynamic_error = "the object has more than 1024 DT_NEEDED entries";
        else if (r == -EBADMSG)
                e->dynamic_error = why ? why : "the dynamic segment cannot be read";
        else if (r < 0 && r != -ENOENT)
                return r;
        if (h.e_shoff == 0 && h.e_shnum == 0)
                return 0; /* no section headers (stripped of them): nothing more to read */
        r = read_sections(fd, e, &h, &e->sections_error);
        if (r == -EBADMSG && !e->sections_error)
                e->sections_error = "the file got shorter while its section headers were read";
        return r == -EBADMSG ? 0 : r;
}

int xpu_elf_read(int fd, struct xpu_elf *e, const char **err) {
        static const char *unused;
        if (!err)
                err = &unused;
        *err = NULL;
        memset(e, 0, sizeof *e);
        int r = elf_read(fd, e, err);
        if (r == -EBADMSG && !*err)
                *err = "the file got shorter while it was read";
        if (r < 0)
                xpu_elf_clear(e);
        return r;
}

int xpu_fd_is_elf(int fd) {
        unsigned char m[4];
        ssize_t n;
        do
                n = pread(fd, m, sizeof m, 0);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return negative_errno();
        return n == 4 && m[0] == 0x7f && m[1] == 'E' && m[2] == 'L' && m[3] == 'F';
}
