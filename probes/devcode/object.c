/* SPDX-License-Identifier: Apache-2.0 */
/* One file of an image: identity, vendor ties and device code (object.h has the contract). */
#include "devcode/object.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/macro.h"
#include "base/strv.h"
#include "devcode/bundle.h"
#include "devcode/ccob.h"
#include "devcode/compat.h"
#include "devcode/elf.h"
#include "devcode/fatbin.h"
#include "devcode/le.h"

#ifndef EM_CUDA
#define EM_CUDA 190
#endif
#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif

/* A driver library whose .text is smaller than this is a stub (CUDA 13's stubs/libcuda.so has 7 KiB
 * of code; a real libcuda.so.580 has tens of MiB). */
#define DRIVER_STUB_TEXT_MAX (1u << 20)
/* String tables read for Thrust/CUB/rocPRIM/hipCUB instantiations are at most this long. */
#define SYMBOL_STRINGS_MAX (8u << 20)
/* Bytes of a PTX file or of a code object's notes read for the target. */
#define TEXT_HEAD_MAX (64u << 10)

const char *xpu_object_kind_name(enum xpu_object_kind k) {
        static const char *const names[_XPU_OBJECT_KIND_MAX] = {
                [XPU_OBJECT_ELF] = "elf",       [XPU_OBJECT_FATBIN] = "fatbin", [XPU_OBJECT_CUBIN] = "cubin",
                [XPU_OBJECT_PTX] = "ptx",       [XPU_OBJECT_BUNDLE] = "bundle", [XPU_OBJECT_CODE_OBJECT] = "code-object",
        };
        return (unsigned)k < _XPU_OBJECT_KIND_MAX ? names[k] : NULL;
}

int xpu_object_kind_from_name(const char *s) {
        for (unsigned k = 0; k < _XPU_OBJECT_KIND_MAX && s; k++)
                if (strcmp(s, xpu_object_kind_name((enum xpu_object_kind)k)) == 0)
                        return (int)k;
        return -EINVAL;
}

bool xpu_object_has_code(const struct xpu_object *o, unsigned vendor) {
        if (vendor & XPU_CODE_VENDOR_NVIDIA)
                return o->n_nv_code > 0;
        if (vendor & XPU_CODE_VENDOR_AMD)
                return o->amd_gfx && o->amd_gfx[0];
        return false;
}

void xpu_object_clear(struct xpu_object *o) {
        free(o->path);
        free(o->soname);
        xpu_strv_free(o->needed);
        free(o->nv_code);
        char **const *lists[] = { &o->nv_sass,        &o->nv_ptx,          &o->nv_lto,          &o->nv_rel_sass,
                                  &o->nv_rel_ptx,     &o->nv_sections,     &o->amd_gfx,         &o->amd_compression,
                                  &o->amd_sections };
        for (size_t i = 0; i < ELEMENTSOF(lists); i++)
                xpu_strv_free(*lists[i]);
        free(o->malformed);
        memset(o, 0, sizeof *o);
}

/* Distinct names one list of an object keeps (real libraries: under 40 architectures); more is
 * a crafted file, and keeping them all would make every addition slower. */
#define NAMES_MAX 256u
/* The largest section scanned (the largest real .nv_fatbin, cuBLASLt 13's, is 140 MB): a bound on
 * the time one crafted or sparse file can take. */
#define SECTION_SCAN_MAX (4ull << 30)
/* The highest SM number taken for real (CUDA 13: 121). */
#define SM_MAX 255u

/* Append S to *V unless it is there. Returns 0, -E2BIG when *V holds NAMES_MAX names, -ENOMEM. */
static int add_unique(char ***v, const char *s) {
        size_t n = 0;
        for (char **p = *v; p && *p; p++, n++)
                if (strcmp(*p, s) == 0)
                        return 0;
        return n >= NAMES_MAX ? -E2BIG : xpu_strv_push(v, s);
}

/* Record the first problem only: it names what to look at. */
_printf_(2, 3) static void set_malformed(struct xpu_object *o, const char *fmt, ...) {
        if (o->malformed)
                return;
        va_list ap;
        va_start(ap, fmt);
        if (vasprintf(&o->malformed, fmt, ap) < 0)
                o->malformed = NULL;
        va_end(ap);
}

static int add_nv_code(struct xpu_object *o, const struct xpu_nv_code *c) {
        for (size_t i = 0; i < o->n_nv_code; i++)
                if (memcmp(&o->nv_code[i], c, sizeof *c) == 0)
                        return 0;
        if (o->n_nv_code >= 2 * NAMES_MAX)
                return -E2BIG;
        struct xpu_nv_code *n = realloc(o->nv_code, (o->n_nv_code + 1) * sizeof *n);
        if (!n)
                return -ENOMEM;
        o->nv_code = n;
        o->nv_code[o->n_nv_code++] = *c;
        return 0;
}

/* ---- mapped, SIGBUS-guarded scans ------------------------------------------------------------
 * A file that shrinks while it is mapped raises SIGBUS on the next access past its new end; the
 * scan is abandoned and the object reported as changed, instead of the program dying. */
static __thread sigjmp_buf *bus_jump;

static void on_sigbus(int sig) {
        if (bus_jump)
                siglongjmp(*bus_jump, 1);
        signal(sig, SIG_DFL); /* not ours: the access repeats and kills as it would have */
}

enum scan_what {
        SCAN_FATBIN,       /* loadable NVIDIA containers */
        SCAN_RELFATBIN,    /* relocatable NVIDIA containers (__nv_relfatbin) */
        SCAN_BUNDLE,       /* AMD offload bundles */
};

struct scan {
        struct xpu_object *o;
        const char *section;
        enum scan_what what;
        const uint8_t *buf;
        size_t len;
        size_t found;
};

static int nv_container(const struct xpu_fatbin_container *c, void *userdata) {
        struct scan *s = userdata;
        struct xpu_object *o = s->o;
        bool rel = s->what == SCAN_RELFATBIN;
        char name[24];
        int r;
        s->found++;
        if (c->malformed)
                set_malformed(o, "%s: the fatbin container at offset %llu is malformed: %s", s->section,
                              (unsigned long long)c->offset, c->reason);
        if (!rel)
                o->nv_containers++;
        for (size_t i = 0; i < c->n_entries; i++) {
                const struct xpu_fatbin_entry *e = &c->entries[i];
                if (e->compression == XPU_FATBIN_LZ4)
                        o->nv_compression |= XPU_NV_LZ4;
                else if (e->compression == XPU_FATBIN_ZSTD)
                        o->nv_compression |= XPU_NV_ZSTD;
                if (e->sm == 0 || e->sm > SM_MAX) {
                        set_malformed(o, "%s: a fatbin entry names SM %u, which no GPU has", s->section, e->sm);
                        continue;
                }
                xpu_fatbin_entry_name(e, name, sizeof name);
                if (e->kind == XPU_FATBIN_LTO) {
                        r = add_unique(&o->nv_lto, name);
                } else if (e->kind != XPU_FATBIN_SASS && e->kind != XPU_FATBIN_PTX) {
                        r = 0; /* a kind this reader does not know: nothing to judge */
                } else if (rel) {
                        r = add_unique(e->kind == XPU_FATBIN_SASS ? &o->nv_rel_sass : &o->nv_rel_ptx, name);
                } else if (e->kind == XPU_FATBIN_SASS && !e->has_kernels) {
                        r = 0; /* a device-link stub: no kernel to run */
                } else {
                        const struct xpu_nv_code code = {
                                .kind = (uint8_t)e->kind,
                                .variant = (uint8_t)e->variant,
                                .sm = (uint16_t)(e->sm > UINT16_MAX ? UINT16_MAX : e->sm),
                                .ptx_major = (uint8_t)(e->ptx_major > 255 ? 255 : e->ptx_major),
                                .ptx_minor = (uint8_t)(e->ptx_minor > 255 ? 255 : e->ptx_minor),
                        };
                        r = add_unique(e->kind == XPU_FATBIN_SASS ? &o->nv_sass : &o->nv_ptx, name);
                        if (r == 0)
                                r = add_nv_code(o, &code);
                }
                if (r < 0)
                        return r;
        }
        return 0;
}

/* A target ID as LLVM writes them: a known processor form (gfx<major><minor><stepping> or a
 * generic processor) and only the features it defines. */
static bool target_id_valid(const char *id) {
        struct xpu_gfx_target t;
        char v[16];
        if (xpu_gfx_target_parse(id, &t) < 0)
                return false;
        return xpu_gfx_override_version(t.processor, v, sizeof v) == 0 ||
               (xpu_startswith(t.processor, "gfx") && strlen(t.processor) > 11 &&
                strcmp(t.processor + strlen(t.processor) - 8, "-generic") == 0);
}

/* A bundle's device entries give the targets ("hip"/"hipv4"/"hipv5" kinds on an amdgcn triple). */
static int amd_entries(struct scan *s, const struct xpu_bundle *b) {
        for (size_t i = 0; i < b->n_entries; i++) {
                const struct xpu_bundle_entry *e = &b->entries[i];
                if (!xpu_startswith(e->kind, "hip") || !xpu_startswith(e->triple, "amdgcn") || !e->target[0])
                        continue;
                if (!target_id_valid(e->target)) {
                        set_malformed(s->o, "%s: an offload bundle entry has an invalid target ID", s->section);
                        continue;
                }
                int r = add_unique(&s->o->amd_gfx, e->target);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The plain bundle inside a CCOB. */
static int amd_inner(const struct xpu_bundle *b, void *userdata) {
        struct scan *s = userdata;
        if (b->malformed)
                set_malformed(s->o, "%s: the bundle inside a CCOB is malformed: %s", s->section, b->reason);
        return amd_entries(s, b);
}

static int amd_bundle(const struct xpu_bundle *b, void *userdata) {
        struct scan *s = userdata;
        struct xpu_object *o = s->o;
        s->found++;
        if (b->malformed) {
                set_malformed(o, "%s: the offload bundle at offset %llu is malformed: %s", s->section,
                              (unsigned long long)b->offset, b->reason);
                return amd_entries(s, b);
        }
        if (!b->compressed || b->n_entries > 0)
                return amd_entries(s, b); /* plain, or the inner bundle of a CCOB */
        static const char *const methods[] = { [XPU_CCOB_ZLIB] = "zlib", [XPU_CCOB_ZSTD] = "zstd" };
        char comp[32];
        snprintf(comp, sizeof comp, "ccob-v%u-%s", b->ccob_version,
                 b->ccob_method < ELEMENTSOF(methods) ? methods[b->ccob_method] : "unknown");
        int r = add_unique(&o->amd_compression, comp);
        if (r < 0)
                return r;
        char err[256];
        r = xpu_ccob_read(s->buf, s->len, b, amd_inner, s, err, sizeof err);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                set_malformed(o, "%s: the compressed offload bundle at offset %llu cannot be read: %s", s->section,
                              (unsigned long long)b->offset, err);
        return 0;
}

/* Map FD[OFFSET, OFFSET + LEN) read-only and run the bundle scan over it, in place (a CCOB's
 * stream is decompressed from the mapping). Returns the scan's result, or 0 when the mapping failed
 * or the file shrank (recorded in the object). */
static int scan_mapped(int fd, uint64_t offset, uint64_t len, struct scan *s) {
        struct xpu_object *o = s->o;
        long page = sysconf(_SC_PAGESIZE);
        uint64_t start = offset & ~(uint64_t)(page - 1), delta = offset - start;
        if (len > SIZE_MAX - delta) {
                set_malformed(o, "%s: %llu bytes cannot be mapped", s->section, (unsigned long long)len);
                return 0;
        }
        size_t map_len = (size_t)(len + delta);
        uint8_t *map = mmap(NULL, map_len, PROT_READ, MAP_PRIVATE, fd, (off_t)start);
        if (map == MAP_FAILED) {
                if (errno == ENOMEM)
                        return -ENOMEM;
                set_malformed(o, "%s: cannot be mapped: %s", s->section, strerror(errno));
                return 0;
        }
        /* Headers are visited far apart: no readahead of the payloads between them. */
        (void)madvise(map, map_len, MADV_RANDOM);
        s->buf = map + delta;
        s->len = (size_t)len;
        struct sigaction sa = { .sa_handler = on_sigbus }, old;
        sigemptyset(&sa.sa_mask);
        sigjmp_buf jump;
        volatile int r = 0;
        (void)sigaction(SIGBUS, &sa, &old);
        if (sigsetjmp(jump, 1) == 0) {
                bus_jump = &jump;
                r = xpu_bundle_scan(s->buf, s->len, amd_bundle, s);
        } else {
                set_malformed(o, "%s: the file shrank while it was read; audit the image when nothing writes to it",
                              s->section);
                r = 0;
        }
        bus_jump = NULL;
        (void)sigaction(SIGBUS, &old, NULL);
        munmap(map, map_len);
        return r;
}

/* Run the scan WHAT over FD[OFFSET, OFFSET + LEN), SECTION naming it in messages: bundles in a
 * mapping, fatbin containers through pread (xpu_fatbin_scan_fd). Returns the number of containers
 * or bundles found, or -ENOMEM (other problems are recorded in the object). */
static int scan_region(int fd, uint64_t offset, uint64_t len, struct xpu_object *o, const char *section,
                       enum scan_what what) {
        if (len == 0)
                return 0;
        if (len > SECTION_SCAN_MAX) {
                set_malformed(o, "%s: %llu bytes, more device code than any real library has (at most %u GiB are "
                              "read): not read",
                              section, (unsigned long long)len, (unsigned)(SECTION_SCAN_MAX >> 30));
                return 0;
        }
        struct scan s = { .o = o, .section = section, .what = what };
        int r = what == SCAN_BUNDLE ? scan_mapped(fd, offset, len, &s)
                                    : xpu_fatbin_scan_fd(fd, offset, len, nv_container, &s);
        if (r == -ENODATA)
                set_malformed(o, "%s: the file shrank while it was read; audit the image when nothing writes to it",
                              section);
        else if (r < 0 && r != -ENOMEM && r != -E2BIG)
                set_malformed(o, "%s: cannot be read: %s", section, strerror(-r));
        if (r == -ENOMEM)
                return r;
        if (r == -E2BIG)
                set_malformed(o, "%s: more device code than any real library holds (over %u entries or %u architectures): "
                              "not read further",
                              section, XPU_FATBIN_SCAN_ENTRIES_MAX, NAMES_MAX);
        if (s.found > 0) {
                int q = add_unique(what == SCAN_BUNDLE ? &o->amd_sections : &o->nv_sections, section);
                if (q < 0)
                        return q;
        }
        return (int)s.found;
}

/* ---- ELF objects ------------------------------------------------------------------------------ */

/* Sections no device code lives in: loader and unwinder data of every library, and tables of
 * pointers (a byte array never needs relocating, so it never lands in .data.rel.ro or a GOT). */
static bool section_skipped(const char *name) {
        static const char *const names[] = {
                ".interp",       ".dynsym",       ".dynstr",        ".gnu.hash",         ".hash",
                ".eh_frame",     ".eh_frame_hdr", ".gcc_except_table", ".gnu.version",   ".gnu.version_r",
                ".gnu.version_d", ".dynamic",     ".got",           ".got.plt",          ".init_array",
                ".fini_array",   ".preinit_array", ".data.rel.ro",  ".tdata",            ".ctors",
                ".dtors",
                ".nvFatBinSegment", /* 24-byte wrappers pointing at .nv_fatbin */
        };
        if (xpu_startswith(name, ".rela") || xpu_startswith(name, ".rel.") || xpu_startswith(name, ".note"))
                return true;
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (strcmp(name, names[i]) == 0)
                        return true;
        return false;
}

/* Mangled-name prefixes of template instantiations from the parallel-algorithm libraries. */
static bool strings_have_parallel_algorithms(const char *s, size_t len) {
        static const char *const marks[] = { "_ZN6thrust", "_ZN3cub", "_ZN7rocprim", "_ZN6hipcub", "_ZNK6thrust" };
        for (size_t i = 0; i < ELEMENTSOF(marks); i++)
                if (memmem(s, len, marks[i], strlen(marks[i])))
                        return true;
        return false;
}

static int read_strings(int fd, const struct xpu_elf_section *sec, uint64_t file_size, char **ret) {
        if (sec->type != SHT_STRTAB || sec->size == 0 || sec->size > SYMBOL_STRINGS_MAX || sec->offset > file_size ||
            sec->size > file_size - sec->offset)
                return -EBADMSG;
        char *b = malloc(sec->size);
        if (!b)
                return -ENOMEM;
        ssize_t n = xpu_pread_full(fd, b, sec->size, sec->offset);
        if (n != (ssize_t)sec->size) {
                free(b);
                return n < 0 ? (int)n : -EBADMSG;
        }
        *ret = b;
        return 0;
}

static int add_layer_of(struct xpu_object *o, const struct xpu_vendor_library *l) {
        o->vendors |= l->vendor;
        o->layers |= 1u << l->layer;
        return 0;
}

/* A standalone cubin: one SASS entry, its SM from e_flags (ELF ABI version 8, OS ABI 0x41, as CUDA
 * 13 writes it: bits 8..15; older cubins: bits 0..7); kernels are its .text.<name> sections. The
 * header does not say whether the code is arch- or family-specific: it is taken as plain. */
static int read_cubin(const struct xpu_elf *e, struct xpu_object *o) {
        unsigned sm = e->osabi == 0x41 ? (e->e_flags >> 8) & 0xffu : e->e_flags & 0xffu;
        o->kind = XPU_OBJECT_CUBIN;
        o->vendors |= XPU_CODE_VENDOR_NVIDIA;
        o->layers |= 1u << XPU_LAYER_RUNTIME;
        int r = add_unique(&o->nv_sections, "file");
        if (r < 0)
                return r;
        bool kernels = false;
        for (size_t i = 0; i < e->n_sections && !kernels; i++)
                kernels = xpu_startswith(e->sections[i].name, ".text.");
        if (sm == 0) {
                set_malformed(o, "the cubin's ELF flags (0x%x) name no SM architecture", (unsigned)e->e_flags);
                return 0;
        }
        if (!kernels)
                return 0;
        char name[16];
        snprintf(name, sizeof name, "sm_%u", sm);
        const struct xpu_nv_code c = { .kind = XPU_FATBIN_SASS, .sm = (uint16_t)sm };
        r = add_unique(&o->nv_sass, name);
        return r < 0 ? r : add_nv_code(o, &c);
}

/* Characters of a target ID ("gfx90a:sramecc+:xnack-", "gfx11-generic"). */
static size_t target_id_span(const char *s, size_t max) {
        size_t n = 0;
        while (n < max && (('a' <= s[n] && s[n] <= 'z') || ('0' <= s[n] && s[n] <= '9') || s[n] == ':' ||
                           s[n] == '+' || s[n] == '-'))
                n++;
        return n;
}

/* A standalone AMDGPU code object: its target ID from the metadata note (amdhsa.target, code
 * object v3+: "amdgcn-amd-amdhsa--gfx90a:xnack-"). */
static int read_code_object(int fd, const struct xpu_elf *e, struct xpu_object *o) {
        static const char triple[] = "amdgcn-amd-amdhsa--";
        o->kind = XPU_OBJECT_CODE_OBJECT;
        o->vendors |= XPU_CODE_VENDOR_AMD;
        o->layers |= 1u << XPU_LAYER_RUNTIME;
        int r = add_unique(&o->amd_sections, "file");
        if (r < 0)
                return r;
        for (size_t i = 0; i < e->n_sections; i++) {
                const struct xpu_elf_section *s = &e->sections[i];
                if (s->type != SHT_NOTE || s->size == 0 || s->offset > e->file_size || s->size > e->file_size - s->offset)
                        continue;
                size_t len = s->size > TEXT_HEAD_MAX ? TEXT_HEAD_MAX : (size_t)s->size;
                _cleanup_free_ char *b = malloc(len + 1);
                if (!b)
                        return -ENOMEM;
                ssize_t n = xpu_pread_full(fd, b, len, s->offset);
                if (n <= 0)
                        continue;
                b[n] = '\0';
                const char *t = memmem(b, (size_t)n, triple, sizeof triple - 1);
                if (!t)
                        continue;
                t += sizeof triple - 1;
                size_t tl = target_id_span(t, (size_t)n - (size_t)(t - b));
                if (tl == 0 || tl >= 64)
                        continue;
                char id[64];
                memcpy(id, t, tl);
                id[tl] = '\0';
                if (!target_id_valid(id))
                        break;
                return add_unique(&o->amd_gfx, id);
        }
        set_malformed(o, "the code object has no target ID in its notes (amdhsa.target; code object v2 is not read)");
        return 0;
}

static int read_elf(int fd, const char *name, struct xpu_object *o) {
        struct xpu_elf e;
        const char *why = NULL;
        int r = xpu_elf_read(fd, &e, &why);
        o->kind = XPU_OBJECT_ELF;
        if (r == -EPROTONOSUPPORT)
                return -ENOEXEC; /* 32-bit or big-endian: no 64-bit GPU runtime loads it */
        if (r == -EBADMSG || r == -ENOEXEC) { /* the magic is there: an ELF object, damaged */
                set_malformed(o, "not a readable ELF64 little-endian object: %s",
                              r == -ENOEXEC ? "shorter than an ELF header" : why ? why : "bad headers");
                return 0;
        }
        if (r < 0)
                return r;
        if (e.machine == EM_CUDA) {
                r = read_cubin(&e, o);
                xpu_elf_clear(&e);
                return r;
        }
        if (e.machine == EM_AMDGPU) {
                r = read_code_object(fd, &e, o);
                xpu_elf_clear(&e);
                return r;
        }
        if (e.n_sections == 0 && (e.type == ET_DYN || e.type == ET_EXEC)) {
                /* The loader needs no section headers, this reader does: what the object needs and
                 * carries cannot be told. */
                set_malformed(o, "the object has no section headers, so its device code and the libraries it "
                                 "needs cannot be found");
                xpu_elf_clear(&e);
                return 0;
        }
        if (e.soname && !(o->soname = strdup(e.soname))) {
                xpu_elf_clear(&e);
                return -ENOMEM;
        }
        o->library = xpu_vendor_library_find(e.soname ? e.soname : name);
        if (o->library)
                add_layer_of(o, o->library);
        o->cudart_major = xpu_cudart_major(e.soname ? e.soname : name);
        for (size_t i = 0; i < e.n_needed && r >= 0; i++) {
                const struct xpu_vendor_library *l = xpu_vendor_library_find(e.needed[i]);
                if (!l)
                        continue;
                add_layer_of(o, l);
                r = add_unique(&o->needed, e.needed[i]);
                unsigned major = xpu_cudart_major(e.needed[i]);
                if (major > o->cudart_major)
                        o->cudart_major = major;
        }
        /* A device-code section ties the object to its vendor even when its code cannot be read. */
        if (xpu_elf_find(&e, ".nv_fatbin") || xpu_elf_find(&e, "__nv_relfatbin") || xpu_elf_find(&e, ".nvFatBinSegment"))
                o->vendors |= XPU_CODE_VENDOR_NVIDIA;
        if (xpu_elf_find(&e, ".hip_fatbin"))
                o->vendors |= XPU_CODE_VENDOR_AMD;
        bool nv = o->vendors & XPU_CODE_VENDOR_NVIDIA, amd = o->vendors & XPU_CODE_VENDOR_AMD;
        const struct xpu_elf_section *text = xpu_elf_find(&e, ".text");
        for (size_t i = 0; i < e.n_sections && r >= 0; i++) {
                const struct xpu_elf_section *s = &e.sections[i];
                if (s->type == SHT_NOBITS || s->size == 0)
                        continue;
                if (s->offset > e.file_size || s->size > e.file_size - s->offset) {
                        set_malformed(o, "section %s runs past the end of the file", s->name[0] ? s->name : "(unnamed)");
                        continue;
                }
                if (strcmp(s->name, ".hip_fatbin") == 0)
                        r = scan_region(fd, s->offset, s->size, o, s->name, SCAN_BUNDLE);
                else if (strcmp(s->name, "__nv_relfatbin") == 0)
                        r = scan_region(fd, s->offset, s->size, o, s->name, SCAN_RELFATBIN);
                else if (strcmp(s->name, ".nv_fatbin") == 0 ||
                         (nv && (s->flags & SHF_ALLOC) && !(s->flags & SHF_EXECINSTR) && s->type == SHT_PROGBITS &&
                          !section_skipped(s->name)))
                        r = scan_region(fd, s->offset, s->size, o, s->name[0] ? s->name : "(unnamed)", SCAN_FATBIN);
        }
        if (r >= 0 && (nv || amd)) {
                static const char *const tables[] = { ".dynstr", ".strtab" };
                for (size_t i = 0; i < ELEMENTSOF(tables) && r >= 0; i++) {
                        const struct xpu_elf_section *s = xpu_elf_find(&e, tables[i]);
                        _cleanup_free_ char *strings = NULL;
                        if (!s || read_strings(fd, s, e.file_size, &strings) < 0)
                                continue;
                        if (strings_have_parallel_algorithms(strings, s->size)) {
                                o->layers |= 1u << XPU_LAYER_PARALLEL_ALGORITHMS;
                                break;
                        }
                }
        }
        if (o->library && o->library->driver && o->soname &&
            (strcmp(o->soname, "libcuda.so.1") == 0 || strcmp(o->soname, "libnvidia-ml.so.1") == 0)) {
                o->stub = !text || text->size < DRIVER_STUB_TEXT_MAX;
                o->driver_copy = !o->stub;
        }
        xpu_elf_clear(&e);
        return r < 0 ? r : 0;
}

/* ---- standalone text and containers ----------------------------------------------------------- */

/* The directive NAME at the start of a line of TEXT (after blanks), outside // comments, or NULL. */
static const char *ptx_directive(const char *text, const char *name) {
        size_t n = strlen(name);
        for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
                const char *p = line + strspn(line, " \t");
                if (strncmp(p, name, n) == 0 && (p[n] == ' ' || p[n] == '\t'))
                        return p + n;
        }
        return NULL;
}

/* PTX text: ".version X.Y" and ".target sm_XY[a|f]" from the head of the file. */
static int read_ptx(int fd, uint64_t size, struct xpu_object *o) {
        size_t len = size > TEXT_HEAD_MAX ? TEXT_HEAD_MAX : (size_t)size;
        _cleanup_free_ char *b = malloc(len + 1);
        if (!b)
                return -ENOMEM;
        ssize_t n = xpu_pread_full(fd, b, len, 0);
        if (n < 0)
                return (int)n;
        b[n] = '\0';
        unsigned major = 0, minor = 0, sm = 0;
        const char *v = ptx_directive(b, ".version"), *t = ptx_directive(b, ".target");
        if (!v || !t)
                return -ENOEXEC; /* a .ptx name without PTX in it: not device code */
        v += strspn(v, " \t");
        t += strspn(t, " \t");
        int used = 0;
        if (strncmp(t, "sm_", 3) != 0 || !(t[3] >= '1' && t[3] <= '9') || sscanf(v, "%u.%u", &major, &minor) != 2 ||
            sscanf(t + 3, "%u%n", &sm, &used) != 1 || sm > SM_MAX || major > 99 || minor > 99)
                return -ENOEXEC;
        char variant = t[3 + used];
        o->kind = XPU_OBJECT_PTX;
        o->vendors |= XPU_CODE_VENDOR_NVIDIA;
        o->layers |= 1u << XPU_LAYER_RUNTIME;
        struct xpu_nv_code c = {
                .kind = XPU_FATBIN_PTX,
                .sm = (uint16_t)sm,
                .variant = variant == 'a' ? XPU_SM_ARCH : variant == 'f' ? XPU_SM_FAMILY : XPU_SM_PLAIN,
                .ptx_major = (uint8_t)major,
                .ptx_minor = (uint8_t)minor,
        };
        char name[24];
        snprintf(name, sizeof name, "compute_%u%s", sm, c.variant == XPU_SM_ARCH ? "a" : c.variant == XPU_SM_FAMILY ? "f" : "");
        int r = add_unique(&o->nv_sections, "file");
        if (r == 0)
                r = add_unique(&o->nv_ptx, name);
        return r < 0 ? r : add_nv_code(o, &c);
}

/* The order of a code name: SM number for sm_/compute_/lto_; for an AMD target ID its processor's
 * version (gfx90a = 9.0.10 before gfx1030 = 10.3.0), generic processors after the others. */
static unsigned long code_key(const char *s) {
        static const char *const nv[] = { "sm_", "compute_", "lto_" };
        for (size_t i = 0; i < ELEMENTSOF(nv); i++)
                if (xpu_startswith(s, nv[i]))
                        return strtoul(s + strlen(nv[i]), NULL, 10);
        char p[32], v[16];
        size_t n = strcspn(s, ":");
        if (n >= sizeof p)
                return ULONG_MAX;
        memcpy(p, s, n);
        p[n] = '\0';
        unsigned major, minor, stepping;
        if (xpu_gfx_override_version(p, v, sizeof v) < 0 || sscanf(v, "%u.%u.%u", &major, &minor, &stepping) != 3)
                return ULONG_MAX - 1;
        return major * 10000ul + minor * 100ul + stepping;
}

int xpu_code_name_cmp(const void *a, const void *b) {
        const char *x = *(char *const *)a, *y = *(char *const *)b;
        unsigned long kx = code_key(x), ky = code_key(y);
        return kx != ky ? (kx < ky ? -1 : 1) : strcmp(x, y);
}

/* Lists in version order (sm_80 before sm_100, gfx90a before gfx1030), not discovery order. */
static void sort_lists(struct xpu_object *o) {
        char **lists[] = { o->nv_sass, o->nv_ptx, o->nv_lto, o->nv_rel_sass, o->nv_rel_ptx, o->amd_gfx };
        for (size_t i = 0; i < ELEMENTSOF(lists); i++)
                if (lists[i])
                        qsort(lists[i], xpu_strv_length(lists[i]), sizeof(char *), xpu_code_name_cmp);
}

static bool ends_with(const char *s, const char *suffix) {
        size_t l = strlen(s), n = strlen(suffix);
        return l >= n && strcmp(s + l - n, suffix) == 0;
}

int xpu_object_read(int fd, const char *path, uint64_t size, struct xpu_object *o) {
        memset(o, 0, sizeof *o);
        uint8_t head[64];
        ssize_t n = xpu_pread_full(fd, head, sizeof head, 0);
        if (n < 0)
                return (int)n;
        const char *name = strrchr(path, '/');
        name = name ? name + 1 : path;
        enum { NONE, ELF, FATBIN, BUNDLE, PTX } what = NONE;
        if (n >= 4 && memcmp(head, ELFMAG, SELFMAG) == 0)
                what = ELF;
        else if (n >= 16 && xpu_le32(head) == XPU_FATBIN_MAGIC)
                what = FATBIN;
        else if ((n >= 24 && memcmp(head, XPU_BUNDLE_MAGIC, 24) == 0) || (n >= 4 && memcmp(head, XPU_CCOB_MAGIC, 4) == 0))
                what = BUNDLE;
        else if (ends_with(name, ".ptx"))
                what = PTX;
        if (what == NONE)
                return -ENOEXEC;
        o->size_bytes = size;
        if (!(o->path = strdup(path)))
                return -ENOMEM;
        int r;
        switch (what) {
        case ELF:
                r = read_elf(fd, name, o);
                break;
        case FATBIN:
                o->kind = XPU_OBJECT_FATBIN;
                o->vendors |= XPU_CODE_VENDOR_NVIDIA;
                o->layers |= 1u << XPU_LAYER_RUNTIME;
                r = scan_region(fd, 0, size, o, "file", SCAN_FATBIN);
                break;
        case BUNDLE:
                o->kind = XPU_OBJECT_BUNDLE;
                o->vendors |= XPU_CODE_VENDOR_AMD;
                o->layers |= 1u << XPU_LAYER_RUNTIME;
                r = scan_region(fd, 0, size, o, "file", SCAN_BUNDLE);
                break;
        case PTX:
        case NONE:
        default:
                r = read_ptx(fd, size, o);
                break;
        }
        if (r == -E2BIG) { /* a list is full: keep what was read, say why the rest is not */
                set_malformed(o, "more device-code names than any real object has (over %u): not read further", NAMES_MAX);
                r = 0;
        }
        if (r < 0) {
                xpu_object_clear(o);
                return r;
        }
        /* Device code ties an object to its vendor even without a vendor library around it (a
         * statically linked runtime registers it); such code is the runtime layer's. */
        if (o->n_nv_code || o->nv_rel_sass || o->nv_rel_ptx || o->nv_lto)
                o->vendors |= XPU_CODE_VENDOR_NVIDIA;
        if (o->amd_gfx)
                o->vendors |= XPU_CODE_VENDOR_AMD;
        if (o->vendors && o->layers == 0)
                o->layers = 1u << XPU_LAYER_RUNTIME;
        sort_lists(o);
        return 0;
}
