/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA fast path (probes/nvidia/nvidia.c) on synthetic trees written here: the edge cases no
 * capture has (open-module versions, PCI domains, duplicates, excluded GPUs, bad or missing
 * fields, FIFOs, /proc/devices majors, sysfs extras, MIG, Hyper-V domains, the GPU limit). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"
#include "nvidia/nvidia-facts.h"
#include "inventory-json.h"
#include "nvidia-fx.h"

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
        ck_assert_int_eq(xpu_nvidia_facts(&inv->devices[0])->excluded, false);
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
        ck_assert(xpu_nvidia_facts(d)->mig_enabled);
        ck_assert_uint_eq(xpu_nvidia_facts(d)->n_mig, 2);
        ck_assert_uint_eq(xpu_nvidia_facts(d)->mig[0].gi, 2);
        ck_assert_uint_eq(xpu_nvidia_facts(d)->mig[0].ci, 0);
        ck_assert_str_eq(xpu_nvidia_facts(d)->mig[0].gi_cap.path, "/dev/nvidia-caps/nvidia-cap21");
        ck_assert(!xpu_nvidia_facts(d)->mig[0].gi_cap.have_major); /* no nvidia-caps in /proc/devices */
        ck_assert_uint_eq(xpu_nvidia_facts(d)->mig[1].gi, 10); /* numeric order, not text order */
        ck_assert_uint_eq(xpu_nvidia_facts(d)->mig[1].ci, 2);
        ck_assert_str_eq(xpu_nvidia_facts(d)->mig[1].ci_cap.path, "/dev/nvidia-caps/nvidia-cap96");
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
        ck_assert_uint_eq(xpu_nvidia_facts(d)->n_mig, XPU_MIG_DEVICES_MAX);
        ck_assert_uint_eq(xpu_nvidia_facts(d)->mig[XPU_MIG_DEVICES_MAX - 1].gi, 16);
        ck_assert(xpu_nvidia_facts(d)->mig[0].gi_cap.have_major);
        ck_assert_uint_eq(xpu_nvidia_facts(d)->mig[0].gi_cap.major, 237);
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
        ck_assert_uint_eq(xpu_nvidia_facts(d)->n_mig, 5);
        ck_assert_uint_eq(xpu_nvidia_facts(d)->mig[0].gi, 100);
        ck_assert_uint_eq(xpu_nvidia_facts(d)->mig[4].gi, 104);
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
        ck_assert(xpu_nvidia_facts(&inv->devices[0])->mig_enabled);
        ck_assert_uint_eq(xpu_nvidia_facts(&inv->devices[0])->n_mig, 0);
        ck_assert_uint_eq(inv->n_warnings, 0);
        edge_done(t, inv);
}
END_TEST

START_TEST(test_hyperv_host) {
        struct xpu_inventory *inv = xpu_test_probe_host("nvidia-hyperv-t4x2");
        ck_assert_msg(inv->n_warnings == 0, "%s", inv->n_warnings ? inv->warnings[0] : "");
        ck_assert_uint_eq(inv->n_devices, 2);
        ck_assert_str_eq(inv->devices[0].pci_bus_id, "03f8cfdd:00:00.0");
        ck_assert_uint_eq(xpu_nvidia_facts(&inv->devices[0])->minor, 0);
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

static Suite *nvidia_edge_suite(void) {
        Suite *s = suite_create("nvidia.edge");
        TCase *tc = tcase_create("edge");
        tcase_add_test(tc, test_edge_open_module_domains_order);
        tcase_add_test(tc, test_edge_excluded);
        tcase_add_test(tc, test_edge_duplicates);
        tcase_add_test(tc, test_edge_missing_minor);
        tcase_add_test(tc, test_edge_garbage_minor_and_bad_field);
        tcase_add_test(tc, test_edge_bad_entries);
        tcase_add_test(tc, test_edge_fifo_information);
        tcase_add_test(tc, test_edge_proc_devices_majors);
        tcase_add_test(tc, test_edge_sysfs_extras);
        tcase_add_test(tc, test_edge_mig);
        tcase_add_test(tc, test_hyperv_host);
        tcase_add_test(tc, test_edge_gpu_limit);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(nvidia_edge_suite());
}
