/* SPDX-License-Identifier: Apache-2.0 */
/* WSL2's GPUs: /dev/dxg and the Windows driver store (wsl.h). */
#include "wsl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/macro.h"
#include "base/path.h"
#include "base/str.h"
#include "base/strv.h"

static void strv_freep(char ***v) {
        xpu_strv_free(*v);
}
#define _cleanup_strv_free_ _cleanup_(strv_freep)

static const char *file_kind(mode_t m) {
        return S_ISREG(m) ? "a regular file" : S_ISDIR(m) ? "a directory" : S_ISLNK(m) ? "a symbolic link"
             : S_ISBLK(m) ? "a block device" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : "not a device";
}

/* Is /dev/dxg under the dev root WSL's misc character device? Into *RET_MINOR its minor.
 * Returns 1, 0 (absent), or 0 after a warning (something else is there), -ENOMEM. */
static int dxg_node(const struct xpu_roots *roots, struct xpu_inventory *inv, uint32_t *ret_minor) {
        struct stat st;
        int r = xpu_stat_in_root(roots->dev_fd, XPU_WSL_DXG, true, &st);
        if (r == -ENOENT || r == -ENOTDIR)
                return 0;
        if (r < 0)
                return xpu_inventory_warn(inv, "%s under dev root %s: %s; not a WSL2 GPU node", XPU_WSL_DXG,
                                          roots->dev, strerror(-r)) < 0 ? -ENOMEM : 0;
        if (!S_ISCHR(st.st_mode))
                return xpu_inventory_warn(inv, "%s under dev root %s: %s, not a character device; not taken for "
                                               "WSL2's GPU node (dxgkrnl makes it a misc character device, major %u): "
                                               "give the container the host's /dev/dxg (--device /dev/dxg)",
                                          XPU_WSL_DXG, roots->dev, file_kind(st.st_mode), XPU_WSL_DXG_MAJOR) < 0
                               ? -ENOMEM
                               : 0;
        if (major(st.st_rdev) != XPU_WSL_DXG_MAJOR)
                return xpu_inventory_warn(inv, "%s under dev root %s: character device %u:%u, not of the misc major "
                                               "%u; not taken for WSL2's GPU node: give the container the host's "
                                               "/dev/dxg (--device /dev/dxg)",
                                          XPU_WSL_DXG, roots->dev, major(st.st_rdev), minor(st.st_rdev),
                                          XPU_WSL_DXG_MAJOR) < 0
                               ? -ENOMEM
                               : 0;
        *ret_minor = minor(st.st_rdev);
        return 1;
}

/* Does the driver root hold /usr/lib/wsl/lib with an entry? A warning names what is missing. */
static int check_lib_dir(const struct xpu_roots *roots, struct xpu_inventory *inv) {
        int fd = xpu_open_in_root(roots->driver_fd, XPU_WSL_LIB_DIR, O_RDONLY | O_DIRECTORY, 0);
        bool any = false;
        if (fd >= 0) {
                DIR *d = fdopendir(fd);
                if (!d) {
                        close(fd);
                        return 0; /* cannot tell: say nothing */
                }
                for (struct dirent *de; !any && (de = readdir(d));)
                        any = strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
                              strcmp(de->d_name, ".keep") != 0;
                closedir(d);
        }
        if (any)
                return 0;
        return xpu_inventory_warn(inv, "%s in driver root %s: %s; WSL2 mounts the Windows driver's libraries there: "
                                       "give the container the host's /usr/lib/wsl (-v /usr/lib/wsl:/usr/lib/wsl:ro) "
                                       "or pass --driver-root",
                                  XPU_WSL_LIB_DIR, roots->driver, fd >= 0 ? "empty" : strerror(-fd)) < 0
                       ? -ENOMEM
                       : 0;
}

static int cmp_names(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of /usr/lib/wsl/drivers in name order into *RET (NULL-terminated; an empty list
 * when the directory is missing). Returns their number or -ENOMEM. */
static ssize_t list_drivers(const struct xpu_roots *roots, struct xpu_inventory *inv, char ***ret) {
        _cleanup_strv_free_ char **names = calloc(1, sizeof(char *));
        if (!names)
                return -ENOMEM;
        size_t n = 0;
        int fd = xpu_open_in_root(roots->driver_fd, XPU_WSL_DRIVERS_DIR, O_RDONLY | O_DIRECTORY, 0);
        if (fd >= 0) {
                DIR *d = fdopendir(fd);
                if (!d) {
                        close(fd);
                        return -ENOMEM;
                }
                for (struct dirent *de; (de = readdir(d));) {
                        if (de->d_name[0] == '.')
                                continue;
                        if (n >= XPU_WSL_DRIVERS_MAX) {
                                closedir(d);
                                if (xpu_inventory_warn(inv, "%s in driver root %s: more than %d entries; the rest "
                                                            "not read", XPU_WSL_DRIVERS_DIR, roots->driver,
                                                       XPU_WSL_DRIVERS_MAX) < 0)
                                        return -ENOMEM;
                                goto sorted;
                        }
                        if (xpu_strv_push(&names, de->d_name) < 0) {
                                closedir(d);
                                return -ENOMEM;
                        }
                        n++;
                }
                closedir(d);
        }
sorted:
        qsort(names, n, sizeof(char *), cmp_names);
        *ret = TAKE_PTR(names);
        return (ssize_t)n;
}

static bool name_matches(const char *const *patterns, const char *name) {
        for (size_t i = 0; patterns && patterns[i]; i++)
                if (fnmatch(patterns[i], name, 0) == 0)
                        return true;
        return false;
}

/* Is NAME (an entry of the drivers directory) a folder of vendor W? A symbolic link or a name too
 * long for wsl_store is not, with a warning. Returns 1, 0, -ENOMEM. */
static int vendor_folder(const struct xpu_roots *roots, struct xpu_inventory *inv, const struct xpu_vendor_wsl *w,
                         const char *name, char path[static 128]) {
        if (!name_matches(w->store_patterns, name))
                return 0;
        /* The name goes into the plan's paths and the loader's drop-in, one folder a line: only
         * what Windows names a package folder with ("<inf>.inf_amd64_<hash>"). */
        for (const char *c = name; *c; c++)
                if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                      *c == '.' || *c == '_' || *c == '-'))
                        return xpu_inventory_warn(inv, "%s/%s in driver root %s: not a driver store folder's name "
                                                       "(letters, digits, '.', '_', '-'); skipped",
                                                  XPU_WSL_DRIVERS_DIR, name, roots->driver) < 0 ? -ENOMEM : 0;
        char full[128];
        int n = snprintf(full, sizeof full, "%s/%s", XPU_WSL_DRIVERS_DIR, name);
        if (n < 0 || (size_t)n >= sizeof full)
                return xpu_inventory_warn(inv, "%s/%s in driver root %s: name too long; skipped", XPU_WSL_DRIVERS_DIR,
                                          name, roots->driver) < 0 ? -ENOMEM : 0;
        struct stat st;
        int r = xpu_stat_in_root(roots->driver_fd, full, true, &st);
        if (r < 0)
                return 0;
        if (S_ISLNK(st.st_mode))
                return xpu_inventory_warn(inv, "%s in driver root %s: a symbolic link, not a folder; skipped (Windows "
                                               "mounts each driver package as a folder; a link may lead out of the "
                                               "driver root): give the container the host's /usr/lib/wsl as it is",
                                          full, roots->driver) < 0 ? -ENOMEM : 0;
        if (!S_ISDIR(st.st_mode))
                return 0;
        if (w->store_marker) {
                char marker[PATH_MAX];
                n = snprintf(marker, sizeof marker, "%s/%s", full, w->store_marker);
                if (n < 0 || (size_t)n >= sizeof marker ||
                    xpu_stat_in_root(roots->driver_fd, marker, true, &st) < 0 || !S_ISREG(st.st_mode))
                        return 0; /* another package of the vendor (audio, USB-C), not its GPU driver */
        }
        memcpy(path, full, (size_t)n + 1);
        return 1;
}

int xpu_wsl_probe(const struct xpu_roots *roots, struct xpu_inventory *inv,
                  const struct xpu_vendor_wsl *const vendors[_XPU_VENDOR_MAX]) {
        uint32_t minor = 0;
        int r = dxg_node(roots, inv, &minor);
        if (r <= 0)
                return r;
        inv->platform = XPU_PLATFORM_WSL;
        if (check_lib_dir(roots, inv) < 0)
                return -ENOMEM;
        _cleanup_strv_free_ char **names = NULL;
        ssize_t n = list_drivers(roots, inv, &names);
        if (n < 0)
                return (int)n;

        bool any = false;
        for (int v = 0; v < _XPU_VENDOR_MAX; v++) {
                const struct xpu_vendor_wsl *w = vendors[v];
                struct xpu_vendor_info *vi = &inv->vendors[v];
                if (!w || xpu_inventory_count(inv, (enum xpu_vendor)v) > 0)
                        continue;
                char path[128];
                size_t found = 0;
                for (ssize_t i = 0; i < n; i++) {
                        r = vendor_folder(roots, inv, w, names[i], path);
                        if (r < 0)
                                return r;
                        if (r == 0)
                                continue;
                        if (found++ == 0) {
                                memcpy(vi->wsl_store, path, sizeof vi->wsl_store);
                                continue;
                        }
                        /* Windows keeps an older package until it is removed; dxcore knows which one the
                         * adapter uses, a directory listing does not. */
                        if (xpu_inventory_warn(inv, "%s in driver root %s: another %s driver store folder besides %s; "
                                                    "using %s (the first by name)",
                                               path, roots->driver, xpu_vendor_display_name((enum xpu_vendor)v),
                                               vi->wsl_store, vi->wsl_store) < 0)
                                return -ENOMEM;
                }
                if (!found)
                        continue;
                any = true;
                vi->driver_loaded = true;
                vi->looked_for[0] = '\0';
                struct xpu_device dev = { .vendor = (enum xpu_vendor)v, .source = XPU_SOURCE_WSL, .numa_node = -1 };
                if (xpu_devnode_add(roots, dev.nodes, &dev.n_nodes, XPU_DEVICE_NODES_MAX, XPU_WSL_DXG,
                                    XPU_WSL_DXG_MAJOR, minor, true, false) < 0)
                        return -ENOMEM; /* (the first node: cannot be full) */
                if (!xpu_inventory_add_device(inv, &dev))
                        return -ENOMEM;
        }
        if (!any && xpu_inventory_warn(inv, "%s is WSL2's GPU node, but %s in driver root %s holds no GPU driver "
                                            "folder of a known vendor; give the container the host's /usr/lib/wsl "
                                            "(-v /usr/lib/wsl:/usr/lib/wsl:ro) or pass --driver-root",
                                       XPU_WSL_DXG, XPU_WSL_DRIVERS_DIR, roots->driver) < 0)
                return -ENOMEM;
        return 0;
}

int xpu_wsl_expand(struct xpu_inventory *inv, enum xpu_vendor vendor, enum xpu_source source, size_t n) {
        size_t at = inv->n_devices;
        for (size_t i = 0; i < inv->n_devices && at == inv->n_devices; i++)
                if (inv->devices[i].vendor == vendor && inv->devices[i].source == XPU_SOURCE_WSL)
                        at = i;
        if (at == inv->n_devices)
                return -ENOENT;
        if (n == 0)
                return -EINVAL;
        if (n > XPU_WSL_DEVICES_MAX) {
                if (xpu_inventory_warn(inv, "%s: %zu %s GPUs on WSL2, only the first %d listed",
                                       xpu_source_to_string(source), n, xpu_vendor_display_name(vendor),
                                       XPU_WSL_DEVICES_MAX) < 0)
                        return -ENOMEM;
                n = XPU_WSL_DEVICES_MAX;
        }
        struct xpu_device *d = reallocarray(inv->devices, inv->n_devices + n - 1, sizeof *d);
        if (!d)
                return -ENOMEM;
        inv->devices = d;
        const struct xpu_device entry = d[at];
        memmove(&d[at + n], &d[at + 1], (inv->n_devices - at - 1) * sizeof *d);
        for (size_t k = 0; k < n; k++) {
                d[at + k] = entry;
                d[at + k].source = source;
                d[at + k].vendor_index = (unsigned)k;
        }
        inv->n_devices += n - 1;
        for (size_t i = 0; i < inv->n_devices; i++)
                d[i].index = (unsigned)i;
        return (int)at;
}

static int find_in(int driver_fd, const char *dir, const char *const *names, struct xpu_host_files **ret) {
        size_t n = 0;
        while (names[n])
                n++;
        _cleanup_strv_free_ char **paths = calloc(n + 1, sizeof(char *));
        if (!paths)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                if (asprintf(&paths[i], "%s/%s", dir, names[i]) < 0) {
                        paths[i] = NULL;
                        return -ENOMEM;
                }
        char capability[] = "wsl";
        struct xpu_capability_files files = { .capability = capability, .names = paths, .n_names = n };
        const char *const caps[] = { "wsl", NULL };
        return xpu_host_files_find(driver_fd, "", caps, 1, &files, 1, ret);
}

static bool has_name(const struct xpu_host_files *f, const char *name) {
        for (size_t i = 0; f && i < f->n; i++) {
                const char *slash = strrchr(f->files[i].path, '/');
                if (slash && strcmp(slash + 1, name) == 0)
                        return true;
        }
        return false;
}

int xpu_wsl_files_find(int driver_fd, const struct xpu_vendor_wsl *w, const char *store, struct xpu_host_files **ret) {
        if (!w || !w->files)
                return -EINVAL;
        struct xpu_host_files *found = NULL, *lib = NULL;
        int r = store && *store ? find_in(driver_fd, store, w->files, &found) : 0;
        if (r >= 0 && !found && !(found = calloc(1, sizeof *found)))
                r = -ENOMEM;
        /* the names the driver store does not hold, from /usr/lib/wsl/lib */
        _cleanup_strv_free_ char **rest = calloc(1, sizeof(char *));
        for (size_t i = 0; r >= 0 && w->files[i]; i++)
                if (!rest || (!has_name(found, w->files[i]) && xpu_strv_push(&rest, w->files[i]) < 0))
                        r = -ENOMEM;
        if (r >= 0 && rest[0])
                r = find_in(driver_fd, XPU_WSL_LIB_DIR, (const char *const *)rest, &lib);
        for (size_t i = 0; r >= 0 && lib && i < lib->n; i++) {
                struct xpu_host_file *n = reallocarray(found->files, found->n + 1, sizeof *n);
                if (!n) {
                        r = -ENOMEM;
                        break;
                }
                (found->files = n)[found->n++] = lib->files[i];
                lib->files[i].path = NULL; /* moved: FOUND frees it */
                found->allocated = found->n; /* (grown one by one here) */
        }
        for (size_t i = 0; r >= 0 && lib && i < lib->n_skipped; i++)
                if (xpu_strv_push(&found->skipped, lib->skipped[i]) < 0)
                        r = -ENOMEM;
                else
                        found->n_skipped++;
        xpu_host_files_free(lib);
        if (r < 0) {
                xpu_host_files_free(found);
                return r;
        }
        *ret = found;
        return 0;
}
