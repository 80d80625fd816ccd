/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML reader: libnvidia-ml from the driver root, called only in an
 * isolated helper child (probes/sandbox/isolate.h), its facts sent back as text lines and parsed
 * strictly in the parent; then merged into the fast-path inventory by PCI bus id. Nothing here
 * logs.
 *
 * By step: nvidia-nvml-helper.c is the helper side (the only code that calls NVML);
 * nvidia-nvml.c runs it (xpu_nvml_read(), xpud's session) and is the rich-path backend
 * xpu_rich_nvml of rich.h; nvidia-nvml-parse.c (nvidia-nvml-parse.h) parses the reply and merges
 * it. The wire format between them is described at the top of nvidia-nvml-parse.c. The result
 * types all three share are in nvidia-nvml-result.h, which includes nothing of theirs, so that
 * the three form no include circle. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "nvidia/nvidia-nvml-result.h"
#include "probe.h"
#include "readings.h"

struct xpu_rich_ops;

/* The loading rule of both NVIDIA readers (NVML and CUDA; docs/xpuinit.md: a library is never
 * loaded unless its file name carries the running kernel module's version): DRIVER_VERSION, the
 * module's version from /proc/driver/nvidia/version (inv->vendors[NVIDIA].driver_version), must be
 * known and a driver version (xpu_is_driver_version()). Returns 0, or -ENODATA with ERR (may be
 * NULL) "not loading SONAME: the NVIDIA kernel module's version is unknown (no readable
 * /proc/driver/nvidia/version), so the library cannot be checked against it" when it is NULL,
 * empty or not digits and dots. Nothing is loaded then. */
int xpu_nvidia_library_version_check(const char *driver_version, const char *soname, char *err, size_t err_size);

/* Which library file an NVIDIA reader (NVML, the CUDA driver API) may load. On Linux the one whose
 * file name carries DRIVER_VERSION, the kernel module's (xpu_nvidia_library_version_check()). On
 * WSL2 (WSL set) there is no NVIDIA kernel module and the Windows driver's libraries carry no
 * version in their names (libnvidia-ml.so.1, libcuda.so.1.1), so nothing is checked: the library
 * is looked for in the driver root's /usr/lib/wsl/lib (what WSL's /etc/ld.so.conf.d/ld.wsl.conf
 * gives every program), then in WSL_STORE, the driver store folder the probe found (probes/wsl.h),
 * and only then in the loader cache and standard folders (xpu_dl_open_dirs_first(): an image's
 * own Linux library is not the Windows driver's). The driver version is then NVML's own
 * (nvmlSystemGetDriverVersion). */
struct xpu_nvidia_lib {
        const char *driver_version; /* Linux: /proc/driver/nvidia/version's */
        bool wsl;
        const char *wsl_store; /* WSL2: "/usr/lib/wsl/drivers/<folder>" in the driver root, "" none */
};

/* The library rule for INV: WSL2 when INV's platform is and the probe found NVIDIA's driver store
 * folder (xpu_vendor_info.wsl_store), else the kernel module's version. */
void xpu_nvidia_lib_of(const struct xpu_inventory *inv, struct xpu_nvidia_lib *ret);

struct xpu_nvidia_job;
/* Parent side of both NVIDIA readers: check LIB (SONAME names the library in the message of
 * xpu_nvidia_library_version_check()) and fill JOB for the helper (xpu_helper_job_prepare()).
 * Returns 0 or -errno with ERR as those two. */
int xpu_nvidia_job_prepare(struct xpu_nvidia_job *job, int driver_root_fd, const struct xpu_nvidia_lib *lib,
                           const char *soname, char *err, size_t err_size);

/* xpu_nvml_read() with the library rule LIB: on WSL2 no version check (struct xpu_nvidia_lib). */
int xpu_nvml_read_lib(int driver_root_fd, const struct xpu_nvidia_lib *lib, unsigned timeout_ms,
                      struct xpu_nvml_result **ret, char *err, size_t err_size);

/* Read NVML's view of the host. DRIVER_VERSION must pass xpu_nvidia_library_version_check() (else
 * -ENODATA and no helper runs). In a helper of xpu_isolate_run() (nobody:nogroup, no
 * capabilities, environment PATH only, TIMEOUT_MS bounded; 0 = 10 s; probes/sandbox/helper-job.h)
 * the helper finds libnvidia-ml.so.1 in DRIVER_ROOT_FD, refuses a library whose file-name
 * version differs from DRIVER_VERSION before loading it (xpu_dl_open_version), then calls nvmlInit_v2 (nvmlInit), the system queries, per device (GetCount_v2,
 * GetHandleByIndex_v2, with unversioned fallbacks) name, UUID, minor, PCI info (_v3, _v2, then
 * the old layout), memory, compute capability, brand, MIG mode and MIG devices, and the readings
 * of struct xpu_nvml_device, and nvmlShutdown.
 *
 * The helper cleans what NVML answers so that one odd value costs that value, not the read: a
 * string is NUL-terminated and made printable, a name cut to the parent's 127 bytes, an empty
 * name or UUID, a UUID or driver version too long for its field, a bus id that does not normalise
 * (xpu_pci_bus_id_normalize(): empty, a domain of more than 8 digits) or a CUDA version below 1000
 * is left out; more than XPU_NVML_DEVICES_MAX devices: the first are read and the total is sent
 * (xpu_nvml_merge() warns). The parent's parser stays strict.
 *
 * A device whose calls answer NVML_ERROR_GPU_IS_LOST is reported with lost set and the reason;
 * the other devices are read as usual. Any other failure of a required per-device call (handle,
 * UUID, name) fails the read.
 *
 * The helper cannot keep DRIVER_ROOT_FD (the runner closes every fd but the reply pipe): it
 * reopens the directory by the fd's /proc/self/fd path and checks device and inode against the
 * parent's fd.
 *
 * Returns 0 and *RET (free with xpu_nvml_result_free()), or -errno with ERR one line:
 *   -ENODATA       "not loading libnvidia-ml.so.1: the NVIDIA kernel module's version is unknown ..."
 *   -ENOENT        "not available: libnvidia-ml.so.1 not found in ..."
 *   -EPROTO        "driver/library version mismatch: kernel module ..., libnvidia-ml.so.X"
 *   -ENODEV        "nvmlInit_v2 failed: Driver Not Loaded (error 9)"
 *   -EIO           "nvmlInit_v2 failed: GPU is lost (error 15)" (other NVML codes likewise)
 *   -ETIMEDOUT     "NVML helper timed out after 10 s"
 *   -ECONNABORTED  "NVML helper killed by signal 6 (Aborted)"
 *   -EBADMSG       "garbage from the NVML helper: line 3"
 *   other -errno from xpu_isolate_run() as "NVML helper <reason>"; -EINVAL for bad arguments. */
int xpu_nvml_read(int driver_root_fd, const char *driver_version, unsigned timeout_ms,
                  struct xpu_nvml_result **ret, char *err, size_t err_size);

/* NULL-safe; returns NULL. */
struct xpu_nvml_result *xpu_nvml_result_free(struct xpu_nvml_result *r);

/* ---- one NVML session kept between reads (xpud) ----
 *
 * xpu_nvml_read() loads the library and calls nvmlInit_v2 in a new helper every time; a daemon
 * that reads every few seconds keeps one helper instead (isolate.h sessions): same isolation
 * (nobody, no capabilities, PID namespace when possible, PATH-only environment, no terminal), the
 * library loaded and nvmlInit_v2 called once when the helper starts, then one "sample" request
 * per read answered with the reply text of xpu_nvml_read() (devices listed afresh each time, so a
 * GPU lost meanwhile shows as lost), nvmlShutdown when the session ends.
 *
 * Each read is bounded by its timeout. A read that fails in any way (timeout, crash, garbage, an
 * error reply such as "nvmlInit_v2 failed: ...") ends the helper; the next read starts a new one.
 * Restarts back off so that a library that crashes every time is not reloaded in a hot loop:
 * after one failure the next read restarts at once; after K >= 2 failures in a row, not before
 * first_ms * 2^(K-2) (at most max_ms) have passed since the last one; reads meanwhile return
 * -EAGAIN at once. A successful read resets the count. */
struct xpu_nvml_session;

/* Backoff defaults (xpu_nvml_session_set_backoff()), milliseconds. */
#define XPU_NVML_SESSION_BACKOFF_FIRST_MS 2000u
#define XPU_NVML_SESSION_BACKOFF_MAX_MS 60000u

/* A new session with no helper running yet. Returns 0 and *RET, or -ENOMEM. */
int xpu_nvml_session_new(struct xpu_nvml_session **ret);
/* Change the restart backoff (tests): FIRST_MS after the second failure in a row, doubling up to
 * MAX_MS. */
void xpu_nvml_session_set_backoff(struct xpu_nvml_session *s, unsigned first_ms, unsigned max_ms);

/* Read NVML's view through S's helper, starting one (in DRIVER_ROOT_FD, checked against
 * DRIVER_VERSION as xpu_nvml_read() does) when none runs or when DRIVER_VERSION changed since it
 * was started. TIMEOUT_MS (0 = 10 s) bounds this read, the helper's start and nvmlInit_v2
 * included when it starts. Returns 0 and *RET (xpu_nvml_result_free()) or -errno with ERR as
 * xpu_nvml_read() (-ETIMEDOUT "NVML helper timed out after 10 s", -ECONNABORTED "NVML helper
 * killed by signal 6 (Aborted)", -EBADMSG, the library's own error), plus -EAGAIN "NVML helper
 * not restarted for 3.9 s after 2 failures in a row: <the last error>" during a backoff, -ENODATA
 * when DRIVER_VERSION is unknown (the helper, if any, is ended). */
int xpu_nvml_session_read(struct xpu_nvml_session *s, int driver_root_fd, const char *driver_version,
                          unsigned timeout_ms, struct xpu_nvml_result **ret, char *err, size_t err_size);

/* xpu_nvml_session_read() with the library rule LIB (struct xpu_nvidia_lib): a change of rule
 * (a driver version, WSL2's folder) starts a new helper. */
int xpu_nvml_session_read_lib(struct xpu_nvml_session *s, int driver_root_fd, const struct xpu_nvidia_lib *lib,
                              unsigned timeout_ms, struct xpu_nvml_result **ret, char *err, size_t err_size);

/* The running helper's pid (as this process sees it), 0 when none runs. */
pid_t xpu_nvml_session_pid(const struct xpu_nvml_session *s);

/* End S's helper, if one runs (nvmlShutdown, then exit; killed after a grace period); the next
 * read starts a new one. Not a failure: the backoff is unchanged. NULL-safe. */
void xpu_nvml_session_stop(struct xpu_nvml_session *s);

/* End the helper as xpu_nvml_session_stop() and free S. NULL-safe; returns NULL. */
struct xpu_nvml_session *xpu_nvml_session_free(struct xpu_nvml_session *s);

/* ---- readings (nvidia-readings.c) ---- */

/* NVML's clock event reason bitmask (nvmlDeviceGetCurrentClocksEventReasons) as xpu_readings
 * throttle bits (1u << enum xpu_throttle): 0x4 SW power cap → power; 0x20 SW thermal and 0x40 HW
 * thermal slowdown → thermal; 0x8 HW slowdown and 0x80 HW power brake → hw_slowdown; 0x10 sync
 * boost → sync_boost; other bits (0x1 idle, 0x2 application clocks, 0x100 display clocks) are no
 * throttling. */
uint32_t xpu_nvml_throttle_from_reasons(uint64_t reasons);

/* D's live readings in the base units of readings.h, into *RET (cleared first): utilization
 * percent / 100 → ratio, memory used/total bytes, GPU temperature (sensor "gpu", celsius) and its
 * slowdown and shutdown limits (nvmlDeviceGetTemperatureThreshold), power
 * usage and enforced limit milliwatts / 1000 → watts, energy millijoules / 1000 → joules, SM clock
 * → graphics and memory clock → memory (hertz), volatile ECC counts (only when NVML answered
 * both), throttle from the clock event reasons. Only what NVML answered (its XPU_NVML_HAVE_* bit)
 * is set. A lost device (D->lost) gets lost and lost_reason and no readings. A value that is a
 * sentinel or impossible (readings-range.h: UINT32_MAX/UINT64_MAX as answered, a temperature
 * outside -50..200 °C, power above 10 kW, a clock above 10 GHz, memory above 1 PiB, utilization
 * above 100 %) is left out, its bit clear; the ECC counts are kept only when both are plausible.
 * Returns the number of values left out (0 when all were plausible), or -ENOMEM when a warning
 * could not be stored (the readings are complete even then). Each value left out adds one warning
 * to INV (NULL: none) naming the device and the call: "nvml: 0000:1a:00.0:
 * nvmlDeviceGetTemperature(GPU) answered 4294967295 degrees Celsius: UINT32_MAX, a vendor's
 * \"not available\"; left out". */
int xpu_nvml_device_readings_checked(const struct xpu_nvml_device *d, struct xpu_inventory *inv,
                                     struct xpu_readings *ret);
/* xpu_nvml_device_readings_checked() without warnings. */
void xpu_nvml_device_readings(const struct xpu_nvml_device *d, struct xpu_readings *ret);

/* The rich-path backend of NVML (rich.h): vendor NVIDIA, source XPU_SOURCE_NVML, library
 * "libnvidia-ml.so.1"; read = xpu_nvml_read() with the fast path's driver version, merge =
 * xpu_nvml_merge() (nvidia-nvml-parse.h), to_json = {"source": "nvml", "library", "driver_version"?, "cuda_driver_version"?,
 * "devices_total"? (only when more than were read),
 * "devices": [{"index", "name", "uuid", "pci_bus_id"?, "minor"?, "memory_total_bytes"?,
 * "memory_used_bytes"?, "compute_capability"?, "brand"?, "mig_enabled"?, "mig_devices"?: [{"index",
 * "uuid", "parent_index", "parent_uuid"}], "readings": {"utilization_gpu_percent",
 * "utilization_memory_percent", "temperature_celsius", "temperature_slowdown_celsius",
 * "temperature_shutdown_celsius", "power_usage_watts", "power_limit_watts",
 * "energy_millijoules", "clock_sm_hz", "clock_memory_hz", "ecc_corrected_volatile",
 * "ecc_uncorrected_volatile", "clock_event_reasons"} (those NVML answered), "lost"?, "lost_reason"?}]}
 * ("?": only when known), print = the same as text lines. */
extern const struct xpu_rich_ops xpu_rich_nvml;

/* xpud's NVIDIA readings backend "nvml" (vendor.h; probes/nvidia/nvidia-sampling.c). */
extern const struct xpu_readings_ops xpu_readings_nvml;
