/* SPDX-License-Identifier: Apache-2.0 */
/* One CDI containerEdits object (cdi-spec.h writes the spec): its env, deviceNodes and mounts
 * arrays, device nodes with the host node's type, numbers, mode and owner, bind mounts, and the
 * host paths written as the host's engine names them. Reads the dev and driver roots only. */
#pragma once

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/macro.h"

/* Where the host's files are, as the spec names them (hostPath). */
struct xpu_cdi_roots {
        const char *dev_root;    /* directory holding dev/ ("/" on a host) */
        const char *driver_root; /* the host's driver root ("/", "/run/nvidia/driver") */
        int driver_fd;           /* an O_PATH/O_DIRECTORY fd of DRIVER_ROOT */
        /* Where the host's "/" is seen by this process ("/host" in a pod that mounts it there),
         * NULL or "/" when it is "/": the spec is read by the host's container engine, so a path
         * below HOST_ROOT is written without it ("/host/dev/nvidia0" -> "/dev/nvidia0"); one
         * outside it is written as it is (the GPU Operator's /run/nvidia/driver is the same path
         * on the host and in its pods). Files are always read through this process's paths. */
        const char *host_root;
};

/* An object with empty "env", "deviceNodes" and "mounts" arrays; NULL on -ENOMEM. */
cJSON *xpu_cdi_edits_new(void);
/* Drop E's empty arrays (CDI takes them, but a reader should not wonder). */
void xpu_cdi_edits_trim(cJSON *e);
/* A copy of FROM's items into TO's arrays, duplicates (same env entry, node path, mount
 * containerPath) skipped as the engines skip them. Returns 0 or -ENOMEM. */
int xpu_cdi_edits_merge(cJSON *to, const cJSON *from);
/* "NAME=VALUE" KV into EDITS' env, once. Returns 0 or -ENOMEM. */
int xpu_cdi_env_add(cJSON *edits, const char *kv);
/* The file PATH of the driver root ROOT_FD (resolved inside it: links followed as if the root
 * were "/") as this process names it, no link left (from /proc/self/fd): the path the engine
 * binds, which must be the file that was checked. Returns 0 or -errno. */
int xpu_cdi_resolved_path(int root_fd, const char *path, char out[PATH_MAX]);
/* As xpu_cdi_resolved_path(), only for what every container may see: a regular file every user
 * may read, or a directory every user may read and search; -EPERM with *WHY saying what it is
 * instead. (A host list's symlink is checked as a link only: its target is checked here.) */
int xpu_cdi_shareable_path(int root_fd, const char *path, char out[PATH_MAX], const char **why);
/* LOCAL (a path of this process) as the host names it: without ROOTS' host root when below it. */
const char *xpu_cdi_host_view(const struct xpu_cdi_roots *roots, const char *local);
/* Device node PATH ("/dev/nvidia0") of the dev root into EDITS, with the host node's type,
 * numbers, mode and owner. Returns 1 when added (or there already), 0 when the dev root has no
 * character device there (lstat: a link is none), -ENOMEM. */
int xpu_cdi_node_add(cJSON *edits, const struct xpu_cdi_roots *roots, const char *path);
/* A bind mount of HOST on CONTAINER, once per CONTAINER: read-only, nosuid, nodev; or WRITABLE
 * and noexec (a socket clients connect to, a directory they create pipes in). Returns 0 or
 * -ENOMEM. */
int xpu_cdi_mount_add(cJSON *edits, const char *host, const char *container, bool writable);
/* One line (at most 1023 bytes) onto *WARNINGS. Returns 0 or -ENOMEM. */
int xpu_cdi_warn(char ***warnings, const char *fmt, ...) _printf_(2, 3);
