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

/* What the parent hands to the helper: the driver root by path plus identity (fds do not survive
 * the runner's fd sweep), and the version the library must carry. */
struct nvml_job {
        char root[PATH_MAX];
        dev_t root_dev;
        ino_t root_ino;
        char driver_version[64];
};

/* The helper's reply, built whole before one write. */
struct reply {
        char buf[XPU_NVML_DEVICES_MAX * 640 + 1024];
        size_t len;
        bool overflow;
};

static void _printf_(2, 3) reply_add(struct reply *r, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(r->buf + r->len, sizeof(r->buf) - r->len, fmt, ap);
        va_end(ap);
        if (n < 0 || (size_t)n >= sizeof(r->buf) - r->len)
                r->overflow = true;
        else
                r->len += (size_t)n;
}

/* Printable ASCII only, so one value stays one line. */
static void sanitize(char *s, size_t size) {
        s[size - 1] = '\0';
        for (; *s; s++)
                if (*s < 0x20 || *s > 0x7e)
                        *s = '?';
}

static int write_all(int fd, const char *buf, size_t len) {
        while (len > 0) {
                ssize_t n = write(fd, buf, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return -errno;
                buf += n;
                len -= (size_t)n;
        }
        return 0;
}

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

/* Replace the reply by one "error" line (the helper still exits 0 so the text reaches us). */
static int _printf_(4, 5) reply_fail(struct reply *r, int out_fd, int err, const char *fmt, ...) {
        char text[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(text, sizeof(text), fmt, ap);
        va_end(ap);
        sanitize(text, sizeof(text));
        r->len = 0;
        r->overflow = false;
        reply_add(r, "error %d %s\n", err, text);
        return write_all(out_fd, r->buf, r->len) < 0 ? 1 : 0;
}

static int nvml_fail(struct reply *r, int out_fd, const struct nvml_api *a, const char *call, nvml_ret code) {
        const char *text = a->error_string ? CALL(fn_errstr, a->error_string)(code) : NULL;
        int err = -EIO;
        for (size_t i = 0; i < ELEMENTSOF(nvml_errno); i++)
                if (nvml_errno[i].code == code)
                        err = nvml_errno[i].err;
        return reply_fail(r, out_fd, err, "%s failed: %s (error %d)", call, text ? text : "unknown error", code);
}

/* nvmlBrandType_t names (nvml.h order). */
static const char *const brand_names[] = {
        "Unknown", "Quadro", "Tesla", "NVS", "GRID", "GeForce", "Titan", "NVIDIA vApps", "NVIDIA VPC",
        "NVIDIA VCS", "NVIDIA VWS", "NVIDIA Cloud Gaming", "Quadro RTX", "NVIDIA RTX", "NVIDIA",
        "GeForce RTX", "Titan RTX",
};

/* The optional per-device facts; a failing optional call just leaves its line out. */
static void read_device_extras(struct reply *r, const struct nvml_api *a, unsigned i, nvml_dev d) {
        unsigned minor = 0;
        if (a->minor && CALL(fn_dev_uint, a->minor)(d, &minor) == 0)
                reply_add(r, "device.%u.minor %u\n", i, minor);

        nvml_pci pci = {0};
        nvml_pci_v1 pci1 = {0};
        if (a->pci && CALL(fn_dev_ptr, a->pci)(d, &pci) == 0) {
                sanitize(pci.bus_id, sizeof(pci.bus_id));
                reply_add(r, "device.%u.bus_id %s\n", i, pci.bus_id);
        } else if (a->pci_v1 && CALL(fn_dev_ptr, a->pci_v1)(d, &pci1) == 0) {
                sanitize(pci1.bus_id, sizeof(pci1.bus_id));
                reply_add(r, "device.%u.bus_id %s\n", i, pci1.bus_id);
        }

        nvml_memory mem = {0};
        if (a->memory && CALL(fn_dev_ptr, a->memory)(d, &mem) == 0)
                reply_add(r, "device.%u.memory_total %llu\n", i, mem.total);

        int major = 0, minor_cc = 0;
        if (a->cc && CALL(fn_dev_int2, a->cc)(d, &major, &minor_cc) == 0 && major >= 0 && major < 100 &&
            minor_cc >= 0 && minor_cc < 100)
                reply_add(r, "device.%u.cc %d.%d\n", i, major, minor_cc);

        int brand = 0;
        if (a->brand && CALL(fn_dev_int, a->brand)(d, &brand) == 0) {
                if (brand >= 0 && (size_t)brand < ELEMENTSOF(brand_names))
                        reply_add(r, "device.%u.brand %s\n", i, brand_names[brand]);
                else
                        reply_add(r, "device.%u.brand brand %d\n", i, brand);
        }
}

/* Everything after nvmlInit succeeded; the caller shuts NVML down. */
static int read_all(struct reply *r, int out_fd, const struct nvml_api *a) {
        char s[256];
        nvml_ret e = CALL(fn_str, a->driver_version)(s, sizeof(s));
        if (e != 0)
                return nvml_fail(r, out_fd, a, "nvmlSystemGetDriverVersion", e);
        sanitize(s, sizeof(s));
        reply_add(r, "driver_version %s\n", s);

        int cuda = 0;
        if (a->cuda_version && CALL(fn_int, a->cuda_version)(&cuda) == 0 && cuda > 0)
                reply_add(r, "cuda_driver_version %d\n", cuda);

        unsigned n = 0;
        e = CALL(fn_uint, a->count)(&n);
        if (e != 0)
                return nvml_fail(r, out_fd, a, "nvmlDeviceGetCount_v2", e);
        if (n > XPU_NVML_DEVICES_MAX)
                n = XPU_NVML_DEVICES_MAX;
        reply_add(r, "device_count %u\n", n);

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
                        sanitize(s, sizeof(s));
                        reply_add(r, "device.%u.%s %s\n", i, strings[k].what, s);
                }
                read_device_extras(r, a, i, d);
        }
        reply_add(r, "end\n");
        if (r->overflow)
                return reply_fail(r, out_fd, -EMSGSIZE, "NVML helper reply too long");
        return write_all(out_fd, r->buf, r->len) < 0 ? 1 : 0;
}

static int nvml_helper(void *arg, int out_fd) {
        const struct nvml_job *job = arg;
        static struct reply r;
        static const char *const sonames[] = { "libnvidia-ml.so.1", NULL };
        char err[512], loaded[PATH_MAX];
        struct stat st;
        void *handle = NULL;

        _cleanup_close_ int root = xpu_open_root(job->root);
        if (root < 0)
                return reply_fail(&r, out_fd, root, "cannot reopen the driver root %s: %s", job->root,
                                  strerror(-root));
        if (fstat(root, &st) < 0 || st.st_dev != job->root_dev || st.st_ino != job->root_ino)
                return reply_fail(&r, out_fd, -ESTALE, "driver root %s changed under the NVML helper", job->root);

        /* With a driver version, the library's file name is checked before it is loaded at all. */
        int e = job->driver_version[0]
                        ? xpu_dl_open_version(root, sonames, job->driver_version, loaded, sizeof(loaded), &handle, err,
                                              sizeof(err))
                        : xpu_dl_open(root, sonames, loaded, sizeof(loaded), &handle, err, sizeof(err));
        if (e < 0)
                return reply_fail(&r, out_fd, e, "%s", err);

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
                return reply_fail(&r, out_fd, e, "%s", err);

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

enum field_kind { F_STR, F_U32, F_U64, F_BUS, F_CC };

/* Per-device keys of the wire format. */
static const struct {
        const char *key;
        enum field_kind kind;
        size_t offset, size;
        uint32_t have;
} device_fields[] = {
#define FIELD(k, kind, m, have) { k, kind, offsetof(struct xpu_nvml_device, m), sizeof(((struct xpu_nvml_device *)0)->m), have }
        FIELD("uuid", F_STR, uuid, 0),
        FIELD("name", F_STR, name, 0),
        FIELD("minor", F_U32, minor, XPU_NVML_HAVE_MINOR),
        FIELD("bus_id", F_BUS, pci_bus_id, XPU_NVML_HAVE_PCI),
        FIELD("memory_total", F_U64, memory_total_bytes, XPU_NVML_HAVE_MEMORY_TOTAL),
        FIELD("cc", F_CC, compute_capability, XPU_NVML_HAVE_COMPUTE_CAPABILITY),
        FIELD("brand", F_STR, brand, XPU_NVML_HAVE_BRAND),
#undef FIELD
};

/* "7.5": 1-2 digits, a dot, 1-2 digits. */
static bool cc_valid(const char *s) {
        size_t a = strspn(s, "0123456789");
        if (a < 1 || a > 2 || s[a] != '.')
                return false;
        size_t b = strspn(s + a + 1, "0123456789");
        return b >= 1 && b <= 2 && s[a + 1 + b] == '\0';
}

static int set_field(struct xpu_nvml_device *d, size_t f, const char *value) {
        void *p = (char *)d + device_fields[f].offset;
        uint64_t v = 0;
        switch (device_fields[f].kind) {
        case F_STR:
                if (xpu_strlcpy(p, value, device_fields[f].size) < 0)
                        return -EINVAL;
                break;
        case F_CC:
                if (!cc_valid(value) || xpu_strlcpy(p, value, device_fields[f].size) < 0)
                        return -EINVAL;
                break;
        case F_BUS:
                if (xpu_pci_bus_id_normalize(value, p) < 0)
                        return -EINVAL;
                break;
        case F_U32:
                if (xpu_parse_u64(value, 10, &v) < 0 || v > UINT32_MAX)
                        return -EINVAL;
                *(uint32_t *)p = (uint32_t)v;
                break;
        case F_U64:
                if (xpu_parse_u64(value, 10, &v) < 0)
                        return -EINVAL;
                memcpy(p, &v, sizeof(v));
                break;
        default:
                return -EINVAL;
        }
        d->have |= device_fields[f].have;
        return 0;
}

/* One "device.N.KEY VALUE" line into R (device_count already seen). */
static int parse_device_line(struct xpu_nvml_result *r, size_t count, const char *key, const char *value) {
        char *end = NULL;
        if (!xpu_startswith(key, "device.") || key[7] < '0' || key[7] > '9')
                return -EINVAL;
        errno = 0;
        unsigned long i = strtoul(key + 7, &end, 10);
        if (errno || *end != '.' || i >= count || (end - (key + 7) > 1 && key[7] == '0'))
                return -EINVAL;
        for (size_t f = 0; f < ELEMENTSOF(device_fields); f++)
                if (strcmp(end + 1, device_fields[f].key) == 0)
                        return set_field(&r->devices[i], f, value);
        return -EINVAL;
}

/* The "error ERRNO TEXT" line of a helper that failed. */
static int parse_error_line(const char *value, char *err, size_t err_size) {
        char *end = NULL;
        errno = 0;
        long e = strtol(value, &end, 10);
        if (errno || end == value || *end != ' ' || e >= 0 || e < -4095 || !end[1])
                return -EBADMSG;
        snprintf(err, err_size, "%s", end + 1);
        return (int)e;
}

int xpu_nvml_parse_reply(const char *text, struct xpu_nvml_result **ret, char *err, size_t err_size) {
        _cleanup_free_ struct xpu_nvml_result *r = NULL;
        size_t count = 0, line_no = 0;
        bool have_count = false, ended = false, have_driver = false;
        const char *p = text;
        char fallback[8];

        if (!err) {
                err = fallback;
                err_size = sizeof(fallback);
        }
        r = calloc(1, sizeof(*r) + XPU_NVML_DEVICES_MAX * sizeof(r->devices[0]));
        if (!r)
                return -ENOMEM;

        while (*p) {
                char line[512];
                const char *nl = strchr(p, '\n');
                size_t len = nl ? (size_t)(nl - p) : strlen(p);
                line_no++;
                if (!nl || ended || len >= sizeof(line))
                        goto garbage;
                memcpy(line, p, len);
                line[len] = '\0';
                p = nl + 1;

                char *sp = strchr(line, ' ');
                const char *value = sp ? sp + 1 : "";
                if (sp)
                        *sp = '\0';
                if (*value && !xpu_str_is_printable(value))
                        goto garbage;
                if (line_no == 1 && strcmp(line, "error") == 0) {
                        int e = parse_error_line(value, err, err_size);
                        if (e == -EBADMSG || *p)
                                goto garbage;
                        return e;
                }
                if (strcmp(line, "end") == 0 && !sp) {
                        ended = true;
                        continue;
                }
                if (!*value)
                        goto garbage;
                if (strcmp(line, "driver_version") == 0 && !have_driver) {
                        if (xpu_strlcpy(r->driver_version, value, sizeof(r->driver_version)) < 0)
                                goto garbage;
                        have_driver = true;
                } else if (strcmp(line, "cuda_driver_version") == 0 && !r->cuda_driver_version[0]) {
                        uint64_t v = 0;
                        if (xpu_parse_u64(value, 10, &v) < 0 || v == 0 || v > 999999)
                                goto garbage;
                        snprintf(r->cuda_driver_version, sizeof(r->cuda_driver_version), "%u.%u",
                                 (unsigned)(v / 1000), (unsigned)(v % 1000 / 10));
                } else if (strcmp(line, "device_count") == 0 && !have_count) {
                        uint64_t v = 0;
                        if (xpu_parse_u64(value, 10, &v) < 0 || v > XPU_NVML_DEVICES_MAX)
                                goto garbage;
                        count = (size_t)v;
                        have_count = true;
                } else if (!have_count || parse_device_line(r, count, line, value) < 0)
                        goto garbage;
        }
        if (!ended || !have_count || !have_driver) {
                line_no++;
                goto garbage;
        }
        for (size_t i = 0; i < count; i++)
                if (!r->devices[i].uuid[0] || !r->devices[i].name[0]) {
                        snprintf(err, err_size, "garbage from the NVML helper: device %zu lacks uuid or name", i);
                        return -EBADMSG;
                }
        r->n = count;
        *ret = TAKE_PTR(r);
        return 0;
garbage:
        snprintf(err, err_size, "garbage from the NVML helper: line %zu", line_no);
        return -EBADMSG;
}

int xpu_nvml_read(int driver_root_fd, const char *driver_version, unsigned timeout_ms,
                  struct xpu_nvml_result **ret, char *err, size_t err_size) {
        static struct nvml_job job;
        char fallback[8], reason[256], proc[64];
        struct stat st;

        if (!err) {
                err = fallback;
                err_size = sizeof(fallback);
        }
        if (driver_root_fd < 0 || !ret) {
                snprintf(err, err_size, "invalid arguments");
                return -EINVAL;
        }
        memset(&job, 0, sizeof(job));
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", driver_root_fd);
        ssize_t n = readlink(proc, job.root, sizeof(job.root) - 1);
        if (n < 0 || fstat(driver_root_fd, &st) < 0) {
                int e = -errno;
                snprintf(err, err_size, "cannot name the driver root: %s", strerror(-e));
                return e;
        }
        if ((size_t)n >= sizeof(job.root) - 1 || job.root[0] != '/') {
                snprintf(err, err_size, "cannot name the driver root");
                return -ENAMETOOLONG;
        }
        job.root_dev = st.st_dev;
        job.root_ino = st.st_ino;
        if (driver_version && xpu_strlcpy(job.driver_version, driver_version, sizeof(job.driver_version)) < 0) {
                snprintf(err, err_size, "driver version too long");
                return -EINVAL;
        }

        struct xpu_isolate_options o = XPU_ISOLATE_OPTIONS_DEFAULT;
        if (timeout_ms)
                o.timeout_ms = timeout_ms;
        o.max_reply_bytes = sizeof(((struct reply *)0)->buf);
        _cleanup_free_ void *reply = NULL;
        size_t len = 0;
        int r = xpu_isolate_run(nvml_helper, &job, &o, &reply, &len, reason, sizeof(reason));
        if (r < 0) {
                snprintf(err, err_size, "NVML helper %s", reason);
                return r;
        }
        if (strlen(reply) != len) {
                snprintf(err, err_size, "garbage from the NVML helper: NUL byte");
                return -EBADMSG;
        }
        return xpu_nvml_parse_reply(reply, ret, err, err_size);
}

/* ---- merging into the fast-path inventory ---- */

int xpu_nvml_merge(struct xpu_inventory *inv, const struct xpu_nvml_result *r) {
        int matched = 0;
        if (r->cuda_driver_version[0])
                xpu_strlcpy(inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version, r->cuda_driver_version,
                            sizeof(inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version));
        for (size_t k = 0; k < r->n; k++) {
                const struct xpu_nvml_device *nd = &r->devices[k];
                struct xpu_device *dev = NULL;
                for (size_t i = 0; (nd->have & XPU_NVML_HAVE_PCI) && i < inv->n_devices && !dev; i++)
                        if (inv->devices[i].vendor == XPU_VENDOR_NVIDIA &&
                            strcmp(inv->devices[i].pci_bus_id, nd->pci_bus_id) == 0)
                                dev = &inv->devices[i];
                if (!dev) {
                        if (xpu_inventory_warn(inv, "NVML: %s at %s is not in the procfs inventory; ignored",
                                               nd->uuid, nd->have & XPU_NVML_HAVE_PCI ? nd->pci_bus_id : "an unknown bus id") < 0)
                                return -ENOMEM;
                        continue;
                }
                matched++;
                if (!(dev->have & XPU_HAVE_MEMORY_TOTAL) && (nd->have & XPU_NVML_HAVE_MEMORY_TOTAL)) {
                        dev->memory_total_bytes = nd->memory_total_bytes;
                        dev->have |= XPU_HAVE_MEMORY_TOTAL;
                }
                if (!dev->compute_capability[0] && (nd->have & XPU_NVML_HAVE_COMPUTE_CAPABILITY))
                        xpu_strlcpy(dev->compute_capability, nd->compute_capability, sizeof(dev->compute_capability));
                if (!dev->name[0])
                        xpu_strlcpy(dev->name, nd->name, sizeof(dev->name));
                if (!dev->uuid[0])
                        xpu_strlcpy(dev->uuid, nd->uuid, sizeof(dev->uuid));
        }
        return matched;
}
