/* SPDX-License-Identifier: Apache-2.0 */
/* PCI bus ids: one parser and one formatter for every source (procfs directory names and
 * "Bus Location" lines, sysfs links and PCI_SLOT_NAME, NVML, the CUDA driver API, ROCm SMI,
 * user input), so that ids are compared as numbers and printed in one canonical form.
 *
 * Spellings met in the wild (real hosts' captures, tests/fixtures/README.md): the kernel's
 * "%04x:%02x:%02x.%x" ("0000:1a:00.0", and "3f8cfdd:00:00.0" for a Hyper-V/Azure 32-bit domain), nvidia-smi's and NVML's "00000000:1A:00.0" (8-digit domain, upper
 * case), NVML's legacy "0000:1A:00.0", rocm-smi's "0000:A3:00.0", and "1a:00.0" without a domain.
 *
 * Canonical form (what every probe stores and every output prints): lower-case hex, domain
 * zero-padded to 4 digits, or to 8 when it needs more than 4 ("0000:3b:00.0",
 * "001a2b3c:00:00.0"), bus 2 digits, device 2 digits, function 1 digit. Silent: returns -errno. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest canonical form, "ffffffff:ff:1f.7", with its NUL (and room to spare). */
#define XPU_PCI_BUS_ID_MAX 20

/* A PCI function's address as numbers. */
struct xpu_pci_bus_id {
        uint32_t domain;  /* PCI segment: 16 bits on bare metal, up to 32 under Hyper-V */
        uint8_t bus;      /* 0..0xff */
        uint8_t device;   /* 0..0x1f (5 bits of devfn) */
        uint8_t function; /* 0..7 (3 bits of devfn) */
};

/* Parse "[domain:]bus:device.function": hex digits of any case, domain 1-8 digits (missing = 0),
 * bus 1-2, device 1-2 (at most 0x1f), function 1 digit (at most 7); white space around the whole
 * id is allowed. Returns 0 and fills *RET, or -EINVAL (nothing written). */
int xpu_pci_bus_id_parse(const char *in, struct xpu_pci_bus_id *ret);

/* Write ID in the canonical form into OUT. Device and function are masked to their 5 and 3 bits. */
void xpu_pci_bus_id_format(const struct xpu_pci_bus_id *id, char out[XPU_PCI_BUS_ID_MAX]);

/* xpu_pci_bus_id_parse() then xpu_pci_bus_id_format(): any spelling into the canonical form.
 * Returns 0, or -EINVAL (OUT untouched). */
int xpu_pci_bus_id_normalize(const char *in, char out[XPU_PCI_BUS_ID_MAX]);

/* Numeric order: domain, then bus, device, function. Returns <0, 0 or >0 as strcmp does. */
int xpu_pci_bus_id_compare(const struct xpu_pci_bus_id *a, const struct xpu_pci_bus_id *b);

/* Do the ids A and B, in any spelling, name the same function (compared as numbers)? False when
 * either is NULL, empty or does not parse. */
bool xpu_pci_bus_id_equal(const char *a, const char *b);

/* The sysfs path of the PCI function BUS_ID (any spelling): "/sys/bus/pci/devices/<name>", with
 * "/LEAF" appended when LEAF is not NULL. <name> is the kernel's own spelling
 * ("%04x:%02x:%02x.%x", drivers/pci/probe.c pci_setup_device), which differs from the canonical
 * form for a domain of 5-7 digits ("3f8cfdd:00:00.0"): a path, never printed as an id. Returns 0,
 * -EINVAL (BUS_ID does not parse) or -ENAMETOOLONG (SIZE too small). */
int xpu_pci_sysfs_path(const char *bus_id, const char *leaf, char *out, size_t size);
