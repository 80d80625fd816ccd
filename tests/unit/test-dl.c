/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base/dl: loading vendor libraries from a driver root into a typed symbol table.
 * The libraries are the fake NVML and CUDA shims the build makes ($XPU_BUILD/tests/shims/). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/dl.h"
#include "base/path.h"
#include "base/str.h"
#include "libs-images.h"
#include "libs.h"
#include "testlib.h"

/* The Debian-style library directory of the build architecture (xpu_library_dirs[1]). */
#define LIBDIR (xpu_library_dirs[1] + 1)

static const char *const nvml_sonames[] = {"libnvidia-ml.so.1", NULL};

/* $XPU_BUILD/tests/shims/NAME; fails the test when the runner did not say where the build is. */
static const char *shim_path(const char *name) {
        static char buf[PATH_MAX];
        const char *build = getenv("XPU_BUILD");
        ck_assert_msg(build && *build, "XPU_BUILD is unset: run through tests/run-tests.sh");
        snprintf(buf, sizeof buf, "%s/tests/shims/%s", build, name);
        if (access(buf, R_OK) != 0)
                ck_abort_msg("%s missing: build with `make build-tests` first", buf);
        return buf;
}

/* Copy shim NAME into ROOT/DIR/FILE and link DIR/LINK -> FILE (LINK may be NULL). */
static void install_shim(const char *root, const char *name, const char *dir, const char *file, const char *link) {
        unsigned char *b;
        size_t n = read_whole(shim_path(name), &b);
        ck_assert_uint_gt(n, 1000);
        char rel[PATH_MAX];
        snprintf(rel, sizeof rel, "%s/%s", dir, file);
        write_bytes(root, rel, b, n, 0755);
        free(b);
        if (link) {
                snprintf(rel, sizeof rel, "%s/%s", dir, link);
                xpu_test_symlink(root, rel, file);
        }
}

/* An empty directory ROOT/REL (parents created). */
static void make_dir(const char *root, const char *rel) {
        char path[PATH_MAX];
        xpu_test_write(root, rel, "");
        snprintf(path, sizeof path, "%s/%s", root, rel);
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(mkdir(path, 0755), 0);
}

static int open_root(const char *dir) {
        int fd = xpu_open_root(dir);
        ck_assert_int_ge(fd, 0);
        return fd;
}

/* The NVML entry points the tests call. */
typedef int (*init_fn)(void);
typedef int (*count_fn)(unsigned int *);
typedef int (*version_fn)(char *, unsigned int);

START_TEST(test_load_bind_call) {
        char *root = xpu_test_mkdtemp();
        install_shim(root, "libnvidia-ml.so.shim", LIBDIR, "libnvidia-ml.so.550.90.07", "libnvidia-ml.so.1");
        xpu_test_write(root, "state", "driver_version 550.90.07\ndevice_count 3\n");
        char state[PATH_MAX];
        snprintf(state, sizeof state, "%s/state", root);
        ck_assert_int_eq(setenv("XPU_FAKE_STATE", state, 1), 0);

        int rfd = open_root(root);
        char path[PATH_MAX] = "", err[512] = "";
        void *h = NULL;
        ck_assert_msg(xpu_dl_open(rfd, nvml_sonames, path, sizeof path, &h, err, sizeof err) == 0, "%s", err);
        ck_assert_ptr_nonnull(h);
        char want[PATH_MAX];
        snprintf(want, sizeof want, "/%s/libnvidia-ml.so.550.90.07", LIBDIR);
        ck_assert_str_eq(path, want);

        void *init = NULL, *count = NULL, *version = NULL, *nothing = (void *)&init;
        const struct xpu_dl_symbol syms[] = {
                {"nvmlInit_v2", "nvmlInit", &init, false},
                {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount", &count, false},
                {"nvmlSystemGetDriverVersion", NULL, &version, false},
                {"nvmlNoSuchThing", NULL, &nothing, true},
        };
        ck_assert_msg(xpu_dl_bind(h, syms, ELEMENTSOF(syms), err, sizeof err) == 0, "%s", err);
        ck_assert_ptr_eq(init, dlsym(h, "nvmlInit_v2"));
        ck_assert_ptr_ne(init, dlsym(h, "nvmlInit")); /* the versioned one, not the fallback */
        ck_assert_ptr_null(nothing);

        ck_assert_int_eq(((init_fn)init)(), 0);
        unsigned int n = 0;
        ck_assert_int_eq(((count_fn)count)(&n), 0);
        ck_assert_uint_eq(n, 3);
        char v[80] = "";
        ck_assert_int_eq(((version_fn)version)(v, sizeof v), 0);
        ck_assert_str_eq(v, "550.90.07");

        ck_assert_int_eq(xpu_dl_version_matches(path, v, err, sizeof err), 0);
        ck_assert_int_eq(xpu_dl_version_matches(path, "535.54.03", err, sizeof err), -EPROTO);
        ck_assert_str_eq(err, "driver/library version mismatch: kernel module 535.54.03, libnvidia-ml.so.550.90.07");
        /* The checked open refuses before dlopen(): no handle; a matching version loads. */
        void *hv = NULL;
        ck_assert_int_eq(xpu_dl_open_version(rfd, nvml_sonames, "535.54.03", NULL, 0, &hv, err, sizeof err), -EPROTO);
        ck_assert_ptr_null(hv);
        ck_assert_str_eq(err, "driver/library version mismatch: kernel module 535.54.03, libnvidia-ml.so.550.90.07");
        ck_assert_int_eq(xpu_dl_open_version(rfd, nvml_sonames, "550.90.07", NULL, 0, &hv, err, sizeof err), 0);
        ck_assert_ptr_eq(hv, h);
        dlclose(hv);

        /* The same file again (another fd) is the same loaded object. */
        void *h2 = NULL;
        ck_assert_int_eq(xpu_dl_open(rfd, nvml_sonames, NULL, 0, &h2, err, sizeof err), 0);
        ck_assert_ptr_eq(h2, h);
        dlclose(h2);
        dlclose(h);
        close(rfd);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

START_TEST(test_bind_fallback_and_missing) {
        char *root = xpu_test_mkdtemp();
        install_shim(root, "libnvidia-ml.so.shim", LIBDIR, "libnvidia-ml.so.550.90.07", "libnvidia-ml.so.1");
        int rfd = open_root(root);
        char err[512] = "";
        void *h = NULL;
        ck_assert_int_eq(xpu_dl_open(rfd, nvml_sonames, NULL, 0, &h, err, sizeof err), 0);

        void *init = NULL, *shutdown = NULL;
        const struct xpu_dl_symbol ok[] = {
                {"nvmlInit_v9", "nvmlInit", &init, false},         /* versioned name absent: fallback */
                {"nvmlShutdown_v3", "nvmlShutdown", &shutdown, true}, /* optional, found by fallback */
        };
        ck_assert_int_eq(xpu_dl_bind(h, ok, ELEMENTSOF(ok), err, sizeof err), 0);
        ck_assert_ptr_eq(init, dlsym(h, "nvmlInit"));
        ck_assert_ptr_nonnull(init);
        ck_assert_ptr_eq(shutdown, dlsym(h, "nvmlShutdown"));

        void *a = NULL, *b = (void *)&a;
        const struct xpu_dl_symbol bad[] = {
                {"nvmlInit_v2", NULL, &a, false},
                {"nvmlMissing_v2", "nvmlMissing", &b, false},
        };
        ck_assert_int_eq(xpu_dl_bind(h, bad, ELEMENTSOF(bad), err, sizeof err), -ENOENT);
        ck_assert_msg(xpu_startswith(err, "symbol nvmlMissing_v2 (or nvmlMissing) not found: "), "%s", err);
        ck_assert_msg(strstr(err, "undefined symbol: nvmlMissing"), "%s", err);
        ck_assert_ptr_nonnull(a);
        ck_assert_ptr_eq(b, (void *)&a); /* untouched */

        const struct xpu_dl_symbol plain[] = {{"nvmlGone", NULL, &a, false}};
        ck_assert_int_eq(xpu_dl_bind(h, plain, 1, err, sizeof err), -ENOENT);
        ck_assert_msg(xpu_startswith(err, "symbol nvmlGone not found: "), "%s", err);

        const struct xpu_dl_symbol incomplete[] = {{"nvmlInit", NULL, NULL, false}};
        ck_assert_int_eq(xpu_dl_bind(h, incomplete, 1, err, sizeof err), -EINVAL);
        ck_assert_int_eq(xpu_dl_bind(NULL, ok, 1, err, sizeof err), -EINVAL);
        dlclose(h);
        close(rfd);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* The root's ld.so.cache wins over the directories and may point anywhere inside the root;
 * entries of another architecture and entries whose file is missing are passed over. */
START_TEST(test_ldcache_lookup) {
        char *root = xpu_test_mkdtemp();
        install_shim(root, "libnvidia-ml.so.shim", "opt/nv/lib", "libnvidia-ml.so.550.90.07", "libnvidia-ml.so.1");
        install_shim(root, "libnvidia-ml.so.shim", LIBDIR, "libnvidia-ml.so.470.1.1", "libnvidia-ml.so.1");
        xpu_test_write(root, "opt/i386/libnvidia-ml.so.1", "not for this architecture\n");
        const struct entry e[] = {
                {0x0003, "libnvidia-ml.so.1", "/opt/i386/libnvidia-ml.so.1"},
                {xpu_ldcache_native_flags(), "libnvidia-ml.so.1", "/opt/gone/libnvidia-ml.so.1"},
                {xpu_ldcache_native_flags(), "libnvidia-ml.so.1", "/opt/nv/lib/libnvidia-ml.so.1"},
        };
        static unsigned char buf[16384];
        for (int fmt = CACHE_NEW; fmt <= CACHE_COMPAT; fmt++) {
                size_t len = build_cache(buf, sizeof buf, (enum cache_format)fmt, e, ELEMENTSOF(e));
                write_bytes(root, "etc/ld.so.cache", buf, len, 0644);
                int rfd = open_root(root);
                char path[PATH_MAX] = "", err[512] = "";
                void *h = NULL;
                ck_assert_msg(xpu_dl_open(rfd, nvml_sonames, path, sizeof path, &h, err, sizeof err) == 0, "%s", err);
                ck_assert_str_eq(path, "/opt/nv/lib/libnvidia-ml.so.550.90.07");
                dlclose(h);
                close(rfd);
        }

        /* A malformed cache is skipped: the directories follow. */
        xpu_test_write(root, "etc/ld.so.cache", "glibc-ld.so.cache1.1 but truncated");
        int rfd = open_root(root);
        char path[PATH_MAX] = "", err[512] = "";
        void *h = NULL;
        ck_assert_msg(xpu_dl_open(rfd, nvml_sonames, path, sizeof path, &h, err, sizeof err) == 0, "%s", err);
        char want[PATH_MAX];
        snprintf(want, sizeof want, "/%s/libnvidia-ml.so.470.1.1", LIBDIR);
        ck_assert_str_eq(path, want);
        ck_assert_int_eq(xpu_dl_version_matches(path, "550.90.07", err, sizeof err), -EPROTO);
        ck_assert_str_eq(err, "driver/library version mismatch: kernel module 550.90.07, libnvidia-ml.so.470.1.1");
        dlclose(h);
        close(rfd);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* The expected "not found" message for a root at ROOT (cache listed when WITH_CACHE) where
 * REFUSED (NULL: none) lists the candidates found but not usable. */
static void expect_refused(const char *root, const char *names, bool with_cache, const char *refused,
                           const char *err) {
        char real[PATH_MAX], want[4096];
        ck_assert_ptr_nonnull(realpath(root, real));
        int n = snprintf(want, sizeof want, "not available: %s not found in %s: %s", names, real,
                         with_cache ? "/etc/ld.so.cache" : "");
        for (size_t i = 0; xpu_library_dirs[i]; i++)
                n += snprintf(want + n, sizeof want - (size_t)n, "%s%s", (i > 0 || with_cache) ? ", " : "",
                              xpu_library_dirs[i]);
        if (refused)
                snprintf(want + n, sizeof want - (size_t)n, "; found but not usable: %s", refused);
        ck_assert_str_eq(err, want);
}

/* The expected "not found" message for an empty root at ROOT (cache listed when WITH_CACHE). */
static void expect_not_found(const char *root, const char *names, bool with_cache, const char *err) {
        expect_refused(root, names, with_cache, NULL, err);
}

START_TEST(test_not_found) {
        char *root = xpu_test_mkdtemp();
        int rfd = open_root(root);
        char path[PATH_MAX] = "unchanged", err[1024] = "";
        void *h = (void *)&rfd;
        ck_assert_int_eq(xpu_dl_open(rfd, nvml_sonames, path, sizeof path, &h, err, sizeof err), -ENOENT);
        expect_not_found(root, "libnvidia-ml.so.1", false, err);
        ck_assert_str_eq(path, "unchanged");
        ck_assert_ptr_eq(h, (void *)&rfd);
        ck_assert_str_eq(err + strlen(err) - strlen(", /usr/lib"), ", /usr/lib");

        /* With a cache that does not list it, and two names. */
        const struct entry e[] = {{xpu_ldcache_native_flags(), "libc.so.6", "/lib/libc.so.6"}};
        static unsigned char buf[16384];
        write_bytes(root, "etc/ld.so.cache", buf, build_cache(buf, sizeof buf, CACHE_NEW, e, 1), 0644);
        /* A directory with the library's name is no library. */
        char rel[PATH_MAX];
        snprintf(rel, sizeof rel, "%s/libnvidia-ml.so.1", xpu_library_dirs[0] + 1);
        make_dir(root, rel);
        const char *const two[] = {"libnvidia-ml.so.1", "libnvidia-ml.so", NULL};
        ck_assert_int_eq(xpu_dl_open(rfd, two, path, sizeof path, &h, err, sizeof err), -ENOENT);
        char refused[PATH_MAX];
        snprintf(refused, sizeof refused, "/%s (a directory, not a regular file)", rel);
        expect_refused(root, "libnvidia-ml.so.1, libnvidia-ml.so", true, refused, err);

        const char *const bad[] = {"../libnvidia-ml.so.1", NULL};
        ck_assert_int_eq(xpu_dl_open(rfd, bad, path, sizeof path, &h, err, sizeof err), -EINVAL);
        const char *const none[] = {NULL};
        ck_assert_int_eq(xpu_dl_open(rfd, none, path, sizeof path, &h, err, sizeof err), -EINVAL);
        close(rfd);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* Links that point out of the root resolve inside it: the real library on the host, named by
 * an absolute path or by enough "..", is not reached. */
START_TEST(test_symlink_escape) {
        char *root = xpu_test_mkdtemp();
        char host[PATH_MAX];
        ck_assert_ptr_nonnull(realpath(shim_path("libnvidia-ml.so.shim"), host));
        char rel[PATH_MAX];
        snprintf(rel, sizeof rel, "%s/libnvidia-ml.so.1", LIBDIR);
        xpu_test_symlink(root, rel, host);
        snprintf(rel, sizeof rel, "%s/libnvidia-ml.so.1", xpu_library_dirs[0] + 1);
        char dotdot[PATH_MAX];
        snprintf(dotdot, sizeof dotdot, "../../../../../../../../..%s", host);
        xpu_test_symlink(root, rel, dotdot);
        int rfd = open_root(root);
        char path[PATH_MAX] = "", err[1024] = "";
        void *h = NULL;
        ck_assert_int_eq(xpu_dl_open(rfd, nvml_sonames, path, sizeof path, &h, err, sizeof err), -ENOENT);
        expect_not_found(root, "libnvidia-ml.so.1", false, err);
        ck_assert_ptr_null(h);
        close(rfd);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

START_TEST(test_not_elf) {
        char *root = xpu_test_mkdtemp();
        char rel[PATH_MAX];
        snprintf(rel, sizeof rel, "%s/libnvidia-ml.so.550.90.07", LIBDIR);
        xpu_test_write(root, rel, "this is not an ELF file\n");
        snprintf(rel, sizeof rel, "%s/libnvidia-ml.so.1", LIBDIR);
        xpu_test_symlink(root, rel, "libnvidia-ml.so.550.90.07");
        int rfd = open_root(root);
        char path[PATH_MAX] = "unchanged", err[1024] = "";
        void *h = NULL;
        ck_assert_int_eq(xpu_dl_open(rfd, nvml_sonames, path, sizeof path, &h, err, sizeof err), -ELIBBAD);
        char want[PATH_MAX];
        snprintf(want, sizeof want, "cannot load /%s/libnvidia-ml.so.550.90.07: /proc/self/fd/", LIBDIR);
        ck_assert_msg(xpu_startswith(err, want), "%s", err);
        ck_assert_msg(strstr(err, "invalid ELF header") || strstr(err, "file too short"), "%s", err);
        ck_assert_str_eq(path, "unchanged");
        ck_assert_ptr_null(h);
        close(rfd);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* glibc's dlopen() returns a loaded object whose name matches before opening anything: a second
 * library loaded through the same (closed and reused) fd number must not get the first one. */
START_TEST(test_fd_name_reuse) {
        char *r1 = xpu_test_mkdtemp(), *r2 = xpu_test_mkdtemp();
        install_shim(r1, "libnvidia-ml.so.shim", LIBDIR, "libnvidia-ml.so.550.90.07", "libnvidia-ml.so.1");
        install_shim(r2, "libcuda.so.shim", LIBDIR, "libcuda.so.550.90.07", "libcuda.so.1");
        int fd1 = open_root(r1), fd2 = open_root(r2);
        char err[512] = "", path[PATH_MAX] = "";
        void *nvml = NULL, *cuda = NULL, *cu_init = NULL, *nvml_init = NULL;
        ck_assert_msg(xpu_dl_open(fd1, nvml_sonames, NULL, 0, &nvml, err, sizeof err) == 0, "%s", err);
        const char *const cuda_sonames[] = {"libcuda.so.1", NULL};
        ck_assert_msg(xpu_dl_open(fd2, cuda_sonames, path, sizeof path, &cuda, err, sizeof err) == 0, "%s", err);
        ck_assert_ptr_ne(cuda, nvml);
        const struct xpu_dl_symbol cu[] = {{"cuInit", NULL, &cu_init, false}, {"nvmlInit", NULL, &nvml_init, true}};
        ck_assert_msg(xpu_dl_bind(cuda, cu, ELEMENTSOF(cu), err, sizeof err) == 0, "%s", err);
        ck_assert_ptr_nonnull(cu_init);
        ck_assert_ptr_null(nvml_init); /* RTLD_LOCAL: NVML's symbols are not visible through libcuda */
        ck_assert_int_eq(xpu_dl_version_matches(path, "550.90.07", err, sizeof err), 0);
        dlclose(cuda);
        dlclose(nvml);
        close(fd1);
        close(fd2);
        xpu_test_rm_rf(r1);
        xpu_test_rm_rf(r2);
        free(r1);
        free(r2);
}
END_TEST

START_TEST(test_version_names) {
        char err[256] = "";
        ck_assert_int_eq(xpu_dl_version_matches("/usr/lib64/libnvidia-ml.so.535.54.03", "535.54.03", err, sizeof err), 0);
        ck_assert_int_eq(xpu_dl_version_matches("libcuda.so.470.82", "470.82", NULL, 0), 0);
        ck_assert_int_eq(xpu_dl_version_matches("/lib/libnvidia-ml.so.535.54.03", "535.54.3", err, sizeof err), -EPROTO);
        ck_assert_str_eq(err, "driver/library version mismatch: kernel module 535.54.3, libnvidia-ml.so.535.54.03");
        ck_assert_int_eq(xpu_dl_version_matches("/usr/lib/libnvidia-ml.so.1", "550.90.07", err, sizeof err), -ENODATA);
        ck_assert_str_eq(err, "no driver version in the library's file name: libnvidia-ml.so.1");
        ck_assert_int_eq(xpu_dl_version_matches("/usr/lib/libnvidia-ml.so", "550.90.07", err, sizeof err), -ENODATA);
        ck_assert_int_eq(xpu_dl_version_matches("/usr/lib/libnvidia-ml.so.550..07", "550.90.07", err, sizeof err),
                         -ENODATA);
        ck_assert_int_eq(xpu_dl_version_matches("/usr/lib/libnvidia-ml.so.550.90.07", "550.90.07 ", err, sizeof err),
                         -EINVAL);
        ck_assert_int_eq(xpu_dl_version_matches("/usr/lib/libnvidia-ml.so.550.90.07", "", err, sizeof err), -EINVAL);
        ck_assert_int_eq(xpu_dl_version_matches(NULL, "550.90.07", err, sizeof err), -EINVAL);
}
END_TEST

/* Extra directories (ROCm SMI's /opt/rocm trees): after the standard ones, per soname; a wildcard
 * component expands to the root's matching entries, newest version first. */
static const char *const rocm_sonames[] = {"librocm_smi64.so.1", "librocm_smi64.so.6", NULL};
static const char *const rocm_dirs[] = {"/opt/rocm/lib", "/opt/rocm-[0-9]*/lib", "/opt/rocm-[0-9]*/lib64", NULL};

/* xpu_dl_open_dirs() in ROOT: 0 and the loaded path in PATH, or the error. */
static int open_dirs(const char *root, const char *const *dirs, char *path, size_t size, char *err, size_t err_size) {
        int rfd = open_root(root);
        void *h = NULL;
        path[0] = '\0';
        int r = xpu_dl_open_dirs(rfd, rocm_sonames, dirs, path, size, &h, err, err_size);
        if (r == 0) {
                ck_assert_ptr_nonnull(h);
                dlclose(h);
        } else
                ck_assert_ptr_null(h);
        close(rfd);
        return r;
}

START_TEST(test_extra_dirs) {
        char *root = xpu_test_mkdtemp();
        char path[PATH_MAX], err[1024] = "";
        /* Versioned trees only: the newest (by version, not by text: 6.10 after 6.9) wins. */
        install_shim(root, "libcuda.so.shim", "opt/rocm-5.7.1/lib", "librocm_smi64.so.1.0", "librocm_smi64.so.1");
        install_shim(root, "libcuda.so.shim", "opt/rocm-6.9.0/lib", "librocm_smi64.so.6.0", "librocm_smi64.so.6");
        install_shim(root, "libcuda.so.shim", "opt/rocm-6.10.0/lib64", "librocm_smi64.so.6.0", "librocm_smi64.so.6");
        xpu_test_write(root, "opt/rocm-7.0.0", "a file, not a tree\n");
        xpu_test_write(root, "opt/rocm-9.0.0/lib/librocm_smi64.so.1/x", "a directory, not a library\n");
        xpu_test_write(root, "opt/rocmfoo/lib/librocm_smi64.so.1", "no match: not rocm-<digit>\n");
        ck_assert_msg(open_dirs(root, rocm_dirs, path, sizeof path, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(path, "/opt/rocm-5.7.1/lib/librocm_smi64.so.1.0"); /* the first soname wins everywhere */
        const char *const only6[] = {"/opt/rocm-[0-9]*/lib", "/opt/rocm-[0-9]*/lib64", NULL};
        const char *const so6[] = {"librocm_smi64.so.6", NULL};
        int rfd = open_root(root);
        void *h = NULL;
        ck_assert_msg(xpu_dl_open_dirs(rfd, so6, only6, path, sizeof path, &h, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(path, "/opt/rocm-6.9.0/lib/librocm_smi64.so.6.0"); /* lib before lib64, by the table */
        dlclose(h);
        const char *const lib64_first[] = {"/opt/rocm-[0-9]*/lib64", "/opt/rocm-[0-9]*/lib", NULL};
        ck_assert_msg(xpu_dl_open_dirs(rfd, so6, lib64_first, path, sizeof path, &h, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(path, "/opt/rocm-6.10.0/lib64/librocm_smi64.so.6.0");
        dlclose(h);
        close(rfd);

        /* /opt/rocm comes before the versioned trees (table order)... */
        install_shim(root, "libcuda.so.shim", "opt/rocm/lib", "librocm_smi64.so.1.2", "librocm_smi64.so.1");
        ck_assert_msg(open_dirs(root, rocm_dirs, path, sizeof path, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(path, "/opt/rocm/lib/librocm_smi64.so.1.2");
        /* ...and the standard directories before all of them. */
        install_shim(root, "libcuda.so.shim", LIBDIR, "librocm_smi64.so.1.0", "librocm_smi64.so.1");
        ck_assert_msg(open_dirs(root, rocm_dirs, path, sizeof path, err, sizeof err) == 0, "%s", err);
        char want[PATH_MAX];
        snprintf(want, sizeof want, "/%s/librocm_smi64.so.1.0", LIBDIR);
        ck_assert_str_eq(path, want);
        xpu_test_rm_rf(root);
        free(root);

        /* Without extra directories /opt is not searched; the message lists what was. */
        root = xpu_test_mkdtemp();
        install_shim(root, "libcuda.so.shim", "opt/rocm/lib", "librocm_smi64.so.1.2", "librocm_smi64.so.1");
        rfd = open_root(root);
        ck_assert_int_eq(xpu_dl_open(rfd, rocm_sonames, path, sizeof path, &h, err, sizeof err), -ENOENT);
        expect_not_found(root, "librocm_smi64.so.1, librocm_smi64.so.6", false, err);
        ck_assert_int_eq(xpu_dl_open_dirs(rfd, rocm_sonames, NULL, path, sizeof path, &h, err, sizeof err), -ENOENT);
        const char *const elsewhere[] = {"/opt/other/lib", "/srv/rocm-*/lib", NULL};
        ck_assert_int_eq(xpu_dl_open_dirs(rfd, rocm_sonames, elsewhere, path, sizeof path, &h, err, sizeof err),
                         -ENOENT);
        ck_assert_msg(xpu_startswith(err, "not available: librocm_smi64.so.1, librocm_smi64.so.6 not found in "), "%s",
                      err);
        ck_assert_str_eq(err + strlen(err) - strlen(", /usr/lib, /opt/other/lib, /srv/rocm-*/lib"),
                         ", /usr/lib, /opt/other/lib, /srv/rocm-*/lib");
        const char *const relative[] = {"opt/rocm/lib", NULL};
        ck_assert_int_eq(xpu_dl_open_dirs(rfd, rocm_sonames, relative, path, sizeof path, &h, err, sizeof err), -EINVAL);
        ck_assert_str_eq(err, "library directory \"opt/rocm/lib\" is not absolute");
        /* A link out of the root through the wildcard's parent stays inside it. */
        char host[PATH_MAX];
        ck_assert_ptr_nonnull(realpath(root, host));
        char rel[PATH_MAX];
        snprintf(rel, sizeof rel, "srv/rocm-1.0/lib");
        snprintf(path, sizeof path, "%s/opt/rocm/lib", host);
        xpu_test_symlink(root, rel, path);
        const char *const srv[] = {"/srv/rocm-*/lib", NULL};
        ck_assert_int_eq(xpu_dl_open_dirs(rfd, rocm_sonames, srv, path, sizeof path, &h, err, sizeof err), -ENOENT);
        close(rfd);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST


/* Candidates that exist but cannot be used are named after the places searched, with why; they
 * do not stop the search. As root: a FIFO, a directory, a symlink loop, a device node. */
START_TEST(test_refused_candidates) {
        char *root = xpu_test_mkdtemp();
        char rel[PATH_MAX], path[PATH_MAX], err[2048] = "", want[2048];
        snprintf(rel, sizeof rel, "%s/%s/libnvidia-ml.so.1", root, xpu_library_dirs[0] + 1);
        xpu_test_write(root, rel + strlen(root) + 1, "");
        ck_assert_int_eq(unlink(rel), 0);
        ck_assert_int_eq(mkfifo(rel, 0644), 0); /* opening it for real would block */
        snprintf(rel, sizeof rel, "%s/libnvidia-ml.so.1/x", LIBDIR);
        xpu_test_write(root, rel, "a directory with the library's name\n");
        snprintf(rel, sizeof rel, "%s/libnvidia-ml.so.1", xpu_library_dirs[3] + 1);
        xpu_test_symlink(root, rel, "libnvidia-ml.so.1"); /* itself: a loop */
        snprintf(rel, sizeof rel, "%s/%s/libnvidia-ml.so.1", root, xpu_library_dirs[4] + 1);
        xpu_test_write(root, rel + strlen(root) + 1, "");
        ck_assert_int_eq(unlink(rel), 0);
        ck_assert_int_eq(mknod(rel, S_IFCHR | 0666, makedev(1, 3)), 0); /* /dev/null's numbers */
        int rfd = open_root(root);
        void *h = NULL;
        ck_assert_int_eq(xpu_dl_open(rfd, nvml_sonames, path, sizeof path, &h, err, sizeof err), -ENOENT);
        snprintf(want, sizeof want,
                 "%s/libnvidia-ml.so.1 (a FIFO, not a regular file), %s/libnvidia-ml.so.1 (a directory, not a "
                 "regular file), %s/libnvidia-ml.so.1 (Too many levels of symbolic links), %s/libnvidia-ml.so.1 (a "
                 "device node, not a regular file)",
                 xpu_library_dirs[0], xpu_library_dirs[1], xpu_library_dirs[3], xpu_library_dirs[4]);
        expect_refused(root, "libnvidia-ml.so.1", false, want, err);
        ck_assert_ptr_null(h);

        /* A usable library later in the search still wins, silently. */
        install_shim(root, "libnvidia-ml.so.shim", xpu_library_dirs[5] + 1, "libnvidia-ml.so.550.90.07",
                     "libnvidia-ml.so.1");
        ck_assert_msg(xpu_dl_open(rfd, nvml_sonames, path, sizeof path, &h, err, sizeof err) == 0, "%s", err);
        snprintf(want, sizeof want, "%s/libnvidia-ml.so.550.90.07", xpu_library_dirs[5]);
        ck_assert_str_eq(path, want);
        dlclose(h);
        close(rfd);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* What the helper (nobody) meets in a root it may not fully read: a library file of mode 0600
 * and a library directory of mode 0700, both root's. Run in a forked child as 65534. */
START_TEST(test_refused_permissions) {
        char *root = xpu_test_mkdtemp();
        ck_assert_int_eq(chmod(root, 0755), 0);
        install_shim(root, "libnvidia-ml.so.shim", LIBDIR, "libnvidia-ml.so.550.90.07", "libnvidia-ml.so.1");
        char rel[PATH_MAX];
        snprintf(rel, sizeof rel, "%s/%s/libnvidia-ml.so.550.90.07", root, LIBDIR);
        ck_assert_int_eq(chmod(rel, 0600), 0);
        install_shim(root, "libnvidia-ml.so.shim", xpu_library_dirs[0] + 1, "libnvidia-ml.so.550.90.07",
                     "libnvidia-ml.so.1");
        snprintf(rel, sizeof rel, "%s/%s", root, xpu_library_dirs[0] + 1);
        ck_assert_int_eq(chmod(rel, 0700), 0);
        /* every directory above the root must be searchable for nobody */
        for (char *p = strrchr(rel, '/'); p && p > rel; p = strrchr(rel, '/')) {
                *p = '\0';
                struct stat st;
                ck_assert_int_eq(stat(rel, &st), 0);
                ck_assert_msg(st.st_mode & S_IXOTH, "%s is not searchable by others", rel);
        }
        int fds[2];
        ck_assert_int_eq(pipe(fds), 0);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                close(fds[0]);
                char err[2048] = "", path[PATH_MAX];
                void *h = NULL;
                int r = setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
                                        setresuid(65534, 65534, 65534) < 0
                                ? 1000
                                : -xpu_dl_open(open_root(root), nvml_sonames, path, sizeof path, &h, err, sizeof err);
                dprintf(fds[1], "%d %s", r, err);
                _exit(0);
        }
        close(fds[1]);
        char got[2048] = "";
        ssize_t n = read(fds[0], got, sizeof got - 1);
        ck_assert_int_gt(n, 0);
        got[n] = '\0';
        close(fds[0]);
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        char want[2048];
        snprintf(want, sizeof want, "%d ", ENOENT);
        ck_assert_msg(xpu_startswith(got, want), "%s", got);
        snprintf(want, sizeof want,
                 "%s/libnvidia-ml.so.1 (Permission denied), %s/libnvidia-ml.so.1 (Permission denied)",
                 xpu_library_dirs[0], xpu_library_dirs[1]);
        expect_refused(root, "libnvidia-ml.so.1", false, want, strchr(got, ' ') + 1);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* xpu_dl_open_dirs_first() (WSL2's /usr/lib/wsl/lib): its directories before the standard ones and
 * the cache, per soname, and first in the "not found" message. */
START_TEST(test_dirs_first) {
        char *root = xpu_test_mkdtemp();
        char path[PATH_MAX], err[1024] = "";
        static const char *const sonames[] = {"libnvidia-ml.so.1", NULL};
        static const char *const wsl[] = {"/usr/lib/wsl/lib", "/usr/lib/wsl/drivers/nv_x.inf_amd64_1", NULL};
        install_shim(root, "libcuda.so.shim", LIBDIR, "libnvidia-ml.so.550.90.07", "libnvidia-ml.so.1");
        int rfd = open_root(root);
        void *h = NULL;
        ck_assert_int_eq(xpu_dl_open_dirs_first(rfd, sonames, wsl, path, sizeof path, &h, err, sizeof err), 0);
        char want[PATH_MAX];
        snprintf(want, sizeof want, "/%s/libnvidia-ml.so.550.90.07", LIBDIR);
        ck_assert_str_eq(path, want); /* none in the folders: the standard directories still count */
        dlclose(h);
        install_shim(root, "libcuda.so.shim", "usr/lib/wsl/drivers/nv_x.inf_amd64_1", "libnvidia-ml.so.1", NULL);
        ck_assert_int_eq(xpu_dl_open_dirs_first(rfd, sonames, wsl, path, sizeof path, &h, err, sizeof err), 0);
        ck_assert_str_eq(path, "/usr/lib/wsl/drivers/nv_x.inf_amd64_1/libnvidia-ml.so.1");
        dlclose(h);
        install_shim(root, "libcuda.so.shim", "usr/lib/wsl/lib", "libnvidia-ml.so.1", NULL);
        ck_assert_int_eq(xpu_dl_open_dirs_first(rfd, sonames, wsl, path, sizeof path, &h, err, sizeof err), 0);
        ck_assert_str_eq(path, "/usr/lib/wsl/lib/libnvidia-ml.so.1");
        dlclose(h);
        /* xpu_dl_open_dirs() keeps the standard directories first */
        ck_assert_int_eq(xpu_dl_open_dirs(rfd, sonames, wsl, path, sizeof path, &h, err, sizeof err), 0);
        ck_assert_str_eq(path, want);
        dlclose(h);
        static const char *const other[] = {"libcuda.so.1", NULL};
        ck_assert_int_eq(xpu_dl_open_dirs_first(rfd, other, wsl, path, sizeof path, &h, err, sizeof err), -ENOENT);
        ck_assert_msg(xpu_startswith(err, "not available: libcuda.so.1 not found in "), "%s", err);
        static const char first[] = ": /usr/lib/wsl/lib, /usr/lib/wsl/drivers/nv_x.inf_amd64_1, ";
        const char *listed = strstr(err, first);
        ck_assert_msg(listed && !strstr(listed + strlen(first), "/usr/lib/wsl/"), "%s", err); /* first, and once */
        static const char *const relative[] = {"usr/lib/wsl/lib", NULL};
        ck_assert_int_eq(xpu_dl_open_dirs_first(rfd, sonames, relative, path, sizeof path, &h, err, sizeof err),
                         -EINVAL);
        close(rfd);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

static Suite *dl_suite(void) {
        Suite *s = suite_create("dl");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 20);
        tcase_add_test(tc, test_load_bind_call);
        tcase_add_test(tc, test_bind_fallback_and_missing);
        tcase_add_test(tc, test_ldcache_lookup);
        tcase_add_test(tc, test_not_found);
        tcase_add_test(tc, test_symlink_escape);
        tcase_add_test(tc, test_not_elf);
        tcase_add_test(tc, test_fd_name_reuse);
        tcase_add_test(tc, test_version_names);
        tcase_add_test(tc, test_extra_dirs);
        tcase_add_test(tc, test_dirs_first);
        suite_add_tcase(s, tc);
        if (geteuid() == 0) {
                TCase *priv = tcase_create("root");
                tcase_set_timeout(priv, 20);
                tcase_add_test(priv, test_refused_candidates);
                tcase_add_test(priv, test_refused_permissions);
                suite_add_tcase(s, priv);
        }
        return s;
}

int main(void) {
        return xpu_test_run(dl_suite());
}
