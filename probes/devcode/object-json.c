/* SPDX-License-Identifier: Apache-2.0 */
/* Audited objects to and from JSON (object-json.h has the shape). */
#include "devcode/object-json.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/log.h"
#include "base/macro.h"
#include "base/strv.h"
#include "devcode/compat.h"
#include "devcode/fatbin.h"

#define INDEX_VERSION 1
/* An index holds at most this many objects (an image with more vendor-tied objects is not known). */
#define INDEX_OBJECTS_MAX 100000
/* Structural JSON tokens an index may hold ('{', '[', ',', ':' outside strings): what parsing it
 * costs a start grows with them (cJSON allocates per value), so they are counted before it is
 * parsed. A real index has about 40 per library and 20 per kernel file: room for thousands. */
#define INDEX_TOKENS_MAX (1u << 17)

static bool add_strv(cJSON *o, const char *key, char *const *v) {
        cJSON *a = cJSON_AddArrayToObject(o, key);
        if (!a)
                return false;
        for (char *const *p = v; p && *p; p++) {
                cJSON *s = cJSON_CreateString(*p);
                if (!s || !cJSON_AddItemToArray(a, s)) {
                        cJSON_Delete(s);
                        return false;
                }
        }
        return true;
}

/* The lowest PTX ISA of each PTX architecture name in O->nv_ptx. */
static bool add_ptx_isa(cJSON *nv, const struct xpu_object *o) {
        cJSON *m = cJSON_AddObjectToObject(nv, "ptx_isa");
        if (!m)
                return false;
        for (char **p = o->nv_ptx; p && *p; p++) {
                unsigned best = UINT32_MAX;
                for (size_t i = 0; i < o->n_nv_code; i++) {
                        const struct xpu_nv_code *c = &o->nv_code[i];
                        char name[24];
                        struct xpu_fatbin_entry e = { .kind = c->kind, .sm = c->sm, .variant = c->variant };
                        unsigned isa = (unsigned)c->ptx_major * 256 + c->ptx_minor;
                        if (c->kind == XPU_FATBIN_PTX && strcmp(xpu_fatbin_entry_name(&e, name, sizeof name), *p) == 0 &&
                            isa < best)
                                best = isa;
                }
                if (best == UINT32_MAX)
                        continue;
                char v[16];
                snprintf(v, sizeof v, "%u.%u", best / 256, best % 256);
                if (!cJSON_AddStringToObject(m, *p, v))
                        return false;
        }
        return true;
}

cJSON *xpu_object_to_json(const struct xpu_object *o) {
        cJSON *j = cJSON_CreateObject();
        if (!j)
                return NULL;
        const char *vendor = xpu_code_vendor_name(o->vendors);
        bool ok = cJSON_AddStringToObject(j, "path", o->path) &&
                  cJSON_AddNumberToObject(j, "size_bytes", (double)o->size_bytes) &&
                  cJSON_AddStringToObject(j, "kind", xpu_object_kind_name(o->kind)) &&
                  (vendor ? cJSON_AddStringToObject(j, "vendor", vendor) : cJSON_AddNullToObject(j, "vendor")) &&
                  (o->library_name ? cJSON_AddStringToObject(j, "library", o->library_name)
                                   : cJSON_AddNullToObject(j, "library"));
        cJSON *layers = ok ? cJSON_AddArrayToObject(j, "layers") : NULL;
        ok = layers != NULL;
        for (unsigned l = 0; ok && l < _XPU_LAYER_MAX; l++)
                if (o->layers & (1u << l))
                        ok = cJSON_AddItemToArray(layers, cJSON_CreateString(xpu_layer_name((enum xpu_layer)l)));
        ok = ok && add_strv(j, "needed", o->needed);
        if (ok && o->soname)
                ok = cJSON_AddStringToObject(j, "soname", o->soname) != NULL;
        if (ok && (o->nv_sass || o->nv_ptx || o->nv_lto || o->nv_rel_sass || o->nv_rel_ptx || o->nv_sections)) {
                cJSON *nv = cJSON_AddObjectToObject(j, "nvidia"), *rel = NULL, *comp = NULL;
                ok = nv && add_strv(nv, "sass", o->nv_sass) && add_strv(nv, "ptx", o->nv_ptx) && add_ptx_isa(nv, o) &&
                     add_strv(nv, "lto", o->nv_lto) && (rel = cJSON_AddObjectToObject(nv, "relocatable")) &&
                     add_strv(rel, "sass", o->nv_rel_sass) && add_strv(rel, "ptx", o->nv_rel_ptx) &&
                     (comp = cJSON_AddArrayToObject(nv, "compression")) &&
                     (!(o->nv_compression & XPU_NV_LZ4) || cJSON_AddItemToArray(comp, cJSON_CreateString("lz4"))) &&
                     (!(o->nv_compression & XPU_NV_ZSTD) || cJSON_AddItemToArray(comp, cJSON_CreateString("zstd"))) &&
                     add_strv(nv, "sections", o->nv_sections);
        }
        if (ok && (o->amd_gfx || o->amd_sections || o->amd_compression)) {
                cJSON *amd = cJSON_AddObjectToObject(j, "amd");
                ok = amd && add_strv(amd, "gfx", o->amd_gfx) && add_strv(amd, "compression", o->amd_compression) &&
                     add_strv(amd, "sections", o->amd_sections);
        }
        if (ok && o->cudart_major)
                ok = cJSON_AddNumberToObject(j, "cudart", o->cudart_major) != NULL;
        if (ok && o->stub)
                ok = cJSON_AddTrueToObject(j, "stub") != NULL;
        if (ok && o->driver_copy)
                ok = cJSON_AddTrueToObject(j, "driver_copy") != NULL;
        if (ok && o->malformed)
                ok = cJSON_AddStringToObject(j, "malformed", o->malformed) != NULL;
        if (!ok) {
                cJSON_Delete(j);
                return NULL;
        }
        return j;
}

/* ---- parsing ----------------------------------------------------------------------------------- */

/* Read the array of strings J[KEY] (absent: none) into *V: at most XPU_OBJECT_NAMES_MAX strings of
 * at most 4096 bytes, as the audit writes them. */
static int get_strv(const cJSON *j, const char *key, char ***v, const char *what, char *err, size_t err_size) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, key);
        if (!a || cJSON_IsNull(a))
                return 0;
        if (!cJSON_IsArray(a)) {
                xpu_format_error(err, err_size, "%s\"%s\" is not an array of strings", what, key);
                return -EINVAL;
        }
        size_t n = 0;
        const cJSON *s;
        cJSON_ArrayForEach(s, a) {
                if (++n > XPU_OBJECT_NAMES_MAX) {
                        xpu_format_error(err, err_size, "%s\"%s\" holds more than %u names, more than the audit writes",
                                         what, key, XPU_OBJECT_NAMES_MAX);
                        return -EINVAL;
                }
                if (!cJSON_IsString(s) || strlen(s->valuestring) > 4096) {
                        xpu_format_error(err, err_size, "%s\"%s\" holds something else than a short string", what, key);
                        return -EINVAL;
                }
                for (const cJSON *t = a->child; t != s; t = t->next)
                        if (strcmp(t->valuestring, s->valuestring) == 0) {
                                xpu_format_error(err, err_size, "%s\"%s\" names \"%.64s\" twice", what, key,
                                                 s->valuestring);
                                return -EINVAL;
                        }
        }
        char **list = calloc(n + 1, sizeof *list);
        if (!list)
                return -ENOMEM;
        size_t i = 0;
        cJSON_ArrayForEach(s, a) {
                if (!(list[i++] = strdup(s->valuestring))) {
                        xpu_strv_free(list);
                        return -ENOMEM;
                }
        }
        xpu_strv_free(*v);
        *v = list;
        return 0;
}

/* The decimal number of at most three digits at S, no larger than MAX (an SM number, a PTX ISA
 * part: what the audit writes), into *RET; *END gets the byte after it. False when S does not start
 * with one. */
static bool small_number(const char *s, unsigned max, unsigned *ret, const char **end) {
        size_t n = strspn(s, "0123456789");
        unsigned v = 0;
        if (n == 0 || n > 3)
                return false;
        for (size_t i = 0; i < n; i++)
                v = v * 10 + (unsigned)(s[i] - '0');
        if (v > max)
                return false;
        *ret = v;
        *end = s + n;
        return true;
}

/* "sm_90a", "compute_120f", "sm_100" into a code entry. */
static int parse_code_name(const char *s, struct xpu_nv_code *c) {
        unsigned sm;
        bool ptx = strncmp(s, "compute_", 8) == 0;
        if (!ptx && strncmp(s, "sm_", 3) != 0)
                return -EINVAL;
        const char *suffix;
        if (!small_number(s + (ptx ? 8 : 3), XPU_OBJECT_SM_MAX, &sm, &suffix) || sm == 0)
                return -EINVAL;
        *c = (struct xpu_nv_code){ .kind = ptx ? XPU_FATBIN_PTX : XPU_FATBIN_SASS, .sm = (uint16_t)sm };
        if (strcmp(suffix, "a") == 0)
                c->variant = XPU_SM_ARCH;
        else if (strcmp(suffix, "f") == 0)
                c->variant = XPU_SM_FAMILY;
        else if (*suffix)
                return -EINVAL;
        return 0;
}

static int nv_from_json(const cJSON *nv, struct xpu_object *o, const char *what, char *err, size_t err_size) {
        if (!cJSON_IsObject(nv)) {
                xpu_format_error(err, err_size, "%s\"nvidia\" is not an object", what);
                return -EINVAL;
        }
        int r;
        const cJSON *rel = cJSON_GetObjectItemCaseSensitive(nv, "relocatable");
        if ((r = get_strv(nv, "sass", &o->nv_sass, what, err, err_size)) < 0 ||
            (r = get_strv(nv, "ptx", &o->nv_ptx, what, err, err_size)) < 0 ||
            (r = get_strv(nv, "lto", &o->nv_lto, what, err, err_size)) < 0 ||
            (r = get_strv(nv, "sections", &o->nv_sections, what, err, err_size)) < 0 ||
            (rel && cJSON_IsObject(rel) && ((r = get_strv(rel, "sass", &o->nv_rel_sass, what, err, err_size)) < 0 ||
                                            (r = get_strv(rel, "ptx", &o->nv_rel_ptx, what, err, err_size)) < 0)))
                return r;
        const cJSON *isa = cJSON_GetObjectItemCaseSensitive(nv, "ptx_isa");
        /* One version per PTX name, as the audit writes it: each name is looked up in it. */
        if (isa && (!cJSON_IsObject(isa) || cJSON_GetArraySize(isa) > (int)XPU_OBJECT_NAMES_MAX)) {
                xpu_format_error(err, err_size, "%s\"ptx_isa\" is not an object of at most %u versions", what,
                                 XPU_OBJECT_NAMES_MAX);
                return -EINVAL;
        }
        char *const *lists[2] = { o->nv_sass, o->nv_ptx };
        for (size_t l = 0; l < 2; l++)
                for (char *const *p = lists[l]; p && *p; p++) {
                        struct xpu_nv_code c;
                        if (parse_code_name(*p, &c) < 0 || (c.kind == XPU_FATBIN_PTX) != (l == 1)) {
                                xpu_format_error(err, err_size, "%s\"%s\" is not a %s architecture name", what, *p,
                                                 l ? "PTX (compute_XY)" : "SASS (sm_XY)");
                                return -EINVAL;
                        }
                        if (l == 1) {
                                const cJSON *v = isa ? cJSON_GetObjectItemCaseSensitive(isa, *p) : NULL;
                                unsigned major, minor;
                                const char *dot, *end;
                                if (!cJSON_IsString(v) || !small_number(v->valuestring, 255, &major, &dot) ||
                                    *dot != '.' || !small_number(dot + 1, 255, &minor, &end) || *end) {
                                        xpu_format_error(err, err_size, "%s\"ptx_isa\" has no version for %s", what, *p);
                                        return -EINVAL;
                                }
                                c.ptx_major = (uint8_t)major;
                                c.ptx_minor = (uint8_t)minor;
                        }
                        struct xpu_nv_code *n = realloc(o->nv_code, (o->n_nv_code + 1) * sizeof *n);
                        if (!n)
                                return -ENOMEM;
                        o->nv_code = n;
                        o->nv_code[o->n_nv_code++] = c;
                }
        char **comp = NULL;
        r = get_strv(nv, "compression", &comp, what, err, err_size);
        for (char **p = comp; p && *p; p++)
                o->nv_compression |= strcmp(*p, "lz4") == 0 ? XPU_NV_LZ4 : strcmp(*p, "zstd") == 0 ? XPU_NV_ZSTD : 0;
        xpu_strv_free(comp);
        return r;
}

int xpu_object_from_json(const cJSON *j, struct xpu_object *o, char *err, size_t err_size) {
        memset(o, 0, sizeof *o);
        const cJSON *path = cJSON_GetObjectItemCaseSensitive(j, "path");
        if (!cJSON_IsObject(j) || !cJSON_IsString(path) || !*path->valuestring) {
                xpu_format_error(err, err_size, "an object without a \"path\" string");
                return -EINVAL;
        }
        char what[256];
        snprintf(what, sizeof what, "object \"%.200s\": ", path->valuestring);
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(j, "kind"), *size = cJSON_GetObjectItemCaseSensitive(j, "size_bytes"),
                    *vendor = cJSON_GetObjectItemCaseSensitive(j, "vendor"),
                    *library = cJSON_GetObjectItemCaseSensitive(j, "library"),
                    *soname = cJSON_GetObjectItemCaseSensitive(j, "soname"),
                    *layers = cJSON_GetObjectItemCaseSensitive(j, "layers"),
                    *cudart = cJSON_GetObjectItemCaseSensitive(j, "cudart");
        int k = cJSON_IsString(kind) ? xpu_object_kind_from_name(kind->valuestring) : -EINVAL;
        int r = -EINVAL;
        if (k < 0) {
                xpu_format_error(err, err_size, "%s\"kind\" is not elf, fatbin, cubin, ptx, bundle or code-object", what);
                goto fail;
        }
        o->kind = (enum xpu_object_kind)k;
        if (!(o->path = strdup(path->valuestring)) || (cJSON_IsString(soname) && !(o->soname = strdup(soname->valuestring)))) {
                r = -ENOMEM;
                goto fail;
        }
        if (size && (!cJSON_IsNumber(size) || !(size->valuedouble >= 0 && size->valuedouble < 0x1p63))) {
                xpu_format_error(err, err_size, "%s\"size_bytes\" is not a size in bytes", what);
                goto fail;
        }
        if (size)
                o->size_bytes = (uint64_t)size->valuedouble;
        if (cJSON_IsString(vendor)) {
                const char *v = vendor->valuestring;
                o->vendors = strcmp(v, "nvidia") == 0       ? XPU_CODE_VENDOR_NVIDIA
                             : strcmp(v, "amd") == 0        ? XPU_CODE_VENDOR_AMD
                             : strcmp(v, "nvidia+amd") == 0 ? XPU_CODE_VENDOR_NVIDIA | XPU_CODE_VENDOR_AMD
                                                            : 0;
                if (!o->vendors) {
                        xpu_format_error(err, err_size, "%s\"vendor\" is not nvidia, amd, nvidia+amd or null", what);
                        goto fail;
                }
        }
        if (cJSON_IsString(library)) {
                char name[160];
                snprintf(name, sizeof name, "%.150s.so", library->valuestring);
                o->library = xpu_vendor_library_find(name);
                if (o->library && !(o->library_name = strdup(library->valuestring))) {
                        r = -ENOMEM;
                        goto fail;
                }
        }
        const cJSON *l;
        const cJSON *layer_list = cJSON_IsArray(layers) ? layers : NULL;
        cJSON_ArrayForEach(l, layer_list) {
                for (unsigned i = 0; i < _XPU_LAYER_MAX; i++)
                        if (cJSON_IsString(l) && strcmp(l->valuestring, xpu_layer_name((enum xpu_layer)i)) == 0)
                                o->layers |= 1u << i;
        }
        if (cJSON_IsNumber(cudart) && cudart->valuedouble >= 1 && cudart->valuedouble < 1000)
                o->cudart_major = (unsigned)cudart->valuedouble;
        const cJSON *malformed = cJSON_GetObjectItemCaseSensitive(j, "malformed");
        if (cJSON_IsString(malformed) && !(o->malformed = strdup(malformed->valuestring))) {
                r = -ENOMEM;
                goto fail;
        }
        o->stub = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "stub"));
        o->driver_copy = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "driver_copy"));
        if ((r = get_strv(j, "needed", &o->needed, what, err, err_size)) < 0)
                goto fail;
        const cJSON *nv = cJSON_GetObjectItemCaseSensitive(j, "nvidia"), *amd = cJSON_GetObjectItemCaseSensitive(j, "amd");
        if (nv && (r = nv_from_json(nv, o, what, err, err_size)) < 0)
                goto fail;
        if (amd && (!cJSON_IsObject(amd) || (r = get_strv(amd, "gfx", &o->amd_gfx, what, err, err_size)) < 0 ||
                    (r = get_strv(amd, "compression", &o->amd_compression, what, err, err_size)) < 0 ||
                    (r = get_strv(amd, "sections", &o->amd_sections, what, err, err_size)) < 0)) {
                if (r == 0 || r == -EINVAL) {
                        if (!cJSON_IsObject(amd))
                                xpu_format_error(err, err_size, "%s\"amd\" is not an object", what);
                        r = -EINVAL;
                }
                goto fail;
        }
        for (char **g = o->amd_gfx; g && *g; g++) {
                if (!xpu_gfx_target_id_known(*g)) {
                        xpu_format_error(err, err_size, "%s\"%s\" is not an AMD target ID", what, *g);
                        r = -EINVAL;
                        goto fail;
                }
        }
        /* The audit ties an object with code of a vendor to that vendor. */
        if ((o->n_nv_code && !(o->vendors & XPU_CODE_VENDOR_NVIDIA)) ||
            (o->amd_gfx && o->amd_gfx[0] && !(o->vendors & XPU_CODE_VENDOR_AMD))) {
                xpu_format_error(err, err_size, "%s\"vendor\" does not name the vendor of its device code", what);
                r = -EINVAL;
                goto fail;
        }
        return 0;
fail:
        xpu_object_clear(o);
        return r;
}

cJSON *xpu_index_to_json(const struct xpu_object *objects, size_t n, const char *root, const char *generator) {
        cJSON *j = cJSON_CreateObject(), *a = NULL;
        if (!j || !cJSON_AddNumberToObject(j, "version", INDEX_VERSION) ||
            !cJSON_AddStringToObject(j, "generator", generator) || !cJSON_AddStringToObject(j, "root", root) ||
            !(a = cJSON_AddArrayToObject(j, "objects"))) {
                cJSON_Delete(j);
                return NULL;
        }
        for (size_t i = 0; i < n; i++) {
                if (!objects[i].vendors)
                        continue; /* vendor-neutral: nothing for the check to judge */
                cJSON *o = xpu_object_to_json(&objects[i]);
                if (!o || !cJSON_AddItemToArray(a, o)) {
                        cJSON_Delete(o);
                        cJSON_Delete(j);
                        return NULL;
                }
        }
        return j;
}

/* The values of a parsed index, in one arena: cJSON allocates every value apart, and an index of
 * half a million values spent most of its parse in malloc and free, and in faulting in fresh pages
 * one by one. Chunks mapped with their pages populated in one call, each twice the size of the one
 * before, from ARENA_FIRST (a start's index of a few objects pays for few pages) to ARENA_CHUNK
 * (or one of the size asked for, when larger); all unmapped at once. */
#define ARENA_FIRST (64u << 10)
#define ARENA_CHUNK (4u << 20)

struct arena_chunk {
        struct arena_chunk *next;
        size_t used, size; /* of DATA */
        max_align_t data[];
};

/* cJSON's allocator hooks take no context: the arena of the parse under way. Set only around
 * cJSON_ParseWithLength() in xpu_index_parse(), which a start and `audit --write-index` call from
 * one thread. */
static struct arena_chunk *arena;

static void *arena_alloc(size_t n) {
        n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
        if (!arena || arena->size - arena->used < n) {
                size_t next = !arena ? ARENA_FIRST : arena->size + sizeof *arena >= ARENA_CHUNK / 2
                                                             ? ARENA_CHUNK
                                                             : 2 * (arena->size + sizeof *arena);
                size_t size = n > next - sizeof(struct arena_chunk) ? n + sizeof(struct arena_chunk) : next;
                struct arena_chunk *c = mmap(NULL, size, PROT_READ | PROT_WRITE,
                                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
                if (c == MAP_FAILED)
                        return NULL;
                *c = (struct arena_chunk){ .next = arena, .size = size - sizeof *c };
                arena = c;
        }
        void *p = (char *)arena->data + arena->used;
        arena->used += n;
        return p;
}

static void arena_free(void *p) {
        (void)p; /* freed with the arena */
}

static void arena_release(void) {
        while (arena) {
                struct arena_chunk *next = arena->next;
                munmap(arena, arena->size + sizeof *arena);
                arena = next;
        }
}

/* TEXT[0..LEN) parsed into the arena; NULL when it is not JSON or on -ENOMEM. */
static cJSON *parse_in_arena(const char *text, size_t len) {
        cJSON_Hooks hooks = { .malloc_fn = arena_alloc, .free_fn = arena_free };
        cJSON_InitHooks(&hooks);
        cJSON *j = cJSON_ParseWithLength(text, len);
        cJSON_InitHooks(NULL);
        return j;
}

/* The structural tokens of TEXT[0..LEN), counting stops past MAX. One pass; what is not JSON is
 * left to the parser. */
static size_t json_tokens(const char *text, size_t len, size_t max, bool *nul) {
        size_t n = 0;
        *nul = false;
        for (const char *p = text, *end = text + len; p < end && n <= max; p++) {
                if (*p == '"') {
                        for (p++; p < end && *p != '"'; p++)
                                if (*p == '\\') {
                                        /* \u0000 would end the C string a name becomes, early */
                                        if (end - p >= 6 && memcmp(p + 1, "u0000", 5) == 0)
                                                *nul = true;
                                        p++;
                                }
                } else if (*p == '{' || *p == '[' || *p == ',' || *p == ':') {
                        n++;
                }
        }
        return n;
}

int xpu_index_parse(const char *text, size_t len, struct xpu_object **objects, size_t *n, char *err,
                    size_t err_size) {
        *objects = NULL;
        *n = 0;
        bool nul;
        if (json_tokens(text, len, INDEX_TOKENS_MAX, &nul) > INDEX_TOKENS_MAX) {
                xpu_format_error(err, err_size,
                                 "more than %u JSON values, more than an index of any real image holds; it is not read",
                                 INDEX_TOKENS_MAX);
                return -EINVAL;
        }
        if (nul) {
                xpu_format_error(err, err_size, "a string holds a NUL (\\u0000), which no name has");
                return -EINVAL;
        }
        cJSON *j = parse_in_arena(text, len);
        if (!j) {
                arena_release();
                xpu_format_error(err, err_size, "not JSON (near byte %zu)",
                                 cJSON_GetErrorPtr() ? (size_t)(cJSON_GetErrorPtr() - text) : (size_t)0);
                return -EINVAL;
        }
        const cJSON *version = cJSON_GetObjectItemCaseSensitive(j, "version"),
                    *list = cJSON_GetObjectItemCaseSensitive(j, "objects");
        int r = -EINVAL;
        struct xpu_object *v = NULL;
        size_t count = 0;
        if (!cJSON_IsNumber(version) || version->valuedouble != INDEX_VERSION) {
                xpu_format_error(err, err_size, "not a version %d device-code index (\"version\")", INDEX_VERSION);
                goto out;
        }
        if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) > INDEX_OBJECTS_MAX) {
                xpu_format_error(err, err_size, "\"objects\" is not an array of at most %d objects", INDEX_OBJECTS_MAX);
                goto out;
        }
        size_t total = (size_t)cJSON_GetArraySize(list);
        v = calloc(total ? total : 1, sizeof *v);
        if (!v) {
                r = -ENOMEM;
                goto out;
        }
        const cJSON *o;
        cJSON_ArrayForEach(o, list) {
                r = xpu_object_from_json(o, &v[count], err, err_size);
                if (r < 0)
                        goto out;
                count++;
        }
        *objects = v;
        *n = count;
        v = NULL;
        r = 0;
out:
        for (size_t i = 0; v && i < count; i++)
                xpu_object_clear(&v[i]);
        free(v);
        arena_release(); /* J with it */
        return r;
}
