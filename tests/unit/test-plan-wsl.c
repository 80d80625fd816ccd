/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/plan-wsl.c: a start on the WSL2 fixture hosts (tests/fixtures/hosts/wsl-*): /dev/dxg
 * checked and nothing of /dev/nvidia* or /dev/kfd, the vendor's Windows driver files placed at
 * their own path (bind or link), their folders given to the loader (drop-in and ldconfig, or
 * LD_LIBRARY_PATH), the vendor's WSL2 variables; a driver root without the files is an error
 * naming it and the fix; NVIDIA_VISIBLE_DEVICES=void places nothing. */
#include <dirent.h>
#include <errno.h>

#include "base/strv.h"
#include "plan-fx.h"

#define NV_STORE "/usr/lib/wsl/drivers/nv_dispsi.inf_amd64_7cc7738d8e428783"

static const char *env_of(const struct xpu_plan *p, const char *name) {
        return xpu_env_get(p->env, name);
}

/* NVIDIA: one node check, /dev/dxg; the toolkit's files bound at their own path (mount mode) from
 * the driver store and libdxcore from /usr/lib/wsl/lib; an image with ldconfig gets the drop-in
 * listing both folders and an ldconfig run. */
START_TEST(test_nvidia) {
        struct fx f;
        fx_open(&f, "wsl-nvidia", NULL, NULL);
        fx_cdi(&f, NULL, NULL, NULL);
        xpu_test_write(f.container, "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
        xpu_test_write(f.container, "sbin/ldconfig", "#!/bin/sh\n");
        struct xpu_plan *p = NULL;
        char err[512] = "";
        ck_assert_msg(fx_plan(&f, XPU_INJECT_MOUNT, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(p->profile->name, "nvidia-cuda");
        ck_assert_uint_eq(count_ops(p, XPU_OP_CHECK_DEVNODE), 1);
        const struct xpu_op *dxg = find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/dxg");
        ck_assert_ptr_nonnull(dxg);
        ck_assert(dxg->have_major && !dxg->optional);
        ck_assert_uint_eq(dxg->major, 10);
        ck_assert_uint_eq(dxg->minor, 124);
        static const char *const bound[] = {
                NV_STORE "/libcuda.so.1.1",    NV_STORE "/libcuda_loader.so", NV_STORE "/libnvidia-ptxjitcompiler.so.1",
                NV_STORE "/libnvidia-ml.so.1", NV_STORE "/libnvidia-ml_loader.so", NV_STORE "/libnvdxgdmal.so.1",
                NV_STORE "/nvcubins.bin",      NV_STORE "/nvidia-smi",       "/usr/lib/wsl/lib/libdxcore.so",
        };
        ck_assert_uint_eq(count_ops(p, XPU_OP_BIND), ELEMENTSOF(bound));
        for (size_t i = 0; i < ELEMENTSOF(bound); i++) {
                const struct xpu_op *b = find_op(p, XPU_OP_BIND, bound[i]);
                ck_assert_msg(b != NULL, "%s", bound[i]);
                ck_assert(b->host_file);
                ck_assert_int_eq(b->host_kind, XPU_HOST_FILE_REGULAR);
                ck_assert_str_eq(b->source, bound[i]);
                ck_assert(dxg < b);
        }
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_MKDIR, NV_STORE));
        ck_assert_ptr_null(find_op(p, XPU_OP_TMPFS, "/run/xpuinit"));
        const struct xpu_op *conf = find_op(p, XPU_OP_WRITE_FILE, "/etc/ld.so.conf.d/001-xpuinit-wsl.conf");
        ck_assert_ptr_nonnull(conf);
        ck_assert_str_eq(conf->content, "# written by xpuinit: the WSL2 driver's libraries\n/usr/lib/wsl/lib\n" NV_STORE
                                        "\n");
        const struct xpu_op *ldc = find_op(p, XPU_OP_LDCONFIG, "/sbin/ldconfig");
        ck_assert_ptr_nonnull(ldc);
        ck_assert(conf < ldc);
        ck_assert_ptr_null(env_of(p, "LD_LIBRARY_PATH"));
        ck_assert_str_eq(env_of(p, "CUDA_VISIBLE_DEVICES"), "0");
        ck_assert_str_eq(note_with(p, "device nodes"), "WSL2: the profile's device nodes (/dev/nvidiactl, ...) are not "
                                                       "looked for");
        ck_assert_str_eq(note_with(p, "loader:"), "loader: /etc/ld.so.conf.d/001-xpuinit-wsl.conf lists "
                                                  "/usr/lib/wsl/lib," NV_STORE "; /sbin/ldconfig rebuilds the cache");
        ck_assert_str_eq(note_with(p, "WSL2: the GPU"), "WSL2: the GPU is /dev/dxg; the Windows driver's files are "
                                                        "placed at their own path, from its driver store " NV_STORE);
        const struct xpu_op *smi = find_op(p, XPU_OP_SYMLINK, "/usr/bin/nvidia-smi");
        ck_assert_ptr_nonnull(smi);
        ck_assert_str_eq(smi->target, NV_STORE "/nvidia-smi");
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_MKDIR, "/usr/bin"));
        ck_assert_uint_eq(p->n_warnings, 0);
        for (size_t i = 0; i < p->n_ops; i++)
                ck_assert_msg(strncmp(p->ops[i].path, "/dev/nvidia", 11) != 0, "%s", p->ops[i].path);
        xpu_plan_free(p);

        /* an image with its own nvidia-smi keeps it */
        xpu_test_write(f.container, "usr/bin/nvidia-smi", "");
        ck_assert_msg(fx_plan(&f, XPU_INJECT_MOUNT, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_ptr_null(find_op(p, XPU_OP_SYMLINK, "/usr/bin/nvidia-smi"));
        ck_assert_str_eq(note_with(p, "is the image's"), "WSL2: /usr/bin/nvidia-smi is the image's; not linked to "
                                                         NV_STORE "/nvidia-smi");
        xpu_plan_free(p);

        /* link mode, an image without ldconfig: links into the driver root, LD_LIBRARY_PATH */
        char *const noldc = f.container;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/sbin/ldconfig", noldc);
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        const struct xpu_op *l = find_op(p, XPU_OP_SYMLINK, NV_STORE "/libcuda.so.1.1");
        ck_assert_ptr_nonnull(l);
        ck_assert_str_eq(l->target, "/xpu/driver" NV_STORE "/libcuda.so.1.1");
        ck_assert_uint_eq(count_ops(p, XPU_OP_BIND), 0);
        ck_assert_str_eq(env_of(p, "LD_LIBRARY_PATH"), "/usr/lib/wsl/lib:" NV_STORE);
        xpu_plan_free(p);

        /* NVIDIA_VISIBLE_DEVICES=void: the node only */
        fx_cdi(&f, NULL, "void", NULL);
        ck_assert_msg(fx_plan(&f, XPU_INJECT_MOUNT, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(count_ops(p, XPU_OP_BIND), 0);
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

/* AMD and Intel: /dev/dxg, libdxcore (Intel: and Direct3D 12) from /usr/lib/wsl/lib, no /dev/kfd;
 * AMD's runtime told to use its dxg path, unless the image said otherwise. */
START_TEST(test_amd_intel) {
        struct fx f;
        struct xpu_plan *p = NULL;
        char err[512] = "";
        fx_open(&f, "wsl-amd", NULL, NULL);
        fx_cdi(&f, NULL, NULL, NULL);
        ck_assert_msg(fx_plan(&f, XPU_INJECT_MOUNT, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(p->profile->name, "amd-rocm");
        ck_assert_uint_eq(count_ops(p, XPU_OP_CHECK_DEVNODE), 1);
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/dxg"));
        ck_assert_ptr_null(find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/kfd"));
        ck_assert_uint_eq(count_ops(p, XPU_OP_BIND), 1);
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_BIND, "/usr/lib/wsl/lib/libdxcore.so"));
        ck_assert_str_eq(env_of(p, "HSA_ENABLE_DXG_DETECTION"), "1");
        ck_assert_str_eq(env_of(p, "LD_LIBRARY_PATH"), "/usr/lib/wsl/lib");
        ck_assert_str_eq(note_with(p, "HSA_"), "WSL2: HSA_ENABLE_DXG_DETECTION=1 set for the vendor runtime's WSL2 path");
        xpu_plan_free(p);
        char *envp[] = { (char *)"HSA_ENABLE_DXG_DETECTION=0", NULL };
        struct xpu_plan_options o = fx_options(&f, XPU_INJECT_MOUNT, NULL, workload);
        o.envp = envp;
        ck_assert_msg(xpu_test_plan(f.inv, f.sel, fx_profile(&f), &o, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(env_of(p, "HSA_ENABLE_DXG_DETECTION"), "0");
        xpu_plan_free(p);
        fx_close(&f);

        fx_open(&f, "wsl-intel", NULL, NULL);
        fx_cdi(&f, NULL, NULL, NULL);
        ck_assert_msg(fx_plan(&f, XPU_INJECT_MOUNT, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(p->profile->name, "intel-oneapi");
        ck_assert_uint_eq(count_ops(p, XPU_OP_CHECK_DEVNODE), 1);
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/dxg"));
        ck_assert_uint_eq(count_ops(p, XPU_OP_BIND), 3);
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_BIND, "/usr/lib/wsl/lib/libdxcore.so"));
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_BIND, "/usr/lib/wsl/lib/libd3d12.so"));
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_BIND, "/usr/lib/wsl/lib/libd3d12core.so"));
        ck_assert_ptr_null(env_of(p, "HSA_ENABLE_DXG_DETECTION"));
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

/* The driver store found at probe time but its files gone from the driver root, and
 * /usr/lib/wsl/lib empty: the start fails naming both places and the fix. */
START_TEST(test_no_files) {
        struct fx f;
        fx_open(&f, "wsl-amd", NULL, NULL);
        fx_cdi(&f, NULL, NULL, NULL);
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/usr/lib/wsl/lib", f.root);
        DIR *d = opendir(dir);
        ck_assert_ptr_nonnull(d);
        for (struct dirent *de; (de = readdir(d));)
                if (de->d_name[0] != '.')
                        ck_assert_int_eq(unlinkat(dirfd(d), de->d_name, 0), 0);
        closedir(d);
        struct xpu_plan *p = NULL;
        char err[512] = "";
        ck_assert_int_eq(fx_plan(&f, XPU_INJECT_MOUNT, NULL, workload, &p, err, sizeof err), -ENOENT);
        ck_assert_str_eq(err, "WSL2: none of the driver files was found in "
                              "/usr/lib/wsl/drivers/u0420529.inf_amd64_94ad5a6c4d1a04e2 or /usr/lib/wsl/lib in driver "
                              "root /xpu/driver; give the container the host's /usr/lib/wsl (-v "
                              "/usr/lib/wsl:/usr/lib/wsl:ro) or pass --driver-root");
        ck_assert_ptr_null(p);
        /* inject none: nothing looked for, the node still checked */
        ck_assert_msg(fx_plan(&f, XPU_INJECT_NONE, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(count_ops(p, XPU_OP_CHECK_DEVNODE), 1);
        ck_assert_uint_eq(count_ops(p, XPU_OP_BIND), 0);
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

static Suite *plan_wsl_suite(void) {
        Suite *s = suite_create("plan-wsl");
        TCase *tc = tcase_create("wsl");
        tcase_add_test(tc, test_nvidia);
        tcase_add_test(tc, test_amd_intel);
        tcase_add_test(tc, test_no_files);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(plan_wsl_suite());
}
