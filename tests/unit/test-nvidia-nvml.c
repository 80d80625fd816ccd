/* SPDX-License-Identifier: Apache-2.0 */
/* probes/nvidia-nvml: the isolated NVML reader and its merge into the fast-path inventory.
 * The library is the fake NVML shim ($XPU_BUILD/tests/shims/libnvidia-ml.so.shim) installed in a
 * temporary driver root; its state file lies beside it (the helper's environment has no
 * XPU_FAKE_STATE, see tests/shims/state.h). */
#include <cJSON.h>

#include "rich.h"
#include "nvidia/nvidia-facts.h"
#include "shim-root.h"

#define HOST "nvidia-rtx2080ti-x8"
#define DRIVER "465.19.01"

/* Two of the host's GPUs, listed in NVML in the opposite order of the bus, plus one the fast path
 * does not know. */
static const char two_devices[] =
        "driver_version " DRIVER "\n"
        "cuda_version 11030\n"
        "device_count 3\n"
        "device.0.name NVIDIA GeForce RTX 2080 Ti\n"
        "device.0.uuid GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe\n"
        "device.0.bus_id 00000000:1B:00.0\n"
        "device.0.minor 1\n"
        "device.0.memory_total 11554717696\n"
        "device.0.cc 7.5\n"
        "device.0.brand GeForce\n"
        "device.1.name NVIDIA GeForce RTX 2080 Ti\n"
        "device.1.uuid GPU-307dcc96-618a-4416-c1ef-87823c2e1a31\n"
        "device.1.bus_id 00000000:1A:00.0\n"
        "device.1.minor 0\n"
        "device.1.memory_total 11811160064\n"
        "device.1.cc 7.6\n"
        "device.2.name Stray\n"
        "device.2.uuid GPU-00000000-0000-0000-0000-000000000099\n"
        "device.2.bus_id 00000000:FF:00.0\n";

START_TEST(test_read_and_merge) {
        char *root = nvml_make_root(DRIVER, two_devices);
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        ck_assert_int_eq(nvml_read_root(root, DRIVER, 5000, &r, err, sizeof err), 0);
        ck_assert_str_eq(err, "");
        ck_assert_str_eq(r->driver_version, DRIVER);
        ck_assert_str_eq(r->cuda_driver_version, "11.3");
        ck_assert_uint_eq(r->n, 3);
        ck_assert_str_eq(r->devices[0].uuid, "GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe");
        ck_assert_str_eq(r->devices[0].pci_bus_id, "0000:1b:00.0");
        ck_assert_str_eq(r->devices[0].name, "NVIDIA GeForce RTX 2080 Ti");
        ck_assert_str_eq(r->devices[0].brand, "geforce");
        ck_assert_str_eq(r->devices[0].compute_capability, "7.5");
        ck_assert_uint_eq(r->devices[0].minor, 1);
        ck_assert_uint_eq(r->devices[0].memory_total_bytes, 11554717696ull);
        ck_assert_uint_eq(r->devices[0].have, XPU_NVML_HAVE_MINOR | XPU_NVML_HAVE_PCI | XPU_NVML_HAVE_MEMORY_TOTAL |
                                                      XPU_NVML_HAVE_MEMORY_USED | XPU_NVML_HAVE_COMPUTE_CAPABILITY |
                                                      XPU_NVML_HAVE_BRAND);
        ck_assert_uint_eq(r->devices[0].memory_used_bytes, 0);
        ck_assert(!r->devices[0].lost);
        ck_assert_str_eq(r->devices[1].pci_bus_id, "0000:1a:00.0");
        ck_assert_uint_eq(r->devices[1].have & XPU_NVML_HAVE_BRAND, 0);
        ck_assert_uint_eq(r->devices[2].have, XPU_NVML_HAVE_PCI);

        struct xpu_inventory *inv = xpu_test_probe_host(HOST);
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].driver_version, DRIVER);
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version, "");
        ck_assert_uint_eq(shim_by_bus(inv, "0000:1a:00.0")->have & XPU_HAVE_MEMORY_TOTAL, 0);
        size_t warnings = inv->n_warnings;

        ck_assert_int_eq(xpu_nvml_merge(inv, r), 2);
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version, "11.3");
        const struct xpu_device *d0 = shim_by_bus(inv, "0000:1a:00.0"), *d1 = shim_by_bus(inv, "0000:1b:00.0"),
                                *d2 = shim_by_bus(inv, "0000:60:00.0");
        ck_assert_str_eq(d0->uuid, "GPU-307dcc96-618a-4416-c1ef-87823c2e1a31");
        ck_assert_uint_eq(d0->memory_total_bytes, 11811160064ull);
        ck_assert_uint_ne(d0->have & XPU_HAVE_MEMORY_TOTAL, 0);
        ck_assert_str_eq(xpu_nvidia_facts(d0)->compute_capability, "7.6");
        ck_assert_str_eq(d1->uuid, "GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe");
        ck_assert_uint_eq(d1->memory_total_bytes, 11554717696ull);
        ck_assert_str_eq(xpu_nvidia_facts(d1)->compute_capability, "7.5");
        ck_assert_str_eq(d1->name, "NVIDIA GeForce RTX 2080 Ti");
        ck_assert_uint_eq(d2->have & XPU_HAVE_MEMORY_TOTAL, 0);
        ck_assert_str_eq(xpu_nvidia_facts(d2)->compute_capability, "");
        ck_assert_uint_eq(inv->n_devices, 8);
        ck_assert_uint_eq(inv->n_warnings, warnings + 1);
        ck_assert_msg(strstr(inv->warnings[warnings], "0000:ff:00.0") != NULL, "%s", inv->warnings[warnings]);
        ck_assert_msg(strstr(inv->warnings[warnings], "GPU-00000000-0000-0000-0000-000000000099") != NULL, "%s",
                      inv->warnings[warnings]);

        xpu_inventory_free(inv);
        xpu_nvml_result_free(r);
        shim_drop_root(root);
}
END_TEST

START_TEST(test_version_mismatch_before_init) {
        /* nvmlInit would abort: a mismatch must be reported without calling it. */
        char *root = nvml_make_root(DRIVER, "abort.nvmlInit_v2 1\nhang.nvmlShutdown 1\ndevice_count 0\n");
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        ck_assert_int_eq(nvml_read_root(root, "470.57.02", 5000, &r, err, sizeof err), -EPROTO);
        ck_assert_ptr_null(r);
        ck_assert_str_eq(err, "driver/library version mismatch: kernel module 470.57.02, libnvidia-ml.so." DRIVER);
        /* The same root with the matching version does reach nvmlInit. */
        ck_assert_int_eq(nvml_read_root(root, DRIVER, 5000, &r, err, sizeof err), -ECONNABORTED);
        ck_assert_str_eq(err, "NVML helper killed by signal 6 (Aborted)");
        shim_drop_root(root);
}
END_TEST

START_TEST(test_timeout) {
        char *root = nvml_make_root(DRIVER, "hang.nvmlInit_v2 1\ndriver_version " DRIVER "\ndevice_count 0\n");
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        long long t0 = shim_now_ms();
        ck_assert_int_eq(nvml_read_root(root, DRIVER, 300, &r, err, sizeof err), -ETIMEDOUT);
        long long took = shim_now_ms() - t0;
        ck_assert_msg(took >= 250 && took < 1300, "took %lld ms", took);
        ck_assert_str_eq(err, "NVML helper timed out after 300 ms");
        ck_assert_ptr_null(r);
        ck_assert_int_eq(shim_count_children(), 0);
        shim_drop_root(root);
}
END_TEST

START_TEST(test_abort) {
        char *root = nvml_make_root(DRIVER, "abort.nvmlDeviceGetCount_v2 1\ndriver_version " DRIVER "\ndevice_count 1\n");
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        ck_assert_int_eq(nvml_read_root(root, DRIVER, 5000, &r, err, sizeof err), -ECONNABORTED);
        ck_assert_str_eq(err, "NVML helper killed by signal 6 (Aborted)");
        ck_assert_ptr_null(r);
        ck_assert_int_eq(shim_count_children(), 0);
        shim_drop_root(root);
}
END_TEST

START_TEST(test_nvml_error_code) {
        char *root = nvml_make_root(DRIVER, "error.nvmlInit_v2 15\ndriver_version " DRIVER "\ndevice_count 1\n");
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        ck_assert_int_eq(nvml_read_root(root, DRIVER, 5000, &r, err, sizeof err), -EIO);
        ck_assert_str_eq(err, "nvmlInit_v2 failed: GPU is lost (error 15)");
        shim_drop_root(root);

        /* A required device call failing (other than GPU_IS_LOST) names the call and the device. */
        root = nvml_make_root(DRIVER, "driver_version " DRIVER "\ndevice_count 2\ndevice.0.uuid GPU-a\ndevice.0.name A\n"
                                 "device.1.uuid GPU-b\ndevice.1.name B\nerror.nvmlDeviceGetUUID.1 999\n");
        ck_assert_int_eq(nvml_read_root(root, DRIVER, 5000, &r, err, sizeof err), -EIO);
        ck_assert_str_eq(err, "nvmlDeviceGetUUID(1) failed: Unknown Error (error 999)");
        ck_assert_ptr_null(r);
        shim_drop_root(root);

        /* A lost GPU does not fail the read: it is marked lost, from its handle on. */
        root = nvml_make_root(DRIVER, "driver_version " DRIVER "\ndevice_count 2\ndevice.0.uuid GPU-a\ndevice.0.name A\n"
                                 "device.1.uuid GPU-b\ndevice.1.lost 1\n");
        ck_assert_int_eq(nvml_read_root(root, DRIVER, 5000, &r, err, sizeof err), 0);
        ck_assert_uint_eq(r->n, 2);
        ck_assert(!r->devices[0].lost);
        ck_assert_str_eq(r->devices[0].uuid, "GPU-a");
        ck_assert(r->devices[1].lost);
        ck_assert_str_eq(r->devices[1].lost_reason, "nvmlDeviceGetHandleByIndex_v2 failed: GPU is lost (error 15)");
        ck_assert_str_eq(r->devices[1].uuid, "");
        ck_assert_uint_eq(r->devices[1].have, 0);
        r = xpu_nvml_result_free(r);
        shim_drop_root(root);

        /* No state file: the fake's "driver not loaded". */
        root = nvml_make_root(DRIVER, "");
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s/xpu-fake-state", root, SHIM_LIBDIR);
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(nvml_read_root(root, DRIVER, 5000, &r, err, sizeof err), -ENODEV);
        ck_assert_str_eq(err, "nvmlInit_v2 failed: Driver Not Loaded (error 9)");
        ck_assert_ptr_null(r);
        shim_drop_root(root);
}
END_TEST

START_TEST(test_library_missing) {
        char *root = xpu_test_mkdtemp();
        ck_assert_int_eq(chmod(root, 0755), 0);
        struct xpu_nvml_result *r = NULL;
        char err[512] = "";
        ck_assert_int_eq(nvml_read_root(root, DRIVER, 5000, &r, err, sizeof err), -ENOENT);
        ck_assert_msg(strncmp(err, "not available: libnvidia-ml.so.1 not found in ", 46) == 0, "%s", err);
        ck_assert_ptr_null(r);
        shim_drop_root(root);
}
END_TEST

/* Hyper-V domains wider than 16 bits: NVML's busId ("%08X") comes out canonical, and the
 * nvidia-hyperv-t4x2 host's devices (procfs spells the domain "3f8cfdd") are matched by number. */
START_TEST(test_hyperv_bus_ids) {
        char *root = nvml_make_root("535.54.03", "driver_version 535.54.03\ndevice_count 3\n"
                                                 "device.0.name Tesla T4\ndevice.0.uuid GPU-7c0d1e2f-3a4b-4c5d-9e6f-a1b2c3d4e5f6\n"
                                                 "device.0.bus_id 3E3F8E05:00:00.0\ndevice.0.minor 1\n"
                                                 "device.1.name Tesla T4\ndevice.1.uuid GPU-3a9e6b5c-1d2e-4f70-8a91-b2c3d4e5f601\n"
                                                 "device.1.bus_id 03F8CFDD:00:00.0\ndevice.1.minor 0\n"
                                                 "device.2.name Stray\ndevice.2.uuid GPU-00000000-0000-0000-0000-000000000077\n"
                                                 "device.2.bus_id 001A2B3C:00:00.0\n");
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        ck_assert_msg(nvml_read_root(root, "535.54.03", 5000, &r, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(r->n, 3);
        ck_assert_str_eq(r->devices[0].pci_bus_id, "3e3f8e05:00:00.0");
        ck_assert_str_eq(r->devices[1].pci_bus_id, "03f8cfdd:00:00.0");
        ck_assert_str_eq(r->devices[2].pci_bus_id, "001a2b3c:00:00.0");
        struct xpu_inventory *inv = xpu_test_probe_host("nvidia-hyperv-t4x2");
        size_t warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_nvml_merge(inv, r), 2);
        ck_assert_uint_eq(inv->n_warnings, warnings + 1); /* the stray at 001a2b3c:00:00.0 */
        ck_assert_ptr_nonnull(strstr(inv->warnings[warnings], "001a2b3c:00:00.0"));
        ck_assert_str_eq(inv->devices[0].pci_bus_id, "03f8cfdd:00:00.0");
        ck_assert_uint_eq(xpu_nvidia_facts(&inv->devices[0])->minor, 0);
        xpu_inventory_free(inv);
        xpu_nvml_result_free(r);
        shim_drop_root(root);
}
END_TEST

START_TEST(test_environment_not_passed) {
        char *root = nvml_make_root(DRIVER, "driver_version " DRIVER "\ndevice_count 2\n"
                                       "device.0.uuid GPU-a\ndevice.0.name_from_env LD_PRELOAD\n"
                                       "device.1.uuid GPU-b\ndevice.1.name_from_env PATH\n");
        ck_assert_int_eq(setenv("LD_PRELOAD", "/nonexistent/libpreload.so", 1), 0);
        unsetenv("XPU_FAKE_STATE");
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        ck_assert_int_eq(nvml_read_root(root, DRIVER, 5000, &r, err, sizeof err), 0);
        ck_assert_uint_eq(r->n, 2);
        ck_assert_str_eq(r->devices[0].name, "(unset)");
        ck_assert_str_eq(r->devices[1].name, "/usr/bin:/bin");
        ck_assert_str_eq(r->cuda_driver_version, "");
        ck_assert_uint_eq(r->devices[0].have, 0);
        xpu_nvml_result_free(r);
        shim_drop_root(root);
}
END_TEST

/* No kernel-module version (no /proc/driver/nvidia/version, or garbage in it): nothing is loaded,
 * not even a plain libnvidia-ml.so.1 (docs/xpuinit.md promises the library's file name always
 * carries the module's version). The fake would answer, and abort at nvmlInit, if it were loaded. */
START_TEST(test_version_unknown_refused) {
        static const char want[] = "not loading libnvidia-ml.so.1: the NVIDIA kernel module's version is unknown (no "
                                   "readable /proc/driver/nvidia/version), so the library cannot be checked against it";
        static const char *const versions[] = { "", "garbage", "465", "465.19.01\n", "465..19", NULL };
        char *root = nvml_make_root(DRIVER, "abort.nvmlInit_v2 1\ndriver_version " DRIVER "\ndevice_count 0\n");
        for (size_t i = 0; i < ELEMENTSOF(versions); i++) {
                struct xpu_nvml_result *r = NULL;
                char err[512] = "";
                ck_assert_msg(nvml_read_root(root, versions[i], 5000, &r, err, sizeof err) == -ENODATA, "case %zu: %s", i,
                              err);
                ck_assert_str_eq(err, want);
                ck_assert_ptr_null(r);
        }
        /* Through the rich-path backend: the inventory's (empty) driver version. */
        struct xpu_roots roots;
        ck_assert_int_eq(xpu_roots_open(&roots, root, root, root, NULL), 0);
        struct xpu_inventory *inv = xpu_test_probe_host(HOST);
        inv->vendors[XPU_VENDOR_NVIDIA].driver_version[0] = '\0';
        void *result = NULL;
        char err[512] = "";
        ck_assert_int_eq(xpu_rich_nvml.read(&roots, inv, 5000, &result, err, sizeof err), -ENODATA);
        ck_assert_str_eq(err, want);
        ck_assert_ptr_null(result);
        ck_assert_int_eq(shim_count_children(), 0);
        xpu_inventory_free(inv);
        xpu_roots_close(&roots);
        shim_drop_root(root);
}
END_TEST

/* What NVML answers oddly costs that value, not the read: a name filling the whole buffer without
 * a NUL, an empty name, a name longer than the field, a UUID longer than its field, a busId that
 * is empty or has a 9-digit domain. Every device is still read. */
START_TEST(test_helper_cleans_values) {
        char *root = nvml_make_root(DRIVER, "driver_version " DRIVER "\ndevice_count 6\n"
                                            "device.0.uuid GPU-0\ndevice.0.name_fill A\ndevice.0.bus_id 0000:1A:00.0\n"
                                            "device.1.uuid GPU-1\ndevice.1.name \ndevice.1.bus_id 0000:1B:00.0\n"
                                            "device.2.uuid GPU-2\ndevice.2.name  Long  "
                                            "Name 678901234567890123456789012345678901234567890123456789012345678901234"
                                            "5678901234567890123456789012345678901234567890123456789012345678901234567890"
                                            "\ndevice.2.bus_id 0000:60:00.0\n"
                                            "device.3.uuid GPU-0123456789012345678901234567890123456789012345678901234567890123"
                                            "\ndevice.3.name D\ndevice.3.bus_id 0000:61:00.0\n"
                                            "device.4.uuid GPU-4\ndevice.4.name E\ndevice.4.bus_id 0000:B1:00.0\n"
                                            "device.4.bus_id_text -\ndevice.4.minor 4\n"
                                            "device.5.uuid GPU-5\ndevice.5.name F\ndevice.5.bus_id 0000:B2:00.0\n"
                                            "device.5.bus_id_text 000000000:B2:00.0\ndevice.5.minor 5\n");
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        ck_assert_msg(nvml_read_root(root, DRIVER, 5000, &r, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(r->n, 6);
        char a127[128];
        memset(a127, 'A', 127);
        a127[127] = '\0';
        ck_assert_str_eq(r->devices[0].name, a127);
        ck_assert_str_eq(r->devices[0].pci_bus_id, "0000:1a:00.0");
        ck_assert_str_eq(r->devices[1].name, "");
        ck_assert_str_eq(r->devices[1].uuid, "GPU-1");
        ck_assert_uint_eq(strlen(r->devices[2].name), 127);
        ck_assert_msg(strncmp(r->devices[2].name, "Long  Name 6789", 15) == 0, "%s", r->devices[2].name);
        ck_assert_str_eq(r->devices[3].uuid, "");
        ck_assert_str_eq(r->devices[3].name, "D");
        for (size_t i = 4; i < 6; i++) {
                ck_assert_uint_eq(r->devices[i].have & XPU_NVML_HAVE_PCI, 0);
                ck_assert_str_eq(r->devices[i].pci_bus_id, "");
                ck_assert_uint_eq(r->devices[i].minor, i);
        }
        xpu_nvml_result_free(r);
        shim_drop_root(root);
}
END_TEST

/* More GPUs than the reply holds: the first XPU_NVML_DEVICES_MAX are read and the total is said. */
START_TEST(test_devices_total) {
        size_t size = 64 * 160 + 256, len = 0;
        char *state = malloc(size);
        ck_assert_ptr_nonnull(state);
        len += (size_t)snprintf(state, size, "driver_version " DRIVER "\ndevice_count 70\n");
        for (unsigned i = 0; i < 64; i++)
                len += (size_t)snprintf(state + len, size - len, "device.%u.uuid GPU-%u\ndevice.%u.name G%u\n", i, i, i, i);
        ck_assert_uint_lt(len, size);
        char *root = nvml_make_root(DRIVER, state);
        free(state);
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        ck_assert_msg(nvml_read_root(root, DRIVER, 10000, &r, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(r->n, XPU_NVML_DEVICES_MAX);
        ck_assert_uint_eq(r->total, 70);
        ck_assert_str_eq(r->devices[63].uuid, "GPU-63");

        struct xpu_inventory *inv = xpu_test_probe_host(HOST);
        size_t warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_nvml_merge(inv, r), 0);
        ck_assert_msg(inv->n_warnings > warnings, "no warning");
        ck_assert_str_eq(inv->warnings[warnings], "nvml: 70 devices, only the first 64 read");
        cJSON *j = xpu_rich_nvml.to_json(r);
        ck_assert_ptr_nonnull(j);
        ck_assert_int_eq((int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "devices_total")), 70);
        cJSON_Delete(j);
        xpu_inventory_free(inv);
        xpu_nvml_result_free(r);
        shim_drop_root(root);
}
END_TEST

/* The parent's parser of the helper's reply. */
START_TEST(test_parse_reply) {
#define LIB "library /usr/lib/libnvidia-ml.so.1.2\n"
        static const struct {
                const char *text;
                int ret;
                const char *err;
        } cases[] = {
                { LIB "driver_version 1.2\ndevice_count 0\nend\n", 0, "" },
                { LIB "driver_version 1.2\ndevice_count 0\n", -EBADMSG, "garbage from the NVML helper: line 4" },
                { LIB "driver_version 1.2\ndevice_count 0\nend", -EBADMSG, "garbage from the NVML helper: line 4" },
                { LIB "driver_version 1.2\ndevice.0.uuid x\n", -EBADMSG, "garbage from the NVML helper: line 3" },
                { LIB "driver_version 1.2\ndevice_count 1\ndevice.1.uuid x\nend\n", -EBADMSG,
                  "garbage from the NVML helper: line 4" },
                { LIB "driver_version 1.2\ndevice_count 1\ndevice.0.uuid x\ndevice.0.bus_id zz\nend\n", -EBADMSG,
                  "garbage from the NVML helper: line 5" },
                { LIB "driver_version 1.2\ndevice_count 1\ndevice.0.uuid x\ndevice.0.cc 7\nend\n", -EBADMSG,
                  "garbage from the NVML helper: line 5" },
                { LIB "driver_version 1.2\ndevice_count 65\nend\n", -EBADMSG, "garbage from the NVML helper: line 3" },
                { LIB "driver_version 1.2\ndevice_count 0\nend\nmore 1\n", -EBADMSG,
                  "garbage from the NVML helper: line 5" },
                { LIB "driver_version 1.2\nbogus 1\n", -EBADMSG, "garbage from the NVML helper: line 3" },
                { LIB "driver_version \x01\n", -EBADMSG, "garbage from the NVML helper: line 2" },
                /* The library line: once, an absolute path that fits, required. */
                { "driver_version 1.2\ndevice_count 0\nend\n", -EBADMSG, "garbage from the NVML helper: no library" },
                { LIB LIB "device_count 0\nend\n", -EBADMSG, "garbage from the NVML helper: line 2" },
                { "library l\ndevice_count 0\nend\n", -EBADMSG, "garbage from the NVML helper: line 1" },
                { LIB "end\n", -EBADMSG, "garbage from the NVML helper: no device_count" },
                /* devices_total: only after a full device_count, above it, once. */
                { LIB "device_count 63\ndevices_total 70\nend\n", -EBADMSG, "garbage from the NVML helper: line 3" },
                { LIB "device_count 64\ndevices_total 64\nend\n", -EBADMSG, "garbage from the NVML helper: line 3" },
                { LIB "devices_total 70\ndevice_count 64\nend\n", -EBADMSG, "garbage from the NVML helper: line 2" },
                { LIB "device_count 64\ndevices_total 70\ndevices_total 70\nend\n", -EBADMSG,
                  "garbage from the NVML helper: line 4" },
                /* A name longer than the field is garbage: the helper cuts it first. */
                { LIB "device_count 1\ndevice.0.name "
                      "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456"
                      "789012345678901234567890123456789\nend\n",
                  -EBADMSG, "garbage from the NVML helper: line 3" },
                { "error -5 nvmlInit_v2 failed: x\n", -5, "nvmlInit_v2 failed: x" },
                { "error 5 nope\n", -EBADMSG, "garbage from the NVML helper: line 1" },
                { "", -EBADMSG, "garbage from the NVML helper: line 1" },
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                struct xpu_nvml_result *r = NULL;
                char err[256] = "";
                ck_assert_msg(xpu_nvml_parse_reply(cases[i].text, &r, err, sizeof err) == cases[i].ret, "case %zu: %s",
                              i, err);
                ck_assert_str_eq(err, cases[i].err);
                ck_assert_int_eq(r != NULL, cases[i].ret == 0);
                xpu_nvml_result_free(r);
        }
        struct xpu_nvml_result *r = NULL;
        ck_assert_int_eq(xpu_nvml_parse_reply(LIB "driver_version 535.54.03\ncuda_driver_version 12020\ndevice_count 1\n"
                                              "device.0.uuid GPU-x\ndevice.0.name N\ndevice.0.bus_id 0000:3B:00.0\n"
                                              "device.0.memory_total 85899345920\nend\n",
                                              &r, NULL, 0),
                         0);
        ck_assert_str_eq(r->library, "/usr/lib/libnvidia-ml.so.1.2");
        ck_assert_str_eq(r->cuda_driver_version, "12.2");
        ck_assert_str_eq(r->devices[0].pci_bus_id, "0000:3b:00.0");
        ck_assert_uint_eq(r->devices[0].memory_total_bytes, 85899345920ull);
        ck_assert_uint_eq(r->total, 1);
        r = xpu_nvml_result_free(r);
        /* Devices without uuid or name (the helper leaves out empty ones), no driver version. */
        ck_assert_int_eq(xpu_nvml_parse_reply(LIB "device_count 2\ndevice.0.bus_id 0000:3b:00.0\n"
                                              "device.1.name B\ndevices_total 70\nend\n",
                                              &r, NULL, 0),
                         -EBADMSG); /* devices_total only right after a full count */
        ck_assert_int_eq(xpu_nvml_parse_reply(LIB "device_count 2\ndevice.0.bus_id 0000:3b:00.0\ndevice.1.name B\nend\n",
                                              &r, NULL, 0),
                         0);
        ck_assert_str_eq(r->driver_version, "");
        ck_assert_str_eq(r->devices[0].uuid, "");
        ck_assert_str_eq(r->devices[0].name, "");
        ck_assert_str_eq(r->devices[1].name, "B");
        xpu_nvml_result_free(r);
#undef LIB
}
END_TEST

static Suite *nvml_suite(void) {
        Suite *s = suite_create("nvidia-nvml");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 20);
        tcase_add_test(tc, test_read_and_merge);
        tcase_add_test(tc, test_version_mismatch_before_init);
        tcase_add_test(tc, test_timeout);
        tcase_add_test(tc, test_abort);
        tcase_add_test(tc, test_nvml_error_code);
        tcase_add_test(tc, test_library_missing);
        tcase_add_test(tc, test_environment_not_passed);
        tcase_add_test(tc, test_hyperv_bus_ids);
        tcase_add_test(tc, test_parse_reply);
        tcase_add_test(tc, test_version_unknown_refused);
        tcase_add_test(tc, test_helper_cleans_values);
        tcase_add_test(tc, test_devices_total);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(nvml_suite());
}
