/* SPDX-License-Identifier: Apache-2.0 */
/* The CUDA driver API reader: see nvidia-cuda.h.
 *
 * Wire format of the helper's reply (probes/sandbox/reply.h; one "key value" per line, values
 * printable ASCII); every key at most once:
 *   library /usr/lib/.../libcuda.so.465.19.01   the file loaded (probes/sandbox/helper-job.h)
 *   cuda_driver_version 12020          cuDriverGetVersion's integer, 1000..999999; before device_count
 *   device_count 2                     before any device line; at most XPU_CUDA_DEVICES_MAX
 *   devices_total 70                   only after "device_count 64": libcuda has more than were read
 *   device.0.name NVIDIA GeForce ...   N = CUDA ordinal; non-empty, at most 127 bytes (the helper cuts)
 *   device.0.uuid GPU-307dcc96-...     the rest: only when libcuda answered
 *   device.0.bus_id 0000:1a:00.0
 *   device.0.cc 7.5
 *   device.0.memory_total 11554717696
 *   end                                last line: a reply without it was cut short
 * or, instead of all of it, one line "error ERRNO TEXT" (ERRNO negative). */
#include "nvidia/nvidia-cuda.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dl.h"
#include "sandbox/helper-job.h"
#include "base/macro.h"
#include "sandbox/reply.h"
#include "nvidia/nvidia-nvml.h"
#include "nvidia/nvidia-nvml-helper.h"
#include "wsl.h"
#include "rich.h"
#include "base/str.h"

/* ---- the helper side: runs in the isolated child only ---- */

/* The few CUDA driver API types used, declared here (no NVIDIA header is installed). */
typedef int cu_result; /* CUresult */
typedef int cu_device; /* CUdevice: an ordinal handle */
typedef struct {
        unsigned char bytes[16];
} cu_uuid; /* CUuuid */

typedef cu_result (*fn_init)(unsigned);
typedef cu_result (*fn_int)(int *);
typedef cu_result (*fn_get)(cu_device *, int);
typedef cu_result (*fn_name)(char *, int, cu_device);
typedef cu_result (*fn_uuid)(cu_uuid *, cu_device);
typedef cu_result (*fn_attr)(int *, int, cu_device);
typedef cu_result (*fn_mem)(size_t *, cu_device);
typedef cu_result (*fn_errstr)(cu_result, const char **);

#define CALL(type, ptr) ((type)(uintptr_t)(ptr))

/* CUdevice_attribute values read (cuda.h). */
enum {
        CU_ATTR_PCI_BUS_ID = 33,    /* CU_DEVICE_ATTRIBUTE_PCI_BUS_ID */
        CU_ATTR_PCI_DEVICE_ID = 34, /* CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: the device (slot) on the bus */
        CU_ATTR_PCI_DOMAIN_ID = 50, /* CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID */
        CU_ATTR_CC_MAJOR = 75,      /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
        CU_ATTR_CC_MINOR = 76,      /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR */
};

/* Addresses bound by xpu_dl_bind(); called through the typedefs above. */
struct cuda_api {
        void *init, *driver_version, *count, *get, *name, *uuid, *attribute, *total_mem, *error_name,
                *error_string;
};

/* CUresult codes worth their own errno; the rest are -EIO. */
static const struct {
        cu_result code;
        int err;
} cuda_errno[] = {
        { 100, -ENODEV }, /* CUDA_ERROR_NO_DEVICE */
        { 803, -EPROTO }, /* CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: libcuda does not match the kernel module */
        { 804, -EPROTO }, /* CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: forward compatibility refused */
};

/* Reply "CALL failed: NAME (CODE): TEXT" with the code's errno. */
static int cuda_fail(struct xpu_reply *r, int out_fd, const struct cuda_api *a, const char *call, cu_result code) {
        const char *name = NULL, *text = NULL;
        if (a->error_name && CALL(fn_errstr, a->error_name)(code, &name) != 0)
                name = NULL;
        if (a->error_string && CALL(fn_errstr, a->error_string)(code, &text) != 0)
                text = NULL;
        int err = -EIO;
        for (size_t i = 0; i < ELEMENTSOF(cuda_errno); i++)
                if (cuda_errno[i].code == code)
                        err = cuda_errno[i].err;
        if (!name)
                return xpu_reply_fail(r, out_fd, err, "%s failed: CUDA error %d", call, code);
        if (!text)
                return xpu_reply_fail(r, out_fd, err, "%s failed: %s (%d)", call, name, code);
        return xpu_reply_fail(r, out_fd, err, "%s failed: %s (%d): %s", call, name, code, text);
}

/* The optional per-device facts; a failing query just leaves its line out. */
static void read_device_extras(struct xpu_reply *r, const struct cuda_api *a, int i, cu_device d) {
        cu_uuid u = {{0}};
        if (a->uuid && CALL(fn_uuid, a->uuid)(&u, d) == 0) {
                const unsigned char *b = u.bytes;
                xpu_reply_add(r,
                              "device.%d.uuid GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
                              "%02x%02x%02x%02x%02x%02x\n",
                              i, b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
                              b[13], b[14], b[15]);
        }

        fn_attr attr = CALL(fn_attr, a->attribute);
        int domain = -1, bus = -1, slot = -1;
        if (attr(&domain, CU_ATTR_PCI_DOMAIN_ID, d) == 0 && attr(&bus, CU_ATTR_PCI_BUS_ID, d) == 0 &&
            attr(&slot, CU_ATTR_PCI_DEVICE_ID, d) == 0 && domain >= 0 && bus >= 0 && bus <= 0xff && slot >= 0 &&
            slot <= 0x1f) {
                char id[XPU_PCI_BUS_ID_MAX];
                const struct xpu_pci_bus_id pci = { .domain = (uint32_t)domain, .bus = (uint8_t)bus, .device = (uint8_t)slot };
                xpu_pci_bus_id_format(&pci, id);
                xpu_reply_add(r, "device.%d.bus_id %s\n", i, id);
        }

        int major = -1, minor = -1;
        if (attr(&major, CU_ATTR_CC_MAJOR, d) == 0 && attr(&minor, CU_ATTR_CC_MINOR, d) == 0 && major >= 0 &&
            major < 100 && minor >= 0 && minor < 100)
                xpu_reply_add(r, "device.%d.cc %d.%d\n", i, major, minor);

        size_t bytes = 0;
        if (a->total_mem && CALL(fn_mem, a->total_mem)(&bytes, d) == 0)
                xpu_reply_add(r, "device.%d.memory_total %zu\n", i, bytes);
}

/* Everything after cuInit succeeded. */
static int read_all(struct xpu_reply *r, int out_fd, const struct cuda_api *a) {
        int version = 0;
        cu_result e = CALL(fn_int, a->driver_version)(&version);
        if (e != 0)
                return cuda_fail(r, out_fd, a, "cuDriverGetVersion", e);
        /* 1000 * major + 10 * minor: CUDA 1.0 to 999.99; anything else is left out. */
        if (version >= 1000 && version <= 999999)
                xpu_reply_add(r, "cuda_driver_version %d\n", version);

        int n = 0;
        e = CALL(fn_int, a->count)(&n);
        if (e != 0)
                return cuda_fail(r, out_fd, a, "cuDeviceGetCount", e);
        if (n < 0)
                n = 0;
        if (n > XPU_CUDA_DEVICES_MAX) {
                xpu_reply_add(r, "device_count %d\ndevices_total %d\n", XPU_CUDA_DEVICES_MAX, n);
                n = XPU_CUDA_DEVICES_MAX;
        } else
                xpu_reply_add(r, "device_count %d\n", n);

        for (int i = 0; i < n; i++) {
                char call[64], name[256] = "";
                cu_device d = 0;
                e = CALL(fn_get, a->get)(&d, i);
                if (e != 0) {
                        snprintf(call, sizeof(call), "cuDeviceGet(%d)", i);
                        return cuda_fail(r, out_fd, a, call, e);
                }
                e = CALL(fn_name, a->name)(name, (int)sizeof(name), d);
                if (e != 0) {
                        snprintf(call, sizeof(call), "cuDeviceGetName(%d)", i);
                        return cuda_fail(r, out_fd, a, call, e);
                }
                /* Cut to the parent's field; an empty name is left out, never made up. */
                if (xpu_helper_clean_string(name, sizeof(name), sizeof(((struct xpu_cuda_device *)0)->name), true))
                        xpu_reply_add(r, "device.%d.name %s\n", i, name);
                read_device_extras(r, a, i, d);
        }
        return xpu_reply_send(r, out_fd, "CUDA");
}

static int cuda_helper(void *arg, int out_fd) {
        static struct xpu_reply r;
        static const char *const sonames[] = { "libcuda.so.1", NULL };
        char loaded[PATH_MAX];
        void *handle = NULL;
        int status = 0;

        struct cuda_api a = {0};
        const struct xpu_dl_symbol syms[] = {
                { "cuInit", NULL, &a.init, false },
                { "cuDriverGetVersion", NULL, &a.driver_version, false },
                { "cuDeviceGetCount", NULL, &a.count, false },
                { "cuDeviceGet", NULL, &a.get, false },
                { "cuDeviceGetName", NULL, &a.name, false },
                { "cuDeviceGetAttribute", NULL, &a.attribute, false },
                { "cuDeviceGetUuid_v2", "cuDeviceGetUuid", &a.uuid, true },
                /* The unversioned cuDeviceTotalMem takes an unsigned int *: no fallback. */
                { "cuDeviceTotalMem_v2", NULL, &a.total_mem, true },
                { "cuGetErrorName", NULL, &a.error_name, true },
                { "cuGetErrorString", NULL, &a.error_string, true },
        };
        /* WSL2: the driver store folder holds libcuda.so.1.1 alone (ldconfig makes the soname link) */
        static const char *const wsl_sonames[] = { "libcuda.so.1", "libcuda.so.1.1", NULL };
        const struct xpu_nvidia_job *job = arg;
        const char *dirs[3];
        if (xpu_helper_job_load(arg, job->wsl ? wsl_sonames : sonames, xpu_nvidia_job_dirs(job, dirs), syms,
                                ELEMENTSOF(syms), &handle, loaded, &r, out_fd, &status) < 0)
                return status;

        cu_result ce = CALL(fn_init, a.init)(0);
        if (ce != 0)
                return cuda_fail(&r, out_fd, &a, "cuInit", ce);
        /* No cuda shutdown call exists and no dlclose(): the helper exits right away. */
        return read_all(&r, out_fd, &a);
}

/* ---- the parent side ---- */

struct xpu_cuda_result *xpu_cuda_result_free(struct xpu_cuda_result *r) {
        free(r);
        return NULL;
}

/* Per-device keys of the wire format. */
static const struct xpu_reply_field device_fields[] = {
#define FIELD(k, kind, m, have) XPU_REPLY_FIELD(k, kind, struct xpu_cuda_device, m, have)
        FIELD("name", XPU_REPLY_TEXT, name, 0),
        FIELD("uuid", XPU_REPLY_STR, uuid, XPU_CUDA_HAVE_UUID),
        FIELD("bus_id", XPU_REPLY_BUS_ID, pci_bus_id, XPU_CUDA_HAVE_PCI),
        FIELD("cc", XPU_REPLY_CC, compute_capability, XPU_CUDA_HAVE_COMPUTE_CAPABILITY),
        FIELD("memory_total", XPU_REPLY_U64, memory_total_bytes, XPU_CUDA_HAVE_MEMORY_TOTAL),
#undef FIELD
};

/* The CUDA driver API integer (1000 * major + 10 * minor) as "major.minor"; CUDA 1.0 (1000) is
 * the lowest there is. */
static int set_cuda_driver_version(void *result, const char *value) {
        struct xpu_cuda_result *r = result;
        uint64_t v = 0;
        if (xpu_parse_u64(value, 10, &v) < 0 || v < 1000 || v > 999999)
                return -EINVAL;
        snprintf(r->cuda_driver_version, sizeof(r->cuda_driver_version), "%u.%u", (unsigned)(v / 1000),
                 (unsigned)(v % 1000 / 10));
        return 0;
}

static const struct xpu_reply_key head_keys[] = {
        { "cuda_driver_version", true, set_cuda_driver_version },
};

/* The wire format (nvidia-cuda.h); every device key comes at most once. */
static const struct xpu_reply_spec cuda_reply = {
        .what = "CUDA",
        .keys = head_keys,
        .n_keys = ELEMENTSOF(head_keys),
        .devices_max = XPU_CUDA_DEVICES_MAX,
        .device_size = sizeof(struct xpu_cuda_device),
        .have_offset = offsetof(struct xpu_cuda_device, have),
        .fields = device_fields,
        .n_fields = ELEMENTSOF(device_fields),
        .fields_once = true,
};

int xpu_cuda_parse_reply(const char *text, struct xpu_cuda_result **ret, char *err, size_t err_size) {
        _cleanup_free_ struct xpu_cuda_result *r = NULL;
        char fallback[8];

        if (!err) {
                err = fallback;
                err_size = sizeof(fallback);
        }
        r = calloc(1, sizeof(*r) + XPU_CUDA_DEVICES_MAX * sizeof(r->devices[0]));
        if (!r)
                return -ENOMEM;
        struct xpu_reply_out out = { .result = r, .library = r->library, .devices = r->devices };
        int e = xpu_reply_read(&cuda_reply, text, &out, err, err_size);
        if (e < 0)
                return e;
        r->n = out.count;
        r->total = out.total;
        *ret = TAKE_PTR(r);
        return 0;
}

int xpu_cuda_read_lib(int driver_root_fd, const struct xpu_nvidia_lib *lib, unsigned timeout_ms,
                      struct xpu_cuda_result **ret, char *err, size_t err_size) {
        struct xpu_nvidia_job job;
        _cleanup_free_ char *reply = NULL;
        int r = xpu_nvidia_job_prepare(&job, driver_root_fd, lib, "libcuda.so.1", err, err_size);
        if (r < 0)
                return r;
        if (!ret) {
                if (err)
                        snprintf(err, err_size, "invalid arguments");
                return -EINVAL;
        }
        r = xpu_reply_run(cuda_helper, &job, timeout_ms, "CUDA", &reply, err, err_size);
        if (r < 0)
                return r;
        return xpu_cuda_parse_reply(reply, ret, err, err_size);
}

int xpu_cuda_read(int driver_root_fd, const char *driver_version, unsigned timeout_ms,
                  struct xpu_cuda_result **ret, char *err, size_t err_size) {
        const struct xpu_nvidia_lib lib = { .driver_version = driver_version };
        return xpu_cuda_read_lib(driver_root_fd, &lib, timeout_ms, ret, err, err_size);
}

/* ---- merging into the fast-path inventory ---- */

/* Does device A (ordinal I) come before B (ordinal K) in PCI bus order? Devices without a bus id
 * come last, in ordinal order. */
static bool bus_order_before(const struct xpu_cuda_device *a, size_t i, const struct xpu_cuda_device *b, size_t k) {
        bool ha = a->have & XPU_CUDA_HAVE_PCI, hb = b->have & XPU_CUDA_HAVE_PCI;
        if (ha != hb)
                return ha;
        int c = ha ? strcmp(a->pci_bus_id, b->pci_bus_id) : 0;
        return c < 0 || (c == 0 && i < k);
}

int xpu_cuda_merge(struct xpu_inventory *inv, const struct xpu_cuda_result *r) {
        int matched = 0;
        if (xpu_vendor_merge_cuda_version(inv, XPU_VENDOR_NVIDIA, r->cuda_driver_version, XPU_SOURCE_CUDA) < 0 ||
            xpu_merge_warn_truncated(inv, XPU_SOURCE_CUDA, r->total, r->n) < 0)
                return -ENOMEM;
        /* WSL2, when NVML did not list them: the driver store's entry becomes CUDA's GPUs, placed in
         * PCI bus order (NVML's and the fast path's; CUDA's own order is fastest first). */
        size_t slot[XPU_CUDA_DEVICES_MAX];
        int first = r->n ? xpu_wsl_expand(inv, XPU_VENDOR_NVIDIA, XPU_SOURCE_CUDA, r->n) : -ENOENT;
        if (first == -ENOMEM)
                return -ENOMEM;
        size_t expanded = first >= 0 ? xpu_inventory_count(inv, XPU_VENDOR_NVIDIA) : 0;
        for (size_t k = 0; k < r->n && k < ELEMENTSOF(slot); k++) {
                slot[k] = 0;
                for (size_t j = 0; j < r->n; j++)
                        slot[k] += bus_order_before(&r->devices[j], j, &r->devices[k], k);
        }
        for (size_t k = 0; k < r->n; k++) {
                const struct xpu_cuda_device *cd = &r->devices[k];
                int repeated = xpu_merge_bus_id_repeated(inv, XPU_SOURCE_CUDA, r->devices, sizeof(r->devices[0]),
                                                         offsetof(struct xpu_cuda_device, pci_bus_id), k);
                if (repeated < 0)
                        return -ENOMEM;
                if (repeated)
                        continue;
                /* By bus id only: CUDA ordinal k (FASTEST_FIRST) says nothing about the fast path's order. */
                struct xpu_device *dev = (cd->have & XPU_CUDA_HAVE_PCI)
                                                 ? xpu_inventory_find_bus_id(inv, XPU_VENDOR_NVIDIA, cd->pci_bus_id)
                                                 : NULL;
                if (!dev && k < ELEMENTSOF(slot) && slot[k] < expanded) {
                        dev = &inv->devices[(size_t)first + slot[k]];
                        if (cd->have & XPU_CUDA_HAVE_PCI)
                                snprintf(dev->pci_bus_id, sizeof dev->pci_bus_id, "%s", cd->pci_bus_id);
                }
                if (!dev) {
                        if (xpu_inventory_warn(inv, "cuda: ordinal %zu (%s) at %s is not in the procfs inventory; ignored",
                                               k, cd->have & XPU_CUDA_HAVE_UUID ? cd->uuid : cd->name[0] ? cd->name : "?",
                                               cd->have & XPU_CUDA_HAVE_PCI ? cd->pci_bus_id : "an unknown bus id") < 0)
                                return -ENOMEM;
                        continue;
                }
                matched++;
                /* A MIG-mode GPU shows CUDA one MIG instance: its UUID and memory are not the GPU's. */
                bool mig = (dev->have & XPU_HAVE_MIG_MODE) && xpu_nvidia_facts(dev)->mig_enabled;
                int e = 0;
                if ((cd->have & XPU_CUDA_HAVE_MEMORY_TOTAL) && !mig)
                        e |= xpu_device_merge_u64(inv, dev, XPU_FIELD_MEMORY_TOTAL, &dev->memory_total_bytes,
                                                  XPU_HAVE_MEMORY_TOTAL, cd->memory_total_bytes, XPU_SOURCE_CUDA);
                struct xpu_nvidia_facts *nv = xpu_nvidia_facts(dev);
                e |= xpu_device_merge_string(inv, dev, XPU_FIELD_COMPUTE_CAPABILITY, nv->compute_capability,
                                             sizeof nv->compute_capability, cd->compute_capability, XPU_SOURCE_CUDA);
                e |= xpu_device_merge_string(inv, dev, XPU_FIELD_NAME, dev->name, sizeof(dev->name), cd->name,
                                             XPU_SOURCE_CUDA);
                if (!mig)
                        e |= xpu_device_merge_string(inv, dev, XPU_FIELD_UUID, dev->uuid, sizeof(dev->uuid), cd->uuid,
                                                     XPU_SOURCE_CUDA);
                if (e < 0)
                        return -ENOMEM;
        }
        return matched;
}

/* ---- the rich-path backend (rich.h) ---- */

static int rich_read(const struct xpu_roots *roots, const struct xpu_inventory *inv, unsigned timeout_ms, void **ret,
                     char *err, size_t err_size) {
        struct xpu_cuda_result *r = NULL;
        struct xpu_nvidia_lib lib;
        xpu_nvidia_lib_of(inv, &lib);
        int e = xpu_cuda_read_lib(roots->driver_fd, &lib, timeout_ms, &r, err, err_size);
        if (e >= 0)
                *ret = r;
        return e;
}

static int rich_merge(struct xpu_inventory *inv, const void *result) {
        return xpu_cuda_merge(inv, result);
}

static cJSON *rich_to_json(const void *result) {
        const struct xpu_cuda_result *r = result;
        cJSON *o = cJSON_CreateObject();
        bool ok = o && cJSON_AddStringToObject(o, "source", "cuda") && cJSON_AddStringToObject(o, "library", r->library) &&
                  (!r->cuda_driver_version[0] ||
                   cJSON_AddStringToObject(o, "cuda_driver_version", r->cuda_driver_version)) &&
                  (r->total <= r->n || cJSON_AddNumberToObject(o, "devices_total", (double)r->total));
        cJSON *devs = ok ? cJSON_AddArrayToObject(o, "devices") : NULL;
        ok = devs != NULL;
        for (size_t i = 0; ok && i < r->n; i++) {
                const struct xpu_cuda_device *d = &r->devices[i];
                cJSON *j = cJSON_CreateObject();
                ok = j && cJSON_AddItemToArray(devs, j) && cJSON_AddNumberToObject(j, "ordinal", (double)i);
                if (ok && (d->have & XPU_CUDA_HAVE_PCI))
                        ok = cJSON_AddStringToObject(j, "pci_bus_id", d->pci_bus_id) != NULL;
                if (ok && (d->have & XPU_CUDA_HAVE_UUID))
                        ok = cJSON_AddStringToObject(j, "uuid", d->uuid) != NULL;
                if (ok && d->name[0])
                        ok = cJSON_AddStringToObject(j, "name", d->name) != NULL;
                if (ok && (d->have & XPU_CUDA_HAVE_COMPUTE_CAPABILITY))
                        ok = cJSON_AddStringToObject(j, "compute_capability", d->compute_capability) != NULL;
                if (ok && (d->have & XPU_CUDA_HAVE_MEMORY_TOTAL))
                        ok = cJSON_AddNumberToObject(j, "memory_total_bytes", (double)d->memory_total_bytes) != NULL;
        }
        if (!ok) {
                cJSON_Delete(o);
                return NULL;
        }
        return o;
}

static void rich_print(const void *result, FILE *f) {
        const struct xpu_cuda_result *r = result;
        fprintf(f, "cuda: %s, CUDA driver %s, %zu device%s", r->library,
                r->cuda_driver_version[0] ? r->cuda_driver_version : "?", r->n, r->n == 1 ? "" : "s");
        if (r->total > r->n)
                fprintf(f, " (of %zu)", r->total);
        fputs(" (CUDA ordinals, FASTEST_FIRST order)\n", f);
        for (size_t i = 0; i < r->n; i++) {
                const struct xpu_cuda_device *d = &r->devices[i];
                fprintf(f, "  %zu %s %s %s", i, d->have & XPU_CUDA_HAVE_PCI ? d->pci_bus_id : "-",
                        d->have & XPU_CUDA_HAVE_UUID ? d->uuid : "-", d->name[0] ? d->name : "-");
                if (d->have & XPU_CUDA_HAVE_COMPUTE_CAPABILITY)
                        fprintf(f, " cc %s", d->compute_capability);
                if (d->have & XPU_CUDA_HAVE_MEMORY_TOTAL)
                        fprintf(f, " %" PRIu64 " MiB", d->memory_total_bytes >> 20);
                fputc('\n', f);
        }
}

const struct xpu_rich_ops xpu_rich_cuda = {
        .vendor = XPU_VENDOR_NVIDIA,
        .source = XPU_SOURCE_CUDA,
        .library = "libcuda.so.1",
        .read = rich_read,
        .merge = rich_merge,
        .to_json = rich_to_json,
        .print = rich_print,
};
