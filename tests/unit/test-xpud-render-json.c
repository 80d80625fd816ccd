/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/render-json.c: the JSON bodies' values (/v1/devices, /v1/health, /v1/events, /v1/version)
 * of the fixture snapshot, and one number formatter for JSON and /metrics. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render-json.h"
#include "render-prom.h"
#include "server.h"
#include "testlib.h"
#include "xpud-fixture.h"

static cJSON *body_json(struct xpud_snapshot *s, enum xpud_route route) {
        struct xpud_body b;
        ck_assert_int_eq(xpud_route_body(s, route, &b), 0);
        ck_assert_str_eq(b.content_type, "application/json");
        ck_assert_int_eq(b.data[b.len - 1], '\n');
        cJSON *o = cJSON_ParseWithLength(b.data, b.len);
        ck_assert_msg(o != NULL, "not JSON: %s", b.data);
        return o;
}

static double num(const cJSON *o, const char *path) {
        _cleanup_free_ char *copy = strdup(path);
        char *save = NULL;
        for (char *k = strtok_r(copy, ".", &save); k; k = strtok_r(NULL, ".", &save)) {
                o = cJSON_GetObjectItemCaseSensitive(o, k);
                ck_assert_msg(o != NULL, "no %s in %s", k, path);
        }
        ck_assert_msg(cJSON_IsNumber(o), "%s is not a number", path);
        return o->valuedouble;
}

static const char *str(const cJSON *o, const char *key) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
        ck_assert_msg(cJSON_IsString(v), "%s is not a string", key);
        return v->valuestring;
}

START_TEST(test_devices_json) {
        struct xpud_snapshot *s = fx_snapshot();
        cJSON *o = body_json(s, XPUD_ROUTE_DEVICES);
        ck_assert_ptr_nonnull(cJSON_GetObjectItem(o, "host"));
        ck_assert_ptr_nonnull(cJSON_GetObjectItem(o, "warnings"));
        ck_assert_double_eq(num(o, "seq"), 7);
        ck_assert_double_eq(num(o, "collect_time"), FX_TIME);
        const cJSON *devs = cJSON_GetObjectItem(o, "devices");
        ck_assert_int_eq(cJSON_GetArraySize(devs), 4);

        const cJSON *d0 = cJSON_GetArrayItem(devs, 0);
        ck_assert_double_eq(num(d0, "index"), 0);
        ck_assert_str_eq(str(d0, "vendor"), "nvidia");
        ck_assert_str_eq(str(d0, "uuid"), FX_UUID0);
        ck_assert_str_eq(str(d0, "pci_bus_id"), "0000:1a:00.0");
        ck_assert_str_eq(str(d0, "compute_capability"), "9.0");
        ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(d0, "up")));
        ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(d0, "stale")));
        ck_assert_double_eq(num(d0, "sample_time"), FX_TIME);
        ck_assert_double_eq(num(d0, "readings.power_watts"), 250);
        ck_assert_double_eq(num(d0, "readings.power_limit_watts"), 700);
        ck_assert_double_eq(num(d0, "readings.temperature_celsius.gpu"), 41);
        ck_assert_double_eq(num(d0, "readings.utilization_ratio"), 0.87);
        ck_assert_double_eq(num(d0, "readings.memory_used_bytes"), 42949672960.0);
        ck_assert_double_eq(num(d0, "readings.memory_total_bytes"), 85520809984.0);
        ck_assert_double_eq(num(d0, "readings.energy_joules"), 123456.789);
        ck_assert_double_eq(num(d0, "readings.clock_hertz.graphics"), 1980000000.0);
        ck_assert_double_eq(num(d0, "readings.ecc_errors.corrected"), 2);
        ck_assert_double_eq(num(d0, "readings.ecc_errors.uncorrected"), 0);
        ck_assert_double_eq(num(d0, "readings.pcie_link_width_lanes.current"), 16);
        ck_assert_double_eq(num(d0, "readings.pcie_link_width_lanes.max"), 16);
        ck_assert_double_eq(num(d0, "readings.pcie_link_speed_transfers_per_second.current"), 2500000000.0);
        ck_assert_double_eq(num(d0, "readings.pcie_link_speed_transfers_per_second.max"), 32000000000.0);
        ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(d0, "readings"), "throttle_reasons")), 0);
        const cJSON *h0 = cJSON_GetObjectItem(d0, "health");
        ck_assert_str_eq(str(h0, "state"), "healthy");
        ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(h0, "reasons")), 0);
        ck_assert_str_eq(str(h0, "action"), "");

        const cJSON *d1 = cJSON_GetArrayItem(devs, 1);
        const cJSON *tr = cJSON_GetObjectItem(cJSON_GetObjectItem(d1, "readings"), "throttle_reasons");
        ck_assert_int_eq(cJSON_GetArraySize(tr), 2);
        ck_assert_str_eq(cJSON_GetArrayItem(tr, 0)->valuestring, "power");
        ck_assert_str_eq(cJSON_GetArrayItem(tr, 1)->valuestring, "thermal");

        const cJSON *d2 = cJSON_GetArrayItem(devs, 2);
        ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(d2, "lost")));
        ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(d2, "up")));
        ck_assert_str_eq(str(d2, "lost_reason"), "/sys/bus/pci/devices/0000:c1:00.0 is gone");
        ck_assert_ptr_null(cJSON_GetObjectItem(d2, "readings")->child); /* no values */
        ck_assert_str_eq(str(cJSON_GetObjectItem(d2, "health"), "state"), "unhealthy");

        const cJSON *d3 = cJSON_GetArrayItem(devs, 3);
        ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(d3, "stale")));
        ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(d3, "up")));
        ck_assert_double_eq(num(d3, "sample_time"), FX_STALE_TIME);
        ck_assert_double_eq(num(d3, "readings.temperature_celsius.edge"), 41);
        ck_assert_double_eq(num(d3, "readings.temperature_celsius.junction"), 45.5);
        ck_assert_double_eq(num(d3, "readings.power_watts"), 300.125);
        ck_assert_ptr_null(cJSON_GetObjectItem(cJSON_GetObjectItem(d3, "readings"), "ecc_errors"));
        ck_assert_ptr_null(cJSON_GetObjectItem(cJSON_GetObjectItem(d3, "readings"), "power_limit_watts"));
        cJSON_Delete(o);
        xpud_snapshot_unref(s);
}
END_TEST

START_TEST(test_health_json) {
        struct xpud_snapshot *s = fx_snapshot();
        cJSON *o = body_json(s, XPUD_ROUTE_HEALTH);
        ck_assert_str_eq(str(o, "status"), "unhealthy");
        const cJSON *devs = cJSON_GetObjectItem(o, "devices");
        ck_assert_int_eq(cJSON_GetArraySize(devs), 4);
        static const char *const states[] = { "healthy", "degraded", "unhealthy", "degraded" };
        for (int i = 0; i < 4; i++) {
                const cJSON *d = cJSON_GetArrayItem(devs, i);
                ck_assert_double_eq(num(d, "index"), i);
                ck_assert_str_eq(str(d, "state"), states[i]);
        }
        const cJSON *d1 = cJSON_GetArrayItem(devs, 1);
        ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(d1, "reasons"), 0)->valuestring, "thermal throttling");
        ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(d1, "reasons"), 1)->valuestring,
                         "power throttling (power cap)");
        const cJSON *d2 = cJSON_GetArrayItem(devs, 2);
        ck_assert_str_eq(str(d2, "uuid"), FX_UUID2);
        ck_assert_str_eq(str(d2, "pci_bus_id"), "0000:c1:00.0");
        ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetObjectItem(d2, "reasons"), 0)->valuestring,
                         "fell off the bus: /sys/bus/pci/devices/0000:c1:00.0 is gone");
        ck_assert_str_eq(str(d2, "action"), "reseat or power-cycle the GPU; check `dmesg` for Xid/RAS errors");
        const cJSON *bes = cJSON_GetObjectItem(o, "backends");
        ck_assert_int_eq(cJSON_GetArraySize(bes), 2);
        const cJSON *b1 = cJSON_GetArrayItem(bes, 1);
        ck_assert_str_eq(str(b1, "name"), "amdgpu_sysfs");
        ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(b1, "up")));
        ck_assert_str_eq(str(b1, "error"), "/sys/class/drm/card1/device/gpu_busy_percent: Input/output error");
        ck_assert_double_eq(num(b1, "errors_total"), 3);
        ck_assert_ptr_null(cJSON_GetObjectItem(cJSON_GetArrayItem(bes, 0), "error"));
        cJSON_Delete(o);
        xpud_snapshot_unref(s);

        /* no devices: healthy; an unknown device is worse than a healthy one */
        s = fx_snapshot();
        s->devices[1].health = XPUD_HEALTH_HEALTHY;
        s->devices[2].health = XPUD_HEALTH_UNKNOWN;
        s->devices[3].health = XPUD_HEALTH_HEALTHY;
        ck_assert_int_eq(xpud_health_overall(s), XPUD_HEALTH_UNKNOWN);
        s->n_devices = 0;
        ck_assert_int_eq(xpud_health_overall(s), XPUD_HEALTH_HEALTHY);
        s->n_devices = 4;
        xpud_snapshot_unref(s);
}
END_TEST

START_TEST(test_events_version_json) {
        struct xpud_snapshot *s = fx_snapshot();
        s->n_events = 2;
        s->events = calloc(2, sizeof *s->events);
        ck_assert_ptr_nonnull(s->events);
        s->events[0] = (struct xpud_event){ .time = 1700000000, .seq = 41, .kind = "backend_error",
                                            .message = "amdgpu_sysfs: Input/output error" };
        s->events[1] = (struct xpud_event){ .time = FX_TIME, .seq = 42, .kind = "device_lost", .device = FX_UUID2,
                                            .message = "gpu 2 (0000:c1:00.0) fell off the bus" };
        s->events_dropped = 5;
        cJSON *o = body_json(s, XPUD_ROUTE_EVENTS);
        const cJSON *ev = cJSON_GetObjectItem(o, "events");
        ck_assert_int_eq(cJSON_GetArraySize(ev), 2);
        ck_assert_double_eq(num(cJSON_GetArrayItem(ev, 0), "seq"), 41); /* oldest first */
        ck_assert_str_eq(str(cJSON_GetArrayItem(ev, 0), "kind"), "backend_error");
        ck_assert_ptr_null(cJSON_GetObjectItem(cJSON_GetArrayItem(ev, 0), "device"));
        ck_assert_double_eq(num(cJSON_GetArrayItem(ev, 1), "time"), FX_TIME);
        ck_assert_str_eq(str(cJSON_GetArrayItem(ev, 1), "device"), FX_UUID2);
        ck_assert_str_eq(str(cJSON_GetArrayItem(ev, 1), "message"), "gpu 2 (0000:c1:00.0) fell off the bus");
        ck_assert_double_eq(num(o, "dropped"), 5);
        cJSON_Delete(o);

        o = body_json(s, XPUD_ROUTE_VERSION);
        ck_assert_str_eq(str(o, "xpud"), XPU_VERSION);
        ck_assert_str_eq(str(o, "api"), "v1");
        const cJSON *drv = cJSON_GetObjectItem(o, "drivers");
        ck_assert_str_eq(str(cJSON_GetObjectItem(drv, "nvidia"), "version"), "550.54.15");
        ck_assert_str_eq(str(cJSON_GetObjectItem(drv, "nvidia"), "flavor"), "open");
        ck_assert_str_eq(str(cJSON_GetObjectItem(drv, "nvidia"), "cuda_driver_version"), "12.4");
        ck_assert_str_eq(str(cJSON_GetObjectItem(drv, "amd"), "version"), "6.3.6");
        const cJSON *bes = cJSON_GetObjectItem(o, "backends");
        ck_assert_int_eq(cJSON_GetArraySize(bes), 2);
        ck_assert_str_eq(cJSON_GetArrayItem(bes, 0)->valuestring, "nvml");
        ck_assert_str_eq(cJSON_GetArrayItem(bes, 1)->valuestring, "amdgpu_sysfs");
        cJSON_Delete(o);
        xpud_snapshot_unref(s);

        /* an empty snapshot renders every route */
        s = xpud_snapshot_new();
        o = body_json(s, XPUD_ROUTE_DEVICES);
        ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "devices")), 0);
        cJSON_Delete(o);
        o = body_json(s, XPUD_ROUTE_HEALTH);
        ck_assert_str_eq(str(o, "status"), "healthy");
        cJSON_Delete(o);
        o = body_json(s, XPUD_ROUTE_VERSION);
        ck_assert_ptr_null(cJSON_GetObjectItem(o, "drivers")->child);
        cJSON_Delete(o);
        xpud_snapshot_unref(s);
}
END_TEST

/* host.fabric: each channel-list set's count and whether the visit bound cut it (xpu_fabric_count_nodes). */
START_TEST(test_fabric_channels_json) {
        struct xpud_snapshot *s = fx_snapshot();
        s->fabric_channels[1] = 65000; /* xpu_fabric_sets(): rdma, then imex */
        s->fabric_channels_cut[1] = true;
        cJSON *o = body_json(s, XPUD_ROUTE_DEVICES);
        const cJSON *fabric = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "host"), "fabric");
        _cleanup_free_ char *text = cJSON_PrintUnformatted(fabric);
        ck_assert_str_eq(text, "{\"imex_channels\":65000,\"imex_channels_truncated\":true}");
        cJSON_Delete(o);
        xpud_snapshot_unref(s);
        /* a node without the directory: no host.fabric */
        s = fx_snapshot();
        o = body_json(s, XPUD_ROUTE_DEVICES);
        ck_assert_ptr_null(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "host"), "fabric"));
        cJSON_Delete(o);
        xpud_snapshot_unref(s);
}
END_TEST

/* The text of ROUTE's body of S (borrowed from the snapshot's cache). */
static const char *body_text(struct xpud_snapshot *s, enum xpud_route route) {
        struct xpud_body b;
        ck_assert_int_eq(xpud_route_body(s, route, &b), 0);
        return b.data;
}

/* One number formatter for JSON and /metrics: times and readings read back as the same double
 * in both, counts above 2^53 are exact, and the inventory's sentinel memory size is left out. */
START_TEST(test_json_numbers) {
        struct xpud_snapshot *s = fx_snapshot();
        /* cJSON prints the first as 1712345678.9012339 and the second as 0.3 (another double) */
        const double t = 1712345678.901234, e = 0.1 + 0.2;
        s->collect_time = t;
        s->devices[0].sample_time = t;
        s->devices[0].r.energy_joules = e;
        s->devices[0].r.ecc_corrected = (1ull << 53) + 1;
        s->devices[1].r.have &= ~(uint32_t)XPU_READ_MEMORY_TOTAL; /* the inventory's figure instead ... */
        s->devices[1].dev.have |= XPU_HAVE_MEMORY_TOTAL;
        s->devices[1].dev.memory_total_bytes = UINT64_MAX; /* ... a sentinel: left out everywhere */
        char want[64];
        xpud_format_double(t, want, sizeof want);
        ck_assert_str_eq(want, "1712345678.901234");

        const char *health = body_text(s, XPUD_ROUTE_HEALTH), *devices = body_text(s, XPUD_ROUTE_DEVICES);
        const char *metrics = body_text(s, XPUD_ROUTE_METRICS);
        ck_assert_msg(strstr(health, "\"collect_time\":1712345678.901234,"), "%s", health);
        ck_assert_msg(strstr(devices, "\"collect_time\":1712345678.901234"), "%s", devices);
        ck_assert_msg(strstr(devices, "\"sample_time\":1712345678.901234,"), "%s", devices);
        ck_assert_msg(strstr(devices, "\"energy_joules\":0.30000000000000004,"), "%s", devices);
        ck_assert_msg(strstr(devices, "\"corrected\":9007199254740993,"), "%s", devices);
        ck_assert_msg(strstr(metrics, "\nxpud_last_collect_timestamp_seconds 1712345678.901234\n"), "%s", metrics);
        ck_assert_msg(strstr(metrics, "0.30000000000000004\n"), "%s", metrics);
        ck_assert_ptr_null(strstr(devices, "18446744073709551615"));
        ck_assert_ptr_null(strstr(metrics, "18446744073709551615"));
        ck_assert_ptr_null(strstr(metrics, "1.8446744073709552e+19"));
        ck_assert_ptr_null(strstr(metrics, "xpu_memory_total_bytes{vendor=\"nvidia\",gpu=\"1\""));
        ck_assert_ptr_nonnull(strstr(metrics, "xpu_memory_total_bytes{vendor=\"nvidia\",gpu=\"0\""));

        /* the bodies still parse, with the same numbers */
        cJSON *o = cJSON_Parse(devices);
        ck_assert_ptr_nonnull(o);
        const cJSON *d0 = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "devices"), 0);
        ck_assert_double_eq(cJSON_GetObjectItem(d0, "sample_time")->valuedouble, t);
        ck_assert_double_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(d0, "readings"), "energy_joules")->valuedouble, e);
        const cJSON *d1 = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "devices"), 1);
        ck_assert_ptr_null(cJSON_GetObjectItem(d1, "memory_total_bytes"));
        ck_assert_ptr_null(cJSON_GetObjectItem(cJSON_GetObjectItem(d1, "readings"), "memory_total_bytes"));
        cJSON_Delete(o);
        xpud_snapshot_unref(s);
}
END_TEST

int main(void) {
        Suite *s = suite_create("xpud-render-json");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_devices_json);
        tcase_add_test(tc, test_fabric_channels_json);
        tcase_add_test(tc, test_health_json);
        tcase_add_test(tc, test_events_version_json);
        tcase_add_test(tc, test_json_numbers);
        suite_add_tcase(s, tc);
        return xpu_test_run(s);
}
