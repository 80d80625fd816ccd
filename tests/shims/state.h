/* SPDX-License-Identifier: Apache-2.0 */
/* State file of the fake vendor libraries (tests/shims/).
 *
 * The fake libcuda and libnvidia-ml answer every query from one text file named by the
 * environment variable XPU_FAKE_STATE, so a test can write the readings it wants (and change
 * them while a program runs: the file is read again on every query). Format: one "key value"
 * pair per line, key and value separated by the first run of blanks, value = rest of the line
 * without trailing blanks; '#' lines and blank lines are ignored; the first line with a key wins.
 *
 *   driver_version 465.19.01          NVML system driver version string
 *   cuda_version 11030                CUDA driver API version (also "11.3" = 11030)
 *   device_count 8
 *   device.0.name NVIDIA GeForce RTX 2080 Ti
 *   device.0.uuid GPU-307dcc96-618a-4416-c1ef-87823c2e1a31
 *   device.0.cc 7.5                   compute capability major.minor
 *   device.0.minor 0                  /dev/nvidiaN minor
 *   device.0.memory_total 11811160064 bytes
 *   device.0.bus_id 00000000:1A:00.0  nvmlDeviceGetPciInfo*: busId as NVML writes it
 *   device.0.brand GeForce            nvmlDeviceGetBrand: a brand name of fake-nvml-device.c or a number
 *   device.0.name_from_env LD_PRELOAD the name is that variable of the library's environment
 *                                     ("(unset)"): shows what reaches an isolated helper
 *
 * Fake NVML only (a missing key makes that call answer NVML_ERROR_NOT_SUPPORTED, as a GeForce
 * board does; numbers are decimal, or 0x hex where noted):
 *   device.0.memory_used 524288000    bytes (nvmlDeviceGetMemoryInfo used; 0 when absent)
 *   device.0.mig_mode 1               nvmlDeviceGetMigMode current mode (0/1)
 *   device.0.mig_pending 0            its pending mode (default: the current one)
 *   device.0.mig_max 7                nvmlDeviceGetMaxMigDeviceCount (default 7, at most 16)
 *   device.0.mig.2.uuid MIG-...       the MIG device at index 2 (nvmlDeviceGetMigDeviceHandleByIndex
 *                                     + nvmlDeviceGetUUID); an index without one answers NOT_FOUND
 *   device.0.util_gpu 35              nvmlDeviceGetUtilizationRates, percent (both keys or neither)
 *   device.0.util_memory 12
 *   device.0.temperature 41           nvmlDeviceGetTemperature(GPU sensor), degrees Celsius
 *   device.0.temp_slowdown 90         nvmlDeviceGetTemperatureThreshold(SLOWDOWN), degrees Celsius;
 *   device.0.temp_shutdown 95         temp_shutdown: ...(SHUTDOWN)
 *   device.0.power_usage_mw 71234     nvmlDeviceGetPowerUsage, milliwatts
 *   device.0.power_limit_mw 250000    nvmlDeviceGetEnforcedPowerLimit, milliwatts
 *   device.0.energy_mj 123456789      nvmlDeviceGetTotalEnergyConsumption, millijoules
 *   device.0.clock_sm_mhz 1350        nvmlDeviceGetClockInfo, MHz: also clock_graphics_mhz,
 *   device.0.clock_mem_mhz 7000       clock_video_mhz
 *   device.0.ecc_corrected 3          nvmlDeviceGetTotalEccErrors, volatile counter; the aggregate
 *   device.0.ecc_uncorrected 0        ones are ecc_aggregate_corrected / ecc_aggregate_uncorrected
 *   device.0.clock_event_reasons 0x4  nvmlDeviceGetCurrentClocksEventReasons (and the older
 *                                     ...ClocksThrottleReasons) bitmask
 *   device.0.fabric 3 0 4026 9c6f5af353bf49b5a436b66766c413c3 0
 *                                     nvmlDeviceGetGpuFabricInfo: state, status, cliqueId, clusterUuid
 *                                     (32 hex digits); a fifth field, the healthMask, makes
 *                                     nvmlDeviceGetGpuFabricInfoV answer too (else NOT_SUPPORTED, as
 *                                     a driver before R550); no key: both NOT_SUPPORTED
 *   device.0.lost 1                   every call on device 0 (its handle included) answers
 *                                     NVML_ERROR_GPU_IS_LOST (15)
 *   device.0.name_fill A              nvmlDeviceGetName fills the caller's whole buffer with 'A' and
 *                                     no NUL (a library quirk)
 *   device.0.bus_id_text 000000000:1A:00.0  the busId text nvmlDeviceGetPciInfo* writes, when it
 *                                     should differ from bus_id (which gives the numbers); "-" = ""
 *   device_count 70                   nvmlDeviceGetCount answers up to 4096; handles exist for the
 *                                     first 64 only
 *
 *   calls_log /tmp/x/calls            append "nvmlInit_v2 PID" / "nvmlShutdown PID" lines to
 *                                     that file (created by the test, writable by the helper's
 *                                     nobody): counts NVML sessions opened and closed
 *
 * Failure modes (both fakes; FUNCTION is the exported name of an entry point):
 *   error.cuInit 999                  make that entry point return this code
 *   hang.nvmlInit_v2 1                (fake NVML) that entry point never returns
 *   abort.nvmlDeviceGetCount_v2 1     (fake NVML) that entry point calls abort()
 *   error.nvmlDeviceGetPowerUsage.2 15  (fake NVML) the same three, for the calls on device 2 only
 *   hang.nvmlDeviceGetMigMode.1 1       (its handle, its UUID, its MIG devices' UUIDs, ...)
 *   abort.nvmlDeviceGetTemperature.0 1
 *
 * When XPU_FAKE_STATE is unset (the environment of an xpu_isolate_run() helper holds only PATH),
 * the state file is "xpu-fake-state" in the directory of the library file itself (found through
 * /proc/self/maps), e.g. <driver root>/usr/lib/x86_64-linux-gnu/xpu-fake-state.
 *
 * These helpers are hidden: each shim carries its own copy and none leaks into the symbol table
 * the dynamic loader sees. */
#pragma once

#include <stddef.h>

#define XPU_FAKE_HIDDEN __attribute__((visibility("hidden")))

/* Copy the value of KEY into BUF (SIZE bytes, NUL-terminated, truncated to fit).
 * Returns 0, -ENOENT when the key is absent, -ENODATA when there is no state file,
 * or -errno when the file cannot be read. */
XPU_FAKE_HIDDEN int xpu_fake_state_get(const char *key, char *buf, size_t size);

/* Same as xpu_fake_state_get() with the key built from FMT (printf format, < 128 bytes). */
XPU_FAKE_HIDDEN int xpu_fake_state_getf(char *buf, size_t size, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Read KEY (built from FMT) as a signed decimal integer into *RET.
 * Returns 0, -EINVAL when the value is not a whole decimal number, or an error of
 * xpu_fake_state_get(). *RET is written only on success. */
XPU_FAKE_HIDDEN int xpu_fake_state_get_long(long long *ret, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

/* The state's cuda_version as the CUDA driver API integer: "11030" or "11.3" both give 11030.
 * Returns 0, -ENODATA when the key is absent, -EINVAL when it is neither form. */
XPU_FAKE_HIDDEN int xpu_fake_state_cuda_version(int *ret);

/* 0 when the state file named by XPU_FAKE_STATE is readable, else -ENODATA or -errno. */
XPU_FAKE_HIDDEN int xpu_fake_state_available(void);

/* The code a test forces on entry point FUNCTION through an "error.FUNCTION N" line, or 0 when
 * none is set (or the line is malformed). */
XPU_FAKE_HIDDEN long long xpu_fake_forced_error(const char *function);
