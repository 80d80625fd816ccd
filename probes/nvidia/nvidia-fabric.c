/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA's fabric device sets (fabric.h), as the NVIDIA Container Toolkit's device sets name them:
 * its CDI modes imex, gdrcopy, gds and nvswitch (internal/discover/gdrcopy.go, gds.go,
 * nvswitch.go; the IMEX channels of NVIDIA_IMEX_CHANNELS), and its name for the vendor-neutral
 * RDMA set (mode mofed, NVIDIA_MOFED). The /proc/devices names are the drivers' own. */
#include "fabric.h"
#include "vendor.h"

/* IMEX channels (multi-node NVLink, GB200 NVL72): nodes the driver never creates itself; the admin
 * or the DRA driver mknods them under the major of "nvidia-caps-imex-channels", minor = channel id
 * (github.com/NVIDIA/nvidia-modprobe/issues/9). */
static const struct xpu_fabric_node imex_nodes[] = {
        { "/dev/nvidia-caps-imex-channels/channel*", "nvidia-caps-imex-channels" },
        { NULL, NULL },
};

static const struct xpu_fabric_set imex = {
        .name = "imex",
        .what = "IMEX channel",
        .variable = "NVIDIA_IMEX_CHANNELS",
        .channels = true,
        .nodes = imex_nodes,
        .fix = "the host's IMEX domain must have created the channel (mknod under the nvidia-caps-imex-channels "
               "major, or the DRA driver's ComputeDomain) and the runtime must pass it",
};

/* GDRCopy: one node of the gdrdrv module (gdrcopy's insmod.sh makes it from /proc/devices). */
static const struct xpu_fabric_node gdrcopy_nodes[] = {
        { "/dev/gdrdrv", "gdrdrv" },
        { NULL, NULL },
};

static const struct xpu_fabric_set gdrcopy = {
        .name = "gdrcopy",
        .what = "GDRCopy",
        .variable = "NVIDIA_GDRCOPY",
        .nodes = gdrcopy_nodes,
        .fix = "load the gdrdrv module (gdrcopy) on the host and pass /dev/gdrdrv",
};

/* GPUDirect Storage: nvidia-fs0..15 of the nvidia-fs module (NVIDIA/gds-nvidia-fs). */
static const struct xpu_fabric_node gds_nodes[] = {
        { "/dev/nvidia-fs*", "nvidia-fs" },
        { NULL, NULL },
};

static const struct xpu_fabric_set gds = {
        .name = "gds",
        .what = "GPUDirect Storage",
        .variable = "NVIDIA_GDS",
        .nodes = gds_nodes,
        .fix = "load the nvidia-fs module (GPUDirect Storage) on the host and pass /dev/nvidia-fs*",
};

/* NVSwitch: nvidia-nvswitchctl (minor 255) and one nvidia-nvswitch<N> per switch, all under the
 * "nvidia-nvswitch" major; for fabric manager and NVSwitch tools in a container. */
static const struct xpu_fabric_node nvswitch_nodes[] = {
        { "/dev/nvidia-nvswitchctl", "nvidia-nvswitch" },
        { "/dev/nvidia-nvswitch*", "nvidia-nvswitch" },
        { NULL, NULL },
};

static const struct xpu_fabric_set nvswitch = {
        .name = "nvswitch",
        .what = "NVSwitch",
        .variable = "NVIDIA_NVSWITCH",
        .nodes = nvswitch_nodes,
        .fix = "the host needs NVSwitches with their driver loaded (HGX, DGX) and the runtime must pass "
               "/dev/nvidia-nvswitch*",
};

const struct xpu_fabric_set *const xpu_nvidia_fabric[] = { &imex, &gdrcopy, &gds, &nvswitch, NULL };

/* The toolkit's mofed mode: the RDMA verbs nodes (internal/discover/mofed.go). */
const struct xpu_fabric_alias xpu_nvidia_fabric_aliases[] = {
        { "rdma", "NVIDIA_MOFED" },
        { NULL, NULL },
};
