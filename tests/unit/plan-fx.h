/* SPDX-License-Identifier: Apache-2.0 */
/* The plan tests' fixture: a copy of a fixture host, probed, with the built-in profiles, a
 * selection, and a container root (the host copy itself, or one of its own with fx_cdi). */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/path.h"
#include "plan-build.h"
#include "plan.h"
#include "testlib.h"

struct fx {
        char *root;
        struct xpu_roots roots;
        struct xpu_inventory *inv;
        struct xpu_profile_set *profiles;
        struct xpu_selection *sel;
        int container_fd;
        char *container; /* a container root of its own (fx_cdi), else NULL: the host copy is it */
};

/* A temporary copy of fixture HOST with its device nodes, probed; the copy is also the
 * container root (no ldconfig in it). */
static inline void fx_open(struct fx *f, const char *host, const char *xpu_visible, const char *nvidia_visible) {
        memset(f, 0, sizeof *f);
        f->root = xpu_test_copy_host(host);
        xpu_test_make_devnodes(f->root);
        const char *which = NULL;
        ck_assert_int_eq(xpu_roots_open(&f->roots, f->root, f->root, f->root, &which), 0);
        ck_assert_int_eq(xpu_inventory_probe(&f->roots, &f->inv), 0);
        char err[512] = "";
        ck_assert_msg(xpu_profile_set_load(NULL, &f->profiles, err, sizeof err) == 0, "%s", err);
        ck_assert_msg(xpu_selection_parse(f->inv, xpu_visible, (const char *const[_XPU_VENDOR_MAX]){ [XPU_VENDOR_NVIDIA] = nvidia_visible }, &f->sel, err, sizeof err) == 0,
                      "%s", err);
        f->container_fd = xpu_open_root(f->root);
        ck_assert_int_ge(f->container_fd, 0);
}

static inline void fx_close(struct fx *f) {
        close(f->container_fd);
        if (f->container) {
                xpu_test_rm_rf(f->container);
                free(f->container);
        }
        xpu_selection_free(f->sel);
        xpu_profile_set_free(f->profiles);
        xpu_inventory_free(f->inv);
        xpu_roots_close(&f->roots);
        xpu_test_rm_rf(f->root);
        free(f->root);
}

static bool fx_outside;          /* the next fx_plan is for inject --rootfs */
static const char *fx_caps_var; /* the variable the next fx_plan's capabilities came from */

static char *fx_envp[] = { (char *)"PATH=/usr/bin:/bin", (char *)"KEEP=1", NULL };

/* The options fx_plan builds with: F's roots, the driver root seen at /xpu/driver. */
static inline struct xpu_plan_options fx_options(const struct fx *f, enum xpu_inject_mode mode, const char *caps,
                                                 char *const *argv) {
        return (struct xpu_plan_options){
                .inject = mode,
                .can_mount = false,
                .driver_root = "/xpu/driver",
                .driver_fd = f->roots.driver_fd,
                .container_fd = f->container_fd,
                .dev_fd = f->roots.dev_fd,
                .sys_fd = f->roots.sys_fd,
                .capabilities_env = caps,
                .capabilities_var = fx_caps_var,
                .envp = fx_envp,
                .argv = argv,
                .from_outside = fx_outside,
        };
}

/* The profile a start would choose for F. */
static inline const struct xpu_profile *fx_profile(const struct fx *f) {
        const struct xpu_profile *pr = xpu_profile_select(f->profiles, f->inv, f->sel->selected);
        ck_assert_ptr_nonnull(pr);
        return pr;
}

/* Gather, then build, as a start does. */
static inline int fx_plan(struct fx *f, enum xpu_inject_mode mode, const char *caps, char *const *argv,
                   struct xpu_plan **ret, char *err, size_t err_size) {
        const struct xpu_plan_options o = fx_options(f, mode, caps, argv);
        return xpu_test_plan(f->inv, f->sel, fx_profile(f), &o, ret, err, err_size);
}

static inline const struct xpu_op *find_op(const struct xpu_plan *p, enum xpu_op_type t, const char *path) {
        for (size_t i = 0; i < p->n_ops; i++)
                if (p->ops[i].type == t && strcmp(p->ops[i].path, path) == 0)
                        return &p->ops[i];
        return NULL;
}

static inline size_t count_ops(const struct xpu_plan *p, enum xpu_op_type t) {
        size_t n = 0;
        for (size_t i = 0; i < p->n_ops; i++)
                n += p->ops[i].type == t;
        return n;
}

static char *const workload[] = { (char *)"/workload", (char *)"--flag", (char *)"", NULL };

static inline void fx_cdi(struct fx *f, const char *xpu_visible, const char *nv_visible, const char *libdir_mark) {
        xpu_selection_free(f->sel);
        f->sel = NULL;
        const struct xpu_selection_env env = {
                .xpu_visible = xpu_visible,
                .visible = { [XPU_VENDOR_NVIDIA] = nv_visible },
                .cdi_mark = { [XPU_VENDOR_NVIDIA] = libdir_mark ? "NVIDIA_CTK_LIBCUDA_DIR" : NULL },
                .cdi_libdir = { [XPU_VENDOR_NVIDIA] = libdir_mark },
        };
        char err[512] = "";
        ck_assert_msg(xpu_selection_parse_env(f->inv, &env, &f->sel, err, sizeof err) == 0, "%s", err);
        if (f->container) { /* a second call: a fresh container root of its own */
                xpu_test_rm_rf(f->container);
                free(f->container);
        }
        f->container = xpu_test_mkdtemp();
        close(f->container_fd);
        f->container_fd = xpu_open_root(f->container);
        ck_assert_int_ge(f->container_fd, 0);
}

/* The RTX 2080 Ti host with a container of its own made from NVIDIA's CDI spec: libnvidia-ml
 * mounted by CDI (no hook ran ldconfig), an image with ldconfig and /etc/ld.so.conf and a newer
 * forward-compatibility libcuda, a firmware file in the driver root, /dev/nvidiactl owned by group
 * 44. */
static inline void fx_rich(struct fx *f) {
        fx_open(f, "nvidia-rtx2080ti-x8", NULL, NULL);
        fx_cdi(f, NULL, "void", "/opt/cdi/lib");
        xpu_test_write(f->container, "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.465.19.01", "");
        xpu_test_write(f->container, "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
        xpu_test_write(f->container, "sbin/ldconfig", "#!/bin/sh\n");
        xpu_test_write(f->container, "usr/local/cuda/compat/libcuda.so.575.57.08", "");
        xpu_test_write(f->root, "usr/lib/x86_64-linux-gnu/libcuda.so.465.19.01", "");
        xpu_test_write(f->root, "lib/firmware/nvidia/465.19.01/gsp_tu10x.bin", "fw");
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/dev/nvidiactl", f->root);
        ck_assert_int_eq(chown(path, 0, 44), 0);
}

static inline const char *note_with(const struct xpu_plan *p, const char *needle) {
        for (size_t i = 0; i < p->n_notes; i++)
                if (strstr(p->notes[i], needle))
                        return p->notes[i];
        return "";
}

