/* SPDX-License-Identifier: Apache-2.0 */
#include "probe.h"
#include "base/escape.h"
#include "base/str.h"
#include "base/path.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static const char *const source_names[_XPU_SOURCE_MAX] = {
        [XPU_SOURCE_PROCFS] = "procfs",
        [XPU_SOURCE_SYSFS] = "sysfs",
        [XPU_SOURCE_NVML] = "nvml",
        [XPU_SOURCE_ROCM_SMI] = "rocm_smi",
        [XPU_SOURCE_CUDA] = "cuda",
};

static const char *const field_names[_XPU_FIELD_MAX] = {
        [XPU_FIELD_NAME] = "name",
        [XPU_FIELD_UUID] = "uuid",
        [XPU_FIELD_MEMORY_TOTAL] = "memory_total_bytes",
        [XPU_FIELD_MEMORY_USED] = "memory_used_bytes",
        [XPU_FIELD_COMPUTE_CAPABILITY] = "compute_capability",
        [XPU_FIELD_BRAND] = "brand",
        [XPU_FIELD_MIG] = "mig",
        [XPU_FIELD_UNIQUE_ID] = "unique_id",
        [XPU_FIELD_PCI_IDS] = "pci_device_id",
};

static const char *const platform_names[_XPU_PLATFORM_MAX] = {
        [XPU_PLATFORM_LINUX] = "linux",
        [XPU_PLATFORM_WSL] = "wsl",
        [XPU_PLATFORM_TEGRA] = "tegra",
};

const char *xpu_platform_name(enum xpu_platform p) {
        return (unsigned)p < _XPU_PLATFORM_MAX ? platform_names[p] : NULL;
}

const char *xpu_source_to_string(enum xpu_source s) {
        return (unsigned)s < _XPU_SOURCE_MAX ? source_names[s] : NULL;
}

int xpu_source_from_string(const char *s) {
        for (int i = 0; s && i < _XPU_SOURCE_MAX; i++)
                if (strcmp(s, source_names[i]) == 0)
                        return i;
        return -EINVAL;
}

const char *xpu_field_to_string(enum xpu_field f) {
        return (unsigned)f < _XPU_FIELD_MAX ? field_names[f] : NULL;
}

struct xpu_device *xpu_inventory_find_bus_id(struct xpu_inventory *inv, enum xpu_vendor vendor, const char *bus_id) {
        for (size_t i = 0; bus_id && *bus_id && i < inv->n_devices; i++)
                if (inv->devices[i].vendor == vendor && xpu_pci_bus_id_equal(inv->devices[i].pci_bus_id, bus_id))
                        return &inv->devices[i];
        return NULL;
}

void xpu_device_mark(struct xpu_device *dev, enum xpu_field f, enum xpu_source source) {
        if ((unsigned)f < _XPU_FIELD_MAX && (unsigned)source < _XPU_SOURCE_MAX)
                dev->field_source[f] = (uint8_t)(source + 1);
}

enum xpu_source xpu_device_field_source(const struct xpu_device *dev, enum xpu_field f) {
        if ((unsigned)f >= _XPU_FIELD_MAX || dev->field_source[f] == 0)
                return dev->source;
        return (enum xpu_source)(dev->field_source[f] - 1);
}

static int warn_disagree(struct xpu_inventory *inv, const struct xpu_device *dev, enum xpu_field f,
                         enum xpu_source source, const char *theirs, const char *ours) {
        const char *own = xpu_source_to_string(xpu_device_field_source(dev, f));
        return xpu_inventory_warn(inv, "%s: %s reports %s \"%s\" but %s has \"%s\"; keeping %s's",
                                  dev->pci_bus_id, xpu_source_to_string(source), xpu_field_to_string(f), theirs,
                                  own, ours, own);
}

const struct xpu_device *xpu_inventory_uuid_owner(const struct xpu_inventory *inv, const struct xpu_device *dev,
                                                  const char *uuid) {
        for (size_t i = 0; uuid && *uuid && i < inv->n_devices; i++) {
                const struct xpu_device *o = &inv->devices[i];
                if (o == dev || (o->vendor == dev->vendor && xpu_pci_bus_id_equal(o->pci_bus_id, dev->pci_bus_id)))
                        continue;
                if (strcasecmp(o->uuid, uuid) == 0)
                        return o;
        }
        return NULL;
}

int xpu_device_merge_string(struct xpu_inventory *inv, struct xpu_device *dev, enum xpu_field f, char *dst,
                            size_t size, const char *value, enum xpu_source source) {
        if (!value || !*value || strcmp(dst, value) == 0)
                return 0;
        if (*dst)
                return warn_disagree(inv, dev, f, source, value, dst) < 0 ? -ENOMEM : 0;
        const struct xpu_device *owner = f == XPU_FIELD_UUID ? xpu_inventory_uuid_owner(inv, dev, value) : NULL;
        if (owner)
                return xpu_inventory_warn(inv, "%s: %s reports uuid \"%s\", which device %u (%s) already has; not "
                                               "filled, a UUID must name one device",
                                          dev->pci_bus_id, xpu_source_to_string(source), value, owner->index,
                                          owner->pci_bus_id) < 0
                               ? -ENOMEM
                               : 0;
        snprintf(dst, size, "%s", value);
        xpu_device_mark(dev, f, source);
        return 1;
}

int xpu_device_merge_u64(struct xpu_inventory *inv, struct xpu_device *dev, enum xpu_field f, uint64_t *dst,
                         uint32_t have_bit, uint64_t value, enum xpu_source source) {
        if (!(dev->have & have_bit)) {
                *dst = value;
                dev->have |= have_bit;
                xpu_device_mark(dev, f, source);
                return 1;
        }
        if (*dst == value)
                return 0;
        char theirs[24], ours[24];
        snprintf(theirs, sizeof theirs, "%" PRIu64, value);
        snprintf(ours, sizeof ours, "%" PRIu64, *dst);
        return warn_disagree(inv, dev, f, source, theirs, ours) < 0 ? -ENOMEM : 0;
}

int xpu_merge_bus_id_repeated(struct xpu_inventory *inv, enum xpu_source source, const void *devices, size_t stride,
                              size_t bus_offset, size_t k) {
        const char *base = devices, *bus = base + k * stride + bus_offset;
        if (!*bus)
                return 0;
        for (size_t j = 0; j < k; j++)
                if (xpu_pci_bus_id_equal(base + j * stride + bus_offset, bus))
                        return xpu_inventory_warn(inv, "%s: devices %zu and %zu both report %s; ignoring device %zu",
                                                  xpu_source_to_string(source), j, k, bus, k) < 0
                                       ? -ENOMEM
                                       : 1;
        return 0;
}

int xpu_merge_warn_truncated(struct xpu_inventory *inv, enum xpu_source source, size_t total, size_t read) {
        if (total <= read)
                return 0;
        return xpu_inventory_warn(inv, "%s: %zu devices, only the first %zu read", xpu_source_to_string(source), total,
                                  read) < 0
                       ? -ENOMEM
                       : 1;
}

int xpu_vendor_merge_cuda_version(struct xpu_inventory *inv, enum xpu_vendor vendor, const char *version,
                                  enum xpu_source source) {
        struct xpu_vendor_info *vi = &inv->vendors[vendor];
        if (!version || !*version || strcmp(vi->cuda_driver_version, version) == 0)
                return 0;
        if (vi->cuda_driver_version[0]) {
                const char *own = xpu_source_to_string(vi->cuda_driver_version_source);
                return xpu_inventory_warn(inv, "%s reports CUDA driver version %s but %s has %s; keeping %s's",
                                          xpu_source_to_string(source), version, own, vi->cuda_driver_version, own) < 0
                               ? -ENOMEM
                               : 0;
        }
        snprintf(vi->cuda_driver_version, sizeof(vi->cuda_driver_version), "%s", version);
        vi->cuda_driver_version_source = source;
        return 1;
}

int xpu_roots_open(struct xpu_roots *r, const char *sys, const char *dev, const char *driver,
                   const char **ret_which) {
        const char *dirs[3] = { sys ? sys : "/", dev ? dev : "/", driver ? driver : "/" };
        const char *names[3] = { "sys", "dev", "driver" };
        char *paths[3] = { r->sys, r->dev, r->driver };
        int *fds[3] = { &r->sys_fd, &r->dev_fd, &r->driver_fd };

        r->sys_fd = r->dev_fd = r->driver_fd = -EBADF;
        for (size_t i = 0; i < 3; i++) {
                int fd = xpu_open_root(dirs[i]);
                if (fd < 0 || xpu_strlcpy(paths[i], dirs[i], PATH_MAX) < 0) {
                        if (fd >= 0)
                                close(fd);
                        if (ret_which)
                                *ret_which = names[i];
                        xpu_roots_close(r);
                        return fd < 0 ? fd : -ENAMETOOLONG;
                }
                *fds[i] = fd;
        }
        return 0;
}

void xpu_roots_close(struct xpu_roots *r) {
        int *fds[3] = { &r->sys_fd, &r->dev_fd, &r->driver_fd };
        for (size_t i = 0; i < 3; i++) {
                if (*fds[i] >= 0)
                        close(*fds[i]);
                *fds[i] = -EBADF;
        }
}

struct xpu_inventory *xpu_inventory_new(void) {
        return calloc(1, sizeof(struct xpu_inventory));
}

struct xpu_inventory *xpu_inventory_free(struct xpu_inventory *inv) {
        if (!inv)
                return NULL;
        for (size_t i = 0; i < inv->n_warnings; i++)
                free(inv->warnings[i]);
        free(inv->warnings);
        free(inv->devices);
        free(inv);
        return NULL;
}

struct xpu_device *xpu_inventory_add_device(struct xpu_inventory *inv, const struct xpu_device *dev) {
        struct xpu_device *n = reallocarray(inv->devices, inv->n_devices + 1, sizeof *n);
        if (!n)
                return NULL;
        inv->devices = n;
        n[inv->n_devices] = *dev;
        return &n[inv->n_devices++];
}

int xpu_inventory_warn(struct xpu_inventory *inv, const char *fmt, ...) {
        char **n = reallocarray(inv->warnings, inv->n_warnings + 1, sizeof *n);
        if (!n)
                return -ENOMEM;
        inv->warnings = n;
        va_list ap;
        va_start(ap, fmt);
        char *raw = NULL;
        int r = vasprintf(&raw, fmt, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        /* Warnings quote bytes read from files: escape anything not printable UTF-8, so a
         * hostile sysfs tree cannot put escape sequences on a terminal or invalid UTF-8 into
         * JSON. */
        size_t size = strlen(raw) * 4 + 1;
        char *out = malloc(size);
        if (!out) {
                free(raw);
                return -ENOMEM;
        }
        xpu_escape_text(raw, out, size);
        free(raw);
        n[inv->n_warnings] = out;
        inv->n_warnings++;
        return 0;
}

size_t xpu_inventory_count(const struct xpu_inventory *inv, enum xpu_vendor vendor) {
        size_t n = 0;
        for (size_t i = 0; i < inv->n_devices; i++)
                n += inv->devices[i].vendor == vendor;
        return n;
}

int xpu_devnode_add(const struct xpu_roots *roots, struct xpu_devnode *nodes, size_t *n, size_t max,
                    const char *path, uint32_t major, uint32_t minor, bool have_major, bool optional) {
        if (*n >= max)
                return -E2BIG;
        struct xpu_devnode *d = &nodes[*n];
        memset(d, 0, sizeof *d);
        if (xpu_strlcpy(d->path, path, sizeof d->path) < 0)
                return -ENAMETOOLONG;
        d->major = major;
        d->minor = minor;
        d->have_major = have_major;
        d->optional = optional;
        struct stat st;
        /* An unknown major stays unknown: taking it from the very node that is to be checked
         * would let any character device with the right minor pass. */
        if (roots && xpu_stat_in_root(roots->dev_fd, path, true, &st) == 0 && S_ISCHR(st.st_mode))
                d->present = true;
        (*n)++;
        return 0;
}

bool xpu_device_named_bus_id(const struct xpu_device *dev, char out[XPU_PCI_BUS_ID_MAX]) {
        struct xpu_pci_bus_id id;
        out[0] = '\0';
        if (!dev->pci_bus_id[0] || xpu_pci_bus_id_parse(dev->pci_bus_id, &id) < 0)
                return false;
        if (dev->have & XPU_HAVE_PARTITION)
                id.function = (uint8_t)dev->partition;
        xpu_pci_bus_id_format(&id, out);
        return true;
}

bool xpu_device_available(const struct xpu_device *dev) {
        if (dev->n_nodes == 0)
                return false; /* no node to open: nothing the runtime could have given */
        for (size_t i = 0; i < dev->n_nodes; i++)
                if (!dev->nodes[i].optional && !dev->nodes[i].present)
                        return false;
        return true;
}

size_t xpu_mig_count(const struct xpu_device *d) {
        size_t n;
        xpu_mig_devices(d, &n);
        return n;
}

const struct xpu_mig_device *xpu_device_find_mig(const struct xpu_device *dev, uint32_t gi, uint32_t ci) {
        size_t n;
        const struct xpu_mig_device *mig = xpu_mig_devices(dev, &n);
        for (size_t m = 0; m < n; m++)
                if (mig[m].gi == gi && mig[m].ci == ci)
                        return &mig[m];
        return NULL;
}

bool xpu_mig_available(const struct xpu_device *dev, size_t m) {
        size_t n;
        const struct xpu_mig_device *mig = xpu_mig_devices(dev, &n);
        if (m >= n || !xpu_device_available(dev))
                return false;
        const struct xpu_mig_device *g = &mig[m];
        return (g->have & XPU_MIG_HAVE_CAPS) && g->gi_cap.present && g->ci_cap.present;
}
