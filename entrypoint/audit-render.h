/* SPDX-License-Identifier: Apache-2.0 */
/* The reports of `xpuinit audit` (audit-render.c): text, JSON and a Kubernetes nodeAffinity, from
 * the summary (audit-summary.h). */
#pragma once

#include <stdio.h>

#include "audit-summary.h"

/* Each returns 0, or -ENOMEM / -EIO. */
int xpu_audit_render_json(const struct xpu_audit *a, FILE *f);
int xpu_audit_render_text(const struct xpu_audit *a, FILE *f);
/* A nodeAffinity (YAML) admitting the nodes whose GPU kind (node label xpu.arch) the image runs on
 * natively or by PTX JIT. */
int xpu_audit_render_k8s_affinity(const struct xpu_audit *a, FILE *f);
