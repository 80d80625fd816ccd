/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA fast path: procfs, /proc/devices and the dev root; no vendor library.
 *
 * Sources (all below the sys root):
 *   /proc/driver/nvidia/version                  kernel module version and flavor (line 1)
 *   /proc/driver/nvidia/gpus/<bus id>/information one GPU each: model, UUID, Device Minor, ...
 *   /proc/devices                                dynamic majors: nvidia/nvidia-frontend, nvidia-uvm
 *   /sys/bus/pci/devices/<bus id>/{device,numa_node}  optional extras when sysfs is there
 * Device nodes are looked up below the dev root. Devices come out in PCI bus order, which is the
 * order NVML, nvidia-smi and CUDA (CUDA_DEVICE_ORDER=PCI_BUS_ID) use. GPUs the driver excludes
 * ("GPU Excluded: Yes", old "Blacklisted: Yes") are not enumerated by NVML either, so they are
 * skipped (with a warning) and do not take an index. MIG instances: nvidia-mig.c. */
#include "nvidia/nvidia.h"
#include "nvidia/nvidia-tegra.h" /* and nvidia-csv.h */
#include "nvidia/nvidia-numa.h"
#include "base/str.h"
#include "base/path.h"
#include "base/fileio.h"
#include "base/root-file.h"
#include "base/escape.h"
#include "base/procfs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define NVIDIA_PCI_VENDOR 0x10de
#define NVIDIA_MAJOR 195          /* fixed char major of nvidiaN, nvidiactl, nvidia-modeset */
#define NVIDIA_MINOR_GPU_MAX 253  /* 254 = nvidia-modeset, 255 = nvidiactl */

#define PROC_NVIDIA "/proc/driver/nvidia"
#define PROC_NVIDIA_VERSION PROC_NVIDIA "/version"
#define PROC_NVIDIA_GPUS PROC_NVIDIA "/gpus"
#define LOOKED_FOR PROC_NVIDIA_VERSION " and " PROC_NVIDIA_GPUS "/*/information"

/* Longest directory name under gpus/ we accept; a bus id is at most 16 ("ffffffff:ff:1f.7"). */
#define GPU_DIR_NAME_MAX 32

/* ---- /proc/driver/nvidia/version ------------------------------------------------------- */

/* "384.98", "535.54.03": digits separated by single dots, at least one dot. */
static bool is_dotted_version(const char *s) {
        if (!isdigit((unsigned char)s[0]))
                return false;
        bool dot = false;
        for (const char *p = s; *p; p++) {
                if (*p == '.') {
                        if (!isdigit((unsigned char)p[1]))
                                return false;
                        dot = true;
                } else if (!isdigit((unsigned char)*p))
                        return false;
        }
        return dot;
}

int xpu_nvidia_parse_version(const char *text, char *version, size_t vsize, char *flavor, size_t fsize) {
        if (!text)
                return -EINVAL;
        size_t len = strcspn(text, "\n");
        if (len > XPU_NVIDIA_LINE_MAX)
                return -EINVAL;
        char line[XPU_NVIDIA_LINE_MAX + 1];
        memcpy(line, text, len);
        line[len] = '\0';
        char *p = xpu_strstrip(line);
        if (!xpu_startswith(p, "NVRM version:"))
                return -EINVAL;
        p += strlen("NVRM version:");

        /* Words: ... [Open] Kernel Module [for <arch>] <version> <date or "Release Build"> */
        const char *prev = NULL, *found = NULL;
        bool open = false, after_module = false;
        char *save = NULL;
        for (char *w = strtok_r(p, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
                if (!after_module) {
                        if (strcmp(w, "Module") == 0 && prev && strcmp(prev, "Kernel") == 0)
                                after_module = true;
                        else if (strcmp(w, "Kernel") == 0)
                                open = prev && strcmp(prev, "Open") == 0;
                        prev = w;
                        continue;
                }
                if (is_dotted_version(w)) {
                        found = w;
                        break;
                }
        }
        if (!found)
                return -EINVAL;
        const char *fl = open ? "open" : "proprietary";
        if (strlen(found) >= vsize || strlen(fl) >= fsize)
                return -ENOBUFS;
        xpu_strlcpy(version, found, vsize);
        xpu_strlcpy(flavor, fl, fsize);
        return 0;
}

/* ---- /proc/driver/nvidia/gpus/<bus id>/information -------------------------------------- */

enum info_kind {
        INFO_STRING, /* copied as is; values the driver could not read stay absent */
        INFO_TEXT,   /* a name: UTF-8 kept, other bytes and control characters U+FFFD
                      * (xpu_utf8_sanitize()); refused when it does not fit */
        INFO_U32,    /* decimal, up to .max */
        INFO_BOOL,   /* "Yes" / "No" */
        INFO_BUS_ID, /* PCI bus id, normalised */
};

struct info_key {
        const char *key;
        enum info_kind kind;
        size_t offset; /* of the field in struct xpu_device */
        size_t size;   /* of the field, bytes */
        uint32_t have; /* XPU_HAVE_* bit set when parsed */
        uint32_t max;  /* largest accepted number (INFO_U32) */
};

#define FIELD(k, kind, f, have, max)                                                               \
        { k, kind, offsetof(struct xpu_device, f), sizeof(((struct xpu_device *)0)->f), have, max }
#define NV_FIELD(k, kind, f, have, max) { k, kind, XPU_NVIDIA_FACT(f), sizeof(((struct xpu_nvidia_facts *)0)->f), have, max }

/* Keys as the driver writes them (nvidia.ko nv-procfs.c); matched case-insensitively. */
static const struct info_key info_keys[] = {
        FIELD("Model", INFO_TEXT, name, 0, 0),                    /* "NVIDIA L4" */
        FIELD("GPU UUID", INFO_STRING, uuid, 0, 0),               /* "GPU-b1654cba-..." */
        NV_FIELD("Video BIOS", INFO_STRING, vbios_version, 0, 0),    /* "95.04.65.00.13" */
        NV_FIELD("Bus Type", INFO_STRING, bus_type, 0, 0),           /* "PCIe", "PCI" */
        NV_FIELD("GPU Firmware", INFO_STRING, gsp_firmware, 0, 0),   /* GSP firmware, newer drivers */
        FIELD("Bus Location", INFO_BUS_ID, pci_bus_id, 0, 0),     /* "0000:70:00.0", 32-bit domains too */
        NV_FIELD("Device Minor", INFO_U32, minor, XPU_HAVE_MINOR, NVIDIA_MINOR_GPU_MAX), /* /dev/nvidiaN */
        NV_FIELD("IRQ", INFO_U32, irq, XPU_HAVE_IRQ, UINT32_MAX),
        NV_FIELD("GPU Excluded", INFO_BOOL, excluded, XPU_HAVE_EXCLUDED, 0), /* drivers >= 450 */
        NV_FIELD("Blacklisted", INFO_BOOL, excluded, XPU_HAVE_EXCLUDED, 0),  /* older name of the same */
};

/* A value the driver prints when it could not read the fact: "??.??.??.??.??", "N/A". */
static bool value_unknown(const char *v) {
        return strchr(v, '?') || strcasecmp(v, "N/A") == 0;
}

static bool value_printable(const char *v) {
        for (; *v; v++)
                if (!isprint((unsigned char)*v) && *v != '\t')
                        return false;
        return true;
}

/* Store VALUE for K in DEV. Returns 0 (stored, or left absent on purpose) or -EINVAL. */
static int info_store(const struct info_key *k, const char *value, struct xpu_device *dev) {
        char *field = (char *)dev + k->offset;
        switch (k->kind) {
        case INFO_STRING:
                if (!*value || value_unknown(value))
                        return 0;
                if (strlen(value) >= k->size || !value_printable(value))
                        return -EINVAL;
                memcpy(field, value, strlen(value) + 1);
                return 0;
        case INFO_TEXT:
                if (!*value || value_unknown(value))
                        return 0;
        {
                bool cut = false;
                (void)xpu_utf8_sanitize(field, k->size, value, &cut);
                if (cut)
                        field[0] = '\0';
                return cut ? -EINVAL : 0;
        }
        case INFO_U32: {
                uint64_t v;
                if (xpu_parse_u64(value, 10, &v) < 0 || v > k->max)
                        return -EINVAL;
                uint32_t v32 = (uint32_t)v;
                memcpy(field, &v32, sizeof v32);
                break;
        }
        case INFO_BOOL: {
                bool b;
                if (strcasecmp(value, "Yes") == 0)
                        b = true;
                else if (strcasecmp(value, "No") == 0)
                        b = false;
                else
                        return -EINVAL;
                memcpy(field, &b, sizeof b);
                break;
        }
        case INFO_BUS_ID: {
                char id[XPU_PCI_BUS_ID_MAX];
                if (xpu_pci_bus_id_normalize(value, id) < 0)
                        return -EINVAL;
                memcpy(field, id, sizeof id);
                break;
        }
        default:
                return -EINVAL;
        }
        dev->have |= k->have;
        return 0;
}

int xpu_nvidia_next_key_value(const char **p, char line[XPU_NVIDIA_LINE_MAX + 1], char **key, char **value) {
        if (!**p)
                return 0;
        size_t len = strcspn(*p, "\n");
        const char *at = *p;
        *p += len + ((*p)[len] == '\n');
        *key = *value = NULL;
        if (len > XPU_NVIDIA_LINE_MAX)
                return -E2BIG;
        memcpy(line, at, len);
        line[len] = '\0';
        char *colon = strchr(line, ':');
        if (colon) {
                *colon = '\0';
                *key = xpu_strstrip(line);
                *value = xpu_strstrip(colon + 1);
        }
        return 1;
}

int xpu_nvidia_parse_information(const char *text, struct xpu_device *dev, char *err, size_t errsize) {
        char first[160] = "";
        unsigned bad = 0, recognised = 0, lineno = 0;

        if (!text || !dev)
                return -EINVAL;
        char line[XPU_NVIDIA_LINE_MAX + 1], *key, *value;
        for (const char *p = text;;) {
                int r = xpu_nvidia_next_key_value(&p, line, &key, &value);
                if (r == 0)
                        break;
                lineno++;
                if (r == -E2BIG) {
                        if (bad++ == 0)
                                snprintf(first, sizeof first, "line %u longer than %d bytes", lineno,
                                         XPU_NVIDIA_LINE_MAX);
                        continue;
                }
                if (!key)
                        continue;
                for (size_t i = 0; i < ELEMENTSOF(info_keys); i++) {
                        const struct info_key *k = &info_keys[i];
                        if (strcasecmp(key, k->key) != 0)
                                continue;
                        recognised++;
                        if (info_store(k, value, dev) < 0 && bad++ == 0)
                                snprintf(first, sizeof first, "bad \"%s\" value \"%.40s\"", k->key, value);
                        break;
                }
        }
        if (bad > 0) {
                if (err && errsize > 0) {
                        if (bad > 1)
                                snprintf(err, errsize, "%s (and %u more bad lines)", first, bad - 1);
                        else
                                snprintf(err, errsize, "%s", first);
                }
                return -EINVAL;
        }
        if (recognised == 0) {
                if (err && errsize > 0)
                        snprintf(err, errsize, "no \"Key: value\" line the driver writes");
                return -ENODATA;
        }
        return 0;
}

/* ---- the probe ----------------------------------------------------------------------------- */

/* Host-wide nodes: path, major source, minor, optional. */
enum major_of {
        MAJOR_NVIDIA, /* "nvidia" / "nvidia-frontend", else 195 */
        MAJOR_UVM,    /* "nvidia-uvm": dynamic */
};
static const struct {
        const char *path;
        enum major_of major;
        uint32_t minor;
        bool optional;
} vendor_nodes[] = {
        { "/dev/nvidiactl", MAJOR_NVIDIA, 255, false },      /* control node, every process opens it */
        { "/dev/nvidia-uvm", MAJOR_UVM, 0, false },          /* unified memory, CUDA needs it */
        { "/dev/nvidia-uvm-tools", MAJOR_UVM, 1, true },     /* profilers and debuggers */
        { "/dev/nvidia-modeset", MAJOR_NVIDIA, 254, true },  /* display only */
};

/* Short text for a read error: "No such file or directory", "larger than 65536 bytes". */
static const char *read_error(ssize_t r, char *buf, size_t size) {
        if (r == -EFBIG) {
                snprintf(buf, size, "larger than %d bytes", XPU_READ_MAX);
                return buf;
        }
        if (r == -EINVAL)
                return "not a regular text file";
        return strerror((int)-r);
}

/* PCI bus order, compared as numbers (domain, bus, device, function): NVML's and nvidia-smi's
 * index order. An id that does not parse (never stored: the probe skips such devices) sorts last. */
static int cmp_devices(const void *a, const void *b) {
        struct xpu_pci_bus_id x, y;
        bool hx = xpu_pci_bus_id_parse(((const struct xpu_device *)a)->pci_bus_id, &x) == 0;
        bool hy = xpu_pci_bus_id_parse(((const struct xpu_device *)b)->pci_bus_id, &y) == 0;
        if (!hx || !hy)
                return (int)hy - (int)hx;
        return xpu_pci_bus_id_compare(&x, &y);
}

/* Optional sysfs facts of the PCI function: device id, NUMA node. Absent files are fine. */
static int read_pci_sysfs(const struct xpu_roots *roots, struct xpu_inventory *inv, struct xpu_device *dev) {
        char path[96], val[64];
        uint64_t id;
        int64_t numa;

        if (xpu_pci_sysfs_path(dev->pci_bus_id, "device", path, sizeof path) < 0)
                return 0; /* (a stored bus id always parses) */
        ssize_t n = xpu_read_value_in_root(roots->sys_fd, path, val, sizeof val);
        if (n >= 0) {
                if (xpu_parse_u64(val, 16, &id) == 0 && id <= UINT16_MAX) {
                        dev->pci_device_id = (uint16_t)id;
                        dev->have |= XPU_HAVE_PCI_IDS;
                } else if (xpu_inventory_warn(inv, "%s: not a PCI device id; ignored", path) < 0)
                        return -ENOMEM;
        }
        if (xpu_pci_sysfs_path(dev->pci_bus_id, "numa_node", path, sizeof path) < 0)
                return 0;
        n = xpu_read_value_in_root(roots->sys_fd, path, val, sizeof val);
        if (n >= 0) {
                if (xpu_parse_i64(val, 10, &numa) == 0 && numa >= -1 && numa < 65536) {
                        dev->numa_node = (int32_t)numa;
                        if (numa >= 0)
                                dev->have |= XPU_HAVE_NUMA_NODE;
                } else if (xpu_inventory_warn(inv, "%s: not a NUMA node number; ignored", path) < 0)
                        return -ENOMEM;
        }
        return 0;
}

struct probe_state {
        const struct xpu_roots *roots;
        struct xpu_inventory *inv;
        char *buf; /* XPU_READ_MAX + 1 bytes, reused for every file */
        struct xpu_device *devs; /* XPU_NVIDIA_GPUS_MAX */
        size_t n_devs;
        unsigned dropped; /* entries beyond XPU_NVIDIA_GPUS_MAX */
        uint32_t major_nvidia;
        int major_caps; /* "nvidia-caps" of /proc/devices, -errno when absent */
        const char *driver_version;
};

/* Keep DEV among the XPU_NVIDIA_GPUS_MAX lowest bus ids seen so far. */
static void keep_device(struct probe_state *s, const struct xpu_device *dev) {
        if (s->n_devs < XPU_NVIDIA_GPUS_MAX) {
                s->devs[s->n_devs++] = *dev;
                return;
        }
        s->dropped++;
        size_t hi = 0;
        for (size_t i = 1; i < s->n_devs; i++)
                if (cmp_devices(&s->devs[i], &s->devs[hi]) > 0)
                        hi = i;
        if (cmp_devices(dev, &s->devs[hi]) < 0)
                s->devs[hi] = *dev;
}

/* Read one gpus/<NAME> entry. Returns 0 (device kept or skipped with a warning) or -ENOMEM. */
static int probe_gpu(struct probe_state *s, const char *name) {
        struct xpu_inventory *inv = s->inv;
        char dir[128], info[160], err[256] = "";
        struct stat st;

        if (strlen(name) > GPU_DIR_NAME_MAX)
                return xpu_inventory_warn(inv, "%s/%.32s...: name too long for a PCI bus id; ignored",
                                          PROC_NVIDIA_GPUS, name);
        snprintf(dir, sizeof dir, "%s/%.32s", PROC_NVIDIA_GPUS, name);
        snprintf(info, sizeof info, "%s/information", dir);
        if (xpu_stat_in_root(s->roots->sys_fd, dir, false, &st) < 0 || !S_ISDIR(st.st_mode))
                return xpu_inventory_warn(inv, "%s: not a directory; ignored", dir);

        ssize_t n = xpu_read_file_in_root(s->roots->sys_fd, info, s->buf, XPU_READ_MAX + 1);
        if (n < 0)
                return xpu_inventory_warn(inv, "%s: %s; device skipped", info, read_error(n, err, sizeof err));

        struct xpu_device dev = {
                .vendor = XPU_VENDOR_NVIDIA,
                .source = XPU_SOURCE_PROCFS,
                .numa_node = -1,
                .pci_vendor_id = NVIDIA_PCI_VENDOR, /* nvidia.ko binds only NVIDIA functions */
        };
        int r = xpu_nvidia_parse_information(s->buf, &dev, err, sizeof err);
        if (r == -ENODATA)
                return xpu_inventory_warn(inv, "%s: %s; device skipped", info, err);
        if (!dev.pci_bus_id[0] && xpu_pci_bus_id_normalize(name, dev.pci_bus_id) < 0)
                return xpu_inventory_warn(inv, "%s: no usable \"Bus Location\" line and \"%s\" is not a "
                                          "PCI bus id; device skipped", info, name);
        if (xpu_nvidia_facts(&dev)->excluded)
                return xpu_inventory_warn(inv, "%s: the driver excludes this GPU (\"GPU Excluded\" or \"Blacklisted\": Yes); "
                                          "device skipped", info);
        for (size_t i = 0; i < s->n_devs; i++)
                if (xpu_pci_bus_id_equal(s->devs[i].pci_bus_id, dev.pci_bus_id))
                        return xpu_inventory_warn(inv, "%s: bus id %s is listed twice; device skipped", info,
                                                  dev.pci_bus_id);

        /* One warning for everything wrong in this file. */
        if (!(dev.have & XPU_HAVE_MINOR)) {
                const char *missing = r == 0 ? "no \"Device Minor\" line"
                                      : strstr(err, "\"Device Minor\"") ? NULL
                                                                         : "no usable \"Device Minor\" line";
                if (xpu_inventory_warn(inv, "%s: %s%s%s; device has no /dev/nvidia node", info,
                                       r < 0 ? err : "", r < 0 && missing ? "; " : "",
                                       missing ? missing : "") < 0)
                        return -ENOMEM;
        } else if (r < 0 && xpu_inventory_warn(inv, "%s: %s; field ignored", info, err) < 0)
                return -ENOMEM;

        if (s->driver_version)
                xpu_strlcpy(dev.driver_version, s->driver_version, sizeof dev.driver_version);
        if (dev.have & XPU_HAVE_MINOR) {
                char node[32];
                snprintf(node, sizeof node, "/dev/nvidia%u", xpu_nvidia_facts(&dev)->minor);
                xpu_devnode_add(s->roots, dev.nodes, &dev.n_nodes, XPU_DEVICE_NODES_MAX, node,
                                s->major_nvidia, xpu_nvidia_facts(&dev)->minor, true, false);
        }
        if (read_pci_sysfs(s->roots, inv, &dev) < 0 || xpu_nvidia_probe_mig(s->roots, inv, &dev, s->major_caps) < 0)
                return -ENOMEM;
        keep_device(s, &dev);
        return 0;
}

static int probe_gpus(struct probe_state *s) {
        int fd = xpu_open_in_root(s->roots->sys_fd, PROC_NVIDIA_GPUS, O_RDONLY | O_DIRECTORY, 0);
        if (fd == -ENOENT)
                return 0; /* driver loaded, no GPU bound */
        if (fd < 0)
                return xpu_inventory_warn(s->inv, "%s: %s; no GPU listed", PROC_NVIDIA_GPUS, strerror(-fd));
        _cleanup_closedir_ DIR *d = fdopendir(fd);
        if (!d) {
                int e = errno;
                close(fd);
                return xpu_inventory_warn(s->inv, "%s: %s; no GPU listed", PROC_NVIDIA_GPUS, strerror(e));
        }
        for (struct dirent *de; (de = readdir(d));) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                if (probe_gpu(s, de->d_name) < 0)
                        return -ENOMEM;
        }
        if (s->dropped > 0)
                return xpu_inventory_warn(s->inv, "%s: more than %d GPUs; the %u with the highest bus ids "
                                          "ignored", PROC_NVIDIA_GPUS, XPU_NVIDIA_GPUS_MAX, s->dropped);
        return 0;
}

static int read_version(const struct xpu_roots *roots, struct xpu_inventory *inv, char *buf) {
        struct xpu_vendor_info *vi = &inv->vendors[XPU_VENDOR_NVIDIA];
        char err[64];
        ssize_t n = xpu_read_file_in_root(roots->sys_fd, PROC_NVIDIA_VERSION, buf, XPU_READ_MAX + 1);
        if (n == -ENOENT)
                return 0;
        if (n < 0)
                return xpu_inventory_warn(inv, "%s: %s; driver version omitted", PROC_NVIDIA_VERSION,
                                          read_error(n, err, sizeof err));
        if (xpu_nvidia_parse_version(buf, vi->driver_version, sizeof vi->driver_version, vi->driver_flavor,
                                     sizeof vi->driver_flavor) < 0)
                return xpu_inventory_warn(inv, "%s: first line is not \"NVRM version: ... Kernel Module "
                                          "<version> ...\"; driver version omitted", PROC_NVIDIA_VERSION);
        return 0;
}

int xpu_nvidia_probe(const struct xpu_roots *roots, struct xpu_inventory *inv) {
        struct xpu_vendor_info *vi = &inv->vendors[XPU_VENDOR_NVIDIA];
        struct stat st;
        int r;

        if (xpu_stat_in_root(roots->sys_fd, PROC_NVIDIA, false, &st) < 0 || !S_ISDIR(st.st_mode)) {
                if ((r = xpu_nvidia_tegra_probe(roots, inv)) != 0) /* a Jetson's iGPU: no procfs */
                        return r < 0 ? r : 0;
                vi->driver_loaded = false;
                snprintf(vi->looked_for, sizeof vi->looked_for,
                         "%s under %.100s: not found (no NVIDIA kernel driver loaded)", LOOKED_FOR, roots->sys);
                return 0;
        }
        vi->driver_loaded = true;

        _cleanup_free_ char *buf = malloc(XPU_READ_MAX + 1);
        _cleanup_free_ struct xpu_device *devs = calloc(XPU_NVIDIA_GPUS_MAX, sizeof *devs);
        if (!buf || !devs)
                return -ENOMEM;
        r = read_version(roots, inv, buf);
        if (r < 0)
                return r;

        /* Majors, one read of /proc/devices: the GPU's is "nvidia" since driver 550.40, "nvidia-frontend" before. */
        const char *devices = xpu_read_file_in_root(roots->sys_fd, "/proc/devices", buf, XPU_READ_MAX + 1) < 0 ? NULL : buf;
        int major_nvidia = xpu_proc_devices_major(devices, "nvidia");
        if (major_nvidia < 0)
                major_nvidia = xpu_proc_devices_major(devices, "nvidia-frontend");
        if (major_nvidia < 0)
                major_nvidia = NVIDIA_MAJOR;
        int major_uvm = xpu_proc_devices_major(devices, "nvidia-uvm");

        for (size_t i = 0; i < ELEMENTSOF(vendor_nodes); i++) {
                bool uvm = vendor_nodes[i].major == MAJOR_UVM;
                int major = uvm ? major_uvm : major_nvidia;
                xpu_devnode_add(roots, vi->nodes, &vi->n_nodes, XPU_VENDOR_NODES_MAX, vendor_nodes[i].path,
                                major >= 0 ? (uint32_t)major : 0, vendor_nodes[i].minor, major >= 0,
                                vendor_nodes[i].optional);
        }

        struct probe_state s = {
                .roots = roots,
                .inv = inv,
                .buf = buf,
                .devs = devs,
                .major_nvidia = (uint32_t)major_nvidia,
                .major_caps = xpu_proc_devices_major(devices, "nvidia-caps"),
                .driver_version = vi->driver_version[0] ? vi->driver_version : NULL,
        };
        r = probe_gpus(&s);
        if (r < 0)
                return r;

        qsort(s.devs, s.n_devs, sizeof *s.devs, cmp_devices);
        unsigned index = 0;
        for (size_t i = 0; i < s.n_devs; i++) {
                /* Two GPUs cannot share a UUID or a Device Minor: the later one (in bus order) is
                 * inconsistent data, not a GPU, and would make selection and nodes ambiguous. */
                const struct xpu_device *d = &s.devs[i], *dup = NULL;
                for (size_t j = 0; j < i && !dup; j++)
                        if ((d->uuid[0] && strcmp(d->uuid, s.devs[j].uuid) == 0) ||
                            ((d->have & s.devs[j].have & XPU_HAVE_MINOR) &&
                             xpu_nvidia_facts(d)->minor == xpu_nvidia_facts(&s.devs[j])->minor))
                                dup = &s.devs[j];
                if (dup) {
                        if (xpu_inventory_warn(inv, PROC_NVIDIA_GPUS "/%s/information: same %s as the GPU at %s; "
                                                    "device skipped",
                                               d->pci_bus_id,
                                               d->uuid[0] && !strcmp(d->uuid, dup->uuid) ? "GPU UUID" : "Device Minor",
                                               dup->pci_bus_id) < 0)
                                return -ENOMEM;
                        continue;
                }
                s.devs[i].vendor_index = index++;
                if (!xpu_inventory_add_device(inv, &s.devs[i]))
                        return -ENOMEM;
        }
        /* after the GPUs: their MIG capability minors are checked against these; their memory's NUMA nodes */
        if ((r = xpu_nvidia_probe_mig_caps(roots, inv, s.major_caps)) < 0 || (r = xpu_nvidia_probe_memory_numa(roots, inv)) < 0)
                return r;
        if (s.n_devs == 0)
                snprintf(vi->looked_for, sizeof vi->looked_for,
                         "%s under %.100s: driver loaded, no usable GPU listed", LOOKED_FOR, roots->sys);
        else
                snprintf(vi->looked_for, sizeof vi->looked_for, "%s under %.100s: %zu GPU(s)", LOOKED_FOR,
                         roots->sys, s.n_devs);
        return 0;
}
