/* SPDX-License-Identifier: Apache-2.0 */
/* probes/nvidia/nvidia-nvml-parse.c without a helper: the reply parser on every key of the wire format
 * (MIG, memory used, readings, lost) and malformed values, the merge rules (MIG, memory used,
 * minor cross-check, lost devices, WSL2's driver store entry replaced by NVML's GPUs) and the rich
 * backend's JSON and text views. */
#include <cJSON.h>

#include "shim-root.h"
#include "amd/amd-facts.h"
#include "nvidia/nvidia-facts.h"
#include "rich.h"
#include "vendor.h"

#define HEAD "library /usr/lib/libnvidia-ml.so.535.54.03\ndriver_version 535.54.03\ncuda_driver_version 12020\n"

/* One GPU with every key of the wire format. */
static const char full_reply[] = HEAD "device_count 2\n"
                                      "device.0.uuid GPU-202d648d-7b39-6345-296c-251c4321e21c\n"
                                      "device.0.name NVIDIA A100-SXM4-80GB\n"
                                      "device.0.minor 1\n"
                                      "device.0.bus_id 00000000:01:00.0\n"
                                      "device.0.memory_total 85899345920\n"
                                      "device.0.memory_used 911212544\n"
                                      "device.0.cc 8.0\n"
                                      "device.0.brand NVIDIA\n"
                                      "device.0.mig_mode 1\n"
                                      "device.0.mig_count 2\n"
                                      "device.0.mig.1.uuid MIG-bbbbbbbb-0000-4000-8000-000000000002\n"
                                      "device.0.mig.1.ci 0\n"
                                      "device.0.mig.1.gi 5\n"
                                      "device.0.mig.0.uuid MIG-aaaaaaaa-0000-4000-8000-000000000001\n"
                                      "device.0.mig.0.gi 3\n"
                                      "device.0.mig.0.ci 0\n"
                                      "device.0.mig.0.name NVIDIA A100-SXM4-80GB MIG 1g.20gb\n"
                                      "device.0.mig.0.memory_total 20937965568\n"
                                      "device.0.util_gpu 35\n"
                                      "device.0.util_memory 100\n"
                                      "device.0.temperature 27\n"
                                      "device.0.power_usage_mw 71234\n"
                                      "device.0.power_limit_mw 500000\n"
                                      "device.0.energy_mj 18446744073709551615\n"
                                      "device.0.clock_sm_hz 1410000000\n"
                                      "device.0.clock_memory_hz 1593000000\n"
                                      "device.0.ecc_corrected 3\n"
                                      "device.0.ecc_uncorrected 0\n"
                                      "device.0.clock_event_reasons 36\n"
                                      "device.1.lost nvmlDeviceGetHandleByIndex_v2 failed: GPU is lost (error 15)\n"
                                      "end\n";

START_TEST(test_parse_every_key) {
        struct xpu_nvml_result *r = nvml_parse_ok(full_reply);
        ck_assert_str_eq(r->cuda_driver_version, "12.2");
        ck_assert_uint_eq(r->n, 2);
        const struct xpu_nvml_device *d = &r->devices[0];
        ck_assert_uint_eq(d->have, XPU_NVML_HAVE_MINOR | XPU_NVML_HAVE_PCI | XPU_NVML_HAVE_MEMORY_TOTAL |
                                           XPU_NVML_HAVE_MEMORY_USED | XPU_NVML_HAVE_COMPUTE_CAPABILITY |
                                           XPU_NVML_HAVE_BRAND | XPU_NVML_HAVE_MIG_MODE | XPU_NVML_HAVE_MIG_DEVICES |
                                           XPU_NVML_HAVE_UTIL_GPU | XPU_NVML_HAVE_UTIL_MEMORY |
                                           XPU_NVML_HAVE_TEMPERATURE | XPU_NVML_HAVE_POWER_USAGE |
                                           XPU_NVML_HAVE_POWER_LIMIT | XPU_NVML_HAVE_ENERGY | XPU_NVML_HAVE_CLOCK_SM |
                                           XPU_NVML_HAVE_CLOCK_MEMORY | XPU_NVML_HAVE_ECC_CORRECTED |
                                           XPU_NVML_HAVE_ECC_UNCORRECTED | XPU_NVML_HAVE_CLOCK_EVENTS);
        ck_assert_str_eq(d->pci_bus_id, "0000:01:00.0");
        ck_assert_uint_eq(d->memory_used_bytes, 911212544ull);
        ck_assert(d->mig_enabled);
        ck_assert_uint_eq(d->n_mig, 2);
        ck_assert_str_eq(d->mig[0].uuid, "MIG-aaaaaaaa-0000-4000-8000-000000000001");
        ck_assert_str_eq(d->mig[1].uuid, "MIG-bbbbbbbb-0000-4000-8000-000000000002");
        ck_assert_uint_eq(d->mig[0].gi, 3);
        ck_assert_uint_eq(d->mig[0].ci, 0);
        ck_assert_str_eq(d->mig[0].name, "NVIDIA A100-SXM4-80GB MIG 1g.20gb");
        ck_assert_uint_eq(d->mig[0].memory_total_bytes, 20937965568ull);
        ck_assert_uint_eq(d->mig[1].gi, 5);
        ck_assert_str_eq(d->mig[1].name, "");
        ck_assert_uint_eq(d->mig[1].memory_total_bytes, 0);
        ck_assert_uint_eq(d->utilization_gpu_percent, 35);
        ck_assert_uint_eq(d->utilization_memory_percent, 100);
        ck_assert_uint_eq(d->temperature_celsius, 27);
        ck_assert_uint_eq(d->power_usage_milliwatts, 71234);
        ck_assert_uint_eq(d->power_limit_milliwatts, 500000);
        ck_assert_uint_eq(d->energy_millijoules, UINT64_MAX);
        ck_assert_uint_eq(d->clock_sm_hz, 1410000000ull);
        ck_assert_uint_eq(d->clock_memory_hz, 1593000000ull);
        ck_assert_uint_eq(d->ecc_corrected, 3);
        ck_assert_uint_eq(d->ecc_uncorrected, 0);
        ck_assert_uint_eq(d->clock_event_reasons, 0x24);
        ck_assert(!d->lost);
        ck_assert_str_eq(d->lost_reason, "");

        const struct xpu_nvml_device *l = &r->devices[1];
        ck_assert(l->lost);
        ck_assert_str_eq(l->lost_reason, "nvmlDeviceGetHandleByIndex_v2 failed: GPU is lost (error 15)");
        ck_assert_str_eq(l->uuid, "");
        ck_assert_uint_eq(l->have, 0);
        xpu_nvml_result_free(r);

        /* MIG mode off, and on without a list (the helper could not read it completely). */
        r = nvml_parse_ok(HEAD "device_count 2\ndevice.0.uuid GPU-a\ndevice.0.name A\ndevice.0.mig_mode 0\n"
                               "device.1.uuid GPU-b\ndevice.1.name B\ndevice.1.mig_mode 1\nend\n");
        ck_assert(!r->devices[0].mig_enabled);
        ck_assert_uint_eq(r->devices[0].have, XPU_NVML_HAVE_MIG_MODE);
        ck_assert(r->devices[1].mig_enabled);
        ck_assert_uint_eq(r->devices[1].have, XPU_NVML_HAVE_MIG_MODE);
        ck_assert_uint_eq(r->devices[1].n_mig, 0);
        xpu_nvml_result_free(r);
}
END_TEST

/* Every new key with a value of the wrong form, out of range or out of order is garbage on its
 * line; a list with a hole is garbage at the end. */
START_TEST(test_parse_malformed) {
#define DEV HEAD "device_count 1\ndevice.0.uuid GPU-a\ndevice.0.name A\n"
        static const struct {
                const char *text;
                const char *err;
        } cases[] = {
                { DEV "device.0.memory_used -1\nend\n", "line 7" },
                { DEV "device.0.memory_used 18446744073709551616\nend\n", "line 7" },
                { DEV "device.0.memory_used 12k\nend\n", "line 7" },
                { DEV "device.0.util_gpu 101\nend\n", "line 7" },
                { DEV "device.0.util_memory 4294967296\nend\n", "line 7" },
                { DEV "device.0.temperature hot\nend\n", "line 7" },
                { DEV "device.0.power_usage_mw 4294967296\nend\n", "line 7" },
                { DEV "device.0.power_limit_mw 1.5\nend\n", "line 7" },
                { DEV "device.0.energy_mj 0x10\nend\n", "line 7" },
                { DEV "device.0.clock_sm_hz -5\nend\n", "line 7" },
                { DEV "device.0.clock_memory_hz x\nend\n", "line 7" },
                { DEV "device.0.ecc_corrected +\nend\n", "line 7" },
                { DEV "device.0.ecc_uncorrected 1e3\nend\n", "line 7" },
                { DEV "device.0.clock_event_reasons 0x4\nend\n", "line 7" },
                { DEV "device.0.mig_mode 2\nend\n", "line 7" },
                { DEV "device.0.mig_mode yes\nend\n", "line 7" },
                { DEV "device.0.mig_mode 1\ndevice.0.mig_mode 1\nend\n", "line 8" },
                { DEV "device.0.mig_count 1\nend\n", "line 7" },                          /* before mig_mode */
                { DEV "device.0.mig_mode 0\ndevice.0.mig_count 1\nend\n", "line 8" },     /* MIG off */
                { DEV "device.0.mig_mode 1\ndevice.0.mig_count 9\nend\n", "line 8" },     /* > XPU_MIG_DEVICES_MAX */
                { DEV "device.0.mig_mode 1\ndevice.0.mig_count 1\ndevice.0.mig_count 1\nend\n", "line 9" },
                { DEV "device.0.mig_mode 1\ndevice.0.mig.0.uuid MIG-a\nend\n", "line 8" }, /* before mig_count */
                { DEV "device.0.mig_mode 1\ndevice.0.mig_count 1\ndevice.0.mig.1.uuid MIG-a\nend\n", "line 9" },
                { DEV "device.0.mig_mode 1\ndevice.0.mig_count 2\ndevice.0.mig.01.uuid MIG-a\nend\n", "line 9" },
                { DEV "device.0.mig_mode 1\ndevice.0.mig_count 1\ndevice.0.mig.0.uuid GPU-a\nend\n", "line 9" },
                { DEV "device.0.mig_mode 1\ndevice.0.mig_count 1\ndevice.0.mig.0.serial MIG-a\nend\n", "line 9" },
                { DEV "device.0.mig_mode 1\ndevice.0.mig_count 1\ndevice.0.mig.0.gi 256\nend\n", "line 9" },
                { DEV "device.0.mig_mode 1\ndevice.0.mig_count 1\ndevice.0.mig.0.ci 03\nend\n", "line 9" },
                { DEV "device.0.mig_mode 1\ndevice.0.mig_count 1\ndevice.0.mig.0.gi 1\ndevice.0.mig.0.gi 1\nend\n",
                  "line 10" },
                { DEV "device.0.mig_mode 1\ndevice.0.mig_count 1\ndevice.0.mig.0.memory_total 0\nend\n", "line 9" },
                { DEV "device.0.mig_mode 1\ndevice.0.mig_count 1\ndevice.0.mig.0.uuid MIG-a\ndevice.0.mig.0.gi 1\nend\n",
                  "device 0 lacks MIG device 0's uuid, gi or ci" },
                { DEV "device.0.mig_mode 1\ndevice.0.mig_count 2\ndevice.0.mig.0.uuid MIG-a\ndevice.0.mig.0.gi 1\n"
                      "device.0.mig.0.ci 0\ndevice.0.mig.1.uuid MIG-b\ndevice.0.mig.1.gi 1\ndevice.0.mig.1.ci 0\nend\n",
                  "device 0 has two MIG devices with GPU instance 1 and compute instance 0" },
                { DEV "device.0.mig_mode 1\ndevice.0.mig_count 1\ndevice.0.mig.0.uuid MIG-a\n"
                      "device.0.mig.0.uuid MIG-b\nend\n",
                  "line 10" },
                { DEV "device.0.mig_mode 1\ndevice.0.mig_count 1\ndevice.0.mig.-1.uuid MIG-a\nend\n", "line 9" },
                { DEV "device.0.mig_mode 1\ndevice.0.mig_count 1\ndevice.0.mig. 0.uuid MIG-a\nend\n", "line 9" },
                { DEV "device.0.mig_mode 1\ndevice.0.mig_count 1\ndevice.0.mig.0.uuid MIG-"
                      "0123456789012345678901234567890123456789012345678901234567890\nend\n",
                  "line 9" },
                { DEV "device.0.mig_mode 1\ndevice.0.mig_count 2\ndevice.0.mig.1.uuid MIG-b\nend\n",
                  "device 0 lacks MIG device 0's uuid, gi or ci" },
                { DEV "device.0.remap 0 2 1\nend\n", "line 7" },
                { DEV "device.0.remap 0 2 2 0\nend\n", "line 7" },
                { DEV "device.0.remap 01 2 1 0\nend\n", "line 7" },
                { DEV "device.0.remap 0 2 1 0 5\nend\n", "line 7" },
                { DEV "device.0.remap 0  2 1 0\nend\n", "line 7" },
                { DEV "device.0.remap 4294967296 0 0 0\nend\n", "line 7" },
                { DEV "device.0.remap 0 0 0 0\ndevice.0.remap 0 0 0 0\nend\n", "line 8" },
                { DEV "device.0.retired 1 0 2\nend\n", "line 7" },
                { DEV "device.0.retired -1 0 0\nend\n", "line 7" },
                { DEV "device.0.lost\nend\n", "line 7" },
                { DEV "device.0.utilization 5\nend\n", "line 7" },
        };
#undef DEV
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct xpu_nvml_result *r = NULL;
                char err[256] = "", want[256];
                snprintf(want, sizeof want, "garbage from the NVML helper: %s", cases[i].err);
                ck_assert_msg(xpu_nvml_parse_reply(cases[i].text, &r, err, sizeof err) == -EBADMSG, "case %zu", i);
                ck_assert_msg(strcmp(err, want) == 0, "case %zu: \"%s\", want \"%s\"", i, err, want);
                ck_assert_ptr_null(r);
        }
}
END_TEST

/* NVML is matched to NVIDIA's devices only: a reply that names an AMD GPU's bus id matches
 * nothing and writes nothing into that device (its facts share the union with NVIDIA's). */
START_TEST(test_merge_other_vendor_untouched) {
        struct xpu_inventory *inv = xpu_test_probe_host("amd-mi210x8");
        ck_assert_uint_gt(inv->n_devices, 0);
        struct xpu_device before = inv->devices[0];
        ck_assert_str_ne(before.pci_bus_id, "");
        char reply[1024];
        snprintf(reply, sizeof reply,
                 HEAD "device_count 1\ndevice.0.uuid GPU-00000000-0000-4000-8000-000000000003\n"
                      "device.0.name NVIDIA H100\ndevice.0.bus_id %s\ndevice.0.minor 3\n"
                      "device.0.cc 9.0\ndevice.0.brand Tesla\nend\n",
                 before.pci_bus_id);
        struct xpu_nvml_result *r = nvml_parse_ok(reply);
        ck_assert_int_eq(xpu_nvml_merge(inv, r), 0);
        ck_assert_mem_eq(inv->devices[0].vendor_facts, before.vendor_facts, sizeof before.vendor_facts);
        ck_assert_str_eq(xpu_amd_facts(&inv->devices[0])->gfx_target, "gfx90a");
        ck_assert_str_eq(inv->devices[0].uuid, before.uuid);
        xpu_nvml_result_free(r);
        xpu_inventory_free(inv);
}
END_TEST

/* The fast path lists the MIG devices with their capability nodes; NVML adds UUIDs, names and
 * memory to the ones with the same GPU and compute instance ids. A disagreeing mode is a warning
 * and changes nothing. */
START_TEST(test_merge_mig) {
        struct xpu_inventory *inv = xpu_test_probe_host("nvidia-a100-mig");
        ck_assert_uint_eq(inv->n_devices, 1);
        struct xpu_device *dev = shim_by_bus(inv, "0000:01:00.0");
        ck_assert_uint_ne(dev->have & XPU_HAVE_MIG_MODE, 0);
        ck_assert(xpu_nvidia_facts(dev)->mig_enabled);
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->n_mig, 4);
        ck_assert_int_eq(xpu_device_field_source(dev, XPU_FIELD_MIG), XPU_SOURCE_PROCFS);
        size_t warnings = inv->n_warnings;

        struct xpu_nvml_result *r = nvml_parse_ok(full_reply);
        ck_assert_int_eq(xpu_nvml_merge(inv, r), 1);
        ck_assert(xpu_nvidia_facts(dev)->mig_enabled);
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->n_mig, 4);
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->mig[0].gi, 3);
        ck_assert_str_eq(xpu_nvidia_facts(dev)->mig[0].uuid, "MIG-aaaaaaaa-0000-4000-8000-000000000001");
        ck_assert_str_eq(xpu_nvidia_facts(dev)->mig[0].name, "NVIDIA A100-SXM4-80GB MIG 1g.20gb");
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->mig[0].have, XPU_MIG_HAVE_CAPS | XPU_MIG_HAVE_MEMORY_TOTAL);
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->mig[0].memory_total_bytes, 20937965568ull);
        ck_assert_str_eq(xpu_nvidia_facts(dev)->mig[0].gi_cap.path, "/dev/nvidia-caps/nvidia-cap165");
        ck_assert_str_eq(xpu_nvidia_facts(dev)->mig[1].uuid, ""); /* GI 4: NVML did not list it */
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->mig[2].gi, 5);
        ck_assert_str_eq(xpu_nvidia_facts(dev)->mig[2].uuid, "MIG-bbbbbbbb-0000-4000-8000-000000000002");
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->mig[2].have, XPU_MIG_HAVE_CAPS);
        ck_assert_int_eq(xpu_device_field_source(dev, XPU_FIELD_MIG), XPU_SOURCE_PROCFS);
        /* The fast path's uuid and minor stay; memory used is filled. */
        ck_assert_str_eq(dev->uuid, "GPU-202d648d-7b39-6345-296c-251c4321e21c");
        ck_assert_int_eq(xpu_device_field_source(dev, XPU_FIELD_UUID), XPU_SOURCE_PROCFS);
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->minor, 1);
        ck_assert_uint_eq(dev->memory_used_bytes, 911212544ull);
        ck_assert_int_eq(xpu_device_field_source(dev, XPU_FIELD_MEMORY_USED), XPU_SOURCE_NVML);
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version, "12.2");
        /* Device 1 is lost and has no bus id: one warning, no device. */
        ck_assert_uint_eq(inv->n_warnings, warnings + 1);
        ck_assert_str_eq(inv->warnings[warnings], "nvml: device 1 is lost (nvmlDeviceGetHandleByIndex_v2 failed: GPU is "
                                                  "lost (error 15)); not matched to the procfs inventory");
        xpu_nvml_result_free(r);

        /* Another reading with MIG off and a different memory used: the mode disagrees (warning),
         * memory used is a live reading (no warning, kept). */
        r = nvml_parse_ok(HEAD "device_count 1\ndevice.0.uuid GPU-202d648d-7b39-6345-296c-251c4321e21c\n"
                               "device.0.name NVIDIA A100-SXM4-80GB\ndevice.0.bus_id 0000:01:00.0\n"
                               "device.0.memory_total 85899345920\ndevice.0.memory_used 1\ndevice.0.mig_mode 0\nend\n");
        warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_nvml_merge(inv, r), 1);
        ck_assert_uint_eq(inv->n_warnings, warnings + 1);
        ck_assert_str_eq(inv->warnings[warnings],
                         "0000:01:00.0: nvml reports mig \"disabled\" but procfs has \"enabled\"; keeping procfs's");
        ck_assert(xpu_nvidia_facts(dev)->mig_enabled);
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->n_mig, 4);
        ck_assert_uint_eq(dev->memory_used_bytes, 911212544ull);
        xpu_nvml_result_free(r);
        xpu_inventory_free(inv);

        /* No capabilities directory (another mount namespace): NVML's MIG devices are listed
         * without nodes, in GPU instance order; MIG on without a list gives the mode alone. */
        char *root = xpu_test_copy_host("nvidia-a100-mig");
        char caps[PATH_MAX];
        snprintf(caps, sizeof caps, "%s/proc/driver/nvidia/capabilities", root);
        xpu_test_rm_rf(caps);
        inv = xpu_test_probe_backend(xpu_vendors[XPU_VENDOR_NVIDIA], root);
        dev = shim_by_bus(inv, "0000:01:00.0");
        ck_assert_uint_eq(dev->have & XPU_HAVE_MIG_MODE, 0);
        r = nvml_parse_ok(full_reply);
        ck_assert_int_eq(xpu_nvml_merge(inv, r), 1);
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->n_mig, 2);
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->mig[0].gi, 3);
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->mig[1].gi, 5);
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->mig[1].have, 0);
        ck_assert_str_eq(xpu_nvidia_facts(dev)->mig[1].uuid, "MIG-bbbbbbbb-0000-4000-8000-000000000002");
        ck_assert_int_eq(xpu_device_field_source(dev, XPU_FIELD_MIG), XPU_SOURCE_NVML);
        xpu_nvml_result_free(r);
        xpu_inventory_free(inv);

        /* One UUID for two MIG devices names neither, with a warning for each. */
        inv = xpu_test_probe_host("nvidia-a100-mig");
        r = nvml_parse_ok(HEAD "device_count 1\ndevice.0.uuid GPU-202d648d-7b39-6345-296c-251c4321e21c\n"
                               "device.0.name NVIDIA A100-SXM4-80GB\ndevice.0.bus_id 0000:01:00.0\n"
                               "device.0.mig_mode 1\ndevice.0.mig_count 2\n"
                               "device.0.mig.0.uuid MIG-aaaaaaaa-0000-4000-8000-000000000001\ndevice.0.mig.0.gi 3\n"
                               "device.0.mig.0.ci 0\ndevice.0.mig.1.uuid MIG-AAAAAAAA-0000-4000-8000-000000000001\n"
                               "device.0.mig.1.gi 4\ndevice.0.mig.1.ci 0\nend\n");
        warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_nvml_merge(inv, r), 1);
        dev = shim_by_bus(inv, "0000:01:00.0");
        ck_assert_str_eq(xpu_nvidia_facts(dev)->mig[0].uuid, "");
        ck_assert_str_eq(xpu_nvidia_facts(dev)->mig[1].uuid, "");
        ck_assert_uint_eq(inv->n_warnings, warnings + 2);
        ck_assert_msg(strstr(inv->warnings[warnings], "reports MIG UUID MIG-aaaaaaaa-0000-4000-8000-000000000001 for two"),
                      "%s", inv->warnings[warnings]);
        xpu_nvml_result_free(r);
        xpu_inventory_free(inv);

        inv = xpu_test_probe_backend(xpu_vendors[XPU_VENDOR_NVIDIA], root);
        r = nvml_parse_ok(HEAD "device_count 1\ndevice.0.uuid GPU-202d648d-7b39-6345-296c-251c4321e21c\n"
                               "device.0.name NVIDIA A100-SXM4-80GB\ndevice.0.bus_id 0000:01:00.0\n"
                               "device.0.mig_mode 1\nend\n");
        ck_assert_int_eq(xpu_nvml_merge(inv, r), 1);
        dev = shim_by_bus(inv, "0000:01:00.0");
        ck_assert(xpu_nvidia_facts(dev)->mig_enabled);
        ck_assert_uint_ne(dev->have & XPU_HAVE_MIG_MODE, 0);
        ck_assert_uint_eq(xpu_nvidia_facts(dev)->n_mig, 0);
        xpu_nvml_result_free(r);
        xpu_inventory_free(inv);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* NVML's minor differing from procfs's is a warning (procfs keeps it); a lost device that has a
 * bus id is matched, merged with what was read before the loss, and named in a warning. */
START_TEST(test_merge_minor_and_lost) {
        struct xpu_inventory *inv = xpu_test_probe_host("nvidia-rtx2080ti-x8");
        size_t warnings = inv->n_warnings;
        struct xpu_nvml_result *r = nvml_parse_ok(
                "library /l\ndriver_version 465.19.01\ndevice_count 2\n"
                "device.0.uuid GPU-307dcc96-618a-4416-c1ef-87823c2e1a31\ndevice.0.name NVIDIA GeForce RTX 2080 Ti\n"
                "device.0.bus_id 00000000:1A:00.0\ndevice.0.minor 5\n"
                "device.1.uuid GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe\ndevice.1.name NVIDIA GeForce RTX 2080 Ti\n"
                "device.1.bus_id 00000000:1B:00.0\ndevice.1.minor 1\ndevice.1.memory_total 11554717696\n"
                "device.1.temperature 40\n"
                "device.1.lost nvmlDeviceGetPowerUsage failed: GPU is lost (error 15)\nend\n");
        ck_assert_int_eq(xpu_nvml_merge(inv, r), 2);
        ck_assert_msg(inv->n_warnings == warnings + 2, "%s", shim_warnings_since(inv, warnings));
        ck_assert_str_eq(inv->warnings[warnings],
                         "0000:1a:00.0: nvml reports minor \"5\" but procfs has \"0\"; keeping procfs's");
        ck_assert_str_eq(inv->warnings[warnings + 1], "nvml: 0000:1b:00.0: GPU is lost (nvmlDeviceGetPowerUsage failed: "
                                                      "GPU is lost (error 15)); merged only what NVML answered before");
        ck_assert_uint_eq(xpu_nvidia_facts(shim_by_bus(inv, "0000:1a:00.0"))->minor, 0);
        const struct xpu_device *lost = shim_by_bus(inv, "0000:1b:00.0");
        ck_assert_uint_eq(lost->memory_total_bytes, 11554717696ull);
        ck_assert_str_eq(lost->name, "NVIDIA GeForce RTX 2080 Ti");
        xpu_nvml_result_free(r);
        xpu_inventory_free(inv);
}
END_TEST

/* The rich backend's views: JSON keys with units, MIG devices with their parent, lost. */
START_TEST(test_rich_views) {
        struct xpu_nvml_result *r = nvml_parse_ok(full_reply);
        cJSON *o = xpu_rich_nvml.to_json(r);
        ck_assert_ptr_nonnull(o);
        char *text = cJSON_PrintUnformatted(o);
        ck_assert_ptr_nonnull(text);
        static const char *const want[] = {
                "\"source\":\"nvml\",\"library\":\"/usr/lib/libnvidia-ml.so.535.54.03\",\"driver_version\":\"535.54.03\"",
                "\"cuda_driver_version\":\"12.2\"",
                "\"memory_used_bytes\":911212544",
                "\"mig_enabled\":true",
                "{\"index\":1,\"uuid\":\"MIG-bbbbbbbb-0000-4000-8000-000000000002\",\"gpu_instance_id\":5,"
                "\"compute_instance_id\":0,\"parent_index\":0,\"parent_uuid\":\"GPU-202d648d-7b39-6345-296c-251c4321e21c\"}",
                "\"gpu_instance_id\":3,\"compute_instance_id\":0,\"parent_index\":0,"
                "\"parent_uuid\":\"GPU-202d648d-7b39-6345-296c-251c4321e21c\",\"name\":\"NVIDIA A100-SXM4-80GB MIG 1g.20gb\","
                "\"memory_total_bytes\":20937965568}",
                "\"utilization_gpu_percent\":35",
                "\"utilization_memory_percent\":100",
                "\"temperature_celsius\":27",
                "\"power_usage_watts\":71.234",
                "\"power_limit_watts\":500",
                "\"clock_sm_hz\":1410000000",
                "\"clock_memory_hz\":1593000000",
                "\"ecc_corrected_volatile\":3",
                "\"ecc_uncorrected_volatile\":0",
                "\"clock_event_reasons\":36",
                "\"lost\":true,\"lost_reason\":\"nvmlDeviceGetHandleByIndex_v2 failed: GPU is lost (error 15)\"",
        };
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                ck_assert_msg(strstr(text, want[i]) != NULL, "%s not in %s", want[i], text);
        free(text);
        cJSON_Delete(o);

        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        ck_assert_ptr_nonnull(f);
        xpu_rich_nvml.print(r, f);
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_str_eq(buf, "nvml: /usr/lib/libnvidia-ml.so.535.54.03, driver 535.54.03, CUDA 12.2, 2 devices\n"
                              "  0 0000:01:00.0 GPU-202d648d-7b39-6345-296c-251c4321e21c NVIDIA A100-SXM4-80GB cc 8.0 "
                              "81920 MiB (869 MiB used)\n"
                              "    MIG enabled\n"
                              "    MIG 0 MIG-aaaaaaaa-0000-4000-8000-000000000001 gi 3 ci 0 NVIDIA A100-SXM4-80GB MIG 1g.20gb\n"
                              "    MIG 1 MIG-bbbbbbbb-0000-4000-8000-000000000002 gi 5 ci 0\n"
                              "    gpu 35%; memory 100%; 27 C; 71.2 W; limit 500.0 W; energy 18446744073709.551 kJ; "
                              "SM 1410 MHz; memory clock 1593 MHz; ECC corrected 3; ECC uncorrected 0; "
                              "clock events 0x24\n"
                              "  1 - - -\n"
                              "    LOST: nvmlDeviceGetHandleByIndex_v2 failed: GPU is lost (error 15)\n");
        free(buf);
        xpu_nvml_result_free(r);
}
END_TEST

/* WSL2: NVIDIA's driver store entry (no bus id, source wsl) becomes NVML's GPUs, in NVML's order
 * and before AMD's entry, which stays: bus id where NVML gave one (GPU 1 gave none: filled by
 * position), UUID, name, memory, compute capability, /dev/dxg each, the driver version NVML's. The
 * library rule for such an inventory is WSL2's (xpu_nvidia_lib_of()), the kernel module's elsewhere. */
START_TEST(test_merge_wsl) {
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        inv->platform = XPU_PLATFORM_WSL;
        static const char store[] = "/usr/lib/wsl/drivers/nv_dispsi.inf_amd64_7cc7738d8e428783";
        snprintf(inv->vendors[XPU_VENDOR_NVIDIA].wsl_store, sizeof inv->vendors[0].wsl_store, "%s", store);
        inv->vendors[XPU_VENDOR_NVIDIA].driver_loaded = true;
        static const enum xpu_vendor entries[] = { XPU_VENDOR_NVIDIA, XPU_VENDOR_AMD };
        for (size_t e = 0; e < ELEMENTSOF(entries); e++) {
                struct xpu_device d = { .vendor = entries[e], .source = XPU_SOURCE_WSL, .numa_node = -1 };
                ck_assert_int_eq(xpu_devnode_add(NULL, d.nodes, &d.n_nodes, XPU_DEVICE_NODES_MAX, "/dev/dxg", 10, 124,
                                                 true, false), 0);
                d.index = (unsigned)inv->n_devices;
                ck_assert_ptr_nonnull(xpu_inventory_add_device(inv, &d));
        }
        struct xpu_nvidia_lib lib;
        xpu_nvidia_lib_of(inv, &lib);
        ck_assert(lib.wsl);
        ck_assert_str_eq(lib.wsl_store, store);
        ck_assert_ptr_null(lib.driver_version);

        struct xpu_nvml_result *r = nvml_parse_ok("library /usr/lib/wsl/lib/libnvidia-ml.so.1\n"
                                                  "driver_version 581.57\ncuda_driver_version 13000\n"
                                                  "device_count 2\n"
                                                  "device.0.uuid GPU-00000000-0000-4000-8000-00000000000a\n"
                                                  "device.0.name NVIDIA GeForce RTX 4090\n"
                                                  "device.0.bus_id 00000000:01:00.0\n"
                                                  "device.0.memory_total 25757220864\n"
                                                  "device.0.cc 8.9\n"
                                                  "device.1.uuid GPU-00000000-0000-4000-8000-00000000000b\n"
                                                  "device.1.name NVIDIA RTX A2000\n"
                                                  "end\n");
        ck_assert_int_eq(xpu_nvml_merge(inv, r), 2);
        ck_assert_msg(inv->n_warnings == 0, "%s", inv->n_warnings ? inv->warnings[0] : "");
        ck_assert_uint_eq(inv->n_devices, 3);
        static const char *const uuid[] = { "GPU-00000000-0000-4000-8000-00000000000a",
                                            "GPU-00000000-0000-4000-8000-00000000000b" };
        static const char *const bus[] = { "0000:01:00.0", "" };
        for (unsigned i = 0; i < 2; i++) {
                const struct xpu_device *d = &inv->devices[i];
                ck_assert_int_eq(d->vendor, XPU_VENDOR_NVIDIA);
                ck_assert_int_eq(d->source, XPU_SOURCE_NVML);
                ck_assert_uint_eq(d->index, i);
                ck_assert_uint_eq(d->vendor_index, i);
                ck_assert_str_eq(d->uuid, uuid[i]);
                ck_assert_str_eq(d->pci_bus_id, bus[i]);
                ck_assert_str_eq(d->driver_version, "581.57");
                ck_assert_str_eq(d->nodes[0].path, "/dev/dxg");
                ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_UUID), XPU_SOURCE_NVML);
        }
        ck_assert_str_eq(inv->devices[0].name, "NVIDIA GeForce RTX 4090");
        ck_assert_uint_eq(inv->devices[0].memory_total_bytes, 25757220864u);
        ck_assert_str_eq(xpu_nvidia_facts(&inv->devices[0])->compute_capability, "8.9");
        ck_assert_int_eq(inv->devices[2].vendor, XPU_VENDOR_AMD);
        ck_assert_int_eq(inv->devices[2].source, XPU_SOURCE_WSL);
        ck_assert_uint_eq(inv->devices[2].index, 2);
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].driver_version, "581.57");
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version, "13.0");
        xpu_nvml_result_free(r);
        xpu_inventory_free(inv);

        /* a Linux inventory: the kernel module's version */
        inv = xpu_test_probe_host("nvidia-rtx2080ti-x8");
        xpu_nvidia_lib_of(inv, &lib);
        ck_assert(!lib.wsl);
        ck_assert_str_eq(lib.driver_version, inv->vendors[XPU_VENDOR_NVIDIA].driver_version);
        xpu_inventory_free(inv);
}
END_TEST

static Suite *nvml_parse_suite(void) {
        Suite *s = suite_create("nvidia-nvml-parse");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_parse_every_key);
        tcase_add_test(tc, test_parse_malformed);
        tcase_add_test(tc, test_merge_mig);
        tcase_add_test(tc, test_merge_other_vendor_untouched);
        tcase_add_test(tc, test_merge_minor_and_lost);
        tcase_add_test(tc, test_rich_views);
        tcase_add_test(tc, test_merge_wsl);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(nvml_parse_suite());
}
