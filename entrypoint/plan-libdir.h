/* SPDX-License-Identifier: Apache-2.0 */
/* A part of the planner (planner.c): the library directory and the loader's order, with the
 * image's forward-compatibility build, plan-libdir.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "gathered.h"
#include "needs.h"
#include "plan.h"
#include "probe.h"
#include "profile.h"
#include "select.h"

/* The library directory (plan-libdir.c): mkdir (and in mount mode a private tmpfs on its parent,
 * made read-only once populated), a bind mount or symlink per driver file of P->files, soname
 * links, the profile's library_links, soname links to the files CDI gave that the image's loader
 * would not find, then the loader: an ld.so.conf.d drop-in and the image's ldconfig when FACTS say
 * the image has both, else LD_LIBRARY_PATH; and PATH for the binaries. Needed when there is a file
 * to inject or a CDI file to link. Returns 0, -ENOMEM, -ENAMETOOLONG, -EINVAL (a library directory
 * without a parent). */
int xpu_plan_library_dir(struct xpu_plan *p, const struct xpu_plan_options *o, const struct xpu_plan_facts *facts);

/* The library of base name BASE ("libcuda.so") the plan gives the workload: the name of the
 * injected file ("libcuda.so.550.90.07") or, for one a CDI spec gave, its path in the container;
 * NULL when neither (plan-libdir.c). */
const char *xpu_plan_library(const struct xpu_plan *p, const char *base);
bool xpu_plan_library_dir_needed(const struct xpu_plan *p);

/* Decide whether the loader prefers the image's forward-compatibility directory (plan-libdir.c):
 * yes when it holds (FACTS->forward_compat_version) a newer branch of the profile's library than
 * the running driver and the profile's forward_compat.require holds for the selected devices
 * (FACTS->forward_compat_require, checked once the rich facts were read: strictly, an unknown
 * fact, a brand NVML did not report, fails). Sets P->forward_compat_dir and adds one note saying
 * which was chosen and why. Returns 0, -ENOMEM. */
int xpu_plan_forward_compat(struct xpu_plan *p, const struct xpu_profile *pr, const struct xpu_plan_facts *facts);
