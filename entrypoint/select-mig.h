/* SPDX-License-Identifier: Apache-2.0 */
/* The MIG forms of a selection entry (select-mig.c), read with the variable's rules
 * (select-entries.h). Not an interface of the selection: select.h is. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probe.h"
#include "select-entries.h"

/* The MIG device E names, when E has a MIG form: "<gpu>:<mig>", "MIG-GPU-<uuid>/<gi>/<ci>" or
 * "MIG-<uuid>" (the NVIDIA Container Toolkit's forms, libnvidia-container src/cli/common.c).
 * ENTRY is the whole entry for messages. Returns 1 with *DEV_I and *MIG set, 0 when E is no MIG
 * form, -EINVAL with ERR naming why when it is one but names no MIG device given to this
 * container (select-mig.c). */
int xpu_sel_match_mig(const struct var_rules *r, const struct xpu_inventory *inv, const char *e, const char *entry,
                      size_t *dev_i, size_t *mig, char *err, size_t err_size);
