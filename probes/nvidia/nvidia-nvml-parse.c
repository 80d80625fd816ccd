/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML reader's reply, in the parent: the strict parser of the helper's reply, the merge into
 * the fast-path inventory and the result's JSON and text views (nvidia-nvml-parse.h). The helper
 * that writes the reply is nvidia-nvml-helper.c; nvidia-nvml.c calls this file, which calls
 * nothing of either.
 *
 * Wire format of the helper's reply (probes/sandbox/reply.h: one "key value" per line, values
 * printable ASCII, last line "end"):
 *   library /usr/lib/.../libnvidia-ml.so.465.19.01   the file loaded (probes/sandbox/helper-job.h)
 *   driver_version 465.19.01             nvmlSystemGetDriverVersion, when it fits 31 bytes
 *   cuda_driver_version 11030            optional; CUDA driver API integer
 *   device_count 2                       before any device line; at most XPU_NVML_DEVICES_MAX
 *   devices_total 70                     only after "device_count 64": NVML has more than were read
 *   device.0.uuid GPU-...                only when NVML answered a non-empty one that fits 63 bytes
 *   device.0.name NVIDIA GeForce RTX 2080 Ti      non-empty, at most 127 bytes (the helper cuts)
 *   device.0.minor 0                     the rest: only when NVML answered
 *   device.0.bus_id 0000:1a:00.0         normalised by the helper (any form xpu_pci_bus_id_normalize()
 *                                        takes is accepted)
 *   device.0.memory_total 11554717696    bytes
 *   device.0.memory_used 524288000       bytes
 *   device.0.cc 7.5
 *   device.0.brand GeForce
 *   device.0.mig_mode 1                  current MIG mode: 0 or 1
 *   device.0.mig_count 2                 after "mig_mode 1" only; 0..XPU_MIG_DEVICES_MAX; the
 *   device.0.mig.0.uuid MIG-...          list is then complete: mig.M.uuid, .gi and .ci for every
 *   device.0.mig.0.gi 3                  M < count (GPU and compute instance ids, 0..255)
 *   device.0.mig.0.ci 0
 *   device.0.mig.0.memory_total 20937965568  optional: bytes
 *   device.0.mig.0.name NVIDIA A100-SXM4-80GB MIG 1g.20gb   optional: at most 95 bytes
 *   device.0.util_gpu 35                 percent, 0..100
 *   device.0.util_memory 12              percent, 0..100
 *   device.0.temperature 41              degrees Celsius
 *   device.0.temp_slowdown 90            nvmlDeviceGetTemperatureThreshold(SLOWDOWN), degrees Celsius
 *   device.0.temp_shutdown 95            nvmlDeviceGetTemperatureThreshold(SHUTDOWN), degrees Celsius
 *   device.0.power_usage_mw 71234        milliwatts
 *   device.0.power_limit_mw 250000       milliwatts
 *   device.0.energy_mj 123456789         millijoules
 *   device.0.clock_sm_hz 1350000000      hertz
 *   device.0.clock_memory_hz 7000000000  hertz
 *   device.0.ecc_corrected 0             volatile totals
 *   device.0.ecc_uncorrected 0
 *   device.0.clock_event_reasons 1       NVML's bitmask, decimal
 *   device.0.remap 0 2 1 0               row remapping: correctable rows, uncorrectable rows, pending
 *                                        (0/1), failed (0/1)
 *   device.0.retired 1 0 0               page retirement: single-bit pages, double-bit pages, pending (0/1)
 *   device.0.numa_node 1                 nvmlDeviceGetNumaNodeId: below XPU_NVIDIA_NUMA_NODES_MAX
 *   device.0.addressing_mode ats         nvmlDeviceGetAddressingMode: none, hmm or ats
 *   device.0.c2c_mode 1                  nvmlDeviceGetC2cModeInfoV: 0 or 1
 *   device.0.fabric_state 3              nvmlDeviceGetGpuFabricInfo[V]: NVML_GPU_FABRIC_STATE_* (0..3), then
 *   device.0.fabric_status 0             the registration's nvmlReturn_t, the clique id and (completed,
 *   device.0.fabric_clique 4026          not all zero) the cluster UUID; fabric_health_mask from the V
 *   device.0.fabric_cluster 9c6f5af3-53bf-49b5-a436-b66766c413c3   call only
 *   device.0.fabric_health_mask 0
 *   device.0.lost TEXT                   a call answered GPU_IS_LOST: TEXT names it
 *   end
 * or, instead of all of it, one line "error ERRNO TEXT" (ERRNO negative). */
#include "nvidia/nvidia-nvml-parse.h"
#include "nvidia/nvidia-numa.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/escape.h"
#include "sandbox/helper-job.h"
#include "base/macro.h"
#include "sandbox/reply.h"
#include "base/str.h"
#include "wsl.h"

/* Per-device keys of the wire format stored as they are (the MIG and memory-repair keys are parsed
 * by hand: device_line()). A repeated one keeps its last value, as it always has. */
static const struct xpu_reply_field device_fields[] = {
#define FIELD(k, kind, m, have) XPU_REPLY_FIELD(k, kind, struct xpu_nvml_device, m, have)
        FIELD("uuid", XPU_REPLY_STR, uuid, 0),
        FIELD("name", XPU_REPLY_TEXT, name, 0),
        FIELD("minor", XPU_REPLY_U32, minor, XPU_NVML_HAVE_MINOR),
        FIELD("bus_id", XPU_REPLY_BUS_ID, pci_bus_id, XPU_NVML_HAVE_PCI),
        FIELD("memory_total", XPU_REPLY_U64, memory_total_bytes, XPU_NVML_HAVE_MEMORY_TOTAL),
        FIELD("memory_used", XPU_REPLY_U64, memory_used_bytes, XPU_NVML_HAVE_MEMORY_USED),
        FIELD("cc", XPU_REPLY_CC, compute_capability, XPU_NVML_HAVE_COMPUTE_CAPABILITY),
        FIELD("brand", XPU_REPLY_STR, brand, XPU_NVML_HAVE_BRAND),
        FIELD("util_gpu", XPU_REPLY_PERCENT, utilization_gpu_percent, XPU_NVML_HAVE_UTIL_GPU),
        FIELD("util_memory", XPU_REPLY_PERCENT, utilization_memory_percent, XPU_NVML_HAVE_UTIL_MEMORY),
        FIELD("temperature", XPU_REPLY_U32, temperature_celsius, XPU_NVML_HAVE_TEMPERATURE),
        FIELD("temp_slowdown", XPU_REPLY_U32, temp_slowdown_celsius, XPU_NVML_HAVE_TEMP_SLOWDOWN),
        FIELD("temp_shutdown", XPU_REPLY_U32, temp_shutdown_celsius, XPU_NVML_HAVE_TEMP_SHUTDOWN),
        FIELD("power_usage_mw", XPU_REPLY_U32, power_usage_milliwatts, XPU_NVML_HAVE_POWER_USAGE),
        FIELD("power_limit_mw", XPU_REPLY_U32, power_limit_milliwatts, XPU_NVML_HAVE_POWER_LIMIT),
        FIELD("energy_mj", XPU_REPLY_U64, energy_millijoules, XPU_NVML_HAVE_ENERGY),
        FIELD("clock_sm_hz", XPU_REPLY_U64, clock_sm_hz, XPU_NVML_HAVE_CLOCK_SM),
        FIELD("clock_memory_hz", XPU_REPLY_U64, clock_memory_hz, XPU_NVML_HAVE_CLOCK_MEMORY),
        FIELD("ecc_corrected", XPU_REPLY_U64, ecc_corrected, XPU_NVML_HAVE_ECC_CORRECTED),
        FIELD("ecc_uncorrected", XPU_REPLY_U64, ecc_uncorrected, XPU_NVML_HAVE_ECC_UNCORRECTED),
        FIELD("clock_event_reasons", XPU_REPLY_U64, clock_event_reasons, XPU_NVML_HAVE_CLOCK_EVENTS),
        FIELD("fabric_state", XPU_REPLY_U32, fabric_state, XPU_NVML_HAVE_FABRIC),
        FIELD("fabric_status", XPU_REPLY_U32, fabric_status, 0),
        FIELD("fabric_clique", XPU_REPLY_U32, fabric_clique_id, 0),
        FIELD("fabric_cluster", XPU_REPLY_STR, fabric_cluster_uuid, 0),
        FIELD("fabric_health_mask", XPU_REPLY_U32, fabric_health_mask, XPU_NVML_HAVE_FABRIC_HEALTH),
        FIELD("lost", XPU_REPLY_STR, lost_reason, 0),
#undef FIELD
};

/* A decimal index without sign, blanks or leading zeros, below LIMIT. Returns it or -EINVAL. */
static int parse_index(const char *s, size_t len, size_t limit) {
        char num[8];
        uint64_t v = 0;
        if (len == 0 || len >= sizeof(num) || (len > 1 && s[0] == '0') || strspn(s, "0123456789") < len)
                return -EINVAL;
        memcpy(num, s, len);
        num[len] = '\0';
        if (xpu_parse_u64(num, 10, &v) < 0 || v >= limit)
                return -EINVAL;
        return (int)v;
}

/* The MIG keys of device D: "mig_mode", "mig_count", "mig.M.uuid". Returns 0, -ENOENT when FIELD
 * is none of them, -EINVAL for a bad value or order. */
static int set_mig_field(struct xpu_nvml_device *d, const char *field, const char *value) {
        uint64_t v = 0;
        if (strcmp(field, "mig_mode") == 0) {
                if ((d->have & XPU_NVML_HAVE_MIG_MODE) || xpu_parse_u64(value, 10, &v) < 0 || v > 1)
                        return -EINVAL;
                d->mig_enabled = v == 1;
                d->have |= XPU_NVML_HAVE_MIG_MODE;
                return 0;
        }
        if (strcmp(field, "mig_count") == 0) {
                if (!d->mig_enabled || (d->have & XPU_NVML_HAVE_MIG_DEVICES) || xpu_parse_u64(value, 10, &v) < 0 ||
                    v > XPU_MIG_DEVICES_MAX)
                        return -EINVAL;
                d->n_mig = (size_t)v;
                d->have |= XPU_NVML_HAVE_MIG_DEVICES;
                return 0;
        }
        if (!xpu_startswith(field, "mig."))
                return -ENOENT;
        const char *s = field + 4, *dot = strchr(s, '.');
        if (!dot)
                return -EINVAL;
        int m = parse_index(s, (size_t)(dot - s), (d->have & XPU_NVML_HAVE_MIG_DEVICES) ? d->n_mig : 0);
        if (m < 0)
                return -EINVAL;
        struct xpu_nvml_mig *g = &d->mig[m];
        const char *key = dot + 1;
        static const char *const keys[] = { "uuid", "gi", "ci", "memory_total", "name" };
        unsigned bit = 0;
        for (unsigned k = 0; k < ELEMENTSOF(keys); k++)
                if (strcmp(key, keys[k]) == 0)
                        bit = 1u << k;
        if (!bit || (g->seen & bit))
                return -EINVAL;
        g->seen |= (uint8_t)bit;
        switch (bit) {
        case XPU_NVML_MIG_SEEN_UUID:
                return xpu_startswith(value, "MIG-") && xpu_strlcpy(g->uuid, value, sizeof g->uuid) == 0 ? 0 : -EINVAL;
        case XPU_NVML_MIG_SEEN_GI:
        case XPU_NVML_MIG_SEEN_CI:
                if (parse_index(value, strlen(value), 256) < 0)
                        return -EINVAL;
                *(bit == XPU_NVML_MIG_SEEN_GI ? &g->gi : &g->ci) = (uint32_t)parse_index(value, strlen(value), 256);
                return 0;
        case XPU_NVML_MIG_SEEN_MEMORY:
                return xpu_parse_u64(value, 10, &g->memory_total_bytes) == 0 && g->memory_total_bytes > 0 ? 0 : -EINVAL;
        default:
                return xpu_str_is_text(value) && xpu_strlcpy(g->name, value, sizeof g->name) == 0 ? 0 : -EINVAL;
        }
}

/* VALUE = N decimal numbers (each at most UINT32_MAX) separated by single spaces, into OUT.
 * Returns 0 or -EINVAL. */
static int parse_u32s(const char *value, uint32_t *out, size_t n) {
        const char *p = value;
        for (size_t k = 0; k < n; k++) {
                char num[12];
                size_t len = strspn(p, "0123456789");
                uint64_t v;
                if (len == 0 || len >= sizeof num || (len > 1 && p[0] == '0'))
                        return -EINVAL;
                memcpy(num, p, len);
                num[len] = '\0';
                if (xpu_parse_u64(num, 10, &v) < 0 || v > UINT32_MAX)
                        return -EINVAL;
                out[k] = (uint32_t)v;
                p += len;
                if (*p != (k + 1 < n ? ' ' : '\0'))
                        return -EINVAL;
                p += k + 1 < n;
        }
        return 0;
}

/* The memory-repair keys "remap" and "retired" (each once, flags 0 or 1). Returns 0, -ENOENT
 * when FIELD is neither, -EINVAL. */
static int set_repair_field(struct xpu_nvml_device *d, const char *field, const char *value) {
        uint32_t v[4];
        if (strcmp(field, "remap") == 0) {
                if ((d->have & XPU_NVML_HAVE_REMAP) || parse_u32s(value, v, 4) < 0 || v[2] > 1 || v[3] > 1)
                        return -EINVAL;
                d->remap_correctable = v[0];
                d->remap_uncorrectable = v[1];
                d->remap_pending = v[2];
                d->remap_failed = v[3];
                d->have |= XPU_NVML_HAVE_REMAP;
                return 0;
        }
        if (strcmp(field, "retired") == 0) {
                if ((d->have & XPU_NVML_HAVE_RETIRED) || parse_u32s(value, v, 3) < 0 || v[2] > 1)
                        return -EINVAL;
                d->retired_sbe = v[0];
                d->retired_dbe = v[1];
                d->retired_pending = v[2];
                d->have |= XPU_NVML_HAVE_RETIRED;
                return 0;
        }
        return -ENOENT;
}

/* The coherence keys "numa_node", "addressing_mode" and "c2c_mode" (each once, in range).
 * Returns 0, -ENOENT when FIELD is none of them, -EINVAL. */
static int set_coherence_field(struct xpu_nvml_device *d, const char *field, const char *value) {
        uint32_t v = 0;
        if (strcmp(field, "numa_node") == 0) {
                if ((d->have & XPU_NVML_HAVE_NUMA_NODE) || parse_u32s(value, &v, 1) < 0 || v >= XPU_NVIDIA_NUMA_NODES_MAX)
                        return -EINVAL;
                d->numa_node = v;
                d->have |= XPU_NVML_HAVE_NUMA_NODE;
                return 0;
        }
        if (strcmp(field, "addressing_mode") == 0) {
                if ((d->have & XPU_NVML_HAVE_ADDRESSING_MODE) ||
                    (strcmp(value, "none") != 0 && strcmp(value, "hmm") != 0 && strcmp(value, "ats") != 0))
                        return -EINVAL;
                xpu_strlcpy(d->addressing_mode, value, sizeof d->addressing_mode);
                d->have |= XPU_NVML_HAVE_ADDRESSING_MODE;
                return 0;
        }
        if (strcmp(field, "c2c_mode") == 0) {
                if ((d->have & XPU_NVML_HAVE_C2C) || parse_u32s(value, &v, 1) < 0 || v > 1)
                        return -EINVAL;
                d->c2c_enabled = v == 1;
                d->have |= XPU_NVML_HAVE_C2C;
                return 0;
        }
        return -ENOENT;
}

/* The hand-parsed device keys (xpu_reply_spec.device_line): MIG, memory repair, coherence;
 * -ENOENT for the field table. */
static int device_line(void *device, const char *field, const char *value) {
        int e = set_mig_field(device, field, value);
        if (e == -ENOENT)
                e = set_repair_field(device, field, value);
        return e == -ENOENT ? set_coherence_field(device, field, value) : e;
}

/* What the parser requires of a device once the reply has ended: a complete MIG list; and its
 * lost flag. Returns 0 or -EBADMSG. */
static int device_end(void *device, size_t i, char *err, size_t err_size) {
        struct xpu_nvml_device *d = device;
        d->lost = d->lost_reason[0] != '\0';
        const unsigned need = XPU_NVML_MIG_SEEN_UUID | XPU_NVML_MIG_SEEN_GI | XPU_NVML_MIG_SEEN_CI;
        for (size_t m = 0; m < d->n_mig; m++) {
                if ((d->mig[m].seen & need) != need) {
                        snprintf(err, err_size, "garbage from the NVML helper: device %zu lacks MIG device %zu's uuid, "
                                 "gi or ci", i, m);
                        return -EBADMSG;
                }
                for (size_t k = 0; k < m; k++)
                        if (d->mig[k].gi == d->mig[m].gi && d->mig[k].ci == d->mig[m].ci) {
                                snprintf(err, err_size, "garbage from the NVML helper: device %zu has two MIG devices "
                                         "with GPU instance %u and compute instance %u", i, d->mig[m].gi, d->mig[m].ci);
                                return -EBADMSG;
                        }
        }
        return 0;
}

static int set_driver_version(void *result, const char *value) {
        struct xpu_nvml_result *r = result;
        return xpu_strlcpy(r->driver_version, value, sizeof(r->driver_version)) < 0 ? -EINVAL : 0;
}

/* The CUDA driver API integer (1000 * major + 10 * minor) as "major.minor". */
static int set_cuda_driver_version(void *result, const char *value) {
        struct xpu_nvml_result *r = result;
        uint64_t v = 0;
        if (xpu_parse_u64(value, 10, &v) < 0 || v == 0 || v > 999999)
                return -EINVAL;
        snprintf(r->cuda_driver_version, sizeof(r->cuda_driver_version), "%u.%u", (unsigned)(v / 1000),
                 (unsigned)(v % 1000 / 10));
        return 0;
}

static const struct xpu_reply_key head_keys[] = {
        { "driver_version", false, set_driver_version },
        { "cuda_driver_version", false, set_cuda_driver_version },
};

static const struct xpu_reply_spec nvml_reply = {
        .what = "NVML",
        .keys = head_keys,
        .n_keys = ELEMENTSOF(head_keys),
        .devices_max = XPU_NVML_DEVICES_MAX,
        .device_size = sizeof(struct xpu_nvml_device),
        .have_offset = offsetof(struct xpu_nvml_device, have),
        .fields = device_fields,
        .n_fields = ELEMENTSOF(device_fields),
        .device_line = device_line,
        .device_end = device_end,
        .name_count_first = true,
};

int xpu_nvml_parse_reply(const char *text, struct xpu_nvml_result **ret, char *err, size_t err_size) {
        _cleanup_free_ struct xpu_nvml_result *r = NULL;
        char fallback[8];

        if (!err) {
                err = fallback;
                err_size = sizeof(fallback);
        }
        r = calloc(1, sizeof(*r) + XPU_NVML_DEVICES_MAX * sizeof(r->devices[0]));
        if (!r)
                return -ENOMEM;
        struct xpu_reply_out out = { .result = r, .library = r->library, .devices = r->devices };
        int e = xpu_reply_read(&nvml_reply, text, &out, err, err_size);
        if (e < 0)
                return e;
        r->n = out.count;
        r->total = out.total;
        *ret = TAKE_PTR(r);
        return 0;
}

/* ---- merging into the fast-path inventory ---- */

/* Insert M into DEV's MIG list, kept in (gi, ci) order. Returns the stored copy or NULL when full. */
static struct xpu_mig_device *mig_insert(struct xpu_device *dev, const struct xpu_mig_device *m) {
        struct xpu_nvidia_facts *nv = xpu_nvidia_facts(dev);
        if (nv->n_mig == XPU_MIG_DEVICES_MAX)
                return NULL;
        size_t k = nv->n_mig++;
        while (k > 0 && (nv->mig[k - 1].gi > m->gi || (nv->mig[k - 1].gi == m->gi && nv->mig[k - 1].ci > m->ci))) {
                nv->mig[k] = nv->mig[k - 1];
                k--;
        }
        nv->mig[k] = *m;
        return &nv->mig[k];
}

/* MIG mode and devices of ND into DEV. The mode: set when DEV has none yet, else a different one
 * is a warning (and nothing of NVML's MIG list is taken). The devices are matched by GPU and
 * compute instance id: NVML adds the UUID, name and memory to the one procfs listed (with its
 * capability nodes), and a MIG device procfs did not list (no capabilities directory in this
 * mount namespace) is added without nodes. Returns 0 or -ENOMEM. */
static int merge_mig(struct xpu_inventory *inv, struct xpu_device *dev, const struct xpu_nvml_device *nd) {
        if (!(nd->have & XPU_NVML_HAVE_MIG_MODE))
                return 0;
        if ((dev->have & XPU_HAVE_MIG_MODE) && xpu_nvidia_facts(dev)->mig_enabled != nd->mig_enabled) {
                const char *own = xpu_source_to_string(xpu_device_field_source(dev, XPU_FIELD_MIG));
                return xpu_inventory_warn(inv, "%s: nvml reports mig \"%s\" but %s has \"%s\"; keeping %s's",
                                          dev->pci_bus_id, nd->mig_enabled ? "enabled" : "disabled", own,
                                          xpu_nvidia_facts(dev)->mig_enabled ? "enabled" : "disabled", own);
        }
        if (!(dev->have & XPU_HAVE_MIG_MODE)) {
                xpu_nvidia_facts(dev)->mig_enabled = nd->mig_enabled;
                dev->have |= XPU_HAVE_MIG_MODE;
                xpu_device_mark(dev, XPU_FIELD_MIG, XPU_SOURCE_NVML);
        }
        if (!(nd->have & XPU_NVML_HAVE_MIG_DEVICES))
                return 0;
        for (size_t k = 0; k < nd->n_mig && k < XPU_MIG_DEVICES_MAX; k++) {
                const struct xpu_nvml_mig *g = &nd->mig[k];
                struct xpu_mig_device *m = (struct xpu_mig_device *)xpu_device_find_mig(dev, g->gi, g->ci);
                if (!m) {
                        const struct xpu_mig_device add = { .gi = g->gi, .ci = g->ci };
                        m = mig_insert(dev, &add);
                        if (!m) {
                                if (xpu_inventory_warn(inv, "%s: nvml reports more than %d MIG devices; GPU instance "
                                                            "%u compute instance %u ignored",
                                                       dev->pci_bus_id, XPU_MIG_DEVICES_MAX, g->gi, g->ci) < 0)
                                        return -ENOMEM;
                                continue;
                        }
                }
                /* A MIG UUID names one MIG device: one NVML gives twice names neither. */
                const char *twice = NULL;
                for (size_t j = 0; j < nd->n_mig && j < XPU_MIG_DEVICES_MAX && !twice; j++)
                        if (j != k && strcasecmp(nd->mig[j].uuid, g->uuid) == 0)
                                twice = g->uuid;
                if (twice) {
                        if (xpu_inventory_warn(inv, "%s: nvml reports MIG UUID %s for two MIG devices; it names "
                                                    "neither (GPU instance %u compute instance %u)",
                                               dev->pci_bus_id, twice, g->gi, g->ci) < 0)
                                return -ENOMEM;
                } else
                        xpu_strlcpy(m->uuid, g->uuid, sizeof m->uuid);
                if (g->name[0])
                        xpu_strlcpy(m->name, g->name, sizeof m->name);
                if (g->memory_total_bytes > 0) {
                        m->memory_total_bytes = g->memory_total_bytes;
                        m->have |= XPU_MIG_HAVE_MEMORY_TOTAL;
                }
        }
        return 0;
}

/* The facts of ND into its fast-path twin DEV. Returns 0 or -ENOMEM. */
static int merge_device(struct xpu_inventory *inv, struct xpu_device *dev, const struct xpu_nvml_device *nd) {
        int e = 0;
        if (nd->lost)
                e |= xpu_inventory_warn(inv, "nvml: %s: GPU is lost (%s); merged only what NVML answered before",
                                        dev->pci_bus_id, nd->lost_reason);
        if (nd->have & XPU_NVML_HAVE_MEMORY_TOTAL)
                e |= xpu_device_merge_u64(inv, dev, XPU_FIELD_MEMORY_TOTAL, &dev->memory_total_bytes,
                                          XPU_HAVE_MEMORY_TOTAL, nd->memory_total_bytes, XPU_SOURCE_NVML);
        /* A live reading: filled when absent, never compared. */
        if ((nd->have & XPU_NVML_HAVE_MEMORY_USED) && !(dev->have & XPU_HAVE_MEMORY_USED))
                e |= xpu_device_merge_u64(inv, dev, XPU_FIELD_MEMORY_USED, &dev->memory_used_bytes,
                                          XPU_HAVE_MEMORY_USED, nd->memory_used_bytes, XPU_SOURCE_NVML);
        struct xpu_nvidia_facts *nv = xpu_nvidia_facts(dev);
        e |= xpu_device_merge_string(inv, dev, XPU_FIELD_COMPUTE_CAPABILITY, nv->compute_capability,
                                     sizeof(nv->compute_capability), nd->compute_capability, XPU_SOURCE_NVML);
        e |= xpu_device_merge_string(inv, dev, XPU_FIELD_BRAND, nv->brand, sizeof(nv->brand), nd->brand,
                                     XPU_SOURCE_NVML);
        e |= xpu_device_merge_string(inv, dev, XPU_FIELD_NAME, dev->name, sizeof(dev->name), nd->name,
                                     XPU_SOURCE_NVML);
        e |= xpu_device_merge_string(inv, dev, XPU_FIELD_UUID, dev->uuid, sizeof(dev->uuid), nd->uuid,
                                     XPU_SOURCE_NVML);
        /* procfs owns the minor (it names /dev/nvidiaN); NVML only cross-checks it. */
        if ((nd->have & XPU_NVML_HAVE_MINOR) && (dev->have & XPU_HAVE_MINOR) && nd->minor != nv->minor)
                e |= xpu_inventory_warn(inv, "%s: nvml reports minor \"%" PRIu32 "\" but %s has \"%" PRIu32
                                             "\"; keeping %s's",
                                        dev->pci_bus_id, nd->minor, xpu_source_to_string(dev->source), nv->minor,
                                        xpu_source_to_string(dev->source));
        e |= merge_mig(inv, dev, nd);
        e |= xpu_nvidia_merge_coherence(inv, dev, nd->have & XPU_NVML_HAVE_NUMA_NODE, nd->numa_node,
                                        nd->have & XPU_NVML_HAVE_ADDRESSING_MODE ? nd->addressing_mode : "",
                                        nd->have & XPU_NVML_HAVE_C2C ? nd->c2c_enabled : -1);
        return e < 0 ? -ENOMEM : 0;
}

int xpu_nvml_merge(struct xpu_inventory *inv, const struct xpu_nvml_result *r) {
        int matched = 0;
        if (xpu_vendor_merge_cuda_version(inv, XPU_VENDOR_NVIDIA, r->cuda_driver_version, XPU_SOURCE_NVML) < 0 ||
            xpu_merge_warn_truncated(inv, XPU_SOURCE_NVML, r->total, r->n) < 0)
                return -ENOMEM;
        /* WSL2: NVML counts the GPUs that the driver store's one entry stands for; they take its
         * place, device K being NVML's device K, and the driver version is NVML's (no kernel module). */
        int first = r->n ? xpu_wsl_expand(inv, XPU_VENDOR_NVIDIA, XPU_SOURCE_NVML, r->n) : -ENOENT;
        if (first == -ENOMEM)
                return -ENOMEM;
        size_t expanded = first >= 0 ? xpu_inventory_count(inv, XPU_VENDOR_NVIDIA) : 0;
        struct xpu_vendor_info *vi = &inv->vendors[XPU_VENDOR_NVIDIA];
        if (first >= 0 && !vi->driver_version[0])
                snprintf(vi->driver_version, sizeof vi->driver_version, "%s", r->driver_version);
        for (size_t k = 0; k < r->n; k++) {
                const struct xpu_nvml_device *nd = &r->devices[k];
                struct xpu_device *dev = (nd->have & XPU_NVML_HAVE_PCI)
                                                 ? xpu_inventory_find_bus_id(inv, XPU_VENDOR_NVIDIA, nd->pci_bus_id)
                                                 : NULL;
                int e = xpu_merge_bus_id_repeated(inv, XPU_SOURCE_NVML, r->devices, sizeof(r->devices[0]),
                                                  offsetof(struct xpu_nvml_device, pci_bus_id), k);
                if (e == 0 && !dev && k < expanded) {
                        dev = &inv->devices[(size_t)first + k];
                        if (nd->have & XPU_NVML_HAVE_PCI)
                                snprintf(dev->pci_bus_id, sizeof dev->pci_bus_id, "%s", nd->pci_bus_id);
                        snprintf(dev->driver_version, sizeof dev->driver_version, "%s", vi->driver_version);
                }
                if (e != 0) {
                        if (e < 0)
                                return -ENOMEM;
                } else if (dev) {
                        matched++;
                        e = merge_device(inv, dev, nd);
                } else if (nd->lost)
                        e = xpu_inventory_warn(inv, "nvml: device %zu%s%s is lost (%s); not matched to the procfs inventory",
                                               k, nd->uuid[0] ? " " : "", nd->uuid, nd->lost_reason);
                else
                        e = xpu_inventory_warn(inv, "nvml: %s at %s is not in the procfs inventory; ignored",
                                               nd->uuid[0] ? nd->uuid : nd->name[0] ? nd->name : "a device",
                                               nd->have & XPU_NVML_HAVE_PCI ? nd->pci_bus_id : "an unknown bus id");
                if (e < 0)
                        return -ENOMEM;
        }
        return matched;
}

/* ---- the library's own view: JSON and text (the rich-path backend, nvidia-nvml.c) ---- */

static cJSON *readings_to_json(const struct xpu_nvml_device *d) {
        const struct {
                uint32_t bit;
                const char *key;
                double value;
        } rows[] = {
                { XPU_NVML_HAVE_UTIL_GPU, "utilization_gpu_percent", d->utilization_gpu_percent },
                { XPU_NVML_HAVE_UTIL_MEMORY, "utilization_memory_percent", d->utilization_memory_percent },
                { XPU_NVML_HAVE_TEMPERATURE, "temperature_celsius", d->temperature_celsius },
                { XPU_NVML_HAVE_TEMP_SLOWDOWN, "temperature_slowdown_celsius", d->temp_slowdown_celsius },
                { XPU_NVML_HAVE_TEMP_SHUTDOWN, "temperature_shutdown_celsius", d->temp_shutdown_celsius },
                { XPU_NVML_HAVE_POWER_USAGE, "power_usage_watts", d->power_usage_milliwatts / 1000.0 },
                { XPU_NVML_HAVE_POWER_LIMIT, "power_limit_watts", d->power_limit_milliwatts / 1000.0 },
                { XPU_NVML_HAVE_ENERGY, "energy_millijoules", (double)d->energy_millijoules },
                { XPU_NVML_HAVE_CLOCK_SM, "clock_sm_hz", (double)d->clock_sm_hz },
                { XPU_NVML_HAVE_CLOCK_MEMORY, "clock_memory_hz", (double)d->clock_memory_hz },
                { XPU_NVML_HAVE_ECC_CORRECTED, "ecc_corrected_volatile", (double)d->ecc_corrected },
                { XPU_NVML_HAVE_ECC_UNCORRECTED, "ecc_uncorrected_volatile", (double)d->ecc_uncorrected },
                { XPU_NVML_HAVE_CLOCK_EVENTS, "clock_event_reasons", (double)d->clock_event_reasons },
        };
        cJSON *o = cJSON_CreateObject();
        bool ok = o != NULL;
        for (size_t k = 0; ok && k < ELEMENTSOF(rows); k++)
                if (d->have & rows[k].bit)
                        ok = cJSON_AddNumberToObject(o, rows[k].key, rows[k].value) != NULL;
        if (!ok) {
                cJSON_Delete(o);
                return NULL;
        }
        return o;
}

/* The MIG devices of D (device I): each with its parent's index and UUID. */
static bool mig_to_json(cJSON *j, const struct xpu_nvml_device *d, size_t i) {
        if (!(d->have & XPU_NVML_HAVE_MIG_MODE))
                return true;
        if (!cJSON_AddBoolToObject(j, "mig_enabled", d->mig_enabled))
                return false;
        if (!(d->have & XPU_NVML_HAVE_MIG_DEVICES))
                return true;
        cJSON *a = cJSON_AddArrayToObject(j, "mig_devices");
        bool ok = a != NULL;
        for (size_t m = 0; ok && m < d->n_mig; m++) {
                cJSON *o = cJSON_CreateObject();
                if (!o || !cJSON_AddItemToArray(a, o)) {
                        cJSON_Delete(o);
                        return false;
                }
                const struct xpu_nvml_mig *g = &d->mig[m];
                ok = cJSON_AddNumberToObject(o, "index", (double)m) && cJSON_AddStringToObject(o, "uuid", g->uuid) &&
                     cJSON_AddNumberToObject(o, "gpu_instance_id", g->gi) &&
                     cJSON_AddNumberToObject(o, "compute_instance_id", g->ci) &&
                     cJSON_AddNumberToObject(o, "parent_index", (double)i) &&
                     cJSON_AddStringToObject(o, "parent_uuid", d->uuid) &&
                     (!g->name[0] || cJSON_AddStringToObject(o, "name", g->name)) &&
                     (!g->memory_total_bytes || cJSON_AddNumberToObject(o, "memory_total_bytes",
                                                                         (double)g->memory_total_bytes));
        }
        return ok;
}

static bool device_to_json(cJSON *j, const struct xpu_nvml_device *d, size_t i) {
        bool ok = cJSON_AddNumberToObject(j, "index", (double)i) != NULL;
        if (ok && d->name[0])
                ok = cJSON_AddStringToObject(j, "name", d->name) != NULL;
        if (ok && d->uuid[0])
                ok = cJSON_AddStringToObject(j, "uuid", d->uuid) != NULL;
        if (ok && (d->have & XPU_NVML_HAVE_PCI))
                ok = cJSON_AddStringToObject(j, "pci_bus_id", d->pci_bus_id) != NULL;
        if (ok && (d->have & XPU_NVML_HAVE_MINOR))
                ok = cJSON_AddNumberToObject(j, "minor", d->minor) != NULL;
        if (ok && (d->have & XPU_NVML_HAVE_MEMORY_TOTAL))
                ok = cJSON_AddNumberToObject(j, "memory_total_bytes", (double)d->memory_total_bytes) != NULL;
        if (ok && (d->have & XPU_NVML_HAVE_MEMORY_USED))
                ok = cJSON_AddNumberToObject(j, "memory_used_bytes", (double)d->memory_used_bytes) != NULL;
        if (ok && (d->have & XPU_NVML_HAVE_COMPUTE_CAPABILITY))
                ok = cJSON_AddStringToObject(j, "compute_capability", d->compute_capability) != NULL;
        if (ok && (d->have & XPU_NVML_HAVE_BRAND))
                ok = cJSON_AddStringToObject(j, "brand", d->brand) != NULL;
        if (ok && (d->have & XPU_NVML_HAVE_NUMA_NODE))
                ok = cJSON_AddNumberToObject(j, "numa_node", d->numa_node) != NULL;
        if (ok && (d->have & XPU_NVML_HAVE_ADDRESSING_MODE))
                ok = cJSON_AddStringToObject(j, "addressing_mode", d->addressing_mode) != NULL;
        if (ok && (d->have & XPU_NVML_HAVE_C2C))
                ok = cJSON_AddBoolToObject(j, "c2c_enabled", d->c2c_enabled) != NULL;
        ok = ok && mig_to_json(j, d, i);
        if (ok) {
                cJSON *readings = readings_to_json(d);
                ok = readings && cJSON_AddItemToObject(j, "readings", readings);
                if (!ok)
                        cJSON_Delete(readings);
        }
        if (ok && d->lost)
                ok = cJSON_AddBoolToObject(j, "lost", true) && cJSON_AddStringToObject(j, "lost_reason", d->lost_reason);
        return ok;
}

cJSON *xpu_nvml_result_to_json(const struct xpu_nvml_result *r) {
        cJSON *o = cJSON_CreateObject();
        cJSON *devs = o ? cJSON_AddArrayToObject(o, "devices") : NULL;
        bool ok = devs && cJSON_AddStringToObject(o, "source", "nvml") &&
                  cJSON_AddStringToObject(o, "library", r->library) &&
                  (!r->driver_version[0] || cJSON_AddStringToObject(o, "driver_version", r->driver_version)) &&
                  (!r->cuda_driver_version[0] || cJSON_AddStringToObject(o, "cuda_driver_version", r->cuda_driver_version)) &&
                  (r->total <= r->n || cJSON_AddNumberToObject(o, "devices_total", (double)r->total));
        for (size_t i = 0; ok && i < r->n; i++) {
                cJSON *j = cJSON_CreateObject();
                ok = j && cJSON_AddItemToArray(devs, j);
                if (!ok)
                        cJSON_Delete(j);
                ok = ok && device_to_json(j, &r->devices[i], i);
        }
        if (!ok) {
                cJSON_Delete(o);
                return NULL;
        }
        return o;
}

/* Print one part of a line: the first after "    ", the others after "; ". */
_printf_(3, 4) static void print_part(FILE *f, bool *first, const char *fmt, ...) {
        va_list ap;
        fputs(*first ? "    " : "; ", f);
        *first = false;
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
}

/* One line of D's readings ("    gpu 35%; memory 12%; 41 C; ..."), nothing when there are none. */
static void print_readings(const struct xpu_nvml_device *d, FILE *f) {
        bool first = true;
        if (d->have & XPU_NVML_HAVE_UTIL_GPU)
                print_part(f, &first, "gpu %" PRIu32 "%%", d->utilization_gpu_percent);
        if (d->have & XPU_NVML_HAVE_UTIL_MEMORY)
                print_part(f, &first, "memory %" PRIu32 "%%", d->utilization_memory_percent);
        if (d->have & XPU_NVML_HAVE_TEMPERATURE)
                print_part(f, &first, "%" PRIu32 " C", d->temperature_celsius);
        if (d->have & XPU_NVML_HAVE_TEMP_SLOWDOWN)
                print_part(f, &first, "slowdown at %" PRIu32 " C", d->temp_slowdown_celsius);
        if (d->have & XPU_NVML_HAVE_TEMP_SHUTDOWN)
                print_part(f, &first, "shutdown at %" PRIu32 " C", d->temp_shutdown_celsius);
        if (d->have & XPU_NVML_HAVE_POWER_USAGE)
                print_part(f, &first, "%.1f W", d->power_usage_milliwatts / 1000.0);
        if (d->have & XPU_NVML_HAVE_POWER_LIMIT)
                print_part(f, &first, "limit %.1f W", d->power_limit_milliwatts / 1000.0);
        if (d->have & XPU_NVML_HAVE_ENERGY)
                print_part(f, &first, "energy %.3f kJ", (double)d->energy_millijoules / 1e6);
        if (d->have & XPU_NVML_HAVE_CLOCK_SM)
                print_part(f, &first, "SM %" PRIu64 " MHz", d->clock_sm_hz / 1000000);
        if (d->have & XPU_NVML_HAVE_CLOCK_MEMORY)
                print_part(f, &first, "memory clock %" PRIu64 " MHz", d->clock_memory_hz / 1000000);
        if (d->have & XPU_NVML_HAVE_ECC_CORRECTED)
                print_part(f, &first, "ECC corrected %" PRIu64, d->ecc_corrected);
        if (d->have & XPU_NVML_HAVE_ECC_UNCORRECTED)
                print_part(f, &first, "ECC uncorrected %" PRIu64, d->ecc_uncorrected);
        if (d->have & XPU_NVML_HAVE_CLOCK_EVENTS)
                print_part(f, &first, "clock events 0x%" PRIx64, d->clock_event_reasons);
        if (!first)
                fputc('\n', f);
}

void xpu_nvml_result_print(const struct xpu_nvml_result *r, FILE *f) {
        fprintf(f, "nvml: %s, driver %s", r->library, r->driver_version[0] ? r->driver_version : "?");
        if (r->cuda_driver_version[0])
                fprintf(f, ", CUDA %s", r->cuda_driver_version);
        fprintf(f, ", %zu device%s", r->n, r->n == 1 ? "" : "s");
        if (r->total > r->n)
                fprintf(f, " (of %zu)", r->total);
        fputc('\n', f);
        for (size_t i = 0; i < r->n; i++) {
                const struct xpu_nvml_device *d = &r->devices[i];
                fprintf(f, "  %zu %s %s %s", i, d->have & XPU_NVML_HAVE_PCI ? d->pci_bus_id : "-",
                        d->uuid[0] ? d->uuid : "-", d->name[0] ? d->name : "-");
                if (d->have & XPU_NVML_HAVE_COMPUTE_CAPABILITY)
                        fprintf(f, " cc %s", d->compute_capability);
                if (d->have & XPU_NVML_HAVE_MEMORY_TOTAL)
                        fprintf(f, " %" PRIu64 " MiB", d->memory_total_bytes >> 20);
                if (d->have & XPU_NVML_HAVE_MEMORY_USED)
                        fprintf(f, " (%" PRIu64 " MiB used)", d->memory_used_bytes >> 20);
                if (d->have & XPU_NVML_HAVE_NUMA_NODE)
                        fprintf(f, " memory on NUMA node %" PRIu32, d->numa_node);
                if (d->have & XPU_NVML_HAVE_ADDRESSING_MODE)
                        fprintf(f, " addressing %s", d->addressing_mode);
                if (d->have & XPU_NVML_HAVE_C2C)
                        fprintf(f, " C2C %s", d->c2c_enabled ? "on" : "off");
                fputc('\n', f);
                if (d->have & XPU_NVML_HAVE_MIG_MODE)
                        fprintf(f, "    MIG %s%s\n", d->mig_enabled ? "enabled" : "disabled",
                                d->mig_enabled && !(d->have & XPU_NVML_HAVE_MIG_DEVICES) ? " (devices not read)" : "");
                for (size_t m = 0; m < d->n_mig; m++)
                        fprintf(f, "    MIG %zu %s gi %u ci %u%s%s\n", m, d->mig[m].uuid, d->mig[m].gi, d->mig[m].ci,
                                d->mig[m].name[0] ? " " : "", d->mig[m].name);
                print_readings(d, f);
                if (d->lost)
                        fprintf(f, "    LOST: %s\n", d->lost_reason);
        }
}
