/* SPDX-License-Identifier: Apache-2.0 */
/* The loader cache of a container root rebuilt by ldconfig (ldconfig.h): the image's own ldconfig
 * inside the container, the host's from outside (inject --rootfs), each in a child with as little
 * privilege as it needs, after checking that nothing it writes leads out of the root. Used by the
 * apply (the plan's ldconfig operation) and by its undo (the cache rebuilt without the drop-in). */
#include "ldconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "base/macro.h"
#include "base/path.h"
#include "base/str.h"
#include "sandbox/privilege.h"
#include "sandbox/seccomp.h"

/* Host ldconfig for `inject --rootfs`: the image's own binary never runs from outside. */
static const char *const host_ldconfig_paths[] = {
        "/sbin/ldconfig.real",
        "/sbin/ldconfig",
        "/usr/sbin/ldconfig",
};

/* Files ldconfig reads or replaces in the container root: each must resolve beneath it (ldconfig
 * from the host runs chrooted there, the image's inside it, but a link or mount leading out is
 * refused before either runs; CVE-2025-23267). */
static const char *const ldconfig_files[] = {
        "/etc/ld.so.cache",
        "/etc/ld.so.cache~",
        "/etc/ld.so.conf",
};

/* Written by the host's ldconfig -r as well (its auxiliary cache, when /var/cache/ldconfig
 * exists; -i does not stop that): a host directory bind-mounted on /var/cache/ldconfig would
 * gain the file. The image's own ldconfig, inside the container without capabilities, may write
 * to the container's volumes like any of its processes. */
static const char *const host_ldconfig_files[] = {
        "/var/cache/ldconfig/aux-cache",
        "/var/cache/ldconfig/aux-cache~",
};

/* Capabilities the host's `ldconfig -r ROOT` keeps: chroot into ROOT, and read and replace files
 * there that another uid may own (a user-namespaced rootfs). Nothing else. */
#define HOST_LDCONFIG_CAPS                                                                                  \
        (XPU_CAP_BIT(CAP_SYS_CHROOT) | XPU_CAP_BIT(CAP_DAC_OVERRIDE) | XPU_CAP_BIT(CAP_DAC_READ_SEARCH) | \
         XPU_CAP_BIT(CAP_FOWNER))

int xpu_ldconfig_check_files(int container_fd, bool outside, char *err, size_t err_size) {
        size_t n = ELEMENTSOF(ldconfig_files) + (outside ? ELEMENTSOF(host_ldconfig_files) : 0);
        for (size_t i = 0; i < n; i++) {
                const char *file = i < ELEMENTSOF(ldconfig_files) ? ldconfig_files[i]
                                                                   : host_ldconfig_files[i - ELEMENTSOF(ldconfig_files)];
                struct xpu_path_refusal why;
                _cleanup_close_ int fd = xpu_open_beneath(container_fd, file, O_PATH, 0, &why);
                if (fd < 0 && why.kind != XPU_REFUSE_NONE) {
                        char what[PATH_MAX * 2 + 160];
                        xpu_path_refusal_format(&why, "the container root", what, sizeof what);
                        xpu_format_error(err, err_size,
                                         "%s; refusing to run ldconfig, which would write through it: make it a "
                                         "plain file of the image or remove it (docs/safe-paths.md)",
                                         what);
                        return fd;
                }
        }
        return 0;
}

/* Run ldconfig in a child with an empty environment, stdin/stdout/stderr on /dev/null, every
 * other fd closed, PR_SET_NO_NEW_PRIVS and reduced capabilities (xpu_privilege_apply()).
 * Inside the container (root "/") the image's ldconfig runs with no capability at all and the
 * "default" seccomp filter; from outside (inject --rootfs) the host's ldconfig runs as
 * "ldconfig -X -r CONTAINER_PATH" keeping HOST_LDCONFIG_CAPS only (chroot is what the default filter
 * denies, so no filter there: the binary is the host's own). */
int xpu_ldconfig_run(int container_fd, const char *image_ldconfig, const char *container_path, char *err,
                     size_t err_size) {
        bool outside = container_path && strcmp(container_path, "/") != 0;
        const char *bin = image_ldconfig;
        int r = xpu_ldconfig_check_files(container_fd, outside, err, err_size);
        if (r < 0)
                return r;
        if (outside) {
                bin = NULL;
                for (size_t i = 0; i < ELEMENTSOF(host_ldconfig_paths) && !bin; i++)
                        if (access(host_ldconfig_paths[i], X_OK) == 0)
                                bin = host_ldconfig_paths[i];
                if (!bin) {
                        xpu_format_error(err, err_size, "no ldconfig on this host to rebuild %s/etc/ld.so.cache",
                                container_path);
                        return -ENOENT;
                }
        }
        uint64_t effective = 0;
        r = xpu_capability_current(&effective, NULL, NULL);
        if (r < 0)
                return r;
        struct xpu_privilege priv = XPU_PRIVILEGE_INIT;
        struct xpu_seccomp_program *filter = NULL;
        priv.keep = outside ? HOST_LDCONFIG_CAPS & effective : 0;
        /* Without CAP_SETPCAP the bounding set cannot shrink: all bits kept, so nothing is
         * dropped (as the supervisor does, privileges.c); NO_NEW_PRIVS still caps what execve grants
         * to what the child keeps. */
        priv.bounding = (effective & XPU_CAP_BIT(CAP_SETPCAP)) ? priv.keep : ~UINT64_C(0);
        priv.close_fds = true;
        if (!outside) {
                r = xpu_seccomp_build("default", -1, &filter, err, err_size);
                if (r < 0)
                        return r;
                priv.seccomp = filter;
        }
        r = xpu_privilege_prepare(&priv);
        if (r < 0) {
                xpu_seccomp_free(filter);
                xpu_format_error(err, err_size, "cannot prepare the privileges of ldconfig: %s", strerror(-r));
                return r;
        }
        pid_t pid = fork();
        if (pid < 0) {
                r = negative_errno();
                xpu_privilege_done(&priv);
                xpu_seccomp_free(filter);
                return r;
        }
        if (pid == 0) {
                char *const envp[] = { NULL };
                int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
                if (devnull >= 0) { /* its chatter ("file is empty, not checked") is not ours */
                        dup2(devnull, STDIN_FILENO);
                        dup2(devnull, STDOUT_FILENO);
                        dup2(devnull, STDERR_FILENO);
                }
                if (xpu_privilege_apply(&priv, NULL) < 0)
                        _exit(126);
                if (outside) {
                        /* -X: no soname links. ldconfig would make them in every directory the
                         * image's ld.so.conf lists, and one of those may be a host directory
                         * bind-mounted into the root; xpuinit makes the links it injects itself. */
                        const char *const argv[] = { "ldconfig", "-X", "-r", container_path, NULL };
                        execve(bin, (char *const *)argv, envp);
                } else {
                        const char *const argv[] = { "ldconfig", NULL };
                        execve(bin, (char *const *)argv, envp);
                }
                _exit(127);
        }
        xpu_privilege_done(&priv);
        xpu_seccomp_free(filter);
        int st = 0;
        while (waitpid(pid, &st, 0) < 0)
                if (errno != EINTR)
                        return negative_errno();
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                xpu_format_error(err, err_size, "%s failed (status %d); the loader may not find %s", bin,
                        WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), "the injected libraries");
                return -EIO;
        }
        return 0;
}

