/* SPDX-License-Identifier: Apache-2.0 */
/* The PCIe link of a GPU, vendor-neutral, from the kernel's PCI sysfs attributes of its PCI
 * function, /sys/bus/pci/devices/<bus id>/ (drivers/pci/pci-sysfs.c, read from the Link Status
 * and Link Capabilities registers at each read):
 *   current_link_width, max_link_width   "%u": lanes (1, 2, 4, 8, 16, 32; 0 when the link is
 *                                        down)
 *   current_link_speed, max_link_speed   "2.5 GT/s PCIe" ... "64.0 GT/s PCIe" (Linux 4.19 and
 *                                        later, pci_speed_string()), "8 GT/s" and "2.5 GT/s"
 *                                        before; "Unknown" (or "Unknown speed") when the register
 *                                        holds no known code
 * into xpu_readings.pcie_link_width[] (lanes) and pcie_link_speed[] (transfers per second). Each
 * pair is kept only whole (current and maximum), so the two are always comparable. A function
 * without the files (no PCIe capability, a paravirtual bus) leaves the pair out quietly; a file
 * that is there but odd leaves it out with one inventory warning naming the file. Nothing here
 * logs. */
#pragma once

#include <stdint.h>

#include "probe.h"
#include "readings.h"

/* Widest link PCIe defines (x32), lanes. */
#define XPU_PCIE_WIDTH_MAX 32u

/* Parse a link speed attribute: "<number> GT/s" with an optional " PCIe" after it, the number
 * decimal with at most one fractional digit ("2.5", "16.0", "8"), above 0 and at most 1000.
 * *RET_TPS = transfers per second (16.0 GT/s = 16000000000). Returns 0, -ENODATA for
 * "Unknown"/"Unknown speed" (the link's speed code is not one the kernel knows), -EINVAL for
 * anything else. */
int xpu_pcie_parse_link_speed(const char *text, uint64_t *ret_tps);

/* Read the PCIe link of the PCI function BUS_ID (canonical, base/pci.h) below SYS_FD (the sys
 * root) into R: sets XPU_READ_PCIE_WIDTH with pcie_link_width[], XPU_READ_PCIE_SPEED with
 * pcie_link_speed[], each when both of its files read well; leaves the rest of R alone. Odd
 * files become warnings in INV. Returns 0 (also when nothing was found) or -ENOMEM. */
int xpu_pcie_link_read(int sys_fd, const char *bus_id, struct xpu_inventory *inv, struct xpu_readings *r);
