/* SPDX-License-Identifier: Apache-2.0 */
/* An NVIDIA GPU's own facts (nvidia-facts.h) in the device views: the members of its inventory
 * JSON object, its `xpuinit probe` line and the lines of its MIG devices. Reached through
 * xpu_vendor_nvidia's facts_json, facts_text and subdevices_text. */
#include <stdio.h>
#include <string.h>

#include "inventory-json.h"
#include "nvidia/nvidia.h"

/* MIG device I of D: {"index", "name": "<gpu index>:<I>", "gpu_instance_id", "compute_instance_id",
 * "uuid"?, "product"?, "memory_total_bytes"?, "device_nodes": [the capability nodes]}. */
static cJSON *mig_to_json(const struct xpu_device *d, size_t i) {
        const struct xpu_mig_device *m = &xpu_nvidia_facts(d)->mig[i];
        char name[32];
        snprintf(name, sizeof name, "%u:%zu", d->vendor_index, i);
        cJSON *o = cJSON_CreateObject();
        bool ok = o && xpu_json_add_num(o, "index", (double)i) && xpu_json_add_str(o, "name", name) &&
                  xpu_json_add_num(o, "gpu_instance_id", m->gi) && xpu_json_add_num(o, "compute_instance_id", m->ci) &&
                  xpu_json_add_str(o, "uuid", m->uuid) && xpu_json_add_str(o, "product", m->name);
        if (ok && (m->have & XPU_MIG_HAVE_MEMORY_TOTAL))
                ok = xpu_json_add_num(o, "memory_total_bytes", (double)m->memory_total_bytes);
        if (ok) {
                struct xpu_devnode caps[2];
                size_t n = 0;
                if (m->have & XPU_MIG_HAVE_CAPS) {
                        caps[n++] = m->gi_cap;
                        caps[n++] = m->ci_cap;
                }
                cJSON *a = xpu_json_nodes(caps, n);
                ok = a && cJSON_AddItemToObject(o, "device_nodes", a);
                if (!ok)
                        cJSON_Delete(a);
        }
        if (!ok) {
                cJSON_Delete(o);
                return NULL;
        }
        return o;
}

bool xpu_nvidia_facts_json(const struct xpu_device *d, cJSON *o) {
        const struct xpu_nvidia_facts *nv = xpu_nvidia_facts(d);
        bool ok = !(d->have & XPU_HAVE_MINOR) || xpu_json_add_num(o, "minor", nv->minor);
        ok = ok && xpu_json_add_str(o, "compute_capability", nv->compute_capability) &&
             xpu_json_add_str(o, "brand", nv->brand) && xpu_json_add_str(o, "vbios_version", nv->vbios_version) &&
             xpu_json_add_str(o, "bus_type", nv->bus_type) &&
             xpu_json_add_str(o, "gsp_firmware_version", nv->gsp_firmware) &&
             xpu_json_add_str(o, "tegra_soc", nv->tegra_soc) && xpu_json_add_str(o, "l4t_release", nv->l4t_release);
        if (ok && (d->have & XPU_HAVE_MIG_MODE)) {
                ok = cJSON_AddBoolToObject(o, "mig_enabled", xpu_nvidia_facts(d)->mig_enabled) != NULL;
                cJSON *a = ok ? cJSON_AddArrayToObject(o, "mig_devices") : NULL;
                ok = a != NULL;
                for (size_t i = 0; ok && i < xpu_nvidia_facts(d)->n_mig && i < XPU_MIG_DEVICES_MAX; i++) {
                        cJSON *m = mig_to_json(d, i);
                        ok = m && cJSON_AddItemToArray(a, m);
                        if (!ok)
                                cJSON_Delete(m);
                }
        }
        if (ok && (d->have & XPU_HAVE_IRQ))
                ok = xpu_json_add_num(o, "irq", xpu_nvidia_facts(d)->irq);
        if (ok && (d->have & XPU_HAVE_EXCLUDED))
                ok = cJSON_AddBoolToObject(o, "excluded", xpu_nvidia_facts(d)->excluded) != NULL;
        /* Grace Hopper and Grace Blackwell (nvidia-numa.h): each only when known. */
        if (ok && nv->memory_numa_known)
                ok = xpu_json_add_num(o, "memory_numa_node", nv->memory_numa_node) &&
                     xpu_json_add_str(o, "memory_numa_node_source", xpu_source_to_string(nv->memory_numa_source));
        if (ok && nv->memory_coherent[0])
                ok = cJSON_AddBoolToObject(o, "memory_coherent", strcmp(nv->memory_coherent, "true") == 0) != NULL;
        if (ok)
                ok = xpu_json_add_str(o, "addressing_mode", nv->addressing_mode);
        return ok;
}

void xpu_nvidia_facts_text(const struct xpu_device *d, FILE *f) {
        if (xpu_nvidia_facts(d)->compute_capability[0])
                fprintf(f, "  cc %s", xpu_nvidia_facts(d)->compute_capability);
        if (xpu_nvidia_facts(d)->brand[0])
                fprintf(f, "  brand %s", xpu_nvidia_facts(d)->brand);
        if (xpu_nvidia_facts(d)->l4t_release[0])
                fprintf(f, "  %s L4T %s", xpu_nvidia_facts(d)->tegra_soc[0] ? xpu_nvidia_facts(d)->tegra_soc : "tegra", xpu_nvidia_facts(d)->l4t_release);
        if ((d->have & XPU_HAVE_MIG_MODE) && xpu_nvidia_facts(d)->mig_enabled)
                fprintf(f, "  MIG on (%zu)", xpu_nvidia_facts(d)->n_mig);
        if (xpu_nvidia_facts(d)->memory_numa_known)
                fprintf(f, "  memory on NUMA node %u", xpu_nvidia_facts(d)->memory_numa_node);
        if (strcmp(xpu_nvidia_facts(d)->memory_coherent, "true") == 0)
                fprintf(f, " (coherent)");
}

void xpu_nvidia_subdevices_text(const struct xpu_device *d, FILE *f) {
        char mem[32];
        for (size_t m = 0; m < xpu_nvidia_facts(d)->n_mig; m++) {
                const struct xpu_mig_device *g = &xpu_nvidia_facts(d)->mig[m];
                fprintf(f, "    MIG %u:%zu  gi %u ci %u  %s", d->vendor_index, m, g->gi, g->ci,
                        g->uuid[0] ? g->uuid : "-");
                if (g->name[0])
                        fprintf(f, "  %s", g->name);
                if (g->have & XPU_MIG_HAVE_MEMORY_TOTAL) {
                        xpu_format_bytes(g->memory_total_bytes, mem, sizeof mem);
                        fprintf(f, "  %s", mem);
                }
                if (g->have & XPU_MIG_HAVE_CAPS)
                        fprintf(f, "  %s%s  %s%s", g->gi_cap.path, g->gi_cap.present ? "" : " (absent)",
                                g->ci_cap.path, g->ci_cap.present ? "" : " (absent)");
                fputc('\n', f);
        }
}
