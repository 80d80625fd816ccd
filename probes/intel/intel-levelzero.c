/* SPDX-License-Identifier: Apache-2.0 */
/* Level Zero's spelling of a selection, ZE_AFFINITY_MASK, as the Intel devices it names: see
 * xpu_intel_affinity_translate() in intel.h.
 *
 * Level Zero numbers devices in the hierarchy ZE_FLAT_DEVICE_HIERARCHY asks for (Intel's oneAPI
 * GPU optimization guide, "Exposing the Device Hierarchy"): FLAT and COMBINED make
 * every tile a root device, numbered across the GPUs in order; COMPOSITE makes every GPU a root
 * device and its tiles sub-devices, "D.S" being tile S of GPU D; unset, the runtime's default for
 * the product (hierarchy_read()). The compute runtime sorts GPUs by
 * PCI bus id before it applies the mask (and ZE_ENABLE_PCI_ID_DEVICE_ORDER=1 keeps that order),
 * the order of Intel's vendor indices. */
#include "intel/intel.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/macro.h"

struct gpu {
        uint32_t tiles;    /* tile_count, 1..XPU_INTEL_TILES_MAX */
        uint32_t selected; /* bit T: tile T named */
};

static uint32_t all_tiles(const struct gpu *g) {
        return g->tiles >= 32 ? UINT32_MAX : (1u << g->tiles) - 1;
}

_printf_(3, 4) static int fail(char *err, size_t err_size, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        if (err && err_size)
                vsnprintf(err, err_size, fmt, ap);
        va_end(ap);
        return -EINVAL;
}

/* A plain decimal number of at most 9 digits spanning [S, END). Returns 0 or -EINVAL. */
static int number(const char *s, const char *end, uint32_t *ret) {
        size_t len = (size_t)(end - s);
        if (len == 0 || len > 9 || strspn(s, "0123456789") < len)
                return -EINVAL;
        *ret = 0;
        for (; s < end; s++)
                *ret = *ret * 10 + (uint32_t)(*s - '0');
        return 0;
}

/* Append to OUT (SIZE bytes, *USED of it taken) with a comma between entries. */
_printf_(4, 5) static int out_add(char *out, size_t size, size_t *used, const char *fmt, ...) {
        if (*used && *used + 1 < size)
                out[(*used)++] = ',';
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(out + *used, *used < size ? size - *used : 0, fmt, ap);
        va_end(ap);
        if (n < 0 || *used + (size_t)n >= size)
                return -ENOBUFS;
        *used += (size_t)n;
        return 0;
}

/* Mark the entry [E, END) of MASK in GPUS. Returns 0 or -EINVAL with ERR. */
static int mark(struct gpu *gpus, size_t n, bool flat, const char *hierarchy, const char *mask, const char *e,
                const char *end, char *err, size_t err_size) {
        const char *dot = memchr(e, '.', (size_t)(end - e));
        uint32_t d, t = 0;
        int elen = end - e > 32 ? 32 : (int)(end - e); /* an entry in a message: its head */
        if (number(e, dot ? dot : end, &d) < 0 || (dot && number(dot + 1, end, &t) < 0))
                return fail(err, err_size, "ZE_AFFINITY_MASK=\"%.64s\": \"%.*s\" is not a device (D) or a tile of one "
                            "(D.S)", mask, elen, e);
        if (flat && dot)
                return fail(err, err_size, "ZE_AFFINITY_MASK=\"%.64s\": \"%.*s\" names a sub-device, but in the %s "
                            "hierarchy every tile is a device of its own (use its number); set "
                            "ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE for D.S", mask, elen, e, hierarchy);
        if (n == 0)
                return fail(err, err_size, "ZE_AFFINITY_MASK=\"%.64s\": no Intel GPU with a render node is given to "
                            "this container", mask);
        if (flat) { /* D counts tiles across the GPUs */
                uint32_t base = 0;
                for (size_t g = 0; g < n; base += gpus[g].tiles, g++)
                        if (d < base + gpus[g].tiles) {
                                gpus[g].selected |= 1u << (d - base); /* tiles < XPU_INTEL_TILES_MAX */
                                return 0;
                        }
                return fail(err, err_size, "ZE_AFFINITY_MASK=\"%.64s\": no device %u in the %s hierarchy: the Intel GPUs "
                            "given have %u tiles, devices 0 to %u", mask, d, hierarchy, base, base - 1);
        }
        if (d >= n)
                return fail(err, err_size, "ZE_AFFINITY_MASK=\"%.64s\": no device %u: %zu Intel GPUs are given (COMPOSITE "
                            "hierarchy: one device per GPU)", mask, d, n);
        if (dot && t >= gpus[d].tiles)
                return fail(err, err_size, "ZE_AFFINITY_MASK=\"%.64s\": GPU %u has no tile %u (it has %u)", mask, d, t,
                            gpus[d].tiles);
        gpus[d].selected |= dot ? 1u << t : all_tiles(&gpus[d]);
        return 0;
}

/* The given Intel GPUs (xpu_device_available(): their nodes are in this container) that have a
 * render node (the compute runtime opens render nodes only), in vendor order, as Level Zero inside
 * the container numbers them; INV_INDEX[k] is GPU k's inventory index. Returns the count, or
 * -ENOMEM, or -EINVAL with ERR for a GPU whose tile count is not known (the numbering would be a
 * guess). */
static ssize_t given_gpus(const struct xpu_inventory *inv, struct gpu **ret, size_t **inv_index, char *err,
                          size_t err_size) {
        *ret = calloc(inv->n_devices + 1, sizeof **ret);
        *inv_index = calloc(inv->n_devices + 1, sizeof **inv_index);
        if (!*ret || !*inv_index)
                return -ENOMEM;
        size_t k = 0;
        for (size_t i = 0; i < inv->n_devices; i++) {
                const struct xpu_device *d = &inv->devices[i];
                if (d->vendor != XPU_VENDOR_INTEL || !xpu_device_available(d) || !(d->have & XPU_HAVE_RENDER_MINOR))
                        continue;
                uint32_t tiles = xpu_intel_facts(d)->tile_count;
                if (!(d->have & XPU_HAVE_TILES) || tiles < 1 || tiles > XPU_INTEL_TILES_MAX)
                        return fail(err, err_size, "ZE_AFFINITY_MASK: the tile count of Intel GPU %u (%s) is not known "
                                    "(see xpuinit probe's warnings), so Level Zero's numbers cannot be read; select "
                                    "with XPU_VISIBLE_DEVICES and ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE",
                                    d->vendor_index, d->pci_bus_id);
                (*ret)[k].tiles = xpu_intel_facts(d)->tile_count;
                (*inv_index)[k++] = i;
        }
        return (ssize_t)k;
}

/* The hierarchy the workload's Level Zero uses: ZE_FLAT_DEVICE_HIERARCHY, spelled exactly as the
 * compute runtime compares it (strcmp: FLAT, COMPOSITE, COMBINED); unset, the runtime's default
 * for the product, FLAT on Data Center GPU Max (PVC) and COMPOSITE elsewhere
 * (setDeviceHierarchyMode, intel/compute-runtime shared/source/execution_environment/). *FLAT for
 * FLAT and COMBINED (tiles are root devices). Returns its name, or NULL with ERR for a value the
 * runtime would ignore. */
static const char *hierarchy_read(const struct xpu_inventory *inv, bool *flat, char *err, size_t err_size) {
        const char *h = secure_getenv("ZE_FLAT_DEVICE_HIERARCHY");
        if (!h || !*h) {
                h = "COMPOSITE";
                for (size_t i = 0; i < inv->n_devices; i++)
                        if (inv->devices[i].vendor == XPU_VENDOR_INTEL && (inv->devices[i].have & XPU_HAVE_PCI_IDS) &&
                            xpu_intel_is_pvc(inv->devices[i].pci_device_id))
                                h = "FLAT";
        }
        *flat = strcmp(h, "FLAT") == 0 || strcmp(h, "COMBINED") == 0;
        if (!*flat && strcmp(h, "COMPOSITE") != 0) {
                fail(err, err_size, "ZE_FLAT_DEVICE_HIERARCHY=\"%.32s\": Level Zero takes FLAT, COMPOSITE or COMBINED, "
                     "spelled so (it would ignore this value and use its default)", h);
                return NULL;
        }
        return h;
}

int xpu_intel_affinity_translate(const struct xpu_inventory *inv, const char *value, char *list, size_t list_size,
                                 char *err, size_t err_size) {
        bool flat;
        const char *hierarchy = hierarchy_read(inv, &flat, err, err_size);
        if (!hierarchy)
                return -EINVAL;
        list[0] = '\0';
        const char *v = value + strspn(value, " \t");
        if (!*v || strcmp(v, "default") == 0) { /* blank and "default": Level Zero filters nothing */
                snprintf(list, list_size, "all");
                return 0;
        }
        _cleanup_free_ struct gpu *gpus = NULL;
        _cleanup_free_ size_t *inv_index = NULL;
        ssize_t n = given_gpus(inv, &gpus, &inv_index, err, err_size);
        if (n < 0)
                return (int)n;
        for (const char *p = value; *p;) {
                size_t len = strcspn(p, ",");
                const char *e = p, *end = p + len;
                while (e < end && (*e == ' ' || *e == '\t'))
                        e++;
                while (end > e && (end[-1] == ' ' || end[-1] == '\t'))
                        end--;
                if (e == end) { /* an empty entry (",1", "1,,2", "1,") names nothing */
                        p += len + (p[len] == ',');
                        continue;
                }
                int r = mark(gpus, (size_t)n, flat, hierarchy, value, e, end, err, err_size);
                if (r < 0)
                        return r;
                p += len + (p[len] == ',');
        }
        /* The GPUs named, whole: a tile is no isolation boundary, and the mask itself reaches the
         * workload unchanged (its numbers are the container's). */
        size_t used = 0;
        for (ssize_t g = 0; g < n; g++)
                if (gpus[g].selected && out_add(list, list_size, &used, "%u", inv->devices[inv_index[g]].vendor_index) < 0)
                        return fail(err, err_size, "ZE_AFFINITY_MASK=\"%.64s\": too many devices", value);
        return 0;
}

int xpu_intel_affinity_mask(const struct xpu_inventory *inv, const bool *selected, char *out, size_t size,
                            char *err, size_t err_size) {
        bool flat;
        if (!hierarchy_read(inv, &flat, err, err_size))
                return -EINVAL;
        _cleanup_free_ struct gpu *gpus = NULL;
        _cleanup_free_ size_t *inv_index = NULL;
        ssize_t n = given_gpus(inv, &gpus, &inv_index, err, err_size);
        if (n < 0)
                return (int)n;
        size_t used = 0, picked = 0;
        uint32_t base = 0;
        out[0] = '\0';
        for (ssize_t g = 0; g < n; base += gpus[g].tiles, g++) {
                if (!selected[inv_index[g]])
                        continue;
                picked++;
                for (uint32_t t = 0; t < (flat ? gpus[g].tiles : 1); t++)
                        if ((flat ? out_add(out, size, &used, "%u", base + t) : out_add(out, size, &used, "%zd", g)) < 0)
                                return -ENOBUFS;
        }
        if (picked == (size_t)n) /* every given GPU: nothing to filter */
                out[0] = '\0';
        return 0;
}
