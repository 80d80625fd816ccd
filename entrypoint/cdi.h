/* SPDX-License-Identifier: Apache-2.0 */
/* `xpuinit cdi generate`: this host's CDI spec (probes/cdi-spec.h) as JSON or YAML, to standard
 * output or, atomically (dot file + rename), to a file. */
#pragma once

#include <cJSON.h>
#include <stdio.h>

#include "probe.h"

/* Render SPEC as CDI YAML (libyaml's emitter: block style, every string double-quoted so that
 * "0", "0.5.0" or "true" stay strings) into *RET (malloc'ed, NUL-terminated, *RET_LEN bytes).
 * Returns 0, -ENOMEM, or -EINVAL for a tree YAML cannot carry (a raw item). */
int xpu_cdi_yaml(const cJSON *spec, char **ret, size_t *ret_len);

/* What `xpuinit cdi generate` is asked (options.h has where each comes from). */
struct xpu_cdi_options {
        const char *cdi_output;    /* --output FILE; NULL or "-": standard output */
        const char *cdi_format;    /* --format: "json", "yaml", or NULL (from --output's name, else json) */
        const char *cdi_kind;      /* --kind VENDOR/CLASS (checked); NULL: XPU_CDI_KIND_DEFAULT */
        const char *cdi_host_root; /* --host-root DIR: where the host's / is seen here (absolute) */
};

/* Write the spec of INV (probed through ROOTS) as O asks (--output, --format, --kind) to OUT or to
 * O->cdi_output. Warnings about GPUs left out are logged. Returns the exit status: 0, or 125 with
 * one error line (no GPU to describe, a refused driver root, a file that cannot be written). */
int xpu_cdi_generate(const struct xpu_cdi_options *o, const struct xpu_roots *roots, const struct xpu_inventory *inv,
                     FILE *out);
