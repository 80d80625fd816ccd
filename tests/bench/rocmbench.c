/* SPDX-License-Identifier: Apache-2.0 */
/* rocmbench: the real ROCm SMI library (librocm_smi64, Debian librocm-smi64-1 5.2.3) doing the
 * reads of one xpud AMD sample, timed (a benchmark). Reads /sys, so it is run inside
 * tests/rocm/amdsys-run.sh over a tests/rocm/mkamdsys.sh tree:
 *
 *   amdsys-run.sh TREE -- rocmbench [-n ITERATIONS] [-w WARMUP] [-c COLD] [-d DEVICES] [-l LIBRARY]
 *
 * Per device, the calls that give what xpud reads from amdgpu sysfs (probes/amd/amd-readings.h):
 * rsmi_dev_busy_percent_get, rsmi_dev_memory_busy_percent_get, rsmi_dev_memory_total_get and
 * rsmi_dev_memory_usage_get (VRAM), rsmi_dev_temp_metric_get (edge, junction, memory; current),
 * rsmi_dev_power_ave_get, rsmi_dev_power_cap_get, rsmi_dev_energy_count_get,
 * rsmi_dev_gpu_clk_freq_get (sys, mem, soc) and rsmi_dev_ecc_count_get (UMC). A call the tree
 * cannot answer returns an error status and is simply not counted, as xpud leaves that reading out.
 *
 *   warm  rsmi_init() once, then one timed round of all the calls on every device per iteration
 *         (ITERATIONS, default 500, after WARMUP, default 50): a daemon that keeps the library
 *         initialised, the same work as samplebench's "readings"
 *   cold  rsmi_init() + rsmi_num_monitor_devices() + the round + rsmi_shut_down() per iteration
 *         (COLD, default 50): a collector that starts the library for each sample
 *
 * The library is dlopen()ed (LIBRARY, default librocm_smi64.so.1): no -dev package is needed; the
 * prototypes below are rocm_smi.h's of 5.2.3. With -d the library must see DEVICES devices and read
 * a VRAM total on each, so a run against the wrong /sys cannot pass.
 * Output: a table, then per mode
 *   RESULT name=warm|cold iterations=N devices=N values=N median_us=F p10_us=F p90_us=F mean_us=F max_us=F
 * (values = readings answered in one round, all devices).
 * Exit status: 0; 1 when the library fails or sees the wrong devices; 2 on bad usage or no library. */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats.h"

#include "base/macro.h"
#include "base/str.h"

#define ITER_MAX 1000000
#define RSMI_MAX_NUM_FREQUENCIES 32

typedef uint32_t rsmi_st; /* rsmi_status_t; 0 = RSMI_STATUS_SUCCESS */
typedef struct {
        uint32_t num_supported, current;
        uint64_t frequency[RSMI_MAX_NUM_FREQUENCIES];
} rsmi_frequencies_t;
typedef struct {
        uint64_t correctable_err, uncorrectable_err;
} rsmi_error_count_t;

/* rocm_smi.h 5.2.3 enum values used here. */
enum {
        MEM_TYPE_VRAM = 0,
        TEMP_CURRENT = 0,
        TEMP_EDGE = 0,
        TEMP_JUNCTION = 1,
        TEMP_MEMORY = 2,
        CLK_SYS = 0,
        CLK_SOC = 3,
        CLK_MEM = 4,
        BLOCK_UMC = 1,
};

static struct {
        rsmi_st (*init)(uint64_t flags);
        rsmi_st (*shut_down)(void);
        rsmi_st (*num_devices)(uint32_t *n);
        rsmi_st (*busy)(uint32_t dv, uint32_t *pct);
        rsmi_st (*mem_busy)(uint32_t dv, uint32_t *pct);
        rsmi_st (*mem_total)(uint32_t dv, uint32_t type, uint64_t *bytes);
        rsmi_st (*mem_usage)(uint32_t dv, uint32_t type, uint64_t *bytes);
        rsmi_st (*temp)(uint32_t dv, uint32_t sensor, uint32_t metric, int64_t *millidegrees);
        rsmi_st (*power_ave)(uint32_t dv, uint32_t sensor, uint64_t *microwatts);
        rsmi_st (*power_cap)(uint32_t dv, uint32_t sensor, uint64_t *microwatts);
        rsmi_st (*energy)(uint32_t dv, uint64_t *count, float *resolution, uint64_t *timestamp);
        rsmi_st (*clk)(uint32_t dv, uint32_t type, rsmi_frequencies_t *f);
        rsmi_st (*ecc)(uint32_t dv, uint32_t block, rsmi_error_count_t *ec);
} api;

static const struct {
        const char *name;
        void **slot;
} symbols[] = {
        { "rsmi_init", (void **)&api.init },
        { "rsmi_shut_down", (void **)&api.shut_down },
        { "rsmi_num_monitor_devices", (void **)&api.num_devices },
        { "rsmi_dev_busy_percent_get", (void **)&api.busy },
        { "rsmi_dev_memory_busy_percent_get", (void **)&api.mem_busy },
        { "rsmi_dev_memory_total_get", (void **)&api.mem_total },
        { "rsmi_dev_memory_usage_get", (void **)&api.mem_usage },
        { "rsmi_dev_temp_metric_get", (void **)&api.temp },
        { "rsmi_dev_power_ave_get", (void **)&api.power_ave },
        { "rsmi_dev_power_cap_get", (void **)&api.power_cap },
        { "rsmi_dev_energy_count_get", (void **)&api.energy },
        { "rsmi_dev_gpu_clk_freq_get", (void **)&api.clk },
        { "rsmi_dev_ecc_count_get", (void **)&api.ecc },
};

/* One round of every call on devices 0..N-1. Returns the readings answered; *RET_VRAM = the
 * devices whose VRAM total was read and is above 0. */
static unsigned round_once(uint32_t n, uint32_t *ret_vram) {
        static const uint32_t sensors[] = { TEMP_EDGE, TEMP_JUNCTION, TEMP_MEMORY };
        static const uint32_t clocks[] = { CLK_SYS, CLK_MEM, CLK_SOC };
        unsigned values = 0;
        uint32_t vram = 0;

        for (uint32_t dv = 0; dv < n; dv++) {
                uint32_t u32;
                uint64_t u64, ts;
                int64_t i64;
                float res;
                rsmi_frequencies_t f;
                rsmi_error_count_t ec;

                values += api.busy(dv, &u32) == 0;
                values += api.mem_busy(dv, &u32) == 0;
                if (api.mem_total(dv, MEM_TYPE_VRAM, &u64) == 0) {
                        values++;
                        vram += u64 > 0;
                }
                values += api.mem_usage(dv, MEM_TYPE_VRAM, &u64) == 0;
                for (size_t s = 0; s < ELEMENTSOF(sensors); s++)
                        values += api.temp(dv, sensors[s], TEMP_CURRENT, &i64) == 0;
                values += api.power_ave(dv, 0, &u64) == 0;
                values += api.power_cap(dv, 0, &u64) == 0;
                values += api.energy(dv, &u64, &res, &ts) == 0;
                for (size_t c = 0; c < ELEMENTSOF(clocks); c++)
                        values += api.clk(dv, clocks[c], &f) == 0;
                values += api.ecc(dv, BLOCK_UMC, &ec) == 0;
        }
        *ret_vram = vram;
        return values;
}

static void report(const char *name, double *t, long iter, uint32_t devices, unsigned values) {
        double sum = 0;
        bench_sort(t, (size_t)iter);
        for (long i = 0; i < iter; i++)
                sum += t[i];
        double med = bench_percentile(t, (size_t)iter, 0.5), p10 = bench_percentile(t, (size_t)iter, 0.1),
               p90 = bench_percentile(t, (size_t)iter, 0.9), mean = sum / (double)iter, max = t[iter - 1];
        printf("%-6s %10ld %8u %7u %10.1f %10.1f %10.1f %10.1f %10.1f\n", name, iter, devices, values, med, p10, p90,
               mean, max);
        printf("RESULT name=%s iterations=%ld devices=%u values=%u median_us=%.1f p10_us=%.1f p90_us=%.1f "
               "mean_us=%.1f max_us=%.1f\n",
               name, iter, devices, values, med, p10, p90, mean, max);
}

/* The device count and a check round; 0, or 1 when the devices are not the ones wanted. */
static int check_devices(uint32_t n, long want) {
        uint32_t vram = 0;
        (void)round_once(n, &vram);
        if (want >= 0 && (n != (uint32_t)want || vram != (uint32_t)want)) {
                fprintf(stderr, "rocmbench: the library sees %u device(s), %u with a VRAM total; want %ld\n", n, vram,
                        want);
                return 1;
        }
        return 0;
}

static int parse_count(const char *s, uint64_t min, long *ret) {
        uint64_t v;
        if (xpu_parse_u64(s, 10, &v) < 0 || v < min || v > ITER_MAX)
                return -EINVAL;
        *ret = (long)v;
        return 0;
}

int main(int argc, char **argv) {
        long iter = 500, warmup = 50, cold = 50, want = -1;
        const char *lib = "librocm_smi64.so.1";
        int opt;

        while ((opt = getopt(argc, argv, "n:w:c:d:l:")) != -1) {
                long *dst = opt == 'n' ? &iter : opt == 'w' ? &warmup : opt == 'c' ? &cold : opt == 'd' ? &want : NULL;
                if (opt == 'l') {
                        lib = optarg;
                        continue;
                }
                if (!dst || parse_count(optarg, opt == 'n' || opt == 'c' ? 1 : 0, dst) < 0) {
                        fputs("usage: rocmbench [-n ITERATIONS] [-w WARMUP] [-c COLD] [-d DEVICES] [-l LIBRARY]\n",
                              stderr);
                        return 2;
                }
        }
        if (optind != argc) {
                fputs("usage: rocmbench [-n ITERATIONS] [-w WARMUP] [-c COLD] [-d DEVICES] [-l LIBRARY]\n", stderr);
                return 2;
        }
        void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
                fprintf(stderr, "rocmbench: %s\n", dlerror());
                return 2;
        }
        for (size_t i = 0; i < ELEMENTSOF(symbols); i++) {
                *symbols[i].slot = dlsym(h, symbols[i].name);
                if (!*symbols[i].slot) {
                        fprintf(stderr, "rocmbench: %s has no %s\n", lib, symbols[i].name);
                        return 2;
                }
        }
        long n_t = iter > cold ? iter : cold;
        _cleanup_free_ double *t = calloc((size_t)n_t, sizeof(double));
        if (!t) {
                perror("rocmbench");
                return 2;
        }
        printf("%-6s %10s %8s %7s %10s %10s %10s %10s %10s\n", "mode", "iterations", "devices", "values", "median_us",
               "p10_us", "p90_us", "mean_us", "max_us");

        /* warm: one rsmi_init for the whole run. */
        uint32_t n = 0;
        unsigned values = 0;
        if (api.init(0) != 0 || api.num_devices(&n) != 0) {
                fprintf(stderr, "rocmbench: rsmi_init or rsmi_num_monitor_devices failed\n");
                return 1;
        }
        if (check_devices(n, want) != 0)
                return 1;
        for (long i = -warmup; i < iter; i++) {
                uint32_t vram;
                double t0 = bench_now_us();
                values = round_once(n, &vram);
                double t1 = bench_now_us();
                if (i >= 0)
                        t[i] = t1 - t0;
        }
        report("warm", t, iter, n, values);
        api.shut_down();

        /* cold: the library started and stopped around every round. */
        for (long i = -(warmup < cold ? warmup : cold); i < cold; i++) {
                uint32_t vram;
                double t0 = bench_now_us();
                if (api.init(0) != 0 || api.num_devices(&n) != 0) {
                        fprintf(stderr, "rocmbench: rsmi_init failed in the cold loop\n");
                        return 1;
                }
                values = round_once(n, &vram);
                api.shut_down();
                double t1 = bench_now_us();
                if (i >= 0)
                        t[i] = t1 - t0;
        }
        report("cold", t, cold, n, values);
        return 0;
}
