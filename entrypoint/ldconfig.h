/* SPDX-License-Identifier: Apache-2.0 */
/* The loader cache of a container root rebuilt by ldconfig (ldconfig.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Rebuild the loader cache of the container root CONTAINER_FD. Inside the container
 * (CONTAINER_PATH "/" or NULL) IMAGE_LDCONFIG, the image's ldconfig (a path in the container),
 * runs with no capability and the "default" seccomp filter; from outside (CONTAINER_PATH the
 * root's path on the host, inject --rootfs) the host's ldconfig runs as "ldconfig -X -r
 * CONTAINER_PATH" keeping only chroot and file-access capabilities. The files ldconfig writes must
 * resolve beneath the root first (CVE-2025-23267). Returns 0, or -errno with ERR naming the file
 * or the ldconfig that failed and the fix. */
int xpu_ldconfig_run(int container_fd, const char *image_ldconfig, const char *container_path, char *err,
                     size_t err_size);

/* Check that every file ldconfig reads or replaces in CONTAINER_FD (ld.so.cache, its temporary,
 * ld.so.conf; from OUTSIDE also the host ldconfig's aux-cache) resolves beneath the root: a link or
 * mount leading out is refused before any ldconfig runs. Returns 0, or -errno with ERR naming the
 * file and the fix. */
int xpu_ldconfig_check_files(int container_fd, bool outside, char *err, size_t err_size);
