/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML reader: libnvidia-ml from the driver root, called only in an
 * isolated helper child (probes/sandbox/isolate.h), its facts sent back as text lines and parsed
 * strictly in the parent; then merged into the fast-path inventory by PCI bus id. Nothing here
 * logs.
 *
 * By step: nvidia-nvml-helper.c is the helper side (the only code that calls NVML);
 * nvidia-nvml.c runs it (xpu_nvml_read(), xpud's session) and is the rich-path backend
 * xpu_rich_nvml of rich.h; nvidia-nvml-parse.c (nvidia-nvml-parse.h) parses the reply and merges
 * it. The wire format between them is described at the top of nvidia-nvml-parse.c. This header
 * holds the result types all three share. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "probe.h"
#include "readings.h"

struct xpu_rich_ops;

/* Most devices one read reports; NVML's own limit is far above any host's GPU count. */
#define XPU_NVML_DEVICES_MAX 64

/* Bits of xpu_nvml_device.have: set when NVML answered that query. A call that fails (for
 * example NVML_ERROR_NOT_SUPPORTED, normal for most readings on GeForce boards) leaves its bit
 * clear and its field 0. */
enum {
        XPU_NVML_HAVE_MINOR = 1u << 0,              /* minor */
        XPU_NVML_HAVE_PCI = 1u << 1,                /* pci_bus_id */
        XPU_NVML_HAVE_MEMORY_TOTAL = 1u << 2,       /* memory_total_bytes */
        XPU_NVML_HAVE_COMPUTE_CAPABILITY = 1u << 3, /* compute_capability */
        XPU_NVML_HAVE_BRAND = 1u << 4,              /* brand */
        XPU_NVML_HAVE_MEMORY_USED = 1u << 5,        /* memory_used_bytes */
        XPU_NVML_HAVE_MIG_MODE = 1u << 6,           /* mig_enabled */
        XPU_NVML_HAVE_MIG_DEVICES = 1u << 7,        /* mig[], n_mig: the full list was read */
        XPU_NVML_HAVE_UTIL_GPU = 1u << 8,           /* utilization_gpu_percent */
        XPU_NVML_HAVE_UTIL_MEMORY = 1u << 9,        /* utilization_memory_percent */
        XPU_NVML_HAVE_TEMPERATURE = 1u << 10,       /* temperature_celsius */
        XPU_NVML_HAVE_POWER_USAGE = 1u << 11,       /* power_usage_milliwatts */
        XPU_NVML_HAVE_POWER_LIMIT = 1u << 12,       /* power_limit_milliwatts */
        XPU_NVML_HAVE_ENERGY = 1u << 13,            /* energy_millijoules */
        XPU_NVML_HAVE_CLOCK_SM = 1u << 14,          /* clock_sm_hz */
        XPU_NVML_HAVE_CLOCK_MEMORY = 1u << 15,      /* clock_memory_hz */
        XPU_NVML_HAVE_ECC_CORRECTED = 1u << 16,     /* ecc_corrected */
        XPU_NVML_HAVE_ECC_UNCORRECTED = 1u << 17,   /* ecc_uncorrected */
        XPU_NVML_HAVE_CLOCK_EVENTS = 1u << 18,      /* clock_event_reasons */
        XPU_NVML_HAVE_REMAP = 1u << 19,             /* remap_*: all four (row remapping, Ampere and later) */
        XPU_NVML_HAVE_RETIRED = 1u << 20,           /* retired_*: all three (page retirement, before Ampere) */
        XPU_NVML_HAVE_TEMP_SLOWDOWN = 1u << 21,     /* temp_slowdown_celsius */
        XPU_NVML_HAVE_TEMP_SHUTDOWN = 1u << 22,     /* temp_shutdown_celsius */
};

/* Bits of xpu_nvml_mig.seen, in the order of the reply's mig.M keys. */
enum {
        XPU_NVML_MIG_SEEN_UUID = 1u << 0,
        XPU_NVML_MIG_SEEN_GI = 1u << 1,
        XPU_NVML_MIG_SEEN_CI = 1u << 2,
        XPU_NVML_MIG_SEEN_MEMORY = 1u << 3,
        XPU_NVML_MIG_SEEN_NAME = 1u << 4,
};

/* One MIG device (a compute instance of a GPU instance) of a GPU in MIG mode. Its parent is the
 * xpu_nvml_device that holds it. */
struct xpu_nvml_mig {
        char uuid[64]; /* nvmlDeviceGetUUID of the MIG handle: "MIG-<uuid>" (R470+) or the older
                          "MIG-GPU-<uuid>/<gi>/<ci>" */
        uint32_t gi;   /* nvmlDeviceGetGpuInstanceId of the MIG handle */
        uint32_t ci;   /* nvmlDeviceGetComputeInstanceId of the MIG handle */
        char name[96]; /* nvmlDeviceGetName of the MIG handle ("NVIDIA A100-SXM4-80GB MIG 1g.20gb"); "" */
        uint64_t memory_total_bytes; /* nvmlDeviceGetMemoryInfo total of the MIG handle, bytes; 0 unknown */
        uint8_t seen;  /* XPU_NVML_MIG_SEEN_* bits: which keys the reply gave (parser use) */
};

/* One GPU as NVML reports it (NVML index order = PCI bus order, but merge by bus id only).
 * Static facts first (merged into the inventory), then the live readings (kept here for xpud,
 * never merged). Units are in the names. */
struct xpu_nvml_device {
        char uuid[64];                       /* nvmlDeviceGetUUID: "GPU-307dcc96-..."; "" when lost, or when NVML
                                                answered an empty one or one longer than 63 bytes */
        char name[128];                      /* nvmlDeviceGetName, cut to 127 bytes; "" when lost or empty */
        char pci_bus_id[XPU_PCI_BUS_ID_MAX]; /* nvmlDeviceGetPciInfo_v3/_v2/(v1) busId, canonical form ("0000:1a:00.0", base/pci.h) */
        char compute_capability[16];         /* nvmlDeviceGetCudaComputeCapability: "7.5" */
        char brand[32];                      /* nvmlDeviceGetBrand in the toolkit's spelling: "geforce", "tesla", "nvidiartx", ...; "brand 17" for an unknown code */
        uint32_t minor;                      /* nvmlDeviceGetMinorNumber: /dev/nvidia<minor> */
        uint64_t memory_total_bytes;         /* nvmlDeviceGetMemoryInfo total, bytes */
        uint64_t memory_used_bytes;          /* nvmlDeviceGetMemoryInfo (v1) used, bytes: reserved + allocated (a live reading) */

        bool mig_enabled;                          /* nvmlDeviceGetMigMode current mode == NVML_DEVICE_MIG_ENABLE */
        struct xpu_nvml_mig mig[XPU_MIG_DEVICES_MAX]; /* nvmlDeviceGetMigDeviceHandleByIndex for 0 ..
                                                         nvmlDeviceGetMaxMigDeviceCount-1 (indices without a
                                                         MIG device skipped), in NVML index order */
        size_t n_mig;

        /* Live readings for xpud (not merged into the inventory). */
        uint32_t utilization_gpu_percent;    /* nvmlDeviceGetUtilizationRates gpu, 0..100 % of the last sample period */
        uint32_t utilization_memory_percent; /* nvmlDeviceGetUtilizationRates memory, 0..100 % */
        uint32_t temperature_celsius;        /* nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU), degrees Celsius */
        uint32_t temp_slowdown_celsius;      /* nvmlDeviceGetTemperatureThreshold(..._SLOWDOWN), degrees Celsius */
        uint32_t temp_shutdown_celsius;      /* nvmlDeviceGetTemperatureThreshold(..._SHUTDOWN), degrees Celsius */
        uint32_t power_usage_milliwatts;     /* nvmlDeviceGetPowerUsage, milliwatts */
        uint32_t power_limit_milliwatts;     /* nvmlDeviceGetEnforcedPowerLimit, milliwatts */
        uint64_t energy_millijoules;         /* nvmlDeviceGetTotalEnergyConsumption, millijoules since the driver was loaded */
        uint64_t clock_sm_hz;                /* nvmlDeviceGetClockInfo(NVML_CLOCK_SM), MHz converted to hertz */
        uint64_t clock_memory_hz;            /* nvmlDeviceGetClockInfo(NVML_CLOCK_MEM), MHz converted to hertz */
        uint64_t ecc_corrected;              /* nvmlDeviceGetTotalEccErrors(CORRECTED, VOLATILE): count since driver load */
        uint64_t ecc_uncorrected;            /* nvmlDeviceGetTotalEccErrors(UNCORRECTED, VOLATILE): count since driver load */
        uint64_t clock_event_reasons;        /* nvmlDeviceGetCurrentClocksEventReasons (or the older
                                                ...ClocksThrottleReasons): NVML's bitmask, e.g. 0x1 GPU idle,
                                                0x4 SW power cap, 0x20 SW thermal slowdown */
        /* Memory repair (the GPU's lifetime counts, kept across driver loads): */
        uint32_t remap_correctable;          /* nvmlDeviceGetRemappedRows corrRows: rows remapped for correctable errors */
        uint32_t remap_uncorrectable;        /* ... uncRows: rows remapped for uncorrectable errors */
        uint32_t remap_pending;              /* ... isPending: 1 = a remap waits for the next GPU reset */
        uint32_t remap_failed;               /* ... failureOccurred: 1 = a remap failed (no spare row left) */
        uint32_t retired_sbe;                /* nvmlDeviceGetRetiredPages(MULTIPLE_SINGLE_BIT_ECC_ERRORS) count */
        uint32_t retired_dbe;                /* nvmlDeviceGetRetiredPages(DOUBLE_BIT_ECC_ERROR) count */
        uint32_t retired_pending;            /* nvmlDeviceGetRetiredPagesPendingStatus: 1 = retirement waits for a reset */

        /* A per-device call answered NVML_ERROR_GPU_IS_LOST (15): the helper stopped querying this
         * device (the fields read before stay, with their bits) and went on with the others. */
        bool lost;
        char lost_reason[160]; /* "nvmlDeviceGetPowerUsage failed: GPU is lost (error 15)" */

        uint32_t have; /* XPU_NVML_HAVE_* */
};

struct xpu_nvml_result {
        char library[PATH_MAX];       /* the file loaded, path inside the driver root
                                         ("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.465.19.01") */
        char driver_version[32];      /* nvmlSystemGetDriverVersion: "465.19.01"; "" when empty or too long */
        char cuda_driver_version[16]; /* nvmlSystemGetCudaDriverVersion_v2: "11.3" from 11030; "" when the library
                                         lacks the call or answered no CUDA version (below 1000) */
        size_t total;                 /* devices NVML has (nvmlDeviceGetCount_v2): n, or more when it listed more
                                         than XPU_NVML_DEVICES_MAX (only the first are read) */
        size_t n;                     /* devices used */
        struct xpu_nvml_device devices[];
};

/* The loading rule of both NVIDIA readers (NVML and CUDA; docs/xpuinit.md: a library is never
 * loaded unless its file name carries the running kernel module's version): DRIVER_VERSION, the
 * module's version from /proc/driver/nvidia/version (inv->vendors[NVIDIA].driver_version), must be
 * known and a driver version (xpu_is_driver_version()). Returns 0, or -ENODATA with ERR (may be
 * NULL) "not loading SONAME: the NVIDIA kernel module's version is unknown (no readable
 * /proc/driver/nvidia/version), so the library cannot be checked against it" when it is NULL,
 * empty or not digits and dots. Nothing is loaded then. */
int xpu_nvidia_library_version_check(const char *driver_version, const char *soname, char *err, size_t err_size);

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
