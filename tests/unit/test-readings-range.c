/* SPDX-License-Identifier: Apache-2.0 */
/* probes/readings-range.c (the plausibility bounds of live readings) and their use in
 * probes/nvidia/nvidia-readings.c: NVML's "not available" values (UINT32_MAX, UINT64_MAX) and impossible
 * values are left out of struct xpu_readings with one inventory warning naming the device and the
 * NVML call; plausible values, the bounds themselves included, are kept. (The amdgpu side is in
 * test-amd-readings.c.) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nvidia/nvidia-nvml.h"
#include "readings-range.h"
#include "testlib.h"

START_TEST(test_bounds) {
        static const struct {
                enum xpu_reading_kind kind;
                double v;
                const char *want; /* NULL: plausible */
        } cases[] = {
                { XPU_READING_PERCENT, 0, NULL },
                { XPU_READING_PERCENT, 100, NULL },
                { XPU_READING_PERCENT, 101, "outside 0..100 %" },
                { XPU_READING_PERCENT, -1, "outside 0..100 %" },
                { XPU_READING_CELSIUS, -50, NULL },
                { XPU_READING_CELSIUS, 200, NULL },
                { XPU_READING_CELSIUS, 41.5, NULL },
                { XPU_READING_CELSIUS, -50.001, "outside -50..200 degrees Celsius" },
                { XPU_READING_CELSIUS, 200.5, "outside -50..200 degrees Celsius" },
                { XPU_READING_CELSIUS, 4294967295.0, "outside -50..200 degrees Celsius" },
                { XPU_READING_CELSIUS, NAN, "outside -50..200 degrees Celsius" },
                { XPU_READING_WATTS, 0, NULL },
                { XPU_READING_WATTS, 10000, NULL },
                { XPU_READING_WATTS, 10000.001, "outside 0..10 kW" },
                { XPU_READING_WATTS, 4294967.295, "outside 0..10 kW" },
                { XPU_READING_WATTS, -1, "outside 0..10 kW" },
                { XPU_READING_HERTZ, 10e9, NULL },
                { XPU_READING_HERTZ, 10e9 + 1, "outside 0..10 GHz" },
                { XPU_READING_HERTZ, 4294967295e6, "outside 0..10 GHz" },
                { XPU_READING_BYTES, 1125899906842624.0, NULL },
                { XPU_READING_BYTES, 1125899906842625.0, "outside 0..1 PiB" },
                { XPU_READING_BYTES, 18446744073709551615.0, "outside 0..1 PiB" },
                { XPU_READING_COUNT, 18446744073709551615.0, NULL }, /* counters: only the sentinel check */
                { _XPU_READING_KIND_MAX, 1e300, NULL },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const char *got = xpu_reading_out_of_range(cases[i].kind, cases[i].v);
                if (cases[i].want)
                        ck_assert_msg(got && strcmp(got, cases[i].want) == 0, "case %zu: %g: \"%s\"", i, cases[i].v,
                                      got ? got : "(null)");
                else
                        ck_assert_msg(!got, "case %zu: %g: \"%s\"", i, cases[i].v, got);
        }
        ck_assert_str_eq(xpu_reading_sentinel(UINT64_MAX), "UINT64_MAX, a vendor's \"not available\"");
        ck_assert_str_eq(xpu_reading_sentinel(UINT32_MAX), "UINT32_MAX, a vendor's \"not available\"");
        ck_assert_ptr_null(xpu_reading_sentinel(0));
        ck_assert_ptr_null(xpu_reading_sentinel(UINT32_MAX - 1ull));
        ck_assert_ptr_null(xpu_reading_sentinel(UINT32_MAX + 1ull));
        /* the sentinel wins over the range */
        ck_assert_str_eq(xpu_reading_implausible(XPU_READING_WATTS, UINT32_MAX, 4294967.295),
                         "UINT32_MAX, a vendor's \"not available\"");
        ck_assert_str_eq(xpu_reading_implausible(XPU_READING_COUNT, UINT64_MAX, 0), "UINT64_MAX, a vendor's \"not available\"");
        ck_assert_ptr_null(xpu_reading_implausible(XPU_READING_COUNT, 12345, 12345));
}
END_TEST

/* An H100 as the helper read it, every reading plausible. */
static struct xpu_nvml_device good_device(void) {
        struct xpu_nvml_device d = { 0 };
        snprintf(d.pci_bus_id, sizeof d.pci_bus_id, "0000:1a:00.0");
        snprintf(d.uuid, sizeof d.uuid, "GPU-307dcc96-618a-4416-c1ef-87823c2e1a31");
        d.utilization_gpu_percent = 100;
        d.utilization_memory_percent = 12;
        d.memory_used_bytes = 911212544;
        d.memory_total_bytes = 85899345920ull;
        d.temperature_celsius = 41;
        d.power_usage_milliwatts = 71234;
        d.power_limit_milliwatts = 700000;
        d.energy_millijoules = 123456789012ull;
        d.clock_sm_hz = 1980000000ull;
        d.clock_memory_hz = 2619000000ull;
        d.ecc_corrected = 3;
        d.ecc_uncorrected = 1;
        d.clock_event_reasons = 0x20;
        d.have = XPU_NVML_HAVE_UTIL_GPU | XPU_NVML_HAVE_UTIL_MEMORY | XPU_NVML_HAVE_MEMORY_USED |
                 XPU_NVML_HAVE_MEMORY_TOTAL | XPU_NVML_HAVE_TEMPERATURE | XPU_NVML_HAVE_POWER_USAGE |
                 XPU_NVML_HAVE_POWER_LIMIT | XPU_NVML_HAVE_ENERGY | XPU_NVML_HAVE_CLOCK_SM | XPU_NVML_HAVE_CLOCK_MEMORY |
                 XPU_NVML_HAVE_ECC_CORRECTED | XPU_NVML_HAVE_ECC_UNCORRECTED | XPU_NVML_HAVE_CLOCK_EVENTS;
        return d;
}

START_TEST(test_nvml_plausible_kept) {
        struct xpu_nvml_device d = good_device();
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        struct xpu_readings r;
        ck_assert_int_eq(xpu_nvml_device_readings_checked(&d, inv, &r), 0);
        ck_assert_uint_eq(inv->n_warnings, 0);
        ck_assert_uint_eq(r.have, XPU_READ_UTILIZATION | XPU_READ_MEMORY_UTILIZATION | XPU_READ_MEMORY_USED |
                                          XPU_READ_MEMORY_TOTAL | XPU_READ_POWER | XPU_READ_POWER_LIMIT |
                                          XPU_READ_ENERGY | XPU_READ_ECC | XPU_READ_THROTTLE);
        ck_assert_double_eq(r.utilization_ratio, 1);
        ck_assert_double_eq(r.temperature_celsius[XPU_TEMP_GPU], 41);
        ck_assert_double_eq(r.power_watts, 71.234);
        ck_assert_double_eq(r.power_limit_watts, 700);
        ck_assert_double_eq(r.energy_joules, 123456789.012);
        ck_assert_uint_eq(r.clock_hertz[XPU_CLOCK_MEMORY], 2619000000ull);
        ck_assert_uint_eq(r.ecc_corrected, 3);
        ck_assert_uint_eq(r.ecc_uncorrected, 1);
        ck_assert_uint_eq(r.throttle, 1u << XPU_THROTTLE_THERMAL);
        xpu_inventory_free(inv);
}
END_TEST

#define W(call, raw, why) "nvml: 0000:1a:00.0: " call " answered " raw ": " why "; left out"
#define U32 "UINT32_MAX, a vendor's \"not available\""
#define U64 "UINT64_MAX, a vendor's \"not available\""

/* What the adversarial review saw served: 4294967295 degrees, 4294967.295 W, 18446744073709551615
 * corrected ECC errors, 4.29e15 Hz. Each is left out with one warning; the rest stays. */
START_TEST(test_nvml_sentinels_left_out) {
        struct xpu_nvml_device d = good_device();
        d.temperature_celsius = UINT32_MAX;
        d.power_usage_milliwatts = UINT32_MAX;
        d.power_limit_milliwatts = 12000000; /* 12 kW */
        d.ecc_corrected = UINT64_MAX;
        d.clock_sm_hz = (uint64_t)UINT32_MAX * 1000000u; /* UINT32_MAX MHz in hertz */
        d.memory_total_bytes = UINT64_MAX;
        d.energy_millijoules = UINT64_MAX;
        d.utilization_memory_percent = UINT32_MAX;
        d.clock_event_reasons = UINT64_MAX;
        static const char *const want[] = {
                W("nvmlDeviceGetUtilizationRates(memory)", "4294967295 %", U32),
                W("nvmlDeviceGetMemoryInfo(total)", "18446744073709551615 bytes", U64),
                W("nvmlDeviceGetTemperature(GPU)", "4294967295 degrees Celsius", U32),
                W("nvmlDeviceGetPowerUsage", "4294967295 mW", U32),
                W("nvmlDeviceGetEnforcedPowerLimit", "12000000 mW", "outside 0..10 kW"),
                W("nvmlDeviceGetTotalEnergyConsumption", "18446744073709551615 mJ", U64),
                W("nvmlDeviceGetClockInfo(SM)", "4294967295000000 Hz", "outside 0..10 GHz"),
                W("nvmlDeviceGetTotalEccErrors(CORRECTED, VOLATILE)", "18446744073709551615 errors", U64),
                W("nvmlDeviceGetCurrentClocksEventReasons", "18446744073709551615 (bitmask)", U64),
        };
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        struct xpu_readings r;
        ck_assert_int_eq(xpu_nvml_device_readings_checked(&d, inv, &r), (int)ELEMENTSOF(want));
        ck_assert_uint_eq(inv->n_warnings, ELEMENTSOF(want));
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                ck_assert_str_eq(inv->warnings[i], want[i]);
        /* left out: their bits clear; ECC needs both counts */
        ck_assert_uint_eq(r.have, XPU_READ_UTILIZATION | XPU_READ_MEMORY_USED);
        ck_assert_uint_eq(r.have_temperature, 0);
        ck_assert_uint_eq(r.have_clock, 1u << XPU_CLOCK_MEMORY);
        ck_assert_uint_eq(r.ecc_uncorrected, 0);
        ck_assert_uint_eq(r.memory_used_bytes, 911212544);

        /* the same without warnings: the same values left out */
        struct xpu_readings q;
        xpu_nvml_device_readings(&d, &q);
        ck_assert_int_eq(memcmp(&q, &r, sizeof q), 0);
        xpu_inventory_free(inv);

        /* a device without a bus id is named by its UUID */
        d = good_device();
        d.pci_bus_id[0] = '\0';
        d.temperature_celsius = 201;
        inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        ck_assert_int_eq(xpu_nvml_device_readings_checked(&d, inv, &r), 1);
        ck_assert_str_eq(inv->warnings[0], "nvml: GPU-307dcc96-618a-4416-c1ef-87823c2e1a31: nvmlDeviceGetTemperature(GPU) "
                                           "answered 201 degrees Celsius: outside -50..200 degrees Celsius; left out");
        xpu_inventory_free(inv);

        /* a lost device: lost, no readings, no warnings */
        d = good_device();
        d.lost = true;
        d.temperature_celsius = UINT32_MAX;
        snprintf(d.lost_reason, sizeof d.lost_reason, "nvmlDeviceGetPowerUsage failed: GPU is lost (error 15)");
        ck_assert_int_eq(xpu_nvml_device_readings_checked(&d, NULL, &r), 0);
        ck_assert(r.lost);
        ck_assert_uint_eq(r.have | r.have_temperature | r.have_clock, 0);
}
END_TEST

static Suite *range_suite(void) {
        Suite *s = suite_create("readings-range");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_bounds);
        tcase_add_test(tc, test_nvml_plausible_kept);
        tcase_add_test(tc, test_nvml_sentinels_left_out);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(range_suite());
}
