/* SPDX-License-Identifier: Apache-2.0 */
/* The kubelet's pod-resources API (v1.PodResourcesLister/List, gRPC over the UNIX socket
 * /var/lib/kubelet/pod-resources/kubelet.sock): which container holds which device-plugin device
 * ids and which DRA claims (as fully qualified CDI device names). This is the client only: one
 * call with a deadline, decoded into struct xpud_podres_list. Mapping the ids to GPUs and keeping
 * the last answer is workloads.h's job.
 *
 * The messages and field numbers are the published API's (kubernetes
 * staging/src/k8s.io/kubelet/pkg/apis/podresources/v1/api.proto), written again in
 * daemon/podresources.proto; the wire is HTTP/2 (nghttp2) carrying gRPC's length-prefixed
 * messages, the payload is decoded with protobuf-c. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Limits on one reply; past them the reply is refused whole (-EMSGSIZE), never cut. The kubelet's
 * own default server limit is 16 MiB; 100 pods of GPU jobs take a few KiB. */
#define XPUD_PODRES_REPLY_MAX (4u << 20)    /* bytes of the gRPC message */
#define XPUD_PODRES_ALLOCS_MAX 65536u        /* allocations kept (below) */
#define XPUD_PODRES_IDS_MAX 262144u          /* device ids and CDI names, all allocations together */
#define XPUD_PODRES_STRING_MAX 1024u         /* bytes of one name or id */

/* Default deadline of one List call, milliseconds. */
#define XPUD_PODRES_TIMEOUT_MS 2000u

/* One allocation: what one device-plugin resource (one ContainerDevices), or one resource of a
 * DRA claim (one ClaimResource: a claim served by two drivers gives two allocations with the same
 * claim), gives one container. Containers without devices or claims (CPU and memory only) are not
 * listed; an entry the kubelet sends without ids is kept, with n_ids 0. Every string is UTF-8
 * without control characters, at most XPUD_PODRES_STRING_MAX bytes (the claim twice that + 1). */
struct xpud_podres_alloc {
        const char *pod_namespace; /* PodResources.namespace */
        const char *pod;           /* PodResources.name */
        const char *container;     /* ContainerResources.name */
        /* Device plugin: ContainerDevices.resource_name ("nvidia.com/gpu", "amd.com/gpu",
         * "gpu.intel.com/i915", "nvidia.com/mig-1g.10gb"). DRA: ClaimResource.driver_name
         * ("gpu.nvidia.com"), "" when the kubelet does not send it (before Kubernetes 1.31). */
        const char *resource;
        /* DRA only: "<claim_namespace>/<claim_name>"; NULL for a device plugin. */
        const char *claim;
        /* Device plugin: ContainerDevices.device_ids as the plugin named them (GPU or MIG UUIDs,
         * PCI bus ids, card names: workloads.c maps them). DRA: the claim's CDI device names
         * ("k8s.gpu.nvidia.com/claim=<uid>-gpu-0"). */
        const char *const *ids;
        size_t n_ids;
};

/* A decoded List reply. All strings live in one arena the list owns. */
struct xpud_podres_list {
        struct xpud_podres_alloc *allocs;
        size_t n_allocs;
        size_t n_pods;             /* pods in the reply, with or without devices */
        void *arena;               /* private */
};

/* Decode one ListPodResourcesResponse protobuf payload (without gRPC's 5-byte prefix) of LEN bytes
 * into *OUT (zeroed first; free with xpud_podres_list_free() also on error). Unknown fields are
 * skipped, as protobuf requires. Returns 0; -EPROTO for bytes that are not such a message, or a
 * string of any field that is not UTF-8 or holds a control character (NUL, C0, DEL, C1): the
 * field is named; -EMSGSIZE past a limit above; -ENOMEM. On error ERR (ERR_SIZE bytes) holds one
 * line saying what was wrong ("pod-resources reply: ..."). Bounded: work is linear in LEN.
 * MSG may be NULL when LEN is 0 (the empty reply: no pods). */
int xpud_podres_decode(const uint8_t *msg, size_t len, struct xpud_podres_list *out, char *err,
                       size_t err_size);

/* Call v1.PodResourcesLister/List on the UNIX socket at SOCKET_PATH and decode the reply into *OUT
 * (as above). The whole call (connect, request, reply) ends within TIMEOUT_MS milliseconds (0:
 * XPUD_PODRES_TIMEOUT_MS), whatever the peer does; it raises no signal and keeps no state between
 * calls (one connection per call). Thread-safe: nothing is shared. Returns 0, or -errno with one
 * line in ERR naming the socket and what happened: -ENOENT/-ECONNREFUSED (no kubelet there),
 * -EACCES, -ENAMETOOLONG (the path does not fit sun_path), -ETIMEDOUT (deadline), -EPROTO (not
 * HTTP/2 or gRPC, a gRPC status other than OK: its code, name and message in ERR, or a reply that
 * does not decode), -EMSGSIZE (the reply announces or sends more than XPUD_PODRES_REPLY_MAX:
 * refused as soon as its prefix says so), -ECONNRESET (the peer closed the connection before the
 * reply was complete, or refused the call with GOAWAY: a kubelet going away), -ENOMEM. */
int xpud_podres_call(const char *socket_path, unsigned timeout_ms, struct xpud_podres_list *out,
                     char *err, size_t err_size);

/* Free what *L holds and zero it. NULL-safe. */
void xpud_podres_list_free(struct xpud_podres_list *l);
