/* SPDX-License-Identifier: Apache-2.0 */
/* probes/vendor.c: the one list of vendors and the walks through it. Each descriptor sits at its
 * own index; the steps that pick one vendor's settings (the CUDA driver version, the MIG variables,
 * the capability variable) find NVIDIA's; the node-label hooks write only their own vendor's
 * labels, and only for facts every one of its GPUs knows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devcode/judge.h"
#include "nvidia/nvidia-facts.h"
#include "testlib.h"
#include "vendor.h"

START_TEST(test_list) {
        for (int v = 0; v < _XPU_VENDOR_MAX; v++) {
                const struct xpu_vendor_ops *o = xpu_vendors[v];
                ck_assert_ptr_nonnull(o);
                ck_assert_int_eq(o->vendor, v);
                ck_assert_ptr_eq(xpu_vendor((enum xpu_vendor)v), o);
                ck_assert_ptr_nonnull(o->probe.fast);
                ck_assert_int_eq(xpu_vendor_from_string(o->name), v);
                for (int w = 0; w < v; w++) {
                        ck_assert_str_ne(o->name, xpu_vendors[w]->name);
                        /* a code format belongs to one vendor */
                        ck_assert(!o->code.vendor || o->code.vendor != xpu_vendors[w]->code.vendor);
                }
        }
        ck_assert_ptr_null(xpu_vendor(_XPU_VENDOR_MAX));
        ck_assert_int_eq(xpu_vendor_from_string("nvidia-x"), -EINVAL);
}
END_TEST

START_TEST(test_one_vendor_settings) {
        ck_assert_int_eq(xpu_vendor_cuda(), XPU_VENDOR_NVIDIA);
        const struct xpu_vendor_ops *mig = xpu_mig_vendor();
        ck_assert_ptr_eq(mig, xpu_vendors[XPU_VENDOR_NVIDIA]);
        ck_assert_str_eq(mig->mig.config_variable, "NVIDIA_MIG_CONFIG_DEVICES");
        ck_assert_str_eq(mig->mig.monitor_variable, "NVIDIA_MIG_MONITOR_DEVICES");
        ck_assert_str_eq(mig->mig.caps_dir, "/proc/driver/nvidia/capabilities");
        ck_assert_str_eq(xpu_capabilities_variable(), "NVIDIA_DRIVER_CAPABILITIES");
        /* MIG's capability directory is named by the device minor, a placeholder without one */
        struct xpu_device d = { .vendor = XPU_VENDOR_NVIDIA };
        char gpu[24];
        mig->mig.caps_gpu(&d, gpu, sizeof gpu);
        ck_assert_str_eq(gpu, "gpu<minor>");
        d.have |= XPU_HAVE_MINOR;
        xpu_nvidia_facts(&d)->minor = 3;
        mig->mig.caps_gpu(&d, gpu, sizeof gpu);
        ck_assert_str_eq(gpu, "gpu3");
        /* no other vendor has MIG variables or a capability variable */
        for (int v = 0; v < _XPU_VENDOR_MAX; v++)
                if (v != XPU_VENDOR_NVIDIA) {
                        ck_assert_ptr_null(xpu_vendors[v]->mig.config_variable);
                        ck_assert_ptr_null(xpu_vendors[v]->plan.capabilities_variable);
                }
}
END_TEST

static void put(void *ctx, const char *name, const char *value) {
        char *buf = ctx;
        size_t len = strlen(buf);
        snprintf(buf + len, 512 - len, "%s=%s\n", name, value);
}

/* Every vendor's node labels of TARGETS, in list order, into OUT (512 bytes). */
static void node_labels(const struct xpu_inventory *inv, const struct xpu_code_target *t, size_t n, char *out) {
        out[0] = '\0';
        for (int v = 0; v < _XPU_VENDOR_MAX; v++)
                if (xpu_vendors[v]->k8s && xpu_vendors[v]->k8s->node_labels)
                        xpu_vendors[v]->k8s->node_labels(inv, t, n, put, out);
}

START_TEST(test_node_labels) {
        struct xpu_inventory inv = { 0 };
        snprintf(inv.vendors[XPU_VENDOR_NVIDIA].cuda_driver_version,
                 sizeof inv.vendors[XPU_VENDOR_NVIDIA].cuda_driver_version, "12.2");
        struct xpu_code_target t[3];
        ck_assert_int_eq(xpu_code_target_parse("9.0", &t[0]), 0);
        ck_assert_int_eq(xpu_code_target_parse("8.0", &t[1]), 0);
        ck_assert_int_eq(xpu_code_target_parse("gfx942", &t[2]), 0);
        char out[512];
        node_labels(&inv, t, 3, out);
        ck_assert_str_eq(out, "xpu.nvidia.cc=80\nxpu.nvidia.cuda=122\nxpu.amd.generic=gfx9-4-generic\n");
        /* one NVIDIA GPU of unknown capability: no cc label, the CUDA version stays */
        t[1].unknown = true;
        node_labels(&inv, t, 2, out);
        ck_assert_str_eq(out, "xpu.nvidia.cuda=122\n");
        /* no NVIDIA GPU: none of its labels, whatever the driver says */
        node_labels(&inv, &t[2], 1, out);
        ck_assert_str_eq(out, "xpu.amd.generic=gfx9-4-generic\n");
        /* a CUDA version that is not X.Y with one-digit Y is left out */
        snprintf(inv.vendors[XPU_VENDOR_NVIDIA].cuda_driver_version,
                 sizeof inv.vendors[XPU_VENDOR_NVIDIA].cuda_driver_version, "12.10");
        node_labels(&inv, t, 1, out);
        ck_assert_str_eq(out, "xpu.nvidia.cc=90\n");
        node_labels(&inv, t, 0, out);
        ck_assert_str_eq(out, "");
        /* AMD: one generic family for all its GPUs, or no label (none for gfx90a; two differ) */
        struct xpu_code_target a[2];
        ck_assert_int_eq(xpu_code_target_parse("gfx90a", &a[0]), 0);
        node_labels(&inv, a, 1, out);
        ck_assert_str_eq(out, "");
        ck_assert_int_eq(xpu_code_target_parse("gfx942", &a[0]), 0);
        ck_assert_int_eq(xpu_code_target_parse("gfx906", &a[1]), 0);
        node_labels(&inv, a, 2, out);
        ck_assert_str_eq(out, "");
        ck_assert_int_eq(xpu_code_target_parse("gfx950", &a[1]), 0);
        node_labels(&inv, a, 2, out);
        ck_assert_str_eq(out, "xpu.amd.generic=gfx9-4-generic\n");
}
END_TEST

static Suite *vendor_suite(void) {
        Suite *s = suite_create("vendor");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_list);
        tcase_add_test(tc, test_one_vendor_settings);
        tcase_add_test(tc, test_node_labels);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(vendor_suite());
}
