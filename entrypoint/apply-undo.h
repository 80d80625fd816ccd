/* SPDX-License-Identifier: Apache-2.0 */
/* Taking back what xpu_plan_apply() put into the container root, for a start that is called off
 * after the apply but before the workload runs (a termination signal during set-up,
 * docs/supervision.md). */
#pragma once

#include <stddef.h>

#include "plan.h"

/* Undo a completed xpu_plan_apply(P, R, false, ...) run inside the container (R->container_path
 * "/"), walking P's operations backwards:
 *   write-file  removed when the file still holds exactly what was written (the loader drop-in);
 *               a file with other content is someone else's and stays;
 *   symlink     (link mode) removed when it is still a link to the target that was written;
 *   tmpfs       (mount mode) detached (umount2 MNT_DETACH through its directory's descriptor):
 *               the bind mounts, links and read-only remount inside it go with it. They live in
 *               xpuinit's own mount namespace and would vanish when it exits anyway; detaching
 *               first lets the directory under it be removed;
 *   mkdir       removed when empty, for xpuinit's own directories only (the library directory,
 *               its sibling bin/ and their parent, /run/xpuinit by default); a directory the
 *               image may hold as well (/etc/ld.so.conf.d) stays;
 *   ldconfig    run again once the drop-in is gone, so the image's /etc/ld.so.cache no longer
 *               lists the library directory;
 *   bind, remount-ro, check-device-node: nothing of their own to undo.
 * Every path is reached with the same rules as when it was written (xpu_open_beneath(): nothing
 * outside the root is touched). Best effort: every step is tried. Returns 0, or the first step's
 * -errno with ERR (ERR_SIZE bytes) naming what stays behind and how to remove it. */
int xpu_plan_undo(const struct xpu_plan *p, const struct xpu_apply_roots *r, char *err, size_t err_size);
