/* SPDX-License-Identifier: Apache-2.0 */
/* startbench: whole-process start-up time of a few commands, measured in exact alternation.
 *
 *   startbench [-n RUNS] [-w WARMUP] -- NAME CMD [ARG...] [::: NAME CMD [ARG...]]...
 *
 * One round runs every command once, in the order given (A B C A B C ...); WARMUP rounds are run
 * first and not recorded, then RUNS rounds are. One run is fork + execve(CMD) + waitpid, timed
 * with CLOCK_MONOTONIC from just before fork() to just after waitpid() returns, so the fork of
 * this small harness is in every sample alike. CMD must be a path (no PATH search, so the search
 * is not timed); the child's stdin, stdout and stderr are /dev/null, its environment is ours.
 *
 * The CPU time of each run (user + system of the child and the descendants it waited for, from
 * wait4()) is recorded too: it does not grow when other work shares the CPUs, so it shows the
 * cost of a command where wall time on a busy machine is noisy.
 *
 * Output: a table (microseconds: median, 10th and 90th percentile, mean, min, max of wall time;
 * median CPU time), then one line per command for scripts:
 *   RESULT name=NAME runs=N median_us=F p10_us=F p90_us=F mean_us=F min_us=F max_us=F cpu_median_us=F failures=N
 * Exit status: 0; 1 when any run did not exit 0 (the samples are still printed); 2 on bad usage
 * or when fork fails. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stats.h"

#define MARKER ":::"
#define CMDS_MAX 16
#define RUNS_MAX 100000

extern char **environ;

struct cmd {
        const char *name;
        char **argv;       /* NULL-terminated, points into our argv */
        double *samples;   /* wall time, microseconds, RUNS entries */
        double *cpu;       /* CPU time (user + system), microseconds, RUNS entries */
        unsigned failures; /* runs that did not exit 0 */
        int last_status;   /* wait status of the last failed run */
};

static double tv_us(struct timeval tv) {
        return (double)tv.tv_sec * 1e6 + (double)tv.tv_usec;
}

/* Run C once with DEVNULL as its stdio. Returns the elapsed wall time in microseconds and stores
 * the CPU time in *RET_CPU_US, or returns -1 when fork() or wait4() fails. Counts a run that does
 * not exit 0 in C->failures. */
static double run_once(struct cmd *c, int devnull, double *ret_cpu_us) {
        struct rusage ru;
        int status = 0;
        double t0 = bench_now_us();
        pid_t pid = fork();
        if (pid < 0)
                return -1;
        if (pid == 0) {
                for (int fd = 0; fd <= 2; fd++)
                        if (dup2(devnull, fd) < 0)
                                _exit(126);
                execve(c->argv[0], c->argv, environ);
                _exit(127);
        }
        while (wait4(pid, &status, 0, &ru) < 0)
                if (errno != EINTR)
                        return -1;
        double t1 = bench_now_us();
        *ret_cpu_us = tv_us(ru.ru_utime) + tv_us(ru.ru_stime);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                c->failures++;
                c->last_status = status;
        }
        return t1 - t0;
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

static void usage(void) {
        fputs("usage: startbench [-n RUNS] [-w WARMUP] -- NAME CMD [ARG...] [::: NAME CMD [ARG...]]...\n",
              stderr);
}

int main(int argc, char **argv) {
        long runs = 300, warmup = 20;
        struct cmd cmds[CMDS_MAX] = { 0 };
        size_t n_cmds = 0;
        int opt;

        while ((opt = getopt(argc, argv, "n:w:")) != -1) {
                long *dst = opt == 'n' ? &runs : opt == 'w' ? &warmup : NULL;
                if (!dst || parse_count(optarg, opt == 'n' ? 1 : 0, RUNS_MAX, dst) < 0) {
                        usage();
                        return 2;
                }
        }

        /* Split the rest at the markers; each group is NAME CMD [ARG...]. The markers are
         * overwritten with NULL so every group's argv is terminated in place. */
        for (int i = optind; i < argc;) {
                int end = i;
                while (end < argc && strcmp(argv[end], MARKER) != 0)
                        end++;
                if (end - i < 2 || n_cmds == CMDS_MAX || argv[i + 1][0] != '/') {
                        fprintf(stderr, "startbench: each command needs a name and an absolute path (at most %d commands)\n",
                                CMDS_MAX);
                        usage();
                        return 2;
                }
                cmds[n_cmds].name = argv[i];
                cmds[n_cmds].argv = &argv[i + 1];
                n_cmds++;
                if (end < argc)
                        argv[end] = NULL;
                i = end + 1;
        }
        if (n_cmds == 0) {
                usage();
                return 2;
        }

        int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (devnull < 0) {
                perror("startbench: /dev/null");
                return 2;
        }
        for (size_t c = 0; c < n_cmds; c++) {
                cmds[c].samples = calloc((size_t)runs, sizeof(double));
                cmds[c].cpu = calloc((size_t)runs, sizeof(double));
                if (!cmds[c].samples || !cmds[c].cpu) {
                        perror("startbench");
                        return 2;
                }
        }

        for (long r = -warmup; r < runs; r++)
                for (size_t c = 0; c < n_cmds; c++) {
                        unsigned failed_before = cmds[c].failures;
                        double cpu_us = 0;
                        double us = run_once(&cmds[c], devnull, &cpu_us);
                        if (us < 0) {
                                perror("startbench: fork/waitpid");
                                return 2;
                        }
                        if (r < 0)
                                cmds[c].failures = failed_before; /* warm-up runs are not counted */
                        else {
                                cmds[c].samples[r] = us;
                                cmds[c].cpu[r] = cpu_us;
                        }
                }

        bool any_failed = false;
        printf("%-20s %6s %10s %10s %10s %10s %10s %10s %10s %8s\n", "command", "runs", "median_us", "p10_us",
               "p90_us", "mean_us", "min_us", "max_us", "cpu_med_us", "failures");
        for (size_t c = 0; c < n_cmds; c++) {
                double *v = cmds[c].samples, sum = 0;
                size_t n = (size_t)runs;
                bench_sort(v, n);
                bench_sort(cmds[c].cpu, n);
                for (size_t i = 0; i < n; i++)
                        sum += v[i];
                printf("%-20s %6zu %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %8u\n", cmds[c].name, n,
                       bench_percentile(v, n, 0.5), bench_percentile(v, n, 0.1), bench_percentile(v, n, 0.9), sum / (double)n,
                       v[0], v[n - 1], bench_percentile(cmds[c].cpu, n, 0.5), cmds[c].failures);
        }
        for (size_t c = 0; c < n_cmds; c++) {
                const double *v = cmds[c].samples;
                size_t n = (size_t)runs;
                double sum = 0;
                for (size_t i = 0; i < n; i++)
                        sum += v[i];
                printf("RESULT name=%s runs=%zu median_us=%.1f p10_us=%.1f p90_us=%.1f mean_us=%.1f min_us=%.1f max_us=%.1f cpu_median_us=%.1f failures=%u\n",
                       cmds[c].name, n, bench_percentile(v, n, 0.5), bench_percentile(v, n, 0.1), bench_percentile(v, n, 0.9),
                       sum / (double)n, v[0], v[n - 1], bench_percentile(cmds[c].cpu, n, 0.5), cmds[c].failures);
                if (cmds[c].failures) {
                        int st = cmds[c].last_status;
                        fprintf(stderr, "startbench: %s: %u runs failed (last: %s %d)\n", cmds[c].name,
                                cmds[c].failures, WIFEXITED(st) ? "exit status" : "signal",
                                WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
                        any_failed = true;
                }
                free(cmds[c].samples);
                free(cmds[c].cpu);
        }
        close(devnull);
        return any_failed ? 1 : 0;
}
