/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the pod-resources reply decoder (daemon/podres.h, xpud_podres_decode()) on one
 * input taken as a ListPodResourcesResponse payload, as the kubelet's List call delivers it after
 * gRPC's 5-byte prefix.
 *
 * Checked besides memory safety (abort() when broken): the result is 0, -EPROTO or -EMSGSIZE
 * (-ENOMEM tolerated); a decoded list keeps every limit of podres.h, every string is printable
 * (no byte below 0x20, no DEL) and at most XPUD_PODRES_STRING_MAX bytes, a claim holds its '/',
 * and the list frees cleanly. Corpus: tests/fuzz/corpus/xpud-podres/ (replies packed by
 * tests/e2e/fake-kubelet.py's message classes: the three vendors' device plugins, DRA claims,
 * empty and CPU-only pods, unknown fields). */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "podres.h"

static void check_string(const char *s) {
        if (!s || strlen(s) > XPUD_PODRES_STRING_MAX * 2 + 1)
                abort();
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
                if (*p < 0x20 || *p == 0x7f)
                        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        uint8_t *msg = fuzz_memdup(data, size);
        if (!msg)
                return 0;
        struct xpud_podres_list l;
        char err[256];
        int r = xpud_podres_decode(msg, size, &l, err, sizeof err);
        if (r != 0 && r != -EPROTO && r != -EMSGSIZE && r != -ENOMEM)
                abort();
        if (r < 0 && strncmp(err, "pod-resources reply: ", 21) != 0)
                abort();
        if (r == 0) {
                size_t ids = 0;
                if (l.n_allocs > XPUD_PODRES_ALLOCS_MAX || (l.n_allocs && !l.allocs))
                        abort();
                for (size_t i = 0; i < l.n_allocs; i++) {
                        const struct xpud_podres_alloc *a = &l.allocs[i];
                        check_string(a->pod_namespace);
                        check_string(a->pod);
                        check_string(a->container);
                        check_string(a->resource);
                        if (a->claim) {
                                check_string(a->claim);
                                if (!strchr(a->claim, '/'))
                                        abort();
                        }
                        for (size_t k = 0; k < a->n_ids; k++)
                                check_string(a->ids[k]);
                        ids += a->n_ids;
                }
                if (ids > XPUD_PODRES_IDS_MAX)
                        abort();
        }
        xpud_podres_list_free(&l);
        free(msg);
        return 0;
}
