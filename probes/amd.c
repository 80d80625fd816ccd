/* SPDX-License-Identifier: Apache-2.0 */
/* AMD fast path (placeholder until the KFD probe lands). */
#include "probe.h"

static int amd_probe(const struct xpu_roots *roots, struct xpu_inventory *inv) {
        (void)roots;
        (void)inv;
        return 0;
}

const struct xpu_probe_ops xpu_probe_amd = {
        .vendor = XPU_VENDOR_AMD,
        .name = "amd",
        .probe = amd_probe,
};
