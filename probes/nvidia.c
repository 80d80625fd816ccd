/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA fast path (placeholder until the procfs probe lands). */
#include "probe.h"

static int nvidia_probe(const struct xpu_roots *roots, struct xpu_inventory *inv) {
        (void)roots;
        (void)inv;
        return 0;
}

const struct xpu_probe_ops xpu_probe_nvidia = {
        .vendor = XPU_VENDOR_NVIDIA,
        .name = "nvidia",
        .probe = nvidia_probe,
};
