/* SPDX-License-Identifier: Apache-2.0 */
/* probes/nvidia/nvidia-numa: the Grace Hopper GPU's memory as a NUMA node, coherent with the CPU's.
 * The node-list and version-line parsers; the sysfs pairing on the nvidia-gh200 fixture (a GH200
 * from public captures, tests/fixtures/hosts/nvidia-gh200/SOURCE.md) and on edited copies of it;
 * NVML's answers through the fake NVML (tests/shims/fake-nvml-device.c), hostile ones included,
 * and their merge. */
#include <cJSON.h>
#include <errno.h>

#include "inventory-json.h"
#include "nvidia/nvidia-numa.h"
#include "rich.h"
#include "shim-root.h"

#define HOST "nvidia-gh200"
#define BUS "0009:01:00.0"
#define DRIVER "570.124.06"

static bool bit(const uint64_t *bits, unsigned n) {
        return (bits[n / 64] >> (n % 64)) & 1;
}

START_TEST(test_parse_node_list) {
        uint64_t b[XPU_NVIDIA_NUMA_WORDS];
        ck_assert_int_eq(xpu_nvidia_parse_node_list("0-1\n", b), 2);
        ck_assert(bit(b, 0) && bit(b, 1) && !bit(b, 2));
        ck_assert_int_eq(xpu_nvidia_parse_node_list("\n", b), 0);
        ck_assert_int_eq(xpu_nvidia_parse_node_list("", b), 0);
        ck_assert_int_eq(xpu_nvidia_parse_node_list("0,4-6,5\n", b), 4);
        ck_assert(bit(b, 0) && !bit(b, 3) && bit(b, 4) && bit(b, 6));
        ck_assert_int_eq(xpu_nvidia_parse_node_list("0-4095", b), 4096);
        ck_assert(bit(b, 4095));
        /* A failure leaves BITS as it was. */
        ck_assert_int_eq(xpu_nvidia_parse_node_list("0", b), 1);
        static const char *const bad[] = { "4096", "6-4", "0-", "-1", "1,,2", "1 2", "0x1", "a",
                                           "99999999999999999999999", "0-99999999999", "1,", NULL };
        for (size_t i = 0; bad[i]; i++)
                ck_assert_msg(xpu_nvidia_parse_node_list(bad[i], b) == -EINVAL, "\"%s\" was taken", bad[i]);
        ck_assert(bit(b, 0) && !bit(b, 1));
        ck_assert_int_eq(xpu_nvidia_parse_node_list(NULL, b), -EINVAL);
}
END_TEST

START_TEST(test_parse_version_arch) {
        char arch[16];
        ck_assert_int_eq(xpu_nvidia_parse_version_arch("NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  "
                                                       "570.124.06  Release Build  (b@h)  date\n", arch, sizeof arch), 0);
        ck_assert_str_eq(arch, "aarch64");
        ck_assert_int_eq(xpu_nvidia_parse_version_arch("NVRM version: NVIDIA UNIX x86_64 Kernel Module  384.98  Thu "
                                                       "Oct 26\n", arch, sizeof arch), 0);
        ck_assert_str_eq(arch, "x86_64");
        ck_assert_int_eq(xpu_nvidia_parse_version_arch("NVRM version: NVIDIA UNIX Open Kernel Module for ppc64le  "
                                                       "555.58\n", arch, sizeof arch), 0);
        ck_assert_str_eq(arch, "ppc64le");
        ck_assert_int_eq(xpu_nvidia_parse_version_arch("NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  "
                                                       "570.124.06\n", arch, 4), -ENOBUFS);
        static const char *const bad[] = {
                "", "NVRM version: NVIDIA UNIX", "NVRM version: NVIDIA UNIX aarch64 Something  1.2\n",
                "NVRM version: NVIDIA UNIX Open Kernel Module for \n", "nvrm version: nvidia unix x86_64 Kernel Module 1.2",
                "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64", NULL,
        };
        for (size_t i = 0; bad[i]; i++)
                ck_assert_msg(xpu_nvidia_parse_version_arch(bad[i], arch, sizeof arch) == -EINVAL, "\"%s\" was taken",
                              bad[i]);
}
END_TEST

/* The fixture: one GH200 at PCI domain 9, its memory on node 1 (nodes 0-8, CPUs on 0 only). */
START_TEST(test_fixture) {
        struct xpu_inventory *inv = xpu_test_probe_host(HOST);
        ck_assert_uint_eq(inv->n_warnings, 0);
        ck_assert_uint_eq(xpu_inventory_count(inv, XPU_VENDOR_NVIDIA), 1);
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].driver_version, DRIVER);
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].driver_flavor, "open");
        const struct xpu_device *d = shim_by_bus(inv, BUS);
        ck_assert_str_eq(d->name, "NVIDIA GH200 480GB");
        ck_assert_uint_eq(xpu_nvidia_facts(d)->minor, 0);
        ck_assert_int_eq(d->numa_node, 0);
        ck_assert(xpu_nvidia_facts(d)->memory_numa_known);
        ck_assert_uint_eq(xpu_nvidia_facts(d)->memory_numa_node, 1);
        ck_assert_uint_eq(xpu_nvidia_facts(d)->memory_numa_source, XPU_SOURCE_SYSFS);
        ck_assert_str_eq(xpu_nvidia_facts(d)->memory_numa_label, "1");
        ck_assert_str_eq(xpu_nvidia_facts(d)->memory_coherent, "true");
        ck_assert_str_eq(xpu_nvidia_facts(d)->addressing_mode, "");

        cJSON *j = xpu_device_to_json(d);
        ck_assert_ptr_nonnull(j);
        ck_assert_str_eq(cJSON_GetObjectItem(j, "pci_bus_id")->valuestring, BUS);
        ck_assert_int_eq(cJSON_GetObjectItem(j, "memory_numa_node")->valueint, 1);
        ck_assert_str_eq(cJSON_GetObjectItem(j, "memory_numa_node_source")->valuestring, "sysfs");
        ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "memory_coherent")));
        ck_assert_ptr_null(cJSON_GetObjectItem(j, "addressing_mode"));
        ck_assert_int_eq(cJSON_GetObjectItem(j, "numa_node")->valueint, 0);
        cJSON_Delete(j);
        xpu_inventory_free(inv);
}
END_TEST

/* A copy of the fixture with FILE (below the root) replaced by TEXT (NULL: removed), probed. */
static struct xpu_inventory *probe_edited(char **root, const char *file, const char *text) {
        *root = xpu_test_copy_host(HOST);
        if (text)
                xpu_test_write(*root, file, text);
        else {
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", *root, file);
                ck_assert_int_eq(unlink(path), 0);
        }
        return xpu_test_probe_backend(xpu_vendors[XPU_VENDOR_NVIDIA], *root);
}

START_TEST(test_pairing_declined) {
        static const struct {
                const char *file, *text;
                size_t warnings;
        } cases[] = {
                /* another architecture: coherent NVIDIA GPUs sit beside Grace CPUs only */
                { "proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.124.06  date\n", 0 },
                { "proc/driver/nvidia/version", "garbage\n", 1 }, /* (the fast path's own warning) */
                { "proc/driver/nvidia/version", NULL, 0 },
                /* the GPU's memory not onlined (nodes 1-8 empty): nothing to pair */
                { "sys/devices/system/node/has_memory", "0\n", 0 },
                /* two memory-only nodes for one GPU: no way to tell which */
                { "sys/devices/system/node/has_memory", "0-2\n", 0 },
                { "sys/devices/system/node/has_memory", "0-x\n", 1 },
                { "sys/devices/system/node/has_cpu", "0-99999\n", 1 },
                { "sys/devices/system/node/has_cpu", NULL, 0 },
                { "sys/devices/system/node/has_memory", NULL, 0 },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *root = NULL;
                struct xpu_inventory *inv = probe_edited(&root, cases[i].file, cases[i].text);
                ck_assert_uint_eq(inv->n_devices, 1);
                ck_assert_msg(!xpu_nvidia_facts(&inv->devices[0])->memory_numa_known, "case %zu: paired", i);
                ck_assert_str_eq(xpu_nvidia_facts(&inv->devices[0])->memory_coherent, "");
                ck_assert_msg(inv->n_warnings == cases[i].warnings, "case %zu: %zu warnings", i, inv->n_warnings);
                if (cases[i].warnings && strstr(cases[i].file, "/node/"))
                        ck_assert_msg(strstr(inv->warnings[0], cases[i].file) != NULL, "%s", inv->warnings[0]);
                xpu_inventory_free(inv);
                xpu_test_rm_rf(root);
                free(root);
        }
}
END_TEST

/* Two GH200 (domains 9 and 0x19, as in github.com/NVIDIA/dcgm-exporter/pull/570): the memory-only
 * nodes in ascending order go to the GPUs in bus order. */
START_TEST(test_pairing_two_gpus) {
        char *root = xpu_test_copy_host(HOST);
        xpu_test_write(root, "proc/driver/nvidia/gpus/0019:01:00.0/information",
                       "Model: \t\t NVIDIA GH200 480GB\nGPU UUID: \t GPU-5d0b7e61-2f48-4c3a-9e17-b8a4c6d2f903\n"
                       "Bus Location: \t 0019:01:00.0\nDevice Minor: \t 1\n");
        xpu_test_write(root, "sys/devices/system/node/has_cpu", "0-1\n");
        xpu_test_write(root, "sys/devices/system/node/has_memory", "0-2,10\n");
        struct xpu_inventory *inv = xpu_test_probe_backend(xpu_vendors[XPU_VENDOR_NVIDIA], root);
        ck_assert_uint_eq(inv->n_devices, 2);
        ck_assert_uint_eq(inv->n_warnings, 0);
        ck_assert_str_eq(inv->devices[0].pci_bus_id, BUS);
        ck_assert_uint_eq(xpu_nvidia_facts(&inv->devices[0])->memory_numa_node, 2);
        ck_assert_str_eq(inv->devices[1].pci_bus_id, "0019:01:00.0");
        ck_assert_uint_eq(xpu_nvidia_facts(&inv->devices[1])->memory_numa_node, 10);
        ck_assert_str_eq(xpu_nvidia_facts(&inv->devices[1])->memory_numa_label, "10");
        xpu_inventory_free(inv);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

static const char gh200_state[] = "driver_version " DRIVER "\n"
                                   "cuda_version 12080\n"
                                   "device_count 1\n"
                                   "device.0.name NVIDIA GH200 480GB\n"
                                   "device.0.uuid GPU-7c1e2d3a-9b4f-4e21-a6d8-3f5b0c9e7a12\n"
                                   "device.0.bus_id 00000009:01:00.0\n"
                                   "device.0.minor 0\n"
                                   "device.0.numa_node 1\n"
                                   "device.0.addressing_mode 2\n"
                                   "device.0.c2c_mode 1\n";

static struct xpu_nvml_result *read_state(const char *state) {
        char *root = nvml_make_root(DRIVER, state);
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        ck_assert_msg(nvml_read_root(root, DRIVER, 5000, &r, err, sizeof err) == 0, "%s", err);
        shim_drop_root(root);
        return r;
}

START_TEST(test_nvml_gh200) {
        struct xpu_nvml_result *r = read_state(gh200_state);
        const struct xpu_nvml_device *nd = &r->devices[0];
        ck_assert_uint_eq(nd->have & (XPU_NVML_HAVE_NUMA_NODE | XPU_NVML_HAVE_ADDRESSING_MODE | XPU_NVML_HAVE_C2C),
                          XPU_NVML_HAVE_NUMA_NODE | XPU_NVML_HAVE_ADDRESSING_MODE | XPU_NVML_HAVE_C2C);
        ck_assert_uint_eq(nd->numa_node, 1);
        ck_assert_str_eq(nd->addressing_mode, "ats");
        ck_assert(nd->c2c_enabled);
        cJSON *j = xpu_nvml_result_to_json(r);
        cJSON *d0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "devices"), 0);
        ck_assert_int_eq(cJSON_GetObjectItem(d0, "numa_node")->valueint, 1);
        ck_assert_str_eq(cJSON_GetObjectItem(d0, "addressing_mode")->valuestring, "ats");
        ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(d0, "c2c_enabled")));
        cJSON_Delete(j);
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        ck_assert_ptr_nonnull(f);
        xpu_nvml_result_print(r, f);
        fclose(f);
        ck_assert_msg(strstr(text, "  0 " BUS " GPU-7c1e2d3a-9b4f-4e21-a6d8-3f5b0c9e7a12 NVIDIA GH200 480GB memory on "
                                   "NUMA node 1 addressing ats C2C on\n"),
                      "%s", text);
        free(text);

        /* Merged into the fixture's inventory: NVML agrees with the sysfs pairing. */
        struct xpu_inventory *inv = xpu_test_probe_host(HOST);
        ck_assert_int_eq(xpu_nvml_merge(inv, r), 1);
        const struct xpu_device *d = shim_by_bus(inv, BUS);
        ck_assert_uint_eq(inv->n_warnings, 0);
        ck_assert_uint_eq(xpu_nvidia_facts(d)->memory_numa_node, 1);
        ck_assert_uint_eq(xpu_nvidia_facts(d)->memory_numa_source, XPU_SOURCE_SYSFS);
        ck_assert_str_eq(xpu_nvidia_facts(d)->addressing_mode, "ats");
        ck_assert_str_eq(xpu_nvidia_facts(d)->memory_coherent, "true");
        j = xpu_device_to_json(d);
        ck_assert_str_eq(cJSON_GetObjectItem(j, "addressing_mode")->valuestring, "ats");
        cJSON_Delete(j);
        xpu_inventory_free(inv);
        xpu_nvml_result_free(r);
}
END_TEST

/* NVML disagrees with sysfs: NVML asks the driver, so its node and coherence win, each with a
 * warning naming both. */
START_TEST(test_nvml_overrides_sysfs) {
        struct xpu_nvml_result *r = nvml_parse_ok("library /l\ndevice_count 1\ndevice.0.bus_id 0009:01:00.0\n"
                                                  "device.0.numa_node 9\ndevice.0.addressing_mode hmm\n"
                                                  "device.0.c2c_mode 0\nend\n");
        struct xpu_inventory *inv = xpu_test_probe_host(HOST);
        ck_assert_int_eq(xpu_nvml_merge(inv, r), 1);
        const struct xpu_device *d = shim_by_bus(inv, BUS);
        ck_assert_uint_eq(xpu_nvidia_facts(d)->memory_numa_node, 9);
        ck_assert_uint_eq(xpu_nvidia_facts(d)->memory_numa_source, XPU_SOURCE_NVML);
        ck_assert_str_eq(xpu_nvidia_facts(d)->memory_numa_label, "9");
        ck_assert_str_eq(xpu_nvidia_facts(d)->memory_coherent, "false");
        ck_assert_str_eq(xpu_nvidia_facts(d)->addressing_mode, "hmm");
        ck_assert_uint_eq(inv->n_warnings, 2);
        ck_assert_str_eq(inv->warnings[0],
                         BUS ": nvml reports memory NUMA node 9 but the sysfs pairing gave 1; keeping nvml's");
        ck_assert_str_eq(inv->warnings[1],
                         BUS ": nvml reports memory coherent \"false\" but sysfs has \"true\"; keeping nvml's");
        xpu_inventory_free(inv);
        xpu_nvml_result_free(r);
}
END_TEST

/* What NVML answers the helper leaves out when it is out of range, and NOT_SUPPORTED (a PCIe GPU
 * on x86-64) leaves no line; the parent's parser refuses such values on the wire. */
START_TEST(test_nvml_hostile) {
        struct xpu_nvml_result *r = read_state("driver_version " DRIVER "\ndevice_count 4\n"
                                               "device.0.uuid GPU-0\ndevice.0.name A\ndevice.0.bus_id 0009:01:00.0\n"
                                               "device.0.numa_node 4096\ndevice.0.addressing_mode 3\n"
                                               "device.0.c2c_mode 2\n"
                                               "device.1.uuid GPU-1\ndevice.1.name B\ndevice.1.bus_id 0019:01:00.0\n"
                                               "device.1.numa_node -1\ndevice.1.addressing_mode -1\n"
                                               "device.1.c2c_mode -1\n"
                                               "device.2.uuid GPU-2\ndevice.2.name C\ndevice.2.bus_id 0029:01:00.0\n"
                                               "device.3.uuid GPU-3\ndevice.3.name D\ndevice.3.bus_id 0039:01:00.0\n"
                                               "device.3.numa_node 4095\ndevice.3.addressing_mode 0\n"
                                               "device.3.c2c_mode 0\n");
        const uint32_t bits = XPU_NVML_HAVE_NUMA_NODE | XPU_NVML_HAVE_ADDRESSING_MODE | XPU_NVML_HAVE_C2C;
        for (size_t i = 0; i < 3; i++)
                ck_assert_msg((r->devices[i].have & bits) == 0, "device %zu: %x", i, r->devices[i].have & bits);
        ck_assert_uint_eq(r->devices[3].have & bits, bits);
        ck_assert_uint_eq(r->devices[3].numa_node, 4095);
        ck_assert_str_eq(r->devices[3].addressing_mode, "none");
        ck_assert(!r->devices[3].c2c_enabled);
        xpu_nvml_result_free(r);

        static const char *const bad[] = {
                "device.0.numa_node 4096\n", "device.0.numa_node -1\n", "device.0.numa_node 01\n",
                "device.0.numa_node 1\ndevice.0.numa_node 1\n", "device.0.addressing_mode ATS\n",
                "device.0.addressing_mode 2\n", "device.0.addressing_mode ats\ndevice.0.addressing_mode ats\n",
                "device.0.c2c_mode 2\n", "device.0.c2c_mode yes\n", "device.0.c2c_mode 1\ndevice.0.c2c_mode 0\n", NULL,
        };
        for (size_t i = 0; bad[i]; i++) {
                char text[512];
                snprintf(text, sizeof text, "library /l\ndevice_count 1\ndevice.0.bus_id 0009:01:00.0\n%send\n", bad[i]);
                r = NULL;
                ck_assert_msg(xpu_nvml_parse_reply(text, &r, NULL, 0) == -EBADMSG, "taken: %s", bad[i]);
                ck_assert_ptr_null(r);
        }
}
END_TEST

/* NVML alone (no sysfs pairing: an x86-64 version line) gives the node and coherence. */
START_TEST(test_nvml_only) {
        char *root = xpu_test_copy_host(HOST);
        xpu_test_write(root, "proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.124.06\n");
        struct xpu_inventory *inv = xpu_test_probe_backend(xpu_vendors[XPU_VENDOR_NVIDIA], root);
        ck_assert(!xpu_nvidia_facts(&inv->devices[0])->memory_numa_known);
        struct xpu_nvml_result *r = nvml_parse_ok("library /l\ndevice_count 1\ndevice.0.bus_id 0009:01:00.0\n"
                                                  "device.0.numa_node 1\ndevice.0.c2c_mode 1\nend\n");
        ck_assert_int_eq(xpu_nvml_merge(inv, r), 1);
        ck_assert_uint_eq(inv->n_warnings, 0);
        ck_assert_uint_eq(xpu_nvidia_facts(&inv->devices[0])->memory_numa_node, 1);
        ck_assert_uint_eq(xpu_nvidia_facts(&inv->devices[0])->memory_numa_source, XPU_SOURCE_NVML);
        ck_assert_str_eq(xpu_nvidia_facts(&inv->devices[0])->memory_coherent, "true");
        ck_assert_str_eq(xpu_nvidia_facts(&inv->devices[0])->addressing_mode, "");
        cJSON *j = xpu_device_to_json(&inv->devices[0]);
        ck_assert_str_eq(cJSON_GetObjectItem(j, "memory_numa_node_source")->valuestring, "nvml");
        cJSON_Delete(j);
        xpu_nvml_result_free(r);
        xpu_inventory_free(inv);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

static Suite *numa_suite(void) {
        Suite *s = suite_create("nvidia-numa");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 20);
        tcase_add_test(tc, test_parse_node_list);
        tcase_add_test(tc, test_parse_version_arch);
        tcase_add_test(tc, test_fixture);
        tcase_add_test(tc, test_pairing_declined);
        tcase_add_test(tc, test_pairing_two_gpus);
        tcase_add_test(tc, test_nvml_gh200);
        tcase_add_test(tc, test_nvml_overrides_sysfs);
        tcase_add_test(tc, test_nvml_hostile);
        tcase_add_test(tc, test_nvml_only);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(numa_suite());
}
