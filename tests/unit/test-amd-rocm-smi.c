/* SPDX-License-Identifier: Apache-2.0 */
/* probes/amd-rocm-smi: the ROCm SMI reply parser, the merge into the sysfs inventory, and the
 * refusals that need no library (--sys-root, library absent), and the helper against the fake
 * librocm_smi64 of tests/shims/fake-rocm-smi.c (answers the real library gives only on odd
 * hardware). The real librocm_smi64 against a fake /sys is tests/e2e/rocm-smi.sh. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "amd/amd-rocm-smi.h"
#include "amd/amd-facts.h"
#include "rich.h"
#include "shim-root.h"

extern const struct xpu_rich_ops xpu_rich_rocm_smi;

#define GARBAGE "garbage from the ROCm SMI helper: "

/* Two devices of amd-mi210x8 (listed in DRM order, not the KFD order of the fast path) and one
 * the fast path does not know. */
static const char three_devices[] = "library /usr/lib/librocm_smi64.so.1.0\n"
                                    "device_count 3\n"
                                    "device.0.bus_id 0000:03:00.0\n"
                                    "device.0.name AMD Instinct MI210\n"
                                    "device.0.vendor_id 4098\n"
                                    "device.0.device_id 29711\n"
                                    "device.0.unique_id 14059186201951991194\n" /* c31c435ca66bf59a */
                                    "device.0.vram_total 68702699520\n"
                                    "device.0.vram_used 10485760\n"
                                    "device.0.busy_percent 7\n"
                                    "device.0.temp_edge 41000\n"
                                    "device.0.temp_junction 44500\n"
                                    "device.0.temp_memory -1500\n"
                                    "device.0.power 95500000\n"
                                    "device.1.bus_id 0000:63:00.0\n"
                                    "device.1.vendor_id 4098\n"
                                    "device.1.device_id 29711\n"
                                    "device.1.vram_total 68702699520\n"
                                    "device.2.bus_id 0000:ff:00.0\n"
                                    "device.2.name Stray\n"
                                    "end\n";

static struct xpu_rocm_smi_result *parse_ok(const char *text) {
        struct xpu_rocm_smi_result *r = NULL;
        char err[256] = "";
        int e = xpu_rocm_smi_parse_reply(text, &r, err, sizeof err);
        ck_assert_msg(e == 0, "parse: %d %s", e, err);
        ck_assert_str_eq(err, "");
        return r;
}

START_TEST(test_parse_good) {
        struct xpu_rocm_smi_result *r = parse_ok(three_devices);
        ck_assert_str_eq(r->library, "/usr/lib/librocm_smi64.so.1.0");
        ck_assert_uint_eq(r->n, 3);
        const struct xpu_rocm_smi_device *d = &r->devices[0];
        ck_assert_str_eq(d->pci_bus_id, "0000:03:00.0");
        ck_assert_str_eq(d->name, "AMD Instinct MI210");
        ck_assert_uint_eq(d->pci_vendor_id, 0x1002);
        ck_assert_uint_eq(d->pci_device_id, 0x740f);
        ck_assert_str_eq(d->unique_id, "c31c435ca66bf59a");
        ck_assert_uint_eq(d->memory_total_bytes, 68702699520ull);
        ck_assert_uint_eq(d->memory_used_bytes, 10485760ull);
        ck_assert_uint_eq(d->busy_percent, 7);
        ck_assert_int_eq(d->temperature_mc[XPU_ROCM_SMI_TEMP_EDGE], 41000);
        ck_assert_int_eq(d->temperature_mc[XPU_ROCM_SMI_TEMP_JUNCTION], 44500);
        ck_assert_int_eq(d->temperature_mc[XPU_ROCM_SMI_TEMP_MEMORY], -1500);
        ck_assert_double_eq_tol(d->power_watts, 95.5, 1e-9);
        ck_assert_uint_eq(d->have, XPU_ROCM_SMI_HAVE_PCI | XPU_ROCM_SMI_HAVE_NAME | XPU_ROCM_SMI_HAVE_PCI_IDS |
                                           XPU_ROCM_SMI_HAVE_UNIQUE_ID | XPU_ROCM_SMI_HAVE_MEMORY_TOTAL |
                                           XPU_ROCM_SMI_HAVE_MEMORY_USED | XPU_ROCM_SMI_HAVE_BUSY |
                                           XPU_ROCM_SMI_HAVE_POWER | XPU_ROCM_SMI_HAVE_TEMP_EDGE |
                                           XPU_ROCM_SMI_HAVE_TEMP_JUNCTION | XPU_ROCM_SMI_HAVE_TEMP_MEMORY);
        d = &r->devices[1];
        ck_assert_uint_eq(d->have, XPU_ROCM_SMI_HAVE_PCI | XPU_ROCM_SMI_HAVE_PCI_IDS | XPU_ROCM_SMI_HAVE_MEMORY_TOTAL);
        ck_assert_str_eq(d->name, "");
        ck_assert_str_eq(d->unique_id, "");
        ck_assert_uint_eq(r->devices[2].have, XPU_ROCM_SMI_HAVE_PCI | XPU_ROCM_SMI_HAVE_NAME);

        /* The JSON view: library, units named, values as read. */
        cJSON *j = xpu_rich_rocm_smi.to_json(r);
        ck_assert_ptr_nonnull(j);
        char *s = cJSON_PrintUnformatted(j);
        ck_assert_ptr_nonnull(s);
        ck_assert_msg(strstr(s, "\"source\":\"rocm_smi\",\"library\":\"/usr/lib/librocm_smi64.so.1.0\",\"devices\":[{"
                                "\"index\":0,\"pci_bus_id\":\"0000:03:00.0\",\"name\":\"AMD Instinct MI210\","
                                "\"pci_vendor_id\":\"0x1002\",\"pci_device_id\":\"0x740f\","
                                "\"unique_id\":\"c31c435ca66bf59a\",\"memory_total_bytes\":68702699520,"
                                "\"memory_used_bytes\":10485760,\"busy_percent\":7,\"temperatures_celsius\":{"
                                "\"edge\":41,\"junction\":44.5,\"memory\":-1.5},\"power_watts\":95.5}"),
                      "%s", s);
        ck_assert_msg(strstr(s, "{\"index\":2,\"pci_bus_id\":\"0000:ff:00.0\",\"name\":\"Stray\"}]"), "%s", s);
        free(s);
        cJSON_Delete(j);

        /* The text view. */
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        ck_assert_ptr_nonnull(f);
        xpu_rich_rocm_smi.print(r, f);
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_str_eq(text, "rocm_smi: /usr/lib/librocm_smi64.so.1.0, 3 devices\n"
                               "  0 0000:03:00.0 1002:740f \"AMD Instinct MI210\" unique_id c31c435ca66bf59a vram "
                               "65520 MiB (10 MiB used) busy 7% edge 41.0 C junction 44.5 C memory -1.5 C 95.5 W\n"
                               "  1 0000:63:00.0 1002:740f vram 65520 MiB\n"
                               "  2 0000:ff:00.0 \"Stray\"\n");
        free(text);
        xpu_rocm_smi_result_free(r);

        /* No devices at all is a valid answer; any bus id form is normalised. */
        r = parse_ok("library /opt/rocm-6.0.2/lib/librocm_smi64.so.6\ndevice_count 1\ndevice.0.bus_id 3:0.0\nend\n");
        ck_assert_str_eq(r->devices[0].pci_bus_id, "0000:03:00.0");
        xpu_rocm_smi_result_free(r);
        r = parse_ok("library /l\ndevice_count 0\nend\n");
        ck_assert_uint_eq(r->n, 0);
        xpu_rocm_smi_result_free(r);
        ck_assert_ptr_null(xpu_rocm_smi_result_free(NULL));
}
END_TEST

/* Every kind of malformed reply is -EBADMSG naming the line (or what is missing), never a result. */
START_TEST(test_parse_garbage) {
        static const struct {
                const char *text, *err;
        } cases[] = {
                { "", GARBAGE "line 1" },
                { "library /l\ndevice_count 0\n", GARBAGE "line 3" },                       /* no "end" */
                { "library /l\ndevice_count 0\nend", GARBAGE "line 3" },                    /* no newline */
                { "library /l\ndevice_count 0\nend\nlibrary /m\n", GARBAGE "line 4" },     /* after "end" */
                { "library /l\ndevice_count 0\nend x\n", GARBAGE "line 3" },                /* "end" with a value */
                { "library /l\nbogus 1\nend\n", GARBAGE "line 2" },                         /* unknown key */
                { "library /l\nlibrary /m\ndevice_count 0\nend\n", GARBAGE "line 2" },      /* repeated */
                { "library /l\ndevice_count 0\ndevice_count 0\nend\n", GARBAGE "line 3" },
                { "library l\ndevice_count 0\nend\n", GARBAGE "line 1" },                   /* not absolute */
                { "library /l\ndevice_count 129\nend\n", GARBAGE "line 2" },                /* above the limit */
                { "library /l\ndevice_count -1\nend\n", GARBAGE "line 2" },
                { "library /l\ndevice_count 1x\nend\n", GARBAGE "line 2" },
                { "library /l\ndevice.0.name A\ndevice_count 1\nend\n", GARBAGE "line 2" }, /* before the count */
                { "library /l\ndevice_count 1\ndevice.1.name A\nend\n", GARBAGE "line 3" }, /* index too high */
                { "library /l\ndevice_count 2\ndevice.01.name A\nend\n", GARBAGE "line 3" }, /* leading zero */
                { "library /l\ndevice_count 1\ndevice.x.name A\nend\n", GARBAGE "line 3" },
                { "library /l\ndevice_count 1\ndevice.0.color red\nend\n", GARBAGE "line 3" }, /* unknown field */
                { "library /l\ndevice_count 1\ndevice.0.\nend\n", GARBAGE "line 3" },
                { "library /l\ndevice_count 1\ndevice.0.name A\ndevice.0.name B\nend\n", GARBAGE "line 4" },
                { "library /l\ndevice_count 1\ndevice.0.bus_id 0000:zz:00.0\nend\n", GARBAGE "line 3" },
                { "library /l\ndevice_count 1\ndevice.0.vram_total 12x\nend\n", GARBAGE "line 3" },
                { "library /l\ndevice_count 1\ndevice.0.vram_used -1\nend\n", GARBAGE "line 3" },
                { "library /l\ndevice_count 1\ndevice.0.vram_total 18446744073709551616\nend\n", GARBAGE "line 3" },
                { "library /l\ndevice_count 1\ndevice.0.busy_percent 4294967296\nend\n", GARBAGE "line 3" },
                { "library /l\ndevice_count 1\ndevice.0.temp_edge 4.5\nend\n", GARBAGE "line 3" },
                { "library /l\ndevice_count 1\ndevice.0.power 1e6\nend\n", GARBAGE "line 3" },
                { "library /l\ndevice_count 1\ndevice.0.name \nend\n", GARBAGE "line 3" },   /* empty value */
                { "library /l\ndevice_count 1\ndevice.0.name\nend\n", GARBAGE "line 3" },    /* no value */
                { "library /l\ndevice_count 1\ndevice.0.name A\x01\nend\n", GARBAGE "line 3" }, /* not printable */
                { "library /l\ndevice_count 1\ndevice.0.name A\xc3\nend\n", GARBAGE "line 3" }, /* not UTF-8 */
                { "library /l\ndevice_count 1\ndevice.0.name A\xc2\x85\nend\n", GARBAGE "line 3" }, /* C1 NEL */
                { "device_count 0\nend\n", GARBAGE "no library" },
                { "library /l\nend\n", GARBAGE "no device_count" },
                { "library /l\ndevice_count 1\ndevice.0.vendor_id 65536\ndevice.0.device_id 1\nend\n",
                  GARBAGE "device 0: vendor id above 0xffff" },
                { "library /l\ndevice_count 2\ndevice.1.device_id 70000\nend\n", GARBAGE "device 1: device id above 0xffff" },
                { "library /l\ndevice_count 1\ndevice.0.unique_id 0\nend\n", GARBAGE "device 0: unique id 0" },
                { "library /l\ndevice_count 1\ndevice.0.busy_percent 101\nend\n", GARBAGE "device 0: busy percent above 100" },
                { "library /l\nerror -19 late\nend\n", GARBAGE "line 2" },                  /* error not first */
                { "error 19 positive\n", GARBAGE "line 1" },
                { "error -19\n", GARBAGE "line 1" },                                          /* no text */
                { "error -19 x\nend\n", GARBAGE "line 1" },                                   /* text after it */
                { "error -5000 x\n", GARBAGE "line 1" },
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                struct xpu_rocm_smi_result *r = NULL;
                char err[256] = "";
                ck_assert_msg(xpu_rocm_smi_parse_reply(cases[i].text, &r, err, sizeof err) == -EBADMSG, "case %zu: %s", i,
                              err);
                ck_assert_msg(strcmp(err, cases[i].err) == 0, "case %zu: \"%s\", want \"%s\"", i, err, cases[i].err);
                ck_assert_ptr_null(r);
        }
        /* A line longer than the reply format allows. */
        char *big = malloc(8192);
        ck_assert_ptr_nonnull(big);
        int n = snprintf(big, 8192, "library /l\ndevice_count 1\ndevice.0.name ");
        memset(big + n, 'A', 600);
        snprintf(big + n + 600, 8192 - (size_t)n - 600, "\nend\n");
        struct xpu_rocm_smi_result *r = NULL;
        char err[256] = "";
        ck_assert_int_eq(xpu_rocm_smi_parse_reply(big, &r, err, sizeof err), -EBADMSG);
        ck_assert_str_eq(err, GARBAGE "line 3");
        /* A name that fits a line but not the name field. */
        snprintf(big + n + 200, 8192 - (size_t)n - 200, "\nend\n");
        ck_assert_int_eq(xpu_rocm_smi_parse_reply(big, &r, err, sizeof err), -EBADMSG);
        ck_assert_str_eq(err, GARBAGE "line 3");
        free(big);
        ck_assert_int_eq(xpu_rocm_smi_parse_reply(NULL, &r, err, sizeof err), -EINVAL);
        /* A name in UTF-8 is kept byte for byte. */
        ck_assert_int_eq(xpu_rocm_smi_parse_reply("library /l\ndevice_count 1\ndevice.0.name AMD Radeon\xe2\x84\xa2 Pro "
                                                  "W7900\nend\n",
                                                  &r, err, sizeof err),
                         0);
        ck_assert_uint_eq(r->n, 1);
        ck_assert_str_eq(r->devices[0].name, "AMD Radeon\xe2\x84\xa2 Pro W7900");
        r = xpu_rocm_smi_result_free(r);
}
END_TEST

/* The helper's own error line is its errno and its text. */
START_TEST(test_parse_helper_error) {
        struct xpu_rocm_smi_result *r = NULL;
        char err[256] = "";
        ck_assert_int_eq(xpu_rocm_smi_parse_reply("error -19 rsmi_init failed: An error occurred during initialization "
                                                  "(status 8)\n",
                                                  &r, err, sizeof err),
                         -ENODEV);
        ck_assert_str_eq(err, "rsmi_init failed: An error occurred during initialization (status 8)");
        ck_assert_ptr_null(r);
        ck_assert_int_eq(xpu_rocm_smi_parse_reply("error -2 not available: librocm_smi64.so.1 not found in /x: /usr/lib\n",
                                                  &r, err, sizeof err),
                         -ENOENT);
        ck_assert_str_eq(err, "not available: librocm_smi64.so.1 not found in /x: /usr/lib");
        ck_assert_int_eq(xpu_rocm_smi_parse_reply("error -90 ROCm SMI helper reply too long\n", &r, NULL, 0), -EMSGSIZE);
}
END_TEST

static struct xpu_device *amd_by_bus(struct xpu_inventory *inv, const char *bus) {
        struct xpu_device *d = xpu_inventory_find_bus_id(inv, XPU_VENDOR_AMD, bus);
        ck_assert_msg(d != NULL, "no AMD device at %s", bus);
        return d;
}

/* Merge by bus id (ROCm SMI lists DRM order, the inventory is KFD order), fill what sysfs lacks,
 * mark it, warn about the stranger. */
START_TEST(test_merge_by_bus_id) {
        struct xpu_inventory *inv = xpu_test_probe_host("amd-mi210x8");
        struct xpu_rocm_smi_result *r = parse_ok(three_devices);
        size_t warnings = inv->n_warnings;
        ck_assert_str_eq(inv->devices[0].pci_bus_id, "0000:63:00.0"); /* KFD order */
        ck_assert_uint_eq(amd_by_bus(inv, "0000:03:00.0")->have & XPU_HAVE_MEMORY_TOTAL, 0);

        ck_assert_int_eq(xpu_rocm_smi_merge(inv, r), 2);
        ck_assert_uint_eq(inv->n_devices, 8);

        struct xpu_device *d = amd_by_bus(inv, "0000:03:00.0");
        ck_assert_str_eq(d->name, "AMD Instinct MI210");
        ck_assert_uint_eq(d->memory_total_bytes, 68702699520ull);
        ck_assert_uint_eq(d->memory_used_bytes, 10485760ull);
        ck_assert_uint_ne(d->have & XPU_HAVE_MEMORY_TOTAL, 0);
        ck_assert_uint_ne(d->have & XPU_HAVE_MEMORY_USED, 0);
        ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_NAME), XPU_SOURCE_ROCM_SMI);
        ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_MEMORY_TOTAL), XPU_SOURCE_ROCM_SMI);
        ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_MEMORY_USED), XPU_SOURCE_ROCM_SMI);
        /* Equal facts stay the fast path's. */
        ck_assert_str_eq(xpu_amd_facts(d)->unique_id, "c31c435ca66bf59a");
        ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_UNIQUE_ID), XPU_SOURCE_SYSFS);
        ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_PCI_IDS), XPU_SOURCE_SYSFS);

        d = amd_by_bus(inv, "0000:63:00.0");
        ck_assert_uint_eq(d->memory_total_bytes, 68702699520ull);
        ck_assert_uint_eq(d->have & XPU_HAVE_MEMORY_USED, 0);
        ck_assert_str_eq(d->name, "");
        ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_NAME), XPU_SOURCE_SYSFS);

        d = amd_by_bus(inv, "0000:43:00.0"); /* not in the reply: untouched */
        ck_assert_uint_eq(d->have & XPU_HAVE_MEMORY_TOTAL, 0);
        ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_MEMORY_TOTAL), XPU_SOURCE_SYSFS);

        ck_assert_uint_eq(inv->n_warnings, warnings + 1);
        ck_assert_str_eq(inv->warnings[warnings],
                         "rocm_smi: device 2 Stray at 0000:ff:00.0 is not in the sysfs inventory; ignored");

        /* Merging twice changes nothing and warns only about the stranger again. */
        ck_assert_int_eq(xpu_rich_rocm_smi.merge(inv, r), 2);
        ck_assert_uint_eq(inv->n_warnings, warnings + 2);
        xpu_rocm_smi_result_free(r);
        xpu_inventory_free(inv);
}
END_TEST

/* What sysfs did not say: unique id (and the uuid made of it), PCI ids. A device without a bus id
 * matches nothing. An NVIDIA device at the same bus id is never touched. */
START_TEST(test_merge_fills_missing) {
        struct xpu_inventory *inv = xpu_test_probe_host("amd-edge-quirks");
        struct xpu_rocm_smi_result *r = parse_ok("library /l\ndevice_count 3\n"
                                                 "device.0.bus_id 0000:0b:00.0\ndevice.0.unique_id 255\n"
                                                 "device.0.vendor_id 4098\ndevice.0.device_id 29631\n"
                                                 "device.1.bus_id 0001:83:00.0\ndevice.1.vendor_id 4098\n"
                                                 "device.1.device_id 29711\n"
                                                 "device.2.name Nowhere\nend\n");
        size_t warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_rocm_smi_merge(inv, r), 2);
        struct xpu_device *d = amd_by_bus(inv, "0000:0b:00.0");
        ck_assert_str_eq(xpu_amd_facts(d)->unique_id, "00000000000000ff");
        ck_assert_str_eq(d->uuid, "GPU-00000000000000ff");
        ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_UNIQUE_ID), XPU_SOURCE_ROCM_SMI);
        ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_UUID), XPU_SOURCE_ROCM_SMI);
        ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_PCI_IDS), XPU_SOURCE_SYSFS); /* 1002:73bf: equal */
        d = amd_by_bus(inv, "0001:83:00.0");
        ck_assert_uint_ne(d->have & XPU_HAVE_PCI_IDS, 0);
        ck_assert_uint_eq(d->pci_vendor_id, 0x1002);
        ck_assert_uint_eq(d->pci_device_id, 0x740f);
        ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_PCI_IDS), XPU_SOURCE_ROCM_SMI);
        ck_assert_uint_eq(inv->n_warnings, warnings + 1);
        ck_assert_str_eq(inv->warnings[warnings],
                         "rocm_smi: device 2 Nowhere at an unknown bus id is not in the sysfs inventory; ignored");
        xpu_rocm_smi_result_free(r);
        xpu_inventory_free(inv);

        /* NVIDIA devices are never ROCm SMI's, whatever their bus id. */
        inv = xpu_test_probe_host("nvidia-rtx2080ti-x8");
        r = parse_ok("library /l\ndevice_count 1\ndevice.0.bus_id 0000:1a:00.0\ndevice.0.name X\n"
                     "device.0.vram_total 1\nend\n");
        warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_rocm_smi_merge(inv, r), 0);
        ck_assert_str_eq(xpu_inventory_find_bus_id(inv, XPU_VENDOR_NVIDIA, "0000:1a:00.0")->name, "NVIDIA GeForce RTX 2080 Ti");
        ck_assert_int_eq(xpu_device_field_source(xpu_inventory_find_bus_id(inv, XPU_VENDOR_NVIDIA, "0000:1a:00.0"),
                                                 XPU_FIELD_MEMORY_TOTAL),
                         XPU_SOURCE_PROCFS);
        ck_assert_uint_eq(inv->n_warnings, warnings + 1);
        xpu_rocm_smi_result_free(r);
        xpu_inventory_free(inv);
}
END_TEST

/* Disagreements become warnings in the one format of probe.h and the sysfs value stays; the live
 * used-memory reading is never compared. */
START_TEST(test_merge_disagreement) {
        struct xpu_inventory *inv = xpu_test_probe_host("amd-mi100x4");
        struct xpu_rocm_smi_result *r = parse_ok("library /l\ndevice_count 1\n"
                                                 "device.0.bus_id 0000:83:00.0\n"
                                                 "device.0.name AMD Instinct MI100\n"
                                                 "device.0.vendor_id 4098\ndevice.0.device_id 29581\n"
                                                 "device.0.unique_id 1\n"
                                                 "device.0.vram_total 34342961153\n"
                                                 "device.0.vram_used 999\nend\n");
        size_t warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_rocm_smi_merge(inv, r), 1);
        struct xpu_device *d = amd_by_bus(inv, "0000:83:00.0");
        ck_assert_uint_eq(inv->n_warnings, warnings + 3);
        ck_assert_str_eq(inv->warnings[warnings], "0000:83:00.0: rocm_smi reports pci_device_id \"1002:738d\" but sysfs has "
                                                  "\"1002:738c\"; keeping sysfs's");
        ck_assert_str_eq(inv->warnings[warnings + 1], "0000:83:00.0: rocm_smi reports unique_id \"0000000000000001\" "
                                                      "but sysfs has \"2aba500bd9e889b6\"; keeping sysfs's");
        ck_assert_str_eq(inv->warnings[warnings + 2], "0000:83:00.0: rocm_smi reports memory_total_bytes "
                                                      "\"34342961153\" but sysfs has \"34342961152\"; keeping sysfs's");
        ck_assert_uint_eq(d->pci_device_id, 0x738c);
        ck_assert_str_eq(xpu_amd_facts(d)->unique_id, "2aba500bd9e889b6");
        ck_assert_str_eq(d->uuid, "GPU-2aba500bd9e889b6");
        ck_assert_uint_eq(d->memory_total_bytes, 34342961152ull);
        ck_assert_uint_eq(d->memory_used_bytes, 6750208ull);
        ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_MEMORY_USED), XPU_SOURCE_SYSFS);
        ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_UNIQUE_ID), XPU_SOURCE_SYSFS);
        /* The name was missing: filled, not a disagreement. */
        ck_assert_str_eq(d->name, "AMD Instinct MI100");
        ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_NAME), XPU_SOURCE_ROCM_SMI);
        xpu_rocm_smi_result_free(r);
        xpu_inventory_free(inv);
}
END_TEST

/* A partitioned MI300X: one PCI device, four KFD devices with its bus id. Each partition takes the
 * GPU-wide facts; memory stays per partition, without a warning about the whole GPU's figure. */
START_TEST(test_merge_partitions) {
        struct xpu_inventory *inv = xpu_test_probe_host("amd-edge-mi300x-qpx");
        ck_assert_uint_eq(inv->n_devices, 4);
        for (size_t i = 0; i < inv->n_devices; i++) { /* what sysfs lacks, so the merge has work */
                inv->devices[i].name[0] = '\0';
                inv->devices[i].have &= ~(uint32_t)XPU_HAVE_PCI_IDS;
        }
        struct xpu_rocm_smi_result *r = parse_ok("library /l\ndevice_count 1\ndevice.0.bus_id 0000:05:00.0\n"
                                                 "device.0.name AMD Instinct MI300X\ndevice.0.vendor_id 4098\n"
                                                 "device.0.device_id 29857\ndevice.0.unique_id 1311768467294899695\n"
                                                 "device.0.vram_total 206158430208\ndevice.0.vram_used 1048576\n"
                                                 "end\n");
        size_t warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_rocm_smi_merge(inv, r), 4);
        ck_assert_uint_eq(inv->n_warnings, warnings);
        for (size_t i = 0; i < inv->n_devices; i++) {
                const struct xpu_device *d = &inv->devices[i];
                ck_assert_uint_eq(d->partition, i);
                ck_assert_str_eq(d->name, "AMD Instinct MI300X");
                ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_NAME), XPU_SOURCE_ROCM_SMI);
                ck_assert_uint_eq(d->pci_device_id, 0x74a1);
                ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_PCI_IDS), XPU_SOURCE_ROCM_SMI);
                ck_assert_str_eq(xpu_amd_facts(d)->unique_id, "1234567890abcdef");
                ck_assert_uint_eq(d->memory_total_bytes, 51539607552ull);
                ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_MEMORY_TOTAL), XPU_SOURCE_SYSFS);
                ck_assert_uint_eq(d->have & XPU_HAVE_MEMORY_USED, 0);
        }
        xpu_rocm_smi_result_free(r);
        xpu_inventory_free(inv);
}
END_TEST

/* ROCm SMI cannot be pointed at a --sys-root tree: refused before any helper runs. */
START_TEST(test_sys_root_refused) {
        struct xpu_roots roots;
        xpu_test_open_host(&roots, "amd-mi210x8");
        struct xpu_inventory *inv = xpu_test_probe_host("amd-mi210x8");
        void *result = NULL;
        char err[512] = "", want[1024];
        ck_assert_int_eq(xpu_rich_rocm_smi.read(&roots, inv, 1000, &result, err, sizeof err), -EXDEV);
        snprintf(want, sizeof want,
                 "not available: ROCm SMI reads the host's /sys and cannot follow --sys-root %s; run it in a mount "
                 "namespace with the tree bound on /sys",
                 roots.sys);
        ck_assert_str_eq(err, want);
        ck_assert_ptr_null(result);

        /* Through the rich-path driver: a warning and an error report, the inventory as it was. */
        size_t warnings = inv->n_warnings;
        struct xpu_rich_report reports[_XPU_SOURCE_MAX];
        memset(reports, 0, sizeof reports);
        ck_assert_int_eq(xpu_rich_probe(&roots, inv, 1u << XPU_SOURCE_ROCM_SMI, 1000, reports, NULL), 0);
        ck_assert(reports[XPU_SOURCE_ROCM_SMI].ran);
        ck_assert_int_eq(reports[XPU_SOURCE_ROCM_SMI].error, -EXDEV);
        ck_assert_str_eq(reports[XPU_SOURCE_ROCM_SMI].message, want);
        ck_assert_uint_eq(inv->n_warnings, warnings + 1);
        ck_assert_msg(strstr(inv->warnings[warnings], "cannot follow --sys-root") != NULL, "%s", inv->warnings[warnings]);
        ck_assert_uint_eq(inv->n_devices, 8);
        xpu_inventory_free(inv);
        xpu_roots_close(&roots);
}
END_TEST

/* An empty driver root: "not available", naming every soname and every directory searched. The
 * helper runs (sys root is the host's "/") and fails before loading anything. */
START_TEST(test_library_absent) {
        char *root = xpu_test_mkdtemp();
        ck_assert_int_eq(chmod(root, 0755), 0); /* the helper runs as nobody */
        struct xpu_roots roots;
        ck_assert_int_eq(xpu_roots_open(&roots, "/", "/", root, NULL), 0);
        struct xpu_rocm_smi_result *r = NULL;
        char err[1024] = "";
        ck_assert_int_eq(xpu_rocm_smi_read(roots.sys_fd, roots.sys, roots.driver_fd, 5000, &r, err, sizeof err), -ENOENT);
        ck_assert_ptr_null(r);
        char want[512];
        snprintf(want, sizeof want,
                 "not available: librocm_smi64.so.1, librocm_smi64.so.7, librocm_smi64.so.6, librocm_smi64.so.5 not "
                 "found in %s: /usr/lib64, ",
                 root);
        ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);
        ck_assert_msg(strstr(err, ", /usr/lib, /opt/rocm/lib, /opt/rocm/lib64, /opt/rocm-[0-9]*/lib, "
                                  "/opt/rocm-[0-9]*/lib64") != NULL,
                      "%s", err);
        xpu_roots_close(&roots);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* Run the ROCm SMI helper against a driver root holding the fake library and STATE (the sys root
 * is the host's "/", which the fake never reads). */
static int read_fake(const char *state, struct xpu_rocm_smi_result **r, char *err, size_t size) {
        char *root = shim_root_new();
        shim_write_state(root, state);
        shim_install(root, "librocm_smi64.so.shim", "librocm_smi64.so", "1.0");
        struct xpu_roots roots;
        ck_assert_int_eq(xpu_roots_open(&roots, "/", "/", root, NULL), 0);
        int e = xpu_rocm_smi_read(roots.sys_fd, roots.sys, roots.driver_fd, 10000, r, err, size);
        xpu_roots_close(&roots);
        shim_drop_root(root);
        return e;
}

/* The helper with the fake library: the library line, every getter, and the cleaning that keeps
 * one odd answer from costing the read: a busy percent of 101 is left out (that reading only), a
 * name filling the whole buffer without a NUL is cut to the field. */
START_TEST(test_helper_fake_library) {
        struct xpu_rocm_smi_result *r = NULL;
        char err[512] = "", lib[PATH_MAX];
        int e = read_fake("device_count 2\n"
                          "device.0.bus_id 0000:03:00.0\ndevice.0.name AMD Instinct MI210\ndevice.0.vendor_id 4098\n"
                          "device.0.device_id 29711\ndevice.0.unique_id 255\ndevice.0.vram_total 68702699520\n"
                          "device.0.vram_used 10485760\ndevice.0.busy_percent 101\ndevice.0.temp_edge 41000\n"
                          "device.0.power 95500000\n"
                          "device.1.bus_id 0000:63:00.0\ndevice.1.name_fill B\ndevice.1.busy_percent 100\n",
                          &r, err, sizeof err);
        ck_assert_msg(e == 0, "%d %s", e, err);
        snprintf(lib, sizeof lib, "/%s/librocm_smi64.so.1.0", SHIM_LIBDIR);
        ck_assert_str_eq(r->library, lib);
        ck_assert_uint_eq(r->n, 2);
        ck_assert_uint_eq(r->total, 2);
        const struct xpu_rocm_smi_device *d = &r->devices[0];
        ck_assert_str_eq(d->pci_bus_id, "0000:03:00.0");
        ck_assert_str_eq(d->name, "AMD Instinct MI210");
        ck_assert_str_eq(d->unique_id, "00000000000000ff");
        ck_assert_uint_eq(d->memory_total_bytes, 68702699520ull);
        ck_assert_uint_eq(d->have & XPU_ROCM_SMI_HAVE_BUSY, 0);
        ck_assert_int_eq(d->temperature_mc[XPU_ROCM_SMI_TEMP_EDGE], 41000);
        ck_assert_double_eq_tol(d->power_watts, 95.5, 1e-9);
        d = &r->devices[1];
        ck_assert_uint_eq(strlen(d->name), 127);
        ck_assert_int_eq(d->name[0], 'B');
        ck_assert_uint_ne(d->have & XPU_ROCM_SMI_HAVE_BUSY, 0);
        ck_assert_uint_eq(d->busy_percent, 100);
        xpu_rocm_smi_result_free(r);

        /* rsmi_init failing: the library's own error, named. */
        r = NULL;
        ck_assert_int_eq(read_fake("error.rsmi_init 8\ndevice_count 0\n", &r, err, sizeof err), -ENODEV);
        ck_assert_str_eq(err, "rsmi_init failed: An error occurred during initialization (status 8)");
        ck_assert_ptr_null(r);
}
END_TEST

/* A BDFID whose domain (bits 32-63) needs more than 4 hex digits: canonical 8-digit domain. */
START_TEST(test_helper_hyperv_domain) {
        struct xpu_rocm_smi_result *r = NULL;
        char err[512] = "";
        int e = read_fake("device_count 2\ndevice.0.bus_id 1a2b3c:03:00.0\ndevice.1.bus_id ffff:83:1f.7\n", &r, err,
                          sizeof err);
        ck_assert_msg(e == 0, "%d %s", e, err);
        ck_assert_uint_eq(r->n, 2);
        ck_assert_str_eq(r->devices[0].pci_bus_id, "001a2b3c:03:00.0");
        ck_assert_str_eq(r->devices[1].pci_bus_id, "ffff:83:1f.7");
        xpu_rocm_smi_result_free(r);
}
END_TEST

/* More devices than the reply holds: the first 128 are read, the total is said, the merge warns. */
START_TEST(test_helper_devices_total) {
        struct xpu_rocm_smi_result *r = NULL;
        char err[512] = "";
        ck_assert_msg(read_fake("device_count 130\n", &r, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(r->n, XPU_ROCM_SMI_DEVICES_MAX);
        ck_assert_uint_eq(r->total, 130);
        cJSON *j = xpu_rich_rocm_smi.to_json(r);
        ck_assert_ptr_nonnull(j);
        ck_assert_int_eq((int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "devices_total")), 130);
        cJSON_Delete(j);
        struct xpu_inventory *inv = xpu_test_probe_host("amd-mi210x8");
        size_t warnings = inv->n_warnings;
        ck_assert_int_eq(xpu_rocm_smi_merge(inv, r), 0);
        ck_assert_str_eq(inv->warnings[warnings], "rocm_smi: 130 devices, only the first 128 read");
        xpu_inventory_free(inv);
        xpu_rocm_smi_result_free(r);
}
END_TEST

static Suite *rocm_smi_suite(void) {
        Suite *s = suite_create("amd-rocm-smi");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 20);
        tcase_add_test(tc, test_parse_good);
        tcase_add_test(tc, test_parse_garbage);
        tcase_add_test(tc, test_parse_helper_error);
        tcase_add_test(tc, test_merge_by_bus_id);
        tcase_add_test(tc, test_merge_fills_missing);
        tcase_add_test(tc, test_merge_disagreement);
        tcase_add_test(tc, test_merge_partitions);
        tcase_add_test(tc, test_sys_root_refused);
        tcase_add_test(tc, test_library_absent);
        tcase_add_test(tc, test_helper_fake_library);
        tcase_add_test(tc, test_helper_devices_total);
        tcase_add_test(tc, test_helper_hyperv_domain);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(rocm_smi_suite());
}
