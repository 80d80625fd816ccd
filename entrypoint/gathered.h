/* SPDX-License-Identifier: Apache-2.0 */
/* The facts the gathering step (gather.h) read for a plan: the device nodes, the driver's
 * version and files, what the container already has. Data only; the plan (plan.h) reads them,
 * and neither this header nor its file includes the plan or the gathering step. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "host-files.h"
#include "libs.h"
#include "needs.h"
#include "probe.h"

/* A driver file of the running version that the container already has, where its CDI spec
 * mounted it: not injected again. */
struct xpu_given_file {
        char path[PATH_MAX];  /* in the container: "/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07" */
        char name[256];       /* "libcuda.so.550.90.07" */
        char soname[256];     /* "libcuda.so.1"; "" for binaries and files without one */
        char capability[32];  /* capability that asked for it */
        bool is_binary;
        bool link;            /* the image's ld.so.cache does not list SONAME as this file (no CDI
                               * hook ran ldconfig): <library_dir>/SONAME -> PATH is planned */
};

/* One device node the plan checks, as found under the dev root. */
struct xpu_node_fact {
        char path[sizeof(((struct xpu_devnode *)0)->path)]; /* as the device node names it: "/dev/nvidiactl" */
        bool found; /* stat(2) of it inside the dev root succeeded */
        gid_t gid;  /* its group (st_gid) when found */
};

/* One node of a fabric device set found under the dev root (gather-fabric.c). */
struct xpu_fabric_found {
        char path[sizeof(((struct xpu_devnode *)0)->path)]; /* "/dev/infiniband/uverbs0" */
        size_t set;         /* its set: index into needs.fabric */
        bool chr;           /* a character device (else the plan refuses it) */
        uint32_t major, minor; /* its numbers when CHR */
        const char *major_name; /* the /proc/devices name its major must have (the set's data), NULL: any */
        int want_major;     /* that name's major in /proc/devices, or -errno (unknown) */
};

/* What gathering one fabric set left out (gather-fabric.c), for the plan's warning. */
struct xpu_fabric_cut {
        size_t matched;  /* entries read that matched a glob that left some out (GLOB) */
        size_t left_out; /* of those, beyond the XPU_FABRIC_NODES_MAX lowest of their glob: not gathered */
        bool unread;     /* a glob's directory had more than XPU_FABRIC_VISIT_MAX entries: the rest unread */
        const char *glob; /* the glob that left nodes out or was not read in full (the set's data); NULL: none */
        char highest[sizeof(((struct xpu_devnode *)0)->path)]; /* the highest path kept of GLOB */
};

/* What xpu_plan_gather() read. A step the plan does not reach for these inputs is not read, and
 * a failure of one is kept as its -errno for the plan to report where it always has. */
struct xpu_plan_facts {
        struct xpu_plan_needs needs; /* what the plan needs (needs.h), which decided what was read */

        /* Dev root: every node the plan may check (the profile's vendor-wide nodes, the selected
         * devices' own and their MIG capability nodes, the host-wide MIG capabilities asked for),
         * once per path. */
        struct xpu_node_fact *nodes;
        size_t n_nodes;
        /* Dev and sys roots, when needs.fabric.any: the nodes of each fabric set asked for, in the
         * sets' order (their groups are in NODES too): the channels a list names, each looked up by
         * its own path (and, when one is missing, the lowest channels the container has, for the
         * message), else the lowest XPU_FABRIC_NODES_MAX of each glob in version order; what each
         * set's globs left out. */
        struct xpu_fabric_found *fabric;
        size_t n_fabric;
        struct xpu_fabric_cut fabric_cut[XPU_FABRIC_SETS_MAX];

        /* Driver root, read when needs.files. */
        char driver_version[32];          /* the kernel driver's (the inventory's), else the libraries'
                                           * names' (xpu_driver_version_from_libraries); "" when neither */
        bool driver_version_from_libraries; /* the version came from the libraries' names */
        int driver_version_error;         /* 0, or -errno: the kernel reported none and no library named one */
        int files_error;                  /* xpu_driver_files_find(): 0 or -errno */
        struct xpu_driver_files *files;   /* the files of needs.capabilities, NULL when not looked for */
        int files32_error;                /* xpu_driver_files_find32(): 0 or -errno */
        struct xpu_driver_files *files32; /* their 32-bit copies, NULL when not looked for */
        int host_files_error;             /* xpu_host_files_find(): 0 or -errno */
        struct xpu_host_files *host_files; /* the profile's "files" found, NULL when not looked for; with
                                            * a host list, the files of its lines instead */
        /* Driver and dev root: the host's own list of what a container is given (the vendor's
         * plan.host_list, vendor.h: a Jetson's CSV files), read instead of the profile's files.
         * NULL when the host has none; its files are moved to HOST_FILES above. */
        struct xpu_host_list *host_list;
        int host_list_error;         /* 0, or the hook's -errno: HOST_LIST_WHY says why */
        char host_list_why[768];

        /* Container root, read when needs.files (forward compatibility: when the profile has it). */
        bool *host_file_present;    /* parallel to host_files->files: the container has that path as the
                                     * driver root's very file (same st_dev and st_ino) */
        bool *host_dir_has_entries; /* parallel: the container has a directory with entries there (a
                                     * host list's symlink: any directory) */
        struct xpu_given_file *given; /* driver files (of ->files) CDI already put in the container,
                                       * when the selection carries the vendor's CDI mark */
        size_t n_given;
        const char *ldconfig;       /* the image's ldconfig (a static string), NULL: none */
        bool ld_so_conf;            /* the image has /etc/ld.so.conf as a regular file */
        uint32_t wsl_links_taken;   /* WSL2: bit i set when the image has something at the vendor's
                                     * links[i] path (plan-wsl.h), which is then left as it is */
        int forward_compat;         /* xpu_forward_compat_find(): 1 found, 0 none, -errno */
        char forward_compat_version[64]; /* when found: "575.57.08" */
        /* Once the rich facts are read (xpu_gather_forward_compat_require, gather.h), when found:
         * the profile's forward_compat.require for the selected devices. */
        int forward_compat_require;       /* 1 holds (or there is none), 0 not, -ENOMEM */
        char forward_compat_why[1024];    /* why, for the plan's note: "no requirement" when none */
        /* The rich-facts step's (rich-facts.h), malloc'ed: the values of the profile's environment
         * placeholders (profile.h), which the plan expands the profile's edits with and the
         * device-code verdict reads the environment of; NULL expands to "". */
        char *placeholders[_XPU_PLACEHOLDER_MAX];
};

struct xpu_plan_facts *xpu_plan_facts_free(struct xpu_plan_facts *f);
static inline void xpu_plan_facts_freep(struct xpu_plan_facts **f) {
        xpu_plan_facts_free(*f);
}

/* The gathered node of PATH, NULL when it was not gathered. */
const struct xpu_node_fact *xpu_plan_facts_node(const struct xpu_plan_facts *f, const char *path);
