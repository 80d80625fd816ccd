/* SPDX-License-Identifier: Apache-2.0 */
/* The rich path: what the vendors' own libraries (NVML, the CUDA driver API, ROCm SMI)
 * say about the devices the fast path found. Vendor-neutral: each library is one backend in
 * its vendor's xpu_vendor_ops.probe.rich (vendor.h), implemented in probes/<vendor>/; nothing here knows a vendor.
 *
 * Flow: xpu_rich_probe() runs, for each backend whose vendor's kernel driver is loaded, its read()
 * (the library runs only inside an xpu_isolate_run() helper: unprivileged, clean environment,
 * bounded by the vendor timeout), then its merge() into the fast-path inventory by PCI bus id.
 * A backend that fails leaves the inventory as it was and reports why; probing never fails
 * because a vendor library did. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cJSON.h>

#include "probe.h"

/* Default of --vendor-timeout, in seconds, and its upper bound. */
#define XPU_VENDOR_TIMEOUT_S_DEFAULT 10u
#define XPU_VENDOR_TIMEOUT_S_MAX 600u

struct xpu_rich_ops {
        enum xpu_vendor vendor; /* whose driver must be loaded (inv->vendors[vendor].driver_loaded) */
        enum xpu_source source; /* XPU_SOURCE_NVML, XPU_SOURCE_CUDA, XPU_SOURCE_ROCM_SMI */
        const char *library;    /* soname shown in reports: "libnvidia-ml.so.1" */

        /* Read the library's view of the host. ROOTS gives the driver root (where the library is
         * looked for) and the sys root; INV is the fast path's inventory, read-only (for the
         * running driver version). The library is loaded and called only in an isolated helper
         * bounded by TIMEOUT_MS. Returns 0 and *RET (opaque, one allocation: release with free()
         * and nothing else, so no backend needs a release function of its own), or -errno with
         * ERR one line: -ENOENT "not available: <soname> not found in <paths searched>", -EPROTO
         * version mismatch, -ETIMEDOUT, -ECONNABORTED (helper killed by a signal), -EBADMSG
         * (garbage reply), -ENODEV/-EIO (the library's own error, named). Silent. */
        int (*read)(const struct xpu_roots *roots, const struct xpu_inventory *inv, unsigned timeout_ms,
                    void **ret, char *err, size_t err_size);

        /* Merge RESULT into INV: devices matched by PCI bus id only (never by position; on WSL2,
         * where the vendor's one driver store entry has no bus id, the merge first replaces it with
         * the library's devices through xpu_wsl_expand() of wsl.h and fills those in order), facts
         * through xpu_device_merge_string()/xpu_device_merge_u64() so each is marked with SOURCE
         * and a disagreement becomes a warning; a device the library lists but the fast path
         * does not becomes a warning, never a device. Host facts (CUDA driver version) go to
         * inv->vendors[vendor]. Returns the number of devices matched, or -ENOMEM. */
        int (*merge)(struct xpu_inventory *inv, const void *result);

        /* The library's own view as JSON (xpuinit probe --source <source> --json): an object with
         * at least "source", "devices" (array; PCI bus ids in canonical form, base/pci.h). NULL on -ENOMEM. */
        cJSON *(*to_json)(const void *result);

        /* The same view as text lines for humans (xpuinit probe --source <source>). */
        void (*print)(const void *result, FILE *f);

};

/* The I-th backend in merge order (each vendor's xpu_vendor_ops.probe.rich, vendors in xpu_vendors[]
 * order: NVML, CUDA driver API, ROCm SMI), NULL past the last. A fact already set by an earlier
 * backend is kept; a later one that disagrees adds a warning. */
const struct xpu_rich_ops *xpu_rich_backend_at(size_t i);

/* The backend of SOURCE, or NULL (procfs and sysfs are the fast path, not rich backends). */
const struct xpu_rich_ops *xpu_rich_backend(enum xpu_source source);

/* What one backend did in an xpu_rich_probe() run. */
struct xpu_rich_report {
        enum xpu_source source;
        bool ran;          /* false: skipped, MESSAGE says why ("no nvidia driver loaded") */
        int error;         /* 0 or the -errno of read() */
        int matched;       /* devices merged (merge()'s return) when it ran without error */
        uint64_t elapsed_us; /* wall time of read(), microseconds */
        char message[512]; /* the error line, or why it was skipped; "" on success */
};

/* Run OPS->read() alone, timed: fills *REP (ran, error, message, elapsed_us) and *RET (NULL on
 * error). Returns REP->error. For a library's own view (probe --source nvml), without merging. */
int xpu_rich_read(const struct xpu_rich_ops *ops, const struct xpu_roots *roots, const struct xpu_inventory *inv,
                  unsigned timeout_ms, void **ret, struct xpu_rich_report *rep);

/* Run the backends whose bit (1u << enum xpu_source) is in SOURCES against ROOTS and merge their
 * results into INV, in xpu_rich_backend_at() order. Backends whose vendor's driver is not loaded are
 * skipped. A backend's error becomes one inventory warning ("nvml: <message>; keeping the procfs
 * inventory") and a report; REPORTS (may be NULL) gets one entry per rich source, indexed by enum
 * xpu_source (entries of procfs and sysfs untouched). When KEEP (may be NULL) is given, each
 * successful result is stored at KEEP[source] for the caller (release with free());
 * otherwise it is freed. Returns 0 or -ENOMEM. */
int xpu_rich_probe(const struct xpu_roots *roots, struct xpu_inventory *inv, uint32_t sources, unsigned timeout_ms,
                   struct xpu_rich_report *reports, void **keep);

/* As xpu_rich_probe(), for facts any of a vendor's backends can give (requirements): the backends
 * of one vendor in SOURCES are alternatives, so after the first of a vendor succeeds its later
 * ones are skipped (report: "skipped: nvml answered"); a failing one is followed by the next. */
int xpu_rich_probe_first(const struct xpu_roots *roots, struct xpu_inventory *inv, uint32_t sources,
                         unsigned timeout_ms, struct xpu_rich_report *reports);

/* The reports of the sources in SOURCES as a JSON object {"nvml": {"status": "ok"|"error"|
 * "skipped", "devices": N, "elapsed_us": T, "error": "..."}, ...}. NULL on -ENOMEM. */
cJSON *xpu_rich_reports_to_json(const struct xpu_rich_report *reports, uint32_t sources);
