/* SPDX-License-Identifier: Apache-2.0 */
/* probes/devcode/object.c and object-json.c on crafted files: the facts a reader of the image
 * must get exactly (the library an object is, parallel-algorithm marks outside the symbol
 * tables, a device-code section with nothing in it), and the work budget that bounds what one
 * crafted object or index costs (docs/audit.md, "Limits"). ELF objects are built here, section by
 * section, with no program headers. Then what the audit reads from real fixtures (nvcc 13, clang
 * 14, gcc; tests/fixtures/devcode/), damaged ones included. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/strv.h"
#include "devcode/fatbin.h"
#include "devcode/object-json.h"
#include "devcode/object.h"
#include "testlib.h"

struct sec {
        const char *name;
        const void *data;
        size_t len;
};

/* An ELF64 LE shared object of SECS[0..N) (allocated PROGBITS), with EXTRA more section headers
 * naming the first one's bytes; *LEN gets its size. */
static unsigned char *build_elf(const struct sec *secs, size_t n, size_t extra, size_t *len) {
        size_t names_len = 1 + strlen(".shstrtab") + 1, body = 64;
        for (size_t i = 0; i < n; i++)
                names_len += strlen(secs[i].name) + 1;
        size_t *offs = calloc(n, sizeof *offs);
        ck_assert_ptr_nonnull(offs);
        for (size_t i = 0; i < n; i++) {
                body = (body + 7) & ~(size_t)7;
                offs[i] = body;
                body += secs[i].len;
        }
        size_t names_off = body, shoff = (names_off + names_len + 7) & ~(size_t)7;
        size_t shnum = 1 + n + extra + 1;
        *len = shoff + shnum * sizeof(Elf64_Shdr);
        unsigned char *b = calloc(1, *len);
        ck_assert_ptr_nonnull(b);
        Elf64_Ehdr h = { .e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT, .e_shoff = shoff,
                         .e_ehsize = sizeof h, .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = (uint16_t)shnum,
                         .e_shstrndx = (uint16_t)(shnum - 1) };
        memcpy(h.e_ident, ELFMAG, SELFMAG);
        h.e_ident[EI_CLASS] = ELFCLASS64;
        h.e_ident[EI_DATA] = ELFDATA2LSB;
        h.e_ident[EI_VERSION] = EV_CURRENT;
        memcpy(b, &h, sizeof h);
        Elf64_Shdr *sh = (Elf64_Shdr *)(b + shoff);
        char *names = (char *)b + names_off;
        size_t at = 1;
        for (size_t i = 0; i < n; i++) {
                memcpy(b + offs[i], secs[i].data, secs[i].len);
                sh[1 + i] = (Elf64_Shdr){ .sh_name = (uint32_t)at, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
                                          .sh_offset = offs[i], .sh_size = secs[i].len, .sh_addralign = 8 };
                memcpy(names + at, secs[i].name, strlen(secs[i].name) + 1);
                at += strlen(secs[i].name) + 1;
        }
        for (size_t i = 0; i < extra; i++)
                sh[1 + n + i] = sh[1];
        sh[shnum - 1] = (Elf64_Shdr){ .sh_name = (uint32_t)at, .sh_type = SHT_STRTAB, .sh_offset = names_off,
                                      .sh_size = names_len, .sh_addralign = 1 };
        memcpy(names + at, ".shstrtab", sizeof ".shstrtab");
        free(offs);
        return b;
}

/* Read the object of LEN bytes at B named PATH. */
static void read_object(const unsigned char *b, size_t len, const char *path, struct xpu_object *o) {
        int fd = xpu_test_memfd(b, len);
        ck_assert_int_eq(xpu_object_read(fd, path, len, o), 0);
        close(fd);
}

/* An ELF object of no device code named PATH (what the library table makes of the name). */
static void plain_object(const char *path, struct xpu_object *o) {
        static const char text[] = "plain bytes";
        const struct sec s[] = { { ".rodata", text, sizeof text } };
        size_t len;
        unsigned char *b = build_elf(s, 1, 0, &len);
        read_object(b, len, path, o);
        free(b);
}

static bool has(char *const *v, const char *s) {
        for (char *const *p = v; p && *p; p++)
                if (strcmp(*p, s) == 0)
                        return true;
        return false;
}

/* One stored SASS entry for sm_80 with no payload (64-byte header) at P. */
static void sass_entry(unsigned char *p) {
        memset(p, 0, 64);
        p[0] = 2;  /* kind: SASS */
        p[4] = 64; /* header size */
        p[0x1c] = 80;
}

/* A fatbin container of N such entries at P; returns its size. */
static size_t container(unsigned char *p, size_t n) {
        uint32_t magic = XPU_FATBIN_MAGIC;
        uint64_t fat = 64 * n;
        memset(p, 0, 16);
        memcpy(p, &magic, 4);
        p[4] = 1;
        p[6] = 16;
        memcpy(p + 8, &fat, 8);
        for (size_t i = 0; i < n; i++)
                sass_entry(p + 16 + 64 * i);
        return 16 + fat;
}

START_TEST(test_library_is_the_object) {
        /* cuDNN 9's seven libraries match one table row ("libcudnn_*"); each is its own library. */
        struct xpu_object o;
        plain_object("usr/lib/libcudnn_adv.so.9", &o);
        ck_assert_str_eq(o.library_name, "libcudnn_adv");
        ck_assert_str_eq(o.library->name, "libcudnn_*");
        ck_assert_uint_eq(o.layers, 1u << XPU_LAYER_DNN);
        cJSON *j = xpu_object_to_json(&o);
        ck_assert_str_eq(cJSON_GetObjectItem(j, "library")->valuestring, "libcudnn_adv");
        struct xpu_object back;
        char err[256];
        ck_assert_int_eq(xpu_object_from_json(j, &back, err, sizeof err), 0);
        ck_assert_str_eq(back.library_name, "libcudnn_adv");
        ck_assert_uint_eq(back.library->layer, XPU_LAYER_DNN);
        xpu_object_clear(&back);
        cJSON_Delete(j);
        xpu_object_clear(&o);
        /* A library not in the table has no library name. */
        plain_object("usr/lib/libplain.so.1", &o);
        ck_assert_ptr_null(o.library_name);
        ck_assert_ptr_null(o.library);
        xpu_object_clear(&o);
}
END_TEST

START_TEST(test_library_names_as_shipped) {
        /* Python wheels carry renamed copies (auditwheel, delocate: "-<8 hex digits>"), and a
         * DT_NEEDED may be a path. */
        const struct xpu_vendor_library *l = xpu_vendor_library_find("libcudart-6d56b25a.so.11.0");
        ck_assert_ptr_nonnull(l);
        ck_assert_str_eq(l->name, "libcudart");
        ck_assert_uint_eq(xpu_cudart_major("libcudart-6d56b25a.so.11.0"), 11);
        ck_assert_uint_eq(xpu_cudart_major("/opt/cuda/lib64/libcudart.so.13"), 13);
        ck_assert_str_eq(xpu_vendor_library_find("/opt/rocm/lib/libamdhip64.so.6")->name, "libamdhip64");
        ck_assert_str_eq(xpu_vendor_library_find("libnvrtc-3a20f2b6.so.11.1")->name, "libnvrtc");
        char stem[64];
        const char *version;
        ck_assert_int_eq(xpu_library_stem("libcudnn_ops-1a2b3c4d.so.9", stem, sizeof stem, &version), 0);
        ck_assert_str_eq(stem, "libcudnn_ops");
        ck_assert_str_eq(version, ".9");
        /* Not a hash: kept. */
        ck_assert_int_eq(xpu_library_stem("libfoo-1.2.so", stem, sizeof stem, NULL), 0);
        ck_assert_str_eq(stem, "libfoo-1.2");
        ck_assert_ptr_null(xpu_vendor_library_find("libcudart-6d56b25a.txt"));
        /* An object of that name is the library it was renamed from. */
        struct xpu_object o;
        plain_object("torch/lib/libcudart-6d56b25a.so.11.0", &o);
        ck_assert_str_eq(o.library_name, "libcudart");
        ck_assert_uint_eq(o.cudart_major, 11);
        ck_assert_uint_eq(o.vendors, XPU_CODE_VENDOR_NVIDIA);
        xpu_object_clear(&o);
}
END_TEST

START_TEST(test_device_code_section_nobits) {
        /* A .nv_fatbin that holds no bytes in the file (SHT_NOBITS) cannot be judged. */
        static const char text[] = "x";
        const struct sec s[] = { { ".nv_fatbin", text, sizeof text } };
        size_t len;
        unsigned char *b = build_elf(s, 1, 0, &len);
        Elf64_Ehdr h;
        memcpy(&h, b, sizeof h);
        Elf64_Shdr *sh = (Elf64_Shdr *)(b + h.e_shoff);
        sh[1].sh_type = SHT_NOBITS;
        struct xpu_object o;
        read_object(b, len, "usr/lib/libnobits.so", &o);
        ck_assert_str_eq(o.malformed, "section .nv_fatbin holds no bytes in the file (SHT_NOBITS)");
        ck_assert_uint_eq(o.vendors, XPU_CODE_VENDOR_NVIDIA);
        xpu_object_clear(&o);
        free(b);
}
END_TEST

START_TEST(test_marks_outside_symbol_tables) {
        /* cuSPARSE 12 registers its CUB kernels by names kept in .rodata, between its fatbin
         * containers, not in .dynstr. */
        unsigned char fat[16 + 64];
        container(fat, 1);
        static const char names[] = "\0_ZN3cub6detail11EmptyKernelIvEEvv\0";
        unsigned char rodata[sizeof fat * 2 + sizeof names];
        memcpy(rodata, fat, sizeof fat);
        memcpy(rodata + sizeof fat, names, sizeof names);
        memcpy(rodata + sizeof fat + sizeof names, fat, sizeof fat);
        const struct sec with[] = { { ".nv_fatbin", fat, sizeof fat }, { ".rodata", rodata, sizeof rodata } };
        size_t len;
        unsigned char *b = build_elf(with, 2, 0, &len);
        struct xpu_object o;
        read_object(b, len, "usr/lib/libcusparse.so.12", &o);
        ck_assert_ptr_null(o.malformed);
        ck_assert(o.layers & (1u << XPU_LAYER_PARALLEL_ALGORITHMS));
        ck_assert(o.layers & (1u << XPU_LAYER_SPARSE));
        ck_assert(has(o.nv_sections, ".rodata"));
        xpu_object_clear(&o);
        free(b);
        /* The same .rodata with another name: no mark. */
        memcpy(rodata + sizeof fat + 1, "_ZN3foo", 7);
        b = build_elf(with, 2, 0, &len);
        read_object(b, len, "usr/lib/libcusparse.so.12", &o);
        ck_assert(!(o.layers & (1u << XPU_LAYER_PARALLEL_ALGORITHMS)));
        xpu_object_clear(&o);
        free(b);
}
END_TEST

START_TEST(test_empty_device_code_section) {
        /* A .nv_fatbin of garbage holds no container: malformed, as a cut-off one is. */
        unsigned char junk[4096];
        for (size_t i = 0; i < sizeof junk; i++)
                junk[i] = (unsigned char)(i * 131 + 7);
        const struct sec s[] = { { ".nv_fatbin", junk, sizeof junk } };
        size_t len;
        unsigned char *b = build_elf(s, 1, 0, &len);
        struct xpu_object o;
        read_object(b, len, "usr/lib/libgarbage.so", &o);
        ck_assert_str_eq(o.malformed, "section .nv_fatbin holds no valid fatbin container");
        ck_assert_uint_eq(o.vendors, XPU_CODE_VENDOR_NVIDIA);
        xpu_object_clear(&o);
        free(b);
        const struct sec h[] = { { ".hip_fatbin", junk, sizeof junk } };
        b = build_elf(h, 1, 0, &len);
        read_object(b, len, "usr/lib/libgarbage.so", &o);
        ck_assert_str_eq(o.malformed, "section .hip_fatbin holds no valid offload bundle");
        ck_assert_uint_eq(o.vendors, XPU_CODE_VENDOR_AMD);
        xpu_object_clear(&o);
        free(b);
        /* A standalone fatbin file whose header is not a container's. */
        unsigned char fake[64] = { 0x50, 0xed, 0x55, 0xba, 9, 0, 16, 0 };
        int fd = xpu_test_memfd(fake, sizeof fake);
        ck_assert_int_eq(xpu_object_read(fd, "k.fatbin", sizeof fake, &o), 0);
        ck_assert_str_eq(o.malformed, "the file holds no valid fatbin container");
        xpu_object_clear(&o);
        close(fd);
}
END_TEST

START_TEST(test_names_full_in_a_ccob) {
        /* 400 targets inside one compressed bundle: more than an object keeps, said as such (the
         * reason was empty). */
        size_t len;
        unsigned char *b = xpu_test_read_fixture("devcode/amd/many-v2-zlib.ccob", &len);
        struct xpu_object o;
        read_object(b, len, "k/many.ccob", &o);
        ck_assert_str_eq(o.malformed, "file: more device code than any real library holds (over 4194304 entries or "
                                      "256 architectures): not read further");
        ck_assert_uint_eq(xpu_strv_length(o.amd_gfx), XPU_OBJECT_NAMES_MAX);
        xpu_object_clear(&o);
        free(b);
}
END_TEST

START_TEST(test_overlapping_sections_read_once) {
        /* Thousands of section headers naming one region multiplied the work by their number. */
        size_t n = 1000;
        unsigned char *fat = malloc(16 + 64 * n);
        size_t flen = container(fat, n);
        const struct sec s[] = { { ".nv_fatbin", fat, flen } };
        size_t len;
        unsigned char *b = build_elf(s, 1, 5000, &len);
        struct xpu_object o;
        read_object(b, len, "usr/lib/liboverlap.so", &o);
        ck_assert_str_eq(o.malformed, "sections .nv_fatbin and .nv_fatbin overlap in the file: each byte is read once, "
                                      "for the first");
        ck_assert(has(o.nv_sass, "sm_80"));
        ck_assert_uint_eq(o.work.entries, n + 1); /* one container of N entries, read once */
        xpu_object_clear(&o);
        free(b);
        free(fat);
}
END_TEST

START_TEST(test_entry_budget) {
        /* Containers whose headers sit inside each other's entries: each one found is walked
         * again, so a few hundred KiB cost millions of entry headers; the object stops at its
         * budget. Entry I spans [32 + 64 I, 96 + 64 I); container K's header is in entry K - 1's
         * bytes 48..63, which the reader does not use. */
        size_t n = 5200, blen = 32 + 64 * n;
        unsigned char *buf = calloc(1, blen);
        for (size_t i = 0; i < n; i++)
                sass_entry(buf + 32 + 64 * i);
        for (size_t k = 0; k < n; k++) {
                unsigned char *p = buf + 16 + 64 * k;
                uint32_t magic = XPU_FATBIN_MAGIC;
                uint64_t fat = 64 * (n - k);
                memcpy(p, &magic, 4);
                p[4] = 1;
                p[5] = 0;
                p[6] = 16;
                p[7] = 0;
                memcpy(p + 8, &fat, 8);
        }
        const struct sec s[] = { { ".nv_fatbin", buf, blen } };
        size_t len;
        unsigned char *b = build_elf(s, 1, 0, &len);
        struct xpu_object o;
        read_object(b, len, "usr/lib/libnested.so", &o);
        ck_assert_ptr_nonnull(o.malformed);
        ck_assert_ptr_nonnull(strstr(o.malformed, "not read further"));
        ck_assert_uint_le(o.work.entries, XPU_OBJECT_WORK_ENTRIES_MAX + XPU_FATBIN_ENTRIES_MAX + 1);
        ck_assert(has(o.nv_sass, "sm_80"));
        xpu_object_clear(&o);
        free(b);
        free(buf);
}
END_TEST

START_TEST(test_index_lists_bounded) {
        /* The audit keeps at most XPU_OBJECT_NAMES_MAX names per list; an index with more was not
         * written by it, and is refused naming the field. Names: sm_1 ... sm_255, then sm_1a ... */
        size_t cap = 256 + 300 * 12;
        char *text = malloc(cap);
        struct xpu_object *objects;
        size_t count;
        char err[512];
        for (size_t n = XPU_OBJECT_NAMES_MAX + 1; n >= XPU_OBJECT_NAMES_MAX; n--) {
                size_t at = (size_t)snprintf(text, cap, "{\"version\": 1, \"objects\": [{\"path\": \"usr/lib/libx.so\", "
                                                        "\"kind\": \"elf\", \"vendor\": \"nvidia\", \"nvidia\": {\"sass\": [");
                for (size_t i = 0; i < n; i++)
                        at += (size_t)snprintf(text + at, cap - at, "%s\"sm_%zu%s\"", i ? "," : "", i % 255 + 1,
                                               i >= 255 ? "a" : "");
                at += (size_t)snprintf(text + at, cap - at, "]}}]}");
                int r = xpu_index_parse(text, at, &objects, &count, err, sizeof err);
                if (n > XPU_OBJECT_NAMES_MAX) {
                        ck_assert_int_eq(r, -EINVAL);
                        ck_assert_str_eq(err, "object \"usr/lib/libx.so\": \"sass\" holds more than 256 names, more than "
                                              "the audit writes");
                        continue;
                }
                ck_assert_msg(r == 0, "%s", err);
                ck_assert_uint_eq(count, 1);
                ck_assert_uint_eq(xpu_strv_length(objects[0].nv_sass), XPU_OBJECT_NAMES_MAX);
                xpu_object_clear(&objects[0]);
                free(objects);
        }
        free(text);
}
END_TEST

START_TEST(test_index_only_what_the_audit_writes) {
        /* Each was read before, and judged as something else than it is. */
        static const struct {
                const char *object, *why;
        } bad[] = {
                { "\"vendor\": \"nvidia\", \"nvidia\": {\"sass\": [\"sm_4294967385\"]}",
                  "\"sm_4294967385\" is not a SASS (sm_XY) architecture name" },
                { "\"vendor\": \"amd\", \"amd\": {\"gfx\": [\"gfxq\"]}", "\"gfxq\" is not an AMD target ID" },
                { "\"vendor\": \"amd\", \"amd\": {\"gfx\": [\"gfx90a\", \"gfx90a\"]}", "\"gfx\" names \"gfx90a\" twice" },
                { "\"vendor\": \"nvidia\", \"amd\": {\"gfx\": [\"gfx90a\"]}",
                  "\"vendor\" does not name the vendor of its device code" },
                { "\"size_bytes\": 1e999", "\"size_bytes\" is not a size in bytes" },
                { "\"vendor\": \"nvidia\", \"nvidia\": {\"ptx\": [\"compute_90\"], \"ptx_isa\": {\"compute_90\": "
                  "\"4294967305.0\"}}",
                  "\"ptx_isa\" has no version for compute_90" },
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                char text[512], err[512] = "", want[256];
                int n = snprintf(text, sizeof text,
                                 "{\"version\": 1, \"objects\": [{\"path\": \"x\", \"kind\": \"elf\", %s}]}", bad[i].object);
                struct xpu_object *objects;
                size_t count;
                ck_assert_int_eq(xpu_index_parse(text, (size_t)n, &objects, &count, err, sizeof err), -EINVAL);
                snprintf(want, sizeof want, "object \"x\": %s", bad[i].why);
                ck_assert_str_eq(err, want);
        }
        /* A NUL inside a name would end it early ("gfx90a\u0000junk" read as gfx90a). */
        static const char nul[] = "{\"version\": 1, \"objects\": [{\"path\": \"x\", \"kind\": \"elf\", \"vendor\": "
                                  "\"amd\", \"amd\": {\"gfx\": [\"gfx90a\\u0000junk\"]}}]}";
        struct xpu_object *objects;
        size_t count;
        char err[512];
        ck_assert_int_eq(xpu_index_parse(nul, sizeof nul - 1, &objects, &count, err, sizeof err), -EINVAL);
        ck_assert_str_eq(err, "a string holds a NUL (\\u0000), which no name has");
}
END_TEST

START_TEST(test_index_values_bounded) {
        /* A list of millions of empty strings is refused before it is parsed (cJSON allocates per
         * value, and parsing alone took seconds). */
        size_t n = 600000, cap = 128 + n * 3;
        char *text = malloc(cap);
        size_t at = (size_t)snprintf(text, cap, "{\"version\": 1, \"objects\": [{\"path\": \"x\", \"kind\": \"elf\", "
                                                "\"amd\": {\"gfx\": [");
        for (size_t i = 0; i < n; i++) {
                memcpy(text + at, i ? ",\"\"" : "\"\"", i ? 3 : 2);
                at += i ? 3 : 2;
        }
        memcpy(text + at, "]}}]}", 5);
        at += 5;
        struct xpu_object *objects;
        size_t count;
        char err[512];
        ck_assert_int_eq(xpu_index_parse(text, at, &objects, &count, err, sizeof err), -EINVAL);
        ck_assert_str_eq(err, "more than 131072 JSON values, more than an index of any real image holds; it is not read");
        /* Commas and brackets inside strings are not values. */
        at = (size_t)snprintf(text, cap, "{\"version\": 1, \"objects\": [{\"path\": \"");
        for (size_t i = 0; i < 2000; i++)
                text[at++] = ',';
        at += (size_t)snprintf(text + at, cap - at, "\\\"[{\", \"kind\": \"elf\"}]}");
        ck_assert_int_eq(xpu_index_parse(text, at, &objects, &count, err, sizeof err), 0);
        ck_assert_uint_eq(count, 1);
        ck_assert_uint_eq(strlen(objects[0].path), 2003);
        xpu_object_clear(&objects[0]);
        free(objects);
        free(text);
}
END_TEST

/* ---- the fixtures: what the audit reads from real objects (nvcc 13, clang 14, gcc) ---- */

/* Read tests/fixtures/devcode/REL as the audit would; asserts it is an object. */
static void read_fixture(const char *rel, struct xpu_object *o) {
        char path[512];
        snprintf(path, sizeof path, "%s/tests/fixtures/devcode/%s", XPU_SRCDIR, rel);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        struct stat st;
        ck_assert_int_eq(fstat(fd, &st), 0);
        ck_assert_int_eq(xpu_object_read(fd, rel, (uint64_t)st.st_size, o), 0);
        close(fd);
}

START_TEST(test_object_nvidia) {
        struct xpu_object o;
        /* nvcc -shared: the device-link stub (sm_80 without kernels) is left out; the kernel's sm_80
         * and compute_90 (ISA 9.0) are there; it needs libcudart.so.13. */
        read_fixture("nvidia/libkernel.so", &o);
        ck_assert_int_eq(o.kind, XPU_OBJECT_ELF);
        ck_assert_uint_eq(o.vendors, XPU_CODE_VENDOR_NVIDIA);
        ck_assert(has(o.nv_sass, "sm_80") && has(o.nv_ptx, "compute_90"));
        ck_assert(has(o.nv_sections, ".nv_fatbin"));
        ck_assert(has(o.needed, "libcudart.so.13"));
        ck_assert_uint_eq(o.cudart_major, 13);
        ck_assert(o.layers & (1u << XPU_LAYER_RUNTIME));
        ck_assert_uint_eq(o.nv_containers, 2);
        ck_assert_ptr_null(o.malformed);
        bool ptx90 = false;
        for (size_t i = 0; i < o.n_nv_code; i++)
                ptx90 |= o.nv_code[i].kind == 1 && o.nv_code[i].sm == 90 && o.nv_code[i].ptx_major == 9 &&
                         o.nv_code[i].ptx_minor == 0;
        ck_assert(ptx90);
        xpu_object_clear(&o);

        /* -rdc: the relocatable copy is reported apart and never judged. */
        read_fixture("nvidia/librdc.so", &o);
        ck_assert(has(o.nv_rel_sass, "sm_90") && has(o.nv_sass, "sm_90"));
        ck_assert(has(o.nv_sections, "__nv_relfatbin") && has(o.nv_sections, ".nv_fatbin"));
        for (size_t i = 0; i < o.n_nv_code; i++)
                ck_assert_uint_eq(o.nv_code[i].sm, 90);
        xpu_object_clear(&o);

        read_fixture("nvidia/mixed.fatbin", &o);
        ck_assert_int_eq(o.kind, XPU_OBJECT_FATBIN);
        ck_assert(has(o.nv_sass, "sm_90a") && has(o.nv_sass, "sm_100f") && has(o.nv_sass, "sm_80"));
        ck_assert(has(o.nv_sections, "file"));
        ck_assert(o.nv_compression & XPU_NV_ZSTD);
        xpu_object_clear(&o);

        read_fixture("nvidia/lz4.fatbin", &o);
        ck_assert_uint_eq(o.nv_compression, XPU_NV_LZ4);
        xpu_object_clear(&o);

        read_fixture("nvidia/lto.fatbin", &o);
        ck_assert(has(o.nv_lto, "lto_86"));
        ck_assert_uint_eq(o.n_nv_code, 0); /* LTO-IR is never loaded */
        ck_assert(!xpu_object_has_code(&o, XPU_CODE_VENDOR_NVIDIA));
        xpu_object_clear(&o);

        read_fixture("nvidia/kernel.cubin", &o);
        ck_assert_int_eq(o.kind, XPU_OBJECT_CUBIN);
        ck_assert(has(o.nv_sass, "sm_90"));
        xpu_object_clear(&o);

        read_fixture("nvidia/kernel.ptx", &o);
        ck_assert_int_eq(o.kind, XPU_OBJECT_PTX);
        ck_assert(has(o.nv_ptx, "compute_90"));
        ck_assert_uint_eq(o.nv_code[0].ptx_major, 9);
        xpu_object_clear(&o);
}
END_TEST

START_TEST(test_object_amd_and_host) {
        struct xpu_object o;
        read_fixture("amd/libhip.so", &o);
        ck_assert_int_eq(o.kind, XPU_OBJECT_ELF);
        ck_assert_uint_eq(o.vendors, XPU_CODE_VENDOR_AMD);
        ck_assert(has(o.amd_gfx, "gfx90a:sramecc+:xnack-") && has(o.amd_gfx, "gfx1030"));
        ck_assert(has(o.amd_compression, "ccob-v2-zstd"));
        ck_assert(has(o.amd_sections, ".hip_fatbin"));
        ck_assert(has(o.needed, "libamdhip64.so.5"));
        xpu_object_clear(&o);

        read_fixture("amd/kernel.hsaco", &o);
        ck_assert_int_eq(o.kind, XPU_OBJECT_CODE_OBJECT);
        ck_assert(has(o.amd_gfx, "gfx1030"));
        xpu_object_clear(&o);

        read_fixture("amd/generic.bundle", &o);
        ck_assert_int_eq(o.kind, XPU_OBJECT_BUNDLE);
        ck_assert(has(o.amd_gfx, "gfx11-generic") && has(o.amd_gfx, "gfx10-3-generic"));
        xpu_object_clear(&o);

        read_fixture("amd/two-v1-zlib.ccob", &o);
        ck_assert(has(o.amd_compression, "ccob-v1-zlib") && has(o.amd_gfx, "gfx1030"));
        xpu_object_clear(&o);

        read_fixture("elf/libcuda.so.1", &o);
        ck_assert(o.stub && !o.driver_copy);
        ck_assert_str_eq(o.library->name, "libcuda");
        xpu_object_clear(&o);

        read_fixture("elf/libapp.so", &o);
        ck_assert_uint_eq(o.vendors, XPU_CODE_VENDOR_NVIDIA);
        ck_assert(has(o.needed, "libcudart.so.13") && has(o.needed, "libcublas.so.13") && !has(o.needed, "libc.so.6"));
        ck_assert_uint_eq(o.layers, (1u << XPU_LAYER_RUNTIME) | (1u << XPU_LAYER_BLAS) |
                                            (1u << XPU_LAYER_PARALLEL_ALGORITHMS));
        ck_assert(!xpu_object_has_code(&o, XPU_CODE_VENDOR_NVIDIA));
        xpu_object_clear(&o);

        read_fixture("elf/libplain.so", &o);
        ck_assert_uint_eq(o.vendors, 0);
        ck_assert_uint_eq(o.layers, 0);
        xpu_object_clear(&o);
}
END_TEST

/* Damaged input: reported as malformed, never a crash, never a guess. */
START_TEST(test_object_malformed) {
        size_t len;
        unsigned char *lib = xpu_test_read_fixture("devcode/nvidia/libkernel.so", &len);
        struct xpu_object o;
        /* ELF header only: the section headers are past the end. */
        int fd = xpu_test_memfd(lib, 200);
        ck_assert_int_eq(xpu_object_read(fd, "cut.so", 200, &o), 0);
        ck_assert_ptr_nonnull(o.malformed);
        ck_assert_uint_eq(o.vendors, 0);
        xpu_object_clear(&o);
        close(fd);
        /* Not an object at all: text and zeros. */
        static const unsigned char zeros[4096];
        fd = xpu_test_memfd(zeros, sizeof zeros);
        ck_assert_int_eq(xpu_object_read(fd, "libzero.so", sizeof zeros, &o), -ENOEXEC);
        close(fd);
        fd = xpu_test_memfd("not ptx\n", 8);
        ck_assert_int_eq(xpu_object_read(fd, "x.ptx", 8, &o), -ENOEXEC);
        close(fd);
        /* A fatbin cut in its entries. */
        unsigned char *fb = xpu_test_read_fixture("devcode/nvidia/mixed.fatbin", &len);
        fd = xpu_test_memfd(fb, 300);
        ck_assert_int_eq(xpu_object_read(fd, "cut.fatbin", 300, &o), 0);
        ck_assert_ptr_nonnull(o.malformed);
        ck_assert_ptr_nonnull(strstr(o.malformed, "malformed"));
        xpu_object_clear(&o);
        close(fd);
        free(fb);
        free(lib);
}
END_TEST

static Suite *limits_suite(void) {
        Suite *s = suite_create("devcode-object");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_library_is_the_object);
        tcase_add_test(tc, test_library_names_as_shipped);
        tcase_add_test(tc, test_device_code_section_nobits);
        tcase_add_test(tc, test_marks_outside_symbol_tables);
        tcase_add_test(tc, test_empty_device_code_section);
        tcase_add_test(tc, test_names_full_in_a_ccob);
        tcase_add_test(tc, test_overlapping_sections_read_once);
        tcase_add_test(tc, test_entry_budget);
        tcase_add_test(tc, test_index_lists_bounded);
        tcase_add_test(tc, test_index_values_bounded);
        tcase_add_test(tc, test_index_only_what_the_audit_writes);
        suite_add_tcase(s, tc);
        TCase *fx = tcase_create("fixtures");
        tcase_set_timeout(fx, 30);
        tcase_add_test(fx, test_object_nvidia);
        tcase_add_test(fx, test_object_amd_and_host);
        tcase_add_test(fx, test_object_malformed);
        suite_add_tcase(s, fx);
        return s;
}

int main(void) {
        return xpu_test_run(limits_suite());
}
