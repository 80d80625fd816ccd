/* SPDX-License-Identifier: Apache-2.0 */
/* Requirement expressions (design §4 "Requirements"; the NVIDIA Container Toolkit's grammar):
 * space separates OR terms, comma separates AND factors, each factor is KEY OP VALUE with
 * OP one of = != < <= > >=. Keys: vendor, driver, cuda (CUDA driver API version), arch (compute
 * capability), brand, rocm, gfx (gfx target), memory (bytes, per device). Versions compare as
 * dotted numbers ("12.10" > "12.9", "535.54.03" vs "535.54"). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probe.h"
#include "select.h"

struct xpu_require;

/* Parse EXPR. Returns 0, or -EINVAL with ERR naming the bad factor and what is expected
 * ("requirement \"cuda>=x\": \"x\" is not a dotted number"), or -ENOMEM. An empty expression
 * (only white space) parses to "no requirement" (always met). */
int xpu_require_parse(const char *expr, struct xpu_require **ret, char *err, size_t err_size);
struct xpu_require *xpu_require_free(struct xpu_require *r);

/* Check R against the host: INV's vendor facts (driver version of VENDOR, CUDA driver version),
 * and per-device facts (arch, brand, gfx, memory) of the devices selected in SEL of VENDOR; like
 * the toolkit, a per-device factor holds when every selected device satisfies it, and with no
 * selected device it holds. A fact the host does not report makes its factor fail, never pass.
 * Returns 1 when met, 0 when not (WHY gets one line showing required versus found, e.g.
 * "requirement \"cuda>=12.4\" not met: host CUDA driver 12.2 (driver 535.54.03)"), -errno on error. */
int xpu_require_check(const struct xpu_require *r, const struct xpu_inventory *inv, const struct xpu_selection *sel,
                      enum xpu_vendor vendor, char *why, size_t why_size);
