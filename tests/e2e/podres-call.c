/* SPDX-License-Identifier: Apache-2.0 */
/* Test driver of the pod-resources client (daemon/podres.h), for tests/e2e/xpud-podres-client.sh
 * and the other e2e tests that use tests/e2e/fake-kubelet.py:
 *
 *   podres-call SOCKET [TIMEOUT_MS]
 *
 * calls xpud_podres_call() once and prints, on stdout:
 *   pods N                                            on success, then one line per allocation:
 *   NAMESPACE/POD/CONTAINER RESOURCE CLAIM ID,ID...   CLAIM "-" for a device plugin, "-" for no ids
 *   error ENAME MESSAGE                               on failure (ENAME: the errno's name)
 *   elapsed_ms N                                      always last: the call's own time, CLOCK_MONOTONIC
 * Exit status by error class: 0 ok, 2 usage, 3 no kubelet (ENOENT, ECONNREFUSED, EACCES,
 * ENAMETOOLONG), 4 ETIMEDOUT, 5 EPROTO, 6 EMSGSIZE, 7 ECONNRESET, 8 ENOMEM, 1 anything else. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "podres.h"

static int exit_code(int e) {
        switch (e) {
        case ENOENT:
        case ECONNREFUSED:
        case EACCES:
        case ENAMETOOLONG:
                return 3;
        case ETIMEDOUT:
                return 4;
        case EPROTO:
                return 5;
        case EMSGSIZE:
                return 6;
        case ECONNRESET:
                return 7;
        case ENOMEM:
                return 8;
        default:
                return 1;
        }
}

int main(int argc, char **argv) {
        if (argc < 2 || argc > 3) {
                fprintf(stderr, "usage: podres-call SOCKET [TIMEOUT_MS]\n");
                return 2;
        }
        unsigned timeout_ms = XPUD_PODRES_TIMEOUT_MS;
        if (argc == 3) {
                char *end;
                errno = 0;
                unsigned long v = strtoul(argv[2], &end, 10);
                if (errno || *end || end == argv[2] || v == 0 || v > 600000) {
                        fprintf(stderr, "podres-call: TIMEOUT_MS must be 1..600000, not '%s'\n", argv[2]);
                        return 2;
                }
                timeout_ms = (unsigned)v;
        }
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        struct xpud_podres_list l;
        char err[512];
        int r = xpud_podres_call(argv[1], timeout_ms, &l, err, sizeof err);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
        if (r < 0) {
                const char *name = strerrorname_np(-r);
                printf("error %s %s\n", name ? name : "E?", err);
        } else {
                printf("pods %zu\n", l.n_pods);
                for (size_t i = 0; i < l.n_allocs; i++) {
                        const struct xpud_podres_alloc *a = &l.allocs[i];
                        printf("%s/%s/%s %s %s ", a->pod_namespace, a->pod, a->container,
                               a->resource[0] ? a->resource : "-", a->claim ? a->claim : "-");
                        for (size_t k = 0; k < a->n_ids; k++)
                                printf("%s%s", k ? "," : "", a->ids[k]);
                        printf("%s\n", a->n_ids ? "" : "-");
                }
        }
        printf("elapsed_ms %ld\n", ms);
        xpud_podres_list_free(&l);
        return r < 0 ? exit_code(-r) : 0;
}
