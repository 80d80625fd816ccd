/* SPDX-License-Identifier: Apache-2.0 */
/* A part of the planner (planner.c): the profile's files placed at their own path,
 * plan-host-files.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "gathered.h"
#include "needs.h"
#include "plan.h"
#include "probe.h"
#include "profile.h"
#include "select.h"

/* The files of the profile's "files" patterns for the capabilities in effect (plan-host-files.c):
 * as gathered in the driver root (FACTS->host_files) and planned at the same path in the
 * container, after the library directory: the parent directory made, then a bind mount (mount
 * mode: a regular file read-only, a socket or directory writable, all nosuid and nodev) or a
 * symlink into the driver root (link mode). A path the container already has as the very same
 * file (same device and inode: a CDI spec mounted it, or the driver root is the container's root)
 * is left as it is, and so is a directory of the image that has entries. Notes say what was
 * placed and skipped. Returns 0, -ENOMEM, -ENAMETOOLONG. */
int xpu_plan_host_files(struct xpu_plan *p, const struct xpu_plan_options *o, const struct xpu_plan_facts *facts);

/* Instead of the profile's driver files, what the host lists for its containers (FACTS->host_list,
 * a Jetson's CSV files; gathered.h): a note naming the lists and what was left out, a device-node
 * check for each listed node found in the dev root (a character device, its numbers the host's),
 * and the listed files as xpu_plan_host_files() places them (lib: a file bound read-only or
 * linked; dir: a directory bound read-only or linked; sym: the same symlink made again), each op
 * with its origin ("drivers.csv:12"). A failed read of the lists: -errno with ERR its line.
 * Returns 0, -ENOMEM, -ENAMETOOLONG or that -errno. */
int xpu_plan_host_list(struct xpu_plan *p, const struct xpu_plan_options *o, const struct xpu_plan_facts *facts,
                       char *err, size_t err_size);
