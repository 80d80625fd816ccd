/* SPDX-License-Identifier: Apache-2.0 */
#include "inventory-json.h"

#include <stdio.h>

static bool add_str(cJSON *o, const char *k, const char *v) {
        return !v || !*v || cJSON_AddStringToObject(o, k, v);
}

static bool add_num(cJSON *o, const char *k, double v) {
        return cJSON_AddNumberToObject(o, k, v) != NULL;
}

static cJSON *nodes_to_json(const struct xpu_devnode *nodes, size_t n) {
        cJSON *a = cJSON_CreateArray();
        for (size_t i = 0; a && i < n; i++) {
                cJSON *s = cJSON_CreateString(nodes[i].path);
                if (!s || !cJSON_AddItemToArray(a, s)) {
                        cJSON_Delete(s);
                        cJSON_Delete(a);
                        return NULL;
                }
        }
        return a;
}

/* MIG device I of D: {"index", "name": "<gpu index>:<I>", "gpu_instance_id", "compute_instance_id",
 * "uuid"?, "product"?, "memory_total_bytes"?, "device_nodes": [the capability nodes]}. */
static cJSON *mig_to_json(const struct xpu_device *d, size_t i) {
        const struct xpu_mig_device *m = &d->mig[i];
        char name[32];
        snprintf(name, sizeof name, "%u:%zu", d->vendor_index, i);
        cJSON *o = cJSON_CreateObject();
        bool ok = o && add_num(o, "index", (double)i) && add_str(o, "name", name) &&
                  add_num(o, "gpu_instance_id", m->gi) && add_num(o, "compute_instance_id", m->ci) &&
                  add_str(o, "uuid", m->uuid) && add_str(o, "product", m->name);
        if (ok && (m->have & XPU_MIG_HAVE_MEMORY_TOTAL))
                ok = add_num(o, "memory_total_bytes", (double)m->memory_total_bytes);
        if (ok) {
                struct xpu_devnode caps[2];
                size_t n = 0;
                if (m->have & XPU_MIG_HAVE_CAPS) {
                        caps[n++] = m->gi_cap;
                        caps[n++] = m->ci_cap;
                }
                cJSON *a = nodes_to_json(caps, n);
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

cJSON *xpu_device_to_json(const struct xpu_device *d) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
                return NULL;
        bool ok = add_num(o, "index", d->index) && add_str(o, "vendor", xpu_vendor_to_string(d->vendor)) &&
                  add_num(o, "vendor_index", d->vendor_index) && add_str(o, "name", d->name) &&
                  add_str(o, "uuid", d->uuid) && add_str(o, "pci_bus_id", d->pci_bus_id);
        char hex[8];
        if (ok && (d->have & XPU_HAVE_PCI_IDS)) {
                snprintf(hex, sizeof hex, "0x%04x", d->pci_vendor_id);
                ok = add_str(o, "pci_vendor_id", hex);
                snprintf(hex, sizeof hex, "0x%04x", d->pci_device_id);
                ok = ok && add_str(o, "pci_device_id", hex);
        }
        if (ok && (d->have & XPU_HAVE_MEMORY_TOTAL))
                ok = add_num(o, "memory_total_bytes", (double)d->memory_total_bytes);
        if (ok && (d->have & XPU_HAVE_MEMORY_USED))
                ok = add_num(o, "memory_used_bytes", (double)d->memory_used_bytes);
        ok = ok && add_str(o, "driver_version", d->driver_version) && add_str(o, "kernel_driver", d->kernel_driver);
        if (ok && d->integrated)
                ok = cJSON_AddBoolToObject(o, "integrated", true) != NULL;
        if (ok && (d->have & XPU_HAVE_TILES))
                ok = add_num(o, "tile_count", d->tile_count);
        if (ok) {
                cJSON *a = nodes_to_json(d->nodes, d->n_nodes);
                ok = a && cJSON_AddItemToObject(o, "device_nodes", a);
                if (!ok)
                        cJSON_Delete(a);
        }
        if (ok && (d->have & XPU_HAVE_MINOR))
                ok = add_num(o, "minor", d->minor);
        ok = ok && add_str(o, "compute_capability", d->compute_capability) && add_str(o, "brand", d->brand) &&
             add_str(o, "vbios_version", d->vbios_version) && add_str(o, "bus_type", d->bus_type) &&
             add_str(o, "gsp_firmware_version", d->gsp_firmware);
        if (ok && (d->have & XPU_HAVE_MIG_MODE)) {
                ok = cJSON_AddBoolToObject(o, "mig_enabled", d->mig_enabled) != NULL;
                cJSON *a = ok ? cJSON_AddArrayToObject(o, "mig_devices") : NULL;
                ok = a != NULL;
                for (size_t i = 0; ok && i < d->n_mig && i < XPU_MIG_DEVICES_MAX; i++) {
                        cJSON *m = mig_to_json(d, i);
                        ok = m && cJSON_AddItemToArray(a, m);
                        if (!ok)
                                cJSON_Delete(m);
                }
        }
        if (ok && (d->have & XPU_HAVE_IRQ))
                ok = add_num(o, "irq", d->irq);
        if (ok && (d->have & XPU_HAVE_EXCLUDED))
                ok = cJSON_AddBoolToObject(o, "excluded", d->excluded) != NULL;
        if (ok && (d->have & XPU_HAVE_GFX_TARGET_VERSION)) {
                ok = add_str(o, "gfx_target", d->gfx_target) &&
                     add_num(o, "gfx_target_version", d->gfx_target_version);
        }
        if (ok && (d->have & XPU_HAVE_RENDER_MINOR))
                ok = add_num(o, "render_minor", d->render_minor);
        if (ok && (d->have & XPU_HAVE_KFD_GPU_ID))
                ok = add_num(o, "kfd_gpu_id", d->kfd_gpu_id);
        if (ok && (d->have & XPU_HAVE_KFD_NODE))
                ok = add_num(o, "kfd_node", d->kfd_node);
        ok = ok && add_str(o, "unique_id", d->unique_id);
        if (ok && (d->have & XPU_HAVE_SIMD_COUNT))
                ok = add_num(o, "simd_count", d->simd_count) && add_num(o, "compute_units", d->compute_units);
        if (ok && (d->have & XPU_HAVE_NUM_XCC))
                ok = add_num(o, "num_xcc", d->num_xcc);
        if (ok && (d->have & XPU_HAVE_PARTITION))
                ok = add_num(o, "partition", d->partition);
        if (ok && d->partition_mode[0])
                ok = add_str(o, "partition_mode", d->partition_mode);
        if (ok && (d->have & XPU_HAVE_CARD))
                ok = add_num(o, "card", d->card);
        if (ok && (d->have & XPU_HAVE_NUMA_NODE))
                ok = add_num(o, "numa_node", d->numa_node);
        ok = ok && add_str(o, "source", xpu_source_to_string(d->source));
        /* "sources": the facts a rich backend filled, each with that backend's name, and a name
         * taken from the PCI ID database ("pci.ids"). */
        cJSON *src = NULL;
        for (int f = 0; ok && f < _XPU_FIELD_MAX; f++) {
                if (!d->field_source[f])
                        continue;
                if (!src)
                        ok = (src = cJSON_AddObjectToObject(o, "sources")) != NULL;
                ok = ok && add_str(src, xpu_field_to_string(f), xpu_source_to_string(xpu_device_field_source(d, f)));
        }
        if (ok && d->name_from_pci_ids && !d->field_source[XPU_FIELD_NAME]) {
                if (!src)
                        ok = (src = cJSON_AddObjectToObject(o, "sources")) != NULL;
                ok = ok && add_str(src, "name", "pci.ids");
        }
        if (!ok) {
                cJSON_Delete(o);
                return NULL;
        }
        return o;
}

static cJSON *vendor_to_json(const struct xpu_vendor_info *vi) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
                return NULL;
        bool ok = cJSON_AddBoolToObject(o, "driver_loaded", vi->driver_loaded) &&
                  add_str(o, "driver_version", vi->driver_version) &&
                  add_str(o, "kernel_module", vi->driver_flavor) &&
                  add_str(o, "cuda_driver_version", vi->cuda_driver_version);
        if (ok && vi->cuda_driver_version[0])
                ok = add_str(o, "cuda_driver_version_source", xpu_source_to_string(vi->cuda_driver_version_source));
        if (ok) {
                cJSON *a = nodes_to_json(vi->nodes, vi->n_nodes);
                ok = a && cJSON_AddItemToObject(o, "device_nodes", a);
                if (!ok)
                        cJSON_Delete(a);
        }
        if (ok && !vi->driver_loaded)
                ok = add_str(o, "looked_for", vi->looked_for);
        if (!ok) {
                cJSON_Delete(o);
                return NULL;
        }
        return o;
}

cJSON *xpu_inventory_to_json(const struct xpu_inventory *inv) {
        cJSON *root = cJSON_CreateObject();
        cJSON *host = cJSON_AddObjectToObject(root, "host");
        cJSON *vendors = host ? cJSON_AddObjectToObject(host, "vendors") : NULL;
        cJSON *devs = root ? cJSON_AddArrayToObject(root, "devices") : NULL;
        bool ok = vendors && devs && add_str(host, "kernel", inv->kernel);
        /* Convenience copies of the versions users look for first. */
        const struct xpu_vendor_info *nv = &inv->vendors[XPU_VENDOR_NVIDIA];
        ok = ok && add_str(host, "nvidia_driver_version", nv->driver_version) &&
             add_str(host, "cuda_driver_version", nv->cuda_driver_version) &&
             add_str(host, "amd_driver_version", inv->vendors[XPU_VENDOR_AMD].driver_version);
        for (int v = 0; ok && v < _XPU_VENDOR_MAX; v++) {
                cJSON *o = vendor_to_json(&inv->vendors[v]);
                ok = o && cJSON_AddItemToObject(vendors, xpu_vendor_to_string(v), o);
                if (!ok)
                        cJSON_Delete(o);
        }
        for (size_t i = 0; ok && i < inv->n_devices; i++) {
                cJSON *o = xpu_device_to_json(&inv->devices[i]);
                ok = o && cJSON_AddItemToArray(devs, o);
                if (!ok)
                        cJSON_Delete(o);
        }
        if (ok) { /* always there, empty or not, as in the plan */
                cJSON *w = cJSON_AddArrayToObject(root, "warnings");
                for (size_t i = 0; ok && w && i < inv->n_warnings; i++)
                        ok = cJSON_AddItemToArray(w, cJSON_CreateString(inv->warnings[i]));
                ok = ok && w;
        }
        if (!ok) {
                cJSON_Delete(root);
                return NULL;
        }
        return root;
}
