/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the NVIDIA procfs parsers (probes/nvidia/nvidia.h) on one text, as the probe hands them
 * a file read from /proc/driver/nvidia: xpu_nvidia_parse_information() (gpus/<bus>/information)
 * xpu_nvidia_parse_version() (version), the latter also with answer buffers too small for any
 * real version (its -ENOBUFS path), and xpu_nvidia_parse_cap_minor() (a MIG capability's access
 * file); the Grace Hopper readers (probes/nvidia/nvidia-numa.h) of the version line's architecture
 * and of a sysfs node list (has_cpu, has_memory). Corpus: tests/fuzz/corpus/nvidia-info/. */
#include "fuzz.h"
#include "nvidia/nvidia.h"
#include "nvidia/nvidia-numa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_strndup(data, size);
        if (!text)
                return 0;

        struct xpu_device dev = {0};
        char err[256];
        (void)xpu_nvidia_parse_information(text, &dev, err, sizeof err);
        (void)xpu_nvidia_parse_information(text, &dev, NULL, 0);

        char version[32], flavor[32], small_version[4], small_flavor[4];
        (void)xpu_nvidia_parse_version(text, version, sizeof version, flavor, sizeof flavor);
        (void)xpu_nvidia_parse_version(text, small_version, sizeof small_version, small_flavor,
                                       sizeof small_flavor);
        uint32_t minor = 0;
        if (xpu_nvidia_parse_cap_minor(text, &minor) == 0 && minor > XPU_NVIDIA_CAP_MINOR_MAX)
                abort();
        char arch[32], small_arch[2];
        (void)xpu_nvidia_parse_version_arch(text, arch, sizeof arch);
        (void)xpu_nvidia_parse_version_arch(text, small_arch, sizeof small_arch);
        uint64_t nodes[XPU_NVIDIA_NUMA_WORDS];
        int n = xpu_nvidia_parse_node_list(text, nodes);
        if (n > XPU_NVIDIA_NUMA_NODES_MAX)
                abort();
        free(text);
        return 0;
}
