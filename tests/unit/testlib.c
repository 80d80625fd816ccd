/* SPDX-License-Identifier: Apache-2.0 */
#include "testlib.h"

#include "base/fileio.h"
#include "vendor.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef XPU_SRCDIR
#error "XPU_SRCDIR must be defined by the build"
#endif

const char *xpu_test_host(const char *name) {
        static char buf[PATH_MAX];
        snprintf(buf, sizeof buf, "%s/tests/fixtures/hosts/%s", XPU_SRCDIR, name);
        return buf;
}

void xpu_test_open_host(struct xpu_roots *r, const char *name) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s", xpu_test_host(name));
        const char *which = NULL;
        int rc = xpu_roots_open(r, path, path, path, &which);
        ck_assert_msg(rc == 0, "open roots of %s (%s): %s", path, which ? which : "?", strerror(-rc));
}

struct xpu_inventory *xpu_test_probe_host(const char *name) {
        struct xpu_roots r;
        xpu_test_open_host(&r, name);
        struct xpu_inventory *inv = NULL;
        int rc = xpu_inventory_probe(&r, &inv);
        xpu_roots_close(&r);
        ck_assert_int_eq(rc, 0);
        ck_assert_ptr_nonnull(inv);
        return inv;
}

struct xpu_inventory *xpu_test_probe_copy(const char *name, void (*edit)(const char *root), struct xpu_roots *r,
                                          char **ret_root) {
        char *root = xpu_test_copy_host(name);
        xpu_test_make_devnodes(root);
        if (edit)
                edit(root);
        struct xpu_roots own;
        struct xpu_roots *roots = r ? r : &own;
        const char *which = NULL;
        ck_assert_int_eq(xpu_roots_open(roots, root, root, root, &which), 0);
        struct xpu_inventory *inv = NULL;
        ck_assert_int_eq(xpu_inventory_probe(roots, &inv), 0);
        if (!r)
                xpu_roots_close(&own);
        if (ret_root)
                *ret_root = root;
        else {
                xpu_test_rm_rf(root);
                free(root);
        }
        return inv;
}

struct xpu_inventory *xpu_test_probe_backend(const struct xpu_vendor_ops *backend, const char *dir) {
        struct xpu_roots r;
        const char *which = NULL;
        ck_assert_int_eq(xpu_roots_open(&r, dir, dir, dir, &which), 0);
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        ck_assert_int_eq(backend->probe.fast(&r, inv), 0);
        xpu_roots_close(&r);
        return inv;
}

unsigned char *xpu_test_read_fixture(const char *rel, size_t *len) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/tests/fixtures/%s", XPU_SRCDIR, rel);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ck_assert_msg(fd >= 0, "%s: cannot open (%m; tests/fixtures/README.md says what makes it)", path);
        struct stat st;
        ck_assert_int_eq(fstat(fd, &st), 0);
        ck_assert_int_gt(st.st_size, 0);
        unsigned char *b = malloc((size_t)st.st_size);
        ck_assert_ptr_nonnull(b);
        ck_assert_int_eq(xpu_read_full(fd, b, (size_t)st.st_size), st.st_size);
        close(fd);
        *len = (size_t)st.st_size;
        return b;
}

int xpu_test_memfd(const void *data, size_t len) {
        int fd = memfd_create("xpu-test", MFD_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(xpu_write_full(fd, data, len), 0);
        return fd;
}

char *xpu_test_mkdtemp(void) {
        char *t = strdup("/tmp/xpu-test-XXXXXX");
        ck_assert_ptr_nonnull(t);
        ck_assert_ptr_nonnull(mkdtemp(t));
        return t;
}

static void mkdir_parents(const char *path) {
        char buf[PATH_MAX];
        snprintf(buf, sizeof buf, "%s", path);
        for (char *p = buf + 1; *p; p++) {
                if (*p != '/')
                        continue;
                *p = '\0';
                if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                        ck_abort_msg("mkdir %s: %s", buf, strerror(errno));
                *p = '/';
        }
}

void xpu_test_write(const char *root, const char *rel, const char *content) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", root, rel);
        mkdir_parents(path);
        FILE *f = fopen(path, "we");
        ck_assert_msg(f != NULL, "open %s: %s", path, strerror(errno));
        fputs(content, f);
        ck_assert_int_eq(fclose(f), 0);
}

void xpu_test_symlink(const char *root, const char *rel, const char *target) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", root, rel);
        mkdir_parents(path);
        unlink(path);
        ck_assert_msg(symlink(target, path) == 0, "symlink %s: %s", path, strerror(errno));
}

void xpu_test_make_devnodes(const char *root) {
        char list[PATH_MAX];
        snprintf(list, sizeof list, "%s/dev/DEVNODES", root);
        FILE *f = fopen(list, "re");
        ck_assert_msg(f != NULL, "open %s: %s", list, strerror(errno));
        ck_assert_msg(geteuid() == 0, "creating device nodes needs root (mknod); run the tests as root");
        char line[512];
        while (fgets(line, sizeof line, f)) {
                char path[256], type;
                unsigned maj, min;
                if (line[0] == '#' || line[0] == '\n')
                        continue;
                ck_assert_msg(sscanf(line, "%255s %c %u:%u", path, &type, &maj, &min) == 4 && type == 'c',
                              "%s: bad line \"%s\"", list, line);
                char full[PATH_MAX];
                snprintf(full, sizeof full, "%s%s", root, path);
                mkdir_parents(full);
                unlink(full);
                ck_assert_msg(mknod(full, S_IFCHR | 0666, makedev(maj, min)) == 0, "mknod %s: %s", full,
                              strerror(errno));
        }
        fclose(f);
}

static int run_argv(const char *const argv[]) {
        pid_t pid = fork();
        if (pid == 0) {
                execvp(argv[0], (char *const *)argv);
                _exit(127);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

char *xpu_test_copy_host(const char *name) {
        char *t = xpu_test_mkdtemp();
        char src[PATH_MAX];
        snprintf(src, sizeof src, "%s/.", xpu_test_host(name));
        const char *const argv[] = { "cp", "-a", src, t, NULL };
        ck_assert_int_eq(run_argv(argv), 0);
        return t;
}

void xpu_test_rm_rf(const char *dir) {
        if (!dir)
                return;
        const char *const argv[] = { "rm", "-rf", dir, NULL };
        run_argv(argv);
}

int xpu_test_run(Suite *suite) {
        SRunner *sr = srunner_create(suite);
        srunner_set_fork_status(sr, CK_FORK);
        srunner_run_all(sr, CK_ENV);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
