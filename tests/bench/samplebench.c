/* SPDX-License-Identifier: Apache-2.0 */
/* samplebench: in-process time of one xpud sample of an AMD host tree (a benchmark),
 * three ways:
 *
 *   samplebench [-n ITERATIONS] [-w WARMUP] [-d DEVICES] DIR
 *
 *   sample    xpud_sampler_sample(): what xpud's sampler thread does every --interval (fast-path
 *             inventory, the amdgpu_sysfs backend, health, events, a new snapshot published);
 *             DIR is the sys, dev and driver root (a tests/rocm/mkamdsys.sh tree or a fixture host)
 *   readings  xpu_amd_readings_read_cached() for every AMD device of one inventory probed once (one
 *             cache across rounds, as the sampler keeps it): only the
 *             sysfs/hwmon reads and their parsing, as librocm_smi does them after rsmi_init()
 *             (tests/bench/rocmbench.c times the library on the same tree)
 *   render    the /metrics body of the last snapshot rendered from scratch (xpud renders it once
 *             per snapshot, at the first request)
 *
 * Each is timed with CLOCK_MONOTONIC over ITERATIONS runs (default 500) after WARMUP untimed ones
 * (default 50), with the dentry and page caches warm. With -d every sample must hold DEVICES
 * devices, each with readings, so a broken tree cannot pass as a fast one.
 *
 * Output: a table, then one line per way for scripts:
 *   RESULT name=sample|readings|render iterations=N devices=N median_us=F p10_us=F p90_us=F mean_us=F
 *          max_us=F [backend_us=F]
 * (sample's backend_us is the median amdgpu_sysfs collection time xpud measured itself, the
 * xpud_collect_duration_seconds{backend="amdgpu_sysfs"} of the snapshot.)
 * Exit status: 0; 1 when a sample fails or the device count is wrong; 2 on bad usage. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats.h"

#include "amd/amd-readings.h"
#include "base/log.h"
#include "base/macro.h"
#include "base/str.h"
#include "probe.h"
#include "sampler.h"
#include "server.h"
#include "snapshot.h"

#define ITER_MAX 1000000

struct result {
        double median, p10, p90, mean, max;
};

static struct result summarize(double *v, size_t n) {
        double sum = 0;
        bench_sort(v, n);
        for (size_t i = 0; i < n; i++)
                sum += v[i];
        return (struct result){
                .median = bench_percentile(v, n, 0.5),
                .p10 = bench_percentile(v, n, 0.1),
                .p90 = bench_percentile(v, n, 0.9),
                .mean = sum / (double)n,
                .max = v[n - 1],
        };
}

static void print_result(const char *name, long iter, size_t devices, const struct result *r, double backend_us) {
        printf("%-10s %10ld %8zu %10.1f %10.1f %10.1f %10.1f %10.1f\n", name, iter, devices, r->median, r->p10, r->p90,
               r->mean, r->max);
        printf("RESULT name=%s iterations=%ld devices=%zu median_us=%.1f p10_us=%.1f p90_us=%.1f mean_us=%.1f "
               "max_us=%.1f",
               name, iter, devices, r->median, r->p10, r->p90, r->mean, r->max);
        if (backend_us >= 0)
                printf(" backend_us=%.1f", backend_us);
        putchar('\n');
}

/* The AMD devices of S that have readings; -1 when S is NULL. */
static long devices_with_readings(const struct xpud_snapshot *s) {
        long n = 0;
        if (!s)
                return -1;
        for (size_t i = 0; i < s->n_devices; i++)
                if (s->devices[i].up && s->devices[i].r.have != 0)
                        n++;
        return n;
}

/* Time ITER samples (after WARMUP) of DIR through xpud's sampler, then ITER renders of /metrics
 * of the last snapshot. Returns 0 or -errno; 1 when the device count is not WANT. */
static int bench_sample(const char *dir, long iter, long warmup, long want, double *t, double *backend) {
        struct xpud_store store;
        struct xpud_sampler *smp = NULL;
        struct xpud_sampler_options o = { .sys_root = dir, .dev_root = dir, .driver_root = dir, .interval_s = 1,
                                          .vendor_timeout_s = 10 };
        size_t devices = 0;
        int ret = 0;

        xpud_store_init(&store);
        int r = xpud_sampler_new(&o, &store, NULL, NULL, &smp);
        if (r < 0) {
                fprintf(stderr, "samplebench: xpud_sampler_new(%s): %s\n", dir, strerror(-r));
                xpud_store_done(&store);
                return r;
        }
        for (long i = -warmup; i < iter && ret == 0; i++) {
                double t0 = bench_now_us();
                r = xpud_sampler_sample(smp);
                double t1 = bench_now_us();
                struct xpud_snapshot *s = xpud_store_acquire(&store);
                long n = devices_with_readings(s);
                if (r < 0 || (want >= 0 && n != want)) {
                        fprintf(stderr, "samplebench: sample %ld of %s: %s, %ld device(s) with readings\n", i, dir,
                                r < 0 ? strerror(-r) : "ok", n);
                        ret = r < 0 ? r : 1;
                }
                if (i >= 0 && s) {
                        t[i] = t1 - t0;
                        backend[i] = -1;
                        for (size_t b = 0; b < s->n_backends; b++)
                                if (strcmp(s->backends[b].name, "amdgpu_sysfs") == 0)
                                        backend[i] = s->backends[b].collect_seconds * 1e6;
                        devices = s->n_devices;
                }
                xpud_snapshot_unref(s);
        }
        if (ret == 0) {
                struct result res = summarize(t, (size_t)iter);
                struct result b = summarize(backend, (size_t)iter);
                print_result("sample", iter, devices, &res, b.median);

                /* /metrics of the last snapshot, rendered ITER times on fresh copies of the cache. */
                struct xpud_snapshot *s = xpud_store_acquire(&store);
                for (long i = -warmup; s && i < iter && ret == 0; i++) {
                        struct xpud_body body;
                        struct xpud_body_cache *c = &s->cache[XPUD_ROUTE_METRICS];
                        free(c->data);
                        *c = (struct xpud_body_cache){ 0 };
                        double t0 = bench_now_us();
                        r = xpud_route_body(s, XPUD_ROUTE_METRICS, &body);
                        double t1 = bench_now_us();
                        if (r < 0 || body.len == 0)
                                ret = r < 0 ? r : 1;
                        else if (i >= 0)
                                t[i] = t1 - t0;
                }
                if (s && ret == 0) {
                        res = summarize(t, (size_t)iter);
                        print_result("render", iter, devices, &res, -1);
                }
                xpud_snapshot_unref(s);
        }
        xpud_sampler_free(smp);
        xpud_store_done(&store);
        return ret;
}

/* Time ITER rounds (after WARMUP) of xpu_amd_readings_read_cached() over every AMD device of DIR,
 * with one cache for the whole run, as xpud's sampler keeps one. */
static int bench_readings(const char *dir, long iter, long warmup, long want, double *t) {
        struct xpu_roots roots;
        struct xpu_inventory *inv = NULL;
        const char *which = NULL;
        char err[256];
        int r = xpu_roots_open(&roots, dir, dir, dir, &which);
        if (r < 0) {
                fprintf(stderr, "samplebench: cannot open the roots at %s (%s): %s\n", dir, which ? which : "?",
                        strerror(-r));
                return r;
        }
        r = xpu_inventory_probe(&roots, &inv);
        if (r < 0) {
                fprintf(stderr, "samplebench: probe of %s: %s\n", dir, strerror(-r));
                xpu_roots_close(&roots);
                return r;
        }
        long n_amd = 0;
        int ret = 0;
        struct xpu_amd_cache *cache = xpu_amd_cache_new();
        if (!cache)
                ret = -ENOMEM;
        for (long i = -warmup; i < iter && ret == 0; i++) {
                long good = 0;
                double t0 = bench_now_us();
                for (size_t d = 0; d < inv->n_devices; d++) {
                        struct xpu_readings rd;
                        if (inv->devices[d].vendor != XPU_VENDOR_AMD)
                                continue;
                        if (xpu_amd_readings_read_cached(&roots, &inv->devices[d], cache, inv, &rd, err, sizeof err) == 0 &&
                            rd.have != 0)
                                good++;
                }
                double t1 = bench_now_us();
                if (want >= 0 && good != want) {
                        fprintf(stderr, "samplebench: readings of %s: %ld device(s) with readings, want %ld\n", dir,
                                good, want);
                        ret = 1;
                }
                n_amd = good;
                if (i >= 0)
                        t[i] = t1 - t0;
        }
        if (ret == 0) {
                struct result res = summarize(t, (size_t)iter);
                print_result("readings", iter, (size_t)n_amd, &res, -1);
        }
        xpu_amd_cache_free(cache);
        xpu_inventory_free(inv);
        xpu_roots_close(&roots);
        return ret;
}

static int parse_count(const char *s, uint64_t min, uint64_t max, long *ret) {
        uint64_t v;
        if (xpu_parse_u64(s, 10, &v) < 0 || v < min || v > max)
                return -EINVAL;
        *ret = (long)v;
        return 0;
}

int main(int argc, char **argv) {
        long iter = 500, warmup = 50, want = -1;
        int opt;

        while ((opt = getopt(argc, argv, "n:w:d:")) != -1) {
                long *dst = opt == 'n' ? &iter : opt == 'w' ? &warmup : opt == 'd' ? &want : NULL;
                if (!dst || parse_count(optarg, opt == 'n' ? 1 : 0, ITER_MAX, dst) < 0) {
                        fputs("usage: samplebench [-n ITERATIONS] [-w WARMUP] [-d DEVICES] DIR\n", stderr);
                        return 2;
                }
        }
        if (optind + 1 != argc) {
                fputs("usage: samplebench [-n ITERATIONS] [-w WARMUP] [-d DEVICES] DIR\n", stderr);
                return 2;
        }
        xpu_log_set_level(XPU_LOG_ERROR);
        _cleanup_free_ double *t = calloc((size_t)iter, sizeof(double));
        _cleanup_free_ double *backend = calloc((size_t)iter, sizeof(double));
        if (!t || !backend) {
                perror("samplebench");
                return 2;
        }
        printf("%-10s %10s %8s %10s %10s %10s %10s %10s\n", "what", "iterations", "devices", "median_us", "p10_us",
               "p90_us", "mean_us", "max_us");
        int r = bench_sample(argv[optind], iter, warmup, want, t, backend);
        if (r == 0)
                r = bench_readings(argv[optind], iter, warmup, want, t);
        return r == 0 ? 0 : 1;
}
