/* SPDX-License-Identifier: Apache-2.0 */
/* AMD's Kubernetes device plugin (ROCm/k8s-device-plugin) as the kubelet's pod-resources answer
 * shows it (vendor.h, struct xpu_vendor_k8s). Its GetAMDGPUs() (internal/pkg/amdgpu/amdgpu.go)
 * names each GPU by the base name of its directory:
 *   /sys/module/amdgpu/drivers/pci:amdgpu/<bus id>   the PCI function, "0000:c1:00.0" (a
 *                                                     partitioned GPU's first partition)
 *   /sys/devices/platform/amdgpu_xcp_<N>              the other partitions of an MI300-class GPU,
 *                                                     "amdgpu_xcp_30": told by their render node
 *                                                     (drm/renderD<M>)
 * Resources: amd.com/gpu ("single" naming strategy), or one per partition type,
 * "amd.com/<compute>_<memory>" lower-case ("amd.com/cpx_nps4", cmd/k8s-device-plugin/main.go with
 * resource_naming_strategy=mixed).
 * Node label: xpu.amd.generic, the generic family (devcode/compat.h) all the node's AMD GPUs
 * share (docs/kubernetes.md). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/path.h"
#include "base/pci.h"
#include "base/str.h"
#include "devcode/compat.h"
#include "devcode/judge.h"
#include "vendor.h"
#include "amd/amd.h"

static const char *const amd_resources[] = { "amd.com/gpu", "amd.com/spx_*", "amd.com/dpx_*", "amd.com/tpx_*",
                                             "amd.com/qpx_*", "amd.com/cpx_*", NULL };

#define XCP_PREFIX "amdgpu_xcp_"

/* The render minor of platform device NAME ("amdgpu_xcp_30"): its drm/renderD<M>. */
static int xcp_render_minor(const struct xpu_roots *roots, const char *name, uint32_t *ret) {
        char path[96];
        snprintf(path, sizeof path, "/sys/devices/platform/%s/drm", name);
        int fd = xpu_open_in_root(roots->sys_fd, path, O_RDONLY | O_DIRECTORY, 0);
        if (fd < 0)
                return -ENOENT;
        DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -ENOENT;
        }
        int r = -ENOENT;
        struct dirent *e;
        /* A drm directory holds a card and a render node: a handful of entries. */
        for (unsigned seen = 0; r < 0 && seen < 64 && (e = readdir(d)); seen++) {
                uint64_t m;
                if (xpu_startswith(e->d_name, "renderD") && xpu_parse_u64(e->d_name + 7, 10, &m) >= 0 &&
                    m <= UINT32_MAX) {
                        *ret = (uint32_t)m;
                        r = 0;
                }
        }
        closedir(d);
        return r;
}

static int amd_device_key(const struct xpu_roots *roots, const char *resource, const char *id,
                          struct xpu_device_key *key) {
        (void)resource;
        *key = (struct xpu_device_key){ .kind = XPU_DEVICE_KEY_PCI_BUS_ID };
        if (xpu_pci_bus_id_normalize(id, key->text) >= 0)
                return 0;
        uint64_t n;
        if (!xpu_startswith(id, XCP_PREFIX) || xpu_parse_u64(id + strlen(XCP_PREFIX), 10, &n) < 0 || n > 65535 ||
            !roots)
                return -ENOENT;
        key->kind = XPU_DEVICE_KEY_RENDER_MINOR;
        key->text[0] = '\0';
        return xcp_render_minor(roots, id, &key->number);
}

/* xpu.amd.generic when every AMD GPU's target is known and all have one generic family. */
static void amd_node_labels(const struct xpu_inventory *inv, const struct xpu_code_target *t, size_t n,
                            xpu_node_label_fn *put, void *ctx) {
        (void)inv;
        const char *generic = NULL;
        bool amd = false, one_generic = true;
        for (size_t i = 0; i < n; i++)
                if (t[i].vendor == XPU_CODE_VENDOR_AMD) {
                        const char *g = t[i].unknown ? NULL : xpu_gfx_generic_of(t[i].gfx.processor);
                        one_generic = one_generic && g && (!generic || strcmp(generic, g) == 0);
                        generic = g;
                        amd = true;
                }
        if (amd && one_generic && generic)
                put(ctx, "xpu.amd.generic", generic);
}

const struct xpu_vendor_k8s xpu_k8s_amd = {
        .resources = amd_resources,
        .device_key = amd_device_key,
        .node_labels = amd_node_labels,
};
