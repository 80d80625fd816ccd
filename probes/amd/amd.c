/* SPDX-License-Identifier: Apache-2.0 */
/* AMD fast path: KFD topology + amdgpu sysfs, read through the sys root; no library loaded.
 *
 * Devices come from the KFD topology GPU nodes, in node order (HIP's order); each
 * partition of a partitioned GPU is its own device. amdgpu DRM cards are matched to them by PCI
 * bus id and add the name, VRAM use and NUMA node. On a host without KFD topology, each amdgpu
 * card is a device (source sysfs) in card order. Facts that are absent stay absent.
 *
 * Files (below the sys root; kernel amdkfd/kfd_topology.c, Documentation/gpu/amdgpu/):
 *   /sys/class/kfd/kfd/dev                                  "MAJ:MIN" of /dev/kfd
 *   /sys/class/kfd/kfd/topology/nodes/N/{gpu_id,properties} one node; CPU nodes have simd_count 0
 *   /sys/class/kfd/kfd/topology/nodes/N/mem_banks/M/properties  VRAM banks (heap_type 1, 2)
 *   /sys/class/drm/cardN -> device (PCI device: vendor, device, product_name, mem_info_vram_*,
 *                            numa_node, unique_id, uevent, driver, drm/renderDM)
 *   /sys/module/amdgpu/version                              amdgpu DKMS version (absent in-tree)
 * KFD answers EPERM for a GPU the reader's device cgroup denies: that node is skipped quietly,
 * as HIP does. */
#include "amd/amd.h"
#include "amd/amd-readings.h"
#include "amd/amd-rocm-smi.h"
#include "devcode/libraries.h"
#include "drm.h"
#include "inventory-json.h"
#include "rich.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/root-file.h"
#include "base/path.h"
#include "base/str.h"
#include "probe.h"
#include "vendor.h"

#define KFD_DEV "/sys/class/kfd/kfd/dev"
#define KFD_NODES "/sys/class/kfd/kfd/topology/nodes"
#define DRM_CLASS XPU_DRM_CLASS
#define AMDGPU_VERSION "/sys/module/amdgpu/version"
#define AMD_PCI_VENDOR 0x1002u
#define DRM_MAJOR XPU_DRM_MAJOR
#define DRM_RENDER_MINOR_BASE XPU_DRM_RENDER_MINOR_BASE
#define PROPS_MAX 16384           /* a properties file is about 1 KiB */

/* ---- file helpers ----------------------------------------------------------------------- */

static ssize_t read_valuef(int fd, char *buf, size_t size, const char *fmt, ...) _printf_(4, 5);
static ssize_t read_valuef(int fd, char *buf, size_t size, const char *fmt, ...) {
        char path[256];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(path, sizeof path, fmt, ap);
        va_end(ap);
        if (n < 0 || (size_t)n >= sizeof path)
                return -ENAMETOOLONG;
        return xpu_read_value_in_root(fd, path, buf, size);
}

/* Append ", <text>" (or "<text>" when empty) to a problem list of SIZE bytes. */
static void problem_add(char *list, size_t size, const char *fmt, ...) _printf_(3, 4);
static void problem_add(char *list, size_t size, const char *fmt, ...) {
        size_t len = strlen(list);
        if (len > 0 && len + 2 < size) {
                memcpy(list + len, "; ", 3);
                len += 2;
        }
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(list + len, size - len, fmt, ap);
        va_end(ap);
}

static bool is_denied(int r) {
        return r == -EPERM || r == -EACCES;
}

/* ---- DRM cards -------------------------------------------------------------------------- */

static bool amdgpu_driver(const char *driver) {
        return strcmp(driver, "amdgpu") == 0; /* an AMD card driven by radeon is no ROCm device */
}

/* ---- KFD nodes -------------------------------------------------------------------------- */

struct amd_node {
        uint32_t n; /* N of topology/nodes/N */
        struct xpu_amd_properties props;
        uint32_t gpu_id;
        bool have_gpu_id;
        struct xpu_amd_location loc;
        bool have_loc;
        bool partition;     /* one of several KFD nodes of one PCI device */
        char problems[256]; /* what was wrong in properties, for the one warning */
};

struct amd_probe {
        const struct xpu_roots *roots;
        struct xpu_inventory *inv;
        int fd; /* sys root */
        struct xpu_drm_card cards[XPU_AMD_CARDS_MAX];
        size_t n_cards;
        char driver_version[32];
};

/* Read node N. Returns 1 for a GPU node kept in *NODE, 0 for a skipped node (CPU, denied,
 * broken: the latter warned), -ENOMEM. */
static int node_read(struct amd_probe *p, uint32_t n, struct amd_node *node) {
        _cleanup_free_ char *text = malloc(PROPS_MAX);
        char buf[64];
        if (!text)
                return -ENOMEM;
        *node = (struct amd_node){ .n = n };
        ssize_t r = read_valuef(p->fd, text, PROPS_MAX, KFD_NODES "/%u/properties", n);
        if (is_denied(r))
                return 0; /* a GPU the device cgroup denies: normal in a container */
        if (r < 0)
                return xpu_inventory_warn(p->inv, KFD_NODES "/%u/properties: %s; node skipped", n,
                                          strerror((int)-r)) < 0 ? -ENOMEM : 0;
        xpu_amd_parse_properties(text, &node->props);

        r = read_valuef(p->fd, buf, sizeof buf, KFD_NODES "/%u/gpu_id", n);
        uint64_t v;
        if (is_denied(r))
                return 0;
        if (r >= 0 && xpu_parse_u64(buf, 10, &v) == 0 && v <= UINT32_MAX) {
                node->gpu_id = (uint32_t)v;
                node->have_gpu_id = true;
        } else if (r != -ENOENT &&
                   xpu_inventory_warn(p->inv, KFD_NODES "/%u/gpu_id: %s; gpu id left out", n,
                                      r < 0 ? strerror((int)-r) : "not a number") < 0)
                return -ENOMEM;

        uint64_t simd;
        bool have_simd = xpu_amd_prop_get(&node->props, XPU_AMD_PROP_SIMD_COUNT, &simd);
        if (node->props.n_malformed > 0)
                problem_add(node->problems, sizeof node->problems, "%u malformed line(s) ignored",
                            node->props.n_malformed);
        bool gpu = have_simd ? simd > 0 : node->have_gpu_id && node->gpu_id != 0;
        if (!have_simd && !gpu) {
                return xpu_inventory_warn(p->inv, KFD_NODES "/%u/properties: %s%sno simd_count and no GPU id; node skipped",
                                          n, node->problems, node->problems[0] ? "; " : "") < 0 ? -ENOMEM : 0;
        }
        if (!gpu) {
                if (node->problems[0] &&
                    xpu_inventory_warn(p->inv, KFD_NODES "/%u/properties: %s", n, node->problems) < 0)
                        return -ENOMEM;
                return 0; /* CPU node */
        }
        uint64_t loc, dom = 0;
        if (xpu_amd_prop_get(&node->props, XPU_AMD_PROP_LOCATION_ID, &loc)) {
                xpu_amd_prop_get(&node->props, XPU_AMD_PROP_DOMAIN, &dom); /* absent on old kernels: 0 */
                if (xpu_amd_location_decode(dom, loc, &node->loc) == 0)
                        node->have_loc = true;
                else
                        problem_add(node->problems, sizeof node->problems,
                                    "domain %llu / location_id %llu out of range: PCI bus id left out",
                                    (unsigned long long)dom, (unsigned long long)loc);
        } else
                problem_add(node->problems, sizeof node->problems, "no location_id: PCI bus id left out");
        return 1;
}

/* Is the PCI function ID in sysfs (under the kernel's name for it)? */
static bool pci_device_exists(int fd, const struct xpu_pci_bus_id *id) {
        struct stat st;
        char bus_id[XPU_PCI_BUS_ID_MAX], path[64];
        xpu_pci_bus_id_format(id, bus_id);
        return xpu_pci_sysfs_path(bus_id, NULL, path, sizeof path) == 0 && xpu_stat_in_root(fd, path, false, &st) == 0;
}

/* Partitions: several KFD nodes on one PCI device (same domain, bus, device) carry the partition
 * number in the function bits of location_id. A lone node with non-zero function bits is a
 * partition too when that function is no PCI device but function 0 is (a container that was given
 * one partition). */
static void nodes_mark_partitions(int fd, struct amd_node *nodes, size_t n) {
        for (size_t i = 0; i < n; i++) {
                const struct xpu_amd_location *a = &nodes[i].loc;
                if (!nodes[i].have_loc)
                        continue;
                size_t same = 0;
                for (size_t j = 0; j < n; j++)
                        same += nodes[j].have_loc && nodes[j].loc.domain == a->domain &&
                                nodes[j].loc.bus == a->bus && nodes[j].loc.dev == a->dev;
                if (same > 1) {
                        nodes[i].partition = true;
                        continue;
                }
                if (a->fn == 0)
                        continue;
                const struct xpu_pci_bus_id own = { .domain = a->domain, .bus = a->bus, .device = a->dev, .function = a->fn };
                const struct xpu_pci_bus_id parent = { .domain = a->domain, .bus = a->bus, .device = a->dev };
                nodes[i].partition = !pci_device_exists(fd, &own) && pci_device_exists(fd, &parent);
        }
}

/* VRAM of a node from mem_banks/M/properties: sum of the frame-buffer heaps. Returns 0 and sets
 * *RET (bytes) when a frame-buffer bank was found, -ENOENT otherwise, -ENOMEM. */
static int node_banks_vram(struct amd_probe *p, uint32_t n, uint64_t *ret) {
        uint32_t banks[XPU_AMD_BANKS_MAX];
        char path[96];
        snprintf(path, sizeof path, KFD_NODES "/%u/mem_banks", n);
        int nb = xpu_sysfs_list_numbered(p->fd, path, "", banks, ELEMENTSOF(banks), NULL);
        uint64_t sum = 0;
        bool found = false;
        for (int b = 0; b < nb; b++) {
                char text[1024];
                ssize_t r = read_valuef(p->fd, text, sizeof text, "%s/%u/properties", path, banks[b]);
                struct xpu_amd_properties bp;
                uint64_t heap, size;
                if (is_denied(r))
                        continue;
                if (r < 0) {
                        if (xpu_inventory_warn(p->inv, "%s/%u/properties: %s; bank ignored", path, banks[b],
                                               strerror((int)-r)) < 0)
                                return -ENOMEM;
                        continue;
                }
                xpu_amd_parse_properties(text, &bp);
                if (!xpu_amd_prop_get(&bp, XPU_AMD_PROP_HEAP_TYPE, &heap) ||
                    !xpu_amd_prop_get(&bp, XPU_AMD_PROP_SIZE_IN_BYTES, &size) || sum + size < sum) {
                        if (xpu_inventory_warn(p->inv, "%s/%u/properties: no heap_type or size_in_bytes; bank ignored",
                                               path, banks[b]) < 0)
                                return -ENOMEM;
                        continue;
                }
                if (heap == XPU_AMD_HEAP_FB_PUBLIC || heap == XPU_AMD_HEAP_FB_PRIVATE) {
                        sum += size;
                        found = true;
                }
        }
        if (!found)
                return -ENOENT;
        *ret = sum;
        return 0;
}

/* ---- devices ---------------------------------------------------------------------------- */

/* Add /dev/dri/<KIND><MINOR> (KIND "renderD" or "card"). */
static int dev_add_node(struct amd_probe *p, struct xpu_device *d, const char *kind, uint32_t minor,
                        bool optional) {
        char path[64];
        snprintf(path, sizeof path, "/dev/dri/%s%u", kind, minor);
        return xpu_devnode_add(p->roots, d->nodes, &d->n_nodes, ELEMENTSOF(d->nodes), path, DRM_MAJOR,
                               minor, true, optional);
}

/* Read an unsigned file of card N's device dir; warn once when present but not a number.
 * Returns 0, -ENOENT (absent or unreadable: quiet) or -EINVAL (warned), -ENOMEM. */
static int card_u64(struct amd_probe *p, uint32_t n, const char *file, int base, uint64_t *ret) {
        char buf[64];
        ssize_t r = read_valuef(p->fd, buf, sizeof buf, DRM_CLASS "/card%u/device/%s", n, file);
        if (r < 0)
                return -ENOENT;
        if (xpu_parse_u64(buf, base, ret) == 0)
                return 0;
        return xpu_inventory_warn(p->inv, DRM_CLASS "/card%u/device/%s: \"%s\" is not a number; left out", n,
                                  file, buf) < 0 ? -ENOMEM : -EINVAL;
}

static int numa_read(struct amd_probe *p, const char *path, struct xpu_device *d) {
        char buf[32];
        int64_t v;
        if (xpu_read_value_in_root(p->fd, path, buf, sizeof buf) < 0)
                return 0;
        if (xpu_parse_i64(buf, 10, &v) < 0 || v < -1 || v > INT32_MAX)
                return xpu_inventory_warn(p->inv, "%s: \"%s\" is not a NUMA node; left out", path, buf);
        d->numa_node = (int32_t)v;
        d->have |= XPU_HAVE_NUMA_NODE;
        return 0;
}

/* The partition mode of card N into D->partition_mode: current_compute_partition ("SPX", "DPX",
 * "QPX", "CPX") and current_memory_partition ("NPS1", "NPS4") of the card's device dir (amdgpu on
 * MI300 and later), joined lower-case as AMD's DRA driver spells a partition profile ("cpx_nps4"),
 * or one of them alone. A value that is not letters and digits is warned about and left out.
 * Returns 0 or -ENOMEM. */
static int partition_mode_read(struct amd_probe *p, unsigned n, struct xpu_device *d) {
        static const char *const files[] = { "current_compute_partition", "current_memory_partition" };
        char mode[sizeof xpu_amd_facts(d)->partition_mode] = "";
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                char buf[32];
                if (read_valuef(p->fd, buf, sizeof buf, DRM_CLASS "/card%u/device/%s", n, files[i]) <= 0)
                        continue;
                size_t len = strlen(buf), used = strlen(mode);
                bool good = len > 0 && len <= 8;
                for (size_t k = 0; good && k < len; k++)
                        good = (buf[k] >= 'A' && buf[k] <= 'Z') || (buf[k] >= 'a' && buf[k] <= 'z') ||
                               (buf[k] >= '0' && buf[k] <= '9');
                if (!good) {
                        if (xpu_inventory_warn(p->inv, DRM_CLASS "/card%u/device/%s: \"%s\" is no partition mode; "
                                               "left out", n, files[i], buf) < 0)
                                return -ENOMEM;
                        continue;
                }
                if (used + (used > 0) + len >= sizeof mode)
                        continue;
                if (used > 0)
                        mode[used++] = '_';
                memcpy(mode + used, buf, len + 1);
        }
        for (char *c = mode; *c; c++)
                if (*c >= 'A' && *c <= 'Z')
                        *c = (char)(*c - 'A' + 'a');
        memcpy(xpu_amd_facts(d)->partition_mode, mode, sizeof mode);
        return 0;
}

/* Facts from amdgpu card C. WHOLE: the device is the whole GPU (not a partition), so the card's
 * VRAM figures are its own. SYSFS_ONLY: no KFD node; ids, unique id and nodes come from here. */
static int card_fill(struct amd_probe *p, const struct xpu_drm_card *c, struct xpu_device *d, bool whole,
                     bool sysfs_only) {
        char buf[256], path[96];
        uint64_t v;
        int r;
        d->card = c->n;
        d->have |= XPU_HAVE_CARD;
        if (read_valuef(p->fd, buf, sizeof buf, DRM_CLASS "/card%u/device/product_name", c->n) > 0) {
                /* UTF-8 kept ("AMD Radeon™ Pro W7900"); a byte that is not, or a control
                 * character, becomes U+FFFD, so nothing raw reaches JSON or a terminal. */
                size_t bad = xpu_utf8_sanitize(d->name, sizeof d->name, buf, NULL);
                if (bad > 0 && xpu_inventory_warn(p->inv,
                                                  DRM_CLASS "/card%u/device/product_name: not UTF-8 text: %zu "
                                                            "character(s) shown as U+FFFD",
                                                  c->n, bad) < 0)
                        return -ENOMEM;
        }
        if (whole && !(d->have & XPU_HAVE_MEMORY_TOTAL)) {
                if ((r = card_u64(p, c->n, "mem_info_vram_total", 10, &v)) == -ENOMEM)
                        return r;
                if (r == 0) {
                        d->memory_total_bytes = v;
                        d->have |= XPU_HAVE_MEMORY_TOTAL;
                }
        }
        if (whole) {
                if ((r = card_u64(p, c->n, "mem_info_vram_used", 10, &v)) == -ENOMEM)
                        return r;
                if (r == 0) {
                        d->memory_used_bytes = v;
                        d->have |= XPU_HAVE_MEMORY_USED;
                }
        }
        snprintf(path, sizeof path, DRM_CLASS "/card%u/device/numa_node", c->n);
        if (numa_read(p, path, d) < 0)
                return -ENOMEM;
        if (partition_mode_read(p, c->n, d) < 0)
                return -ENOMEM;
        if (!sysfs_only)
                return 0;

        uint64_t vendor, device;
        if (card_u64(p, c->n, "vendor", 16, &vendor) == 0 && card_u64(p, c->n, "device", 16, &device) == 0 &&
            device <= 0xffff) {
                d->pci_vendor_id = (uint16_t)vendor;
                d->pci_device_id = (uint16_t)device;
                d->have |= XPU_HAVE_PCI_IDS;
        }
        r = (int)read_valuef(p->fd, buf, sizeof buf, DRM_CLASS "/card%u/device/unique_id", c->n);
        if (r >= 0) {
                r = xpu_amd_parse_unique_id(buf, &v);
                if (r == 0 && v != 0) {
                        struct xpu_amd_facts *a = xpu_amd_facts(d);
                        snprintf(a->unique_id, sizeof a->unique_id, "%016llx", (unsigned long long)v);
                        snprintf(d->uuid, sizeof d->uuid, "GPU-%s", a->unique_id);
                } else if (r == -EINVAL &&
                           xpu_inventory_warn(p->inv, DRM_CLASS "/card%u/device/unique_id: \"%s\" is not a hex id; left out",
                                              c->n, buf) < 0)
                        return -ENOMEM;
        }
        /* The render node, only when sysfs names it (never 128 + N: card and render numbering
         * need not agree); the card node always (cardN has minor N). */
        uint32_t render;
        bool have_render = xpu_drm_card_render_minor(p->fd, c->n, &render) == 0;
        if (have_render) {
                d->render_minor = render;
                d->have |= XPU_HAVE_RENDER_MINOR;
                dev_add_node(p, d, "renderD", render, false);
        }
        dev_add_node(p, d, "card", c->n, have_render);
        return 0;
}

static struct xpu_drm_card *card_find(struct amd_probe *p, const char *bus_id) {
        for (size_t i = 0; bus_id[0] && i < p->n_cards; i++)
                if (xpu_pci_bus_id_equal(p->cards[i].bus_id, bus_id))
                        return &p->cards[i];
        return NULL;
}

static int device_append(struct amd_probe *p, struct xpu_device *d) {
        d->vendor = XPU_VENDOR_AMD;
        d->source = XPU_SOURCE_SYSFS;
        d->vendor_index = (unsigned)xpu_inventory_count(p->inv, XPU_VENDOR_AMD);
        xpu_strlcpy(d->driver_version, p->driver_version, sizeof d->driver_version);
        if (!(d->have & XPU_HAVE_NUMA_NODE) && d->pci_bus_id[0]) {
                char path[64];
                if (xpu_pci_sysfs_path(d->pci_bus_id, "numa_node", path, sizeof path) == 0 && numa_read(p, path, d) < 0)
                        return -ENOMEM;
        }
        return xpu_inventory_add_device(p->inv, d) ? 0 : -ENOMEM;
}

/* One device from GPU node NODE; one warning for its properties file when something was off. */
static int node_device(struct amd_probe *p, struct amd_node *node) {
        const struct xpu_amd_properties *pr = &node->props;
        struct xpu_device d = { .have = XPU_HAVE_KFD_NODE };
        struct xpu_amd_facts *a = xpu_amd_facts(&d);
        a->kfd_node = node->n;
        uint64_t v, w;
        int r;

        if (node->have_gpu_id) {
                a->kfd_gpu_id = node->gpu_id;
                d.have |= XPU_HAVE_KFD_GPU_ID;
        }
        if (xpu_amd_prop_get(pr, XPU_AMD_PROP_GFX_TARGET_VERSION, &v) && v != 0) {
                if (v <= UINT32_MAX && xpu_amd_gfx_target((uint32_t)v, a->gfx_target, sizeof a->gfx_target) > 0) {
                        a->gfx_target_version = (uint32_t)v;
                        d.have |= XPU_HAVE_GFX_TARGET_VERSION;
                } else
                        problem_add(node->problems, sizeof node->problems,
                                    "gfx_target_version %llu is no gfx target: left out", (unsigned long long)v);
        }
        if (xpu_amd_prop_get(pr, XPU_AMD_PROP_SIMD_COUNT, &v) && xpu_amd_prop_get(pr, XPU_AMD_PROP_SIMD_PER_CU, &w) &&
            w > 0 && v <= UINT32_MAX) {
                a->simd_count = (uint32_t)v;
                a->compute_units = (uint32_t)(v / w);
                d.have |= XPU_HAVE_SIMD_COUNT;
        } else
                problem_add(node->problems, sizeof node->problems, "no simd_count/simd_per_cu: compute units left out");
        if (xpu_amd_prop_get(pr, XPU_AMD_PROP_NUM_XCC, &v) && v > 0 && v <= UINT32_MAX) {
                a->num_xcc = (uint32_t)v;
                d.have |= XPU_HAVE_NUM_XCC;
        }
        if (xpu_amd_prop_get(pr, XPU_AMD_PROP_VENDOR_ID, &v) && xpu_amd_prop_get(pr, XPU_AMD_PROP_DEVICE_ID, &w) &&
            v <= 0xffff && w <= 0xffff) {
                d.pci_vendor_id = (uint16_t)v;
                d.pci_device_id = (uint16_t)w;
                d.have |= XPU_HAVE_PCI_IDS;
        }
        if (xpu_amd_prop_get(pr, XPU_AMD_PROP_UNIQUE_ID, &v) && v != 0) {
                snprintf(a->unique_id, sizeof a->unique_id, "%016llx", (unsigned long long)v);
                snprintf(d.uuid, sizeof d.uuid, "GPU-%s", a->unique_id);
        }
        if (node->have_loc) {
                const struct xpu_amd_location *l = &node->loc;
                const struct xpu_pci_bus_id id = {
                        .domain = l->domain,
                        .bus = l->bus,
                        .device = l->dev,
                        .function = node->partition ? 0 : l->fn,
                };
                xpu_pci_bus_id_format(&id, d.pci_bus_id);
                if (node->partition) {
                        d.partition = l->fn;
                        d.have |= XPU_HAVE_PARTITION;
                }
        }
        /* VRAM: local_mem_size on old kernels, else the frame-buffer banks (what HIP reports). */
        if (xpu_amd_prop_get(pr, XPU_AMD_PROP_LOCAL_MEM_SIZE, &v) && v > 0) {
                d.memory_total_bytes = v;
                d.have |= XPU_HAVE_MEMORY_TOTAL;
        } else if ((r = node_banks_vram(p, node->n, &v)) == 0 && v > 0) {
                d.memory_total_bytes = v;
                d.have |= XPU_HAVE_MEMORY_TOTAL;
        } else if (r == -ENOMEM)
                return r;
        if (xpu_amd_prop_get(pr, XPU_AMD_PROP_DRM_RENDER_MINOR, &v)) {
                if (v >= DRM_RENDER_MINOR_BASE && v < XPU_AMD_MINOR_LIMIT) {
                        d.render_minor = (uint32_t)v;
                        d.have |= XPU_HAVE_RENDER_MINOR;
                        if (dev_add_node(p, &d, "renderD", d.render_minor, false) < 0)
                                return -ENOMEM;
                } else
                        problem_add(node->problems, sizeof node->problems,
                                    "drm_render_minor %llu is no render minor: render node left out",
                                    (unsigned long long)v);
        } else
                problem_add(node->problems, sizeof node->problems, "no drm_render_minor: render node left out");

        struct xpu_drm_card *c = card_find(p, d.pci_bus_id);
        if (c && (r = card_fill(p, c, &d, !node->partition, false)) < 0)
                return r;
        if (node->problems[0] &&
            xpu_inventory_warn(p->inv, KFD_NODES "/%u/properties: %s", node->n, node->problems) < 0)
                return -ENOMEM;
        return device_append(p, &d);
}

/* The KFD GPU nodes as devices. Returns 1 when the topology exists, 0 when not, -ENOMEM. */
static int kfd_probe(struct amd_probe *p) {
        uint32_t nums[XPU_AMD_NODES_MAX];
        bool more = false;
        int n = xpu_sysfs_list_numbered(p->fd, KFD_NODES, "", nums, ELEMENTSOF(nums), &more);
        if (n == -ENOENT || n == -ENOTDIR)
                return 0;
        if (n < 0)
                return xpu_inventory_warn(p->inv, KFD_NODES ": %s; KFD topology not read", strerror(-n)) < 0
                               ? -ENOMEM
                               : 0;
        if (more && xpu_inventory_warn(p->inv, KFD_NODES ": more than %d nodes; the rest ignored",
                                       XPU_AMD_NODES_MAX) < 0)
                return -ENOMEM;
        _cleanup_free_ struct amd_node *nodes = calloc((size_t)n + 1, sizeof *nodes);
        if (!nodes)
                return -ENOMEM;
        size_t k = 0;
        for (int i = 0; i < n; i++) {
                int r = node_read(p, nums[i], &nodes[k]);
                if (r < 0)
                        return r;
                k += (size_t)r;
        }
        nodes_mark_partitions(p->fd, nodes, k);
        for (size_t i = 0; i < k; i++) {
                int r = node_device(p, &nodes[i]);
                if (r < 0)
                        return r;
        }
        return 1;
}

static int amd_probe(const struct xpu_roots *roots, struct xpu_inventory *inv) {
        _cleanup_free_ struct amd_probe *p = calloc(1, sizeof *p);
        struct xpu_vendor_info *vi = &inv->vendors[XPU_VENDOR_AMD];
        char buf[64];
        int r;
        if (!p)
                return -ENOMEM;
        p->roots = roots;
        p->inv = inv;
        p->fd = roots->sys_fd;
        if (xpu_read_value_in_root(p->fd, AMDGPU_VERSION, buf, sizeof buf) > 0) {
                if (xpu_str_is_printable(buf))
                        xpu_strlcpy(p->driver_version, buf, sizeof p->driver_version);
                else if (xpu_inventory_warn(inv, AMDGPU_VERSION ": not printable text; driver version left out") < 0)
                        return -ENOMEM;
        }
        p->n_cards = xpu_drm_cards_scan(p->fd, AMD_PCI_VENDOR, amdgpu_driver, p->cards, ELEMENTSOF(p->cards), NULL);

        int kfd = kfd_probe(p);
        if (kfd < 0)
                return kfd;
        if (kfd == 0) /* no KFD: every amdgpu card is a device of its own, in card order */
                for (size_t i = 0; i < p->n_cards; i++) {
                        struct xpu_device d = { 0 };
                        xpu_strlcpy(d.pci_bus_id, p->cards[i].bus_id, sizeof d.pci_bus_id);
                        if ((r = card_fill(p, &p->cards[i], &d, true, true)) < 0 || (r = device_append(p, &d)) < 0)
                                return r;
                }

        vi->driver_loaded = kfd > 0 || p->n_cards > 0;
        xpu_strlcpy(vi->driver_version, p->driver_version, sizeof vi->driver_version);
        if (kfd > 0) {
                uint32_t major = 0, minor = 0;
                bool have = false;
                ssize_t n = xpu_read_value_in_root(p->fd, KFD_DEV, buf, sizeof buf);
                if (n >= 0) {
                        have = xpu_amd_parse_dev(buf, &major, &minor) == 0;
                        if (!have && xpu_inventory_warn(inv, KFD_DEV ": \"%s\" is not MAJ:MIN; /dev/kfd major unknown",
                                                        buf) < 0)
                                return -ENOMEM;
                }
                xpu_devnode_add(roots, vi->nodes, &vi->n_nodes, ELEMENTSOF(vi->nodes), "/dev/kfd", major,
                                have ? minor : 0, have, false);
                /* A ROCm workload needs /dev/kfd as much as its render node: list it first among
                 * every KFD device's own nodes, so a device counts as given only with both. A GPU
                 * without a render node stays without nodes: HIP cannot use it. */
                for (size_t i = 0; vi->n_nodes > 0 && i < inv->n_devices; i++) {
                        struct xpu_device *d = &inv->devices[i];
                        if (d->vendor != XPU_VENDOR_AMD || !(d->have & XPU_HAVE_KFD_NODE) ||
                            !(d->have & XPU_HAVE_RENDER_MINOR) ||
                            d->n_nodes >= ELEMENTSOF(d->nodes))
                                continue;
                        memmove(&d->nodes[1], &d->nodes[0], d->n_nodes * sizeof d->nodes[0]);
                        d->nodes[0] = vi->nodes[vi->n_nodes - 1];
                        d->n_nodes++;
                }
        }
        if (xpu_inventory_count(inv, XPU_VENDOR_AMD) == 0)
                snprintf(vi->looked_for, sizeof vi->looked_for,
                         KFD_NODES " (GPU nodes) and " DRM_CLASS "/card*/device (vendor 0x1002, amdgpu) under %.120s: not found",
                         roots->sys);
        return 0;
}

static void amd_code_target(const struct xpu_device *d, char *spec, size_t size) {
        if (d->have & XPU_HAVE_GFX_TARGET_VERSION)
                xpu_strlcpy(spec, xpu_amd_facts(d)->gfx_target, size);
}

static const char *amd_partition(const struct xpu_device *d) {
        if (xpu_amd_facts(d)->partition_mode[0])
                return xpu_amd_facts(d)->partition_mode;
        return (d->have & XPU_HAVE_PARTITION) ? NULL : "none";
}

static const struct xpu_rich_ops *const amd_rich[] = { &xpu_rich_rocm_smi, NULL };

/* AMD's facts in the device views (xpu_vendor_ops.view.facts_json, facts_text): JSON "gfx_target",
 * "gfx_target_version", "kfd_gpu_id", "kfd_node", "unique_id", "simd_count", "compute_units",
 * "num_xcc", "partition_mode", each when known; text "  gfx90a". */
static bool amd_facts_json(const struct xpu_device *d, cJSON *o) {
        const struct xpu_amd_facts *a = xpu_amd_facts(d);
        bool ok = true;
        if (d->have & XPU_HAVE_GFX_TARGET_VERSION) {
                ok = xpu_json_add_str(o, "gfx_target", a->gfx_target) &&
                     xpu_json_add_num(o, "gfx_target_version", a->gfx_target_version);
        }
        if (ok && (d->have & XPU_HAVE_KFD_GPU_ID))
                ok = xpu_json_add_num(o, "kfd_gpu_id", a->kfd_gpu_id);
        if (ok && (d->have & XPU_HAVE_KFD_NODE))
                ok = xpu_json_add_num(o, "kfd_node", a->kfd_node);
        ok = ok && xpu_json_add_str(o, "unique_id", a->unique_id);
        if (ok && (d->have & XPU_HAVE_SIMD_COUNT))
                ok = xpu_json_add_num(o, "simd_count", a->simd_count) &&
                     xpu_json_add_num(o, "compute_units", a->compute_units);
        if (ok && (d->have & XPU_HAVE_NUM_XCC))
                ok = xpu_json_add_num(o, "num_xcc", a->num_xcc);
        if (ok && a->partition_mode[0])
                ok = xpu_json_add_str(o, "partition_mode", a->partition_mode);
        return ok;
}

static void amd_facts_text(const struct xpu_device *d, FILE *f) {
        if (xpu_amd_facts(d)->gfx_target[0])
                fprintf(f, "  %s", xpu_amd_facts(d)->gfx_target);
}

/* The KFD unique_id of D, "0x<hex>" in AMD_VISIBLE_DEVICES and XPU_VISIBLE_DEVICES. */
static const char *amd_unique_id(const struct xpu_device *d) {
        return xpu_amd_facts(d)->unique_id;
}

/* The per-device requirement key of the gfx target ("gfx90a", from KFD's gfx_target_version). */
static const struct xpu_fact_label amd_require_facts[] = {
        { "gfx", XPU_AMD_FACT(gfx_target) },
        { NULL, 0 },
};

static const struct xpu_fact_label amd_info_labels[] = {
        { "gfx_target", XPU_AMD_FACT(gfx_target) }, /* KFD gfx_target_version */
        { "unique_id", XPU_AMD_FACT(unique_id) },   /* KFD unique_id */
        { NULL, 0 },
};

const struct xpu_vendor_ops xpu_vendor_amd = {
        .vendor = XPU_VENDOR_AMD,
        .name = "amd",
        .display_name = "AMD",
        /* ROCm/container-toolkit's internal/oci/oci.go (amd-container-runtime): lists, ranges and
         * unique ids. AMD's DRA driver's common edits set DRA_RESOURCE_DRIVER_NAME=gpu.amd.com
         * (ROCm/k8s-gpu-dra-driver cmd/gpu-kubeletplugin/cdi.go); amd-ctk's spec sets no variable,
         * and AMD_VISIBLE_DEVICES unset takes the given nodes anyway. */
        .visibility = { .variable = "AMD_VISIBLE_DEVICES",
                        .ranges = true,
                        .unique_id = amd_unique_id,
                        .cdi_kind = "amd.com/gpu",
                        .cdi_mark = "DRA_RESOURCE_DRIVER_NAME",
                        .cdi_mark_value = "gpu.amd.com" },
        .probe = { .fast = amd_probe, .rich = amd_rich },
        .view = { .facts_json = amd_facts_json,
                  .facts_text = amd_facts_text,
                  .partition = amd_partition,
                  .info_labels = amd_info_labels },
        .require = { .facts = amd_require_facts },
        .code = { .vendor = XPU_CODE_VENDOR_AMD,
                  .target_name = "gfx target",
                  .target = amd_code_target,
                  .target_sources = 0 /* the gfx target is KFD topology's (fast path) */ },
        .readings = &xpu_readings_amdgpu,
        .k8s = &xpu_k8s_amd,
        .wsl = &xpu_wsl_amd,
        .kernel_log = xpu_amd_kernel_log,
};
