/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/plan-host-files.c: the driver files at their own path. The library directory (the
 * profile's library links, CUDA forward compatibility, compat32) is test-plan-libdir.c's. */
#include <sys/stat.h>

#include "base/strv.h"
#include "plan-fx.h"

/* The profile's "files": found in the driver root (the host copy), planned at their own path in a
 * container root of its own: the parent directory, then a bind of the file's kind (mount mode)
 * or a link into the driver root (link mode). Where the container root is the driver root they
 * are the very same files: nothing planned, a note says so. display alone, with no Xorg module in
 * the driver root, places nothing and still starts. */
START_TEST(test_host_files) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        xpu_test_write(f.root, "lib/firmware/nvidia/465.19.01/gsp_tu10x.bin", "fw");
        xpu_test_write(f.root, "lib/firmware/nvidia/460.73.01/gsp_tu10x.bin", "old fw");
        xpu_test_write(f.root, "tmp/nvidia-mps/control", "");
        char mps_dir[PATH_MAX];
        snprintf(mps_dir, sizeof mps_dir, "%s/tmp/nvidia-mps", f.root);
        ck_assert_int_eq(chmod(mps_dir, 01777), 0);
        xpu_test_write(f.root, "usr/share/vulkan/icd.d/nvidia_icd.json", "{}");
        struct xpu_plan *p = NULL;
        char err[512] = "";
        ck_assert_msg(fx_plan(&f, XPU_INJECT_MOUNT, "compute,graphics", workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_ptr_null(find_op(p, XPU_OP_BIND, "/lib/firmware/nvidia/465.19.01/gsp_tu10x.bin"));
        ck_assert_str_eq(note_with(p, "already in the container"),
                         "already in the container as the driver root's own file(s): "
                         "/lib/firmware/nvidia/465.19.01/gsp_tu10x.bin, /tmp/nvidia-mps, "
                         "/usr/share/vulkan/icd.d/nvidia_icd.json");
        xpu_plan_free(p);

        fx_cdi(&f, NULL, NULL, NULL);
        ck_assert_msg(fx_plan(&f, XPU_INJECT_MOUNT, "compute,graphics", workload, &p, err, sizeof err) == 0, "%s", err);
        const struct xpu_op *fw = find_op(p, XPU_OP_BIND, "/lib/firmware/nvidia/465.19.01/gsp_tu10x.bin");
        ck_assert_ptr_nonnull(fw);
        ck_assert(fw->host_file);
        ck_assert_int_eq(fw->host_kind, XPU_HOST_FILE_REGULAR);
        ck_assert_str_eq(fw->source, "/lib/firmware/nvidia/465.19.01/gsp_tu10x.bin");
        const struct xpu_op *dir = find_op(p, XPU_OP_MKDIR, "/lib/firmware/nvidia/465.19.01");
        ck_assert_ptr_nonnull(dir);
        ck_assert(dir < fw);
        const struct xpu_op *mps = find_op(p, XPU_OP_BIND, "/tmp/nvidia-mps");
        ck_assert_ptr_nonnull(mps);
        ck_assert_int_eq(mps->host_kind, XPU_HOST_FILE_DIRECTORY);
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_MKDIR, "/tmp"));
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_BIND, "/usr/share/vulkan/icd.d/nvidia_icd.json"));
        ck_assert_ptr_null(find_op(p, XPU_OP_BIND, "/lib/firmware/nvidia/460.73.01/gsp_tu10x.bin"));
        ck_assert_str_eq(note_with(p, "at their own path"),
                         "driver files at their own path (bind mounts from driver root /xpu/driver): "
                         "/lib/firmware/nvidia/465.19.01/gsp_tu10x.bin, /tmp/nvidia-mps, "
                         "/usr/share/vulkan/icd.d/nvidia_icd.json");
        /* the library binds come first: the tmpfs is read-only before any file at its own path */
        const struct xpu_op *ro = NULL;
        for (size_t i = 0; i < p->n_ops; i++)
                if (p->ops[i].type == XPU_OP_REMOUNT_RO)
                        ro = &p->ops[i];
        ck_assert_ptr_nonnull(ro);
        ck_assert(ro < dir);
        xpu_plan_free(p);

        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, "utility", workload, &p, err, sizeof err) == 0, "%s", err);
        const struct xpu_op *link = find_op(p, XPU_OP_SYMLINK, "/lib/firmware/nvidia/465.19.01/gsp_tu10x.bin");
        ck_assert_ptr_nonnull(link);
        ck_assert_str_eq(link->target, "/xpu/driver/lib/firmware/nvidia/465.19.01/gsp_tu10x.bin");
        ck_assert_ptr_null(find_op(p, XPU_OP_SYMLINK, "/tmp/nvidia-mps")); /* compute's, not utility's */
        xpu_plan_free(p);

        /* video: the VDPAU driver where libvdpau looks for it, not in the library directory */
        xpu_test_write(f.root, "usr/lib/x86_64-linux-gnu/vdpau/libvdpau_nvidia.so.465.19.01", "");
        ck_assert_msg(fx_plan(&f, XPU_INJECT_MOUNT, "video", workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_BIND, "/usr/lib/x86_64-linux-gnu/vdpau/libvdpau_nvidia.so.465.19.01"));
        xpu_plan_free(p);

        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, "display", workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(note_with(p, "none placed"),
                         "capabilities display: none of the files profile \"nvidia-cuda\" names for them is in "
                         "driver root /xpu/driver; none placed");
        ck_assert_uint_eq(count_ops(p, XPU_OP_SYMLINK), 0);
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

/* A profile of the image that names directories it should not: /run (which would cover the
 * library directory's tree) and /etc (the image's own, with files); and a file reached through an
 * absolute link in the driver root, whose link-mode target is the file itself, so the kernel
 * never resolves that link against the container's root. */
START_TEST(test_host_files_hostile_profile) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        fx_cdi(&f, NULL, NULL, NULL);
        xpu_test_write(f.root, "etc/host-config", "host");
        xpu_test_write(f.root, "run/something", "");
        xpu_test_write(f.root, "opt/real/icd.json", "{}");
        xpu_test_symlink(f.root, "usr/share/vulkan/icd.d/nvidia_icd.json", "/opt/real/icd.json");
        xpu_test_write(f.container, "etc/passwd", "root:x:0:0::/root:/bin/sh\n");
        /* (world-writable, so the mode rule lets them through and the rules below are what stop them) */
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/run", f.root);
        ck_assert_int_eq(chmod(path, 01777), 0);
        snprintf(path, sizeof path, "%s/etc", f.root);
        ck_assert_int_eq(chmod(path, 01777), 0);
        xpu_test_write(f.container, "opt/real/icd.json", "{\"image\": \"not the driver's\"}");
        struct xpu_profile *pr = NULL;
        char err[512] = "";
        ck_assert_msg(xpu_profile_parse("{\"name\": \"h\", \"match\": {\"vendor\": \"nvidia\"}, "
                                        "\"libraries\": {\"utility\": [\"libnvidia-ml.so\"]}, "
                                        "\"files\": {\"utility\": [\"/run\", \"/etc\", "
                                        "\"/usr/share/vulkan/icd.d/nvidia_icd.json\"]}}",
                                        "test.json", &pr, err, sizeof err) == 0, "%s", err);
        char *envp[] = { NULL };
        struct xpu_plan_options o = {
                .inject = XPU_INJECT_LINK, .driver_root = "/xpu/driver", .driver_fd = f.roots.driver_fd,
                .container_fd = f.container_fd, .dev_fd = f.roots.dev_fd, .capabilities_env = "utility",
                .envp = envp, .argv = workload,
        };
        struct xpu_plan *p = NULL;
        ck_assert_msg(xpu_test_plan(f.inv, f.sel, pr, &o, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_ptr_null(find_op(p, XPU_OP_SYMLINK, "/run"));
        ck_assert_ptr_null(find_op(p, XPU_OP_SYMLINK, "/etc"));
        ck_assert_str_eq(note_with(p, "skipped /run"),
                         "skipped /run: it would cover /run/xpuinit, which xpuinit's library directory owns");
        ck_assert_str_eq(note_with(p, "skipped /etc"),
                         "skipped /etc: the image has a directory with files there, which a mount would hide");
        const struct xpu_op *op = find_op(p, XPU_OP_SYMLINK, "/usr/share/vulkan/icd.d/nvidia_icd.json");
        ck_assert_ptr_nonnull(op);
        ck_assert_str_eq(op->target, "/xpu/driver/opt/real/icd.json");
        xpu_plan_free(p);
        xpu_profile_free(pr);
        fx_close(&f);
}
END_TEST

/* A Jetson (jetson-orin): what its CSV files list, planned instead of the profile's files. The
 * listed nodes the host has are checked with their origin, the listed files it has are placed at
 * their own path (bind or link), sym lines are the same links again; nothing goes to the library
 * directory. A file not in the base set is read only with NVIDIA_REQUIRE_JETPACK=csv-mounts=all. */
START_TEST(test_host_list_jetson) {
        struct fx f;
        fx_open(&f, "jetson-orin", NULL, NULL);
        fx_cdi(&f, NULL, NULL, NULL);
        xpu_test_write(f.root, "etc/nvidia-container-runtime/host-files-for-container.d/extra.csv",
                       "lib, /usr/share/extra.json\n");
        xpu_test_write(f.root, "usr/share/extra.json", "{}");
        struct xpu_plan *p = NULL;
        char err[512] = "";
        ck_assert_msg(fx_plan(&f, XPU_INJECT_MOUNT, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(p->profile->name, "nvidia-cuda");
        ck_assert_str_ne(note_with(p, "the host lists what its containers get"), "");
        ck_assert_str_eq(note_with(p, "extra.csv"), "extra.csv not read: only devices.csv, drivers.csv and l4t.csv "
                                                    "are unless the image sets NVIDIA_REQUIRE_JETPACK=csv-mounts=all");
        const struct xpu_op *op = find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/nvgpu/igpu0/as");
        ck_assert_ptr_nonnull(op);
        ck_assert_str_eq(op->origin, "devices.csv:22");
        ck_assert(!op->optional && !op->have_major);
        ck_assert_str_eq(find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/nvmap")->origin, "devices.csv:37");
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/dri/renderD128")); /* a glob line */
        ck_assert_ptr_null(find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/v4l2-nvdec"));        /* not on this host */
        op = find_op(p, XPU_OP_BIND, "/usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1.1");
        ck_assert_ptr_nonnull(op);
        ck_assert(op->host_file);
        ck_assert_int_eq(op->host_kind, XPU_HOST_FILE_REGULAR);
        ck_assert_str_eq(op->origin, "drivers.csv:1");
        op = find_op(p, XPU_OP_SYMLINK, "/usr/lib/aarch64-linux-gnu/tegra");
        ck_assert_ptr_nonnull(op);
        ck_assert_str_eq(op->target, "nvidia");
        ck_assert_str_eq(op->origin, "drivers.csv:12");
        ck_assert_str_eq(find_op(p, XPU_OP_SYMLINK, "/usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1")->target,
                         "libcuda.so.1.1");
        /* "lib, //lib/firmware/tegra19x/..." names a file an Orin does not have: nothing */
        ck_assert_ptr_null(find_op(p, XPU_OP_BIND, "/lib/firmware/tegra19x/nvhost_nvdec040_ns.fw"));
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_BIND, "/lib/firmware/tegra23x/nvhost_nvdec050_desc_prod.bin"));
        ck_assert_ptr_null(find_op(p, XPU_OP_BIND, "/usr/share/extra.json"));
        ck_assert_uint_eq(count_ops(p, XPU_OP_TMPFS), 0); /* no library directory */
        /* the image has no ldconfig: the listed libraries' directories lead LD_LIBRARY_PATH */
        ck_assert_str_eq(xpu_env_get(p->env, "LD_LIBRARY_PATH"), "/usr/lib/aarch64-linux-gnu/nvidia:"
                                                                  "/usr/lib/aarch64-linux-gnu/tegra-egl:/usr/lib/aarch64-linux-gnu");
        xpu_plan_free(p);

        /* an image with ldconfig and /etc/ld.so.conf: its drop-in lists them, its ldconfig runs */
        xpu_test_write(f.container, "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
        xpu_test_write(f.container, "sbin/ldconfig", "#!/bin/sh\n");
        ck_assert_msg(fx_plan(&f, XPU_INJECT_MOUNT, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        op = find_op(p, XPU_OP_WRITE_FILE, "/etc/ld.so.conf.d/000-xpuinit.conf");
        ck_assert_ptr_nonnull(op);
        ck_assert_str_eq(op->content, "# written by xpuinit: the directories of the libraries the host lists\n"
                                      "/usr/lib/aarch64-linux-gnu/nvidia\n/usr/lib/aarch64-linux-gnu/tegra-egl\n"
                                      "/usr/lib/aarch64-linux-gnu\n");
        ck_assert(find_op(p, XPU_OP_LDCONFIG, "/sbin/ldconfig") > op);
        ck_assert_ptr_null(xpu_env_get(p->env, "LD_LIBRARY_PATH"));
        xpu_plan_free(p);

        /* link mode: links into the driver root; the image asks for every CSV file */
        struct xpu_plan_options o = fx_options(&f, XPU_INJECT_LINK, NULL, workload);
        char *all[] = { (char *)"NVIDIA_REQUIRE_JETPACK=csv-mounts=all", NULL };
        o.envp = all;
        ck_assert_msg(xpu_test_plan(f.inv, f.sel, fx_profile(&f), &o, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(find_op(p, XPU_OP_SYMLINK, "/usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1.1")->target,
                         "/xpu/driver/usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1.1");
        ck_assert_str_eq(find_op(p, XPU_OP_SYMLINK, "/usr/share/extra.json")->origin, "extra.csv:1");
        ck_assert_str_eq(note_with(p, "extra.csv not read"), "");
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

/* A Jetson whose container already has the listed files as the host's very files (a CDI spec of
 * `xpuinit cdi generate` mounted them at their own path; here the container root is the host
 * copy itself): nothing is bound or linked again, and the libraries' directories still go to the
 * loader. */
START_TEST(test_host_list_in_place) {
        struct fx f;
        fx_open(&f, "jetson-orin", NULL, NULL);
        struct xpu_plan *p = NULL;
        char err[512] = "";
        ck_assert_msg(fx_plan(&f, XPU_INJECT_MOUNT, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_ptr_null(find_op(p, XPU_OP_BIND, "/usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1.1"));
        ck_assert_str_ne(note_with(p, "already in the container as the driver root's own file(s): "
                                      "/usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1.1"), "");
        /* the sym lines' links are made again (the links placed come first), the files in place
         * add their directories after them */
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_SYMLINK, "/usr/lib/aarch64-linux-gnu/libcuda.so"));
        ck_assert_str_eq(xpu_env_get(p->env, "LD_LIBRARY_PATH"), "/usr/lib/aarch64-linux-gnu:"
                                                                  "/usr/lib/aarch64-linux-gnu/nvidia:"
                                                                  "/usr/lib/aarch64-linux-gnu/tegra-egl");
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

/* A Xavier on L4T 32 (jetson-xavier): l4t.csv's dir line is a directory bound read-only (mount
 * mode) or linked (link mode), its lib lines under .../tegra, its two sym lines the same links. */
START_TEST(test_host_list_xavier) {
        struct fx f;
        fx_open(&f, "jetson-xavier", NULL, NULL);
        fx_cdi(&f, NULL, NULL, NULL);
        struct xpu_plan *p = NULL;
        char err[512] = "";
        ck_assert_msg(fx_plan(&f, XPU_INJECT_MOUNT, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        const struct xpu_op *op = find_op(p, XPU_OP_BIND, "/lib/firmware/tegra19x");
        ck_assert_ptr_nonnull(op);
        ck_assert(op->host_file);
        ck_assert_int_eq(op->host_kind, XPU_HOST_FILE_TREE);
        ck_assert_str_eq(op->origin, "l4t.csv:21");
        ck_assert_str_eq(find_op(p, XPU_OP_SYMLINK, "/usr/lib/aarch64-linux-gnu/libcuda.so")->target, "tegra/libcuda.so");
        ck_assert_str_eq(find_op(p, XPU_OP_BIND, "/usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1")->origin, "l4t.csv:22");
        ck_assert_str_eq(find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/nvhost-ctrl-gpu")->origin, "l4t.csv:5");
        ck_assert_str_eq(find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/nvhost-nvdla0")->origin, "l4t.csv:14");
        ck_assert_ptr_null(find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/nvhost-nvdla1")); /* not on this host */
        ck_assert_str_eq(xpu_env_get(p->env, "LD_LIBRARY_PATH"), "/usr/lib/aarch64-linux-gnu/tegra:/usr/lib/aarch64-linux-gnu");
        xpu_plan_free(p);
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(find_op(p, XPU_OP_SYMLINK, "/lib/firmware/tegra19x")->target, "/xpu/driver/lib/firmware/tegra19x");
        xpu_plan_free(p);
        /* an image that has the sym line's path as a directory keeps it */
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/usr/lib/aarch64-linux-gnu/libcuda.so", f.container);
        xpu_test_write(f.container, "usr/lib/aarch64-linux-gnu/other.so", "");
        ck_assert_int_eq(mkdir(dir, 0755), 0); /* empty: still kept */
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_ptr_null(find_op(p, XPU_OP_SYMLINK, "/usr/lib/aarch64-linux-gnu/libcuda.so"));
        ck_assert_str_eq(note_with(p, "skipped /usr/lib/aarch64-linux-gnu/libcuda.so"),
                         "skipped /usr/lib/aarch64-linux-gnu/libcuda.so: the image has a directory there, which the "
                         "host's symlink would replace");
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

/* What a hostile or stale list names is checked like every driver file: a file not every user may
 * read, a path of another kind than its line says, a sym line that is no link, a link that leaves
 * nothing but its text behind; a line that does not parse ends the plan with its file and line. */
START_TEST(test_host_list_hostile) {
        struct fx f;
        fx_open(&f, "jetson-xavier", NULL, NULL);
        fx_cdi(&f, NULL, NULL, NULL);
        const char *csv = "etc/nvidia-container-runtime/host-files-for-container.d/l4t.csv";
        xpu_test_write(f.root, "etc/secret", "x");
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/etc/secret", f.root);
        ck_assert_int_eq(chmod(path, 0600), 0);
        xpu_test_symlink(f.root, "usr/lib/escape.so", "../../../../../../etc/secret");
        xpu_test_write(f.root, csv,
                       "lib, /etc/secret\n"
                       "lib, /usr/lib/aarch64-linux-gnu/tegra\n"
                       "sym, /usr/lib/aarch64-linux-gnu/tegra/libnvos.so\n"
                       "dir, /etc/secret\n"
                       "dev, /etc/secret\n"
                       "lib, /usr/lib/escape.so\n");
        struct xpu_plan *p = NULL;
        char err[512] = "";
        ck_assert_msg(fx_plan(&f, XPU_INJECT_MOUNT, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(count_ops(p, XPU_OP_BIND), 0);
        ck_assert_uint_eq(count_ops(p, XPU_OP_SYMLINK), 0);
        ck_assert_str_ne(note_with(p, "skipped /etc/secret (l4t.csv:1): mode 0600: not readable by every user"), "");
        ck_assert_str_ne(note_with(p, "skipped /usr/lib/aarch64-linux-gnu/tegra (l4t.csv:2): listed as a file "
                                           "but is a directory"), "");
        ck_assert_str_ne(note_with(p, "skipped /usr/lib/aarch64-linux-gnu/tegra/libnvos.so (l4t.csv:3): listed as "
                                           "a symlink but is a regular file"), "");
        ck_assert_str_ne(note_with(p, "skipped /etc/secret (l4t.csv:4): listed as a directory but is a regular"), "");
        ck_assert_str_ne(note_with(p, "skipped /etc/secret (l4t.csv:5): listed as a character device"), "");
        /* resolved inside the driver root: the link's many ".." stop at its top, /etc/secret, 0600 */
        ck_assert_str_ne(note_with(p, "skipped /usr/lib/escape.so (l4t.csv:6): mode 0600"), "");
        xpu_plan_free(p);

        xpu_test_write(f.root, csv, "dev, /dev/nvmap\n# a comment\n\nlibs, /usr/lib/x.so\n");
        ck_assert_int_lt(fx_plan(&f, XPU_INJECT_MOUNT, NULL, workload, &p, err, sizeof err), 0);
        ck_assert_str_eq(err, "/etc/nvidia-container-runtime/host-files-for-container.d/l4t.csv:4: unknown kind "
                              "\"libs\"; expected \"KIND, PATH\" with KIND dev, lib, sym or dir and an absolute PATH "
                              "(\"lib, /usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1\"); fix or remove that line");
        fx_close(&f);
}
END_TEST

int main(void) {
        Suite *s = suite_create("plan-host-files");
        TCase *tc = tcase_create("plan-host-files");
        tcase_add_test(tc, test_host_files);
        tcase_add_test(tc, test_host_files_hostile_profile);
        tcase_add_test(tc, test_host_list_jetson);
        tcase_add_test(tc, test_host_list_in_place);
        tcase_add_test(tc, test_host_list_xavier);
        tcase_add_test(tc, test_host_list_hostile);
        suite_add_tcase(s, tc);
        return xpu_test_run(s);
}
