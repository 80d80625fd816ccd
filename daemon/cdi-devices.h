/* SPDX-License-Identifier: Apache-2.0 */
/* The node's CDI specs read back (--cdi-spec-dirs): which device node numbers a fully qualified
 * CDI device name ("k8s.gpu.nvidia.com/device=gpu-0", "amd.com/gpu=0") stands for. This is
 * how xpud resolves the DRA claims the kubelet reports (podres.h) to GPUs with one rule for every
 * vendor's DRA driver and for xpuinit's own `cdi generate`: a device's deviceNodes, then the
 * spec's common containerEdits.deviceNodes, each by its major/minor when the spec gives them (a
 * major that is not 0: CDI omits a minor of 0), else by the node's own numbers (stat of hostPath,
 * else path, under the dev root, symlinks resolved inside it) when it is a character device. Block
 * devices, FIFOs (by type, or by what is there when the type is absent) and nodes without numbers
 * that are not there count for nothing (debug log).
 *
 * Specs are the CDI files (SPEC.md; cncf-tags/container-device-interface pkg/cdi/spec-dirs.go):
 * `*.json` and `*.yaml` (not `.yml`) in each directory, not recursive, dot files skipped (a
 * producer's temporary), read in name order, each once, through the in-root openers (a symlink
 * resolves inside ROOT, never outside it; FIFOs and devices are never opened). Both formats go
 * through one bounded YAML reader (cdi-spec-read.h). A later directory's device of the same name
 * wins over an earlier one's (/var/run/cdi over /etc/cdi, as the container engines do); two files
 * of the winning directory naming one device are a conflict, and as the CDI library (pkg/cdi/
 * cache.go) xpud uses neither. A file that cannot be read or parsed is left out with one warning
 * naming it, what was wrong and the fix; the others still count. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* Limits on what one load reads; past them the rest is left out with a warning. */
#define XPUD_CDI_SPEC_FILE_MAX (1u << 20)  /* bytes of one spec file */
#define XPUD_CDI_SPEC_FILES_MAX 1024u      /* spec files, all directories together */
#define XPUD_CDI_DEVICE_NODES_MAX 64u      /* distinct device nodes of one device, its spec's included */

struct xpud_cdi_devices;

/* Read the spec files of DIRS (N_DIRS absolute directory paths, in increasing precedence), each
 * taken under ROOT (NULL or "/": the paths as they are; in a pod, the host's root mounted there),
 * with node paths that need a stat taken under DEV_ROOT (NULL: "/"). A directory that does not
 * exist is not an error. Returns 0 and *RET, or -ENOMEM / -EINVAL (a relative directory: message
 * in ERR, ERR_SIZE bytes). Warnings about single files go to the log (log.h), once per load. */
int xpud_cdi_devices_load(const char *const *dirs, size_t n_dirs, const char *root, const char *dev_root,
                          struct xpud_cdi_devices **ret, char *err, size_t err_size);

/* The device node numbers of the device NAME ("<vendor>/<class>=<name>"), each once, the device's
 * own first: up to MAX of them in NODES (makedev(major, minor)), the number written in *N (0 for a
 * device a spec names without a node: a DRA claim's config-only device). Returns 0, -ENOENT when
 * no spec names the device, -EINVAL when NAME is not a fully qualified CDI name. O(log devices). */
int xpud_cdi_devices_lookup(const struct xpud_cdi_devices *c, const char *name, dev_t *nodes, size_t max,
                            size_t *n);

/* Spec files the load took (read and valid; for /v1/version-style diagnostics and tests). */
size_t xpud_cdi_devices_n_files(const struct xpud_cdi_devices *c);

/* Free. NULL-safe; returns NULL. */
struct xpud_cdi_devices *xpud_cdi_devices_free(struct xpud_cdi_devices *c);
