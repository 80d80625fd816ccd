/* SPDX-License-Identifier: Apache-2.0 */
/* One file of an image as the audit sees it: an ELF object (library or executable) or a
 * standalone device-code file, with its vendor, the vendor library it is, its lock-in layers, the
 * vendor libraries it needs, and the device code it carries. Read from a file descriptor: headers
 * with pread(2), fatbin sections through a window of preads (window.h) and bundle sections mapped
 * read-only, both walked header by header (fatbin.h, bundle.h), so most payload bytes are never
 * read from the disk. Silent: problems are recorded in the object (MALFORMED), never logged.
 *
 * Where device code is looked for (measured on CUDA 13 and ROCm 5 libraries): NVIDIA fatbin
 * containers in .nv_fatbin, in __nv_relfatbin (relocatable device code, reported apart and never loadable), and in every other
 * allocated, non-executable section of an object tied to NVIDIA (cuFFT keeps its containers in
 * .ldata, cuSPARSE in .rodata, cuBLASLt and cuDNN in .cask_resource); AMD offload bundles, plain
 * and compressed (CCOB), in .hip_fatbin; and standalone files recognized by their content (ELF
 * cubins, machine EM_CUDA; AMDGPU code objects, EM_AMDGPU; fatbin and bundle magics at offset 0) or,
 * for PTX text, by the .ptx extension. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"
#include "devcode/libraries.h"

enum xpu_object_kind {
        XPU_OBJECT_ELF = 0,      /* a host library or executable */
        XPU_OBJECT_FATBIN,       /* a standalone NVIDIA fat binary */
        XPU_OBJECT_CUBIN,        /* a standalone NVIDIA cubin (ELF, EM_CUDA) */
        XPU_OBJECT_PTX,          /* a standalone PTX text file */
        XPU_OBJECT_BUNDLE,       /* a standalone clang offload bundle, plain or CCOB */
        XPU_OBJECT_CODE_OBJECT,  /* a standalone AMDGPU code object (ELF, EM_AMDGPU; .hsaco, .co) */
        _XPU_OBJECT_KIND_MAX,
};

/* "elf", "fatbin", "cubin", "ptx", "bundle", "code-object"; NULL out of range. */
const char *xpu_object_kind_name(enum xpu_object_kind k);
/* Inverse of xpu_object_kind_name(). Returns the kind or -EINVAL. */
int xpu_object_kind_from_name(const char *s);

/* One distinct piece of NVIDIA code that holds kernels (device-link stubs are left out). */
struct xpu_nv_code {
        uint8_t kind;        /* XPU_FATBIN_SASS or XPU_FATBIN_PTX */
        uint8_t variant;     /* enum xpu_sm_variant */
        uint16_t sm;         /* 90 for sm_90 */
        uint8_t ptx_major, ptx_minor; /* PTX ISA of a PTX entry; 0.0 when not known */
};

/* Bits of xpu_object.nv_compression. */
enum {
        XPU_NV_LZ4 = 1u << 0,
        XPU_NV_ZSTD = 1u << 1,
};

/* What reading one object may cost, whatever its bytes say: the scans of all its sections
 * together (docs/audit.md, "Limits"). Real libraries stay far below: cuFFT 12 walks about 240,000
 * entry headers; a ROCm library opens one compressed bundle per translation unit with kernels
 * and decompresses a few KiB of each. Past a bound the object is malformed, naming it. */
#define XPU_OBJECT_WORK_ENTRIES_MAX        (1u << 22)   /* fatbin entry headers and KiB of cubins opened
                                                         * to tell a stub, bundle table entries */
#define XPU_OBJECT_WORK_ID_BYTES_MAX       (64u << 20)  /* bytes of bundle entry IDs */
#define XPU_OBJECT_WORK_UNPACKED_MAX       (128u << 20) /* bytes decompressed from compressed bundles */
#define XPU_OBJECT_WORK_PACKED_MAX         (128u << 20) /* bytes of their streams consumed doing so */
#define XPU_OBJECT_WORK_DECOMPRESSIONS_MAX 16384u       /* compressed bundles opened */

/* What reading an object cost, counted against the bounds above. */
struct xpu_object_work {
        uint64_t entries, id_bytes, unpacked, packed;
        unsigned decompressions;
};

struct xpu_object {
        char *path;                 /* relative to the audited root, "usr/lib/libx.so" */
        uint64_t size_bytes;
        enum xpu_object_kind kind;
        unsigned vendors;           /* XPU_CODE_VENDOR_* */
        const struct xpu_vendor_library *library; /* the table entry of what the object is, or NULL */
        char *library_name;         /* the library it is, "libcudnn_adv" (its soname's, else its file
                                     * name's, part before ".so"), when LIBRARY is set; else NULL */
        char *soname;               /* DT_SONAME, or NULL */
        uint32_t layers;            /* 1u << enum xpu_layer */
        char **needed;              /* vendor libraries among DT_NEEDED (strv), or NULL */
        unsigned cudart_major;      /* N when the object is or needs libcudart.so.N, else 0 */

        /* NVIDIA: the loadable code that holds kernels, deduplicated (judged), and the names the
         * report lists (strv of "sm_90a", "compute_120", "lto_75"). */
        struct xpu_nv_code *nv_code;
        size_t n_nv_code;
        char **nv_sass, **nv_ptx, **nv_lto, **nv_rel_sass, **nv_rel_ptx, **nv_sections;
        unsigned nv_compression;    /* XPU_NV_* */
        size_t nv_containers;       /* loadable containers seen, stubs included */

        /* AMD: exact target IDs as bundled ("gfx90a:sramecc+:xnack-"), compression
         * ("ccob-v2-zstd"), sections (".hip_fatbin", "file"). */
        char **amd_gfx, **amd_compression, **amd_sections;

        bool stub;                  /* a stub of a driver library (libcuda.so.1, libnvidia-ml.so.1) */
        bool driver_copy;           /* a full driver library in the image: shadows the injected one */
        char *malformed;            /* why it could not be read whole, or NULL */
        struct xpu_object_work work; /* what reading it cost */
};

/* Names one list of an object keeps (real libraries: under 40 architectures); more is a crafted
 * file, and the audit marks the object malformed. An index with a longer list is refused. */
#define XPU_OBJECT_NAMES_MAX 256u

/* The highest SM number taken for real (CUDA 13: 121); a higher one makes the object malformed. */
#define XPU_OBJECT_SM_MAX 255u

/* True when O carries device code of VENDOR (one XPU_CODE_VENDOR_* bit) that holds kernels. */
bool xpu_object_has_code(const struct xpu_object *o, unsigned vendor);

/* qsort(3) comparator of two code names (char * elements): "sm_80" < "sm_100" < "sm_120f" by SM
 * number; AMD target IDs by processor version ("gfx803" < "gfx90a:xnack-" < "gfx1030"), generic
 * processors last; equal keys by strcmp. */
int xpu_code_name_cmp(const void *a, const void *b);

/* Read the file FD (a regular file of SIZE bytes at PATH, relative to the root; NAME is its last
 * component) into *O. Returns 0 when it is an ELF object or device code (a malformed one too,
 * with O->malformed set), -ENOEXEC when it is neither (nothing to free), -ENOMEM, or -errno of
 * the first read. */
int xpu_object_read(int fd, const char *path, uint64_t size, struct xpu_object *o);

/* Free what *O holds and zero it. */
void xpu_object_clear(struct xpu_object *o);

/* ---- recording facts (the readers, object-read.c and object-scan.c) ---- */

/* Append S to the list *V unless it is there. Returns 0, -E2BIG when *V holds
 * XPU_OBJECT_NAMES_MAX names, -ENOMEM. */
int xpu_object_add_name(char ***v, const char *s);
/* Add C to O's judged NVIDIA code unless it is there. Returns 0, -E2BIG past twice
 * XPU_OBJECT_NAMES_MAX, -ENOMEM. */
int xpu_object_add_nv_code(struct xpu_object *o, const struct xpu_nv_code *c);
/* Record why O could not be read whole; the first problem only, as it names what to look at. */
_printf_(2, 3) void xpu_object_set_malformed(struct xpu_object *o, const char *fmt, ...);
/* Record that a work budget ran out: said first, since O is not read further, with the first
 * problem found before it kept after it. */
_printf_(2, 3) void xpu_object_set_malformed_budget(struct xpu_object *o, const char *fmt, ...);
/* Sort O's name lists in version order (sm_80 before sm_100, gfx90a before gfx1030). */
void xpu_object_sort_lists(struct xpu_object *o);
