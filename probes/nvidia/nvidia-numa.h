/* SPDX-License-Identifier: Apache-2.0 */
/* GPU memory coherent with the CPU's (Grace Hopper GH200, Grace Blackwell GB200: NVLink-C2C):
 * the NUMA node that holds a GPU's memory, whether the memory is coherent, NVML's addressing
 * mode. Filled into struct xpu_nvidia_facts (nvidia-facts.h) by the fast path from sysfs and by
 * the NVML merge; the sources and the rule are in docs/xpuinit.md ("Grace Hopper").
 *
 * Why the sysfs rule holds: on these hosts the driver onlines each GPU's memory as a NUMA node
 * without CPUs. A GH200 with one GPU shows 9 nodes, CPUs only on node 0 (lscpu in
 * github.com/bytedance/xpu-perf/issues/129 and github.com/hu-po/warp-ik docs/specs/arm-gh200.md),
 * and CUDA says "NUMA node ID of GPU memory: 1" there (the same warp-ik capture); a node of 4
 * GH200 has 36 nodes, 4 with CPUs and 8 per GPU (github.com/NVIDIA/mlperf-common/pull/16): the
 * first node of a GPU's range gets its memory, the other 7 stay empty for MIG. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvidia/nvidia-facts.h"

/* Words of the bitmap of node ids (XPU_NVIDIA_NUMA_NODES_MAX bits). */
#define XPU_NVIDIA_NUMA_WORDS (XPU_NVIDIA_NUMA_NODES_MAX / 64)

/* Parse a kernel node list (sysfs "has_cpu", "has_memory": "0-1,4", blanks and a final newline
 * allowed, "" for none) into BITS. Returns the number of ids set, or -EINVAL for anything else:
 * a bad character, a range that runs backwards, an id >= XPU_NVIDIA_NUMA_NODES_MAX. BITS is
 * written only on success. Bounded by the text's length. */
int xpu_nvidia_parse_node_list(const char *text, uint64_t bits[XPU_NVIDIA_NUMA_WORDS]);

/* The architecture word of the first line of /proc/driver/nvidia/version: "aarch64" of
 * "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  570.124.06 ..." or of the
 * proprietary "NVRM version: NVIDIA UNIX aarch64 Kernel Module  ...". Returns 0 with ARCH set,
 * -EINVAL when the line has neither form, -ENOBUFS when the word does not fit SIZE. */
int xpu_nvidia_parse_version_arch(const char *text, char *arch, size_t size);

/* The fast path's part, after the NVIDIA devices are in INV: on an aarch64 driver (the version
 * line says so; coherent NVIDIA GPUs exist only beside Grace CPUs), the nodes of
 * /sys/devices/system/node/has_memory that are not in has_cpu are the GPUs' memory when there
 * are exactly as many as NVIDIA GPUs: the K-th such node (ascending) belongs to the K-th GPU in
 * PCI bus order, memory_coherent "true", source sysfs. Any other count, an absent file or another
 * architecture claims nothing; a malformed file is one warning naming it. Returns 0 or -ENOMEM. */
int xpu_nvidia_probe_memory_numa(const struct xpu_roots *roots, struct xpu_inventory *inv);

/* NVML's answers for DEV (nvidia-nvml-parse.c's merge): HAVE_NUMA with NUMA
 * (nvmlDeviceGetNumaNodeId), MODE ("ats", "hmm", "none" or "" when not answered:
 * nvmlDeviceGetAddressingMode) and C2C (nvmlDeviceGetC2cModeInfoV: 1 on, 0 off, -1 not
 * answered). NVML asks the driver, so it wins over the sysfs pairing: a different node or
 * coherence is a warning naming both, and NVML's value is kept. Coherent = C2C on or mode ATS;
 * an answer of neither is "false". Returns 0 or -ENOMEM. */
int xpu_nvidia_merge_coherence(struct xpu_inventory *inv, struct xpu_device *dev, bool have_numa, uint32_t numa,
                               const char *mode, int c2c);
