/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA's Kubernetes device plugin (NVIDIA/k8s-device-plugin) as the kubelet's pod-resources
 * answer shows it (vendor.h, struct xpu_vendor_k8s):
 *   nvidia.com/gpu          device ids are GPU UUIDs "GPU-<uuid>" (NVML's, as nvidia-smi -L shows
 *                           them); with the "single" MIG strategy they are MIG UUIDs "MIG-<uuid>"
 *   nvidia.com/mig-<profile> with the "mixed" MIG strategy ("nvidia.com/mig-1g.10gb"): MIG UUIDs
 *   nvidia.com/gpu.shared, nvidia.com/mig-<profile>.shared  time-slicing or MPS with
 *                           renameByDefault
 * With sharing (time-slicing, MPS) each id is "<uuid>::<replica>" (the plugin's AnnotatedID,
 * internal/rm/device_map.go): the part before "::" names the device.
 * Node labels: xpu.nvidia.cc, the smallest compute capability of the node's GPUs, and
 * xpu.nvidia.cuda, the driver's CUDA version (docs/kubernetes.md). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "devcode/judge.h"
#include "vendor.h"
#include "nvidia/nvidia.h"

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

/* "X.Y" with Y one digit as the integer X*10+Y ("12.2" -> 122, "9.0" -> 90): comparable with Gt and
 * Lt. Returns -1 for anything else (a two-digit minor would make the integers ambiguous). */
static int dotted_int(const char *v) {
        unsigned major, minor;
        int used = 0;
        if (!v || v[0] < '0' || v[0] > '9' || sscanf(v, "%u.%u%n", &major, &minor, &used) != 2 || v[used] ||
            major > 999 || minor > 9 || v[strlen(v) - 2] != '.')
                return -1;
        return (int)(major * 10 + minor);
}

/* The smallest compute capability (every GPU has at least it) when each GPU's is known, and the
 * CUDA version, both as integers X*10+Y (Gt/Lt compare them); none without an NVIDIA GPU. */
static void nvidia_node_labels(const struct xpu_inventory *inv, const struct xpu_code_target *t, size_t n,
                               xpu_node_label_fn *put, void *ctx) {
        int cc = INT_MAX;
        bool nvidia = false, cc_known = true;
        for (size_t i = 0; i < n; i++)
                if (t[i].vendor == XPU_CODE_VENDOR_NVIDIA) {
                        nvidia = true;
                        cc_known = cc_known && !t[i].unknown;
                        if (!t[i].unknown && (int)t[i].sm < cc)
                                cc = (int)t[i].sm;
                }
        if (!nvidia)
                return;
        char v[16];
        if (cc_known) {
                snprintf(v, sizeof v, "%d", cc);
                put(ctx, "xpu.nvidia.cc", v);
        }
        int cuda = dotted_int(xpu_inventory_cuda_driver_version(inv));
        if (cuda >= 0) {
                snprintf(v, sizeof v, "%d", cuda);
                put(ctx, "xpu.nvidia.cuda", v);
        }
}

const struct xpu_vendor_k8s xpu_k8s_nvidia = {
        .resources = nvidia_resources,
        .device_key = nvidia_device_key,
        .node_labels = nvidia_node_labels,
};
