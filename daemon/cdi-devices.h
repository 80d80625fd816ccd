/* SPDX-License-Identifier: Apache-2.0 */
/* The node's CDI specs read back (--cdi-spec-dirs): which device node numbers a fully qualified
 * CDI device name ("k8s.gpu.nvidia.com/claim=<uid>-gpu-0", "amd.com/gpu=0") stands for. This is
 * how xpud resolves the DRA claims the kubelet reports (podres.h) to GPUs with one rule for every
 * vendor's DRA driver and for xpuinit's own `cdi generate`: a device's deviceNodes, then the
 * spec's common containerEdits.deviceNodes, each by its major/minor when the spec gives them,
 * else by the node's own numbers (stat of hostPath, else path, under the dev root).
 *
 * Specs are the CDI files (SPEC.md): `*.json` and `*.yaml` in each directory, not recursive,
 * dot files skipped; a later directory's device of the same name wins over an earlier one's
 * (/var/run/cdi over /etc/cdi, as the container engines do). A file that cannot be read or parsed
 * is left out with one warning naming it and what was wrong; the others still count. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* Limits on what one load reads; past them the rest is left out with a warning. */
#define XPUD_CDI_SPEC_FILE_MAX (1u << 20)  /* bytes of one spec file */
#define XPUD_CDI_SPEC_FILES_MAX 1024u      /* spec files, all directories together */
#define XPUD_CDI_DEVICE_NODES_MAX 64u      /* device nodes of one device */

struct xpud_cdi_devices;

/* Read the spec files of DIRS (N_DIRS absolute directory paths, in increasing precedence), each
 * taken under ROOT (NULL or "/": the paths as they are; in a pod, the host's root mounted there),
 * with node paths that need a stat taken under DEV_ROOT (NULL: "/"). A directory that does not
 * exist is not an error. Returns 0 and *RET, or -ENOMEM / -EINVAL (a relative directory: message
 * in ERR, ERR_SIZE bytes). Warnings about single files go to the log (log.h), once per load. */
int xpud_cdi_devices_load(const char *const *dirs, size_t n_dirs, const char *root, const char *dev_root,
                          struct xpud_cdi_devices **ret, char *err, size_t err_size);

/* The device node numbers of the device NAME ("<vendor>/<class>=<name>"): up to MAX of them in
 * NODES (makedev(major, minor)), their count in *N. Returns 0, -ENOENT when no spec names the
 * device, -EINVAL when NAME is not a fully qualified CDI name. */
int xpud_cdi_devices_lookup(const struct xpud_cdi_devices *c, const char *name, dev_t *nodes, size_t max,
                            size_t *n);

/* Spec files read by the last load (for /v1/version-style diagnostics and tests). */
size_t xpud_cdi_devices_n_files(const struct xpud_cdi_devices *c);

/* Free. NULL-safe; returns NULL. */
struct xpud_cdi_devices *xpud_cdi_devices_free(struct xpud_cdi_devices *c);
