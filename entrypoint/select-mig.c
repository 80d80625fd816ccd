/* SPDX-License-Identifier: Apache-2.0 */
/* MIG devices in selection entries, the NVIDIA Container Toolkit's forms (select.h): matched,
 * listed in messages, and looked for before NVML is read. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/macro.h"
#include "base/str.h"
#include "device-targets.h"
#include "select-mig.h"
#include "vendor.h"

/* "; MIG devices: 0:0 (MIG-... gi 3 ci 0), ..." of the in-scope devices, or "; no MIG devices". */
static void list_migs(struct out *o, const struct var_rules *r, const struct xpu_inventory *inv) {
        size_t shown = 0;
        for (size_t i = 0; i < inv->n_devices; i++) {
                const struct xpu_device *d = &inv->devices[i];
                size_t n_mig;
                const struct xpu_mig_device *migs = xpu_mig_devices(d, &n_mig);
                for (size_t m = 0; xpu_sel_in_scope(r, d) && m < n_mig; m++) {
                        const struct xpu_mig_device *g = &migs[m];
                        xpu_sel_out_add(o, "%s%u:%zu (%s%sgi %u ci %u%s)", shown++ ? ", " : "; MIG devices: ",
                                r->global_index ? d->index : d->vendor_index, m, g->uuid, g->uuid[0] ? " " : "",
                                g->gi, g->ci, xpu_mig_available(d, m) ? "" : " not given to this container");
                }
        }
        if (shown == 0)
                xpu_sel_out_add(o, "; no MIG devices");
}

/* The error line, with the MIG devices of INV (NULL: without) listed. */
_printf_(5, 6) static int mig_fail(char *err, size_t err_size, const struct var_rules *r,
                                   const struct xpu_inventory *inv, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int e = xpu_sel_fail_list(err, err_size, r, inv, list_migs, fmt, ap);
        va_end(ap);
        return e;
}

/* Why device D has no MIG device, for a message (BUF: room for it). */
static const char *no_mig_reason(const struct xpu_device *d, char *buf, size_t size) {
        const char *partition = xpu_device_partition(d); /* "mig", "none", NULL: unknown */
        if (partition && strcmp(partition, "mig") == 0)
                return "MIG mode is on but no compute instance exists";
        if (d->have & XPU_HAVE_MIG_MODE)
                return "MIG mode is off";
        const char *v = xpu_vendor_display_name(d->vendor);
        /* The driver that lists them: the vendor whose MIG variables are read (xpu_mig_vendor()). */
        const struct xpu_vendor_ops *mo = xpu_mig_vendor();
        if (mo && mo->mig.caps_dir)
                snprintf(buf, size, "no MIG instance is listed for this %s GPU; %s's driver lists them under %s",
                         v ? v : "", mo->display_name, mo->mig.caps_dir);
        else
                snprintf(buf, size, "no MIG instance is listed for this %s GPU", v ? v : "");
        return buf;
}

/* Why the rich path gave no MIG UUIDs: the rich_note of the vendor whose rich path reports them
 * (xpu_vendor_ops.mig.rich_uuids), "" when it has none. */
static const char *mig_rich_note(const struct xpu_inventory *inv) {
        for (int v = 0; v < _XPU_VENDOR_MAX; v++)
                if (xpu_vendors[v]->mig.rich_uuids)
                        return inv->vendors[v].rich_note;
        return "";
}

/* The MIG device E names, when E has a MIG form: "<gpu>:<mig>", "MIG-GPU-<uuid>/<gi>/<ci>" or
 * "MIG-<uuid>" (the NVIDIA Container Toolkit's forms, libnvidia-container src/cli/common.c).
 * Returns 1 with *DEV_I and *MIG set, 0 when E is no MIG form, -EINVAL with ERR naming why when it
 * is one but names no MIG device given to this container. */
int xpu_sel_match_mig(const struct var_rules *r, const struct xpu_inventory *inv, const char *e, const char *entry,
                     size_t *dev_i, size_t *mig, char *err, size_t err_size) {
        const char *colon = strchr(e, ':');
        const struct xpu_device *d = NULL;
        const struct xpu_mig_device *g = NULL;

        if (colon && xpu_sel_all_digits(e, (size_t)(colon - e)) && xpu_sel_all_digits(colon + 1, strlen(colon + 1))) {
                char num[24];
                uint64_t gpu, m;
                if ((size_t)(colon - e) >= sizeof num)
                        return mig_fail(err, err_size, r, inv, "no MIG device \"%s\"", entry);
                memcpy(num, e, (size_t)(colon - e));
                num[colon - e] = '\0';
                if (xpu_parse_u64(num, 10, &gpu) < 0 || xpu_parse_u64(colon + 1, 10, &m) < 0)
                        return mig_fail(err, err_size, r, inv, "no MIG device \"%s\"", entry);
                for (size_t i = 0; i < inv->n_devices && !d; i++)
                        if (xpu_sel_in_scope(r, &inv->devices[i]) &&
                            (r->global_index ? inv->devices[i].index : inv->devices[i].vendor_index) == gpu)
                                d = &inv->devices[i];
                if (!d)
                        return xpu_sel_fail(err, err_size, r, inv, "\"%s\": no device %" PRIu64, entry, gpu);
                char why[160];
                size_t n_mig;
                const struct xpu_mig_device *migs = xpu_mig_devices(d, &n_mig);
                if (n_mig == 0)
                        return xpu_sel_fail(err, err_size, r, NULL, "\"%s\": device %" PRIu64 " has no MIG device (%s); "
                                        "name the whole device as %" PRIu64, entry, gpu,
                                        no_mig_reason(d, why, sizeof why), gpu);
                if (m >= n_mig)
                        return mig_fail(err, err_size, r, inv, "\"%s\": device %" PRIu64 " has MIG devices %" PRIu64
                                        ":0 to %" PRIu64 ":%zu", entry, gpu, gpu, gpu, n_mig - 1);
                g = &migs[m];
        } else if (strncasecmp(e, "MIG-GPU-", 8) == 0) {
                /* "MIG-GPU-<uuid>/<gi>/<ci>": the parent's UUID and the instance ids. */
                const char *s1 = strchr(e, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
                char parent[64], gi_s[8], ci_s[8];
                uint64_t gi, ci;
                size_t plen = s1 ? (size_t)(s1 - e) - 4 : 0, glen = s2 ? (size_t)(s2 - s1 - 1) : 0;
                if (!s2 || plen >= sizeof parent || glen >= sizeof gi_s || strlen(s2 + 1) >= sizeof ci_s ||
                    !xpu_sel_all_digits(s1 + 1, glen) || !xpu_sel_all_digits(s2 + 1, strlen(s2 + 1)))
                        return mig_fail(err, err_size, r, NULL, "\"%s\": not a MIG device name "
                                        "(MIG-GPU-<gpu uuid>/<gpu instance>/<compute instance>)", entry);
                memcpy(parent, e + 4, plen);
                parent[plen] = '\0';
                memcpy(gi_s, s1 + 1, glen);
                gi_s[glen] = '\0';
                if (xpu_parse_u64(gi_s, 10, &gi) < 0 || xpu_parse_u64(s2 + 1, 10, &ci) < 0 || gi > UINT32_MAX ||
                    ci > UINT32_MAX)
                        return mig_fail(err, err_size, r, inv, "no MIG device \"%s\"", entry);
                for (size_t i = 0; i < inv->n_devices && !d; i++)
                        if (xpu_sel_in_scope(r, &inv->devices[i]) && strcasecmp(inv->devices[i].uuid, parent) == 0)
                                d = &inv->devices[i];
                if (!d)
                        return xpu_sel_fail(err, err_size, r, inv, "\"%s\": no device %s", entry, parent);
                g = xpu_device_find_mig(d, (uint32_t)gi, (uint32_t)ci);
                if (!g)
                        return mig_fail(err, err_size, r, inv, "\"%s\": %s has no GPU instance %" PRIu64
                                        " with compute instance %" PRIu64, entry, parent, gi, ci);
        } else if (strncasecmp(e, "MIG-", 4) == 0) {
                bool uuids = false;
                for (size_t i = 0; i < inv->n_devices && !g; i++) {
                        const struct xpu_device *c = &inv->devices[i];
                        size_t n_mig;
                        const struct xpu_mig_device *migs = xpu_mig_devices(c, &n_mig);
                        for (size_t m = 0; xpu_sel_in_scope(r, c) && m < n_mig && !g; m++) {
                                uuids |= migs[m].uuid[0] != '\0';
                                if (strcasecmp(migs[m].uuid, e) == 0) {
                                        d = c;
                                        g = &migs[m];
                                }
                        }
                }
                if (!g && !uuids) {
                        const char *note = mig_rich_note(inv);
                        return mig_fail(err, err_size, r, inv, "\"%s\": MIG UUIDs come from NVML, which %s%s%s; "
                                        "name the MIG device as <gpu>:<mig> or MIG-GPU-<gpu uuid>/<gi>/<ci>",
                                        entry, note[0] ? "could not tell (" : "gave none here (its MIG calls failed or "
                                        "there is no MIG device)", note, note[0] ? ")" : "");
                }
                if (!g)
                        return mig_fail(err, err_size, r, inv, "no MIG device \"%s\"", entry);
        } else
                return 0;

        *dev_i = (size_t)(d - inv->devices);
        size_t n_mig;
        *mig = (size_t)(g - xpu_mig_devices(d, &n_mig));
        if (!xpu_mig_available(d, *mig)) {
                const char *missing = !xpu_device_available(d) ? xpu_sel_missing_node(d)
                                      : !(g->have & XPU_MIG_HAVE_CAPS) ? NULL
                                      : !g->gi_cap.present ? g->gi_cap.path
                                                           : g->ci_cap.path;
                struct out o = { .buf = err, .size = err_size };
                if (err && err_size) {
                        err[0] = '\0';
                        xpu_sel_out_add(&o, "%s: \"%s\" names MIG device %u:%zu (GPU instance %u, compute instance %u of %s), ",
                                r->name, entry, r->global_index ? d->index : d->vendor_index, *mig, g->gi, g->ci,
                                d->uuid[0] ? d->uuid : d->pci_bus_id);
                        if (missing)
                                xpu_sel_out_add(&o, "which the container runtime did not give to this container (%s is "
                                            "missing); ask the runtime for it or leave it out", missing);
                        else {
                                /* D has MIG devices, so its vendor's MIG group names the directory of
                                 * its capabilities (xpu_mig_devices()). */
                                const struct xpu_vendor_mig *mv = &xpu_vendor(d->vendor)->mig;
                                char gpu[24] = "";
                                if (mv->caps_gpu)
                                        mv->caps_gpu(d, gpu, sizeof gpu);
                                xpu_sel_out_add(&o, "whose capability nodes are unknown (no %s/%s/mig here); mount the "
                                            "host's %s", mv->caps_dir ? mv->caps_dir : "", gpu,
                                            mv->proc_dir ? mv->proc_dir : "");
                        }
                }
                return -EINVAL;
        }
        return 1;
}
