/* SPDX-License-Identifier: Apache-2.0 */
/* The ROCm SMI reader: see amd-rocm-smi.h.
 *
 * Wire format of the helper's reply (probes/sandbox/reply.h: one "key value" per line, printable
 * ASCII, "end" last, or one "error ERRNO TEXT" line instead):
 *   library /usr/lib/librocm_smi64.so.1.0     path of the loaded file inside the driver root
 *   device_count 2                            before any device line; at most XPU_ROCM_SMI_DEVICES_MAX
 *   devices_total 130                         only after "device_count 128": ROCm SMI has more
 *   device.0.bus_id 0000:0c:00.0              every device line is optional (its getter failed)
 *   device.0.name AMD Instinct MI210
 *   device.0.vendor_id 4098                   decimal, 16 bits
 *   device.0.device_id 29711
 *   device.0.unique_id 6493212357196541696    decimal, 64 bits, not 0
 *   device.0.vram_total 68702699520           bytes
 *   device.0.vram_used 1073741824             bytes
 *   device.0.busy_percent 25                  0..100 (the helper leaves out a reading above 100)
 *   device.0.temp_edge 41000                  millidegrees Celsius (also temp_junction, temp_memory)
 *   device.0.power 95000000                   microwatts
 *   end */
#include "amd/amd-rocm-smi.h"
#include "amd/amd-facts.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/dl.h"
#include "sandbox/helper-job.h"
#include "base/macro.h"
#include "sandbox/reply.h"
#include "rich.h"
#include "base/str.h"

static const char *const temp_names[_XPU_ROCM_SMI_TEMP_MAX] = {
        [XPU_ROCM_SMI_TEMP_EDGE] = "edge",
        [XPU_ROCM_SMI_TEMP_JUNCTION] = "junction",
        [XPU_ROCM_SMI_TEMP_MEMORY] = "memory",
};

const char *xpu_rocm_smi_temp_to_string(enum xpu_rocm_smi_temp t) {
        return (unsigned)t < _XPU_ROCM_SMI_TEMP_MAX ? temp_names[t] : NULL;
}

/* ---- the helper side: runs in the isolated child only ---- */

/* The library's file names, most likely first. */
static const char *const rocm_smi_sonames[] = {
        "librocm_smi64.so.1", /* Debian and Ubuntu packages (librocm-smi64-1) */
        "librocm_smi64.so.7", /* ROCm 6.x releases from AMD */
        "librocm_smi64.so.6",
        "librocm_smi64.so.5", /* ROCm 5.x releases from AMD */
        NULL,
};

/* Where AMD's own ROCm installs put it, searched after the standard library directories. */
static const char *const rocm_dirs[] = {
        "/opt/rocm/lib",           /* the default install (a link to the current /opt/rocm-X.Y.Z) */
        "/opt/rocm/lib64",         /* older RPM layouts */
        "/opt/rocm-[0-9]*/lib",    /* versioned installs side by side, newest first */
        "/opt/rocm-[0-9]*/lib64",
        NULL,
};

typedef uint32_t rsmi_st; /* rsmi_status_t: an enum with 0xFFFFFFFF among its values */
typedef rsmi_st (*fn_init)(uint64_t flags);
typedef rsmi_st (*fn_void)(void);
typedef rsmi_st (*fn_count)(uint32_t *n);
typedef rsmi_st (*fn_dev_u64)(uint32_t dv, uint64_t *v);
typedef rsmi_st (*fn_dev_u32)(uint32_t dv, uint32_t *v);
typedef rsmi_st (*fn_dev_u16)(uint32_t dv, uint16_t *v);
typedef rsmi_st (*fn_dev_str)(uint32_t dv, char *buf, size_t len);
typedef rsmi_st (*fn_dev_mem)(uint32_t dv, uint32_t mem_type, uint64_t *bytes);
typedef rsmi_st (*fn_dev_temp)(uint32_t dv, uint32_t sensor, uint32_t metric, int64_t *millidegrees);
typedef rsmi_st (*fn_dev_power)(uint32_t dv, uint32_t sensor, uint64_t *microwatts);
typedef rsmi_st (*fn_status_string)(rsmi_st status, const char **text);

#define CALL(type, ptr) ((type)(uintptr_t)(ptr))

/* Constants of rocm_smi.h (stable since ROCm 1.x). */
#define RSMI_MEM_TYPE_VRAM 0u
#define RSMI_TEMP_CURRENT 0u

/* Addresses bound by xpu_dl_bind(); called through the typedefs above. */
struct rsmi_api {
        void *init, *shut_down, *count, *status_string, *pci_id, *name, *vendor_id, *device_id, *unique_id,
                *memory_total, *memory_usage, *busy, *temp, *power;
};

/* rsmi_status_t codes worth their own errno; the rest are -EIO. */
static const struct {
        rsmi_st code;
        int err;
} rsmi_errno[] = {
        { 2, -EOPNOTSUPP }, /* RSMI_STATUS_NOT_SUPPORTED */
        { 4, -EPERM },      /* RSMI_STATUS_PERMISSION: e.g. another user's /dev/shm/rocm_smi_cardN */
        { 8, -ENODEV },     /* RSMI_STATUS_INIT_ERROR: no /sys/class/kfd, no usable GPU */
        { 16, -EBUSY },     /* RSMI_STATUS_BUSY: the /dev/shm mutex is held */
};

static int rsmi_fail(struct xpu_reply *r, int out_fd, const struct rsmi_api *a, const char *call, rsmi_st code) {
        const char *text = NULL;
        if (!a->status_string || CALL(fn_status_string, a->status_string)(code, &text) != 0 || !text)
                text = "unknown status";
        int err = -EIO;
        for (size_t i = 0; i < ELEMENTSOF(rsmi_errno); i++)
                if (rsmi_errno[i].code == code)
                        err = rsmi_errno[i].err;
        return xpu_reply_fail(r, out_fd, err, "%s failed: %s (status %" PRIu32 ")", call, text, code);
}

/* "0x740f": what rsmi_dev_name_get answers when it knows no name (no product_name, no pci.ids). */
static bool is_hex_id(const char *s) {
        return s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && s[2] &&
               strspn(s + 2, "0123456789abcdefABCDEF") == strlen(s + 2);
}

/* One device's lines; every getter is optional. */
static void read_device(struct xpu_reply *r, const struct rsmi_api *a, uint32_t i) {
        uint64_t u64 = 0;
        uint32_t u32 = 0;
        uint16_t u16 = 0;
        int64_t i64 = 0;
        char s[256];

        if (CALL(fn_dev_u64, a->pci_id)(i, &u64) == 0) {
                char bus[XPU_PCI_BUS_ID_MAX];
                const struct xpu_pci_bus_id id = {
                        .domain = (uint32_t)(u64 >> 32),
                        .bus = (uint8_t)((u64 >> 8) & 0xff),
                        .device = (uint8_t)((u64 >> 3) & 0x1f),
                        .function = (uint8_t)(u64 & 0x7),
                };
                xpu_pci_bus_id_format(&id, bus);
                xpu_reply_add(r, "device.%" PRIu32 ".bus_id %s\n", i, bus);
        }
        memset(s, 0, sizeof s);
        if (a->name && CALL(fn_dev_str, a->name)(i, s, sizeof s - 1) == 0 &&
            xpu_helper_clean_string(s, sizeof s, sizeof(((struct xpu_rocm_smi_device *)0)->name), true) &&
            !is_hex_id(s))
                xpu_reply_add(r, "device.%" PRIu32 ".name %s\n", i, s);
        if (a->vendor_id && CALL(fn_dev_u16, a->vendor_id)(i, &u16) == 0)
                xpu_reply_add(r, "device.%" PRIu32 ".vendor_id %u\n", i, (unsigned)u16);
        if (a->device_id && CALL(fn_dev_u16, a->device_id)(i, &u16) == 0)
                xpu_reply_add(r, "device.%" PRIu32 ".device_id %u\n", i, (unsigned)u16);
        if (a->unique_id && CALL(fn_dev_u64, a->unique_id)(i, &u64) == 0 && u64 != 0)
                xpu_reply_add(r, "device.%" PRIu32 ".unique_id %" PRIu64 "\n", i, u64);
        if (a->memory_total && CALL(fn_dev_mem, a->memory_total)(i, RSMI_MEM_TYPE_VRAM, &u64) == 0)
                xpu_reply_add(r, "device.%" PRIu32 ".vram_total %" PRIu64 "\n", i, u64);
        if (a->memory_usage && CALL(fn_dev_mem, a->memory_usage)(i, RSMI_MEM_TYPE_VRAM, &u64) == 0)
                xpu_reply_add(r, "device.%" PRIu32 ".vram_used %" PRIu64 "\n", i, u64);
        if (a->busy && CALL(fn_dev_u32, a->busy)(i, &u32) == 0 && u32 <= 100)
                xpu_reply_add(r, "device.%" PRIu32 ".busy_percent %" PRIu32 "\n", i, u32);
        /* rsmi_temperature_type_t: EDGE 0, JUNCTION 1, MEMORY 2 = enum xpu_rocm_smi_temp. */
        for (uint32_t t = 0; a->temp && t < _XPU_ROCM_SMI_TEMP_MAX; t++)
                if (CALL(fn_dev_temp, a->temp)(i, t, RSMI_TEMP_CURRENT, &i64) == 0)
                        xpu_reply_add(r, "device.%" PRIu32 ".temp_%s %" PRId64 "\n", i, temp_names[t], i64);
        if (a->power && CALL(fn_dev_power, a->power)(i, 0, &u64) == 0)
                xpu_reply_add(r, "device.%" PRIu32 ".power %" PRIu64 "\n", i, u64);
}

static int rocm_smi_helper(void *arg, int out_fd) {
        static struct xpu_reply r;
        char loaded[PATH_MAX];
        void *handle = NULL;
        int status = 0;

        struct rsmi_api a = { 0 };
        const struct xpu_dl_symbol syms[] = {
                { "rsmi_init", NULL, &a.init, false },
                { "rsmi_shut_down", NULL, &a.shut_down, false },
                { "rsmi_num_monitor_devices", NULL, &a.count, false },
                { "rsmi_dev_pci_id_get", NULL, &a.pci_id, false },
                { "rsmi_status_string", NULL, &a.status_string, true },
                { "rsmi_dev_name_get", NULL, &a.name, true },
                { "rsmi_dev_vendor_id_get", NULL, &a.vendor_id, true },
                { "rsmi_dev_id_get", NULL, &a.device_id, true },
                { "rsmi_dev_unique_id_get", NULL, &a.unique_id, true },
                { "rsmi_dev_memory_total_get", NULL, &a.memory_total, true },
                { "rsmi_dev_memory_usage_get", NULL, &a.memory_usage, true },
                { "rsmi_dev_busy_percent_get", NULL, &a.busy, true },
                { "rsmi_dev_temp_metric_get", NULL, &a.temp, true },
                { "rsmi_dev_power_ave_get", NULL, &a.power, true },
        };
        if (xpu_helper_job_load(arg, rocm_smi_sonames, rocm_dirs, syms, ELEMENTSOF(syms), &handle, loaded, &r, out_fd,
                                &status) < 0)
                return status;

        rsmi_st st = CALL(fn_init, a.init)(0);
        if (st != 0)
                return rsmi_fail(&r, out_fd, &a, "rsmi_init", st);
        uint32_t n = 0;
        st = CALL(fn_count, a.count)(&n);
        if (st != 0) {
                status = rsmi_fail(&r, out_fd, &a, "rsmi_num_monitor_devices", st);
                (void)CALL(fn_void, a.shut_down)();
                return status;
        }
        if (n > XPU_ROCM_SMI_DEVICES_MAX) {
                xpu_reply_add(&r, "device_count %u\ndevices_total %" PRIu32 "\n", XPU_ROCM_SMI_DEVICES_MAX, n);
                n = XPU_ROCM_SMI_DEVICES_MAX;
        } else
                xpu_reply_add(&r, "device_count %" PRIu32 "\n", n);
        for (uint32_t i = 0; i < n; i++)
                read_device(&r, &a, i);
        (void)CALL(fn_void, a.shut_down)();
        /* No dlclose(): the helper exits right away. */
        return xpu_reply_send(&r, out_fd, "ROCm SMI");
}

/* ---- the parent side ---- */

struct xpu_rocm_smi_result *xpu_rocm_smi_result_free(struct xpu_rocm_smi_result *r) {
        free(r);
        return NULL;
}

/* A device as the wire carries it, before the checks that span fields. */
struct wire_device {
        struct xpu_rocm_smi_device d;
        uint32_t vendor_id, device_id; /* 16 bits when valid */
        uint64_t unique_id;
        uint64_t power_uw; /* microwatts */
};

/* Wire-only have bits, next to XPU_ROCM_SMI_HAVE_* in the same word. */
enum {
        WIRE_HAVE_VENDOR = 1u << 29,
        WIRE_HAVE_DEVICE = 1u << 30,
        WIRE_HAVE_POWER_UW = 1u << 31,
};

static const struct xpu_reply_field device_fields[] = {
#define FIELD(k, kind, m, have) XPU_REPLY_FIELD(k, kind, struct wire_device, m, have)
        FIELD("bus_id", XPU_REPLY_BUS_ID, d.pci_bus_id, XPU_ROCM_SMI_HAVE_PCI),
        FIELD("name", XPU_REPLY_TEXT, d.name, XPU_ROCM_SMI_HAVE_NAME),
        FIELD("vendor_id", XPU_REPLY_U32, vendor_id, WIRE_HAVE_VENDOR),
        FIELD("device_id", XPU_REPLY_U32, device_id, WIRE_HAVE_DEVICE),
        FIELD("unique_id", XPU_REPLY_U64, unique_id, XPU_ROCM_SMI_HAVE_UNIQUE_ID),
        FIELD("vram_total", XPU_REPLY_U64, d.memory_total_bytes, XPU_ROCM_SMI_HAVE_MEMORY_TOTAL),
        FIELD("vram_used", XPU_REPLY_U64, d.memory_used_bytes, XPU_ROCM_SMI_HAVE_MEMORY_USED),
        FIELD("busy_percent", XPU_REPLY_U32, d.busy_percent, XPU_ROCM_SMI_HAVE_BUSY),
        FIELD("temp_edge", XPU_REPLY_I64, d.temperature_mc[XPU_ROCM_SMI_TEMP_EDGE], XPU_ROCM_SMI_HAVE_TEMP_EDGE),
        FIELD("temp_junction", XPU_REPLY_I64, d.temperature_mc[XPU_ROCM_SMI_TEMP_JUNCTION],
              XPU_ROCM_SMI_HAVE_TEMP_JUNCTION),
        FIELD("temp_memory", XPU_REPLY_I64, d.temperature_mc[XPU_ROCM_SMI_TEMP_MEMORY], XPU_ROCM_SMI_HAVE_TEMP_MEMORY),
        FIELD("power", XPU_REPLY_U64, power_uw, WIRE_HAVE_POWER_UW),
#undef FIELD
};

/* Checks across fields, and the wire's units to the result's. Returns 0 or -EBADMSG. */
static int wire_finish(void *device, size_t i, char *err, size_t err_size) {
        struct wire_device *w = device;
        struct xpu_rocm_smi_device *d = &w->d;
        const char *bad = NULL;
        if ((d->have & WIRE_HAVE_VENDOR) && w->vendor_id > 0xffff)
                bad = "vendor id above 0xffff";
        else if ((d->have & WIRE_HAVE_DEVICE) && w->device_id > 0xffff)
                bad = "device id above 0xffff";
        else if ((d->have & XPU_ROCM_SMI_HAVE_UNIQUE_ID) && w->unique_id == 0)
                bad = "unique id 0";
        else if ((d->have & XPU_ROCM_SMI_HAVE_BUSY) && d->busy_percent > 100)
                bad = "busy percent above 100";
        if (bad) {
                snprintf(err, err_size, "garbage from the ROCm SMI helper: device %zu: %s", i, bad);
                return -EBADMSG;
        }
        if ((d->have & WIRE_HAVE_VENDOR) && (d->have & WIRE_HAVE_DEVICE)) {
                d->pci_vendor_id = (uint16_t)w->vendor_id;
                d->pci_device_id = (uint16_t)w->device_id;
                d->have |= XPU_ROCM_SMI_HAVE_PCI_IDS;
        }
        if (d->have & XPU_ROCM_SMI_HAVE_UNIQUE_ID)
                snprintf(d->unique_id, sizeof d->unique_id, "%016" PRIx64, w->unique_id);
        if (d->have & WIRE_HAVE_POWER_UW) {
                d->power_watts = (double)w->power_uw / 1e6;
                d->have |= XPU_ROCM_SMI_HAVE_POWER;
        }
        d->have &= ~(uint32_t)(WIRE_HAVE_VENDOR | WIRE_HAVE_DEVICE | WIRE_HAVE_POWER_UW);
        return 0;
}

/* The wire format (amd-rocm-smi.h); every device key comes at most once. */
static const struct xpu_reply_spec rocm_smi_reply = {
        .what = "ROCm SMI",
        .devices_max = XPU_ROCM_SMI_DEVICES_MAX,
        .device_size = sizeof(struct wire_device),
        .have_offset = offsetof(struct wire_device, d.have),
        .fields = device_fields,
        .n_fields = ELEMENTSOF(device_fields),
        .fields_once = true,
        .device_end = wire_finish,
};

int xpu_rocm_smi_parse_reply(const char *text, struct xpu_rocm_smi_result **ret, char *err, size_t err_size) {
        _cleanup_free_ struct xpu_rocm_smi_result *r = NULL;
        _cleanup_free_ struct wire_device *w = NULL;
        char fallback[8];

        if (!err) {
                err = fallback;
                err_size = sizeof fallback;
        }
        if (!text || !ret) {
                snprintf(err, err_size, "invalid arguments");
                return -EINVAL;
        }
        r = calloc(1, sizeof *r + XPU_ROCM_SMI_DEVICES_MAX * sizeof r->devices[0]);
        w = calloc(XPU_ROCM_SMI_DEVICES_MAX, sizeof *w);
        if (!r || !w)
                return -ENOMEM;
        struct xpu_reply_out out = { .result = r, .library = r->library, .devices = w };
        int e = xpu_reply_read(&rocm_smi_reply, text, &out, err, err_size);
        if (e < 0)
                return e;
        for (size_t i = 0; i < out.count; i++)
                r->devices[i] = w[i].d;
        r->n = out.count;
        r->total = out.total;
        *ret = TAKE_PTR(r);
        return 0;
}

/* True when FD is the host's "/" (same device and inode). */
static bool is_host_root(int fd) {
        struct stat a, b;
        return fd >= 0 && fstat(fd, &a) == 0 && stat("/", &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int xpu_rocm_smi_read(int sys_root_fd, const char *sys_root, int driver_root_fd, unsigned timeout_ms,
                      struct xpu_rocm_smi_result **ret, char *err, size_t err_size) {
        struct xpu_helper_job job;
        _cleanup_free_ char *reply = NULL;
        if (!is_host_root(sys_root_fd)) {
                if (err)
                        snprintf(err, err_size,
                                 "not available: ROCm SMI reads the host's /sys and cannot follow --sys-root %s; run it "
                                 "in a mount namespace with the tree bound on /sys",
                                 sys_root && *sys_root ? sys_root : "DIR");
                return -EXDEV;
        }
        /* The library's file name carries no driver version: nothing to check it against. */
        int r = xpu_helper_job_run(rocm_smi_helper, &job, "ROCm SMI", timeout_ms, driver_root_fd, NULL,
                                   ret ? &reply : NULL, err, err_size);
        if (r < 0)
                return r;
        return xpu_rocm_smi_parse_reply(reply, ret, err, err_size);
}

/* ---- merging into the fast-path inventory ---- */

/* The facts of D into DEV (an AMD device with D's bus id). Returns 0 or -ENOMEM. */
static int merge_one(struct xpu_inventory *inv, struct xpu_device *dev, const struct xpu_rocm_smi_device *d) {
        const enum xpu_source src = XPU_SOURCE_ROCM_SMI;
        int e = 0;
        if (d->have & XPU_ROCM_SMI_HAVE_NAME)
                e |= xpu_device_merge_string(inv, dev, XPU_FIELD_NAME, dev->name, sizeof dev->name, d->name, src);
        if (d->have & XPU_ROCM_SMI_HAVE_PCI_IDS) {
                /* Both ids as one "vendor:device" fact, so they are filled or compared together. */
                char ours[16] = "", theirs[16];
                if (dev->have & XPU_HAVE_PCI_IDS)
                        snprintf(ours, sizeof ours, "%04x:%04x", dev->pci_vendor_id, dev->pci_device_id);
                snprintf(theirs, sizeof theirs, "%04x:%04x", d->pci_vendor_id, d->pci_device_id);
                int r = xpu_device_merge_string(inv, dev, XPU_FIELD_PCI_IDS, ours, sizeof ours, theirs, src);
                if (r > 0) {
                        dev->pci_vendor_id = d->pci_vendor_id;
                        dev->pci_device_id = d->pci_device_id;
                        dev->have |= XPU_HAVE_PCI_IDS;
                }
                e |= r;
        }
        if (d->have & XPU_ROCM_SMI_HAVE_UNIQUE_ID) {
                struct xpu_amd_facts *a = xpu_amd_facts(dev);
                e |= xpu_device_merge_string(inv, dev, XPU_FIELD_UNIQUE_ID, a->unique_id, sizeof a->unique_id,
                                             d->unique_id, src);
                if (!dev->uuid[0]) {
                        char uuid[sizeof dev->uuid];
                        snprintf(uuid, sizeof uuid, "GPU-%s", d->unique_id);
                        e |= xpu_device_merge_string(inv, dev, XPU_FIELD_UUID, dev->uuid, sizeof dev->uuid, uuid, src);
                }
        }
        if (dev->have & XPU_HAVE_PARTITION) /* memory: per partition here, whole GPU there */
                return e < 0 ? -ENOMEM : 0;
        if (d->have & XPU_ROCM_SMI_HAVE_MEMORY_TOTAL)
                e |= xpu_device_merge_u64(inv, dev, XPU_FIELD_MEMORY_TOTAL, &dev->memory_total_bytes,
                                          XPU_HAVE_MEMORY_TOTAL, d->memory_total_bytes, src);
        if ((d->have & XPU_ROCM_SMI_HAVE_MEMORY_USED) && !(dev->have & XPU_HAVE_MEMORY_USED))
                e |= xpu_device_merge_u64(inv, dev, XPU_FIELD_MEMORY_USED, &dev->memory_used_bytes,
                                          XPU_HAVE_MEMORY_USED, d->memory_used_bytes, src);
        return e < 0 ? -ENOMEM : 0;
}

int xpu_rocm_smi_merge(struct xpu_inventory *inv, const struct xpu_rocm_smi_result *r) {
        int matched = 0;
        if (xpu_merge_warn_truncated(inv, XPU_SOURCE_ROCM_SMI, r->total, r->n) < 0)
                return -ENOMEM;
        for (size_t k = 0; k < r->n; k++) {
                const struct xpu_rocm_smi_device *d = &r->devices[k];
                int repeated = xpu_merge_bus_id_repeated(inv, XPU_SOURCE_ROCM_SMI, r->devices, sizeof(r->devices[0]),
                                                         offsetof(struct xpu_rocm_smi_device, pci_bus_id), k);
                if (repeated < 0)
                        return -ENOMEM;
                if (repeated)
                        continue;
                bool found = false;
                for (size_t i = 0; (d->have & XPU_ROCM_SMI_HAVE_PCI) && i < inv->n_devices; i++) {
                        struct xpu_device *dev = &inv->devices[i];
                        if (dev->vendor != XPU_VENDOR_AMD || strcmp(dev->pci_bus_id, d->pci_bus_id) != 0)
                                continue;
                        found = true;
                        matched++;
                        if (merge_one(inv, dev, d) < 0)
                                return -ENOMEM;
                }
                if (!found && xpu_inventory_warn(inv, "rocm_smi: device %zu%s%s at %s is not in the sysfs inventory; ignored",
                                                 k, d->name[0] ? " " : "", d->name,
                                                 d->have & XPU_ROCM_SMI_HAVE_PCI ? d->pci_bus_id : "an unknown bus id") < 0)
                        return -ENOMEM;
        }
        return matched;
}

/* ---- the rich-path backend (rich.h) ---- */

static int rich_read(const struct xpu_roots *roots, const struct xpu_inventory *inv, unsigned timeout_ms, void **ret,
                     char *err, size_t err_size) {
        struct xpu_rocm_smi_result *r = NULL;
        int e = xpu_rocm_smi_read(roots->sys_fd, roots->sys, roots->driver_fd, timeout_ms, &r, err, err_size);
        if (e >= 0)
                *ret = r;
        return e;
}

static int rich_merge(struct xpu_inventory *inv, const void *result) {
        return xpu_rocm_smi_merge(inv, result);
}

static bool add_hex16(cJSON *o, const char *key, uint16_t v) {
        char s[8];
        snprintf(s, sizeof s, "0x%04x", v);
        return cJSON_AddStringToObject(o, key, s) != NULL;
}

/* One device's object; false on -ENOMEM. */
static bool device_to_json(cJSON *j, size_t i, const struct xpu_rocm_smi_device *d) {
        bool ok = cJSON_AddNumberToObject(j, "index", (double)i) != NULL;
        if (ok && (d->have & XPU_ROCM_SMI_HAVE_PCI))
                ok = cJSON_AddStringToObject(j, "pci_bus_id", d->pci_bus_id) != NULL;
        if (ok && (d->have & XPU_ROCM_SMI_HAVE_NAME))
                ok = cJSON_AddStringToObject(j, "name", d->name) != NULL;
        if (ok && (d->have & XPU_ROCM_SMI_HAVE_PCI_IDS))
                ok = add_hex16(j, "pci_vendor_id", d->pci_vendor_id) && add_hex16(j, "pci_device_id", d->pci_device_id);
        if (ok && (d->have & XPU_ROCM_SMI_HAVE_UNIQUE_ID))
                ok = cJSON_AddStringToObject(j, "unique_id", d->unique_id) != NULL;
        if (ok && (d->have & XPU_ROCM_SMI_HAVE_MEMORY_TOTAL))
                ok = cJSON_AddNumberToObject(j, "memory_total_bytes", (double)d->memory_total_bytes) != NULL;
        if (ok && (d->have & XPU_ROCM_SMI_HAVE_MEMORY_USED))
                ok = cJSON_AddNumberToObject(j, "memory_used_bytes", (double)d->memory_used_bytes) != NULL;
        if (ok && (d->have & XPU_ROCM_SMI_HAVE_BUSY))
                ok = cJSON_AddNumberToObject(j, "busy_percent", d->busy_percent) != NULL;
        cJSON *t = NULL;
        for (int s = 0; ok && s < _XPU_ROCM_SMI_TEMP_MAX; s++) {
                if (!(d->have & XPU_ROCM_SMI_HAVE_TEMP(s)))
                        continue;
                if (!t)
                        ok = (t = cJSON_AddObjectToObject(j, "temperatures_celsius")) != NULL;
                ok = ok && cJSON_AddNumberToObject(t, temp_names[s], (double)d->temperature_mc[s] / 1000.0);
        }
        if (ok && (d->have & XPU_ROCM_SMI_HAVE_POWER))
                ok = cJSON_AddNumberToObject(j, "power_watts", d->power_watts) != NULL;
        return ok;
}

static cJSON *rich_to_json(const void *result) {
        const struct xpu_rocm_smi_result *r = result;
        cJSON *o = cJSON_CreateObject();
        bool ok = o && cJSON_AddStringToObject(o, "source", "rocm_smi") &&
                  cJSON_AddStringToObject(o, "library", r->library) &&
                  (r->total <= r->n || cJSON_AddNumberToObject(o, "devices_total", (double)r->total));
        cJSON *devs = ok ? cJSON_AddArrayToObject(o, "devices") : NULL;
        ok = devs != NULL;
        for (size_t i = 0; ok && i < r->n; i++) {
                cJSON *j = cJSON_CreateObject();
                ok = j && cJSON_AddItemToArray(devs, j) && device_to_json(j, i, &r->devices[i]);
        }
        if (!ok) {
                cJSON_Delete(o);
                return NULL;
        }
        return o;
}

static void rich_print(const void *result, FILE *f) {
        const struct xpu_rocm_smi_result *r = result;
        fprintf(f, "rocm_smi: %s, %zu device%s", r->library, r->n, r->n == 1 ? "" : "s");
        if (r->total > r->n)
                fprintf(f, " (of %zu)", r->total);
        fputc('\n', f);
        for (size_t i = 0; i < r->n; i++) {
                const struct xpu_rocm_smi_device *d = &r->devices[i];
                fprintf(f, "  %zu %s", i, d->have & XPU_ROCM_SMI_HAVE_PCI ? d->pci_bus_id : "-");
                if (d->have & XPU_ROCM_SMI_HAVE_PCI_IDS)
                        fprintf(f, " %04x:%04x", d->pci_vendor_id, d->pci_device_id);
                if (d->have & XPU_ROCM_SMI_HAVE_NAME)
                        fprintf(f, " \"%s\"", d->name);
                if (d->have & XPU_ROCM_SMI_HAVE_UNIQUE_ID)
                        fprintf(f, " unique_id %s", d->unique_id);
                if (d->have & XPU_ROCM_SMI_HAVE_MEMORY_TOTAL)
                        fprintf(f, " vram %" PRIu64 " MiB", d->memory_total_bytes >> 20);
                if (d->have & XPU_ROCM_SMI_HAVE_MEMORY_USED)
                        fprintf(f, " (%" PRIu64 " MiB used)", d->memory_used_bytes >> 20);
                if (d->have & XPU_ROCM_SMI_HAVE_BUSY)
                        fprintf(f, " busy %" PRIu32 "%%", d->busy_percent);
                for (int s = 0; s < _XPU_ROCM_SMI_TEMP_MAX; s++)
                        if (d->have & XPU_ROCM_SMI_HAVE_TEMP(s))
                                fprintf(f, " %s %.1f C", temp_names[s], (double)d->temperature_mc[s] / 1000.0);
                if (d->have & XPU_ROCM_SMI_HAVE_POWER)
                        fprintf(f, " %.1f W", d->power_watts);
                fputc('\n', f);
        }
}

const struct xpu_rich_ops xpu_rich_rocm_smi = {
        .vendor = XPU_VENDOR_AMD,
        .source = XPU_SOURCE_ROCM_SMI,
        .library = "librocm_smi64.so.1",
        .read = rich_read,
        .merge = rich_merge,
        .to_json = rich_to_json,
        .print = rich_print,
};
