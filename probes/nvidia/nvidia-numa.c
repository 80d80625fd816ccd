/* SPDX-License-Identifier: Apache-2.0 */
/* The GPU memory's NUMA node and coherence (nvidia-numa.h): the sysfs pairing of the fast path
 * and the merge of NVML's answers. */
#include "nvidia/nvidia-numa.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/macro.h"
#include "base/root-file.h"
#include "base/str.h"

#define NODE_DIR "/sys/devices/system/node"
#define VERSION_FILE "/proc/driver/nvidia/version"

/* The node list files hold at most a few hundred bytes ("0-1023" is the longest sensible one). */
#define NODE_LIST_READ_MAX 4096

/* A decimal node id at *P (advanced past it), below XPU_NVIDIA_NUMA_NODES_MAX. */
static int node_id(const char **p, uint32_t *ret) {
        uint32_t v = 0;
        size_t n = 0;
        for (; isdigit((unsigned char)**p); (*p)++, n++) {
                v = v * 10 + (uint32_t)(**p - '0');
                if (v >= XPU_NVIDIA_NUMA_NODES_MAX)
                        return -EINVAL;
        }
        if (n == 0)
                return -EINVAL;
        *ret = v;
        return 0;
}

int xpu_nvidia_parse_node_list(const char *text, uint64_t bits[XPU_NVIDIA_NUMA_WORDS]) {
        uint64_t out[XPU_NVIDIA_NUMA_WORDS] = { 0 };
        const char *p = text;
        int count = 0;
        if (!text)
                return -EINVAL;
        p += strspn(p, " \t\n");
        while (*p) {
                uint32_t lo, hi;
                if (node_id(&p, &lo) < 0)
                        return -EINVAL;
                hi = lo;
                if (*p == '-') {
                        p++;
                        if (node_id(&p, &hi) < 0 || hi < lo)
                                return -EINVAL;
                }
                for (uint32_t n = lo; n <= hi; n++)
                        if (!(out[n / 64] & (UINT64_C(1) << (n % 64)))) {
                                out[n / 64] |= UINT64_C(1) << (n % 64);
                                count++;
                        }
                if (*p == ',') {
                        if (!isdigit((unsigned char)*++p))
                                return -EINVAL;
                } else {
                        p += strspn(p, " \t\n");
                        if (*p)
                                return -EINVAL;
                }
        }
        memcpy(bits, out, sizeof out);
        return count;
}

int xpu_nvidia_parse_version_arch(const char *text, char *arch, size_t size) {
        static const char head[] = "NVRM version: NVIDIA UNIX ";
        char word[32];
        if (!text || strncmp(text, head, sizeof head - 1) != 0)
                return -EINVAL;
        const char *p = text + sizeof head - 1;
        if (strncmp(p, "Open Kernel Module for ", 23) == 0)
                p += 23; /* open: "... Open Kernel Module for aarch64  570.124.06 ..." */
        else {
                /* proprietary: "... UNIX aarch64 Kernel Module  384.98 ..." */
                const char *end = strchr(p, ' ');
                if (!end || strncmp(end, " Kernel Module", 14) != 0)
                        return -EINVAL;
        }
        size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
        if (n == 0 || n >= sizeof word || (p[n] != ' ' && p[n] != '\t'))
                return -EINVAL;
        memcpy(word, p, n);
        word[n] = '\0';
        return xpu_strlcpy(arch, word, size) < 0 ? -ENOBUFS : 0;
}

/* Read the node list NAME of NODE_DIR into BITS. Returns its count, -ENOENT when absent (no
 * NUMA support, or no sysfs under the sys root), -EINVAL after a warning naming the file, -ENOMEM. */
static int read_node_list(const struct xpu_roots *roots, struct xpu_inventory *inv, const char *name,
                          uint64_t bits[XPU_NVIDIA_NUMA_WORDS]) {
        char path[64], buf[NODE_LIST_READ_MAX];
        snprintf(path, sizeof path, NODE_DIR "/%s", name);
        ssize_t n = xpu_read_file_in_root(roots->sys_fd, path, buf, sizeof buf);
        if (n == -ENOENT)
                return -ENOENT;
        int r = n < 0 ? (int)n : xpu_nvidia_parse_node_list(buf, bits);
        if (r >= 0)
                return r;
        if (xpu_inventory_warn(inv, "%s: %s; the GPUs' memory NUMA nodes are not told from sysfs", path,
                               n < 0 ? strerror((int)-n) : "not a node list (\"0-1,4\")") < 0)
                return -ENOMEM;
        return -EINVAL;
}

int xpu_nvidia_probe_memory_numa(const struct xpu_roots *roots, struct xpu_inventory *inv) {
        char buf[1024], arch[32];
        size_t gpus = xpu_inventory_count(inv, XPU_VENDOR_NVIDIA);
        /* (the version file's two lines are under 300 bytes; one that is not is no driver's) */
        if (gpus == 0 || xpu_read_file_in_root(roots->sys_fd, VERSION_FILE, buf, sizeof buf) < 0)
                return 0;
        if (xpu_nvidia_parse_version_arch(buf, arch, sizeof arch) < 0 || strcmp(arch, "aarch64") != 0)
                return 0;

        uint64_t cpu[XPU_NVIDIA_NUMA_WORDS], mem[XPU_NVIDIA_NUMA_WORDS];
        int r = read_node_list(roots, inv, "has_cpu", cpu);
        if (r >= 0)
                r = read_node_list(roots, inv, "has_memory", mem);
        if (r == -ENOMEM)
                return -ENOMEM;
        if (r < 0)
                return 0;

        /* The memory-only nodes, ascending; paired only when there is one per GPU. */
        size_t n = 0;
        for (uint32_t w = 0; w < XPU_NVIDIA_NUMA_WORDS; w++) {
                mem[w] &= ~cpu[w];
                n += (size_t)__builtin_popcountll(mem[w]);
        }
        if (n != gpus)
                return 0;
        uint32_t id = 0;
        for (size_t i = 0; i < inv->n_devices; i++) {
                struct xpu_nvidia_facts *nv = xpu_nvidia_facts(&inv->devices[i]);
                if (inv->devices[i].vendor != XPU_VENDOR_NVIDIA)
                        continue;
                while (!(mem[id / 64] & (UINT64_C(1) << (id % 64))))
                        id++; /* (n == gpus: a node is left for every GPU) */
                nv->memory_numa_known = true;
                nv->memory_numa_node = id++;
                nv->memory_numa_source = XPU_SOURCE_SYSFS;
                snprintf(nv->memory_numa_label, sizeof nv->memory_numa_label, "%" PRIu32, nv->memory_numa_node);
                xpu_strlcpy(nv->memory_coherent, "true", sizeof nv->memory_coherent);
        }
        return 0;
}

int xpu_nvidia_merge_coherence(struct xpu_inventory *inv, struct xpu_device *dev, bool have_numa, uint32_t numa,
                               const char *mode, int c2c) {
        struct xpu_nvidia_facts *nv = xpu_nvidia_facts(dev);
        int e = 0;
        if (have_numa && numa < XPU_NVIDIA_NUMA_NODES_MAX) {
                if (nv->memory_numa_known && nv->memory_numa_node != numa)
                        e |= xpu_inventory_warn(inv, "%s: nvml reports memory NUMA node %" PRIu32 " but the sysfs "
                                                     "pairing gave %" PRIu32 "; keeping nvml's",
                                                dev->pci_bus_id, numa, nv->memory_numa_node);
                if (!nv->memory_numa_known || nv->memory_numa_node != numa) {
                        nv->memory_numa_known = true;
                        nv->memory_numa_node = numa;
                        nv->memory_numa_source = XPU_SOURCE_NVML;
                        snprintf(nv->memory_numa_label, sizeof nv->memory_numa_label, "%" PRIu32, numa);
                }
        }
        if (mode && mode[0])
                xpu_strlcpy(nv->addressing_mode, mode, sizeof nv->addressing_mode);
        if (c2c >= 0 || (mode && mode[0])) {
                const char *coherent = c2c == 1 || (mode && strcmp(mode, "ats") == 0) ? "true" : "false";
                if (nv->memory_coherent[0] && strcmp(nv->memory_coherent, coherent) != 0)
                        e |= xpu_inventory_warn(inv, "%s: nvml reports memory coherent \"%s\" but sysfs has \"%s\"; "
                                                     "keeping nvml's",
                                                dev->pci_bus_id, coherent, nv->memory_coherent);
                xpu_strlcpy(nv->memory_coherent, coherent, sizeof nv->memory_coherent);
        }
        return e < 0 ? -ENOMEM : 0;
}
