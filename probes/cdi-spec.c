/* SPDX-License-Identifier: Apache-2.0 */
/* A CDI spec for the host's GPUs (cdi-spec.h). */
#include "cdi-spec.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/log.h"
#include "base/macro.h"
#include "base/path.h"
#include "base/pci.h"
#include "base/strv.h"
#include "cdi-edits.h"
#include "host-files.h"
#include "libs.h"
#include "vendor.h"


static bool alnum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool is_letter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* S[0..LEN) is a name of alnum and the characters of EXTRA, alnum at both ends. */
static bool name_ok(const char *s, size_t len, const char *extra) {
        if (len == 0 || !alnum(s[0]) || !alnum(s[len - 1]))
                return false;
        for (size_t i = 0; i < len; i++)
                if (!alnum(s[i]) && !strchr(extra, s[i]))
                        return false;
        return true;
}

int xpu_cdi_kind_check(const char *kind, char *err, size_t err_size) {
        const char *slash = kind ? strchr(kind, '/') : NULL;
        if (!slash || strchr(slash + 1, '/')) {
                xpu_format_error(err, err_size, "--kind \"%s\": a CDI kind is VENDOR/CLASS, e.g. %s", kind ? kind : "",
                                 XPU_CDI_KIND_DEFAULT);
                return -EINVAL;
        }
        size_t vlen = (size_t)(slash - kind), clen = strlen(slash + 1);
        /* CDI's parser (validateVendorName, validateClassName) wants a letter first in both. */
        if (vlen > 253 || !name_ok(kind, vlen, ".-_") || !is_letter(kind[0])) {
                xpu_format_error(err, err_size, "--kind \"%s\": the vendor \"%.*s\" must be letters, digits, '.', '-' "
                                 "and '_', starting with a letter and ending with a letter or digit (a domain you "
                                 "own, e.g. xpuinit.dev)", kind, (int)(vlen > 64 ? 64 : vlen), kind);
                return -EINVAL;
        }
        if (clen > 63 || !name_ok(slash + 1, clen, "-_") || !is_letter(slash[1])) {
                xpu_format_error(err, err_size, "--kind \"%s\": the class \"%.64s\" must be at most 63 letters, digits, "
                                 "'-' and '_', starting with a letter and ending with a letter or digit (a dot in it needs "
                                 "cdiVersion 0.6.0, which CDI consumers such as Debian 12's podman reject)",
                                 kind, slash + 1);
                return -EINVAL;
        }
        /* The vendors' own kinds (the descriptors' visibility.cdi_kind, "nvidia.com/gpu"), by their
         * vendor part. */
        for (int v = 0; v < _XPU_VENDOR_MAX; v++) {
                const char *own = xpu_vendors[v]->visibility.cdi_kind;
                size_t own_len = own ? strcspn(own, "/") : 0;
                if (own_len > 0 && vlen == own_len && strncasecmp(kind, own, vlen) == 0) {
                        xpu_format_error(err, err_size, "--kind \"%s\": %.*s is the vendor's own kind; a GPU in its "
                                         "spec and in this one, in one directory, is dropped by CDI as a "
                                         "conflict. Use a kind of your own (default %s)", kind, (int)own_len, own,
                                         XPU_CDI_KIND_DEFAULT);
                        return -EINVAL;
                }
        }
        return 0;
}

/* ---- a vendor's shared edits ----------------------------------------------------------------------- */

/* FILES (found in the driver root) mounted read-only below XPU_CDI_DRIVER_ROOT: libraries in
 * LIBDIR, programs in /usr/bin, each by the path of the file itself (resolved_path). *N_LIBS
 * (may be NULL) counts the libraries. Returns 0 or -ENOMEM. */
static int mount_driver_files(cJSON *e, const struct xpu_cdi_roots *roots, const struct xpu_driver_files *files,
                              const char *libdir, size_t *n_libs) {
        for (size_t i = 0; i < files->n; i++) {
                const struct xpu_driver_file *f = &files->files[i];
                char lp[PATH_MAX], cp[PATH_MAX];
                if (xpu_cdi_resolved_path(roots->driver_fd, f->path, lp) < 0)
                        continue;
                snprintf(cp, sizeof cp, XPU_CDI_DRIVER_ROOT "%s/%s", f->is_binary ? "/usr/bin" : libdir, f->name);
                if (xpu_cdi_mount_add(e, xpu_cdi_host_view(roots, lp), cp, false) < 0)
                        return -ENOMEM;
                if (n_libs)
                        *n_libs += !f->is_binary;
        }
        return 0;
}

/* The files PATTERNS find in the driver root (xpu_host_files_find), each mounted at the same path
 * below XPU_CDI_DRIVER_ROOT. Returns 0, -ENOMEM (-EINVAL: a bad pattern in the list). */
static int host_files_add(cJSON *e, const struct xpu_cdi_roots *roots, const char *const *patterns,
                          const char *version) {
        struct xpu_capability_files cf = { .capability = (char *)"cdi", .names = (char **)patterns,
                                           .n_names = xpu_strv_length((char *const *)patterns) };
        const char *caps[] = { "cdi" };
        struct xpu_host_files *hf = NULL;
        int r = xpu_host_files_find(roots->driver_fd, version, caps, 1, &cf, 1, &hf);
        for (size_t i = 0; r >= 0 && i < hf->n; i++) {
                char lp[PATH_MAX], cp[PATH_MAX];
                if (xpu_cdi_resolved_path(roots->driver_fd, hf->files[i].path, lp) < 0)
                        continue;
                if (snprintf(cp, sizeof cp, XPU_CDI_DRIVER_ROOT "%s", hf->files[i].path) >= (int)sizeof cp)
                        continue; /* (patterns are shorter than PATH_MAX / 2) */
                r = xpu_cdi_mount_add(e, xpu_cdi_host_view(roots, lp), cp, hf->files[i].kind != XPU_HOST_FILE_REGULAR);
        }
        xpu_host_files_free(hf);
        return r < 0 ? r : 0;
}

/* WSL2 (wsl.h): the vendor's files of the Windows driver, each mounted at its own path as the
 * NVIDIA Container Toolkit's wsl mode mounts them (xpuinit in the image then finds them in its
 * own root and gives their folders to the loader), and the vendor's WSL2 variables. Returns 0,
 * -ENOMEM. */
static int wsl_edits(cJSON *e, const struct xpu_vendor_wsl *w, const struct xpu_vendor_info *vi,
                     const struct xpu_cdi_roots *roots, const char *name, char ***warnings) {
        struct xpu_host_files *hf = NULL;
        int r = xpu_wsl_files_find(roots->driver_fd, w, vi->wsl_store, &hf);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        size_t n = 0;
        for (size_t i = 0; r >= 0 && i < hf->n; i++) {
                char lp[PATH_MAX];
                if (xpu_cdi_resolved_path(roots->driver_fd, hf->files[i].path, lp) < 0)
                        continue;
                r = xpu_cdi_mount_add(e, xpu_cdi_host_view(roots, lp), hf->files[i].path, false);
                n++;
        }
        for (size_t i = 0; r >= 0 && i < hf->n_skipped; i++)
                r = xpu_cdi_warn(warnings, "%s: %s", name, hf->skipped[i]);
        xpu_host_files_free(hf);
        for (size_t i = 0; r >= 0 && w->env && w->env[i]; i++)
                r = xpu_cdi_env_add(e, w->env[i]);
        if (r >= 0 && n == 0)
                r = xpu_cdi_warn(warnings, "%s: no WSL2 driver file under the driver root %s (%s, %s): the spec "
                                 "gives %s only (point --host-root at the host's root)", name, roots->driver_root,
                                 vi->wsl_store[0] ? vi->wsl_store : "no driver store folder", XPU_WSL_LIB_DIR,
                                 XPU_WSL_DXG);
        return r < 0 ? -ENOMEM : 0;
}

/* What a host lists for its containers (vendor.h's plan.host_list: a Jetson's CSV files), as the
 * NVIDIA Container Toolkit's csv mode gives it (pkg/nvcdi/lib-csv.go): its dev lines' nodes, and
 * its lib, dir and sym lines' files mounted read-only at their own path. cdiVersion 0.5.0 cannot
 * make a link (only hooks can, and xpuinit ships no hook binary), so a sym line gets its target,
 * resolved inside the driver root, mounted at the link's path: a soname link becomes a second
 * mount of its library, L4T's "tegra -> nvidia" a mount of the directory. Returns 0, -ENOMEM. */
static int host_list_edits(cJSON *e, const struct xpu_cdi_roots *roots, const struct xpu_host_list *l,
                           const char *name, char ***warnings) {
        size_t n_files = 0;
        for (size_t i = 0; i < l->nodes->n; i++) {
                const struct xpu_host_file *f = &l->nodes->files[i];
                int r = xpu_cdi_node_add(e, roots, f->path);
                if (r < 0)
                        return r;
                if (r == 0 && xpu_cdi_warn(warnings, "%s: %s (%s) is not a character device under %s; left out",
                                           name, f->path, f->origin, roots->dev_root) < 0)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < l->files->n; i++) {
                const struct xpu_host_file *f = &l->files->files[i];
                char lp[PATH_MAX];
                const char *why = NULL;
                int r = xpu_cdi_shareable_path(roots->driver_fd, f->path, lp, &why);
                if (r < 0) {
                        if (xpu_cdi_warn(warnings, "%s: %s (%s, %s) left out: %s", name, f->path, f->origin,
                                         xpu_host_file_kind_to_string(f->kind), why ? why : strerror(-r)) < 0)
                                return -ENOMEM;
                        continue;
                }
                if (xpu_cdi_mount_add(e, xpu_cdi_host_view(roots, lp), f->path, false) < 0)
                        return -ENOMEM;
                n_files++;
        }
        /* The lists themselves, read-only at their own path: the spec's driver root is "/", where
         * xpuinit in the image then reads the lists the spec was made from and finds each file
         * already in place. */
        if (l->dir[0]) {
                char lp[PATH_MAX];
                const char *why = NULL;
                int r = xpu_cdi_shareable_path(roots->driver_fd, l->dir, lp, &why);
                if (r >= 0)
                        r = xpu_cdi_mount_add(e, xpu_cdi_host_view(roots, lp), l->dir, false);
                else
                        r = xpu_cdi_warn(warnings, "%s: %s left out: %s; xpuinit in the image will not find the "
                                         "host's lists", name, l->dir, why ? why : strerror(-r));
                if (r < 0)
                        return -ENOMEM;
        }
        const struct xpu_host_files *const found[] = { l->nodes, l->files };
        for (size_t k = 0; k < ELEMENTSOF(found); k++)
                for (size_t i = 0; i < found[k]->n_skipped; i++)
                        if (xpu_cdi_warn(warnings, "%s: skipped %s", name, found[k]->skipped[i]) < 0)
                                return -ENOMEM;
        for (size_t i = 0; i < l->n_notes; i++)
                if (xpu_cdi_warn(warnings, "%s: %s", name, l->notes[i]) < 0)
                        return -ENOMEM;
        if (n_files == 0 && xpu_cdi_warn(warnings, "%s: %s in the driver root %s lists no file that is there: the "
                                         "spec gives the device nodes only (point --driver-root at the host's root)",
                                         name, l->source, roots->driver_root) < 0)
                return -ENOMEM;
        return 0;
}

/* The vendor's host list (plan.host_list) of this host, read as a start reads it but for every
 * image (no image variable asks for more files). *RET NULL: none. Returns 0, -ENOMEM, or -EIO
 * with ERR the same words a start stops with (a hostile or broken list). */
static int host_list_read(const struct xpu_inventory *inv, enum xpu_vendor v, const struct xpu_cdi_roots *roots,
                          struct xpu_host_list **ret, char *err, size_t err_size) {
        *ret = NULL;
        if (!xpu_vendors[v]->plan.host_list)
                return 0;
        _cleanup_close_ int dev_fd = open(roots->dev_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dev_fd < 0) {
                xpu_format_error(err, err_size, "dev root %s: %s", roots->dev_root, strerror(errno));
                return -EIO;
        }
        char why[1024] = "";
        int r = xpu_vendors[v]->plan.host_list(inv, roots->driver_fd, dev_fd, NULL, ret, why, sizeof why);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                xpu_format_error(err, err_size, "%s", why[0] ? why : strerror(-r));
                return -EIO;
        }
        return 0;
}

/* The edits every GPU of vendor V gets: its vendor nodes that the dev root has, its env, and the
 * running driver's files. *RET NULL when the vendor's GPUs cannot be given (a node it needs is
 * missing: the warning says which). Returns 0, -ENOMEM, -EIO (refused driver root, ERR). */
static int vendor_edits(const struct xpu_inventory *inv, enum xpu_vendor v, const struct xpu_cdi_roots *roots,
                        cJSON **ret, char ***warnings, char *err, size_t err_size) {
        static const struct xpu_vendor_cdi none;
        const struct xpu_vendor_cdi *cv = xpu_vendors[v]->plan.cdi ? xpu_vendors[v]->plan.cdi : &none;
        const struct xpu_vendor_info *vi = &inv->vendors[v];
        const char *name = xpu_vendor_to_string(v);
        *ret = NULL;
        cJSON *e = xpu_cdi_edits_new();
        if (!e)
                return -ENOMEM;
        for (size_t i = 0; i < vi->n_nodes; i++) {
                int r = xpu_cdi_node_add(e, roots, vi->nodes[i].path);
                if (r < 0)
                        goto oom;
                if (r == 0 && !vi->nodes[i].optional) {
                        cJSON_Delete(e);
                        return xpu_cdi_warn(warnings, "%s: %s is not a character device under %s; its GPUs are "
                                            "left out", name, vi->nodes[i].path, roots->dev_root) < 0
                                       ? -ENOMEM
                                       : 0;
                }
        }
        const bool wsl = inv->platform == XPU_PLATFORM_WSL && xpu_vendors[v]->wsl;
        _cleanup_(xpu_host_list_freep) struct xpu_host_list *list = NULL;
        int r = wsl ? 0 : host_list_read(inv, v, roots, &list, err, err_size);
        if (r < 0) {
                cJSON_Delete(e);
                return r;
        }
        for (size_t i = 0; cv->env && cv->env[i]; i++) {
                /* WSL2 and a host's own list: the files are mounted at their own path, so a
                 * variable naming the spec's driver root names "/" */
                const char *kv = cv->env[i], *eq = strchr(kv, '=');
                char root[128];
                if ((wsl || list) && eq && strcmp(eq + 1, XPU_CDI_DRIVER_ROOT) == 0 &&
                    (size_t)(eq - kv) + 3 <= sizeof root) {
                        snprintf(root, sizeof root, "%.*s=/", (int)(eq - kv), kv);
                        kv = root;
                }
                if (xpu_cdi_env_add(e, kv) < 0)
                        goto oom;
        }
        if (wsl) {
                if (wsl_edits(e, xpu_vendors[v]->wsl, vi, roots, name, warnings) < 0)
                        goto oom;
                *ret = e;
                return 0;
        }
        /* A host that lists what its containers get needs no driver version: the list names the
         * files (a Jetson's come with its L4T release, which the spec does not carry). */
        if (list) {
                if (host_list_edits(e, roots, list, name, warnings) < 0)
                        goto oom;
                *ret = e;
                return 0;
        }
        if (!cv->libraries) {
                *ret = e;
                return 0;
        }
        if (!xpu_is_driver_version(vi->driver_version)) {
                cJSON_Delete(e);
                return xpu_cdi_warn(warnings, "%s: the driver version is unknown (no /proc/driver/nvidia/version); "
                                    "its GPUs are left out", name) < 0 ? -ENOMEM : 0;
        }
        struct xpu_capability_files libs = { .capability = (char *)"cdi", .names = (char **)cv->libraries };
        struct xpu_capability_files progs = { .capability = (char *)"cdi", .names = (char **)cv->programs };
        libs.n_names = xpu_strv_length(libs.names);
        progs.n_names = xpu_strv_length(progs.names);
        const char *caps[] = { "cdi" };
        struct xpu_driver_files *files = NULL;
        r = xpu_driver_files_find(roots->driver_fd, vi->driver_version, caps, 1, &libs, 1, &progs, 1, &files);
        if (r < 0) {
                cJSON_Delete(e);
                return r;
        }
        if (files->refused) {
                xpu_format_error(err, err_size, "driver root %s: %s", roots->driver_root, files->refused);
                xpu_driver_files_free(files);
                cJSON_Delete(e);
                return -EIO;
        }
        size_t n_libs = 0;
        r = mount_driver_files(e, roots, files, "/usr/lib64", &n_libs);
        xpu_driver_files_free(files);
        if (r < 0)
                goto oom;
        /* the 32-bit copies (compat32), where xpuinit's 32-bit search looks */
        struct xpu_driver_files *files32 = NULL;
        if ((r = xpu_driver_files_find32(roots->driver_fd, vi->driver_version, caps, 1, &libs, 1, &files32)) < 0) {
                cJSON_Delete(e);
                return r;
        }
        if (files32->refused)
                r = xpu_cdi_warn(warnings, "%s: the 32-bit libraries are left out: %s", name, files32->refused);
        else
                r = mount_driver_files(e, roots, files32, "/usr/lib32", NULL);
        xpu_driver_files_free(files32);
        if (r < 0)
                goto oom;
        if (cv->files && (r = host_files_add(e, roots, cv->files, vi->driver_version)) < 0) {
                cJSON_Delete(e);
                return r;
        }
        if (n_libs == 0 && xpu_cdi_warn(warnings, "%s: no library of driver %s under the driver root %s: the spec "
                                        "gives the device nodes only (point --driver-root at the host's driver files)",
                                name, vi->driver_version, roots->driver_root) < 0)
                goto oom;
        *ret = e;
        return 0;
oom:
        cJSON_Delete(e);
        return -ENOMEM;
}

/* ---- devices ----------------------------------------------------------------------------------------- */

/* The edits of GPU D: VENDOR's shared ones, its own nodes and its DRM card node. NULL when a node
 * it needs is missing (warned). Returns 0 or -ENOMEM. */
static int device_edits(const struct xpu_device *d, const cJSON *vendor, const struct xpu_cdi_roots *roots,
                        cJSON **ret, char ***warnings) {
        *ret = NULL;
        /* Its own node (NVIDIA's /dev/nvidiaN, AMD's render node) is what makes it this GPU: without
         * one the name would give only the vendor's shared nodes. */
        bool own = false;
        for (size_t i = 0; i < d->n_nodes; i++)
                own = own || !d->nodes[i].optional;
        if (!own)
                return xpu_cdi_warn(warnings, "GPU %u (%s): no device node of its own was found (see the probe's "
                                    "warnings); left out", d->index, d->pci_bus_id) < 0 ? -ENOMEM : 0;
        cJSON *e = xpu_cdi_edits_new();
        if (!e || xpu_cdi_edits_merge(e, vendor) < 0)
                goto oom;
        for (size_t i = 0; i < d->n_nodes; i++) {
                int r = xpu_cdi_node_add(e, roots, d->nodes[i].path);
                if (r < 0)
                        goto oom;
                if (r == 0 && !d->nodes[i].optional) {
                        cJSON_Delete(e);
                        return xpu_cdi_warn(warnings, "GPU %u (%s): %s is missing or not a character device under "
                                            "%s; left out", d->index, d->pci_bus_id, d->nodes[i].path,
                                            roots->dev_root) < 0 ? -ENOMEM : 0;
                }
        }
        if (d->have & XPU_HAVE_CARD) {
                char card[32];
                snprintf(card, sizeof card, "/dev/dri/card%u", d->card);
                if (xpu_cdi_node_add(e, roots, card) < 0)
                        goto oom;
        }
        *ret = e;
        return 0;
oom:
        cJSON_Delete(e);
        return -ENOMEM;
}

/* The edits of MIG device M of D (G): its GPU's (GPU, already built) and the two capability nodes
 * that open it. *RET is NULL when it cannot be given (its nodes unknown or not character devices
 * here: one warning). Returns 0 or -ENOMEM. */
static int mig_edits(const struct xpu_device *d, size_t m, const struct xpu_mig_device *g, const cJSON *gpu,
                     const struct xpu_cdi_roots *roots, cJSON **ret, char ***warnings) {
        *ret = NULL;
        if (!(g->have & XPU_MIG_HAVE_CAPS))
                return xpu_cdi_warn(warnings, "MIG device %u:%zu (GPU instance %u, compute instance %u): its "
                                    "capability nodes are unknown (no /proc/driver/nvidia/capabilities); left out",
                                    d->index, m, g->gi, g->ci) < 0 ? -ENOMEM : 0;
        cJSON *e = cJSON_Duplicate(gpu, true);
        if (!e)
                return -ENOMEM;
        const struct xpu_devnode *caps[] = { &g->gi_cap, &g->ci_cap };
        for (size_t k = 0; k < ELEMENTSOF(caps); k++) {
                int r = xpu_cdi_node_add(e, roots, caps[k]->path);
                if (r < 0) {
                        cJSON_Delete(e);
                        return -ENOMEM;
                }
                if (r == 0) {
                        cJSON_Delete(e);
                        return xpu_cdi_warn(warnings, "MIG device %u:%zu: %s is missing or not a character device "
                                            "under %s; left out", d->index, m, caps[k]->path,
                                            roots->dev_root) < 0 ? -ENOMEM : 0;
                }
        }
        *ret = e;
        return 0;
}

/* The names of GPU I: index, UUID, PCI bus id (a partition's with its number as the function).
 * A name another GPU would also get is left empty. */
struct names {
        char index[16], uuid[64], bus[XPU_PCI_BUS_ID_MAX];
};

static void names_of(const struct xpu_device *d, struct names *n) {
        snprintf(n->index, sizeof n->index, "%u", d->index);
        snprintf(n->uuid, sizeof n->uuid, "%s", d->uuid);
        (void)xpu_device_named_bus_id(d, n->bus);
        /* CDI names: letters, digits, '_', '.', ':', '-', starting with a letter or digit. */
        if (n->uuid[0] && !name_ok(n->uuid, strlen(n->uuid), "_.:-"))
                n->uuid[0] = '\0';
}

static int device_add(cJSON *devices, const char *name, const cJSON *edits) {
        cJSON *d = cJSON_CreateObject();
        cJSON *e = cJSON_Duplicate(edits, true);
        if (!d || !e || !cJSON_AddStringToObject(d, "name", name) || !cJSON_AddItemToObject(d, "containerEdits", e)) {
                cJSON_Delete(d);
                cJSON_Delete(e);
                return -ENOMEM;
        }
        xpu_cdi_edits_trim(e);
        return cJSON_AddItemToArray(devices, d) ? 0 : (cJSON_Delete(d), -ENOMEM);
}

/* Clear the UUID and bus id names of GPU I when another GPU in the spec (DEV[j] set) has the same,
 * with one warning per shared value, listing the GPUs, at the first of them. Returns 0 or -ENOMEM. */
static int unshare_names(const struct xpu_inventory *inv, cJSON *const *dev, struct names *names, size_t i,
                         char ***warnings) {
        static const struct {
                size_t offset;
                const char *what;
        } fields[] = { { offsetof(struct names, uuid), "UUID" }, { offsetof(struct names, bus), "PCI bus id" } };
        if (!dev[i])
                return 0;
        for (size_t f = 0; f < ELEMENTSOF(fields); f++) {
                char *mine = (char *)&names[i] + fields[f].offset;
                if (!mine[0])
                        continue;
                char list[256] = "", value[64];
                size_t len = 0, shared = 0;
                snprintf(value, sizeof value, "%s", mine);
                for (size_t j = 0; j < inv->n_devices; j++) {
                        char *other = (char *)&names[j] + fields[f].offset;
                        if (j == i || !dev[j] || strcmp(other, value) != 0)
                                continue;
                        shared++;
                        other[0] = '\0';
                        len += (size_t)snprintf(list + len, len < sizeof list ? sizeof list - len : 0, ", %u",
                                                inv->devices[j].index);
                }
                if (shared == 0)
                        continue;
                mine[0] = '\0';
                if (xpu_cdi_warn(warnings, "GPUs %u%s share the %s %s (partitions of one GPU?): it names none of "
                                 "them", inv->devices[i].index, list, fields[f].what, value) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int xpu_cdi_spec_build(const struct xpu_inventory *inv, const struct xpu_cdi_roots *roots, const char *kind,
                       cJSON **ret, char ***warnings, char *err, size_t err_size) {
        *ret = NULL;
        *warnings = NULL;
        if (inv->n_devices == 0) {
                xpu_format_error(err, err_size, "no GPU on this host (xpuinit probe says what was looked for): a CDI "
                                 "spec needs at least one device");
                return 0;
        }
        cJSON *vendor[_XPU_VENDOR_MAX] = { 0 };
        cJSON **dev = calloc(inv->n_devices, sizeof *dev);
        cJSON **mig = calloc(inv->n_devices * XPU_MIG_DEVICES_MAX, sizeof *mig); /* [i * MAX + m] */
        struct names *names = calloc(inv->n_devices, sizeof *names);
        cJSON *spec = NULL, *all = xpu_cdi_edits_new();
        int r = dev && mig && names && all ? 0 : -ENOMEM;
        for (int v = 0; r >= 0 && v < _XPU_VENDOR_MAX; v++)
                if (xpu_inventory_count(inv, (enum xpu_vendor)v) > 0)
                        r = vendor_edits(inv, (enum xpu_vendor)v, roots, &vendor[v], warnings, err, err_size);
        size_t given = 0;
        for (size_t i = 0; r >= 0 && i < inv->n_devices; i++) {
                const struct xpu_device *d = &inv->devices[i];
                if (!vendor[d->vendor])
                        continue;
                r = device_edits(d, vendor[d->vendor], roots, &dev[i], warnings);
                if (r >= 0 && dev[i]) {
                        names_of(d, &names[i]);
                        r = xpu_cdi_edits_merge(all, dev[i]);
                        given++;
                }
                /* A GPU's MIG devices: the GPU's edits and their capability nodes. */
                size_t n_mig;
                const struct xpu_mig_device *migs = xpu_mig_devices(d, &n_mig);
                for (size_t m = 0; r >= 0 && dev[i] && m < n_mig && m < XPU_MIG_DEVICES_MAX; m++) {
                        cJSON **me = &mig[i * XPU_MIG_DEVICES_MAX + m];
                        r = mig_edits(d, m, &migs[m], dev[i], roots, me, warnings);
                        if (r >= 0 && *me)
                                r = xpu_cdi_edits_merge(all, *me);
                }
        }
        /* A name two GPUs share names neither (the UUID of an AMD GPU's partitions). */
        for (size_t i = 0; r >= 0 && i < inv->n_devices; i++)
                r = unshare_names(inv, dev, names, i, warnings);
        if (r >= 0 && given == 0) {
                xpu_format_error(err, err_size, "none of this host's %zu GPU(s) could go into the spec (the warnings "
                                 "above say why for each: a device node missing under %s, the driver version unknown, ...)",
                                 inv->n_devices, roots->dev_root);
                r = 0;
                goto out;
        }
        spec = r >= 0 ? cJSON_CreateObject() : NULL;
        cJSON *devices = spec ? cJSON_CreateArray() : NULL;
        cJSON *common = spec ? xpu_cdi_edits_new() : NULL;
        bool ok = spec && devices && common && cJSON_AddStringToObject(spec, "cdiVersion", XPU_CDI_VERSION) &&
                  cJSON_AddStringToObject(spec, "kind", kind) && cJSON_AddItemToObject(spec, "devices", devices);
        if (!ok)
                cJSON_Delete(devices);
        ok = ok && xpu_cdi_env_add(common, "XPU_VISIBLE_DEVICES=all") == 0 &&
             cJSON_AddItemToObject(spec, "containerEdits", common);
        if (!ok && spec)
                cJSON_Delete(common);
        /* WSL2: /dev/dxg reaches every GPU, so GPUs a rich path counted behind it cannot be given
         * one by one: they are named together, as "all" */
        size_t dxg = 0;
        for (size_t i = 0; inv->platform == XPU_PLATFORM_WSL && i < inv->n_devices; i++)
                dxg += dev[i] && inv->devices[i].n_nodes && strcmp(inv->devices[i].nodes[0].path, XPU_WSL_DXG) == 0;
        if (ok && dxg > 1 &&
            xpu_cdi_warn(warnings, "WSL2: %zu GPUs share %s, which reaches all of them; the spec names them together as "
                           "\"all\", not one by one", dxg, XPU_WSL_DXG) < 0)
                ok = false;
        for (size_t i = 0; ok && i < inv->n_devices; i++) {
                if (!dev[i] || (dxg > 1 && inv->devices[i].n_nodes &&
                                strcmp(inv->devices[i].nodes[0].path, XPU_WSL_DXG) == 0))
                        continue;
                const char *const list[] = { names[i].index, names[i].uuid, names[i].bus };
                for (size_t k = 0; ok && k < ELEMENTSOF(list); k++)
                        ok = !list[k][0] || device_add(devices, list[k], dev[i]) == 0;
                /* MIG devices as nvidia-ctk names them: "<gpu>:<mig>" (the GPU's xpuinit index here)
                 * and NVML's "MIG-<uuid>". */
                const struct xpu_device *d = &inv->devices[i];
                size_t n_mig;
                const struct xpu_mig_device *migs = xpu_mig_devices(d, &n_mig);
                for (size_t m = 0; ok && m < n_mig && m < XPU_MIG_DEVICES_MAX; m++) {
                        const cJSON *me = mig[i * XPU_MIG_DEVICES_MAX + m];
                        char name[32];
                        const char *uuid = migs[m].uuid;
                        if (!me)
                                continue;
                        snprintf(name, sizeof name, "%u:%zu", d->index, m);
                        ok = device_add(devices, name, me) == 0 &&
                             (!uuid[0] || !name_ok(uuid, strlen(uuid), "_.:-") || device_add(devices, uuid, me) == 0);
                }
        }
        ok = ok && device_add(devices, "all", all) == 0;
        if (ok) {
                xpu_cdi_edits_trim(common);
                r = (int)given;
        } else if (r >= 0) {
                r = -ENOMEM;
        }
out:
        for (size_t i = 0; dev && i < inv->n_devices; i++)
                cJSON_Delete(dev[i]);
        for (size_t i = 0; mig && i < inv->n_devices * XPU_MIG_DEVICES_MAX; i++)
                cJSON_Delete(mig[i]);
        free(mig);
        for (int v = 0; v < _XPU_VENDOR_MAX; v++)
                cJSON_Delete(vendor[v]);
        free(dev);
        free(names);
        cJSON_Delete(all);
        if (r <= 0) {
                cJSON_Delete(spec);
                if (r < 0)
                        *warnings = xpu_strv_free(*warnings);
                return r;
        }
        *ret = spec;
        return r;
}
