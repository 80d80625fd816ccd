/* SPDX-License-Identifier: Apache-2.0 */
/* The gathering step between profile and plan: everything the plan needs to know about the
 * driver root, the dev root and the container root, read once (gather.c, gather-cdi.c), so that
 * xpu_plan_build() (planner.h) reads nothing itself. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "gathered.h"
#include "host-files.h"
#include "libs.h"
#include "needs.h"
#include "probe.h"
#include "profile.h"
#include "select.h"

/* Read what the plan for PR (with INV, SEL and O) needs from the roots behind O->driver_fd,
 * O->dev_fd and O->container_fd (each may be negative: nothing read there), as NEEDS (decided
 * before, xpu_plan_needs(); taken over by the facts, *NEEDS emptied, whatever the result) names:
 * the device nodes' groups, the driver version and files, the files CDI gave, the image's loader
 * and forward-compatibility build. Reads only, silent. Returns 0 with *RET set (free with
 * xpu_plan_facts_free()), or -ENOMEM with ERR saying so (naming the host's lists when reading them
 * failed), or -EINTR when a termination signal stopped the reading of the host's lists. */
int xpu_plan_gather(const struct xpu_inventory *inv, const struct xpu_selection *sel, const struct xpu_profile *pr,
                    const struct xpu_plan_options *o, struct xpu_plan_needs *needs, struct xpu_plan_facts **ret,
                    char *err, size_t err_size);

/* The newest "<library>.<version>" (a regular file, VERSION digits and dots) in the profile's
 * forward_compat directory of the container root CONTAINER_FD (resolved inside the root), e.g.
 * /usr/local/cuda/compat/libcuda.so.575.57.08. Writes the version into VERSION. Returns 1 when
 * found, 0 when the profile has no forward_compat or the image has no such file, -errno. */
/* The node PATH under DEV_FD into F->nodes (found, group), once per path; "" is no node. Returns
 * 0 or -ENOMEM. */
int xpu_gather_node(struct xpu_plan_facts *f, int dev_fd, const char *path);

/* The nodes of every fabric set F->needs.fabric asks for, under DEV_FD, with the majors their
 * /proc/devices names have under SYS_FD (gather-fabric.c). Returns 0 or -ENOMEM. */
int xpu_gather_fabric(struct xpu_plan_facts *f, int dev_fd, int sys_fd);

int xpu_forward_compat_find(const struct xpu_profile *pr, int container_fd, char *version, size_t size);

/* The files of FILES (found in the driver root) that the container root CONTAINER_FD already has
 * under the same name, which carries the running version (gather-cdi.c): a library as a regular
 * file in CDI_LIBDIR (the CDI mark's directory, NULL: none) or one of xpu_library_dirs (where CDI
 * specs mount the host's libraries: at their host paths), a binary in /usr/bin, /usr/sbin, /bin or
 * /sbin (symlinks followed inside the root). Each one goes, in FILES' order, into the new array
 * *RET (*RET_N entries), with link set when its soname is not listed in the image's
 * /etc/ld.so.cache as that very file (same device and inode), i.e. when no CDI hook ran ldconfig
 * and the loader would not find it. Reads only. Returns the number of files found (0: *RET NULL),
 * or -ENOMEM. */
int xpu_gather_given(int container_fd, const char *cdi_libdir, const struct xpu_driver_files *files,
                     struct xpu_given_file **ret, size_t *ret_n);
