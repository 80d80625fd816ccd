/* SPDX-License-Identifier: Apache-2.0 */
/* The gathering step between profile and plan: everything the plan needs to know about the
 * driver root, the dev root and the container root, read once (gather.c, gather-cdi.c), so that
 * xpu_plan_build() (plan.h) reads nothing itself. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "host-files.h"
#include "libs.h"
#include "plan.h"
#include "probe.h"
#include "profile.h"
#include "select.h"

/* One device node the plan checks, as found under the dev root. */
struct xpu_node_fact {
        char path[sizeof(((struct xpu_devnode *)0)->path)]; /* as the device node names it: "/dev/nvidiactl" */
        bool found; /* stat(2) of it inside the dev root succeeded */
        gid_t gid;  /* its group (st_gid) when found */
};

/* What xpu_plan_gather() read. A step the plan does not reach for these inputs is not read, and
 * a failure of one is kept as its -errno for the plan to report where it always has. */
struct xpu_plan_facts {
        struct xpu_plan_needs needs; /* what the plan needs (plan.h), which decided what was read */

        /* Dev root: every node the plan may check (the profile's vendor-wide nodes, the selected
         * devices' own and their MIG capability nodes, the host-wide MIG capabilities asked for),
         * once per path. */
        struct xpu_node_fact *nodes;
        size_t n_nodes;

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
        struct xpu_host_files *host_files; /* the profile's "files" found, NULL when not looked for */

        /* Container root, read when needs.files (forward compatibility: when the profile has it). */
        bool *host_file_present;    /* parallel to host_files->files: the container has that path as the
                                     * driver root's very file (same st_dev and st_ino) */
        bool *host_dir_has_entries; /* parallel: the container has a directory with entries there */
        struct xpu_given_file *given; /* driver files (of ->files) CDI already put in the container,
                                       * when the selection carries the vendor's CDI mark */
        size_t n_given;
        const char *ldconfig;       /* the image's ldconfig (a static string), NULL: none */
        bool ld_so_conf;            /* the image has /etc/ld.so.conf as a regular file */
        int forward_compat;         /* xpu_forward_compat_find(): 1 found, 0 none, -errno */
        char forward_compat_version[64]; /* when found: "575.57.08" */
};

/* Read what the plan for PR (with INV, SEL and O) needs from the roots behind O->driver_fd,
 * O->dev_fd and O->container_fd (each may be negative: nothing read there): the needs
 * (xpu_plan_needs), the device nodes' groups, the driver version and files, the files CDI gave,
 * the image's loader and forward-compatibility build. Reads only, silent. Returns 0 with *RET set
 * (free with xpu_plan_facts_free()), or -ENOMEM with ERR saying so. */
int xpu_plan_gather(const struct xpu_inventory *inv, const struct xpu_selection *sel, const struct xpu_profile *pr,
                    const struct xpu_plan_options *o, struct xpu_plan_facts **ret, char *err, size_t err_size);

struct xpu_plan_facts *xpu_plan_facts_free(struct xpu_plan_facts *f);
static inline void xpu_plan_facts_freep(struct xpu_plan_facts **f) {
        xpu_plan_facts_free(*f);
}

/* The gathered node of PATH, NULL when it was not gathered. */
const struct xpu_node_fact *xpu_plan_facts_node(const struct xpu_plan_facts *f, const char *path);

/* The newest "<library>.<version>" (a regular file, VERSION digits and dots) in the profile's
 * forward_compat directory of the container root CONTAINER_FD (resolved inside the root), e.g.
 * /usr/local/cuda/compat/libcuda.so.575.57.08. Writes the version into VERSION. Returns 1 when
 * found, 0 when the profile has no forward_compat or the image has no such file, -errno. */
int xpu_forward_compat_find(const struct xpu_profile *pr, int container_fd, char *version, size_t size);

/* The files of FILES (found in the driver root) that the container root CONTAINER_FD already has
 * under the same name, which carries the running version (gather-cdi.c): a library as a regular
 * file in CDI_LIBDIR (the CDI mark's directory, NULL: none) or one of xpu_library_dirs (where CDI
 * specs mount the host's libraries: at their host paths), a binary in /usr/bin, /usr/sbin, /bin or
 * /sbin (symlinks followed inside the root). Each one goes, in FILES' order, into the new array
 * *RET (*RET_N entries), with link set when its soname is not listed in the image's
 * /etc/ld.so.cache as that very file (same device and inode), i.e. when no CDI hook ran ldconfig
 * and the loader would not find it. Reads only. Returns the number of files found (0: *RET NULL),
 * or -ENOMEM. */
int xpu_gather_given(int container_fd, const char *cdi_libdir, const struct xpu_driver_files *files,
                     struct xpu_given_file **ret, size_t *ret_n);
