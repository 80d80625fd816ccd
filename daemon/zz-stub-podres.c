/* SPDX-License-Identifier: Apache-2.0 */
/* Stand-in for daemon/podres.c (branch wt-grpc) until it is merged: no pod-resources client, every
 * call fails with -ENOSYS. Removed when the real client lands. */
#include "podres.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int xpud_podres_decode(const uint8_t *msg, size_t len, struct xpud_podres_list *out, char *err, size_t err_size) {
        (void)msg;
        (void)len;
        memset(out, 0, sizeof *out);
        snprintf(err, err_size, "pod-resources reply: this build has no decoder");
        return -ENOSYS;
}

int xpud_podres_call(const char *socket_path, unsigned timeout_ms, struct xpud_podres_list *out, char *err,
                     size_t err_size) {
        (void)timeout_ms;
        memset(out, 0, sizeof *out);
        snprintf(err, err_size, "%s: this build has no pod-resources client", socket_path);
        return -ENOSYS;
}

void xpud_podres_list_free(struct xpud_podres_list *l) {
        if (l)
                memset(l, 0, sizeof *l);
}
