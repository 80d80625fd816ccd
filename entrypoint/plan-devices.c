/* SPDX-License-Identifier: Apache-2.0 */
/* The plan's device nodes: each checked against the host's, its group (as gathered) added to the
 * workload's, and the MIG devices' and host-wide MIG capabilities' nodes: plan-devices.h. */
#include "plan-devices.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "base/macro.h"
#include "base/strv.h"
#include "device-targets.h"
#include "plan.h"
#include "vendor.h"

static int add_group_of(struct xpu_plan *p, const struct xpu_plan_facts *facts, const char *path) {
        const struct xpu_node_fact *nf = xpu_plan_facts_node(facts, path);
        if (!nf || !nf->found)
                return 0; /* the check op reports a missing node */
        if (nf->gid == 0)
                return 0; /* never hand out the root group */
        for (size_t i = 0; i < p->n_groups; i++)
                if (p->groups[i] == nf->gid)
                        return 0;
        gid_t *n = reallocarray(p->groups, p->n_groups + 1, sizeof *n);
        if (!n)
                return -ENOMEM;
        p->groups = n;
        n[p->n_groups] = nf->gid;
        if (xpu_strv_push(&p->groups_from, path) < 0)
                return -ENOMEM;
        p->n_groups++;
        return 0;
}

int xpu_plan_node_check(struct xpu_plan *p, const struct xpu_devnode *node, const struct xpu_plan_facts *facts) {
        for (size_t i = 0; i < p->n_ops; i++)
                if (p->ops[i].type == XPU_OP_CHECK_DEVNODE && strcmp(p->ops[i].path, node->path) == 0)
                        return 0;
        struct xpu_op *op = xpu_plan_add_op(p, XPU_OP_CHECK_DEVNODE, node->path);
        if (!op)
                return -ENOMEM;
        op->major = node->major;
        op->minor = node->minor;
        op->have_major = node->have_major;
        op->any_number = node->any_number;
        op->optional = node->optional;
        return add_group_of(p, facts, node->path);
}

/* What the plan says about the MIG devices of the selection: their capability nodes are checked
 * like the GPU's own; a GPU in MIG mode given whole gives CUDA none of its MIG devices; CUDA uses
 * one MIG device per process. Returns 0 or -ENOMEM. */
int xpu_plan_mig(struct xpu_plan *p, const struct xpu_inventory *inv, const struct xpu_selection *sel,
                 const struct xpu_plan_facts *facts) {
        size_t n_mig = 0;
        const char *first = NULL;
        char first_buf[96] = "";
        for (size_t k = 0; k < p->n_devices; k++) {
                const struct xpu_device *d = &inv->devices[p->devices[k]];
                uint32_t mig = sel->mig[p->devices[k]];
                const char *partition = xpu_device_partition(d); /* "mig": MIG mode on */
                size_t n_migs; /* D's; N_MIG counts the selected ones */
                const struct xpu_mig_device *migs = xpu_mig_devices(d, &n_migs);
                if (!mig && partition && strcmp(partition, "mig") == 0 &&
                    xpu_plan_warning(p, "GPU %u (%s) is in MIG mode and given whole: CUDA sees none of its MIG devices%s%s",
                            d->vendor_index, d->uuid[0] ? d->uuid : d->pci_bus_id,
                            n_migs ? "; select them (" : "", n_migs ? "<gpu>:<mig>, MIG-<uuid>)" : "") < 0)
                        return -ENOMEM;
                for (size_t m = 0; m < n_migs; m++) {
                        if (!(mig & (1u << m)))
                                continue;
                        const struct xpu_mig_device *g = &migs[m];
                        if (xpu_plan_node_check(p, &g->gi_cap, facts) < 0 ||
                            xpu_plan_node_check(p, &g->ci_cap, facts) < 0)
                                return -ENOMEM;
                        if (n_mig++ == 0) {
                                snprintf(first_buf, sizeof first_buf, "%u:%zu", d->vendor_index, m);
                                first = first_buf;
                        }
                        if (!g->uuid[0] && !d->uuid[0] &&
                            xpu_plan_warning(p, "MIG device %u:%zu: neither its UUID nor its GPU's is known; "
                                       "CUDA_VISIBLE_DEVICES cannot name it", d->vendor_index, m) < 0)
                                return -ENOMEM;
                }
        }
        if (n_mig > 1 && xpu_plan_warning(p, "%zu MIG devices selected: CUDA uses one MIG device per process (the first "
                                    "listed in CUDA_VISIBLE_DEVICES, %s); start one process per MIG device",
                                 n_mig, first) < 0)
                return -ENOMEM;
        return 0;
}

/* The host-wide MIG capabilities asked for (NVIDIA_MIG_CONFIG_DEVICES / _MONITOR_DEVICES=all):
 * their nodes checked like every other, or an error when the host has none to give. */
int xpu_plan_mig_caps(struct xpu_plan *p, const struct xpu_vendor_info *vi, const struct xpu_selection *sel,
                      const struct xpu_plan_facts *facts, char *err, size_t err_size) {
        /* The variables and the capability directory of the vendor whose MIG variables were read. */
        const struct xpu_vendor_mig *mv = xpu_mig_vendor() ? &xpu_mig_vendor()->mig : NULL;
        const struct {
                bool wanted;
                const struct xpu_devnode *node;
                const char *what, *var;
        } caps[] = {
                { sel->mig_config, vi ? &vi->mig_config_cap : NULL, "config", mv ? mv->config_variable : "" },
                { sel->mig_monitor, vi ? &vi->mig_monitor_cap : NULL, "monitor", mv ? mv->monitor_variable : "" },
        };
        for (size_t i = 0; i < ELEMENTSOF(caps); i++) {
                if (!caps[i].wanted)
                        continue;
                if (p->n_devices == 0) {
                        if (xpu_plan_note(p, "the MIG %s capability was asked for, but no GPU is selected: not given",
                                          caps[i].what) < 0)
                                return -ENOMEM;
                        continue;
                }
                if (!caps[i].node || !caps[i].node->path[0]) {
                        xpu_format_error(err, err_size, "the MIG %s capability was asked for (%s=all), "
                                         "but this host offers none (no usable %s/mig/%s: "
                                         "missing, or refused with a probe warning): it needs a MIG-capable GPU and "
                                         "driver; unset the variable",
                                         caps[i].what, caps[i].var, mv && mv->caps_dir ? mv->caps_dir : "", caps[i].what);
                        return -ENOENT;
                }
                if (xpu_plan_node_check(p, caps[i].node, facts) < 0 ||
                    xpu_plan_note(p, "the MIG %s capability is given: %s", caps[i].what, caps[i].node->path) < 0)
                        return -ENOMEM;
        }
        return 0;
}

