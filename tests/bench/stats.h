/* SPDX-License-Identifier: Apache-2.0 */
/* Timing and percentiles shared by the benchmark programs (header-only). */
#pragma once

#include <stddef.h>
#include <stdlib.h>
#include <time.h>

/* CLOCK_MONOTONIC in microseconds. */
static inline double bench_now_us(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static inline int bench_cmp_double(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;
        return (x > y) - (x < y);
}

/* Sort the N values V ascending (for bench_percentile). */
static inline void bench_sort(double *v, size_t n) {
        qsort(v, n, sizeof(double), bench_cmp_double);
}

/* Percentile Q (0..1) of the N sorted values V, linearly interpolated between ranks. */
static inline double bench_percentile(const double *v, size_t n, double q) {
        double pos = q * (double)(n - 1);
        size_t lo = (size_t)pos;
        if (lo + 1 >= n)
                return v[n - 1];
        return v[lo] + (v[lo + 1] - v[lo]) * (pos - (double)lo);
}
