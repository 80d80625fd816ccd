/* SPDX-License-Identifier: Apache-2.0 */
/* Taking back what xpu_plan_apply() put into the container root, for a start that is called off
 * after the apply but before the workload runs (a termination signal during set-up,
 * docs/supervision.md). */
#pragma once

#include <stddef.h>

#include "plan.h"

/* Undo an xpu_plan_apply(P, R, false, ...) run inside the container (R->container_path "/"),
 * from R->record (what each operation made; NULL or empty: nothing is known to be ours, nothing
 * is removed). Only the operations that completed are undone, backwards, each taking back what
 * it made and nothing the image had:
 *   write-file  a file it made removed while it still holds exactly what was written (the
 *               loader drop-in); a file with other content is someone else's and stays;
 *   symlink     a link it made removed, a link of the image's it replaced given its text back,
 *               both only while the link still points where the apply made it point; a file of
 *               the image's that the apply left is not touched;
 *   tmpfs       (mount mode) detached (umount2 MNT_DETACH through its directory's descriptor):
 *               the operations on it (bind mounts, links, read-only remount) go with it;
 *   bind        (a file at its own path, outside the tmpfs) detached the same way, then its mount
 *               point removed when the apply made it and it is still an empty file or directory;
 *               a file of the image's under it is uncovered as it was;
 *   mkdir       the directories its mkdir -p made (not the part of the path that was there),
 *               deepest first, each while empty;
 *   ldconfig    run again once a drop-in is gone, so the image's /etc/ld.so.cache no longer
 *               lists its directories;
 *   remount-ro, check-device-node: nothing of their own to undo.
 * What was never made (a plan stopped half-way: a tmpfs never mounted) is not mentioned. Every
 * path is reached with the same rules as when it was written (xpu_open_beneath(): nothing outside
 * the root is touched). Best effort: every step is tried. Returns 0, or the first step's -errno
 * with ERR (ERR_SIZE bytes) naming what stays behind and how to remove it. */
int xpu_plan_undo(const struct xpu_plan *p, const struct xpu_apply_roots *r, char *err, size_t err_size);
