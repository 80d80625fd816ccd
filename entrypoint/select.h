/* SPDX-License-Identifier: Apache-2.0 */
/* Device selection (design §4): XPU_VISIBLE_DEVICES, else the NVIDIA Container Toolkit's
 * NVIDIA_VISIBLE_DEVICES and AMD's AMD_VISIBLE_DEVICES. Selection narrows what the container
 * runtime gave (devices whose nodes are present); it never widens it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probe.h"

/* What the environment asked of one vendor. */
enum xpu_request {
        XPU_REQUEST_DEFAULT = 0, /* nothing said: every available device of the vendor */
        XPU_REQUEST_ALL,         /* "all" */
        XPU_REQUEST_LIST,        /* an explicit list */
        XPU_REQUEST_NONE,        /* "none": no device of this vendor */
        XPU_REQUEST_VOID,        /* "void" or empty: as if the variable were absent for injection:
                                  * no device and no vendor files */
};

struct xpu_selection {
        bool *selected; /* one flag per inventory device (inv->n_devices) */
        size_t n;
        enum xpu_request request[_XPU_VENDOR_MAX];
        const char *source[_XPU_VENDOR_MAX]; /* variable that decided, or "default" (static strings) */
};

struct xpu_selection *xpu_selection_free(struct xpu_selection *s);

/* Build the selection for INV from the values of XPU_VISIBLE_DEVICES, NVIDIA_VISIBLE_DEVICES and
 * AMD_VISIBLE_DEVICES (NULL = unset). XPU_VISIBLE_DEVICES, when set, decides for all vendors;
 * entries are xpuinit indices, UUIDs, PCI bus ids (any spelling), or "vendor:index".
 * NVIDIA_VISIBLE_DEVICES: all, none, void/empty, or a list of nvidia-smi indices, GPU-UUIDs and
 * PCI bus ids. AMD_VISIBLE_DEVICES: all, none, a list of indices, ranges "0-3", UUIDs
 * ("GPU-<hex>" or the unique id "0x<hex>") and PCI bus ids.
 * "all" and the default select only available devices (xpu_device_available()); an explicit
 * entry naming an unavailable device is an error, and so is a range with an index no device has
 * ("no amd device 8 in range \"0-9\""). Returns 0, or -EINVAL with ERR holding one line
 * naming the variable, the bad entry and the devices that exist, e.g.
 * "XPU_VISIBLE_DEVICES: no device \"7\"; devices: 0 (nvidia:0 GPU-... 0000:1a:00.0), ...". */
int xpu_selection_parse(const struct xpu_inventory *inv, const char *xpu_visible,
                        const char *nvidia_visible, const char *amd_visible,
                        struct xpu_selection **ret, char *err, size_t err_size);

/* Number of selected devices of VENDOR. */
size_t xpu_selection_count(const struct xpu_selection *s, const struct xpu_inventory *inv,
                           enum xpu_vendor vendor);
