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
#include "probe.h"
#include "profile.h"
#include "select.h"


/* Largest index read, with xpu_index_parse()'s bound on its JSON values a bound on what reading it
 * costs a start (docs/audit.md, "Limits"). An index takes about 330 bytes per vendor-tied library
 * and 250 per kernel file: the CUDA 13 libraries write 11 KiB. */
#define XPU_DEVICE_CODE_INDEX_MAX (2u << 20)



/* Read the index at PATH (a path of this mount namespace) into a new array. Returns 0; -ENOENT
 * when there is none; -EINVAL with ERR naming the file, the problem and the fix; -ENOMEM. */
int xpu_device_code_index_load(const char *path, struct xpu_object **objects, size_t *n, char *err,
                               size_t err_size);

/* True when OBJECTS need facts only the rich path reads to be judged: the target of a GPU whose
 * vendor's descriptor has it from rich sources (xpu_vendor_code.target_sources: an NVIDIA GPU's
 * compute capability, for an object with its device code), or the CUDA driver version (a
 * libcudart). */
bool xpu_device_code_needs_rich_facts(const struct xpu_object *objects, size_t n);

/* True when one of the devices INV->devices[DEVICES[i]] (all when DEVICES is NULL) is a GPU whose
 * device-code target (xpu_vendor_ops.code.target) is not known yet and comes from the rich path
 * (xpu_vendor_ops.code.target_sources: an NVIDIA GPU's compute capability, which the fast path
 * does not read). */
bool xpu_device_code_targets_missing(const struct xpu_inventory *inv, const size_t *devices, size_t n);

/* What the start-time check is told: XPUINIT_DEVICE_CODE and XPUINIT_DEVICE_CODE_INDEX. */
struct xpu_device_code_setting {
        enum xpu_device_code_mode mode; /* XPUINIT_DEVICE_CODE */
        bool mode_set;                  /* given in the environment (wins over a profile) */
        const char *index;              /* XPUINIT_DEVICE_CODE_INDEX */
};

/* The check's facts, read before gather (xpu_device_code_read): the mode in effect, the image's
 * index, and which vendor libraries the verdict needs facts of. The rich-facts step judges them
 * (device-code-verdict.h) before the plan; the plan and the check read the verdict. */
struct xpu_device_code_facts {
        enum xpu_device_code_mode mode; /* in effect: the setting, else the profile's, else enforce */
        bool judged;                    /* the mode is not off and the profile's vendor has selected devices */
        const char *index;              /* the index's path (borrowed from the setting) */
        int error;                      /* 0: OBJECTS hold the index; -ENOENT: there is none; else -errno
                                         * with ERR naming the file, the problem and the fix */
        char err[1024];
        struct xpu_object *objects;
        size_t n;
        uint32_t rich_sources;          /* rich sources (xpu_vendor_ops.code.target_sources) whose facts the
                                         * verdict needs: read with the start's other rich facts, before
                                         * the plan; 0: none */
};

/* Read the check's facts for profile PR and the selected devices of its vendor in SEL (those the
 * plan takes): the mode (S, else PR's device_code, else enforce) and, unless off, the index at
 * S->index (one open(2) when there is none). An unreadable index is kept in F->error for the
 * judgement, not failed here. Returns 0, or -ENOMEM. Free with xpu_device_code_facts_done(). */
int xpu_device_code_read(const struct xpu_device_code_setting *s, const struct xpu_profile *pr,
                         const struct xpu_inventory *inv, const struct xpu_selection *sel,
                         struct xpu_device_code_facts *f);
void xpu_device_code_facts_done(struct xpu_device_code_facts *f);
