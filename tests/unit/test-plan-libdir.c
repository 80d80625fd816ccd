/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/plan-libdir.c: the profile's library links, CUDA forward compatibility (which of the
 * image's compat libraries and the host's the loader finds first), and compat32. The files at
 * their own path are test-plan-host-files.c's. */
#include "base/strv.h"
#include "nvidia/nvidia-facts.h"
#include "plan-fx.h"
#include "version.h"

/* library_links: libGLX_indirect.so.0 -> the injected libGLX_nvidia.so.<version> with graphics,
 * nothing without it. */
START_TEST(test_library_links) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        xpu_test_write(f.root, "usr/lib/x86_64-linux-gnu/libGLX_nvidia.so.465.19.01", "");
        struct xpu_plan *p = NULL;
        char err[512] = "";
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, "utility,graphics", workload, &p, err, sizeof err) == 0, "%s", err);
        const struct xpu_op *op = find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib/libGLX_indirect.so.0");
        ck_assert_ptr_nonnull(op);
        ck_assert_str_eq(op->target, "libGLX_nvidia.so.465.19.01");
        xpu_plan_free(p);
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, "utility", workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_ptr_null(find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib/libGLX_indirect.so.0"));
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

#define COMPAT "usr/local/cuda/compat"

/* Every selected device of F reports BRAND (as NVML would). */
static void set_brand(struct fx *f, const char *brand) {
        for (size_t i = 0; i < f->inv->n_devices; i++)
                snprintf(xpu_nvidia_facts(&f->inv->devices[i])->brand, sizeof xpu_nvidia_facts(&f->inv->devices[i])->brand, "%s", brand);
}

/* Forward compatibility: the image's /usr/local/cuda/compat holds libcuda of a newer branch (575)
 * than the host's driver (465.19.01). With brands NVML did not report (the fast path) or a
 * GeForce the host's libraries are used; on a data center GPU the loader finds the compat
 * directory first: LD_LIBRARY_PATH (no ldconfig in the image), or the drop-in's first line. A
 * compat build of the host's own branch or an older one is not used. The note says which and
 * why. */
START_TEST(test_forward_compat) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        fx_cdi(&f, NULL, NULL, NULL);
        xpu_test_write(f.root, "usr/lib/x86_64-linux-gnu/libcuda.so.465.19.01", ""); /* the host's libcuda */
        xpu_test_write(f.container, COMPAT "/libcuda.so.470.223.02", "");
        xpu_test_write(f.container, COMPAT "/libcuda.so.575.57.08", "");
        xpu_test_write(f.container, COMPAT "/libcuda.so.999", "");         /* not a driver version */
        xpu_test_write(f.container, COMPAT "/libcuda.so.0999.1", "");      /* a leading zero */
        xpu_test_write(f.container, COMPAT "/libcuda.so.123456789012345678901234567890.1", ""); /* too long */
        xpu_test_symlink(f.container, COMPAT "/libcuda.so.1", "libcuda.so.575.57.08");
        char version[64];
        const struct xpu_profile *pr = xpu_profile_set_find(f.profiles, "nvidia-cuda");
        ck_assert_int_eq(xpu_forward_compat_find(pr, f.container_fd, version, sizeof version), 1);
        ck_assert_str_eq(version, "575.57.08");
        ck_assert(xpu_forward_compat_newer("575.57.08", "465.19.01"));
        ck_assert(!xpu_forward_compat_newer("465.89.02", "465.19.01"));
        ck_assert(!xpu_forward_compat_newer("575.57.08", ""));
        ck_assert(!xpu_forward_compat_newer("123456789012345678901234567890.1", "465.19.01"));
        ck_assert(!xpu_forward_compat_newer("0999.1", "465.19.01"));

        struct xpu_plan *p = NULL;
        char err[512] = "";
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, "compute", workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(p->forward_compat_dir, "");
        ck_assert_str_eq(note_with(p, "forward compatibility"),
                         "forward compatibility: the image's /usr/local/cuda/compat/libcuda.so.575.57.08 is newer "
                         "than the running driver 465.19.01, but the profile's forward_compat.require is not met "
                         "(requirement \"brand=tesla brand=nvidia\" not met: no alternative met; first: brand=tesla "
                         "but nvidia:0 brand unknown (needs the rich probe)); the host's libraries are used");
        ck_assert_str_eq(xpu_env_get(p->env, "LD_LIBRARY_PATH"), "/run/xpuinit/lib");
        xpu_plan_free(p);

        set_brand(&f, "geforce");
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, "compute", workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(p->forward_compat_dir, "");
        ck_assert_ptr_nonnull(strstr(note_with(p, "forward compatibility"), "brand geforce"));
        xpu_plan_free(p);

        set_brand(&f, "tesla");
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, "compute", workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(p->forward_compat_dir, "/usr/local/cuda/compat");
        ck_assert_str_eq(note_with(p, "forward compatibility"),
                         "forward compatibility: the image's /usr/local/cuda/compat/libcuda.so.575.57.08 is newer "
                         "than the running driver 465.19.01 (requirement \"brand=tesla brand=nvidia\" met): the "
                         "loader finds /usr/local/cuda/compat before /run/xpuinit/lib");
        ck_assert_str_eq(xpu_env_get(p->env, "LD_LIBRARY_PATH"), "/usr/local/cuda/compat:/run/xpuinit/lib");
        ck_assert_str_eq(note_with(p, "loader:"), "loader: LD_LIBRARY_PATH starts with "
                                                  "/usr/local/cuda/compat:/run/xpuinit/lib (the image has no ldconfig "
                                                  "and /etc/ld.so.conf)");
        xpu_plan_free(p);

        /* utility alone injects no libcuda: no order to set, nothing said */
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, "utility", workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(p->forward_compat_dir, "");
        ck_assert_str_eq(note_with(p, "forward compatibility"), "");
        ck_assert_str_eq(xpu_env_get(p->env, "LD_LIBRARY_PATH"), "/run/xpuinit/lib");
        xpu_plan_free(p);

        /* an image with ldconfig: the drop-in lists the compat directory first */
        xpu_test_write(f.container, "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
        xpu_test_write(f.container, "sbin/ldconfig", "#!/bin/sh\n");
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, "compute", workload, &p, err, sizeof err) == 0, "%s", err);
        const struct xpu_op *op = find_op(p, XPU_OP_WRITE_FILE, "/etc/ld.so.conf.d/000-xpuinit.conf");
        ck_assert_ptr_nonnull(op);
        ck_assert_str_eq(op->content, "# written by xpuinit: the image's forward-compatibility libraries first, then "
                                      "the host driver libraries\n/usr/local/cuda/compat\n/run/xpuinit/lib\n");
        ck_assert_str_eq(note_with(p, "loader:"), "loader: /etc/ld.so.conf.d/000-xpuinit.conf lists "
                                                  "/usr/local/cuda/compat, /run/xpuinit/lib; /sbin/ldconfig rebuilds "
                                                  "the cache");
        xpu_plan_free(p);

        /* only the host's own branch in the image: not used */
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/" COMPAT "/libcuda.so.575.57.08", f.container);
        ck_assert_int_eq(unlink(path), 0);
        snprintf(path, sizeof path, "%s/" COMPAT "/libcuda.so.470.223.02", f.container);
        ck_assert_int_eq(unlink(path), 0);
        xpu_test_write(f.container, COMPAT "/libcuda.so.465.89.02", "");
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, "compute", workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(p->forward_compat_dir, "");
        ck_assert_str_eq(note_with(p, "forward compatibility"),
                         "forward compatibility: the image's /usr/local/cuda/compat/libcuda.so.465.89.02 is not of a "
                         "newer driver branch than the running driver 465.19.01; the host's libraries are used");
        xpu_plan_free(p);

        /* a directory without it (or none): nothing to say */
        snprintf(path, sizeof path, "%s/" COMPAT "/libcuda.so.465.89.02", f.container);
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(xpu_forward_compat_find(pr, f.container_fd, version, sizeof version), 0);
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, "compute", workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(note_with(p, "forward compatibility"), "");
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

/* compat32: the 32-bit copies of the other capabilities' libraries (i386 directories, 32-bit ELF
 * only) in /run/xpuinit/lib32, which the loader searches after /run/xpuinit/lib; a 64-bit file of
 * the name there is skipped, said so; none at all is a warning. */
START_TEST(test_compat32) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        fx_cdi(&f, NULL, NULL, NULL);
        xpu_test_write(f.root, "usr/lib/i386-linux-gnu/libcuda.so.465.19.01", "\177ELF\001\001\001 32-bit libcuda, a whole ELF32 header long: 52 bytes.....");
        xpu_test_write(f.root, "usr/lib/i386-linux-gnu/libnvidia-ml.so.465.19.01", "\177ELF\002\001\001 64-bit");
        xpu_test_write(f.root, "usr/lib/i386-linux-gnu/libnvidia-ptxjitcompiler.so.460.73.01", "\177ELF\001\001\001");
        xpu_test_write(f.root, "usr/lib/i386-linux-gnu/libnvidia-cfg.so.465.19.01", "\177ELF\001"); /* truncated */
        /* Fedora's layout: 32-bit copies in /usr/lib, which the 64-bit search reads too */
        xpu_test_write(f.root, "usr/lib/libnvidia-nscq.so.465.19.01",
                       "\177ELF\001\001\001 32-bit nscq, a whole ELF32 header long: 52 bytes.....");
        struct xpu_plan *p = NULL;
        char err[512] = "";
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, "utility,compute,compat32", workload, &p, err, sizeof err) == 0, "%s",
                      err);
        ck_assert_str_eq(p->lib32_dir, "/run/xpuinit/lib32");
        ck_assert_uint_eq(p->files32->n, 2);
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib32/libnvidia-nscq.so.465.19.01"));
        ck_assert_ptr_null(find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib/libnvidia-nscq.so.465.19.01"));
        ck_assert_str_eq(note_with(p, "libnvidia-nscq.so.465.19.01: a 32"),
                         "skipped /usr/lib/libnvidia-nscq.so.465.19.01: a 32-bit ELF file (compat32 takes those)");
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_MKDIR, "/run/xpuinit/lib32"));
        const struct xpu_op *op = find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib32/libcuda.so.465.19.01");
        ck_assert_ptr_nonnull(op);
        ck_assert_str_eq(op->target, "/xpu/driver/usr/lib/i386-linux-gnu/libcuda.so.465.19.01");
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib32/libcuda.so.1"));
        ck_assert_ptr_null(find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib32/libnvidia-ml.so.465.19.01"));
        ck_assert_str_eq(note_with(p, "libnvidia-ml.so.465.19.01: not"),
                         "skipped (32-bit) /usr/lib/i386-linux-gnu/libnvidia-ml.so.465.19.01: not a 32-bit ELF file");
        ck_assert_ptr_nonnull(strstr(note_with(p, "older/other"), "libnvidia-ptxjitcompiler.so.460.73.01"));
        ck_assert_str_eq(note_with(p, "capability compat32"),
                         "capability compat32: 2 32-bit libraries in /run/xpuinit/lib32");
        ck_assert_str_eq(xpu_env_get(p->env, "LD_LIBRARY_PATH"), "/run/xpuinit/lib:/run/xpuinit/lib32");
        ck_assert_ptr_null(find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib32/libnvidia-cfg.so.465.19.01"));
        ck_assert_str_eq(note_with(p, "libnvidia-cfg.so.465.19.01: not"),
                         "skipped (32-bit) /usr/lib/i386-linux-gnu/libnvidia-cfg.so.465.19.01: not a 32-bit ELF file");
        /* the 64-bit directory keeps its own files */
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib/libnvidia-ml.so.465.19.01"));
        xpu_plan_free(p);

        /* mount mode: bound into the same private tmpfs, before it is made read-only */
        ck_assert_msg(fx_plan(&f, XPU_INJECT_MOUNT, "compute,compat32", workload, &p, err, sizeof err) == 0, "%s", err);
        const struct xpu_op *bind = find_op(p, XPU_OP_BIND, "/run/xpuinit/lib32/libcuda.so.465.19.01");
        ck_assert_ptr_nonnull(bind);
        ck_assert_str_eq(bind->source, "/usr/lib/i386-linux-gnu/libcuda.so.465.19.01");
        const struct xpu_op *ro = find_op(p, XPU_OP_REMOUNT_RO, "/run/xpuinit");
        ck_assert_ptr_nonnull(ro);
        ck_assert(bind < ro);
        xpu_plan_free(p);

        /* no 32-bit copy of what the capabilities ask: a warning, the start goes on */
        char nscq[PATH_MAX];
        snprintf(nscq, sizeof nscq, "%s/usr/lib/libnvidia-nscq.so.465.19.01", f.root);
        ck_assert_int_eq(unlink(nscq), 0);
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, "utility,compat32", workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(p->lib32_dir, "");
        ck_assert_uint_ge(p->n_warnings, 1);
        ck_assert_str_eq(p->warnings[p->n_warnings - 1], "capability compat32: no 32-bit library of version 465.19.01 in driver root "
                                         "/xpu/driver; 32-bit programs will not find the driver");
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

int main(void) {
        Suite *s = suite_create("plan-libdir");
        TCase *tc = tcase_create("plan-libdir");
        tcase_add_test(tc, test_library_links);
        tcase_add_test(tc, test_forward_compat);
        tcase_add_test(tc, test_compat32);
        suite_add_tcase(s, tc);
        return xpu_test_run(s);
}
