/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA MIG fast path: the GPU and compute instances the driver lists in procfs, with the
 * capability nodes a workload needs to open one (nvidia.h).
 *
 * Sources (below the sys root):
 *   /proc/driver/nvidia/capabilities/gpu<minor>/mig/gi<G>/access        a GPU instance
 *   /proc/driver/nvidia/capabilities/gpu<minor>/mig/gi<G>/ci<C>/access  a compute instance in it
 * Each access file holds "DeviceFileMinor: M", "DeviceFileMode: 292", "DeviceFileModify: 1"; M is
 * the minor of /dev/nvidia-caps/nvidia-capM, whose major is "nvidia-caps" in /proc/devices. The
 * minors are read, never computed: the numbering (3 + 9·G + 135·gpu on one host) is the driver's
 * business. <minor> is the GPU's Device Minor, as /dev/nvidia<minor>. The directories exist only
 * while the instances do, so a GI directory means MIG mode is on. */
#include "base/fileio.h"
#include "base/root-file.h"
#include "base/path.h"
#include "base/str.h"
#include "nvidia/nvidia.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROC_CAPS "/proc/driver/nvidia/capabilities"

/* Largest GI/CI id we accept: the driver's are below 16 (A100: GI 1..14, CI 0..7). */
#define MIG_ID_MAX 255

int xpu_nvidia_parse_cap_minor(const char *text, uint32_t *minor) {
        bool found = false;
        uint32_t value = 0;

        if (!text || !minor)
                return -EINVAL;
        char line[XPU_NVIDIA_LINE_MAX + 1], *key, *val;
        for (const char *p = text;;) {
                int r = xpu_nvidia_next_key_value(&p, line, &key, &val);
                if (r <= 0) {
                        if (r < 0)
                                return r; /* -E2BIG */
                        break;
                }
                if (!key || strcasecmp(key, "DeviceFileMinor") != 0)
                        continue;
                uint64_t v;
                if (found || xpu_parse_u64(val, 10, &v) < 0 || v > XPU_NVIDIA_CAP_MINOR_MAX)
                        return -EINVAL;
                value = (uint32_t)v;
                found = true;
        }
        if (!found)
                return -ENODATA;
        *minor = value;
        return 0;
}

/* "gi12" with PREFIX "gi" → 12. Returns the id, or -EINVAL for any other name. */
static int parse_id(const char *name, const char *prefix) {
        size_t n = strlen(prefix);
        uint64_t v;
        if (strncmp(name, prefix, n) != 0 || !name[n] || strlen(name + n) > 3 || name[n] == '+' ||
            name[n] == '-' || (name[n] == '0' && name[n + 1]) || xpu_parse_u64(name + n, 10, &v) < 0 ||
            v > MIG_ID_MAX)
                return -EINVAL;
        return (int)v;
}

/* The ids of the PREFIX<N> directories in DIR (below the sys root), ascending, into IDS (room for
 * MIG_ID_MAX + 1): every id is collected before any is used, so the lowest are the ones kept.
 * Returns the count, -ENOENT when DIR is absent, or another -errno. */
static int list_ids(const struct xpu_roots *roots, const char *dir, const char *prefix, int *ids) {
        int fd = xpu_open_in_root(roots->sys_fd, dir, O_RDONLY | O_DIRECTORY, 0);
        if (fd < 0)
                return fd;
        DIR *d = fdopendir(fd);
        if (!d) {
                int e = -errno;
                close(fd);
                return e;
        }
        bool seen[MIG_ID_MAX + 1] = { false };
        for (struct dirent *de; (de = readdir(d));) {
                int id = parse_id(de->d_name, prefix);
                if (id >= 0)
                        seen[id] = true; /* "access", ".", "..": not an instance */
        }
        closedir(d);
        int n = 0;
        for (int id = 0; id <= MIG_ID_MAX; id++)
                if (seen[id])
                        ids[n++] = id;
        return n;
}

/* The capability node named by the access file PATH into NODE. Returns 0, or -errno with the
 * problem in WHY. */
static int read_cap(const struct xpu_roots *roots, const char *path, int caps_major, struct xpu_devnode *node,
                    char *buf, const char **why) {
        ssize_t n = xpu_read_file_in_root(roots->sys_fd, path, buf, XPU_READ_MAX + 1);
        if (n < 0) {
                *why = n == -EFBIG ? "too large" : n == -EINVAL ? "not a regular text file" : strerror((int)-n);
                return (int)n;
        }
        uint32_t minor;
        int r = xpu_nvidia_parse_cap_minor(buf, &minor);
        if (r < 0) {
                *why = r == -ENODATA ? "no \"DeviceFileMinor\" line"
                       : r == -E2BIG ? "a line longer than 512 bytes"
                                     : "bad \"DeviceFileMinor\" line";
                return r;
        }
        size_t used = 0;
        char p[64];
        snprintf(p, sizeof p, "/dev/nvidia-caps/nvidia-cap%u", minor);
        return xpu_devnode_add(roots, node, &used, 1, p, caps_major >= 0 ? (uint32_t)caps_major : 0, minor,
                               caps_major >= 0, false);
}

/* Capability minors name one instance each: a CI's node is no other CI's and no GI's, and a GI's
 * node belongs to that GI only. A MIG device whose minors collide (a driver's bug, or a hostile
 * tree) would hand out another instance's node: dropped, with one warning. Returns 0 or -ENOMEM. */
static int drop_colliding(struct xpu_inventory *inv, struct xpu_device *dev, const char *dir) {
        bool bad[XPU_MIG_DEVICES_MAX] = { false };
        for (size_t a = 0; a < xpu_nvidia_facts(dev)->n_mig; a++) {
                const struct xpu_mig_device *x = &xpu_nvidia_facts(dev)->mig[a];
                bad[a] |= x->gi_cap.minor == x->ci_cap.minor;
                for (size_t b = 0; b < xpu_nvidia_facts(dev)->n_mig; b++) {
                        const struct xpu_mig_device *y = &xpu_nvidia_facts(dev)->mig[b];
                        if (a == b)
                                continue;
                        bad[a] |= x->ci_cap.minor == y->ci_cap.minor || x->ci_cap.minor == y->gi_cap.minor ||
                                  (x->gi != y->gi && x->gi_cap.minor == y->gi_cap.minor);
                }
        }
        size_t k = 0;
        struct xpu_mig_device *mig = xpu_nvidia_facts(dev)->mig;
        for (size_t m = 0; m < xpu_nvidia_facts(dev)->n_mig; m++) {
                if (!bad[m]) {
                        mig[k++] = mig[m];
                        continue;
                }
                if (xpu_inventory_warn(inv, "%s/gi%u/ci%u/access: capability minors %u and %u are another instance's "
                                       "too; that MIG device skipped", dir, mig[m].gi, mig[m].ci,
                                       mig[m].gi_cap.minor, mig[m].ci_cap.minor) < 0)
                        return -ENOMEM;
        }
        xpu_nvidia_facts(dev)->n_mig = k;
        return 0;
}

int xpu_nvidia_probe_mig(const struct xpu_roots *roots, struct xpu_inventory *inv, struct xpu_device *dev,
                         int caps_major) {
        char dir[96], path[160];
        int gis[MIG_ID_MAX + 1], cis[MIG_ID_MAX + 1];
        unsigned dropped = 0;

        if (!(dev->have & XPU_HAVE_MINOR))
                return 0;
        snprintf(dir, sizeof dir, PROC_CAPS "/gpu%u/mig", xpu_nvidia_facts(dev)->minor);
        int n_gi = list_ids(roots, dir, "gi", gis);
        if (n_gi == -ENOENT || n_gi == -ENOTDIR)
                return 0; /* no instance (or a driver older than MIG) */
        if (n_gi < 0)
                return xpu_inventory_warn(inv, "%s: %s; MIG devices not read", dir, strerror(-n_gi));
        if (n_gi == 0)
                return 0;

        _cleanup_free_ char *buf = malloc(XPU_READ_MAX + 1);
        if (!buf)
                return -ENOMEM;
        /* A GPU instance exists only in MIG mode, whether or not it holds a compute instance. */
        xpu_nvidia_facts(dev)->mig_enabled = true;
        dev->have |= XPU_HAVE_MIG_MODE;
        xpu_nvidia_facts(dev)->n_mig = 0;
        for (int g = 0; g < n_gi; g++) {
                struct xpu_devnode gi_cap = { .optional = false };
                const char *why = "";
                if (xpu_nvidia_facts(dev)->n_mig == XPU_MIG_DEVICES_MAX) { /* full: the rest only counted */
                        snprintf(path, sizeof path, "%s/gi%d", dir, gis[g]);
                        int k = list_ids(roots, path, "ci", cis);
                        dropped += k > 0 ? (unsigned)k : 0;
                        continue;
                }
                snprintf(path, sizeof path, "%s/gi%d/access", dir, gis[g]);
                if (read_cap(roots, path, caps_major, &gi_cap, buf, &why) < 0) {
                        if (xpu_inventory_warn(inv, "%s: %s; the MIG devices of GPU instance %d skipped", path, why,
                                               gis[g]) < 0)
                                return -ENOMEM;
                        continue;
                }
                snprintf(path, sizeof path, "%s/gi%d", dir, gis[g]);
                int n_ci = list_ids(roots, path, "ci", cis);
                if (n_ci < 0 && n_ci != -ENOENT && n_ci != -ENOTDIR &&
                    xpu_inventory_warn(inv, "%s: %s; its compute instances not read", path, strerror(-n_ci)) < 0)
                        return -ENOMEM;
                for (int c = 0; c < n_ci; c++) {
                        struct xpu_devnode ci_cap = { .optional = false };
                        snprintf(path, sizeof path, "%s/gi%d/ci%d/access", dir, gis[g], cis[c]);
                        if (read_cap(roots, path, caps_major, &ci_cap, buf, &why) < 0) {
                                if (xpu_inventory_warn(inv, "%s: %s; that MIG device skipped", path, why) < 0)
                                        return -ENOMEM;
                                continue;
                        }
                        if (xpu_nvidia_facts(dev)->n_mig == XPU_MIG_DEVICES_MAX) {
                                dropped++;
                                continue;
                        }
                        xpu_nvidia_facts(dev)->mig[xpu_nvidia_facts(dev)->n_mig++] = (struct xpu_mig_device){
                                .gi = (uint32_t)gis[g],
                                .ci = (uint32_t)cis[c],
                                .have = XPU_MIG_HAVE_CAPS,
                                .gi_cap = gi_cap,
                                .ci_cap = ci_cap,
                        };
                }
        }
        if (dropped > 0 && xpu_inventory_warn(inv, "%s: more than %d MIG devices; the %u with the highest ids ignored",
                                              dir, XPU_MIG_DEVICES_MAX, dropped) < 0)
                return -ENOMEM;
        return drop_colliding(inv, dev, dir);
}

int xpu_nvidia_probe_mig_caps(const struct xpu_roots *roots, struct xpu_inventory *inv, int caps_major) {
        struct xpu_vendor_info *vi = &inv->vendors[XPU_VENDOR_NVIDIA];
        const char *const files[] = { PROC_CAPS "/mig/config", PROC_CAPS "/mig/monitor" };
        struct xpu_devnode *const nodes[] = { &vi->mig_config_cap, &vi->mig_monitor_cap };
        _cleanup_free_ char *buf = malloc(XPU_READ_MAX + 1);
        if (!buf)
                return -ENOMEM;
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                struct xpu_devnode found = { .optional = false };
                const char *why = "";
                int r = read_cap(roots, files[i], caps_major, &found, buf, &why);
                if (r == -ENOENT || r == -ENOTDIR)
                        continue; /* no MIG support in this driver or GPU */
                if (r < 0) {
                        if (xpu_inventory_warn(inv, "%s: %s; that MIG capability is not offered", files[i], why) < 0)
                                return -ENOMEM;
                        continue;
                }
                /* a minor that names another capability would hand that one out */
                bool taken = i == 1 && vi->mig_config_cap.path[0] && vi->mig_config_cap.minor == found.minor;
                for (size_t d = 0; d < inv->n_devices && !taken; d++) {
                        size_t n = 0;
                        const struct xpu_mig_device *g =
                                inv->devices[d].vendor == XPU_VENDOR_NVIDIA ? xpu_nvidia_mig(&inv->devices[d], &n) : NULL;
                        for (size_t m = 0; m < n && !taken; m++)
                                taken = g[m].gi_cap.minor == found.minor || g[m].ci_cap.minor == found.minor;
                }
                if (taken) {
                        if (xpu_inventory_warn(inv, "%s: DeviceFileMinor %u is another capability's too; that MIG "
                                                    "capability is not offered", files[i], found.minor) < 0)
                                return -ENOMEM;
                        if (i == 1 && vi->mig_config_cap.minor == found.minor)
                                vi->mig_config_cap = (struct xpu_devnode){ .optional = false };
                        continue;
                }
                *nodes[i] = found;
        }
        return 0;
}

const struct xpu_mig_device *xpu_nvidia_mig(const struct xpu_device *d, size_t *n) {
        *n = xpu_nvidia_facts(d)->n_mig < XPU_MIG_DEVICES_MAX ? xpu_nvidia_facts(d)->n_mig : XPU_MIG_DEVICES_MAX;
        return xpu_nvidia_facts(d)->mig;
}
