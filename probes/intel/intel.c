/* SPDX-License-Identifier: Apache-2.0 */
/* Intel fast path: DRM cards of the i915 and xe kernel drivers, from sysfs only; no library
 * loaded (the oneAPI user space, Level Zero and the compute runtime, lives in the image).
 *
 * Devices are the cards whose PCI function has vendor 0x8086, a display class (0x03xxxx) and the
 * i915 or xe driver bound, in PCI bus id order (domain first): the order the compute runtime sorts
 * them in and ZE_ENABLE_PCI_ID_DEVICE_ORDER=1 keeps. Files (below the sys root):
 *   /sys/class/drm/cardN/device/{vendor,device,class,numa_node}   PCI attributes
 *   /sys/class/drm/cardN/device/driver -> .../drivers/{i915,xe}
 *   /sys/class/drm/cardN/device/drm/renderDM                      its render node (drm.h)
 *   /sys/class/drm/cardN/device/sriov_numvfs                      VFs of an SR-IOV physical function
 *   /sys/class/drm/cardN/device/tileT/                            xe: one per tile
 *   /sys/class/drm/cardN/device/tileT/physical_vram_size_bytes    xe: VRAM of tile T (some kernels)
 *   /sys/class/drm/cardN/gt/gtG/                                  i915: one per GT
 *   /sys/class/drm/cardN/lmem_total_bytes                         Intel's out-of-tree i915: VRAM
 *   /sys/module/{i915,xe}/                                        the module is loaded
 *   /sys/module/{i915,xe}/version                                 out-of-tree (DKMS) builds only
 * Upstream i915 and xe publish no product name, UUID or (mostly) memory size in sysfs: those stay
 * absent. A card with no render node is kept with its card node, so the selection can say why it
 * cannot be given. */
#include "intel/intel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/root-file.h"
#include "base/macro.h"
#include "base/path.h"
#include "base/str.h"
#include "drm.h"
#include "inventory-json.h"
#include "vendor.h"

#define INTEL_PCI_VENDOR 0x8086u
#define XPU_INTEL_VRAM_MAX (1ull << 50) /* bytes: 1 PiB, readings-range.h */
#define LOOKED_FOR XPU_DRM_CLASS "/card*/device (vendor 0x8086, i915 or xe)"

struct intel_probe {
        const struct xpu_roots *roots;
        struct xpu_inventory *inv;
        int fd; /* sys root */
};

static bool intel_driver(const char *driver) {
        return strcmp(driver, "i915") == 0 || strcmp(driver, "xe") == 0;
}

/* Read card N's file LEAF ("device/class", "lmem_total_bytes") as an unsigned number in BASE (0:
 * "0x" hex or decimal). Returns 0, -ENOENT (absent, or unreadable for want of permission:
 * quiet), -EINVAL (there but no number: too long, not a regular file, garbage; warned) or -ENOMEM. */
static int card_u64(struct intel_probe *p, uint32_t n, const char *leaf, int base, uint64_t *ret) {
        char path[160], buf[64];
        snprintf(path, sizeof path, XPU_DRM_CLASS "/card%u/%s", n, leaf);
        ssize_t r = xpu_read_value_in_root(p->fd, path, buf, sizeof buf);
        if (r == -ENOENT || r == -EACCES || r == -EPERM || r == -ENODEV)
                return -ENOENT;
        if (r < 0)
                return xpu_inventory_warn(p->inv, "%s: unreadable (%s); left out", path, strerror((int)-r)) < 0 ? -ENOMEM
                                                                                                         : -EINVAL;
        if (base == 0)
                base = xpu_startswith(buf, "0x") ? 16 : 10;
        if (xpu_parse_u64(buf, base, ret) == 0)
                return 0;
        return xpu_inventory_warn(p->inv, "%s: \"%s\" is not a number; left out", path, buf) < 0 ? -ENOMEM : -EINVAL;
}

/* Data Center GPU Max (Ponte Vecchio): the i915 parts whose GTs are tiles (pciids.h INTEL_PVC_IDS).
 * On every other i915 part a second GT is the media GT of the same tile (Meteor Lake and later). */
bool xpu_intel_is_pvc(uint16_t id) {
        return id == 0x0b69 || id == 0x0b6e || (id >= 0x0bd0 && id <= 0x0bdb) || id == 0x0be0 || id == 0x0be1 ||
               id == 0x0be5;
}

/* Tiles and VRAM of card C into D: xe lists device/tileT (each may carry
 * physical_vram_size_bytes); i915 lists gt/gtG, tiles only on PVC, and Intel's out-of-tree i915
 * has the card's lmem_total_bytes. Returns 0 or -ENOMEM. */
static int tiles_memory_read(struct intel_probe *p, const struct xpu_drm_card *c, struct xpu_device *d) {
        char path[160];
        uint32_t nums[XPU_INTEL_TILES_MAX];
        bool xe = strcmp(c->driver, "xe") == 0, more = false;
        snprintf(path, sizeof path, XPU_DRM_CLASS "/card%u/%s", c->n, xe ? "device" : "gt");
        int n = xpu_sysfs_list_numbered(p->fd, path, xe ? "tile" : "gt", nums, ELEMENTSOF(nums), &more);
        xpu_intel_facts(d)->tile_count = 1;
        if (more)
                /* no such part exists: the Level Zero numbering would be a guess */
                return xpu_inventory_warn(p->inv, "%s: more than %u %s directories; tile count left out", path,
                                          XPU_INTEL_TILES_MAX, xe ? "tile" : "gt");
        if (n > 1 && !xe && !(d->have & XPU_HAVE_PCI_IDS))
                /* a second GT is a tile on PVC, a media GT elsewhere: the device id tells */
                return xpu_inventory_warn(p->inv, "%s: %d GT directories but no device id to tell tiles from media "
                                          "GTs; tile count left out", path, n);
        if (n > 1 && (xe || xpu_intel_is_pvc(d->pci_device_id)))
                xpu_intel_facts(d)->tile_count = (uint32_t)n;
        d->have |= XPU_HAVE_TILES;

        uint64_t v, sum = 0;
        int r = card_u64(p, c->n, "lmem_total_bytes", 10, &v);
        if (r == -ENOMEM)
                return r;
        if (r == 0 && v > 0) {
                d->memory_total_bytes = v;
                d->have |= XPU_HAVE_MEMORY_TOTAL;
                return 0;
        }
        for (int i = 0; xe && i < n; i++) {
                char leaf[64];
                snprintf(leaf, sizeof leaf, "device/tile%u/physical_vram_size_bytes", nums[i]);
                if ((r = card_u64(p, c->n, leaf, 0, &v)) == -ENOMEM)
                        return r;
                if (r < 0 || v == 0) /* a tile without the figure: the total is not known */
                        return 0;
                if (__builtin_add_overflow(sum, v, &sum) || sum > XPU_INTEL_VRAM_MAX)
                        return xpu_inventory_warn(p->inv, XPU_DRM_CLASS "/card%u/device/tile*/physical_vram_size_bytes: "
                                                  "the tiles' sum is no memory size; left out", c->n);
        }
        if (xe && n > 0 && sum > 0) {
                d->memory_total_bytes = sum;
                d->have |= XPU_HAVE_MEMORY_TOTAL;
        }
        return 0;
}

/* Card C as a device, appended to the inventory; a card that is no usable GPU (not a display-class
 * function, an SR-IOV physical function whose VFs are the usable units) is left out quietly, one
 * whose PCI bus id cannot be read with a warning. Returns 0 or -ENOMEM. */
static int card_device(struct intel_probe *p, const struct xpu_drm_card *c, unsigned vendor_index) {
        uint64_t v;
        int r;
        if (card_u64(p, c->n, "device/class", 16, &v) == 0 && (v >> 16) != 0x03)
                return 0;
        if (card_u64(p, c->n, "device/sriov_numvfs", 10, &v) == 0 && v > 0)
                return 0;
        if (!c->bus_id[0])
                return xpu_inventory_warn(p->inv,
                                          XPU_DRM_CLASS "/card%u/device: no PCI bus id (neither the link nor "
                                          "PCI_SLOT_NAME in uevent); card left out", c->n);
        struct xpu_device d = {
                .vendor = XPU_VENDOR_INTEL,
                .vendor_index = vendor_index,
                .source = XPU_SOURCE_SYSFS,
                .numa_node = -1,
                .pci_vendor_id = INTEL_PCI_VENDOR,
                .card = c->n,
                .have = XPU_HAVE_CARD,
        };
        memcpy(d.pci_bus_id, c->bus_id, sizeof d.pci_bus_id);
        xpu_strlcpy(d.kernel_driver, c->driver, sizeof d.kernel_driver);
        if ((r = card_u64(p, c->n, "device/device", 16, &v)) == 0 && v <= UINT16_MAX) {
                d.pci_device_id = (uint16_t)v;
                d.have |= XPU_HAVE_PCI_IDS;
        } else if (r == -ENOMEM || (r == 0 && xpu_inventory_warn(p->inv, XPU_DRM_CLASS "/card%u/device/device: 0x%llx "
                                                                 "is no PCI device id; left out", c->n,
                                                                 (unsigned long long)v) < 0))
                return -ENOMEM;
        struct xpu_pci_bus_id id;
        d.integrated = xpu_pci_bus_id_parse(d.pci_bus_id, &id) == 0 && id.domain == 0 && id.bus == 0 &&
                       id.device == 2;
        int64_t numa;
        char path[96], buf[32];
        snprintf(path, sizeof path, XPU_DRM_CLASS "/card%u/device/numa_node", c->n);
        ssize_t k = xpu_read_value_in_root(p->fd, path, buf, sizeof buf);
        if (k >= 0) {
                if (xpu_parse_i64(buf, 10, &numa) == 0 && numa >= -1 && numa <= INT32_MAX) {
                        d.numa_node = (int32_t)numa;
                        d.have |= XPU_HAVE_NUMA_NODE;
                } else if (xpu_inventory_warn(p->inv, "%s: \"%s\" is not a NUMA node; left out", path, buf) < 0)
                        return -ENOMEM;
        } else if (k != -ENOENT && k != -EACCES &&
                   xpu_inventory_warn(p->inv, "%s: unreadable (%s); left out", path, strerror((int)-k)) < 0)
                return -ENOMEM;
        if ((r = tiles_memory_read(p, c, &d)) < 0)
                return r;
        /* The render node is what compute needs; the card node is for display and media tools, and
         * the one that must be there when the card has no render node. */
        uint32_t render;
        bool have_render = xpu_drm_card_render_minor(p->fd, c->n, &render) == 0;
        char node[64];
        if (have_render) {
                d.render_minor = render;
                d.have |= XPU_HAVE_RENDER_MINOR;
                snprintf(node, sizeof node, "/dev/dri/renderD%u", render);
                if (xpu_devnode_add(p->roots, d.nodes, &d.n_nodes, ELEMENTSOF(d.nodes), node, XPU_DRM_MAJOR, render,
                                    true, false) < 0)
                        return -ENOMEM;
        }
        snprintf(node, sizeof node, "/dev/dri/card%u", c->n);
        if (xpu_devnode_add(p->roots, d.nodes, &d.n_nodes, ELEMENTSOF(d.nodes), node, XPU_DRM_MAJOR, c->n, true,
                            have_render) < 0)
                return -ENOMEM;
        return xpu_inventory_add_device(p->inv, &d) ? 0 : -ENOMEM;
}

static int cmp_bus_id(const void *a, const void *b) {
        const struct xpu_drm_card *x = a, *y = b;
        struct xpu_pci_bus_id ix, iy;
        bool px = xpu_pci_bus_id_parse(x->bus_id, &ix) == 0, py = xpu_pci_bus_id_parse(y->bus_id, &iy) == 0;
        if (px != py)
                return px ? -1 : 1; /* cards without a bus id last (they are warned about) */
        if (!px)
                return (x->n > y->n) - (x->n < y->n);
        return xpu_pci_bus_id_compare(&ix, &iy);
}

/* Version of an out-of-tree (DKMS) i915 or xe into VI; in-tree modules have none. Returns 0 or
 * -ENOMEM. */
static int driver_facts(struct intel_probe *p, const char *driver, struct xpu_vendor_info *vi) {
        char path[64];
        struct stat st;
        snprintf(path, sizeof path, "/sys/module/%s", driver);
        if (xpu_stat_in_root(p->fd, path, false, &st) < 0 || !S_ISDIR(st.st_mode))
                return 0;
        vi->driver_loaded = true;
        snprintf(path, sizeof path, "/sys/module/%s/version", driver);
        if (vi->driver_version[0] || xpu_read_value_in_root(p->fd, path, vi->driver_version, sizeof vi->driver_version) < 0) {
                return 0;
        }
        if (!xpu_str_is_printable(vi->driver_version)) {
                vi->driver_version[0] = '\0';
                return xpu_inventory_warn(p->inv, "%s: not printable text; driver version left out", path);
        }
        return 0;
}

static int intel_probe(const struct xpu_roots *roots, struct xpu_inventory *inv) {
        struct intel_probe p = { .roots = roots, .inv = inv, .fd = roots->sys_fd };
        struct xpu_vendor_info *vi = &inv->vendors[XPU_VENDOR_INTEL];
        _cleanup_free_ struct xpu_drm_card *cards = calloc(XPU_DRM_CARDS_MAX, sizeof *cards);
        if (!cards)
                return -ENOMEM;
        bool more = false;
        size_t n = xpu_drm_cards_scan(p.fd, INTEL_PCI_VENDOR, intel_driver, cards, XPU_DRM_CARDS_MAX, &more);
        if (more && xpu_inventory_warn(inv, XPU_DRM_CLASS ": more than %d DRM cards; only the first %d read",
                                       XPU_DRM_CARDS_MAX, XPU_DRM_CARDS_MAX) < 0)
                return -ENOMEM;
        qsort(cards, n, sizeof *cards, cmp_bus_id);
        if (driver_facts(&p, "i915", vi) < 0 || driver_facts(&p, "xe", vi) < 0)
                return -ENOMEM;
        size_t before = inv->n_devices;
        for (size_t i = 0; i < n; i++) {
                /* An Intel PCI function is a DRM card only while i915 or xe drives it, even where
                 * the capture lacks the driver link. */
                vi->driver_loaded = true;
                /* one PCI function, two cards (a link to another card's device): the first only */
                if (i > 0 && cards[i].bus_id[0] && strcmp(cards[i].bus_id, cards[i - 1].bus_id) == 0) {
                        if (xpu_inventory_warn(inv, XPU_DRM_CLASS "/card%u/device: the same PCI device (%s) as card%u; "
                                               "left out", cards[i].n, cards[i].bus_id, cards[i - 1].n) < 0)
                                return -ENOMEM;
                        continue;
                }
                int r = card_device(&p, &cards[i], (unsigned)(inv->n_devices - before));
                if (r < 0 && r != -EINVAL)
                        return r;
        }
        snprintf(vi->looked_for, sizeof vi->looked_for, "%s under %.120s: %zu GPU(s)", LOOKED_FOR, roots->sys,
                 inv->n_devices - before);
        return 0;
}

/* Intel's facts in the device JSON (xpu_vendor_ops.view.facts_json): "tile_count" when known. */
static bool intel_facts_json(const struct xpu_device *d, cJSON *o) {
        return !(d->have & XPU_HAVE_TILES) || xpu_json_add_num(o, "tile_count", xpu_intel_facts(d)->tile_count);
}

const struct xpu_vendor_ops xpu_vendor_intel = {
        .vendor = XPU_VENDOR_INTEL,
        .name = "intel",
        .display_name = "Intel",
        /* Level Zero's ZE_AFFINITY_MASK, translated (intel-levelzero.c) because its numbers depend
         * on the hierarchy, and written for the workload when XPU_VISIBLE_DEVICES decided. Intel's CDI specs (the GPU plugin's intel.cdi.k8s.io/gpu,
         * cdi-specs-generator's intel.com/gpu) name devices "cardN", numbers that change between
         * boots, and set no variable: no CDI kind is read for Intel. */
        .visibility = { .variable = "ZE_AFFINITY_MASK", .translate = xpu_intel_affinity_translate,
                        .mask = xpu_intel_affinity_mask },
        .probe = { .fast = intel_probe },
        .view = { .facts_json = intel_facts_json },
        .readings = &xpu_readings_intel,
        .k8s = &xpu_k8s_intel,
        .wsl = &xpu_wsl_intel,
};
