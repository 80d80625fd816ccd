/* SPDX-License-Identifier: Apache-2.0 */
/* xpud's sampler: one thread that, every interval, probes the inventory (fast path),
 * reads every device's readings (AMD: amdgpu sysfs/hwmon directly; NVIDIA: NVML through the
 * isolated helper, one NVML session kept between samples) and the GPU drivers' kernel log
 * events (kernel-events.h), evaluates health, records events,
 * and publishes a new immutable snapshot (snapshot.h). Requests never wait for it. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "probe.h"
#include "snapshot.h"
#include "workloads.h"

struct xpud_sampler_options {
        const char *sys_root;    /* NULL: "/" (--sys-root) */
        const char *dev_root;    /* NULL: "/" (--dev-root) */
        const char *driver_root; /* NULL: as xpuinit picks it (--driver-root) */
        unsigned interval_s;     /* seconds between samples, >= 1 (--interval, default 10) */
        unsigned vendor_timeout_s; /* bound on one vendor-library call (--vendor-timeout, default 10) */
        const char *nfd_file;    /* NULL, or the Node Feature Discovery labels file (--nfd-file) */
        const char *cdi_dir;     /* NULL, or the CDI spec directory (--cdi-dir, cdi-dir.h) */
        const char *cdi_host_root; /* --cdi-host-root, NULL: "/" */
        size_t events_max;       /* ring size of /v1/events; 0 = 256 */
        int kmsg_fd;             /* the kernel log (kmsg.h: xpud_kmsg_open_path()), taken by the
                                  * sampler; -1: none. 0 is taken as none too (a zeroed struct) */
        const char *kmsg_path;   /* its path, for messages */
        struct xpud_workloads *workloads; /* the pod-resources client (workloads.h), borrowed: it must
                                           * outlive the sampler; NULL: off */
};

struct xpud_sampler;

/* Called on the sampler thread after each snapshot is published (e.g. READY=1 after the first,
 * WATCHDOG=1). Must not block. */
typedef void (*xpud_sample_cb)(void *userdata, const struct xpud_snapshot *s);

/* Take one sample now, on the calling thread, and publish it to STORE (tests, and the first
 * sample before the server starts). Returns 0 or -errno (-ENOMEM; a vendor failure is not an
 * error: it is in the snapshot). */
int xpud_sampler_sample(struct xpud_sampler *smp);

/* Create a sampler publishing to STORE. Nothing runs until xpud_sampler_start(). Returns 0 and
 * *RET, -EINVAL for bad options (message logged), or -errno (roots cannot be opened: logged). */
int xpud_sampler_new(const struct xpud_sampler_options *o, struct xpud_store *store, xpud_sample_cb cb,
                     void *userdata, struct xpud_sampler **ret);
/* Start the thread: samples every interval until xpud_sampler_free(). Returns 0 or -errno. */
int xpud_sampler_start(struct xpud_sampler *smp);
/* Stop the thread (waits at most one vendor timeout), close the NVML session, free. NULL-safe. */
struct xpud_sampler *xpud_sampler_free(struct xpud_sampler *smp);
