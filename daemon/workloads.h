/* SPDX-License-Identifier: Apache-2.0 */
/* Which pod uses which GPU (docs/kubernetes.md "Pod attribution"): a thread of its own asks the
 * kubelet's pod-resources API (podres.h) at most once per sample, with a deadline, and keeps the
 * last good answer with its time; the sampler takes the latest answer (a reference, under a short
 * lock) and maps it onto the sample's devices, so a slow, restarting or gone kubelet never delays
 * a sample or a request: the last answer stays in use, its age in xpud_pod_resources_age_seconds.
 *
 * Mapping, the same rule for every vendor:
 *   device plugins  each vendor's descriptor (vendor.h, struct xpu_vendor_k8s) names its plugin's
 *                   resources and turns an id into a device key (UUID, MIG UUID, PCI bus id,
 *                   render minor, card number), matched against the sample's devices;
 *   DRA             each CDI device name of a claim → its device node numbers (cdi-devices.h,
 *                   read from --cdi-spec-dirs) → the device whose per-device node (/dev/nvidiaN,
 *                   /dev/dri/renderD<N>, /dev/dri/card<N>) has that major:minor.
 * An id or CDI device that names no GPU of the node is counted (xpud_workload_unmatched_ids) and
 * logged once per change of that count, never guessed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cdi-devices.h"
#include "podres.h"
#include "probe.h"
#include "snapshot.h"

#define XPUD_POD_RESOURCES_DEFAULT "/var/lib/kubelet/pod-resources/kubelet.sock"
#define XPUD_CDI_SPEC_DIRS_DEFAULT "/etc/cdi,/var/run/cdi"
#define XPUD_CDI_SPEC_DIRS_MAX 8 /* directories of --cdi-spec-dirs */

/* One List answer with its DRA claims' CDI devices resolved to node numbers: immutable once made,
 * shared by reference between the client thread and the snapshots that use it. */
struct xpud_podres_answer;

/* How an answer turns a CDI device name into node numbers: up to MAX into NODES, their count in
 * *N; 0 or -errno (-ENOENT: unknown). The client passes CDI's (cdi-devices.h, through
 * xpud_workloads_cdi_resolve()); tests pass their own. */
typedef int (*xpud_cdi_resolve_fn)(const void *ctx, const char *name, dev_t *nodes, size_t max, size_t *n);
/* xpud_cdi_devices_lookup() as an xpud_cdi_resolve_fn (CTX: a struct xpud_cdi_devices, or NULL). */
int xpud_workloads_cdi_resolve(const void *ctx, const char *name, dev_t *nodes, size_t max, size_t *n);

/* Make an answer of *LIST (its contents are taken: *LIST is zeroed) received at TIME (unix
 * seconds), resolving each DRA allocation's CDI device names with RESOLVE (NULL: none resolve).
 * FREE_LIST frees the list with the last reference (NULL: xpud_podres_list_free()). Returns the
 * answer with one reference, or NULL on -ENOMEM (the list freed). */
struct xpud_podres_answer *xpud_podres_answer_new(struct xpud_podres_list *list, double time,
                                                  xpud_cdi_resolve_fn resolve, const void *ctx,
                                                  void (*free_list)(struct xpud_podres_list *l));
struct xpud_podres_answer *xpud_podres_answer_ref(struct xpud_podres_answer *a);
/* Drop a reference (A: a struct xpud_podres_answer, or NULL); the last one frees it. */
void xpud_podres_answer_unref(void *a);
/* The unix time the answer was received. */
double xpud_podres_answer_time(const struct xpud_podres_answer *a);

/* Map A onto S's devices (in S's order, as the sampler publishes them): S->workloads grouped by
 * device, sorted by namespace, pod, container, resource, claim, one entry per device and
 * container whatever number of ids named it; each device's workloads and n_workloads; S->podres.
 * unmatched_ids. S takes a reference on A (its strings). ROOTS: the host (an AMD partition's id
 * is told by sysfs). When ids match nothing, UNMATCHED (UNMATCHED_SIZE bytes, may be NULL) names
 * the first ("amd.com/gpu id 0000:99:00.0"). Returns 0 or -ENOMEM (S unchanged). */
int xpud_workloads_map(struct xpud_podres_answer *a, const struct xpu_roots *roots, struct xpud_snapshot *s,
                       char *unmatched, size_t unmatched_size);

struct xpud_workloads_options {
        const char *socket_path;   /* --pod-resources; NULL: XPUD_POD_RESOURCES_DEFAULT */
        bool socket_given;         /* given on the command line: a missing socket is a warning, and
                                    * retried; the default is used only when it exists at start */
        unsigned interval_s;       /* the sampler's interval: bounds the deadline */
        const char *cdi_spec_dirs; /* --cdi-spec-dirs, comma-separated absolute directories; NULL: default */
        const char *dev_root;      /* --dev-root: node paths of specs without numbers are looked up there */
        bool labels;               /* --workload-labels */
};

struct xpud_workloads;

/* Set up the client (nothing runs until xpud_workloads_start()). Returns 0 and *RET; *RET NULL
 * when the client is off: SOCKET_PATH "none", or the default socket missing (one info line).
 * -EINVAL for a bad --cdi-spec-dirs (logged), -ENOMEM. */
int xpud_workloads_new(const struct xpud_workloads_options *o, struct xpud_workloads **ret);
/* Start the client thread: one List call after each xpud_workloads_attach(). 0 or -errno. NULL-safe. */
int xpud_workloads_start(struct xpud_workloads *w);
/* For the sampler: map the latest answer onto S (xpud_workloads_map()), fill S->podres, and ask
 * the thread for the next List. Never waits for the kubelet. W NULL: the client is off (S->podres.on
 * false). Returns 0 or -ENOMEM. */
int xpud_workloads_attach(struct xpud_workloads *w, const struct xpu_roots *roots, struct xpud_snapshot *s);
/* List calls made since start (tests). */
uint64_t xpud_workloads_calls(struct xpud_workloads *w);
/* Stop the thread (a call in flight ends at its deadline) and free. NULL-safe; returns NULL. */
struct xpud_workloads *xpud_workloads_free(struct xpud_workloads *w);
