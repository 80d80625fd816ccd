/* SPDX-License-Identifier: Apache-2.0 */
/* Prometheus text rendering of a snapshot (render-prom.h). Metric families are written one after
 * the other from a table; a family's # HELP/# TYPE header is written before its first sample, so
 * a family no device reports is absent. */
#include "render-prom.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/macro.h"
#include "health.h"
#include "readings-range.h"
#include "text.h"
#include "vendor.h"

/* The output and the family being written. */
struct out {
        FILE *f;
        const char *family; /* name whose header is written, NULL before the first sample */
        const struct xpud_workload *wl; /* --workload-labels: the container whose labels the device's
                                         * series carry now; NULL: none */
};

struct family {
        const char *name;
        const char *type; /* "gauge", "counter" */
        const char *help; /* no backslash, no newline */
};

/* A label value: \ " and newline escaped as the format says; bytes that are not UTF-8 become
 * U+FFFD (the format is UTF-8: one bad byte would make the whole scrape fail). Names come here as
 * UTF-8 text already (xpu_utf8_sanitize() when they are read); other UTF-8 is kept too. */
static void put_label_value(FILE *f, const char *v) {
        const char *s = v;
        while (*s) {
                size_t n = xpu_utf8_char_len(s);
                if (n == 0) {
                        fputs("\xef\xbf\xbd", f);
                        s++;
                } else if (*s == '\\') {
                        fputs("\\\\", f);
                        s++;
                } else if (*s == '"') {
                        fputs("\\\"", f);
                        s++;
                } else if (*s == '\n') {
                        fputs("\\n", f);
                        s++;
                } else {
                        fwrite(s, 1, n, f);
                        s += n;
                }
        }
}

static void put_label(FILE *f, bool *first, const char *name, const char *value) {
        if (!*first)
                fputc(',', f);
        *first = false;
        fprintf(f, "%s=\"", name);
        put_label_value(f, value);
        fputc('"', f);
}

static void put_device_labels(const struct out *o, bool *first, const struct xpud_device *d) {
        FILE *f = o->f;
        char gpu[16];
        snprintf(gpu, sizeof gpu, "%u", d->dev.index);
        const char *vendor = xpu_vendor_to_string(d->dev.vendor);
        put_label(f, first, "vendor", vendor ? vendor : "");
        put_label(f, first, "gpu", gpu);
        put_label(f, first, "uuid", d->dev.uuid);
        put_label(f, first, "pci_bus_id", d->dev.pci_bus_id);
        if (o->wl) {
                put_label(f, first, "namespace", o->wl->pod_namespace);
                put_label(f, first, "pod", o->wl->pod);
                put_label(f, first, "container", o->wl->container);
        }
}

static void header(struct out *o, const struct family *fam) {
        if (o->family == fam->name)
                return;
        o->family = fam->name;
        fprintf(o->f, "# HELP %s %s\n# TYPE %s %s\n", fam->name, fam->help, fam->name, fam->type);
}

/* One sample of FAM: device labels of D (when not NULL), then LABEL=VALUE (when LABEL is not
 * NULL), then the value text. */
static void sample(struct out *o, const struct family *fam, const struct xpud_device *d, const char *label,
                   const char *label_value, const char *value) {
        header(o, fam);
        fputs(fam->name, o->f);
        bool first = true;
        if (d || label) {
                fputc('{', o->f);
                if (d)
                        put_device_labels(o, &first, d);
                if (label)
                        put_label(o->f, &first, label, label_value);
                fputc('}', o->f);
        }
        fprintf(o->f, " %s\n", value);
}

static void sample_double(struct out *o, const struct family *fam, const struct xpud_device *d, const char *label,
                          const char *label_value, double v) {
        char buf[40];
        sample(o, fam, d, label, label_value, xpud_format_double(v, buf, sizeof buf));
}

static void sample_u64(struct out *o, const struct family *fam, const struct xpud_device *d, const char *label,
                       const char *label_value, uint64_t v) {
        char buf[24];
        snprintf(buf, sizeof buf, "%" PRIu64, v);
        sample(o, fam, d, label, label_value, buf);
}

/* ---- device families ------------------------------------------------------------------------- */

/* Device series other than xpu_info/xpu_up/xpu_health_state: only for devices not lost. */
static bool has_values(const struct xpud_device *d) {
        return !d->r.lost;
}

static const struct family fam_info = { "xpu_info", "gauge",
                                        "Device identity and metadata (name, driver, ...); always 1. Join on uuid." };

static void emit_info(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        /* Metadata labels, written when known (an empty label equals an absent one). */
        const struct xpu_vendor_info *vi =
                s->inv && (unsigned)d->dev.vendor < _XPU_VENDOR_MAX ? &s->inv->vendors[d->dev.vendor] : NULL;
        const struct {
                const char *label;
                const char *value;
        } meta[] = {
                { "name", d->dev.name },
                { "driver_version", d->dev.driver_version },
                { "cuda_driver_version", vi ? vi->cuda_driver_version : "" },
        };
        header(o, &fam_info);
        fputs(fam_info.name, o->f);
        fputc('{', o->f);
        bool first = true;
        put_device_labels(o, &first, d);
        for (size_t i = 0; i < ELEMENTSOF(meta); i++)
                if (i < 2 || meta[i].value[0]) /* name and driver_version always */
                        put_label(o->f, &first, meta[i].label, meta[i].value);
        /* Then the vendor's own facts (brand, compute capability, gfx target, ...). */
        const struct xpu_vendor_ops *ops = xpu_vendor(d->dev.vendor);
        for (const struct xpu_fact_label *l = ops ? ops->view.info_labels : NULL; l && l->label; l++) {
                const char *value = (const char *)&d->dev + l->offset;
                if (value[0])
                        put_label(o->f, &first, l->label, value);
        }
        fputs("} 1\n", o->f);
}

static const struct family fam_up = { "xpu_up", "gauge",
                                      "1 when this sample read the device; 0 when it is lost, its values are stale (the last good "
                                      "sample) or it was never read." };

static void emit_up(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        sample_u64(o, &fam_up, d, NULL, NULL, d->up && !d->stale && !d->r.lost ? 1 : 0);
}

static const struct family fam_health = {
        "xpu_health_state", "gauge", "Device health as a state set: 1 for the current state (see /v1/health for reasons)."
};

static void emit_health(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        for (int h = 0; h < _XPUD_HEALTH_MAX; h++)
                sample_u64(o, &fam_health, d, "state", xpud_health_to_string((enum xpud_health)h), d->health == (enum xpud_health)h);
}

static const struct family fam_collect_ts = { "xpu_last_collect_timestamp_seconds", "gauge",
                                              "Unix time of the device's last good sample." };

static void emit_collect_ts(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        if (has_values(d) && d->sample_time > 0)
                sample_double(o, &fam_collect_ts, d, NULL, NULL, d->sample_time);
}

/* Scalar readings: one sample per device when its have bit is set. */
enum scalar_kind { S_DOUBLE, S_U64, S_BOOL };
static const struct scalar {
        struct family fam;
        uint32_t have;           /* XPU_READ_* */
        enum scalar_kind kind;
        size_t offset;           /* in struct xpu_readings */
        uint32_t inventory_have; /* XPU_HAVE_* of the same fact in the inventory, 0 when none */
        size_t inventory_offset; /* in struct xpu_device */
} scalars[] = {
        { { "xpu_utilization_ratio", "gauge", "Fraction of time the compute engines were busy (0-1)." },
          XPU_READ_UTILIZATION, S_DOUBLE, offsetof(struct xpu_readings, utilization_ratio), 0, 0 },
        { { "xpu_memory_bandwidth_utilization_ratio", "gauge", "Fraction of time device memory was being read or written (0-1)." },
          XPU_READ_MEMORY_UTILIZATION, S_DOUBLE, offsetof(struct xpu_readings, memory_bandwidth_utilization_ratio), 0, 0 },
        { { "xpu_memory_used_bytes", "gauge", "Device memory in use, bytes." },
          XPU_READ_MEMORY_USED, S_U64, offsetof(struct xpu_readings, memory_used_bytes),
          XPU_HAVE_MEMORY_USED, offsetof(struct xpu_device, memory_used_bytes) },
        { { "xpu_memory_total_bytes", "gauge", "Device memory size, bytes." },
          XPU_READ_MEMORY_TOTAL, S_U64, offsetof(struct xpu_readings, memory_total_bytes),
          XPU_HAVE_MEMORY_TOTAL, offsetof(struct xpu_device, memory_total_bytes) },
        { { "xpu_memory_remap_pending", "gauge", "1 when a row remap waits for the next GPU reset." },
          XPU_READ_ROW_REMAP, S_BOOL, offsetof(struct xpu_readings, remap_pending), 0, 0 },
        { { "xpu_memory_remap_failed", "gauge", "1 when a row remap failed (no spare row left)." },
          XPU_READ_ROW_REMAP, S_BOOL, offsetof(struct xpu_readings, remap_failed), 0, 0 },
        { { "xpu_memory_retired_pages_pending", "gauge", "1 when a page retirement waits for the next driver load." },
          XPU_READ_RETIRED_PAGES, S_BOOL, offsetof(struct xpu_readings, retired_pending), 0, 0 },
};

static void emit_scalar(struct out *o, const struct scalar *sc, const struct xpud_device *d) {
        if (!has_values(d))
                return;
        const char *src;
        if (d->r.have & sc->have)
                src = (const char *)&d->r + sc->offset;
        else if (sc->inventory_have && (d->dev.have & sc->inventory_have))
                src = (const char *)&d->dev + sc->inventory_offset; /* the inventory of the same sample */
        else
                return;
        if (sc->kind == S_U64 && src != (const char *)&d->r + sc->offset) {
                /* The inventory's figure passes the readings' check too (a sentinel there is no size). */
                uint64_t v;
                memcpy(&v, src, sizeof v);
                if (xpu_reading_implausible(XPU_READING_BYTES, v, (double)v))
                        return;
        }
        if (sc->kind == S_BOOL) {
                bool v;
                memcpy(&v, src, sizeof v);
                sample_u64(o, &sc->fam, d, NULL, NULL, v);
        } else if (sc->kind == S_DOUBLE) {
                double v;
                memcpy(&v, src, sizeof v);
                sample_double(o, &sc->fam, d, NULL, NULL, v);
        } else {
                uint64_t v;
                memcpy(&v, src, sizeof v);
                sample_u64(o, &sc->fam, d, NULL, NULL, v);
        }
}

static const struct family fam_temp = { "xpu_temperature_celsius", "gauge", "Temperature per sensor, degrees Celsius." };

static void emit_temp(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        for (int t = 0; has_values(d) && t < _XPU_TEMP_MAX; t++)
                if (d->r.have_temperature & (1u << t))
                        sample_double(o, &fam_temp, d, "sensor", xpu_temp_sensor_to_string((enum xpu_temp_sensor)t),
                                      d->r.temperature_celsius[t]);
}

static const struct family fam_temp_limit = {
        "xpu_temperature_limit_celsius", "gauge",
        "The vendor's thermal limit of a temperature sensor, degrees Celsius: slowdown (the GPU cuts its clocks) "
        "or shutdown (it turns itself off)."
};

/* Two labels after the device's (sensor, limit): sample() carries one. */
static void emit_temp_limit(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        (void)s;
        for (int t = 0; has_values(d) && d->r.have_temperature_limit && t < _XPU_TEMP_MAX; t++)
                for (int l = 0; l < _XPU_TEMP_LIMIT_MAX; l++) {
                        if (!(d->r.have_temperature_limit & XPU_TEMP_LIMIT_BIT(t, l)))
                                continue;
                        char buf[40];
                        bool first = true;
                        header(o, &fam_temp_limit);
                        fputs(fam_temp_limit.name, o->f);
                        fputc('{', o->f);
                        put_device_labels(o, &first, d);
                        put_label(o->f, &first, "sensor", xpu_temp_sensor_to_string((enum xpu_temp_sensor)t));
                        put_label(o->f, &first, "limit", xpu_temp_limit_to_string((enum xpu_temp_limit)l));
                        fprintf(o->f, "} %s\n",
                                xpud_format_double(d->r.temperature_limit_celsius[t][l], buf, sizeof buf));
                }
}

static const struct family fam_power = { "xpu_power_watts", "gauge", "Board power draw, watts." };
static const struct family fam_power_limit = { "xpu_power_limit_watts", "gauge", "Enforced power limit, watts." };
static const struct family fam_energy = { "xpu_energy_joules_total", "counter",
                                          "Energy consumed since the driver loaded, joules." };

static void emit_power(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        if (has_values(d) && (d->r.have & XPU_READ_POWER))
                sample_double(o, &fam_power, d, NULL, NULL, d->r.power_watts);
}

static void emit_power_limit(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        if (has_values(d) && (d->r.have & XPU_READ_POWER_LIMIT))
                sample_double(o, &fam_power_limit, d, NULL, NULL, d->r.power_limit_watts);
}

static void emit_energy(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        if (has_values(d) && (d->r.have & XPU_READ_ENERGY))
                sample_double(o, &fam_energy, d, NULL, NULL, d->r.energy_joules);
}

static const struct family fam_clock = { "xpu_clock_hertz", "gauge", "Current clock frequency per clock domain, hertz." };

static void emit_clock(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        for (int c = 0; has_values(d) && c < _XPU_CLOCK_MAX; c++)
                if (d->r.have_clock & (1u << c))
                        sample_u64(o, &fam_clock, d, "clock", xpu_clock_to_string((enum xpu_clock)c), d->r.clock_hertz[c]);
}

static const struct family fam_ecc = { "xpu_ecc_errors_total", "counter",
                                       "ECC errors since the driver loaded (volatile), by severity." };

static void emit_ecc(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        if (!has_values(d) || !(d->r.have & XPU_READ_ECC))
                return;
        sample_u64(o, &fam_ecc, d, "severity", "corrected", d->r.ecc_corrected);
        sample_u64(o, &fam_ecc, d, "severity", "uncorrected", d->r.ecc_uncorrected);
}

static const struct family fam_throttle = { "xpu_throttle_active", "gauge",
                                            "1 when the clocks are held back for this reason now, else 0." };

static void emit_throttle(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        for (int t = 0; has_values(d) && (d->r.have & XPU_READ_THROTTLE) && t < _XPU_THROTTLE_MAX; t++)
                sample_u64(o, &fam_throttle, d, "reason", xpu_throttle_to_string((enum xpu_throttle)t),
                           (d->r.throttle >> t) & 1u);
}

static const struct family fam_pcie_width = {
        "xpu_pcie_link_width_lanes", "gauge",
        "PCIe link width, lanes: link=current what the link trained to, link=max the most both ends support."
};
static const struct family fam_pcie_speed = {
        "xpu_pcie_link_speed_transfers_per_second", "gauge",
        "PCIe link speed per lane, transfers per second: link=current now (GPUs lower it when idle), link=max the most both ends support."
};

static void emit_pcie_width(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        for (int e = 0; has_values(d) && (d->r.have & XPU_READ_PCIE_WIDTH) && e < _XPU_LINK_END_MAX; e++)
                sample_u64(o, &fam_pcie_width, d, "link", xpu_link_end_to_string((enum xpu_link_end)e),
                           d->r.pcie_link_width[e]);
}

static void emit_pcie_speed(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        for (int e = 0; has_values(d) && (d->r.have & XPU_READ_PCIE_SPEED) && e < _XPU_LINK_END_MAX; e++)
                sample_u64(o, &fam_pcie_speed, d, "link", xpu_link_end_to_string((enum xpu_link_end)e),
                           d->r.pcie_link_speed[e]);
}

static const struct family fam_mig_info = {
        "xpu_mig_info", "gauge",
        "MIG device of a GPU in MIG mode (mig = <nvidia-smi index of the GPU>:<MIG index>, as NVIDIA_VISIBLE_DEVICES names it); always 1."
};
static const struct family fam_mig_memory = { "xpu_mig_memory_total_bytes", "gauge",
                                              "Memory of a MIG device, bytes." };

/* MIG devices: listed by the fast path; their UUID, product name and memory are NVML's. */
static void emit_mig_info(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        (void)s;
        size_t n_mig;
        const struct xpu_mig_device *migs = xpu_mig_devices(&d->dev, &n_mig); /* at most XPU_MIG_DEVICES_MAX */
        for (size_t m = 0; m < n_mig; m++) {
                const struct xpu_mig_device *g = &migs[m];
                char name[32], gi[12], ci[12];
                snprintf(name, sizeof name, "%u:%zu", d->dev.vendor_index, m);
                snprintf(gi, sizeof gi, "%u", g->gi);
                snprintf(ci, sizeof ci, "%u", g->ci);
                header(o, &fam_mig_info);
                fputs(fam_mig_info.name, o->f);
                fputc('{', o->f);
                bool first = true;
                put_device_labels(o, &first, d);
                put_label(o->f, &first, "mig", name);
                put_label(o->f, &first, "gpu_instance", gi);
                put_label(o->f, &first, "compute_instance", ci);
                if (g->uuid[0])
                        put_label(o->f, &first, "mig_uuid", g->uuid);
                if (g->name[0])
                        put_label(o->f, &first, "product", g->name);
                fputs("} 1\n", o->f);
        }
}

static void emit_mig_memory(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        (void)s;
        size_t n_mig;
        const struct xpu_mig_device *migs = xpu_mig_devices(&d->dev, &n_mig);
        for (size_t m = 0; has_values(d) && m < n_mig; m++) {
                char name[32];
                snprintf(name, sizeof name, "%u:%zu", d->dev.vendor_index, m);
                if (migs[m].have & XPU_MIG_HAVE_MEMORY_TOTAL)
                        sample_u64(o, &fam_mig_memory, d, "mig", name, migs[m].memory_total_bytes);
        }
}

static const struct family fam_remapped = {
        "xpu_memory_remapped_rows_total", "counter",
        "Memory rows remapped over the GPU's life, by the errors that caused it (NVIDIA row remapping)."
};
static const struct family fam_retired = {
        "xpu_memory_retired_pages_total", "counter",
        "Memory pages retired over the GPU's life: correctable = repeated single-bit, uncorrectable = double-bit ECC errors."
};

static void emit_remap(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        (void)s;
        for (int c = 0; has_values(d) && (d->r.have & XPU_READ_ROW_REMAP) && c < _XPU_REPAIR_MAX; c++)
                sample_u64(o, &fam_remapped, d, "severity", xpu_repair_cause_to_string((enum xpu_repair_cause)c),
                           d->r.remapped_rows[c]);
}

static void emit_retired(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        (void)s;
        for (int c = 0; has_values(d) && (d->r.have & XPU_READ_RETIRED_PAGES) && c < _XPU_REPAIR_MAX; c++)
                sample_u64(o, &fam_retired, d, "cause", xpu_repair_cause_to_string((enum xpu_repair_cause)c),
                           d->r.retired_pages[c]);
}

static const struct family fam_xid = { "xpu_xid_errors_total", "counter",
                                       "NVIDIA Xid events of the device in the kernel log since xpud started, per Xid." };

static void emit_xid(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        (void)s;
        for (size_t i = 0; i < d->kernel.n_xids && i < XPUD_XIDS_MAX; i++) {
                char xid[12];
                if (d->kernel.xids[i].xid)
                        snprintf(xid, sizeof xid, "%u", d->kernel.xids[i].xid);
                else
                        snprintf(xid, sizeof xid, "other"); /* Xids beyond the table's room */
                sample_u64(o, &fam_xid, d, "xid", xid, d->kernel.xids[i].count);
        }
}

static const struct family fam_workload = {
        "xpu_workload_info", "gauge",
        "A container that holds the device (the kubelet's pod-resources): resource is the device plugin's resource or "
        "the DRA driver, claim the DRA claim; always 1."
};

static void emit_workloads(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        (void)s;
        for (size_t w = 0; w < d->n_workloads; w++) {
                const struct xpud_workload *wl = &d->workloads[w];
                header(o, &fam_workload);
                fputs(fam_workload.name, o->f);
                fputc('{', o->f);
                bool first = true;
                const struct xpud_workload *keep = o->wl;
                o->wl = wl; /* namespace, pod, container: the same labels as --workload-labels */
                put_device_labels(o, &first, d);
                o->wl = keep;
                put_label(o->f, &first, "resource", wl->resource);
                if (wl->claim)
                        put_label(o->f, &first, "claim", wl->claim);
                fputs("} 1\n", o->f);
        }
}

static const struct family fam_fabric_state = {
        "xpu_fabric_state", "gauge",
        "The GPU's registration with its multi-node NVLink fabric as a state set: 1 for the current state."
};
static const struct family fam_fabric_info = {
        "xpu_fabric_info", "gauge",
        "The NVLink fabric a registered GPU belongs to: its clique and cluster, and status (0 = registered); always 1."
};
static const struct family fam_fabric_health = { "xpu_fabric_health_mask", "gauge",
                                                 "The library's fabric health bits of the GPU (NVML healthMask)." };

static void emit_fabric_state(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        (void)s;
        for (int k = 0; has_values(d) && (d->r.have & XPU_READ_FABRIC) && k < _XPU_FABRIC_STATE_MAX; k++)
                sample_u64(o, &fam_fabric_state, d, "state", xpu_fabric_state_to_string((enum xpu_fabric_state)k),
                           d->r.fabric_state == k);
}

static void emit_fabric_info(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        (void)s;
        if (!has_values(d) || !(d->r.have & XPU_READ_FABRIC) || d->r.fabric_state != XPU_FABRIC_COMPLETED)
                return;
        char clique[16], status[16];
        snprintf(clique, sizeof clique, "%u", d->r.fabric_clique_id);
        snprintf(status, sizeof status, "%u", d->r.fabric_status);
        header(o, &fam_fabric_info);
        fputs(fam_fabric_info.name, o->f);
        fputc('{', o->f);
        bool first = true;
        put_device_labels(o, &first, d);
        put_label(o->f, &first, "clique_id", clique);
        put_label(o->f, &first, "cluster_uuid", d->r.fabric_cluster_uuid);
        put_label(o->f, &first, "status", status);
        fputs("} 1\n", o->f);
}

static void emit_fabric_health(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d) {
        (void)s;
        if (has_values(d) && (d->r.have & XPU_READ_FABRIC_HEALTH))
                sample_u64(o, &fam_fabric_health, d, NULL, NULL, d->r.fabric_health_mask);
}

/* Device families in output order; NULL entries stand for the scalars[] table. */
typedef void (*device_emit_fn)(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d);
static const device_emit_fn device_families[] = {
        emit_info,  emit_up,          emit_health, emit_collect_ts, NULL,          emit_temp,
        emit_temp_limit, emit_power, emit_power_limit, emit_energy, emit_clock,      emit_ecc,      emit_throttle,
        emit_pcie_width, emit_pcie_speed, emit_remap, emit_retired, emit_mig_info, emit_mig_memory, emit_xid,
        emit_fabric_state, emit_fabric_info, emit_fabric_health,
};

/* ---- daemon families ------------------------------------------------------------------------- */

static const struct family fam_build = { "xpud_build_info", "gauge", "xpud's version; always 1." };
static const struct family fam_xpud_ts = { "xpud_last_collect_timestamp_seconds", "gauge",
                                           "Unix time at the end of the last sample." };
static const struct family fam_duration = {
        "xpud_collect_duration_seconds", "gauge",
        "Duration of the last sample, seconds: without labels the whole sample, with backend one backend's part."
};
static const struct family fam_errors = { "xpud_collect_errors_total", "counter", "Failed collections per backend." };
static const struct family fam_backend_up = { "xpud_backend_up", "gauge",
                                              "1 when the backend's last collection worked, else 0." };
static const struct family fam_dropped = { "xpud_events_dropped_total", "counter",
                                           "Events dropped from the full /v1/events ring, oldest first." };

static const struct family fam_podres_up = { "xpud_pod_resources_up", "gauge",
                                             "1 when the last List call to the kubelet's pod-resources API worked, else 0." };
static const struct family fam_podres_age = {
        "xpud_pod_resources_age_seconds", "gauge",
        "Age of the pod-resources answer in use at this sample, seconds (the last good one when the kubelet fails)."
};
static const struct family fam_podres_errors = { "xpud_pod_resources_errors_total", "counter",
                                                 "Failed List calls to the kubelet's pod-resources API." };
static const struct family fam_unmatched = {
        "xpud_workload_unmatched_ids", "gauge",
        "GPU device ids and CDI devices of the pod-resources answer in use that name no GPU of this node."
};

/* The pod-resources client's series: only when it runs. */
static void emit_podres(struct out *o, const struct xpud_snapshot *s) {
        if (!s->podres.on)
                return;
        sample_u64(o, &fam_podres_up, NULL, NULL, NULL, s->podres.up);
        if (s->podres.have_answer)
                sample_double(o, &fam_podres_age, NULL, NULL, NULL, s->podres.age_seconds);
        sample_u64(o, &fam_podres_errors, NULL, NULL, NULL, s->podres.errors_total);
        sample_u64(o, &fam_unmatched, NULL, NULL, NULL, s->podres.unmatched_ids);
}

static const struct family fam_fabric_channels = {
        "xpu_fabric_channels", "gauge",
        "Channels of a fabric set the node has made (set=\"imex\": /dev/nvidia-caps-imex-channels/channel*)."
};

/* The channel-list fabric sets' counts: host-wide, no device labels. */
static void emit_fabric_channels(struct out *o, const struct xpud_snapshot *s) {
        const struct xpu_fabric_set *sets[XPU_FABRIC_SETS_MAX];
        enum xpu_vendor vendor[XPU_FABRIC_SETS_MAX];
        size_t n = xpu_fabric_sets(sets, vendor);
        for (size_t i = 0; i < n; i++)
                if (s->fabric_channels[i] >= 0)
                        sample_u64(o, &fam_fabric_channels, NULL, "set", sets[i]->name,
                                   (uint64_t)s->fabric_channels[i]);
}

static void emit_daemon(struct out *o, const struct xpud_snapshot *s) {
        sample(o, &fam_build, NULL, "version", XPU_VERSION, "1");
        if (s->collect_time > 0)
                sample_double(o, &fam_xpud_ts, NULL, NULL, NULL, s->collect_time);
        sample_double(o, &fam_duration, NULL, NULL, NULL, s->collect_seconds);
        for (size_t i = 0; i < s->n_backends; i++)
                sample_double(o, &fam_duration, NULL, "backend", s->backends[i].name, s->backends[i].collect_seconds);
        for (size_t i = 0; i < s->n_backends; i++)
                sample_u64(o, &fam_errors, NULL, "backend", s->backends[i].name, s->backends[i].errors_total);
        for (size_t i = 0; i < s->n_backends; i++)
                sample_u64(o, &fam_backend_up, NULL, "backend", s->backends[i].name, s->backends[i].up);
        sample_u64(o, &fam_dropped, NULL, NULL, NULL, s->events_dropped);
        emit_podres(o, s);
        emit_fabric_channels(o, s);
}

/* EMIT for D once, or with --workload-labels once per container holding D, with its labels. */
static void per_label_set(struct out *o, const struct xpud_snapshot *s, const struct xpud_device *d,
                          device_emit_fn emit, const struct scalar *sc) {
        size_t n = s->workload_labels && d->n_workloads ? d->n_workloads : 1;
        for (size_t w = 0; w < n; w++) {
                o->wl = s->workload_labels && d->n_workloads ? &d->workloads[w] : NULL;
                if (emit)
                        emit(o, s, d);
                else
                        emit_scalar(o, sc, d);
        }
        o->wl = NULL;
}

int xpud_render_prom(const struct xpud_snapshot *s, char **ret, size_t *ret_len) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;
        struct out o = { .f = f };
        for (size_t k = 0; k < ELEMENTSOF(device_families); k++) {
                if (device_families[k]) {
                        for (size_t i = 0; i < s->n_devices; i++)
                                per_label_set(&o, s, &s->devices[i], device_families[k], NULL);
                        continue;
                }
                for (size_t j = 0; j < ELEMENTSOF(scalars); j++)
                        for (size_t i = 0; i < s->n_devices; i++)
                                per_label_set(&o, s, &s->devices[i], NULL, &scalars[j]);
        }
        for (size_t i = 0; i < s->n_devices; i++) /* its own namespace, pod, container labels */
                emit_workloads(&o, s, &s->devices[i]);
        emit_daemon(&o, s);
        bool failed = ferror(f);
        if (fclose(f) != 0 || failed) {
                free(buf);
                return -ENOMEM;
        }
        *ret = buf;
        *ret_len = len;
        return 0;
}
