/* SPDX-License-Identifier: Apache-2.0 */
#include "inventory-json.h"

#include <stdio.h>
#include <string.h>

#include "base/macro.h"
#include "vendor.h"

bool xpu_json_add_str(cJSON *o, const char *k, const char *v) {
        return !v || !*v || cJSON_AddStringToObject(o, k, v);
}

bool xpu_json_add_num(cJSON *o, const char *k, double v) {
        return cJSON_AddNumberToObject(o, k, v) != NULL;
}

cJSON *xpu_json_nodes(const struct xpu_devnode *nodes, size_t n) {
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

void xpu_format_bytes(uint64_t b, char *buf, size_t size) {
        static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
        double v = (double)b;
        size_t u = 0;
        while (v >= 1024 && u + 1 < ELEMENTSOF(units)) {
                v /= 1024;
                u++;
        }
        snprintf(buf, size, "%.1f %s", v, units[u]);
}

cJSON *xpu_device_to_json(const struct xpu_device *d) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
                return NULL;
        bool ok = xpu_json_add_num(o, "index", d->index) &&
                  xpu_json_add_str(o, "vendor", xpu_vendor_to_string(d->vendor)) &&
                  xpu_json_add_num(o, "vendor_index", d->vendor_index) && xpu_json_add_str(o, "name", d->name) &&
                  xpu_json_add_str(o, "uuid", d->uuid) && xpu_json_add_str(o, "pci_bus_id", d->pci_bus_id);
        char hex[8];
        if (ok && (d->have & XPU_HAVE_PCI_IDS)) {
                snprintf(hex, sizeof hex, "0x%04x", d->pci_vendor_id);
                ok = xpu_json_add_str(o, "pci_vendor_id", hex);
                snprintf(hex, sizeof hex, "0x%04x", d->pci_device_id);
                ok = ok && xpu_json_add_str(o, "pci_device_id", hex);
        }
        if (ok && (d->have & XPU_HAVE_MEMORY_TOTAL))
                ok = xpu_json_add_num(o, "memory_total_bytes", (double)d->memory_total_bytes);
        if (ok && (d->have & XPU_HAVE_MEMORY_USED))
                ok = xpu_json_add_num(o, "memory_used_bytes", (double)d->memory_used_bytes);
        ok = ok && xpu_json_add_str(o, "driver_version", d->driver_version) &&
             xpu_json_add_str(o, "kernel_driver", d->kernel_driver);
        if (ok && d->integrated)
                ok = cJSON_AddBoolToObject(o, "integrated", true) != NULL;
        if (ok) {
                cJSON *a = xpu_json_nodes(d->nodes, d->n_nodes);
                ok = a && cJSON_AddItemToObject(o, "device_nodes", a);
                if (!ok)
                        cJSON_Delete(a);
        }
        const struct xpu_vendor_ops *ops = xpu_vendor(d->vendor);
        if (ok && ops && ops->view.facts_json)
                ok = ops->view.facts_json(d, o);
        if (ok && (d->have & XPU_HAVE_RENDER_MINOR))
                ok = xpu_json_add_num(o, "render_minor", d->render_minor);
        if (ok && (d->have & XPU_HAVE_PARTITION))
                ok = xpu_json_add_num(o, "partition", d->partition);
        if (ok && (d->have & XPU_HAVE_CARD))
                ok = xpu_json_add_num(o, "card", d->card);
        if (ok && (d->have & XPU_HAVE_NUMA_NODE))
                ok = xpu_json_add_num(o, "numa_node", d->numa_node);
        ok = ok && xpu_json_add_str(o, "source", xpu_source_to_string(d->source));
        /* WSL2: an entry of source "wsl" stands for the vendor's driver store, how many GPUs it
         * drives unknown; one a rich backend listed in its place (xpu_wsl_expand()) is one GPU */
        if (ok && d->n_nodes && strcmp(d->nodes[0].path, XPU_WSL_DXG) == 0)
                ok = cJSON_AddBoolToObject(o, "count_known", d->source != XPU_SOURCE_WSL) != NULL;
        /* "sources": the facts a rich backend filled, each with that backend's name, and a name
         * taken from the PCI ID database ("pci.ids"). */
        cJSON *src = NULL;
        for (int f = 0; ok && f < _XPU_FIELD_MAX; f++) {
                if (!d->field_source[f])
                        continue;
                if (!src)
                        ok = (src = cJSON_AddObjectToObject(o, "sources")) != NULL;
                ok = ok && xpu_json_add_str(src, xpu_field_to_string(f),
                                            xpu_source_to_string(xpu_device_field_source(d, f)));
        }
        if (ok && d->name_from_pci_ids && !d->field_source[XPU_FIELD_NAME]) {
                if (!src)
                        ok = (src = cJSON_AddObjectToObject(o, "sources")) != NULL;
                ok = ok && xpu_json_add_str(src, "name", "pci.ids");
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
                  xpu_json_add_str(o, "driver_version", vi->driver_version) &&
                  xpu_json_add_str(o, "kernel_module", vi->driver_flavor) &&
                  xpu_json_add_str(o, "cuda_driver_version", vi->cuda_driver_version);
        if (ok && vi->cuda_driver_version[0])
                ok = xpu_json_add_str(o, "cuda_driver_version_source",
                                      xpu_source_to_string(vi->cuda_driver_version_source));
        if (ok) {
                cJSON *a = xpu_json_nodes(vi->nodes, vi->n_nodes);
                ok = a && cJSON_AddItemToObject(o, "device_nodes", a);
                if (!ok)
                        cJSON_Delete(a);
        }
        ok = ok && xpu_json_add_str(o, "wsl_driver_store", vi->wsl_store);
        if (ok && !vi->driver_loaded)
                ok = xpu_json_add_str(o, "looked_for", vi->looked_for);
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
        bool ok = vendors && devs && xpu_json_add_str(host, "kernel", inv->kernel) &&
                  xpu_json_add_str(host, "platform", xpu_platform_name(inv->platform));
        /* Convenience copies of the versions users look for first: "<vendor>_driver_version" of
         * each vendor whose driver told one, and the host's CUDA driver version. */
        for (int v = 0; ok && v < _XPU_VENDOR_MAX; v++) {
                char key[48];
                snprintf(key, sizeof key, "%s_driver_version", xpu_vendor_to_string(v));
                ok = xpu_json_add_str(host, key, inv->vendors[v].driver_version);
        }
        ok = ok && xpu_json_add_str(host, "cuda_driver_version", xpu_inventory_cuda_driver_version(inv));
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
