/* SPDX-License-Identifier: Apache-2.0 */
/* The parts of an ELF object the audit needs, read with pread(2) from a file descriptor: the ELF
 * header's type, machine and flags, the section headers with their names, and DT_NEEDED and
 * DT_SONAME from the dynamic segment (PT_DYNAMIC, base/elf-dynamic.h: what the loader reads, so
 * they are known even when the section headers are damaged or absent). ELF64 little-endian only
 * (x86-64 and AArch64 libraries, and AMDGPU code objects); anything else is refused with a
 * reason. Every offset and size is checked against the file's size before it is used; nothing is
 * mapped. Sources: the System V gABI (ELF header, section header, dynamic section) and elf(5). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bounds: more sections, a longer section-name table or dynamic section, or more DT_NEEDED
 * entries than this make the object malformed (real libraries: under 100 sections, a few KiB of
 * names, tens of DT_NEEDED; objects of one section per function can have tens of thousands). The
 * dynamic string table is never read whole: each DT_NEEDED and DT_SONAME string by itself. */
#define XPU_ELF_SECTIONS_MAX 0xff00u /* SHN_LORESERVE: more needs extended numbering */
#define XPU_ELF_STRTAB_MAX   (4u << 20)
#define XPU_ELF_NEEDED_MAX   1024u

struct xpu_elf_section {
        char name[64];  /* "" when the name is longer or outside the string table */
        uint32_t type;  /* SHT_* */
        uint64_t flags; /* SHF_* */
        uint64_t offset, size;
};

struct xpu_elf {
        uint64_t file_size;
        unsigned type;     /* e_type: ET_REL, ET_EXEC, ET_DYN */
        unsigned machine;  /* e_machine: 62 x86-64, 183 AArch64, 224 AMDGPU */
        uint32_t e_flags;  /* AMDGPU: EF_AMDGPU_MACH in the low byte, feature bits above */
        unsigned osabi;    /* e_ident[EI_OSABI]: 0x41 for CUDA 13 cubins */
        struct xpu_elf_section *sections;
        size_t n_sections;
        char **needed;     /* DT_NEEDED, in order */
        size_t n_needed;
        char *soname;      /* DT_SONAME, or NULL */
        /* Static reasons, or NULL: the section headers could not be read (SECTIONS is then empty),
         * or the dynamic segment could not be read whole (NEEDED holds what came before). */
        const char *sections_error;
        const char *dynamic_error;
};

/* Read FD's ELF facts into *E. Returns 0 (damaged section headers or a damaged dynamic segment
 * are noted in E->sections_error and E->dynamic_error, and the rest is read); -ENOEXEC when the file
 * is not ELF (shorter than an ELF header or without the magic: not an error for a walker);
 * -EPROTONOSUPPORT with ERR when it is ELF of another class or byte order (32-bit, big-endian:
 * never loaded by a 64-bit GPU runtime); -EBADMSG with ERR (a static reason) when the ELF header
 * is cut off; -ENOMEM; -errno of fstat/pread. On any error *E holds nothing to free. */
int xpu_elf_read(int fd, struct xpu_elf *e, const char **err);

/* Free what xpu_elf_read() allocated; *E is zeroed. */
void xpu_elf_clear(struct xpu_elf *e);

/* The first section named NAME, or NULL. */
const struct xpu_elf_section *xpu_elf_find(const struct xpu_elf *e, const char *name);

/* True when the first 4 bytes read from FD (at offset 0, pread) are the ELF magic (gABI
 * e_ident[EI_MAG0..3]). FD must be a regular file opened for reading. Returns 1, 0 (short or
 * other bytes), or -errno. What the driver-root checks (probes/libs.c, entrypoint/apply.c) ask of
 * a library before it is mounted. */
int xpu_fd_is_elf(int fd);
