/* SPDX-License-Identifier: Apache-2.0 */
/* Live readings of AMD GPUs straight from amdgpu sysfs and hwmon (xpud's AMD backend
 * "amdgpu_sysfs"); no library is loaded. Every read goes through the sys root (openat2
 * RESOLVE_IN_ROOT, probes/base/fileio.h). Units are converted to the base units of readings.h.
 *
 * Files, below /sys/class/drm/card<N>/device (N = xpu_device.card; kernel amdgpu_pm.c,
 * https://www.kernel.org/doc/html/latest/gpu/amdgpu/thermal.html):
 *   gpu_busy_percent              integer percent        → utilization_ratio (/100)
 *   mem_busy_percent              integer percent        → memory_bandwidth_utilization_ratio (/100)
 *   mem_info_vram_used, _total    bytes                  → memory_used_bytes, memory_total_bytes
 *                                                          (whole GPUs only: a partition's share is
 *                                                          not in these files)
 *   pp_dpm_sclk, _mclk, _socclk   "N: 1700Mhz *" lists, '*' = current level
 *                                                        → clock_hertz[graphics|memory|soc] (MHz × 10^6)
 *   ras/umc_err_count             "ue: N\nce: N"          → ecc_uncorrected, ecc_corrected (memory
 *                                                          controller blocks, since driver load)
 *   hwmon/hwmon<M>/ (the first whose name is "amdgpu"; the first one when none has a name file)
 *     temp<K>_input               millidegrees Celsius   → temperature_celsius[sensor] (/1000)
 *     temp<K>_label               "edge", "junction", "mem" → the sensor; without a label file
 *                                                          the kernel's fixed channel order
 *                                                          (temp1 edge, temp2 junction, temp3 mem)
 *     temp<K>_crit, _emergency    millidegrees Celsius   → temperature_limit_celsius[sensor][slowdown,
 *                                                          shutdown] (/1000); the same checks
 *     power1_average, else power1_input  microwatts      → power_watts (/10^6)
 *     power1_cap                  microwatts             → power_limit_watts (/10^6)
 *     energy1_input               microjoules            → energy_joules (/10^6)
 *
 * A missing file (or one the driver answers ENODATA/EOPNOTSUPP for: not supported on this ASIC)
 * leaves its reading out quietly. A file that is there but odd (not a number, a percentage above
 * 100, a DPM list without a readable current level line, unreadable) leaves its reading out and
 * adds one inventory warning naming the file. So does a number that is no reading
 * (readings-range.h): 4294967295 or 18446744073709551615 (a sentinel), a temperature outside
 * -50..200 °C, power or a power cap above 10 kW, a current clock above 10 GHz, VRAM above 1 PiB
 * ("/sys/class/drm/card0/device/mem_info_vram_total: 18446744073709551615 bytes: UINT64_MAX, a
 * vendor's \"not available\"; left out"); the two ras counts are kept only together. Nothing here
 * logs. */
#pragma once

#include <stdint.h>

#include "probe.h"
#include "readings.h"

/* hwmon directories looked at per card, temperature channels tried per hwmon directory. */
#define XPU_AMD_HWMON_MAX 16
#define XPU_AMD_TEMP_CHANNELS_MAX 8

/* Read the readings of AMD device DEV (its amdgpu card, DEV->card; XPU_HAVE_CARD must be set)
 * into *RET (cleared first; a reading the card does not give keeps its have bit clear). Odd files
 * become warnings in INV (xpu_inventory_warn(): "/sys/class/drm/card0/device/gpu_busy_percent:
 * \"abc\" is not a percentage; left out"). Returns 0 (even when no reading was found); -ENODEV
 * with ERR "gpu N: no amdgpu card in sysfs" when DEV is not an AMD device with a card, or ERR
 * "/sys/class/drm/card0/device: <strerror>" when the card's directory cannot be opened (the
 * device fell off the bus or the driver unbound it); -ENOMEM. ERR may be NULL. */
int xpu_amd_readings_read(const struct xpu_roots *roots, const struct xpu_device *dev, struct xpu_inventory *inv,
                          struct xpu_readings *ret, char *err, size_t err_size);

/* Cards one cache (below) remembers; a card beyond is read uncached. */
#define XPU_AMD_CACHE_CARDS_MAX 64

/* What xpu_amd_readings_read_cached() keeps between samples: per card, the attributes' open
 * descriptors (read again with pread at offset 0) and which attributes and hwmon directory the
 * card has, so a sample costs one path walk per card (its directory, compared by st_dev and
 * st_ino: a different directory starts that card over) and one pread per attribute. On a tree
 * that is not sysfs (a fixture, a copy), a file can be replaced by a rename, which a kept
 * descriptor would not see; such a change moves its directory's mtime, so the directories of the
 * kept files (the card's, hwmon's, ras/) are watched with one fstat each per sample, and only when
 * one's mtime moved or is under 2 s old is each kept file checked with fstat: one with no link
 * left is read by its path again and the card starts over at the next sample, as after any
 * failing read (sysfs attributes are never replaced: a gone device answers ENODEV). Absent
 * attributes are looked for again every 60 samples. One thread at a time. */
struct xpu_amd_cache;
struct xpu_amd_cache *xpu_amd_cache_new(void); /* NULL on -ENOMEM */
struct xpu_amd_cache *xpu_amd_cache_free(struct xpu_amd_cache *cache); /* closes everything; NULL-safe */

/* xpu_amd_readings_read() through CACHE (NULL: as xpu_amd_readings_read()): the same readings,
 * warnings and errors. */
int xpu_amd_readings_read_cached(const struct xpu_roots *roots, const struct xpu_device *dev,
                                 struct xpu_amd_cache *cache, struct xpu_inventory *inv, struct xpu_readings *ret,
                                 char *err, size_t err_size);

/* Parse a pp_dpm_* text: lines "<level>: <number>Mhz" (level digits or a letter such as "S",
 * unit "Mhz"/"MHz" in any case), the current one ending in '*'. *RET_HZ = the first current
 * level's clock in hertz. Returns 0, -ENODATA when no line is marked current, -EINVAL for a line
 * of another form or a clock that does not fit. */
int xpu_amd_parse_dpm_current(const char *text, uint64_t *ret_hz);

/* Parse ras/<block>_err_count ("ue: N\nce: N\n", both required, any order, each once).
 * Returns 0 with *RET_UE (uncorrected) and *RET_CE (corrected), or -EINVAL. */
int xpu_amd_parse_ras_count(const char *text, uint64_t *ret_ue, uint64_t *ret_ce);

/* xpud's AMD readings backend "amdgpu_sysfs" (vendor.h): xpu_amd_readings_read_cached() for each
 * AMD device, through one cache kept between samples. */
extern const struct xpu_readings_ops xpu_readings_amdgpu;
