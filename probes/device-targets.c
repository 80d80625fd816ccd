/* SPDX-License-Identifier: Apache-2.0 */
/* The kinds of GPU of an inventory, as device-code targets (device-targets.h). */
#include "device-targets.h"

#include <stdio.h>
#include <string.h>

#include "base/macro.h"
#include "vendor.h"

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
                const struct xpu_vendor_ops *vo = xpu_vendor(d->vendor);
                if (!vo || !vo->code.vendor)
                        continue; /* no device code of this vendor is judged */
                struct xpu_code_target cur;
                char spec[64] = "";
                if (vo->code.target)
                        vo->code.target(d, spec, sizeof spec);
                if (!spec[0] || xpu_code_target_parse(spec, &cur) < 0) {
                        /* Its vendor is still known: "nothing for this vendor" can be judged. */
                        (*unknown)++;
                        cur = (struct xpu_code_target){ .vendor = vo->code.vendor, .unknown = true };
                        snprintf(cur.name, sizeof cur.name, "%s (%s unknown)", vo->name, vo->code.target_name);
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
        const struct xpu_vendor_ops *vo = xpu_vendor(d->vendor);
        if (!vo)
                return NULL;
        return vo->view.partition ? vo->view.partition(d) : "none";
}
