/* SPDX-License-Identifier: Apache-2.0 */
/* The host-wide MIG capabilities (config, monitor): found in procfs, asked for with
 * NVIDIA_MIG_CONFIG_DEVICES / NVIDIA_MIG_MONITOR_DEVICES ("all" only), given as checked nodes. */
#include <errno.h>

#include "plan-fx.h"

/* A selection of F's host with the MIG variables CONFIG and MONITOR (NULL: unset). */
static int fx_mig_env(struct fx *f, const char *config, const char *monitor, char *err, size_t err_size) {
        xpu_selection_free(f->sel);
        f->sel = NULL;
        const struct xpu_selection_env env = { .mig_config = config, .mig_monitor = monitor };
        return xpu_selection_parse_env(f->inv, &env, &f->sel, err, err_size);
}

START_TEST(test_probe) {
        struct fx f;
        fx_open(&f, "nvidia-a100-mig", NULL, NULL);
        const struct xpu_vendor_info *vi = &f.inv->vendors[XPU_VENDOR_NVIDIA];
        ck_assert_str_eq(vi->mig_config_cap.path, "/dev/nvidia-caps/nvidia-cap1");
        ck_assert_uint_eq(vi->mig_config_cap.minor, 1);
        ck_assert_str_eq(vi->mig_monitor_cap.path, "/dev/nvidia-caps/nvidia-cap2");
        ck_assert_uint_eq(vi->mig_monitor_cap.minor, 2);
        fx_close(&f);
        /* a host whose driver has no MIG capability files */
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        ck_assert_str_eq(f.inv->vendors[XPU_VENDOR_NVIDIA].mig_config_cap.path, "");
        ck_assert_str_eq(f.inv->vendors[XPU_VENDOR_NVIDIA].mig_monitor_cap.path, "");
        fx_close(&f);
}
END_TEST

/* A config or monitor file naming a minor that is already a MIG device's (GPU instance 4's access
 * node, nvidia-cap174) or the other capability's is refused with a warning, never handed out. */
START_TEST(test_probe_colliding_minors) {
        char *root = xpu_test_copy_host("nvidia-a100-mig");
        xpu_test_write(root, "proc/driver/nvidia/capabilities/mig/config", "DeviceFileMinor: 174\nDeviceFileMode: 256\n");
        xpu_test_write(root, "proc/driver/nvidia/capabilities/mig/monitor", "DeviceFileMinor: 174\nDeviceFileMode: 292\n");
        struct xpu_roots roots;
        ck_assert_int_eq(xpu_roots_open(&roots, root, root, root, NULL), 0);
        struct xpu_inventory *inv = NULL;
        ck_assert_int_eq(xpu_inventory_probe(&roots, &inv), 0);
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].mig_config_cap.path, "");
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].mig_monitor_cap.path, "");
        size_t n = 0;
        for (size_t i = 0; i < inv->n_warnings; i++)
                n += strstr(inv->warnings[i], "DeviceFileMinor 174 is another capability's too") != NULL;
        ck_assert_uint_eq(n, 2);
        xpu_inventory_free(inv);
        /* config and monitor naming one minor: neither is offered */
        xpu_test_write(root, "proc/driver/nvidia/capabilities/mig/config", "DeviceFileMinor: 7\n");
        xpu_test_write(root, "proc/driver/nvidia/capabilities/mig/monitor", "DeviceFileMinor: 7\n");
        ck_assert_int_eq(xpu_inventory_probe(&roots, &inv), 0);
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].mig_config_cap.path, "");
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].mig_monitor_cap.path, "");
        xpu_inventory_free(inv);
        xpu_roots_close(&roots);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

START_TEST(test_selection_values) {
        struct fx f;
        fx_open(&f, "nvidia-a100-mig", NULL, NULL);
        char err[512] = "";
        ck_assert_int_eq(fx_mig_env(&f, "all", NULL, err, sizeof err), 0);
        ck_assert(f.sel->mig_config && !f.sel->mig_monitor);
        ck_assert_int_eq(fx_mig_env(&f, "", "all", err, sizeof err), 0);
        ck_assert(!f.sel->mig_config && f.sel->mig_monitor);
        ck_assert_int_eq(fx_mig_env(&f, "0", NULL, err, sizeof err), -EINVAL);
        ck_assert_str_eq(err, "NVIDIA_MIG_CONFIG_DEVICES=\"0\": only \"all\" is supported (the host-wide MIG config "
                              "capability, as the NVIDIA Container Toolkit has it); unset it to leave it out");
        ck_assert_int_eq(fx_mig_env(&f, NULL, "none", err, sizeof err), -EINVAL);
        ck_assert_ptr_nonnull(strstr(err, "NVIDIA_MIG_MONITOR_DEVICES=\"none\""));
        fx_close(&f);
}
END_TEST

/* Asked for: the node is checked before anything changes, like the GPU's own, and a note names
 * it; a host without the capability fails the start, naming the variable and the procfs file. */
START_TEST(test_plan) {
        struct fx f;
        fx_open(&f, "nvidia-a100-mig", NULL, NULL);
        xpu_test_write(f.root, "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.54.03", "");
        char err[512] = "";
        ck_assert_int_eq(fx_mig_env(&f, NULL, "all", err, sizeof err), 0);
        struct xpu_plan *p = NULL;
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, "utility", workload, &p, err, sizeof err) == 0, "%s", err);
        const struct xpu_op *op = find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/nvidia-caps/nvidia-cap2");
        ck_assert_ptr_nonnull(op);
        ck_assert_uint_eq(op->minor, 2);
        ck_assert(!op->optional);
        ck_assert_ptr_null(find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/nvidia-caps/nvidia-cap1"));
        ck_assert_str_eq(note_with(p, "MIG monitor"), "the MIG monitor capability is given: /dev/nvidia-caps/nvidia-cap2");
        xpu_plan_free(p);
        /* not asked: not given */
        ck_assert_int_eq(fx_mig_env(&f, NULL, NULL, err, sizeof err), 0);
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, "utility", workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_ptr_null(find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/nvidia-caps/nvidia-cap2"));
        xpu_plan_free(p);
        fx_close(&f);

        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        ck_assert_int_eq(fx_mig_env(&f, "all", NULL, err, sizeof err), 0);
        ck_assert_int_eq(fx_plan(&f, XPU_INJECT_LINK, "utility", workload, &p, err, sizeof err), -ENOENT);
        ck_assert_str_eq(err, "the MIG config capability was asked for (NVIDIA_MIG_CONFIG_DEVICES=all), but this host "
                              "offers none (no usable /proc/driver/nvidia/capabilities/mig/config: missing, or refused "
                              "with a probe warning): it needs a MIG-capable GPU and driver; unset the variable");
        fx_close(&f);
}
END_TEST

int main(void) {
        Suite *s = suite_create("nvidia-mig");
        TCase *tc = tcase_create("mig-caps");
        tcase_add_test(tc, test_probe);
        tcase_add_test(tc, test_probe_colliding_minors);
        tcase_add_test(tc, test_selection_values);
        tcase_add_test(tc, test_plan);
        suite_add_tcase(s, tc);
        return xpu_test_run(s);
}
