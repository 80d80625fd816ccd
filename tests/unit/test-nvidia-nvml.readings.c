/* SPDX-License-Identifier: Apache-2.0 */
/* probes/nvidia/nvidia-nvml.c through the real isolated helper and the fake NVML (tests/shims/): MIG
 * devices and the live readings round trip with their units, a GeForce-like board answering
 * NOT_SUPPORTED, a GPU lost among four, and per-device failure modes (an error code on one
 * device's call, a call that hangs on one device, one that aborts). */
#include "shim-root.h"
#include "nvidia/nvidia-facts.h"

#define HOST "nvidia-rtx2080ti-x8"
#define DRIVER "465.19.01"

/* At two bus ids of the nvidia-rtx2080ti-x8 fixture. Device 0: a data-centre-like GPU in MIG mode with every reading (MIG devices at indices 0, 2 and 5
 * of 7: the unused indices answer NOT_FOUND); device 1: a GeForce answering NOT_SUPPORTED for all
 * but the basics. The aggregate ECC counters differ from the volatile ones the reader must ask. */
static const char readings_state[] = "driver_version " DRIVER "\n"
                                     "cuda_version 11.3\n"
                                     "device_count 2\n"
                                     "device.0.name NVIDIA GeForce RTX 2080 Ti\n"
                                   "device.0.uuid GPU-307dcc96-618a-4416-c1ef-87823c2e1a31\n"
                                     "device.0.bus_id 00000000:1A:00.0\n"
                                     "device.0.minor 0\n"
                                     "device.0.memory_total 85899345920\n"
                                     "device.0.memory_used 911212544\n"
                                     "device.0.cc 8.0\n"
                                     "device.0.brand Tesla\n"
                                     "device.0.mig_mode 1\n"
                                     "device.0.mig_max 7\n"
                                     "device.0.mig.0.uuid MIG-11111111-2222-3333-4444-555555555550\n"
                                     "device.0.mig.2.uuid MIG-11111111-2222-3333-4444-555555555552\n"
                                     "device.0.remap 7 2 1 0\n"
                                     "device.0.retired 5 1 1\n"
                                     "device.0.mig.5.uuid MIG-11111111-2222-3333-4444-555555555555\n"
                                     "device.0.mig.5.gi 9\n"
                                     "device.0.mig.5.ci 2\n"
                                     "device.0.mig.2.name NVIDIA A100-SXM4-80GB MIG 1g.20gb\n"
                                     "device.0.mig.2.memory_total 20937965568\n"
                                     "device.0.util_gpu 35\n"
                                     "device.0.util_memory 12\n"
                                     "device.0.temperature 41\n"
                                     "device.0.temp_slowdown 90\n"
                                     "device.0.temp_shutdown 95\n"
                                     "device.0.power_usage_mw 71234\n"
                                     "device.0.power_limit_mw 400000\n"
                                     "device.0.energy_mj 123456789012\n"
                                     "device.0.clock_graphics_mhz 999\n"
                                     "device.0.clock_sm_mhz 1410\n"
                                     "device.0.clock_mem_mhz 1593\n"
                                     "device.0.ecc_corrected 3\n"
                                     "device.0.ecc_uncorrected 1\n"
                                     "device.0.ecc_aggregate_corrected 300\n"
                                     "device.0.ecc_aggregate_uncorrected 100\n"
                                     "device.0.clock_event_reasons 0x24\n"
                                     "device.1.name NVIDIA GeForce RTX 2080 Ti\n"
                                   "device.1.uuid GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe\n"
                                     "device.1.bus_id 00000000:1B:00.0\n"
                                     "device.1.minor 1\n";

START_TEST(test_readings_round_trip) {
        char *root = nvml_make_root(DRIVER, readings_state);
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        ck_assert_msg(nvml_read_root(root, DRIVER, 5000, &r, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(r->n, 2);
        ck_assert_str_eq(r->cuda_driver_version, "11.3");

        const struct xpu_nvml_device *d = &r->devices[0];
        ck_assert_uint_eq(d->have, XPU_NVML_HAVE_MINOR | XPU_NVML_HAVE_PCI | XPU_NVML_HAVE_MEMORY_TOTAL |
                                           XPU_NVML_HAVE_MEMORY_USED | XPU_NVML_HAVE_COMPUTE_CAPABILITY |
                                           XPU_NVML_HAVE_BRAND | XPU_NVML_HAVE_MIG_MODE | XPU_NVML_HAVE_MIG_DEVICES |
                                           XPU_NVML_HAVE_UTIL_GPU | XPU_NVML_HAVE_UTIL_MEMORY |
                                           XPU_NVML_HAVE_TEMPERATURE | XPU_NVML_HAVE_POWER_USAGE |
                                           XPU_NVML_HAVE_POWER_LIMIT | XPU_NVML_HAVE_ENERGY | XPU_NVML_HAVE_CLOCK_SM |
                                           XPU_NVML_HAVE_CLOCK_MEMORY | XPU_NVML_HAVE_ECC_CORRECTED |
                                           XPU_NVML_HAVE_ECC_UNCORRECTED | XPU_NVML_HAVE_CLOCK_EVENTS |
                                           XPU_NVML_HAVE_REMAP | XPU_NVML_HAVE_RETIRED |
                                           XPU_NVML_HAVE_TEMP_SLOWDOWN | XPU_NVML_HAVE_TEMP_SHUTDOWN);
        ck_assert_uint_eq(d->memory_total_bytes, 85899345920ull);
        /* Row remapping and page retirement (one GPU answers both here, to see both paths):
         * counts and flags as NVML gave them. */
        ck_assert_uint_eq(d->remap_correctable, 7);
        ck_assert_uint_eq(d->remap_uncorrectable, 2);
        ck_assert_uint_eq(d->remap_pending, 1);
        ck_assert_uint_eq(d->remap_failed, 0);
        ck_assert_uint_eq(d->retired_sbe, 5);
        ck_assert_uint_eq(d->retired_dbe, 1);
        ck_assert_uint_eq(d->retired_pending, 1);
        struct xpu_readings rd;
        xpu_nvml_device_readings(d, &rd);
        ck_assert_uint_ne(rd.have & XPU_READ_ROW_REMAP, 0);
        ck_assert_uint_eq(rd.remapped_rows[XPU_REPAIR_UNCORRECTABLE], 2);
        ck_assert(rd.remap_pending && !rd.remap_failed);
        ck_assert_uint_ne(rd.have & XPU_READ_RETIRED_PAGES, 0);
        ck_assert_uint_eq(rd.retired_pages[XPU_REPAIR_CORRECTABLE], 5);
        /* nvmlDeviceGetTemperatureThreshold(SLOWDOWN = 1, SHUTDOWN = 0) → the GPU sensor's limits */
        ck_assert_uint_eq(d->temp_slowdown_celsius, 90);
        ck_assert_uint_eq(d->temp_shutdown_celsius, 95);
        ck_assert_uint_eq(rd.have_temperature_limit, XPU_TEMP_LIMIT_BIT(XPU_TEMP_GPU, XPU_TEMP_LIMIT_SLOWDOWN) |
                                                             XPU_TEMP_LIMIT_BIT(XPU_TEMP_GPU, XPU_TEMP_LIMIT_SHUTDOWN));
        ck_assert_double_eq(rd.temperature_limit_celsius[XPU_TEMP_GPU][XPU_TEMP_LIMIT_SLOWDOWN], 90);
        ck_assert_double_eq(rd.temperature_limit_celsius[XPU_TEMP_GPU][XPU_TEMP_LIMIT_SHUTDOWN], 95);
        ck_assert(rd.retired_pending);
        ck_assert_uint_eq(d->memory_used_bytes, 911212544ull);
        ck_assert_str_eq(d->brand, "tesla");
        ck_assert(d->mig_enabled);
        ck_assert_uint_eq(d->n_mig, 3);
        ck_assert_str_eq(d->mig[0].uuid, "MIG-11111111-2222-3333-4444-555555555550");
        ck_assert_str_eq(d->mig[1].uuid, "MIG-11111111-2222-3333-4444-555555555552");
        ck_assert_str_eq(d->mig[2].uuid, "MIG-11111111-2222-3333-4444-555555555555");
        ck_assert_uint_eq(d->utilization_gpu_percent, 35);
        ck_assert_uint_eq(d->utilization_memory_percent, 12);
        ck_assert_uint_eq(d->temperature_celsius, 41);
        ck_assert_uint_eq(d->power_usage_milliwatts, 71234);
        ck_assert_uint_eq(d->power_limit_milliwatts, 400000);
        ck_assert_uint_eq(d->energy_millijoules, 123456789012ull);
        ck_assert_uint_eq(d->clock_sm_hz, 1410000000ull); /* MHz → Hz, the SM clock, not graphics */
        ck_assert_uint_eq(d->clock_memory_hz, 1593000000ull);
        ck_assert_uint_eq(d->ecc_corrected, 3); /* volatile, not aggregate */
        ck_assert_uint_eq(d->ecc_uncorrected, 1);
        ck_assert_uint_eq(d->clock_event_reasons, 0x24);
        ck_assert(!d->lost);

        /* The GeForce: NOT_SUPPORTED leaves every reading out, without failing or losing it. */
        const struct xpu_nvml_device *g = &r->devices[1];
        ck_assert_uint_eq(g->have, XPU_NVML_HAVE_MINOR | XPU_NVML_HAVE_PCI);
        ck_assert(!g->lost);
        ck_assert(!g->mig_enabled);
        ck_assert_uint_eq(g->n_mig, 0);

        /* Merged: memory used and MIG land in the inventory; the readings do not. */
        struct xpu_inventory *inv = xpu_test_probe_host(HOST);
        size_t warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_nvml_merge(inv, r), 2);
        ck_assert_msg(inv->n_warnings == warnings, "%s", shim_warnings_since(inv, warnings));
        const struct xpu_device *dev = shim_by_bus(inv, "0000:1a:00.0");
        ck_assert_uint_eq(dev->memory_used_bytes, 911212544ull);
        ck_assert_uint_ne(dev->have & XPU_HAVE_MEMORY_USED, 0);
        ck_assert(xpu_nvidia_facts(dev)->mig_enabled);
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->n_mig, 3);
        /* By GPU instance: the fake's default ids for 0 and 2 (GI 1 and 3, CI 0), 9/2 as set. */
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->mig[0].gi, 1);
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->mig[1].gi, 3);
        ck_assert_str_eq(xpu_nvidia_facts(dev)->mig[1].uuid, "MIG-11111111-2222-3333-4444-555555555552");
        ck_assert_str_eq(xpu_nvidia_facts(dev)->mig[1].name, "NVIDIA A100-SXM4-80GB MIG 1g.20gb");
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->mig[1].memory_total_bytes, 20937965568ull);
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->mig[1].have, XPU_MIG_HAVE_MEMORY_TOTAL);
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->mig[2].gi, 9);
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->mig[2].ci, 2);
        ck_assert_str_eq(xpu_nvidia_facts(dev)->mig[2].uuid, "MIG-11111111-2222-3333-4444-555555555555");
        ck_assert_str_eq(xpu_nvidia_facts(dev)->mig[2].name, "");
        dev = shim_by_bus(inv, "0000:1b:00.0");
        ck_assert_uint_eq(dev->have & (XPU_HAVE_MIG_MODE | XPU_HAVE_MEMORY_USED), 0);
        xpu_inventory_free(inv);
        xpu_nvml_result_free(r);
        shim_drop_root(root);
}
END_TEST

/* MIG lists the reader leaves out rather than report half: a MIG device UUID failing, more MIG
 * devices than XPU_MIG_DEVICES_MAX. The mode is still reported. */
START_TEST(test_mig_incomplete) {
        char *root = nvml_make_root(DRIVER, "driver_version " DRIVER "\ndevice_count 2\n"
                                            "device.0.uuid GPU-a\ndevice.0.name A\ndevice.0.mig_mode 1\n"
                                            "device.0.mig.0.uuid MIG-a0\n"
                                            "error.nvmlDeviceGetMigDeviceHandleByIndex.0 999\n"
                                            "device.1.uuid GPU-b\ndevice.1.name B\ndevice.1.mig_mode 1\n"
                                            "device.1.mig_max 9\ndevice.1.mig.0.uuid MIG-b0\ndevice.1.mig.1.uuid MIG-b1\n"
                                            "device.1.mig.2.uuid MIG-b2\ndevice.1.mig.3.uuid MIG-b3\n"
                                            "device.1.mig.4.uuid MIG-b4\ndevice.1.mig.5.uuid MIG-b5\n"
                                            "device.1.mig.6.uuid MIG-b6\ndevice.1.mig.7.uuid MIG-b7\n"
                                            "device.1.mig.8.uuid MIG-b8\n");
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        ck_assert_msg(nvml_read_root(root, DRIVER, 5000, &r, err, sizeof err) == 0, "%s", err);
        for (size_t i = 0; i < 2; i++) {
                ck_assert(r->devices[i].mig_enabled);
                ck_assert_uint_eq(r->devices[i].have & (XPU_NVML_HAVE_MIG_MODE | XPU_NVML_HAVE_MIG_DEVICES),
                                  XPU_NVML_HAVE_MIG_MODE);
                ck_assert_uint_eq(r->devices[i].n_mig, 0);
        }
        xpu_nvml_result_free(r);
        shim_drop_root(root);
}
END_TEST

/* Four GPUs; one of them lost (first on a reading through an error code on that device only,
 * then from its handle on through "device.N.lost"): the others are reported in full, the lost
 * one is marked with the call that lost it, nothing crashes and nothing fails. */
static const char four_devices[] = "driver_version " DRIVER "\n"
                                   "device_count 4\n"
                                   "device.0.name NVIDIA GeForce RTX 2080 Ti\ndevice.0.uuid GPU-307dcc96-618a-4416-c1ef-87823c2e1a31\n"
                                   "device.0.bus_id 00000000:1A:00.0\ndevice.0.minor 0\n"
                                   "device.0.temperature 30\ndevice.0.power_usage_mw 1000\n"
                                   "device.1.name NVIDIA GeForce RTX 2080 Ti\ndevice.1.uuid GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe\n"
                                   "device.1.bus_id 00000000:1B:00.0\ndevice.1.minor 1\n"
                                   "device.1.temperature 31\ndevice.1.power_usage_mw 1001\n"
                                   "device.2.name NVIDIA GeForce RTX 2080 Ti\ndevice.2.uuid GPU-00cead84-aab2-a1c2-3d21-53e6a83b2a35\n"
                                   "device.2.bus_id 00000000:60:00.0\ndevice.2.minor 2\n"
                                   "device.2.temperature 32\ndevice.2.power_usage_mw 1002\n"
                                   "device.3.name NVIDIA GeForce RTX 2080 Ti\ndevice.3.uuid GPU-1c9b50c7-823e-8c87-d54d-8f2ef02906fb\n"
                                   "device.3.bus_id 00000000:61:00.0\ndevice.3.minor 3\n"
                                   "device.3.temperature 33\ndevice.3.power_usage_mw 1003\n";

static void assert_others_read(const struct xpu_nvml_result *r, size_t lost) {
        ck_assert_uint_eq(r->n, 4);
        for (size_t i = 0; i < 4; i++) {
                if (i == lost)
                        continue;
                const struct xpu_nvml_device *d = &r->devices[i];
                ck_assert_msg(!d->lost, "device %zu: %s", i, d->lost_reason);
                ck_assert_uint_eq(d->minor, i);
                ck_assert_uint_eq(d->temperature_celsius, 30 + i);
                ck_assert_uint_eq(d->power_usage_milliwatts, 1000 + i);
                ck_assert_uint_eq(d->have & (XPU_NVML_HAVE_TEMPERATURE | XPU_NVML_HAVE_POWER_USAGE),
                                  XPU_NVML_HAVE_TEMPERATURE | XPU_NVML_HAVE_POWER_USAGE);
        }
}

START_TEST(test_gpu_lost_one_of_four) {
        char state[sizeof four_devices + 128];
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";

        /* Lost at a reading: what came before stays, nothing after it is asked. */
        snprintf(state, sizeof state, "%serror.nvmlDeviceGetPowerUsage.2 15\n", four_devices);
        char *root = nvml_make_root(DRIVER, state);
        ck_assert_msg(nvml_read_root(root, DRIVER, 5000, &r, err, sizeof err) == 0, "%s", err);
        assert_others_read(r, 2);
        const struct xpu_nvml_device *d = &r->devices[2];
        ck_assert(d->lost);
        ck_assert_str_eq(d->lost_reason, "nvmlDeviceGetPowerUsage failed: GPU is lost (error 15)");
        ck_assert_str_eq(d->uuid, "GPU-00cead84-aab2-a1c2-3d21-53e6a83b2a35");
        ck_assert_uint_eq(d->temperature_celsius, 32);
        ck_assert_uint_eq(d->have & XPU_NVML_HAVE_POWER_USAGE, 0);
        ck_assert_uint_ne(d->have & XPU_NVML_HAVE_TEMPERATURE, 0);

        /* The merge matches all four, and says which one is lost. */
        struct xpu_inventory *inv = xpu_test_probe_host(HOST);
        size_t warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_nvml_merge(inv, r), 4);
        ck_assert_msg(inv->n_warnings == warnings + 1, "%s", shim_warnings_since(inv, warnings));
        ck_assert_str_eq(inv->warnings[warnings], "nvml: 0000:60:00.0: GPU is lost (nvmlDeviceGetPowerUsage failed: "
                                                  "GPU is lost (error 15)); merged only what NVML answered before");
        xpu_inventory_free(inv);
        r = xpu_nvml_result_free(r);
        shim_drop_root(root);

        /* Lost from its handle on: no uuid, no bus id; the merge cannot match it and says so. */
        snprintf(state, sizeof state, "%sdevice.1.lost 1\n", four_devices);
        root = nvml_make_root(DRIVER, state);
        ck_assert_msg(nvml_read_root(root, DRIVER, 5000, &r, err, sizeof err) == 0, "%s", err);
        assert_others_read(r, 1);
        d = &r->devices[1];
        ck_assert(d->lost);
        ck_assert_str_eq(d->lost_reason, "nvmlDeviceGetHandleByIndex_v2 failed: GPU is lost (error 15)");
        ck_assert_uint_eq(d->have, 0);
        ck_assert_str_eq(d->uuid, "");
        inv = xpu_test_probe_host(HOST);
        warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_nvml_merge(inv, r), 3);
        ck_assert_msg(inv->n_warnings == warnings + 1, "%s", shim_warnings_since(inv, warnings));
        ck_assert_str_eq(inv->warnings[warnings], "nvml: device 1 is lost (nvmlDeviceGetHandleByIndex_v2 failed: GPU "
                                                  "is lost (error 15)); not matched to the procfs inventory");
        xpu_inventory_free(inv);
        xpu_nvml_result_free(r);
        shim_drop_root(root);
}
END_TEST

/* Another error code on one device's reading leaves that reading out of that device only. */
START_TEST(test_device_error_code) {
        char state[sizeof four_devices + 128];
        snprintf(state, sizeof state, "%serror.nvmlDeviceGetTemperature.3 999\nerror.nvmlDeviceGetMinorNumber.0 3\n",
                 four_devices);
        char *root = nvml_make_root(DRIVER, state);
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        ck_assert_msg(nvml_read_root(root, DRIVER, 5000, &r, err, sizeof err) == 0, "%s", err);
        for (size_t i = 0; i < 4; i++) {
                const struct xpu_nvml_device *d = &r->devices[i];
                ck_assert(!d->lost);
                ck_assert_uint_eq(!!(d->have & XPU_NVML_HAVE_TEMPERATURE), i != 3);
                ck_assert_uint_eq(!!(d->have & XPU_NVML_HAVE_MINOR), i != 0);
                ck_assert_uint_ne(d->have & XPU_NVML_HAVE_POWER_USAGE, 0);
        }
        xpu_nvml_result_free(r);
        shim_drop_root(root);
}
END_TEST

/* A call that hangs on one device only: the whole read ends at the timeout, no helper left. */
START_TEST(test_device_hang) {
        char state[sizeof four_devices + 128];
        snprintf(state, sizeof state, "%shang.nvmlDeviceGetPowerUsage.3 1\n", four_devices);
        char *root = nvml_make_root(DRIVER, state);
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        long long t0 = shim_now_ms();
        ck_assert_int_eq(nvml_read_root(root, DRIVER, 400, &r, err, sizeof err), -ETIMEDOUT);
        long long took = shim_now_ms() - t0;
        ck_assert_msg(took >= 350 && took < 1400, "took %lld ms", took);
        ck_assert_str_eq(err, "NVML helper timed out after 400 ms");
        ck_assert_ptr_null(r);
        ck_assert_int_eq(shim_count_children(), 0);
        shim_drop_root(root);
}
END_TEST

/* A call that aborts on one device (a MIG query): the read fails with the signal, nothing more. */
START_TEST(test_device_abort) {
        char state[sizeof four_devices + 128];
        snprintf(state, sizeof state, "%sdevice.1.mig_mode 1\nabort.nvmlDeviceGetMaxMigDeviceCount.1 1\n", four_devices);
        char *root = nvml_make_root(DRIVER, state);
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        ck_assert_int_eq(nvml_read_root(root, DRIVER, 5000, &r, err, sizeof err), -ECONNABORTED);
        ck_assert_str_eq(err, "NVML helper killed by signal 6 (Aborted)");
        ck_assert_ptr_null(r);
        ck_assert_int_eq(shim_count_children(), 0);
        shim_drop_root(root);
}
END_TEST


/* The NVLink fabric registration (nvmlDeviceGetGpuFabricInfo[V]): device 0 a GB200 registered in
 * clique 4026 (the values of leptonai/gpud pull request 1106's GB200), through the V call with its
 * health mask; device 1 still in progress on a driver without the V call; device 2 all-zero
 * cluster (an HGX H100 without a multi-node fabric); device 3 NOT_SUPPORTED (a PCIe board). */
static const char fabric_state[] = "driver_version " DRIVER "\n"
                                   "device_count 4\n"
                                   "device.0.name NVIDIA GB200\n"
                                   "device.0.uuid GPU-24fb92fc-15ec-deff-a5c1-82b48e063f59\n"
                                   "device.0.bus_id 00000000:1A:00.0\n"
                                   "device.0.fabric 3 0 4026 9c6f5af353bf49b5a436b66766c413c3 0\n"
                                   "device.1.name NVIDIA GB200\n"
                                   "device.1.uuid GPU-5a889549-86cd-3b1b-685e-24042771850c\n"
                                   "device.1.bus_id 00000000:1B:00.0\n"
                                   "device.1.fabric 2 0 0 00000000000000000000000000000000\n"
                                   "device.2.name NVIDIA GB200\n"
                                   "device.2.uuid GPU-7266bf77-cb00-bbcf-dec7-14edeb72aaaa\n"
                                   "device.2.bus_id 00000000:60:00.0\n"
                                   "device.2.fabric 3 0 0 00000000000000000000000000000000 0\n"
                                   "device.3.name NVIDIA GB200\n"
                                   "device.3.uuid GPU-00000000-0000-0000-0000-000000000003\n"
                                   "device.3.bus_id 00000000:61:00.0\n";

START_TEST(test_fabric) {
        char *root = nvml_make_root(DRIVER, fabric_state);
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        ck_assert_msg(nvml_read_root(root, DRIVER, 5000, &r, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(r->n, 4);
        struct xpu_readings rd[4];
        for (int i = 0; i < 4; i++)
                xpu_nvml_device_readings(&r->devices[i], &rd[i]);
        /* registered, with the health mask of the V call */
        ck_assert_uint_eq(rd[0].have & (XPU_READ_FABRIC | XPU_READ_FABRIC_HEALTH),
                          XPU_READ_FABRIC | XPU_READ_FABRIC_HEALTH);
        ck_assert_uint_eq(rd[0].fabric_state, XPU_FABRIC_COMPLETED);
        ck_assert_str_eq(xpu_fabric_state_to_string(XPU_FABRIC_COMPLETED), "completed");
        ck_assert_uint_eq(rd[0].fabric_status, 0);
        ck_assert_uint_eq(rd[0].fabric_clique_id, 4026);
        ck_assert_str_eq(rd[0].fabric_cluster_uuid, "9c6f5af3-53bf-49b5-a436-b66766c413c3");
        ck_assert_uint_eq(rd[0].fabric_health_mask, 0);
        /* in progress, first call only: a state, nothing else */
        ck_assert_uint_eq(rd[1].have & (XPU_READ_FABRIC | XPU_READ_FABRIC_HEALTH), XPU_READ_FABRIC);
        ck_assert_uint_eq(rd[1].fabric_state, XPU_FABRIC_IN_PROGRESS);
        ck_assert_str_eq(rd[1].fabric_cluster_uuid, "");
        /* completed with an all-zero cluster: no cluster, never "00000000-..." */
        ck_assert_uint_eq(rd[2].fabric_state, XPU_FABRIC_COMPLETED);
        ck_assert_str_eq(rd[2].fabric_cluster_uuid, "");
        /* NOT_SUPPORTED: absent */
        ck_assert_uint_eq(rd[3].have & (XPU_READ_FABRIC | XPU_READ_FABRIC_HEALTH), 0);
        xpu_nvml_result_free(r);
        shim_drop_root(root);
}
END_TEST

static Suite *nvml_readings_suite(void) {
        Suite *s = suite_create("nvidia-nvml.readings");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 20);
        tcase_add_test(tc, test_readings_round_trip);
        tcase_add_test(tc, test_fabric);
        tcase_add_test(tc, test_mig_incomplete);
        tcase_add_test(tc, test_gpu_lost_one_of_four);
        tcase_add_test(tc, test_device_error_code);
        tcase_add_test(tc, test_device_hang);
        tcase_add_test(tc, test_device_abort);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(nvml_readings_suite());
}
