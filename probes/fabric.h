/* SPDX-License-Identifier: Apache-2.0 */
/* Fabric device sets: the device nodes of multi-GPU, multi-node jobs that belong to no one GPU
 * (RDMA verbs, IMEX channels, GDRCopy, GPUDirect Storage, NVSwitch), given to a container only
 * on request. Each set is plain data: the variable that asks for it, the node globs under /dev and
 * the /proc/devices name of each node's major. The vendor-neutral sets are defined beside this
 * (rdma.c); a vendor's own sets are its descriptor's (struct xpu_vendor_ops.fabric). The step that
 * reads a request is entrypoint/needs-fabric.c, the nodes are gathered by entrypoint/gather-fabric.c
 * and checked by entrypoint/plan-fabric.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe.h"

#define XPU_FABRIC_SETS_MAX 8        /* sets of every vendor together */
#define XPU_FABRIC_CHANNELS_MAX 64   /* channel ids in one list (NVIDIA_IMEX_CHANNELS=0,1,...) */
#define XPU_FABRIC_NODES_MAX 256     /* nodes of one glob gathered, its lowest: a bound on a hostile /dev */
#define XPU_FABRIC_VISIT_MAX 65536   /* entries read from one glob's directory (a /dev holds a few hundred) */
#define XPU_FABRIC_CHANNEL_MAX 1048575u /* the largest minor number (MINORBITS = 20) */

/* One node, or a family of nodes, of a set. */
struct xpu_fabric_node {
        /* An absolute path under /dev; its last component may hold one '*' ("/dev/infiniband/uverbs*"):
         * every entry of the directory that matches, in name order. */
        const char *glob;
        /* The name of the node's character device major in /proc/devices ("infiniband_verbs"), or
         * NULL when the major is not the driver's own (rdma_cm is a misc device). */
        const char *major;
};

/* One set, as data. */
struct xpu_fabric_set {
        const char *name;     /* "rdma", "imex", ...: the profile's "fabric" word, plan notes */
        const char *what;     /* "InfiniBand/RoCE verbs (RDMA)": what the nodes are, for messages */
        const char *variable; /* "XPU_RDMA", "NVIDIA_IMEX_CHANNELS": the variable that asks for it */
        const char *alias;    /* read when VARIABLE is unset ("NVIDIA_MOFED"); NULL: none */
        /* true: VARIABLE is a channel list ("all", "none", "0,1"; xpu_fabric_parse_channels()) and
         * NODES has one entry whose '*' is the channel id. false: VARIABLE is "enabled" or
         * "disabled" (xpu_fabric_parse_enabled()). */
        bool channels;
        const struct xpu_fabric_node *nodes; /* ended by a NULL glob */
        const char *fix; /* how a host gives the nodes, after "; ": "load the gdrdrv module ..." */
};

/* Every set of every vendor: the vendor-neutral ones first, then each vendor's in xpu_vendors[]
 * order. SETS[i] and VENDOR[i] (the set's vendor, or _XPU_VENDOR_MAX for a vendor-neutral set)
 * for i below the returned count (at most XPU_FABRIC_SETS_MAX). */
size_t xpu_fabric_sets(const struct xpu_fabric_set *sets[XPU_FABRIC_SETS_MAX],
                       enum xpu_vendor vendor[XPU_FABRIC_SETS_MAX]);

/* NULL when NAME is the name of a set of some vendor, else what a profile's "fabric" entry must
 * be (for the profile parser's message). */
const char *xpu_fabric_name_invalid(const char *name);

/* What asks for one set (set by entrypoint/needs-fabric.c). */
struct xpu_fabric_request {
        bool wanted;
        bool required;      /* the environment asked: a host without the nodes fails the start */
        bool all;           /* channels: every channel the container has */
        char source[96];    /* "XPU_RDMA=enabled", "profile nvidia-cuda": what asked, for messages */
        uint32_t channels[XPU_FABRIC_CHANNELS_MAX]; /* the channel ids asked for, ascending, each once */
        size_t n_channels;
};

/* A channel list: "all" (R->all), "none" or "" (no channel: R->wanted false), else decimal ids
 * separated by commas, each at most XPU_FABRIC_CHANNEL_MAX, kept ascending and once each; spaces
 * around an id are allowed. Returns 0 (R->wanted set for a list or "all"), -EINVAL with ERR
 * naming the bad entry, or -E2BIG for more than XPU_FABRIC_CHANNELS_MAX ids. Bounded by the
 * value's length; silent. */
int xpu_fabric_parse_channels(const char *value, struct xpu_fabric_request *r, char *err, size_t err_size);

/* "enabled" (the NVIDIA Container Toolkit's word) → 1; "disabled" or "" → 0; anything else
 * -EINVAL. */
int xpu_fabric_parse_enabled(const char *value);

/* How many channels of SET (a channel-list set: its one glob, "/dev/nvidia-caps-imex-channels/
 * channel*") the dev root DEV_FD holds, for xpud: the entries named as channel ID (the glob with a
 * decimal id, xpu_fabric_channel_id()) that are character devices whose minor is that id and whose
 * major is the one /proc/devices under SYS_FD gives the glob's driver (any major when it names
 * none, or SYS_FD < 0). Bounded: at most VISIT_MAX directory entries are read (xpud:
 * XPU_FABRIC_VISIT_MAX); *RET_CUT is set true when the directory had more (the count is then a
 * lower bound). Returns the count, -ENOENT when the directory is absent, or another -errno. Silent. */
int xpu_fabric_count_nodes(int dev_fd, int sys_fd, const struct xpu_fabric_set *set, size_t visit_max, bool *ret_cut);

/* The channel id PATH names as a node of SET (its one glob, "/dev/nvidia-caps-imex-channels/
 * channel*", with the '*' a decimal number without leading zeros, at most XPU_FABRIC_CHANNEL_MAX;
 * the driver makes channel N with minor N). Returns 0 with *RET, or -EINVAL when PATH is not
 * such a name. Pure. */
int xpu_fabric_channel_id(const struct xpu_fabric_set *set, const char *path, uint32_t *ret);

/* The path of channel ID of SET (its one glob with the '*' replaced) into BUF. Returns 0 or
 * -ENAMETOOLONG. */
int xpu_fabric_channel_path(const struct xpu_fabric_set *set, uint32_t id, char *buf, size_t size);
