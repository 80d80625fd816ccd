/* SPDX-License-Identifier: Apache-2.0 */
/* The vendors: see xpu_vendors[] in vendor.h. Adding a vendor is one line here, its constant in
 * enum xpu_vendor and its folder probes/<vendor>/ (docs/architecture.md, "Adding a vendor"). */
#include "vendor.h"

#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>

#include "base/str.h"

/* Each vendor's descriptor, defined in probes/<vendor>/<vendor>.c: declared here, with the one list,
 * so that no vendor-neutral header names a vendor. */
extern const struct xpu_vendor_ops xpu_vendor_nvidia, xpu_vendor_amd, xpu_vendor_intel;

const struct xpu_vendor_ops *const xpu_vendors[_XPU_VENDOR_MAX] = {
        [XPU_VENDOR_NVIDIA] = &xpu_vendor_nvidia, /* first: its index order is PCI bus order */
        [XPU_VENDOR_AMD] = &xpu_vendor_amd,       /* then AMD in KFD node order */
        [XPU_VENDOR_INTEL] = &xpu_vendor_intel,   /* then Intel in PCI bus order */
};

const struct xpu_vendor_ops *xpu_vendor(enum xpu_vendor v) {
        return (unsigned)v < _XPU_VENDOR_MAX ? xpu_vendors[v] : NULL;
}

enum xpu_vendor xpu_vendor_cuda(void) {
        for (int v = 0; v < _XPU_VENDOR_MAX; v++)
                if (xpu_vendors[v]->probe.cuda_driver)
                        return (enum xpu_vendor)v;
        return _XPU_VENDOR_MAX;
}

const struct xpu_vendor_ops *xpu_mig_vendor(void) {
        for (int v = 0; v < _XPU_VENDOR_MAX; v++)
                if (xpu_vendors[v]->mig.config_variable)
                        return xpu_vendors[v];
        return NULL;
}

const char *xpu_capabilities_variable(void) {
        for (int v = 0; v < _XPU_VENDOR_MAX; v++)
                if (xpu_vendors[v]->plan.capabilities_variable)
                        return xpu_vendors[v]->plan.capabilities_variable;
        return "XPU_DRIVER_CAPABILITIES";
}

const char *xpu_inventory_cuda_driver_version(const struct xpu_inventory *inv) {
        const enum xpu_vendor v = xpu_vendor_cuda();
        return v < _XPU_VENDOR_MAX ? inv->vendors[v].cuda_driver_version : "";
}

const char *xpu_vendor_to_string(enum xpu_vendor v) {
        const struct xpu_vendor_ops *vo = xpu_vendor(v);
        return vo ? vo->name : NULL;
}

const char *xpu_vendor_display_name(enum xpu_vendor v) {
        const struct xpu_vendor_ops *vo = xpu_vendor(v);
        return vo ? vo->display_name : NULL;
}

int xpu_vendor_from_string(const char *s) {
        for (int v = 0; s && v < _XPU_VENDOR_MAX; v++)
                if (strcasecmp(s, xpu_vendors[v]->name) == 0)
                        return v;
        return -EINVAL;
}

const char *xpu_fact_label_value(const struct xpu_fact_label *table, const struct xpu_device *d, const char *label) {
        for (const struct xpu_fact_label *l = table; l && l->label; l++)
                if (strcmp(l->label, label) == 0)
                        return (const char *)d + l->offset;
        return "";
}

/* The two walks through the list that probe.h declares: the fast path of every vendor, and a
 * device's MIG devices through its vendor's hook. */
int xpu_inventory_probe(const struct xpu_roots *roots, struct xpu_inventory **ret) {
        struct xpu_inventory *inv = xpu_inventory_new();
        if (!inv)
                return -ENOMEM;
        /* The kernel release only means something for the real host. */
        struct utsname u;
        if (strcmp(roots->sys, "/") == 0 && uname(&u) == 0)
                xpu_strlcpy(inv->kernel, u.release, sizeof inv->kernel);

        for (size_t b = 0; b < _XPU_VENDOR_MAX; b++) {
                int r = xpu_vendors[b]->probe.fast(roots, inv);
                if (r < 0) {
                        xpu_inventory_free(inv);
                        return r;
                }
        }
        /* WSL2: the vendors' fast paths found nothing of theirs; /dev/dxg and the driver store say */
        const struct xpu_vendor_wsl *wsl[_XPU_VENDOR_MAX];
        for (size_t v = 0; v < _XPU_VENDOR_MAX; v++)
                wsl[v] = xpu_vendors[v]->wsl;
        int r = xpu_wsl_probe(roots, inv, wsl);
        if (r < 0) {
                xpu_inventory_free(inv);
                return r;
        }
        for (size_t i = 0; i < inv->n_devices; i++)
                inv->devices[i].index = (unsigned)i;
        r = xpu_inventory_driver_root_facts(roots, inv);
        if (r < 0) {
                xpu_inventory_free(inv);
                return r;
        }
        *ret = inv;
        return 0;
}

int xpu_inventory_driver_root_facts(const struct xpu_roots *roots, struct xpu_inventory *inv) {
        for (size_t b = 0; b < _XPU_VENDOR_MAX; b++) {
                int r = xpu_vendors[b]->probe.driver_root ? xpu_vendors[b]->probe.driver_root(roots, inv) : 0;
                if (r < 0)
                        return r;
        }
        return 0;
}

const struct xpu_mig_device *xpu_mig_devices(const struct xpu_device *d, size_t *n) {
        const struct xpu_vendor_ops *ops = d ? xpu_vendor(d->vendor) : NULL;
        *n = 0;
        const struct xpu_mig_device *m = ops && ops->mig.devices ? ops->mig.devices(d, n) : NULL;
        if (!m)
                *n = 0;
        return *n ? m : NULL;
}
