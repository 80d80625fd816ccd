/* SPDX-License-Identifier: Apache-2.0 */
/* --nfd-file PATH: Node Feature Discovery labels for the node, from each snapshot.
 *
 * NFD's `local` feature source (nfd-worker, node-feature-discovery docs/usage/customization-guide.md
 * "Local feature source") reads every file in /etc/kubernetes/node-feature-discovery/features.d/:
 * one "<namespace>/<name>[=<value>]" per line, '#' comments, at most 64 kB; files whose names
 * start with a dot are ignored, so a writer puts the new content into a dot-file of the same
 * directory and renames it over the real one. Unprefixed names are auto-prefixed with
 * "feature.node.kubernetes.io/" by current NFD versions and discouraged; names under
 * kubernetes.io are refused except feature.node.kubernetes.io. So every label here carries that
 * prefix explicitly (XPUD_NFD_PREFIX), which every NFD version accepts without
 * -extra-label-ns. Kubernetes label rules: the name after the prefix and the value at most 63
 * characters of [A-Za-z0-9._-], starting and ending with a letter or digit.
 *
 * Labels (in this order; the vendor ones only for vendors with at least one device):
 *   feature.node.kubernetes.io/xpu.present=true|false   any device at all
 *   feature.node.kubernetes.io/xpu.count=N              devices in the snapshot (lost ones included)
 *   feature.node.kubernetes.io/xpu.healthy=N            devices whose health is "healthy"
 *   feature.node.kubernetes.io/xpu.<vendor>.count=N     vendor "nvidia", "amd"
 *   feature.node.kubernetes.io/xpu.<vendor>.healthy=N
 *   feature.node.kubernetes.io/xpu.<vendor>.product=<the first device's name, sanitised>
 *   feature.node.kubernetes.io/xpu.<vendor>.driver=<kernel driver version, sanitised>
 * then what the node can run (each left out when a device's fact it needs is unknown):
 *   xpu.vendor=nvidia|amd|mixed
 *   xpu.arch=sm_90|gfx942|mixed           device-code targets (device-targets.h), features dropped
 *   xpu.arch.<target>=N                   per target, when mixed or some target is unknown
 *   xpu.nvidia.cc=90                      smallest compute capability, major*10+minor
 *   xpu.nvidia.cuda=124                   the driver's CUDA version, major*10+minor
 *   xpu.amd.generic=gfx9-4-generic        when every AMD GPU is in that generic family
 *   xpu.memory.mib=N                      the smallest GPU memory
 *   xpu.partition=mig|<amd mode>|none|mixed
 * A value that sanitises to nothing leaves its label out. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "snapshot.h"

#define XPUD_NFD_PREFIX "feature.node.kubernetes.io/"
/* Longest label name part and value (Kubernetes). */
#define XPUD_NFD_VALUE_MAX 63

/* Make IN a label value into OUT (SIZE bytes, at most XPUD_NFD_VALUE_MAX characters): every run of
 * characters outside [A-Za-z0-9._-] becomes one '-', then it is cut at 63 characters and
 * characters other than letters and digits are trimmed from both ends ("NVIDIA GeForce RTX 2080
 * Ti" → "NVIDIA-GeForce-RTX-2080-Ti", "AMD Instinct MI210 (rev c1)" → "AMD-Instinct-MI210-rev-c1").
 * Returns the length (0: nothing left; OUT is ""). */
size_t xpud_nfd_label_value(const char *in, char *out, size_t size);

/* The labels file text for S (the list above, one "name=value\n" each). Returns 0 with *RET
 * (malloc'ed, NUL-terminated, free()) and *RET_LEN, or -ENOMEM. */
int xpud_nfd_render(const struct xpud_snapshot *s, char **ret, size_t *ret_len);

/* The file and what it holds now, so that it is rewritten only when the labels change. */
struct xpud_nfd {
        char *path;   /* --nfd-file (owned) */
        char *last;   /* the text written last, NULL before the first write or after a failure */
};

/* Set up N for PATH (copied). Returns 0 or -ENOMEM. */
int xpud_nfd_init(struct xpud_nfd *n, const char *path);
void xpud_nfd_done(struct xpud_nfd *n);
/* Render S and write it when it differs from what was written last. Returns 1 when written, 0
 * when unchanged, -errno (the write is retried next time). Silent. */
int xpud_nfd_update(struct xpud_nfd *n, const struct xpud_snapshot *s);
