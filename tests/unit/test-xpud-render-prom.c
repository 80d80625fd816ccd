/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/render-prom.c: /metrics of the hand-built snapshot (xpud-fixture.h) line by line, the
 * format's rules checked by parsing our own output (one HELP/TYPE per name, samples of a name
 * grouped, every series once: promtool does not check that), number formatting, label escaping of
 * a hostile name, unsupported readings omitted, a lost device reduced to xpu_info/xpu_up/health.
 *
 * `test-xpud-render-prom --dump metrics|metrics-hostile|metrics-workloads|devices|health|events|version`
 * prints the fixture's body instead of testing: tests/e2e/xpud-promtool.sh feeds it to promtool. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"
#include "nvidia/nvidia-facts.h"
#include "render-json.h"
#include "render-prom.h"
#include "server.h"
#include "testlib.h"
#include "xpud-fixture.h"

#define L0 "vendor=\"nvidia\",gpu=\"0\",uuid=\"" FX_UUID0 "\",pci_bus_id=\"0000:1a:00.0\""
#define L1 "vendor=\"nvidia\",gpu=\"1\",uuid=\"" FX_UUID1 "\",pci_bus_id=\"0000:1b:00.0\""
#define L2 "vendor=\"amd\",gpu=\"2\",uuid=\"" FX_UUID2 "\",pci_bus_id=\"0000:c1:00.0\""
#define L3 "vendor=\"amd\",gpu=\"3\",uuid=\"" FX_UUID3 "\",pci_bus_id=\"0000:c2:00.0\""

#define HOSTILE_NAME "Evil \"GPU\" \\ name\nsecond line \xff end"
#define HOSTILE_LABEL "Evil \\\"GPU\\\" \\\\ name\\nsecond line \xef\xbf\xbd end"

static char *render(const struct xpud_snapshot *s) {
        char *text = NULL;
        size_t len = 0;
        ck_assert_int_eq(xpud_render_prom(s, &text, &len), 0);
        ck_assert_uint_eq(strlen(text), len);
        return text;
}

/* Does TEXT hold LINE as a whole line? */
static bool has_line(const char *text, const char *line) {
        size_t n = strlen(line);
        for (const char *p = text; (p = strstr(p, line)); p++)
                if ((p == text || p[-1] == '\n') && p[n] == '\n')
                        return true;
        return false;
}

static size_t count_lines_containing(const char *text, const char *needle) {
        size_t n = 0;
        _cleanup_free_ char *copy = strdup(text);
        char *save = NULL;
        for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
                n += strstr(l, needle) != NULL;
        return n;
}

START_TEST(test_format_double) {
        static const struct {
                double v;
                const char *want;
        } cases[] = {
                { 250, "250" },
                { 41000 / 1000.0, "41" },
                { 0, "0" },
                { -0.0, "0" },
                { 1, "1" },
                { 0.875, "0.875" },
                { 0.1, "0.1" },
                { 0.87, "0.87" },
                { 45.5, "45.5" },
                { 300.125, "300.125" },
                { 123456.789, "123456.789" },
                { 1700000000.5, "1700000000.5" },
                { 85520809984.0, "85520809984" },
                { 1.5e-07, "1.5e-07" },
                { -40, "-40" },
                { 9007199254740991.0, "9007199254740991" },
                { 9007199254740992.0, "9007199254740992" },
                { 1e300, "1e+300" },
                { 1.0 / 3.0, "0.3333333333333333" },
                { NAN, "NaN" },
                { INFINITY, "+Inf" },
                { -INFINITY, "-Inf" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char buf[40];
                ck_assert_str_eq(xpud_format_double(cases[i].v, buf, sizeof buf), cases[i].want);
                if (isfinite(cases[i].v))
                        ck_assert(strtod(buf, NULL) == cases[i].v); /* round trip */
        }
}
END_TEST

/* Unit conversions: 250 W -> 250, 41000 millidegrees -> 41; every family of the fixture. */
START_TEST(test_fixture_lines) {
        struct xpud_snapshot *s = fx_snapshot();
        _cleanup_free_ char *t = render(s);
        static const char *const want[] = {
                "# HELP xpu_info Device identity and metadata (name, driver, ...); always 1. Join on uuid.",
                "# TYPE xpu_info gauge",
                "xpu_info{" L0 ",name=\"NVIDIA H100 80GB HBM3\",driver_version=\"550.54.15\",cuda_driver_version=\"12.4\","
                "compute_capability=\"9.0\"} 1",
                "xpu_info{" L2 ",name=\"AMD Instinct MI210\",driver_version=\"6.3.6\",gfx_target=\"gfx90a\"} 1",
                "# HELP xpu_up 1 when this sample read the device; 0 when it is lost, its values are stale (the last "
                "good sample) or it was never read.",
                "# TYPE xpu_up gauge",
                "xpu_up{" L0 "} 1",
                "xpu_up{" L1 "} 1",
                "xpu_up{" L2 "} 0",
                "xpu_up{" L3 "} 0",
                "xpu_health_state{" L0 ",state=\"healthy\"} 1",
                "xpu_health_state{" L0 ",state=\"unknown\"} 0",
                "xpu_health_state{" L1 ",state=\"degraded\"} 1",
                "xpu_health_state{" L1 ",state=\"healthy\"} 0",
                "xpu_health_state{" L2 ",state=\"unhealthy\"} 1",
                "xpu_health_state{" L2 ",state=\"healthy\"} 0",
                "xpu_health_state{" L3 ",state=\"degraded\"} 1",
                "xpu_last_collect_timestamp_seconds{" L0 "} 1700000000.5",
                "xpu_last_collect_timestamp_seconds{" L3 "} 1699999990.25",
                "xpu_utilization_ratio{" L0 "} 0.87",
                "xpu_utilization_ratio{" L3 "} 0.5",
                "xpu_memory_bandwidth_utilization_ratio{" L0 "} 0.25",
                "xpu_memory_used_bytes{" L0 "} 42949672960",
                "xpu_memory_total_bytes{" L0 "} 85520809984",
                "xpu_memory_total_bytes{" L3 "} 68702699520",
                "xpu_temperature_celsius{" L0 ",sensor=\"gpu\"} 41",
                "xpu_temperature_celsius{" L1 ",sensor=\"gpu\"} 92",
                "xpu_temperature_celsius{" L3 ",sensor=\"edge\"} 41",
                "xpu_temperature_celsius{" L3 ",sensor=\"junction\"} 45.5",
                "xpu_temperature_celsius{" L3 ",sensor=\"memory\"} 50",
                "xpu_power_watts{" L0 "} 250",
                "xpu_power_watts{" L1 "} 700",
                "xpu_power_watts{" L3 "} 300.125",
                "xpu_power_limit_watts{" L0 "} 700",
                "# TYPE xpu_energy_joules_total counter",
                "xpu_energy_joules_total{" L0 "} 123456.789",
                "xpu_clock_hertz{" L0 ",clock=\"graphics\"} 1980000000",
                "xpu_clock_hertz{" L0 ",clock=\"memory\"} 2619000000",
                "xpu_clock_hertz{" L3 ",clock=\"soc\"} 1090000000",
                "# TYPE xpu_ecc_errors_total counter",
                "xpu_ecc_errors_total{" L0 ",severity=\"corrected\"} 2",
                "xpu_ecc_errors_total{" L0 ",severity=\"uncorrected\"} 0",
                "xpu_throttle_active{" L0 ",reason=\"thermal\"} 0",
                "xpu_throttle_active{" L1 ",reason=\"power\"} 1",
                "xpu_throttle_active{" L1 ",reason=\"thermal\"} 1",
                "xpu_throttle_active{" L1 ",reason=\"hw_slowdown\"} 0",
                "xpu_throttle_active{" L1 ",reason=\"sync_boost\"} 0",
                "# TYPE xpu_pcie_link_width_lanes gauge",
                "xpu_pcie_link_width_lanes{" L0 ",link=\"current\"} 16",
                "xpu_pcie_link_width_lanes{" L0 ",link=\"max\"} 16",
                "xpu_pcie_link_width_lanes{" L3 ",link=\"max\"} 16",
                "# TYPE xpu_pcie_link_speed_transfers_per_second gauge",
                "xpu_pcie_link_speed_transfers_per_second{" L0 ",link=\"current\"} 2500000000",
                "xpu_pcie_link_speed_transfers_per_second{" L0 ",link=\"max\"} 32000000000",
                "xpu_pcie_link_speed_transfers_per_second{" L3 ",link=\"current\"} 16000000000",
                "xpud_build_info{version=\"" XPU_VERSION "\"} 1",
                "xpud_last_collect_timestamp_seconds 1700000000.5",
                "xpud_collect_duration_seconds 0.042",
                "xpud_collect_duration_seconds{backend=\"nvml\"} 0.012",
                "xpud_collect_duration_seconds{backend=\"amdgpu_sysfs\"} 0.5",
                "# TYPE xpud_collect_errors_total counter",
                "xpud_collect_errors_total{backend=\"nvml\"} 0",
                "xpud_collect_errors_total{backend=\"amdgpu_sysfs\"} 3",
                "xpud_backend_up{backend=\"nvml\"} 1",
                "xpud_backend_up{backend=\"amdgpu_sysfs\"} 0",
                "xpud_events_dropped_total 0",
        };
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                ck_assert_msg(has_line(t, want[i]), "missing line: %s\n--- output ---\n%s", want[i], t);

        /* The lost gpu 2 keeps only xpu_info, xpu_up 0 and its four health lines. */
        ck_assert_uint_eq(count_lines_containing(t, L2), 1 + 1 + 4);
        /* The stale gpu 3 keeps its last good values; AMD reports no ECC, throttle or power limit. */
        ck_assert(!strstr(t, "xpu_ecc_errors_total{" L3));
        ck_assert(!strstr(t, "xpu_throttle_active{" L3));
        ck_assert(!strstr(t, "xpu_power_limit_watts{" L3));
        ck_assert(!strstr(t, "xpu_memory_bandwidth_utilization_ratio{" L3));
        ck_assert(!strstr(t, "clock=\"memory\"} 0"));
        /* The text ends in a newline and no sentinel or NaN ever appears. */
        ck_assert_int_eq(t[strlen(t) - 1], '\n');
        ck_assert(!strstr(t, "NaN") && !strstr(t, "Inf") && !strstr(t, "9223372036854775") && !strstr(t, "4294967295"));
        xpud_snapshot_unref(s);
}
END_TEST

/* Parse TEXT as text format 0.0.4 and check what promtool does not: each series once; each name's
 * HELP and TYPE once, before its samples; a name's samples in one group; counters end in _total.
 * Returns the number of samples. */
static size_t check_exposition(const char *text) {
        _cleanup_free_ char *copy = strdup(text);
        char *save = NULL;
        char **series = NULL, **closed = NULL;
        size_t n_series = 0, n_closed = 0;
        char current[128] = "", help_for[128] = "", type_for[128] = "", type[16] = "";
        for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                char name[128];
                if (strncmp(l, "# HELP ", 7) == 0 || strncmp(l, "# TYPE ", 7) == 0) {
                        ck_assert_int_eq(sscanf(l + 7, "%127s", name), 1);
                        for (size_t i = 0; i < n_closed; i++)
                                ck_assert_msg(strcmp(closed[i], name) != 0, "%s: header after its group: %s", name, l);
                        if (l[2] == 'H') {
                                ck_assert_msg(strcmp(help_for, name) != 0, "second HELP for %s", name);
                                snprintf(help_for, sizeof help_for, "%s", name);
                        } else {
                                ck_assert_msg(strcmp(type_for, name) != 0, "second TYPE for %s", name);
                                snprintf(type_for, sizeof type_for, "%s", name);
                                ck_assert_int_eq(sscanf(l + 7 + strlen(name), "%15s", type), 1);
                        }
                        continue;
                }
                ck_assert_msg(l[0] != '#', "stray comment: %s", l);
                size_t nl = strcspn(l, "{ ");
                ck_assert(nl > 0 && nl < sizeof name);
                memcpy(name, l, nl);
                name[nl] = '\0';
                ck_assert_msg(strcmp(help_for, name) == 0 && strcmp(type_for, name) == 0, "%s: no HELP/TYPE before it",
                              name);
                if (strcmp(type, "counter") == 0)
                        ck_assert_msg(nl > 6 && strcmp(name + nl - 6, "_total") == 0, "counter %s", name);
                if (strcmp(current, name) != 0) {
                        for (size_t i = 0; i < n_closed; i++)
                                ck_assert_msg(strcmp(closed[i], name) != 0, "samples of %s not grouped", name);
                        if (current[0]) {
                                closed = realloc(closed, (n_closed + 1) * sizeof *closed);
                                closed[n_closed++] = strdup(current);
                        }
                        snprintf(current, sizeof current, "%s", name);
                }
                char *sp = strrchr(l, ' ');
                ck_assert_ptr_nonnull(sp);
                char *end = NULL;
                strtod(sp + 1, &end);
                ck_assert_msg(end && *end == '\0' && end != sp + 1, "bad value: %s", l);
                *sp = '\0';
                for (size_t i = 0; i < n_series; i++)
                        ck_assert_msg(strcmp(series[i], l) != 0, "duplicate series: %s", l);
                series = realloc(series, (n_series + 1) * sizeof *series);
                series[n_series++] = strdup(l);
        }
        for (size_t i = 0; i < n_series; i++)
                free(series[i]);
        for (size_t i = 0; i < n_closed; i++)
                free(closed[i]);
        free(series);
        free(closed);
        return n_series;
}

START_TEST(test_unique_grouped) {
        struct xpud_snapshot *s = fx_snapshot();
        _cleanup_free_ char *t = render(s);
        /* 4 info + 4 up + 16 health + 3 timestamps + 3+2+3+3 scalars + 5 temps + 3 power + 2 limits +
         * 2 energy + 6 clocks + 4 ecc + 8 throttle + 6 link widths + 6 link speeds; daemon: 1 + 1 + 3
         * + 2 + 2 + 1. */
        ck_assert_uint_eq(check_exposition(t), 4 + 4 + 16 + 3 + 11 + 5 + 3 + 2 + 2 + 6 + 4 + 8 + 6 + 6 + 10);
        xpud_snapshot_unref(s);

        /* No device, no backend: the daemon's own series only. */
        s = xpud_snapshot_new();
        ck_assert_ptr_nonnull(s);
        _cleanup_free_ char *e = render(s);
        ck_assert_uint_eq(check_exposition(e), 3);
        ck_assert(has_line(e, "xpud_collect_duration_seconds 0"));
        ck_assert(!strstr(e, "xpu_info") && !strstr(e, "xpud_last_collect_timestamp_seconds"));
        xpud_snapshot_unref(s);
}
END_TEST

static void make_hostile(struct xpud_snapshot *s) {
        struct xpud_device *d = &s->devices[0];
        snprintf(d->dev.name, sizeof d->dev.name, "%s", HOSTILE_NAME);
        snprintf(xpu_nvidia_facts(&d->dev)->vbios_version, sizeof xpu_nvidia_facts(&d->dev)->vbios_version, "96.00.\\\"x\"");
        snprintf(s->backends[0].name, sizeof s->backends[0].name, "a\"b\\c\nd");
}

START_TEST(test_label_escaping) {
        struct xpud_snapshot *s = fx_snapshot();
        make_hostile(s);
        _cleanup_free_ char *t = render(s);
        ck_assert_msg(has_line(t, "xpu_info{" L0 ",name=\"" HOSTILE_LABEL "\",driver_version=\"550.54.15\","
                                  "cuda_driver_version=\"12.4\",compute_capability=\"9.0\",vbios_version=\"96.00.\\\\\\\"x\\\"\"} 1"),
                      "%s", t);
        ck_assert(has_line(t, "xpud_backend_up{backend=\"a\\\"b\\\\c\\nd\"} 1"));
        ck_assert(!strstr(t, "\xff"));
        check_exposition(t);
        xpud_snapshot_unref(s);
}
END_TEST

/* The fixture with GPU 1 in MIG mode: MIG devices 1:0 (GI 1 CI 0, NVML UUID, name, memory) and
 * 1:1 (GI 2 CI 0, fast path only); and memory repair: GPU 0 with rows remapped (one remap
 * pending), GPU 1 with pages retired; GPU 0 registered with its NVLink fabric (clique 4026, the
 * V call's health mask), GPU 1 still registering, and the node's two IMEX channels. */
static void make_mig(struct xpud_snapshot *s) {
        struct xpu_readings *r0 = &s->devices[0].r, *r1 = &s->devices[1].r;
        r0->have |= XPU_READ_ROW_REMAP;
        r0->remapped_rows[XPU_REPAIR_CORRECTABLE] = 7;
        r0->remapped_rows[XPU_REPAIR_UNCORRECTABLE] = 2;
        r0->remap_pending = true;
        r0->have |= XPU_READ_FABRIC | XPU_READ_FABRIC_HEALTH;
        r0->fabric_state = XPU_FABRIC_COMPLETED;
        r0->fabric_clique_id = 4026;
        snprintf(r0->fabric_cluster_uuid, sizeof r0->fabric_cluster_uuid, "9c6f5af3-53bf-49b5-a436-b66766c413c3");
        r1->have |= XPU_READ_FABRIC;
        r1->fabric_state = XPU_FABRIC_IN_PROGRESS;
        s->fabric_channels[1] = 2; /* xpu_fabric_sets(): rdma, then imex */
        r1->have |= XPU_READ_RETIRED_PAGES;
        r1->retired_pages[XPU_REPAIR_CORRECTABLE] = 5;
        r1->retired_pages[XPU_REPAIR_UNCORRECTABLE] = 1;
        struct xpu_device *d = &s->devices[1].dev;
        d->have |= XPU_HAVE_MIG_MODE;
        xpu_nvidia_facts(d)->mig_enabled = true;
        xpu_nvidia_facts(d)->n_mig = 2;
        xpu_nvidia_facts(d)->mig[0] = (struct xpu_mig_device){ .gi = 1, .have = XPU_MIG_HAVE_CAPS | XPU_MIG_HAVE_MEMORY_TOTAL,
                                             .memory_total_bytes = 20937965568ull };
        snprintf(xpu_nvidia_facts(d)->mig[0].uuid, sizeof xpu_nvidia_facts(d)->mig[0].uuid, "MIG-aaaaaaaa-0000-4000-8000-000000000001");
        snprintf(xpu_nvidia_facts(d)->mig[0].name, sizeof xpu_nvidia_facts(d)->mig[0].name, "NVIDIA H100 80GB HBM3 MIG 1g.20gb");
        xpu_nvidia_facts(d)->mig[1] = (struct xpu_mig_device){ .gi = 2, .have = XPU_MIG_HAVE_CAPS };
}

START_TEST(test_mig) {
        struct xpud_snapshot *s = fx_snapshot();
        make_mig(s);
        _cleanup_free_ char *t = render(s);
        ck_assert_msg(has_line(t, "xpu_mig_info{" L1 ",mig=\"1:0\",gpu_instance=\"1\",compute_instance=\"0\","
                                  "mig_uuid=\"MIG-aaaaaaaa-0000-4000-8000-000000000001\",product=\"NVIDIA H100 80GB HBM3 MIG "
                                  "1g.20gb\"} 1"), "%s", t);
        ck_assert(has_line(t, "xpu_mig_info{" L1 ",mig=\"1:1\",gpu_instance=\"2\",compute_instance=\"0\"} 1"));
        ck_assert(has_line(t, "xpu_mig_memory_total_bytes{" L1 ",mig=\"1:0\"} 20937965568"));
        ck_assert_uint_eq(count_lines_containing(t, "xpu_mig_memory_total_bytes{"), 1); /* 1:1: not known */
        ck_assert(has_line(t, "# TYPE xpu_mig_info gauge"));
        ck_assert(has_line(t, "xpu_memory_remapped_rows_total{" L0 ",severity=\"correctable\"} 7"));
        ck_assert(has_line(t, "xpu_memory_remapped_rows_total{" L0 ",severity=\"uncorrectable\"} 2"));
        ck_assert(has_line(t, "xpu_memory_remap_pending{" L0 "} 1"));
        ck_assert(has_line(t, "xpu_memory_remap_failed{" L0 "} 0"));
        ck_assert(has_line(t, "xpu_memory_retired_pages_total{" L1 ",cause=\"uncorrectable\"} 1"));
        ck_assert(has_line(t, "xpu_memory_retired_pages_pending{" L1 "} 0"));
        ck_assert_uint_eq(count_lines_containing(t, "xpu_memory_remap_pending{"), 1); /* GPU 1: no remapping */
        ck_assert(has_line(t, "xpu_fabric_state{" L0 ",state=\"completed\"} 1"));
        ck_assert(has_line(t, "xpu_fabric_state{" L0 ",state=\"not_supported\"} 0"));
        ck_assert(has_line(t, "xpu_fabric_state{" L1 ",state=\"in_progress\"} 1"));
        ck_assert_uint_eq(count_lines_containing(t, "xpu_fabric_state{"), 8); /* the AMD GPUs have none */
        ck_assert(has_line(t, "xpu_fabric_info{" L0 ",clique_id=\"4026\",cluster_uuid=\"9c6f5af3-53bf-49b5-a436-"
                              "b66766c413c3\",status=\"0\"} 1"));
        ck_assert_uint_eq(count_lines_containing(t, "xpu_fabric_info{"), 1); /* GPU 1 not registered yet */
        ck_assert(has_line(t, "xpu_fabric_health_mask{" L0 "} 0"));
        ck_assert_uint_eq(count_lines_containing(t, "xpu_fabric_health_mask{"), 1);
        ck_assert(has_line(t, "xpu_fabric_channels{set=\"imex\"} 2"));
        check_exposition(t);
        xpud_snapshot_unref(s);
        /* No MIG device anywhere: neither family. */
        s = fx_snapshot();
        _cleanup_free_ char *u = render(s);
        ck_assert(!strstr(u, "xpu_mig_"));
        ck_assert(!strstr(u, "xpu_fabric_")); /* no fabric state read, no channel directory */
        xpud_snapshot_unref(s);
}
END_TEST

/* A device that reports nothing: only identity, xpu_up and health; memory size from the inventory
 * of the same sample when the backend did not read it. */
START_TEST(test_unsupported_omitted) {
        struct xpud_snapshot *s = fx_snapshot();
        struct xpud_device *d = &s->devices[0];
        memset(&d->r, 0, sizeof d->r);
        d->dev.have |= XPU_HAVE_MEMORY_TOTAL;
        d->dev.memory_total_bytes = 85899345920ull;
        xpud_health_evaluate(d, NULL, &s->backends[0]);
        _cleanup_free_ char *t = render(s);
        ck_assert_uint_eq(count_lines_containing(t, L0), 1 + 1 + 4 + 1 + 1);
        ck_assert(has_line(t, "xpu_memory_total_bytes{" L0 "} 85899345920"));
        ck_assert(has_line(t, "xpu_last_collect_timestamp_seconds{" L0 "} 1700000000.5"));
        ck_assert(has_line(t, "xpu_health_state{" L0 ",state=\"healthy\"} 1"));
        check_exposition(t);

        /* an inventory memory figure that is a sentinel or impossible (above 1 PiB) is no size */
        static const uint64_t bad[] = { UINT64_MAX, UINT32_MAX, (1ull << 50) + 1 };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                d->dev.memory_total_bytes = bad[i];
                d->dev.have |= XPU_HAVE_MEMORY_USED;
                d->dev.memory_used_bytes = bad[i];
                _cleanup_free_ char *u = render(s);
                ck_assert_uint_eq(count_lines_containing(u, L0), 1 + 1 + 4 + 1);
                ck_assert_ptr_null(strstr(u, "xpu_memory_total_bytes{" L0));
                ck_assert_ptr_null(strstr(u, "xpu_memory_used_bytes{" L0));
        }
        d->dev.memory_total_bytes = 1ull << 50; /* 1 PiB itself is allowed */
        _cleanup_free_ char *v = render(s);
        ck_assert(has_line(v, "xpu_memory_total_bytes{" L0 "} 1125899906842624"));
        xpud_snapshot_unref(s);
}
END_TEST

/* The vendors' thermal limits: xpu_temperature_limit_celsius{sensor, limit} for each limit
 * reported, none for the rest; the same in /v1/devices' readings; health names the limit. */
START_TEST(test_temp_limits) {
        struct xpud_snapshot *s = fx_snapshot();
        struct xpud_device *nv = &s->devices[0], *amd = &s->devices[3];
        nv->r.temperature_limit_celsius[XPU_TEMP_GPU][XPU_TEMP_LIMIT_SLOWDOWN] = 90;
        nv->r.temperature_limit_celsius[XPU_TEMP_GPU][XPU_TEMP_LIMIT_SHUTDOWN] = 95;
        nv->r.have_temperature_limit = XPU_TEMP_LIMIT_BIT(XPU_TEMP_GPU, XPU_TEMP_LIMIT_SLOWDOWN) |
                                       XPU_TEMP_LIMIT_BIT(XPU_TEMP_GPU, XPU_TEMP_LIMIT_SHUTDOWN);
        amd->r.temperature_limit_celsius[XPU_TEMP_JUNCTION][XPU_TEMP_LIMIT_SLOWDOWN] = 45.5;
        amd->r.temperature_limit_celsius[XPU_TEMP_JUNCTION][XPU_TEMP_LIMIT_SHUTDOWN] = 105;
        amd->r.temperature_limit_celsius[XPU_TEMP_EDGE][XPU_TEMP_LIMIT_SHUTDOWN] = 100;
        amd->r.have_temperature_limit = XPU_TEMP_LIMIT_BIT(XPU_TEMP_JUNCTION, XPU_TEMP_LIMIT_SLOWDOWN) |
                                        XPU_TEMP_LIMIT_BIT(XPU_TEMP_JUNCTION, XPU_TEMP_LIMIT_SHUTDOWN) |
                                        XPU_TEMP_LIMIT_BIT(XPU_TEMP_EDGE, XPU_TEMP_LIMIT_SHUTDOWN);
        _cleanup_free_ char *t = render(s);
        static const char *const want[] = {
                "# TYPE xpu_temperature_limit_celsius gauge",
                "xpu_temperature_limit_celsius{" L0 ",sensor=\"gpu\",limit=\"slowdown\"} 90",
                "xpu_temperature_limit_celsius{" L0 ",sensor=\"gpu\",limit=\"shutdown\"} 95",
                "xpu_temperature_limit_celsius{" L3 ",sensor=\"edge\",limit=\"shutdown\"} 100",
                "xpu_temperature_limit_celsius{" L3 ",sensor=\"junction\",limit=\"slowdown\"} 45.5",
                "xpu_temperature_limit_celsius{" L3 ",sensor=\"junction\",limit=\"shutdown\"} 105",
        };
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                ck_assert_msg(has_line(t, want[i]), "missing: %s", want[i]);
        ck_assert_uint_eq(count_lines_containing(t, "xpu_temperature_limit_celsius{"), ELEMENTSOF(want) - 1);
        check_exposition(t);

        _cleanup_free_ char *j = NULL;
        size_t len = 0;
        ck_assert_int_eq(xpud_render_device_json(s, "3", &j, &len), 0);
        ck_assert_msg(strstr(j, "\"temperature_limit_celsius\":{\"edge\":{\"shutdown\":100},"
                                "\"junction\":{\"slowdown\":45.5,\"shutdown\":105}}"), "%s", j);
        _cleanup_free_ char *j1 = NULL;
        ck_assert_int_eq(xpud_render_device_json(s, "1", &j1, &len), 0);
        ck_assert_ptr_null(strstr(j1, "temperature_limit_celsius"));

        /* the AMD junction (45.5 °C) sits at its 45.5 °C slowdown limit: degraded, named */
        amd->up = true;
        amd->stale = false;
        xpud_health_evaluate(amd, NULL, NULL);
        ck_assert_int_eq(amd->health, XPUD_HEALTH_DEGRADED);
        ck_assert_str_eq(amd->reasons[0], "junction temperature 45.5 °C at or above its slowdown limit 45.5 °C");
        xpud_snapshot_unref(s);
}
END_TEST

static Suite *prom_suite(void) {
        Suite *s = suite_create("xpud-render-prom");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_format_double);
        tcase_add_test(tc, test_fixture_lines);
        tcase_add_test(tc, test_unique_grouped);
        tcase_add_test(tc, test_label_escaping);
        tcase_add_test(tc, test_unsupported_omitted);
        tcase_add_test(tc, test_mig);
        tcase_add_test(tc, test_temp_limits);
        suite_add_tcase(s, tc);
        return s;
}

/* Pod attribution on the fixture (workloads.h): gpu 0 shared by two containers (time-slicing),
 * gpu 1 held through a DRA claim, the pod-resources client on and --workload-labels. */
static void make_workloads(struct xpud_snapshot *s) {
        struct xpud_workload *w = calloc(3, sizeof *w);
        FX_REQUIRE(w);
        w[0] = (struct xpud_workload){ "ml", "notebook-1", "jupyter", "nvidia.com/gpu.shared", NULL };
        w[1] = (struct xpud_workload){ "ml", "notebook-2", "jupyter", "nvidia.com/gpu.shared", NULL };
        w[2] = (struct xpud_workload){ "ml", "train-0", "main", "gpu.nvidia.com", "ml/train-0-gpu" };
        s->workloads = w;
        s->n_workloads = 3;
        s->devices[0].workloads = &w[0];
        s->devices[0].n_workloads = 2;
        s->devices[1].workloads = &w[2];
        s->devices[1].n_workloads = 1;
        s->workload_labels = true;
        s->podres = (struct xpud_pod_resources){ .on = true, .up = true, .have_answer = true, .age_seconds = 3.25,
                                                 .errors_total = 2, .unmatched_ids = 1 };
}

/* --dump WHAT: print a body of the fixture to stdout. */
static int dump(const char *what) {
        static const struct {
                const char *name;
                enum xpud_route route;
        } routes[] = {
                { "metrics", XPUD_ROUTE_METRICS }, { "metrics-hostile", XPUD_ROUTE_METRICS },
                { "metrics-mig", XPUD_ROUTE_METRICS }, { "devices-mig", XPUD_ROUTE_DEVICES },
                { "metrics-workloads", XPUD_ROUTE_METRICS }, { "devices-workloads", XPUD_ROUTE_DEVICES },
                { "devices", XPUD_ROUTE_DEVICES }, { "health", XPUD_ROUTE_HEALTH },
                { "events", XPUD_ROUTE_EVENTS },   { "version", XPUD_ROUTE_VERSION },
        };
        for (size_t i = 0; i < ELEMENTSOF(routes); i++) {
                if (strcmp(what, routes[i].name) != 0)
                        continue;
                struct xpud_snapshot *s = fx_snapshot();
                if (strcmp(what, "metrics-hostile") == 0)
                        make_hostile(s);
                if (strstr(what, "-mig"))
                        make_mig(s);
                if (strstr(what, "-workloads"))
                        make_workloads(s);
                struct xpud_body b;
                if (xpud_route_body(s, routes[i].route, &b) < 0)
                        return 1;
                int r = fwrite(b.data, 1, b.len, stdout) == b.len ? 0 : 1;
                xpud_snapshot_unref(s);
                return r;
        }
        fprintf(stderr, "--dump: unknown body \"%s\"\n", what);
        return 2;
}

int main(int argc, char **argv) {
        if (argc == 3 && strcmp(argv[1], "--dump") == 0)
                return dump(argv[2]);
        return xpu_test_run(prom_suite());
}
