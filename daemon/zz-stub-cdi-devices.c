/* SPDX-License-Identifier: Apache-2.0 */
/* Stand-in for daemon/cdi-devices.c (branch wt-cdi) until it is merged: no CDI spec is read, every
 * load fails with -ENOSYS. Removed when the real reader lands. */
#include "cdi-devices.h"

#include <errno.h>
#include <stdio.h>

int xpud_cdi_devices_load(const char *const *dirs, size_t n_dirs, const char *root, const char *dev_root,
                          struct xpud_cdi_devices **ret, char *err, size_t err_size) {
        (void)dirs;
        (void)n_dirs;
        (void)root;
        (void)dev_root;
        *ret = NULL;
        snprintf(err, err_size, "this build cannot read CDI specs");
        return -ENOSYS;
}

int xpud_cdi_devices_lookup(const struct xpud_cdi_devices *c, const char *name, dev_t *nodes, size_t max, size_t *n) {
        (void)c;
        (void)name;
        (void)nodes;
        (void)max;
        *n = 0;
        return -ENOSYS;
}

size_t xpud_cdi_devices_n_files(const struct xpud_cdi_devices *c) {
        (void)c;
        return 0;
}

struct xpud_cdi_devices *xpud_cdi_devices_free(struct xpud_cdi_devices *c) {
        (void)c;
        return NULL;
}
