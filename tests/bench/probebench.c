/* SPDX-License-Identifier: Apache-2.0 */
/* probebench: in-process time of one fast-path probe (procfs/sysfs/dev) of a host tree.
 *
 *   probebench [-n ITERATIONS] [-w WARMUP] [-d DEVICES] NAME DIR [NAME DIR]...
 *
 * For each DIR (used as sys, dev and driver root, as the unit tests do) one iteration is
 * xpu_roots_open() + xpu_inventory_probe() + xpu_inventory_free() + xpu_roots_close(), timed with
 * CLOCK_MONOTONIC. WARMUP iterations run first and are not recorded (they fill the dentry and
 * page caches). With -d, every probe must find DEVICES devices, so a broken fixture or probe
 * cannot pass as a fast one.
 *
 * Output: a table (microseconds per probe), then one line per host for scripts:
 *   RESULT name=NAME iterations=N devices=N warnings=N median_us=F p10_us=F p90_us=F mean_us=F max_us=F
 * Exit status: 0; 1 when a probe fails or finds another number of devices than -d; 2 on usage. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stats.h"

#include "probe.h"

#define ITER_MAX 1000000

struct host_result {
        size_t devices, warnings;
        double median, p10, p90, mean, max;
};

/* One probe of DIR. Stores the device and warning counts. Returns 0 or -errno. */
static int probe_once(const char *dir, size_t *ret_devices, size_t *ret_warnings) {
        struct xpu_roots roots;
        struct xpu_inventory *inv = NULL;
        const char *which = NULL;

        int r = xpu_roots_open(&roots, dir, dir, dir, &which);
        if (r < 0)
                return r;
        r = xpu_inventory_probe(&roots, &inv);
        if (r == 0) {
                *ret_devices = inv->n_devices;
                *ret_warnings = inv->n_warnings;
        }
        xpu_inventory_free(inv);
        xpu_roots_close(&roots);
        return r;
}

/* Time ITER probes of DIR after WARMUP untimed ones into *RES. Returns 0 or -errno. */
static int bench_host(const char *dir, long iter, long warmup, double *samples, struct host_result *res) {
        size_t devices = 0, warnings = 0;
        double sum = 0;

        for (long i = -warmup; i < iter; i++) {
                double t0 = bench_now_us();
                int r = probe_once(dir, &devices, &warnings);
                double t1 = bench_now_us();
                if (r < 0)
                        return r;
                if (i >= 0)
                        samples[i] = t1 - t0;
        }
        bench_sort(samples, (size_t)iter);
        for (long i = 0; i < iter; i++)
                sum += samples[i];
        *res = (struct host_result){
                .devices = devices,
                .warnings = warnings,
                .median = bench_percentile(samples, (size_t)iter, 0.5),
                .p10 = bench_percentile(samples, (size_t)iter, 0.1),
                .p90 = bench_percentile(samples, (size_t)iter, 0.9),
                .mean = sum / (double)iter,
                .max = samples[iter - 1],
        };
        return 0;
}

static int parse_count(const char *s, long min, long max, long *ret) {
        char *end = NULL;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

int main(int argc, char **argv) {
        long iter = 2000, warmup = 200, want_devices = -1;
        int opt;

        while ((opt = getopt(argc, argv, "n:w:d:")) != -1) {
                long *dst = opt == 'n' ? &iter : opt == 'w' ? &warmup : opt == 'd' ? &want_devices : NULL;
                if (!dst || parse_count(optarg, opt == 'n' ? 1 : 0, ITER_MAX, dst) < 0) {
                        fputs("usage: probebench [-n ITERATIONS] [-w WARMUP] [-d DEVICES] NAME DIR [NAME DIR]...\n",
                              stderr);
                        return 2;
                }
        }
        if (optind >= argc || (argc - optind) % 2 != 0) {
                fputs("usage: probebench [-n ITERATIONS] [-w WARMUP] [-d DEVICES] NAME DIR [NAME DIR]...\n", stderr);
                return 2;
        }

        double *samples = calloc((size_t)iter, sizeof(double));
        if (!samples) {
                perror("probebench");
                return 2;
        }

        int ret = 0;
        printf("%-24s %10s %8s %9s %10s %10s %10s %10s %10s\n", "host", "iterations", "devices", "warnings",
               "median_us", "p10_us", "p90_us", "mean_us", "max_us");
        for (int i = optind; i + 1 < argc; i += 2) {
                const char *name = argv[i], *dir = argv[i + 1];
                struct host_result res;
                int r = bench_host(dir, iter, warmup, samples, &res);
                if (r < 0) {
                        fprintf(stderr, "probebench: %s (%s): probe failed: %s\n", name, dir, strerror(-r));
                        ret = 1;
                        continue;
                }
                if (want_devices >= 0 && res.devices != (size_t)want_devices) {
                        fprintf(stderr, "probebench: %s (%s): found %zu devices, expected %ld\n", name, dir,
                                res.devices, want_devices);
                        ret = 1;
                }
                printf("%-24s %10ld %8zu %9zu %10.1f %10.1f %10.1f %10.1f %10.1f\n", name, iter, res.devices,
                       res.warnings, res.median, res.p10, res.p90, res.mean, res.max);
                printf("RESULT name=%s iterations=%ld devices=%zu warnings=%zu median_us=%.1f p10_us=%.1f p90_us=%.1f mean_us=%.1f max_us=%.1f\n",
                       name, iter, res.devices, res.warnings, res.median, res.p10, res.p90, res.mean, res.max);
        }
        free(samples);
        return ret;
}
