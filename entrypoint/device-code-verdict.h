/* SPDX-License-Identifier: Apache-2.0 */
/* The device-code verdict, a fact of the rich-facts step: the check's facts (device-code.h, read
 * in the needs step) judged, after the start's rich facts are read and before the plan, for the
 * GPUs the plan takes and the environment the workload gets. The planner records the verdict in
 * the plan (and sets the override it asks for); the check step logs it and refuses the start. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "device-code.h"
#include "profile.h"
#include "select.h"

/* The driver's CUDA version (xpu_vendor_info.cuda_driver_version "13.0" of the vendor whose
 * xpu_vendor_ops.probe.cuda_driver is set, rich path) as 13000, or 0. */
int xpu_device_code_cuda_driver(const struct xpu_inventory *inv);

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

/* How a start logs a verdict (xpu_device_code_outcome.log). */
enum xpu_device_code_log {
        XPU_DEVICE_CODE_LOG_NONE = 0,
        XPU_DEVICE_CODE_LOG_INFO,
        XPU_DEVICE_CODE_LOG_WARNING,
        XPU_DEVICE_CODE_LOG_ERROR,
};

/* The verdict the planner records in the plan (plan.h device_code*) and the check step logs. */
struct xpu_device_code_outcome {
        const char *verdict;            /* the level's name, NULL: not judged */
        char *message;                  /* the line for `plan` and the log, NULL: nothing to say */
        enum xpu_device_code_log log;   /* how a start logs MESSAGE */
        bool hint_unknown;              /* also log how to see why a GPU's architecture is unknown */
        bool refuse;                    /* a start exits 125 (never with SHOW) */
        char override_name[32];         /* with apply: set OVERRIDE_NAME=OVERRIDE_VALUE for the workload */
        char override_value[16];
};
void xpu_device_code_outcome_clear(struct xpu_device_code_outcome *out);

/* Judge F for the devices INV->devices[DEVICES[0..N)] (their targets as the inventory knows them
 * now, the rich facts of F->rich_sources read) with the workload's environment ENV. SHOW (`plan`):
 * what a start would do is said in the message, nothing is refused. Returns 0 with *OUT filled
 * (nothing when F is not judged), or -ENOMEM. */
int xpu_device_code_judge(const struct xpu_device_code_facts *f, const struct xpu_inventory *inv,
                          const size_t *devices, size_t n, char *const *env, bool show,
                          struct xpu_device_code_outcome *out);

/* The verdict, before the plan: F judged (xpu_device_code_judge) for the GPUs the plan takes (the
 * devices of PR's vendor selected in SEL, as planner.c takes them; their targets as INV knows them
 * after the rich facts) in the environment the workload gets as far as the check reads it: ENVP
 * with PR's environment edits, their placeholders expanded from VALUES (the rich-facts step's,
 * which the plan expands them with too). Nothing else the plan sets is a variable the check reads
 * (the PTX JIT switches, HSA_XNACK, HSA_OVERRIDE_GFX_VERSION: devcode/judge.h). SHOW as
 * xpu_device_code_judge(). Returns 0 with *OUT filled (nothing when F is not judged), or -ENOMEM. */
int xpu_device_code_verdict(const struct xpu_device_code_facts *f, const struct xpu_inventory *inv,
                            const struct xpu_selection *sel, const struct xpu_profile *pr, char *const *envp,
                            const char *const values[_XPU_PLACEHOLDER_MAX], bool show,
                            struct xpu_device_code_outcome *out);
