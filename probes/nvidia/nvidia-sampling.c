/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA's live readings for xpud (xpu_readings_ops of vendor.h, backend "nvml"): one NVML
 * session kept between samples (xpu_nvml_session_read(), the isolated helper), its result merged
 * into the sample's inventory by PCI bus id (names, memory, compute capability ...) and mapped to
 * readings (xpu_nvml_device_readings_checked()). */
#include "nvidia/nvidia-nvml.h"
#include "nvidia/nvidia-nvml-parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "readings.h"
#include "vendor.h"

struct nvml_state {
        struct xpu_nvml_session *session;
        char bus[XPU_NVML_DEVICES_MAX][XPU_PCI_BUS_ID_MAX]; /* bus id per NVML index, last seen */
        size_t total;                                       /* NVML's device count then */
};

static int nvml_open(void **ret) {
        struct nvml_state *st = calloc(1, sizeof *st);
        if (!st)
                return -ENOMEM;
        int r = xpu_nvml_session_new(&st->session);
        if (r < 0) {
                free(st);
                return r;
        }
        *ret = st;
        return 0;
}

/* A GPU that fell off the bus may answer nothing, not even its PCI bus id, so the result cannot
 * name it. NVML numbers its devices once per nvmlInit, in PCI bus order, so such a
 * device is named by what its index had before: the bus id that NVML index gave in an earlier
 * read while NVML listed as many devices as now (remembered across sessions), else the bus id of
 * the fast path's NVIDIA device at that position when both list the same number of devices. Only
 * lost devices are named this way; every other fact is matched by the bus id NVML gives. */
static void name_lost(struct nvml_state *st, struct xpu_nvml_result *res, const struct xpu_inventory *inv) {
        if (res->total != st->total) {
                memset(st->bus, 0, sizeof st->bus);
                st->total = res->total;
        }
        size_t fast = xpu_inventory_count(inv, XPU_VENDOR_NVIDIA);
        for (size_t k = 0; k < res->n && k < ELEMENTSOF(st->bus); k++) {
                struct xpu_nvml_device *nd = &res->devices[k];
                if (nd->pci_bus_id[0]) {
                        snprintf(st->bus[k], sizeof st->bus[k], "%s", nd->pci_bus_id);
                        continue;
                }
                if (!nd->lost)
                        continue;
                if (st->bus[k][0]) {
                        snprintf(nd->pci_bus_id, sizeof nd->pci_bus_id, "%s", st->bus[k]);
                        continue;
                }
                for (size_t i = 0; fast == res->total && i < inv->n_devices; i++)
                        if (inv->devices[i].vendor == XPU_VENDOR_NVIDIA && inv->devices[i].vendor_index == k)
                                snprintf(nd->pci_bus_id, sizeof nd->pci_bus_id, "%s", inv->devices[i].pci_bus_id);
        }
}

static int nvml_collect(void *state, const struct xpu_roots *roots, unsigned timeout_ms, struct xpu_inventory *inv,
                        struct xpu_readings *r, bool *fresh, char *err, size_t err_size) {
        struct nvml_state *st = state;
        struct xpu_nvml_result *res = NULL;
        if (inv->platform == XPU_PLATFORM_TEGRA) {
                /* L4T's nvgpu has no /proc/driver/nvidia/version to check a libnvidia-ml against, and
                 * xpud reads no NVML on a Jetson: said once, as what it is, not as a library to wait for. */
                snprintf(err, err_size, "not sampled: NVML is not read on a Jetson (the Tegra iGPU has no NVML "
                         "sampling in xpud)");
                return -EOPNOTSUPP;
        }
        struct xpu_nvidia_lib lib;
        xpu_nvidia_lib_of(inv, &lib);
        int ret = xpu_nvml_session_read_lib(st->session, roots->driver_fd, &lib, timeout_ms, &res, err, err_size);
        if (ret < 0)
                return ret == -ENOMEM ? -EIO : ret; /* a failed read is the backend's error, never fatal */
        name_lost(st, res, inv);
        /* Identity facts (names, memory, compute capability, UUIDs) into this sample's inventory. */
        ret = xpu_nvml_merge(inv, res);
        if (ret < 0) {
                xpu_nvml_result_free(res);
                return ret;
        }
        for (size_t i = 0; i < inv->n_devices; i++) {
                const struct xpu_device *d = &inv->devices[i];
                if (d->vendor != XPU_VENDOR_NVIDIA || (!d->pci_bus_id[0] && !d->uuid[0]))
                        continue;
                /* by bus id; a GPU on WSL2 that NVML gave none is known by its UUID */
                for (size_t k = 0; k < res->n; k++)
                        if (d->pci_bus_id[0] ? strcmp(res->devices[k].pci_bus_id, d->pci_bus_id) == 0
                                             : strcmp(res->devices[k].uuid, d->uuid) == 0) {
                                (void)xpu_nvml_device_readings_checked(&res->devices[k], inv, &r[i]);
                                fresh[i] = true;
                                break;
                        }
        }
        xpu_nvml_result_free(res);
        return 0;
}

static void nvml_stop(void *state) {
        struct nvml_state *st = state;
        if (st)
                xpu_nvml_session_stop(st->session);
}

static void nvml_close(void *state) {
        struct nvml_state *st = state;
        if (!st)
                return;
        xpu_nvml_session_free(st->session);
        free(st);
}

const struct xpu_readings_ops xpu_readings_nvml = {
        .name = "nvml",
        .open = nvml_open,
        .collect = nvml_collect,
        .stop = nvml_stop,
        .close = nvml_close,
};
