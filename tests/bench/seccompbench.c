/* SPDX-License-Identifier: Apache-2.0 */
/* seccompbench: what a seccomp filter costs a whole start on this kernel, the way xpuinit's
 * workload pays it: fork, no_new_privs + the filter, exec of /bin/true, waitpid, for no filter,
 * a one-instruction filter (what any filter costs: the kernel's copy, check, JIT image and its
 * free at reap) and the built-in filters a workload can have ("default", "strict"), in exact
 * alternation.
 *
 *   seccompbench [-n ROUNDS] [-w WARMUP]
 *
 * Output: one line per variant: instructions, median and 10th/90th percentile of the wall time
 * in microseconds, and the median minus the no-filter median. Exit status: 0; 1 when a run
 * failed; 2 on bad usage. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/seccomp.h"

#define VARIANTS_MAX 8

static double now_us(void) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

/* One run: fork, load FPROG (NULL: none), exec /bin/true, wait. Returns the wall time or -1. */
static double run_once(const struct sock_fprog *fprog) {
        double t0 = now_us();
        pid_t c = fork();
        if (c < 0)
                return -1;
        if (c == 0) {
                if (fprog && (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
                              syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, fprog) < 0))
                        _exit(1);
                char *argv[] = { (char *)"/bin/true", NULL };
                execv(argv[0], argv);
                _exit(127);
        }
        int st;
        if (waitpid(c, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
                return -1;
        return now_us() - t0;
}

int main(int argc, char **argv) {
        unsigned rounds = 500, warmup = 20;
        for (int o; (o = getopt(argc, argv, "n:w:")) != -1;) {
                char *end;
                unsigned long v = strtoul(optarg, &end, 10);
                if (*end || v == 0 || v > 100000) {
                        fprintf(stderr, "seccompbench: -%c wants a number from 1 to 100000\n", o);
                        return 2;
                }
                if (o == 'n')
                        rounds = (unsigned)v;
                else
                        warmup = (unsigned)v;
        }
        static const struct sock_filter allow[] = { BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
        /* ("xpud" denies execve: it cannot start a workload, so it is not measured here.) */
        static const char *const specs[] = { "default", "strict" };
        struct {
                const char *name;
                struct sock_fprog fprog;
                bool none;
        } v[VARIANTS_MAX] = {
                { "none", { 0, NULL }, true },
                { "one instruction", { 1, (struct sock_filter *)allow }, false },
        };
        size_t n = 2;
        struct xpu_seccomp_program *progs[2] = { NULL };
        for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
                char err[256];
                if (xpu_seccomp_build(specs[i], -1, &progs[i], err, sizeof err) < 0) {
                        fprintf(stderr, "seccompbench: %s: %s\n", specs[i], err);
                        return 2;
                }
                v[n].name = specs[i];
                v[n].fprog.len = (unsigned short)xpu_seccomp_size(progs[i]);
                v[n].fprog.filter = (struct sock_filter *)xpu_seccomp_insns(progs[i]);
                n++;
        }
        double *t = calloc(n * rounds, sizeof(double));
        if (!t)
                return 2;
        for (unsigned r = 0; r < warmup + rounds; r++)
                for (size_t i = 0; i < n; i++) {
                        double d = run_once(v[i].none ? NULL : &v[i].fprog);
                        if (d < 0) {
                                fprintf(stderr, "seccompbench: a run with %s failed\n", v[i].name);
                                return 1;
                        }
                        if (r >= warmup)
                                t[i * rounds + (r - warmup)] = d;
                }
        double base = 0;
        printf("%-16s %6s %10s %10s %10s %10s\n", "filter", "insns", "median_us", "p10_us", "p90_us", "added_us");
        for (size_t i = 0; i < n; i++) {
                double *s = t + i * rounds;
                qsort(s, rounds, sizeof(double), cmp_double);
                double med = s[rounds / 2];
                if (i == 0)
                        base = med;
                printf("%-16s %6u %10.1f %10.1f %10.1f %10.1f\n", v[i].name, v[i].none ? 0 : v[i].fprog.len, med,
                       s[rounds / 10], s[rounds * 9 / 10], med - base);
        }
        for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++)
                xpu_seccomp_free(progs[i]);
        free(t);
        return 0;
}
