/* SPDX-License-Identifier: Apache-2.0 */
/* RDMA verbs (InfiniBand, RoCE), the vendor-neutral fabric device set: NCCL, RCCL and oneCCL
 * reach the NIC through the same nodes whatever the GPU. The NIC's user-space libraries
 * (libibverbs and its provider, librdmacm) stay the image's: only nodes are given (fabric.h). */
#include "fabric.h"

/* The nodes rdma-core opens (Linux: drivers/infiniband/core/uverbs_main.c, user_mad.c, ucma.c). */
static const struct xpu_fabric_node rdma_nodes[] = {
        /* ibv_open_device(): uverbs<N>, major 231 minors from 192 ("infiniband_verbs" region;
         * past 32 devices a dynamic region of the same name) */
        { "/dev/infiniband/uverbs*", "infiniband_verbs" },
        /* librdmacm's connection manager: a misc device (major 10, dynamic minor) */
        { "/dev/infiniband/rdma_cm", NULL },
        /* libibumad (subnet queries of UCX and NCCL's IB plugin): umad<N>, major 231 minors from 0 */
        { "/dev/infiniband/umad*", "infiniband_mad" },
        { NULL, NULL },
};

const struct xpu_fabric_set xpu_fabric_rdma = {
        .name = "rdma",
        .what = "RDMA verbs (InfiniBand/RoCE)",
        .variable = "XPU_RDMA",
        .alias = NULL, /* each vendor's own name for it is its descriptor's: see needs-fabric.c */
        .channels = false,
        .nodes = rdma_nodes,
        .fix = "the host needs an RDMA NIC with its kernel driver and ib_uverbs loaded, and the runtime must "
               "pass /dev/infiniband (docker --device /dev/infiniband, an RDMA device plugin, or CDI)",
};
