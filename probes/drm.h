/* SPDX-License-Identifier: Apache-2.0 */
/* DRM cards in sysfs, for every vendor whose GPUs are DRM devices (AMD, Intel): which cards there
 * are, their PCI vendor, bound driver and PCI bus id, and their render node. Read through a sys
 * root; nothing here warns or logs: a card that cannot be read is not listed.
 *
 * Files (kernel drivers/gpu/drm/drm_sysfs.c, Documentation/ABI/testing/sysfs-bus-pci):
 *   /sys/class/drm/cardN                   one DRM device; connectors cardN-DP-1 etc. are not cards
 *   /sys/class/drm/cardN/device            -> the PCI device (its name is the PCI bus id)
 *   /sys/class/drm/cardN/device/vendor     "0x8086"
 *   /sys/class/drm/cardN/device/driver     -> .../drivers/<name>
 *   /sys/class/drm/cardN/device/uevent     PCI_SLOT_NAME=<bus id>, when the link is not there
 *   /sys/class/drm/cardN/device/drm/       cardN and renderDM of the same PCI device */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/pci.h"

#define XPU_DRM_CLASS "/sys/class/drm"
#define XPU_DRM_MAJOR 226u             /* fixed char major of the /dev/dri nodes */
#define XPU_DRM_RENDER_MINOR_BASE 128u /* render minors start here (DRM_MINOR_RENDER * 64) */
#define XPU_DRM_NUMBER_LIMIT (1u << 20) /* card, render and directory numbers read stay below this */
#define XPU_DRM_CARDS_MAX 256

struct xpu_drm_card {
        uint32_t n;                      /* N of /sys/class/drm/cardN */
        char bus_id[XPU_PCI_BUS_ID_MAX]; /* canonical form (base/pci.h); "" when unknown */
        char driver[32];                 /* basename of device/driver: "amdgpu", "i915", "xe"; "" unknown */
};

/* The numbers N of the entries "<PREFIX>N" of directory PATH below ROOT_FD (N plain decimal, no
 * leading zero, < XPU_DRM_NUMBER_LIMIT), ascending, into RET (MAX slots). When more exist the
 * lowest MAX are kept and *RET_MORE (may be NULL) is set. Other names ("card0-DP-1", "version",
 * "01") are ignored. Returns the count or -errno of opening PATH. */
int xpu_sysfs_list_numbered(int root_fd, const char *path, const char *prefix, uint32_t *ret, size_t max,
                            bool *ret_more);

/* The cards whose device/vendor is PCI_VENDOR, in card order, into CARDS (MAX slots). A card
 * whose driver link cannot be read is kept with driver ""; DRIVER_OK (NULL: any) decides about
 * a card whose driver is known. *RET_MORE (may be NULL): more cards than MAX (or than
 * XPU_DRM_CARDS_MAX) were there, the lowest-numbered kept. Returns the count. */
size_t xpu_drm_cards_scan(int root_fd, uint16_t pci_vendor, bool (*driver_ok)(const char *driver),
                          struct xpu_drm_card *cards, size_t max, bool *ret_more);

/* The render minor M of card N: the renderDM entry of cardN/device/drm/ (never 128 + N: card and
 * render minors are given out independently). Returns 0, or -ENOENT when the card has none. */
int xpu_drm_card_render_minor(int root_fd, uint32_t n, uint32_t *ret);
