/* SPDX-License-Identifier: Apache-2.0 */
/* probes/devcode/judge.c: the image verdicts for every rule of judge.h, the code targets and the
 * environment the check reads, and the index carrying what the check needs. What the audit reads
 * from the fixtures is test-devcode-object.c's, the library table test-devcode-libraries.c's, the
 * walk test-devcode-walk.c's. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/strv.h"
#include "devcode/judge.h"
#include "devcode/object-json.h"
#include "devcode/object.h"
#include "testlib.h"

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

/* ---- judge ---- */

static struct xpu_object from_json(const char *json) {
        cJSON *j = cJSON_Parse(json);
        ck_assert_ptr_nonnull(j);
        struct xpu_object o;
        char err[256];
        int r = xpu_object_from_json(j, &o, err, sizeof err);
        if (r < 0)
                ck_abort_msg("%s: %s", json, err);
        cJSON_Delete(j);
        return o;
}

static struct xpu_code_target target(const char *s) {
        struct xpu_code_target t;
        ck_assert_int_eq(xpu_code_target_parse(s, &t), 0);
        return t;
}

/* The verdict for OBJECTS at TARGET with ENV; the reason is checked to hold WORDS when not NULL. */
static enum xpu_code_level judge(const struct xpu_object *objects, size_t n, const char *t,
                                 const struct xpu_code_env *env, const char *words, struct xpu_code_verdict *keep) {
        struct xpu_code_target tg = target(t);
        struct xpu_code_verdict v;
        ck_assert_int_eq(xpu_code_judge(objects, n, &tg, env, &v), 0);
        ck_assert_ptr_nonnull(v.reason);
        if (words && !strstr(v.reason, words))
                ck_abort_msg("%s: reason \"%s\" lacks \"%s\"", t, v.reason, words);
        enum xpu_code_level l = v.level;
        if (keep)
                *keep = v;
        else
                xpu_code_verdict_clear(&v);
        return l;
}

#define NV_LIB(path, sass, ptx, isa)                                                                          \
        "{\"path\":\"" path "\",\"kind\":\"elf\",\"vendor\":\"nvidia\",\"nvidia\":{\"sass\":[" sass "],\"ptx\":[" ptx \
        "],\"ptx_isa\":{" isa "}}}"

START_TEST(test_judge_nvidia) {
        struct xpu_code_env env = { .hsa_xnack = -1 };
        struct xpu_object o[2];
        o[0] = from_json(NV_LIB("lib/libk.so", "\"sm_80\",\"sm_90\"", "\"compute_90\"", "\"compute_90\":\"9.0\""));
        ck_assert_int_eq(judge(o, 1, "sm_90", &env, "SASS that runs on sm_90", NULL), XPU_CODE_NATIVE);
        ck_assert_int_eq(judge(o, 1, "sm_86", &env, NULL, NULL), XPU_CODE_NATIVE); /* sm_80 runs on 8.6 */
        ck_assert_int_eq(judge(o, 1, "sm_120", &env, "JIT-compiles", NULL), XPU_CODE_PTX_JIT);
        ck_assert_int_eq(judge(o, 1, "sm_75", &env, "no SASS for sm_75", NULL), XPU_CODE_CANNOT_RUN);
        /* The driver must know the PTX ISA: 9.0 needs CUDA 13.0. */
        env.cuda_driver = 12080;
        ck_assert_int_eq(judge(o, 1, "sm_120", &env, "PTX ISA 9.0 needs a CUDA 13.0 driver", NULL),
                         XPU_CODE_CANNOT_RUN);
        env.cuda_driver = 13000;
        ck_assert_int_eq(judge(o, 1, "sm_120", &env, NULL, NULL), XPU_CODE_PTX_JIT);
        env.cuda_driver = 0;
        env.force_ptx_jit = true;
        ck_assert_int_eq(judge(o, 1, "sm_90", &env, "CUDA_FORCE_PTX_JIT", NULL), XPU_CODE_PTX_JIT);
        env.force_ptx_jit = false;
        env.disable_ptx_jit = true;
        ck_assert_int_eq(judge(o, 1, "sm_120", &env, "CUDA_DISABLE_PTX_JIT", NULL), XPU_CODE_CANNOT_RUN);
        env.disable_ptx_jit = false;

        /* The worst object wins and is named. */
        o[1] = from_json(NV_LIB("lib/libold.so", "\"sm_70\"", "", ""));
        struct xpu_code_verdict v;
        ck_assert_int_eq(judge(o, 2, "sm_90", &env, "libold.so", &v), XPU_CODE_CANNOT_RUN);
        ck_assert_uint_eq(xpu_strv_length(v.blocking), 1);
        ck_assert_str_eq(v.blocking[0], "lib/libold.so");
        xpu_code_verdict_clear(&v);
        xpu_object_clear(&o[1]);

        /* Arch- and family-specific code. */
        o[1] = from_json(NV_LIB("lib/libaf.so", "\"sm_90a\",\"sm_100f\"", "", ""));
        ck_assert_int_eq(judge(&o[1], 1, "sm_90", &env, NULL, NULL), XPU_CODE_NATIVE);
        ck_assert_int_eq(judge(&o[1], 1, "sm_103", &env, NULL, NULL), XPU_CODE_NATIVE);
        ck_assert_int_eq(judge(&o[1], 1, "sm_110", &env, NULL, NULL), XPU_CODE_CANNOT_RUN);
        ck_assert_int_eq(judge(&o[1], 1, "sm_120", &env, NULL, NULL), XPU_CODE_CANNOT_RUN);
        xpu_object_clear(&o[1]);

        /* libcudart.so.13 needs a CUDA 13 driver. */
        o[1] = from_json("{\"path\":\"lib/libcudart.so.13\",\"kind\":\"elf\",\"vendor\":\"nvidia\",\"cudart\":13}");
        env.cuda_driver = 12040;
        ck_assert_int_eq(judge(o, 2, "sm_90", &env, "CUDA 13.0 or later; the driver is CUDA 12.4", NULL),
                         XPU_CODE_CANNOT_RUN);
        env.cuda_driver = 13000;
        ck_assert_int_eq(judge(o, 2, "sm_90", &env, NULL, NULL), XPU_CODE_NATIVE);
        xpu_object_clear(&o[1]);
        xpu_object_clear(&o[0]);

        /* No device code at all: nothing stops it, and the reason says so in words. A CUDA-only image
         * on an AMD GPU cannot run. */
        o[0] = from_json("{\"path\":\"usr/lib/libplain.so\",\"kind\":\"elf\",\"vendor\":null}");
        ck_assert_int_eq(judge(o, 1, "sm_90", &env,
                               "no device code: the image runs no kernels of its own on sm_90 (no library or program "
                               "in it carries NVIDIA device code), so there is nothing to fail",
                               NULL),
                         XPU_CODE_NATIVE);
        ck_assert_int_eq(judge(o, 1, "gfx942", &env, "no device code: the image runs no kernels of its own on gfx942", NULL),
                         XPU_CODE_NATIVE);
        xpu_object_clear(&o[0]);
        o[0] = from_json("{\"path\":\"usr/lib/libcublas.so.13\",\"soname\":\"libcublas.so.13\",\"kind\":\"elf\","
                         "\"vendor\":\"nvidia\",\"library\":\"libcublas\"}");
        ck_assert_int_eq(judge(o, 1, "gfx942", &env, "this image has CUDA (libcublas.so.13) and nothing for AMD", NULL),
                         XPU_CODE_CANNOT_RUN);
        xpu_object_clear(&o[0]);
}
END_TEST

/* A CUDA image on an AMD GPU: the reason names three libraries and counts the rest; the blocking
 * list (data) has them all. */
START_TEST(test_judge_other_vendor_names_a_few) {
        struct xpu_code_env env = { .hsa_xnack = -1 };
        static const char *const libs[] = { "libcublas.so.13", "libcublasLt.so.13", "libcudart.so.13", "libcufft.so.12",
                                            "libnccl.so.2" };
        struct xpu_object o[5];
        for (size_t i = 0; i < 5; i++) {
                char json[256];
                snprintf(json, sizeof json, "{\"path\":\"usr/lib/%s\",\"soname\":\"%s\",\"kind\":\"elf\",\"vendor\":\"nvidia\"}",
                         libs[i], libs[i]);
                o[i] = from_json(json);
        }
        struct xpu_code_verdict v;
        ck_assert_int_eq(judge(o, 5, "gfx90a", &env,
                               "this image has CUDA (libcublas.so.13, libcublasLt.so.13, libcudart.so.13 and 2 more) and "
                               "nothing for AMD; it cannot run on gfx90a",
                               &v),
                         XPU_CODE_CANNOT_RUN);
        ck_assert_uint_eq(v.n_blocking, 5);
        ck_assert_str_eq(v.blocking[4], "usr/lib/libnccl.so.2");
        xpu_code_verdict_clear(&v);
        /* Three: all named, nothing more. */
        ck_assert_int_eq(judge(o, 3, "gfx90a", &env, "(libcublas.so.13, libcublasLt.so.13, libcudart.so.13) and nothing",
                               NULL),
                         XPU_CODE_CANNOT_RUN);
        for (size_t i = 0; i < 5; i++)
                xpu_object_clear(&o[i]);
}
END_TEST

#define AMD_LIB(path, gfx) "{\"path\":\"" path "\",\"kind\":\"elf\",\"vendor\":\"amd\",\"amd\":{\"gfx\":[" gfx "]}}"

START_TEST(test_judge_amd) {
        struct xpu_code_env env = { .hsa_xnack = -1 };
        struct xpu_object o[2];
        struct xpu_code_verdict v;
        o[0] = from_json(AMD_LIB("opt/lib/libwheel.so", "\"gfx1030\",\"gfx90a:xnack-\""));
        ck_assert_int_eq(judge(o, 1, "gfx1030", &env, NULL, NULL), XPU_CODE_NATIVE);
        /* gfx1031 is in gfx1030's generic family: an override of an image target. */
        ck_assert_int_eq(judge(o, 1, "gfx1031", &env, "HSA_OVERRIDE_GFX_VERSION=10.3.0", &v), XPU_CODE_OVERRIDE);
        ck_assert_str_eq(v.override_name, "HSA_OVERRIDE_GFX_VERSION");
        ck_assert_str_eq(v.override_value, "10.3.0");
        ck_assert(!v.override_from_env);
        xpu_code_verdict_clear(&v);
        ck_assert_int_eq(judge(o, 1, "gfx1100", &env, "no code object for gfx1100", NULL), XPU_CODE_CANNOT_RUN);
        ck_assert_int_eq(judge(o, 1, "gfx90a:xnack-", &env, NULL, NULL), XPU_CODE_NATIVE);
        ck_assert_int_eq(judge(o, 1, "gfx90a:xnack+", &env, NULL, NULL), XPU_CODE_CANNOT_RUN);

        /* The override is process-wide: it must suit every object. */
        o[1] = from_json(AMD_LIB("usr/lib/libdistro.so", "\"gfx1031\""));
        ck_assert_int_eq(judge(o, 2, "gfx1032", &env, NULL, NULL), XPU_CODE_CANNOT_RUN);
        ck_assert_int_eq(judge(o, 2, "gfx1031", &env, NULL, NULL), XPU_CODE_CANNOT_RUN);
        xpu_object_clear(&o[1]);
        o[1] = from_json(AMD_LIB("usr/lib/libdistro.so", "\"gfx1031\",\"gfx1030\""));
        ck_assert_int_eq(judge(o, 2, "gfx1031", &env, "libwheel.so", &v), XPU_CODE_OVERRIDE);
        ck_assert_str_eq(v.blocking[0], "opt/lib/libwheel.so");
        ck_assert_uint_eq(xpu_strv_length(v.blocking), 1);
        xpu_code_verdict_clear(&v);
        /* Already set by the user: judged with it. A wrong one does not help. */
        snprintf(env.hsa_override, sizeof env.hsa_override, "10.3.0");
        ck_assert_int_eq(judge(o, 2, "gfx1031", &env, "from the environment", &v), XPU_CODE_OVERRIDE);
        ck_assert(v.override_from_env);
        xpu_code_verdict_clear(&v);
        /* Another family: ROCm would run code built for another design. */
        snprintf(env.hsa_override, sizeof env.hsa_override, "11.0.0");
        ck_assert_int_eq(judge(o, 2, "gfx1031", &env, "not of its family", NULL), XPU_CODE_CANNOT_RUN);
        ck_assert_int_eq(judge(o, 2, "gfx1030", &env, "not of its family", NULL), XPU_CODE_CANNOT_RUN);
        /* The family's, but a processor the image has no code for: the override is what ROCm looks for. */
        snprintf(env.hsa_override, sizeof env.hsa_override, "10.3.2");
        ck_assert_int_eq(judge(o, 2, "gfx1030", &env, "ROCm looks for gfx1032 code", NULL), XPU_CODE_CANNOT_RUN);
        env.hsa_override[0] = '\0';
        xpu_object_clear(&o[1]);
        xpu_object_clear(&o[0]);

        /* Generic targets cover their family. */
        o[0] = from_json(AMD_LIB("lib/libgen.so", "\"gfx10-3-generic\",\"gfx11-generic\""));
        ck_assert_int_eq(judge(o, 1, "gfx1034", &env, NULL, NULL), XPU_CODE_NATIVE);
        ck_assert_int_eq(judge(o, 1, "gfx1103", &env, NULL, NULL), XPU_CODE_NATIVE);
        ck_assert_int_eq(judge(o, 1, "gfx1200", &env, NULL, NULL), XPU_CODE_CANNOT_RUN);
        xpu_object_clear(&o[0]);

        /* XNACK: only on MI200-class, only when nothing else differs. */
        o[0] = from_json(AMD_LIB("lib/libx.so", "\"gfx90a:xnack+\""));
        ck_assert_int_eq(judge(o, 1, "gfx90a:xnack-", &env, "HSA_XNACK=1", &v), XPU_CODE_OVERRIDE);
        ck_assert_str_eq(v.override_name, "HSA_XNACK");
        ck_assert_str_eq(v.override_value, "1");
        xpu_code_verdict_clear(&v);
        env.hsa_xnack = 1;
        ck_assert_int_eq(judge(o, 1, "gfx90a:xnack-", &env, NULL, NULL), XPU_CODE_NATIVE);
        env.hsa_xnack = -1;
        ck_assert_int_eq(judge(o, 1, "gfx90a:sramecc-:xnack-", &env, NULL, NULL), XPU_CODE_OVERRIDE);
        xpu_object_clear(&o[0]);
        o[0] = from_json(AMD_LIB("lib/libs.so", "\"gfx90a:sramecc+\""));
        ck_assert_int_eq(judge(o, 1, "gfx90a:sramecc-", &env, NULL, NULL), XPU_CODE_CANNOT_RUN);
        xpu_object_clear(&o[0]);

        /* XNACK not stated: the runtime's default, off. A user's HSA_XNACK=0 is not overridden. */
        o[0] = from_json(AMD_LIB("lib/libxp.so", "\"gfx90a:xnack+\""));
        ck_assert_int_eq(judge(o, 1, "gfx90a", &env, "HSA_XNACK=1", NULL), XPU_CODE_OVERRIDE);
        env.hsa_xnack = 0;
        ck_assert_int_eq(judge(o, 1, "gfx90a", &env, "with HSA_XNACK=0 from the environment", NULL), XPU_CODE_CANNOT_RUN);
        env.hsa_xnack = -1;
        o[1] = from_json(AMD_LIB("lib/libxm.so", "\"gfx90a:xnack-\""));
        ck_assert_int_eq(judge(o, 2, "gfx90a", &env, NULL, NULL), XPU_CODE_CANNOT_RUN); /* no mode suits both */
        xpu_object_clear(&o[1]);
        xpu_object_clear(&o[0]);

        /* Device code that could not be read never passes. */
        o[0] = from_json("{\"path\":\"lib/libz.so\",\"kind\":\"elf\",\"vendor\":\"amd\",\"malformed\":\"libzstd.so.1 "
                         "cannot be loaded\"}");
        ck_assert_int_eq(judge(o, 1, "gfx90a", &env, "could not be read (libzstd.so.1 cannot be loaded)", NULL),
                         XPU_CODE_CANNOT_RUN);
        xpu_object_clear(&o[0]);

        /* ROCm only, on an NVIDIA GPU. */
        o[0] = from_json("{\"path\":\"opt/rocm/lib/librocblas.so.4\",\"soname\":\"librocblas.so.4\",\"kind\":\"elf\","
                         "\"vendor\":\"amd\",\"library\":\"librocblas\",\"amd\":{\"gfx\":[\"gfx90a\"]}}");
        ck_assert_int_eq(judge(o, 1, "sm_90", &env, "this image has ROCm/HIP (librocblas.so.4) and nothing for NVIDIA",
                               NULL),
                         XPU_CODE_CANNOT_RUN);
        xpu_object_clear(&o[0]);
}
END_TEST

/* Standalone kernel files never block; a directory of them with nothing for the GPU is an issue. */
START_TEST(test_judge_files) {
        struct xpu_code_env env = { .hsa_xnack = -1 };
        struct xpu_object o[3];
        o[0] = from_json("{\"path\":\"opt/k/a.hsaco\",\"kind\":\"code-object\",\"vendor\":\"amd\",\"amd\":{\"gfx\":[\"gfx90a\"]}}");
        o[1] = from_json("{\"path\":\"opt/k/b.hsaco\",\"kind\":\"code-object\",\"vendor\":\"amd\",\"amd\":{\"gfx\":[\"gfx942\"]}}");
        o[2] = from_json(AMD_LIB("opt/lib/libhip.so", "\"gfx1100\""));
        struct xpu_code_verdict v;
        ck_assert_int_eq(judge(o, 3, "gfx1100", &env, NULL, &v), XPU_CODE_NATIVE);
        ck_assert_uint_eq(v.n_file_issues, 1);
        ck_assert_str_eq(v.file_issues[0].dir, "opt/k"); /* the directory as data, not only in words */
        ck_assert_str_eq(v.file_issues[0].message, "2 AMD kernel file(s), none for gfx1100");
        xpu_code_verdict_clear(&v);
        ck_assert_int_eq(judge(o, 3, "gfx942", &env, NULL, &v), XPU_CODE_CANNOT_RUN); /* libhip.so decides */
        ck_assert_ptr_null(v.file_issues);
        ck_assert_uint_eq(v.n_file_issues, 0);
        xpu_code_verdict_clear(&v);
        /* Kernel files only: no library carries code, so nothing fails; the files are an issue. */
        ck_assert_int_eq(judge(o, 2, "gfx1100", &env,
                               "no device code: the image runs no kernels of its own on gfx1100 (no library or program "
                               "in it carries AMD device code; its standalone kernel files are judged apart, as issues)",
                               NULL),
                         XPU_CODE_NATIVE);
        for (size_t i = 0; i < 3; i++)
                xpu_object_clear(&o[i]);
}
END_TEST

/* A GPU whose architecture is not known: only "nothing for its vendor" can be said. */
START_TEST(test_judge_unknown_target) {
        struct xpu_code_env env = { .hsa_xnack = -1 };
        struct xpu_object o = from_json(AMD_LIB("lib/libhip.so", "\"gfx90a\""));
        struct xpu_code_target t = { .vendor = XPU_CODE_VENDOR_NVIDIA, .unknown = true };
        snprintf(t.name, sizeof t.name, "nvidia");
        struct xpu_code_verdict v;
        ck_assert_int_eq(xpu_code_judge(&o, 1, &t, &env, &v), 0);
        ck_assert_int_eq(v.level, XPU_CODE_CANNOT_RUN);
        ck_assert_ptr_nonnull(strstr(v.reason, "nothing for NVIDIA"));
        xpu_code_verdict_clear(&v);
        xpu_object_clear(&o);
        o = from_json(NV_LIB("lib/libk.so", "\"sm_80\"", "", ""));
        ck_assert_int_eq(xpu_code_judge(&o, 1, &t, &env, &v), 0);
        ck_assert(v.not_judged);
        ck_assert_int_eq(v.level, XPU_CODE_NATIVE);
        ck_assert_ptr_nonnull(strstr(v.reason, "compute capability is not known"));
        xpu_code_verdict_clear(&v);
        xpu_object_clear(&o);

        /* 32-bit objects are no GPU runtime's: not objects of the audit. */
        unsigned char elf32[64] = { 0x7f, 'E', 'L', 'F', 1, 1, 1 };
        int fd = xpu_test_memfd(elf32, sizeof elf32);
        ck_assert_int_eq(xpu_object_read(fd, "lib32/libx.so", sizeof elf32, &o), -ENOEXEC);
        close(fd);
}
END_TEST

START_TEST(test_targets_and_env) {
        struct xpu_code_target t;
        ck_assert_int_eq(xpu_code_target_parse("sm_120", &t), 0);
        ck_assert_uint_eq(t.sm, 120);
        ck_assert_uint_eq(t.vendor, XPU_CODE_VENDOR_NVIDIA);
        ck_assert_int_eq(xpu_code_target_parse("sm_90a", &t), 0);
        ck_assert_str_eq(t.name, "sm_90");
        ck_assert_int_eq(xpu_code_target_parse("gfx90a:sramecc-:xnack-", &t), 0);
        ck_assert_uint_eq(t.vendor, XPU_CODE_VENDOR_AMD);
        ck_assert_int_eq(t.gfx.xnack, 0);
        static const char *const bad[] = { "", "sm_", "sm_9", "sm_9000", "sm_90x", "compute_90", "gfx11-generic",
                                           "gfx90a:xnack", "90", "sm_05" };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                if (xpu_code_target_parse(bad[i], &t) == 0)
                        ck_abort_msg("\"%s\" was taken for a target", bad[i]);

        struct xpu_code_env e;
        char err[256];
        char e1[] = "CUDA_FORCE_PTX_JIT=1", e2[] = "HSA_XNACK=1", e3[] = "HSA_OVERRIDE_GFX_VERSION=9.0.10";
        char *env1[] = { e1, e2, e3, NULL };
        ck_assert_int_eq(xpu_code_env_from(env1, true, &e, err, sizeof err), 0);
        ck_assert(e.force_ptx_jit && !e.disable_ptx_jit);
        ck_assert_int_eq(e.hsa_xnack, 1);
        ck_assert_str_eq(e.hsa_override, "9.0.10");
        char e4[] = "HSA_OVERRIDE_GFX_VERSION=gfx1030", e5[] = "CUDA_DISABLE_PTX_JIT=yes";
        char *env2[] = { e4, NULL };
        ck_assert_int_eq(xpu_code_env_from(env2, true, &e, err, sizeof err), -EINVAL);
        ck_assert_ptr_nonnull(strstr(err, "HSA_OVERRIDE_GFX_VERSION=gfx1030"));
        char *env3[] = { e5, NULL };
        ck_assert_int_eq(xpu_code_env_from(env3, true, &e, err, sizeof err), -EINVAL);
        /* Not strict (the start): the bad value is taken as unset, the rest stands. */
        char e6[] = "HSA_XNACK=1";
        char *env4[] = { e5, e6, NULL };
        ck_assert_int_eq(xpu_code_env_from(env4, false, &e, err, sizeof err), 1);
        ck_assert(!e.disable_ptx_jit);
        ck_assert_int_eq(e.hsa_xnack, 1);
        char p[16];
        ck_assert_int_eq(xpu_gfx_processor_of_version("9.0.10", p, sizeof p), 0);
        ck_assert_str_eq(p, "gfx90a");
        ck_assert_int_eq(xpu_gfx_processor_of_version("10.3.0", p, sizeof p), 0);
        ck_assert_str_eq(p, "gfx1030");
        ck_assert_int_eq(xpu_gfx_processor_of_version("10.3", p, sizeof p), -EINVAL);
        ck_assert_int_eq(xpu_gfx_processor_of_version("10.3.16", p, sizeof p), -EINVAL);
        ck_assert_int_eq(xpu_gfx_processor_of_version("10.3.0x", p, sizeof p), -EINVAL);
}
END_TEST

/* The index carries what the check needs, and a damaged one is refused with the field named. */
START_TEST(test_index_roundtrip) {
        struct xpu_object objs[3];
        read_fixture("nvidia/libkernel.so", &objs[0]);
        read_fixture("amd/libhip.so", &objs[1]);
        read_fixture("elf/libplain.so", &objs[2]);
        cJSON *j = xpu_index_to_json(objs, 3, "/", "xpuinit test");
        char *text = cJSON_PrintUnformatted(j);
        cJSON_Delete(j);
        struct xpu_object *back;
        size_t n;
        char err[512];
        ck_assert_int_eq(xpu_index_parse(text, strlen(text), &back, &n, err, sizeof err), 0);
        ck_assert_uint_eq(n, 2); /* the vendor-neutral object is left out */
        ck_assert_str_eq(back[0].path, "nvidia/libkernel.so");
        ck_assert_uint_eq(back[0].cudart_major, 13);
        struct xpu_code_env env = { .hsa_xnack = -1 };
        static const char *const targets[] = { "sm_80", "sm_90", "sm_75", "gfx1030", "gfx1031", "gfx90a:sramecc+:xnack-" };
        for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
                struct xpu_code_target tg = target(targets[t]);
                ck_assert_int_eq(xpu_code_object_level(&back[0], &tg, &env), xpu_code_object_level(&objs[0], &tg, &env));
                ck_assert_int_eq(xpu_code_object_level(&back[1], &tg, &env), xpu_code_object_level(&objs[1], &tg, &env));
        }
        for (size_t i = 0; i < n; i++)
                xpu_object_clear(&back[i]);
        free(back);
        free(text);
        for (size_t i = 0; i < 3; i++)
                xpu_object_clear(&objs[i]);

        static const struct {
                const char *text, *words;
        } bad[] = {
                { "", "not JSON" },
                { "{\"version\":2,\"objects\":[]}", "version 1" },
                { "{\"version\":1}", "\"objects\"" },
                { "{\"version\":1,\"objects\":[{\"kind\":\"elf\"}]}", "\"path\"" },
                { "{\"version\":1,\"objects\":[{\"path\":\"a\",\"kind\":\"exe\"}]}", "\"kind\"" },
                { "{\"version\":1,\"objects\":[{\"path\":\"a\",\"kind\":\"elf\",\"vendor\":\"intel\"}]}", "\"vendor\"" },
                { "{\"version\":1,\"objects\":[{\"path\":\"a\",\"kind\":\"elf\",\"nvidia\":{\"sass\":[\"sm_x\"]}}]}",
                  "\"sm_x\"" },
                { "{\"version\":1,\"objects\":[{\"path\":\"a\",\"kind\":\"elf\",\"nvidia\":{\"ptx\":[\"compute_90\"]}}]}",
                  "ptx_isa" },
                { "{\"version\":1,\"objects\":[{\"path\":\"a\",\"kind\":\"elf\",\"amd\":{\"gfx\":[\"sm_90\"]}}]}",
                  "AMD target ID" },
                { "{\"version\":1,\"objects\":[{\"path\":\"a\",\"kind\":\"elf\",\"amd\":{\"gfx\":\"gfx90a\"}}]}",
                  "not an array" },
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                err[0] = '\0';
                ck_assert_int_eq(xpu_index_parse(bad[i].text, strlen(bad[i].text), &back, &n, err, sizeof err), -EINVAL);
                if (!strstr(err, bad[i].words))
                        ck_abort_msg("index %zu: \"%s\" lacks \"%s\"", i, err, bad[i].words);
                ck_assert_ptr_null(back);
        }
}
END_TEST

static Suite *audit_suite(void) {
        Suite *s = suite_create("devcode-judge");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 30);
        tcase_add_test(tc, test_judge_nvidia);
        tcase_add_test(tc, test_judge_other_vendor_names_a_few);
        tcase_add_test(tc, test_judge_amd);
        tcase_add_test(tc, test_judge_files);
        tcase_add_test(tc, test_judge_unknown_target);
        tcase_add_test(tc, test_targets_and_env);
        tcase_add_test(tc, test_index_roundtrip);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(audit_suite());
}
