/* SPDX-License-Identifier: Apache-2.0 */
/* probes/probe.c: the merge rules every rich backend goes through. A UUID stays unique in the
 * inventory (XPU_VISIBLE_DEVICES=<uuid> must select one device; the partitions of one AMD GPU
 * share its GPU-level id by design), a backend listing one PCI bus id twice has its second device
 * ignored, and a library with more devices than the reply holds is named. Each rule through the
 * helper and through the three backends' merges. */
#include <errno.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amd/amd-rocm-smi.h"
#include "amd/amd-facts.h"
#include "intel/intel-facts.h"
#include "nvidia/nvidia-facts.h"
#include "nvidia/nvidia-cuda.h"
#include "nvidia/nvidia-nvml.h"
#include "nvidia/nvidia-nvml-parse.h"
#include "testlib.h"

#define UUID_1A "GPU-307dcc96-618a-4416-c1ef-87823c2e1a31"
#define UUID_1B "GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe"

static struct xpu_device *at(struct xpu_inventory *inv, enum xpu_vendor vendor, const char *bus) {
        struct xpu_device *d = xpu_inventory_find_bus_id(inv, vendor, bus);
        ck_assert_msg(d != NULL, "no device at %s", bus);
        return d;
}

/* The rule itself: a UUID another device has is not filled, and the warning names both. */
START_TEST(test_uuid_taken) {
        struct xpu_inventory *inv = xpu_test_probe_host("nvidia-rtx2080ti-x8");
        struct xpu_device *a = at(inv, XPU_VENDOR_NVIDIA, "0000:1a:00.0"), *b = at(inv, XPU_VENDOR_NVIDIA, "0000:1b:00.0");
        ck_assert_str_eq(b->uuid, UUID_1B);
        a->uuid[0] = '\0';
        size_t warnings = inv->n_warnings;
        ck_assert_ptr_eq(xpu_inventory_uuid_owner(inv, a, UUID_1B), b);
        ck_assert_ptr_eq(xpu_inventory_uuid_owner(inv, a, "gpu-E28DB54C-aa74-5e20-7e8d-5db5f78f12fe"), b); /* any case */
        ck_assert_ptr_null(xpu_inventory_uuid_owner(inv, b, UUID_1B)); /* its own */
        ck_assert_ptr_null(xpu_inventory_uuid_owner(inv, a, ""));
        ck_assert_int_eq(xpu_device_merge_string(inv, a, XPU_FIELD_UUID, a->uuid, sizeof a->uuid, UUID_1B, XPU_SOURCE_NVML),
                         0);
        ck_assert_str_eq(a->uuid, "");
        ck_assert_int_eq(xpu_device_field_source(a, XPU_FIELD_UUID), XPU_SOURCE_PROCFS);
        ck_assert_uint_eq(inv->n_warnings, warnings + 1);
        char want[256];
        snprintf(want, sizeof want,
                 "0000:1a:00.0: nvml reports uuid \"" UUID_1B "\", which device %u (0000:1b:00.0) already has; not "
                 "filled, a UUID must name one device",
                 b->index);
        ck_assert_str_eq(inv->warnings[warnings], want);
        /* A free UUID is filled as before; other fields never look at other devices. */
        ck_assert_int_eq(xpu_device_merge_string(inv, a, XPU_FIELD_UUID, a->uuid, sizeof a->uuid, UUID_1A, XPU_SOURCE_CUDA),
                         1);
        ck_assert_str_eq(a->uuid, UUID_1A);
        ck_assert_int_eq(xpu_device_field_source(a, XPU_FIELD_UUID), XPU_SOURCE_CUDA);
        a->name[0] = '\0';
        ck_assert_int_eq(xpu_device_merge_string(inv, a, XPU_FIELD_NAME, a->name, sizeof a->name, "GPU", XPU_SOURCE_NVML), 1);
        ck_assert_int_eq(xpu_device_merge_string(inv, b, XPU_FIELD_NAME, b->name, sizeof b->name, "GPU", XPU_SOURCE_NVML), 1);
        xpu_inventory_free(inv);
}
END_TEST

/* Through NVML and libcuda: a GPU without a procfs UUID is offered its neighbour's. */
START_TEST(test_uuid_taken_by_backends) {
        struct xpu_inventory *inv = xpu_test_probe_host("nvidia-rtx2080ti-x8");
        struct xpu_device *a = at(inv, XPU_VENDOR_NVIDIA, "0000:1a:00.0");
        a->uuid[0] = '\0';
        struct xpu_nvml_result *nr = NULL;
        ck_assert_int_eq(xpu_nvml_parse_reply("library /l\ndevice_count 1\ndevice.0.uuid " UUID_1B "\n"
                                              "device.0.bus_id 0000:1a:00.0\nend\n",
                                              &nr, NULL, 0),
                         0);
        size_t warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_nvml_merge(inv, nr), 1);
        ck_assert_str_eq(a->uuid, "");
        ck_assert_uint_eq(inv->n_warnings, warnings + 1);
        ck_assert_msg(strstr(inv->warnings[warnings], "0000:1a:00.0: nvml reports uuid") &&
                              strstr(inv->warnings[warnings], "(0000:1b:00.0) already has"),
                      "%s", inv->warnings[warnings]);
        xpu_nvml_result_free(nr);

        struct xpu_cuda_result *cr = NULL;
        ck_assert_int_eq(xpu_cuda_parse_reply("library /l\ndevice_count 1\ndevice.0.name NVIDIA GeForce RTX 2080 Ti\ndevice.0.uuid " UUID_1B "\n"
                                              "device.0.bus_id 0000:1a:00.0\nend\n",
                                              &cr, NULL, 0),
                         0);
        ck_assert_int_eq(xpu_cuda_merge(inv, cr), 1);
        ck_assert_str_eq(a->uuid, "");
        ck_assert_uint_eq(inv->n_warnings, warnings + 2);
        ck_assert_msg(strstr(inv->warnings[warnings + 1], "0000:1a:00.0: cuda reports uuid"), "%s",
                      inv->warnings[warnings + 1]);
        xpu_cuda_result_free(cr);
        xpu_inventory_free(inv);
}
END_TEST

/* ROCm SMI: the partitions of one GPU all take its GPU-level id (shared by design); another GPU
 * does not get it. */
START_TEST(test_uuid_partitions_share) {
        struct xpu_inventory *inv = xpu_test_probe_host("amd-edge-mi300x-qpx");
        ck_assert_uint_eq(inv->n_devices, 4);
        for (size_t i = 0; i < inv->n_devices; i++)
                inv->devices[i].uuid[0] = '\0';
        struct xpu_rocm_smi_result *r = NULL;
        ck_assert_int_eq(xpu_rocm_smi_parse_reply("library /l\ndevice_count 1\ndevice.0.bus_id 0000:05:00.0\n"
                                                  "device.0.unique_id 1311768467294899695\nend\n",
                                                  &r, NULL, 0),
                         0);
        size_t warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_rocm_smi_merge(inv, r), 4);
        ck_assert_uint_eq(inv->n_warnings, warnings);
        for (size_t i = 0; i < inv->n_devices; i++)
                ck_assert_str_eq(inv->devices[i].uuid, "GPU-1234567890abcdef");
        xpu_rocm_smi_result_free(r);
        xpu_inventory_free(inv);

        /* Two GPUs of amd-mi210x8, the second without a uuid, offered the first one's. */
        inv = xpu_test_probe_host("amd-mi210x8");
        struct xpu_device *d = at(inv, XPU_VENDOR_AMD, "0000:63:00.0");
        const struct xpu_device *owner = at(inv, XPU_VENDOR_AMD, "0000:03:00.0");
        ck_assert_str_eq(owner->uuid, "GPU-c31c435ca66bf59a");
        d->uuid[0] = xpu_amd_facts(d)->unique_id[0] = '\0';
        ck_assert_int_eq(xpu_rocm_smi_parse_reply("library /l\ndevice_count 1\ndevice.0.bus_id 0000:63:00.0\n"
                                                  "device.0.unique_id 14059186201951991194\nend\n",
                                                  &r, NULL, 0),
                         0);
        warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_rocm_smi_merge(inv, r), 1);
        ck_assert_str_eq(d->uuid, "");
        ck_assert_uint_eq(inv->n_warnings, warnings + 1);
        ck_assert_msg(strstr(inv->warnings[warnings], "(0000:03:00.0) already has"), "%s", inv->warnings[warnings]);
        xpu_rocm_smi_result_free(r);
        xpu_inventory_free(inv);
}
END_TEST

/* One backend listing one bus id twice (in two spellings the parsers normalise alike): the first
 * device is merged, the second ignored with a warning, whatever it says. */
START_TEST(test_repeated_bus_id) {
        struct xpu_inventory *inv = xpu_test_probe_host("nvidia-rtx2080ti-x8");
        struct xpu_device *a = at(inv, XPU_VENDOR_NVIDIA, "0000:1a:00.0");
        struct xpu_nvml_result *nr = NULL;
        ck_assert_int_eq(xpu_nvml_parse_reply("library /l\ndevice_count 3\n"
                                              "device.0.uuid " UUID_1A "\ndevice.0.bus_id 1a:00.0\n"
                                              "device.0.memory_total 100\n"
                                              "device.1.uuid GPU-other\ndevice.1.bus_id 00000000:1A:00.0\n"
                                              "device.1.memory_total 200\n"
                                              "device.2.uuid GPU-stray\nend\n",
                                              &nr, NULL, 0),
                         0);
        size_t warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_nvml_merge(inv, nr), 1);
        ck_assert_uint_eq(a->memory_total_bytes, 100);
        ck_assert_uint_eq(inv->n_warnings, warnings + 2);
        ck_assert_str_eq(inv->warnings[warnings], "nvml: devices 0 and 1 both report 0000:1a:00.0; ignoring device 1");
        ck_assert_str_eq(inv->warnings[warnings + 1],
                         "nvml: GPU-stray at an unknown bus id is not in the procfs inventory; ignored");
        xpu_nvml_result_free(nr);

        struct xpu_cuda_result *cr = NULL;
        ck_assert_int_eq(xpu_cuda_parse_reply("library /l\ndevice_count 2\n"
                                              "device.0.name A\ndevice.0.bus_id 0000:1b:00.0\n"
                                              "device.1.name B\ndevice.1.bus_id 1b:00.0\nend\n",
                                              &cr, NULL, 0),
                         0);
        warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_cuda_merge(inv, cr), 1);
        ck_assert_uint_eq(inv->n_warnings, warnings + 1);
        ck_assert_str_eq(inv->warnings[warnings], "cuda: devices 0 and 1 both report 0000:1b:00.0; ignoring device 1");
        ck_assert_str_eq(at(inv, XPU_VENDOR_NVIDIA, "0000:1b:00.0")->name, "A");
        xpu_cuda_result_free(cr);
        xpu_inventory_free(inv);

        inv = xpu_test_probe_host("amd-mi210x8");
        struct xpu_rocm_smi_result *rr = NULL;
        ck_assert_int_eq(xpu_rocm_smi_parse_reply("library /l\ndevice_count 2\n"
                                                  "device.0.bus_id 0000:03:00.0\ndevice.0.vram_total 68702699520\n"
                                                  "device.1.bus_id 3:00.0\ndevice.1.vram_total 1\nend\n",
                                                  &rr, NULL, 0),
                         0);
        warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_rocm_smi_merge(inv, rr), 1);
        ck_assert_uint_eq(inv->n_warnings, warnings + 1);
        ck_assert_str_eq(inv->warnings[warnings], "rocm_smi: devices 0 and 1 both report 0000:03:00.0; ignoring device 1");
        ck_assert_uint_eq(at(inv, XPU_VENDOR_AMD, "0000:03:00.0")->memory_total_bytes, 68702699520ull);
        xpu_rocm_smi_result_free(rr);
        xpu_inventory_free(inv);
}
END_TEST

START_TEST(test_truncated) {
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        ck_assert_int_eq(xpu_merge_warn_truncated(inv, XPU_SOURCE_NVML, 64, 64), 0);
        ck_assert_int_eq(xpu_merge_warn_truncated(inv, XPU_SOURCE_NVML, 70, 64), 1);
        ck_assert_uint_eq(inv->n_warnings, 1);
        ck_assert_str_eq(inv->warnings[0], "nvml: 70 devices, only the first 64 read");
        xpu_inventory_free(inv);

        /* Through the parsers and merges of the three backends. */
        char reply[8192];
        size_t len = (size_t)snprintf(reply, sizeof reply, "library /l\ndevice_count 64\ndevices_total 70\nend\n");
        ck_assert_uint_lt(len, sizeof reply);
        struct xpu_nvml_result *nr = NULL;
        struct xpu_cuda_result *cr = NULL;
        ck_assert_int_eq(xpu_nvml_parse_reply(reply, &nr, NULL, 0), 0);
        ck_assert_int_eq(xpu_cuda_parse_reply(reply, &cr, NULL, 0), 0);
        inv = xpu_test_probe_host("nvidia-rtx2080ti-x8");
        size_t warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_nvml_merge(inv, nr), 0); /* the 64 devices have no bus id: one warning each */
        ck_assert_uint_eq(inv->n_warnings, warnings + 1 + 64);
        ck_assert_str_eq(inv->warnings[warnings], "nvml: 70 devices, only the first 64 read");
        warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_cuda_merge(inv, cr), 0);
        ck_assert_uint_eq(inv->n_warnings, warnings + 1 + 64);
        ck_assert_str_eq(inv->warnings[warnings], "cuda: 70 devices, only the first 64 read");
        xpu_nvml_result_free(nr);
        xpu_cuda_result_free(cr);
        xpu_inventory_free(inv);

        struct xpu_rocm_smi_result *rr = NULL;
        ck_assert_int_eq(xpu_rocm_smi_parse_reply("library /l\ndevice_count 128\ndevices_total 130\nend\n", &rr, NULL, 0),
                         0);
        inv = xpu_test_probe_host("amd-mi210x8");
        warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_rocm_smi_merge(inv, rr), 0);
        ck_assert_uint_eq(inv->n_warnings, warnings + 1 + 128);
        ck_assert_str_eq(inv->warnings[warnings], "rocm_smi: 130 devices, only the first 128 read");
        xpu_rocm_smi_result_free(rr);
        xpu_inventory_free(inv);
}
END_TEST

/* Each vendor's facts live in the device's vendor_facts: the accessors point there (as const as
 * the device), the offsets of the descriptors' fact tables land on the same bytes, a device copied
 * or added to an inventory keeps them, and every vendor's struct fits. */
START_TEST(test_vendor_facts_storage) {
        ck_assert_uint_le(sizeof(struct xpu_nvidia_facts), XPU_VENDOR_FACTS_SIZE);
        ck_assert_uint_le(sizeof(struct xpu_amd_facts), XPU_VENDOR_FACTS_SIZE);
        ck_assert_uint_le(sizeof(struct xpu_intel_facts), XPU_VENDOR_FACTS_SIZE);
        ck_assert_uint_eq(offsetof(struct xpu_device, vendor_facts) % alignof(max_align_t), 0);

        struct xpu_device d = { .vendor = XPU_VENDOR_NVIDIA };
        struct xpu_nvidia_facts *nv = xpu_nvidia_facts(&d);
        ck_assert_ptr_eq((void *)nv, (void *)d.vendor_facts);
        nv->minor = 7;
        snprintf(nv->compute_capability, sizeof nv->compute_capability, "9.0");
        nv->n_mig = 1;
        nv->mig[0].gi = 3;
        const struct xpu_device *cd = &d;
        const struct xpu_nvidia_facts *cnv = xpu_nvidia_facts(cd);
        ck_assert_uint_eq(cnv->minor, 7);
        ck_assert_str_eq((const char *)cd + XPU_NVIDIA_FACT(compute_capability), "9.0");

        struct xpu_device copy = d;
        ck_assert_uint_eq(xpu_nvidia_facts(&copy)->mig[0].gi, 3);
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        struct xpu_device *stored = xpu_inventory_add_device(inv, &d);
        ck_assert_ptr_nonnull(stored);
        ck_assert_str_eq(xpu_nvidia_facts(stored)->compute_capability, "9.0");
        size_t n = 0;
        ck_assert_ptr_nonnull(xpu_mig_devices(stored, &n));
        ck_assert_uint_eq(n, 1);

        struct xpu_device a = { .vendor = XPU_VENDOR_AMD };
        snprintf(xpu_amd_facts(&a)->gfx_target, sizeof xpu_amd_facts(&a)->gfx_target, "gfx90a");
        ck_assert_str_eq((const char *)&a + XPU_AMD_FACT(gfx_target), "gfx90a");
        ck_assert_uint_eq(xpu_mig_count(&a), 0);
        struct xpu_device i = { .vendor = XPU_VENDOR_INTEL };
        xpu_intel_facts(&i)->tile_count = 2;
        ck_assert_uint_eq(*(const uint32_t *)((const char *)&i + XPU_INTEL_FACT(tile_count)), 2);
        xpu_inventory_free(inv);
}
END_TEST

static Suite *probe_merge_suite(void) {
        Suite *s = suite_create("probe");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_uuid_taken);
        tcase_add_test(tc, test_uuid_taken_by_backends);
        tcase_add_test(tc, test_uuid_partitions_share);
        tcase_add_test(tc, test_repeated_bus_id);
        tcase_add_test(tc, test_truncated);
        tcase_add_test(tc, test_vendor_facts_storage);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(probe_merge_suite());
}
