/* SPDX-License-Identifier: Apache-2.0 */
/* xpud's data: immutable snapshots published by the sampler and read by requests. The
 * sampler builds a struct xpud_snapshot, xpud_store_publish() makes it current; a
 * request takes a reference with xpud_store_acquire(), asks for a rendered body, and releases it.
 * Bodies are rendered at most once per snapshot (thread-safe), so a scrape costs neither a
 * vendor-library call nor a render nor a copy. The snapshot is the one place a rendered body
 * lives, with what the server sends it through (struct xpud_body_holder: libmicrohttpd's
 * response, server.c), under one lock; it knows no format: the caller hands in the renderer
 * (struct xpud_renderer; request.c's table) and the holder. */
#pragma once

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric.h"
#include "probe.h"
#include "readings.h"

/* Device health (docs/xpud-metrics.md "Health"), worst last. */
enum xpud_health {
        XPUD_HEALTH_UNKNOWN = 0, /* not sampled yet, or the backend failed and no good sample exists */
        XPUD_HEALTH_HEALTHY,
        XPUD_HEALTH_DEGRADED,    /* throttled, corrected-ECC storm, stale sample, backend error */
        XPUD_HEALTH_UNHEALTHY,   /* fell off the bus, uncorrected ECC */
        _XPUD_HEALTH_MAX,
};
/* "unknown", "healthy", "degraded", "unhealthy"; NULL when out of range. */
const char *xpud_health_to_string(enum xpud_health h);

#define XPUD_REASONS_MAX 4
/* Bytes of one health reason, the suggested action, a backend's error and an event's message,
 * with the NUL. A reason holds a backend's whole error line ("no good sample yet: nvml: " + the
 * error); longer text is cut at a UTF-8 character boundary and ends in "..." (xpud_text_cut()).
 * A device costs about 4 x 384 + 192 bytes for these per snapshot. */
#define XPUD_REASON_SIZE 384
#define XPUD_ACTION_SIZE 192
#define XPUD_ERROR_SIZE 320
#define XPUD_EVENT_MESSAGE_SIZE 448

/* Slots for Xids counted per device (xpu_xid_errors_total): XPUD_XIDS_MAX - 1 Xids of their own,
 * then "other" for the rest. */
#define XPUD_XIDS_MAX 16

/* What the GPU drivers' kernel log said about one device since xpud started (kmsg.h). */
struct xpud_kernel_events {
        enum xpud_health health;       /* healthy: nothing held now; degraded or unhealthy: the worst
                                        * event of the last XPUD_KMSG_HOLD_S seconds */
        char reason[XPUD_REASON_SIZE]; /* that event: "Xid 79 (GPU has fallen off the bus) at ..." */
        char action[XPUD_ACTION_SIZE];
        struct {
                uint32_t xid;
                uint64_t count;
        } xids[XPUD_XIDS_MAX];         /* NVIDIA Xids seen, by first appearance; when the table
                                        * is full the last slot is xid 0, "other": every later kind */
        size_t n_xids;
};

/* How long a kernel log event keeps its device degraded or unhealthy, seconds: the kernel says
 * nothing when the fault is gone, so its effect ends an hour after the last such event. */
#define XPUD_KMSG_HOLD_S 3600.0

/* One container that holds a device (workloads.h): what xpu_workload_info and /v1/devices'
 * "workloads" show. The strings belong to the kubelet's answer the snapshot keeps a reference to. */
struct xpud_workload {
        const char *pod_namespace;
        const char *pod;
        const char *container;
        const char *resource; /* device-plugin resource name or DRA driver name; "" when not told */
        const char *claim;    /* DRA: "<namespace>/<claim>"; NULL for a device plugin */
};

/* The pod-resources client's state in a snapshot (xpud_pod_resources_* series). */
struct xpud_pod_resources {
        bool on;                /* the client runs (--pod-resources): the series are written */
        bool up;                /* the last List call worked */
        bool have_answer;       /* an answer is in use (the last good one) */
        double age_seconds;     /* its age at this sample */
        uint64_t errors_total;  /* failed List calls since start */
        uint64_t unmatched_ids; /* device ids and CDI devices of the answer that name no GPU of this node */
};

/* One device in a snapshot. */
struct xpud_device {
        struct xpu_device dev;      /* identity from the fast path + rich merge (probe.h) */
        struct xpu_readings r;      /* readings of this sample (or the last good one when stale) */
        bool up;                    /* readings of this sample are fresh (xpu_up) */
        bool stale;                 /* r is the last good sample, the current one failed */
        double sample_time;         /* unix seconds of r */
        enum xpud_health health;
        char reasons[XPUD_REASONS_MAX][XPUD_REASON_SIZE]; /* "fell off the bus: ...", "thermal throttling" */
        size_t n_reasons;
        char action[XPUD_ACTION_SIZE]; /* suggested action for the worst reason; "" when healthy */
        struct xpud_kernel_events kernel; /* from the kernel log, filled by the sampler */
        const struct xpud_workload *workloads; /* containers holding it, in the snapshot's array */
        size_t n_workloads;
};

/* One vendor backend's state (xpud_backend_up{backend}). */
struct xpud_backend {
        char name[16];              /* "nvml", "rocm_smi", "amdgpu_sysfs" */
        bool up;
        char error[XPUD_ERROR_SIZE]; /* last error, "" when up */
        double collect_seconds;     /* duration of its last collection */
        uint64_t errors_total;      /* failed collections since start */
};

/* A state change (/v1/events). */
struct xpud_event {
        double time;                /* unix seconds */
        uint64_t seq;               /* increasing, never reused */
        char kind[24];              /* "device_lost", "device_back", "health", "backend_error", "backend_up";
                                     * from the kernel log "xid", "amdgpu_reset", "amdgpu_ring_timeout",
                                     * "amdgpu_ras" */
        char device[64];            /* uuid or pci bus id; "" for daemon-level events */
        char message[XPUD_EVENT_MESSAGE_SIZE]; /* cut with "..." when longer */
};

/* What the HTTP server serves from a snapshot. */
enum xpud_route {
        XPUD_ROUTE_METRICS = 0, /* /metrics: Prometheus text 0.0.4 */
        XPUD_ROUTE_DEVICES,     /* /v1/devices: the inventory JSON of xpuinit probe --json plus readings and health */
        XPUD_ROUTE_HEALTH,      /* /v1/health */
        XPUD_ROUTE_EVENTS,      /* /v1/events */
        XPUD_ROUTE_VERSION,     /* /v1/version */
        _XPUD_ROUTE_CACHED_MAX, /* routes above are cached per snapshot */
        XPUD_ROUTE_DEVICE = _XPUD_ROUTE_CACHED_MAX, /* /v1/devices/{index|uuid|pci_bus_id} */
};

struct xpud_body {
        const char *data; /* valid while the snapshot reference is held */
        size_t len;
        const char *content_type; /* "application/json", "text/plain; version=0.0.4; charset=utf-8" */
        void *held;       /* the holder's object over data (xpud_snapshot_body()), or NULL */
};

struct xpud_snapshot {
        atomic_uint refs;
        uint64_t seq;               /* 1 for the first sample */
        double collect_time;        /* unix seconds at the end of the sample */
        double collect_seconds;     /* the whole sample's duration */
        struct xpu_inventory *inv;  /* owned: host facts, warnings */
        struct xpud_device *devices; /* owned, inv->n_devices entries, same order */
        size_t n_devices;
        struct xpud_backend *backends; /* owned */
        size_t n_backends;
        struct xpud_event *events;  /* owned copy of the ring, oldest first */
        size_t n_events;
        uint64_t events_dropped;    /* events the ring dropped (oldest first) since start */
        struct xpud_pod_resources podres;
        /* The nodes of each fabric set that is a channel list (fabric.h: the IMEX channels) the
         * dev root holds, by xpu_fabric_sets() index; -1 when its directory is absent
         * (xpu_fabric_count_nodes()). CUT: its directory had more than XPU_FABRIC_VISIT_MAX entries,
         * so the count is a lower bound. */
        int fabric_channels[XPU_FABRIC_SETS_MAX];
        bool fabric_channels_cut[XPU_FABRIC_SETS_MAX];
        struct xpud_workload *workloads; /* owned, grouped by device (xpud_device.workloads) */
        size_t n_workloads;
        bool workload_labels;       /* --workload-labels: namespace, pod, container on device series */
        void *workloads_ref;        /* keeps the workloads' strings alive; dropped with workloads_unref */
        void (*workloads_unref)(void *ref);
        /* Rendered bodies, built on first use under `lock` (see xpud_snapshot_body()): the only
         * copy of each, and the server's response over it. */
        pthread_mutex_t lock;
        struct xpud_body_cache {
                char *data;   /* the body; the holder's object owns it once `held` is set */
                size_t len;
                bool done;
                const struct xpud_body_holder *holder; /* who made `held`, or NULL */
                void *held;   /* holder->hold()'s object over data; released with the snapshot */
        } cache[_XPUD_ROUTE_CACHED_MAX];
};

/* New empty snapshot with one reference (fields to be filled by the sampler). NULL on -ENOMEM. */
struct xpud_snapshot *xpud_snapshot_new(void);
struct xpud_snapshot *xpud_snapshot_ref(struct xpud_snapshot *s);
/* Drop a reference; the last one frees everything. NULL-safe; returns NULL. */
struct xpud_snapshot *xpud_snapshot_unref(struct xpud_snapshot *s);

/* How the body of a cached route is made: RENDER writes the body of ROUTE for S into *RET
 * (malloc'ed, NUL-terminated; the snapshot frees it) and *RET_LEN (bytes, without the NUL) and
 * returns 0, or returns -errno and writes nothing; CONTENT_TYPE is the body's media type. */
struct xpud_renderer {
        int (*render)(const struct xpud_snapshot *s, enum xpud_route route, char **ret, size_t *ret_len);
        const char *content_type;
};

/* What the server sends a cached body through, kept with the body (server.c: libmicrohttpd's
 * response, shared by every connection that sends it). HOLD takes the body, DATA (malloc'ed, LEN
 * bytes) of CONTENT_TYPE, whatever happens: it returns an object that owns DATA from then on and
 * frees it when its last user is done (which may be after the snapshot is gone), or NULL when out
 * of memory, DATA freed. RELEASE drops the snapshot's reference to that object when the snapshot
 * is freed. */
struct xpud_body_holder {
        void *(*hold)(char *data, size_t len, const char *content_type);
        void (*release)(void *obj);
};

/* The body of ROUTE (a cached route) for S, made by R on first use and kept with S, so every later
 * request for ROUTE gets the same bytes (a caller passes the same renderer for a route each time;
 * the server does, request.c). With HOLDER (may be NULL), out->held is HOLDER's object over the
 * body, made once per body with it and valid, like out->data, while the caller's reference to S
 * is held. Concurrent first requests wait for one render. A failed render, or a failed hold, leaves
 * nothing cached (not counted by xpud_snapshot_render_count()): the next request tries again.
 * Returns 0 and *OUT, -EINVAL when ROUTE is not cached, R has no render function, or HOLDER is not
 * the one that holds the body already, -ENOMEM when the hold failed, or R's -errno. */
int xpud_snapshot_body(struct xpud_snapshot *s, enum xpud_route route, const struct xpud_renderer *r,
                       const struct xpud_body_holder *holder, struct xpud_body *out);
/* The device of S whose xpud index (decimal), UUID (any case; the first partition for a UUID the
 * partitions of a GPU share) or PCI bus id (any spelling xpu_pci_bus_id_normalize() accepts; a
 * partition's with its number as the function, xpu_device_named_bus_id()) is KEY, or NULL. */
const struct xpud_device *xpud_snapshot_find_device(const struct xpud_snapshot *s, const char *key);
/* Bodies rendered and kept so far by xpud_snapshot_body() in this process (all snapshots, all
 * routes): tests check that concurrent requests render a body once. */
uint64_t xpud_snapshot_render_count(void);

/* The current snapshot, swapped atomically by the sampler. */
struct xpud_store {
        pthread_mutex_t lock;
        struct xpud_snapshot *current; /* NULL before the first sample */
};
void xpud_store_init(struct xpud_store *st);
/* Make S current (the store takes S's reference) and drop the previous one. */
void xpud_store_publish(struct xpud_store *st, struct xpud_snapshot *s);
/* A new reference to the current snapshot, or NULL before the first sample (/readyz 503). */
struct xpud_snapshot *xpud_store_acquire(struct xpud_store *st);
void xpud_store_done(struct xpud_store *st);
