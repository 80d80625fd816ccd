/* SPDX-License-Identifier: Apache-2.0 */
/* Fabric device sets: the list of every vendor's, and the parsers of their variables (fabric.h). */
#include "fabric.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/macro.h"
#include "base/path.h"
#include "base/procfs.h"
#include "base/root-file.h"
#include "base/str.h"
#include "vendor.h"

/* The vendor-neutral sets (rdma.c). */
extern const struct xpu_fabric_set xpu_fabric_rdma;
static const struct xpu_fabric_set *const neutral_sets[] = { &xpu_fabric_rdma };

size_t xpu_fabric_sets(const struct xpu_fabric_set *sets[XPU_FABRIC_SETS_MAX],
                       enum xpu_vendor vendor[XPU_FABRIC_SETS_MAX]) {
        size_t n = 0;
        for (size_t i = 0; i < sizeof neutral_sets / sizeof *neutral_sets && n < XPU_FABRIC_SETS_MAX; i++) {
                sets[n] = neutral_sets[i];
                vendor[n++] = _XPU_VENDOR_MAX;
        }
        for (int v = 0; v < _XPU_VENDOR_MAX; v++)
                for (const struct xpu_fabric_set *const *s = xpu_vendors[v]->fabric;
                     s && *s && n < XPU_FABRIC_SETS_MAX; s++) {
                        sets[n] = *s;
                        vendor[n++] = (enum xpu_vendor)v;
                }
        return n;
}

const char *xpu_fabric_name_invalid(const char *name) {
        const struct xpu_fabric_set *sets[XPU_FABRIC_SETS_MAX];
        enum xpu_vendor vendor[XPU_FABRIC_SETS_MAX];
        size_t n = xpu_fabric_sets(sets, vendor);
        for (size_t i = 0; i < n; i++)
                if (strcmp(sets[i]->name, name) == 0)
                        return NULL;
        return "the name of a fabric device set: rdma, imex, gdrcopy, gds or nvswitch";
}

int xpu_fabric_parse_enabled(const char *value) {
        if (!value || !value[0] || strcmp(value, "disabled") == 0)
                return 0;
        return strcmp(value, "enabled") == 0 ? 1 : -EINVAL;
}

/* Insert ID into R's ascending list, once. */
static int add_channel(struct xpu_fabric_request *r, uint32_t id) {
        size_t k = 0;
        while (k < r->n_channels && r->channels[k] < id)
                k++;
        if (k < r->n_channels && r->channels[k] == id)
                return 0;
        if (r->n_channels >= XPU_FABRIC_CHANNELS_MAX)
                return -E2BIG;
        memmove(&r->channels[k + 1], &r->channels[k], (r->n_channels - k) * sizeof *r->channels);
        r->channels[k] = id;
        r->n_channels++;
        return 0;
}

int xpu_fabric_parse_channels(const char *value, struct xpu_fabric_request *r, char *err, size_t err_size) {
        r->wanted = r->all = false;
        r->n_channels = 0;
        if (!value)
                return 0;
        char word[16];
        const char *p = value;
        /* "all" and "none" only as the whole value. */
        while (*p == ' ')
                p++;
        size_t len = strlen(p);
        while (len && p[len - 1] == ' ')
                len--;
        if (len == 0 || (len == 4 && strncmp(p, "none", 4) == 0))
                return 0;
        if (len == 3 && strncmp(p, "all", 3) == 0) {
                r->wanted = r->all = true;
                return 0;
        }
        for (const char *end = p + len; p <= end;) {
                const char *comma = memchr(p, ',', (size_t)(end - p));
                const char *stop = comma ? comma : end;
                const char *a = p, *b = stop;
                while (a < b && *a == ' ')
                        a++;
                while (b > a && b[-1] == ' ')
                        b--;
                size_t n = (size_t)(b - a);
                bool digits = n > 0 && n < sizeof word;
                for (size_t i = 0; digits && i < n; i++)
                        digits = a[i] >= '0' && a[i] <= '9';
                uint64_t id = 0;
                if (digits) {
                        memcpy(word, a, n);
                        word[n] = '\0';
                        digits = xpu_parse_u64(word, 10, &id) == 0 && id <= XPU_FABRIC_CHANNEL_MAX;
                }
                if (!digits) {
                        snprintf(err, err_size, "entry \"%.*s\" is not a channel id (a decimal number from 0 to %u)",
                                 (int)(n > 32 ? 32 : n), a, XPU_FABRIC_CHANNEL_MAX);
                        r->n_channels = 0;
                        return -EINVAL;
                }
                if (add_channel(r, (uint32_t)id) < 0) {
                        snprintf(err, err_size, "more than %d channel ids", XPU_FABRIC_CHANNELS_MAX);
                        r->n_channels = 0;
                        return -E2BIG;
                }
                if (!comma)
                        break;
                p = comma + 1;
        }
        r->wanted = true;
        return 0;
}

int xpu_fabric_channel_id(const struct xpu_fabric_set *set, const char *path, uint32_t *ret) {
        const char *glob = set->nodes[0].glob;
        const char *star = strchr(glob, '*');
        if (!star || strncmp(path, glob, (size_t)(star - glob)) != 0)
                return -EINVAL;
        const char *id = path + (star - glob), *tail = star + 1;
        size_t digits = strspn(id, "0123456789");
        /* "channel7" only: no sign, no leading zero, nothing but the glob's tail after the digits */
        if (digits == 0 || digits > 7 || (digits > 1 && id[0] == '0') || strcmp(id + digits, tail) != 0)
                return -EINVAL;
        uint32_t v = 0;
        for (size_t i = 0; i < digits; i++)
                v = v * 10 + (uint32_t)(id[i] - '0');
        if (v > XPU_FABRIC_CHANNEL_MAX)
                return -EINVAL;
        *ret = v;
        return 0;
}

int xpu_fabric_count_nodes(int dev_fd, int sys_fd, const struct xpu_fabric_set *set, size_t visit_max, bool *ret_cut) {
        const char *glob = set->nodes[0].glob;
        const char *slash = strrchr(glob, '/');
        char dir[64];
        *ret_cut = false;
        if (!slash || (size_t)(slash - glob) >= sizeof dir)
                return -EINVAL;
        memcpy(dir, glob, (size_t)(slash - glob));
        dir[slash - glob] = '\0';
        /* The major /proc/devices gives the driver; unknown (any major) when it names none. */
        int want = -ENOENT;
        if (set->nodes[0].major && sys_fd >= 0) {
                _cleanup_free_ char *devices = malloc(XPU_READ_MAX + 1);
                if (!devices)
                        return -ENOMEM;
                if (xpu_read_file_in_root(sys_fd, "/proc/devices", devices, XPU_READ_MAX + 1) >= 0)
                        want = xpu_proc_devices_major(devices, set->nodes[0].major);
                if (want == -ENOMEM)
                        return -ENOMEM;
        }
        int fd = xpu_open_in_root(dev_fd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
        if (fd < 0)
                return fd;
        _cleanup_closedir_ DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -ENOMEM;
        }
        int n = 0;
        size_t visited = 0;
        for (struct dirent *de; (de = readdir(d)); visited++) {
                if (visited == visit_max) {
                        *ret_cut = true;
                        break;
                }
                char path[64];
                uint32_t id;
                struct stat st;
                if (de->d_name[0] == '.' || (de->d_type != DT_CHR && de->d_type != DT_UNKNOWN) ||
                    snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= (int)sizeof path ||
                    xpu_fabric_channel_id(set, path, &id) < 0 ||
                    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue;
                /* a channel a container can be given: what xpuinit's plan checks (plan-fabric.c) */
                n += S_ISCHR(st.st_mode) && minor(st.st_rdev) == id &&
                     (want < 0 || major(st.st_rdev) == (unsigned)want);
        }
        return n;
}

int xpu_fabric_channel_path(const struct xpu_fabric_set *set, uint32_t id, char *buf, size_t size) {
        const char *glob = set->nodes[0].glob;
        const char *star = strchr(glob, '*');
        int n = star ? snprintf(buf, size, "%.*s%u%s", (int)(star - glob), glob, id, star + 1)
                     : snprintf(buf, size, "%s", glob);
        return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}
