/* SPDX-License-Identifier: Apache-2.0 */
/* WSL2: every vendor's GPU is reached through one misc character device, /dev/dxg (the dxgkrnl
 * driver of Microsoft's WSL kernel), and the user-mode files of the Windows driver that WSL mounts
 * at /usr/lib/wsl/lib (Microsoft's libdxcore and the vendors' loaders) and /usr/lib/wsl/drivers/
 * (the Windows driver store: one folder per driver package, "<inf>.inf_amd64_<hash>"). There is no
 * /proc/driver/nvidia, no KFD and no DRM card, so the vendors' fast paths find nothing, and this
 * probe stands in: the platform from /dev/dxg, each vendor from its driver store folder
 * (struct xpu_vendor_wsl in its descriptor). Sources: the NVIDIA Container Toolkit's wsl mode
 * (pkg/nvcdi/driver-wsl.go), docs/xpuinit.md ("WSL2"). Silent but for inventory warnings. */
#pragma once

#include "host-files.h"
#include "probe.h"

#define XPU_WSL_DXG "/dev/dxg"
#define XPU_WSL_DXG_MAJOR 10u /* the misc major: dxgkrnl registers /dev/dxg as a misc device */
#define XPU_WSL_LIB_DIR "/usr/lib/wsl/lib"
#define XPU_WSL_DRIVERS_DIR "/usr/lib/wsl/drivers"
/* Entries of /usr/lib/wsl/drivers read at most (a Windows host has a few hundred packages). */
#define XPU_WSL_DRIVERS_MAX 4096

/* How a vendor's GPUs are reached on WSL2 (its descriptor's wsl, vendor.h): its folder in the
 * Windows driver store that WSL mounts at /usr/lib/wsl/drivers/, and the files a container needs.
 * Plain data, in probes/<vendor>/<vendor>-wsl.c. */
struct xpu_vendor_wsl {
        /* fnmatch patterns of its driver store folder names ("nv*.inf_amd64_*"), NULL-terminated */
        const char *const *store_patterns;
        /* a file the folder must hold to count as the vendor's GPU driver (NVIDIA's libcuda.so.1.1:
         * its INF names are many, and not all of its folders are the display driver); NULL: none */
        const char *store_marker;
        /* the files a container gets, each looked for in the driver store folder first, then in
         * /usr/lib/wsl/lib, and placed at its own path (the NVIDIA Container Toolkit's wsl mode),
         * NULL-terminated */
        const char *const *files;
        /* "LINK=NAME": a symbolic link LINK in the container to the placed file NAME (the toolkit's
         * /usr/bin/nvidia-smi to the driver store's), at most 32, NULL-terminated; NULL: none */
        const char *const *links;
        /* "NAME=VALUE" set for the workload on WSL2 (the vendor runtime's switch to its dxg path),
         * NULL-terminated; NULL: none */
        const char *const *env;
};

/* After the vendors' fast paths: INV->platform is XPU_PLATFORM_WSL when ROOTS' dev root holds
 * /dev/dxg as a character device of the misc major. Then each vendor with wsl data in VENDORS
 * and no device of its own fast path gets, for its driver store folder in the driver root, one
 * device (source "wsl", node /dev/dxg, no PCI bus id: the folder says a driver is there, not how
 * many GPUs it drives) and vendors[v].wsl_store; driver_loaded is set. A /dev/dxg that is not a
 * misc character device, a missing or empty /usr/lib/wsl/lib, a folder that is a symbolic link,
 * several folders of one vendor: one warning each, naming the path and the fix. Bounded by
 * XPU_WSL_DRIVERS_MAX entries. Returns 0 or -ENOMEM. */
int xpu_wsl_probe(const struct xpu_roots *roots, struct xpu_inventory *inv,
                  const struct xpu_vendor_wsl *const vendors[_XPU_VENDOR_MAX]);

/* Most GPUs a rich backend may put in place of one vendor's driver store entry (xpu_wsl_expand()):
 * xpud sizes its per-device readings with it. */
#define XPU_WSL_DEVICES_MAX 16

/* For a rich backend's merge on WSL2, where a library (NVML) can count what the driver store
 * folder cannot: VENDOR's entry of INV (source XPU_SOURCE_WSL) is replaced, at its place in the
 * inventory, by N devices (at most XPU_WSL_DEVICES_MAX; more: the first, and a warning), copies
 * of it (node /dev/dxg) with source SOURCE and vendor_index 0..N-1, which the backend then fills
 * in its own order (bus id, UUID, ... through the merge rules of probe.h). xpuinit indices are
 * numbered afresh. Returns the position in INV->devices of the first new device, -ENOENT when INV
 * holds no such entry (nothing changed), -EINVAL for N 0, -ENOMEM. */
int xpu_wsl_expand(struct xpu_inventory *inv, enum xpu_vendor vendor, enum xpu_source source, size_t n);

/* The files a container of a vendor's GPUs gets on WSL2: each name of its W->files
 * looked for in STORE (its driver store folder, "" for none), then in /usr/lib/wsl/lib, the first
 * found taken, through the host-file finder (host-files.h: resolved inside DRIVER_FD, regular
 * files every user may read). Capability of each: "wsl". Returns 0 with *RET (free with
 * xpu_host_files_free()), -EINVAL (no wsl data), -ENOMEM. */
int xpu_wsl_files_find(int driver_fd, const struct xpu_vendor_wsl *w, const char *store, struct xpu_host_files **ret);
