/* SPDX-License-Identifier: Apache-2.0 */
/* `xpuinit audit`: walk an image's root, read every object's vendor ties and device code
 * (probes/devcode/), judge it for GPU targets, and report it as text, JSON, a device-code index
 * or a Kubernetes nodeAffinity. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "devcode/judge.h"
#include "devcode/walk.h"

/* What `xpuinit audit` is asked (options.h has where each comes from). */
struct xpu_audit_options {
        const char *audit_root;  /* ROOT */
        int fail_on;             /* --fail-on: an enum xpu_code_level, or -1 */
        bool json;               /* --json */
        bool k8s_affinity;       /* --k8s-affinity */
        const char *write_index; /* --write-index FILE, NULL: none */
};

/* Audit O->audit_root for targets T[0..N) (the --for values, or this host's GPUs) with the
 * environment ENV and the driver's CUDA version CUDA_DRIVER (13000 for 13.0; 0: unknown), and write
 * the report to OUT. Returns the exit status: 0, 1 when --fail-on's level was reached, 2 for a root
 * that cannot be read, 125 when writing the index or the report failed. Logs its problems. */
int xpu_audit_run(const struct xpu_audit_options *o, const struct xpu_code_target *t, size_t n, int cuda_driver,
                  char *const *env, FILE *out);
