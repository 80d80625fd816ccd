/* SPDX-License-Identifier: Apache-2.0 */
/* The kinds of GPU of an inventory, as device-code targets (device-targets.h). */
#include "device-targets.h"

#include <stdio.h>
#include <string.h>

#include "base/fileio.h"
#include "base/macro.h"

size_t xpu_device_code_targets(const struct xpu_inventory *inv, const size_t *devices, size_t n,
                               struct xpu_code_target *t, size_t max, size_t *unknown) {
        size_t nt = 0;
        unsigned counts[XPU_DEVICE_CODE_TARGETS_MAX] = { 0 };
        const char *names[XPU_DEVICE_CODE_TARGETS_MAX] = { 0 };
        *unknown = 0;
        size_t total = devices ? n : inv->n_devices;
        if (max > XPU_DEVICE_CODE_TARGETS_MAX)
                max = XPU_DEVICE_CODE_TARGETS_MAX;
        for (size_t i = 0; i < total; i++) {
                const struct xpu_device *d = &inv->devices[devices ? devices[i] : i];
                struct xpu_code_target cur;
                char spec[64];
                spec[0] = '\0';
                if (d->vendor == XPU_VENDOR_NVIDIA) {
                        xpu_strlcpy(spec, d->compute_capability, sizeof spec); /* "9.0": a --for spelling */
                } else if (d->vendor == XPU_VENDOR_AMD && (d->have & XPU_HAVE_GFX_TARGET_VERSION)) {
                        xpu_strlcpy(spec, d->gfx_target, sizeof spec);
                }
                if (!spec[0] || xpu_code_target_parse(spec, &cur) < 0) {
                        /* Its vendor is still known: "nothing for this vendor" can be judged. */
                        (*unknown)++;
                        cur = (struct xpu_code_target){
                                .vendor = d->vendor == XPU_VENDOR_NVIDIA ? XPU_CODE_VENDOR_NVIDIA : XPU_CODE_VENDOR_AMD,
                                .unknown = true,
                        };
                        snprintf(cur.name, sizeof cur.name, "%s (%s unknown)", xpu_vendor_to_string(d->vendor),
                                 d->vendor == XPU_VENDOR_NVIDIA ? "compute capability" : "gfx target");
                }
                size_t k = 0;
                while (k < nt && strcmp(t[k].name, cur.name) != 0)
                        k++;
                if (k == nt) {
                        if (nt == max) {
                                (*unknown)++;
                                continue;
                        }
                        t[nt++] = cur;
                        names[k] = d->name[0] ? d->name : NULL;
                } else if (names[k] && (!d->name[0] || strcmp(names[k], d->name) != 0)) {
                        names[k] = NULL; /* two models of one target: no single name */
                }
                counts[k]++;
                t[k].count = counts[k];
                const char *vendor = xpu_vendor_display_name(d->vendor);
                snprintf(t[k].gpus, sizeof t[k].gpus, "%u × %s%s%s", counts[k], names[k] ? "" : vendor,
                         names[k] ? names[k] : " GPU", counts[k] > 1 && !names[k] ? "s" : "");
        }
        return nt;
}

const char *xpu_device_partition(const struct xpu_device *d) {
        switch (d->vendor) {
        case XPU_VENDOR_NVIDIA:
                if (!(d->have & XPU_HAVE_MIG_MODE))
                        return NULL;
                return d->mig_enabled ? "mig" : "none";
        case XPU_VENDOR_AMD:
                if (d->partition_mode[0])
                        return d->partition_mode;
                return (d->have & XPU_HAVE_PARTITION) ? NULL : "none";
        default:
                return NULL;
        }
}
