/* SPDX-License-Identifier: Apache-2.0 */
/* A part of the planner (planner.c): a start on WSL2 (probes/wsl.h), plan-wsl.c. */
#pragma once

#include <stddef.h>

#include "gathered.h"
#include "plan.h"
#include "wsl.h"

/* The driver files of a WSL2 start: the files the vendor's descriptor names (gathered from its
 * driver store folder STORE, else /usr/lib/wsl/lib, into FACTS->host_files) placed at their own
 * path as xpu_plan_host_files() places them, then both directories given to the loader (an
 * ld.so.conf.d drop-in and the image's ldconfig when it has both, else LD_LIBRARY_PATH), as the
 * NVIDIA Container Toolkit's wsl mode mounts the driver store files and updates the loader's
 * cache with their folders (pkg/nvcdi/driver-wsl.go); W's links (/usr/bin/nvidia-smi) made where
 * the image has nothing (FACTS->wsl_links_taken). No driver version is asked for: the
 * Windows driver's files carry none in their names. Returns 0, -ENOMEM, or -ENOENT/-errno with
 * ERR naming the driver root and the fix. */
int xpu_plan_wsl(struct xpu_plan *p, const struct xpu_plan_options *o, const struct xpu_plan_facts *facts,
                 const char *store, const struct xpu_vendor_wsl *w, char *err, size_t err_size);
/* The variables the vendor's wsl data W sets on WSL2 (its env), each unless the image set it;
 * before the profile's own edits. Returns 0 or -ENOMEM. */
int xpu_plan_wsl_env(struct xpu_plan *p, const struct xpu_vendor_wsl *w);
