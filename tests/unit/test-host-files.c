/* SPDX-License-Identifier: Apache-2.0 */
/* host-files: the "files" patterns (validation) and what they find in a driver root: firmware by
 * version glob, sockets, directories, links inside the root, FIFOs and escapes refused. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/path.h"
#include "host-files.h"
#include "testlib.h"

START_TEST(test_pattern_validation) {
        static const char *const good[] = {
                "/lib/firmware/nvidia/${DRIVER_VERSION}/gsp*.bin",
                "/run/nvidia-persistenced/socket",
                "/tmp/nvidia-mps",
                "/usr/share/egl/egl_external_platform.d/*nvidia*.json",
                "/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so.${DRIVER_VERSION}",
                "/a/[ab]?.json",
        };
        static const char *const bad[] = {
                "lib/firmware/x.bin",  "/",      "/a/",          "/a//b",       "/a/./b",   "/a/../b",
                "/..",                 "/a/*/b", "/a/[x]/b",     "/a/${HOME}/b", "/a/${DRIVER_VERSION",
                "/a/\tb",              "",       "/a/b\x7f",
        };
        for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
                ck_assert_msg(xpu_host_file_pattern_invalid(good[i]) == NULL, "%s refused", good[i]);
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                ck_assert_msg(xpu_host_file_pattern_invalid(bad[i]) != NULL, "%s accepted", bad[i]);
        char longp[PATH_MAX];
        memset(longp, 'a', sizeof longp - 1);
        longp[0] = '/';
        longp[PATH_MAX / 2] = '\0';
        ck_assert_ptr_nonnull(xpu_host_file_pattern_invalid(longp));
        ck_assert_str_eq(xpu_host_file_kind_to_string(XPU_HOST_FILE_SOCKET), "socket");
        ck_assert_str_eq(xpu_host_file_kind_to_string(XPU_HOST_FILE_DIRECTORY), "directory");
}
END_TEST

/* A UNIX socket bound at ROOT/REL (the process keeps nothing open: the inode stays). */
static void make_socket(const char *root, const char *rel) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", root, rel);
        xpu_test_write(root, rel, "");
        ck_assert_int_eq(unlink(path), 0);
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        ck_assert_uint_lt(strlen(path), sizeof sa.sun_path);
        memcpy(sa.sun_path, path, strlen(path) + 1);
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
        close(fd);
        ck_assert_int_eq(chmod(path, 0777), 0); /* persistenced's: anyone may connect */
}

static const struct xpu_host_file *find(const struct xpu_host_files *f, const char *path) {
        for (size_t i = 0; i < f->n; i++)
                if (strcmp(f->files[i].path, path) == 0)
                        return &f->files[i];
        return NULL;
}

static char *names_utility[] = {
        (char *)"/lib/firmware/nvidia/${DRIVER_VERSION}/gsp*.bin",
        (char *)"/run/nvidia-persistenced/socket",
        (char *)"/run/nvidia-fabricmanager/socket",
};
static char *names_compute[] = {
        (char *)"/lib/firmware/nvidia/${DRIVER_VERSION}/gsp*.bin",
        (char *)"/tmp/nvidia-mps",
};
static char *names_graphics[] = {
        (char *)"/usr/share/vulkan/icd.d/nvidia_icd*.json",
        (char *)"/usr/share/glvnd/egl_vendor.d/10_nvidia.json",
        (char *)"/etc/many/*.json",
        (char *)"/etc/many2/secret.json",
};
static const struct xpu_capability_files files[] = {
        { (char *)"utility", names_utility, 3 },
        { (char *)"compute", names_compute, 2 },
        { (char *)"graphics", names_graphics, 4 },
};

START_TEST(test_find) {
        /* an entry holds its paths by pointer: a list of thousands of files is not 8 KiB a file */
        ck_assert_uint_lt(sizeof(struct xpu_host_file), 256);
        char *root = xpu_test_mkdtemp();
        xpu_test_write(root, "lib/firmware/nvidia/465.19.01/gsp_tu10x.bin", "fw");
        xpu_test_write(root, "lib/firmware/nvidia/465.19.01/gsp_ga10x.bin", "fw");
        xpu_test_write(root, "lib/firmware/nvidia/465.19.01/.gsp_hidden.bin", "fw");
        xpu_test_write(root, "lib/firmware/nvidia/465.19.01/README", "not firmware");
        xpu_test_write(root, "lib/firmware/nvidia/460.73.01/gsp_old.bin", "fw");
        make_socket(root, "run/nvidia-persistenced/socket");
        char path[PATH_MAX];
        xpu_test_write(root, "run/nvidia-fabricmanager/.keep", "");
        snprintf(path, sizeof path, "%s/run/nvidia-fabricmanager/socket", root);
        ck_assert_int_eq(mkfifo(path, 0600), 0); /* never opened: a FIFO could block */
        xpu_test_write(root, "tmp/nvidia-mps/control", "");
        snprintf(path, sizeof path, "%s/tmp/nvidia-mps", root);
        ck_assert_int_eq(chmod(path, 01777), 0); /* the MPS pipe directory: every user's */
        /* what not every user may use is not for a container: 0600, 0660, 0755 */
        xpu_test_write(root, "etc/many2/secret.json", "");
        snprintf(path, sizeof path, "%s/etc/many2/secret.json", root);
        ck_assert_int_eq(chmod(path, 0600), 0);
        xpu_test_write(root, "etc/vulkan/real_icd.json", "{}");
        xpu_test_symlink(root, "usr/share/vulkan/icd.d/nvidia_icd.json", "/etc/vulkan/real_icd.json");
        /* a link that would leave the root lands inside it, where there is nothing */
        xpu_test_symlink(root, "usr/share/glvnd/egl_vendor.d/10_nvidia.json", "../../../../../../../../etc/hostname");
        for (int i = 0; i < XPU_HOST_FILE_MATCHES_MAX + 3; i++) {
                char rel[64];
                snprintf(rel, sizeof rel, "etc/many/f%03d.json", i);
                xpu_test_write(root, rel, "{}");
        }
        int fd = xpu_open_root(root);
        ck_assert_int_ge(fd, 0);

        const char *caps[] = { "utility", "compute", "graphics" };
        struct xpu_host_files *f = NULL;
        ck_assert_int_eq(xpu_host_files_find(fd, "465.19.01", caps, 3, files, 3, &f), 0);
        /* firmware once (utility asked first), in name order; the socket; the MPS directory; the
         * ICD through its link, under the name the pattern gives; 64 of the 67 */
        ck_assert_uint_eq(f->n, 2 + 1 + 1 + 1 + XPU_HOST_FILE_MATCHES_MAX);
        ck_assert_str_eq(f->files[0].path, "/lib/firmware/nvidia/465.19.01/gsp_ga10x.bin");
        ck_assert_str_eq(f->files[1].path, "/lib/firmware/nvidia/465.19.01/gsp_tu10x.bin");
        ck_assert_str_eq(f->files[0].capability, "utility");
        ck_assert_int_eq(f->files[0].kind, XPU_HOST_FILE_REGULAR);
        const struct xpu_host_file *s = find(f, "/run/nvidia-persistenced/socket");
        ck_assert_ptr_nonnull(s);
        ck_assert_int_eq(s->kind, XPU_HOST_FILE_SOCKET);
        ck_assert_ptr_null(find(f, "/run/nvidia-fabricmanager/socket"));
        const struct xpu_host_file *mps = find(f, "/tmp/nvidia-mps");
        ck_assert_ptr_nonnull(mps);
        ck_assert_int_eq(mps->kind, XPU_HOST_FILE_DIRECTORY);
        ck_assert_str_eq(mps->capability, "compute");
        const struct xpu_host_file *icd = find(f, "/usr/share/vulkan/icd.d/nvidia_icd.json");
        ck_assert_ptr_nonnull(icd);
        ck_assert_int_eq(icd->kind, XPU_HOST_FILE_REGULAR);
        ck_assert_str_eq(icd->resolved, "/etc/vulkan/real_icd.json"); /* the link's target, inside the root */
        ck_assert_str_eq(mps->resolved, "/tmp/nvidia-mps");
        ck_assert_ptr_null(find(f, "/usr/share/glvnd/egl_vendor.d/10_nvidia.json"));
        ck_assert_ptr_null(find(f, "/lib/firmware/nvidia/465.19.01/.gsp_hidden.bin"));
        ck_assert_ptr_nonnull(find(f, "/etc/many/f063.json"));
        ck_assert_ptr_null(find(f, "/etc/many/f064.json"));
        ck_assert_uint_eq(f->n_skipped, 3);
        ck_assert_str_eq(f->skipped[0], "/run/nvidia-fabricmanager/socket: not a regular file, socket or directory "
                                        "(a FIFO or device); not placed");
        ck_assert_str_eq(f->skipped[1], "/etc/many: 67 entries match \"*.json\"; the first 64 by name are placed");
        ck_assert_str_eq(f->skipped[2], "/etc/many2/secret.json: mode 0600: not readable by every user, so not for a "
                                        "container; not placed");
        xpu_host_files_free(f);

        /* only compute: its own patterns; no driver version: the versioned pattern finds nothing */
        ck_assert_int_eq(xpu_host_files_find(fd, "", caps + 1, 1, files, 3, &f), 0);
        ck_assert_uint_eq(f->n, 1);
        ck_assert_str_eq(f->files[0].path, "/tmp/nvidia-mps");
        ck_assert_uint_eq(f->n_skipped, 0);
        xpu_host_files_free(f);

        /* another version: its own firmware only */
        ck_assert_int_eq(xpu_host_files_find(fd, "460.73.01", caps, 1, files, 3, &f), 0);
        ck_assert_uint_eq(f->n, 2);
        ck_assert_str_eq(f->files[0].path, "/lib/firmware/nvidia/460.73.01/gsp_old.bin");
        ck_assert_str_eq(f->files[1].path, "/run/nvidia-persistenced/socket");
        xpu_host_files_free(f);

        /* a directory with more matches than any driver has: none of it placed */
        for (int i = 0; i <= XPU_HOST_FILE_SCAN_MAX; i++) {
                char rel[64];
                snprintf(rel, sizeof rel, "etc/flood/f%05d.json", i);
                xpu_test_write(root, rel, "");
        }
        char *flood_names[] = { (char *)"/etc/flood/*.json" };
        const struct xpu_capability_files flood[] = { { (char *)"utility", flood_names, 1 } };
        ck_assert_int_eq(xpu_host_files_find(fd, "465.19.01", caps, 1, flood, 1, &f), 0);
        ck_assert_uint_eq(f->n, 0);
        ck_assert_uint_eq(f->n_skipped, 1);
        ck_assert_str_eq(f->skipped[0], "/etc/flood: more than 4096 entries match \"*.json\"; none placed");
        xpu_host_files_free(f);

        /* an invalid pattern (not through the profile loader) is refused */
        char *bad_names[] = { (char *)"/a/../etc/shadow" };
        const struct xpu_capability_files bad[] = { { (char *)"utility", bad_names, 1 } };
        ck_assert_int_eq(xpu_host_files_find(fd, "465.19.01", caps, 1, bad, 1, &f), -EINVAL);
        close(fd);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

int main(void) {
        Suite *s = suite_create("host-files");
        TCase *tc = tcase_create("host-files");
        /* test_find writes more than 4096 files to reach the scan bound: under ASan, qemu or a busy
         * machine that alone can pass Check's default 4 s. A hang guard, not a time budget. */
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_pattern_validation);
        tcase_add_test(tc, test_find);
        suite_add_tcase(s, tc);
        return xpu_test_run(s);
}
