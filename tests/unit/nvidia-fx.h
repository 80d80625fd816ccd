/* SPDX-License-Identifier: Apache-2.0 */
/* The NVIDIA fast path's test helpers (test-nvidia.c, test-nvidia.edge.c): probing a tree and
 * checking its device nodes and warnings. */
#pragma once

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "nvidia/nvidia.h"
#include "testlib.h"
#include "vendor.h"

#define GPUS "/proc/driver/nvidia/gpus/"

static inline struct xpu_inventory *probe_dir(const char *dir) {
        return xpu_test_probe_backend(xpu_vendors[XPU_VENDOR_NVIDIA], dir);
}

static inline struct xpu_inventory *probe_host(const char *name) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", xpu_test_host(name));
        return probe_dir(dir);
}

static inline const struct xpu_devnode *find_node(const struct xpu_devnode *nodes, size_t n, const char *path) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(nodes[i].path, path) == 0)
                        return &nodes[i];
        return NULL;
}

static inline void assert_node(const struct xpu_devnode *nodes, size_t n, const char *path, uint32_t major,
                        uint32_t minor, bool optional, bool present) {
        const struct xpu_devnode *d = find_node(nodes, n, path);
        ck_assert_msg(d != NULL, "node %s missing", path);
        ck_assert_msg(d->have_major, "%s: no major", path);
        ck_assert_uint_eq(d->major, major);
        ck_assert_uint_eq(d->minor, minor);
        ck_assert_int_eq(d->optional, optional);
        ck_assert_int_eq(d->present, present);
}

/* The device's single per-device node is /dev/nvidia<minor> with MAJOR. */
static inline void assert_gpu_node(const struct xpu_device *d, uint32_t major, uint32_t minor, bool present) {
        char path[32];
        snprintf(path, sizeof path, "/dev/nvidia%u", minor);
        ck_assert_uint_eq(d->n_nodes, 1);
        ck_assert_str_eq(d->nodes[0].path, path);
        assert_node(d->nodes, d->n_nodes, path, major, minor, false, present);
}

static inline void assert_warning(const struct xpu_inventory *inv, size_t i, const char *text) {
        ck_assert_msg(i < inv->n_warnings, "warning %zu missing (have %zu)", i, inv->n_warnings);
        ck_assert_str_eq(inv->warnings[i], text);
}
