/* SPDX-License-Identifier: Apache-2.0 */
/* Device names from the PCI ID database (pci.ids, https://pci-ids.ucw.cz), for devices whose
 * kernel driver names none: an AMD GPU without a FRU product_name is named as ROCm SMI names it
 * (rsmi_dev_name_get: product_name, else pci.ids). Nothing here logs. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "probe.h"

/* Where the database is looked for, below a root (the driver root: the host's user-space
 * files), in order: Debian's pci.ids package and pciutils, then hwdata (Fedora, Arch). */
extern const char *const xpu_pci_ids_paths[];

/* The name of PCI device VENDOR:DEVICE in the pci.ids text at PATH below ROOT_FD, into NAME
 * (SIZE bytes). Format: a vendor line "vvvv  Vendor name", then its device lines
 * "\tdddd  Device name" (subsystem lines have two tabs); '#' lines are comments. Returns 1 when
 * found, 0 when the file has no such device, -errno when it cannot be read; a name that is not
 * printable UTF-8 or does not fit counts as not found. Reading stops at the end of VENDOR's
 * block. */
int xpu_pci_ids_name(int root_fd, const char *path, uint16_t vendor, uint16_t device, char *name, size_t size);

/* Give every device of INV that has PCI ids but no name the database's name for it, from the
 * first of xpu_pci_ids_paths below ROOT_FD that exists (one pass over the file per vendor).
 * Sets the device's name_from_pci_ids. Returns the number of devices named, 0 also when no
 * database exists, or -errno. */
int xpu_inventory_name_from_pci_ids(struct xpu_inventory *inv, int root_fd);
