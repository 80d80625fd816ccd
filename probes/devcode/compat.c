/* SPDX-License-Identifier: Apache-2.0 */
/* Device-code compatibility rules (compat.h has the sources). */
#include "devcode/compat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/str.h"

const char *xpu_code_level_name(enum xpu_code_level l) {
        switch (l) {
        case XPU_CODE_NATIVE:
                return "native";
        case XPU_CODE_PTX_JIT:
                return "ptx-jit";
        case XPU_CODE_OVERRIDE:
                return "override";
        case XPU_CODE_CANNOT_RUN:
        default:
                return "cannot-run";
        }
}

bool xpu_sass_runs_on(unsigned sm_code, enum xpu_sm_variant variant, unsigned sm_gpu) {
        if (variant == XPU_SM_ARCH)
                return sm_code == sm_gpu;
        return sm_code / 10 == sm_gpu / 10 && sm_code % 10 <= sm_gpu % 10;
}

bool xpu_ptx_jits_on(unsigned sm_code, enum xpu_sm_variant variant, unsigned sm_gpu) {
        switch (variant) {
        case XPU_SM_ARCH:
                return sm_code == sm_gpu;
        case XPU_SM_FAMILY:
                return sm_code / 10 == sm_gpu / 10 && sm_code % 10 <= sm_gpu % 10;
        case XPU_SM_PLAIN:
        default:
                return sm_code <= sm_gpu;
        }
}

/* The newest PTX ISA of the table below and the CUDA version that brought it. */
#define PTX_ISA_NEWEST_MAJOR 9
#define PTX_ISA_NEWEST_MINOR 1
#define PTX_ISA_NEWEST_CUDA 13010

int xpu_ptx_isa_newer_cuda(unsigned major, unsigned minor) {
        if (major > PTX_ISA_NEWEST_MAJOR || (major == PTX_ISA_NEWEST_MAJOR && minor > PTX_ISA_NEWEST_MINOR))
                return PTX_ISA_NEWEST_CUDA + 10;
        return 0;
}

int xpu_ptx_isa_cuda(unsigned major, unsigned minor) {
        /* PTX ISA -> first CUDA release (NVIDIA's PTX ISA release history). From ISA 6.0 on:
         * older code cannot be built by any CUDA that runs on a supported GPU today. */
        static const struct {
                unsigned char isa_major, isa_minor, cuda_major, cuda_minor;
        } table[] = {
                { 6, 0, 9, 0 },   { 6, 1, 9, 1 },   { 6, 2, 9, 2 },   { 6, 3, 10, 0 }, { 6, 4, 10, 1 },
                { 6, 5, 10, 2 },  { 7, 0, 11, 0 },  { 7, 1, 11, 1 },  { 7, 2, 11, 2 }, { 7, 3, 11, 3 },
                { 7, 4, 11, 4 },  { 7, 5, 11, 5 },  { 7, 6, 11, 6 },  { 7, 7, 11, 7 }, { 7, 8, 11, 8 },
                { 8, 0, 12, 0 },  { 8, 1, 12, 1 },  { 8, 2, 12, 2 },  { 8, 3, 12, 3 }, { 8, 4, 12, 4 },
                { 8, 5, 12, 5 },  { 8, 6, 12, 7 },  { 8, 7, 12, 8 },  { 8, 8, 12, 9 }, { 9, 0, 13, 0 },
                { 9, 1, 13, 1 },
        };
        for (size_t i = 0; i < ELEMENTSOF(table); i++)
                if (table[i].isa_major == major && table[i].isa_minor == minor)
                        return table[i].cuda_major * 1000 + table[i].cuda_minor * 10;
        return -ENOENT;
}

int xpu_gfx_target_parse(const char *id, struct xpu_gfx_target *t) {
        *t = (struct xpu_gfx_target){ .sramecc = -1, .xnack = -1 };
        const char *colon = strchr(id, ':');
        size_t n = colon ? (size_t)(colon - id) : strlen(id);
        if (n <= 3 || n >= sizeof t->processor || strncmp(id, "gfx", 3) != 0)
                return -EINVAL;
        for (size_t i = 3; i < n; i++)
                if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'z') || id[i] == '-'))
                        return -EINVAL;
        memcpy(t->processor, id, n);
        t->processor[n] = '\0';
        while (colon) {
                const char *f = colon + 1;
                colon = strchr(f, ':');
                size_t len = colon ? (size_t)(colon - f) : strlen(f);
                if (len < 2 || (f[len - 1] != '+' && f[len - 1] != '-'))
                        return -EINVAL;
                int *slot = len - 1 == 7 && strncmp(f, "sramecc", 7) == 0 ? &t->sramecc
                            : len - 1 == 5 && strncmp(f, "xnack", 5) == 0 ? &t->xnack
                                                                          : NULL;
                if (!slot || *slot != -1)
                        return -EINVAL;
                *slot = f[len - 1] == '+';
        }
        return 0;
}

const char *xpu_gfx_generic_of(const char *processor) {
        /* AMDGPUUsage, "Generic processors" (LLVM 20). */
        static const struct {
                const char *generic;
                const char *members[9];
        } families[] = {
                { "gfx9-generic", { "gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c" } },
                { "gfx9-4-generic", { "gfx940", "gfx941", "gfx942", "gfx950" } },
                { "gfx10-1-generic", { "gfx1010", "gfx1011", "gfx1012", "gfx1013" } },
                { "gfx10-3-generic",
                  { "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036" } },
                { "gfx11-generic",
                  { "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153" } },
                { "gfx12-generic", { "gfx1200", "gfx1201" } },
        };
        for (size_t i = 0; i < ELEMENTSOF(families); i++)
                for (size_t j = 0; j < ELEMENTSOF(families[i].members) && families[i].members[j]; j++)
                        if (strcmp(families[i].members[j], processor) == 0)
                                return families[i].generic;
        return NULL;
}

static bool feature_fits(int code, int device) {
        return code < 0 || device < 0 || code == device;
}

bool xpu_gfx_code_runs_on(const struct xpu_gfx_target *code, const struct xpu_gfx_target *device) {
        bool processor = strcmp(code->processor, device->processor) == 0;
        if (!processor) {
                const char *g = xpu_gfx_generic_of(device->processor);
                processor = g && strcmp(g, code->processor) == 0;
        }
        return processor && feature_fits(code->sramecc, device->sramecc) && feature_fits(code->xnack, device->xnack);
}

int xpu_gfx_override_version(const char *processor, char *buf, size_t size) {
        size_t n = strlen(processor);
        if (n < 6 || strncmp(processor, "gfx", 3) != 0)
                return -EINVAL;
        /* gfx<major><minor><stepping>: major is every digit before the last two characters. */
        for (size_t i = 3; i < n - 1; i++)
                if (processor[i] < '0' || processor[i] > '9')
                        return -EINVAL;
        char s = processor[n - 1];
        int stepping = s >= '0' && s <= '9' ? s - '0' : s >= 'a' && s <= 'f' ? s - 'a' + 10 : -1;
        if (stepping < 0 || n - 5 > 2)
                return -EINVAL;
        unsigned major = 0;
        for (size_t i = 3; i < n - 2; i++)
                major = major * 10 + (unsigned)(processor[i] - '0');
        int r = snprintf(buf, size, "%u.%c.%d", major, processor[n - 2], stepping);
        return r < 0 || (size_t)r >= size ? -ENOBUFS : 0;
}

int xpu_gfx_processor_of_version(const char *version, char *buf, size_t size) {
        unsigned v[3];
        int used = 0;
        if (!version || strspn(version, "0123456789.") != strlen(version) ||
            sscanf(version, "%u.%u.%u%n", &v[0], &v[1], &v[2], &used) != 3 || version[used] != '\0' || v[0] < 1 ||
            v[0] > 99 || v[1] > 9 || v[2] > 15)
                return -EINVAL;
        int r = snprintf(buf, size, "gfx%u%u%x", v[0], v[1], v[2]);
        return r < 0 || (size_t)r >= size ? -ENOBUFS : 0;
}

bool xpu_gfx_target_id_known(const char *id) {
        struct xpu_gfx_target t;
        char v[16];
        if (xpu_gfx_target_parse(id, &t) < 0)
                return false;
        return xpu_gfx_override_version(t.processor, v, sizeof v) == 0 ||
               (xpu_startswith(t.processor, "gfx") && strlen(t.processor) > 11 &&
                strcmp(t.processor + strlen(t.processor) - 8, "-generic") == 0);
}
