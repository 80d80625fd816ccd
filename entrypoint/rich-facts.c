/* SPDX-License-Identifier: Apache-2.0 */
/* The rich-facts step (rich-facts.h): the vendor-library facts the plan reads, decided and checked. */
#include "rich-facts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/macro.h"
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

/* ---- the placeholders' values ------------------------------------------------------------ */

/* Append ITEM to the comma list *OUT. Returns 0 or -ENOMEM. */
static int list_append(char **out, const char *item) {
        char *n = NULL;
        if (asprintf(&n, "%s%s%s", *out, **out ? "," : "", item) < 0)
                return -ENOMEM;
        free(*out);
        *out = n;
        return 0;
}

/* Comma list of the devices INV->devices[DEVICES[0..N)]: UUID when it names exactly one device, else the vendor
 * index (partitions of one AMD GPU share a UUID). A device whose MIG devices were selected is
 * listed as those MIG devices: NVML's "MIG-<uuid>", else the form CUDA_VISIBLE_DEVICES also takes,
 * "MIG-<gpu uuid>/<gi>/<ci>" (CUDA programming guide, CUDA_VISIBLE_DEVICES); INDICES_ONLY lists
 * the vendor index of each device once. */
static char *visible_ids(const struct xpu_inventory *inv, const struct xpu_selection *sel, const size_t *devices,
                         size_t n, bool indices_only) {
        _cleanup_free_ char *out = strdup("");
        if (!out)
                return NULL;
        for (size_t k = 0; k < n; k++) {
                const struct xpu_device *d = &inv->devices[devices[k]];
                uint32_t mig = sel->mig[devices[k]];
                char item[96];
                size_t same = 0;
                for (size_t j = 0; j < inv->n_devices && d->uuid[0]; j++)
                        same += strcasecmp(inv->devices[j].uuid, d->uuid) == 0;
                size_t n_mig;
                const struct xpu_mig_device *migs = xpu_mig_devices(d, &n_mig);
                for (size_t m = 0; !indices_only && m < n_mig; m++) {
                        if (!(mig & (1u << m)))
                                continue;
                        const struct xpu_mig_device *g = &migs[m];
                        if (g->uuid[0])
                                snprintf(item, sizeof item, "%s", g->uuid);
                        else
                                snprintf(item, sizeof item, "MIG-%s/%u/%u", d->uuid, g->gi, g->ci);
                        if (list_append(&out, item) < 0)
                                return NULL;
                }
                if (mig && !indices_only)
                        continue;
                if (!indices_only && d->uuid[0] && same == 1)
                        snprintf(item, sizeof item, "%s", d->uuid);
                else
                        snprintf(item, sizeof item, "%u", d->vendor_index);
                if (list_append(&out, item) < 0)
                        return NULL;
        }
        return TAKE_PTR(out);
}


int xpu_rich_facts_placeholders(struct xpu_plan_facts *f, const struct xpu_inventory *inv,
                                const struct xpu_selection *sel, const struct xpu_profile *pr,
                                const char *library_dir) {
        /* The devices the plan takes (planner.c): the selected ones of the profile's vendor. */
        _cleanup_free_ size_t *devices = NULL;
        size_t n = 0;
        if (xpu_profile_take_devices(pr, inv, sel->selected, &devices, &n) < 0)
                return -ENOMEM;
        /* The plan's driver version: the kernel driver's, else, when driver files are looked for,
         * the version their names gave (a plan without either fails before its environment). */
        const struct xpu_vendor_info *vi = pr->match_any ? NULL : &inv->vendors[pr->vendor];
        const char *driver = vi && vi->driver_version[0] ? vi->driver_version : f->needs.files ? f->driver_version : "";
        char *v[_XPU_PLACEHOLDER_MAX] = {
                [XPU_PLACEHOLDER_VISIBLE_IDS] = visible_ids(inv, sel, devices, n, false),
                [XPU_PLACEHOLDER_VISIBLE_INDICES] = visible_ids(inv, sel, devices, n, true),
                [XPU_PLACEHOLDER_DRIVER_VERSION] = strdup(driver),
                [XPU_PLACEHOLDER_LIBRARY_DIR] = strdup(library_dir ? library_dir : XPU_DEFAULT_LIBRARY_DIR),
        };
        int r = 0;
        for (int i = 0; i < _XPU_PLACEHOLDER_MAX; i++) {
                if (!v[i])
                        r = -ENOMEM;
                free(f->placeholders[i]);
                f->placeholders[i] = v[i];
        }
        return r;
}
