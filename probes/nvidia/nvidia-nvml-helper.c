/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML reader, helper side (nvidia-nvml-helper.h): everything here runs only in the
 * isolated helper child and is the only code that calls NVML; it answers in the wire format
 * described at the top of nvidia-nvml-parse.c. No NVIDIA header is used: the few types and codes
 * below follow NVML's published values. */
#include "nvidia/nvidia-nvml-helper.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dlfcn.h>

#include "base/dl.h"
#include "base/macro.h"
#include "base/str.h"
#include "nvidia/nvidia-nvml-result.h"
#include "sandbox/helper-job.h"
#include "sandbox/isolate.h"
#include "sandbox/reply.h"

typedef int nvml_ret;
typedef void *nvml_dev;
typedef struct {
        unsigned long long total, free, used; /* bytes */
} nvml_memory;
typedef struct { /* nvmlPciInfo_t of nvmlDeviceGetPciInfo_v2/_v3 */
        char bus_id_legacy[16];
        unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
        char bus_id[32];
} nvml_pci;
typedef struct { /* the layout of the unversioned nvmlDeviceGetPciInfo (NVML < 9) */
        char bus_id[16];
        unsigned domain, bus, device, pci_device_id, pci_subsystem_id, reserved[4];
} nvml_pci_v1;
/* nvmlGpuFabricInfo_t and nvmlGpuFabricInfo_v2_t (nvml.h, R535 and R550): a GPU's registration
 * with a multi-node NVLink fabric. */
typedef struct {
        unsigned char cluster_uuid[16];
        nvml_ret status;
        unsigned clique_id;
        unsigned char state;
} nvml_fabric;
typedef struct {
        unsigned version; /* NVML_FABRIC_INFO_V2 */
        unsigned char cluster_uuid[16];
        nvml_ret status;
        unsigned clique_id;
        unsigned char state;
        unsigned health_mask;
} nvml_fabric_v2;
#define NVML_FABRIC_INFO_V2 ((unsigned)sizeof(nvml_fabric_v2) | (2u << 24)) /* NVML_STRUCT_VERSION(GpuFabricInfo, 2) */
#define NVML_FABRIC_STATE_COMPLETED 3

typedef struct { /* nvmlUtilization_t: percent of the last sample period */
        unsigned gpu, memory;
} nvml_utilization;

/* NVML return codes the helper looks at (nvmlReturn_t). */
enum {
        NVML_OK = 0,
        NVML_NOT_FOUND = 6,    /* NVML_ERROR_NOT_FOUND: no MIG device at that index */
        NVML_INSUFFICIENT_SIZE = 7, /* NVML_ERROR_INSUFFICIENT_SIZE: the count is set, the buffer was too small */
        NVML_GPU_IS_LOST = 15, /* NVML_ERROR_GPU_IS_LOST */
};
/* Arguments of the readings (nvml.h enums). */
enum {
        NVML_TEMPERATURE_GPU = 0,          /* nvmlTemperatureSensors_t */
        NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0, /* nvmlTemperatureThresholds_t */
        NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
        NVML_CLOCK_SM = 1,                 /* nvmlClockType_t */
        NVML_CLOCK_MEM = 2,
        NVML_MEMORY_ERROR_CORRECTED = 0,   /* nvmlMemoryErrorType_t */
        NVML_MEMORY_ERROR_UNCORRECTED = 1,
        NVML_VOLATILE_ECC = 0,             /* nvmlEccCounterType_t: since the driver was loaded */
        NVML_DEVICE_MIG_ENABLE = 1,        /* nvmlDeviceGetMigMode */
};
/* nvmlDeviceAddressingMode_t (R570+): the version word is NVML_STRUCT_VERSION(DeviceAddressingMode,
 * 1), the struct's size with 1 in the top byte (0x1000008, as NVIDIA's nvidia-ml-py spells it);
 * value NVML_DEVICE_ADDRESSING_MODE_{NONE,HMM,ATS} = 0, 1, 2. The spare words take a longer layout
 * a later library might write. */
typedef struct {
        unsigned version, value, spare[14];
} nvml_addressing_mode;
#define NVML_ADDRESSING_MODE_V1 0x1000008u
static const char *const addressing_names[] = { "none", "hmm", "ats" };
/* nvmlC2cModeInfo_v1_t of nvmlDeviceGetC2cModeInfoV: isC2cEnabled 0 or 1; spare words as above. */
typedef struct {
        unsigned is_c2c_enabled, spare[15];
} nvml_c2c_mode;
/* MIG indices tried per GPU at most, whatever nvmlDeviceGetMaxMigDeviceCount says (7 on H100). */
#define MIG_INDEX_MAX 64u

typedef nvml_ret (*fn_void)(void);
typedef nvml_ret (*fn_str)(char *, unsigned);
typedef nvml_ret (*fn_int)(int *);
typedef nvml_ret (*fn_uint)(unsigned *);
typedef nvml_ret (*fn_handle)(unsigned, nvml_dev *);
typedef nvml_ret (*fn_dev_str)(nvml_dev, char *, unsigned);
typedef nvml_ret (*fn_dev_uint)(nvml_dev, unsigned *);
typedef nvml_ret (*fn_dev_uint2)(nvml_dev, unsigned *, unsigned *);
typedef nvml_ret (*fn_dev_ull)(nvml_dev, unsigned long long *);
typedef nvml_ret (*fn_dev_int)(nvml_dev, int *);
typedef nvml_ret (*fn_dev_int2)(nvml_dev, int *, int *);
typedef nvml_ret (*fn_dev_ptr)(nvml_dev, void *);
typedef nvml_ret (*fn_dev_arg_uint)(nvml_dev, int, unsigned *);
typedef nvml_ret (*fn_dev_arg2_ull)(nvml_dev, int, int, unsigned long long *);
typedef nvml_ret (*fn_dev_index)(nvml_dev, unsigned, nvml_dev *);
typedef nvml_ret (*fn_dev_uint4)(nvml_dev, unsigned *, unsigned *, unsigned *, unsigned *);
typedef nvml_ret (*fn_dev_pages)(nvml_dev, int, unsigned *, unsigned long long *);
typedef const char *(*fn_errstr)(nvml_ret);

/* Addresses bound by xpu_dl_bind(); called through the typedefs above. */
struct nvml_api {
        void *init, *shutdown, *driver_version, *cuda_version, *count, *handle, *name, *uuid, *minor, *pci,
                *pci_v1, *memory, *cc, *brand, *mig_mode, *mig_max, *mig_handle, *mig_gi, *mig_ci, *utilization, *temperature,
                *temp_threshold,
                *power_usage, *power_limit, *energy, *clock, *ecc_total, *clock_events, *remapped_rows, *retired_pages,
                *retired_pending, *numa_node, *addressing_mode, *c2c_mode, *fabric, *fabric_v, *error_string;
};

#define CALL(type, ptr) ((type)(uintptr_t)(ptr))
#define API_SLOT(a, slot) (*(void *const *)(const void *)((const char *)(a) + (slot)))

/* NVML return codes worth their own errno; the rest are -EIO. */
static const struct {
        nvml_ret code;
        int err;
} nvml_errno[] = {
        { 3, -EOPNOTSUPP }, /* NVML_ERROR_NOT_SUPPORTED */
        { 4, -EPERM },      /* NVML_ERROR_NO_PERMISSION */
        { 9, -ENODEV },     /* NVML_ERROR_DRIVER_NOT_LOADED */
        { 12, -ENOENT },    /* NVML_ERROR_LIBRARY_NOT_FOUND */
        { 18, -EPROTO },    /* NVML_ERROR_LIB_RM_VERSION_MISMATCH */
};

static const char *error_text(const struct nvml_api *a, nvml_ret code) {
        const char *text = a->error_string ? CALL(fn_errstr, a->error_string)(code) : NULL;
        return text ? text : "unknown error";
}

static int nvml_fail(struct xpu_reply *r, int out_fd, const struct nvml_api *a, const char *call, nvml_ret code) {
        int err = -EIO;
        for (size_t i = 0; i < ELEMENTSOF(nvml_errno); i++)
                if (nvml_errno[i].code == code)
                        err = nvml_errno[i].err;
        return xpu_reply_fail(r, out_fd, err, "%s failed: %s (error %d)", call, error_text(a, code), code);
}

/* nvmlBrandType_t values (nvml.h order) in the NVIDIA Container Toolkit's spelling, the one
 * "brand=" requirements use (NVIDIA_REQUIRE_CUDA="... brand=tesla,... brand=geforcertx,..."). */
static const char *const brand_names[] = {
        "unknown",   "quadro",    "tesla",     "nvs",    "grid",       "geforce",    "titan",
        "vapps",     "vpc",       "vcs",       "vws",    "cloudgaming", "quadrortx", "nvidiartx",
        "nvidia",    "geforcertx", "titanrtx",
};

/* One device being read. Once a call answers NVML_ERROR_GPU_IS_LOST, LOST holds the reason and
 * nothing more is asked of the device. */
struct dev_read {
        struct xpu_reply *r;
        const struct nvml_api *a;
        unsigned i;
        nvml_dev d;
        char lost[160];
};

/* Record that CALL answered NVML_ERROR_GPU_IS_LOST (the first such call names the reason). */
static void note_lost(struct dev_read *c, const char *call) {
        if (c->lost[0])
                return;
        snprintf(c->lost, sizeof(c->lost), "%s failed: %s (error %d)", call, error_text(c->a, NVML_GPU_IS_LOST),
                 NVML_GPU_IS_LOST);
        xpu_reply_sanitize(c->lost, sizeof(c->lost));
}

/* True when CODE is success. A GPU_IS_LOST answer records the reason; any other failure just
 * leaves the optional fact out (NOT_SUPPORTED is normal on GeForce boards). */
static bool dev_ok(struct dev_read *c, const char *call, nvml_ret code) {
        if (code == NVML_GPU_IS_LOST)
                note_lost(c, call);
        return code == NVML_OK;
}

/* May the optional call in SLOT be made on C's device? */
static bool dev_can(const struct dev_read *c, size_t slot) {
        return !c->lost[0] && API_SLOT(c->a, slot) != NULL;
}

/* The single-number readings, in the order they are asked (a lost GPU stops at the first). */
enum reading_kind {
        R_UINT,     /* fn(dev, unsigned *) */
        R_ULL,      /* fn(dev, unsigned long long *) */
        R_ARG_UINT, /* fn(dev, ARG1, unsigned *) */
        R_ARG2_ULL, /* fn(dev, ARG1, ARG2, unsigned long long *) */
};
static const struct reading {
        const char *key;  /* wire key: device.N.<key> */
        const char *call; /* NVML entry point, named in a lost reason */
        size_t slot;      /* offsetof(struct nvml_api, ...) */
        enum reading_kind kind;
        int arg1, arg2;
        uint64_t scale; /* wire value = NVML's value * scale */
} readings[] = {
        { "temperature", "nvmlDeviceGetTemperature", offsetof(struct nvml_api, temperature), R_ARG_UINT,
          NVML_TEMPERATURE_GPU, 0, 1 }, /* degrees Celsius */
        { "temp_slowdown", "nvmlDeviceGetTemperatureThreshold", offsetof(struct nvml_api, temp_threshold),
          R_ARG_UINT, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, 0, 1 }, /* degrees Celsius */
        { "temp_shutdown", "nvmlDeviceGetTemperatureThreshold", offsetof(struct nvml_api, temp_threshold),
          R_ARG_UINT, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, 0, 1 },
        { "power_usage_mw", "nvmlDeviceGetPowerUsage", offsetof(struct nvml_api, power_usage), R_UINT, 0, 0, 1 },
        { "power_limit_mw", "nvmlDeviceGetEnforcedPowerLimit", offsetof(struct nvml_api, power_limit), R_UINT, 0, 0,
          1 },
        { "energy_mj", "nvmlDeviceGetTotalEnergyConsumption", offsetof(struct nvml_api, energy), R_ULL, 0, 0, 1 },
        { "clock_sm_hz", "nvmlDeviceGetClockInfo", offsetof(struct nvml_api, clock), R_ARG_UINT, NVML_CLOCK_SM, 0,
          1000000 }, /* MHz → Hz */
        { "clock_memory_hz", "nvmlDeviceGetClockInfo", offsetof(struct nvml_api, clock), R_ARG_UINT, NVML_CLOCK_MEM,
          0, 1000000 },
        { "ecc_corrected", "nvmlDeviceGetTotalEccErrors", offsetof(struct nvml_api, ecc_total), R_ARG2_ULL,
          NVML_MEMORY_ERROR_CORRECTED, NVML_VOLATILE_ECC, 1 },
        { "ecc_uncorrected", "nvmlDeviceGetTotalEccErrors", offsetof(struct nvml_api, ecc_total), R_ARG2_ULL,
          NVML_MEMORY_ERROR_UNCORRECTED, NVML_VOLATILE_ECC, 1 },
        { "clock_event_reasons", "nvmlDeviceGetCurrentClocksEventReasons", offsetof(struct nvml_api, clock_events),
          R_ULL, 0, 0, 1 },
};

static void read_readings(struct dev_read *c) {
        for (size_t k = 0; k < ELEMENTSOF(readings); k++) {
                const struct reading *rd = &readings[k];
                void *fn = API_SLOT(c->a, rd->slot);
                unsigned u = 0;
                unsigned long long ull = 0;
                nvml_ret e;
                if (!dev_can(c, rd->slot))
                        continue;
                switch (rd->kind) {
                case R_UINT:
                        e = CALL(fn_dev_uint, fn)(c->d, &u);
                        ull = u;
                        break;
                case R_ULL:
                        e = CALL(fn_dev_ull, fn)(c->d, &ull);
                        break;
                case R_ARG_UINT:
                        e = CALL(fn_dev_arg_uint, fn)(c->d, rd->arg1, &u);
                        ull = u;
                        break;
                case R_ARG2_ULL:
                        e = CALL(fn_dev_arg2_ull, fn)(c->d, rd->arg1, rd->arg2, &ull);
                        break;
                default:
                        continue;
                }
                if (dev_ok(c, rd->call, e))
                        xpu_reply_add(c->r, "device.%u.%s %llu\n", c->i, rd->key, ull * rd->scale);
        }
}

/* MIG mode, and when enabled the MIG devices: UUID, GPU and compute instance ids, and the name
 * and memory when NVML answers them for the MIG handle. The list is sent only when it is
 * complete: a failing MIG call (other than NOT_FOUND for an unused index), a UUID without "MIG-",
 * an id over 255 or more than XPU_MIG_DEVICES_MAX devices leave it out (the mode is still sent). */
static void read_mig(struct dev_read *c) {
        const struct nvml_api *a = c->a;
        unsigned current = 0, pending = 0, max = 0;
        struct xpu_nvml_mig migs[XPU_MIG_DEVICES_MAX];
        char s[128];
        size_t n = 0;

        if (!dev_can(c, offsetof(struct nvml_api, mig_mode)) ||
            !dev_ok(c, "nvmlDeviceGetMigMode", CALL(fn_dev_uint2, a->mig_mode)(c->d, &current, &pending)) || current > 1)
                return;
        xpu_reply_add(c->r, "device.%u.mig_mode %u\n", c->i, current);
        if (current != NVML_DEVICE_MIG_ENABLE || !dev_can(c, offsetof(struct nvml_api, mig_max)) || !a->mig_handle ||
            !a->mig_gi || !a->mig_ci ||
            !dev_ok(c, "nvmlDeviceGetMaxMigDeviceCount", CALL(fn_dev_uint, a->mig_max)(c->d, &max)))
                return;
        for (unsigned k = 0; k < max && k < MIG_INDEX_MAX; k++) {
                nvml_dev m = NULL;
                nvml_ret e = CALL(fn_dev_index, a->mig_handle)(c->d, k, &m);
                if (e == NVML_NOT_FOUND)
                        continue;
                if (n == XPU_MIG_DEVICES_MAX || !dev_ok(c, "nvmlDeviceGetMigDeviceHandleByIndex", e))
                        return;
                struct xpu_nvml_mig *g = &migs[n];
                *g = (struct xpu_nvml_mig){ 0 };
                if (!dev_ok(c, "nvmlDeviceGetUUID", CALL(fn_dev_str, a->uuid)(m, s, sizeof(s))) ||
                    !xpu_helper_clean_string(s, sizeof(s), sizeof(g->uuid), false) || !xpu_startswith(s, "MIG-") ||
                    xpu_strlcpy(g->uuid, s, sizeof(g->uuid)) < 0 ||
                    !dev_ok(c, "nvmlDeviceGetGpuInstanceId", CALL(fn_dev_uint, a->mig_gi)(m, &g->gi)) ||
                    !dev_ok(c, "nvmlDeviceGetComputeInstanceId", CALL(fn_dev_uint, a->mig_ci)(m, &g->ci)) ||
                    g->gi > 255 || g->ci > 255)
                        return;
                /* Optional: a failure leaves the line out, the list stays complete. */
                if (CALL(fn_dev_str, a->name)(m, s, sizeof(s)) == NVML_OK &&
                    xpu_helper_clean_string(s, sizeof(s), sizeof(g->name), true))
                        xpu_strlcpy(g->name, s, sizeof(g->name));
                nvml_memory mem = {0};
                if (a->memory && CALL(fn_dev_ptr, a->memory)(m, &mem) == NVML_OK)
                        g->memory_total_bytes = mem.total;
                n++;
        }
        xpu_reply_add(c->r, "device.%u.mig_count %zu\n", c->i, n);
        for (size_t k = 0; k < n; k++) {
                xpu_reply_add(c->r, "device.%u.mig.%zu.uuid %s\n", c->i, k, migs[k].uuid);
                xpu_reply_add(c->r, "device.%u.mig.%zu.gi %u\n", c->i, k, migs[k].gi);
                xpu_reply_add(c->r, "device.%u.mig.%zu.ci %u\n", c->i, k, migs[k].ci);
                if (migs[k].name[0])
                        xpu_reply_add(c->r, "device.%u.mig.%zu.name %s\n", c->i, k, migs[k].name);
                if (migs[k].memory_total_bytes)
                        xpu_reply_add(c->r, "device.%u.mig.%zu.memory_total %llu\n", c->i, k,
                                      (unsigned long long)migs[k].memory_total_bytes);
        }
}

/* Memory repair: row remapping (Ampere and later: nvmlDeviceGetRemappedRows) and page retirement
 * (before: nvmlDeviceGetRetiredPages per cause, asked for the count only with a zero-sized buffer,
 * and ...PendingStatus). Each set is sent whole or not at all (NOT_SUPPORTED on the other
 * generation). */
static void read_memory_repair(struct dev_read *c) {
        const struct nvml_api *a = c->a;
        unsigned corr = 0, unc = 0, pending = 0, failed = 0;
        if (dev_can(c, offsetof(struct nvml_api, remapped_rows)) &&
            dev_ok(c, "nvmlDeviceGetRemappedRows", CALL(fn_dev_uint4, a->remapped_rows)(c->d, &corr, &unc, &pending, &failed)) &&
            pending <= 1 && failed <= 1)
                xpu_reply_add(c->r, "device.%u.remap %u %u %u %u\n", c->i, corr, unc, pending, failed);
        unsigned count[2] = { 0, 0 };
        int status = 0;
        bool ok = dev_can(c, offsetof(struct nvml_api, retired_pages)) &&
                  dev_can(c, offsetof(struct nvml_api, retired_pending));
        for (int cause = 0; ok && cause < 2; cause++) { /* NVML_PAGE_RETIREMENT_CAUSE_{MULTIPLE_SINGLE_BIT,DOUBLE_BIT} */
                nvml_ret e = CALL(fn_dev_pages, a->retired_pages)(c->d, cause, &count[cause], NULL);
                ok = e == NVML_INSUFFICIENT_SIZE || dev_ok(c, "nvmlDeviceGetRetiredPages", e);
        }
        if (ok && dev_ok(c, "nvmlDeviceGetRetiredPagesPendingStatus",
                         CALL(fn_dev_int, a->retired_pending)(c->d, &status)) && (status == 0 || status == 1))
                xpu_reply_add(c->r, "device.%u.retired %u %u %d\n", c->i, count[0], count[1], status);
}

/* Memory coherent with the CPU's (Grace Hopper, Grace Blackwell): the NUMA node of the GPU's
 * memory, the addressing mode, NVLink-C2C. NOT_SUPPORTED on other GPUs; a value out of range
 * (node >= XPU_NVIDIA_NUMA_NODES_MAX, a mode or flag NVML does not define) is left out. */
static void read_coherence(struct dev_read *c) {
        const struct nvml_api *a = c->a;
        unsigned node = 0;
        if (dev_can(c, offsetof(struct nvml_api, numa_node)) &&
            dev_ok(c, "nvmlDeviceGetNumaNodeId", CALL(fn_dev_uint, a->numa_node)(c->d, &node)) &&
            node < XPU_NVIDIA_NUMA_NODES_MAX)
                xpu_reply_add(c->r, "device.%u.numa_node %u\n", c->i, node);
        nvml_addressing_mode mode = { .version = NVML_ADDRESSING_MODE_V1 };
        if (dev_can(c, offsetof(struct nvml_api, addressing_mode)) &&
            dev_ok(c, "nvmlDeviceGetAddressingMode", CALL(fn_dev_ptr, a->addressing_mode)(c->d, &mode)) &&
            mode.value < ELEMENTSOF(addressing_names))
                xpu_reply_add(c->r, "device.%u.addressing_mode %s\n", c->i, addressing_names[mode.value]);
        nvml_c2c_mode c2c = { 0 };
        if (dev_can(c, offsetof(struct nvml_api, c2c_mode)) &&
            dev_ok(c, "nvmlDeviceGetC2cModeInfoV", CALL(fn_dev_ptr, a->c2c_mode)(c->d, &c2c)) && c2c.is_c2c_enabled <= 1)
                xpu_reply_add(c->r, "device.%u.c2c_mode %u\n", c->i, c2c.is_c2c_enabled);
}

/* The GPU's multi-node NVLink fabric registration: the V call (with the health mask) where the
 * library has it, else the first one. NOT_SUPPORTED (no NVLink fabric: PCIe boards, one GPU)
 * leaves every line out; a state past COMPLETED is not sent. */
static void read_fabric(struct dev_read *c) {
        const struct nvml_api *a = c->a;
        nvml_fabric_v2 f = { .version = NVML_FABRIC_INFO_V2 };
        bool got = false, health = false;
        if (dev_can(c, offsetof(struct nvml_api, fabric_v)))
                got = health = dev_ok(c, "nvmlDeviceGetGpuFabricInfoV", CALL(fn_dev_ptr, a->fabric_v)(c->d, &f));
        if (!got && dev_can(c, offsetof(struct nvml_api, fabric))) {
                nvml_fabric v1 = { .state = 0 };
                got = dev_ok(c, "nvmlDeviceGetGpuFabricInfo", CALL(fn_dev_ptr, a->fabric)(c->d, &v1));
                memcpy(f.cluster_uuid, v1.cluster_uuid, sizeof f.cluster_uuid);
                f.status = v1.status;
                f.clique_id = v1.clique_id;
                f.state = v1.state;
        }
        if (!got || f.state > NVML_FABRIC_STATE_COMPLETED)
                return;
        xpu_reply_add(c->r, "device.%u.fabric_state %u\n", c->i, (unsigned)f.state);
        if (f.state != NVML_FABRIC_STATE_COMPLETED)
                return;
        xpu_reply_add(c->r, "device.%u.fabric_status %u\n", c->i, f.status >= 0 ? (unsigned)f.status : 999u);
        xpu_reply_add(c->r, "device.%u.fabric_clique %u\n", c->i, f.clique_id);
        static const unsigned char zero[16];
        if (memcmp(f.cluster_uuid, zero, sizeof zero) != 0) { /* all zero: no multi-node fabric (H100 HGX) */
                const unsigned char *u = f.cluster_uuid;
                xpu_reply_add(c->r, "device.%u.fabric_cluster %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
                              "%02x%02x%02x%02x%02x%02x\n", c->i, u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8],
                              u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
        }
        if (health)
                xpu_reply_add(c->r, "device.%u.fabric_health_mask %u\n", c->i, f.health_mask);
}

/* The optional per-device facts; a failing optional call just leaves its line out. */
static void read_device_extras(struct dev_read *c) {
        const struct nvml_api *a = c->a;
        unsigned i = c->i;

        unsigned minor = 0;
        if (dev_can(c, offsetof(struct nvml_api, minor)) &&
            dev_ok(c, "nvmlDeviceGetMinorNumber", CALL(fn_dev_uint, a->minor)(c->d, &minor)))
                xpu_reply_add(c->r, "device.%u.minor %u\n", i, minor);

        /* The bus id goes out normalised; one that does not normalise (empty, a 9-digit domain)
         * is left out: the device then cannot be matched, the others still are. */
        nvml_pci pci = {0};
        nvml_pci_v1 pci1 = {0};
        char *bus_id = NULL, normal[XPU_PCI_BUS_ID_MAX];
        if (dev_can(c, offsetof(struct nvml_api, pci)) &&
            dev_ok(c, "nvmlDeviceGetPciInfo_v3", CALL(fn_dev_ptr, a->pci)(c->d, &pci))) {
                pci.bus_id[sizeof(pci.bus_id) - 1] = '\0';
                bus_id = pci.bus_id;
        } else if (dev_can(c, offsetof(struct nvml_api, pci_v1)) &&
                   dev_ok(c, "nvmlDeviceGetPciInfo", CALL(fn_dev_ptr, a->pci_v1)(c->d, &pci1))) {
                pci1.bus_id[sizeof(pci1.bus_id) - 1] = '\0';
                bus_id = pci1.bus_id;
        }
        if (bus_id && xpu_pci_bus_id_normalize(bus_id, normal) == 0)
                xpu_reply_add(c->r, "device.%u.bus_id %s\n", i, normal);

        nvml_memory mem = {0};
        if (dev_can(c, offsetof(struct nvml_api, memory)) &&
            dev_ok(c, "nvmlDeviceGetMemoryInfo", CALL(fn_dev_ptr, a->memory)(c->d, &mem))) {
                xpu_reply_add(c->r, "device.%u.memory_total %llu\n", i, mem.total);
                if (mem.used <= mem.total)
                        xpu_reply_add(c->r, "device.%u.memory_used %llu\n", i, mem.used);
        }

        int major = 0, minor_cc = 0;
        if (dev_can(c, offsetof(struct nvml_api, cc)) &&
            dev_ok(c, "nvmlDeviceGetCudaComputeCapability", CALL(fn_dev_int2, a->cc)(c->d, &major, &minor_cc)) &&
            major >= 0 && major < 100 && minor_cc >= 0 && minor_cc < 100)
                xpu_reply_add(c->r, "device.%u.cc %d.%d\n", i, major, minor_cc);

        int brand = 0;
        if (dev_can(c, offsetof(struct nvml_api, brand)) &&
            dev_ok(c, "nvmlDeviceGetBrand", CALL(fn_dev_int, a->brand)(c->d, &brand))) {
                if (brand >= 0 && (size_t)brand < ELEMENTSOF(brand_names))
                        xpu_reply_add(c->r, "device.%u.brand %s\n", i, brand_names[brand]);
                else
                        xpu_reply_add(c->r, "device.%u.brand brand %d\n", i, brand);
        }

        read_mig(c);
        read_coherence(c);

        nvml_utilization util = {0};
        if (dev_can(c, offsetof(struct nvml_api, utilization)) &&
            dev_ok(c, "nvmlDeviceGetUtilizationRates", CALL(fn_dev_ptr, a->utilization)(c->d, &util))) {
                if (util.gpu <= 100)
                        xpu_reply_add(c->r, "device.%u.util_gpu %u\n", i, util.gpu);
                if (util.memory <= 100)
                        xpu_reply_add(c->r, "device.%u.util_memory %u\n", i, util.memory);
        }

        read_readings(c);
        read_memory_repair(c);
        read_fabric(c);
}

/* Device I: handle, the required UUID and name, then the rest. A lost device is reported with
 * its reason and the read goes on. Returns true when the read must end (another failure of a
 * required call: an error reply was sent and *STATUS is the helper's exit status). */
static bool read_device(struct xpu_reply *r, int out_fd, const struct nvml_api *a, unsigned i, int *status) {
        /* Each cleaned to fit the parent's field: a name is cut there, a UUID that does not fit is
         * left out (cut short it would name another device); an empty one is left out. */
        static const struct {
                const char *what, *call;
                size_t slot, field_size;
                bool may_cut;
        } strings[] = {
                { "uuid", "nvmlDeviceGetUUID", offsetof(struct nvml_api, uuid),
                  sizeof(((struct xpu_nvml_device *)0)->uuid), false },
                { "name", "nvmlDeviceGetName", offsetof(struct nvml_api, name),
                  sizeof(((struct xpu_nvml_device *)0)->name), true },
        };
        struct dev_read c = { .r = r, .a = a, .i = i };
        char call[64], s[256];

        nvml_ret e = CALL(fn_handle, a->handle)(i, &c.d);
        if (e == NVML_GPU_IS_LOST)
                note_lost(&c, "nvmlDeviceGetHandleByIndex_v2");
        else if (e != NVML_OK) {
                snprintf(call, sizeof(call), "nvmlDeviceGetHandleByIndex_v2(%u)", i);
                *status = nvml_fail(r, out_fd, a, call, e);
                return true;
        }
        for (size_t k = 0; k < ELEMENTSOF(strings) && !c.lost[0]; k++) {
                e = CALL(fn_dev_str, API_SLOT(a, strings[k].slot))(c.d, s, sizeof(s));
                if (e == NVML_GPU_IS_LOST) {
                        note_lost(&c, strings[k].call);
                } else if (e != NVML_OK) {
                        snprintf(call, sizeof(call), "%s(%u)", strings[k].call, i);
                        *status = nvml_fail(r, out_fd, a, call, e);
                        return true;
                } else if (xpu_helper_clean_string(s, sizeof(s), strings[k].field_size, strings[k].may_cut)) {
                        xpu_reply_add(r, "device.%u.%s %s\n", i, strings[k].what, s);
                }
        }
        if (!c.lost[0])
                read_device_extras(&c);
        if (c.lost[0])
                xpu_reply_add(r, "device.%u.lost %s\n", i, c.lost);
        return false;
}

/* Everything after nvmlInit succeeded; the caller shuts NVML down. */
static int read_all(struct xpu_reply *r, int out_fd, const struct nvml_api *a) {
        char s[256];
        nvml_ret e = CALL(fn_str, a->driver_version)(s, sizeof(s));
        if (e != NVML_OK)
                return nvml_fail(r, out_fd, a, "nvmlSystemGetDriverVersion", e);
        if (xpu_helper_clean_string(s, sizeof(s), sizeof(((struct xpu_nvml_result *)0)->driver_version), false))
                xpu_reply_add(r, "driver_version %s\n", s);

        /* 1000 * major + 10 * minor: CUDA 1.0 to 999.99; anything else is left out. */
        int cuda = 0;
        if (a->cuda_version && CALL(fn_int, a->cuda_version)(&cuda) == NVML_OK && cuda >= 1000 && cuda <= 999999)
                xpu_reply_add(r, "cuda_driver_version %d\n", cuda);

        unsigned n = 0;
        e = CALL(fn_uint, a->count)(&n);
        if (e != NVML_OK)
                return nvml_fail(r, out_fd, a, "nvmlDeviceGetCount_v2", e);
        if (n > XPU_NVML_DEVICES_MAX) {
                xpu_reply_add(r, "device_count %u\ndevices_total %u\n", XPU_NVML_DEVICES_MAX, n);
                n = XPU_NVML_DEVICES_MAX;
        } else
                xpu_reply_add(r, "device_count %u\n", n);

        for (unsigned i = 0; i < n; i++) {
                int status = 0;
                if (read_device(r, out_fd, a, i, &status))
                        return status;
        }
        return xpu_reply_send(r, out_fd, "NVML");
}

const char *const *xpu_nvidia_job_dirs(const struct xpu_nvidia_job *job, const char *list[3]) {
        size_t n = 0;
        if (!job || !job->wsl)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(job->dirs); i++)
                if (job->dirs[i][0])
                        list[n++] = job->dirs[i];
        list[n] = NULL;
        return list;
}

/* In the helper: load libnvidia-ml from JOB's driver root and bind A. On failure the error reply
 * has been sent and *STATUS is the helper's exit status; returns -errno. */
static int nvml_load(void *job, struct nvml_api *api, struct xpu_reply *r, int out_fd, int *status) {
        static const char *const sonames[] = { "libnvidia-ml.so.1", NULL };
        char loaded[PATH_MAX];
        void *handle = NULL;
        struct nvml_api a = {0};
        const struct xpu_dl_symbol syms[] = {
                { "nvmlInit_v2", "nvmlInit", &a.init, false },
                { "nvmlShutdown", NULL, &a.shutdown, false },
                { "nvmlSystemGetDriverVersion", NULL, &a.driver_version, false },
                { "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion", &a.cuda_version, true },
                { "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount", &a.count, false },
                { "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex", &a.handle, false },
                { "nvmlDeviceGetName", NULL, &a.name, false },
                { "nvmlDeviceGetUUID", NULL, &a.uuid, false },
                { "nvmlDeviceGetMinorNumber", NULL, &a.minor, true },
                { "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", &a.pci, true },
                { "nvmlDeviceGetPciInfo", NULL, &a.pci_v1, true },
                { "nvmlDeviceGetMemoryInfo", NULL, &a.memory, true },
                { "nvmlDeviceGetCudaComputeCapability", NULL, &a.cc, true },
                { "nvmlDeviceGetBrand", NULL, &a.brand, true },
                { "nvmlDeviceGetMigMode", NULL, &a.mig_mode, true },
                { "nvmlDeviceGetMaxMigDeviceCount", NULL, &a.mig_max, true },
                { "nvmlDeviceGetMigDeviceHandleByIndex", NULL, &a.mig_handle, true },
                { "nvmlDeviceGetGpuInstanceId", NULL, &a.mig_gi, true },
                { "nvmlDeviceGetComputeInstanceId", NULL, &a.mig_ci, true },
                { "nvmlDeviceGetUtilizationRates", NULL, &a.utilization, true },
                { "nvmlDeviceGetTemperature", NULL, &a.temperature, true },
                { "nvmlDeviceGetTemperatureThreshold", NULL, &a.temp_threshold, true },
                { "nvmlDeviceGetPowerUsage", NULL, &a.power_usage, true },
                { "nvmlDeviceGetEnforcedPowerLimit", NULL, &a.power_limit, true },
                { "nvmlDeviceGetTotalEnergyConsumption", NULL, &a.energy, true },
                { "nvmlDeviceGetClockInfo", NULL, &a.clock, true },
                { "nvmlDeviceGetTotalEccErrors", NULL, &a.ecc_total, true },
                /* renamed in R535; same signature and bits */
                { "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons",
                  &a.clock_events, true },
                { "nvmlDeviceGetRemappedRows", NULL, &a.remapped_rows, true },
                { "nvmlDeviceGetRetiredPages", NULL, &a.retired_pages, true },
                { "nvmlDeviceGetRetiredPagesPendingStatus", NULL, &a.retired_pending, true },
                { "nvmlDeviceGetNumaNodeId", NULL, &a.numa_node, true },
                { "nvmlDeviceGetAddressingMode", NULL, &a.addressing_mode, true },
                { "nvmlDeviceGetC2cModeInfoV", NULL, &a.c2c_mode, true },
                { "nvmlDeviceGetGpuFabricInfo", NULL, &a.fabric, true },   /* R535 */
                { "nvmlDeviceGetGpuFabricInfoV", NULL, &a.fabric_v, true }, /* R550: adds healthMask */
                { "nvmlErrorString", NULL, &a.error_string, true },
        };
        const char *dirs[3];
        int e = xpu_helper_job_load(job, sonames, xpu_nvidia_job_dirs(job, dirs), syms, ELEMENTSOF(syms), &handle,
                                    loaded, r, out_fd, status);
        if (e < 0)
                return e;
        /* No dlclose() ever: the helper exits when done, and some libraries crash in their destructors. */
        *api = a;
        return 0;
}

int xpu_nvml_helper(void *arg, int out_fd) {
        static struct xpu_reply r;
        struct nvml_api a;
        int status = 0;
        if (nvml_load(arg, &a, &r, out_fd, &status) < 0)
                return status;
        nvml_ret ne = CALL(fn_void, a.init)();
        if (ne != NVML_OK)
                return nvml_fail(&r, out_fd, &a, "nvmlInit_v2", ne);
        status = read_all(&r, out_fd, &a);
        (void)CALL(fn_void, a.shutdown)();
        return status;
}

int xpu_nvml_session_helper(void *arg, int fd) {
        static struct xpu_reply r;
        struct nvml_api a;
        int status = 0;
        r.framed = true;
        if (nvml_load(arg, &a, &r, fd, &status) < 0)
                return status;
        nvml_ret ne = CALL(fn_void, a.init)();
        if (ne != NVML_OK)
                return nvml_fail(&r, fd, &a, "nvmlInit_v2", ne);
        size_t library_line = r.len; /* "library PATH\n", the start of every reply */
        char library[XPU_REPLY_LINE_MAX];
        memcpy(library, r.buf, library_line < sizeof library ? library_line : 0);
        for (;;) {
                char req[XPU_ISOLATE_REQUEST_MAX];
                ssize_t n = xpu_isolate_session_next(fd, req, sizeof req);
                if (n <= 0)
                        break; /* EOF: the session ends */
                r.len = 0;
                r.overflow = false;
                if (strcmp(req, "sample") != 0) {
                        status = xpu_reply_fail(&r, fd, -EOPNOTSUPP, "NVML helper: unknown request \"%s\"", req);
                } else {
                        if (library_line < sizeof library) {
                                memcpy(r.buf, library, library_line);
                                r.len = library_line;
                        }
                        status = read_all(&r, fd, &a);
                }
                if (status != 0)
                        break; /* the reply could not be written: nobody is listening */
        }
        (void)CALL(fn_void, a.shutdown)();
        return status;
}
