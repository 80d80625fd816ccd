/* SPDX-License-Identifier: Apache-2.0 */
/* apply: a plan walked into a temporary container root: links, bind mounts (in a private mount
 * namespace), device-node checks, and roots that try to lead outside. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/path.h"
#include "base/strv.h"
#include "plan-build.h"
#include "plan.h"
#include "testlib.h"

struct fx {
        char *host;      /* fixture copy: sys, dev and driver root */
        char *container; /* empty container root */
        struct xpu_roots roots;
        struct xpu_inventory *inv;
        struct xpu_profile_set *profiles;
        struct xpu_selection *sel;
        int container_fd;
        struct xpu_plan *plan;
};

/* Called on the host copy before the plan is built (NULL: nothing more). */
static void (*fx_host_extra)(const char *host);

static void fx_open(struct fx *f, enum xpu_inject_mode mode, const char *caps) {
        memset(f, 0, sizeof *f);
        f->host = xpu_test_copy_host("nvidia-rtx2080ti-x8");
        xpu_test_make_devnodes(f->host);
        if (fx_host_extra)
                fx_host_extra(f->host);
        xpu_test_write(f->host, "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.465.19.01", "\177ELF NVML-465\n");
        f->container = xpu_test_mkdtemp();
        const char *which = NULL;
        ck_assert_int_eq(xpu_roots_open(&f->roots, f->host, f->host, f->host, &which), 0);
        ck_assert_int_eq(xpu_inventory_probe(&f->roots, &f->inv), 0);
        char err[512] = "";
        ck_assert_int_eq(xpu_profile_set_load(NULL, &f->profiles, err, sizeof err), 0);
        ck_assert_int_eq(xpu_selection_parse(f->inv, NULL, NULL, &f->sel, err, sizeof err), 0);
        f->container_fd = xpu_open_root(f->container);
        ck_assert_int_ge(f->container_fd, 0);
        char *envp[] = { NULL };
        char *argv[] = { (char *)"/bin/true", NULL };
        struct xpu_plan_options o = {
                .inject = mode,
                .driver_root = f->host,
                .driver_fd = f->roots.driver_fd,
                .container_fd = f->container_fd,
                .dev_fd = f->roots.dev_fd,
                .capabilities_env = caps,
                .envp = envp,
                .argv = argv,
        };
        const struct xpu_profile *pr = xpu_profile_set_find(f->profiles, "nvidia-cuda");
        ck_assert_ptr_nonnull(pr);
        ck_assert_msg(xpu_test_plan(f->inv, f->sel, pr, &o, &f->plan, err, sizeof err) == 0, "%s", err);
}

static void fx_close(struct fx *f) {
        xpu_plan_free(f->plan);
        close(f->container_fd);
        xpu_selection_free(f->sel);
        xpu_profile_set_free(f->profiles);
        xpu_inventory_free(f->inv);
        xpu_roots_close(&f->roots);
        xpu_test_rm_rf(f->host);
        xpu_test_rm_rf(f->container);
        free(f->host);
        free(f->container);
}

/* Apply F's plan: into F's container root, device nodes checked under DEV_FD (the container root
 * in the device-node test, as in a real container). */
static int apply(struct fx *f, bool filesystem_only, const char *container_path, int dev_fd, char *err,
                 size_t err_size) {
        const struct xpu_apply_roots roots = {
                .container_fd = f->container_fd,
                .container_path = container_path,
                .driver_fd = f->roots.driver_fd,
                .dev_fd = dev_fd,
                .dev_path = "/",
        };
        return xpu_plan_apply(f->plan, &roots, filesystem_only, err, err_size);
}

static void read_link(const char *root, const char *rel, char *buf, size_t size) {
        char path[8192];
        snprintf(path, sizeof path, "%s%s", root, rel);
        ssize_t n = readlink(path, buf, size - 1);
        ck_assert_msg(n >= 0, "readlink %s: %s", path, strerror(errno));
        buf[n] = '\0';
}

START_TEST(test_link_mode) {
        struct fx f;
        fx_open(&f, XPU_INJECT_LINK, NULL);
        char err[512] = "";
        ck_assert_msg(apply(&f, true, f.container, f.container_fd, err, sizeof err) == 0,
                      "%s", err);
        char buf[4096], want[4096];
        read_link(f.container, "/run/xpuinit/lib/libnvidia-ml.so.465.19.01", buf, sizeof buf);
        snprintf(want, sizeof want, "%s/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.465.19.01", f.host);
        ck_assert_str_eq(buf, want);
        read_link(f.container, "/run/xpuinit/lib/libnvidia-ml.so.1", buf, sizeof buf);
        ck_assert_str_eq(buf, "libnvidia-ml.so.465.19.01");
        /* Applying twice is harmless (links already right). */
        ck_assert_msg(apply(&f, true, f.container, f.container_fd, err, sizeof err) == 0,
                      "%s", err);
        fx_close(&f);
}
END_TEST

START_TEST(test_devnode_checks) {
        struct fx f;
        fx_open(&f, XPU_INJECT_NONE, NULL);
        char err[512] = "";
        /* No /dev in the container: the first required node is named. */
        ck_assert_int_lt(apply(&f, false, "/", f.container_fd, err, sizeof err), 0);
        ck_assert_msg(strstr(err, "/dev/nvidiactl") && strstr(err, "not in the container"), "%s", err);
        /* The checks run before any change: nothing was created in the container root. */
        char probe[8192];
        snprintf(probe, sizeof probe, "%s/run", f.container);
        struct stat pst;
        ck_assert_int_eq(stat(probe, &pst), -1);
        /* Outside a container the message names the dev root it looked under. */
        const struct xpu_apply_roots elsewhere = {
                .container_fd = f.container_fd, .container_path = "/", .driver_fd = f.roots.driver_fd,
                .dev_fd = f.container_fd, .dev_path = "/srv/devroot",
        };
        ck_assert_int_lt(xpu_plan_apply(f.plan, &elsewhere, false, err, sizeof err), 0);
        ck_assert_msg(strstr(err, "under the dev root /srv/devroot"), "%s", err);
        /* The fixture copy has every node: as the dev root it passes (links go to the container). */
        ck_assert_msg(apply(&f, false, "/", f.roots.dev_fd, err, sizeof err) == 0, "%s", err);
        /* All nodes as the host has them: passes. */
        char cmd[8192];
        snprintf(cmd, sizeof cmd, "%s/dev", f.container);
        ck_assert_int_eq(mkdir(cmd, 0755), 0);
        snprintf(cmd, sizeof cmd, "%s/dev/DEVNODES", f.host);
        FILE *in = fopen(cmd, "re");
        ck_assert_ptr_nonnull(in);
        char line[512], all[8192] = "";
        while (fgets(line, sizeof line, in))
                snprintf(all + strlen(all), sizeof all - strlen(all), "%s", line);
        fclose(in);
        xpu_test_write(f.container, "dev/DEVNODES", all);
        xpu_test_make_devnodes(f.container);
        err[0] = '\0';
        ck_assert_msg(apply(&f, false, "/", f.container_fd, err, sizeof err) == 0,
                      "%s", err);
        /* A node with the wrong minor is refused with both numbers. */
        snprintf(cmd, sizeof cmd, "%s/dev/nvidia3", f.container);
        ck_assert_int_eq(unlink(cmd), 0);
        ck_assert_int_eq(mknod(cmd, S_IFCHR | 0666, makedev(195, 5)), 0);
        ck_assert_int_lt(apply(&f, false, "/", f.container_fd, err, sizeof err), 0);
        ck_assert_msg(strstr(err, "/dev/nvidia3") && strstr(err, "195:5") && strstr(err, "195:3"), "%s", err);
        fx_close(&f);
}
END_TEST

START_TEST(test_mount_mode_private_namespace) {
        ck_assert_msg(unshare(CLONE_NEWNS) == 0, "unshare(CLONE_NEWNS): %s (needs root)", strerror(errno));
        ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
        struct fx f;
        fx_open(&f, XPU_INJECT_MOUNT, "utility");
        char err[512] = "";
        ck_assert_msg(apply(&f, true, f.container, f.container_fd, err, sizeof err) == 0,
                      "%s", err);
        char path[8192], buf[64] = "";
        snprintf(path, sizeof path, "%s/run/xpuinit/lib/libnvidia-ml.so.1", f.container);
        FILE *in = fopen(path, "re"); /* through the soname link onto the bind mount */
        ck_assert_msg(in != NULL, "open %s: %s", path, strerror(errno));
        ck_assert_ptr_nonnull(fgets(buf, sizeof buf, in));
        fclose(in);
        ck_assert_str_eq(buf, "\177ELF NVML-465\n");
        /* Read-only bind, read-only tmpfs. */
        ck_assert_int_lt(open(path, O_WRONLY | O_CLOEXEC), 0);
        ck_assert_int_eq(errno, EROFS);
        snprintf(path, sizeof path, "%s/run/xpuinit/new", f.container);
        ck_assert_int_lt(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644), 0);
        ck_assert_int_eq(errno, EROFS);
        /* A second injection would stack another tmpfs: refused, naming the path. */
        ck_assert_int_eq(apply(&f, true, f.container, f.container_fd, err, sizeof err), -EBUSY);
        ck_assert_msg(strstr(err, "/run/xpuinit is already a mount point"), "%s", err);
        /* Detach the tmpfs (and the binds on it) so the temporary tree can be removed. */
        snprintf(path, sizeof path, "%s/run/xpuinit", f.container);
        ck_assert_int_eq(umount2(path, MNT_DETACH), 0);
        fx_close(&f);
}
END_TEST

START_TEST(test_hostile_container_root) {
        struct fx f;
        fx_open(&f, XPU_INJECT_LINK, NULL);
        /* /run is an absolute symlink to a host directory: resolved inside the root, where that
         * path does not exist, so the step fails and the host directory stays untouched. */
        char *outside = xpu_test_mkdtemp();
        xpu_test_symlink(f.container, "run", outside);
        char err[512] = "";
        ck_assert_int_lt(apply(&f, true, f.container, f.container_fd, err, sizeof err), 0);
        ck_assert_msg(strstr(err, "/run/xpuinit/lib"), "%s", err);
        char path[8192];
        snprintf(path, sizeof path, "%s/xpuinit", outside);
        struct stat st;
        ck_assert_int_eq(stat(path, &st), -1);
        ck_assert_msg(strstr(err, "/run is a symlink to ") && strstr(err, "outside the container root"), "%s", err);
        /* /run escaping with "..": refused (RESOLVE_BENEATH semantics for writes), named. */
        snprintf(path, sizeof path, "%s/run", f.container);
        ck_assert_int_eq(unlink(path), 0);
        xpu_test_symlink(f.container, "run", "../../../../..");
        ck_assert_int_eq(apply(&f, true, f.container, f.container_fd, err, sizeof err), -EXDEV);
        ck_assert_msg(strstr(err, "/run is a symlink to ../../../../..") && strstr(err, "refusing"), "%s", err);
        snprintf(path, sizeof path, "%s/xpuinit", f.container);
        ck_assert_int_eq(lstat(path, &st), -1);
        /* A relative link that stays inside is followed. */
        snprintf(path, sizeof path, "%s/run", f.container);
        ck_assert_int_eq(unlink(path), 0);
        xpu_test_symlink(f.container, "run", "srv");
        snprintf(path, sizeof path, "%s/srv", f.container);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        ck_assert_msg(apply(&f, true, f.container, f.container_fd, err, sizeof err) == 0, "%s", err);
        snprintf(path, sizeof path, "%s/srv/xpuinit/lib/libnvidia-ml.so.1", f.container);
        ck_assert_int_eq(lstat(path, &st), 0);
        xpu_test_rm_rf(outside);
        free(outside);
        fx_close(&f);
}
END_TEST

START_TEST(test_ldconfig_from_outside) {
        struct fx f;
        memset(&f, 0, sizeof f);
        /* An image with ldconfig and /etc/ld.so.conf gets the drop-in and a rebuilt cache; from
         * outside, the host's ldconfig runs with -r. */
        char *c = xpu_test_mkdtemp();
        xpu_test_write(c, "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
        xpu_test_write(c, "sbin/ldconfig", "#!/bin/sh\necho image binary must not run >&2\nexit 99\n");
        char ldc[4096];
        snprintf(ldc, sizeof ldc, "%s/sbin/ldconfig", c);
        ck_assert_int_eq(chmod(ldc, 0755), 0);
        fx_open(&f, XPU_INJECT_LINK, NULL);
        xpu_plan_free(f.plan);
        f.plan = NULL;
        close(f.container_fd);
        xpu_test_rm_rf(f.container);
        free(f.container);
        f.container = c;
        f.container_fd = xpu_open_root(c);
        char *envp[] = { NULL };
        char *argv[] = { NULL };
        struct xpu_plan_options o = {
                .inject = XPU_INJECT_LINK,
                .driver_root = f.host,
                .driver_fd = f.roots.driver_fd,
                .container_fd = f.container_fd,
                .dev_fd = f.roots.dev_fd,
                .envp = envp,
                .argv = argv,
        };
        char err[512] = "";
        ck_assert_int_eq(xpu_test_plan(f.inv, f.sel, xpu_profile_set_find(f.profiles, "nvidia-cuda"), &o, &f.plan, err,
                                        sizeof err),
                         0);
        ck_assert_ptr_null(xpu_env_get(f.plan->env, "LD_LIBRARY_PATH"));
        ck_assert_msg(apply(&f, true, c, f.container_fd, err, sizeof err) == 0, "%s",
                      err);
        char path[8192], buf[256] = "";
        snprintf(path, sizeof path, "%s/etc/ld.so.conf.d/000-xpuinit.conf", c);
        FILE *in = fopen(path, "re");
        ck_assert_ptr_nonnull(in);
        ck_assert_ptr_nonnull(fgets(buf, sizeof buf, in)); /* comment */
        ck_assert_ptr_nonnull(fgets(buf, sizeof buf, in));
        fclose(in);
        ck_assert_str_eq(buf, "/run/xpuinit/lib\n");
        snprintf(path, sizeof path, "%s/etc/ld.so.cache", c);
        struct stat st;
        ck_assert_int_eq(stat(path, &st), 0); /* written by the host's ldconfig -r */
        fx_close(&f);
}
END_TEST

/* A step failing after the tmpfs was mounted takes the tmpfs (and the binds on it) away again:
 * here /etc/ld.so.conf.d is a symlink to a host directory, which does not exist in the root. */
START_TEST(test_failure_undoes_mounts) {
        ck_assert_msg(unshare(CLONE_NEWNS) == 0, "unshare(CLONE_NEWNS): %s (needs root)", strerror(errno));
        ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
        char *c = xpu_test_mkdtemp(), *outside = xpu_test_mkdtemp();
        xpu_test_write(c, "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
        xpu_test_write(c, "sbin/ldconfig", "#!/bin/sh\nexit 99\n");
        xpu_test_symlink(c, "etc/ld.so.conf.d", outside);
        struct fx f;
        fx_open(&f, XPU_INJECT_MOUNT, "utility");
        xpu_plan_free(f.plan);
        close(f.container_fd);
        xpu_test_rm_rf(f.container);
        free(f.container);
        f.container = c;
        f.container_fd = xpu_open_root(c);
        char *envp[] = { NULL }, *argv[] = { NULL };
        struct xpu_plan_options o = {
                .inject = XPU_INJECT_MOUNT, .driver_root = f.host, .driver_fd = f.roots.driver_fd,
                .container_fd = f.container_fd, .dev_fd = f.roots.dev_fd, .capabilities_env = "utility",
                .envp = envp, .argv = argv,
        };
        char err[1024] = "";
        ck_assert_int_eq(xpu_test_plan(f.inv, f.sel, xpu_profile_set_find(f.profiles, "nvidia-cuda"), &o, &f.plan,
                                        err, sizeof err),
                         0);
        ck_assert_int_eq(apply(&f, true, c, f.container_fd, err, sizeof err), -EXDEV);
        ck_assert_msg(strstr(err, "/etc/ld.so.conf.d is a symlink to ") && strstr(err, "refusing"), "%s", err);
        /* Every write target is checked before the first is made: no tmpfs, not even /run/xpuinit. */
        char path[8192];
        snprintf(path, sizeof path, "%s/run/xpuinit", c);
        ck_assert_int_eq(access(path, F_OK), -1);
        /* Nothing was created in the host directory the symlink names. */
        snprintf(path, sizeof path, "%s/000-xpuinit.conf", outside);
        ck_assert_int_eq(access(path, F_OK), -1);
        xpu_test_rm_rf(outside);
        free(outside);
        fx_close(&f);
}
END_TEST

/* The image's ldconfig (inside the container, root "/") runs with no capability, no_new_privs,
 * the default seccomp filter, an empty environment and no stray fds. */
START_TEST(test_ldconfig_inside_unprivileged) {
        char *t = xpu_test_mkdtemp();
        char script[4096], out[4096], body[16384];
        snprintf(out, sizeof out, "%s/status", t);
        snprintf(body, sizeof body,
                 "#!/bin/sh\n{ grep -E '^(CapEff|CapPrm|NoNewPrivs|Seccomp):' /proc/self/status; env; "
                 "echo fds $(ls /proc/self/fd | wc -l); } > %s\n",
                 out);
        xpu_test_write(t, "sbin/ldconfig", body);
        snprintf(script, sizeof script, "%s/sbin/ldconfig", t);
        ck_assert_int_eq(chmod(script, 0755), 0);
        int leak = open("/dev/null", O_RDONLY); /* not O_CLOEXEC: must not reach ldconfig */
        ck_assert_int_ge(leak, 0);
        struct xpu_op op;
        memset(&op, 0, sizeof op);
        op.type = XPU_OP_LDCONFIG;
        op.filesystem = true;
        snprintf(op.path, sizeof op.path, "%s", script);
        struct xpu_plan plan;
        memset(&plan, 0, sizeof plan);
        plan.ops = &op;
        plan.n_ops = 1;
        int root = xpu_open_root("/");
        const struct xpu_apply_roots roots = { .container_fd = root, .container_path = "/", .driver_fd = root,
                                               .dev_fd = root, .dev_path = "/" };
        char err[1024] = "";
        ck_assert_int_eq(setenv("LD_LIBRARY_PATH", "/xpu-test-leak", 1), 0); /* must not reach ldconfig */
        ck_assert_int_eq(setenv("XPU_TEST_LEAK", "1", 1), 0);
        int r = xpu_plan_apply(&plan, &roots, true, err, sizeof err);
        unsetenv("LD_LIBRARY_PATH");
        unsetenv("XPU_TEST_LEAK");
        ck_assert_msg(r == 0, "%s", err);
        close(leak);
        close(root);
        char got[1024];
        FILE *in = fopen(out, "re");
        ck_assert_ptr_nonnull(in);
        size_t n = fread(got, 1, sizeof got - 1, in);
        got[n] = '\0';
        fclose(in);
        ck_assert_msg(strstr(got, "CapPrm:\t0000000000000000") && strstr(got, "CapEff:\t0000000000000000"), "%s", got);
        ck_assert_msg(strstr(got, "NoNewPrivs:\t1") && strstr(got, "Seccomp:\t2"), "%s", got);
        /* Nothing of our environment (only what the shell sets itself: PWD...); fds: 0 1 2 and
         * the one ls reads /proc/self/fd through. */
        ck_assert_msg(!strstr(got, "LD_LIBRARY_PATH") && !strstr(got, "XPU_TEST_LEAK") && !strstr(got, "PATH=/"),
                      "%s", got);
        ck_assert_msg(strstr(got, "fds 4\n"), "%s", got);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* inject --rootfs refuses an environment with loader variables (CVE-2025-23266). */
START_TEST(test_loader_env_check) {
        char err[1024] = "";
        char *clean[] = { (char *)"PATH=/usr/bin:/bin", (char *)"HOME=/root", NULL };
        ck_assert_int_eq(xpu_loader_env_check(clean, err, sizeof err), 0);
        static const char *const bad[] = { "LD_PRELOAD=/proc/self/cwd/x.so", "LD_AUDIT=a.so", "LD_LIBRARY_PATH=/x",
                                           "LD_DEBUG_OUTPUT=/x", "LD_PROFILE=x", "GCONV_PATH=/x",
                                           "GLIBC_TUNABLES=glibc.x=1", "LD_ANYTHING_NEW=1" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char *envp[] = { (char *)"PATH=/bin", (char *)bad[i], NULL };
                ck_assert_int_eq(xpu_loader_env_check(envp, err, sizeof err), -EPERM);
                ck_assert_msg(strstr(err, bad[i]) && strstr(err, "explicit env"), "%s", err);
        }
        char *tricky[] = { (char *)"LD_=1", (char *)"OLD_PRELOAD=x", (char *)"XLD_PRELOAD=x", NULL };
        ck_assert_int_eq(xpu_loader_env_check(tricky, err, sizeof err), 0);
}
END_TEST

/* ---- files at their own path --------------------------------------------------------------- */

#define FW "/lib/firmware/nvidia/465.19.01/gsp_tu10x.bin"
#define PERSISTENCED "/run/nvidia-persistenced/socket"
#define MPS "/tmp/nvidia-mps"

static int listen_fd = -1; /* the persistenced socket of the host copy */

static void host_with_ipc(const char *host) {
        xpu_test_write(host, FW + 1, "GSP firmware 465\n");
        xpu_test_write(host, MPS "/control" + 1, "");
        char dir[8192];
        snprintf(dir, sizeof dir, "%s" MPS, host);
        ck_assert_int_eq(chmod(dir, 01777), 0);
        xpu_test_write(host, PERSISTENCED + 1, "");
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int n = snprintf(sa.sun_path, sizeof sa.sun_path, "%s" PERSISTENCED, host);
        ck_assert(n > 0 && (size_t)n < sizeof sa.sun_path);
        ck_assert_int_eq(unlink(sa.sun_path), 0);
        listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ck_assert_int_ge(listen_fd, 0);
        ck_assert_int_eq(bind(listen_fd, (struct sockaddr *)&sa, sizeof sa), 0);
        ck_assert_int_eq(listen(listen_fd, 4), 0);
        ck_assert_int_eq(chmod(sa.sun_path, 0777), 0);
}

/* connect(2) to the socket at ROOT/REL: 0 or -errno. */
static int connect_at(const char *root, const char *rel) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int n = snprintf(sa.sun_path, sizeof sa.sun_path, "%s%s", root, rel);
        ck_assert(n > 0 && (size_t)n < sizeof sa.sun_path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ck_assert_int_ge(fd, 0);
        int r = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 ? 0 : -errno;
        close(fd);
        return r;
}

/* A private mount namespace and F on a host copy with the firmware, the persistenced socket and
 * the MPS directory (host_with_ipc), planned in mount mode for CAPS. */
static void host_files_open(struct fx *f, const char *caps) {
        ck_assert_msg(unshare(CLONE_NEWNS) == 0, "unshare(CLONE_NEWNS): %s (needs root)", strerror(errno));
        ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
        fx_host_extra = host_with_ipc;
        fx_open(f, XPU_INJECT_MOUNT, caps);
}

static void host_files_close(struct fx *f) {
        close(listen_fd);
        fx_host_extra = NULL;
        fx_close(f);
}

/* Mount mode: firmware bound read-only at its own path, the persistenced socket bound so a client
 * in the container connects to the host's daemon, the MPS directory bound writable (a pipe made
 * in the container appears on the host). */
START_TEST(test_host_files_mount) {
struct fx f;
        host_files_open(&f, "utility,compute");
        char err[512] = "";
        ck_assert_msg(apply(&f, true, f.container, f.container_fd, err, sizeof err) == 0, "%s", err);
        char path[8192], buf[64] = "";
        snprintf(path, sizeof path, "%s" FW, f.container);
        FILE *in = fopen(path, "re");
        ck_assert_msg(in != NULL, "open %s: %s", path, strerror(errno));
        ck_assert_ptr_nonnull(fgets(buf, sizeof buf, in));
        fclose(in);
        ck_assert_str_eq(buf, "GSP firmware 465\n");
        ck_assert_int_lt(open(path, O_WRONLY | O_CLOEXEC), 0);
        ck_assert_int_eq(errno, EROFS);
        ck_assert_int_eq(connect_at(f.container, PERSISTENCED), 0);
        int peer = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
        ck_assert_int_ge(peer, 0);
        close(peer);
        xpu_test_write(f.container, MPS "/pipe0" + 1, "made in the container");
        snprintf(path, sizeof path, "%s" MPS "/pipe0", f.host);
        struct stat st;
        ck_assert_int_eq(stat(path, &st), 0);
        static const char *const mounts[] = { FW, PERSISTENCED, MPS, "/run/xpuinit" };
        for (size_t i = 0; i < sizeof mounts / sizeof mounts[0]; i++) {
                snprintf(path, sizeof path, "%s%s", f.container, mounts[i]);
                ck_assert_msg(umount2(path, MNT_DETACH) == 0, "umount %s: %s", path, strerror(errno));
        }
        host_files_close(&f);
}
END_TEST

/* Link mode: a symlink at each path into the driver root; the socket is reached through it. An
 * image whose firmware directory is a link out of its root is refused, naming it, with nothing
 * written outside. */
START_TEST(test_host_files_link_and_escape) {
        fx_host_extra = host_with_ipc;
        struct fx f;
        fx_open(&f, XPU_INJECT_LINK, "utility,compute");
        char err[512] = "", buf[4096], want[4096];
        ck_assert_msg(apply(&f, true, f.container, f.container_fd, err, sizeof err) == 0, "%s", err);
        read_link(f.container, FW, buf, sizeof buf);
        snprintf(want, sizeof want, "%s" FW, f.host);
        ck_assert_str_eq(buf, want);
        read_link(f.container, MPS, buf, sizeof buf);
        snprintf(want, sizeof want, "%s" MPS, f.host);
        ck_assert_str_eq(buf, want);
        ck_assert_int_eq(connect_at(f.container, PERSISTENCED), 0);
        fx_close(&f);

        fx_open(&f, XPU_INJECT_LINK, "utility,compute");
        char *outside = xpu_test_mkdtemp();
        xpu_test_write(f.container, "lib/firmware/.keep", "");
        char rel[8192];
        snprintf(rel, sizeof rel, "../../../../../../../../..%s", outside);
        xpu_test_symlink(f.container, "lib/firmware/nvidia", rel);
        ck_assert_int_eq(apply(&f, true, f.container, f.container_fd, err, sizeof err), -EXDEV);
        ck_assert_msg(strstr(err, "/lib/firmware/nvidia is a symlink to ") && strstr(err, "refusing"), "%s", err);
        char path[8192];
        struct stat st;
        snprintf(path, sizeof path, "%s/465.19.01", outside);
        ck_assert_int_eq(lstat(path, &st), -1);
        xpu_test_rm_rf(outside);
        free(outside);
        host_files_close(&f);
}
END_TEST

/* The image put a device node (here /dev/null's 1:3) where the firmware goes: refused by its
 * type, never opened. */
START_TEST(test_host_files_device_in_image) {
struct fx f;
        host_files_open(&f, "utility");
        xpu_test_write(f.container, FW + 1, "");
        char path[8192], err[512] = "";
        snprintf(path, sizeof path, "%s" FW, f.container);
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(mknod(path, S_IFCHR | 0666, makedev(1, 3)), 0);
        ck_assert_int_lt(apply(&f, true, f.container, f.container_fd, err, sizeof err), 0);
        ck_assert_str_eq(err, FW " in the container root is a device node, not a regular file; refusing to mount "
                              "on it: remove it from the image");
        snprintf(path, sizeof path, "%s/run/xpuinit", f.container);
        umount2(path, MNT_DETACH); /* (the failed apply may have left its tmpfs: the test's tree) */
        host_files_close(&f);
}
END_TEST

/* A later step fails (the image has a file where the MPS directory goes): the firmware already
 * bound at its own path is taken back with the tmpfs, so a failed start leaves no mount. */
START_TEST(test_host_files_undone_on_failure) {
struct fx f;
        host_files_open(&f, "utility,compute");
        xpu_test_write(f.container, MPS + 1, "a file, not a directory");
        char err[512] = "", path[8192], buf[64] = "";
        ck_assert_int_lt(apply(&f, true, f.container, f.container_fd, err, sizeof err), 0);
        ck_assert_msg(strstr(err, MPS " in the container root is a regular file, not a directory") && !strstr(err, "could not be removed"), "%s", err);
        snprintf(path, sizeof path, "%s" FW, f.container);
        FILE *in = fopen(path, "re");
        ck_assert_ptr_nonnull(in);
        ck_assert_ptr_null(fgets(buf, sizeof buf, in)); /* the empty mount point, not the firmware */
        fclose(in);
        snprintf(path, sizeof path, "%s/run/xpuinit/lib", f.container);
        struct stat st;
        ck_assert_int_lt(stat(path, &st), 0); /* the tmpfs is gone too */
        host_files_close(&f);
}
END_TEST

static Suite *apply_suite(void) {
        Suite *s = suite_create("apply");
        TCase *tc = tcase_create("apply");
        tcase_set_timeout(tc, 30);
        tcase_add_test(tc, test_link_mode);
        tcase_add_test(tc, test_devnode_checks);
        tcase_add_test(tc, test_mount_mode_private_namespace);
        tcase_add_test(tc, test_hostile_container_root);
        tcase_add_test(tc, test_ldconfig_from_outside);
        tcase_add_test(tc, test_failure_undoes_mounts);
        tcase_add_test(tc, test_ldconfig_inside_unprivileged);
        tcase_add_test(tc, test_loader_env_check);
        tcase_add_test(tc, test_host_files_mount);
        tcase_add_test(tc, test_host_files_link_and_escape);
        tcase_add_test(tc, test_host_files_device_in_image);
        tcase_add_test(tc, test_host_files_undone_on_failure);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(apply_suite());
}
