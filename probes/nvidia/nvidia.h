/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA procfs parsers, exposed for the unit tests and the fuzzers.
 *
 * Both functions are silent: they describe a problem in their return value
 * and ERR buffer; the probe that knows the file's path turns that into one inventory warning. */
#pragma once

#include <stddef.h>

#include "nvidia/nvidia-facts.h" /* and probe.h */

/* Longest line the parsers look at, in bytes (without the newline). The kernel's lines are well
 * under 100 bytes; a longer line is malformed. */
#define XPU_NVIDIA_LINE_MAX 512

/* Most GPUs one probe reports (the NVIDIA driver's own limit, as in libnvidia-container). */
#define XPU_NVIDIA_GPUS_MAX 64

/* NVIDIA's fast path (the descriptor's probe.fast; nvidia.c's head comment lists its sources):
 * every GPU of /proc/driver/nvidia/gpus in PCI bus order, its nodes below the dev root, MIG, the
 * driver's version and majors, a Jetson's integrated GPU. Returns 0 (absence is not an error: the
 * vendor info says what was looked for) or -ENOMEM. */
int xpu_nvidia_probe(const struct xpu_roots *roots, struct xpu_inventory *inv);

/* Parse the first line of /proc/driver/nvidia/version, in either format:
 *   proprietary: "NVRM version: NVIDIA UNIX x86_64 Kernel Module  384.98  Thu Oct 26 ..."
 *   open:        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  555.58  Release Build ..."
 * (any architecture word: x86_64, aarch64, ppc64le, ...). The version is the first dotted number
 * ("535.54.03") after "Kernel Module"; the flavor is "open" when "Open Kernel Module" is written,
 * else "proprietary". TEXT is NUL-terminated; only its first line is read.
 * Returns 0 and writes VERSION (VSIZE bytes) and FLAVOR (FSIZE bytes), or: -EINVAL when TEXT is
 * NULL or its first line is not an "NVRM version:" line with a version number, -ENOBUFS when an
 * answer does not fit. Nothing is written on error. */
int xpu_nvidia_parse_version(const char *text, char *version, size_t vsize, char *flavor, size_t fsize);

/* Parse the text of /proc/driver/nvidia/gpus/<bus id>/information: "Key: value" lines, keys
 * case-insensitive, any run of spaces and tabs around key and value, unknown keys and lines
 * without ':' ignored, missing lines tolerated. Fields filled in DEV (other fields untouched):
 *   Model → name                 GPU UUID → uuid            Bus Location → pci_bus_id (normalised)
 *   Device Minor → minor (0..253, XPU_HAVE_MINOR)           IRQ → irq (XPU_HAVE_IRQ)
 *   Video BIOS → vbios_version   Bus Type → bus_type        GPU Firmware → gsp_firmware
 *   GPU Excluded / Blacklisted (Yes/No) → excluded (XPU_HAVE_EXCLUDED)
 * A string value the driver could not read ("??.??.??.??.??", "GPU-????...", "N/A") is left
 * absent without complaint.
 * Returns 0 when every recognised line parsed; -EINVAL when some value was malformed or a line
 * too long (that field stays absent, the others are still filled, ERR names the first problem,
 * e.g. `bad "Device Minor" value "x"`); -ENODATA when TEXT holds no recognised "Key: value" line
 * at all (empty file). ERR (ERRSIZE bytes, may be NULL/0) is set only on error. */
int xpu_nvidia_parse_information(const char *text, struct xpu_device *dev, char *err, size_t errsize);

/* The next line of the procfs text at *P (advanced past it), in LINE: *KEY and *VALUE point into
 * LINE, both stripped, split at the first ':' (*KEY NULL for a line without one). Returns 1, 0 at
 * the end of the text, -E2BIG for a line longer than XPU_NVIDIA_LINE_MAX (skipped, *KEY NULL).
 * The one line reader of the "Key: value" files below. */
int xpu_nvidia_next_key_value(const char **p, char line[XPU_NVIDIA_LINE_MAX + 1], char **key, char **value);

/* Largest minor of an nvidia-caps node we accept (the driver's minors fit in 20 bits). */
#define XPU_NVIDIA_CAP_MINOR_MAX ((1u << 20) - 1)

/* Parse a MIG capability access file (/proc/driver/nvidia/capabilities/.../access): "Key: value"
 * lines, of which "DeviceFileMinor: M" is read (keys case-insensitive; "DeviceFileMode" and
 * "DeviceFileModify" ignored). Returns 0 with *MINOR = M, -ENODATA when there is no such line,
 * -EINVAL for a value that is not a decimal up to XPU_NVIDIA_CAP_MINOR_MAX or a second such
 * line, -E2BIG for a line longer than XPU_NVIDIA_LINE_MAX. */
int xpu_nvidia_parse_cap_minor(const char *text, uint32_t *minor);

/* Fill DEV's MIG devices (mig[], n_mig, by GI then CI id) from procfs: the gi<G> directories under
 * /proc/driver/nvidia/capabilities/gpu<DEV->minor>/mig/ and the ci<C> directories in each, with
 * the capability nodes their access files name (major CAPS_MAJOR, "nvidia-caps" of /proc/devices;
 * negative = unknown). A GI directory sets mig_enabled and XPU_HAVE_MIG_MODE. No directory (MIG
 * off, an older driver) leaves DEV untouched. An unreadable or malformed access file skips that
 * instance with one warning naming the file; more than XPU_MIG_DEVICES_MAX instances keep the
 * lowest ids and warn; a MIG device whose capability minors are another instance's too is
 * skipped with a warning. Returns 0, or -ENOMEM. */
int xpu_nvidia_probe_mig(const struct xpu_roots *roots, struct xpu_inventory *inv, struct xpu_device *dev,
                         int caps_major);

/* The host-wide MIG capabilities into INV's NVIDIA vendor info (mig_config_cap,
 * mig_monitor_cap): the nodes the DeviceFileMinor of /proc/driver/nvidia/capabilities/mig/config
 * and .../monitor name, major CAPS_MAJOR (negative: unknown). Absent files leave them empty; a
 * malformed one, or one whose minor is another capability's (the other one, or a MIG device's of
 * INV's GPUs, so call it after they are in INV), is left out with a warning naming it. Returns 0,
 * or -ENOMEM. */
int xpu_nvidia_probe_mig_caps(const struct xpu_roots *roots, struct xpu_inventory *inv, int caps_major);

/* The NVIDIA facts of D (xpu_nvidia_facts(D)) in the device views (nvidia-view.c; struct
 * xpu_vendor_ops.view.facts_json, facts_text, subdevices_text): JSON members "minor",
 * "compute_capability", "brand", "vbios_version", "bus_type", "gsp_firmware_version",
 * "mig_enabled" and "mig_devices" [{index, name "<gpu>:<mig>", gpu_instance_id,
 * compute_instance_id, uuid, product, memory_total_bytes, device_nodes}], "irq", "excluded" (each
 * only when known); text "  cc 9.0  brand Tesla  MIG on (N)" and one "    MIG ..." line per MIG
 * device. facts_json returns false on -ENOMEM. */
struct cJSON;
bool xpu_nvidia_facts_json(const struct xpu_device *d, struct cJSON *o);
void xpu_nvidia_facts_text(const struct xpu_device *d, FILE *f);
void xpu_nvidia_subdevices_text(const struct xpu_device *d, FILE *f);

/* D's MIG devices (xpu_nvidia_facts(D)->mig) and their number in *N (at most XPU_MIG_DEVICES_MAX): the
 * descriptor's mig hook, read through xpu_mig_devices() (probe.h). */
const struct xpu_mig_device *xpu_nvidia_mig(const struct xpu_device *d, size_t *n);

struct xpu_vendor_k8s;
/* How NVIDIA's Kubernetes device plugin names its GPUs (nvidia-k8s.c): the descriptor's k8s. */
extern const struct xpu_vendor_k8s xpu_k8s_nvidia;
/* NVIDIA's GPUs on WSL2 (nvidia-wsl.c): the descriptor's wsl. */
extern const struct xpu_vendor_wsl xpu_wsl_nvidia;

struct xpu_kernel_event;
/* NVIDIA's kernel-log rules (nvidia-kmsg.c): the descriptor's kernel_log (vendor.h). */
int xpu_nvidia_kernel_log(const char *record, const char *msg, size_t len, struct xpu_kernel_event *ev);
