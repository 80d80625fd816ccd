/* SPDX-License-Identifier: Apache-2.0 */
/* Device health evaluation; the rules are listed in health.h and docs/xpud-metrics.md. */
#include "health.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/macro.h"
#include "base/str.h"

static const char *const health_names[_XPUD_HEALTH_MAX] = {
        [XPUD_HEALTH_UNKNOWN] = "unknown",
        [XPUD_HEALTH_HEALTHY] = "healthy",
        [XPUD_HEALTH_DEGRADED] = "degraded",
        [XPUD_HEALTH_UNHEALTHY] = "unhealthy",
};

const char *xpud_health_to_string(enum xpud_health h) {
        return (unsigned)h < ELEMENTSOF(health_names) ? health_names[h] : NULL;
}

int xpud_health_rank(enum xpud_health h) {
        switch (h) {
        case XPUD_HEALTH_HEALTHY:
                return 0;
        case XPUD_HEALTH_UNKNOWN:
                return 1;
        case XPUD_HEALTH_DEGRADED:
                return 2;
        case XPUD_HEALTH_UNHEALTHY:
                return 3;
        default:
                return 1; /* out of range: as unknown */
        }
}

enum xpud_health xpud_health_overall(const struct xpud_snapshot *s) {
        enum xpud_health worst = XPUD_HEALTH_HEALTHY;
        for (size_t i = 0; s && i < s->n_devices; i++)
                if (xpud_health_rank(s->devices[i].health) > xpud_health_rank(worst))
                        worst = s->devices[i].health;
        return worst;
}

/* Suggested actions, one per kind of reason (the action of the worst reason is shown). */
enum reason_kind {
        R_LOST = 0,
        R_ECC_UNCORRECTED,
        R_UNSAMPLED,
        R_UNAVAILABLE,
        R_NOT_SAMPLED,
        R_STALE,
        R_STALE_UNAVAILABLE,
        R_THERMAL,
        R_HW_SLOWDOWN,
        R_POWER,
        R_ECC_STORM,
        R_PCIE_WIDTH,
        R_REMAP_FAILED,
        R_REMAP_PENDING,
        R_RETIRE_PENDING,
        R_ERROR_STATE,
        R_TEMP_SHUTDOWN,
        R_TEMP_SLOWDOWN,
        _R_MAX,
};

/* The backend's vendor library was not found (probes/base/dl.c: "not available: SONAME not found
 * in ROOT: ..."): the driver root is wrong, or the vendor's driver is loaded without its
 * user-space libraries on this host. */
#define ACTION_UNAVAILABLE                                                                                   \
        "the vendor library was not found: point --driver-root at the host's driver files, "                \
        "or ignore on hosts without this vendor"

static const struct {
        enum xpud_health state;
        const char *action;
} reason_table[_R_MAX] = {
        [R_LOST] = { XPUD_HEALTH_UNHEALTHY, "reseat or power-cycle the GPU; check `dmesg` for Xid/RAS errors" },
        [R_ECC_UNCORRECTED] = { XPUD_HEALTH_UNHEALTHY,
                                "drain this GPU's workloads and reset it; replace it if uncorrected errors return; "
                                "check `dmesg` for Xid/RAS errors" },
        [R_UNSAMPLED] = { XPUD_HEALTH_UNKNOWN,
                          "wait for the first sample; if it persists, see the backend's error in /v1/health" },
        [R_UNAVAILABLE] = { XPUD_HEALTH_UNKNOWN, ACTION_UNAVAILABLE },
        [R_NOT_SAMPLED] = { XPUD_HEALTH_UNKNOWN,
                            "none: xpud does not sample this GPU on this platform (the reason says why), so its "
                            "health stays unknown; watch it with the platform's own tools" },
        [R_STALE_UNAVAILABLE] = { XPUD_HEALTH_DEGRADED, ACTION_UNAVAILABLE },
        [R_STALE] = { XPUD_HEALTH_DEGRADED,
                      "values are the last good sample; see the backend's error in /v1/health and the xpud log" },
        [R_THERMAL] = { XPUD_HEALTH_DEGRADED, "check cooling: fans, airflow, inlet temperature, heatsink contact" },
        [R_HW_SLOWDOWN] = { XPUD_HEALTH_DEGRADED,
                            "check cooling and the power supply (hardware slowdown: thermal or power brake)" },
        [R_POWER] = { XPUD_HEALTH_DEGRADED,
                      "the GPU runs at its power limit; check xpu_power_limit_watts and the power supply" },
        [R_ECC_STORM] = { XPUD_HEALTH_DEGRADED,
                          "watch the corrected ECC rate; plan a reset or replacement if it keeps growing" },
        [R_REMAP_FAILED] = { XPUD_HEALTH_UNHEALTHY,
                             "drain this GPU's workloads and replace it: it has no spare memory rows left" },
        [R_REMAP_PENDING] = { XPUD_HEALTH_DEGRADED,
                              "drain this GPU's workloads and reset it (nvidia-smi -r) so the remapping takes effect" },
        [R_RETIRE_PENDING] = { XPUD_HEALTH_DEGRADED,
                               "drain this GPU's workloads and reload the driver (or reboot) so the retirement takes effect" },
        [R_ERROR_STATE] = { XPUD_HEALTH_DEGRADED,
                             "the GPU hung and the driver reset it: read the error state (root) for the cause, then "
                             "clear it by writing to the file" },
        [R_TEMP_SHUTDOWN] = { XPUD_HEALTH_UNHEALTHY,
                              "drain this GPU's workloads and fix its cooling now: at its shutdown limit the GPU "
                              "turns itself off; check fans, airflow, inlet temperature, heatsink contact" },
        [R_TEMP_SLOWDOWN] = { XPUD_HEALTH_DEGRADED,
                              "check cooling: fans, airflow, inlet temperature, heatsink contact (the GPU slows "
                              "itself down at this limit)" },
        [R_PCIE_WIDTH] = { XPUD_HEALTH_DEGRADED,
                           "reseat the GPU (and its riser or cable) at the next maintenance; check `lspci -vv` "
                           "LnkSta against LnkCap and the slot's wiring" },
};

/* Add a reason of STATE with ACTION (used when it is the worst so far). */
static void reason_vadd(struct xpud_device *d, enum xpud_health state, const char *action, const char *fmt,
                        va_list ap) _printf_(4, 0);
static void reason_vadd(struct xpud_device *d, enum xpud_health state, const char *action, const char *fmt,
                        va_list ap) {
        if (d->n_reasons == 0 || xpud_health_rank(state) > xpud_health_rank(d->health)) {
                d->health = state;
                snprintf(d->action, sizeof d->action, "%s", action);
        }
        if (d->n_reasons >= XPUD_REASONS_MAX)
                return;
        xpud_text_vcut(d->reasons[d->n_reasons], sizeof d->reasons[0], fmt, ap);
        d->n_reasons++;
}

static void reason_add(struct xpud_device *d, enum reason_kind k, const char *fmt, ...) _printf_(3, 4);
static void reason_add(struct xpud_device *d, enum reason_kind k, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        reason_vadd(d, reason_table[k].state, reason_table[k].action, fmt, ap);
        va_end(ap);
}

static void reason_add_kernel(struct xpud_device *d, const char *fmt, ...) _printf_(2, 3);
static void reason_add_kernel(struct xpud_device *d, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        reason_vadd(d, d->kernel.health, d->kernel.action, fmt, ap);
        va_end(ap);
}

static const char *backend_error(const struct xpud_backend *b) {
        return b && b->error[0] ? b->error : "the last collection failed";
}

/* Did B fail because its vendor library is not there (probes/base/dl.c's "not available: ...
 * not found in ...")? */
static bool backend_unavailable(const struct xpud_backend *b) {
        return b && !b->up && xpu_startswith(b->error, "not available: ") && strstr(b->error, " not found in ");
}

/* Does B not sample this platform's GPUs at all (a vendor's collect that knows its library
 * cannot read them: "not sampled: ...")? Waiting changes nothing. */
static bool backend_not_sampled(const struct xpud_backend *b) {
        return b && !b->up && xpu_startswith(b->error, "not sampled: ");
}

void xpud_health_evaluate(struct xpud_device *d, const struct xpud_device *prev, const struct xpud_backend *backend) {
        const struct xpu_readings *r = &d->r;
        d->health = XPUD_HEALTH_HEALTHY;
        d->n_reasons = 0;
        memset(d->reasons, 0, sizeof d->reasons);
        d->action[0] = '\0';

        if (r->lost) {
                if (r->lost_reason[0])
                        reason_add(d, R_LOST, "fell off the bus: %s", r->lost_reason);
                else
                        reason_add(d, R_LOST, "fell off the bus");
        }

        bool have_sample = d->up || d->stale;
        bool prev_ecc = prev && (prev->up || prev->stale) && !prev->r.lost && (prev->r.have & XPU_READ_ECC);
        if (have_sample && (r->have & XPU_READ_ECC) && r->ecc_uncorrected > 0) {
                if (prev_ecc && r->ecc_uncorrected > prev->r.ecc_uncorrected)
                        reason_add(d, R_ECC_UNCORRECTED, "uncorrected ECC errors: %" PRIu64 " (+%" PRIu64 " since the previous sample)",
                                   r->ecc_uncorrected, r->ecc_uncorrected - prev->r.ecc_uncorrected);
                else
                        reason_add(d, R_ECC_UNCORRECTED, "uncorrected ECC errors: %" PRIu64, r->ecc_uncorrected);
        }

        /* Memory repair the GPU itself reports (NVML): a failed remap is lasting damage, a pending
         * remap or retirement waits for a reset. Fresh or stale: the flags persist until then. */
        if (have_sample && !r->lost && (r->have & XPU_READ_ROW_REMAP)) {
                if (r->remap_failed)
                        reason_add(d, R_REMAP_FAILED, "row remapping failed (%u rows remapped for uncorrectable errors)",
                                   r->remapped_rows[XPU_REPAIR_UNCORRECTABLE]);
                if (r->remap_pending)
                        reason_add(d, R_REMAP_PENDING, "row remapping pending: a reset applies it");
        }
        if (have_sample && !r->lost && (r->have & XPU_READ_RETIRED_PAGES) && r->retired_pending)
                reason_add(d, R_RETIRE_PENDING, "page retirement pending (%u double-bit, %u single-bit pages retired)",
                           r->retired_pages[XPU_REPAIR_UNCORRECTABLE], r->retired_pages[XPU_REPAIR_CORRECTABLE]);
        if (have_sample && !r->lost && (r->have & XPU_READ_ERROR_STATE) && r->error_state)
                reason_add(d, R_ERROR_STATE, "the driver holds a GPU error state (/sys/class/drm/card%u/error)", d->dev.card);

        /* A driver's kernel log event (Xid, amdgpu RAS/reset/ring timeout) the sampler still holds. */
        if (d->kernel.health == XPUD_HEALTH_DEGRADED || d->kernel.health == XPUD_HEALTH_UNHEALTHY)
                reason_add_kernel(d, "%s", d->kernel.reason);

        /* The vendor's own thermal limits (readings.h): at or above shutdown the GPU is about to
         * turn itself off, at or above slowdown it has cut its clocks. Fresh samples only. */
        for (int t = 0; d->up && !d->stale && !r->lost && t < _XPU_TEMP_MAX; t++) {
                if (!(r->have_temperature & (1u << t)))
                        continue;
                const char *sensor = xpu_temp_sensor_to_string((enum xpu_temp_sensor)t);
                double v = r->temperature_celsius[t];
                const double *lim = r->temperature_limit_celsius[t];
                if ((r->have_temperature_limit & XPU_TEMP_LIMIT_BIT(t, XPU_TEMP_LIMIT_SHUTDOWN)) &&
                    v >= lim[XPU_TEMP_LIMIT_SHUTDOWN])
                        reason_add(d, R_TEMP_SHUTDOWN, "%s temperature %g °C at or above its shutdown limit %g °C",
                                   sensor, v, lim[XPU_TEMP_LIMIT_SHUTDOWN]);
                else if ((r->have_temperature_limit & XPU_TEMP_LIMIT_BIT(t, XPU_TEMP_LIMIT_SLOWDOWN)) &&
                         v >= lim[XPU_TEMP_LIMIT_SLOWDOWN])
                        reason_add(d, R_TEMP_SLOWDOWN, "%s temperature %g °C at or above its slowdown limit %g °C",
                                   sensor, v, lim[XPU_TEMP_LIMIT_SLOWDOWN]);
        }

        if (!have_sample && !r->lost) {
                if (backend_unavailable(backend))
                        reason_add(d, R_UNAVAILABLE, "no good sample yet: %s: %s", backend->name, backend->error);
                else if (backend_not_sampled(backend))
                        reason_add(d, R_NOT_SAMPLED, "%s: %s", backend->name, backend->error);
                else if (backend && !backend->up)
                        reason_add(d, R_UNSAMPLED, "no good sample yet: %s: %s", backend->name, backend_error(backend));
                else
                        reason_add(d, R_UNSAMPLED, "not sampled yet");
        }

        if (d->stale && !r->lost) {
                if (backend_unavailable(backend))
                        reason_add(d, R_STALE_UNAVAILABLE, "stale sample: %s: %s", backend->name, backend->error);
                else if (backend)
                        reason_add(d, R_STALE, "stale sample: %s: %s", backend->name, backend_error(backend));
                else
                        reason_add(d, R_STALE, "stale sample: the last collection failed");
        }

        if (d->up && !d->stale && !r->lost && (r->have & XPU_READ_THROTTLE)) {
                if (r->throttle & (1u << XPU_THROTTLE_THERMAL))
                        reason_add(d, R_THERMAL, "thermal throttling");
                if (r->throttle & (1u << XPU_THROTTLE_HW_SLOWDOWN))
                        reason_add(d, R_HW_SLOWDOWN, "hardware slowdown");
                if (r->throttle & (1u << XPU_THROTTLE_POWER))
                        reason_add(d, R_POWER, "power throttling (power cap)");
        }

        if (d->up && !d->stale && !r->lost && (r->have & XPU_READ_ECC) && prev_ecc &&
            r->ecc_corrected > prev->r.ecc_corrected) {
                uint64_t grew = r->ecc_corrected - prev->r.ecc_corrected;
                double dt = d->sample_time - prev->sample_time;
                if (dt > 0 && grew >= XPUD_ECC_CORRECTED_STORM_MIN &&
                    (double)grew * 60.0 / dt >= XPUD_ECC_CORRECTED_STORM_PER_MINUTE)
                        reason_add(d, R_ECC_STORM, "corrected ECC errors growing: +%" PRIu64 " in %.0f s", grew, dt);
        }

        if (d->up && !d->stale && !r->lost && (r->have & XPU_READ_PCIE_WIDTH) &&
            r->pcie_link_width[XPU_LINK_CURRENT] < r->pcie_link_width[XPU_LINK_MAX])
                reason_add(d, R_PCIE_WIDTH, "PCIe link x%u of x%u (trained narrower than it can be)",
                           r->pcie_link_width[XPU_LINK_CURRENT], r->pcie_link_width[XPU_LINK_MAX]);
}

static bool same_partition(const struct xpu_device *a, const struct xpu_device *b) {
        bool ha = a->have & XPU_HAVE_PARTITION, hb = b->have & XPU_HAVE_PARTITION;
        return ha == hb && (!ha || a->partition == b->partition);
}

bool xpud_device_same(const struct xpu_device *a, const struct xpu_device *b) {
        if (a->vendor != b->vendor || !same_partition(a, b))
                return false;
        if (a->uuid[0] && b->uuid[0])
                return strcasecmp(a->uuid, b->uuid) == 0;
        /* WSL2's entries (one per vendor's driver store) have neither: their vendor ordinal */
        if (!a->uuid[0] && !b->uuid[0] && !a->pci_bus_id[0] && !b->pci_bus_id[0])
                return a->source == b->source && a->vendor_index == b->vendor_index;
        return a->pci_bus_id[0] && strcmp(a->pci_bus_id, b->pci_bus_id) == 0;
}

const struct xpud_device *xpud_snapshot_find_same(const struct xpud_snapshot *prev, const struct xpud_device *d) {
        for (size_t i = 0; prev && i < prev->n_devices; i++)
                if (xpud_device_same(&prev->devices[i].dev, &d->dev))
                        return &prev->devices[i];
        return NULL;
}

const struct xpud_backend *xpud_snapshot_find_backend(const struct xpud_snapshot *s, const char *name) {
        for (size_t i = 0; s && name && i < s->n_backends; i++)
                if (strcmp(s->backends[i].name, name) == 0)
                        return &s->backends[i];
        return NULL;
}
