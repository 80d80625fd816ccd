/* SPDX-License-Identifier: Apache-2.0 */
/* Device selection: XPU_VISIBLE_DEVICES, else the NVIDIA Container Toolkit's
 * NVIDIA_VISIBLE_DEVICES and AMD's AMD_VISIBLE_DEVICES, read together with the marks a vendor's
 * CDI spec leaves in the container. Selection narrows what the container runtime gave (devices
 * whose nodes are present); it never widens it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe.h"

/* What the environment asked of one vendor. */
enum xpu_request {
        XPU_REQUEST_DEFAULT = 0, /* nothing said: every available device of the vendor */
        XPU_REQUEST_ALL,         /* "all" */
        XPU_REQUEST_LIST,        /* an explicit list */
        XPU_REQUEST_NONE,        /* "none": no device of this vendor */
        XPU_REQUEST_VOID,        /* "void" or empty: as if the variable were absent for injection:
                                  * no device and no vendor files */
        XPU_REQUEST_CDI,         /* "void", empty or unset in a container the vendor's CDI spec made
                                  * (its mark is set): every available device, as CDI gave them */
};

struct xpu_selection {
        bool *selected; /* one flag per inventory device (inv->n_devices) */
        uint32_t *mig;  /* one mask per inventory device: bit M = its MIG device M (xpu_device.mig[M]) is
                         * selected, and then only those (the device's selected flag is set: its own
                         * nodes are needed too); 0 = the whole device, when selected */
        size_t n;
        enum xpu_request request[_XPU_VENDOR_MAX];
        const char *source[_XPU_VENDOR_MAX];   /* variable that decided, or "default" (static strings) */
        const char *cdi_mark[_XPU_VENDOR_MAX]; /* the CDI mark found for the vendor (a variable name,
                                                * borrowed from the caller), NULL when none: then
                                                * driver files CDI put in the container are not
                                                * injected again (planner.c), whatever decided */
        char *cdi_libdir[_XPU_VENDOR_MAX];     /* where the mark says CDI put the vendor's driver
                                                * libraries (an absolute path in the container,
                                                * malloc'ed), NULL when it does not say */
        /* NVIDIA_MIG_CONFIG_DEVICES=all, NVIDIA_MIG_MONITOR_DEVICES=all: the host-wide MIG config
         * and monitor capability nodes are wanted too (xpu_vendor_info.mig_config_cap, ...) */
        bool mig_config, mig_monitor;
        /* The value the vendor's variable (xpu_vendor_visibility.variable) must have in the
         * workload when XPU_VISIBLE_DEVICES decided and the variable is the vendor runtime's own
         * selection (ZE_AFFINITY_MASK; "" = unset it); NULL: leave the variable as it is. Malloc'ed. */
        char *workload_env[_XPU_VENDOR_MAX];
};

/* What the environment says, for xpu_selection_parse_env(). Strings are borrowed. */
struct xpu_selection_env {
        const char *xpu_visible;                 /* XPU_VISIBLE_DEVICES, NULL = unset */
        const char *visible[_XPU_VENDOR_MAX];    /* NVIDIA_VISIBLE_DEVICES, AMD_VISIBLE_DEVICES */
        /* The vendor's CDI mark when the container carries it: the name of the variable that a
         * spec of the vendor's CDI generator sets (NVIDIA: NVIDIA_CTK_LIBCUDA_DIR, set by
         * nvidia-ctk and every spec of NVIDIA's nvcdi library, pkg/nvcdi/wrapper.go;
         * AMD: DRA_RESOURCE_DRIVER_NAME=gpu.amd.com of AMD's DRA driver). NULL: no mark. */
        const char *cdi_mark[_XPU_VENDOR_MAX];
        const char *cdi_libdir[_XPU_VENDOR_MAX]; /* the mark's value when it names the library
                                                  * directory (NVIDIA_CTK_LIBCUDA_DIR), else NULL */
        const char *mig_config;  /* NVIDIA_MIG_CONFIG_DEVICES: NULL/"" = no, "all" = yes, else an error */
        const char *mig_monitor; /* NVIDIA_MIG_MONITOR_DEVICES, the same */
};

/* Fill ENV from the environment (secure_getenv): XPU_VISIBLE_DEVICES; for each vendor whose
 * driver INV found, its own variable (NVIDIA_VISIBLE_DEVICES, AMD_VISIBLE_DEVICES; on a host
 * without that driver it is ignored, logged at info level, so one image for both vendors may set
 * both) and its CDI mark. The values are borrowed from the environment. */
void xpu_selection_env_read(const struct xpu_inventory *inv, struct xpu_selection_env *env);

struct xpu_selection *xpu_selection_free(struct xpu_selection *s);

/* Build the selection for INV from the values of XPU_VISIBLE_DEVICES and of each vendor's own
 * variable (VISIBLE[vendor], xpu_vendor_visibility.variable: NVIDIA_VISIBLE_DEVICES,
 * AMD_VISIBLE_DEVICES; VISIBLE NULL or an entry NULL = unset). XPU_VISIBLE_DEVICES, when set, decides for all vendors;
 * entries are xpuinit indices, UUIDs, PCI bus ids (any spelling), or "vendor:index".
 * NVIDIA_VISIBLE_DEVICES: all, none, void/empty, or a list of nvidia-smi indices, GPU-UUIDs and
 * PCI bus ids. Both take MIG devices as the NVIDIA Container Toolkit names them: "<gpu>:<mig>"
 * (the GPU's index as the variable reads plain numbers, M of xpu_device.mig[M]), "MIG-<uuid>"
 * (NVML's UUID) and "MIG-GPU-<gpu uuid>/<gi>/<ci>"; "all", the default and CDI take every MIG
 * device given (xpu_mig_available()) of a GPU that has any, else the GPU. AMD_VISIBLE_DEVICES: all, none, a list of indices, ranges "0-3", UUIDs
 * ("GPU-<hex>" or the unique id "0x<hex>") and PCI bus ids.
 * "all" and the default select only available devices (xpu_device_available()); an explicit
 * entry naming an unavailable device is an error, and so is a range with an index no device has
 * ("no amd device 8 in range \"0-9\""). Returns 0, or -EINVAL with ERR holding one line
 * naming the variable, the bad entry and the devices that exist, e.g.
 * "XPU_VISIBLE_DEVICES: no device \"7\"; devices: 0 (nvidia:0 GPU-... 0000:1a:00.0), ...". */
int xpu_selection_parse(const struct xpu_inventory *inv, const char *xpu_visible,
                        const char *const visible[_XPU_VENDOR_MAX], struct xpu_selection **ret, char *err,
                        size_t err_size);

/* xpu_selection_parse() with the CDI marks of ENV. For a vendor whose mark is set, its variable
 * unset, "void" or empty (what NVIDIA's CDI specs set: NVIDIA_VISIBLE_DEVICES=void, to keep the
 * toolkit's own hook from injecting a second time) is XPU_REQUEST_CDI: the devices CDI gave
 * (every available one) are the selection. "none", "all" and lists keep their meaning, and
 * XPU_VISIBLE_DEVICES still decides for every vendor when set. Without the mark, "void", "none"
 * and "" keep the toolkit's meaning (no device). The marks and libdirs are copied into *RET
 * (cdi_mark, cdi_libdir) whatever decided; a libdir that is not an absolute path is left out.
 * Returns as xpu_selection_parse(). */
int xpu_selection_parse_env(const struct xpu_inventory *inv, const struct xpu_selection_env *env,
                            struct xpu_selection **ret, char *err, size_t err_size);

/* Does a variable of ENV that selection reads (XPU_VISIBLE_DEVICES when set, else the vendors')
 * name a MIG device by its UUID ("MIG-<uuid>", alone or after a CDI kind's '='; not the
 * "MIG-GPU-<uuid>/<gi>/<ci>" form)? Only NVML knows those UUIDs: the caller reads it first. */
bool xpu_selection_env_names_mig_uuid(const struct xpu_selection_env *env);

/* WSL2: a vendor's GPUs are one entry (its driver store, source "wsl") until its rich path
 * counts them (wsl.h, xpu_wsl_expand()). The rich sources (1u << enum xpu_source) of each vendor
 * with such an entry in INV whose selection variable of ENV (XPU_VISIBLE_DEVICES when set, else
 * the vendor's) names devices (anything but unset, empty, "all", "none", "void"): the caller
 * reads them first, as alternatives, so that an index or a UUID names one GPU. 0: none needed. */
uint32_t xpu_selection_env_wsl_sources(const struct xpu_inventory *inv, const struct xpu_selection_env *env);

/* Longest list a vendor's translate or mask hook may write (xpu_vendor_visibility). */
#define XPU_SELECTION_LIST_MAX 8192

/* VALUE of vendor V's variable in the list the vendor rules read, when the vendor translates it
 * (xpu_vendor_visibility.translate: *RET_LIST malloc'ed); *RET_LIST NULL when it does not.
 * Returns 0, -ENOMEM, or -EINVAL with ERR. */
int xpu_selection_translate(const struct xpu_inventory *inv, enum xpu_vendor v, const char *value, char **ret_list,
                            char *err, size_t err_size);

/* After XPU_VISIBLE_DEVICES decided: for each vendor with a mask hook (xpu_vendor_visibility.mask)
 * that has selected devices or whose variable VISIBLE[v] was set, S->workload_env[v] = the value
 * that selects them in the vendor runtime's numbering ("" unsets a variable the image set that
 * is not needed). Returns 0, -ENOMEM, or -EINVAL with ERR. */
int xpu_selection_write_back(const struct xpu_inventory *inv, struct xpu_selection *s, const char *const *visible,
                             char *err, size_t err_size);

/* Number of selected devices of VENDOR. */
size_t xpu_selection_count(const struct xpu_selection *s, const struct xpu_inventory *inv,
                           enum xpu_vendor vendor);

/* Warn when INV has GPUs of a vendor but SEL got none of them because this container lacks their
 * device nodes, and nothing was selected: the start falls back to the cpu profile, which is what a
 * pod that forgot its GPU resource (or a `docker run` without --gpus) looks like. A vendor whose
 * variable said none or void asked for that and is not warned about. The nodes looked for are
 * named, with DEV_ROOT when it is not "/": a --dev-root one level off (DIR/dev for DIR) looks the
 * same as a container given no GPU. */
void xpu_selection_warn_not_given(const struct xpu_inventory *inv, const struct xpu_selection *sel,
                                  const char *dev_root);
