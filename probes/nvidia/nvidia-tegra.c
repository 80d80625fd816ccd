/* SPDX-License-Identifier: Apache-2.0 */
/* Jetson fast path: the integrated GPU of an NVIDIA Tegra SoC, where there is no PCI GPU and no
 * /proc/driver/nvidia/gpus (the nvgpu driver). Sources:
 *   /proc/device-tree/compatible   NUL-separated strings; "nvidia,tegra<N>" names the SoC (sys root)
 *   /proc/device-tree/model        the board's name ("NVIDIA Jetson ..."), the device's name
 *   /sys/devices/.../<gpu>/of_node/compatible  the GPU's node: "nvidia,ga10b" (Orin), "nvidia,gv11b"
 *                                  (Xavier); its directory is where nvgpu publishes railgate, load
 *   /etc/nv_tegra_release          line 1 "# R35 (release), REVISION: 4.1, ..." (driver root, read once
 *                                  it is chosen: xpu_nvidia_tegra_driver_root): L4T 35.4.1
 * Device nodes (dev root): /dev/nvmap and the GPU's control node (/dev/nvgpu/igpu0/ctrl on L4T
 * 35 and later, /dev/nvhost-ctrl-gpu before, both optional); their majors are dynamic and not in a file we read,
 * so they stay unknown. What a container gets beyond them the host lists in its CSV files
 * (nvidia-csv.c). */
#include "nvidia/nvidia-tegra.h"
#include "base/fileio.h"
#include "base/macro.h"
#include "base/path.h"
#include "base/root-file.h"
#include "base/str.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DT_COMPATIBLE "/proc/device-tree/compatible"
#define DT_MODEL "/proc/device-tree/model"
#define TEGRA_RELEASE "/etc/nv_tegra_release"
#define DT_READ_MAX 1024 /* a board's compatible list is a few strings */

/* Where nvgpu's platform device sits in sysfs, by L4T release (jetson-stats and the L4T
 * documentation name these; the first that exists is the GPU). */
static const char *const gpu_dirs[] = {
        "/sys/devices/gpu.0",                       /* Tegra X1 and X2 (Nano, TX1, TX2), L4T 32 */
        "/sys/devices/17000000.gv11b",              /* Xavier, L4T 32 */
        "/sys/devices/platform/17000000.gv11b",     /* Xavier, L4T 35 */
        "/sys/devices/17000000.ga10b",              /* Orin, L4T 35 */
        "/sys/devices/platform/17000000.ga10b",     /* Orin, L4T 35 (platform bus) */
        "/sys/devices/platform/bus@0/17000000.gpu", /* Orin, L4T 36 */
};

/* The GPU's chip (its device-tree node's compatible, "nvidia,<chip>") and its CUDA compute
 * capability, as NVIDIA's CUDA GPU list gives it for the Jetson modules with that chip
 * (developer.nvidia.com/cuda-gpus: Jetson Nano/TX1 5.3, TX2 6.2, Xavier 7.2, Orin 8.7). */
static const struct {
        const char *chip;
        const char *cc;
} chips[] = {
        { "gm20b", "5.3" }, /* Tegra X1 */
        { "gp10b", "6.2" }, /* Tegra X2 (Parker) */
        { "gv11b", "7.2" }, /* Xavier */
        { "ga10b", "8.7" }, /* Orin */
};

/* The toolkit checks no NVIDIA_REQUIRE_JETPACK* variable (internal/config/image/cuda_image.go): its
 * one value, csv-mounts=all, picks CSV files (nvidia-csv.c), and NGC images set an empty
 * NVIDIA_REQUIRE_JETPACK_HOST_MOUNTS. Any other NVIDIA_REQUIRE_JETPACK is checked here ("l4t>=36"). */
const char *const xpu_nvidia_require_skip[] = { "NVIDIA_REQUIRE_JETPACK=csv-mounts=all", "NVIDIA_REQUIRE_JETPACK_*",
                                                NULL };

int xpu_nvidia_parse_l4t_release(const char *text, char *out, size_t size) {
        unsigned major, minor, patch = 0;
        int n = 0, m = 0;
        /* "# R35 (release), REVISION: 4.1, GCID: ..." ; REVISION may lack the patch ("5"). */
        if (sscanf(text, "# R%3u (release), REVISION: %3u%n.%3u%n", &major, &minor, &n, &patch, &m) < 2 || !n)
                return -EINVAL;
        if (m)
                n = m;
        if (text[n] != ',' && text[n] != '\n' && text[n] != '\0')
                return -EINVAL;
        int w = m ? snprintf(out, size, "%u.%u.%u", major, minor, patch) : snprintf(out, size, "%u.%u", major, minor);
        return w < 0 || (size_t)w >= size ? -ENAMETOOLONG : 0;
}

int xpu_nvidia_tegra_soc(const char *compat, size_t len, char *soc, size_t size) {
        for (size_t i = 0; i < len;) {
                const char *s = compat + i;
                size_t n = strnlen(s, len - i);
                if (n > 12 && strncmp(s, "nvidia,tegra", 12) == 0 && n - 7 < size) {
                        memcpy(soc, s + 7, n - 7);
                        soc[n - 7] = '\0';
                        for (char *c = soc; *c; c++)
                                if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9')))
                                        return -EINVAL;
                        return 0;
                }
                i += n + 1;
        }
        return -ENOENT;
}

/* The raw bytes of PATH below ROOT_FD (device-tree properties hold NULs), at most SIZE - 1,
 * NUL-terminated. Returns the length or -errno (-EFBIG when longer). */
static ssize_t read_raw(int root_fd, const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = xpu_open_in_root(root_fd, path, O_RDONLY | O_NONBLOCK, 0);
        if (fd < 0)
                return fd;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        size_t got = 0;
        for (;;) {
                ssize_t r = read(fd, buf + got, size - 1 - got);
                if (r < 0)
                        return negative_errno();
                if (r == 0)
                        break;
                got += (size_t)r;
                if (got == size - 1)
                        return -EFBIG;
        }
        buf[got] = '\0';
        return (ssize_t)got;
}

/* Add the node PATH to DEV (major unknown: dynamic on every L4T release). */
static void add_node(const struct xpu_roots *roots, struct xpu_device *dev, const char *path, bool optional) {
        if (xpu_devnode_add(roots, dev->nodes, &dev->n_nodes, XPU_DEVICE_NODES_MAX, path, 0, 0, false, optional) == 0)
                dev->nodes[dev->n_nodes - 1].any_number = true;
}

/* The GPU's chip from its node's compatible, into CHIP; "" when no nvgpu directory says. */
static const char *find_gpu(const struct xpu_roots *roots, char *chip, size_t size) {
        char buf[DT_READ_MAX];
        chip[0] = '\0';
        for (size_t i = 0; i < ELEMENTSOF(gpu_dirs); i++) {
                struct stat st;
                if (xpu_stat_in_root(roots->sys_fd, gpu_dirs[i], false, &st) < 0 || !S_ISDIR(st.st_mode))
                        continue;
                char path[128];
                snprintf(path, sizeof path, "%s/of_node/compatible", gpu_dirs[i]);
                ssize_t n = read_raw(roots->sys_fd, path, buf, sizeof buf);
                if (n > 7 && strncmp(buf, "nvidia,", 7) == 0)
                        xpu_strlcpy(chip, buf + 7, size);
                return gpu_dirs[i];
        }
        return NULL;
}

int xpu_nvidia_tegra_driver_root(const struct xpu_roots *roots, struct xpu_inventory *inv) {
        char buf[DT_READ_MAX];
        for (size_t i = 0; i < inv->n_devices; i++) {
                struct xpu_device *d = &inv->devices[i];
                if (d->vendor != XPU_VENDOR_NVIDIA || !xpu_nvidia_facts(d)->tegra_soc[0])
                        continue;
                xpu_nvidia_facts(d)->l4t_release[0] = '\0';
                ssize_t n = xpu_read_file_in_root(roots->driver_fd, TEGRA_RELEASE, buf, sizeof buf);
                char *l4t = xpu_nvidia_facts(d)->l4t_release;
                if (n >= 0 && xpu_nvidia_parse_l4t_release(buf, l4t, sizeof xpu_nvidia_facts(d)->l4t_release) < 0)
                        return xpu_inventory_warn(inv, "%s in driver root %.100s: first line is not \"# R<major> "
                                                       "(release), REVISION: <minor>[.<patch>], ...\"; L4T release "
                                                       "omitted", TEGRA_RELEASE, roots->driver);
                if (n < 0 && n != -ENOENT)
                        return xpu_inventory_warn(inv, "%s in driver root %.100s: %s; L4T release omitted",
                                                  TEGRA_RELEASE, roots->driver, strerror((int)-n));
        }
        return 0;
}

int xpu_nvidia_tegra_probe(const struct xpu_roots *roots, struct xpu_inventory *inv) {
        struct xpu_vendor_info *vi = &inv->vendors[XPU_VENDOR_NVIDIA];
        char buf[DT_READ_MAX], soc[16];
        ssize_t n = read_raw(roots->sys_fd, DT_COMPATIBLE, buf, sizeof buf);
        if (n == -ENOENT)
                return 0;
        if (n < 0)
                return xpu_inventory_warn(inv, "%s: %s; not probed as a Jetson", DT_COMPATIBLE, strerror((int)-n)) < 0
                               ? -ENOMEM
                               : 0;
        if (xpu_nvidia_tegra_soc(buf, (size_t)n, soc, sizeof soc) < 0)
                return 0; /* another SoC (a Grace or Ampere server has a device tree too) */

        char chip[16];
        const char *dir = find_gpu(roots, chip, sizeof chip);
        inv->platform = XPU_PLATFORM_TEGRA;
        if (!dir) {
                snprintf(vi->looked_for, sizeof vi->looked_for,
                         "%s says %s, but no nvgpu device under %.100s/sys/devices (the GPU driver not loaded?)",
                         DT_COMPATIBLE, soc, roots->sys);
                return 1;
        }
        vi->driver_loaded = true;
        xpu_strlcpy(vi->driver_flavor, "nvgpu", sizeof vi->driver_flavor);

        struct xpu_device dev = { .vendor = XPU_VENDOR_NVIDIA, .source = XPU_SOURCE_SYSFS, .numa_node = -1 };
        dev.integrated = true;
        xpu_strlcpy(xpu_nvidia_facts(&dev)->tegra_soc, soc, sizeof xpu_nvidia_facts(&dev)->tegra_soc);
        xpu_strlcpy(dev.kernel_driver, "nvgpu", sizeof dev.kernel_driver);
        n = read_raw(roots->sys_fd, DT_MODEL, buf, sizeof buf);
        if (n > 0 && xpu_str_is_printable(buf))
                xpu_strlcpy(dev.name, buf, sizeof dev.name); /* the model ends at its NUL */
        for (size_t i = 0; i < ELEMENTSOF(chips); i++)
                if (strcmp(chip, chips[i].chip) == 0)
                        xpu_strlcpy(xpu_nvidia_facts(&dev)->compute_capability, chips[i].cc, sizeof xpu_nvidia_facts(&dev)->compute_capability);
        if (chip[0] && !xpu_nvidia_facts(&dev)->compute_capability[0] &&
            xpu_inventory_warn(inv, "%s/of_node/compatible: GPU \"%s\" is not a chip xpuinit knows; compute "
                                    "capability omitted", dir, chip) < 0)
                return -ENOMEM;

        /* nvmap (the memory allocator every CUDA context opens) on every release; the GPU's control
         * node is /dev/nvgpu/igpu0/ctrl from L4T 35 and /dev/nvhost-ctrl-gpu before (L4T 35 has
         * both), so neither alone is required. */
        add_node(roots, &dev, "/dev/nvmap", false);
        add_node(roots, &dev, "/dev/nvgpu/igpu0/ctrl", true);
        add_node(roots, &dev, "/dev/nvhost-ctrl-gpu", true);
        dev.vendor_index = 0;
        if (!xpu_inventory_add_device(inv, &dev))
                return -ENOMEM;
        snprintf(vi->looked_for, sizeof vi->looked_for, "%s (%s) and nvgpu at %s under %.100s: 1 integrated GPU",
                 DT_COMPATIBLE, soc, dir, roots->sys);
        return 1;
}
