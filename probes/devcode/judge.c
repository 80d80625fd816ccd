/* SPDX-License-Identifier: Apache-2.0 */
/* Image verdicts from object facts (judge.h has the rules). */
#include "devcode/judge.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/macro.h"
#include "base/str.h"
#include "base/strv.h"

/* Append S to the NULL-terminated *V of *N strings, growing it by doubling (lists of thousands of
 * blocking objects would otherwise be counted again on every push). Returns 0 or -ENOMEM. */
static int push(char ***v, size_t *n, const char *s) {
        if ((*n & (*n + 1)) == 0 || !*v) { /* 0, 1, 3, 7, ...: full at the next power of two */
                char **nv = realloc(*v, (2 * *n + 2) * sizeof *nv);
                if (!nv)
                        return -ENOMEM;
                *v = nv;
        }
        if (!((*v)[*n] = strdup(s)))
                return -ENOMEM;
        (*v)[++*n] = NULL;
        return 0;
}

#define NV XPU_CODE_VENDOR_NVIDIA
#define AMD XPU_CODE_VENDOR_AMD

int xpu_code_target_parse(const char *s, struct xpu_code_target *t) {
        memset(t, 0, sizeof *t);
        if (!s)
                return -EINVAL;
        unsigned major, minor;
        int used = 0;
        if (s[0] >= '1' && s[0] <= '9' && strspn(s, "0123456789.") == strlen(s) &&
            sscanf(s, "%u.%u%n", &major, &minor, &used) == 2 && !s[used] && major <= 99 && minor <= 9) {
                /* nvidia-smi's compute_cap spelling: "9.0" */
                t->vendor = NV;
                t->sm = major * 10 + minor;
                snprintf(t->name, sizeof t->name, "sm_%u", t->sm);
                return 0;
        }
        if (strncmp(s, "sm_", 3) == 0) {
                size_t digits = strspn(s + 3, "0123456789");
                const char *end = s + 3 + digits;
                uint64_t sm;
                char num[4];
                if (digits < 2 || digits > 3 || (*end && !((*end == 'a' || *end == 'f') && end[1] == '\0')))
                        return -EINVAL;
                memcpy(num, s + 3, digits);
                num[digits] = '\0';
                if (xpu_parse_u64(num, 10, &sm) < 0 || sm < 10)
                        return -EINVAL;
                t->vendor = NV;
                t->sm = (unsigned)sm;
                snprintf(t->name, sizeof t->name, "sm_%u", t->sm);
                return 0;
        }
        if (strlen(s) >= sizeof t->name || xpu_gfx_target_parse(s, &t->gfx) < 0 || strstr(t->gfx.processor, "generic"))
                return -EINVAL;
        t->vendor = AMD;
        memcpy(t->name, s, strlen(s) + 1);
        return 0;
}

int xpu_code_env_from(char *const *env, bool strict, struct xpu_code_env *e, char *err, size_t err_size) {
        *e = (struct xpu_code_env){ .hsa_xnack = -1 };
        int bad = 0;
        const struct {
                const char *name;
                bool *flag;
        } flags[] = { { "CUDA_FORCE_PTX_JIT", &e->force_ptx_jit }, { "CUDA_DISABLE_PTX_JIT", &e->disable_ptx_jit } };
        for (size_t i = 0; i < ELEMENTSOF(flags); i++) {
                const char *v = xpu_env_get(env, flags[i].name);
                if (!v || !*v)
                        continue;
                int b = strcmp(v, "1") == 0 ? 1 : strcmp(v, "0") == 0 ? 0 : -1;
                if (b < 0) {
                        if (!bad++)
                                xpu_format_error(err, err_size, "%s=%s: the CUDA driver reads 1 (on) or 0; set one of them",
                                                 flags[i].name, v);
                        continue;
                }
                *flags[i].flag = b;
        }
        const char *v = xpu_env_get(env, "HSA_XNACK");
        if (v && *v) {
                if (strcmp(v, "1") != 0 && strcmp(v, "0") != 0) {
                        if (!bad++)
                                xpu_format_error(err, err_size, "HSA_XNACK=%s: ROCm reads 1 (XNACK on) or 0; set one of them",
                                                 v);
                } else {
                        e->hsa_xnack = v[0] == '1';
                }
        }
        v = xpu_env_get(env, "HSA_OVERRIDE_GFX_VERSION");
        if (v && *v) {
                char p[32];
                if (strlen(v) >= sizeof e->hsa_override || xpu_gfx_processor_of_version(v, p, sizeof p) < 0) {
                        if (!bad++)
                                xpu_format_error(err, err_size,
                                                 "HSA_OVERRIDE_GFX_VERSION=%s is not a gfx version such as 10.3.0 or 9.0.10",
                                                 v);
                } else {
                        memcpy(e->hsa_override, v, strlen(v) + 1);
                }
        }
        if (bad && strict) {
                *e = (struct xpu_code_env){ .hsa_xnack = -1 };
                return -EINVAL;
        }
        return bad ? 1 : 0;
}

void xpu_code_verdict_clear(struct xpu_code_verdict *v) {
        xpu_strv_free(v->blocking);
        for (size_t i = 0; i < v->n_file_issues; i++) {
                free(v->file_issues[i].dir);
                free(v->file_issues[i].message);
        }
        free(v->file_issues);
        free(v->reason);
        memset(v, 0, sizeof *v);
}

/* ---- NVIDIA ------------------------------------------------------------------------------------ */

/* Why an object's PTX does not help: set by nv_level(). */
struct nv_why {
        unsigned isa_major, isa_minor; /* a PTX ISA newer than the driver (0.0: none) */
        int isa_cuda;
        bool isa_unknown;              /* a PTX ISA this build's table does not know */
        int jit_cuda;                  /* the CUDA version the JIT-compiled PTX needs (lowest), 0: none */
};

static enum xpu_code_level nv_level(const struct xpu_object *o, unsigned sm, const struct xpu_code_env *env,
                                    struct nv_why *why) {
        bool jit = false;
        for (size_t i = 0; i < o->n_nv_code; i++) {
                const struct xpu_nv_code *c = &o->nv_code[i];
                if (c->kind == XPU_FATBIN_SASS) {
                        if (!env->force_ptx_jit && xpu_sass_runs_on(c->sm, c->variant, sm))
                                return XPU_CODE_NATIVE;
                        continue;
                }
                if (env->disable_ptx_jit || !xpu_ptx_jits_on(c->sm, c->variant, sm))
                        continue;
                int cuda = xpu_ptx_isa_cuda(c->ptx_major, c->ptx_minor);
                if (cuda < 0) {
                        /* Newer than this build knows: it needs at least a driver newer than the
                         * newest known; older than the table: every driver takes it. */
                        cuda = xpu_ptx_isa_newer_cuda(c->ptx_major, c->ptx_minor);
                        if (why && cuda)
                                why->isa_unknown = true;
                }
                if (env->cuda_driver > 0 && cuda > env->cuda_driver) {
                        if (why) {
                                why->isa_major = c->ptx_major;
                                why->isa_minor = c->ptx_minor;
                                why->isa_cuda = cuda;
                        }
                        continue;
                }
                if (why && cuda > 0 && (!why->jit_cuda || cuda < why->jit_cuda))
                        why->jit_cuda = cuda;
                jit = true;
        }
        return jit ? XPU_CODE_PTX_JIT : XPU_CODE_CANNOT_RUN;
}

/* ---- AMD --------------------------------------------------------------------------------------- */

static bool amd_runs(const struct xpu_object *o, const struct xpu_gfx_target *device) {
        for (char **g = o->amd_gfx; g && *g; g++) {
                struct xpu_gfx_target code;
                if (xpu_gfx_target_parse(*g, &code) == 0 && xpu_gfx_code_runs_on(&code, device))
                        return true;
        }
        return false;
}

/* HSA_XNACK switches XNACK only on MI200-class GPUs: gfx90a reports xnack+ after it, gfx906 and
 * gfx908 stay xnack- (AMD lab notes, amd-lab-notes discussion 5). */
static bool xnack_switchable(const char *processor) {
        return strcmp(processor, "gfx90a") == 0;
}

/* The device's XNACK mode where HSA_XNACK switches it: HSA_XNACK, else what the target states,
 * else the runtime's default, off (the KFD topology does not tell the mode). */
static struct xpu_gfx_target amd_device(const struct xpu_code_target *t, const struct xpu_code_env *env) {
        struct xpu_gfx_target d = t->gfx;
        if (xnack_switchable(d.processor))
                d.xnack = env->hsa_xnack >= 0 ? env->hsa_xnack : d.xnack >= 0 ? d.xnack : 0;
        return d;
}

/* An object of T's vendor whose device code could not be read: nothing says it runs. */
static bool unreadable(const struct xpu_object *o, unsigned vendor) {
        return o->malformed && (o->vendors & vendor) && !xpu_object_has_code(o, vendor);
}

enum xpu_code_level xpu_code_object_level(const struct xpu_object *o, const struct xpu_code_target *t,
                                          const struct xpu_code_env *env) {
        if (t->unknown)
                return XPU_CODE_NATIVE;
        if (unreadable(o, t->vendor))
                return XPU_CODE_CANNOT_RUN;
        if (!xpu_object_has_code(o, t->vendor))
                return XPU_CODE_NATIVE;
        if (t->vendor == NV)
                return nv_level(o, t->sm, env, NULL);
        struct xpu_gfx_target d = amd_device(t, env);
        return amd_runs(o, &d) ? XPU_CODE_NATIVE : XPU_CODE_CANNOT_RUN;
}

/* ---- words ------------------------------------------------------------------------------------- */

static const char *object_name(const struct xpu_object *o) {
        if (o->soname)
                return o->soname;
        const char *slash = strrchr(o->path, '/');
        return slash ? slash + 1 : o->path;
}

/* "sm_80, sm_90, compute_90" or "gfx90a:xnack-, gfx1030": what O has, at most 8 names. */
static void code_list(const struct xpu_object *o, unsigned vendor, char *buf, size_t size) {
        char *const *lists[2] = { vendor == NV ? o->nv_sass : o->amd_gfx, vendor == NV ? o->nv_ptx : NULL };
        size_t used = 0, shown = 0, total = 0;
        buf[0] = '\0';
        for (size_t l = 0; l < 2; l++)
                for (char *const *p = lists[l]; p && *p; p++, total++) {
                        if (shown == 8 || used + strlen(*p) + 3 >= size)
                                continue;
                        used += (size_t)snprintf(buf + used, size - used, "%s%s", shown ? ", " : "", *p);
                        shown++;
                }
        if (shown < total && used + 4 < size)
                snprintf(buf + used, size - used, ", …");
}

_printf_(2, 3) static int set_reason(struct xpu_code_verdict *v, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        free(v->reason);
        int r = vasprintf(&v->reason, fmt, ap);
        va_end(ap);
        if (r < 0) {
                v->reason = NULL;
                return -ENOMEM;
        }
        return 0;
}

static const char *vendor_stack(unsigned vendor) {
        return vendor == NV ? "CUDA" : "ROCm/HIP";
}

static const char *vendor_word(unsigned vendor) {
        return vendor == NV ? "NVIDIA" : "AMD";
}

/* " on this node's 8 × NVIDIA H200" or " on sm_90". */
static void target_words(const struct xpu_code_target *t, char *buf, size_t size) {
        if (t->gpus[0])
                snprintf(buf, size, "this node's %s (%s)", t->gpus, t->name);
        else
                snprintf(buf, size, "%s", t->name);
}

/* The image has only the other vendor's libraries. */
static int judge_other_vendor(const struct xpu_object *objects, size_t n, const struct xpu_code_target *t,
                              struct xpu_code_verdict *v) {
        unsigned other = t->vendor ^ (NV | AMD);
        char names[256] = "";
        size_t used = 0, listed = 0, total = 0;
        for (size_t i = 0; i < n; i++) {
                const struct xpu_object *o = &objects[i];
                if (o->kind != XPU_OBJECT_ELF || !(o->vendors & other))
                        continue;
                total++;
                if (push(&v->blocking, &v->n_blocking, o->path) < 0)
                        return -ENOMEM;
                if (listed < 3 && used + strlen(object_name(o)) + 3 < sizeof names) {
                        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", listed ? ", " : "",
                                                 object_name(o));
                        listed++;
                }
        }
        char where[256], more[48] = "";
        target_words(t, where, sizeof where);
        if (total > listed) /* a CUDA image has dozens: the blocking list has them all */
                snprintf(more, sizeof more, " and %zu more", total - listed);
        v->level = XPU_CODE_CANNOT_RUN;
        return set_reason(v, "this image has %s (%s%s) and nothing for %s; it cannot run on %s", vendor_stack(other),
                          names, more, vendor_word(t->vendor), where);
}

/* No ELF object carries device code of T's vendor: nothing the image loads can fail on T. */
static int judge_no_code(const struct xpu_object *objects, size_t n, const struct xpu_code_target *t,
                         struct xpu_code_verdict *v) {
        size_t files = 0;
        for (size_t i = 0; i < n; i++)
                files += objects[i].kind != XPU_OBJECT_ELF && xpu_object_has_code(&objects[i], t->vendor);
        char where[256];
        target_words(t, where, sizeof where);
        v->level = XPU_CODE_NATIVE;
        return set_reason(v,
                          "no device code: the image runs no kernels of its own on %s (no library or program in it "
                          "carries %s device code%s), so there is nothing to fail",
                          where, vendor_word(t->vendor),
                          files ? "; its standalone kernel files are judged apart, as issues" : "");
}

/* The first object of VENDOR whose device code could not be read, or NULL; its path is added to
 * the blocking list. */
static int find_unreadable(const struct xpu_object *objects, size_t n, unsigned vendor, struct xpu_code_verdict *v,
                           const struct xpu_object **first) {
        *first = NULL;
        for (size_t i = 0; i < n; i++) {
                if (objects[i].kind != XPU_OBJECT_ELF || !unreadable(&objects[i], vendor))
                        continue;
                if (!*first) {
                        v->blocking = xpu_strv_free(v->blocking), v->n_blocking = 0;
                        *first = &objects[i];
                }
                if (push(&v->blocking, &v->n_blocking, objects[i].path) < 0)
                        return -ENOMEM;
        }
        return 0;
}

static int judge_unreadable(const struct xpu_object *o, const struct xpu_code_target *t, struct xpu_code_verdict *v) {
        char where[256];
        target_words(t, where, sizeof where);
        v->level = XPU_CODE_CANNOT_RUN;
        return set_reason(v, "the %s device code of %s could not be read (%s), so nothing says it runs on %s",
                          vendor_word(t->vendor), object_name(o), o->malformed, where);
}

static int judge_nvidia(const struct xpu_object *objects, size_t n, const struct xpu_code_target *t,
                        const struct xpu_code_env *env, struct xpu_code_verdict *v) {
        enum xpu_code_level worst = XPU_CODE_NATIVE;
        const struct xpu_object *first = NULL, *bad = NULL;
        struct nv_why why = { 0 };
        size_t with_code = 0;
        for (size_t i = 0; i < n; i++) {
                const struct xpu_object *o = &objects[i];
                if (o->kind != XPU_OBJECT_ELF || !xpu_object_has_code(o, NV))
                        continue;
                with_code++;
                struct nv_why w = { 0 };
                enum xpu_code_level l = nv_level(o, t->sm, env, &w);
                if (l > worst || (l == worst && l == XPU_CODE_NATIVE && w.jit_cuda > why.jit_cuda)) {
                        if (l > worst) {
                                first = o;
                                v->blocking = xpu_strv_free(v->blocking), v->n_blocking = 0;
                        }
                        worst = l;
                        why = w;
                }
                if (l == worst && l != XPU_CODE_NATIVE && push(&v->blocking, &v->n_blocking, o->path) < 0)
                        return -ENOMEM;
        }
        /* The runtime's own need: libcudart.so.N refuses a driver older than CUDA N. */
        const struct xpu_object *cudart = NULL;
        for (size_t i = 0; i < n && env->cuda_driver > 0; i++) {
                const struct xpu_object *o = &objects[i];
                if (o->kind != XPU_OBJECT_ELF || !o->cudart_major || (int)o->cudart_major * 1000 <= env->cuda_driver)
                        continue;
                if (!cudart) {
                        v->blocking = xpu_strv_free(v->blocking), v->n_blocking = 0;
                        cudart = o;
                }
                if (push(&v->blocking, &v->n_blocking, o->path) < 0)
                        return -ENOMEM;
        }
        char where[256], has[256];
        target_words(t, where, sizeof where);
        if (cudart) {
                v->level = XPU_CODE_CANNOT_RUN;
                return set_reason(v,
                                  "%s uses the CUDA %u runtime, which needs a driver of CUDA %u.0 or later; the driver is "
                                  "CUDA %d.%d",
                                  object_name(cudart), cudart->cudart_major, cudart->cudart_major,
                                  env->cuda_driver / 1000, env->cuda_driver % 1000 / 10);
        }
        if (worst != XPU_CODE_CANNOT_RUN) {
                int r = find_unreadable(objects, n, NV, v, &bad);
                if (r < 0 || bad)
                        return r < 0 ? r : judge_unreadable(bad, t, v);
        }
        v->level = worst;
        if (worst == XPU_CODE_NATIVE)
                return with_code ? set_reason(v, "each of the %zu object(s) with NVIDIA device code has SASS that runs "
                                                 "on %s",
                                              with_code, where)
                                 : judge_no_code(objects, n, t, v);
        code_list(first, NV, has, sizeof has);
        if (worst == XPU_CODE_PTX_JIT) {
                char driver[160] = "";
                if (!env->cuda_driver && why.jit_cuda)
                        snprintf(driver, sizeof driver,
                                 "; the driver's CUDA version is not known: it must be CUDA %d.%d or later for that PTX "
                                 "(--cuda-driver)",
                                 why.jit_cuda / 1000, why.jit_cuda % 1000 / 10);
                return set_reason(v,
                                  "%s %s %s (it has %s): the driver JIT-compiles its PTX at the first start, which "
                                  "takes time and needs space for the JIT cache%s",
                                  object_name(first),
                                  env->force_ptx_jit ? "has its SASS ignored (CUDA_FORCE_PTX_JIT=1) on" : "has no SASS for",
                                  where, has, driver);
        }
        char isa[160] = "";
        if (why.isa_cuda)
                snprintf(isa, sizeof isa, "; its PTX ISA %u.%u needs a CUDA %s%d.%d driver (the driver is CUDA %d.%d)",
                         why.isa_major, why.isa_minor, why.isa_unknown ? "newer than " : "",
                         (why.isa_unknown ? why.isa_cuda - 10 : why.isa_cuda) / 1000,
                         (why.isa_unknown ? why.isa_cuda - 10 : why.isa_cuda) % 1000 / 10, env->cuda_driver / 1000,
                         env->cuda_driver % 1000 / 10);
        return set_reason(v, "%s has %s %s and no PTX that can be JIT-compiled for it (it has %s)%s%s",
                          object_name(first),
                          env->force_ptx_jit ? "its SASS ignored (CUDA_FORCE_PTX_JIT=1) on" : "no SASS for", where,
                          has[0] ? has : "nothing loadable", isa,
                          env->disable_ptx_jit ? "; CUDA_DISABLE_PTX_JIT=1 forbids the JIT" : "");
}

/* Every AMD object with code runs on DEVICE. */
static bool amd_all_run(const struct xpu_object *objects, size_t n, const struct xpu_gfx_target *device) {
        for (size_t i = 0; i < n; i++)
                if (objects[i].kind == XPU_OBJECT_ELF && xpu_object_has_code(&objects[i], AMD) &&
                    !amd_runs(&objects[i], device))
                        return false;
        return true;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* An image target in the device's generic family that every object has: the override value. */
static bool amd_override_candidate(const struct xpu_object *objects, size_t n, const struct xpu_gfx_target *device,
                                   char *processor, size_t size) {
        const char *family = xpu_gfx_generic_of(device->processor);
        if (!family)
                return false;
        char *candidates[64];
        size_t nc = 0;
        for (size_t i = 0; i < n; i++) {
                if (objects[i].kind != XPU_OBJECT_ELF)
                        continue;
                for (char **g = objects[i].amd_gfx; g && *g; g++) {
                        struct xpu_gfx_target code;
                        if (xpu_gfx_target_parse(*g, &code) < 0 || strcmp(code.processor, device->processor) == 0)
                                continue;
                        const char *f = xpu_gfx_generic_of(code.processor);
                        if (!f || strcmp(f, family) != 0)
                                continue;
                        bool dup = false;
                        for (size_t k = 0; k < nc && !dup; k++)
                                dup = strcmp(candidates[k], code.processor) == 0;
                        if (dup || nc == ELEMENTSOF(candidates))
                                continue;
                        candidates[nc] = strdup(code.processor);
                        if (candidates[nc])
                                nc++;
                }
        }
        qsort(candidates, nc, sizeof candidates[0], cmp_str);
        bool found = false;
        for (size_t k = 0; k < nc; k++) {
                struct xpu_gfx_target d = *device;
                xpu_strlcpy(d.processor, candidates[k], sizeof d.processor);
                if (!found && amd_all_run(objects, n, &d)) {
                        xpu_strlcpy(processor, candidates[k], size);
                        found = true;
                }
                free(candidates[k]);
        }
        return found;
}

/* The user's HSA_OVERRIDE_GFX_VERSION: ROCm treats the GPU as that processor, whatever code the
 * image has; one outside the GPU's generic family runs code built for another design (it crashes:
 * an RX 5700 told 10.3.0), so it is not taken as making anything run. */
static int judge_amd_user_override(const struct xpu_object *objects, size_t n, const struct xpu_code_target *t,
                                   const struct xpu_gfx_target *device, const struct xpu_code_env *env,
                                   struct xpu_code_verdict *v) {
        char where[256];
        target_words(t, where, sizeof where);
        struct xpu_gfx_target d = *device;
        if (xpu_gfx_processor_of_version(env->hsa_override, d.processor, sizeof d.processor) < 0)
                return set_reason(v, "HSA_OVERRIDE_GFX_VERSION=%s names no processor", env->hsa_override);
        const char *family = xpu_gfx_generic_of(device->processor), *other = xpu_gfx_generic_of(d.processor);
        bool same = strcmp(d.processor, device->processor) == 0 || (family && other && strcmp(family, other) == 0);
        const struct xpu_object *first = NULL;
        for (size_t i = 0; i < n; i++) {
                const struct xpu_object *o = &objects[i];
                if (o->kind != XPU_OBJECT_ELF || !xpu_object_has_code(o, AMD) || (same && amd_runs(o, &d)))
                        continue;
                first = first ? first : o;
                if (push(&v->blocking, &v->n_blocking, o->path) < 0)
                        return -ENOMEM;
        }
        snprintf(v->override_name, sizeof v->override_name, "HSA_OVERRIDE_GFX_VERSION");
        snprintf(v->override_value, sizeof v->override_value, "%s", env->hsa_override);
        v->override_from_env = true;
        if (!same) {
                v->level = XPU_CODE_CANNOT_RUN;
                return set_reason(v,
                                  "HSA_OVERRIDE_GFX_VERSION=%s from the environment makes ROCm treat %s as %s, which is "
                                  "not of its family: code for %s does not run there; unset it",
                                  env->hsa_override, where, d.processor, d.processor);
        }
        if (first) {
                char has[256];
                code_list(first, AMD, has, sizeof has);
                v->level = XPU_CODE_CANNOT_RUN;
                return set_reason(v,
                                  "with HSA_OVERRIDE_GFX_VERSION=%s from the environment ROCm looks for %s code, and %s "
                                  "has none (it has %s)",
                                  env->hsa_override, d.processor, object_name(first), has);
        }
        v->level = strcmp(d.processor, device->processor) == 0 ? XPU_CODE_NATIVE : XPU_CODE_OVERRIDE;
        return set_reason(v,
                          "with HSA_OVERRIDE_GFX_VERSION=%s from the environment ROCm treats %s as %s, which every "
                          "object has code for",
                          env->hsa_override, where, d.processor);
}

static int judge_amd(const struct xpu_object *objects, size_t n, const struct xpu_code_target *t,
                     const struct xpu_code_env *env, struct xpu_code_verdict *v) {
        struct xpu_gfx_target device = amd_device(t, env);
        const struct xpu_object *bad;
        int r = find_unreadable(objects, n, AMD, v, &bad);
        if (r < 0 || bad)
                return r < 0 ? r : judge_unreadable(bad, t, v);
        if (env->hsa_override[0])
                return judge_amd_user_override(objects, n, t, &device, env, v);
        const struct xpu_object *first = NULL;
        size_t with_code = 0;
        for (size_t i = 0; i < n; i++) {
                const struct xpu_object *o = &objects[i];
                if (o->kind != XPU_OBJECT_ELF || !xpu_object_has_code(o, AMD))
                        continue;
                with_code++;
                if (amd_runs(o, &device))
                        continue;
                if (!first)
                        first = o;
                if (push(&v->blocking, &v->n_blocking, o->path) < 0)
                        return -ENOMEM;
        }
        char where[256], has[256], mode[64] = "";
        target_words(t, where, sizeof where);
        if (env->hsa_xnack >= 0 && xnack_switchable(device.processor))
                snprintf(mode, sizeof mode, " with HSA_XNACK=%d from the environment", env->hsa_xnack);
        if (!first) {
                v->level = XPU_CODE_NATIVE;
                return with_code ? set_reason(v, "each of the %zu object(s) with AMD device code has a code object that "
                                                 "runs on %s%s",
                                              with_code, where, mode)
                                 : judge_no_code(objects, n, t, v);
        }
        code_list(first, AMD, has, sizeof has);
        char processor[32];
        if (amd_override_candidate(objects, n, &device, processor, sizeof processor)) {
                v->level = XPU_CODE_OVERRIDE;
                snprintf(v->override_name, sizeof v->override_name, "HSA_OVERRIDE_GFX_VERSION");
                if (xpu_gfx_override_version(processor, v->override_value, sizeof v->override_value) < 0)
                        v->override_value[0] = '\0';
                return set_reason(v,
                                  "%s has no code object for %s (it has %s); every object has code for %s, of the same "
                                  "generic family, which HSA_OVERRIDE_GFX_VERSION=%s selects (process-wide, not "
                                  "supported by AMD)",
                                  object_name(first), where, has, processor, v->override_value);
        }
        if (xnack_switchable(device.processor) && device.xnack != 1 && env->hsa_xnack < 0) {
                struct xpu_gfx_target d = device;
                d.xnack = 1;
                if (amd_all_run(objects, n, &d)) {
                        v->level = XPU_CODE_OVERRIDE;
                        snprintf(v->override_name, sizeof v->override_name, "HSA_XNACK");
                        snprintf(v->override_value, sizeof v->override_value, "1");
                        return set_reason(v,
                                          "%s has code for %s only with XNACK on (it has %s): HSA_XNACK=1 turns it on",
                                          object_name(first), where, has);
                }
        }
        v->level = XPU_CODE_CANNOT_RUN;
        return set_reason(v, "%s has no code object for %s%s (it has %s), and no HSA_OVERRIDE_GFX_VERSION or HSA_XNACK "
                             "makes every object run",
                          object_name(first), where, mode, has);
}

/* The directory part of an object's path ("" for a file at the root). */
static size_t dir_len(const struct xpu_object *o) {
        const char *slash = strrchr(o->path, '/');
        return slash ? (size_t)(slash - o->path) : 0;
}

static int cmp_dir(const void *a, const void *b) {
        const struct xpu_object *x = *(const struct xpu_object *const *)a, *y = *(const struct xpu_object *const *)b;
        size_t lx = dir_len(x), ly = dir_len(y);
        int c = memcmp(x->path, y->path, lx < ly ? lx : ly);
        return c ? c : lx < ly ? -1 : lx > ly;
}

/* Directories of standalone kernel files of T's vendor with nothing that runs on T: grouped by
 * directory after one sort (images carry tens of thousands of such files). */
static int judge_files(const struct xpu_object *objects, size_t n, const struct xpu_code_target *t,
                       const struct xpu_code_env *env, struct xpu_code_verdict *v) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
                m += objects[i].kind != XPU_OBJECT_ELF && xpu_object_has_code(&objects[i], t->vendor);
        if (m == 0)
                return 0;
        const struct xpu_object **files = malloc(m * sizeof *files);
        if (!files)
                return -ENOMEM;
        m = 0;
        for (size_t i = 0; i < n; i++)
                if (objects[i].kind != XPU_OBJECT_ELF && xpu_object_has_code(&objects[i], t->vendor))
                        files[m++] = &objects[i];
        qsort(files, m, sizeof *files, cmp_dir);
        int r = 0;
        for (size_t i = 0, j; i < m && r == 0; i = j) {
                bool runs = false;
                for (j = i; j < m && cmp_dir(&files[i], &files[j]) == 0; j++)
                        runs = runs || xpu_code_object_level(files[j], t, env) != XPU_CODE_CANNOT_RUN;
                if (runs)
                        continue;
                struct xpu_code_file_issue *grown = realloc(v->file_issues, (v->n_file_issues + 1) * sizeof *grown);
                if (!grown) {
                        r = -ENOMEM;
                        break;
                }
                v->file_issues = grown;
                size_t dl = dir_len(files[i]);
                struct xpu_code_file_issue issue = { .dir = dl ? strndup(files[i]->path, dl) : strdup(".") };
                if (!issue.dir || asprintf(&issue.message, "%zu %s kernel file(s), none for %s", j - i,
                                           vendor_word(t->vendor), t->name) < 0) {
                        free(issue.dir);
                        r = -ENOMEM;
                        break;
                }
                v->file_issues[v->n_file_issues++] = issue;
        }
        free(files);
        return r;
}

/* The code formats the judge knows, by their XPU_CODE_VENDOR_* bit: what a GPU's kind is called
 * in them and how the device code of a target is judged. */
static const struct code_format {
        unsigned vendor;
        const char *target_name;
        int (*judge)(const struct xpu_object *objects, size_t n, const struct xpu_code_target *t,
                     const struct xpu_code_env *env, struct xpu_code_verdict *v);
} code_formats[] = {
        { NV, "compute capability", judge_nvidia }, /* CUDA fatbins: SASS and PTX */
        { AMD, "gfx target", judge_amd },           /* AMD code objects, by target ID */
};

int xpu_code_judge(const struct xpu_object *objects, size_t n, const struct xpu_code_target *t,
                   const struct xpu_code_env *env, struct xpu_code_verdict *v) {
        memset(v, 0, sizeof *v);
        const struct code_format *f = NULL;
        for (size_t i = 0; i < ELEMENTSOF(code_formats) && !f; i++)
                if (code_formats[i].vendor == t->vendor)
                        f = &code_formats[i];
        if (!f)
                return -EINVAL; /* xpu_code_target_parse() and the device targets give one of them */
        bool mine = false, other = false;
        for (size_t i = 0; i < n; i++) {
                if (objects[i].kind != XPU_OBJECT_ELF)
                        continue;
                mine = mine || (objects[i].vendors & t->vendor);
                other = other || (objects[i].vendors & (t->vendor ^ (NV | AMD)));
        }
        int r;
        if (!mine && other) {
                r = judge_other_vendor(objects, n, t, v);
        } else if (t->unknown) {
                /* Only the vendor is known: nothing more can be said. */
                v->not_judged = true;
                r = set_reason(v, "the %s GPU's %s is not known, so the image's device code was not judged for it",
                               vendor_word(t->vendor), f->target_name);
        } else {
                r = f->judge(objects, n, t, env, v);
        }
        if (r == 0 && !t->unknown)
                r = judge_files(objects, n, t, env, v);
        if (r < 0)
                xpu_code_verdict_clear(v);
        return r;
}
