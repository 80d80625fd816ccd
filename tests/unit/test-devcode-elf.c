/* SPDX-License-Identifier: Apache-2.0 */
/* probes/devcode/elf.c: ELF64 section headers, names, DT_NEEDED and DT_SONAME through pread, on
 * the nvcc and clang fixtures (tests/fixtures/devcode/) and damaged copies in memfds. */
#include <elf.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/macro.h"
#include "devcode/bundle.h"
#include "devcode/elf.h"
#include "testlib.h"

START_TEST(test_library) {
        size_t len;
        _cleanup_free_ uint8_t *so = xpu_test_read_fixture("devcode/nvidia/libkernel.so", &len);
        _cleanup_close_ int fd = xpu_test_memfd(so, len);
        struct xpu_elf e;
        const char *err = "unset";
        ck_assert_int_eq(xpu_elf_read(fd, &e, &err), 0);
        ck_assert_ptr_null(err);
        ck_assert_uint_eq(e.type, ET_DYN);
        ck_assert_uint_eq(e.machine, EM_X86_64);
        ck_assert_uint_eq(e.file_size, len);
        ck_assert_uint_eq(e.n_sections, 32);
        const struct xpu_elf_section *fb = xpu_elf_find(&e, ".nv_fatbin");
        ck_assert_ptr_nonnull(fb);
        ck_assert_uint_eq(fb->offset, 0x2018);
        ck_assert_uint_eq(fb->size, 0x1540);
        ck_assert(fb->flags & SHF_ALLOC);
        ck_assert_ptr_nonnull(xpu_elf_find(&e, ".nvFatBinSegment"));
        ck_assert_ptr_null(xpu_elf_find(&e, ".hip_fatbin"));
        ck_assert_uint_eq(e.n_needed, 4);
        ck_assert_str_eq(e.needed[0], "libcudart.so.13");
        ck_assert_str_eq(e.needed[1], "libstdc++.so.6");
        ck_assert_str_eq(e.needed[3], "libc.so.6");
        ck_assert_ptr_null(e.soname);
        xpu_elf_clear(&e);
        ck_assert_ptr_null(e.sections);

        /* The same bytes at the start of a 4 GiB sparse file: only the headers are read. */
        ck_assert_int_eq(ftruncate(fd, (off_t)4 << 30), 0);
        ck_assert_int_eq(xpu_elf_read(fd, &e, &err), 0);
        ck_assert_uint_eq(e.file_size, (uint64_t)4 << 30);
        ck_assert_uint_eq(e.n_needed, 4);
        xpu_elf_clear(&e);
}
END_TEST

static int first_device(const struct xpu_bundle *b, void *userdata) {
        struct xpu_bundle_entry *e = userdata;
        *e = b->entries[1];
        return 0;
}

START_TEST(test_code_object) {
        size_t len;
        _cleanup_free_ uint8_t *b = xpu_test_read_fixture("devcode/amd/two.bundle", &len);
        _cleanup_free_ struct xpu_bundle_entry *ent = malloc(sizeof *ent);
        ck_assert_int_eq(xpu_bundle_scan(b, len, first_device, ent), 1);
        _cleanup_close_ int fd = xpu_test_memfd(b + ent->offset, ent->size);
        struct xpu_elf e;
        ck_assert_int_eq(xpu_elf_read(fd, &e, NULL), 0);
        ck_assert_uint_eq(e.machine, EM_AMDGPU);
        ck_assert_uint_eq(e.e_flags, 0xe3f); /* gfx90a (0x3f), sramecc on (0xc00), xnack off (0x200) */
        ck_assert_uint_eq(e.osabi, 64); /* ELFOSABI_AMDGPU_HSA (LLVM AMDGPUUsage) */
        ck_assert_uint_eq(e.n_needed, 0);
        xpu_elf_clear(&e);
}
END_TEST

START_TEST(test_refused) {
        struct xpu_elf e;
        const char *err;
        _cleanup_close_ int text = xpu_test_memfd("#!/bin/sh\necho not ELF\n", 23);
        ck_assert_int_eq(xpu_elf_read(text, &e, &err), -ENOEXEC);
        _cleanup_close_ int empty = xpu_test_memfd("", 0);
        ck_assert_int_eq(xpu_elf_read(empty, &e, &err), -ENOEXEC);
        _cleanup_close_ int elf32 = xpu_test_memfd("\177ELF\1\1\1\0\0\0\0\0\0\0\0\0", 16);
        ck_assert_int_eq(xpu_elf_read(elf32, &e, &err), -EPROTONOSUPPORT);
        ck_assert_str_eq(err, "not a 64-bit little-endian ELF object");
        _cleanup_close_ int head = xpu_test_memfd("\177ELF\2\1\1\0\0\0\0\0\0\0\0\0\3\0", 18);
        ck_assert_int_eq(xpu_elf_read(head, &e, &err), -EBADMSG);
        ck_assert_str_eq(err, "the ELF header is cut off");

        size_t len;
        _cleanup_free_ uint8_t *so = xpu_test_read_fixture("devcode/nvidia/libkernel.so", &len);
        /* Cut before its section header table (at the end of the file), after its dynamic segment:
         * what the loader reads is still there, the sections are not. */
        _cleanup_close_ int cut = xpu_test_memfd(so, 16384);
        ck_assert_int_eq(xpu_elf_read(cut, &e, &err), 0);
        ck_assert_str_eq(e.sections_error, "the section header table does not fit the file or has too many entries");
        ck_assert_ptr_null(e.dynamic_error);
        ck_assert_ptr_null(e.sections);
        ck_assert_uint_eq(e.n_needed, 4);
        ck_assert_str_eq(e.needed[0], "libcudart.so.13");
        xpu_elf_clear(&e);
        /* Cut before its dynamic segment too. */
        _cleanup_close_ int cut2 = xpu_test_memfd(so, 8192);
        ck_assert_int_eq(xpu_elf_read(cut2, &e, &err), 0);
        ck_assert_str_eq(e.dynamic_error, "the dynamic segment (PT_DYNAMIC) lies outside the file's loaded segments");
        ck_assert_uint_eq(e.n_needed, 0);
        xpu_elf_clear(&e);

        Elf64_Ehdr h;
        memcpy(&h, so, sizeof h);
        /* One section moved past the end of the file: kept as it is (the audit names it and reads
         * the others). */
        _cleanup_free_ uint8_t *c = malloc(len);
        memcpy(c, so, len);
        Elf64_Shdr s;
        size_t at = h.e_shoff + 15 * sizeof s;
        memcpy(&s, c + at, sizeof s);
        s.sh_offset = len;
        memcpy(c + at, &s, sizeof s);
        _cleanup_close_ int moved = xpu_test_memfd(c, len);
        ck_assert_int_eq(xpu_elf_read(moved, &e, &err), 0);
        ck_assert_ptr_null(e.sections_error);
        ck_assert_uint_eq(e.n_sections, h.e_shnum);
        ck_assert_uint_eq(e.sections[15].offset, len);
        xpu_elf_clear(&e);

        /* The section name table index out of range: no sections, DT_NEEDED and DT_SONAME still. */
        memcpy(c, so, len);
        ((Elf64_Ehdr *)c)->e_shstrndx = 999;
        _cleanup_close_ int names = xpu_test_memfd(c, len);
        ck_assert_int_eq(xpu_elf_read(names, &e, &err), 0);
        ck_assert_str_eq(e.sections_error, "the section name table lies outside the file or is too large");
        ck_assert_uint_eq(e.n_sections, 0);
        ck_assert_uint_eq(e.n_needed, 4);
        ck_assert_str_eq(e.needed[3], "libc.so.6");
        xpu_elf_clear(&e);

        /* A DT_NEEDED string offset past the dynamic string table: the sections are still read. */
        memcpy(c, so, len);
        for (size_t i = 0; i < h.e_shnum; i++) {
                memcpy(&s, c + h.e_shoff + i * sizeof s, sizeof s);
                if (s.sh_type != SHT_DYNAMIC)
                        continue;
                Elf64_Dyn d;
                memcpy(&d, c + s.sh_offset, sizeof d);
                ck_assert_int_eq(d.d_tag, DT_NEEDED);
                d.d_un.d_val = 0x7fffffff;
                memcpy(c + s.sh_offset, &d, sizeof d);
        }
        _cleanup_close_ int dyn = xpu_test_memfd(c, len);
        ck_assert_int_eq(xpu_elf_read(dyn, &e, &err), 0);
        ck_assert_str_eq(e.dynamic_error, "a DT_NEEDED or DT_SONAME string lies outside the dynamic string table");
        ck_assert_ptr_null(e.needed);
        ck_assert_uint_eq(e.n_sections, h.e_shnum);
        xpu_elf_clear(&e);
}
END_TEST

/* The dynamic segment is read as the loader reads it: at its address, to DT_NULL. */
START_TEST(test_dynamic_as_the_loader) {
        size_t len;
        _cleanup_free_ uint8_t *so = xpu_test_read_fixture("devcode/nvidia/libkernel.so", &len);
        Elf64_Ehdr h;
        memcpy(&h, so, sizeof h);
        size_t dyn = SIZE_MAX;
        for (size_t i = 0; i < h.e_phnum; i++) {
                Elf64_Phdr p;
                memcpy(&p, so + h.e_phoff + i * sizeof p, sizeof p);
                if (p.p_type == PT_DYNAMIC)
                        dyn = h.e_phoff + i * sizeof p;
        }
        ck_assert_uint_ne(dyn, SIZE_MAX);
        static const struct {
                const char *what;
                size_t field; /* offset in Elf64_Phdr */
                uint64_t value;
        } lies[] = {
                { "p_offset pointing elsewhere", offsetof(Elf64_Phdr, p_offset), 0 },
                { "p_filesz of one entry", offsetof(Elf64_Phdr, p_filesz), sizeof(Elf64_Dyn) },
        };
        for (size_t k = 0; k < ELEMENTSOF(lies); k++) {
                _cleanup_free_ uint8_t *c = malloc(len);
                memcpy(c, so, len);
                memcpy(c + dyn + lies[k].field, &lies[k].value, sizeof lies[k].value);
                _cleanup_close_ int fd = xpu_test_memfd(c, len);
                struct xpu_elf e;
                ck_assert_int_eq(xpu_elf_read(fd, &e, NULL), 0);
                ck_assert_msg(e.n_needed == 4 && strcmp(e.needed[0], "libcudart.so.13") == 0 && !e.dynamic_error,
                              "%s: %zu needed, %s", lies[k].what, e.n_needed, e.dynamic_error ? e.dynamic_error : "");
                xpu_elf_clear(&e);
        }
}
END_TEST

/* Device code is found by section names: sections whose names cannot be read are no sections. */
START_TEST(test_section_names_unreadable) {
        size_t len;
        _cleanup_free_ uint8_t *so = xpu_test_read_fixture("devcode/nvidia/libkernel.so", &len);
        _cleanup_free_ uint8_t *c = malloc(len);
        Elf64_Ehdr h;
        memcpy(&h, so, sizeof h);
        struct xpu_elf e;
        memcpy(c, so, len);
        ((Elf64_Ehdr *)c)->e_shstrndx = SHN_UNDEF;
        _cleanup_close_ int none = xpu_test_memfd(c, len);
        ck_assert_int_eq(xpu_elf_read(none, &e, NULL), 0);
        ck_assert_str_eq(e.sections_error, "the section headers have no name table (e_shstrndx is 0)");
        ck_assert_uint_eq(e.n_needed, 4);
        xpu_elf_clear(&e);
        /* The name table cut to its first byte. */
        memcpy(c, so, len);
        Elf64_Shdr s;
        size_t at = h.e_shoff + (size_t)h.e_shstrndx * sizeof s;
        memcpy(&s, c + at, sizeof s);
        s.sh_size = 1;
        memcpy(c + at, &s, sizeof s);
        _cleanup_close_ int cut = xpu_test_memfd(c, len);
        ck_assert_int_eq(xpu_elf_read(cut, &e, NULL), 0);
        ck_assert_str_eq(e.sections_error, "the section name table does not hold every section's name");
        ck_assert_uint_eq(e.n_sections, 0);
        xpu_elf_clear(&e);
}
END_TEST

/* The ELF magic on an fd, read at offset 0 whatever the file position. */
START_TEST(test_fd_is_elf) {
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "notelf", "root:x:0:0\n");
        xpu_test_write(t, "elf", "\177ELF....");
        xpu_test_write(t, "short", "\177EL");
        char p[4200];
        snprintf(p, sizeof p, "%s/notelf", t);
        int a = open(p, O_RDONLY | O_CLOEXEC);
        snprintf(p, sizeof p, "%s/elf", t);
        int b = open(p, O_RDONLY | O_CLOEXEC);
        snprintf(p, sizeof p, "%s/short", t);
        int c = open(p, O_RDONLY | O_CLOEXEC);
        ck_assert(a >= 0 && b >= 0 && c >= 0);
        ck_assert_int_eq(xpu_fd_is_elf(a), 0);
        ck_assert_int_eq(lseek(b, 3, SEEK_SET), 3);
        ck_assert_int_eq(xpu_fd_is_elf(b), 1);
        ck_assert_int_eq(xpu_fd_is_elf(c), 0);
        ck_assert_int_eq(xpu_fd_is_elf(-1), -EBADF);
        close(a);
        close(b);
        close(c);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

static Suite *elf_suite(void) {
        Suite *s = suite_create("devcode-elf");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_library);
        tcase_add_test(tc, test_code_object);
        tcase_add_test(tc, test_refused);
        tcase_add_test(tc, test_dynamic_as_the_loader);
        tcase_add_test(tc, test_section_names_unreadable);
        tcase_add_test(tc, test_fd_is_elf);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(elf_suite());
}
