/* SPDX-License-Identifier: Apache-2.0 */
/* The vendors: see xpu_vendors[] in probe.h. Adding a vendor is one line here, its constant in
 * enum xpu_vendor and its folder probes/<vendor>/ (docs/architecture.md, "Adding a vendor"). */
#include "probe.h"

const struct xpu_vendor_ops *const xpu_vendors[_XPU_VENDOR_MAX] = {
        [XPU_VENDOR_NVIDIA] = &xpu_vendor_nvidia, /* first: its index order is PCI bus order */
        [XPU_VENDOR_AMD] = &xpu_vendor_amd,       /* then AMD in KFD node order */
        [XPU_VENDOR_INTEL] = &xpu_vendor_intel,   /* then Intel in PCI bus order */
};

const struct xpu_vendor_ops *xpu_vendor(enum xpu_vendor v) {
        return (unsigned)v < _XPU_VENDOR_MAX ? xpu_vendors[v] : NULL;
}
