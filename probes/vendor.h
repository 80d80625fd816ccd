/* SPDX-License-Identifier: Apache-2.0 */
/* The vendor descriptor: everything the vendor-neutral code knows about one vendor, in one
 * struct xpu_vendor_ops per vendor (probes/<vendor>/), and xpu_vendors[], the one list of them
 * (vendor.c). Code outside a vendor's folder reaches the vendor's facts and conventions only
 * through this descriptor, never by testing for a vendor. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "probe.h"
#include "wsl.h"

struct xpu_rich_ops; /* rich.h */
struct cJSON;        /* cJSON.h */
struct xpu_readings;  /* readings.h */
struct xpu_code_target; /* devcode/judge.h */
struct xpu_kernel_event; /* kernel-log.h */
struct xpu_fabric_set; /* fabric.h */

/* A vendor's live readings, for xpud's sampler: state kept between samples (a library session,
 * open sysfs files) and one collection per sample. */
struct xpu_readings_ops {
        const char *name; /* the backend's name: "nvml", "amdgpu_sysfs" (xpud_backend_up{backend}) */
        /* New state into *RET. Returns 0 or -ENOMEM. */
        int (*open)(void **ret);
        /* Read this vendor's devices of INV: R[i] and FRESH[i] = true for each inventory device i
         * read (R and FRESH have one slot per inventory device, and on WSL2 room for the GPUs a
         * merge lists in place of the vendor's driver store entry: XPU_WSL_DEVICES_MAX more per
         * vendor, wsl.h); a library's identity facts may be merged into INV (names, memory).
         * TIMEOUT_MS bounds a vendor library's helper. Returns 0,
         * -ENOMEM (the sample fails), or another -errno with ERR one line (the backend is down for
         * this sample; what it read is kept). */
        int (*collect)(void *state, const struct xpu_roots *roots, unsigned timeout_ms, struct xpu_inventory *inv,
                       struct xpu_readings *r, bool *fresh, char *err, size_t err_size);
        /* Let go of what holds the driver (a library helper): its driver went away, or the sampler
         * thread ends. NULL when there is nothing to let go of; the state stays usable. */
        void (*stop)(void *state);
        void (*close)(void *state); /* NULL-safe */
};

/* How a vendor's own visibility variable is read (entrypoint/select.c applies the rules) and the
 * marks its CDI specs leave in a container. Plain data: the vendor's conventions, no code. */
struct xpu_vendor_visibility {
        const char *variable; /* "NVIDIA_VISIBLE_DEVICES"; read when XPU_VISIBLE_DEVICES is unset */
        bool ranges;          /* entries may be ranges "0-3" (amd-container-runtime) */
        /* "0x<hex>" names a device by the number its vendor knows it by (AMD: the KFD unique_id):
         * D's as hex digits, "" when unknown. NULL: the vendor has no such number. */
        const char *(*unique_id)(const struct xpu_device *d);
        const char *cdi_kind; /* the kind of the vendor's CDI specs: "nvidia.com/gpu" */
        /* The variable a spec of the vendor's CDI generator sets beside the devices and driver
         * files it gives (select.h), the value it must have (NULL: any non-empty one), and whether
         * that value is where CDI mounted the driver libraries. NULL: the vendor sets none. */
        const char *cdi_mark;
        const char *cdi_mark_value;
        bool cdi_mark_is_libdir;
        /* A variable whose numbers are the vendor runtime's own (Level Zero's ZE_AFFINITY_MASK,
         * read in the hierarchy the workload uses): TRANSLATE turns VALUE into the list the rules
         * above read (vendor indices, into LIST); MASK writes the value that selects SELECTED (one
         * flag per inventory device) when another variable decided ("" = every given device:
         * unset it). Both return 0, -ENOMEM, -ENOBUFS or -EINVAL with ERR. NULL: the value is the
         * list, and nothing is written back. */
        int (*translate)(const struct xpu_inventory *inv, const char *value, char *list, size_t list_size, char *err,
                         size_t err_size);
        int (*mask)(const struct xpu_inventory *inv, const bool *selected, char *out, size_t size, char *err,
                    size_t err_size);
};

/* What a vendor's GPUs need in a CDI spec besides their nodes (cdi-spec.h). */
struct xpu_vendor_cdi {
        /* The user-mode driver files that must match the host's kernel module: globs of
         * "<base>.so" matched against "<base>.so.<driver version>" (libs.h), and programs. NULL:
         * the vendor's user space lives in the image (ROCm, oneAPI). */
        const char *const *libraries;
        const char *const *programs;
        /* Files found by their path (host-files.h patterns), mounted at the same path below the
         * driver root, where xpuinit in the image places them. */
        const char *const *files;
        const char *const *env; /* "NAME=VALUE" set with each of the vendor's devices */
};

/* What a device-plugin id names a device by (xpu_vendor_k8s.device_key); the vendor-neutral code
 * finds the device of a key (daemon/workloads.c). */
enum xpu_device_key_kind {
        XPU_DEVICE_KEY_UUID = 0,      /* TEXT: the GPU's UUID, or one of its MIG devices' (any case) */
        XPU_DEVICE_KEY_PCI_BUS_ID,    /* TEXT: its PCI function, any spelling; partition 0 of a partitioned GPU */
        XPU_DEVICE_KEY_RENDER_MINOR,  /* NUMBER: N of /dev/dri/renderD<N> (xpu_device.render_minor) */
        XPU_DEVICE_KEY_CARD,          /* NUMBER: N of /sys/class/drm/card<N> (xpu_device.card) */
};

struct xpu_device_key {
        enum xpu_device_key_kind kind;
        char text[64];
        uint32_t number;
};

/* Writes one node label NAME=VALUE for CTX (xpud's Node Feature Discovery file: the caller adds
 * its prefix and sanitises VALUE, leaving the label out when nothing is left). */
typedef void xpu_node_label_fn(void *ctx, const char *name, const char *value);

/* How the vendor's Kubernetes device plugin names its GPUs in the kubelet's pod-resources answer
 * (ContainerDevices.resource_name and device_ids), and the vendor's own node labels: the facts of
 * its source, in probes/<vendor>/<vendor>-k8s.c. */
struct xpu_vendor_k8s {
        /* The plugin's resource names, NULL-terminated; one ending in '*' matches every name that
         * starts with the rest ("nvidia.com/mig-*"). */
        const char *const *resources;
        /* The device that ID of RESOURCE names, as a key into *KEY. ROOTS: the host, for ids that
         * only sysfs can tell (a partition's platform device). Returns 0, or -ENOENT when ID is not
         * in a form the plugin writes. Bounded: at most a few sysfs reads. */
        int (*device_key)(const struct xpu_roots *roots, const char *resource, const char *id,
                          struct xpu_device_key *key);
        /* The vendor's own node labels ("xpu.nvidia.cc", docs/kubernetes.md) of INV, whose N
         * device-code targets are T (device-targets.h: every vendor's; the hook reads its own),
         * each through PUT. A label whose fact one of the vendor's GPUs does not know is left
         * out. NULL: none. */
        void (*node_labels)(const struct xpu_inventory *inv, const struct xpu_code_target *t, size_t n,
                            xpu_node_label_fn *put, void *ctx);
};

/* A string fact of a vendor's devices under a name (a metadata label of xpud's xpu_info, a
 * requirement key): the name and the offset in struct xpu_device of a NUL-terminated char array
 * ("" = unknown). */
struct xpu_fact_label {
        const char *label;
        size_t offset;
};

/* The fact named LABEL in TABLE (NULL-label-terminated; NULL: none) of device D: "" when the
 * table has no such name or D does not know it. */
const char *xpu_fact_label_value(const struct xpu_fact_label *table, const struct xpu_device *d, const char *label);

/* The probe step: how the vendor's GPUs are found (fast path) and what its libraries add (rich
 * path). */
struct xpu_vendor_probe {
        /* Fast path: procfs, sysfs and dev only; no dynamic loading. Appends this vendor's devices
         * (vendor_index set, index left to the caller) and fills inv->vendors[vendor]. A bad or
         * unreadable file skips that device or field with one xpu_inventory_warn() naming the
         * file; probing goes on. Returns 0, or -ENOMEM. */
        int (*fast)(const struct xpu_roots *roots, struct xpu_inventory *inv);
        /* The facts of its devices that live in the driver root, read (again) once the driver
         * root is known (xpu_inventory_driver_root_facts(): a Jetson's L4T release); silent but
         * for warnings. Returns 0 or -ENOMEM. NULL: none. */
        int (*driver_root)(const struct xpu_roots *roots, struct xpu_inventory *inv);
        /* The rich-path backends (rich.h) that read this vendor's library, in merge order,
         * NULL-terminated; NULL when the vendor has none. */
        const struct xpu_rich_ops *const *rich;
        bool cuda_driver; /* its rich path sets xpu_vendor_info.cuda_driver_version (the "cuda" requirement key) */
};

/* How a device of the vendor is shown: `xpuinit probe`, the inventory JSON, xpud's labels. */
struct xpu_vendor_view {
        /* D's own facts (its vendor_facts, as only this vendor's code knows their shape) in the
         * views of a device: FACTS_JSON adds them as members of D's inventory JSON object O
         * ("minor", "gfx_target", ...: docs/architecture.md) and returns false on -ENOMEM;
         * FACTS_TEXT writes them on D's `xpuinit probe` line ("  cc 9.0  brand Tesla"), and
         * SUBDEVICES_TEXT writes one line each for its sub-devices below it (MIG devices). NULL:
         * none. */
        bool (*facts_json)(const struct xpu_device *d, struct cJSON *o);
        void (*facts_text)(const struct xpu_device *d, FILE *f);
        void (*subdevices_text)(const struct xpu_device *d, FILE *f);
        /* How D is partitioned, as a label value ("mig", "cpx_nps4", "none"); NULL when not known
         * (device-targets.h). NULL: the vendor's GPUs are never partitioned (always "none"). */
        const char *(*partition)(const struct xpu_device *d);
        /* The vendor's own string facts that xpud's xpu_info carries as labels, ended by a NULL
         * label; NULL: none. */
        const struct xpu_fact_label *info_labels;
};

/* A vendor's partitions of a GPU that are devices of their own (NVIDIA's Multi-Instance GPU), for
 * select and plan. All NULL and false: the vendor's GPUs have none. */
struct xpu_vendor_mig {
        /* D's MIG devices (in its vendor_facts) and their number in *N, or NULL with *N = 0 (probe.h's
         * xpu_mig_devices()). */
        const struct xpu_mig_device *(*devices)(const struct xpu_device *d, size_t *n);
        bool rich_uuids; /* their UUIDs come only from its rich path: their absence is told by its rich_note */
        /* The variables that ask for the host-wide MIG config and monitor capabilities (value
         * "all"; xpu_mig_vendor() picks the vendor whose variables are read). */
        const char *config_variable, *monitor_variable; /* "NVIDIA_MIG_CONFIG_DEVICES", ..._MONITOR_... */
        /* Where the driver lists the capabilities, for messages: its procfs directory (what a
         * container must see) and the capability directory below it. */
        const char *proc_dir, *caps_dir; /* "/proc/driver/nvidia", "/proc/driver/nvidia/capabilities" */
        /* The directory of D's capabilities below caps_dir ("gpu3") into BUF (SIZE bytes), a
         * placeholder when D's number is unknown. */
        void (*caps_gpu)(const struct xpu_device *d, char *buf, size_t size);
};

/* What a start reads of the vendor's requirements (entrypoint/require.c). */
struct xpu_vendor_require {
        /* The vendor's own string facts that the per-device requirement keys compare ("arch":
         * compute capability, "brand", "gfx": gfx target), ended by a NULL label; a key the
         * vendor does not list is unknown on its GPUs. NULL: none. */
        const struct xpu_fact_label *facts;
        const char *advice; /* after "; " when its known driver fails a requirement; NULL "update the driver" */
        /* Its toolkit's image requirement variables: NAME=EXPR for every NAME with the prefix, checked with its
         * profiles unless the disable variable is true, SKIP (NULL-terminated) never; NULL: none. */
        const char *env_prefix, *env_disable; /* "NVIDIA_REQUIRE_", "NVIDIA_DISABLE_REQUIRE" */
        /* Names not checked: "NAME", "PREFIX*" (every name with PREFIX), "NAME=VALUE" (only with
         * that value: "NVIDIA_REQUIRE_JETPACK=csv-mounts=all" picks files, it is no requirement). */
        const char *const *env_skip;
};

struct xpu_host_list; /* host-files.h */

/* What the plan gives a container of the vendor's GPUs beside their nodes. */
struct xpu_vendor_plan {
        const struct xpu_vendor_cdi *cdi; /* NULL: nodes only */
        /* A host that lists what its containers get (a Jetson's CSV files): read those lists for
         * INV's platform, in the driver root DRIVER_FD and the dev root DEV_FD; ENVP is the image's
         * environment (a variable may ask for more of them). *RET NULL when the host has none: the
         * profile's own files are looked for. Else the plan gives what the list names instead of
         * the profile's libraries, binaries and files. Returns 0, -ENOMEM, or another -errno with
         * ERR one line naming the file and line. NULL: the vendor's hosts have none. */
        int (*host_list)(const struct xpu_inventory *inv, int driver_fd, int dev_fd, char *const *envp,
                         struct xpu_host_list **ret, char *err, size_t err_size);
        /* Its toolkit's variable naming the driver capabilities a container gets, read when
         * XPU_DRIVER_CAPABILITIES is unset ("NVIDIA_DRIVER_CAPABILITIES"); NULL: none. */
        const char *capabilities_variable;
};

/* Another name a vendor's toolkit gives a vendor-neutral fabric set's variable (fabric.h): read
 * when the set's own variable is unset and the profile is the vendor's ("NVIDIA_MOFED" for
 * "rdma"). */
struct xpu_fabric_alias {
        const char *set;      /* the set's name: "rdma" */
        const char *variable; /* "NVIDIA_MOFED" */
};

/* Device code (probes/devcode/): the vendor's XPU_CODE_VENDOR_* bit (0: the audit judges no
 * device code of its GPUs), what its kinds of GPU are called ("compute capability"), D's kind as
 * an audit --for spelling into SPEC ("9.0", "gfx90a"; "" when unknown), and the rich sources (1u
 * << enum xpu_source) that fact comes from (0: the fast path). */
struct xpu_vendor_code {
        unsigned vendor;
        const char *target_name;
        void (*target)(const struct xpu_device *d, char *spec, size_t size);
        uint32_t target_sources;
};

/* One vendor: everything the vendor-neutral code needs to know about it, in one place
 * (probes/<vendor>/), as a few groups of hooks and data, one per step that reads them.
 * xpu_vendors[] is the only list of vendors in the program. */
struct xpu_vendor_ops {
        enum xpu_vendor vendor;
        const char *name;         /* "nvidia": JSON values, labels, "vendor:index" entries */
        const char *display_name; /* "NVIDIA": the vendor's own spelling, for messages */
        struct xpu_vendor_probe probe;           /* probe: finding its GPUs */
        struct xpu_vendor_view view;             /* probe's views, xpud's labels */
        struct xpu_vendor_visibility visibility; /* select: its visibility variable, CDI marks */
        struct xpu_vendor_mig mig;               /* select, plan: MIG devices and capabilities */
        struct xpu_vendor_require require;       /* check: requirements */
        struct xpu_vendor_plan plan;             /* plan: driver files, capabilities */
        struct xpu_vendor_code code;             /* device code: audit and the start's check */
        const struct xpu_readings_ops *readings; /* xpud's samples; NULL: health only */
        const struct xpu_vendor_k8s *k8s;        /* its Kubernetes device plugin and node labels; NULL: none */
        /* Its own fabric device sets (fabric.h: IMEX channels, GDRCopy, ...), NULL-terminated, and
         * its toolkit's names for the vendor-neutral ones, ended by a NULL set; NULL: none. */
        const struct xpu_fabric_set *const *fabric;
        const struct xpu_fabric_alias *fabric_aliases;
        /* xpud: its kernel driver's events in one kernel log record (kernel-log.h; --kmsg): MSG,
         * LEN bytes, is the record's message and RECORD the whole record, continuation lines
         * included. Returns 1 with EV's kind, label, bus id, xid, effect, what and action set, 0
         * when the message is none of its events. Bounded by LEN. NULL: the vendor has none. */
        int (*kernel_log)(const char *record, const char *msg, size_t len, struct xpu_kernel_event *ev);
        const struct xpu_vendor_wsl *wsl; /* its GPUs on WSL2; NULL: not reached there */
};

/* Every vendor, indexed by enum xpu_vendor, which is also the order the fast paths run in and
 * the order of xpuinit indices (probes/vendor.c). */
extern const struct xpu_vendor_ops *const xpu_vendors[_XPU_VENDOR_MAX];
/* The descriptor of V, NULL when V is out of range. */
const struct xpu_vendor_ops *xpu_vendor(enum xpu_vendor v);

/* The vendor whose rich path reports the host's CUDA driver version (the descriptor with
 * probe.cuda_driver set), _XPU_VENDOR_MAX when none does. */
enum xpu_vendor xpu_vendor_cuda(void);
/* INV's CUDA driver version ("12.2", from that vendor's xpu_vendor_info.cuda_driver_version): ""
 * when unknown or when no vendor reports one. */
const char *xpu_inventory_cuda_driver_version(const struct xpu_inventory *inv);

/* The vendor whose MIG variables a start reads (the first with mig.config_variable), NULL when no
 * vendor has one. */
const struct xpu_vendor_ops *xpu_mig_vendor(void);
/* The capability variable messages name when none was given: the first vendor's
 * plan.capabilities_variable, "XPU_DRIVER_CAPABILITIES" when no vendor has one. */
const char *xpu_capabilities_variable(void);
