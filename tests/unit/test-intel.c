/* SPDX-License-Identifier: Apache-2.0 */
/* probes/intel/intel.c: the Intel fast path against the fixture hosts (tests/fixtures/hosts/intel-*,
 * values from each host's expected.json) and against trees written here for what no capture has
 * (xe tiles and VRAM, Intel's out-of-tree i915 memory file, SR-IOV, odd files). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "base/macro.h"
#include "inventory-json.h"
#include "intel/intel.h"
#include "testlib.h"
#include "vendor.h"

static struct xpu_inventory *probe_dir(const char *dir) {
        return xpu_test_probe_backend(xpu_vendors[XPU_VENDOR_INTEL], dir);
}

static cJSON *expected(const char *host) {
        char rel[PATH_MAX];
        size_t len;
        snprintf(rel, sizeof rel, "hosts/%s/expected.json", host);
        _cleanup_free_ unsigned char *text = xpu_test_read_fixture(rel, &len);
        cJSON *j = cJSON_ParseWithLength((const char *)text, len);
        ck_assert_ptr_nonnull(j);
        return j;
}

static const char *jstr(const cJSON *o, const char *k) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
        return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Every device of the host's expected.json "intel" section, compared field by field: bus id,
 * device id, driver, card and render node, tiles, integrated, the device nodes. */
static void check_host(const char *host) {
        cJSON *exp = expected(host);
        const cJSON *intel = cJSON_GetObjectItemCaseSensitive(exp, "intel");
        const cJSON *devs = cJSON_GetObjectItemCaseSensitive(intel, "devices");
        struct xpu_inventory *inv = probe_dir(xpu_test_host(host));
        ck_assert_uint_eq(inv->n_devices, (size_t)cJSON_GetObjectItemCaseSensitive(intel, "count")->valueint);
        ck_assert(inv->vendors[XPU_VENDOR_INTEL].driver_loaded || inv->n_devices == 0);
        size_t i = 0;
        for (const cJSON *e = devs ? devs->child : NULL; e; e = e->next, i++) {
                const struct xpu_device *d = &inv->devices[i];
                ck_assert_int_eq(d->vendor, XPU_VENDOR_INTEL);
                ck_assert_uint_eq(d->vendor_index, (unsigned)cJSON_GetObjectItemCaseSensitive(e, "index")->valueint);
                ck_assert_str_eq(d->pci_bus_id, jstr(e, "pci_bus_id"));
                const char *card = jstr(e, "card");
                char want[32];
                snprintf(want, sizeof want, "card%u", d->card);
                ck_assert_str_eq(want, card);
                ck_assert(d->have & XPU_HAVE_RENDER_MINOR);
                ck_assert_uint_eq(d->render_minor,
                                  (unsigned)cJSON_GetObjectItemCaseSensitive(e, "render_minor")->valueint);
                const char *driver = jstr(e, "driver");
                ck_assert_str_eq(d->kernel_driver, driver ? driver : "");
                if (jstr(e, "device_id")) {
                        ck_assert(d->have & XPU_HAVE_PCI_IDS);
                        snprintf(want, sizeof want, "0x%04x", d->pci_device_id);
                        ck_assert_str_eq(want, jstr(e, "device_id"));
                }
                const cJSON *tiles = cJSON_GetObjectItemCaseSensitive(e, "tile_count");
                ck_assert_uint_eq(xpu_intel_facts(d)->tile_count, tiles ? (unsigned)tiles->valueint : 1u);
                ck_assert_int_eq(d->integrated, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "integrated")));
                /* memory is not in upstream sysfs: absent, not 0 */
                ck_assert(!(d->have & XPU_HAVE_MEMORY_TOTAL));
                const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(e, "device_nodes");
                ck_assert_uint_eq(d->n_nodes, (size_t)cJSON_GetArraySize(nodes));
                /* the render node first: it is the one compute needs */
                ck_assert_str_eq(d->nodes[0].path, cJSON_GetArrayItem(nodes, 1)->valuestring);
                ck_assert(!d->nodes[0].optional);
                ck_assert_str_eq(d->nodes[1].path, cJSON_GetArrayItem(nodes, 0)->valuestring);
                ck_assert(d->nodes[1].optional);
                ck_assert_uint_eq(d->nodes[0].major, 226);
        }
        ck_assert_uint_eq(i, inv->n_devices);
        ck_assert_uint_eq(inv->n_warnings, 0);
        xpu_inventory_free(inv);
        cJSON_Delete(exp);
}

START_TEST(test_host_arc_b580_xe) {
        check_host("intel-arc-b580-xe");
}
END_TEST

/* Six Max 1550 in two PCI domains: bus order with the domain first, two tiles each from i915's
 * gt/gt0 and gt/gt1 (a PVC device id). */
START_TEST(test_host_max1550_two_domains) {
        check_host("intel-max1550-x6-aurora");
}
END_TEST

/* The iGPU is card0 but renderD129 (the NVIDIA card took renderD128): the render node comes from
 * the card's drm/ directory; the NVIDIA card (vendor 0x10de) is not Intel's. */
START_TEST(test_host_igpu_render_swap) {
        check_host("intel-igpu-nvidia-renderswap");
}
END_TEST

/* One card of a written tree: vendor, device, class, driver link and render node. */
static void write_card(const char *root, unsigned n, const char *bus_id, const char *device, const char *cls,
                       const char *driver, unsigned render) {
        char rel[PATH_MAX], text[128];
        snprintf(rel, sizeof rel, "sys/class/drm/card%u/device/vendor", n);
        xpu_test_write(root, rel, "0x8086\n");
        snprintf(rel, sizeof rel, "sys/class/drm/card%u/device/device", n);
        snprintf(text, sizeof text, "%s\n", device);
        xpu_test_write(root, rel, text);
        snprintf(rel, sizeof rel, "sys/class/drm/card%u/device/class", n);
        snprintf(text, sizeof text, "%s\n", cls);
        xpu_test_write(root, rel, text);
        snprintf(rel, sizeof rel, "sys/class/drm/card%u/device/uevent", n);
        snprintf(text, sizeof text, "DRIVER=%s\nPCI_SLOT_NAME=%s\n", driver, bus_id);
        xpu_test_write(root, rel, text);
        snprintf(rel, sizeof rel, "sys/class/drm/card%u/device/driver", n);
        snprintf(text, sizeof text, "../../../../bus/pci/drivers/%s", driver);
        xpu_test_symlink(root, rel, text);
        snprintf(rel, sizeof rel, "sys/class/drm/card%u/device/drm/renderD%u/dev", n, render);
        snprintf(text, sizeof text, "226:%u\n", render);
        xpu_test_write(root, rel, text);
}

/* xe: tiles from device/tile*, VRAM as the sum of their physical_vram_size_bytes (decimal or hex);
 * i915 outside PVC: a second GT is a media GT, one tile; Intel's i915 lmem_total_bytes is the
 * card's VRAM. */
START_TEST(test_tiles_and_memory) {
        char *t = xpu_test_mkdtemp();
        write_card(t, 0, "0000:03:00.0", "0xe211", "0x030000", "xe", 128);
        xpu_test_write(t, "sys/class/drm/card0/device/tile0/physical_vram_size_bytes", "25769803776\n");
        xpu_test_write(t, "sys/class/drm/card0/device/tile1/physical_vram_size_bytes", "0x600000000\n");
        write_card(t, 1, "0000:00:02.0", "0x7d55", "0x030000", "i915", 129);
        xpu_test_write(t, "sys/class/drm/card1/gt/gt0/id", "0\n");
        xpu_test_write(t, "sys/class/drm/card1/gt/gt1/id", "1\n");
        write_card(t, 2, "0000:9a:00.0", "0x0bd5", "0x038000", "i915", 130);
        xpu_test_write(t, "sys/class/drm/card2/gt/gt0/id", "0\n");
        xpu_test_write(t, "sys/class/drm/card2/gt/gt1/id", "1\n");
        xpu_test_write(t, "sys/class/drm/card2/lmem_total_bytes", "137438953472\n");
        xpu_test_write(t, "sys/class/drm/card2/device/numa_node", "1\n");
        xpu_test_write(t, "sys/module/xe/refcnt", "1\n");
        struct xpu_inventory *inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 3);
        /* bus order: the iGPU first */
        const struct xpu_device *igpu = &inv->devices[0], *bmg = &inv->devices[1], *pvc = &inv->devices[2];
        ck_assert_str_eq(igpu->pci_bus_id, "0000:00:02.0");
        ck_assert(igpu->integrated);
        ck_assert_uint_eq(xpu_intel_facts(igpu)->tile_count, 1);
        ck_assert(!(igpu->have & XPU_HAVE_MEMORY_TOTAL));
        ck_assert_str_eq(bmg->kernel_driver, "xe");
        ck_assert(!bmg->integrated);
        ck_assert_uint_eq(xpu_intel_facts(bmg)->tile_count, 2);
        ck_assert(bmg->have & XPU_HAVE_MEMORY_TOTAL);
        ck_assert_uint_eq(bmg->memory_total_bytes, 25769803776ull + 0x600000000ull);
        ck_assert_uint_eq(xpu_intel_facts(pvc)->tile_count, 2);
        ck_assert_uint_eq(pvc->memory_total_bytes, 137438953472ull);
        ck_assert_int_eq(pvc->numa_node, 1);
        ck_assert_uint_eq(pvc->vendor_index, 2);
        ck_assert(inv->vendors[XPU_VENDOR_INTEL].driver_loaded);
        ck_assert_uint_eq(inv->n_warnings, 0);

        /* the JSON view carries the new facts */
        cJSON *j = xpu_device_to_json(bmg);
        ck_assert_str_eq(jstr(j, "kernel_driver"), "xe");
        ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(j, "tile_count")->valueint, 2);
        ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(j, "integrated"));
        cJSON_Delete(j);
        j = xpu_device_to_json(igpu);
        ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "integrated")));
        cJSON_Delete(j);
        xpu_inventory_free(inv);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* Cards that are not usable Intel GPUs are left out: another driver (vfio-pci), a non-display
 * class, an SR-IOV physical function with VFs enabled; an Intel card with no render node keeps
 * its card node as the one it needs; a garbage number is warned about, naming the file. */
START_TEST(test_skipped_and_odd_cards) {
        char *t = xpu_test_mkdtemp();
        write_card(t, 0, "0000:03:00.0", "0x56a0", "0x030000", "vfio-pci", 128);
        write_card(t, 1, "0000:04:00.0", "0x56a0", "0x088000", "i915", 129);
        write_card(t, 2, "0000:05:00.0", "0x56c0", "0x038000", "i915", 130);
        xpu_test_write(t, "sys/class/drm/card2/device/sriov_numvfs", "4\n");
        write_card(t, 3, "0000:06:00.0", "0x56a0", "0x030000", "i915", 131);
        xpu_test_write(t, "sys/class/drm/card3/device/numa_node", "banana\n");
        xpu_test_write(t, "sys/class/drm/card4/device/vendor", "0x8086\n");
        xpu_test_write(t, "sys/class/drm/card4/device/uevent", "PCI_SLOT_NAME=0000:07:00.0\n");
        xpu_test_write(t, "sys/class/drm/card4/device/drm/card4/dev", "226:4\n");
        struct xpu_inventory *inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 2);
        ck_assert_str_eq(inv->devices[0].pci_bus_id, "0000:06:00.0");
        ck_assert_int_eq(inv->devices[0].numa_node, -1);
        ck_assert_uint_eq(inv->n_warnings, 1);
        ck_assert_ptr_nonnull(strstr(inv->warnings[0], "card3/device/numa_node"));
        const struct xpu_device *bare = &inv->devices[1];
        ck_assert_str_eq(bare->pci_bus_id, "0000:07:00.0");
        ck_assert_str_eq(bare->kernel_driver, "");
        ck_assert(!(bare->have & XPU_HAVE_RENDER_MINOR));
        ck_assert_uint_eq(bare->n_nodes, 1);
        ck_assert_str_eq(bare->nodes[0].path, "/dev/dri/card4");
        ck_assert(!bare->nodes[0].optional);
        xpu_inventory_free(inv);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* Files a capture would never hold, each named in one warning: a second card on the same PCI
 * device, a device id above 16 bits, a value too long for any number, a driver version with
 * control characters, a VRAM sum that overflows, GT directories without a device id. */
START_TEST(test_hostile_values) {
        char *t = xpu_test_mkdtemp();
        write_card(t, 0, "0000:03:00.0", "0x56a0", "0x030000", "i915", 128);
        write_card(t, 1, "0000:03:00.0", "0x56a0", "0x030000", "i915", 129);
        write_card(t, 2, "0000:04:00.0", "0x10bd6", "0x038000", "i915", 130);
        xpu_test_write(t, "sys/class/drm/card2/gt/gt0/id", "0\n");
        xpu_test_write(t, "sys/class/drm/card2/gt/gt1/id", "1\n");
        char longv[200];
        memset(longv, '7', sizeof longv - 1);
        longv[sizeof longv - 1] = '\0';
        write_card(t, 3, "0000:05:00.0", "0xe20b", "0x030000", "xe", 131);
        xpu_test_write(t, "sys/class/drm/card3/device/numa_node", longv);
        xpu_test_write(t, "sys/class/drm/card3/device/tile0/physical_vram_size_bytes", "18446744073709551615\n");
        xpu_test_write(t, "sys/class/drm/card3/device/tile1/physical_vram_size_bytes", "2\n");
        xpu_test_write(t, "sys/module/i915/version", "\x1b[31mred\x07\n");
        struct xpu_inventory *inv = probe_dir(t);
        ck_assert_uint_eq(inv->n_devices, 3);
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_INTEL].driver_version, "");
        const char *want[] = {
                "card1/device: the same PCI device (0000:03:00.0) as card0; left out",
                "card2/device/device: 0x10bd6 is no PCI device id; left out",
                "card2/gt: 2 GT directories but no device id to tell tiles from media GTs; tile count left out",
                "card3/device/numa_node: unreadable",
                "card3/device/tile*/physical_vram_size_bytes: the tiles' sum is no memory size; left out",
                "/sys/module/i915/version: not printable text; driver version left out",
        };
        ck_assert_uint_eq(inv->n_warnings, ELEMENTSOF(want));
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                bool found = false;
                for (size_t k = 0; k < inv->n_warnings; k++)
                        found |= strstr(inv->warnings[k], want[i]) != NULL;
                ck_assert_msg(found, "no warning \"%s\"", want[i]);
        }
        ck_assert(!(inv->devices[1].have & XPU_HAVE_TILES));
        ck_assert(!(inv->devices[2].have & XPU_HAVE_MEMORY_TOTAL));
        xpu_inventory_free(inv);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* No Intel card, no module: nothing found, driver not loaded, and the note says what was looked for. */
START_TEST(test_no_intel_gpu) {
        struct xpu_inventory *inv = probe_dir(xpu_test_host("amd-vega10"));
        ck_assert_uint_eq(inv->n_devices, 0);
        ck_assert(!inv->vendors[XPU_VENDOR_INTEL].driver_loaded);
        ck_assert_ptr_nonnull(strstr(inv->vendors[XPU_VENDOR_INTEL].looked_for, "vendor 0x8086"));
        xpu_inventory_free(inv);
}
END_TEST

static Suite *intel_suite(void) {
        Suite *s = suite_create("intel");
        TCase *tc = tcase_create("hosts");
        tcase_add_test(tc, test_host_arc_b580_xe);
        tcase_add_test(tc, test_host_max1550_two_domains);
        tcase_add_test(tc, test_host_igpu_render_swap);
        suite_add_tcase(s, tc);
        tc = tcase_create("edge");
        tcase_add_test(tc, test_tiles_and_memory);
        tcase_add_test(tc, test_skipped_and_odd_cards);
        tcase_add_test(tc, test_hostile_values);
        tcase_add_test(tc, test_no_intel_gpu);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(intel_suite());
}
