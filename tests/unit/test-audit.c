/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/audit.c: `xpuinit audit` run on small image roots made of the device-code fixtures
 * (tests/fixtures/devcode/): the objects and verdicts of the JSON report, --fail-on's exit
 * status, the driver's CUDA version and the environment's HSA override, a root that is one file
 * or no directory at all, --write-index (made, read back, never written through a planted link),
 * --k8s-affinity and a report that cannot be written. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "audit.h"
#include "base/log.h"
#include "base/macro.h"
#include "devcode/object-json.h"
#include "devcode/object.h"
#include "testlib.h"

static char *tmp;  /* per-test scratch directory */
static char root[PATH_MAX]; /* the image root inside it */

static void setup(void) {
        tmp = xpu_test_mkdtemp();
        snprintf(root, sizeof root, "%s/root", tmp);
        ck_assert_int_eq(mkdir(root, 0755), 0);
        xpu_log_set_program("xpuinit");
}

static void teardown(void) {
        xpu_test_rm_rf(tmp);
        free(tmp);
}

/* Put the fixture tests/fixtures/devcode/FIXTURE at ROOT/REL (LEN bytes of it; 0: all). */
static void put(const char *fixture, const char *rel, size_t len) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "devcode/%s", fixture);
        size_t n;
        unsigned char *data = xpu_test_read_fixture(path, &n);
        xpu_test_write(root, rel, ""); /* its directories, then the bytes */
        snprintf(path, sizeof path, "%s/%s", root, rel);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
        ck_assert_int_ge(fd, 0);
        size_t want = len && len < n ? len : n;
        ck_assert_int_eq(write(fd, data, want), (ssize_t)want);
        close(fd);
        free(data);
}

/* What an audit printed and returned. */
struct run {
        int status;
        char *out;   /* the report */
        char *err;   /* what it logged */
        cJSON *json; /* the report parsed (--json), else NULL */
};

static void run_done(struct run *r) {
        free(r->out);
        free(r->err);
        cJSON_Delete(r->json);
}

static char *slurp_fd(int fd) {
        char *buf = calloc(1, 65536);
        ck_assert_ptr_nonnull(buf);
        ssize_t n = pread(fd, buf, 65535, 0);
        buf[n > 0 ? n : 0] = '\0';
        return buf;
}

/* Audit O (O->audit_root NULL: ROOT) for the targets FOR (NULL-terminated names) with ENV and
 * CUDA_DRIVER; stderr is captured for the run. */
static struct run audit(struct xpu_audit_options o, const char *const *for_, char *const *env, int cuda_driver) {
        struct xpu_code_target t[8];
        size_t n = 0;
        for (; for_ && for_[n]; n++) {
                ck_assert_uint_lt(n, ELEMENTSOF(t));
                ck_assert_int_eq(xpu_code_target_parse(for_[n], &t[n]), 0);
        }
        if (!o.audit_root)
                o.audit_root = root;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/stderr", tmp);
        int efd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        ck_assert_int_ge(efd, 0);
        int saved = dup(STDERR_FILENO);
        ck_assert_int_ge(saved, 0);
        ck_assert_int_eq(dup2(efd, STDERR_FILENO), STDERR_FILENO);
        struct run r = { 0 };
        size_t len = 0;
        FILE *out = open_memstream(&r.out, &len);
        ck_assert_ptr_nonnull(out);
        r.status = xpu_audit_run(&o, t, n, cuda_driver, env, out);
        fclose(out);
        ck_assert_int_eq(dup2(saved, STDERR_FILENO), STDERR_FILENO);
        close(saved);
        r.err = slurp_fd(efd);
        close(efd);
        if (o.json && r.status != 2 && r.out[0]) {
                r.json = cJSON_Parse(r.out);
                ck_assert_msg(r.json, "not JSON: %s", r.out);
        }
        return r;
}

static const struct xpu_audit_options JSON = { .fail_on = -1, .json = true };
static char *const NO_ENV[] = { NULL };

static const cJSON *item(const cJSON *j, const char *key) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
        ck_assert_msg(v, "no \"%s\" in %s", key, j && j->string ? j->string : "the object");
        return v;
}

static const char *str(const cJSON *j, const char *key) {
        const cJSON *v = item(j, key);
        ck_assert_msg(cJSON_IsString(v), "\"%s\" is not a string", key);
        return v->valuestring;
}

/* The object of the report with PATH. */
static const cJSON *object(const struct run *r, const char *path) {
        const cJSON *o;
        cJSON_ArrayForEach(o, item(r->json, "objects")) if (strcmp(str(o, "path"), path) == 0) return o;
        ck_abort_msg("no object %s in %s", path, r->out);
        return NULL;
}

/* The target of the report named NAME. */
static const cJSON *target(const struct run *r, const char *name) {
        const cJSON *t;
        cJSON_ArrayForEach(t, item(r->json, "targets")) if (strcmp(str(t, "target"), name) == 0) return t;
        ck_abort_msg("no target %s in %s", name, r->out);
        return NULL;
}

/* The JSON array ARR as "a,b,c". */
static const char *joined(const cJSON *arr) {
        static char buf[512];
        buf[0] = '\0';
        const cJSON *e;
        cJSON_ArrayForEach(e, arr) {
                size_t n = strlen(buf);
                snprintf(buf + n, sizeof buf - n, "%s%s", n ? "," : "", cJSON_IsString(e) ? e->valuestring : "?");
        }
        return buf;
}

/* An NVIDIA image: a library with sm_80 SASS and compute_90 PTX, a stub libcuda and a library cut
 * short. Each object's facts, each target's verdict, and the issues. */
START_TEST(test_json_objects_verdicts_issues) {
        put("nvidia/libkernel.so", "usr/lib/libkernel.so", 0);
        put("elf/libcuda.so.1", "usr/lib/stubs/libcuda.so.1", 0);
        put("nvidia/libkernel.so", "usr/lib/libtrunc.so", 3000);
        put("elf/libplain.so", "usr/lib/libplain.so", 0);
        struct run r = audit(JSON, (const char *const[]){ "sm_90", "sm_75", "sm_120", NULL }, NO_ENV, 0);
        ck_assert_msg(r.status == 0, "%d: %s", r.status, r.err);
        ck_assert_str_eq(str(r.json, "root"), root);
        ck_assert_int_eq(cJSON_GetArraySize(item(r.json, "objects")), 4);
        /* Sorted by path. */
        ck_assert_str_eq(str(cJSON_GetArrayItem(item(r.json, "objects"), 0), "path"), "usr/lib/libkernel.so");
        const cJSON *k = object(&r, "usr/lib/libkernel.so");
        ck_assert_str_eq(str(k, "kind"), "elf");
        ck_assert_str_eq(str(k, "vendor"), "nvidia");
        ck_assert_str_eq(joined(item(item(k, "nvidia"), "sass")), "sm_80");
        ck_assert_str_eq(joined(item(item(k, "nvidia"), "ptx")), "compute_90");
        ck_assert_str_eq(joined(item(item(k, "nvidia"), "sections")), ".nv_fatbin");
        ck_assert_str_eq(str(item(k, "verdicts"), "sm_90"), "ptx-jit");
        ck_assert_str_eq(str(item(k, "verdicts"), "sm_75"), "cannot-run");
        ck_assert_str_eq(str(item(k, "verdicts"), "sm_120"), "ptx-jit");
        ck_assert(cJSON_IsTrue(item(object(&r, "usr/lib/stubs/libcuda.so.1"), "stub")));
        ck_assert(cJSON_IsNull(item(object(&r, "usr/lib/libplain.so"), "vendor")));
        ck_assert(cJSON_IsString(item(object(&r, "usr/lib/libtrunc.so"), "malformed")));
        /* Targets: the verdict, the objects that decide it, and why. */
        const cJSON *t90 = target(&r, "sm_90");
        ck_assert_str_eq(str(t90, "verdict"), "ptx-jit");
        ck_assert_str_eq(joined(item(t90, "blocking")), "usr/lib/libkernel.so");
        ck_assert_msg(strstr(str(t90, "reason"), "no SASS for sm_90") &&
                              strstr(str(t90, "reason"), "--cuda-driver"), /* the driver's version is unknown */
                      "%s", str(t90, "reason"));
        ck_assert_str_eq(str(target(&r, "sm_75"), "verdict"), "cannot-run");
        ck_assert_str_eq(str(target(&r, "sm_120"), "verdict"), "ptx-jit");
        /* Issues, in the objects' order: the object cut short, then the stub. */
        const cJSON *issues = item(r.json, "issues");
        ck_assert_int_eq(cJSON_GetArraySize(issues), 2);
        ck_assert_str_eq(str(cJSON_GetArrayItem(issues, 0), "kind"), "malformed-object");
        ck_assert_str_eq(str(cJSON_GetArrayItem(issues, 0), "path"), "usr/lib/libtrunc.so");
        ck_assert_str_eq(str(cJSON_GetArrayItem(issues, 1), "kind"), "stub-driver-library");
        ck_assert_str_eq(str(cJSON_GetArrayItem(issues, 1), "path"), "usr/lib/stubs/libcuda.so.1");
        ck_assert_msg(strstr(str(cJSON_GetArrayItem(issues, 1), "message"), "remove it from the image"), "%s",
                      str(cJSON_GetArrayItem(issues, 1), "message"));
        ck_assert(cJSON_IsNumber(item(r.json, "elapsed_seconds")));
        run_done(&r);
}
END_TEST

/* --fail-on LEVEL: 1 when a target is at LEVEL or worse, or an object could not be read whole;
 * the log line names the target and its verdict. */
START_TEST(test_fail_on) {
        put("nvidia/libkernel.so", "lib/libkernel.so", 0);
        struct xpu_audit_options o = JSON;
        o.fail_on = XPU_CODE_CANNOT_RUN;
        struct run r = audit(o, (const char *const[]){ "sm_90", NULL }, NO_ENV, 0);
        ck_assert_msg(r.status == 0, "%d: %s", r.status, r.err);
        run_done(&r);
        r = audit(o, (const char *const[]){ "sm_90", "sm_75", NULL }, NO_ENV, 0);
        ck_assert_int_eq(r.status, 1);
        ck_assert_msg(strstr(r.err, "--fail-on cannot-run: sm_75 is cannot-run"), "%s", r.err);
        ck_assert_ptr_null(strstr(r.err, "sm_90 is")); /* only the target that reached it */
        ck_assert_ptr_nonnull(r.json);               /* the report is printed all the same */
        run_done(&r);
        o.fail_on = XPU_CODE_PTX_JIT;
        r = audit(o, (const char *const[]){ "sm_90", NULL }, NO_ENV, 0);
        ck_assert_int_eq(r.status, 1);
        ck_assert_msg(strstr(r.err, "--fail-on ptx-jit: sm_90 is ptx-jit"), "%s", r.err);
        run_done(&r);
        /* An object cut short: its code is unknown, so no level passes. */
        put("nvidia/libkernel.so", "lib/libtrunc.so", 3000);
        o.fail_on = XPU_CODE_CANNOT_RUN;
        r = audit(o, (const char *const[]){ "sm_90", NULL }, NO_ENV, 0);
        ck_assert_int_eq(r.status, 1);
        ck_assert_msg(strstr(r.err, "lib/libtrunc.so could not be read whole"), "%s", r.err);
        run_done(&r);
}
END_TEST

/* The driver's CUDA version decides whether PTX of a newer ISA can run at all. */
START_TEST(test_cuda_driver) {
        put("nvidia/libkernel.so", "libkernel.so", 0);
        struct run r = audit(JSON, (const char *const[]){ "sm_90", NULL }, NO_ENV, 12040);
        ck_assert_msg(r.status == 0, "%d: %s", r.status, r.err);
        ck_assert_str_eq(str(target(&r, "sm_90"), "verdict"), "cannot-run");
        ck_assert_msg(strstr(str(target(&r, "sm_90"), "reason"), "the driver is CUDA 12.4"), "%s",
                      str(target(&r, "sm_90"), "reason"));
        run_done(&r);
        r = audit(JSON, (const char *const[]){ "sm_90", NULL }, NO_ENV, 13000);
        ck_assert_str_eq(str(target(&r, "sm_90"), "verdict"), "ptx-jit");
        ck_assert_ptr_null(strstr(str(target(&r, "sm_90"), "reason"), "--cuda-driver"));
        run_done(&r);
}
END_TEST

/* AMD: a target of the same family runs with the override the report proposes; the environment's
 * HSA_OVERRIDE_GFX_VERSION is judged with; a value that is no gfx version is a usage error. */
START_TEST(test_hsa_override_from_environment) {
        put("amd/libhip1030.so", "opt/rocm/lib/libhip1030.so", 0);
        struct run r = audit(JSON, (const char *const[]){ "gfx1031", "gfx1030", "gfx90a", NULL }, NO_ENV, 0);
        ck_assert_msg(r.status == 0, "%d: %s", r.status, r.err);
        const cJSON *t = target(&r, "gfx1031");
        ck_assert_str_eq(str(t, "verdict"), "override");
        ck_assert_str_eq(str(item(t, "override"), "HSA_OVERRIDE_GFX_VERSION"), "10.3.0");
        ck_assert(cJSON_IsFalse(item(t, "override_from_environment")));
        ck_assert_str_eq(str(target(&r, "gfx1030"), "verdict"), "native");
        ck_assert_str_eq(str(target(&r, "gfx90a"), "verdict"), "cannot-run");
        ck_assert_str_eq(joined(item(item(object(&r, "opt/rocm/lib/libhip1030.so"), "amd"), "gfx")), "gfx1030");
        run_done(&r);
        char *const env[] = { (char *)"HSA_OVERRIDE_GFX_VERSION=10.3.0", NULL };
        r = audit(JSON, (const char *const[]){ "gfx1031", "gfx90a", NULL }, env, 0);
        t = target(&r, "gfx1031");
        ck_assert_str_eq(str(t, "verdict"), "override");
        ck_assert(cJSON_IsTrue(item(t, "override_from_environment")));
        ck_assert_int_eq(cJSON_GetArraySize(item(t, "blocking")), 0);
        ck_assert_msg(strstr(str(target(&r, "gfx90a"), "reason"), "unset it"), "%s", str(target(&r, "gfx90a"), "reason"));
        run_done(&r);
        char *const bad[] = { (char *)"HSA_OVERRIDE_GFX_VERSION=banana", NULL };
        r = audit(JSON, (const char *const[]){ "gfx1031", NULL }, bad, 0);
        ck_assert_int_eq(r.status, 2);
        ck_assert_str_eq(r.out, "");
        ck_assert_msg(strstr(r.err, "HSA_OVERRIDE_GFX_VERSION=banana is not a gfx version"), "%s", r.err);
        run_done(&r);
}
END_TEST

/* The root: one regular file is audited as an image holding just it; a missing root, or one that
 * is neither a directory nor a file, is a usage error naming it. */
START_TEST(test_root_kinds) {
        put("nvidia/libkernel.so", "libkernel.so", 0);
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/libkernel.so", root);
        struct xpu_audit_options o = JSON;
        o.audit_root = path;
        struct run r = audit(o, (const char *const[]){ "sm_80", NULL }, NO_ENV, 0);
        ck_assert_msg(r.status == 0, "%d: %s", r.status, r.err);
        ck_assert_int_eq(cJSON_GetArraySize(item(r.json, "objects")), 1);
        ck_assert_str_eq(str(object(&r, "libkernel.so"), "vendor"), "nvidia");
        ck_assert_str_eq(str(target(&r, "sm_80"), "verdict"), "native");
        run_done(&r);
        snprintf(path, sizeof path, "%s/missing", tmp);
        r = audit(o, NULL, NO_ENV, 0);
        ck_assert_int_eq(r.status, 2);
        ck_assert_msg(strstr(r.err, "cannot open the root directory") && strstr(r.err, path), "%s", r.err);
        run_done(&r);
        snprintf(path, sizeof path, "%s/fifo", tmp);
        ck_assert_int_eq(mkfifo(path, 0600), 0);
        r = audit(o, NULL, NO_ENV, 0); /* never opened for reading: no hang */
        ck_assert_int_eq(r.status, 2);
        ck_assert_msg(strstr(r.err, "is neither a directory nor a regular file"), "%s", r.err);
        run_done(&r);
        /* An empty directory: no objects, no issues, a target with nothing to run is judged all the same. */
        snprintf(path, sizeof path, "%s/empty", tmp);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        r = audit(o, (const char *const[]){ "sm_90", NULL }, NO_ENV, 0);
        ck_assert_int_eq(r.status, 0);
        ck_assert_int_eq(cJSON_GetArraySize(item(r.json, "objects")), 0);
        ck_assert_int_eq(cJSON_GetArraySize(item(r.json, "issues")), 0);
        run_done(&r);
}
END_TEST

static char *read_file(const char *path) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
        char *s = slurp_fd(fd);
        close(fd);
        return s;
}

/* --write-index FILE: its directories made, the index read back as a start reads it, the dot
 * file gone; a link planted at the dot file's name is replaced, not written through; a path
 * that cannot be written is 125 with the path named. */
START_TEST(test_write_index) {
        put("nvidia/libkernel.so", "usr/lib/libkernel.so", 0);
        put("amd/libhip1030.so", "opt/rocm/lib/libhip1030.so", 0);
        put("elf/libplain.so", "usr/lib/libplain.so", 0);
        char index[PATH_MAX], dot[PATH_MAX], victim[PATH_MAX];
        snprintf(index, sizeof index, "%s/etc/xpuinit/device-code.json", tmp);
        snprintf(dot, sizeof dot, "%s/etc/xpuinit/.device-code.json.tmp", tmp);
        snprintf(victim, sizeof victim, "%s/victim", tmp);
        struct xpu_audit_options o = { .fail_on = -1, .write_index = index };
        struct run r = audit(o, (const char *const[]){ "sm_90", NULL }, NO_ENV, 0);
        ck_assert_msg(r.status == 0, "%d: %s", r.status, r.err);
        ck_assert_msg(strstr(r.out, index), "the text report names the index: %s", r.out);
        run_done(&r);
        char *text = read_file(index);
        struct xpu_object *objs = NULL;
        size_t n = 0;
        char why[256];
        ck_assert_msg(xpu_index_parse(text, strlen(text), &objs, &n, why, sizeof why) == 0, "%s", why);
        ck_assert_uint_eq(n, 2); /* the vendor-tied objects: libplain.so is not one */
        bool nvidia = false, amd = false;
        for (size_t i = 0; i < n; i++) {
                nvidia |= strcmp(objs[i].path, "usr/lib/libkernel.so") == 0 && (objs[i].vendors & XPU_CODE_VENDOR_NVIDIA);
                amd |= strcmp(objs[i].path, "opt/rocm/lib/libhip1030.so") == 0 && (objs[i].vendors & XPU_CODE_VENDOR_AMD);
                xpu_object_clear(&objs[i]);
        }
        free(objs);
        free(text);
        ck_assert(nvidia && amd);
        struct stat st;
        ck_assert_int_eq(lstat(dot, &st), -1);
        /* A link where the dot file goes: replaced, the file it names untouched. */
        xpu_test_write(tmp, "victim", "keep\n");
        ck_assert_int_eq(symlink(victim, dot), 0);
        r = audit(o, NULL, NO_ENV, 0);
        ck_assert_msg(r.status == 0, "%d: %s", r.status, r.err);
        run_done(&r);
        text = read_file(victim);
        ck_assert_str_eq(text, "keep\n");
        free(text);
        ck_assert_int_eq(lstat(dot, &st), -1);
        ck_assert_int_eq(lstat(index, &st), 0);
        ck_assert(S_ISREG(st.st_mode));
        /* A directory in the way of the index's directory. */
        snprintf(index, sizeof index, "%s/victim/device-code.json", tmp);
        r = audit(o, NULL, NO_ENV, 0);
        ck_assert_int_eq(r.status, 125);
        ck_assert_msg(strstr(r.err, "cannot write the device-code index") && strstr(r.err, index), "%s", r.err);
        ck_assert_str_eq(r.out, ""); /* no report of an index that was not written */
        run_done(&r);
}
END_TEST

/* --k8s-affinity: the node kinds whose GPUs run the image's code, as a nodeAffinity. */
START_TEST(test_k8s_affinity) {
        put("amd/libhip1030.so", "opt/rocm/lib/libhip1030.so", 0);
        struct xpu_audit_options o = { .fail_on = -1, .k8s_affinity = true };
        struct run r = audit(o, NULL, NO_ENV, 0);
        ck_assert_msg(r.status == 0, "%d: %s", r.status, r.err);
        ck_assert_msg(strstr(r.out, "key: feature.node.kubernetes.io/xpu.arch") && strstr(r.out, "- \"gfx1030\"") &&
                              !strstr(r.out, "gfx90a"),
                      "%s", r.out);
        run_done(&r);
}
END_TEST

/* A report that cannot be written (a full disk) is 125 with the cause. */
START_TEST(test_report_write_fails) {
        put("nvidia/libkernel.so", "libkernel.so", 0);
        FILE *full = fopen("/dev/full", "we");
        ck_assert_ptr_nonnull(full);
        const struct xpu_audit_options o = { .audit_root = root, .fail_on = -1, .json = true };
        struct xpu_code_target t;
        ck_assert_int_eq(xpu_code_target_parse("sm_90", &t), 0);
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/stderr", tmp);
        int efd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        int saved = dup(STDERR_FILENO);
        ck_assert_int_eq(dup2(efd, STDERR_FILENO), STDERR_FILENO);
        int status = xpu_audit_run(&o, &t, 1, 0, NO_ENV, full);
        dup2(saved, STDERR_FILENO);
        close(saved);
        fclose(full);
        char *err = slurp_fd(efd);
        close(efd);
        ck_assert_int_eq(status, 125);
        ck_assert_msg(strstr(err, "cannot write the report: No space left on device"), "%s", err);
        free(err);
}
END_TEST

int main(void) {
        Suite *s = suite_create("audit");
        TCase *tc = tcase_create("audit");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_json_objects_verdicts_issues);
        tcase_add_test(tc, test_fail_on);
        tcase_add_test(tc, test_cuda_driver);
        tcase_add_test(tc, test_hsa_override_from_environment);
        tcase_add_test(tc, test_root_kinds);
        tcase_add_test(tc, test_write_index);
        tcase_add_test(tc, test_k8s_affinity);
        tcase_add_test(tc, test_report_write_fails);
        suite_add_tcase(s, tc);
        return xpu_test_run(s);
}
