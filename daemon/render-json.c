/* SPDX-License-Identifier: Apache-2.0 */
/* JSON bodies of the /v1 routes (render-json.h). cJSON's Add* functions return NULL on -ENOMEM;
 * each builder chains them in `ok` and deletes what it built when one fails. */
#include "render-json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"
#include "inventory-json.h"
#include "readings-range.h"
#include "text.h"

/* Numbers are written by the formatter /metrics uses too (xpud_format_double(), text.h: integers as
 * integers, others in the shortest text that reads back as the same double), as raw JSON text:
 * cJSON's own printing keeps 15 digits when they come within a relative epsilon, so a time or an
 * energy could read back as another double than /metrics shows. NaN and infinities, which JSON
 * lacks, become null. */
static bool add_num(cJSON *o, const char *k, double v) {
        char buf[40];
        if (!isfinite(v))
                return cJSON_AddNullToObject(o, k) != NULL;
        return cJSON_AddRawToObject(o, k, xpud_format_double(v, buf, sizeof buf)) != NULL;
}

/* Counts and byte sizes exactly, in decimal (a double would round those above 2^53). */
static bool add_u64(cJSON *o, const char *k, uint64_t v) {
        char buf[24];
        snprintf(buf, sizeof buf, "%" PRIu64, v);
        return cJSON_AddRawToObject(o, k, buf) != NULL;
}

static bool add_str(cJSON *o, const char *k, const char *v) {
        return cJSON_AddStringToObject(o, k, v ? v : "") != NULL;
}

/* A string only when not empty (absent facts are omitted). */
static bool add_str_opt(cJSON *o, const char *k, const char *v) {
        return !v || !*v || add_str(o, k, v);
}

static bool add_bool(cJSON *o, const char *k, bool v) {
        return cJSON_AddBoolToObject(o, k, v) != NULL;
}

static bool push_str(cJSON *a, const char *v) {
        cJSON *s = cJSON_CreateString(v);
        if (!s || !cJSON_AddItemToArray(a, s)) {
                cJSON_Delete(s);
                return false;
        }
        return true;
}

/* Attach ITEM to O as K, or delete it. */
static bool add_item(cJSON *o, const char *k, cJSON *item) {
        if (item && cJSON_AddItemToObject(o, k, item))
                return true;
        cJSON_Delete(item);
        return false;
}

static cJSON *readings_to_json(const struct xpud_device *d) {
        const struct xpu_readings *r = &d->r;
        cJSON *o = cJSON_CreateObject();
        if (!o)
                return NULL;
        bool ok = true;
        if (r->lost)
                return o; /* a lost device has no values */
        if (r->have & XPU_READ_UTILIZATION)
                ok = ok && add_num(o, "utilization_ratio", r->utilization_ratio);
        if (r->have & XPU_READ_MEMORY_UTILIZATION)
                ok = ok && add_num(o, "memory_bandwidth_utilization_ratio", r->memory_bandwidth_utilization_ratio);
        if (r->have & XPU_READ_MEMORY_USED)
                ok = ok && add_u64(o, "memory_used_bytes", r->memory_used_bytes);
        if (r->have & XPU_READ_MEMORY_TOTAL)
                ok = ok && add_u64(o, "memory_total_bytes", r->memory_total_bytes);
        if (ok && r->have_temperature) {
                cJSON *t = cJSON_CreateObject();
                for (int i = 0; t && ok && i < _XPU_TEMP_MAX; i++)
                        if (r->have_temperature & (1u << i))
                                ok = add_num(t, xpu_temp_sensor_to_string((enum xpu_temp_sensor)i), r->temperature_celsius[i]);
                ok = add_item(o, "temperature_celsius", t) && ok;
        }
        if (ok && r->have_temperature_limit) {
                /* {"gpu": {"slowdown": 90, "shutdown": 95}}: only the sensors and limits reported */
                cJSON *t = cJSON_CreateObject();
                for (int i = 0; t && ok && i < _XPU_TEMP_MAX; i++) {
                        uint32_t both = XPU_TEMP_LIMIT_BIT(i, XPU_TEMP_LIMIT_SLOWDOWN) |
                                        XPU_TEMP_LIMIT_BIT(i, XPU_TEMP_LIMIT_SHUTDOWN);
                        if (!(r->have_temperature_limit & both))
                                continue;
                        cJSON *l = cJSON_CreateObject();
                        for (int k = 0; l && ok && k < _XPU_TEMP_LIMIT_MAX; k++)
                                if (r->have_temperature_limit & XPU_TEMP_LIMIT_BIT(i, k))
                                        ok = add_num(l, xpu_temp_limit_to_string((enum xpu_temp_limit)k),
                                                     r->temperature_limit_celsius[i][k]);
                        ok = add_item(t, xpu_temp_sensor_to_string((enum xpu_temp_sensor)i), l) && ok;
                }
                ok = add_item(o, "temperature_limit_celsius", t) && ok;
        }
        if (r->have & XPU_READ_POWER)
                ok = ok && add_num(o, "power_watts", r->power_watts);
        if (r->have & XPU_READ_POWER_LIMIT)
                ok = ok && add_num(o, "power_limit_watts", r->power_limit_watts);
        if (r->have & XPU_READ_ENERGY)
                ok = ok && add_num(o, "energy_joules", r->energy_joules);
        if (ok && r->have_clock) {
                cJSON *c = cJSON_CreateObject();
                for (int i = 0; c && ok && i < _XPU_CLOCK_MAX; i++)
                        if (r->have_clock & (1u << i))
                                ok = add_u64(c, xpu_clock_to_string((enum xpu_clock)i), r->clock_hertz[i]);
                ok = add_item(o, "clock_hertz", c) && ok;
        }
        if (ok && (r->have & XPU_READ_ECC)) {
                cJSON *e = cJSON_CreateObject();
                ok = e && add_u64(e, "corrected", r->ecc_corrected) && add_u64(e, "uncorrected", r->ecc_uncorrected);
                ok = add_item(o, "ecc_errors", e) && ok;
        }
        if (ok && (r->have & XPU_READ_ROW_REMAP)) {
                cJSON *e = cJSON_CreateObject();
                ok = e && add_u64(e, "correctable", r->remapped_rows[XPU_REPAIR_CORRECTABLE]) &&
                     add_u64(e, "uncorrectable", r->remapped_rows[XPU_REPAIR_UNCORRECTABLE]) &&
                     add_bool(e, "pending", r->remap_pending) && add_bool(e, "failed", r->remap_failed);
                ok = add_item(o, "remapped_rows", e) && ok;
        }
        if (ok && (r->have & XPU_READ_RETIRED_PAGES)) {
                cJSON *e = cJSON_CreateObject();
                ok = e && add_u64(e, "correctable", r->retired_pages[XPU_REPAIR_CORRECTABLE]) &&
                     add_u64(e, "uncorrectable", r->retired_pages[XPU_REPAIR_UNCORRECTABLE]) &&
                     add_bool(e, "pending", r->retired_pending);
                ok = add_item(o, "retired_pages", e) && ok;
        }
        if (ok && (r->have & XPU_READ_FABRIC)) {
                /* {"state": "completed", "status": 0, "clique_id": 4026, "cluster_uuid": "...", "health_mask": 0} */
                cJSON *e = cJSON_CreateObject();
                ok = e && cJSON_AddStringToObject(e, "state",
                                                  xpu_fabric_state_to_string((enum xpu_fabric_state)r->fabric_state));
                if (ok && r->fabric_state == XPU_FABRIC_COMPLETED)
                        ok = add_u64(e, "status", r->fabric_status) && add_u64(e, "clique_id", r->fabric_clique_id) &&
                             (!r->fabric_cluster_uuid[0] ||
                              cJSON_AddStringToObject(e, "cluster_uuid", r->fabric_cluster_uuid));
                if (ok && (r->have & XPU_READ_FABRIC_HEALTH))
                        ok = add_u64(e, "health_mask", r->fabric_health_mask);
                ok = add_item(o, "fabric", e) && ok;
        }
        if (ok && (r->have & XPU_READ_THROTTLE)) {
                cJSON *a = cJSON_CreateArray();
                for (int i = 0; a && ok && i < _XPU_THROTTLE_MAX; i++)
                        if (r->throttle & (1u << i))
                                ok = push_str(a, xpu_throttle_to_string((enum xpu_throttle)i));
                ok = add_item(o, "throttle_reasons", a) && ok;
        }
        static const struct {
                uint32_t have;
                const char *key;
        } links[] = { { XPU_READ_PCIE_WIDTH, "pcie_link_width_lanes" },
                      { XPU_READ_PCIE_SPEED, "pcie_link_speed_transfers_per_second" } };
        for (size_t k = 0; ok && k < ELEMENTSOF(links); k++) {
                if (!(r->have & links[k].have))
                        continue;
                cJSON *l = cJSON_CreateObject();
                for (int e = 0; l && ok && e < _XPU_LINK_END_MAX; e++)
                        ok = add_u64(l, xpu_link_end_to_string((enum xpu_link_end)e),
                                     links[k].have == XPU_READ_PCIE_WIDTH ? r->pcie_link_width[e] : r->pcie_link_speed[e]);
                ok = add_item(o, links[k].key, l) && ok;
        }
        if (!ok) {
                cJSON_Delete(o);
                return NULL;
        }
        return o;
}

/* {"state", "reasons", "action"} of D, added to O. */
static bool add_health(cJSON *o, const struct xpud_device *d) {
        const char *state = xpud_health_to_string(d->health);
        cJSON *a = cJSON_CreateArray();
        bool ok = a != NULL;
        for (size_t i = 0; ok && i < d->n_reasons && i < XPUD_REASONS_MAX; i++)
                ok = push_str(a, d->reasons[i]);
        if (!ok) {
                cJSON_Delete(a);
                return false;
        }
        return add_str(o, "state", state ? state : "unknown") && add_item(o, "reasons", a) &&
               add_str(o, "action", d->action);
}

/* The inventory's memory figures (the fast path's mem_info_vram_*, NVML's merged total) pass
 * the readings' check too: a sentinel there is left out of /v1/devices, as in /metrics. */
static void drop_implausible_inventory(cJSON *o, const struct xpu_device *dev) {
        static const char *const keys[] = { "memory_total_bytes", "memory_used_bytes" };
        const uint64_t values[] = { dev->memory_total_bytes, dev->memory_used_bytes };
        const uint32_t have[] = { XPU_HAVE_MEMORY_TOTAL, XPU_HAVE_MEMORY_USED };
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
                if ((dev->have & have[i]) && xpu_reading_implausible(XPU_READING_BYTES, values[i], (double)values[i]))
                        cJSON_DeleteItemFromObjectCaseSensitive(o, keys[i]);
}

/* "workloads": [{namespace, pod, container, resource, claim}], claim null for a device plugin; []
 * when no container holds D (or the pod-resources client is off). */
static cJSON *workloads_to_json(const struct xpud_device *d) {
        cJSON *a = cJSON_CreateArray();
        bool ok = a != NULL;
        for (size_t i = 0; ok && i < d->n_workloads; i++) {
                const struct xpud_workload *w = &d->workloads[i];
                cJSON *o = cJSON_CreateObject();
                ok = o && add_str(o, "namespace", w->pod_namespace) && add_str(o, "pod", w->pod) &&
                     add_str(o, "container", w->container) && add_str(o, "resource", w->resource) &&
                     (w->claim ? add_str(o, "claim", w->claim) : cJSON_AddNullToObject(o, "claim") != NULL);
                if (!ok || !cJSON_AddItemToArray(a, o)) {
                        cJSON_Delete(o);
                        ok = false;
                }
        }
        if (!ok) {
                cJSON_Delete(a);
                return NULL;
        }
        return a;
}

cJSON *xpud_device_to_json(const struct xpud_snapshot *s, const struct xpud_device *d) {
        cJSON *o = xpu_device_to_json(&d->dev);
        if (!o)
                return NULL;
        drop_implausible_inventory(o, &d->dev);
        cJSON *h = cJSON_CreateObject();
        bool ok = h && add_health(h, d);
        ok = add_item(o, "health", h) && ok;
        ok = ok && add_bool(o, "up", d->up && !d->stale && !d->r.lost) && add_bool(o, "stale", d->stale) &&
             add_bool(o, "lost", d->r.lost);
        if (ok && d->r.lost)
                ok = add_str_opt(o, "lost_reason", d->r.lost_reason);
        if (ok && d->sample_time > 0)
                ok = add_num(o, "sample_time", d->sample_time);
        ok = ok && add_item(o, "readings", readings_to_json(d));
        ok = ok && add_item(o, "workloads", workloads_to_json(d));
        if (ok && d->kernel.n_xids > 0) { /* "xid_errors": {"79": 1}: Xids in the kernel log since xpud started */
                cJSON *x = cJSON_CreateObject();
                ok = x != NULL;
                for (size_t i = 0; ok && i < d->kernel.n_xids; i++) {
                        char key[12];
                        if (d->kernel.xids[i].xid)
                                snprintf(key, sizeof key, "%u", d->kernel.xids[i].xid);
                        else
                                snprintf(key, sizeof key, "other");
                        ok = add_num(x, key, (double)d->kernel.xids[i].count);
                }
                ok = add_item(o, "xid_errors", x) && ok;
        }
        if (!ok) {
                cJSON_Delete(o);
                return NULL;
        }
        return o;
}

static cJSON *devices_to_json(const struct xpud_snapshot *s) {
        cJSON *root = s->inv ? xpu_inventory_to_json(s->inv) : cJSON_CreateObject();
        cJSON *a = cJSON_CreateArray();
        bool ok = root && a;
        for (size_t i = 0; ok && i < s->n_devices; i++) {
                cJSON *d = xpud_device_to_json(s, &s->devices[i]);
                ok = d && cJSON_AddItemToArray(a, d);
                if (!ok)
                        cJSON_Delete(d);
        }
        /* The snapshot's devices replace the inventory's (same devices, same order, plus the
         * readings), keeping the key where xpuinit's inventory JSON has it. */
        if (ok && cJSON_HasObjectItem(root, "devices"))
                ok = cJSON_ReplaceItemInObjectCaseSensitive(root, "devices", a);
        else if (ok)
                ok = cJSON_AddItemToObject(root, "devices", a);
        if (!ok) {
                cJSON_Delete(a);
                cJSON_Delete(root);
                return NULL;
        }
        /* host.fabric: {"imex_channels": 2, "imex_channels_truncated": false}, for the channel-list fabric
         * sets whose directory exists; truncated: the count stopped at the directory's visit bound */
        cJSON *host = cJSON_GetObjectItemCaseSensitive(root, "host");
        const struct xpu_fabric_set *sets[XPU_FABRIC_SETS_MAX];
        enum xpu_vendor vendor[XPU_FABRIC_SETS_MAX];
        size_t n_sets = xpu_fabric_sets(sets, vendor);
        cJSON *fabric = NULL;
        for (size_t i = 0; ok && host && i < n_sets; i++) {
                if (s->fabric_channels[i] < 0)
                        continue;
                char key[64], cut[80];
                snprintf(key, sizeof key, "%s_channels", sets[i]->name);
                snprintf(cut, sizeof cut, "%s_truncated", key);
                ok = (fabric || (fabric = cJSON_AddObjectToObject(host, "fabric"))) &&
                     add_u64(fabric, key, (uint64_t)s->fabric_channels[i]) &&
                     cJSON_AddBoolToObject(fabric, cut, s->fabric_channels_cut[i]);
        }
        if (!ok || !add_u64(root, "seq", s->seq) || !add_num(root, "collect_time", s->collect_time)) {
                cJSON_Delete(root);
                return NULL;
        }
        return root;
}

static cJSON *health_to_json(const struct xpud_snapshot *s) {
        cJSON *root = cJSON_CreateObject();
        if (!root)
                return NULL;
        /* seq and collect_time name the snapshot, as in /v1/devices: a client reading several
         * endpoints can tell whether they answered from the same sample. */
        bool ok = add_str(root, "status", xpud_health_to_string(xpud_health_overall(s))) &&
                  add_u64(root, "seq", s->seq) && add_num(root, "collect_time", s->collect_time);
        cJSON *devs = ok ? cJSON_AddArrayToObject(root, "devices") : NULL;
        ok = devs != NULL;
        for (size_t i = 0; ok && i < s->n_devices; i++) {
                const struct xpud_device *d = &s->devices[i];
                cJSON *o = cJSON_CreateObject();
                ok = o && add_num(o, "index", d->dev.index) &&
                     add_str(o, "vendor", xpu_vendor_to_string(d->dev.vendor)) && add_str_opt(o, "uuid", d->dev.uuid) &&
                     add_str_opt(o, "pci_bus_id", d->dev.pci_bus_id) && add_health(o, d);
                ok = ok && cJSON_AddItemToArray(devs, o);
                if (!ok)
                        cJSON_Delete(o);
        }
        cJSON *bes = ok ? cJSON_AddArrayToObject(root, "backends") : NULL;
        ok = bes != NULL;
        for (size_t i = 0; ok && i < s->n_backends; i++) {
                const struct xpud_backend *b = &s->backends[i];
                cJSON *o = cJSON_CreateObject();
                ok = o && add_str(o, "name", b->name) && add_bool(o, "up", b->up) && add_str_opt(o, "error", b->error) &&
                     add_num(o, "collect_seconds", b->collect_seconds) && add_u64(o, "errors_total", b->errors_total);
                ok = ok && cJSON_AddItemToArray(bes, o);
                if (!ok)
                        cJSON_Delete(o);
        }
        if (!ok) {
                cJSON_Delete(root);
                return NULL;
        }
        return root;
}

static cJSON *events_to_json(const struct xpud_snapshot *s) {
        cJSON *root = cJSON_CreateObject();
        cJSON *a = root && add_u64(root, "seq", s->seq) ? cJSON_AddArrayToObject(root, "events") : NULL;
        bool ok = a != NULL;
        for (size_t i = 0; ok && i < s->n_events; i++) {
                const struct xpud_event *e = &s->events[i];
                cJSON *o = cJSON_CreateObject();
                ok = o && add_u64(o, "seq", e->seq) && add_num(o, "time", e->time) && add_str(o, "kind", e->kind) &&
                     add_str_opt(o, "device", e->device) && add_str(o, "message", e->message);
                ok = ok && cJSON_AddItemToArray(a, o);
                if (!ok)
                        cJSON_Delete(o);
        }
        ok = ok && add_u64(root, "dropped", s->events_dropped);
        if (!ok) {
                cJSON_Delete(root);
                return NULL;
        }
        return root;
}

static cJSON *version_to_json(const struct xpud_snapshot *s) {
        cJSON *root = cJSON_CreateObject();
        bool ok = root && add_str(root, "xpud", XPU_VERSION) && add_str(root, "api", "v1");
        cJSON *drivers = ok ? cJSON_AddObjectToObject(root, "drivers") : NULL;
        ok = drivers != NULL;
        for (int v = 0; ok && s->inv && v < _XPU_VENDOR_MAX; v++) {
                const struct xpu_vendor_info *vi = &s->inv->vendors[v];
                if (!vi->driver_loaded)
                        continue;
                cJSON *o = cJSON_CreateObject();
                ok = o && add_str_opt(o, "version", vi->driver_version) && add_str_opt(o, "flavor", vi->driver_flavor) &&
                     add_str_opt(o, "cuda_driver_version", vi->cuda_driver_version);
                if (!ok) {
                        cJSON_Delete(o);
                        break;
                }
                ok = add_item(drivers, xpu_vendor_to_string((enum xpu_vendor)v), o);
        }
        cJSON *bes = ok ? cJSON_AddArrayToObject(root, "backends") : NULL;
        ok = bes != NULL;
        for (size_t i = 0; ok && i < s->n_backends; i++)
                ok = push_str(bes, s->backends[i].name);
        if (!ok) {
                cJSON_Delete(root);
                return NULL;
        }
        return root;
}

int xpud_json_print(const cJSON *o, char **ret, size_t *ret_len) {
        char *text = cJSON_PrintUnformatted(o);
        if (!text)
                return -ENOMEM;
        size_t len = strlen(text);
        char *buf = malloc(len + 2); /* cJSON's allocator may not be malloc: copy */
        if (buf)
                memcpy(buf, text, len);
        cJSON_free(text);
        if (!buf)
                return -ENOMEM;
        buf[len] = '\n';
        buf[len + 1] = '\0';
        *ret = buf;
        *ret_len = len + 1;
        return 0;
}

int xpud_render_json(const struct xpud_snapshot *s, enum xpud_route route, char **ret, size_t *ret_len) {
        cJSON *o;
        switch (route) {
        case XPUD_ROUTE_DEVICES:
                o = devices_to_json(s);
                break;
        case XPUD_ROUTE_HEALTH:
                o = health_to_json(s);
                break;
        case XPUD_ROUTE_EVENTS:
                o = events_to_json(s);
                break;
        case XPUD_ROUTE_VERSION:
                o = version_to_json(s);
                break;
        default:
                return -EINVAL;
        }
        if (!o)
                return -ENOMEM;
        int r = xpud_json_print(o, ret, ret_len);
        cJSON_Delete(o);
        return r;
}

int xpud_render_device_json(const struct xpud_snapshot *s, const char *key, char **ret, size_t *ret_len) {
        const struct xpud_device *d = xpud_snapshot_find_device(s, key);
        if (!d)
                return -ENOENT;
        cJSON *o = xpud_device_to_json(s, d);
        if (!o)
                return -ENOMEM;
        int r = xpud_json_print(o, ret, ret_len);
        cJSON_Delete(o);
        return r;
}
