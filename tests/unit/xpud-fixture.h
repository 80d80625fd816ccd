/* SPDX-License-Identifier: Apache-2.0 */
/* A hand-built xpud snapshot for the model and renderer tests: 2 NVIDIA + 2 AMD devices on a
 * node where
 *   gpu 0  NVIDIA H100, healthy, every reading known (250 W, 41 °C, ...)
 *   gpu 1  NVIDIA H100, thermal + power throttling (degraded)
 *   gpu 2  AMD MI210, fell off the bus (unhealthy)
 *   gpu 3  AMD MI210 whose backend (amdgpu_sysfs) is down: last good sample, stale (degraded)
 * Health is evaluated by xpud_health_evaluate() as the sampler would. */
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health.h"
#include "amd/amd-facts.h"
#include "nvidia/nvidia-facts.h"
#include "snapshot.h"

#define FX_UUID0 "GPU-307dcc96-618a-4416-c1ef-87823c2e1a31"
#define FX_UUID1 "GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe"
#define FX_UUID2 "GPU-1e2d3c4b5a697887"
#define FX_UUID3 "GPU-8f7e6d5c4b3a2918"
#define FX_TIME 1700000000.5
#define FX_STALE_TIME 1699999990.25

/* Not ck_assert: the fixture also runs outside a test (the --dump mode of test-xpud-render-prom). */
#define FX_REQUIRE(x)                                                                                      \
        do {                                                                                               \
                if (!(x)) {                                                                                \
                        fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x);                     \
                        abort();                                                                           \
                }                                                                                          \
        } while (0)

static inline void fx_device(struct xpud_device *d, unsigned index, enum xpu_vendor vendor, const char *uuid,
                             const char *bus, const char *name) {
        memset(d, 0, sizeof *d);
        d->dev.index = index;
        d->dev.vendor = vendor;
        d->dev.vendor_index = index % 2;
        snprintf(d->dev.uuid, sizeof d->dev.uuid, "%s", uuid);
        snprintf(d->dev.pci_bus_id, sizeof d->dev.pci_bus_id, "%s", bus);
        snprintf(d->dev.name, sizeof d->dev.name, "%s", name);
        d->dev.numa_node = -1;
        d->up = true;
        d->sample_time = FX_TIME;
}

/* Every reading an H100 reports through NVML. */
static inline void fx_nvidia_readings(struct xpu_readings *r) {
        r->have = XPU_READ_UTILIZATION | XPU_READ_MEMORY_UTILIZATION | XPU_READ_MEMORY_USED | XPU_READ_MEMORY_TOTAL |
                  XPU_READ_POWER | XPU_READ_POWER_LIMIT | XPU_READ_ENERGY | XPU_READ_ECC | XPU_READ_THROTTLE;
        r->utilization_ratio = 0.87;
        r->memory_bandwidth_utilization_ratio = 0.25;
        r->memory_used_bytes = 42949672960ull;
        r->memory_total_bytes = 85520809984ull;
        r->have_temperature = 1u << XPU_TEMP_GPU;
        r->temperature_celsius[XPU_TEMP_GPU] = 41;
        r->power_watts = 250;
        r->power_limit_watts = 700;
        r->energy_joules = 123456.789;
        r->have_clock = 1u << XPU_CLOCK_GRAPHICS | 1u << XPU_CLOCK_MEMORY;
        r->clock_hertz[XPU_CLOCK_GRAPHICS] = 1980000000ull;
        r->clock_hertz[XPU_CLOCK_MEMORY] = 2619000000ull;
        r->ecc_corrected = 2;
        r->ecc_uncorrected = 0;
        r->have |= XPU_READ_PCIE_WIDTH | XPU_READ_PCIE_SPEED; /* PCI sysfs, x16 Gen5, idle at 2.5 GT/s */
        r->pcie_link_width[XPU_LINK_CURRENT] = 16;
        r->pcie_link_width[XPU_LINK_MAX] = 16;
        r->pcie_link_speed[XPU_LINK_CURRENT] = 2500000000ull;
        r->pcie_link_speed[XPU_LINK_MAX] = 32000000000ull;
}

/* amdgpu sysfs/hwmon readings: no ECC, no throttle reasons, no power limit here. */
static inline void fx_amd_readings(struct xpu_readings *r) {
        r->have = XPU_READ_UTILIZATION | XPU_READ_MEMORY_USED | XPU_READ_MEMORY_TOTAL | XPU_READ_POWER;
        r->utilization_ratio = 0.5;
        r->memory_used_bytes = 1073741824ull;
        r->memory_total_bytes = 68702699520ull;
        r->have_temperature = 1u << XPU_TEMP_EDGE | 1u << XPU_TEMP_JUNCTION | 1u << XPU_TEMP_MEMORY;
        r->temperature_celsius[XPU_TEMP_EDGE] = 41;
        r->temperature_celsius[XPU_TEMP_JUNCTION] = 45.5;
        r->temperature_celsius[XPU_TEMP_MEMORY] = 50;
        r->power_watts = 300.125;
        r->have_clock = 1u << XPU_CLOCK_GRAPHICS | 1u << XPU_CLOCK_SOC;
        r->clock_hertz[XPU_CLOCK_GRAPHICS] = 1700000000ull;
        r->clock_hertz[XPU_CLOCK_SOC] = 1090000000ull;
        r->have |= XPU_READ_PCIE_WIDTH | XPU_READ_PCIE_SPEED; /* x16 Gen4 */
        r->pcie_link_width[XPU_LINK_CURRENT] = 16;
        r->pcie_link_width[XPU_LINK_MAX] = 16;
        r->pcie_link_speed[XPU_LINK_CURRENT] = 16000000000ull;
        r->pcie_link_speed[XPU_LINK_MAX] = 16000000000ull;
}

static inline struct xpud_snapshot *fx_snapshot(void) {
        struct xpud_snapshot *s = xpud_snapshot_new();
        FX_REQUIRE(s);
        s->seq = 7;
        s->collect_time = FX_TIME;
        s->collect_seconds = 0.042;
        s->inv = xpu_inventory_new();
        FX_REQUIRE(s->inv);
        struct xpu_vendor_info *nv = &s->inv->vendors[XPU_VENDOR_NVIDIA], *amd = &s->inv->vendors[XPU_VENDOR_AMD];
        nv->driver_loaded = true;
        snprintf(nv->driver_version, sizeof nv->driver_version, "550.54.15");
        snprintf(nv->driver_flavor, sizeof nv->driver_flavor, "open");
        snprintf(nv->cuda_driver_version, sizeof nv->cuda_driver_version, "12.4");
        amd->driver_loaded = true;
        snprintf(amd->driver_version, sizeof amd->driver_version, "6.3.6");

        s->n_devices = 4;
        s->devices = calloc(s->n_devices, sizeof *s->devices);
        FX_REQUIRE(s->devices);
        struct xpud_device *d = s->devices;
        fx_device(&d[0], 0, XPU_VENDOR_NVIDIA, FX_UUID0, "0000:1a:00.0", "NVIDIA H100 80GB HBM3");
        fx_device(&d[1], 1, XPU_VENDOR_NVIDIA, FX_UUID1, "0000:1b:00.0", "NVIDIA H100 80GB HBM3");
        fx_device(&d[2], 2, XPU_VENDOR_AMD, FX_UUID2, "0000:c1:00.0", "AMD Instinct MI210");
        fx_device(&d[3], 3, XPU_VENDOR_AMD, FX_UUID3, "0000:c2:00.0", "AMD Instinct MI210");
        for (int i = 0; i < 2; i++) {
                snprintf(d[i].dev.driver_version, sizeof d[i].dev.driver_version, "550.54.15");
                snprintf(xpu_nvidia_facts(&d[i].dev)->compute_capability, sizeof xpu_nvidia_facts(&d[i].dev)->compute_capability, "9.0");
                d[i].dev.source = XPU_SOURCE_PROCFS;
                fx_nvidia_readings(&d[i].r);
        }
        for (int i = 2; i < 4; i++) {
                snprintf(d[i].dev.driver_version, sizeof d[i].dev.driver_version, "6.3.6");
                snprintf(xpu_amd_facts(&d[i].dev)->gfx_target, sizeof xpu_amd_facts(&d[i].dev)->gfx_target, "gfx90a");
                d[i].dev.source = XPU_SOURCE_SYSFS;
                fx_amd_readings(&d[i].r);
        }
        d[1].r.throttle = 1u << XPU_THROTTLE_THERMAL | 1u << XPU_THROTTLE_POWER;
        d[1].r.temperature_celsius[XPU_TEMP_GPU] = 92;
        d[1].r.power_watts = 700;

        /* gpu 2 fell off the bus: the backend says so; its values are gone. */
        d[2].up = false;
        d[2].r.lost = true;
        snprintf(d[2].r.lost_reason, sizeof d[2].r.lost_reason, "/sys/bus/pci/devices/0000:c1:00.0 is gone");

        /* gpu 3: this sample failed, r is the sample of 10 s before. */
        d[3].up = false;
        d[3].stale = true;
        d[3].sample_time = FX_STALE_TIME;

        s->n_backends = 2;
        s->backends = calloc(s->n_backends, sizeof *s->backends);
        FX_REQUIRE(s->backends);
        snprintf(s->backends[0].name, sizeof s->backends[0].name, "nvml");
        s->backends[0].up = true;
        s->backends[0].collect_seconds = 0.012;
        snprintf(s->backends[1].name, sizeof s->backends[1].name, "amdgpu_sysfs");
        s->backends[1].up = false;
        snprintf(s->backends[1].error, sizeof s->backends[1].error,
                 "/sys/class/drm/card1/device/gpu_busy_percent: Input/output error");
        s->backends[1].collect_seconds = 0.5;
        s->backends[1].errors_total = 3;

        for (size_t i = 0; i < s->n_devices; i++)
                xpud_health_evaluate(&d[i], NULL, &s->backends[d[i].dev.vendor == XPU_VENDOR_NVIDIA ? 0 : 1]);
        return s;
}
