/* SPDX-License-Identifier: Apache-2.0 */
/* gather: what the plan needs to know about the host and the image, read before the plan (see
 * gather.h). Reads only, through the roots' descriptors (openat2 inside each root); silent. */
#include "gather.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/macro.h"
#include "base/path.h"
#include "base/str.h"
#include "base/strv.h"
#include "vendor.h"
#include "version.h"

/* Where the image's ldconfig may live, in the order glibc distributions use. */
static const char *const ldconfig_paths[] = {
        "/sbin/ldconfig.real", /* Ubuntu's real binary behind a wrapper script */
        "/sbin/ldconfig",
        "/usr/sbin/ldconfig",
};


/* ---- dev root ----------------------------------------------------------------------------- */

/* The node PATH under DEV_FD, once per path. An empty path names no node (a MIG device whose
 * capability nodes the probe did not find). */
int xpu_gather_node(struct xpu_plan_facts *f, int dev_fd, const char *path) {
        if (!path[0] || xpu_plan_facts_node(f, path))
                return 0;
        struct xpu_node_fact *n = reallocarray(f->nodes, f->n_nodes + 1, sizeof *n);
        if (!n)
                return -ENOMEM;
        f->nodes = n;
        struct xpu_node_fact *nf = &n[f->n_nodes++];
        memset(nf, 0, sizeof *nf);
        xpu_strlcpy(nf->path, path, sizeof nf->path); /* cut as struct xpu_devnode's path is */
        struct stat st;
        if (dev_fd >= 0 && xpu_stat_in_root(dev_fd, nf->path, false, &st) == 0) {
                nf->found = true;
                nf->gid = st.st_gid;
        }
        return 0;
}

/* Every node the plan may check (plan.c, plan-devices.c): the profile's vendor-wide nodes, each
 * selected device's nodes and the capability nodes of all its MIG devices (the rich path read
 * before the plan may add MIG devices, never nodes), and the host-wide MIG capabilities asked for. */
static int gather_nodes(struct xpu_plan_facts *f, const struct xpu_inventory *inv, const struct xpu_selection *sel,
                        const struct xpu_profile *pr, int dev_fd) {
        if (pr->match_any)
                return 0;
        const struct xpu_vendor_info *vi = &inv->vendors[pr->vendor];
        bool any = false;
        for (size_t i = 0; i < pr->n_device_nodes; i++)
                if (xpu_gather_node(f, dev_fd, pr->device_nodes[i]) < 0)
                        return -ENOMEM;
        for (size_t i = 0; i < inv->n_devices; i++) {
                const struct xpu_device *d = &inv->devices[i];
                if (!sel->selected[i] || d->vendor != pr->vendor)
                        continue;
                any = true;
                for (size_t j = 0; j < d->n_nodes; j++)
                        if (xpu_gather_node(f, dev_fd, d->nodes[j].path) < 0)
                                return -ENOMEM;
                size_t n_mig;
                const struct xpu_mig_device *mig = xpu_mig_devices(d, &n_mig);
                for (size_t m = 0; m < n_mig; m++)
                        if (xpu_gather_node(f, dev_fd, mig[m].gi_cap.path) < 0 ||
                            xpu_gather_node(f, dev_fd, mig[m].ci_cap.path) < 0)
                                return -ENOMEM;
        }
        if (any && sel->mig_config && xpu_gather_node(f, dev_fd, vi->mig_config_cap.path) < 0)
                return -ENOMEM;
        if (any && sel->mig_monitor && xpu_gather_node(f, dev_fd, vi->mig_monitor_cap.path) < 0)
                return -ENOMEM;
        return 0;
}

/* ---- driver root -------------------------------------------------------------------------- */

/* The driver version, the driver files, their 32-bit copies and the files at their own path, as
 * the plan looks for them. A failed search is kept in its *_error, for the plan to report. */
static void gather_driver_files(struct xpu_plan_facts *f, const struct xpu_inventory *inv,
                                const struct xpu_profile *pr, int driver_fd) {
        const struct xpu_plan_needs *n = &f->needs;
        const char *const *caps = (const char *const *)n->capabilities;
        if (!pr->match_any)
                xpu_strlcpy(f->driver_version, inv->vendors[pr->vendor].driver_version, sizeof f->driver_version);
        if (!f->driver_version[0]) {
                f->driver_version_from_libraries = true;
                f->driver_version_error =
                        xpu_driver_version_from_libraries(driver_fd, f->driver_version, sizeof f->driver_version);
                if (f->driver_version_error < 0) {
                        f->driver_version[0] = '\0';
                        return;
                }
        }
        f->files_error = xpu_driver_files_find(driver_fd, f->driver_version, caps, n->n_capabilities, pr->libraries,
                                               pr->n_libraries, pr->binaries, pr->n_binaries, &f->files);
        if (f->files_error < 0 || f->files->refused)
                return;
        if (n->files32)
                f->files32_error = xpu_driver_files_find32(driver_fd, f->driver_version, caps, n->n_capabilities,
                                                           pr->libraries, pr->n_libraries, &f->files32);
        f->host_files_error = xpu_host_files_find(driver_fd, f->driver_version, caps, n->n_capabilities, pr->files,
                                                  pr->n_files, &f->host_files);
}

/* The host's own list of what a container is given (the vendor's plan.host_list: a Jetson's CSV
 * files), when the plan would inject files and the vendor has such a hook: its files become the
 * files at their own path, its nodes are gathered like every node. Returns 1 when the host has a
 * list (or reading it failed: kept for the plan), 0 when not, -ENOMEM, -EINTR (a termination
 * signal stopped the reading). */
static int gather_host_list(struct xpu_plan_facts *f, const struct xpu_inventory *inv, const struct xpu_profile *pr,
                            const struct xpu_plan_options *o) {
        const struct xpu_plan_needs *n = &f->needs;
        const struct xpu_vendor_ops *ops = pr->match_any ? NULL : xpu_vendor(pr->vendor);
        if (!ops || !ops->plan.host_list || n->n_capabilities == 0 || n->inject == XPU_INJECT_NONE || n->void_request)
                return 0;
        int r = ops->plan.host_list(inv, o->driver_fd, o->dev_fd, o->envp, &f->host_list, f->host_list_why,
                                    sizeof f->host_list_why);
        if (r == -ENOMEM || r == -EINTR)
                return r; /* (HOST_LIST_WHY says which list, for xpu_plan_gather's error) */
        if (r < 0) {
                f->host_list_error = r;
                return 1;
        }
        if (!f->host_list)
                return 0;
        f->host_files = TAKE_PTR(f->host_list->files);
        for (size_t i = 0; i < f->host_list->nodes->n; i++)
                if (xpu_gather_node(f, o->dev_fd, f->host_list->nodes->files[i].path) < 0)
                        return -ENOMEM;
        return 1;
}

/* ---- container root ----------------------------------------------------------------------- */

static bool container_has_file(int container_fd, const char *path) {
        struct stat st;
        return container_fd >= 0 && xpu_stat_in_root(container_fd, path, false, &st) == 0 && S_ISREG(st.st_mode);
}

/* Does the container root hold PATH as a directory with entries (other than . and ..)? */
static bool image_dir_has_entries(int container_fd, const char *path) {
        if (container_fd < 0)
                return false;
        int fd = xpu_open_in_root(container_fd, path, O_RDONLY | O_DIRECTORY, 0);
        if (fd < 0)
                return false;
        DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return true; /* cannot tell: do not hide it */
        }
        bool any = false;
        for (struct dirent *de; !any && (de = readdir(d));)
                any = strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
        closedir(d);
        return any;
}

/* For each file at its own path: does the container already hold it as the driver root's very
 * file, or (a directory) hold a directory with entries there? */
static int gather_host_files_in_container(struct xpu_plan_facts *f, int container_fd) {
        const size_t n = f->host_files->n;
        f->host_file_present = calloc(n ? n : 1, sizeof(bool));
        f->host_dir_has_entries = calloc(n ? n : 1, sizeof(bool));
        if (!f->host_file_present || !f->host_dir_has_entries)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const struct xpu_host_file *h = &f->host_files->files[i];
                struct stat here;
                f->host_file_present[i] = container_fd >= 0 &&
                                          xpu_stat_in_root(container_fd, h->path, false, &here) == 0 &&
                                          here.st_dev == h->dev && here.st_ino == h->ino;
                f->host_dir_has_entries[i] = !f->host_file_present[i] &&
                                             (h->kind == XPU_HOST_FILE_DIRECTORY || h->kind == XPU_HOST_FILE_TREE ||
                                              h->kind == XPU_HOST_FILE_SYMLINK) &&
                                             image_dir_has_entries(container_fd, h->path);
                if (h->kind == XPU_HOST_FILE_SYMLINK && !f->host_dir_has_entries[i] && container_fd >= 0) {
                        /* a link of the host's is not made over an image's directory, even an empty one */
                        struct stat st;
                        f->host_dir_has_entries[i] = xpu_stat_in_root(container_fd, h->path, true, &st) == 0 &&
                                                     S_ISDIR(st.st_mode);
                }
        }
        return 0;
}

/* The image's loader: its ldconfig and /etc/ld.so.conf. */
static void gather_loader(struct xpu_plan_facts *f, int container_fd) {
        for (size_t i = 0; i < ELEMENTSOF(ldconfig_paths) && !f->ldconfig; i++)
                if (container_has_file(container_fd, ldconfig_paths[i]))
                        f->ldconfig = ldconfig_paths[i];
        f->ld_so_conf = f->ldconfig && container_has_file(container_fd, "/etc/ld.so.conf");
}

/* What the image holds that the plan's library directory and files depend on: the files CDI
 * gave (with the vendor's CDI mark), its loader (ldconfig and /etc/ld.so.conf), and the
 * container's side of the files at their own path. */
static int gather_container(struct xpu_plan_facts *f, const struct xpu_selection *sel, const struct xpu_profile *pr,
                            int container_fd) {
        if (!pr->match_any && sel->cdi_mark[pr->vendor] &&
            xpu_gather_given(container_fd, sel->cdi_libdir[pr->vendor], f->files, &f->given, &f->n_given) < 0)
                return -ENOMEM;
        gather_loader(f, container_fd);
        return f->host_files_error == 0 && f->host_files ? gather_host_files_in_container(f, container_fd) : 0;
}

int xpu_forward_compat_find(const struct xpu_profile *pr, int container_fd, char *version, size_t size) {
        if (!pr->forward_compat_dir || container_fd < 0)
                return 0;
        int fd = xpu_open_in_root(container_fd, pr->forward_compat_dir, O_RDONLY | O_DIRECTORY, 0);
        if (fd == -ENOENT || fd == -ENOTDIR)
                return 0;
        if (fd < 0)
                return fd;
        _cleanup_closedir_ DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -ENOMEM;
        }
        const size_t len = strlen(pr->forward_compat_library);
        char best[64] = "";
        for (struct dirent *de; (de = readdir(d));) {
                const char *v = de->d_name + len + 1;
                if (strncmp(de->d_name, pr->forward_compat_library, len) != 0 || de->d_name[len] != '.' ||
                    !xpu_plain_driver_version(v) || strlen(v) >= sizeof best ||
                    (best[0] && xpu_version_cmp(v, best) <= 0))
                        continue;
                struct stat st;
                if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
                        memcpy(best, v, strlen(v) + 1);
        }
        if (!best[0])
                return 0;
        return xpu_strlcpy(version, best, size) < 0 ? -ENAMETOOLONG : 1;
}

/* ---- WSL2 --------------------------------------------------------------------------------- */

/* On WSL2 the driver files are the vendor's files of the Windows driver (probes/wsl.h), found by
 * name, not by version; then the image's loader and the container's side of those paths. */
static int gather_wsl(struct xpu_plan_facts *f, const struct xpu_inventory *inv, const struct xpu_profile *pr,
                      int driver_fd, int container_fd) {
        const struct xpu_vendor_wsl *w = xpu_vendor(pr->vendor)->wsl;
        f->host_files_error = xpu_wsl_files_find(driver_fd, w, inv->vendors[pr->vendor].wsl_store, &f->host_files);
        if (f->host_files_error == -ENOMEM)
                return -ENOMEM;
        gather_loader(f, container_fd);
        for (size_t i = 0; w && w->links && w->links[i] && i < 32; i++) {
                char link[PATH_MAX];
                const char *eq = strchr(w->links[i], '=');
                struct stat st;
                if (eq && (size_t)(eq - w->links[i]) < sizeof link) {
                        memcpy(link, w->links[i], (size_t)(eq - w->links[i]));
                        link[eq - w->links[i]] = '\0';
                        if (container_fd >= 0 && xpu_stat_in_root(container_fd, link, true, &st) == 0)
                                f->wsl_links_taken |= 1u << i;
                }
        }
        return f->host_files_error == 0 ? gather_host_files_in_container(f, container_fd) : 0;
}

/* ---- the step ----------------------------------------------------------------------------- */

int xpu_plan_gather(const struct xpu_inventory *inv, const struct xpu_selection *sel, const struct xpu_profile *pr,
                    const struct xpu_plan_options *o, struct xpu_plan_needs *needs, struct xpu_plan_facts **ret,
                    char *err, size_t err_size) {
        _cleanup_(xpu_plan_facts_freep) struct xpu_plan_facts *f = calloc(1, sizeof *f);
        if (!f) {
                xpu_plan_needs_done(needs);
                xpu_format_error(err, err_size, "out of memory while gathering the plan's facts");
                return -ENOMEM;
        }
        f->needs = *needs; /* taken over: the facts free them */
        *needs = (struct xpu_plan_needs){ 0 };
        int r = gather_nodes(f, inv, sel, pr, o->dev_fd);
        if (r >= 0 && f->needs.fabric.any)
                r = xpu_gather_fabric(f, o->dev_fd, o->sys_fd);
        int listed = r >= 0 ? gather_host_list(f, inv, pr, o) : 0;
        if (listed < 0)
                r = listed;
        /* WSL2: the Windows driver's files are how any vendor's GPU is reached, capabilities or not */
        const bool wsl = inv->platform == XPU_PLATFORM_WSL && !pr->match_any;
        if (r >= 0 && listed && f->host_files) {
                gather_loader(f, o->container_fd);
                r = gather_host_files_in_container(f, o->container_fd);
        } else if (r >= 0 && wsl && f->needs.inject != XPU_INJECT_NONE && !f->needs.void_request) {
                r = gather_wsl(f, inv, pr, o->driver_fd, o->container_fd);
        } else if (r >= 0 && !listed && f->needs.files && !wsl) {
                gather_driver_files(f, inv, pr, o->driver_fd);
                if (f->files && !f->files->refused)
                        r = gather_container(f, sel, pr, o->container_fd);
        }
        /* Asked for by the plan when it gives the profile's library, and before it by a start,
         * which reads the facts the profile's forward_compat.require names only for a newer build. */
        if (r >= 0 && pr->forward_compat_dir)
                f->forward_compat = xpu_forward_compat_find(pr, o->container_fd, f->forward_compat_version,
                                                            sizeof f->forward_compat_version);
        if (r < 0) {
                xpu_format_error(err, err_size, "%s", listed < 0 && f->host_list_why[0]
                                                              ? f->host_list_why
                                                              : "out of memory while gathering the plan's facts");
                return r;
        }
        *ret = TAKE_PTR(f);
        return 0;
}
