/* SPDX-License-Identifier: Apache-2.0 */
/* plan: fixture host + built-in profile + selection → operations, groups, env, argv. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/strv.h"
#include "libs-images.h"
#include "plan.h"
#include "testlib.h"
#include "plan-fx.h"

/* The loader note names the ldconfig that will run: the image's inside the container, the host's
 * `ldconfig -X -r` for inject --rootfs (the image's never runs from outside). */
static const char *loader_note(const struct xpu_plan *p) {
        for (size_t i = 0; i < p->n_notes; i++)
                if (strncmp(p->notes[i], "loader:", 7) == 0)
                        return p->notes[i];
        return "";
}

START_TEST(test_loader_note_names_the_ldconfig) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        xpu_test_write(f.root, "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
        xpu_test_write(f.root, "sbin/ldconfig", "#!/bin/sh\n");
        char err[512] = "";
        for (int outside = 0; outside <= 1; outside++) {
                struct xpu_plan *p = NULL;
                fx_outside = outside;
                ck_assert_msg(fx_plan(&f, XPU_INJECT_MOUNT, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
                fx_outside = false;
                ck_assert_str_eq(loader_note(p),
                                 outside ? "loader: /etc/ld.so.conf.d/000-xpuinit.conf lists /run/xpuinit/lib; the "
                                           "host's ldconfig -X -r rebuilds the cache (the image has /sbin/ldconfig, "
                                           "which never runs from outside)"
                                         : "loader: /etc/ld.so.conf.d/000-xpuinit.conf lists /run/xpuinit/lib; "
                                           "/sbin/ldconfig rebuilds the cache");
                xpu_plan_free(p);
        }
        fx_close(&f);
}
END_TEST

START_TEST(test_nvidia_link_mode) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        struct xpu_plan *p = NULL;
        char err[512] = "";
        ck_assert_msg(fx_plan(&f, XPU_INJECT_AUTO, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(p->profile->name, "nvidia-cuda");
        ck_assert_int_eq(p->inject, XPU_INJECT_LINK); /* no CAP_SYS_ADMIN → link */
        ck_assert_str_eq(p->driver_version, "465.19.01");
        ck_assert_uint_eq(p->n_devices, 8);
        /* utility + compute of the captured files: libnvidia-ml, libnvidia-cfg (utility) and
         * libnvidia-compiler (compute), the 465.19.01 files only. */
        const struct xpu_op *op = find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib/libnvidia-ml.so.465.19.01");
        ck_assert_ptr_nonnull(op);
        ck_assert_str_eq(op->target, "/xpu/driver/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.465.19.01");
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib/libnvidia-cfg.so.465.19.01"));
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib/libnvidia-compiler.so.465.19.01"));
        ck_assert_ptr_null(find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib/libnvidia-compiler.so.460.73.01"));
        ck_assert_ptr_null(find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib/libnvidia-glcore.so.465.19.01")); /* graphics */
        /* soname link */
        op = find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib/libnvidia-ml.so.1");
        ck_assert_ptr_nonnull(op);
        ck_assert_str_eq(op->target, "libnvidia-ml.so.465.19.01");
        ck_assert_uint_eq(count_ops(p, XPU_OP_BIND), 0);
        ck_assert_uint_eq(count_ops(p, XPU_OP_TMPFS), 0);
        /* Device nodes: minor from "Device Minor", major 195; uvm from /proc/devices. */
        op = find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/nvidia7");
        ck_assert_ptr_nonnull(op);
        ck_assert(op->have_major);
        ck_assert_uint_eq(op->major, 195);
        ck_assert_uint_eq(op->minor, 7);
        op = find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/nvidia-uvm");
        ck_assert_ptr_nonnull(op);
        ck_assert_uint_eq(op->major, 239);
        ck_assert(!op->optional);
        op = find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/nvidia-modeset");
        ck_assert_ptr_nonnull(op);
        ck_assert(op->optional);
        ck_assert(!op->filesystem);
        /* Environment */
        ck_assert_str_eq(xpu_env_get(p->env, "CUDA_DEVICE_ORDER"), "PCI_BUS_ID");
        ck_assert_str_eq(xpu_env_get(p->env, "CUDA_VISIBLE_DEVICES"),
                         "GPU-307dcc96-618a-4416-c1ef-87823c2e1a31,GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe,"
                         "GPU-00cead84-aab2-a1c2-3d21-53e6a83b2a35,GPU-1c9b50c7-823e-8c87-d54d-8f2ef02906fb,"
                         "GPU-ce6c6e9f-1e3b-de98-15e3-4ac06b46717f,GPU-b3ae0cf0-b3b5-aeec-01dc-8720c79f5068,"
                         "GPU-81a93134-7966-a3ad-337f-f6b9e645e4bf,GPU-ea7dfa3f-af70-377b-f7bc-a0fbf6b6dc1d");
        ck_assert_str_eq(xpu_env_get(p->env, "LD_LIBRARY_PATH"), "/run/xpuinit/lib");
        ck_assert_str_eq(xpu_env_get(p->env, "KEEP"), "1");
        /* argv intact, empty argument kept */
        ck_assert_uint_eq(xpu_strv_length(p->argv), 3);
        ck_assert_str_eq(p->argv[0], "/workload");
        ck_assert_str_eq(p->argv[2], "");
        /* The captured library list has no libcuda: the core library of compute is missing, and
         * the plan says so as a warning (libnvidia-ml, utility's core, is there). */
        ck_assert_uint_eq(p->n_warnings, 1);
        ck_assert_msg(strstr(p->warnings[0], "libcuda.so (core library of capability compute)"), "%s", p->warnings[0]);
        /* Stale library named in the notes. */
        bool stale = false;
        for (size_t i = 0; i < p->n_notes; i++)
                stale |= strstr(p->notes[i], "libnvidia-compiler.so.460.73.01") != NULL;
        ck_assert(stale);
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

START_TEST(test_nvidia_mount_mode_order) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        struct xpu_plan *p = NULL;
        char err[512] = "";
        ck_assert_msg(fx_plan(&f, XPU_INJECT_MOUNT, "utility", workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_int_eq(p->inject, XPU_INJECT_MOUNT);
        /* Device-node checks first (nothing changes before they pass), then mkdir base, tmpfs,
         * mkdir lib, bind + soname link per library, remount-ro. */
        size_t k = 0;
        while (k < p->n_ops && p->ops[k].type == XPU_OP_CHECK_DEVNODE)
                k++;
        ck_assert_uint_eq(k, 12); /* ctl, uvm, uvm-tools, modeset, nvidia0..7 */
        for (size_t i = k; i < p->n_ops; i++)
                ck_assert_int_ne(p->ops[i].type, XPU_OP_CHECK_DEVNODE);
        ck_assert_int_eq(p->ops[k].type, XPU_OP_MKDIR);
        ck_assert_str_eq(p->ops[k].path, "/run/xpuinit");
        ck_assert_int_eq(p->ops[k + 1].type, XPU_OP_TMPFS);
        ck_assert_str_eq(p->ops[k + 1].path, "/run/xpuinit");
        ck_assert_int_eq(p->ops[k + 2].type, XPU_OP_MKDIR);
        ck_assert_str_eq(p->ops[k + 2].path, "/run/xpuinit/lib");
        const struct xpu_op *op = find_op(p, XPU_OP_BIND, "/run/xpuinit/lib/libnvidia-ml.so.465.19.01");
        ck_assert_ptr_nonnull(op);
        ck_assert_str_eq(op->source, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.465.19.01");
        ck_assert_ptr_null(find_op(p, XPU_OP_BIND, "/run/xpuinit/lib/libnvidia-compiler.so.465.19.01"));
        size_t ro = 0;
        for (size_t i = 0; i < p->n_ops; i++)
                if (p->ops[i].type == XPU_OP_REMOUNT_RO)
                        ro = i;
        ck_assert_uint_gt(ro, 2);
        for (size_t i = ro + 1; i < p->n_ops; i++) /* nothing written below the tmpfs after it is ro */
                ck_assert(strncmp(p->ops[i].path, "/run/xpuinit/", 13) != 0);
        ck_assert_uint_eq(p->n_capabilities, 1);
        ck_assert_str_eq(p->capabilities[0], "utility");
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

/* The plan's warnings that contain NEEDLE. */
static size_t count_warnings(const struct xpu_plan *p, const char *needle) {
        size_t n = 0;
        for (size_t i = 0; i < p->n_warnings; i++)
                n += strstr(p->warnings[i], needle) != NULL;
        return n;
}

static const char *warning_with(const struct xpu_plan *p, const char *needle) {
        for (size_t i = 0; i < p->n_warnings; i++)
                if (strstr(p->warnings[i], needle))
                        return p->warnings[i];
        return "";
}

#define NVIDIA_CUDA_KNOWS "(it knows utility, compute, video, graphics, display, ngx, compat32, and all)"

/* NVIDIA_DRIVER_CAPABILITIES: every value the toolkit accepts (compute, compat32, graphics,
 * utility, video, display, ngx, all) and typos never stop the start: what the profile knows is
 * injected, and one warning names the rest. */
static const struct {
        const char *caps;
        const char *effective; /* capabilities in effect, comma-joined */
        const char *warning;   /* the one warning, "" for none */
} capability_cases[] = {
        { "compute,warp", "compute",
          "NVIDIA_DRIVER_CAPABILITIES: ignoring \"warp\": profile \"nvidia-cuda\" has no driver files for it "
          NVIDIA_CUDA_KNOWS "; injecting compute" },
        { "compute,compat32,graphics,utility,video,display,ngx", "compute,compat32,graphics,utility,video,display,ngx",
          "" },
        { "all", "utility,compute,video,graphics,display,ngx,compat32", "" },
        { "all,compat32", "utility,compute,video,graphics,display,ngx,compat32", "" },
        { " utility , compat32 , compte ,compat32", "utility,compat32",
          "NVIDIA_DRIVER_CAPABILITIES: ignoring \"compte\": profile \"nvidia-cuda\" has no driver files for it "
          NVIDIA_CUDA_KNOWS "; injecting utility,compat32" },
        { "warp", "",
          "NVIDIA_DRIVER_CAPABILITIES: ignoring \"warp\": profile \"nvidia-cuda\" has no driver files for it "
          NVIDIA_CUDA_KNOWS "; no driver files are injected" },
        { "compat32", "compat32", "" }, /* 32-bit copies of no other capability: nothing */
        { "display", "display", "" },
        { "  ", "utility,compute", "" }, /* blank is unset: the profile's default */
};

START_TEST(test_driver_capabilities) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        struct xpu_plan *p = NULL;
        char err[512] = "";
        const char *caps = capability_cases[_i].caps;
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, caps, workload, &p, err, sizeof err) == 0, "%s: %s", caps, err);
        char *eff = xpu_strv_join(p->capabilities, ",");
        ck_assert_str_eq(eff, capability_cases[_i].effective);
        free(eff);
        const char *want = capability_cases[_i].warning;
        ck_assert_uint_eq(count_warnings(p, "_DRIVER_CAPABILITIES"), want[0] ? 1 : 0);
        ck_assert_str_eq(warning_with(p, "_DRIVER_CAPABILITIES"), want);
        /* Nothing known: nothing linked, no library directory, the workload still starts. */
        bool any = p->n_capabilities > 0 && strcmp(capability_cases[_i].effective, "display") != 0 &&
                   strcmp(capability_cases[_i].effective, "compat32") != 0;
        ck_assert_uint_eq(count_ops(p, XPU_OP_SYMLINK) > 0, any);
        ck_assert_ptr_nonnull(p->argv[0]);
        ck_assert_str_eq(p->argv[0], "/workload");
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

START_TEST(test_unknown_capability) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        struct xpu_plan *p = NULL;
        char err[512] = "";
        /* Commas only name nothing: an error, not a silent empty injection. */
        ck_assert_int_eq(fx_plan(&f, XPU_INJECT_LINK, ",,,", workload, &p, err, sizeof err), -EINVAL);
        ck_assert_ptr_null(p);
        ck_assert_str_eq(err, "NVIDIA_DRIVER_CAPABILITIES=\",,,\" names no capability; use a list such as "
                              "\"utility,compute\", \"all\", or leave it unset");
        /* The variable that gave the value is named. */
        fx_caps_var = "XPU_DRIVER_CAPABILITIES";
        ck_assert_int_eq(fx_plan(&f, XPU_INJECT_LINK, "utility,ngz", workload, &p, err, sizeof err), 0);
        fx_caps_var = NULL;
        ck_assert_uint_eq(count_warnings(p, "XPU_DRIVER_CAPABILITIES: ignoring \"ngz\""), 1);
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

START_TEST(test_selection_narrows_env) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", "1,GPU-1c9b50c7-823e-8c87-d54d-8f2ef02906fb", NULL);
        struct xpu_plan *p = NULL;
        char err[512] = "";
        ck_assert_msg(fx_plan(&f, XPU_INJECT_NONE, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(p->n_devices, 2);
        ck_assert_str_eq(xpu_env_get(p->env, "CUDA_VISIBLE_DEVICES"),
                         "GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe,GPU-1c9b50c7-823e-8c87-d54d-8f2ef02906fb");
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/nvidia1"));
        ck_assert_ptr_nonnull(find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/nvidia3"));
        ck_assert_ptr_null(find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/nvidia0"));
        ck_assert_uint_eq(count_ops(p, XPU_OP_SYMLINK), 0); /* inject none */
        ck_assert_ptr_null(xpu_env_get(p->env, "LD_LIBRARY_PATH"));
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

START_TEST(test_void_injects_no_files) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, "void");
        /* void: no NVIDIA device selected, so the cpu profile runs and nothing is injected. */
        struct xpu_plan *p = NULL;
        char err[512] = "";
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(p->profile->name, "cpu");
        ck_assert_uint_eq(p->n_ops, 0);
        ck_assert_uint_eq(p->n_devices, 0);
        ck_assert_ptr_null(p->files);
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

/* ---- containers made from NVIDIA's CDI spec -------------------------------------------------- */

#define LIBDIR "usr/lib/x86_64-linux-gnu"
#define VER "465.19.01"

/* Make F's selection the one of a CDI-made container (NVIDIA_VISIBLE_DEVICES=NV_VISIBLE,
 * XPU_VISIBLE_DEVICES=XPU_VISIBLE, the mark NVIDIA_CTK_LIBCUDA_DIR=LIBDIR_MARK when not NULL) and
 * give it a container root of its own, empty but for what the test writes there. */
/* No CDI hook ran: libnvidia-ml (in a loader directory) and libnvidia-cfg (in the mark's
 * directory) are in the container already and not injected again, but their sonames get links
 * in /run/xpuinit/lib, which the loader is pointed at; libnvidia-compiler, which CDI did not
 * mount, is injected as ever. */
START_TEST(test_cdi_given_not_injected_again) {
        for (int mode = XPU_INJECT_MOUNT; mode <= XPU_INJECT_LINK; mode++) {
                struct fx f;
                fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
                fx_cdi(&f, NULL, "void", "/opt/cdi/lib");
                xpu_test_write(f.container, LIBDIR "/libnvidia-ml.so." VER, "");
                xpu_test_write(f.container, "opt/cdi/lib/libnvidia-cfg.so." VER, "");
                struct xpu_plan *p = NULL;
                char err[512] = "";
                ck_assert_msg(fx_plan(&f, (enum xpu_inject_mode)mode, "utility,compute", workload, &p, err, sizeof err) == 0,
                              "%s", err);
                ck_assert_str_eq(p->profile->name, "nvidia-cuda");
                ck_assert_uint_eq(p->n_devices, 8);
                ck_assert_uint_eq(p->n_given, 2);
                ck_assert_uint_eq(p->files->n, 1);
                ck_assert_str_eq(p->files->files[0].name, "libnvidia-compiler.so." VER);
                ck_assert_str_eq(note_with(p, "NVIDIA_CTK_LIBCUDA_DIR is set"),
                                 "NVIDIA_CTK_LIBCUDA_DIR is set and NVIDIA_VISIBLE_DEVICES is void or empty: the "
                                 "container was made from nvidia's CDI spec; the 8 device(s) it was given are selected");
                ck_assert_str_eq(note_with(p, "already mounted"),
                                 "NVIDIA_CTK_LIBCUDA_DIR: the container's CDI spec already mounted 2 driver file(s) of "
                                 "version " VER ", not injected again: /opt/cdi/lib/libnvidia-cfg.so." VER
                                 ", /" LIBDIR "/libnvidia-ml.so." VER);
                ck_assert_str_eq(note_with(p, "ld.so.cache does not list"),
                                 "the image's ld.so.cache does not list libnvidia-cfg.so.1, libnvidia-ml.so.1 (no CDI "
                                 "hook ran ldconfig): soname links to the CDI files in /run/xpuinit/lib");
                /* The given files themselves: no bind, no link of their own. */
                ck_assert_ptr_null(find_op(p, XPU_OP_BIND, "/run/xpuinit/lib/libnvidia-ml.so." VER));
                ck_assert_ptr_null(find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib/libnvidia-ml.so." VER));
                ck_assert_ptr_null(find_op(p, XPU_OP_BIND, "/run/xpuinit/lib/libnvidia-cfg.so." VER));
                const struct xpu_op *op = find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib/libnvidia-ml.so.1");
                ck_assert_ptr_nonnull(op);
                ck_assert_str_eq(op->target, "/" LIBDIR "/libnvidia-ml.so." VER);
                op = find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib/libnvidia-cfg.so.1");
                ck_assert_ptr_nonnull(op);
                ck_assert_str_eq(op->target, "/opt/cdi/lib/libnvidia-cfg.so." VER);
                /* What CDI did not mount is injected. */
                if (mode == XPU_INJECT_MOUNT) {
                        ck_assert_uint_eq(count_ops(p, XPU_OP_BIND), 1);
                        ck_assert_ptr_nonnull(find_op(p, XPU_OP_BIND, "/run/xpuinit/lib/libnvidia-compiler.so." VER));
                        ck_assert_uint_eq(count_ops(p, XPU_OP_TMPFS), 1);
                } else {
                        op = find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib/libnvidia-compiler.so." VER);
                        ck_assert_ptr_nonnull(op);
                        ck_assert_str_eq(op->target, "/xpu/driver/" LIBDIR "/libnvidia-compiler.so." VER);
                }
                ck_assert_str_eq(xpu_env_get(p->env, "LD_LIBRARY_PATH"), "/run/xpuinit/lib");
                xpu_plan_free(p);
                fx_close(&f);
        }
}
END_TEST

/* Every file given and the image's ld.so.cache (rebuilt by a CDI hook) lists each soname as that
 * file: nothing at all for the library directory, not even in mount mode; a cache entry that
 * names another file (a stale copy in the image) still gets its link. */
START_TEST(test_cdi_hook_ran_ldconfig) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        fx_cdi(&f, NULL, NULL, "/" LIBDIR);
        static const char *const libs[] = { "libnvidia-cfg", "libnvidia-ml", "libnvidia-compiler" };
        struct entry e[3];
        char keys[3][64], values[3][128];
        for (size_t i = 0; i < 3; i++) {
                char rel[128], target[64];
                snprintf(rel, sizeof rel, LIBDIR "/%s.so." VER, libs[i]);
                xpu_test_write(f.container, rel, "");
                snprintf(rel, sizeof rel, LIBDIR "/%s.so.1", libs[i]);
                snprintf(target, sizeof target, "%s.so." VER, libs[i]);
                xpu_test_symlink(f.container, rel, target);
                snprintf(keys[i], sizeof keys[i], "%s.so.1", libs[i]);
                snprintf(values[i], sizeof values[i], "/%s", rel);
                e[i] = (struct entry){ xpu_ldcache_native_flags(), keys[i], values[i] };
        }
        static unsigned char cache[1 << 16];
        size_t len = build_cache(cache, sizeof cache, CACHE_NEW, e, 3);
        write_bytes(f.container, "etc/ld.so.cache", cache, len, 0644);
        for (int mode = XPU_INJECT_MOUNT; mode <= XPU_INJECT_LINK; mode++) {
                struct xpu_plan *p = NULL;
                char err[512] = "";
                ck_assert_msg(fx_plan(&f, (enum xpu_inject_mode)mode, "utility,compute", workload, &p, err, sizeof err) == 0,
                              "%s", err);
                ck_assert_str_eq(p->profile->name, "nvidia-cuda");
                ck_assert_uint_eq(p->n_given, 3);
                ck_assert_uint_eq(p->files->n, 0);
                for (size_t i = 0; i < p->n_ops; i++)
                        ck_assert_msg(p->ops[i].type == XPU_OP_CHECK_DEVNODE, "op %zu: %s %s", i,
                                      xpu_op_type_to_string(p->ops[i].type), p->ops[i].path);
                ck_assert_ptr_null(xpu_env_get(p->env, "LD_LIBRARY_PATH"));
                ck_assert_str_eq(note_with(p, "NVIDIA_CTK_LIBCUDA_DIR is set"),
                                 "NVIDIA_CTK_LIBCUDA_DIR is set: the container was made from nvidia's CDI spec; the 8 "
                                 "device(s) it was given are selected");
                ck_assert_str_eq(note_with(p, "ld.so.cache does not list"), "");
                xpu_plan_free(p);
        }
        /* The image's own (stale) libnvidia-ml.so.1 is what the cache lists. */
        xpu_test_write(f.container, "usr/lib/libnvidia-ml.so.1", "");
        e[1].value = "/usr/lib/libnvidia-ml.so.1";
        len = build_cache(cache, sizeof cache, CACHE_NEW, e, 3);
        write_bytes(f.container, "etc/ld.so.cache", cache, len, 0644);
        struct xpu_plan *p = NULL;
        char err[512] = "";
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, "utility,compute", workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(count_ops(p, XPU_OP_SYMLINK), 1);
        const struct xpu_op *op = find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib/libnvidia-ml.so.1");
        ck_assert_ptr_nonnull(op);
        ck_assert_str_eq(op->target, "/" LIBDIR "/libnvidia-ml.so." VER);
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

/* The marks decide: without NVIDIA_CTK_LIBCUDA_DIR, void is "no GPU" (cpu), and so is none with
 * it; XPU_VISIBLE_DEVICES still narrows, and CDI's files are still not injected again. */
START_TEST(test_cdi_marks_decide) {
        static const struct {
                const char *xpu, *nv, *mark, *profile;
                size_t devices, given;
        } cases[] = {
                { NULL, "void", NULL, "cpu", 0, 0 },
                { NULL, "", NULL, "cpu", 0, 0 },
                { NULL, "none", NULL, "cpu", 0, 0 },
                { NULL, "none", "/" LIBDIR, "cpu", 0, 0 },
                { NULL, "void", "/" LIBDIR, "nvidia-cuda", 8, 1 },
                { "1,2", "void", "/" LIBDIR, "nvidia-cuda", 2, 1 },
                { NULL, "0", "/" LIBDIR, "nvidia-cuda", 1, 1 },
                { NULL, "all", NULL, "nvidia-cuda", 8, 0 }, /* no mark: injected as ever */
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct fx f;
                fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
                fx_cdi(&f, cases[i].xpu, cases[i].nv, cases[i].mark);
                xpu_test_write(f.container, LIBDIR "/libnvidia-ml.so." VER, "");
                struct xpu_plan *p = NULL;
                char err[512] = "";
                ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, "utility", workload, &p, err, sizeof err) == 0, "%s", err);
                ck_assert_msg(strcmp(p->profile->name, cases[i].profile) == 0, "case %zu: profile %s", i, p->profile->name);
                ck_assert_uint_eq(p->n_devices, cases[i].devices);
                ck_assert_uint_eq(p->n_given, cases[i].given);
                ck_assert_uint_eq(find_op(p, XPU_OP_SYMLINK, "/run/xpuinit/lib/libnvidia-ml.so." VER) != NULL,
                                  strcmp(cases[i].profile, "nvidia-cuda") == 0 && cases[i].given == 0);
                xpu_plan_free(p);
                fx_close(&f);
        }
}
END_TEST

START_TEST(test_amd_groups_and_rocr) {
        struct fx f;
        memset(&f, 0, sizeof f);
        fx_open(&f, "amd-mi210x8", NULL, NULL);
        /* The render nodes and /dev/kfd belong to group 44 ("video") on this host. */
        char path[4096];
        snprintf(path, sizeof path, "%s/dev/kfd", f.root);
        ck_assert_int_eq(chown(path, 0, 44), 0);
        for (int i = 128; i < 136; i++) {
                snprintf(path, sizeof path, "%s/dev/dri/renderD%d", f.root, i);
                ck_assert_int_eq(chown(path, 0, 105), 0);
        }
        struct xpu_plan *p = NULL;
        char err[512] = "";
        ck_assert_msg(fx_plan(&f, XPU_INJECT_AUTO, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(p->profile->name, "amd-rocm");
        ck_assert_uint_eq(p->n_devices, 8);
        ck_assert_ptr_null(p->files); /* no libraries for AMD */
        ck_assert_uint_eq(count_ops(p, XPU_OP_SYMLINK) + count_ops(p, XPU_OP_BIND), 0);
        ck_assert_uint_eq(p->n_groups, 2);
        ck_assert_uint_eq(p->groups[0], 44);
        ck_assert_str_eq(p->groups_from[0], "/dev/kfd");
        ck_assert_uint_eq(p->groups[1], 105);
        const struct xpu_op *op = find_op(p, XPU_OP_CHECK_DEVNODE, "/dev/dri/renderD130");
        ck_assert_ptr_nonnull(op);
        ck_assert_uint_eq(op->major, 226);
        ck_assert_uint_eq(op->minor, 130);
        /* KFD order: index 0 is 63:00.0 (unique id 22e235479cc58a01). */
        const char *rocr = xpu_env_get(p->env, "ROCR_VISIBLE_DEVICES");
        ck_assert_ptr_nonnull(rocr);
        ck_assert_msg(strncmp(rocr, "GPU-22e235479cc58a01,GPU-f5ef3e744628b12c,", 42) == 0, "%s", rocr);
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

START_TEST(test_cpu_profile_plain) {
        struct fx f;
        fx_open(&f, "nvidia-edge-nouveau", NULL, NULL);
        struct xpu_plan *p = NULL;
        char err[512] = "";
        ck_assert_msg(fx_plan(&f, XPU_INJECT_AUTO, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(p->profile->name, "cpu");
        ck_assert_uint_eq(p->n_ops, 0);
        ck_assert_uint_eq(p->n_groups, 0);
        ck_assert_str_eq(p->argv[0], "/workload");
        ck_assert_str_eq(xpu_env_get(p->env, "PATH"), "/usr/bin:/bin");
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

static Suite *plan_suite(void) {
        Suite *s = suite_create("plan");
        TCase *tc = tcase_create("plan");
        tcase_set_timeout(tc, 30);
        tcase_add_test(tc, test_nvidia_link_mode);
        tcase_add_test(tc, test_loader_note_names_the_ldconfig);
        tcase_add_test(tc, test_nvidia_mount_mode_order);
        tcase_add_test(tc, test_unknown_capability);
        tcase_add_loop_test(tc, test_driver_capabilities, 0, (int)ELEMENTSOF(capability_cases));
        tcase_add_test(tc, test_selection_narrows_env);
        tcase_add_test(tc, test_void_injects_no_files);
        tcase_add_test(tc, test_amd_groups_and_rocr);
        tcase_add_test(tc, test_cpu_profile_plain);
        tcase_add_test(tc, test_cdi_given_not_injected_again);
        tcase_add_test(tc, test_cdi_hook_ran_ldconfig);
        tcase_add_test(tc, test_cdi_marks_decide);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(plan_suite());
}
