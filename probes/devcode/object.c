/* SPDX-License-Identifier: Apache-2.0 */
/* The audited object: its kinds, its lists of names and how facts are recorded in it (object.h
 * has the contract). Reading a file into one is object-read.c, scanning a byte range of it for
 * device code object-scan.c. */
#include "devcode/object.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "base/str.h"
#include "base/strv.h"
#include "devcode/compat.h"

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
        free(o->library_name);
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

int xpu_object_add_name(char ***v, const char *s) {
        size_t n = 0;
        for (char **p = *v; p && *p; p++, n++)
                if (strcmp(*p, s) == 0)
                        return 0;
        return n >= XPU_OBJECT_NAMES_MAX ? -E2BIG : xpu_strv_push(v, s);
}

void xpu_object_set_malformed(struct xpu_object *o, const char *fmt, ...) {
        if (o->malformed)
                return;
        va_list ap;
        va_start(ap, fmt);
        if (vasprintf(&o->malformed, fmt, ap) < 0)
                o->malformed = NULL;
        va_end(ap);
}

void xpu_object_set_malformed_budget(struct xpu_object *o, const char *fmt, ...) {
        char *why = NULL, *both = NULL;
        va_list ap;
        va_start(ap, fmt);
        if (vasprintf(&why, fmt, ap) < 0)
                why = NULL;
        va_end(ap);
        if (why && o->malformed && asprintf(&both, "%s; before that: %s", why, o->malformed) < 0)
                both = NULL;
        if (!why || (o->malformed && !both)) {
                free(why);
                return; /* out of memory: the first problem stays */
        }
        free(o->malformed);
        o->malformed = both ? both : why;
        if (both)
                free(why);
}

int xpu_object_add_nv_code(struct xpu_object *o, const struct xpu_nv_code *c) {
        for (size_t i = 0; i < o->n_nv_code; i++)
                if (memcmp(&o->nv_code[i], c, sizeof *c) == 0)
                        return 0;
        if (o->n_nv_code >= 2 * XPU_OBJECT_NAMES_MAX)
                return -E2BIG;
        struct xpu_nv_code *n = realloc(o->nv_code, (o->n_nv_code + 1) * sizeof *n);
        if (!n)
                return -ENOMEM;
        o->nv_code = n;
        o->nv_code[o->n_nv_code++] = *c;
        return 0;
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

void xpu_object_sort_lists(struct xpu_object *o) {
        char **lists[] = { o->nv_sass, o->nv_ptx, o->nv_lto, o->nv_rel_sass, o->nv_rel_ptx, o->amd_gfx };
        for (size_t i = 0; i < ELEMENTSOF(lists); i++)
                if (lists[i])
                        qsort(lists[i], xpu_strv_length(lists[i]), sizeof(char *), xpu_code_name_cmp);
}
