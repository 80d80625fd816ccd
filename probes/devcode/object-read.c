/* SPDX-License-Identifier: Apache-2.0 */
/* One file of an image read into an object: what kind of file it is, which library, what it needs,
 * and which byte ranges of it to scan for device code (object.h has the contract). */
#include "devcode/object.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/macro.h"
#include "base/str.h"
#include "devcode/bundle.h"
#include "devcode/ccob.h"
#include "devcode/compat.h"
#include "devcode/elf.h"
#include "devcode/fatbin.h"
#include "devcode/le.h"
#include "devcode/object-scan.h"

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
        int r = xpu_object_add_name(&o->nv_sections, "file");
        if (r < 0)
                return r;
        bool kernels = false;
        for (size_t i = 0; i < e->n_sections && !kernels; i++)
                kernels = xpu_startswith(e->sections[i].name, ".text.");
        if (sm == 0) {
                xpu_object_set_malformed(o, "the cubin's ELF flags (0x%x) name no SM architecture", (unsigned)e->e_flags);
                return 0;
        }
        if (!kernels)
                return 0;
        char name[16];
        snprintf(name, sizeof name, "sm_%u", sm);
        const struct xpu_nv_code c = { .kind = XPU_FATBIN_SASS, .sm = (uint16_t)sm };
        r = xpu_object_add_name(&o->nv_sass, name);
        return r < 0 ? r : xpu_object_add_nv_code(o, &c);
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
        int r = xpu_object_add_name(&o->amd_sections, "file");
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
                if (!xpu_gfx_target_id_known(id))
                        break;
                return xpu_object_add_name(&o->amd_gfx, id);
        }
        xpu_object_set_malformed(o, "the code object has no target ID in its notes (amdhsa.target; code object v2 is not read)");
        return 0;
}

/* The library an object is: NAME (its soname, else its file name), by its stem. */
static int set_library(struct xpu_object *o, const char *name) {
        char stem[256];
        o->library = xpu_vendor_library_find(name);
        if (!o->library || xpu_library_stem(name, stem, sizeof stem, NULL) < 0)
                return 0;
        add_layer_of(o, o->library);
        return (o->library_name = strdup(stem)) ? 0 : -ENOMEM;
}

/* The sections that exist only to hold device code, what they hold and whose it is. */
static const struct dedicated {
        const char *name;
        enum xpu_scan_what what;
        unsigned vendor;
} dedicated_sections[] = {
        { ".nv_fatbin", XPU_SCAN_FATBIN, XPU_CODE_VENDOR_NVIDIA },
        { "__nv_relfatbin", XPU_SCAN_RELFATBIN, XPU_CODE_VENDOR_NVIDIA }, /* -rdc, kept for device linking */
        { ".hip_fatbin", XPU_SCAN_BUNDLE, XPU_CODE_VENDOR_AMD },
};

static const struct dedicated *dedicated_section(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(dedicated_sections); i++)
                if (strcmp(name, dedicated_sections[i].name) == 0)
                        return &dedicated_sections[i];
        return NULL;
}

/* One byte range of the file to scan: a section, or for the marks a string table. */
struct range {
        uint64_t offset, size;
        enum xpu_scan_what what;
        const char *name;
        bool dedicated; /* a dedicated_sections one: without a container it is malformed */
};

static int range_cmp(const void *a, const void *b) {
        const struct range *x = a, *y = b;
        if (x->offset != y->offset)
                return x->offset < y->offset ? -1 : 1;
        return x->size < y->size ? -1 : x->size > y->size;
}

/* What E's sections ask to be scanned, into R (E->n_sections slots): the device-code sections, the
 * other data sections of an NVIDIA object, and where the parallel-algorithm marks of a vendor-tied
 * object can be (the symbol string tables; AMD's kernel names in .rodata). */
static size_t ranges_of(const struct xpu_elf *e, bool nv, bool amd, struct range *r) {
        size_t n = 0;
        for (size_t i = 0; i < e->n_sections; i++) {
                const struct xpu_elf_section *s = &e->sections[i];
                const char *name = s->name[0] ? s->name : "(unnamed)";
                const struct dedicated *d = dedicated_section(s->name);
                if (s->type == SHT_NOBITS || s->size == 0)
                        continue;
                if (d)
                        r[n++] = (struct range){ s->offset, s->size, d->what, name, true };
                else if (nv && (s->flags & SHF_ALLOC) && !(s->flags & SHF_EXECINSTR) && s->type == SHT_PROGBITS &&
                         !section_skipped(s->name))
                        r[n++] = (struct range){ s->offset, s->size, XPU_SCAN_FATBIN, name };
                else if ((nv || amd) && s->type == SHT_STRTAB && s->size <= SYMBOL_STRINGS_MAX &&
                         (strcmp(s->name, ".dynstr") == 0 || strcmp(s->name, ".strtab") == 0))
                        r[n++] = (struct range){ s->offset, s->size, XPU_SCAN_MARKS, name };
                else if (amd && strcmp(s->name, ".rodata") == 0)
                        r[n++] = (struct range){ s->offset, s->size, XPU_SCAN_MARKS, name }; /* kernel names */
        }
        return n;
}

/* Scan each range of R[0..N) once, in file order. Ranges that overlap make the object malformed (no
 * linker writes them; a crafted file could make one region count many times): only the first of
 * them is read. A dedicated device-code section without any container or bundle is malformed too:
 * what it holds cannot be judged. */
static int scan_ranges(int fd, const struct xpu_elf *e, struct range *r, size_t n, struct xpu_object *o, bool *marks) {
        qsort(r, n, sizeof *r, range_cmp);
        uint64_t end = 0;
        const char *last = NULL;
        int q = 0;
        for (size_t i = 0; i < n && q >= 0; i++) {
                if (r[i].offset > e->file_size || r[i].size > e->file_size - r[i].offset) {
                        xpu_object_set_malformed(o, "section %s runs past the end of the file", r[i].name);
                        continue;
                }
                if (last && r[i].offset < end) {
                        xpu_object_set_malformed(o,
                                      "sections %s and %s overlap in the file: each byte is read once, for the first",
                                      last, r[i].name);
                        continue;
                }
                last = r[i].name;
                end = r[i].offset + r[i].size;
                /* Kernels are registered by names kept with the other string constants, in .rodata:
                 * the marks are looked for there, not in every data section. */
                bool names = r[i].what == XPU_SCAN_MARKS || strcmp(r[i].name, ".rodata") == 0;
                q = xpu_object_scan(fd, r[i].offset, r[i].size, o, r[i].name, r[i].what, names ? marks : NULL);
                if (q == 0 && r[i].dedicated)
                        xpu_object_set_malformed(o, "section %s holds no valid %s", r[i].name,
                                      r[i].what == XPU_SCAN_BUNDLE ? "offload bundle" : "fatbin container");
        }
        return q < 0 ? q : 0;
}

static int read_elf(int fd, const char *name, struct xpu_object *o) {
        struct xpu_elf e;
        const char *why = NULL;
        int r = xpu_elf_read(fd, &e, &why);
        o->kind = XPU_OBJECT_ELF;
        if (r == -EPROTONOSUPPORT)
                return -ENOEXEC; /* 32-bit or big-endian: no 64-bit GPU runtime loads it */
        if (r == -EBADMSG || r == -ENOEXEC) { /* the magic is there: an ELF object, damaged */
                xpu_object_set_malformed(o, "not a readable ELF64 little-endian object: %s",
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
        /* What the object is and needs comes from its dynamic segment, so it is known even when its
         * sections are not; its device code needs the sections. */
        if (e.dynamic_error)
                xpu_object_set_malformed(o, "its dynamic segment cannot be read whole: %s", e.dynamic_error);
        if (e.sections_error)
                xpu_object_set_malformed(o, "%s, so its device code cannot be found", e.sections_error);
        else if (e.n_sections == 0 && (e.type == ET_DYN || e.type == ET_EXEC))
                /* The loader needs no section headers, this reader does. */
                xpu_object_set_malformed(o, "the object has no section headers, so its device code cannot be found");
        if (e.soname && !(o->soname = strdup(e.soname)))
                r = -ENOMEM;
        if (r >= 0)
                r = set_library(o, e.soname ? e.soname : name);
        o->cudart_major = xpu_cudart_major(e.soname ? e.soname : name);
        for (size_t i = 0; i < e.n_needed && r >= 0; i++) {
                const struct xpu_vendor_library *l = xpu_vendor_library_find(e.needed[i]);
                if (!l)
                        continue;
                add_layer_of(o, l);
                r = xpu_object_add_name(&o->needed, e.needed[i]);
                unsigned major = xpu_cudart_major(e.needed[i]);
                if (major > o->cudart_major)
                        o->cudart_major = major;
        }
        /* A device-code section ties the object to its vendor even when its code cannot be read. */
        if (xpu_elf_find(&e, ".nvFatBinSegment")) /* the wrappers the CUDA runtime registers */
                o->vendors |= XPU_CODE_VENDOR_NVIDIA;
        for (size_t i = 0; i < e.n_sections; i++) {
                const struct dedicated *d = dedicated_section(e.sections[i].name);
                if (!d)
                        continue;
                o->vendors |= d->vendor;
                if (e.sections[i].type == SHT_NOBITS)
                        xpu_object_set_malformed(o, "section %s holds no bytes in the file (SHT_NOBITS)", d->name);
        }
        bool nv = o->vendors & XPU_CODE_VENDOR_NVIDIA, amd = o->vendors & XPU_CODE_VENDOR_AMD, marks = false;
        struct range *ranges = r >= 0 && e.n_sections ? calloc(e.n_sections, sizeof *ranges) : NULL;
        if (r >= 0 && e.n_sections && !ranges)
                r = -ENOMEM;
        if (ranges)
                r = scan_ranges(fd, &e, ranges, ranges_of(&e, nv, amd, ranges), o, nv || amd ? &marks : NULL);
        free(ranges);
        if (marks)
                o->layers |= 1u << XPU_LAYER_PARALLEL_ALGORITHMS;
        const struct xpu_elf_section *text = xpu_elf_find(&e, ".text");
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
            sscanf(t + 3, "%u%n", &sm, &used) != 1 || sm > XPU_OBJECT_SM_MAX || major > 99 || minor > 99)
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
        int r = xpu_object_add_name(&o->nv_sections, "file");
        if (r == 0)
                r = xpu_object_add_name(&o->nv_ptx, name);
        return r < 0 ? r : xpu_object_add_nv_code(o, &c);
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
                r = xpu_object_scan(fd, 0, size, o, "file", XPU_SCAN_FATBIN, NULL);
                if (r == 0)
                        xpu_object_set_malformed(o, "the file holds no valid fatbin container");
                break;
        case BUNDLE:
                o->kind = XPU_OBJECT_BUNDLE;
                o->vendors |= XPU_CODE_VENDOR_AMD;
                o->layers |= 1u << XPU_LAYER_RUNTIME;
                r = xpu_object_scan(fd, 0, size, o, "file", XPU_SCAN_BUNDLE, NULL);
                if (r == 0)
                        xpu_object_set_malformed(o, "the file holds no valid offload bundle");
                break;
        case PTX:
        case NONE:
        default:
                r = read_ptx(fd, size, o);
                break;
        }
        if (r == -E2BIG) { /* a list is full: keep what was read, say why the rest is not */
                xpu_object_set_malformed(o, "more device-code names than any real object has (over %u): not read further", XPU_OBJECT_NAMES_MAX);
                r = 0;
        }
        if (r == -ECANCELED) /* a work budget ran out: the object says which, the audit goes on */
                r = 0;
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
        xpu_object_sort_lists(o);
        return 0;
}
