/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML reader: see nvidia-nvml.h.
 *
 * Wire format of the helper's reply (plain text, one "key value" per line, key and value
 * separated by one blank, values printable ASCII — the helper replaces anything else by '?'):
 *   driver_version 465.19.01
 *   cuda_driver_version 11030          optional; CUDA driver API integer
 *   device_count 2                     before any device line; at most XPU_NVML_DEVICES_MAX
 *   device.0.uuid GPU-...              uuid and name: every device
 *   device.0.name NVIDIA GeForce RTX 2080 Ti
 *   device.0.minor 0                   the rest: only when NVML answered
 *   device.0.bus_id 00000000:1A:00.0
 *   device.0.memory_total 11554717696
 *   device.0.cc 7.5
 *   device.0.brand GeForce
 *   end                                last line: a reply without it was cut short
 * or, instead of all of it, one line "error ERRNO TEXT" (ERRNO negative). */
#include "nvidia-nvml.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dlfcn.h>

#include "base/dl.h"
#include "base/isolate.h"
#include "base/reply.h"
#include "rich.h"
#include "base/macro.h"

/* ---- the helper side: runs in the isolated child only ---- */

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

typedef nvml_ret (*fn_void)(void);
typedef nvml_ret (*fn_str)(char *, unsigned);
typedef nvml_ret (*fn_int)(int *);
typedef nvml_ret (*fn_uint)(unsigned *);
typedef nvml_ret (*fn_handle)(unsigned, nvml_dev *);
typedef nvml_ret (*fn_dev_str)(nvml_dev, char *, unsigned);
typedef nvml_ret (*fn_dev_uint)(nvml_dev, unsigned *);
typedef nvml_ret (*fn_dev_int)(nvml_dev, int *);
typedef nvml_ret (*fn_dev_int2)(nvml_dev, int *, int *);
typedef nvml_ret (*fn_dev_ptr)(nvml_dev, void *);
typedef const char *(*fn_errstr)(nvml_ret);

/* Addresses bound by xpu_dl_bind(); called through the typedefs above. */
struct nvml_api {
        void *init, *shutdown, *driver_version, *cuda_version, *count, *handle, *name, *uuid, *minor,
                *pci, *pci_v1, *memory, *cc, *brand, *error_string;
};

#define CALL(type, ptr) ((type)(uintptr_t)(ptr))

/* What the parent hands to the helper: the driver root (reply.h) and the version the library
 * must carry. */
struct nvml_job {
        struct xpu_root_ref root;
        char driver_version[64];
};

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

static int nvml_fail(struct xpu_reply *r, int out_fd, const struct nvml_api *a, const char *call, nvml_ret code) {
        const char *text = a->error_string ? CALL(fn_errstr, a->error_string)(code) : NULL;
        int err = -EIO;
        for (size_t i = 0; i < ELEMENTSOF(nvml_errno); i++)
                if (nvml_errno[i].code == code)
                        err = nvml_errno[i].err;
        return xpu_reply_fail(r, out_fd, err, "%s failed: %s (error %d)", call, text ? text : "unknown error", code);
}

/* nvmlBrandType_t names (nvml.h order). */
static const char *const brand_names[] = {
        "Unknown", "Quadro", "Tesla", "NVS", "GRID", "GeForce", "Titan", "NVIDIA vApps", "NVIDIA VPC",
        "NVIDIA VCS", "NVIDIA VWS", "NVIDIA Cloud Gaming", "Quadro RTX", "NVIDIA RTX", "NVIDIA",
        "GeForce RTX", "Titan RTX",
};

/* The optional per-device facts; a failing optional call just leaves its line out. */
static void read_device_extras(struct xpu_reply *r, const struct nvml_api *a, unsigned i, nvml_dev d) {
        unsigned minor = 0;
        if (a->minor && CALL(fn_dev_uint, a->minor)(d, &minor) == 0)
                xpu_reply_add(r, "device.%u.minor %u\n", i, minor);

        nvml_pci pci = {0};
        nvml_pci_v1 pci1 = {0};
        if (a->pci && CALL(fn_dev_ptr, a->pci)(d, &pci) == 0) {
                xpu_reply_sanitize(pci.bus_id, sizeof(pci.bus_id));
                xpu_reply_add(r, "device.%u.bus_id %s\n", i, pci.bus_id);
        } else if (a->pci_v1 && CALL(fn_dev_ptr, a->pci_v1)(d, &pci1) == 0) {
                xpu_reply_sanitize(pci1.bus_id, sizeof(pci1.bus_id));
                xpu_reply_add(r, "device.%u.bus_id %s\n", i, pci1.bus_id);
        }

        nvml_memory mem = {0};
        if (a->memory && CALL(fn_dev_ptr, a->memory)(d, &mem) == 0)
                xpu_reply_add(r, "device.%u.memory_total %llu\n", i, mem.total);

        int major = 0, minor_cc = 0;
        if (a->cc && CALL(fn_dev_int2, a->cc)(d, &major, &minor_cc) == 0 && major >= 0 && major < 100 &&
            minor_cc >= 0 && minor_cc < 100)
                xpu_reply_add(r, "device.%u.cc %d.%d\n", i, major, minor_cc);

        int brand = 0;
        if (a->brand && CALL(fn_dev_int, a->brand)(d, &brand) == 0) {
                if (brand >= 0 && (size_t)brand < ELEMENTSOF(brand_names))
                        xpu_reply_add(r, "device.%u.brand %s\n", i, brand_names[brand]);
                else
                        xpu_reply_add(r, "device.%u.brand brand %d\n", i, brand);
        }
}

/* Everything after nvmlInit succeeded; the caller shuts NVML down. */
static int read_all(struct xpu_reply *r, int out_fd, const struct nvml_api *a) {
        char s[256];
        nvml_ret e = CALL(fn_str, a->driver_version)(s, sizeof(s));
        if (e != 0)
                return nvml_fail(r, out_fd, a, "nvmlSystemGetDriverVersion", e);
        xpu_reply_sanitize(s, sizeof(s));
        xpu_reply_add(r, "driver_version %s\n", s);

        int cuda = 0;
        if (a->cuda_version && CALL(fn_int, a->cuda_version)(&cuda) == 0 && cuda > 0)
                xpu_reply_add(r, "cuda_driver_version %d\n", cuda);

        unsigned n = 0;
        e = CALL(fn_uint, a->count)(&n);
        if (e != 0)
                return nvml_fail(r, out_fd, a, "nvmlDeviceGetCount_v2", e);
        if (n > XPU_NVML_DEVICES_MAX)
                n = XPU_NVML_DEVICES_MAX;
        xpu_reply_add(r, "device_count %u\n", n);

        for (unsigned i = 0; i < n; i++) {
                nvml_dev d = NULL;
                char call[64];
                e = CALL(fn_handle, a->handle)(i, &d);
                if (e != 0) {
                        snprintf(call, sizeof(call), "nvmlDeviceGetHandleByIndex_v2(%u)", i);
                        return nvml_fail(r, out_fd, a, call, e);
                }
                static const struct {
                        const char *what, *call;
                        size_t slot;
                } strings[] = {
                        { "uuid", "nvmlDeviceGetUUID", offsetof(struct nvml_api, uuid) },
                        { "name", "nvmlDeviceGetName", offsetof(struct nvml_api, name) },
                };
                for (size_t k = 0; k < ELEMENTSOF(strings); k++) {
                        void *fn = *(void *const *)(const void *)((const char *)a + strings[k].slot);
                        e = CALL(fn_dev_str, fn)(d, s, sizeof(s));
                        if (e != 0) {
                                snprintf(call, sizeof(call), "%s(%u)", strings[k].call, i);
                                return nvml_fail(r, out_fd, a, call, e);
                        }
                        xpu_reply_sanitize(s, sizeof(s));
                        xpu_reply_add(r, "device.%u.%s %s\n", i, strings[k].what, s);
                }
                read_device_extras(r, a, i, d);
        }
        return xpu_reply_send(r, out_fd, "NVML");
}

static int nvml_helper(void *arg, int out_fd) {
        const struct nvml_job *job = arg;
        static struct xpu_reply r;
        static const char *const sonames[] = { "libnvidia-ml.so.1", NULL };
        char err[512], loaded[PATH_MAX];
        void *handle = NULL;

        _cleanup_close_ int root = xpu_root_ref_open(&job->root);
        if (root < 0)
                return xpu_reply_fail(&r, out_fd, root, "cannot reopen the driver root %s: %s", job->root.path,
                                      strerror(-root));

        /* With a driver version, the library's file name is checked before it is loaded at all. */
        int e = job->driver_version[0]
                        ? xpu_dl_open_version(root, sonames, job->driver_version, loaded, sizeof(loaded), &handle, err,
                                              sizeof(err))
                        : xpu_dl_open(root, sonames, loaded, sizeof(loaded), &handle, err, sizeof(err));
        if (e < 0)
                return xpu_reply_fail(&r, out_fd, e, "%s", err);

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
                { "nvmlErrorString", NULL, &a.error_string, true },
        };
        e = xpu_dl_bind(handle, syms, ELEMENTSOF(syms), err, sizeof(err));
        if (e < 0)
                return xpu_reply_fail(&r, out_fd, e, "%s", err);

        nvml_ret ne = CALL(fn_void, a.init)();
        if (ne != 0)
                return nvml_fail(&r, out_fd, &a, "nvmlInit_v2", ne);
        int status = read_all(&r, out_fd, &a);
        (void)CALL(fn_void, a.shutdown)();
        /* No dlclose(): the helper exits right away, and some libraries crash in their destructors. */
        return status;
}

/* ---- the parent side ---- */

struct xpu_nvml_result *xpu_nvml_result_free(struct xpu_nvml_result *r) {
        free(r);
        return NULL;
}

/* Per-device keys of the wire format. */
static const struct xpu_reply_field device_fields[] = {
#define FIELD(k, kind, m, have) XPU_REPLY_FIELD(k, kind, struct xpu_nvml_device, m, have)
        FIELD("uuid", XPU_REPLY_STR, uuid, 0),
        FIELD("name", XPU_REPLY_STR, name, 0),
        FIELD("minor", XPU_REPLY_U32, minor, XPU_NVML_HAVE_MINOR),
        FIELD("bus_id", XPU_REPLY_BUS_ID, pci_bus_id, XPU_NVML_HAVE_PCI),
        FIELD("memory_total", XPU_REPLY_U64, memory_total_bytes, XPU_NVML_HAVE_MEMORY_TOTAL),
        FIELD("cc", XPU_REPLY_CC, compute_capability, XPU_NVML_HAVE_COMPUTE_CAPABILITY),
        FIELD("brand", XPU_REPLY_STR, brand, XPU_NVML_HAVE_BRAND),
#undef FIELD
};

int xpu_nvml_parse_reply(const char *text, struct xpu_nvml_result **ret, char *err, size_t err_size) {
        _cleanup_free_ struct xpu_nvml_result *r = NULL;
        struct xpu_reply_parser p;
        size_t count = 0;
        bool have_count = false, have_driver = false;
        char fallback[8];
        int e;

        if (!err) {
                err = fallback;
                err_size = sizeof(fallback);
        }
        r = calloc(1, sizeof(*r) + XPU_NVML_DEVICES_MAX * sizeof(r->devices[0]));
        if (!r)
                return -ENOMEM;

        xpu_reply_parser_init(&p, "NVML", text);
        while ((e = xpu_reply_next(&p, err, err_size)) > 0) {
                const char *field = NULL;
                int i;
                if (strcmp(p.key, "driver_version") == 0 && !have_driver) {
                        if (xpu_strlcpy(r->driver_version, p.value, sizeof(r->driver_version)) < 0)
                                return xpu_reply_garbage(&p, err, err_size);
                        have_driver = true;
                } else if (strcmp(p.key, "cuda_driver_version") == 0 && !r->cuda_driver_version[0]) {
                        uint64_t v = 0;
                        if (xpu_parse_u64(p.value, 10, &v) < 0 || v == 0 || v > 999999)
                                return xpu_reply_garbage(&p, err, err_size);
                        snprintf(r->cuda_driver_version, sizeof(r->cuda_driver_version), "%u.%u",
                                 (unsigned)(v / 1000), (unsigned)(v % 1000 / 10));
                } else if (strcmp(p.key, "device_count") == 0 && !have_count) {
                        uint64_t v = 0;
                        if (xpu_parse_u64(p.value, 10, &v) < 0 || v > XPU_NVML_DEVICES_MAX)
                                return xpu_reply_garbage(&p, err, err_size);
                        count = (size_t)v;
                        have_count = true;
                } else if (!have_count || (i = xpu_reply_device_key(p.key, count, &field)) < 0 ||
                           xpu_reply_set_field(&r->devices[i], &r->devices[i].have, device_fields,
                                               ELEMENTSOF(device_fields), field, p.value) < 0)
                        return xpu_reply_garbage(&p, err, err_size);
        }
        if (e < 0)
                return e;
        if (!have_count || !have_driver) {
                snprintf(err, err_size, "garbage from the NVML helper: no %s", have_count ? "driver_version" : "device_count");
                return -EBADMSG;
        }
        for (size_t i = 0; i < count; i++)
                if (!r->devices[i].uuid[0] || !r->devices[i].name[0]) {
                        snprintf(err, err_size, "garbage from the NVML helper: device %zu lacks uuid or name", i);
                        return -EBADMSG;
                }
        r->n = count;
        *ret = TAKE_PTR(r);
        return 0;
}

int xpu_nvml_read(int driver_root_fd, const char *driver_version, unsigned timeout_ms,
                  struct xpu_nvml_result **ret, char *err, size_t err_size) {
        static struct nvml_job job;
        char fallback[8];

        if (!err) {
                err = fallback;
                err_size = sizeof(fallback);
        }
        if (driver_root_fd < 0 || !ret) {
                snprintf(err, err_size, "invalid arguments");
                return -EINVAL;
        }
        memset(&job, 0, sizeof(job));
        int r = xpu_root_ref_init(&job.root, driver_root_fd, err, err_size);
        if (r < 0)
                return r;
        if (driver_version && xpu_strlcpy(job.driver_version, driver_version, sizeof(job.driver_version)) < 0) {
                snprintf(err, err_size, "driver version too long");
                return -EINVAL;
        }
        _cleanup_free_ char *reply = NULL;
        r = xpu_reply_run(nvml_helper, &job, timeout_ms, "NVML", &reply, err, err_size);
        if (r < 0)
                return r;
        return xpu_nvml_parse_reply(reply, ret, err, err_size);
}

/* ---- merging into the fast-path inventory ---- */

int xpu_nvml_merge(struct xpu_inventory *inv, const struct xpu_nvml_result *r) {
        int matched = 0;
        if (xpu_vendor_merge_cuda_version(inv, XPU_VENDOR_NVIDIA, r->cuda_driver_version, XPU_SOURCE_NVML) < 0)
                return -ENOMEM;
        for (size_t k = 0; k < r->n; k++) {
                const struct xpu_nvml_device *nd = &r->devices[k];
                struct xpu_device *dev = (nd->have & XPU_NVML_HAVE_PCI)
                                                 ? xpu_inventory_find_bus_id(inv, XPU_VENDOR_NVIDIA, nd->pci_bus_id)
                                                 : NULL;
                if (!dev) {
                        if (xpu_inventory_warn(inv, "nvml: %s at %s is not in the procfs inventory; ignored",
                                               nd->uuid, nd->have & XPU_NVML_HAVE_PCI ? nd->pci_bus_id : "an unknown bus id") < 0)
                                return -ENOMEM;
                        continue;
                }
                matched++;
                int e = 0;
                if (nd->have & XPU_NVML_HAVE_MEMORY_TOTAL)
                        e |= xpu_device_merge_u64(inv, dev, XPU_FIELD_MEMORY_TOTAL, &dev->memory_total_bytes,
                                                  XPU_HAVE_MEMORY_TOTAL, nd->memory_total_bytes, XPU_SOURCE_NVML);
                e |= xpu_device_merge_string(inv, dev, XPU_FIELD_COMPUTE_CAPABILITY, dev->compute_capability,
                                             sizeof(dev->compute_capability), nd->compute_capability, XPU_SOURCE_NVML);
                e |= xpu_device_merge_string(inv, dev, XPU_FIELD_BRAND, dev->brand, sizeof(dev->brand), nd->brand,
                                             XPU_SOURCE_NVML);
                e |= xpu_device_merge_string(inv, dev, XPU_FIELD_NAME, dev->name, sizeof(dev->name), nd->name,
                                             XPU_SOURCE_NVML);
                e |= xpu_device_merge_string(inv, dev, XPU_FIELD_UUID, dev->uuid, sizeof(dev->uuid), nd->uuid,
                                             XPU_SOURCE_NVML);
                if (e < 0)
                        return -ENOMEM;
        }
        return matched;
}

/* ---- the rich-path backend (rich.h) ---- */

static int rich_read(const struct xpu_roots *roots, const struct xpu_inventory *inv, unsigned timeout_ms, void **ret,
                     char *err, size_t err_size) {
        struct xpu_nvml_result *r = NULL;
        int e = xpu_nvml_read(roots->driver_fd, inv->vendors[XPU_VENDOR_NVIDIA].driver_version, timeout_ms, &r, err,
                              err_size);
        if (e >= 0)
                *ret = r;
        return e;
}

static int rich_merge(struct xpu_inventory *inv, const void *result) {
        return xpu_nvml_merge(inv, result);
}

static cJSON *rich_to_json(const void *result) {
        const struct xpu_nvml_result *r = result;
        cJSON *o = cJSON_CreateObject();
        cJSON *devs = o ? cJSON_AddArrayToObject(o, "devices") : NULL;
        bool ok = devs && cJSON_AddStringToObject(o, "source", "nvml") &&
                  cJSON_AddStringToObject(o, "driver_version", r->driver_version) &&
                  (!r->cuda_driver_version[0] || cJSON_AddStringToObject(o, "cuda_driver_version", r->cuda_driver_version));
        for (size_t i = 0; ok && i < r->n; i++) {
                const struct xpu_nvml_device *d = &r->devices[i];
                cJSON *j = cJSON_CreateObject();
                ok = j && cJSON_AddItemToArray(devs, j) && cJSON_AddNumberToObject(j, "index", (double)i) &&
                     cJSON_AddStringToObject(j, "name", d->name) && cJSON_AddStringToObject(j, "uuid", d->uuid);
                if (ok && (d->have & XPU_NVML_HAVE_PCI))
                        ok = cJSON_AddStringToObject(j, "pci_bus_id", d->pci_bus_id) != NULL;
                if (ok && (d->have & XPU_NVML_HAVE_MINOR))
                        ok = cJSON_AddNumberToObject(j, "minor", d->minor) != NULL;
                if (ok && (d->have & XPU_NVML_HAVE_MEMORY_TOTAL))
                        ok = cJSON_AddNumberToObject(j, "memory_total_bytes", (double)d->memory_total_bytes) != NULL;
                if (ok && (d->have & XPU_NVML_HAVE_COMPUTE_CAPABILITY))
                        ok = cJSON_AddStringToObject(j, "compute_capability", d->compute_capability) != NULL;
                if (ok && (d->have & XPU_NVML_HAVE_BRAND))
                        ok = cJSON_AddStringToObject(j, "brand", d->brand) != NULL;
        }
        if (!ok) {
                cJSON_Delete(o);
                return NULL;
        }
        return o;
}

static void rich_print(const void *result, FILE *f) {
        const struct xpu_nvml_result *r = result;
        fprintf(f, "nvml: driver %s", r->driver_version);
        if (r->cuda_driver_version[0])
                fprintf(f, ", CUDA %s", r->cuda_driver_version);
        fprintf(f, ", %zu device%s\n", r->n, r->n == 1 ? "" : "s");
        for (size_t i = 0; i < r->n; i++) {
                const struct xpu_nvml_device *d = &r->devices[i];
                fprintf(f, "  %zu %s %s %s", i, d->have & XPU_NVML_HAVE_PCI ? d->pci_bus_id : "-", d->uuid, d->name);
                if (d->have & XPU_NVML_HAVE_COMPUTE_CAPABILITY)
                        fprintf(f, " cc %s", d->compute_capability);
                if (d->have & XPU_NVML_HAVE_MEMORY_TOTAL)
                        fprintf(f, " %" PRIu64 " MiB", d->memory_total_bytes >> 20);
                fputc('\n', f);
        }
}

static void rich_free(void *result) {
        xpu_nvml_result_free(result);
}

const struct xpu_rich_ops xpu_rich_nvml = {
        .vendor = XPU_VENDOR_NVIDIA,
        .source = XPU_SOURCE_NVML,
        .library = "libnvidia-ml.so.1",
        .read = rich_read,
        .merge = rich_merge,
        .to_json = rich_to_json,
        .print = rich_print,
        .free = rich_free,
};
