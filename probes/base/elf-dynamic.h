/* SPDX-License-Identifier: Apache-2.0 */
/* The strings of an ELF file's dynamic segment, read as the dynamic loader reads them: program
 * headers -> PT_DYNAMIC -> DT_NEEDED and DT_SONAME, their string table found by DT_STRTAB (an
 * address mapped to a file offset through PT_LOAD) and DT_STRSZ. Section headers are never
 * used: the loader does not read them, so neither a missing section table nor one that lies can
 * change the answer. 32- and 64-bit, either byte order. Everything is read with pread(2) and
 * checked against the file's size before use; nothing is mapped. Silent. Source: the System V
 * gABI (ELF header, program header, dynamic section) and elf(5). */
#pragma once

#include <stdint.h>

/* Bounds: more program headers or dynamic entries than this make the file malformed (real
 * objects: about 10 program headers and under 100 dynamic entries), a string longer than
 * XPU_ELF_DYN_STRING_MAX bytes too (library names are short). */
#define XPU_ELF_PHDRS_MAX      1024u
#define XPU_ELF_DYNS_MAX       16384u
#define XPU_ELF_DYN_STRING_MAX 4096u

/* The dynamic tags whose strings xpu_elf_dynamic_strings() reports. */
#define XPU_ELF_DT_NEEDED 1u
#define XPU_ELF_DT_SONAME 14u

/* Called for each string entry of the tags asked for, in the order of the dynamic segment. TAG is
 * XPU_ELF_DT_NEEDED or XPU_ELF_DT_SONAME; VALUE is NUL-terminated and non-empty only if the file
 * says so. A negative return stops the read and is returned. */
typedef int (*xpu_elf_dynamic_cb)(unsigned tag, const char *value, void *userdata);

/* Read the DT_NEEDED (WANT_NEEDED) and DT_SONAME (WANT_SONAME) strings of the ELF file FD of
 * FILE_SIZE bytes and hand each to CB. Returns 0; -ENOEXEC when FD is not ELF; -ENOENT when it
 * has no PT_DYNAMIC (a static executable, a relocatable object, a cubin); -EBADMSG with *ERR (a
 * static reason) when the headers, the dynamic segment or a string do not fit the file or the
 * bounds above; -ENOMEM; -errno of pread; or CB's negative value. */
int xpu_elf_dynamic_strings(int fd, uint64_t file_size, int want_needed, int want_soname,
                            xpu_elf_dynamic_cb cb, void *userdata, const char **err);
