/* SPDX-License-Identifier: Apache-2.0 */
/* The vendors' numbers: one constant per vendor, in the order of xpu_vendors[] (vendor.c), which
 * is also the order devices are numbered in. With xpu_vendors[] the only place outside
 * probes/<vendor>/ that names a vendor (tests/e2e/layout.sh); everything else goes through the
 * vendor's descriptor (struct xpu_vendor_ops, vendor.h). */
#pragma once

enum xpu_vendor {
        XPU_VENDOR_NVIDIA = 0,
        XPU_VENDOR_AMD,
        XPU_VENDOR_INTEL,
        _XPU_VENDOR_MAX,
};
