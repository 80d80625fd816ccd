/* SPDX-License-Identifier: Apache-2.0 */
/* --cdi-dir DIR: the node's CDI spec (probes/cdi-spec.h) kept current in DIR/xpuinit.json for the
 * container engines that read DIR (/var/run/cdi: containerd, CRI-O, podman, Docker). Built at
 * every sample from the GPUs the sample does not hold lost, and written when its text differs
 * from the last one written (a GPU, a node's numbers, mode or group, the driver version or
 * files), by dot file + rename (engines skip dot files and never read half a spec); removed when
 * xpud stops, so no engine hands out GPUs from a spec nobody keeps. A sample with no usable GPU
 * removes the file too: a spec without devices is invalid. */
#pragma once

#include <stdbool.h>

#include "probe.h"
#include "snapshot.h"

#define XPUD_CDI_SPEC_NAME "xpuinit.json"

struct xpud_cdi_dir {
        char *path;            /* DIR/xpuinit.json */
        char *key;             /* the last spec's text ("" for none), NULL before the first */
        bool written;          /* PATH holds a spec of ours */
        int error;             /* last error, logged once per change */
        char *host_root;       /* --cdi-host-root resolved (realpath), NULL for none (xpu_cdi_roots.host_root) */
};

/* Set C up for directory DIR (an absolute path) and HOST_ROOT (may be NULL; resolved with
 * realpath). Returns 0, -ENOMEM, or -errno of realpath (logged). */
int xpud_cdi_dir_init(struct xpud_cdi_dir *c, const char *dir, const char *host_root);

/* Bring DIR/xpuinit.json in line with snapshot S (its inventory's GPUs less those S holds lost,
 * read through ROOTS, whose dev and driver paths must be absolute): write it when the spec's text
 * differs from the last one's, remove it when no GPU is left. Warnings about GPUs left out are
 * logged once per change. Returns 1 when the file was written or removed, 0 when nothing
 * changed, -errno when it could not be written (logged once; retried at the next call). */
int xpud_cdi_dir_update(struct xpud_cdi_dir *c, const struct xpud_snapshot *s, const struct xpu_roots *roots);

/* Remove the spec when C wrote it, and free C. */
void xpud_cdi_dir_done(struct xpud_cdi_dir *c);
