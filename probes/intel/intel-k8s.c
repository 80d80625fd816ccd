/* SPDX-License-Identifier: Apache-2.0 */
/* Intel's Kubernetes GPU plugin (intel/intel-device-plugins-for-kubernetes, cmd/gpu_plugin) as the
 * kubelet's pod-resources answer shows it (vendor.h, struct xpu_vendor_k8s): resources
 * gpu.intel.com/i915 and gpu.intel.com/xe (by the card's kernel driver), device ids
 * "<card>-<i>": the DRM card name and, with -shared-dev-num N, one id per share i in 0..N-1
 * (gpu_plugin.go: fmt.Sprintf("%s-%d", name, i)); "card1-0" is card 1. The monitoring resources
 * (gpu.intel.com/i915_monitoring, xe_monitoring) hold every GPU and name none, so they are not listed. */
#include <errno.h>
#include <string.h>

#include "base/str.h"
#include "vendor.h"
#include "intel/intel.h"

static const char *const intel_resources[] = { "gpu.intel.com/i915", "gpu.intel.com/xe", NULL };

static int intel_device_key(const struct xpu_roots *roots, const char *resource, const char *id,
                            struct xpu_device_key *key) {
        (void)roots;
        (void)resource;
        const char *dash = strchr(id, '-');
        char card[16];
        uint64_t n, share;
        if (!xpu_startswith(id, "card") || !dash || (size_t)(dash - id) >= sizeof card)
                return -ENOENT;
        memcpy(card, id + 4, (size_t)(dash - id) - 4);
        card[dash - id - 4] = '\0';
        if (xpu_parse_u64(card, 10, &n) < 0 || n > UINT32_MAX || xpu_parse_u64(dash + 1, 10, &share) < 0)
                return -ENOENT;
        *key = (struct xpu_device_key){ .kind = XPU_DEVICE_KEY_CARD, .number = (uint32_t)n };
        return 0;
}

const struct xpu_vendor_k8s xpu_k8s_intel = {
        .resources = intel_resources,
        .device_key = intel_device_key,
};
