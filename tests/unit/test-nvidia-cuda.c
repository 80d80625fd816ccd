/* SPDX-License-Identifier: Apache-2.0 */
/* probes/nvidia-cuda: the isolated CUDA driver API reader, its merge into the fast-path inventory
 * (by PCI bus id, after NVML) and its rich-path backend. The library is the fake libcuda
 * ($XPU_BUILD/tests/shims/libcuda.so.shim; state keys at the top of tests/shims/fake-cuda.c)
 * installed in a temporary driver root beside its state file (the helper's environment has no
 * XPU_FAKE_STATE, see tests/shims/state.h); some tests add the fake NVML to the same root. */
#include <cJSON.h>

#include "base/path.h"
#include "nvidia/nvidia-facts.h"
#include "rich.h"
#include "shim-root.h"

#define HOST "nvidia-rtx2080ti-x8"
#define DRIVER "465.19.01"
#define UUID_1A "GPU-307dcc96-618a-4416-c1ef-87823c2e1a31" /* the fixture's procfs UUIDs */
#define UUID_1B "GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe"

/* A driver root (readable by the helper's nobody:nogroup) with the fake libcuda as
 * libcuda.so.<VERSION> (+ libcuda.so.1), the fake NVML too when WITH_NVML, and STATE. */
static char *make_root(const char *version, const char *state, bool with_nvml) {
        char *root = shim_root_new();
        shim_write_state(root, state);
        shim_install(root, "libcuda.so.shim", "libcuda.so", version);
        if (with_nvml)
                shim_install(root, "libnvidia-ml.so.shim", "libnvidia-ml.so", version);
        return root;
}

/* Three state devices in bus order 1a, 1b, ff (ff unknown to the fast path); libcuda enumerates
 * them FASTEST_FIRST as ordinals 0 = 1b, 1 = ff, 2 = 1a. The stray's UUID is in upper case:
 * libcuda hands out bytes, the reader writes them in lower case as nvidia-smi does. */
static const char three_devices[] =
        "driver_version " DRIVER "\n"
        "cuda_version 12020\n"
        "device_count 3\n"
        "cuda_order 1,2,0\n"
        "device.0.name NVIDIA GeForce RTX 2080 Ti\n"
        "device.0.uuid " UUID_1A "\n"
        "device.0.bus_id 00000000:1A:00.0\n"
        "device.0.cc 7.5\n"
        "device.0.memory_total 11554717696\n"
        "device.1.name NVIDIA GeForce RTX 2080 Ti\n"
        "device.1.uuid " UUID_1B "\n"
        "device.1.bus_id 00000000:1B:00.0\n"
        "device.1.cc 7.5\n"
        "device.1.memory_total 11811160064\n"
        "device.2.name Stray\n"
        "device.2.uuid GPU-ABCDEF00-0000-0000-0000-000000000099\n"
        "device.2.bus_id 0000:FF:1F.0\n"
        "device.2.cc 8.0\n";

START_TEST(test_read_fastest_first_and_merge) {
        char *root = make_root(DRIVER, three_devices, false);
        struct xpu_cuda_result *r = NULL;
        char err[256] = "";
        ck_assert_msg(cuda_read_root(root, DRIVER, 5000, &r, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(err, "");
        ck_assert_str_eq(r->cuda_driver_version, "12.2");
        ck_assert_uint_eq(r->n, 3);
        /* Ordinal 0 is the second GPU on the bus. */
        ck_assert_str_eq(r->devices[0].pci_bus_id, "0000:1b:00.0");
        ck_assert_str_eq(r->devices[0].uuid, UUID_1B);
        ck_assert_str_eq(r->devices[0].name, "NVIDIA GeForce RTX 2080 Ti");
        ck_assert_str_eq(r->devices[0].compute_capability, "7.5");
        ck_assert_uint_eq(r->devices[0].memory_total_bytes, 11811160064ull);
        ck_assert_uint_eq(r->devices[0].have, XPU_CUDA_HAVE_UUID | XPU_CUDA_HAVE_PCI | XPU_CUDA_HAVE_MEMORY_TOTAL |
                                                      XPU_CUDA_HAVE_COMPUTE_CAPABILITY);
        ck_assert_str_eq(r->devices[1].pci_bus_id, "0000:ff:1f.0");
        ck_assert_str_eq(r->devices[1].uuid, "GPU-abcdef00-0000-0000-0000-000000000099");
        ck_assert_str_eq(r->devices[1].compute_capability, "8.0");
        ck_assert_uint_eq(r->devices[1].have & XPU_CUDA_HAVE_MEMORY_TOTAL, 0);
        ck_assert_str_eq(r->devices[2].pci_bus_id, "0000:1a:00.0");
        ck_assert_str_eq(r->devices[2].uuid, UUID_1A);
        ck_assert_uint_eq(r->devices[2].memory_total_bytes, 11554717696ull);

        struct xpu_inventory *inv = xpu_test_probe_host(HOST);
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version, "");
        size_t warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_cuda_merge(inv, r), 2);
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version, "12.2");
        ck_assert_int_eq(inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version_source, XPU_SOURCE_CUDA);
        /* Values land by bus id: ordinal 0's memory on 1b, ordinal 2's on 1a. */
        const struct xpu_device *d1a = shim_by_bus(inv, "0000:1a:00.0"), *d1b = shim_by_bus(inv, "0000:1b:00.0"),
                                *d60 = shim_by_bus(inv, "0000:60:00.0");
        ck_assert_uint_eq(d1a->memory_total_bytes, 11554717696ull);
        ck_assert_uint_eq(d1b->memory_total_bytes, 11811160064ull);
        ck_assert_uint_ne(d1a->have & XPU_HAVE_MEMORY_TOTAL, 0);
        ck_assert_str_eq(xpu_nvidia_facts(d1a)->compute_capability, "7.5");
        ck_assert_int_eq(xpu_device_field_source(d1a, XPU_FIELD_MEMORY_TOTAL), XPU_SOURCE_CUDA);
        ck_assert_int_eq(xpu_device_field_source(d1b, XPU_FIELD_COMPUTE_CAPABILITY), XPU_SOURCE_CUDA);
        /* procfs had the same UUIDs and 1a's name: they stay procfs's, without a warning; 1b's
         * information file has no Model line, so its name comes from libcuda. */
        ck_assert_str_eq(d1a->uuid, UUID_1A);
        ck_assert_str_eq(d1b->uuid, UUID_1B);
        ck_assert_int_eq(xpu_device_field_source(d1b, XPU_FIELD_UUID), XPU_SOURCE_PROCFS);
        ck_assert_int_eq(xpu_device_field_source(d1a, XPU_FIELD_NAME), XPU_SOURCE_PROCFS);
        ck_assert_str_eq(d1b->name, "NVIDIA GeForce RTX 2080 Ti");
        ck_assert_int_eq(xpu_device_field_source(d1b, XPU_FIELD_NAME), XPU_SOURCE_CUDA);
        ck_assert_uint_eq(d60->have & XPU_HAVE_MEMORY_TOTAL, 0);
        ck_assert_str_eq(xpu_nvidia_facts(d60)->compute_capability, "");
        ck_assert_uint_eq(inv->n_devices, 8);
        /* The stray GPU: one warning, no device. */
        ck_assert_uint_eq(inv->n_warnings, warnings + 1);
        ck_assert_str_eq(inv->warnings[warnings], "cuda: ordinal 1 (GPU-abcdef00-0000-0000-0000-000000000099) at "
                                                  "0000:ff:1f.0 is not in the procfs inventory; ignored");
        xpu_inventory_free(inv);
        xpu_cuda_result_free(r);
        shim_drop_root(root);
}
END_TEST

/* NVML first, then CUDA, on one state file: CUDA's ordinal order (FASTEST_FIRST) differs from
 * NVML's (bus order), yet every value agrees because devices meet by bus id; then a libcuda
 * that disagrees with NVML turns into warnings and NVML's values are kept. */
START_TEST(test_after_nvml_cross_check) {
        char *root = make_root(DRIVER, three_devices, true);
        int fd = xpu_open_root(root);
        ck_assert_int_ge(fd, 0);
        struct xpu_nvml_result *nr = NULL;
        struct xpu_cuda_result *cr = NULL;
        char err[256] = "";
        ck_assert_msg(xpu_nvml_read(fd, DRIVER, 5000, &nr, err, sizeof err) == 0, "%s", err);
        ck_assert_msg(xpu_cuda_read(fd, DRIVER, 5000, &cr, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(nr->devices[2].uuid, "GPU-ABCDEF00-0000-0000-0000-000000000099"); /* NVML's string as is */
        ck_assert_str_eq(nr->devices[0].pci_bus_id, "0000:1a:00.0"); /* NVML index 0 = CUDA ordinal 2 */
        ck_assert_str_eq(cr->devices[2].pci_bus_id, "0000:1a:00.0");

        struct xpu_inventory *inv = xpu_test_probe_host(HOST);
        size_t warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_nvml_merge(inv, nr), 2);
        ck_assert_uint_eq(inv->n_warnings, warnings + 1); /* NVML's stray device */
        ck_assert_int_eq(xpu_cuda_merge(inv, cr), 2);
        ck_assert_uint_eq(inv->n_warnings, warnings + 2); /* CUDA's stray device; no disagreement */
        struct xpu_device *d1a = shim_by_bus(inv, "0000:1a:00.0");
        ck_assert_uint_eq(d1a->memory_total_bytes, 11554717696ull);
        ck_assert_int_eq(xpu_device_field_source(d1a, XPU_FIELD_MEMORY_TOTAL), XPU_SOURCE_NVML);
        ck_assert_int_eq(inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version_source, XPU_SOURCE_NVML);
        xpu_cuda_result_free(cr);

        /* libcuda now says another CUDA version, memory and compute capability for 0000:1b:00.0. */
        shim_write_state(root, "cuda_version 12040\ndevice_count 1\n"
                          "device.0.name NVIDIA GeForce RTX 2080 Ti\n"
                          "device.0.bus_id 0000:1b:00.0\ndevice.0.cc 8.6\ndevice.0.memory_total 1024\n");
        ck_assert_msg(xpu_cuda_read(fd, DRIVER, 5000, &cr, err, sizeof err) == 0, "%s", err);
        warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_cuda_merge(inv, cr), 1);
        ck_assert_uint_eq(inv->n_warnings, warnings + 3);
        ck_assert_str_eq(inv->warnings[warnings], "cuda reports CUDA driver version 12.4 but nvml has 12.2; keeping nvml's");
        ck_assert_str_eq(inv->warnings[warnings + 1], "0000:1b:00.0: cuda reports memory_total_bytes \"1024\" but nvml "
                                                      "has \"11811160064\"; keeping nvml's");
        ck_assert_str_eq(inv->warnings[warnings + 2], "0000:1b:00.0: cuda reports compute_capability \"8.6\" but nvml "
                                                      "has \"7.5\"; keeping nvml's");
        struct xpu_device *d1b = shim_by_bus(inv, "0000:1b:00.0");
        ck_assert_uint_eq(d1b->memory_total_bytes, 11811160064ull);
        ck_assert_str_eq(xpu_nvidia_facts(d1b)->compute_capability, "7.5");
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version, "12.2");

        close(fd);
        xpu_inventory_free(inv);
        xpu_nvml_result_free(nr);
        xpu_cuda_result_free(cr);
        shim_drop_root(root);
}
END_TEST

/* A GPU NVML reports in MIG mode shows CUDA a MIG instance: its UUID and memory are not merged. */
START_TEST(test_mig_mode_keeps_gpu_uuid) {
        static const char reply[] = "library /l\ncuda_driver_version 12020\ndevice_count 1\n"
                                    "device.0.name NVIDIA GeForce RTX 2080 Ti\n"
                                    "device.0.uuid GPU-11111111-2222-3333-4444-555555555555\n"
                                    "device.0.bus_id 0000:1a:00.0\ndevice.0.cc 7.5\ndevice.0.memory_total 5000000000\n"
                                    "end\n";
        struct xpu_cuda_result *r = NULL;
        ck_assert_int_eq(xpu_cuda_parse_reply(reply, &r, NULL, 0), 0);
        struct xpu_inventory *inv = xpu_test_probe_host(HOST);
        struct xpu_device *d = shim_by_bus(inv, "0000:1a:00.0");
        d->have |= XPU_HAVE_MIG_MODE;
        xpu_nvidia_facts(d)->mig_enabled = true;
        size_t warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_cuda_merge(inv, r), 1);
        ck_assert_uint_eq(inv->n_warnings, warnings);
        ck_assert_str_eq(d->uuid, UUID_1A);
        ck_assert_uint_eq(d->have & XPU_HAVE_MEMORY_TOTAL, 0);
        ck_assert_str_eq(xpu_nvidia_facts(d)->compute_capability, "7.5");
        /* The same reply for a GPU not in MIG mode: the UUID disagreement is reported. */
        xpu_nvidia_facts(d)->mig_enabled = false;
        ck_assert_int_eq(xpu_cuda_merge(inv, r), 1);
        ck_assert_uint_eq(d->memory_total_bytes, 5000000000ull);
        ck_assert_uint_eq(inv->n_warnings, warnings + 1);
        ck_assert_str_eq(inv->warnings[warnings], "0000:1a:00.0: cuda reports uuid "
                                                  "\"GPU-11111111-2222-3333-4444-555555555555\" but procfs has \"" UUID_1A
                                                  "\"; keeping procfs's");
        xpu_inventory_free(inv);
        xpu_cuda_result_free(r);
}
END_TEST

START_TEST(test_version_mismatch_before_load) {
        /* The library aborts as soon as it is loaded: a mismatch must be reported without loading it. */
        char *root = make_root(DRIVER, "abort.load 1\ncuda_version 12020\ndevice_count 0\n", false);
        struct xpu_cuda_result *r = NULL;
        char err[256] = "";
        ck_assert_int_eq(cuda_read_root(root, "470.57.02", 5000, &r, err, sizeof err), -EPROTO);
        ck_assert_ptr_null(r);
        ck_assert_str_eq(err, "driver/library version mismatch: kernel module 470.57.02, libcuda.so." DRIVER);
        /* The same root with the matching version does load it. */
        ck_assert_int_eq(cuda_read_root(root, DRIVER, 5000, &r, err, sizeof err), -ECONNABORTED);
        ck_assert_str_eq(err, "CUDA helper killed by signal 6 (Aborted)");
        ck_assert_ptr_null(r);
        shim_drop_root(root);
}
END_TEST

START_TEST(test_cuda_errors) {
        static const struct {
                const char *state;
                int ret;
                const char *err;
        } cases[] = {
                { "error.cuInit 100\n", -ENODEV,
                  "cuInit failed: CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected" },
                { "error.cuInit 803\n", -EPROTO,
                  "cuInit failed: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803): system has unsupported display driver / "
                  "cuda driver combination" },
                { "error.cuInit 804\n", -EPROTO,
                  "cuInit failed: CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE (804): forward compatibility was "
                  "attempted on non supported HW" },
                /* A code the library cannot name (its cuGetErrorName fails). */
                { "error.cuInit 46\n", -EIO, "cuInit failed: CUDA error 46" },
                { "error.cuDriverGetVersion 999\n", -EIO,
                  "cuDriverGetVersion failed: CUDA_ERROR_UNKNOWN (999): unknown error" },
                { "error.cuDeviceGetCount 3\n", -EIO,
                  "cuDeviceGetCount failed: CUDA_ERROR_NOT_INITIALIZED (3): initialization error" },
                /* Device 1 has no name in the state: the fake's CUDA_ERROR_NOT_FOUND, naming the ordinal. */
                { "device.1.uuid GPU-00000000-0000-0000-0000-000000000001\n", -EIO,
                  "cuDeviceGetName(1) failed: CUDA_ERROR_NOT_FOUND (500): named symbol not found" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char state[512];
                snprintf(state, sizeof state, "%scuda_version 12020\ndevice_count 2\ndevice.0.name A\n", cases[i].state);
                char *root = make_root(DRIVER, state, false);
                struct xpu_cuda_result *r = NULL;
                char err[256] = "";
                ck_assert_msg(cuda_read_root(root, DRIVER, 5000, &r, err, sizeof err) == cases[i].ret, "case %zu: %s", i,
                              err);
                ck_assert_str_eq(err, cases[i].err);
                ck_assert_ptr_null(r);
                shim_drop_root(root);
        }

        /* No state file: the fake's host without a kernel driver. */
        char *root = make_root(DRIVER, "", false);
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s/xpu-fake-state", root, SHIM_LIBDIR);
        ck_assert_int_eq(unlink(path), 0);
        struct xpu_cuda_result *r = NULL;
        char err[256] = "";
        ck_assert_int_eq(cuda_read_root(root, DRIVER, 5000, &r, err, sizeof err), -ENODEV);
        ck_assert_str_eq(err, "cuInit failed: CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected");
        shim_drop_root(root);
}
END_TEST

START_TEST(test_hang_times_out) {
        char *root = make_root(DRIVER, "hang.cuInit 1\ncuda_version 12020\ndevice_count 0\n", false);
        struct xpu_cuda_result *r = NULL;
        char err[256] = "";
        long long t0 = shim_now_ms();
        ck_assert_int_eq(cuda_read_root(root, DRIVER, 300, &r, err, sizeof err), -ETIMEDOUT);
        long long took = shim_now_ms() - t0;
        ck_assert_msg(took >= 250 && took < 1300, "took %lld ms", took);
        ck_assert_str_eq(err, "CUDA helper timed out after 300 ms");
        ck_assert_ptr_null(r);
        ck_assert_int_eq(shim_count_children(), 0);
        shim_drop_root(root);
}
END_TEST

START_TEST(test_abort) {
        char *root = make_root(DRIVER, "abort.cuDeviceTotalMem_v2 1\ncuda_version 12020\ndevice_count 1\n"
                                       "device.0.name A\n",
                               false);
        struct xpu_cuda_result *r = NULL;
        char err[256] = "";
        ck_assert_int_eq(cuda_read_root(root, DRIVER, 5000, &r, err, sizeof err), -ECONNABORTED);
        ck_assert_str_eq(err, "CUDA helper killed by signal 6 (Aborted)");
        ck_assert_ptr_null(r);
        ck_assert_int_eq(shim_count_children(), 0);
        shim_drop_root(root);
}
END_TEST

/* Optional facts libcuda does not answer are left out, and such a device cannot be matched. */
START_TEST(test_optional_facts_missing) {
        char *root = make_root(DRIVER, "cuda_version 11030\ndevice_count 2\n"
                                       "error.cuDeviceGetUuid_v2 999\n"
                                       "device.0.name A\ndevice.0.uuid GPU-00000000-0000-0000-0000-000000000001\n"
                                       "device.0.bus_id 0000:1a:00.0\n"
                                       "device.1.name B\ndevice.1.bus_id nonsense\ndevice.1.cc 7\n",
                               false);
        struct xpu_cuda_result *r = NULL;
        char err[256] = "";
        ck_assert_msg(cuda_read_root(root, DRIVER, 5000, &r, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(r->cuda_driver_version, "11.3");
        ck_assert_uint_eq(r->n, 2);
        /* cuDeviceGetUuid_v2 failed: no fallback to cuDeviceGetUuid once the versioned name is bound. */
        ck_assert_uint_eq(r->devices[0].have, XPU_CUDA_HAVE_PCI);
        ck_assert_str_eq(r->devices[0].uuid, "");
        ck_assert_uint_eq(r->devices[1].have, 0);
        ck_assert_str_eq(r->devices[1].name, "B");

        struct xpu_inventory *inv = xpu_test_probe_host(HOST);
        size_t warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_cuda_merge(inv, r), 1);
        ck_assert_uint_eq(inv->n_warnings, warnings + 2);
        /* Device 0 is named "A" by libcuda but procfs says otherwise: kept, with a warning. */
        ck_assert_str_eq(inv->warnings[warnings], "0000:1a:00.0: cuda reports name \"A\" but procfs has \"NVIDIA "
                                                  "GeForce RTX 2080 Ti\"; keeping procfs's");
        ck_assert_str_eq(inv->warnings[warnings + 1],
                         "cuda: ordinal 1 (B) at an unknown bus id is not in the procfs inventory; ignored");
        xpu_inventory_free(inv);
        xpu_cuda_result_free(r);
        shim_drop_root(root);
}
END_TEST

START_TEST(test_library_missing) {
        char *root = xpu_test_mkdtemp();
        ck_assert_int_eq(chmod(root, 0755), 0);
        struct xpu_cuda_result *r = NULL;
        char err[512] = "";
        ck_assert_int_eq(cuda_read_root(root, DRIVER, 5000, &r, err, sizeof err), -ENOENT);
        ck_assert_msg(strncmp(err, "not available: libcuda.so.1 not found in ", 41) == 0, "%s", err);
        ck_assert_ptr_null(r);
        shim_drop_root(root);
}
END_TEST

/* The image's environment (LD_PRELOAD, CUDA_VISIBLE_DEVICES ...) never reaches the library. */
START_TEST(test_environment_not_passed) {
        char *root = make_root(DRIVER, "cuda_version 12020\ndevice_count 4\n"
                                       "device.0.name_from_env LD_PRELOAD\n"
                                       "device.1.name_from_env CUDA_VISIBLE_DEVICES\n"
                                       "device.2.name_from_env CUDA_DEVICE_ORDER\n"
                                       "device.3.name_from_env PATH\n",
                               false);
        ck_assert_int_eq(setenv("LD_PRELOAD", "/nonexistent/libpreload.so", 1), 0);
        ck_assert_int_eq(setenv("CUDA_VISIBLE_DEVICES", "1", 1), 0);
        ck_assert_int_eq(setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 1), 0);
        unsetenv("XPU_FAKE_STATE");
        struct xpu_cuda_result *r = NULL;
        char err[256] = "";
        int ret = cuda_read_root(root, DRIVER, 5000, &r, err, sizeof err);
        unsetenv("LD_PRELOAD"); /* not for the rm -rf below */
        ck_assert_msg(ret == 0, "%s", err);
        ck_assert_uint_eq(r->n, 4);
        ck_assert_str_eq(r->devices[0].name, "(unset)");
        ck_assert_str_eq(r->devices[1].name, "(unset)");
        ck_assert_str_eq(r->devices[2].name, "(unset)");
        ck_assert_str_eq(r->devices[3].name, "/usr/bin:/bin");
        xpu_cuda_result_free(r);
        shim_drop_root(root);
}
END_TEST

/* No kernel-module version: libcuda is not loaded at all (it would abort while loading). */
START_TEST(test_version_unknown_refused) {
        char *root = make_root(DRIVER, "abort.load 1\ncuda_version 12020\ndevice_count 0\n", false);
        static const char *const versions[] = { "", "junk", "465", NULL };
        for (size_t i = 0; i < ELEMENTSOF(versions); i++) {
                struct xpu_cuda_result *r = NULL;
                char err[512] = "";
                ck_assert_msg(cuda_read_root(root, versions[i], 5000, &r, err, sizeof err) == -ENODATA, "case %zu: %s", i,
                              err);
                ck_assert_str_eq(err, "not loading libcuda.so.1: the NVIDIA kernel module's version is unknown (no "
                                      "readable /proc/driver/nvidia/version), so the library cannot be checked against it");
                ck_assert_ptr_null(r);
        }
        shim_drop_root(root);
}
END_TEST

/* An empty name is left out (never made up), a long one cut to the field; more devices than the
 * reply holds are counted. The read succeeds. */
START_TEST(test_helper_cleans_values) {
        size_t size = 64 * 64 + 512, len = 0;
        char *state = malloc(size);
        ck_assert_ptr_nonnull(state);
        len += (size_t)snprintf(state, size, "cuda_version 12020\ndevice_count 70\ndevice.0.name \n"
                                             "device.1.name "
                                             "Long name 123456789012345678901234567890123456789012345678901234567890"
                                             "1234567890123456789012345678901234567890123456789012345678901234567890\n");
        for (unsigned i = 2; i < 64; i++)
                len += (size_t)snprintf(state + len, size - len, "device.%u.name G%u\n", i, i);
        ck_assert_uint_lt(len, size);
        char *root = make_root(DRIVER, state, false);
        free(state);
        struct xpu_cuda_result *r = NULL;
        char err[256] = "";
        ck_assert_msg(cuda_read_root(root, DRIVER, 10000, &r, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(r->n, XPU_CUDA_DEVICES_MAX);
        ck_assert_uint_eq(r->total, 70);
        ck_assert_str_eq(r->devices[0].name, "");
        ck_assert_uint_eq(strlen(r->devices[1].name), 127);
        ck_assert_int_eq(strncmp(r->devices[1].name, "Long name 1234", 14), 0);
        ck_assert_str_eq(r->devices[63].name, "G63");
        cJSON *j = xpu_rich_cuda.to_json(r);
        ck_assert_ptr_nonnull(j);
        ck_assert_int_eq((int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "devices_total")), 70);
        const cJSON *d0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "devices"), 0);
        ck_assert_ptr_null(cJSON_GetObjectItem(d0, "name"));
        cJSON_Delete(j);
        xpu_cuda_result_free(r);
        shim_drop_root(root);
}
END_TEST

/* The parent's parser of the helper's reply. */
START_TEST(test_parse_reply) {
        static const struct {
                const char *text;
                int ret;
                const char *err;
        } cases[] = {
#define LIB "library /usr/lib/libcuda.so.1.2\n"
                { LIB "cuda_driver_version 12020\ndevice_count 0\nend\n", 0, "" },
                { LIB "cuda_driver_version 12020\ndevice_count 0\n", -EBADMSG, "garbage from the CUDA helper: line 4" },
                { LIB "cuda_driver_version 12020\ndevice_count 0\nend", -EBADMSG, "garbage from the CUDA helper: line 4" },
                { "cuda_driver_version 12020\ndevice_count 0\nend\n", -EBADMSG, "garbage from the CUDA helper: no library" },
                { LIB LIB "device_count 0\nend\n", -EBADMSG, "garbage from the CUDA helper: line 2" },
                { "library lib\ndevice_count 0\nend\n", -EBADMSG, "garbage from the CUDA helper: line 1" },
                { LIB "cuda_driver_version 12020\nend\n", -EBADMSG, "garbage from the CUDA helper: no device_count" },
                /* The version comes before the count and once. */
                { LIB "device_count 0\ncuda_driver_version 12020\nend\n", -EBADMSG, "garbage from the CUDA helper: line 3" },
                { LIB "cuda_driver_version 12020\ncuda_driver_version 12020\ndevice_count 0\nend\n", -EBADMSG,
                  "garbage from the CUDA helper: line 3" },
                { LIB "cuda_driver_version 999\ndevice_count 0\nend\n", -EBADMSG, "garbage from the CUDA helper: line 2" },
                { LIB "cuda_driver_version 12.2\ndevice_count 0\nend\n", -EBADMSG, "garbage from the CUDA helper: line 2" },
                { LIB "cuda_driver_version 12020\ndevice.0.name x\n", -EBADMSG, "garbage from the CUDA helper: line 3" },
                { LIB "cuda_driver_version 12020\ndevice_count 1\ndevice.1.name x\nend\n", -EBADMSG,
                  "garbage from the CUDA helper: line 4" },
                { LIB "cuda_driver_version 12020\ndevice_count 1\ndevice.0.name x\ndevice.0.bus_id zz\nend\n", -EBADMSG,
                  "garbage from the CUDA helper: line 5" },
                { LIB "cuda_driver_version 12020\ndevice_count 1\ndevice.0.name x\ndevice.0.cc 7\nend\n", -EBADMSG,
                  "garbage from the CUDA helper: line 5" },
                { LIB "cuda_driver_version 12020\ndevice_count 1\ndevice.0.name x\ndevice.0.memory_total -1\nend\n",
                  -EBADMSG, "garbage from the CUDA helper: line 5" },
                { LIB "cuda_driver_version 12020\ndevice_count 1\ndevice.0.name x\ndevice.0.minor 1\nend\n", -EBADMSG,
                  "garbage from the CUDA helper: line 5" },
                /* Every device key at most once. */
                { LIB "device_count 1\ndevice.0.name x\ndevice.0.name y\nend\n", -EBADMSG,
                  "garbage from the CUDA helper: line 4" },
                { LIB "device_count 1\ndevice.0.cc 7.5\ndevice.0.cc 7.5\nend\n", -EBADMSG,
                  "garbage from the CUDA helper: line 4" },
                { LIB "cuda_driver_version 12020\ndevice_count 65\nend\n", -EBADMSG, "garbage from the CUDA helper: line 3" },
                /* devices_total: right after a full device_count, above it. */
                { LIB "device_count 63\ndevices_total 70\nend\n", -EBADMSG, "garbage from the CUDA helper: line 3" },
                { LIB "device_count 64\ndevices_total 64\nend\n", -EBADMSG, "garbage from the CUDA helper: line 3" },
                { LIB "cuda_driver_version 12020\ndevice_count 0\nend\nmore 1\n", -EBADMSG,
                  "garbage from the CUDA helper: line 5" },
                { LIB "cuda_driver_version \x01\n", -EBADMSG, "garbage from the CUDA helper: line 2" },
                { "error -19 cuInit failed: CUDA_ERROR_NO_DEVICE (100): x\n", -ENODEV,
                  "cuInit failed: CUDA_ERROR_NO_DEVICE (100): x" },
                { "error 5 nope\n", -EBADMSG, "garbage from the CUDA helper: line 1" },
                { "", -EBADMSG, "garbage from the CUDA helper: line 1" },
                /* A device without a name, a reply without a CUDA version: the helper leaves out what
                 * it cannot send, the parser accepts that. */
                { LIB "device_count 1\ndevice.0.uuid GPU-x\nend\n", 0, "" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct xpu_cuda_result *r = NULL;
                char err[256] = "";
                ck_assert_msg(xpu_cuda_parse_reply(cases[i].text, &r, err, sizeof err) == cases[i].ret, "case %zu: %s",
                              i, err);
                ck_assert_str_eq(err, cases[i].err);
                ck_assert_int_eq(r != NULL, cases[i].ret == 0);
                xpu_cuda_result_free(r);
        }
        struct xpu_cuda_result *r = NULL;
        ck_assert_int_eq(xpu_cuda_parse_reply(LIB "cuda_driver_version 11080\ndevice_count 1\n"
                                              "device.0.name N\ndevice.0.uuid GPU-x\ndevice.0.bus_id 0000:3B:00.0\n"
                                              "device.0.cc 9.0\ndevice.0.memory_total 85899345920\nend\n",
                                              &r, NULL, 0),
                         0);
        ck_assert_str_eq(r->cuda_driver_version, "11.8");
        ck_assert_uint_eq(r->n, 1);
        ck_assert_str_eq(r->devices[0].pci_bus_id, "0000:3b:00.0");
        ck_assert_str_eq(r->devices[0].compute_capability, "9.0");
        ck_assert_uint_eq(r->devices[0].memory_total_bytes, 85899345920ull);
        ck_assert_uint_eq(r->devices[0].have, XPU_CUDA_HAVE_UUID | XPU_CUDA_HAVE_PCI | XPU_CUDA_HAVE_MEMORY_TOTAL |
                                                      XPU_CUDA_HAVE_COMPUTE_CAPABILITY);
        xpu_cuda_result_free(r);
}
END_TEST

/* The rich-path backend: identity, read through the ops, the JSON view and the text view. */
/* CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID wider than 16 bits (Hyper-V): canonical 8-digit domain. */
START_TEST(test_hyperv_domain) {
        char *root = make_root("535.54.03", "driver_version 535.54.03\ncuda_version 12020\ndevice_count 2\n"
                                            "device.0.name Tesla T4\ndevice.0.uuid GPU-3a9e6b5c-1d2e-4f70-8a91-b2c3d4e5f601\n"
                                            "device.0.bus_id 3f8cfdd:00:00.0\n"
                                            "device.1.name Tesla T4\ndevice.1.uuid GPU-7c0d1e2f-3a4b-4c5d-9e6f-a1b2c3d4e5f6\n"
                                            "device.1.bus_id 0000:1a:00.0\n",
                               false);
        struct xpu_cuda_result *r = NULL;
        char err[256] = "";
        ck_assert_msg(cuda_read_root(root, "535.54.03", 5000, &r, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(r->n, 2);
        ck_assert_str_eq(r->devices[0].pci_bus_id, "03f8cfdd:00:00.0");
        ck_assert_str_eq(r->devices[1].pci_bus_id, "0000:1a:00.0");
        xpu_cuda_result_free(r);
        shim_drop_root(root);
}
END_TEST

START_TEST(test_rich_backend) {
        ck_assert_int_eq(xpu_rich_cuda.vendor, XPU_VENDOR_NVIDIA);
        ck_assert_int_eq(xpu_rich_cuda.source, XPU_SOURCE_CUDA);
        ck_assert_str_eq(xpu_rich_cuda.library, "libcuda.so.1");

        char *root = make_root(DRIVER, three_devices, false);
        struct xpu_roots roots;
        ck_assert_int_eq(xpu_roots_open(&roots, root, root, root, NULL), 0);
        struct xpu_inventory *inv = xpu_test_probe_host(HOST);
        void *result = NULL;
        char err[256] = "";
        ck_assert_msg(xpu_rich_cuda.read(&roots, inv, 5000, &result, err, sizeof err) == 0, "%s", err);
        ck_assert_int_eq(xpu_rich_cuda.merge(inv, result), 2);

        /* The library loaded: the versioned file the .so.1 link names, inside the driver root. */
        char lib[PATH_MAX], want[2048];
        snprintf(lib, sizeof lib, "/%s/libcuda.so." DRIVER, SHIM_LIBDIR);
        ck_assert_str_eq(((const struct xpu_cuda_result *)result)->library, lib);
        cJSON *j = xpu_rich_cuda.to_json(result);
        ck_assert_ptr_nonnull(j);
        char *text = cJSON_PrintUnformatted(j);
        snprintf(want, sizeof want, "{\"source\":\"cuda\",\"library\":\"%s\",", lib);
        ck_assert_int_eq(strncmp(text, want, strlen(want)), 0);
        ck_assert_str_eq(text + strlen(want), "\"cuda_driver_version\":\"12.2\",\"devices\":["
                               "{\"ordinal\":0,\"pci_bus_id\":\"0000:1b:00.0\",\"uuid\":\"" UUID_1B "\","
                               "\"name\":\"NVIDIA GeForce RTX 2080 Ti\",\"compute_capability\":\"7.5\","
                               "\"memory_total_bytes\":11811160064},"
                               "{\"ordinal\":1,\"pci_bus_id\":\"0000:ff:1f.0\","
                               "\"uuid\":\"GPU-abcdef00-0000-0000-0000-000000000099\",\"name\":\"Stray\","
                               "\"compute_capability\":\"8.0\"},"
                               "{\"ordinal\":2,\"pci_bus_id\":\"0000:1a:00.0\",\"uuid\":\"" UUID_1A "\","
                               "\"name\":\"NVIDIA GeForce RTX 2080 Ti\",\"compute_capability\":\"7.5\","
                               "\"memory_total_bytes\":11554717696}]}");
        free(text);
        cJSON_Delete(j);

        char *out = NULL;
        size_t out_len = 0;
        FILE *f = open_memstream(&out, &out_len);
        ck_assert_ptr_nonnull(f);
        xpu_rich_cuda.print(result, f);
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_int_eq(strncmp(out, "cuda: ", 6), 0);
        ck_assert_int_eq(strncmp(out + 6, lib, strlen(lib)), 0);
        ck_assert_str_eq(out + strlen("cuda: ") + strlen(lib), ", CUDA driver 12.2, 3 devices (CUDA ordinals, "
                              "FASTEST_FIRST order)\n"
                              "  0 0000:1b:00.0 " UUID_1B " NVIDIA GeForce RTX 2080 Ti cc 7.5 11264 MiB\n"
                              "  1 0000:ff:1f.0 GPU-abcdef00-0000-0000-0000-000000000099 Stray cc 8.0\n"
                              "  2 0000:1a:00.0 " UUID_1A " NVIDIA GeForce RTX 2080 Ti cc 7.5 11019 MiB\n");
        free(out);
        free(result);

        /* The kernel module's version from the inventory reaches the version check. */
        snprintf(inv->vendors[XPU_VENDOR_NVIDIA].driver_version, sizeof inv->vendors[0].driver_version, "470.57.02");
        result = NULL;
        ck_assert_int_eq(xpu_rich_cuda.read(&roots, inv, 5000, &result, err, sizeof err), -EPROTO);
        ck_assert_ptr_null(result);
        ck_assert_str_eq(err, "driver/library version mismatch: kernel module 470.57.02, libcuda.so." DRIVER);

        xpu_inventory_free(inv);
        xpu_roots_close(&roots);
        shim_drop_root(root);
}
END_TEST

static Suite *cuda_suite(void) {
        Suite *s = suite_create("nvidia-cuda");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 30);
        tcase_add_test(tc, test_read_fastest_first_and_merge);
        tcase_add_test(tc, test_after_nvml_cross_check);
        tcase_add_test(tc, test_mig_mode_keeps_gpu_uuid);
        tcase_add_test(tc, test_version_mismatch_before_load);
        tcase_add_test(tc, test_cuda_errors);
        tcase_add_test(tc, test_hang_times_out);
        tcase_add_test(tc, test_abort);
        tcase_add_test(tc, test_optional_facts_missing);
        tcase_add_test(tc, test_library_missing);
        tcase_add_test(tc, test_environment_not_passed);
        tcase_add_test(tc, test_parse_reply);
        tcase_add_test(tc, test_version_unknown_refused);
        tcase_add_test(tc, test_helper_cleans_values);
        tcase_add_test(tc, test_rich_backend);
        tcase_add_test(tc, test_hyperv_domain);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(cuda_suite());
}
