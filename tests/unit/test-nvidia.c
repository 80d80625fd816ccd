/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA fast path (probes/nvidia/nvidia.c): version and information parsers and the procfs probe on
 * the fixture hosts (oracle: each fixture's expected.json); synthetic edge-case trees are in
 * test-nvidia.edge.c. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "inventory-json.h"
#include "nvidia/nvidia.h"
#include "testlib.h"

#include "nvidia-fx.h"

/* ---- parsers ----------------------------------------------------------------------------- */

static void check_version(const char *text, const char *version, const char *flavor) {
        char v[32] = "", f[32] = "";
        ck_assert_int_eq(xpu_nvidia_parse_version(text, v, sizeof v, f, sizeof f), 0);
        ck_assert_str_eq(v, version);
        ck_assert_str_eq(f, flavor);
}

START_TEST(test_parse_version_formats) {
        check_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  384.98  Thu Oct 26 15:16:01 PDT 2017\n"
                      "GCC version:  gcc version 7.2.0 (GCC)\n",
                      "384.98", "proprietary");
        check_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  555.58  Release Build  "
                      "(portage@localhost)  Sat Jun 29 12:00:00 CEST 2024\n",
                      "555.58", "open");
        check_version("NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.104.05  Sat Aug 19 01:13:54 UTC 2023",
                      "535.104.05", "proprietary");
        check_version("NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  570.86.15  Release Build  "
                      "(dvs-builder@U16-I2-C03-12-4)  Thu Jan 23 2025\n",
                      "570.86.15", "open");
        check_version("NVRM version: NVIDIA UNIX ppc64le Kernel Module  418.87.00  Thu Aug  8 15:37:13 CDT 2019\n",
                      "418.87.00", "proprietary");
        /* Tabs and leading blanks */
        check_version("  NVRM version:\tNVIDIA UNIX x86_64 Kernel Module\t465.19.01\tFri Mar 19 2021\n", "465.19.01",
                      "proprietary");
}
END_TEST

START_TEST(test_parse_version_bad) {
        char v[32] = "keep", f[32] = "keep";
        ck_assert_int_eq(xpu_nvidia_parse_version(NULL, v, sizeof v, f, sizeof f), -EINVAL);
        ck_assert_int_eq(xpu_nvidia_parse_version("", v, sizeof v, f, sizeof f), -EINVAL);
        ck_assert_int_eq(xpu_nvidia_parse_version("GCC version:  gcc 12\n", v, sizeof v, f, sizeof f), -EINVAL);
        /* No version number after "Kernel Module" */
        ck_assert_int_eq(xpu_nvidia_parse_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  Thu Oct 26\n",
                                                  v, sizeof v, f, sizeof f),
                         -EINVAL);
        /* No "Kernel Module" words: a number elsewhere is not taken */
        ck_assert_int_eq(xpu_nvidia_parse_version("NVRM version: 550.54.14\n", v, sizeof v, f, sizeof f), -EINVAL);
        /* Only the first line counts */
        ck_assert_int_eq(xpu_nvidia_parse_version("\nNVRM version: NVIDIA UNIX x86_64 Kernel Module  384.98  x\n",
                                                  v, sizeof v, f, sizeof f),
                         -EINVAL);
        /* "1..2", "384." are not versions */
        ck_assert_int_eq(xpu_nvidia_parse_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  1..2 384.\n",
                                                  v, sizeof v, f, sizeof f),
                         -EINVAL);
        /* Does not fit */
        char small[6];
        ck_assert_int_eq(xpu_nvidia_parse_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.54.03  x\n",
                                                  small, sizeof small, f, sizeof f),
                         -ENOBUFS);
        ck_assert_str_eq(v, "keep");
        ck_assert_str_eq(f, "keep");
}
END_TEST

START_TEST(test_parse_information_l4) {
        /* host01's file byte for byte (anonymised UUID) */
        const char *text = "Model: \t\t NVIDIA L4\n"
                           "IRQ:   \t\t 16\n"
                           "GPU UUID: \t GPU-b1654cba-65c2-d1dc-f239-d38d0eeb796b\n"
                           "Video BIOS: \t 95.04.65.00.13\n"
                           "Bus Type: \t PCIe\n"
                           "DMA Size: \t 47 bits\n"
                           "DMA Mask: \t 0x7fffffffffff\n"
                           "Bus Location: \t 0000:70:00.0\n"
                           "Device Minor: \t 0\n"
                           "GPU Excluded:\t No\n";
        struct xpu_device d = { 0 };
        char err[128] = "untouched";
        ck_assert_int_eq(xpu_nvidia_parse_information(text, &d, err, sizeof err), 0);
        ck_assert_str_eq(err, "untouched");
        ck_assert_str_eq(d.name, "NVIDIA L4");
        ck_assert_str_eq(d.uuid, "GPU-b1654cba-65c2-d1dc-f239-d38d0eeb796b");
        ck_assert_str_eq(xpu_nvidia_facts(&d)->vbios_version, "95.04.65.00.13");
        ck_assert_str_eq(xpu_nvidia_facts(&d)->bus_type, "PCIe");
        ck_assert_str_eq(d.pci_bus_id, "0000:70:00.0");
        ck_assert_str_eq(xpu_nvidia_facts(&d)->gsp_firmware, "");
        ck_assert_uint_eq(xpu_nvidia_facts(&d)->minor, 0);
        ck_assert_uint_eq(xpu_nvidia_facts(&d)->irq, 16);
        ck_assert_int_eq(xpu_nvidia_facts(&d)->excluded, false);
        ck_assert_uint_eq(d.have, XPU_HAVE_MINOR | XPU_HAVE_IRQ | XPU_HAVE_EXCLUDED);
}
END_TEST

START_TEST(test_parse_information_variants) {
        struct xpu_device d = { 0 };
        char err[128] = "";
        /* Old "Blacklisted" line, key case, 32-bit domain in upper case, GSP firmware, no EOL */
        ck_assert_int_eq(xpu_nvidia_parse_information("model:Tesla K80\nBLACKLISTED:  yes\n"
                                                      "Bus Location: 03F8CFDD:00:00.0\nGPU Firmware: 550.54.14\n"
                                                      "device minor:7",
                                                      &d, err, sizeof err),
                         0);
        ck_assert_str_eq(d.name, "Tesla K80");
        ck_assert_int_eq(xpu_nvidia_facts(&d)->excluded, true);
        ck_assert_str_eq(d.pci_bus_id, "03f8cfdd:00:00.0"); /* 8 digits: the domain needs more than 4 */
        ck_assert_str_eq(xpu_nvidia_facts(&d)->gsp_firmware, "550.54.14");
        ck_assert_uint_eq(xpu_nvidia_facts(&d)->minor, 7);
        ck_assert_uint_eq(d.have, XPU_HAVE_MINOR | XPU_HAVE_EXCLUDED);

        /* Values the driver could not read stay absent, silently */
        struct xpu_device u = { 0 };
        ck_assert_int_eq(xpu_nvidia_parse_information("Video BIOS: \t ??.??.??.??.??\n"
                                                      "GPU UUID: \t GPU-\?\?\?\?\?\?\?\?-\?\?\?\?-\?\?\?\?-\?\?\?\?-\?\?\?\?\?\?\?\?\?\?\?\?\n"
                                                      "GPU Firmware: N/A\nDevice Minor: 3\n",
                                                      &u, err, sizeof err),
                         0);
        ck_assert_str_eq(xpu_nvidia_facts(&u)->vbios_version, "");
        ck_assert_str_eq(u.uuid, "");
        ck_assert_str_eq(xpu_nvidia_facts(&u)->gsp_firmware, "");
        ck_assert_uint_eq(xpu_nvidia_facts(&u)->minor, 3);
}
END_TEST

START_TEST(test_parse_information_bad) {
        struct xpu_device d = { 0 };
        char err[128] = "";
        ck_assert_int_eq(xpu_nvidia_parse_information("Model: X\nDevice Minor: abc\nIRQ: 5\n", &d, err, sizeof err),
                         -EINVAL);
        ck_assert_str_eq(err, "bad \"Device Minor\" value \"abc\"");
        ck_assert_str_eq(d.name, "X"); /* other fields still filled */
        ck_assert_uint_eq(xpu_nvidia_facts(&d)->irq, 5);
        ck_assert_uint_eq(d.have, XPU_HAVE_IRQ);

        /* 254/255 belong to nvidia-modeset/nvidiactl */
        struct xpu_device e = { 0 };
        ck_assert_int_eq(xpu_nvidia_parse_information("Device Minor: 255\nIRQ: -1\nGPU Excluded: maybe\n", &e, err,
                                                      sizeof err),
                         -EINVAL);
        ck_assert_str_eq(err, "bad \"Device Minor\" value \"255\" (and 2 more bad lines)");
        ck_assert_uint_eq(e.have, 0);

        struct xpu_device f = { 0 };
        ck_assert_int_eq(xpu_nvidia_parse_information("Bus Location: GPU-1\n", &f, err, sizeof err), -EINVAL);
        ck_assert_str_eq(err, "bad \"Bus Location\" value \"GPU-1\"");
        ck_assert_str_eq(f.pci_bus_id, "");

        /* A value longer than its field is refused, not truncated */
        char longname[200];
        snprintf(longname, sizeof longname, "Model: %0150d\nDevice Minor: 1\n", 0);
        struct xpu_device g = { 0 };
        ck_assert_int_eq(xpu_nvidia_parse_information(longname, &g, err, sizeof err), -EINVAL);
        ck_assert_str_eq(g.name, "");
        ck_assert_uint_eq(xpu_nvidia_facts(&g)->minor, 1);

        /* A Model in UTF-8 is kept byte for byte; bytes that are not UTF-8 and control
         * characters become U+FFFD. */
        struct xpu_device u8 = { 0 };
        ck_assert_int_eq(xpu_nvidia_parse_information("Model: NVIDIA RTX\xe2\x84\xa2 A6000\nDevice Minor: 1\n", &u8,
                                                      err, sizeof err),
                         0);
        ck_assert_str_eq(u8.name, "NVIDIA RTX\xe2\x84\xa2 A6000");
        struct xpu_device bad8 = { 0 };
        ck_assert_int_eq(xpu_nvidia_parse_information("Model: RTX\xff\x1b[2J A6000\nDevice Minor: 1\n", &bad8, err,
                                                      sizeof err),
                         0);
        ck_assert_str_eq(bad8.name, "RTX\xef\xbf\xbd\xef\xbf\xbd[2J A6000");

        /* Over-long line */
        char *huge = malloc(XPU_NVIDIA_LINE_MAX + 32);
        ck_assert_ptr_nonnull(huge);
        memset(huge, 'x', XPU_NVIDIA_LINE_MAX + 10);
        snprintf(huge + XPU_NVIDIA_LINE_MAX + 10, 22, "\nDevice Minor: 2\n");
        struct xpu_device h = { 0 };
        ck_assert_int_eq(xpu_nvidia_parse_information(huge, &h, err, sizeof err), -EINVAL);
        ck_assert_str_eq(err, "line 1 longer than 512 bytes");
        ck_assert_uint_eq(xpu_nvidia_facts(&h)->minor, 2);
        free(huge);

        struct xpu_device z = { 0 };
        ck_assert_int_eq(xpu_nvidia_parse_information("", &z, err, sizeof err), -ENODATA);
        ck_assert_int_eq(xpu_nvidia_parse_information("garbage\nDMA Size: 47 bits\n", &z, err, sizeof err), -ENODATA);
        ck_assert_str_eq(err, "no \"Key: value\" line the driver writes");
        ck_assert_int_eq(xpu_nvidia_parse_information(NULL, &z, NULL, 0), -EINVAL);
}
END_TEST

/* ---- the three real-host fixtures ---------------------------------------------------------- */

START_TEST(test_host_l4_single) {
        struct xpu_inventory *inv = probe_host("nvidia-l4-single");
        const struct xpu_vendor_info *vi = &inv->vendors[XPU_VENDOR_NVIDIA];
        ck_assert_uint_eq(inv->n_warnings, 0);
        ck_assert_int_eq(vi->driver_loaded, true);
        /* No version file was captured: omitted, never invented */
        ck_assert_str_eq(vi->driver_version, "");
        ck_assert_str_eq(vi->driver_flavor, "");
        ck_assert_uint_eq(inv->n_devices, 1);
        const struct xpu_device *d = &inv->devices[0];
        ck_assert_uint_eq(d->vendor_index, 0);
        ck_assert_int_eq(d->vendor, XPU_VENDOR_NVIDIA);
        ck_assert_int_eq(d->source, XPU_SOURCE_PROCFS);
        ck_assert_str_eq(d->name, "NVIDIA L4");
        ck_assert_str_eq(d->uuid, "GPU-b1654cba-65c2-d1dc-f239-d38d0eeb796b");
        ck_assert_str_eq(d->pci_bus_id, "0000:70:00.0");
        ck_assert_uint_eq(xpu_nvidia_facts(d)->minor, 0);
        ck_assert_str_eq(xpu_nvidia_facts(d)->vbios_version, "95.04.65.00.13");
        ck_assert_uint_eq(xpu_nvidia_facts(d)->irq, 16);
        ck_assert_str_eq(xpu_nvidia_facts(d)->bus_type, "PCIe");
        ck_assert_int_eq(xpu_nvidia_facts(d)->excluded, false);
        ck_assert_uint_eq(d->have & (XPU_HAVE_MINOR | XPU_HAVE_IRQ | XPU_HAVE_EXCLUDED),
                          XPU_HAVE_MINOR | XPU_HAVE_IRQ | XPU_HAVE_EXCLUDED);
        ck_assert_uint_eq(d->pci_vendor_id, 0x10de);
        ck_assert_str_eq(d->driver_version, "");
        /* Nodes are not in git: none present until a test creates them */
        assert_gpu_node(d, 195, 0, false);
        ck_assert_uint_eq(vi->n_nodes, 4);
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidiactl", 195, 255, false, false);
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidia-uvm", 510, 0, false, false);
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidia-uvm-tools", 510, 1, true, false);
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidia-modeset", 195, 254, true, false);
        ck_assert_ptr_nonnull(strstr(vi->looked_for, "1 GPU(s)"));
        xpu_inventory_free(inv);
}
END_TEST

START_TEST(test_host_a100_mig) {
        struct xpu_inventory *inv = probe_host("nvidia-a100-mig");
        const struct xpu_vendor_info *vi = &inv->vendors[XPU_VENDOR_NVIDIA];
        ck_assert_uint_eq(inv->n_warnings, 0);
        ck_assert_str_eq(vi->driver_version, "535.54.03");
        ck_assert_str_eq(vi->driver_flavor, "proprietary");
        ck_assert_uint_eq(inv->n_devices, 1); /* MIG devices are listed in their parent */
        const struct xpu_device *d = &inv->devices[0];
        ck_assert_uint_eq(d->vendor_index, 0);
        ck_assert_str_eq(d->name, "NVIDIA A100-SXM4-80GB");
        ck_assert_str_eq(d->uuid, "GPU-202d648d-7b39-6345-296c-251c4321e21c");
        ck_assert_str_eq(d->pci_bus_id, "0000:01:00.0");
        ck_assert_uint_eq(xpu_nvidia_facts(d)->minor, 1); /* not the index */
        ck_assert_str_eq(xpu_nvidia_facts(d)->vbios_version, "92.00.36.00.02");
        ck_assert_str_eq(xpu_nvidia_facts(d)->gsp_firmware, "535.54.03");
        ck_assert_str_eq(d->driver_version, "535.54.03");
        ck_assert_uint_eq(d->have & (XPU_HAVE_IRQ | XPU_HAVE_EXCLUDED), 0); /* lines not in the file */
        assert_gpu_node(d, 195, 1, false);
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidia-uvm", 511, 0, false, false);
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidiactl", 195, 255, false, false);
        /* The capture's four MIG devices (GI 3..6, CI 0) from capabilities/gpu1 (the minor). */
        ck_assert_uint_ne(d->have & XPU_HAVE_MIG_MODE, 0);
        ck_assert(xpu_nvidia_facts(d)->mig_enabled);
        ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_MIG), XPU_SOURCE_PROCFS);
        ck_assert_uint_eq(xpu_nvidia_facts(d)->n_mig, 4);
        for (unsigned m = 0; m < 4; m++) {
                const struct xpu_mig_device *g = &xpu_nvidia_facts(d)->mig[m];
                ck_assert_uint_eq(g->gi, 3 + m);
                ck_assert_uint_eq(g->ci, 0);
                ck_assert_uint_eq(g->have, XPU_MIG_HAVE_CAPS);
                ck_assert_str_eq(g->uuid, ""); /* NVML's */
                assert_node(&g->gi_cap, 1, g->gi_cap.path, 238, 165 + 9 * m, false, false);
                assert_node(&g->ci_cap, 1, g->ci_cap.path, 238, 166 + 9 * m, false, false);
                char want[64];
                snprintf(want, sizeof want, "/dev/nvidia-caps/nvidia-cap%u", 166 + 9 * m);
                ck_assert_str_eq(g->ci_cap.path, want);
        }
        ck_assert_ptr_eq(xpu_device_find_mig(d, 5, 0), &xpu_nvidia_facts(d)->mig[2]);
        ck_assert_ptr_null(xpu_device_find_mig(d, 5, 1));
        xpu_inventory_free(inv);
}
END_TEST

/* The access-file parser: the driver's three lines, any case and spacing; a missing, repeated or
 * bad DeviceFileMinor is refused. */
START_TEST(test_parse_cap_minor) {
        uint32_t m = 0;
        ck_assert_int_eq(xpu_nvidia_parse_cap_minor("DeviceFileMinor: 2\nDeviceFileMode: 292\nDeviceFileModify: 1\n", &m), 0);
        ck_assert_uint_eq(m, 2);
        ck_assert_int_eq(xpu_nvidia_parse_cap_minor("devicefilemode: 256\n  DEVICEFILEMINOR :\t 1048575", &m), 0);
        ck_assert_uint_eq(m, XPU_NVIDIA_CAP_MINOR_MAX);
        ck_assert_int_eq(xpu_nvidia_parse_cap_minor("DeviceFileMode: 292\n", &m), -ENODATA);
        ck_assert_int_eq(xpu_nvidia_parse_cap_minor("", &m), -ENODATA);
        static const char *const bad[] = {
                "DeviceFileMinor: 1048576\n", "DeviceFileMinor: -1\n",  "DeviceFileMinor: 0x10\n",
                "DeviceFileMinor:\n",         "DeviceFileMinor: 1 2\n", "DeviceFileMinor: 1\nDeviceFileMinor: 1\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(xpu_nvidia_parse_cap_minor(bad[i], &m) == -EINVAL, "accepted %s", bad[i]);
        ck_assert_uint_eq(m, XPU_NVIDIA_CAP_MINOR_MAX); /* untouched on error */
        ck_assert_int_eq(xpu_nvidia_parse_cap_minor(NULL, &m), -EINVAL);
}
END_TEST

static const char *const rtx_uuids[8] = {
        "GPU-307dcc96-618a-4416-c1ef-87823c2e1a31", "GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe",
        "GPU-00cead84-aab2-a1c2-3d21-53e6a83b2a35", "GPU-1c9b50c7-823e-8c87-d54d-8f2ef02906fb",
        "GPU-ce6c6e9f-1e3b-de98-15e3-4ac06b46717f", "GPU-b3ae0cf0-b3b5-aeec-01dc-8720c79f5068",
        "GPU-81a93134-7966-a3ad-337f-f6b9e645e4bf", "GPU-ea7dfa3f-af70-377b-f7bc-a0fbf6b6dc1d",
};
static const char *const rtx_bus[8] = {
        "0000:1a:00.0", "0000:1b:00.0", "0000:60:00.0", "0000:61:00.0",
        "0000:b1:00.0", "0000:b2:00.0", "0000:da:00.0", "0000:db:00.0",
};

START_TEST(test_host_rtx2080ti_x8) {
        struct xpu_inventory *inv = probe_host("nvidia-rtx2080ti-x8");
        const struct xpu_vendor_info *vi = &inv->vendors[XPU_VENDOR_NVIDIA];
        ck_assert_uint_eq(inv->n_warnings, 0);
        ck_assert_str_eq(vi->driver_version, "465.19.01");
        ck_assert_str_eq(vi->driver_flavor, "proprietary");
        ck_assert_uint_eq(inv->n_devices, 8);
        for (unsigned i = 0; i < 8; i++) {
                const struct xpu_device *d = &inv->devices[i];
                ck_assert_uint_eq(d->vendor_index, i);
                ck_assert_str_eq(d->uuid, rtx_uuids[i]);
                ck_assert_str_eq(d->pci_bus_id, rtx_bus[i]);
                ck_assert_uint_eq(xpu_nvidia_facts(d)->minor, i);
                ck_assert_str_eq(d->driver_version, "465.19.01");
                assert_gpu_node(d, 195, i, false);
                /* Only GPU 0's Model line was captured: the rest have no name, not a guess */
                ck_assert_str_eq(d->name, i == 0 ? "NVIDIA GeForce RTX 2080 Ti" : "");
        }
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidia-uvm", 239, 0, false, false);
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidia-uvm-tools", 239, 1, true, false);
        xpu_inventory_free(inv);
}
END_TEST

/* After the nodes of dev/DEVNODES exist (mknod, as root), they are present with the right major. */
START_TEST(test_devnodes_present) {
        char *t = xpu_test_copy_host("nvidia-rtx2080ti-x8");
        xpu_test_make_devnodes(t);
        struct xpu_inventory *inv = probe_dir(t);
        const struct xpu_vendor_info *vi = &inv->vendors[XPU_VENDOR_NVIDIA];
        ck_assert_uint_eq(inv->n_devices, 8);
        for (unsigned i = 0; i < 8; i++) {
                assert_gpu_node(&inv->devices[i], 195, i, true);
                ck_assert_int_eq(xpu_device_available(&inv->devices[i]), true);
        }
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidiactl", 195, 255, false, true);
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidia-uvm", 239, 0, false, true);
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidia-uvm-tools", 239, 1, true, true);
        /* Not listed for this host: optional and absent */
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidia-modeset", 195, 254, true, false);
        xpu_inventory_free(inv);
        xpu_test_rm_rf(t);
        free(t);

        t = xpu_test_copy_host("nvidia-a100-mig");
        xpu_test_make_devnodes(t);
        inv = probe_dir(t);
        assert_gpu_node(&inv->devices[0], 195, 1, true);
        assert_node(inv->vendors[XPU_VENDOR_NVIDIA].nodes, inv->vendors[XPU_VENDOR_NVIDIA].n_nodes,
                    "/dev/nvidia-modeset", 195, 254, true, true);
        ck_assert(xpu_nvidia_facts(&inv->devices[0])->mig[3].gi_cap.present);
        ck_assert(xpu_nvidia_facts(&inv->devices[0])->mig[3].ci_cap.present);
        xpu_inventory_free(inv);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

START_TEST(test_nouveau_host) {
        struct xpu_inventory *inv = probe_host("nvidia-edge-nouveau");
        const struct xpu_vendor_info *vi = &inv->vendors[XPU_VENDOR_NVIDIA];
        ck_assert_uint_eq(inv->n_devices, 0);
        ck_assert_uint_eq(inv->n_warnings, 0);
        ck_assert_int_eq(vi->driver_loaded, false);
        ck_assert_uint_eq(vi->n_nodes, 0);
        ck_assert_str_eq(vi->driver_version, "");
        char want[512];
        snprintf(want, sizeof want,
                 "/proc/driver/nvidia/version and /proc/driver/nvidia/gpus/*/information under %.100s: "
                 "not found (no NVIDIA kernel driver loaded)",
                 xpu_test_host("nvidia-edge-nouveau"));
        ck_assert_str_eq(vi->looked_for, want);
        xpu_inventory_free(inv);
}
END_TEST

static Suite *nvidia_suite(void) {
        Suite *s = suite_create("nvidia");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_parse_version_formats);
        tcase_add_test(tc, test_parse_version_bad);
        tcase_add_test(tc, test_parse_information_l4);
        tcase_add_test(tc, test_parse_information_variants);
        tcase_add_test(tc, test_parse_information_bad);
        tcase_add_test(tc, test_host_l4_single);
        tcase_add_test(tc, test_host_a100_mig);
        tcase_add_test(tc, test_parse_cap_minor);
        tcase_add_test(tc, test_host_rtx2080ti_x8);
        tcase_add_test(tc, test_devnodes_present);
        tcase_add_test(tc, test_nouveau_host);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(nvidia_suite());
}
