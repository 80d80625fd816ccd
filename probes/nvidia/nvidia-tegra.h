/* SPDX-License-Identifier: Apache-2.0 */
/* Jetson's fast path (nvidia-tegra.c): the integrated GPU of an NVIDIA Tegra SoC. */
#pragma once

#include <stddef.h>

#include "nvidia/nvidia-csv.h" /* the descriptor's host lists on a Jetson */
#include "nvidia/nvidia-facts.h"

/* Jetson (nvidia-tegra.c). The fast path of a Tegra SoC's integrated GPU, run when there is no
 * /proc/driver/nvidia: from the device tree's compatible ("nvidia,tegra234": the platform is then
 * XPU_PLATFORM_TEGRA), the GPU's nvgpu node in sysfs (its chip gives the compute capability), the
 * board's model (its name) and /etc/nv_tegra_release in the driver root (the L4T release). No PCI
 * bus id: the GPU is not on PCI. Returns 1 when the host is a Tegra (a GPU added when nvgpu is
 * there), 0 when not, -ENOMEM. */
int xpu_nvidia_tegra_probe(const struct xpu_roots *roots, struct xpu_inventory *inv);
/* The image variables the descriptor's require.env_skip leaves unchecked (NULL-terminated). */
extern const char *const xpu_nvidia_require_skip[];
/* The descriptor's probe.driver_root: each Jetson GPU's L4T release from /etc/nv_tegra_release in
 * the driver root (a host file: the container's own would be the image's); a bad or unreadable
 * file is a warning naming it. Returns 0 or -ENOMEM. */
int xpu_nvidia_tegra_driver_root(const struct xpu_roots *roots, struct xpu_inventory *inv);
/* The L4T release of /etc/nv_tegra_release's first line ("# R35 (release), REVISION: 4.1, ..."
 * → "35.4.1", "REVISION: 5," → "32.5") into OUT. Returns 0, -EINVAL (not that form),
 * -ENAMETOOLONG. */
int xpu_nvidia_parse_l4t_release(const char *text, char *out, size_t size);
/* The SoC of a device tree's compatible property (LEN bytes of NUL-separated strings): the first
 * "nvidia,tegra<N>" → "tegra<N>" into SOC. Returns 0, -ENOENT (none), -EINVAL (odd characters). */
int xpu_nvidia_tegra_soc(const char *compat, size_t len, char *soc, size_t size);
