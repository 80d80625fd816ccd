/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the device-selection parser, xpu_selection_parse() (entrypoint/select.h), against
 * a fixed synthetic inventory. The input is split at NUL or newline bytes into the values of
 * XPU_VISIBLE_DEVICES, NVIDIA_VISIBLE_DEVICES, AMD_VISIBLE_DEVICES and ZE_AFFINITY_MASK, in that
 * order (the last value runs to the end of the input); a missing value, or one that is exactly
 * "<unset>", is an unset variable (NULL), so the vendor variables are reached with
 * "<unset>\n0,1\nall". Two Intel GPUs (two tiles and one; the second has no render node given)
 * take ZE_AFFINITY_MASK in the default hierarchy.
 *
 * Checked besides memory safety (abort() when broken): selection never widens what the runtime
 * gave (every selected device is available, every selected MIG device too, and only a selected
 * device has a MIG mask), a success returns one flag per device, a failure returns nothing and
 * one terminated, non-empty error line. nvidia:1 is in MIG mode with MIG devices 1:0 (GI 1 CI 0,
 * an NVML UUID), 1:1 (GI 2 CI 0) and 1:2 (GI 2 CI 1, its node not given).
 * Corpus: tests/fuzz/corpus/select/. */
#include <stdbool.h>
#include <stdio.h>

#include "fuzz.h"
#include "intel/intel-facts.h"
#include "amd/amd-facts.h"
#include "nvidia/nvidia-facts.h"
#include "select.h"

#define N_VARS 4
#define UNSET "<unset>"

/* index, vendor, vendor index, UUID, PCI bus id, unique id (AMD), available (node present).
 * nvidia:2 and the second partition of the AMD GPU with two (amd:2) are not given to the
 * container; the AMD partitions share a unique id and a PCI device. */
static const struct {
        enum xpu_vendor vendor;
        unsigned vendor_index;
        const char *uuid, *bus, *unique_id;
        bool available;
} spec[] = {
        {XPU_VENDOR_NVIDIA, 0, "GPU-4a7c1b52-9f0e-4d2b-8c31-0e5f6a7b8c90", "0000:1a:00.0", NULL, true},
        {XPU_VENDOR_NVIDIA, 1, "GPU-b2e8d0f4-1c3a-4e5b-9d7f-2a4c6e8f0a12", "0000:3b:00.0", NULL, true},
        {XPU_VENDOR_NVIDIA, 2, "GPU-c9d1e3f5-7a9b-4c1d-8e2f-4a6b8c0d2e34", "0000:5e:00.0", NULL, false},
        {XPU_VENDOR_AMD, 0, "GPU-ef2c1799a1f3e2ed", "0000:c1:00.0", "ef2c1799a1f3e2ed", true},
        {XPU_VENDOR_AMD, 1, "GPU-0123456789abcdef", "0000:c2:00.0", "0123456789abcdef", true},
        {XPU_VENDOR_AMD, 2, "GPU-0123456789abcdef", "0000:c2:00.1", "0123456789abcdef", false},
        {XPU_VENDOR_INTEL, 0, "", "0000:18:00.0", NULL, true},
        {XPU_VENDOR_INTEL, 1, "", "0000:42:00.0", NULL, false},
};

/* The inventory, built on the first call and kept for the whole run. */
static struct xpu_inventory *inventory(void) {
        static struct xpu_inventory *inv;
        if (inv)
                return inv;
        inv = xpu_inventory_new();
        if (!inv)
                abort();
        for (size_t i = 0; i < ELEMENTSOF(spec); i++) {
                struct xpu_device d = {
                        .index = (unsigned)i,
                        .vendor = spec[i].vendor,
                        .vendor_index = spec[i].vendor_index,
                        .n_nodes = 1,
                };
                snprintf(d.uuid, sizeof d.uuid, "%s", spec[i].uuid);
                snprintf(d.pci_bus_id, sizeof d.pci_bus_id, "%s", spec[i].bus);
                if (spec[i].unique_id)
                        snprintf(xpu_amd_facts(&d)->unique_id, sizeof xpu_amd_facts(&d)->unique_id, "%s", spec[i].unique_id);
                if (spec[i].vendor == XPU_VENDOR_NVIDIA)
                        snprintf(d.nodes[0].path, sizeof d.nodes[0].path, "/dev/nvidia%u", spec[i].vendor_index);
                else
                        snprintf(d.nodes[0].path, sizeof d.nodes[0].path, "/dev/dri/renderD%u",
                                 128 + spec[i].vendor_index);
                d.nodes[0].present = spec[i].available;
                if (spec[i].vendor == XPU_VENDOR_INTEL) {
                        d.have |= XPU_HAVE_TILES | XPU_HAVE_RENDER_MINOR;
                        xpu_intel_facts(&d)->tile_count = 2 - spec[i].vendor_index;
                        d.render_minor = 128 + spec[i].vendor_index;
                }
                if (i == 1) {
                        static const uint32_t ids[3][2] = { { 1, 0 }, { 2, 0 }, { 2, 1 } };
                        d.have |= XPU_HAVE_MIG_MODE;
                        xpu_nvidia_facts(&d)->mig_enabled = true;
                        xpu_nvidia_facts(&d)->n_mig = 3;
                        for (size_t m = 0; m < 3; m++) {
                                struct xpu_mig_device *g = &xpu_nvidia_facts(&d)->mig[m];
                                g->gi = ids[m][0];
                                g->ci = ids[m][1];
                                g->have = XPU_MIG_HAVE_CAPS;
                                snprintf(g->gi_cap.path, sizeof g->gi_cap.path, "/dev/nvidia-caps/nvidia-cap%zu", 10 * m);
                                snprintf(g->ci_cap.path, sizeof g->ci_cap.path, "/dev/nvidia-caps/nvidia-cap%zu", 10 * m + 1);
                                g->gi_cap.present = true;
                                g->ci_cap.present = m != 2;
                        }
                        snprintf(xpu_nvidia_facts(&d)->mig[0].uuid, sizeof xpu_nvidia_facts(&d)->mig[0].uuid, "MIG-5d3e6a10-7c2b-5f41-9e08-3b7d1c2a4f60");
                }
                if (!xpu_inventory_add_device(inv, &d))
                        abort();
        }
        return inv;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_strndup(data, size);
        if (!text)
                return 0;

        /* Split in place: the first values end at a NUL or newline, the last takes the rest (up to
         * a NUL, as an environment value would). */
        const char *value[N_VARS] = {NULL, NULL, NULL, NULL};
        char *p = text, *end = text + size;
        for (size_t v = 0; v < N_VARS && p <= end; v++) {
                value[v] = p;
                if (v == N_VARS - 1)
                        break;
                while (p < end && *p != '\0' && *p != '\n')
                        p++;
                *p = '\0';
                p++;
        }
        for (size_t v = 0; v < N_VARS; v++)
                if (value[v] && strcmp(value[v], UNSET) == 0)
                        value[v] = NULL;

        const struct xpu_inventory *inv = inventory();
        struct xpu_selection *sel = NULL;
        char err[512] = "";
        if (xpu_selection_parse(inv, value[0], (const char *const[_XPU_VENDOR_MAX]){ [XPU_VENDOR_NVIDIA] = value[1], [XPU_VENDOR_AMD] = value[2], [XPU_VENDOR_INTEL] = value[3] }, &sel, err, sizeof err) < 0) {
                if (sel || err[0] == '\0' || strnlen(err, sizeof err) == sizeof err)
                        abort();
        } else {
                if (!sel || sel->n != inv->n_devices)
                        abort();
                for (size_t i = 0; i < sel->n; i++) {
                        if (sel->selected[i] && !xpu_device_available(&inv->devices[i]))
                                abort(); /* selection widened what the runtime gave */
                        if (sel->mig[i] && !sel->selected[i])
                                abort();
                        for (size_t m = 0; m < 32; m++)
                                if ((sel->mig[i] & (1u << m)) && !xpu_mig_available(&inv->devices[i], m))
                                        abort(); /* a MIG device the runtime did not give */
                }
                for (int v = 0; v < _XPU_VENDOR_MAX; v++)
                        if (xpu_selection_count(sel, inv, (enum xpu_vendor)v) > inv->n_devices)
                                abort();
        }
        xpu_selection_free(sel);
        free(text);
        return 0;
}
