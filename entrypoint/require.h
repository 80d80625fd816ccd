/* SPDX-License-Identifier: Apache-2.0 */
/* Requirement expressions (the NVIDIA Container Toolkit's grammar), evaluated: a library no step
 * owns, which the select step (require-start.h, profile-set.c) and the rich-facts step
 * (forward_compat.require) call down into. The grammar:
 * space separates OR terms, comma separates AND factors, each factor is KEY OP VALUE with
 * OP one of = != < <= > >=. Keys: vendor, driver, cuda (CUDA driver API version), arch (compute
 * capability), brand, rocm, gfx (gfx target), memory (bytes, per device). Versions compare as
 * dotted numbers ("12.10" > "12.9", "535.54.03" vs "535.54").
 *
 * Keys are matched case-insensitively. Per key:
 *   vendor  the chosen profile's vendor (nvidia, amd); = and != only, case-insensitive
 *   driver  kernel driver version of that vendor (inv->vendors[vendor].driver_version), dotted
 *   cuda    CUDA driver API version (inv->vendors[v].cuda_driver_version of the vendor v whose
 *           xpu_vendor_ops.probe.cuda_driver is set: NVIDIA), dotted; empty on the fast path, so a cuda
 *           factor is not met until the rich probe (NVML, libcuda) fills it
 *   rocm    ROCm version, dotted; no source yet, so a rocm factor is never met
 *   arch    per device: compute capability ("7.5"), dotted; rich probe only
 *   brand   per device: NVML brand in the toolkit's spelling (tesla, geforce, geforcertx, nvidia,
 *           quadrortx, ...); = and != only, case-insensitive; rich probe only
 *   gfx     per device: gfx target ("gfx90a"); = and != only, exact
 *   memory  per device: total memory in bytes, a plain decimal number (no suffix)
 *   l4t     per device: a Jetson's L4T release ("36.4.3", /etc/nv_tegra_release), dotted; fast path
 * Dotted numbers compare numerically component by component, a missing component counting as 0
 * ("12" = "12.0" < "12.0.1"). Bounds: at most XPU_REQUIRE_TERMS_MAX terms of at most
 * XPU_REQUIRE_FACTORS_MAX factors, values of at most XPU_REQUIRE_VALUE_MAX bytes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe.h"
#include "require-parse.h"
#include "select.h"

/* The rich sources (bits 1u << enum xpu_source) whose facts R needs: cuda and arch → NVML and the
 * CUDA driver API, brand → NVML; 0 when the fast path knows everything R asks. */
uint32_t xpu_require_sources(const struct xpu_require *r);

/* Check R against the host: INV's vendor facts (driver version of VENDOR, CUDA driver version),
 * and per-device facts (arch, brand, gfx, memory) of the devices selected in SEL of VENDOR; like
 * the toolkit, a per-device factor holds when every selected device satisfies it, and with no
 * selected device it holds. A fact the host does not report makes its factor fail, never pass.
 * VENDOR is the chosen profile's vendor; _XPU_VENDOR_MAX means a profile without a vendor (the
 * cpu profile): then "vendor=X" and every driver factor fail, "vendor!=X" holds, and per-device
 * factors hold (no device of no vendor is selected). SEL may be NULL (nothing selected).
 * Returns 1 when met (WHY: "requirement \"E\" met", or "no requirement"), 0 when not: WHY gets one
 * line showing required versus found, for the first failing factor of the first term,
 *   requirement "driver>=999" not met: driver>=999 but host has nvidia driver 465.19.01;
 *   update the driver or use CUDA forward compatibility
 * (the hint only when a known driver or CUDA version was too old or too new; with several terms
 * "not met: no alternative met; first: ..."), -EINVAL for a bad VENDOR, a NULL INV or a selection
 * of another inventory. Silent. */
int xpu_require_check(const struct xpu_require *r, const struct xpu_inventory *inv, const struct xpu_selection *sel,
                      enum xpu_vendor vendor, char *why, size_t why_size);

/* As xpu_require_check(), with the selection as flags per inventory device (INV->n_devices
 * entries; NULL = nothing selected), as xpu_profile_matches() has it. */
int xpu_require_check_selected(const struct xpu_require *r, const struct xpu_inventory *inv, const bool *selected,
                               enum xpu_vendor vendor, char *why, size_t why_size);

/* As xpu_require_check_selected(), but a factor whose fact the host does not report (the CUDA
 * driver version, compute capability or brand before the rich probe) counts as met instead of
 * failing; UNCHECKED lists those factors with the reason ("cuda>=12.4 (host CUDA driver version
 * unknown ...)"), empty when every factor was checked. For the image's own requirement variables
 * (NVIDIA_REQUIRE_*), which every CUDA image sets: they must not stop a start over facts the probe
 * cannot know. */
int xpu_require_check_lenient(const struct xpu_require *r, const struct xpu_inventory *inv, const bool *selected,
                              enum xpu_vendor vendor, char *unchecked, size_t unchecked_size, char *why,
                              size_t why_size);
