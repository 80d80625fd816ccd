/* SPDX-License-Identifier: Apache-2.0 */
/* A Container Device Interface spec for every GPU of a host, NVIDIA and AMD alike, under one
 * kind of xpuinit's own (`xpuinit cdi generate`, xpud --cdi-dir).
 *
 * Format: the CDI specification (cncf-tags/container-device-interface SPEC.md), at the lowest
 * cdiVersion its fields need: 0.5.0 (deviceNodes with hostPath; device names that start with a
 * digit). Later versions and unknown fields make a whole file unusable to CDI consumers of that
 * era (Debian 12's podman 4.3 reads 0.3.0 to 0.5.0 only), so nothing beyond 0.5.0 is written:
 * no annotations (0.6.0), no additionalGids (0.7.0), no hooks at all.
 *
 * Devices, each a copy of one GPU's edits under several names: the xpuinit index ("0"), the UUID
 * ("GPU-..."), the PCI bus id ("0000:3b:00.0"; for a partition of an AMD GPU the function is the
 * partition number, as ROCm SMI spells it: "0000:05:00.2"), and "all" with the edits of every
 * GPU. A name two GPUs would share (the UUID of a partitioned AMD GPU) is left out for both.
 *
 * A GPU's edits: its device nodes and its vendor's (NVIDIA /dev/nvidia<minor>, /dev/nvidiactl,
 * /dev/nvidia-uvm, ...; AMD /dev/kfd, /dev/dri/cardN, /dev/dri/renderDN) with type, major,
 * minor, mode, uid and gid of the host's node (so the group of a render node survives, and
 * xpuinit in the image adds it to the workload's groups); for a vendor whose user-mode driver
 * must come from the host (NVIDIA), the running driver version's files mounted read-only under
 * the first driver root xpuinit looks in (/run/nvidia/driver: libraries in usr/lib64, programs in
 * usr/bin; the files found by their path, host-files.h: GSP firmware, the persistenced and
 * fabricmanager sockets and the MPS pipe directory (these two writable, noexec), the EGL/Vulkan ICD
 * and layer files, the Xorg modules, at their own path below it) with XPUINIT_DRIVER_ROOT naming it and NVIDIA_VISIBLE_DEVICES=void keeping NVIDIA's own
 * runtime hook out. The loader part (soname links, library path) is xpuinit's, in the image. The
 * spec's own edits: XPU_VISIBLE_DEVICES=all, so xpuinit selects exactly the devices the engine
 * gave, whatever the image's NVIDIA_VISIBLE_DEVICES says.
 *
 * A host that lists what its containers get (the vendor's plan.host_list: a Jetson's CSV files,
 * as the NVIDIA Container Toolkit's csv mode reads them, pkg/nvcdi/lib-csv.go) needs no driver
 * version: its listed nodes become deviceNodes, its files and directories read-only mounts at
 * their own path, a listed symlink its target mounted at the link's path (0.5.0 has no hooks to
 * make one), the lists' directory too, and the driver-root variable names "/". */
#pragma once

#include <cjson/cJSON.h>
#include <stddef.h>

#include "cdi-edits.h"
#include "libs.h"
#include "probe.h"

#define XPU_CDI_VERSION "0.5.0"
#define XPU_CDI_KIND_DEFAULT "xpuinit.dev/gpu"
/* Where the spec puts the host's driver files: the first of xpuinit's default driver roots. */
#define XPU_CDI_DRIVER_ROOT XPU_DRIVER_ROOT_FIRST

/* Check a kind "VENDOR/CLASS" for a spec of cdiVersion 0.5.0: VENDOR a DNS-style name of letters,
 * digits, '.', '-' and '_' starting and ending with a letter or digit (at most 253); CLASS letters,
 * digits, '-' and '_' (no dot: that needs 0.6.0), starting and ending with a letter or digit, at
 * most 63. The vendors' own kinds (nvidia.com/..., amd.com/...) are refused: a device in two specs
 * of one directory is dropped by CDI as a conflict. Returns 0, or -EINVAL with ERR naming the
 * rule and the fix. */
int xpu_cdi_kind_check(const char *kind, char *err, size_t err_size);


/* The spec of INV's GPUs under KIND (checked by the caller). Reads the dev root (lstat of each
 * node: a node that is not a character device there is left out, and so is a GPU lacking one it
 * needs) and the driver root (libs.h: the files of the running NVIDIA driver version; or the
 * host's own lists, whose refusal is -EIO with ERR the words a start stops with).
 * *RET: the spec as a cJSON object (cJSON_Delete); *WARNINGS: one line each about what was left
 * out and why (xpu_strv_free), or NULL. Returns the number of GPUs in the spec (0: *RET is NULL,
 * ERR says why: no GPU, or none whose nodes are there), or -ENOMEM, or -EIO with ERR naming a
 * driver root that was refused (libs.h: a hostile or broken file). */
int xpu_cdi_spec_build(const struct xpu_inventory *inv, const struct xpu_cdi_roots *roots, const char *kind,
                       cJSON **ret, char ***warnings, char *err, size_t err_size);
