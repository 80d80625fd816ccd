/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the suites of the vendor-library readers (tests/unit/test-nvidia-nvml*.c, test-nvidia-cuda.c,
 * test-amd-rocm-smi.c): a temporary driver root holding fake vendor libraries
 * ($XPU_BUILD/tests/shims/<lib>.so.shim) under their installed names, with the shims' state file
 * beside them (the helper's environment has no XPU_FAKE_STATE, see tests/shims/state.h), and
 * the calls the suites make on it. Static inline: each suite uses what it needs. */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/path.h"
#include "libs.h"
#include "nvidia/nvidia-cuda.h"
#include "nvidia/nvidia-nvml.h"
#include "nvidia/nvidia-nvml-parse.h"
#include "testlib.h"

/* The Debian-style library directory of the build architecture (xpu_library_dirs[1]). */
#define SHIM_LIBDIR (xpu_library_dirs[1] + 1)

/* A new, empty driver root readable by the helper's nobody:nogroup. Free with shim_drop_root(). */
static inline char *shim_root_new(void) {
        char *root = xpu_test_mkdtemp();
        ck_assert_int_eq(chmod(root, 0755), 0);
        return root;
}

static inline void shim_drop_root(char *root) {
        xpu_test_rm_rf(root);
        free(root);
}

/* Write STATE as the shims' state file of ROOT (SHIM_LIBDIR/xpu-fake-state). */
static inline void shim_write_state(const char *root, const char *state) {
        char rel[PATH_MAX];
        snprintf(rel, sizeof rel, "%s/xpu-fake-state", SHIM_LIBDIR);
        xpu_test_write(root, rel, state);
}

/* Copy the shim $XPU_BUILD/tests/shims/SHIM to ROOT/SHIM_LIBDIR/<BASE>.<VERSION> and link
 * SHIM_LIBDIR/<BASE>.1 to it, as a driver installs its libraries (BASE "libcuda.so"). */
static inline void shim_install(const char *root, const char *shim, const char *base, const char *version) {
        const char *build = getenv("XPU_BUILD");
        char src[PATH_MAX], rel[PATH_MAX], dst[PATH_MAX], link[64];
        ck_assert_msg(build && *build, "XPU_BUILD is unset: run through tests/run-tests.sh");
        snprintf(src, sizeof src, "%s/tests/shims/%s", build, shim);
        if (access(src, R_OK) != 0)
                ck_abort_msg("%s missing: build with `make build-tests` first", src);
        snprintf(rel, sizeof rel, "%s/%s.%s", SHIM_LIBDIR, base, version);
        xpu_test_write(root, rel, ""); /* creates the directories */
        snprintf(dst, sizeof dst, "%s/%s", root, rel);
        int in = open(src, O_RDONLY | O_CLOEXEC), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
        ck_assert_int_ge(in, 0);
        ck_assert_int_ge(out, 0);
        ck_assert_int_eq(fchmod(out, 0755), 0);
        char buf[65536];
        ssize_t n;
        while ((n = read(in, buf, sizeof buf)) > 0)
                ck_assert_int_eq(write(out, buf, (size_t)n), n);
        ck_assert_int_eq(n, 0);
        close(in);
        close(out);
        snprintf(rel, sizeof rel, "%s/%s.1", SHIM_LIBDIR, base);
        snprintf(link, sizeof link, "%s.%s", base, version);
        xpu_test_symlink(root, rel, link);
}

/* A driver root with the fake NVML as SHIM_LIBDIR/libnvidia-ml.so.<VERSION> (+ .so.1 link) and
 * STATE as its state file. Free with shim_drop_root(). */
static inline char *nvml_make_root(const char *version, const char *state) {
        char *root = shim_root_new();
        shim_write_state(root, state);
        shim_install(root, "libnvidia-ml.so.shim", "libnvidia-ml.so", version);
        return root;
}

/* Run xpu_nvml_read against ROOT. */
static inline int nvml_read_root(const char *root, const char *driver, unsigned timeout_ms,
                                 struct xpu_nvml_result **ret, char *err, size_t size) {
        int fd = xpu_open_root(root);
        ck_assert_int_ge(fd, 0);
        int r = xpu_nvml_read(fd, driver, timeout_ms, ret, err, size);
        close(fd);
        return r;
}

/* Run xpu_cuda_read against ROOT. */
static inline int cuda_read_root(const char *root, const char *driver, unsigned timeout_ms,
                                 struct xpu_cuda_result **ret, char *err, size_t size) {
        int fd = xpu_open_root(root);
        ck_assert_int_ge(fd, 0);
        int r = xpu_cuda_read(fd, driver, timeout_ms, ret, err, size);
        close(fd);
        return r;
}

/* Parse TEXT, asserting success. */
static inline struct xpu_nvml_result *nvml_parse_ok(const char *text) {
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        int e = xpu_nvml_parse_reply(text, &r, err, sizeof err);
        ck_assert_msg(e == 0, "parse: %d %s", e, err);
        ck_assert_ptr_nonnull(r);
        return r;
}

/* The inventory device at BUS (normal form); aborts the test when there is none. */
static inline struct xpu_device *shim_by_bus(struct xpu_inventory *inv, const char *bus) {
        for (size_t i = 0; i < inv->n_devices; i++)
                if (strcmp(inv->devices[i].pci_bus_id, bus) == 0)
                        return &inv->devices[i];
        ck_abort_msg("no device at %s", bus);
        return NULL;
}

/* The number of this process's children (a stray helper would be one). */
static inline int shim_count_children(void) {
        DIR *d = opendir("/proc");
        struct dirent *de;
        int n = 0;
        ck_assert_ptr_nonnull(d);
        while ((de = readdir(d))) {
                char path[300], buf[512];
                snprintf(path, sizeof path, "/proc/%s/stat", de->d_name);
                FILE *f = fopen(path, "re");
                if (!f)
                        continue;
                if (fgets(buf, sizeof buf, f)) {
                        const char *p = strrchr(buf, ')');
                        int ppid = 0;
                        if (p && sscanf(p + 1, " %*c %d", &ppid) == 1 && ppid == getpid())
                                n++;
                }
                fclose(f);
        }
        closedir(d);
        return n;
}

static inline long long shim_now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The warnings INV got from index FROM on, one per line, for failure messages. */
static inline const char *shim_warnings_since(const struct xpu_inventory *inv, size_t from) {
        static char buf[4096];
        size_t len = 0;
        buf[0] = '\0';
        for (size_t i = from; i < inv->n_warnings && len < sizeof buf; i++) {
                int n = snprintf(buf + len, sizeof buf - len, "%s\n", inv->warnings[i]);
                if (n < 0)
                        break;
                len += (size_t)n;
        }
        return buf;
}
