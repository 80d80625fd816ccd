/* SPDX-License-Identifier: Apache-2.0 */
/* --cdi-dir DIR: the node's CDI spec (probes/cdi-spec.h) kept current in DIR/xpuinit.json for the
 * container engines that read DIR (/var/run/cdi: containerd, CRI-O, podman, Docker). Written at
 * the first sample and again only when what the spec is made of changes (the GPUs, their nodes,
 * the driver version), by dot file + rename (engines skip dot files and never read half a spec);
 * removed when xpud stops, so no engine hands out GPUs from a spec nobody keeps. A sample whose
 * inventory gives no GPU removes the file too: a spec without devices is invalid. */
#pragma once

#include <stdbool.h>

#include "probe.h"

#define XPUD_CDI_SPEC_NAME "xpuinit.json"

struct xpud_cdi_dir {
        char *path;            /* DIR/xpuinit.json */
        char *key;             /* what the last written spec was made of, NULL before the first */
        bool written;          /* PATH holds a spec of ours */
        int error;             /* last error, logged once per change */
        const char *host_root; /* --cdi-host-root (borrowed; cdi-spec.h, xpu_cdi_roots.host_root) */
};

/* Set C up for directory DIR (an absolute path) and HOST_ROOT (may be NULL). Returns 0 or -ENOMEM. */
int xpud_cdi_dir_init(struct xpud_cdi_dir *c, const char *dir, const char *host_root);

/* Bring DIR/xpuinit.json in line with INV (read through ROOTS, whose dev and driver paths must be
 * absolute): rebuild and write when INV's GPUs, nodes or driver versions differ from the last
 * spec's, remove it when INV gives none. Warnings about GPUs left out are logged once per change.
 * Returns 1 when the file was written or removed, 0 when nothing changed, -errno when it could
 * not be written (logged once; retried at the next call). */
int xpud_cdi_dir_update(struct xpud_cdi_dir *c, const struct xpu_inventory *inv, const struct xpu_roots *roots);

/* Remove the spec when C wrote it, and free C. */
void xpud_cdi_dir_done(struct xpud_cdi_dir *c);
