/* SPDX-License-Identifier: Apache-2.0 */
/* The rich-facts step (rich-facts.h): the vendor-library facts the plan reads, decided and checked. */
#include "rich-facts.h"

#include <errno.h>

#include "base/str.h"
#include "require.h"
#include "version.h"

uint32_t xpu_rich_facts_sources(const struct xpu_plan_facts *f, const struct xpu_inventory *inv,
                                const struct xpu_profile *pr, const struct xpu_device_code_facts *dc,
                                uint32_t *ret_required) {
        /* forward_compat.require's facts (NVML's brand) only for a newer build: no other start pays for them. */
        uint32_t fc = 0;
        if (f->needs.forward_compat_sources && f->forward_compat > 0 &&
            xpu_forward_compat_newer(f->forward_compat_version, inv->vendors[pr->vendor].driver_version))
                fc = f->needs.forward_compat_sources;
        if (ret_required)
                *ret_required = fc;
        return fc | (dc ? dc->rich_sources : 0);
}

int xpu_rich_facts_forward_compat(struct xpu_plan_facts *f, const struct xpu_inventory *inv,
                                  const struct xpu_selection *sel, const struct xpu_profile *pr) {
        xpu_strlcpy(f->forward_compat_why, "no requirement", sizeof f->forward_compat_why);
        f->forward_compat_require = 1;
        if (f->forward_compat <= 0 || !pr->forward_compat_require)
                return 0;
        f->forward_compat_require = xpu_require_check_selected(pr->forward_compat_require, inv, sel->selected,
                                                               pr->vendor, f->forward_compat_why,
                                                               sizeof f->forward_compat_why);
        return f->forward_compat_require == -ENOMEM ? -ENOMEM : 0;
}
