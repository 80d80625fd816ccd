/* SPDX-License-Identifier: Apache-2.0 */
/* probes/amd/amd.c: KFD topology + amdgpu sysfs parsers and the AMD fast path against fixture hosts.
 * Values come from each host's expected.json (tests/fixtures/hosts/amd-*) and, for the synthetic
 * amd-edge-* hosts, from tests/fixtures/README.md. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "amd/amd.h"
#include "base/escape.h"
#include "testlib.h"
#include "vendor.h"

static struct xpu_inventory *probe_dir(const char *dir) {
        return xpu_test_probe_backend(xpu_vendors[XPU_VENDOR_AMD], dir);
}

static struct xpu_inventory *probe_host(const char *name) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s", xpu_test_host(name));
        return probe_dir(path);
}

static void assert_node(const struct xpu_devnode *n, const char *path, uint32_t major, uint32_t minor) {
        ck_assert_str_eq(n->path, path);
        ck_assert(n->have_major);
        ck_assert_uint_eq(n->major, major);
        ck_assert_uint_eq(n->minor, minor);
}

static void assert_kfd_node(const struct xpu_inventory *inv, uint32_t major) {
        const struct xpu_vendor_info *v = &inv->vendors[XPU_VENDOR_AMD];
        ck_assert_uint_eq(v->n_nodes, 1);
        assert_node(&v->nodes[0], "/dev/kfd", major, 0);
        ck_assert(!v->nodes[0].optional);
}

/* The one warning that names FILE; asserts there is exactly one. */
static const char *warning_for(const struct xpu_inventory *inv, const char *file) {
        const char *found = NULL;
        for (size_t i = 0; i < inv->n_warnings; i++)
                if (strstr(inv->warnings[i], file)) {
                        ck_assert_msg(!found, "two warnings name %s", file);
                        found = inv->warnings[i];
                }
        ck_assert_msg(found, "no warning names %s", file);
        return found;
}

/* ---- parsers ---------------------------------------------------------------------------- */

START_TEST(test_gfx_target) {
        static const struct {
                uint32_t version;
                const char *name;
        } table[] = {
                { 80003, "gfx803" },   { 90000, "gfx900" },   { 90008, "gfx908" },   { 90010, "gfx90a" },
                { 90012, "gfx90c" },   { 90402, "gfx942" },   { 90500, "gfx950" },   { 100300, "gfx1030" },
                { 110000, "gfx1100" }, { 110501, "gfx1151" }, { 120001, "gfx1201" },
        };
        char buf[16];
        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                ck_assert_int_eq(xpu_amd_gfx_target(table[i].version, buf, sizeof buf), (int)strlen(table[i].name));
                ck_assert_str_eq(buf, table[i].name);
        }
        ck_assert_int_eq(xpu_amd_gfx_target(0, buf, sizeof buf), -EINVAL);       /* CPU node */
        ck_assert_int_eq(xpu_amd_gfx_target(42, buf, sizeof buf), -EINVAL);      /* major 0 */
        ck_assert_int_eq(xpu_amd_gfx_target(91600, buf, sizeof buf), -EINVAL);   /* minor 16 */
        ck_assert_int_eq(xpu_amd_gfx_target(90016, buf, sizeof buf), -EINVAL);   /* stepping 16 */
        ck_assert_int_eq(xpu_amd_gfx_target(123456, buf, sizeof buf), -EINVAL);  /* minor 34 */
        ck_assert_int_eq(xpu_amd_gfx_target(1000000, buf, sizeof buf), -EINVAL); /* major 100 */
        ck_assert_int_eq(xpu_amd_gfx_target(100300, buf, 7), -ENOBUFS);
        ck_assert_int_eq(xpu_amd_gfx_target(90010, buf, 7), 6);
        ck_assert_str_eq(buf, "gfx90a");
}
END_TEST

START_TEST(test_parse_properties) {
        struct xpu_amd_properties p;
        uint64_t v = 0;
        ck_assert_int_eq(xpu_amd_parse_properties("simd_count 416\nsimd_per_cu\t4\n\n  location_id 25344  \n"
                                                  "unique_id 17721451727840391468\nfuture_key 7\n",
                                                  &p),
                         0);
        ck_assert_uint_eq(p.n_malformed, 0);
        ck_assert(xpu_amd_prop_get(&p, XPU_AMD_PROP_SIMD_COUNT, &v));
        ck_assert_uint_eq(v, 416);
        ck_assert(xpu_amd_prop_get(&p, XPU_AMD_PROP_SIMD_PER_CU, &v));
        ck_assert_uint_eq(v, 4);
        ck_assert(xpu_amd_prop_get(&p, XPU_AMD_PROP_LOCATION_ID, &v));
        ck_assert_uint_eq(v, 25344);
        ck_assert(xpu_amd_prop_get(&p, XPU_AMD_PROP_UNIQUE_ID, &v));
        ck_assert_uint_eq(v, 17721451727840391468ull);
        ck_assert(!xpu_amd_prop_get(&p, XPU_AMD_PROP_DOMAIN, NULL));
        ck_assert_uint_eq(p.have, (1u << XPU_AMD_PROP_SIMD_COUNT) | (1u << XPU_AMD_PROP_SIMD_PER_CU) |
                                          (1u << XPU_AMD_PROP_LOCATION_ID) | (1u << XPU_AMD_PROP_UNIQUE_ID));

        /* Garbage, a key without value, hex, negative, overflow, a repeat, an over-long line and
         * no final newline: seven malformed lines, the first simd_count stands. */
        char text[512];
        snprintf(text, sizeof text,
                 "garbage here\nsimd_count\nsimd_count 64\nsimd_count 999\ndevice_id 0x740f\nunique_id -5\n"
                 "hive_id 18446744073709551616\n%0150d 1\ndomain 3",
                 0);
        ck_assert_int_eq(xpu_amd_parse_properties(text, &p), 0);
        ck_assert_uint_eq(p.n_malformed, 7);
        ck_assert(xpu_amd_prop_get(&p, XPU_AMD_PROP_SIMD_COUNT, &v));
        ck_assert_uint_eq(v, 64);
        ck_assert(!xpu_amd_prop_get(&p, XPU_AMD_PROP_DEVICE_ID, NULL));
        ck_assert(!xpu_amd_prop_get(&p, XPU_AMD_PROP_UNIQUE_ID, NULL));
        ck_assert(!xpu_amd_prop_get(&p, XPU_AMD_PROP_HIVE_ID, NULL));
        ck_assert(xpu_amd_prop_get(&p, XPU_AMD_PROP_DOMAIN, &v));
        ck_assert_uint_eq(v, 3);

        ck_assert_int_eq(xpu_amd_parse_properties("", &p), 0);
        ck_assert_uint_eq(p.have, 0);
        ck_assert_int_eq(xpu_amd_parse_properties(NULL, &p), -EINVAL);
        ck_assert_str_eq(xpu_amd_prop_name(XPU_AMD_PROP_GFX_TARGET_VERSION), "gfx_target_version");
        ck_assert_ptr_null(xpu_amd_prop_name(_XPU_AMD_PROP_MAX));
}
END_TEST

START_TEST(test_location_dev_unique_id) {
        struct xpu_amd_location l;
        ck_assert_int_eq(xpu_amd_location_decode(0, 25344, &l), 0); /* 0x6300 */
        ck_assert_uint_eq(l.domain, 0);
        ck_assert_uint_eq(l.bus, 0x63);
        ck_assert_uint_eq(l.dev, 0);
        ck_assert_uint_eq(l.fn, 0);
        ck_assert_int_eq(xpu_amd_location_decode(1, 0x0503, &l), 0); /* partition 3 of 0001:05:00 */
        ck_assert_uint_eq(l.bus, 5);
        ck_assert_uint_eq(l.fn, 3);
        ck_assert_int_eq(xpu_amd_location_decode(0x3f8cfdd, 0x01f9, &l), 0); /* devfn 0xf9: 1f.1 */
        ck_assert_uint_eq(l.domain, 0x3f8cfdd);
        ck_assert_uint_eq(l.bus, 1);
        ck_assert_uint_eq(l.dev, 0x1f);
        ck_assert_uint_eq(l.fn, 1);
        ck_assert_int_eq(xpu_amd_location_decode(0, 0x10000, &l), -ERANGE);
        ck_assert_int_eq(xpu_amd_location_decode(1ull << 32, 0, &l), -ERANGE);

        uint32_t maj = 0, min = 0;
        ck_assert_int_eq(xpu_amd_parse_dev("510:0\n", &maj, &min), 0);
        ck_assert_uint_eq(maj, 510);
        ck_assert_uint_eq(min, 0);
        ck_assert_int_eq(xpu_amd_parse_dev("510", &maj, &min), -EINVAL);
        ck_assert_int_eq(xpu_amd_parse_dev("a:0", &maj, &min), -EINVAL);
        ck_assert_int_eq(xpu_amd_parse_dev("5000000:0", &maj, &min), -EINVAL);

        uint64_t id = 0;
        ck_assert_int_eq(xpu_amd_parse_unique_id("2aba500bd9e889b6\n", &id), 0);
        ck_assert_uint_eq(id, 0x2aba500bd9e889b6ull);
        ck_assert_int_eq(xpu_amd_parse_unique_id("4edfb117a17a07d", &id), 0); /* rocm-smi: 15 digits */
        ck_assert_uint_eq(id, 0x4edfb117a17a07dull);
        ck_assert_int_eq(xpu_amd_parse_unique_id("N/A\n", &id), -ENODATA);
        ck_assert_int_eq(xpu_amd_parse_unique_id("\n", &id), -ENODATA);
        ck_assert_int_eq(xpu_amd_parse_unique_id("0x2aba500bd9e889b6", &id), -EINVAL);
        ck_assert_int_eq(xpu_amd_parse_unique_id("12345678901234567", &id), -EINVAL);
        ck_assert_int_eq(xpu_amd_parse_unique_id("xyz", &id), -EINVAL);
}
END_TEST

/* ---- real-host fixtures ----------------------------------------------------------------- */

START_TEST(test_host_mi25_old_kernel) {
        struct xpu_inventory *inv = probe_host("amd-mi25-single");
        ck_assert_uint_eq(inv->n_devices, 1);
        ck_assert_uint_eq(inv->n_warnings, 0);
        const struct xpu_device *d = &inv->devices[0];
        ck_assert_int_eq(d->vendor, XPU_VENDOR_AMD);
        ck_assert_int_eq(d->source, XPU_SOURCE_SYSFS);
        ck_assert_uint_eq(d->vendor_index, 0);
        ck_assert_uint_eq(xpu_amd_facts(d)->kfd_node, 1);
        ck_assert_uint_eq(xpu_amd_facts(d)->kfd_gpu_id, 13261);
        ck_assert(d->have & XPU_HAVE_KFD_GPU_ID);
        ck_assert(d->have & XPU_HAVE_PCI_IDS);
        ck_assert_uint_eq(d->pci_vendor_id, 0x1002);
        ck_assert_uint_eq(d->pci_device_id, 0x6860);
        ck_assert_str_eq(d->pci_bus_id, "0000:19:00.0"); /* no domain line: domain 0 */
        /* Old kernel: no gfx_target_version, so no gfx target (never guessed from the device id). */
        ck_assert(!(d->have & XPU_HAVE_GFX_TARGET_VERSION));
        ck_assert_str_eq(xpu_amd_facts(d)->gfx_target, "");
        ck_assert(!(d->have & XPU_HAVE_NUM_XCC));
        ck_assert_uint_eq(d->render_minor, 128);
        ck_assert_str_eq(xpu_amd_facts(d)->unique_id, "15549e5bf7f063b7");
        ck_assert_str_eq(d->uuid, "GPU-15549e5bf7f063b7");
        ck_assert_uint_eq(xpu_amd_facts(d)->simd_count, 256);
        ck_assert_uint_eq(xpu_amd_facts(d)->compute_units, 64);
        ck_assert(d->have & XPU_HAVE_MEMORY_TOTAL);
        ck_assert_uint_eq(d->memory_total_bytes, 17163091968ull); /* local_mem_size */
        ck_assert(!(d->have & (XPU_HAVE_MEMORY_USED | XPU_HAVE_NUMA_NODE | XPU_HAVE_CARD | XPU_HAVE_PARTITION)));
        ck_assert_str_eq(d->name, "");
        ck_assert_uint_eq(d->n_nodes, 2); /* /dev/kfd first, then the render node */
        assert_node(&d->nodes[0], "/dev/kfd", 510, 0);
        assert_node(&d->nodes[1], "/dev/dri/renderD128", 226, 128);
        ck_assert(!d->nodes[1].present); /* the committed tree has no device nodes */
        assert_kfd_node(inv, 510);
        ck_assert(inv->vendors[XPU_VENDOR_AMD].driver_loaded);
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_AMD].driver_version, "");
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_AMD].looked_for, "");
        xpu_inventory_free(inv);
}
END_TEST

START_TEST(test_host_mi210x8_node_order) {
        static const struct {
                uint32_t kfd_node;
                const char *bus, *unique_id;
        } want[] = {
                { 2, "0000:63:00.0", "22e235479cc58a01" }, { 3, "0000:43:00.0", "f5ef3e744628b12c" },
                { 4, "0000:03:00.0", "c31c435ca66bf59a" }, { 5, "0000:26:00.0", "bddff1dde02f79ec" },
                { 6, "0000:e3:00.0", "188e1c17d8024bd0" }, { 7, "0000:c3:00.0", "4c5f675f14e7e4b8" },
                { 8, "0000:83:00.0", "1c8c28d9414179fe" }, { 9, "0000:a3:00.0", "18a7fcf9b717fab7" },
        };
        /* Through the whole inventory, so xpuinit indices are checked too. */
        struct xpu_inventory *inv = xpu_test_probe_host("amd-mi210x8");
        ck_assert_uint_eq(xpu_inventory_count(inv, XPU_VENDOR_AMD), 8);
        ck_assert_uint_eq(inv->n_devices, 8);
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                const struct xpu_device *d = &inv->devices[i];
                char uuid[32];
                ck_assert_uint_eq(d->index, i);
                ck_assert_uint_eq(d->vendor_index, i);
                ck_assert_uint_eq(xpu_amd_facts(d)->kfd_node, want[i].kfd_node);
                ck_assert_str_eq(d->pci_bus_id, want[i].bus);
                ck_assert_str_eq(xpu_amd_facts(d)->unique_id, want[i].unique_id);
                snprintf(uuid, sizeof uuid, "GPU-%s", want[i].unique_id);
                ck_assert_str_eq(d->uuid, uuid);
                ck_assert_uint_eq(d->render_minor, 128 + i);
                ck_assert_uint_eq(xpu_amd_facts(d)->gfx_target_version, 90010);
                ck_assert_str_eq(xpu_amd_facts(d)->gfx_target, "gfx90a");
                ck_assert_uint_eq(xpu_amd_facts(d)->simd_count, 416);
                ck_assert_uint_eq(xpu_amd_facts(d)->compute_units, 104);
                ck_assert(d->have & XPU_HAVE_NUM_XCC);
                ck_assert_uint_eq(xpu_amd_facts(d)->num_xcc, 1);
                ck_assert_uint_eq(d->pci_device_id, 0x740f);
                /* No gpu_id files in this capture; local_mem_size 0 and no mem_banks: unknown. */
                ck_assert(!(d->have & (XPU_HAVE_KFD_GPU_ID | XPU_HAVE_MEMORY_TOTAL | XPU_HAVE_PARTITION)));
                ck_assert_uint_eq(d->n_nodes, 2);
                assert_node(&d->nodes[0], "/dev/kfd", 510, 0);
                char node[32];
                snprintf(node, sizeof node, "/dev/dri/renderD%zu", 128 + i);
                assert_node(&d->nodes[1], node, 226, (uint32_t)(128 + i));
        }
        assert_kfd_node(inv, 510);
        ck_assert_uint_eq(inv->n_warnings, 0);
        xpu_inventory_free(inv);
}
END_TEST

START_TEST(test_host_mi100x4_sysfs_only) {
        static const char *const bus[] = { "0000:83:00.0", "0000:a3:00.0", "0000:c3:00.0", "0000:e3:00.0" };
        static const char *const uid[] = { "2aba500bd9e889b6", "0d7c5ae471ffe776", "8e7767dc4ce4cf3a",
                                           "fb46471209d2c6e6" };
        struct xpu_inventory *inv = probe_host("amd-mi100x4");
        ck_assert_uint_eq(inv->n_devices, 4);
        ck_assert_uint_eq(inv->n_warnings, 0);
        for (uint32_t i = 0; i < 4; i++) {
                const struct xpu_device *d = &inv->devices[i];
                char s[32];
                ck_assert_uint_eq(d->vendor_index, i);
                ck_assert_int_eq(d->source, XPU_SOURCE_SYSFS);
                ck_assert(d->have & XPU_HAVE_CARD);
                ck_assert_uint_eq(d->card, i);
                ck_assert_str_eq(d->pci_bus_id, bus[i]); /* from the cardN/device link */
                ck_assert_str_eq(xpu_amd_facts(d)->unique_id, uid[i]);
                snprintf(s, sizeof s, "GPU-%s", uid[i]);
                ck_assert_str_eq(d->uuid, s);
                ck_assert_uint_eq(d->pci_vendor_id, 0x1002);
                ck_assert_uint_eq(d->pci_device_id, 0x738c);
                ck_assert_uint_eq(d->memory_total_bytes, 34342961152ull);
                ck_assert_uint_eq(d->memory_used_bytes, 6750208);
                ck_assert(d->have & XPU_HAVE_MEMORY_USED);
                ck_assert(d->have & XPU_HAVE_NUMA_NODE);
                ck_assert_int_eq(d->numa_node, 1);
                ck_assert_str_eq(d->driver_version, "6.3.6");
                /* rocm-smi's name came from pci.ids; there is no product_name file: no name. */
                ck_assert_str_eq(d->name, "");
                ck_assert(!(d->have & (XPU_HAVE_KFD_NODE | XPU_HAVE_RENDER_MINOR | XPU_HAVE_GFX_TARGET_VERSION)));
                ck_assert_uint_eq(d->n_nodes, 1);
                snprintf(s, sizeof s, "/dev/dri/card%u", i);
                assert_node(&d->nodes[0], s, 226, i);
                ck_assert(!d->nodes[0].optional);
        }
        const struct xpu_vendor_info *v = &inv->vendors[XPU_VENDOR_AMD];
        ck_assert(v->driver_loaded);
        ck_assert_str_eq(v->driver_version, "6.3.6");
        ck_assert_uint_eq(v->n_nodes, 0); /* no KFD: no /dev/kfd */
        xpu_inventory_free(inv);
}
END_TEST

START_TEST(test_host_vega10_consumer) {
        struct xpu_inventory *inv = probe_host("amd-vega10");
        ck_assert_uint_eq(inv->n_devices, 1);
        ck_assert_uint_eq(inv->n_warnings, 0);
        const struct xpu_device *d = &inv->devices[0];
        ck_assert_uint_eq(d->card, 0);
        ck_assert_str_eq(d->pci_bus_id, "0000:09:00.0"); /* flattened link: from uevent */
        ck_assert_uint_eq(d->pci_device_id, 0x687f);
        ck_assert_str_eq(xpu_amd_facts(d)->unique_id, "0123456789abcdef");
        ck_assert_str_eq(d->uuid, "GPU-0123456789abcdef");
        ck_assert_uint_eq(d->memory_total_bytes, 8573157376ull);
        ck_assert_uint_eq(d->memory_used_bytes, 1490378752ull);
        ck_assert(d->have & XPU_HAVE_NUMA_NODE);
        ck_assert_int_eq(d->numa_node, -1);
        ck_assert_str_eq(d->name, ""); /* product_name holds only "\n" */
        ck_assert_str_eq(d->driver_version, "");
        ck_assert_uint_eq(d->n_nodes, 1);
        assert_node(&d->nodes[0], "/dev/dri/card0", 226, 0);
        xpu_inventory_free(inv);
}
END_TEST

/* ---- synthetic hosts -------------------------------------------------------------------- */

START_TEST(test_mi300x_partitions) {
        struct xpu_inventory *inv = probe_host("amd-edge-mi300x-qpx");
        ck_assert_uint_eq(inv->n_devices, 4);
        ck_assert_uint_eq(inv->n_warnings, 0);
        for (uint32_t i = 0; i < 4; i++) {
                const struct xpu_device *d = &inv->devices[i];
                char s[32];
                ck_assert_uint_eq(d->vendor_index, i);
                ck_assert_uint_eq(xpu_amd_facts(d)->kfd_node, i + 1);
                ck_assert_uint_eq(xpu_amd_facts(d)->kfd_gpu_id, 4660 + i * 1111);
                ck_assert(d->have & XPU_HAVE_PARTITION);
                ck_assert_uint_eq(d->partition, i);
                ck_assert_str_eq(d->pci_bus_id, "0000:05:00.0"); /* the parent PCI device */
                ck_assert_str_eq(xpu_amd_facts(d)->unique_id, "1234567890abcdef");
                ck_assert_str_eq(d->uuid, "GPU-1234567890abcdef");
                ck_assert_str_eq(xpu_amd_facts(d)->gfx_target, "gfx942");
                ck_assert_uint_eq(xpu_amd_facts(d)->num_xcc, 2);
                ck_assert_uint_eq(xpu_amd_facts(d)->compute_units, 76);
                ck_assert_uint_eq(d->pci_device_id, 0x74a1);
                /* Per-partition VRAM from mem_banks, not the card's whole-GPU figure. */
                ck_assert_uint_eq(d->memory_total_bytes, 51539607552ull);
                ck_assert(!(d->have & XPU_HAVE_MEMORY_USED));
                ck_assert_str_eq(d->name, "AMD Instinct MI300X");
                ck_assert_uint_eq(d->card, 0);
                ck_assert_int_eq(d->numa_node, 0);
                ck_assert_uint_eq(d->n_nodes, 2);
                assert_node(&d->nodes[0], "/dev/kfd", 511, 0);
                snprintf(s, sizeof s, "/dev/dri/renderD%u", 128 + i);
                assert_node(&d->nodes[1], s, 226, 128 + i);
        }
        assert_kfd_node(inv, 511);
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_AMD].driver_version, ""); /* in-tree amdgpu */
        xpu_inventory_free(inv);
}
END_TEST

/* The partition mode of an MI300X: current_compute_partition + current_memory_partition of the
 * card's device dir, lower-case, on every partition; one file alone; a hostile value refused. */
START_TEST(test_partition_mode) {
        char *t = xpu_test_copy_host("amd-edge-mi300x-qpx");
        struct xpu_inventory *inv = probe_dir(t);
        ck_assert_str_eq(xpu_amd_facts(&inv->devices[0])->partition_mode, ""); /* the capture has neither file */
        xpu_inventory_free(inv);
        xpu_test_write(t, "sys/class/drm/card0/device/current_compute_partition", "QPX\n");
        xpu_test_write(t, "sys/class/drm/card0/device/current_memory_partition", "NPS1\n");
        inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 4);
        for (size_t i = 0; i < inv->n_devices; i++)
                ck_assert_str_eq(xpu_amd_facts(&inv->devices[i])->partition_mode, "qpx_nps1");
        ck_assert_uint_eq(inv->n_warnings, 0);
        xpu_inventory_free(inv);
        xpu_test_write(t, "sys/class/drm/card0/device/current_memory_partition", "NPS1 ../\033[31m\n");
        inv = probe_dir(t);
        ck_assert_str_eq(xpu_amd_facts(&inv->devices[0])->partition_mode, "qpx");
        ck_assert_uint_ge(inv->n_warnings, 1);
        ck_assert_msg(strstr(inv->warnings[0], "/sys/class/drm/card0/device/current_memory_partition: ") &&
                              strstr(inv->warnings[0], "is no partition mode; left out"),
                      "%s", inv->warnings[0]);
        xpu_inventory_free(inv);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

START_TEST(test_lone_partition_in_container) {
        /* A container given partition 3 only: the other partitions' nodes are gone. */
        char *t = xpu_test_copy_host("amd-edge-mi300x-qpx");
        char p[PATH_MAX];
        for (int n = 1; n <= 3; n++) {
                snprintf(p, sizeof p, "%s/sys/class/kfd/kfd/topology/nodes/%d", t, n);
                xpu_test_rm_rf(p);
        }
        struct xpu_inventory *inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 1);
        const struct xpu_device *d = &inv->devices[0];
        ck_assert_uint_eq(xpu_amd_facts(d)->kfd_node, 4);
        ck_assert(d->have & XPU_HAVE_PARTITION);
        ck_assert_uint_eq(d->partition, 3);
        ck_assert_str_eq(d->pci_bus_id, "0000:05:00.0");
        ck_assert_uint_eq(d->render_minor, 131);
        ck_assert_uint_eq(d->card, 0);
        xpu_inventory_free(inv);

        /* Function 3 is a PCI device of its own: then it is no partition. */
        xpu_test_write(t, "sys/bus/pci/devices/0000:05:00.3/vendor", "0x1002\n");
        inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 1);
        ck_assert(!(inv->devices[0].have & XPU_HAVE_PARTITION));
        ck_assert_str_eq(inv->devices[0].pci_bus_id, "0000:05:00.3");
        ck_assert(!(inv->devices[0].have & XPU_HAVE_CARD));
        xpu_inventory_free(inv);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

START_TEST(test_quirks) {
        struct xpu_inventory *inv = probe_host("amd-edge-quirks");
        /* Nodes 0 (CPU), 1, 3, 7 (broken), 12 in numeric order; "foo" and "01" ignored; card2 has
         * no KFD node and card3 is on radeon: neither is a device. */
        ck_assert_uint_eq(inv->n_devices, 3);

        const struct xpu_device *d = &inv->devices[0];
        ck_assert_uint_eq(xpu_amd_facts(d)->kfd_node, 1);
        ck_assert_uint_eq(xpu_amd_facts(d)->kfd_gpu_id, 17330);
        ck_assert_str_eq(d->pci_bus_id, "0000:0b:00.0");
        ck_assert_str_eq(xpu_amd_facts(d)->gfx_target, "gfx1030");
        ck_assert_uint_eq(xpu_amd_facts(d)->compute_units, 60);
        ck_assert_str_eq(xpu_amd_facts(d)->unique_id, ""); /* no unique_id line; card's "N/A" not used */
        ck_assert_str_eq(d->uuid, "");
        ck_assert(d->have & XPU_HAVE_CARD);
        ck_assert_uint_eq(d->card, 1); /* card0 is simpledrm */
        ck_assert_str_eq(d->name, "");  /* empty product_name */
        ck_assert_uint_eq(d->memory_total_bytes, 17163091968ull); /* from mem_info_vram_total */
        ck_assert_uint_eq(d->memory_used_bytes, 268435456);
        ck_assert_int_eq(d->numa_node, -1);
        ck_assert_str_eq(d->driver_version, "6.8.5");
        ck_assert_uint_eq(d->n_nodes, 2);
        ck_assert_str_eq(d->nodes[0].path, "/dev/kfd");
        assert_node(&d->nodes[1], "/dev/dri/renderD128", 226, 128);

        d = &inv->devices[1];
        ck_assert_uint_eq(d->vendor_index, 1);
        ck_assert_uint_eq(xpu_amd_facts(d)->kfd_node, 3);
        ck_assert_str_eq(d->pci_bus_id, "0000:43:00.0");
        ck_assert_str_eq(xpu_amd_facts(d)->unique_id, "0000000000000012");
        ck_assert_uint_eq(d->memory_total_bytes, 68702699520ull); /* heap 2 bank; system heap left out */
        ck_assert(!(d->have & (XPU_HAVE_CARD | XPU_HAVE_MEMORY_USED)));
        ck_assert_int_eq(d->numa_node, 1); /* from /sys/bus/pci/devices */
        assert_node(&d->nodes[1], "/dev/dri/renderD129", 226, 129);

        d = &inv->devices[2];
        ck_assert_uint_eq(xpu_amd_facts(d)->kfd_node, 12);
        ck_assert_str_eq(d->pci_bus_id, "0001:83:00.0");
        ck_assert_uint_eq(xpu_amd_facts(d)->simd_count, 64); /* the first simd_count line stands */
        ck_assert_uint_eq(xpu_amd_facts(d)->compute_units, 16);
        ck_assert(!(d->have & (XPU_HAVE_GFX_TARGET_VERSION | XPU_HAVE_PCI_IDS | XPU_HAVE_RENDER_MINOR |
                               XPU_HAVE_NUMA_NODE)));
        ck_assert_str_eq(xpu_amd_facts(d)->gfx_target, "");
        ck_assert_str_eq(xpu_amd_facts(d)->unique_id, "");
        ck_assert_uint_eq(d->memory_total_bytes, 8589934592ull);
        ck_assert_uint_eq(d->n_nodes, 0);

        /* One warning per bad file, naming it; nothing for the good ones. */
        ck_assert_uint_eq(inv->n_warnings, 2);
        const char *w = warning_for(inv, "/sys/class/kfd/kfd/topology/nodes/12/properties");
        ck_assert_ptr_nonnull(strstr(w, "6 malformed line(s) ignored"));
        ck_assert_ptr_nonnull(strstr(w, "gfx_target_version 123456"));
        ck_assert_ptr_nonnull(strstr(w, "no drm_render_minor"));
        w = warning_for(inv, "/sys/class/kfd/kfd/topology/nodes/7/properties");
        ck_assert_ptr_nonnull(strstr(w, "node skipped"));

        /* No sys/class/kfd/kfd/dev: /dev/kfd is listed with its major unknown. */
        const struct xpu_vendor_info *v = &inv->vendors[XPU_VENDOR_AMD];
        ck_assert_uint_eq(v->n_nodes, 1);
        ck_assert_str_eq(v->nodes[0].path, "/dev/kfd");
        ck_assert(!v->nodes[0].have_major);
        ck_assert_str_eq(v->driver_version, "6.8.5");
        xpu_inventory_free(inv);
}
END_TEST

START_TEST(test_devnodes_present) {
        char *t = xpu_test_copy_host("amd-edge-quirks");
        xpu_test_make_devnodes(t);
        struct xpu_inventory *inv = probe_dir(t);
        const struct xpu_vendor_info *v = &inv->vendors[XPU_VENDOR_AMD];
        ck_assert_uint_eq(v->n_nodes, 1);
        ck_assert(v->nodes[0].present);
        /* No sys/class/kfd/kfd/dev here: the major stays unknown even though the node exists
         * (a node cannot vouch for itself). */
        ck_assert_str_eq(v->nodes[0].path, "/dev/kfd");
        ck_assert(!v->nodes[0].have_major);
        ck_assert(inv->devices[0].nodes[0].present);
        ck_assert(inv->devices[0].nodes[1].present);
        ck_assert(!inv->devices[0].nodes[0].have_major); /* the device's copy too */
        ck_assert(xpu_device_available(&inv->devices[0]));
        ck_assert(inv->devices[1].nodes[1].present);
        xpu_inventory_free(inv);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* A product_name in UTF-8 is kept byte for byte. One that is not UTF-8 text (a byte that is not,
 * an escape sequence's ESC) keeps its text with U+FFFD in place of each bad byte or control
 * character, and a warning: nothing raw reaches JSON or a terminal. */
START_TEST(test_product_name_utf8) {
        char *t = xpu_test_copy_host("amd-vega10");
        xpu_test_write(t, "sys/class/drm/card0/device/product_name", "AMD Radeon\xe2\x84\xa2 Pro W7900\n");
        struct xpu_inventory *inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 1);
        ck_assert_str_eq(inv->devices[0].name, "AMD Radeon\xe2\x84\xa2 Pro W7900");
        ck_assert_uint_eq(inv->n_warnings, 0);
        xpu_inventory_free(inv);

        xpu_test_write(t, "sys/class/drm/card0/device/product_name", "Radeon\377\033[31mEVIL \xe2\x84\n");
        inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 1);
        ck_assert_str_eq(inv->devices[0].name, "Radeon\xef\xbf\xbd\xef\xbf\xbd[31mEVIL \xef\xbf\xbd\xef\xbf\xbd");
        ck_assert(xpu_str_is_text(inv->devices[0].name));
        ck_assert_uint_eq(inv->n_warnings, 1);
        ck_assert_str_eq(inv->warnings[0], "/sys/class/drm/card0/device/product_name: not UTF-8 text: 4 "
                                           "character(s) shown as U+FFFD");
        xpu_inventory_free(inv);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

START_TEST(test_render_node_from_card_dir) {
        /* A sysfs-only card whose device/drm names its render node: render node required, card
         * node optional. (No 128 + N guess: the render minor here is 129 for card0.) */
        char *t = xpu_test_copy_host("amd-vega10");
        xpu_test_write(t, "sys/class/drm/card0/device/drm/renderD129/dev", "226:129\n");
        struct xpu_inventory *inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 1);
        const struct xpu_device *d = &inv->devices[0];
        ck_assert(d->have & XPU_HAVE_RENDER_MINOR);
        ck_assert_uint_eq(d->render_minor, 129);
        ck_assert_uint_eq(d->n_nodes, 2);
        assert_node(&d->nodes[0], "/dev/dri/renderD129", 226, 129);
        ck_assert(!d->nodes[0].optional);
        assert_node(&d->nodes[1], "/dev/dri/card0", 226, 0);
        ck_assert(d->nodes[1].optional);
        xpu_inventory_free(inv);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

START_TEST(test_denied_node_skipped_quietly) {
        /* A GPU the device cgroup denies answers EPERM; as root we get the same effect with mode
         * 000 files read under a non-root effective uid (EACCES). */
        char *t = xpu_test_copy_host("amd-mi210x8");
        char p[PATH_MAX];
        ck_assert_int_eq(chmod(t, 0755), 0);
        snprintf(p, sizeof p, "%s/sys/class/kfd/kfd/topology/nodes/3/properties", t);
        ck_assert_int_eq(chmod(p, 0), 0);
        struct xpu_roots r;
        ck_assert_int_eq(xpu_roots_open(&r, t, t, t, NULL), 0);
        struct xpu_inventory *inv = xpu_inventory_new();
        bool was_root = geteuid() == 0;
        if (was_root)
                ck_assert_int_eq(seteuid(65534), 0);
        int rc = xpu_vendors[XPU_VENDOR_AMD]->probe.fast(&r, inv);
        if (was_root)
                ck_assert_int_eq(seteuid(0), 0);
        xpu_roots_close(&r);
        ck_assert_int_eq(rc, 0);
        ck_assert_uint_eq(inv->n_devices, 7);
        ck_assert_uint_eq(inv->n_warnings, 0);
        ck_assert_uint_eq(xpu_amd_facts(&inv->devices[0])->kfd_node, 2);
        ck_assert_uint_eq(xpu_amd_facts(&inv->devices[1])->kfd_node, 4); /* HIP's index 1 is now node 4 */
        ck_assert_uint_eq(inv->devices[1].vendor_index, 1);
        ck_assert_str_eq(inv->devices[1].pci_bus_id, "0000:03:00.0");
        ck_assert_uint_eq(inv->devices[1].render_minor, 130);
        xpu_inventory_free(inv);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* Hyper-V style PCI domains (wider than 16 bits) from KFD's "domain" line and from the card's sysfs
 * link: the bus id is canonical (8-digit domain), the card is matched to its KFD node by number
 * although the link spells the domain with 6 digits, and the NUMA node is read from the sysfs name
 * the kernel gives the device ("3f8cfdd:04:00.0", not the canonical "03f8cfdd:04:00.0"). */
START_TEST(test_hyperv_domains) {
        char *t = xpu_test_mkdtemp();
        /* Node 1: domain 0x1a2b3c (1715004), bus 3; an amdgpu card0 linked as "1a2b3c:03:00.0". */
        xpu_test_write(t, "sys/class/kfd/kfd/topology/nodes/1/properties",
                       "simd_count 416\nsimd_per_cu 4\ngfx_target_version 90010\nvendor_id 4098\n"
                       "device_id 29711\nlocation_id 768\ndomain 1715004\ndrm_render_minor 128\nunique_id 42\n");
        xpu_test_write(t, "sys/class/kfd/kfd/topology/nodes/1/gpu_id", "1234\n");
        const char *pdev = "sys/devices/pci1a2b3c:00/1a2b3c:03:00.0";
        char rel[128];
        snprintf(rel, sizeof rel, "%s/vendor", pdev);
        xpu_test_write(t, rel, "0x1002\n");
        snprintf(rel, sizeof rel, "%s/product_name", pdev);
        xpu_test_write(t, rel, "AMD Instinct MI210\n");
        snprintf(rel, sizeof rel, "%s/numa_node", pdev);
        xpu_test_write(t, rel, "2\n");
        snprintf(rel, sizeof rel, "%s/driver", pdev);
        xpu_test_symlink(t, rel, "../../../bus/pci/drivers/amdgpu");
        xpu_test_symlink(t, "sys/class/drm/card0/device", "../../../devices/pci1a2b3c:00/1a2b3c:03:00.0");
        /* Node 2: domain 0x3f8cfdd (66637789), bus 4, no card; its NUMA node only in sysfs. */
        xpu_test_write(t, "sys/class/kfd/kfd/topology/nodes/2/properties",
                       "simd_count 416\nsimd_per_cu 4\ngfx_target_version 90010\nvendor_id 4098\n"
                       "device_id 29711\nlocation_id 1024\ndomain 66637789\ndrm_render_minor 129\nunique_id 43\n");
        xpu_test_write(t, "sys/class/kfd/kfd/topology/nodes/2/gpu_id", "5678\n");
        xpu_test_write(t, "sys/bus/pci/devices/3f8cfdd:04:00.0/numa_node", "3\n");
        struct xpu_inventory *inv = probe_dir(t);
        ck_assert_msg(inv->n_warnings == 0, "%s", inv->n_warnings ? inv->warnings[0] : "");
        ck_assert_uint_eq(inv->n_devices, 2);
        const struct xpu_device *d = &inv->devices[0];
        ck_assert_str_eq(d->pci_bus_id, "001a2b3c:03:00.0");
        ck_assert(d->have & XPU_HAVE_CARD);
        ck_assert_uint_eq(d->card, 0);
        ck_assert_str_eq(d->name, "AMD Instinct MI210");
        ck_assert_int_eq(d->numa_node, 2);
        d = &inv->devices[1];
        ck_assert_str_eq(d->pci_bus_id, "03f8cfdd:04:00.0");
        ck_assert(!(d->have & XPU_HAVE_CARD));
        ck_assert_int_eq(d->numa_node, 3);
        xpu_inventory_free(inv);

        /* Without KFD the card alone is the device: its id from the link, canonical. */
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/sys/class/kfd", t);
        xpu_test_rm_rf(p);
        inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 1);
        ck_assert_str_eq(inv->devices[0].pci_bus_id, "001a2b3c:03:00.0");
        xpu_inventory_free(inv);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

START_TEST(test_no_amd_gpu) {
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "sys/class/drm/card0/device/vendor", "0x8086\n"); /* an Intel iGPU */
        xpu_test_write(t, "sys/class/drm/version", "1.1.0 20060810\n");
        struct xpu_inventory *inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 0);
        ck_assert_uint_eq(inv->n_warnings, 0);
        const struct xpu_vendor_info *v = &inv->vendors[XPU_VENDOR_AMD];
        ck_assert(!v->driver_loaded);
        ck_assert_uint_eq(v->n_nodes, 0);
        char want[512];
        snprintf(want, sizeof want,
                 "/sys/class/kfd/kfd/topology/nodes (GPU nodes) and /sys/class/drm/card*/device (vendor 0x1002, "
                 "amdgpu) under %s: not found",
                 t);
        ck_assert_str_eq(v->looked_for, want);
        xpu_inventory_free(inv);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

static Suite *amd_suite(void) {
        Suite *s = suite_create("amd");
        TCase *tc = tcase_create("parsers");
        tcase_add_test(tc, test_gfx_target);
        tcase_add_test(tc, test_parse_properties);
        tcase_add_test(tc, test_location_dev_unique_id);
        suite_add_tcase(s, tc);
        tc = tcase_create("hosts");
        tcase_add_test(tc, test_host_mi25_old_kernel);
        tcase_add_test(tc, test_host_mi210x8_node_order);
        tcase_add_test(tc, test_host_mi100x4_sysfs_only);
        tcase_add_test(tc, test_host_vega10_consumer);
        suite_add_tcase(s, tc);
        tc = tcase_create("edge");
        tcase_add_test(tc, test_mi300x_partitions);
        tcase_add_test(tc, test_partition_mode);
        tcase_add_test(tc, test_lone_partition_in_container);
        tcase_add_test(tc, test_quirks);
        tcase_add_test(tc, test_devnodes_present);
        tcase_add_test(tc, test_render_node_from_card_dir);
        tcase_add_test(tc, test_product_name_utf8);
        tcase_add_test(tc, test_denied_node_skipped_quietly);
        tcase_add_test(tc, test_no_amd_gpu);
        tcase_add_test(tc, test_hyperv_domains);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(amd_suite());
}
