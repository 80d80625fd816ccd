/* SPDX-License-Identifier: Apache-2.0 */
/* Jetson fast path (probes/nvidia/nvidia-tegra.c): the L4T release and SoC parsers, and the probe
 * on the jetson-orin and jetson-xavier fixture hosts (oracle: their expected.json). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inventory-json.h"
#include "nvidia/nvidia-tegra.h"
#include "testlib.h"

START_TEST(test_parse_l4t_release) {
        char out[16];
        ck_assert_int_eq(xpu_nvidia_parse_l4t_release("# R35 (release), REVISION: 4.1, GCID: 33958178, BOARD: "
                                                      "t186ref, EABI: aarch64, DATE: Tue Aug  1 19:57:35 UTC 2023\n",
                                                      out, sizeof out),
                         0);
        ck_assert_str_eq(out, "35.4.1");
        /* REVISION without a patch number (L4T 32.5) */
        ck_assert_int_eq(xpu_nvidia_parse_l4t_release("# R32 (release), REVISION: 5, GCID: 25531747, BOARD: t186ref",
                                                      out, sizeof out),
                         0);
        ck_assert_str_eq(out, "32.5");
        ck_assert_int_eq(xpu_nvidia_parse_l4t_release("# R36 (release), REVISION: 4.3\n", out, sizeof out), 0);
        ck_assert_str_eq(out, "36.4.3");
}
END_TEST

START_TEST(test_parse_l4t_release_bad) {
        char out[16] = "keep";
        ck_assert_int_eq(xpu_nvidia_parse_l4t_release("", out, sizeof out), -EINVAL);
        ck_assert_int_eq(xpu_nvidia_parse_l4t_release("R35.4.1\n", out, sizeof out), -EINVAL);
        ck_assert_int_eq(xpu_nvidia_parse_l4t_release("# R35 (release), REVISION: x.1,", out, sizeof out), -EINVAL);
        /* more digits than any release has, or trailing junk after the number */
        ck_assert_int_eq(xpu_nvidia_parse_l4t_release("# R35555 (release), REVISION: 4.1,", out, sizeof out), -EINVAL);
        ck_assert_int_eq(xpu_nvidia_parse_l4t_release("# R35 (release), REVISION: 4.1x,", out, sizeof out), -EINVAL);
        ck_assert_int_eq(xpu_nvidia_parse_l4t_release("# R35 (release), REVISION: 4.1,", out, 4), -ENAMETOOLONG);
}
END_TEST

START_TEST(test_tegra_soc) {
        char soc[16];
        static const char orin[] = "nvidia,p3737-0000+p3701-0000\0nvidia,p3701-0000\0nvidia,tegra234";
        ck_assert_int_eq(xpu_nvidia_tegra_soc(orin, sizeof orin, soc, sizeof soc), 0);
        ck_assert_str_eq(soc, "tegra234");
        /* a Grace server's device tree has no Tegra string */
        static const char other[] = "nvidia,grace\0arm,sbsa";
        ck_assert_int_eq(xpu_nvidia_tegra_soc(other, sizeof other, soc, sizeof soc), -ENOENT);
        /* unterminated last string: bounded by the length */
        static const char cut[] = { 'n', 'v', 'i', 'd', 'i', 'a', ',', 't', 'e', 'g', 'r', 'a', '1', '9', '4' };
        ck_assert_int_eq(xpu_nvidia_tegra_soc(cut, sizeof cut, soc, sizeof soc), 0);
        ck_assert_str_eq(soc, "tegra194");
        static const char odd[] = "nvidia,tegra\x1b[2J";
        ck_assert_int_eq(xpu_nvidia_tegra_soc(odd, sizeof odd, soc, sizeof soc), -EINVAL);
}
END_TEST

static void check_host(const char *host, const char *soc, const char *cc, const char *l4t, const char *name) {
        struct xpu_inventory *inv = xpu_test_probe_host(host);
        ck_assert_int_eq(inv->platform, XPU_PLATFORM_TEGRA);
        ck_assert_str_eq(xpu_platform_name(inv->platform), "tegra");
        ck_assert_uint_eq(xpu_inventory_count(inv, XPU_VENDOR_NVIDIA), 1);
        ck_assert_uint_eq(inv->n_devices, 1);
        const struct xpu_device *d = &inv->devices[0];
        ck_assert_int_eq(d->vendor, XPU_VENDOR_NVIDIA);
        ck_assert_int_eq(d->source, XPU_SOURCE_SYSFS);
        ck_assert(d->integrated);
        ck_assert_str_eq(d->pci_bus_id, ""); /* not on PCI: never invented */
        ck_assert_str_eq(d->name, name);
        ck_assert_str_eq(xpu_nvidia_facts(d)->tegra_soc, soc);
        ck_assert_str_eq(xpu_nvidia_facts(d)->compute_capability, cc);
        ck_assert_str_eq(xpu_nvidia_facts(d)->l4t_release, l4t);
        ck_assert_uint_eq(d->n_nodes, 3);
        ck_assert_str_eq(d->nodes[0].path, "/dev/nvmap");
        ck_assert(!d->nodes[0].optional);
        ck_assert_str_eq(d->nodes[1].path, "/dev/nvgpu/igpu0/ctrl");
        ck_assert(d->nodes[1].optional);
        ck_assert_str_eq(d->nodes[2].path, "/dev/nvhost-ctrl-gpu");
        ck_assert(d->nodes[2].optional);
        ck_assert(inv->vendors[XPU_VENDOR_NVIDIA].driver_loaded);
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].driver_version, ""); /* no procfs version: not guessed */
        ck_assert_uint_eq(inv->n_warnings, 0);

        cJSON *j = xpu_inventory_to_json(inv);
        ck_assert_ptr_nonnull(j);
        ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "host"), "platform")->valuestring, "tegra");
        cJSON *dj = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "devices"), 0);
        ck_assert_str_eq(cJSON_GetObjectItem(dj, "l4t_release")->valuestring, l4t);
        ck_assert_str_eq(cJSON_GetObjectItem(dj, "tegra_soc")->valuestring, soc);
        ck_assert_str_eq(cJSON_GetObjectItem(dj, "compute_capability")->valuestring, cc);
        cJSON_Delete(j);
        xpu_inventory_free(inv);
}

START_TEST(test_host_orin) {
        check_host("jetson-orin", "tegra234", "8.7", "36.4.3", "");
}
END_TEST

START_TEST(test_host_xavier) {
        check_host("jetson-xavier", "tegra194", "7.2", "32.5.1", "");
}
END_TEST

/* The board's model names the GPU; a bad release file and an unknown chip are warnings. */
START_TEST(test_model_and_warnings) {
        char *root = xpu_test_copy_host("jetson-xavier");
        char path[4096];
        snprintf(path, sizeof path, "%s/proc/device-tree/model", root);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fwrite("NVIDIA Jetson AGX Xavier\0", 1, 25, f);
        fclose(f);
        xpu_test_write(root, "etc/nv_tegra_release", "R32.5.1\n");
        xpu_test_write(root, "sys/devices/17000000.gv11b/of_node/compatible", "nvidia,gx99b");
        struct xpu_inventory *inv = xpu_test_probe_backend(xpu_vendor(XPU_VENDOR_NVIDIA), root);
        ck_assert_uint_eq(inv->n_devices, 1);
        ck_assert_str_eq(inv->devices[0].name, "NVIDIA Jetson AGX Xavier");
        ck_assert_str_eq(xpu_nvidia_facts(&inv->devices[0])->compute_capability, "");
        ck_assert_uint_eq(inv->n_warnings, 1);
        ck_assert_ptr_nonnull(strstr(inv->warnings[0], "GPU \"gx99b\" is not a chip xpuinit knows"));
        /* the release is read from the driver root, once it is known */
        struct xpu_roots r;
        const char *which = NULL;
        ck_assert_int_eq(xpu_roots_open(&r, root, root, root, &which), 0);
        ck_assert_int_eq(xpu_inventory_driver_root_facts(&r, inv), 0);
        ck_assert_str_eq(xpu_nvidia_facts(&inv->devices[0])->l4t_release, "");
        ck_assert_uint_eq(inv->n_warnings, 2);
        ck_assert_ptr_nonnull(strstr(inv->warnings[1], "/etc/nv_tegra_release in driver root "));
        ck_assert_ptr_nonnull(strstr(inv->warnings[1], ": first line is not"));
        xpu_test_write(root, "etc/nv_tegra_release", "# R32 (release), REVISION: 7.4, GCID: 1\n");
        ck_assert_int_eq(xpu_inventory_driver_root_facts(&r, inv), 0);
        ck_assert_str_eq(xpu_nvidia_facts(&inv->devices[0])->l4t_release, "32.7.4");
        xpu_roots_close(&r);
        xpu_inventory_free(inv);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* A Tegra device tree without the nvgpu device: the platform, no GPU, and why. */
START_TEST(test_no_nvgpu) {
        char *root = xpu_test_copy_host("jetson-xavier");
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/sys/devices/17000000.gv11b", root);
        xpu_test_rm_rf(dir);
        struct xpu_inventory *inv = xpu_test_probe_backend(xpu_vendor(XPU_VENDOR_NVIDIA), root);
        ck_assert_int_eq(inv->platform, XPU_PLATFORM_TEGRA);
        ck_assert_uint_eq(inv->n_devices, 0);
        ck_assert_ptr_nonnull(strstr(inv->vendors[XPU_VENDOR_NVIDIA].looked_for, "no nvgpu device"));
        xpu_inventory_free(inv);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* Every other fixture host is plain Linux. */
START_TEST(test_linux_host) {
        struct xpu_inventory *inv = xpu_test_probe_host("nvidia-l4-single");
        ck_assert_int_eq(inv->platform, XPU_PLATFORM_LINUX);
        ck_assert_str_eq(xpu_platform_name(inv->platform), "linux");
        ck_assert_ptr_null(xpu_platform_name(_XPU_PLATFORM_MAX));
        xpu_inventory_free(inv);
}
END_TEST

static Suite *tegra_suite(void) {
        Suite *s = suite_create("nvidia-tegra");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_parse_l4t_release);
        tcase_add_test(tc, test_parse_l4t_release_bad);
        tcase_add_test(tc, test_tegra_soc);
        tcase_add_test(tc, test_host_orin);
        tcase_add_test(tc, test_host_xavier);
        tcase_add_test(tc, test_model_and_warnings);
        tcase_add_test(tc, test_no_nvgpu);
        tcase_add_test(tc, test_linux_host);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(tegra_suite());
}
