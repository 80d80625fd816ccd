/* SPDX-License-Identifier: Apache-2.0 */
/* The GPUs an image's device code is judged for, and the start-time check: the device-code index
 * an image carries (written by `xpuinit audit --write-index`) judged for the GPUs a start selected,
 * before anything is applied. The index is read once (one open(2) when there is none); the start
 * never walks the image. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "devcode/judge.h"
#include "device-targets.h"
#include "options.h"
#include "plan.h"
#include "probe.h"


/* Largest index read, with xpu_index_parse()'s bound on its JSON values a bound on what reading it
 * costs a start (docs/audit.md, "Limits"). An index takes about 330 bytes per vendor-tied library
 * and 250 per kernel file: the CUDA 13 libraries write 11 KiB. */
#define XPU_DEVICE_CODE_INDEX_MAX (2u << 20)



/* The driver's CUDA version (xpu_vendor_info.cuda_driver_version "13.0" of the vendor whose
 * xpu_vendor_ops.cuda_driver is set, rich path) as 13000, or 0. */
int xpu_device_code_cuda_driver(const struct xpu_inventory *inv);

/* Read the index at PATH (a path of this mount namespace) into a new array. Returns 0; -ENOENT
 * when there is none; -EINVAL with ERR naming the file, the problem and the fix; -ENOMEM. */
int xpu_device_code_index_load(const char *path, struct xpu_object **objects, size_t *n, char *err,
                               size_t err_size);

/* True when OBJECTS need facts only the rich path reads to be judged: an NVIDIA GPU's compute
 * capability or the CUDA driver version (an object with NVIDIA device code, or a libcudart). */
bool xpu_device_code_needs_rich_facts(const struct xpu_object *objects, size_t n);

/* What the start-time check concluded. */
struct xpu_device_code_result {
        enum xpu_code_level level;       /* the worst over the targets */
        bool refuse;                     /* exit 125 */
        char *message;                   /* one line for the log and `plan`, or NULL when native */
        char override_name[32];          /* with apply: set OVERRIDE_NAME=OVERRIDE_VALUE for the workload */
        char override_value[16];
        bool override_from_env;          /* the override the image needs is the user's own */
        bool not_judged;                 /* a GPU's architecture was not known (MESSAGE says so) */
};

/* Judge OBJECTS for targets T[0..N) under MODE with the workload's environment ENV and the
 * driver's CUDA version CUDA_DRIVER (0: unknown). Returns 0 with *R filled, or -ENOMEM. */
int xpu_device_code_check(const struct xpu_object *objects, size_t n_objects, const struct xpu_code_target *t,
                          size_t n, enum xpu_device_code_mode mode, char *const *env, int cuda_driver,
                          struct xpu_device_code_result *r);

void xpu_device_code_result_clear(struct xpu_device_code_result *r);

/* True when one of the devices INV->devices[DEVICES[i]] (all when DEVICES is NULL) is a GPU whose
 * device-code target (xpu_vendor_ops.code_target) is not known yet and comes from the rich path
 * (xpu_vendor_ops.code_target_sources: an NVIDIA GPU's compute capability, which the fast path
 * does not read). */
bool xpu_device_code_targets_missing(const struct xpu_inventory *inv, const size_t *devices, size_t n);

/* The start-time check for plan P under O->device_code, with the index at O->device_code_index:
 * logs the verdict, sets an override in P->env with apply, and records the verdict in
 * P->device_code(_verdict). LOAD_RICH_FACTS(USERDATA) is called when the index has code that needs
 * them and a selected GPU's device-code target is not known yet (it runs the rich path). SHOW (plan):
 * nothing is refused. Returns 0 to go on; -EINVAL after logging why the start is refused; -EINTR
 * when a stop was asked for while the vendor library ran. */
int xpu_device_code_gate(const struct xpu_options *o, struct xpu_inventory *inv, struct xpu_plan *p, bool show,
                         int (*load_rich_facts)(void *userdata), void *userdata);
