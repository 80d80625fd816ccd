/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA's Kubernetes device plugin (NVIDIA/k8s-device-plugin) as the kubelet's pod-resources
 * answer shows it (vendor.h, struct xpu_vendor_k8s):
 *   nvidia.com/gpu          device ids are GPU UUIDs "GPU-<uuid>" (NVML's, as nvidia-smi -L shows
 *                           them); with the "single" MIG strategy they are MIG UUIDs "MIG-<uuid>"
 *   nvidia.com/mig-<profile> with the "mixed" MIG strategy ("nvidia.com/mig-1g.10gb"): MIG UUIDs
 *   nvidia.com/gpu.shared, nvidia.com/mig-<profile>.shared  time-slicing or MPS with
 *                           renameByDefault
 * With sharing (time-slicing, MPS) each id is "<uuid>::<replica>" (the plugin's AnnotatedID,
 * internal/rm/device_map.go): the part before "::" names the device. */
#include <errno.h>
#include <string.h>

#include "vendor.h"

static const char *const nvidia_resources[] = { "nvidia.com/gpu", "nvidia.com/gpu.shared", "nvidia.com/mig-*", NULL };

static int nvidia_device_key(const struct xpu_roots *roots, const char *resource, const char *id,
                             struct xpu_device_key *key) {
        (void)roots;
        (void)resource;
        const char *sep = strstr(id, "::");
        size_t len = sep ? (size_t)(sep - id) : strlen(id);
        if (len >= sizeof key->text || len <= 4 || (strncmp(id, "GPU-", 4) != 0 && strncmp(id, "MIG-", 4) != 0))
                return -ENOENT;
        *key = (struct xpu_device_key){ .kind = XPU_DEVICE_KEY_UUID };
        memcpy(key->text, id, len);
        key->text[len] = '\0';
        return 0;
}

const struct xpu_vendor_k8s xpu_k8s_nvidia = {
        .resources = nvidia_resources,
        .device_key = nvidia_device_key,
};
