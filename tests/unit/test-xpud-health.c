/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/health.c (the rules, table-driven: state, first reason, action, reason count) and
 * daemon/events.c (the bounded ring and the events found between two snapshots). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "events.h"
#include "health.h"
#include "testlib.h"
#include "xpud-fixture.h"

#define ACT_LOST "reseat or power-cycle the GPU; check `dmesg` for Xid/RAS errors"
#define ACT_ECC "drain this GPU's workloads and reset it"
#define ACT_UNSAMPLED "wait for the first sample"
#define ACT_STALE "values are the last good sample"
#define ACT_THERMAL "check cooling: fans, airflow"
#define ACT_HW "check cooling and the power supply"
#define ACT_POWER "the GPU runs at its power limit"
#define ACT_STORM "watch the corrected ECC rate"
#define ACT_PCIE "reseat the GPU (and its riser or cable)"
#define ACT_REMAP_FAILED "drain this GPU's workloads and replace it"
#define ACT_REMAP_PENDING "drain this GPU's workloads and reset it (nvidia-smi -r)"
#define ACT_RETIRE "drain this GPU's workloads and reload the driver"
#define ACT_UNAVAILABLE                                                                                      \
        "the vendor library was not found: point --driver-root at the host's driver files, or ignore on hosts " \
        "without this vendor"
/* probes/base/dl.c's error when no candidate exists: 251 bytes, more than the 127 a reason held. */
#define ERR_NOT_FOUND                                                                                        \
        "not available: libnvidia-ml.so.1 not found in /: /etc/ld.so.cache, /usr/lib64, "                    \
        "/usr/lib/x86_64-linux-gnu, /usr/lib/aarch64-linux-gnu, /usr/lib, /lib64, /lib/x86_64-linux-gnu, "    \
        "/lib/aarch64-linux-gnu, /lib, /usr/local/nvidia/lib64, /usr/lib/nvidia"

#define T_THERMAL (1u << XPU_THROTTLE_THERMAL)
#define T_POWER (1u << XPU_THROTTLE_POWER)
#define T_HW (1u << XPU_THROTTLE_HW_SLOWDOWN)
#define T_SYNC (1u << XPU_THROTTLE_SYNC_BOOST)

enum sample_state { FRESH, STALE, NONE };

static const struct health_case {
        const char *what;
        enum sample_state sample;
        bool lost;
        const char *lost_reason;
        bool ecc;                 /* XPU_READ_ECC */
        uint64_t unc, corr;       /* ecc counts now */
        bool throttle_have;       /* XPU_READ_THROTTLE */
        uint32_t throttle;
        bool prev;                /* a previous sample exists, 10 s earlier unless prev_dt */
        bool prev_lost;
        uint64_t prev_unc, prev_corr;
        double prev_dt;
        bool backend_down;        /* the device's backend failed, error "helper timed out after 10 s" */
        const char *backend_error; /* ... or this error */
        bool no_backend;
        uint32_t link_now, link_max; /* PCIe link width, lanes (XPU_READ_PCIE_WIDTH when link_max) */
        int remap;                /* 0: none; else XPU_READ_ROW_REMAP with 1 pending, 2 failed, 3 both, 4 neither */
        int retired;              /* 0: none; 1: XPU_READ_RETIRED_PAGES pending; 2: not pending */
        enum xpud_health want;
        size_t want_n;
        const char *want_reason;  /* reasons[0] */
        const char *want_action;  /* prefix; "" = empty */
} cases[] = {
        { "fresh, nothing wrong", FRESH, .ecc = true, .throttle_have = true, .want = XPUD_HEALTH_HEALTHY, .want_n = 0,
          .want_reason = NULL, .want_action = "" },
        { "lost with reason", NONE, .lost = true, .lost_reason = "nvmlDeviceGetPowerUsage: GPU is lost (error 15)",
          .want = XPUD_HEALTH_UNHEALTHY, .want_n = 1,
          .want_reason = "fell off the bus: nvmlDeviceGetPowerUsage: GPU is lost (error 15)", .want_action = ACT_LOST },
        { "lost without reason", FRESH, .lost = true, .want = XPUD_HEALTH_UNHEALTHY, .want_n = 1,
          .want_reason = "fell off the bus", .want_action = ACT_LOST },
        { "lost while its backend is down", NONE, .lost = true, .backend_down = true, .want = XPUD_HEALTH_UNHEALTHY,
          .want_n = 1, .want_reason = "fell off the bus", .want_action = ACT_LOST },
        { "uncorrected ECC, first sample", FRESH, .ecc = true, .unc = 1, .want = XPUD_HEALTH_UNHEALTHY, .want_n = 1,
          .want_reason = "uncorrected ECC errors: 1", .want_action = ACT_ECC },
        { "uncorrected ECC grew", FRESH, .ecc = true, .unc = 3, .prev = true, .prev_unc = 1,
          .want = XPUD_HEALTH_UNHEALTHY, .want_n = 1,
          .want_reason = "uncorrected ECC errors: 3 (+2 since the previous sample)", .want_action = ACT_ECC },
        { "uncorrected ECC unchanged", FRESH, .ecc = true, .unc = 2, .prev = true, .prev_unc = 2,
          .want = XPUD_HEALTH_UNHEALTHY, .want_n = 1, .want_reason = "uncorrected ECC errors: 2", .want_action = ACT_ECC },
        { "uncorrected count without the ECC bit", FRESH, .unc = 5, .want = XPUD_HEALTH_HEALTHY, .want_n = 0,
          .want_action = "" },
        { "never sampled", NONE, .want = XPUD_HEALTH_UNKNOWN, .want_n = 1, .want_reason = "not sampled yet",
          .want_action = ACT_UNSAMPLED },
        { "never sampled, backend down", NONE, .backend_down = true, .want = XPUD_HEALTH_UNKNOWN, .want_n = 1,
          .want_reason = "no good sample yet: nvml: helper timed out after 10 s", .want_action = ACT_UNSAMPLED },
        { "never sampled, library not found", NONE, .backend_down = true, .backend_error = ERR_NOT_FOUND,
          .want = XPUD_HEALTH_UNKNOWN, .want_n = 1, .want_reason = "no good sample yet: nvml: " ERR_NOT_FOUND,
          .want_action = ACT_UNAVAILABLE },
        { "stale, library gone", STALE, .backend_down = true, .backend_error = ERR_NOT_FOUND,
          .want = XPUD_HEALTH_DEGRADED, .want_n = 1, .want_reason = "stale sample: nvml: " ERR_NOT_FOUND,
          .want_action = ACT_UNAVAILABLE },
        { "not found, but not a library", NONE, .backend_down = true,
          .backend_error = "not available: ROCm SMI reads the host's /sys and cannot follow --sys-root /x",
          .want = XPUD_HEALTH_UNKNOWN, .want_n = 1,
          .want_reason = "no good sample yet: nvml: not available: ROCm SMI reads the host's /sys and cannot follow "
                         "--sys-root /x",
          .want_action = ACT_UNSAMPLED },
        { "never sampled, platform not sampled (a Jetson)", NONE, .backend_down = true,
          .backend_error = "not sampled: NVML is not read on a Jetson (the Tegra iGPU has no NVML sampling in xpud)",
          .want = XPUD_HEALTH_UNKNOWN, .want_n = 1,
          .want_reason = "nvml: not sampled: NVML is not read on a Jetson (the Tegra iGPU has no NVML sampling in xpud)",
          .want_action = "none: xpud does not sample this GPU on this platform" },
        { "stale", STALE, .backend_down = true, .want = XPUD_HEALTH_DEGRADED, .want_n = 1,
          .want_reason = "stale sample: nvml: helper timed out after 10 s", .want_action = ACT_STALE },
        { "stale without backend", STALE, .no_backend = true, .want = XPUD_HEALTH_DEGRADED, .want_n = 1,
          .want_reason = "stale sample: the last collection failed", .want_action = ACT_STALE },
        { "stale throttle is not current", STALE, .throttle_have = true, .throttle = T_THERMAL, .backend_down = true,
          .want = XPUD_HEALTH_DEGRADED, .want_n = 1, .want_reason = "stale sample: nvml: helper timed out after 10 s",
          .want_action = ACT_STALE },
        { "stale with uncorrected ECC", STALE, .ecc = true, .unc = 4, .backend_down = true,
          .want = XPUD_HEALTH_UNHEALTHY, .want_n = 2, .want_reason = "uncorrected ECC errors: 4", .want_action = ACT_ECC },
        { "thermal", FRESH, .throttle_have = true, .throttle = T_THERMAL, .want = XPUD_HEALTH_DEGRADED, .want_n = 1,
          .want_reason = "thermal throttling", .want_action = ACT_THERMAL },
        { "hardware slowdown", FRESH, .throttle_have = true, .throttle = T_HW, .want = XPUD_HEALTH_DEGRADED,
          .want_n = 1, .want_reason = "hardware slowdown", .want_action = ACT_HW },
        { "power cap", FRESH, .throttle_have = true, .throttle = T_POWER, .want = XPUD_HEALTH_DEGRADED, .want_n = 1,
          .want_reason = "power throttling (power cap)", .want_action = ACT_POWER },
        { "sync boost is no problem", FRESH, .throttle_have = true, .throttle = T_SYNC, .want = XPUD_HEALTH_HEALTHY,
          .want_n = 0, .want_action = "" },
        { "three throttle reasons", FRESH, .throttle_have = true, .throttle = T_POWER | T_HW | T_THERMAL,
          .want = XPUD_HEALTH_DEGRADED, .want_n = 3, .want_reason = "thermal throttling", .want_action = ACT_THERMAL },
        { "throttle bits without the bit", FRESH, .throttle = T_THERMAL, .want = XPUD_HEALTH_HEALTHY, .want_n = 0,
          .want_action = "" },
        { "corrected ECC storm", FRESH, .ecc = true, .corr = 110, .prev = true, .prev_corr = 100,
          .want = XPUD_HEALTH_DEGRADED, .want_n = 1, .want_reason = "corrected ECC errors growing: +10 in 10 s",
          .want_action = ACT_STORM },
        { "corrected ECC +9: below the minimum", FRESH, .ecc = true, .corr = 109, .prev = true, .prev_corr = 100,
          .want = XPUD_HEALTH_HEALTHY, .want_n = 0, .want_action = "" },
        { "corrected ECC +10 in an hour: below the rate", FRESH, .ecc = true, .corr = 110, .prev = true,
          .prev_corr = 100, .prev_dt = 3600, .want = XPUD_HEALTH_HEALTHY, .want_n = 0, .want_action = "" },
        { "corrected ECC +60 in a minute: at the rate", FRESH, .ecc = true, .corr = 160, .prev = true,
          .prev_corr = 100, .prev_dt = 360, .want = XPUD_HEALTH_DEGRADED, .want_n = 1,
          .want_reason = "corrected ECC errors growing: +60 in 360 s", .want_action = ACT_STORM },
        { "corrected ECC went down: driver reload", FRESH, .ecc = true, .corr = 20, .prev = true, .prev_corr = 500,
          .want = XPUD_HEALTH_HEALTHY, .want_n = 0, .want_action = "" },
        { "previous sample lost", FRESH, .ecc = true, .corr = 500, .prev = true, .prev_lost = true,
          .want = XPUD_HEALTH_HEALTHY, .want_n = 0, .want_action = "" },
        { "PCIe link at full width", FRESH, .link_now = 16, .link_max = 16, .want = XPUD_HEALTH_HEALTHY, .want_n = 0,
          .want_action = "" },
        { "PCIe link x8 of x16", FRESH, .link_now = 8, .link_max = 16, .want = XPUD_HEALTH_DEGRADED, .want_n = 1,
          .want_reason = "PCIe link x8 of x16 (trained narrower than it can be)", .want_action = ACT_PCIE },
        { "PCIe link width of a stale sample is not current", STALE, .link_now = 1, .link_max = 16, .backend_down = true,
          .want = XPUD_HEALTH_DEGRADED, .want_n = 1, .want_reason = "stale sample: nvml: helper timed out after 10 s",
          .want_action = ACT_STALE },
        { "row remap pending", FRESH, .remap = 1, .want = XPUD_HEALTH_DEGRADED, .want_n = 1,
          .want_reason = "row remapping pending: a reset applies it", .want_action = ACT_REMAP_PENDING },
        { "row remap failed", FRESH, .remap = 2, .want = XPUD_HEALTH_UNHEALTHY, .want_n = 1,
          .want_reason = "row remapping failed (2 rows remapped for uncorrectable errors)", .want_action = ACT_REMAP_FAILED },
        { "row remap failed and pending, stale", STALE, .remap = 3, .backend_down = true, .want = XPUD_HEALTH_UNHEALTHY,
          .want_n = 3, .want_reason = "row remapping failed (2 rows remapped for uncorrectable errors)",
          .want_action = ACT_REMAP_FAILED },
        { "rows remapped, nothing pending", FRESH, .remap = 4, .want = XPUD_HEALTH_HEALTHY, .want_n = 0, .want_action = "" },
        { "page retirement pending", FRESH, .retired = 1, .want = XPUD_HEALTH_DEGRADED, .want_n = 1,
          .want_reason = "page retirement pending (1 double-bit, 5 single-bit pages retired)", .want_action = ACT_RETIRE },
        { "pages retired, nothing pending", FRESH, .retired = 2, .want = XPUD_HEALTH_HEALTHY, .want_n = 0,
          .want_action = "" },
        { "ECC and thermal: worst first", FRESH, .ecc = true, .unc = 1, .throttle_have = true, .throttle = T_THERMAL,
          .want = XPUD_HEALTH_UNHEALTHY, .want_n = 2, .want_reason = "uncorrected ECC errors: 1", .want_action = ACT_ECC },
        { "five reasons, four kept", FRESH, .ecc = true, .unc = 1, .corr = 1000, .prev = true, .throttle_have = true,
          .throttle = T_POWER | T_HW | T_THERMAL, .want = XPUD_HEALTH_UNHEALTHY, .want_n = XPUD_REASONS_MAX,
          .want_reason = "uncorrected ECC errors: 1 (+1 since the previous sample)", .want_action = ACT_ECC },
};

START_TEST(test_health_rules) {
        const struct health_case *c = &cases[_i];
        struct xpud_device d = { 0 }, prev = { 0 };
        fx_device(&d, 0, XPU_VENDOR_NVIDIA, FX_UUID0, "0000:1a:00.0", "GPU");
        d.up = c->sample == FRESH;
        d.stale = c->sample == STALE;
        d.sample_time = c->sample == NONE ? 0 : FX_TIME;
        d.r.lost = c->lost;
        if (c->lost_reason)
                snprintf(d.r.lost_reason, sizeof d.r.lost_reason, "%s", c->lost_reason);
        d.r.have = (c->ecc ? XPU_READ_ECC : 0) | (c->throttle_have ? XPU_READ_THROTTLE : 0);
        d.r.ecc_uncorrected = c->unc;
        d.r.ecc_corrected = c->corr;
        d.r.throttle = c->throttle;
        if (c->link_max) {
                d.r.have |= XPU_READ_PCIE_WIDTH;
                d.r.pcie_link_width[XPU_LINK_CURRENT] = c->link_now;
                d.r.pcie_link_width[XPU_LINK_MAX] = c->link_max;
        }
        if (c->remap) {
                d.r.have |= XPU_READ_ROW_REMAP;
                d.r.remapped_rows[XPU_REPAIR_CORRECTABLE] = 7;
                d.r.remapped_rows[XPU_REPAIR_UNCORRECTABLE] = 2;
                d.r.remap_pending = c->remap & 1;
                d.r.remap_failed = c->remap & 2;
        }
        if (c->retired) {
                d.r.have |= XPU_READ_RETIRED_PAGES;
                d.r.retired_pages[XPU_REPAIR_CORRECTABLE] = 5;
                d.r.retired_pages[XPU_REPAIR_UNCORRECTABLE] = 1;
                d.r.retired_pending = c->retired == 1;
        }
        prev = d;
        prev.sample_time = FX_TIME - (c->prev_dt > 0 ? c->prev_dt : 10);
        prev.up = true;
        prev.stale = false;
        prev.r.lost = c->prev_lost;
        prev.r.have = XPU_READ_ECC;
        prev.r.ecc_uncorrected = c->prev_unc;
        prev.r.ecc_corrected = c->prev_corr;
        struct xpud_backend b = { .name = "nvml", .up = !c->backend_down };
        if (c->backend_down)
                snprintf(b.error, sizeof b.error, "%s", c->backend_error ? c->backend_error : "helper timed out after 10 s");
        /* stale reasons left from an earlier evaluation are cleared */
        d.n_reasons = 2;
        snprintf(d.reasons[1], sizeof d.reasons[1], "old");

        xpud_health_evaluate(&d, c->prev ? &prev : NULL, c->no_backend ? NULL : &b);
        ck_assert_msg(d.health == c->want, "%s: state %s, want %s", c->what, xpud_health_to_string(d.health),
                      xpud_health_to_string(c->want));
        ck_assert_msg(d.n_reasons == c->want_n, "%s: %zu reasons (first \"%s\")", c->what, d.n_reasons, d.reasons[0]);
        if (c->want_reason)
                ck_assert_msg(strcmp(d.reasons[0], c->want_reason) == 0, "%s: reason \"%s\"", c->what, d.reasons[0]);
        for (size_t i = d.n_reasons; i < XPUD_REASONS_MAX; i++)
                ck_assert_str_eq(d.reasons[i], "");
        if (c->want_action[0])
                ck_assert_msg(strncmp(d.action, c->want_action, strlen(c->want_action)) == 0, "%s: action \"%s\"",
                              c->what, d.action);
        else
                ck_assert_str_eq(d.action, "");
}
END_TEST

/* The vendor's thermal limits (readings.h enum xpu_temp_limit): shutdown → unhealthy, slowdown →
 * degraded, on fresh samples only; a limit not reported is no limit. */
#define ACT_TEMP_SHUTDOWN "drain this GPU's workloads and fix its cooling now"
static const struct temp_case {
        const char *what;
        enum sample_state sample;
        enum xpu_temp_sensor sensor;
        double temp, slowdown, shutdown; /* a limit <= 0: not reported */
        enum xpud_health want;
        const char *want_reason; /* NULL: no reason */
        const char *want_action;
} temp_cases[] = {
        { "junction below both limits", FRESH, XPU_TEMP_JUNCTION, 99, 100, 105, XPUD_HEALTH_HEALTHY, NULL, "" },
        { "junction at its slowdown limit", FRESH, XPU_TEMP_JUNCTION, 100, 100, 105, XPUD_HEALTH_DEGRADED,
          "junction temperature 100 °C at or above its slowdown limit 100 °C", ACT_THERMAL },
        { "junction 103 °C, slowdown 100", FRESH, XPU_TEMP_JUNCTION, 103, 100, 105, XPUD_HEALTH_DEGRADED,
          "junction temperature 103 °C at or above its slowdown limit 100 °C", ACT_THERMAL },
        { "junction at its shutdown limit", FRESH, XPU_TEMP_JUNCTION, 105, 100, 105, XPUD_HEALTH_UNHEALTHY,
          "junction temperature 105 °C at or above its shutdown limit 105 °C", ACT_TEMP_SHUTDOWN },
        { "gpu 115 °C, only a shutdown limit", FRESH, XPU_TEMP_GPU, 115, 0, 95, XPUD_HEALTH_UNHEALTHY,
          "gpu temperature 115 °C at or above its shutdown limit 95 °C", ACT_TEMP_SHUTDOWN },
        { "edge 52.5 °C above a 50.5 slowdown", FRESH, XPU_TEMP_EDGE, 52.5, 50.5, 0, XPUD_HEALTH_DEGRADED,
          "edge temperature 52.5 °C at or above its slowdown limit 50.5 °C", ACT_THERMAL },
        { "115 °C without limits stays healthy", FRESH, XPU_TEMP_JUNCTION, 115, 0, 0, XPUD_HEALTH_HEALTHY, NULL, "" },
        { "stale sample: no thermal verdict", STALE, XPU_TEMP_MEMORY, 120, 95, 105, XPUD_HEALTH_DEGRADED,
          "stale sample: nvml: helper timed out after 10 s", ACT_STALE },
};

START_TEST(test_health_temp_limits) {
        const struct temp_case *c = &temp_cases[_i];
        struct xpud_device d = { 0 };
        fx_device(&d, 0, XPU_VENDOR_AMD, FX_UUID0, "0000:1a:00.0", "GPU");
        d.up = c->sample == FRESH;
        d.stale = c->sample == STALE;
        d.sample_time = FX_TIME;
        d.r.have_temperature = 1u << c->sensor;
        d.r.temperature_celsius[c->sensor] = c->temp;
        /* another sensor, cool, with limits: never a reason */
        enum xpu_temp_sensor other = c->sensor == XPU_TEMP_EDGE ? XPU_TEMP_MEMORY : XPU_TEMP_EDGE;
        d.r.have_temperature |= 1u << other;
        d.r.temperature_celsius[other] = 30;
        d.r.temperature_limit_celsius[other][XPU_TEMP_LIMIT_SLOWDOWN] = 31;
        d.r.have_temperature_limit |= XPU_TEMP_LIMIT_BIT(other, XPU_TEMP_LIMIT_SLOWDOWN);
        if (c->slowdown > 0) {
                d.r.temperature_limit_celsius[c->sensor][XPU_TEMP_LIMIT_SLOWDOWN] = c->slowdown;
                d.r.have_temperature_limit |= XPU_TEMP_LIMIT_BIT(c->sensor, XPU_TEMP_LIMIT_SLOWDOWN);
        }
        if (c->shutdown > 0) {
                d.r.temperature_limit_celsius[c->sensor][XPU_TEMP_LIMIT_SHUTDOWN] = c->shutdown;
                d.r.have_temperature_limit |= XPU_TEMP_LIMIT_BIT(c->sensor, XPU_TEMP_LIMIT_SHUTDOWN);
        }
        struct xpud_backend b = { .name = "nvml", .up = c->sample == FRESH };
        if (c->sample != FRESH)
                snprintf(b.error, sizeof b.error, "helper timed out after 10 s");
        xpud_health_evaluate(&d, NULL, &b);
        ck_assert_msg(d.health == c->want, "%s: state %s", c->what, xpud_health_to_string(d.health));
        ck_assert_msg(d.n_reasons == (c->want_reason ? 1u : 0u), "%s: %zu reasons (first \"%s\")", c->what,
                      d.n_reasons, d.reasons[0]);
        if (c->want_reason)
                ck_assert_msg(strcmp(d.reasons[0], c->want_reason) == 0, "%s: reason \"%s\"", c->what, d.reasons[0]);
        ck_assert_msg(strncmp(d.action, c->want_action, strlen(c->want_action)) == 0 && (c->want_action[0] || !d.action[0]),
                      "%s: action \"%s\"", c->what, d.action);
}
END_TEST

START_TEST(test_health_order_and_match) {
        ck_assert_int_lt(xpud_health_rank(XPUD_HEALTH_HEALTHY), xpud_health_rank(XPUD_HEALTH_UNKNOWN));
        ck_assert_int_lt(xpud_health_rank(XPUD_HEALTH_UNKNOWN), xpud_health_rank(XPUD_HEALTH_DEGRADED));
        ck_assert_int_lt(xpud_health_rank(XPUD_HEALTH_DEGRADED), xpud_health_rank(XPUD_HEALTH_UNHEALTHY));

        struct xpud_snapshot *s = fx_snapshot();
        struct xpud_device d = s->devices[1];
        ck_assert_ptr_eq(xpud_snapshot_find_same(s, &d), &s->devices[1]);
        snprintf(d.dev.uuid, sizeof d.dev.uuid, "gpu-E28DB54C-aa74-5e20-7e8d-5db5f78f12fe"); /* any case */
        ck_assert_ptr_eq(xpud_snapshot_find_same(s, &d), &s->devices[1]);
        d.dev.uuid[0] = '\0'; /* no UUID: by bus id */
        ck_assert_ptr_eq(xpud_snapshot_find_same(s, &d), &s->devices[1]);
        d.dev.vendor = XPU_VENDOR_AMD;
        ck_assert_ptr_null(xpud_snapshot_find_same(s, &d));
        ck_assert_ptr_null(xpud_snapshot_find_same(NULL, &d));
        /* partitions of one AMD GPU share UUID and bus id: the partition number tells them apart */
        s->devices[3] = s->devices[2];
        s->devices[2].dev.have |= XPU_HAVE_PARTITION;
        s->devices[3].dev.have |= XPU_HAVE_PARTITION;
        s->devices[3].dev.partition = 1;
        struct xpud_device p = s->devices[3];
        ck_assert_ptr_eq(xpud_snapshot_find_same(s, &p), &s->devices[3]);
        p.dev.partition = 0;
        ck_assert_ptr_eq(xpud_snapshot_find_same(s, &p), &s->devices[2]);

        ck_assert_ptr_eq(xpud_snapshot_find_backend(s, "amdgpu_sysfs"), &s->backends[1]);
        ck_assert_ptr_null(xpud_snapshot_find_backend(s, "rocm_smi"));
        ck_assert_ptr_null(xpud_snapshot_find_backend(NULL, "nvml"));
        xpud_snapshot_unref(s);
}
END_TEST

START_TEST(test_ring) {
        struct xpud_events ev;
        ck_assert_int_eq(xpud_events_init(&ev, 3), 0);
        for (int i = 1; i <= 5; i++)
                xpud_events_add(&ev, 100 + i, "health", i % 2 ? "GPU-x" : NULL, "event %d", i);
        ck_assert_uint_eq(ev.n, 3);
        ck_assert_uint_eq(ev.dropped, 2);
        struct xpud_snapshot *s = xpud_snapshot_new();
        ck_assert_int_eq(xpud_events_copy_to(&ev, s), 0);
        ck_assert_uint_eq(s->n_events, 3);
        ck_assert_uint_eq(s->events_dropped, 2);
        for (int i = 0; i < 3; i++) { /* oldest first: 3, 4, 5 */
                char want[16];
                snprintf(want, sizeof want, "event %d", i + 3);
                ck_assert_str_eq(s->events[i].message, want);
                ck_assert_uint_eq(s->events[i].seq, (uint64_t)i + 3);
                ck_assert_double_eq(s->events[i].time, 103 + i);
                ck_assert_str_eq(s->events[i].kind, "health");
                ck_assert_str_eq(s->events[i].device, (i + 3) % 2 ? "GPU-x" : "");
        }
        xpud_snapshot_unref(s);

        /* a long message is cut, never overflows, and ends in "..." */
        char longmsg[600];
        memset(longmsg, 'x', sizeof longmsg - 1);
        longmsg[sizeof longmsg - 1] = '\0';
        xpud_events_add(&ev, 1, "backend_error", NULL, "%s", longmsg);
        const char *cut = ev.ring[(ev.head + ev.n - 1) % ev.cap].message;
        ck_assert_uint_eq(strlen(cut), sizeof ev.ring[0].message - 1);
        ck_assert_str_eq(cut + strlen(cut) - 4, "x...");
        /* a backend error line fits an event whole */
        xpud_events_add(&ev, 1, "backend_error", NULL, "%s: %s", "nvml", ERR_NOT_FOUND);
        ck_assert_str_eq(ev.ring[(ev.head + ev.n - 1) % ev.cap].message, "nvml: " ERR_NOT_FOUND);
        xpud_events_done(&ev);
        xpud_events_done(&ev); /* twice is fine */

        ck_assert_int_eq(xpud_events_init(&ev, 0), 0);
        ck_assert_uint_eq(ev.cap, XPUD_EVENTS_MAX_DEFAULT);
        ck_assert_uint_eq(ev.cap, 256);
        s = xpud_snapshot_new();
        ck_assert_int_eq(xpud_events_copy_to(&ev, s), 0); /* empty */
        ck_assert_uint_eq(s->n_events, 0);
        ck_assert_ptr_null(s->events);
        xpud_snapshot_unref(s);
        xpud_events_done(&ev);
}
END_TEST

/* Is S valid UTF-8 (no cut sequence)? */
static bool valid_utf8(const char *s) {
        const unsigned char *p = (const unsigned char *)s;
        while (*p) {
                size_t n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;
                if (n == 0)
                        return false;
                for (size_t i = 1; i < n; i++)
                        if ((p[i] & 0xc0) != 0x80)
                                return false;
                p += n;
        }
        return true;
}

START_TEST(test_text_cut) {
        char buf[16];
        ck_assert(xpud_text_cut(buf, sizeof buf, "%s %d", "fits", 15));
        ck_assert_str_eq(buf, "fits 15");
        ck_assert(xpud_text_cut(buf, sizeof buf, "%s", "exactly 15 byte"));
        ck_assert_str_eq(buf, "exactly 15 byte");
        /* one byte too many: 12 bytes kept and "..." */
        ck_assert(!xpud_text_cut(buf, sizeof buf, "%s", "libnvidia-ml.so.1 not found"));
        ck_assert_str_eq(buf, "libnvidia-ml...");
        ck_assert_uint_eq(strlen(buf), sizeof buf - 1);
        /* a cut that would split "é" (2 bytes) or "€" (3 bytes) falls before it */
        ck_assert(!xpud_text_cut(buf, sizeof buf, "%s", "abcdefghijk\xc3\xa9 more"));
        ck_assert_str_eq(buf, "abcdefghijk...");
        ck_assert(valid_utf8(buf));
        ck_assert(!xpud_text_cut(buf, sizeof buf, "%s", "abcdefghij\xe2\x82\xac more"));
        ck_assert_str_eq(buf, "abcdefghij...");
        ck_assert(valid_utf8(buf));
        ck_assert(!xpud_text_cut(buf, sizeof buf, "%s", "abcdefghijkl\xe2\x82\xac!"));
        ck_assert_str_eq(buf, "abcdefghijkl...");
        /* too small for the mark: empty, never torn */
        char tiny[3];
        ck_assert(!xpud_text_cut(tiny, sizeof tiny, "%s", "abcdef"));
        ck_assert_str_eq(tiny, "");

        /* a health reason keeps a long backend error whole, and cuts a longer one visibly */
        struct xpud_device d;
        fx_device(&d, 0, XPU_VENDOR_NVIDIA, FX_UUID0, "0000:1a:00.0", "GPU");
        d.up = false;
        struct xpud_backend b = { .name = "nvml", .up = false };
        memset(b.error, 'e', sizeof b.error - 1);
        b.error[sizeof b.error - 1] = '\0';
        xpud_health_evaluate(&d, NULL, &b);
        ck_assert_uint_eq(strlen(d.reasons[0]), strlen("no good sample yet: nvml: ") + sizeof b.error - 1);
        ck_assert(xpu_startswith(d.reasons[0], "no good sample yet: nvml: eeee"));
        d.up = true;
        d.r.lost = true;
        memset(d.r.lost_reason, 'l', sizeof d.r.lost_reason - 1);
        d.r.lost_reason[sizeof d.r.lost_reason - 1] = '\0';
        xpud_health_evaluate(&d, NULL, &b);
        ck_assert_uint_eq(strlen(d.reasons[0]), strlen("fell off the bus: ") + sizeof d.r.lost_reason - 1);
        ck_assert_uint_ge(sizeof d.reasons[0], 384);
}
END_TEST

/* The fixture with every device fresh and healthy and every backend up, at time T. */
static struct xpud_snapshot *fx_healthy(double t) {
        struct xpud_snapshot *s = fx_snapshot();
        s->collect_time = t;
        for (size_t i = 0; i < s->n_devices; i++) {
                struct xpud_device *d = &s->devices[i];
                d->up = true;
                d->stale = false;
                d->r.lost = false;
                d->r.lost_reason[0] = '\0';
                d->r.throttle = 0;
                d->sample_time = t;
        }
        for (size_t i = 0; i < s->n_backends; i++) {
                s->backends[i].up = true;
                s->backends[i].error[0] = '\0';
        }
        for (size_t i = 0; i < s->n_devices; i++)
                xpud_health_evaluate(&s->devices[i], NULL, &s->backends[0]);
        return s;
}

static void expect(const struct xpud_events *ev, size_t from, const char *const (*want)[3], size_t n, double t) {
        ck_assert_uint_eq(ev->n - from, n);
        for (size_t i = 0; i < n; i++) {
                const struct xpud_event *e = &ev->ring[(ev->head + from + i) % ev->cap];
                ck_assert_str_eq(e->kind, want[i][0]);
                ck_assert_str_eq(e->device, want[i][1]);
                ck_assert_str_eq(e->message, want[i][2]);
                ck_assert_double_eq(e->time, t);
        }
}

#define AMD_ERR "/sys/class/drm/card1/device/gpu_busy_percent: Input/output error"
#define GONE "/sys/bus/pci/devices/0000:c1:00.0 is gone"

START_TEST(test_events_diff) {
        struct xpud_events ev;
        ck_assert_int_eq(xpud_events_init(&ev, 0), 0);
        struct xpud_snapshot *good = fx_healthy(FX_TIME - 10), *bad = fx_snapshot(), *again = fx_healthy(FX_TIME + 10);

        /* first sample: backends down and devices not healthy are recorded */
        xpud_events_diff(&ev, NULL, bad);
        static const char *const first[][3] = {
                { "backend_error", "", "amdgpu_sysfs: " AMD_ERR },
                { "health", FX_UUID1, "gpu 1 (0000:1b:00.0): unknown -> degraded: thermal throttling" },
                { "device_lost", FX_UUID2, "gpu 2 (0000:c1:00.0) fell off the bus: " GONE },
                { "health", FX_UUID2, "gpu 2 (0000:c1:00.0): unknown -> unhealthy: fell off the bus: " GONE },
                { "health", FX_UUID3, "gpu 3 (0000:c2:00.0): unknown -> degraded: stale sample: amdgpu_sysfs: " AMD_ERR },
        };
        expect(&ev, 0, first, ELEMENTSOF(first), FX_TIME);
        size_t n = ev.n;

        /* nothing changed: nothing recorded; a healthy first sample records nothing */
        xpud_events_diff(&ev, bad, bad);
        xpud_events_diff(&ev, NULL, good);
        xpud_events_diff(&ev, good, good);
        ck_assert_uint_eq(ev.n, n);

        /* good -> bad */
        xpud_events_diff(&ev, good, bad);
        static const char *const worse[][3] = {
                { "backend_error", "", "amdgpu_sysfs: " AMD_ERR },
                { "health", FX_UUID1, "gpu 1 (0000:1b:00.0): healthy -> degraded: thermal throttling" },
                { "device_lost", FX_UUID2, "gpu 2 (0000:c1:00.0) fell off the bus: " GONE },
                { "health", FX_UUID2, "gpu 2 (0000:c1:00.0): healthy -> unhealthy: fell off the bus: " GONE },
                { "health", FX_UUID3, "gpu 3 (0000:c2:00.0): healthy -> degraded: stale sample: amdgpu_sysfs: " AMD_ERR },
        };
        expect(&ev, n, worse, ELEMENTSOF(worse), FX_TIME);
        n = ev.n;

        /* bad -> good again: recovery */
        xpud_events_diff(&ev, bad, again);
        static const char *const better[][3] = {
                { "backend_up", "", "amdgpu_sysfs is back" },
                { "health", FX_UUID1, "gpu 1 (0000:1b:00.0): degraded -> healthy" },
                { "device_back", FX_UUID2, "gpu 2 (0000:c1:00.0) is back" },
                { "health", FX_UUID2, "gpu 2 (0000:c1:00.0): unhealthy -> healthy" },
                { "health", FX_UUID3, "gpu 3 (0000:c2:00.0): degraded -> healthy" },
        };
        expect(&ev, n, better, ELEMENTSOF(better), FX_TIME + 10);
        n = ev.n;

        /* a device that disappears from the inventory, then comes back */
        struct xpud_snapshot *fewer = fx_healthy(FX_TIME + 20);
        fewer->devices[0] = fewer->devices[3];
        fewer->n_devices = 3;
        xpud_events_diff(&ev, again, fewer);
        static const char *const gone[][3] = {
                { "device_lost", FX_UUID0, "gpu 0 (0000:1a:00.0) is no longer listed" },
        };
        expect(&ev, n, gone, ELEMENTSOF(gone), FX_TIME + 20);
        n = ev.n;
        xpud_events_diff(&ev, fewer, again);
        static const char *const back[][3] = {
                { "device_back", FX_UUID0, "gpu 0 (0000:1a:00.0) is back" },
        };
        expect(&ev, n, back, ELEMENTSOF(back), FX_TIME + 10);
        n = ev.n;
        xpud_snapshot_unref(fewer);

        /* a device without a UUID is matched and named by its PCI bus id */
        struct xpud_snapshot *nouuid = fx_healthy(FX_TIME + 30);
        nouuid->devices[0].dev.uuid[0] = '\0';
        nouuid->devices[0].up = false;
        nouuid->devices[0].r.lost = true;
        xpud_health_evaluate(&nouuid->devices[0], NULL, &nouuid->backends[0]);
        xpud_events_diff(&ev, again, nouuid);
        static const char *const lost[][3] = {
                { "device_lost", "0000:1a:00.0", "gpu 0 (0000:1a:00.0) fell off the bus: no reason given" },
                { "health", "0000:1a:00.0", "gpu 0 (0000:1a:00.0): healthy -> unhealthy: fell off the bus" },
        };
        expect(&ev, n, lost, ELEMENTSOF(lost), FX_TIME + 30);
        xpud_snapshot_unref(nouuid);

        /* a lost device that then disappears is not reported twice */
        n = ev.n;
        struct xpud_snapshot *vanished = fx_snapshot();
        vanished->collect_time = FX_TIME + 40;
        vanished->devices[2] = vanished->devices[3];
        vanished->n_devices = 3;
        xpud_events_diff(&ev, bad, vanished);
        ck_assert_uint_eq(ev.n, n);
        xpud_snapshot_unref(vanished);

        xpud_snapshot_unref(good);
        xpud_snapshot_unref(bad);
        xpud_snapshot_unref(again);
        xpud_events_done(&ev);
}
END_TEST

static Suite *health_suite(void) {
        Suite *s = suite_create("xpud-health");
        TCase *tc = tcase_create("core");
        tcase_add_loop_test(tc, test_health_rules, 0, (int)ELEMENTSOF(cases));
        tcase_add_loop_test(tc, test_health_temp_limits, 0, (int)ELEMENTSOF(temp_cases));
        tcase_add_test(tc, test_health_order_and_match);
        tcase_add_test(tc, test_ring);
        tcase_add_test(tc, test_text_cut);
        tcase_add_test(tc, test_events_diff);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(health_suite());
}
