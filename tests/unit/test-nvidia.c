/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA fast path (probes/nvidia/nvidia.c): version and information parsers, the procfs probe on the
 * fixture hosts (oracle: each fixture's expected.json), and synthetic edge-case trees. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "inventory-json.h"
#include "nvidia/nvidia.h"
#include "testlib.h"

#define GPUS "/proc/driver/nvidia/gpus/"

static struct xpu_inventory *probe_dir(const char *dir) {
        return xpu_test_probe_backend(&xpu_vendor_nvidia, dir);
}

static struct xpu_inventory *probe_host(const char *name) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", xpu_test_host(name));
        return probe_dir(dir);
}

static const struct xpu_devnode *find_node(const struct xpu_devnode *nodes, size_t n, const char *path) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(nodes[i].path, path) == 0)
                        return &nodes[i];
        return NULL;
}

static void assert_node(const struct xpu_devnode *nodes, size_t n, const char *path, uint32_t major,
                        uint32_t minor, bool optional, bool present) {
        const struct xpu_devnode *d = find_node(nodes, n, path);
        ck_assert_msg(d != NULL, "node %s missing", path);
        ck_assert_msg(d->have_major, "%s: no major", path);
        ck_assert_uint_eq(d->major, major);
        ck_assert_uint_eq(d->minor, minor);
        ck_assert_int_eq(d->optional, optional);
        ck_assert_int_eq(d->present, present);
}

/* The device's single per-device node is /dev/nvidia<minor> with MAJOR. */
static void assert_gpu_node(const struct xpu_device *d, uint32_t major, uint32_t minor, bool present) {
        char path[32];
        snprintf(path, sizeof path, "/dev/nvidia%u", minor);
        ck_assert_uint_eq(d->n_nodes, 1);
        ck_assert_str_eq(d->nodes[0].path, path);
        assert_node(d->nodes, d->n_nodes, path, major, minor, false, present);
}

static void assert_warning(const struct xpu_inventory *inv, size_t i, const char *text) {
        ck_assert_msg(i < inv->n_warnings, "warning %zu missing (have %zu)", i, inv->n_warnings);
        ck_assert_str_eq(inv->warnings[i], text);
}

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
        ck_assert_str_eq(d.vbios_version, "95.04.65.00.13");
        ck_assert_str_eq(d.bus_type, "PCIe");
        ck_assert_str_eq(d.pci_bus_id, "0000:70:00.0");
        ck_assert_str_eq(d.gsp_firmware, "");
        ck_assert_uint_eq(d.minor, 0);
        ck_assert_uint_eq(d.irq, 16);
        ck_assert_int_eq(d.excluded, false);
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
        ck_assert_int_eq(d.excluded, true);
        ck_assert_str_eq(d.pci_bus_id, "03f8cfdd:00:00.0"); /* 8 digits: the domain needs more than 4 */
        ck_assert_str_eq(d.gsp_firmware, "550.54.14");
        ck_assert_uint_eq(d.minor, 7);
        ck_assert_uint_eq(d.have, XPU_HAVE_MINOR | XPU_HAVE_EXCLUDED);

        /* Values the driver could not read stay absent, silently */
        struct xpu_device u = { 0 };
        ck_assert_int_eq(xpu_nvidia_parse_information("Video BIOS: \t ??.??.??.??.??\n"
                                                      "GPU UUID: \t GPU-\?\?\?\?\?\?\?\?-\?\?\?\?-\?\?\?\?-\?\?\?\?-\?\?\?\?\?\?\?\?\?\?\?\?\n"
                                                      "GPU Firmware: N/A\nDevice Minor: 3\n",
                                                      &u, err, sizeof err),
                         0);
        ck_assert_str_eq(u.vbios_version, "");
        ck_assert_str_eq(u.uuid, "");
        ck_assert_str_eq(u.gsp_firmware, "");
        ck_assert_uint_eq(u.minor, 3);
}
END_TEST

START_TEST(test_parse_information_bad) {
        struct xpu_device d = { 0 };
        char err[128] = "";
        ck_assert_int_eq(xpu_nvidia_parse_information("Model: X\nDevice Minor: abc\nIRQ: 5\n", &d, err, sizeof err),
                         -EINVAL);
        ck_assert_str_eq(err, "bad \"Device Minor\" value \"abc\"");
        ck_assert_str_eq(d.name, "X"); /* other fields still filled */
        ck_assert_uint_eq(d.irq, 5);
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
        ck_assert_uint_eq(g.minor, 1);

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
        ck_assert_uint_eq(h.minor, 2);
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
        ck_assert_uint_eq(d->minor, 0);
        ck_assert_str_eq(d->vbios_version, "95.04.65.00.13");
        ck_assert_uint_eq(d->irq, 16);
        ck_assert_str_eq(d->bus_type, "PCIe");
        ck_assert_int_eq(d->excluded, false);
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
        ck_assert_uint_eq(d->minor, 1); /* not the index */
        ck_assert_str_eq(d->vbios_version, "92.00.36.00.02");
        ck_assert_str_eq(d->gsp_firmware, "535.54.03");
        ck_assert_str_eq(d->driver_version, "535.54.03");
        ck_assert_uint_eq(d->have & (XPU_HAVE_IRQ | XPU_HAVE_EXCLUDED), 0); /* lines not in the file */
        assert_gpu_node(d, 195, 1, false);
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidia-uvm", 511, 0, false, false);
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidiactl", 195, 255, false, false);
        /* The capture's four MIG devices (GI 3..6, CI 0) from capabilities/gpu1 (the minor). */
        ck_assert_uint_ne(d->have & XPU_HAVE_MIG_MODE, 0);
        ck_assert(d->mig_enabled);
        ck_assert_int_eq(xpu_device_field_source(d, XPU_FIELD_MIG), XPU_SOURCE_PROCFS);
        ck_assert_uint_eq(d->n_mig, 4);
        for (unsigned m = 0; m < 4; m++) {
                const struct xpu_mig_device *g = &d->mig[m];
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
        ck_assert_ptr_eq(xpu_device_find_mig(d, 5, 0), &d->mig[2]);
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
                ck_assert_uint_eq(d->minor, i);
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
        ck_assert(inv->devices[0].mig[3].gi_cap.present);
        ck_assert(inv->devices[0].mig[3].ci_cap.present);
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

/* ---- synthetic edge cases ------------------------------------------------------------------ */

/* A temporary host with the driver loaded. PROC_DEVICES: the char-device lines to list. */
static char *edge_host(const char *version, const char *proc_devices) {
        char *t = xpu_test_mkdtemp();
        if (version)
                xpu_test_write(t, "proc/driver/nvidia/version", version);
        else
                xpu_test_write(t, "proc/driver/nvidia/params", "ModifyDeviceFiles: 1\n");
        if (proc_devices) {
                char buf[512];
                snprintf(buf, sizeof buf, "Character devices:\n  1 mem\n%s\nBlock devices:\n  8 sd\n", proc_devices);
                xpu_test_write(t, "proc/devices", buf);
        }
        return t;
}

static void edge_done(char *t, struct xpu_inventory *inv) {
        xpu_inventory_free(inv);
        xpu_test_rm_rf(t);
        free(t);
}

START_TEST(test_edge_open_module_domains_order) {
        char *t = edge_host("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  555.58  Release Build  "
                            "(portage@localhost)  Sat Jun 29 2024\n",
                            "195 nvidia\n509 nvidia-uvm\n508 nvidia-caps");
        /* minor != position: bus 07 holds minor 2, bus 41 minor 0 */
        xpu_test_write(t, GPUS "0000:41:00.0/information", "Model: A\nDevice Minor: 0\nGPU Excluded: No\n");
        xpu_test_write(t, GPUS "0000:07:00.0/information", "Model: B\nDevice Minor: 2\nBlacklisted: No\n");
        /* 32-bit domains; no Bus Location: the directory name is used */
        xpu_test_write(t, GPUS "3E3F8E05:00:00.0/information", "DEVICE MINOR:\t\t 1\n");
        xpu_test_write(t, GPUS "3f8cfdd:00:00.0/information", "Device Minor: 3\nBus Location: 03F8CFDD:00:00.0\n");
        /* numeric order, not string order: 0xffff < 0x10000 */
        xpu_test_write(t, GPUS "10000:00:00.0/information", "Device Minor: 4\n");
        xpu_test_write(t, GPUS "ffff:00:01.0/information", "Device Minor: 5\n");
        struct xpu_inventory *inv = probe_dir(t);
        const struct xpu_vendor_info *vi = &inv->vendors[XPU_VENDOR_NVIDIA];
        ck_assert_uint_eq(inv->n_warnings, 0);
        ck_assert_str_eq(vi->driver_version, "555.58");
        ck_assert_str_eq(vi->driver_flavor, "open");
        /* canonical: a domain wider than 4 digits is printed with 8 */
        static const char *const bus[] = { "0000:07:00.0", "0000:41:00.0", "ffff:00:01.0",
                                           "00010000:00:00.0", "03f8cfdd:00:00.0", "3e3f8e05:00:00.0" };
        static const uint32_t minor[] = { 2, 0, 5, 4, 3, 1 };
        ck_assert_uint_eq(inv->n_devices, 6);
        for (unsigned i = 0; i < 6; i++) {
                ck_assert_str_eq(inv->devices[i].pci_bus_id, bus[i]);
                ck_assert_uint_eq(inv->devices[i].vendor_index, i);
                ck_assert_str_eq(inv->devices[i].driver_version, "555.58");
                assert_gpu_node(&inv->devices[i], 195, minor[i], false);
        }
        ck_assert_str_eq(inv->devices[0].name, "B");
        ck_assert_int_eq(inv->devices[0].excluded, false);
        ck_assert_uint_eq(inv->devices[0].have & XPU_HAVE_EXCLUDED, XPU_HAVE_EXCLUDED);
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidia-uvm", 509, 0, false, false);
        edge_done(t, inv);
}
END_TEST

/* Two GPUs cannot share a UUID or a Device Minor: the later one in bus order is skipped. */
START_TEST(test_edge_duplicates) {
        char *t = edge_host(NULL, "195 nvidia");
        xpu_test_write(t, GPUS "0000:70:00.0/information", "GPU UUID: GPU-aaaa\nDevice Minor: 0\n");
        xpu_test_write(t, GPUS "0000:71:00.0/information", "GPU UUID: GPU-aaaa\nDevice Minor: 1\n");
        xpu_test_write(t, GPUS "0000:72:00.0/information", "GPU UUID: GPU-bbbb\nDevice Minor: 0\n");
        xpu_test_write(t, GPUS "0000:73:00.0/information", "GPU UUID: GPU-cccc\nDevice Minor: 3\n");
        struct xpu_inventory *inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 2);
        ck_assert_str_eq(inv->devices[0].pci_bus_id, "0000:70:00.0");
        ck_assert_str_eq(inv->devices[1].pci_bus_id, "0000:73:00.0");
        ck_assert_uint_eq(inv->devices[1].vendor_index, 1);
        ck_assert_uint_eq(inv->n_warnings, 2);
        assert_warning(inv, 0, "/proc/driver/nvidia/gpus/0000:71:00.0/information: same GPU UUID as the GPU at "
                               "0000:70:00.0; device skipped");
        assert_warning(inv, 1, "/proc/driver/nvidia/gpus/0000:72:00.0/information: same Device Minor as the GPU "
                               "at 0000:70:00.0; device skipped");
        edge_done(t, inv);
}
END_TEST

START_TEST(test_edge_excluded) {
        char *t = edge_host(NULL, "195 nvidia-frontend");
        xpu_test_write(t, GPUS "0000:01:00.0/information", "Device Minor: 0\nGPU Excluded:\t Yes\n");
        xpu_test_write(t, GPUS "0000:02:00.0/information", "Device Minor: 1\nBlacklisted: Yes\n");
        xpu_test_write(t, GPUS "0000:03:00.0/information", "Device Minor: 2\nGPU Excluded:\t No\n");
        struct xpu_inventory *inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 1);
        ck_assert_str_eq(inv->devices[0].pci_bus_id, "0000:03:00.0");
        ck_assert_uint_eq(inv->devices[0].vendor_index, 0); /* excluded GPUs take no index (NVML) */
        ck_assert_uint_eq(inv->n_warnings, 2);
        /* readdir order is not fixed: look for each */
        bool w1 = false, w2 = false;
        for (size_t i = 0; i < inv->n_warnings; i++) {
                w1 |= strcmp(inv->warnings[i], GPUS "0000:01:00.0/information: the driver excludes this GPU "
                                               "(\"GPU Excluded\" or \"Blacklisted\": Yes); device skipped") == 0;
                w2 |= strcmp(inv->warnings[i], GPUS "0000:02:00.0/information: the driver excludes this GPU "
                                               "(\"GPU Excluded\" or \"Blacklisted\": Yes); device skipped") == 0;
        }
        ck_assert(w1 && w2);
        /* no version file: omitted without a warning; frontend major from "nvidia-frontend" */
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].driver_version, "");
        edge_done(t, inv);
}
END_TEST

START_TEST(test_edge_missing_minor) {
        char *t = edge_host(NULL, "195 nvidia");
        xpu_test_write(t, GPUS "0000:1a:00.0/information", "Model: \t\t NVIDIA L4\nGPU UUID: GPU-1\n");
        struct xpu_inventory *inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 1); /* still a GPU, but not usable through a node */
        ck_assert_str_eq(inv->devices[0].name, "NVIDIA L4");
        ck_assert_uint_eq(inv->devices[0].n_nodes, 0);
        ck_assert_uint_eq(inv->devices[0].have & XPU_HAVE_MINOR, 0);
        ck_assert_uint_eq(inv->n_warnings, 1);
        assert_warning(inv, 0, GPUS "0000:1a:00.0/information: no \"Device Minor\" line; device has no "
                               "/dev/nvidia node");
        edge_done(t, inv);
}
END_TEST

START_TEST(test_edge_garbage_minor_and_bad_field) {
        char *t = edge_host(NULL, "195 nvidia");
        xpu_test_write(t, GPUS "0000:1a:00.0/information", "Device Minor: x1\n");
        struct xpu_inventory *inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 1);
        ck_assert_uint_eq(inv->devices[0].n_nodes, 0);
        ck_assert_uint_eq(inv->n_warnings, 1);
        assert_warning(inv, 0, GPUS "0000:1a:00.0/information: bad \"Device Minor\" value \"x1\"; device has no "
                               "/dev/nvidia node");
        edge_done(t, inv);

        t = edge_host(NULL, "195 nvidia");
        xpu_test_write(t, GPUS "0000:1a:00.0/information", "IRQ: many\nDevice Minor: 4\n");
        inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 1);
        assert_gpu_node(&inv->devices[0], 195, 4, false);
        ck_assert_uint_eq(inv->devices[0].have & XPU_HAVE_IRQ, 0);
        ck_assert_uint_eq(inv->n_warnings, 1);
        assert_warning(inv, 0, GPUS "0000:1a:00.0/information: bad \"IRQ\" value \"many\"; field ignored");
        edge_done(t, inv);

        /* two problems, one warning */
        t = edge_host(NULL, "195 nvidia");
        xpu_test_write(t, GPUS "0000:1a:00.0/information", "IRQ: many\n");
        inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_warnings, 1);
        assert_warning(inv, 0, GPUS "0000:1a:00.0/information: bad \"IRQ\" value \"many\"; no usable \"Device "
                               "Minor\" line; device has no /dev/nvidia node");
        edge_done(t, inv);
}
END_TEST

START_TEST(test_edge_bad_entries) {
        char *t = edge_host("NVRM version: something else\n", "195 nvidia");
        xpu_test_write(t, GPUS "0000:02:00.0", "a file, not a directory\n");
        xpu_test_write(t, GPUS "0000:03:00.0/information", "");
        char *huge = malloc(XPU_READ_MAX + 100);
        ck_assert_ptr_nonnull(huge);
        memset(huge, '\n', XPU_READ_MAX + 99);
        huge[XPU_READ_MAX + 99] = '\0';
        xpu_test_write(t, GPUS "0000:04:00.0/information", huge);
        free(huge);
        xpu_test_write(t, GPUS "0000:05:00.0/other", "x\n"); /* directory without information */
        xpu_test_write(t, GPUS "not-a-bus-id/information", "Device Minor: 9\n");
        xpu_test_write(t, GPUS "0000:06:00.0/information", "Device Minor: 6\nBus Location: 0000:06:00.0\n");
        xpu_test_write(t, GPUS "0000:07:00.0/information", "Device Minor: 7\nBus Location: 0000:06:00.0\n");
        xpu_test_write(t, GPUS "0000:08:00.0/information", "Device Minor: 8\n");
        struct xpu_inventory *inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 2);
        ck_assert_str_eq(inv->devices[0].pci_bus_id, "0000:06:00.0");
        ck_assert_str_eq(inv->devices[1].pci_bus_id, "0000:08:00.0");
        assert_gpu_node(&inv->devices[1], 195, 8, false);
        static const char *const want[] = {
                "/proc/driver/nvidia/version: first line is not \"NVRM version: ... Kernel Module <version> "
                "...\"; driver version omitted",
                GPUS "0000:02:00.0: not a directory; ignored",
                GPUS "0000:03:00.0/information: no \"Key: value\" line the driver writes; device skipped",
                GPUS "0000:04:00.0/information: larger than 65536 bytes; device skipped",
                GPUS "0000:05:00.0/information: No such file or directory; device skipped",
                GPUS "not-a-bus-id/information: no usable \"Bus Location\" line and \"not-a-bus-id\" is not a "
                     "PCI bus id; device skipped",
        };
        /* and one of 06/07 is the duplicate, depending on readdir order */
        ck_assert_uint_eq(inv->n_warnings, ELEMENTSOF(want) + 1);
        for (size_t w = 0; w < ELEMENTSOF(want); w++) {
                bool found = false;
                for (size_t i = 0; i < inv->n_warnings; i++)
                        found |= strcmp(inv->warnings[i], want[w]) == 0;
                ck_assert_msg(found, "warning missing: %s", want[w]);
        }
        bool dup = false;
        for (size_t i = 0; i < inv->n_warnings; i++)
                dup |= strstr(inv->warnings[i], "/information: bus id 0000:06:00.0 is listed twice; device "
                                                "skipped") != NULL;
        ck_assert(dup);
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].driver_version, "");
        edge_done(t, inv);
}
END_TEST

START_TEST(test_edge_fifo_information) {
        char *t = edge_host(NULL, "195 nvidia");
        xpu_test_write(t, GPUS "0000:01:00.0/x", "");
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s" GPUS "0000:01:00.0/information", t);
        ck_assert_int_eq(mkfifo(path, 0600), 0);
        struct xpu_inventory *inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 0);
        ck_assert_uint_eq(inv->n_warnings, 1);
        assert_warning(inv, 0, GPUS "0000:01:00.0/information: not a regular text file; device skipped");
        ck_assert_ptr_nonnull(strstr(inv->vendors[XPU_VENDOR_NVIDIA].looked_for, "driver loaded, no usable GPU"));
        edge_done(t, inv);
}
END_TEST

START_TEST(test_edge_proc_devices_majors) {
        /* "nvidia" (drivers >= 550.40) */
        char *t = edge_host(NULL, "501 nvidia\n502 nvidia-uvm");
        xpu_test_write(t, GPUS "0000:01:00.0/information", "Device Minor: 3\n");
        struct xpu_inventory *inv = probe_dir(t);
        const struct xpu_vendor_info *vi = &inv->vendors[XPU_VENDOR_NVIDIA];
        assert_gpu_node(&inv->devices[0], 501, 3, false);
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidiactl", 501, 255, false, false);
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidia-uvm", 502, 0, false, false);
        edge_done(t, inv);

        /* "nvidia-frontend" (older drivers) */
        t = edge_host(NULL, "503 nvidia-frontend\n504 nvidia-uvm");
        xpu_test_write(t, GPUS "0000:01:00.0/information", "Device Minor: 3\n");
        inv = probe_dir(t);
        vi = &inv->vendors[XPU_VENDOR_NVIDIA];
        assert_gpu_node(&inv->devices[0], 503, 3, false);
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidia-modeset", 503, 254, true, false);
        assert_node(vi->nodes, vi->n_nodes, "/dev/nvidia-uvm-tools", 504, 1, true, false);
        edge_done(t, inv);

        /* neither, no uvm: 195 for the GPU major, uvm major unknown */
        t = edge_host(NULL, NULL);
        xpu_test_write(t, GPUS "0000:01:00.0/information", "Device Minor: 3\n");
        inv = probe_dir(t);
        vi = &inv->vendors[XPU_VENDOR_NVIDIA];
        assert_gpu_node(&inv->devices[0], 195, 3, false);
        const struct xpu_devnode *uvm = find_node(vi->nodes, vi->n_nodes, "/dev/nvidia-uvm");
        ck_assert_ptr_nonnull(uvm);
        ck_assert_int_eq(uvm->have_major, false);
        ck_assert_int_eq(uvm->present, false);
        ck_assert_uint_eq(inv->n_warnings, 0);
        edge_done(t, inv);
}
END_TEST

START_TEST(test_edge_sysfs_extras) {
        char *t = edge_host(NULL, "195 nvidia");
        xpu_test_write(t, GPUS "0000:1a:00.0/information", "Device Minor: 0\n");
        xpu_test_write(t, "sys/bus/pci/devices/0000:1a:00.0/device", "0x1e07\n");
        xpu_test_write(t, "sys/bus/pci/devices/0000:1a:00.0/numa_node", "1\n");
        xpu_test_write(t, GPUS "0000:1b:00.0/information", "Device Minor: 1\n");
        xpu_test_write(t, "sys/bus/pci/devices/0000:1b:00.0/numa_node", "one\n");
        struct xpu_inventory *inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 2);
        ck_assert_uint_eq(inv->devices[0].pci_device_id, 0x1e07);
        ck_assert_uint_eq(inv->devices[0].pci_vendor_id, 0x10de);
        ck_assert_int_eq(inv->devices[0].numa_node, 1);
        ck_assert_uint_eq(inv->devices[0].have & (XPU_HAVE_PCI_IDS | XPU_HAVE_NUMA_NODE),
                          XPU_HAVE_PCI_IDS | XPU_HAVE_NUMA_NODE);
        ck_assert_int_eq(inv->devices[1].numa_node, -1);
        ck_assert_uint_eq(inv->devices[1].have & (XPU_HAVE_PCI_IDS | XPU_HAVE_NUMA_NODE), 0);
        ck_assert_uint_eq(inv->n_warnings, 1);
        assert_warning(inv, 0, "/sys/bus/pci/devices/0000:1b:00.0/numa_node: not a NUMA node number; ignored");
        edge_done(t, inv);
}
END_TEST

/* Hyper-V host (tests/fixtures/hosts/nvidia-hyperv-t4x2): procfs and sysfs spell the domains as
 * the kernel does ("3f8cfdd", "3e3f8e05"); the inventory, and so `xpuinit probe --json` and xpud's
 * /v1/devices, has them canonical, in numeric bus order (0x03f8cfdd < 0x3e3f8e05, although
 * "3e3f8e05" sorts first as text), with the NUMA node read from the kernel's sysfs name. */
/* Odd capability trees: a GI without a CI is no MIG device (but MIG is on), a bad access file skips
 * its instance with a warning naming it, names that are not gi<N>/ci<N> are ignored, more than
 * XPU_MIG_DEVICES_MAX devices keep the lowest ids, and no nvidia-caps major leaves it unknown. */
#define CAPS "proc/driver/nvidia/capabilities/gpu0/mig/"
START_TEST(test_edge_mig) {
        char *t = edge_host(NULL, "195 nvidia");
        xpu_test_write(t, GPUS "0000:01:00.0/information", "Device Minor: 0\nBus Location: 0000:01:00.0\n");
        xpu_test_write(t, CAPS "gi1/access", "DeviceFileMinor: 12\n");
        xpu_test_write(t, CAPS "gi2/access", "DeviceFileMinor: 21\n");
        xpu_test_write(t, CAPS "gi2/ci0/access", "DeviceFileMinor: 22\n");
        xpu_test_write(t, CAPS "gi2/ci1/access", "DeviceFileMinor: x\n");
        xpu_test_write(t, CAPS "gi2/ci01/access", "DeviceFileMinor: 99\n"); /* not the driver's name */
        xpu_test_write(t, CAPS "gi2/cix/access", "DeviceFileMinor: 99\n");
        xpu_test_write(t, CAPS "gi3/access", "DeviceFileMode: 292\n");
        xpu_test_write(t, CAPS "gi3/ci0/access", "DeviceFileMinor: 31\n");
        xpu_test_write(t, CAPS "gi10/access", "DeviceFileMinor: 93\n");
        xpu_test_write(t, CAPS "gi10/ci2/access", "DeviceFileMinor: 96\n");
        xpu_test_write(t, CAPS "gi999/access", "DeviceFileMinor: 1\n");
        xpu_test_write(t, CAPS "gi999/ci0/access", "DeviceFileMinor: 2\n");
        struct xpu_inventory *inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 1);
        const struct xpu_device *d = &inv->devices[0];
        ck_assert(d->mig_enabled);
        ck_assert_uint_eq(d->n_mig, 2);
        ck_assert_uint_eq(d->mig[0].gi, 2);
        ck_assert_uint_eq(d->mig[0].ci, 0);
        ck_assert_str_eq(d->mig[0].gi_cap.path, "/dev/nvidia-caps/nvidia-cap21");
        ck_assert(!d->mig[0].gi_cap.have_major); /* no nvidia-caps in /proc/devices */
        ck_assert_uint_eq(d->mig[1].gi, 10); /* numeric order, not text order */
        ck_assert_uint_eq(d->mig[1].ci, 2);
        ck_assert_str_eq(d->mig[1].ci_cap.path, "/dev/nvidia-caps/nvidia-cap96");
        static const char *const want[] = {
                "/" CAPS "gi2/ci1/access: bad \"DeviceFileMinor\" line; that MIG device skipped",
                "/" CAPS "gi3/access: no \"DeviceFileMinor\" line; the MIG devices of GPU instance 3 skipped",
        };
        ck_assert_uint_eq(inv->n_warnings, ELEMENTSOF(want));
        for (size_t w = 0; w < ELEMENTSOF(want); w++)
                ck_assert_str_eq(inv->warnings[w], want[w]);
        xpu_inventory_free(inv);

        /* More than XPU_MIG_DEVICES_MAX: the lowest ids are kept, one warning. */
        for (unsigned g = 11; g < 11 + XPU_MIG_DEVICES_MAX; g++) {
                char rel[96], text[48];
                snprintf(rel, sizeof rel, CAPS "gi%u/ci0/access", g);
                snprintf(text, sizeof text, "DeviceFileMinor: %u\n", 300 + g);
                xpu_test_write(t, rel, text);
                snprintf(rel, sizeof rel, CAPS "gi%u/access", g);
                snprintf(text, sizeof text, "DeviceFileMinor: %u\n", 200 + g);
                xpu_test_write(t, rel, text);
        }
        xpu_test_write(t, "proc/devices", "Character devices:\n195 nvidia\n237 nvidia-caps\n");
        inv = probe_dir(t);
        d = &inv->devices[0];
        ck_assert_uint_eq(d->n_mig, XPU_MIG_DEVICES_MAX);
        ck_assert_uint_eq(d->mig[XPU_MIG_DEVICES_MAX - 1].gi, 16);
        ck_assert(d->mig[0].gi_cap.have_major);
        ck_assert_uint_eq(d->mig[0].gi_cap.major, 237);
        ck_assert_str_eq(inv->warnings[inv->n_warnings - 1],
                         "/proc/driver/nvidia/capabilities/gpu0/mig: more than 8 MIG devices; the 2 with the highest "
                         "ids ignored");
        edge_done(t, inv);

        /* Minors that name another instance's node: that MIG device is skipped; a line too long
         * is named as such. The lowest ids are kept however many GI directories there are. */
        t = edge_host(NULL, "195 nvidia");
        xpu_test_write(t, GPUS "0000:01:00.0/information", "Device Minor: 0\nBus Location: 0000:01:00.0\n");
        xpu_test_write(t, CAPS "gi1/access", "DeviceFileMinor: 12\n");
        xpu_test_write(t, CAPS "gi1/ci0/access", "DeviceFileMinor: 13\n");
        xpu_test_write(t, CAPS "gi2/access", "DeviceFileMinor: 12\n"); /* gi1's node */
        xpu_test_write(t, CAPS "gi2/ci0/access", "DeviceFileMinor: 22\n");
        xpu_test_write(t, CAPS "gi3/access", "DeviceFileMinor: 31\n");
        xpu_test_write(t, CAPS "gi3/ci0/access", "DeviceFileMinor: 31\n"); /* its own GI's */
        char longline[700];
        memset(longline, 'x', sizeof longline - 1);
        longline[sizeof longline - 1] = '\0';
        char text[800];
        snprintf(text, sizeof text, "DeviceFileMinor: 41\n%s\n", longline);
        xpu_test_write(t, CAPS "gi4/access", text);
        xpu_test_write(t, CAPS "gi4/ci0/access", "DeviceFileMinor: 42\n");
        for (unsigned g = 100; g < 180; g++) { /* more GI directories than a driver makes */
                char rel[96], v[48];
                snprintf(rel, sizeof rel, CAPS "gi%u/access", g);
                snprintf(v, sizeof v, "DeviceFileMinor: %u\n", 1000 + 2 * g);
                xpu_test_write(t, rel, v);
                snprintf(rel, sizeof rel, CAPS "gi%u/ci0/access", g);
                snprintf(v, sizeof v, "DeviceFileMinor: %u\n", 1001 + 2 * g);
                xpu_test_write(t, rel, v);
        }
        inv = probe_dir(t);
        d = &inv->devices[0];
        /* the 8 lowest (gi1-3, gi100-104; gi4 unreadable), then the colliding gi1, gi2 and gi3 out */
        ck_assert_uint_eq(d->n_mig, 5);
        ck_assert_uint_eq(d->mig[0].gi, 100);
        ck_assert_uint_eq(d->mig[4].gi, 104);
        bool too_long = false, collide = false, counted = false;
        for (size_t w = 0; w < inv->n_warnings; w++) {
                too_long |= strstr(inv->warnings[w], "gi4/access: a line longer than 512 bytes") != NULL;
                collide |= strstr(inv->warnings[w], "gi2/ci0/access: capability minors 12 and 22 are another") != NULL;
                counted |= strstr(inv->warnings[w], "more than 8 MIG devices; the 75 with the highest ids ignored") != NULL;
        }
        ck_assert_msg(too_long && collide && counted, "%s | %s | %s", inv->n_warnings ? inv->warnings[0] : "",
                      inv->n_warnings > 1 ? inv->warnings[1] : "", inv->n_warnings > 2 ? inv->warnings[2] : "");
        edge_done(t, inv);

        /* A GI directory alone: MIG on, no MIG device; no mig/ directory at all: MIG unknown. */
        t = edge_host(NULL, "195 nvidia");
        xpu_test_write(t, GPUS "0000:01:00.0/information", "Device Minor: 0\nBus Location: 0000:01:00.0\n");
        xpu_test_write(t, "proc/driver/nvidia/capabilities/mig/monitor", "DeviceFileMinor: 2\n");
        inv = probe_dir(t);
        ck_assert_uint_eq(inv->devices[0].have & XPU_HAVE_MIG_MODE, 0);
        xpu_inventory_free(inv);
        xpu_test_write(t, CAPS "gi1/access", "DeviceFileMinor: 12\n");
        inv = probe_dir(t);
        ck_assert(inv->devices[0].mig_enabled);
        ck_assert_uint_eq(inv->devices[0].n_mig, 0);
        ck_assert_uint_eq(inv->n_warnings, 0);
        edge_done(t, inv);
}
END_TEST

START_TEST(test_hyperv_host) {
        struct xpu_inventory *inv = xpu_test_probe_host("nvidia-hyperv-t4x2");
        ck_assert_msg(inv->n_warnings == 0, "%s", inv->n_warnings ? inv->warnings[0] : "");
        ck_assert_uint_eq(inv->n_devices, 2);
        ck_assert_str_eq(inv->devices[0].pci_bus_id, "03f8cfdd:00:00.0");
        ck_assert_uint_eq(inv->devices[0].minor, 0);
        ck_assert_int_eq(inv->devices[0].numa_node, 0);
        ck_assert_uint_eq(inv->devices[0].have & XPU_HAVE_NUMA_NODE, XPU_HAVE_NUMA_NODE);
        ck_assert_uint_eq(inv->devices[0].pci_device_id, 0x1eb8);
        ck_assert_str_eq(inv->devices[1].pci_bus_id, "3e3f8e05:00:00.0");
        ck_assert_int_eq(inv->devices[1].numa_node, 1);
        cJSON *j = xpu_inventory_to_json(inv);
        ck_assert_ptr_nonnull(j);
        const cJSON *devs = cJSON_GetObjectItemCaseSensitive(j, "devices");
        ck_assert_int_eq(cJSON_GetArraySize(devs), 2);
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(devs, 0), "pci_bus_id")->valuestring,
                         "03f8cfdd:00:00.0");
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(devs, 1), "pci_bus_id")->valuestring,
                         "3e3f8e05:00:00.0");
        cJSON_Delete(j);
        xpu_inventory_free(inv);
}
END_TEST

START_TEST(test_edge_gpu_limit) {
        char *t = edge_host(NULL, "195 nvidia");
        for (unsigned i = 0; i < XPU_NVIDIA_GPUS_MAX + 2; i++) {
                char rel[128], text[64];
                snprintf(rel, sizeof rel, GPUS "0000:%02x:00.0/information", i + 1);
                snprintf(text, sizeof text, "Device Minor: %u\n", i);
                xpu_test_write(t, rel, text);
        }
        struct xpu_inventory *inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, XPU_NVIDIA_GPUS_MAX);
        /* the lowest 64 bus ids are kept, whatever the readdir order */
        ck_assert_str_eq(inv->devices[0].pci_bus_id, "0000:01:00.0");
        ck_assert_str_eq(inv->devices[XPU_NVIDIA_GPUS_MAX - 1].pci_bus_id, "0000:40:00.0");
        ck_assert_uint_eq(inv->n_warnings, 1);
        assert_warning(inv, 0, "/proc/driver/nvidia/gpus: more than 64 GPUs; the 2 with the highest bus ids ignored");
        edge_done(t, inv);
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
        tcase_add_test(tc, test_edge_mig);
        tcase_add_test(tc, test_host_rtx2080ti_x8);
        tcase_add_test(tc, test_devnodes_present);
        tcase_add_test(tc, test_nouveau_host);
        tcase_add_test(tc, test_edge_open_module_domains_order);
        tcase_add_test(tc, test_edge_excluded);
        tcase_add_test(tc, test_edge_duplicates);
        tcase_add_test(tc, test_edge_missing_minor);
        tcase_add_test(tc, test_edge_garbage_minor_and_bad_field);
        tcase_add_test(tc, test_edge_bad_entries);
        tcase_add_test(tc, test_edge_fifo_information);
        tcase_add_test(tc, test_edge_proc_devices_majors);
        tcase_add_test(tc, test_edge_sysfs_extras);
        tcase_add_test(tc, test_hyperv_host);
        tcase_add_test(tc, test_edge_gpu_limit);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(nvidia_suite());
}
