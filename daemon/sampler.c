/* SPDX-License-Identifier: Apache-2.0 */
/* xpud's sampler (sampler.h; docs/xpud-sampling.md): every interval, the fast-path
 * inventory, then each vendor backend's readings, health against the previous snapshot, the
 * events of the change, and a new snapshot for the store.
 *
 * Backends, one per vendor that has one (xpu_vendor_ops.readings of vendor.h, in xpu_vendors[]
 * order: no vendor branch below), each timed on its own: NVIDIA's "nvml" (one NVML session kept
 * between samples, its facts merged into the sample's inventory), AMD's "amdgpu_sysfs" and
 * Intel's "intel_sysfs" (sysfs and hwmon read directly, attributes kept open between samples).
 * Then, for each device a backend read, its PCIe link from PCI sysfs, the same for every vendor
 * (xpu_pcie_link_read()), and the kernel log's driver events since the last sample
 * (kernel-events.h).
 * A backend is part of a sample when its vendor's driver is loaded or the fast path lists a
 * device of its vendor.
 *
 * Per device: fresh readings (up) from its backend; when the backend failed (or could not read the
 * device) the last good readings of the same device in the previous snapshot, marked stale; a
 * device lost before stays lost until a backend reads it again; no readings at all otherwise
 * (health "unknown"). A device of the previous snapshot that the fast path no longer lists is
 * kept, lost ("no longer listed by the procfs fast path"), so xpu_up 0 stays visible, until it is
 * listed again. Every device keeps its xpud index for the sampler's life (device-index.h), and a
 * snapshot lists its devices in index order.
 *
 * Threads: xpud_sampler_sample() runs on the caller's thread (the first sample) or on the
 * sampler's own thread; a mutex keeps samples from overlapping. The thread sleeps on a condition
 * variable (CLOCK_MONOTONIC), so xpud_sampler_free() wakes it at once. */
#include "sampler.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pci-link.h"
#include "base/path.h"
#include "base/log.h"
#include "base/macro.h"
#include "device-index.h"
#include "events.h"
#include "health.h"
#include "kernel-events.h"
#include "libs.h"
#include "cdi-dir.h"
#include "nfd.h"
#include "fabric.h"
#include "vendor.h"

struct xpud_sampler;

/* What one sample builds before it becomes a snapshot. */
struct sample {
        struct xpu_inventory *inv;
        double now;             /* unix seconds of this sample's readings */
        struct xpu_readings *r; /* per inventory device: readings read in this sample */
        bool *fresh;            /* per inventory device: R holds this sample's readings */
};

/* A backend's state across samples. */
struct backend_state {
        void *ops_state; /* the vendor's readings state (xpu_readings_ops.open) */
        uint64_t errors_total;
        bool was_down; /* its last collection failed: logged once per outage */
        bool had_good; /* one collection succeeded since start: there are readings to keep */
};

struct xpud_sampler {
        /* options */
        char *sys_root, *dev_root, *driver_root;
        unsigned interval_s, vendor_timeout_s;
        struct xpud_store *store;
        xpud_sample_cb cb;
        void *userdata;

        struct xpu_roots roots;
        struct xpud_events events;
        struct xpud_kernel_state kernel; /* the kernel log's driver events */
        struct xpud_index_map indices; /* stable xpud index per device seen */
        struct backend_state state[_XPU_VENDOR_MAX]; /* per vendor with a readings backend */
        struct xpud_snapshot *prev; /* a reference to the last snapshot published */
        uint64_t seq;
        bool have_nfd;
        struct xpud_nfd nfd;
        int nfd_error; /* last error of the labels file, logged once per change */
        bool have_cdi;
        struct xpud_cdi_dir cdi;
        struct xpud_workloads *workloads; /* borrowed; NULL: off */
        char **warned; /* inventory warnings of the previous sample (logged when new) */
        size_t n_warned;

        pthread_mutex_t sample_lock; /* one sample at a time */
        pthread_mutex_t lock;        /* stop, started */
        pthread_cond_t wake;
        pthread_t thread;
        bool started, stop;
};

static double realtime_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double monotonic_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- backends ------------------------------------------------------------------------------------ */

/* Is vendor V's backend part of this sample? Its driver is loaded or a device of it is listed. */
static bool backend_active(enum xpu_vendor v, const struct xpu_inventory *inv) {
        return inv->vendors[v].driver_loaded || xpu_inventory_count(inv, v) > 0;
}

/* The backend (name) that reads VENDOR's devices; NULL when it has none. */
static const char *backend_of(enum xpu_vendor vendor) {
        const struct xpu_vendor_ops *vo = xpu_vendor(vendor);
        const struct xpu_readings_ops *ops = vo ? vo->readings : NULL;
        return ops ? ops->name : NULL;
}

/* Run every active backend; fill S->backends. Returns 0 or -ENOMEM. */
static int collect_all(struct xpud_sampler *smp, struct sample *sm, struct xpud_snapshot *s) {
        s->backends = calloc(_XPU_VENDOR_MAX, sizeof *s->backends);
        if (!s->backends)
                return -ENOMEM;
        for (size_t k = 0; k < _XPU_VENDOR_MAX; k++) {
                const struct xpu_readings_ops *b = xpu_vendors[k]->readings;
                struct backend_state *st = &smp->state[k];
                if (!b)
                        continue;
                if (!backend_active((enum xpu_vendor)k, sm->inv)) {
                        if (b->stop) /* the driver went away: let go of its library */
                                b->stop(st->ops_state);
                        continue;
                }
                struct xpud_backend *out = &s->backends[s->n_backends++];
                char err[sizeof out->error] = "";
                double t0 = monotonic_s();
                int r = b->collect(st->ops_state, &smp->roots, smp->vendor_timeout_s * 1000u, sm->inv, sm->r, sm->fresh,
                                   err, sizeof err);
                out->collect_seconds = monotonic_s() - t0;
                if (r == -ENOMEM)
                        return r;
                snprintf(out->name, sizeof out->name, "%s", b->name);
                out->up = r >= 0;
                if (r < 0) {
                        snprintf(out->error, sizeof out->error, "%s", err[0] ? err : strerror(-r));
                        st->errors_total++;
                        if (!st->was_down && st->had_good)
                                log_warning("%s: %s; keeping the last good readings, marked stale", b->name, out->error);
                        else if (!st->was_down)
                                log_warning("%s: %s; no good reading yet: its devices have no readings until it works",
                                            b->name, out->error);
                        else
                                log_debug("%s: %s", b->name, out->error);
                } else if (st->was_down)
                        log_info("%s is back", b->name);
                st->was_down = r < 0;
                st->had_good = st->had_good || r >= 0;
                out->errors_total = st->errors_total;
        }
        return 0;
}

/* WSL2: a vendor whose backend could not list its GPUs this sample still has its driver store's
 * one entry (wsl.h); the GPUs the backend listed in PREV stand in for it, so that they keep their
 * identity and their last readings (stale) instead of turning lost. Returns 0 or -ENOMEM. */
static int wsl_keep_listed(struct sample *sm, const struct xpud_snapshot *prev) {
        struct xpu_inventory *inv = sm->inv;
        for (int v = 0; prev && inv->platform == XPU_PLATFORM_WSL && v < _XPU_VENDOR_MAX; v++) {
                size_t n = 0;
                enum xpu_source source = XPU_SOURCE_WSL;
                for (size_t i = 0; i < prev->n_devices; i++) {
                        const struct xpu_device *d = &prev->devices[i].dev;
                        if ((int)d->vendor == v && d->source != XPU_SOURCE_WSL && d->n_nodes &&
                            strcmp(d->nodes[0].path, XPU_WSL_DXG) == 0) {
                                source = d->source;
                                n++;
                        }
                }
                int at = n ? xpu_wsl_expand(inv, (enum xpu_vendor)v, source, n) : -ENOENT;
                if (at == -ENOENT)
                        continue;
                if (at < 0)
                        return at;
                size_t k = (size_t)at;
                for (size_t i = 0; i < prev->n_devices && k < inv->n_devices; i++) {
                        const struct xpu_device *d = &prev->devices[i].dev;
                        if ((int)d->vendor != v || d->source != source || !d->n_nodes ||
                            strcmp(d->nodes[0].path, XPU_WSL_DXG) != 0)
                                continue;
                        unsigned index = inv->devices[k].index;
                        inv->devices[k] = *d;
                        inv->devices[k++].index = index;
                        if (k - (size_t)at >= XPU_WSL_DEVICES_MAX)
                                break;
                }
        }
        return 0;
}

/* The PCIe link of every device a backend read in this sample: PCI sysfs, the same files for
 * every vendor (probes/pci-link.h). Returns 0 or -ENOMEM. */
static int collect_pcie_links(struct xpud_sampler *smp, struct sample *sm) {
        for (size_t i = 0; i < sm->inv->n_devices; i++)
                if (sm->fresh[i] && !sm->r[i].lost &&
                    xpu_pcie_link_read(smp->roots.sys_fd, sm->inv->devices[i].pci_bus_id, sm->inv, &sm->r[i]) < 0)
                        return -ENOMEM;
        return 0;
}

/* ---- devices ------------------------------------------------------------------------------------- */

/* The device of this sample: fresh readings, else what the previous snapshot had. */
static void device_fill(struct xpud_device *d, const struct xpu_device *dev, const struct xpud_snapshot *prev,
                        const struct sample *sm, size_t i) {
        *d = (struct xpud_device){ .dev = *dev };
        if (sm->fresh[i]) {
                d->r = sm->r[i];
                d->up = !d->r.lost;
                d->sample_time = sm->now;
                return;
        }
        const struct xpud_device *p = xpud_snapshot_find_same(prev, d);
        if (p && p->r.lost) { /* lost until a backend reads it again */
                d->r = p->r;
                d->sample_time = p->sample_time;
        } else if (p && (p->up || p->stale)) {
                d->r = p->r;
                d->sample_time = p->sample_time;
                d->stale = true;
        }
}

/* Devices of PREV the fast path no longer lists, kept as lost (appended to S and to its
 * inventory, which must stay in step). Returns 0 or -ENOMEM. */
static int keep_gone(struct xpud_snapshot *s, const struct xpud_snapshot *prev) {
        for (size_t i = 0; prev && i < prev->n_devices; i++) {
                const struct xpud_device *p = &prev->devices[i];
                if (xpud_snapshot_find_same(s, p))
                        continue;
                struct xpud_device *grown = realloc(s->devices, (s->n_devices + 1) * sizeof *grown);
                if (!grown)
                        return -ENOMEM;
                s->devices = grown;
                struct xpud_device *d = &s->devices[s->n_devices];
                *d = (struct xpud_device){ .dev = p->dev, .sample_time = p->sample_time };
                d->r.lost = true;
                if (p->r.lost)
                        snprintf(d->r.lost_reason, sizeof d->r.lost_reason, "%s", p->r.lost_reason);
                else
                        snprintf(d->r.lost_reason, sizeof d->r.lost_reason, "no longer listed by the %s fast path",
                                 xpu_source_to_string(p->dev.source) ?: "sysfs");
                if (!xpu_inventory_add_device(s->inv, &p->dev))
                        return -ENOMEM;
                s->n_devices++;
        }
        return 0;
}

static int cmp_index(const void *a, const void *b) {
        unsigned x = ((const struct xpud_device *)a)->dev.index, y = ((const struct xpud_device *)b)->dev.index;
        return (x > y) - (x < y);
}

/* Put S's devices (and its inventory's, which stay in step) in xpud index order: with stable
 * indices, a device kept after it left the fast path or a KFD order that changed would otherwise
 * list them out of order. */
static void sort_by_index(struct xpud_snapshot *s) {
        qsort(s->devices, s->n_devices, sizeof *s->devices, cmp_index);
        for (size_t i = 0; i < s->n_devices && i < s->inv->n_devices; i++)
                s->inv->devices[i] = s->devices[i].dev;
}

/* Log the warnings of INV not seen in the previous sample, once each, and remember them. */
static void log_new_warnings(struct xpud_sampler *smp, const struct xpu_inventory *inv) {
        for (size_t i = 0; i < inv->n_warnings; i++) {
                bool seen = false;
                for (size_t k = 0; k < smp->n_warned && !seen; k++)
                        seen = strcmp(smp->warned[k], inv->warnings[i]) == 0;
                if (!seen)
                        xpu_log_escaped(XPU_LOG_WARNING, inv->warnings[i]);
        }
        char **copy = inv->n_warnings ? calloc(inv->n_warnings, sizeof *copy) : NULL;
        size_t n = 0;
        for (size_t i = 0; copy && i < inv->n_warnings; i++)
                if ((copy[n] = strdup(inv->warnings[i])))
                        n++;
        for (size_t k = 0; k < smp->n_warned; k++)
                free(smp->warned[k]);
        free(smp->warned);
        smp->warned = copy;
        smp->n_warned = n;
}

/* ---- one sample ----------------------------------------------------------------------------------- */

/* The channels each channel-list fabric set has under the dev root (the IMEX channels); a count cut
 * by the directory's visit bound is logged when it starts being cut. */
static void fabric_channels(const struct xpud_sampler *smp, struct xpud_snapshot *s) {
        const struct xpu_fabric_set *sets[XPU_FABRIC_SETS_MAX];
        enum xpu_vendor vendor[XPU_FABRIC_SETS_MAX];
        size_t n = xpu_fabric_sets(sets, vendor);
        for (size_t i = 0; i < XPU_FABRIC_SETS_MAX; i++) {
                s->fabric_channels[i] = -1;
                s->fabric_channels_cut[i] = false;
                if (i >= n || !sets[i]->channels)
                        continue;
                int k = xpu_fabric_count_nodes(smp->roots.dev_fd, smp->roots.sys_fd, sets[i], XPU_FABRIC_VISIT_MAX,
                                               &s->fabric_channels_cut[i]);
                s->fabric_channels[i] = k >= 0 ? k : -1;
                if (k >= 0 && s->fabric_channels_cut[i] && !(smp->prev && smp->prev->fabric_channels_cut[i]))
                        log_warning("%s: more than %d entries in the directory of %s; only the first %d were read, so "
                                    "the %s count (%d) is a lower bound; remove what is not a channel from it",
                                    sets[i]->variable, XPU_FABRIC_VISIT_MAX, sets[i]->nodes[0].glob,
                                    XPU_FABRIC_VISIT_MAX, sets[i]->what, k);
        }
}

static int sample_build(struct xpud_sampler *smp, struct xpud_snapshot *s) {
        const struct xpud_snapshot *prev = smp->prev;
        double t0 = monotonic_s();
        struct sample sm = { .now = realtime_s() };
        int r = xpu_inventory_probe(&smp->roots, &sm.inv);
        if (r < 0)
                return r;
        s->inv = sm.inv;
        fabric_channels(smp, s);
        size_t n = sm.inv->n_devices;
        /* WSL2: a backend's merge may list a vendor's GPUs in place of its driver store's entry */
        size_t cap = n + 1 + (sm.inv->platform == XPU_PLATFORM_WSL ? (size_t)_XPU_VENDOR_MAX * XPU_WSL_DEVICES_MAX : 0);
        _cleanup_free_ struct xpu_readings *readings = calloc(cap, sizeof *readings);
        _cleanup_free_ bool *fresh = calloc(cap, sizeof *fresh);
        if (!readings || !fresh)
                return -ENOMEM;
        sm.r = readings;
        sm.fresh = fresh;

        r = collect_all(smp, &sm, s);
        if (r >= 0)
                r = wsl_keep_listed(&sm, prev);
        if (r >= 0)
                r = collect_pcie_links(smp, &sm);
        if (r < 0)
                return r;
        n = sm.inv->n_devices;
        /* After the backends: NVML may have told a UUID the fast path did not know. */
        r = xpud_index_map_assign(&smp->indices, sm.inv->devices, n);
        if (r < 0)
                return r;

        s->devices = calloc(n + 1, sizeof *s->devices);
        if (!s->devices)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                device_fill(&s->devices[i], &sm.inv->devices[i], prev, &sm, i);
        s->n_devices = n;
        r = keep_gone(s, prev);
        if (r < 0)
                return r;
        sort_by_index(s);
        /* The pods holding each device: the client's latest answer, never a wait for the kubelet. */
        r = xpud_workloads_attach(smp->workloads, &smp->roots, s);
        if (r < 0)
                return r;
        r = xpud_kernel_update(&smp->kernel, s, &smp->events, sm.now);
        if (r < 0)
                return r;
        for (size_t i = 0; i < s->n_devices; i++) {
                struct xpud_device *d = &s->devices[i];
                xpud_health_evaluate(d, xpud_snapshot_find_same(prev, d),
                                     xpud_snapshot_find_backend(s, backend_of(d->dev.vendor)));
        }
        s->seq = ++smp->seq;
        s->collect_time = realtime_s();
        s->collect_seconds = monotonic_s() - t0;
        xpud_events_diff(&smp->events, prev, s);
        return xpud_events_copy_to(&smp->events, s);
}

int xpud_sampler_sample(struct xpud_sampler *smp) {
        pthread_mutex_lock(&smp->sample_lock);
        struct xpud_snapshot *s = xpud_snapshot_new();
        int r = s ? sample_build(smp, s) : -ENOMEM;
        if (r < 0) {
                xpud_snapshot_unref(s);
                pthread_mutex_unlock(&smp->sample_lock);
                return r;
        }
        log_new_warnings(smp, s->inv);
        xpud_snapshot_unref(smp->prev);
        smp->prev = xpud_snapshot_ref(s);
        xpud_store_publish(smp->store, s); /* takes our first reference */
        if (smp->cb)
                smp->cb(smp->userdata, smp->prev);
        /* The labels after publishing: a slow or stuck filesystem never delays a snapshot. */
        if (smp->have_nfd) {
                int e = xpud_nfd_update(&smp->nfd, smp->prev);
                if (e < 0 && e != smp->nfd_error)
                        log_warning("--nfd-file %s: %s; retrying at the next sample", smp->nfd.path, strerror(-e));
                else if (e >= 0 && smp->nfd_error < 0)
                        log_info("--nfd-file %s: written again", smp->nfd.path);
                smp->nfd_error = e < 0 ? e : 0;
        }
        if (smp->have_cdi)
                (void)xpud_cdi_dir_update(&smp->cdi, smp->prev, &smp->roots); /* logs its errors */
        pthread_mutex_unlock(&smp->sample_lock);
        return 0;
}

/* ---- life cycle ---------------------------------------------------------------------------------- */

static char *dup_or_null(const char *s, bool *oom) {
        char *d = s ? strdup(s) : NULL;
        if (s && !d)
                *oom = true;
        return d;
}

int xpud_sampler_new(const struct xpud_sampler_options *o, struct xpud_store *store, xpud_sample_cb cb,
                     void *userdata, struct xpud_sampler **ret) {
        if (!o || !store || !ret)
                return -EINVAL;
        if (o->interval_s < 1) {
                log_error("sampler: the interval must be at least 1 s");
                return -EINVAL;
        }
        struct xpud_sampler *smp = calloc(1, sizeof *smp);
        if (!smp)
                return -ENOMEM;
        smp->roots.sys_fd = smp->roots.dev_fd = smp->roots.driver_fd = -EBADF;
        xpud_kernel_init(&smp->kernel, o->kmsg_fd > 0 ? o->kmsg_fd : -1, o->kmsg_path);
        pthread_mutex_init(&smp->sample_lock, NULL);
        pthread_mutex_init(&smp->lock, NULL);
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&smp->wake, &ca);
        pthread_condattr_destroy(&ca);

        bool oom = false;
        smp->sys_root = dup_or_null(o->sys_root, &oom);
        smp->dev_root = dup_or_null(o->dev_root, &oom);
        smp->driver_root = dup_or_null(o->driver_root ? o->driver_root : xpu_default_driver_root(NULL), &oom);
        smp->interval_s = o->interval_s;
        smp->vendor_timeout_s = o->vendor_timeout_s ? o->vendor_timeout_s : 10;
        smp->store = store;
        smp->cb = cb;
        smp->userdata = userdata;
        smp->workloads = o->workloads;
        int r = oom ? -ENOMEM : 0;
        for (size_t k = 0; r == 0 && k < _XPU_VENDOR_MAX; k++)
                if (xpu_vendors[k]->readings)
                        r = xpu_vendors[k]->readings->open(&smp->state[k].ops_state);
        if (r == 0)
                r = xpud_events_init(&smp->events, o->events_max);
        if (r == 0 && o->nfd_file) {
                r = xpud_nfd_init(&smp->nfd, o->nfd_file);
                smp->have_nfd = r == 0;
        }
        if (r == 0 && o->cdi_dir) {
                r = xpud_cdi_dir_init(&smp->cdi, o->cdi_dir, o->cdi_host_root);
                smp->have_cdi = r == 0;
        }
        if (r < 0) {
                xpud_sampler_free(smp);
                return r;
        }
        const char *which = NULL;
        r = xpu_roots_open(&smp->roots, smp->sys_root, smp->dev_root, smp->driver_root, &which);
        if (r < 0) {
                const char *dir = which && strcmp(which, "sys") == 0   ? smp->sys_root
                                  : which && strcmp(which, "dev") == 0 ? smp->dev_root
                                                                        : smp->driver_root;
                log_error("cannot open the %s root %s: %s", which ? which : "?", dir ? dir : "/", strerror(-r));
                xpud_sampler_free(smp);
                return r;
        }
        log_info("sampling every %u s (sys root %s, dev root %s, driver root %s, vendor timeout %u s)", smp->interval_s,
                 smp->roots.sys, smp->roots.dev, smp->roots.driver, smp->vendor_timeout_s);
        *ret = smp;
        return 0;
}

static void *sampler_main(void *arg) {
        struct xpud_sampler *smp = arg;
        struct timespec next;
        clock_gettime(CLOCK_MONOTONIC, &next);
        pthread_mutex_lock(&smp->lock);
        for (;;) {
                next.tv_sec += smp->interval_s;
                while (!smp->stop && pthread_cond_timedwait(&smp->wake, &smp->lock, &next) != ETIMEDOUT)
                        ;
                if (smp->stop)
                        break;
                pthread_mutex_unlock(&smp->lock);
                int r = xpud_sampler_sample(smp);
                if (r < 0)
                        log_error("sample failed: %s; trying again at the next interval", strerror(-r));
                pthread_mutex_lock(&smp->lock);
                /* A sample longer than the interval: the next one starts now, not in the past. */
                struct timespec now;
                clock_gettime(CLOCK_MONOTONIC, &now);
                if (now.tv_sec > next.tv_sec + (time_t)smp->interval_s)
                        next = now;
        }
        pthread_mutex_unlock(&smp->lock);
        /* End the vendor library helpers (NVML's session) here: one started by this thread gets
         * its parent-death SIGKILL as soon as the thread exits, before it could shut the library
         * down. */
        pthread_mutex_lock(&smp->sample_lock);
        for (size_t k = 0; k < _XPU_VENDOR_MAX; k++)
                if (xpu_vendors[k]->readings && xpu_vendors[k]->readings->stop)
                        xpu_vendors[k]->readings->stop(smp->state[k].ops_state);
        pthread_mutex_unlock(&smp->sample_lock);
        return NULL;
}

int xpud_sampler_start(struct xpud_sampler *smp) {
        if (!smp)
                return -EINVAL;
        pthread_mutex_lock(&smp->lock);
        int r = smp->started ? -EALREADY : -pthread_create(&smp->thread, NULL, sampler_main, smp);
        if (r == 0)
                smp->started = true;
        pthread_mutex_unlock(&smp->lock);
        return r;
}

struct xpud_sampler *xpud_sampler_free(struct xpud_sampler *smp) {
        if (!smp)
                return NULL;
        pthread_mutex_lock(&smp->lock);
        bool started = smp->started;
        smp->stop = true;
        pthread_cond_signal(&smp->wake);
        pthread_mutex_unlock(&smp->lock);
        if (started)
                pthread_join(smp->thread, NULL);
        for (size_t k = 0; k < _XPU_VENDOR_MAX; k++)
                if (xpu_vendors[k]->readings)
                        xpu_vendors[k]->readings->close(smp->state[k].ops_state);
        xpud_events_done(&smp->events);
        xpud_kernel_done(&smp->kernel);
        xpud_index_map_done(&smp->indices);
        if (smp->have_nfd)
                xpud_nfd_done(&smp->nfd);
        if (smp->have_cdi)
                xpud_cdi_dir_done(&smp->cdi);
        for (size_t k = 0; k < smp->n_warned; k++)
                free(smp->warned[k]);
        free(smp->warned);
        xpud_snapshot_unref(smp->prev);
        xpu_roots_close(&smp->roots);
        pthread_cond_destroy(&smp->wake);
        pthread_mutex_destroy(&smp->lock);
        pthread_mutex_destroy(&smp->sample_lock);
        free(smp->sys_root);
        free(smp->dev_root);
        free(smp->driver_root);
        free(smp);
        return NULL;
}
