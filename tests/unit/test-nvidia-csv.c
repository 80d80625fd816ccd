/* SPDX-License-Identifier: Apache-2.0 */
/* Jetson's CSV host lists (probes/nvidia/nvidia-csv.c): the parser on real and hostile lines, its
 * bounds, and the host lists of the jetson-orin and jetson-xavier fixture hosts. How the plan
 * places them: test-plan-host-files.c. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvidia/nvidia-csv.h"
#include "sandbox/isolate.h"
#include "testlib.h"

static size_t parse(const char *text, struct xpu_csv_line **lines, char *err, size_t err_size, int want) {
        size_t n = 0;
        *lines = NULL;
        ck_assert_int_eq(xpu_csv_parse("drivers.csv", text, strlen(text), lines, &n, XPU_CSV_ENTRIES_MAX, err,
                                       err_size),
                         want);
        return n;
}

/* The forms of real files: spaces after the comma, "//" (L4T 36's firmware line), CRLF, blank
 * and comment lines, upper case, a glob in the last component. */
START_TEST(test_parse_real_lines) {
        struct xpu_csv_line *l;
        char err[600] = "";
        size_t n = parse("lib, /usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1\n"
                         "\n# comment\n"
                         "sym,/usr/lib/aarch64-linux-gnu/libcuda.so\r\n"
                         "lib, //lib/firmware/tegra19x/nvhost_nvdec040_ns.fw\n"
                         "  DEV ,  /dev/dri/card*  \n"
                         "dir, /lib/firmware/tegra19x",
                         &l, err, sizeof err, 0);
        ck_assert_uint_eq(n, 5);
        ck_assert_int_eq(l[0].kind, XPU_CSV_LIB);
        ck_assert_str_eq(l[0].path, "/usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1");
        ck_assert_str_eq(l[0].origin, "drivers.csv:1");
        ck_assert_int_eq(l[1].kind, XPU_CSV_SYM);
        ck_assert_str_eq(l[1].path, "/usr/lib/aarch64-linux-gnu/libcuda.so");
        ck_assert_str_eq(l[1].origin, "drivers.csv:4");
        ck_assert_str_eq(l[2].path, "/lib/firmware/tegra19x/nvhost_nvdec040_ns.fw");
        ck_assert_int_eq(l[3].kind, XPU_CSV_DEV);
        ck_assert_str_eq(l[3].path, "/dev/dri/card*");
        ck_assert_int_eq(l[4].kind, XPU_CSV_DIR);
        ck_assert_str_eq(xpu_csv_kind_to_string(l[4].kind), "dir");
        free(l);
}
END_TEST

static void bad(const char *text, const char *msg) {
        struct xpu_csv_line *l;
        char err[600] = "";
        size_t n = parse(text, &l, err, sizeof err, -EINVAL);
        (void)n;
        ck_assert_msg(strstr(err, msg) != NULL, "\"%s\": got \"%s\", wanted \"%s\"", text, err, msg);
        free(l);
}

/* Each refusal names the file, the line and what is expected; nothing of a bad line is kept. */
START_TEST(test_parse_hostile_lines) {
        bad("libs, /usr/lib/x.so\n", "drivers.csv:1: unknown kind \"libs\"; expected \"KIND, PATH\"");
        bad("lib /usr/lib/x.so\n", "drivers.csv:1: no comma");
        bad("lib,\n", "drivers.csv:1: the path is not absolute");
        bad("dev, dev/nvmap\n", "the path is not absolute");
        bad("lib, /usr/lib/../../etc/shadow\n", "drivers.csv:1: the path has a \".\" or \"..\" component");
        bad("lib, /usr/lib/./x.so\n", "component");
        bad("lib, /usr/*/x.so\n", "a glob before its last component");
        bad("lib, /usr/lib/${DRIVER_VERSION}/x\n", "\"${\"");
        bad("dir, /usr/lib/\n", "ends in \"/\"");
        bad("lib, /usr/lib/x\x1b[2J.so\n", "drivers.csv:1: the path holds a control character");
        /* as read: the logger escapes it, once (a "\x1b" on stderr, not "\\x1b") */
        bad("\n\nlib\x1b, /x\n", "drivers.csv:3: unknown kind \"lib\x1b\"");
        /* a NUL byte: named by its line */
        struct xpu_csv_line *l = NULL;
        char err[600] = "";
        size_t n = 0;
        static const char nul[] = "lib, /a\nlib, /b\0c\n";
        ck_assert_int_eq(xpu_csv_parse("l4t.csv", nul, sizeof nul - 1, &l, &n, 10, err, sizeof err), -EINVAL);
        ck_assert_str_eq(err, "l4t.csv:2: a NUL byte; a CSV file is text");
        free(l);
}
END_TEST

/* Bounds: line length, lines per file, entries of all files. */
START_TEST(test_parse_bounds) {
        char *text = malloc(XPU_CSV_LINE_MAX + 64);
        ck_assert_ptr_nonnull(text);
        memcpy(text, "lib, /", 6);
        memset(text + 6, 'a', XPU_CSV_LINE_MAX);
        memcpy(text + 6 + XPU_CSV_LINE_MAX, "\n", 2);
        bad(text, "drivers.csv:1: longer than 1024 bytes");
        free(text);

        size_t size = (XPU_CSV_LINES_MAX + 1) * 2 + 1;
        text = malloc(size);
        ck_assert_ptr_nonnull(text);
        for (size_t i = 0; i < XPU_CSV_LINES_MAX + 1; i++)
                memcpy(text + 2 * i, "#\n", 2);
        text[size - 1] = '\0';
        bad(text, "drivers.csv:4097: more than 4096 lines");
        free(text);

        struct xpu_csv_line *l = NULL;
        char err[600] = "";
        size_t n = 0;
        static const char three[] = "lib, /a\nlib, /b\nlib, /c\n";
        ck_assert_int_eq(xpu_csv_parse("a.csv", three, sizeof three - 1, &l, &n, 2, err, sizeof err), -EINVAL);
        ck_assert_str_eq(err, "a.csv:3: more than 2 lines in all the CSV files");
        ck_assert_uint_eq(n, 2);
        free(l);
}
END_TEST

START_TEST(test_base_files) {
        ck_assert(xpu_csv_is_base_file("devices.csv"));
        ck_assert(xpu_csv_is_base_file("drivers.csv"));
        ck_assert(xpu_csv_is_base_file("l4t.csv"));
        ck_assert(!xpu_csv_is_base_file("deepstream.csv"));
}
END_TEST

static struct xpu_host_list *host_list(const char *host, char *const *envp, char *err, size_t err_size, int want) {
        struct xpu_roots r;
        xpu_test_open_host(&r, host);
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        inv->platform = XPU_PLATFORM_TEGRA;
        struct xpu_host_list *l = NULL;
        ck_assert_int_eq(xpu_nvidia_csv_host_list(inv, r.driver_fd, r.dev_fd, envp, &l, err, err_size), want);
        xpu_inventory_free(inv);
        xpu_roots_close(&r);
        return l;
}

/* The entry of PATH in F; fails the test when there is none. */
static const struct xpu_host_file *listed(const struct xpu_host_files *f, const char *path) {
        for (size_t i = 0; i < f->n; i++)
                if (strcmp(f->files[i].path, path) == 0)
                        return &f->files[i];
        ck_abort_msg("%s is not listed", path);
        return &f->files[0];
}

/* The fixture hosts' lists: what exists is listed with its origin and kind; a sym line keeps the
 * link's text; dev lines are looked for in the dev root (the fixture's has no nodes). */
START_TEST(test_host_lists) {
        char err[600] = "";
        struct xpu_host_list *l = host_list("jetson-orin", NULL, err, sizeof err, 0);
        ck_assert_ptr_nonnull(l);
        ck_assert_uint_eq(l->files->n, 14);
        ck_assert_uint_eq(l->nodes->n, 0);
        const struct xpu_host_file *f = listed(l->files, "/usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(f->kind, XPU_HOST_FILE_SYMLINK);
        ck_assert_str_eq(f->resolved, "libcuda.so.1.1");
        ck_assert_str_eq(f->origin, "drivers.csv:10");
        f = listed(l->files, "/lib/firmware/tegra23x/nvhost_nvdec050_desc_prod.bin");
        ck_assert_int_eq(f->kind, XPU_HOST_FILE_REGULAR);
        ck_assert_str_eq(f->origin, "drivers.csv:14");
        ck_assert_uint_eq(l->n_notes, 0);
        xpu_host_list_free(l);

        l = host_list("jetson-xavier", NULL, err, sizeof err, 0);
        ck_assert_ptr_nonnull(l);
        f = listed(l->files, "/lib/firmware/tegra19x");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(f->kind, XPU_HOST_FILE_TREE);
        ck_assert_str_eq(f->origin, "l4t.csv:21");
        ck_assert_str_eq(listed(l->files, "/usr/lib/aarch64-linux-gnu/libcuda.so")->resolved, "tegra/libcuda.so");
        ck_assert_uint_eq(l->files->n, 7);
        xpu_host_list_free(l);

        /* a plain Linux host has no lists */
        struct xpu_roots r;
        xpu_test_open_host(&r, "jetson-orin");
        struct xpu_inventory *inv = xpu_inventory_new();
        struct xpu_host_list *none = (struct xpu_host_list *)1;
        ck_assert_int_eq(xpu_nvidia_csv_host_list(inv, r.driver_fd, r.dev_fd, NULL, &none, err, sizeof err), 0);
        ck_assert_ptr_null(none);
        xpu_inventory_free(inv);
        xpu_roots_close(&r);
}
END_TEST

/* A directory of hostile files: not a regular file, too large, too many files. */
START_TEST(test_host_list_hostile_files) {
        char *root = xpu_test_copy_host("jetson-xavier");
        char path[4096];
        snprintf(path, sizeof path, "%s%s/fifo.csv", root, XPU_CSV_HOST_DIR);
        ck_assert_int_eq(mkfifo(path, 0644), 0);
        struct xpu_roots r;
        const char *which = NULL;
        ck_assert_int_eq(xpu_roots_open(&r, root, root, root, &which), 0);
        struct xpu_inventory *inv = xpu_inventory_new();
        inv->platform = XPU_PLATFORM_TEGRA;
        struct xpu_host_list *l = NULL;
        char err[600] = "";
        char *all[] = { (char *)"NVIDIA_REQUIRE_JETPACK=csv-mounts=all", NULL };
        ck_assert_int_eq(xpu_nvidia_csv_host_list(inv, r.driver_fd, r.dev_fd, all, &l, err, sizeof err), -EINVAL);
        ck_assert_str_eq(err, XPU_CSV_HOST_DIR "/fifo.csv: not a regular file (a FIFO, a device, a socket or a "
                              "directory); the host lists are text files");
        /* without csv-mounts=all the FIFO is not read at all: a note says so */
        ck_assert_int_eq(xpu_nvidia_csv_host_list(inv, r.driver_fd, r.dev_fd, NULL, &l, err, sizeof err), 0);
        ck_assert_uint_eq(l->n_notes, 1);
        ck_assert_str_eq(l->notes[0], "fifo.csv not read: only devices.csv, drivers.csv and l4t.csv are unless the "
                                      "image sets NVIDIA_REQUIRE_JETPACK=csv-mounts=all");
        xpu_host_list_free(l);
        unlink(path);
        for (int i = 0; i <= XPU_CSV_FILES_MAX; i++) {
                char rel[128];
                snprintf(rel, sizeof rel, "%s/x%02d.csv", XPU_CSV_HOST_DIR + 1, i);
                xpu_test_write(root, rel, "");
        }
        /* only the files that will be read count: without csv-mounts=all those 65 are notes (16
         * named, the rest counted), with it too many */
        ck_assert_int_eq(xpu_nvidia_csv_host_list(inv, r.driver_fd, r.dev_fd, NULL, &l, err, sizeof err), 0);
        ck_assert_uint_eq(l->n_notes, 17);
        ck_assert_str_eq(l->notes[0], "x00.csv not read: only devices.csv, drivers.csv and l4t.csv are unless the "
                                      "image sets NVIDIA_REQUIRE_JETPACK=csv-mounts=all");
        ck_assert_str_eq(l->notes[16], "49 more *.csv file(s) not read either");
        l = xpu_host_list_free(l);
        ck_assert_int_eq(xpu_nvidia_csv_host_list(inv, r.driver_fd, r.dev_fd, all, &l, err, sizeof err), -EINVAL);
        ck_assert_str_eq(err, XPU_CSV_HOST_DIR ": more than 64 *.csv files to read; remove the ones the host does not "
                              "need");
        xpu_inventory_free(inv);
        xpu_roots_close(&r);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* The host list of ROOT (a copy of a fixture host) with ENVP: returns the hook's result. */
static int list_of(const char *root, char *const *envp, struct xpu_host_list **l, char *err, size_t err_size) {
        struct xpu_roots r;
        const char *which = NULL;
        ck_assert_int_eq(xpu_roots_open(&r, root, root, root, &which), 0);
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        inv->platform = XPU_PLATFORM_TEGRA;
        *l = NULL;
        int ret = xpu_nvidia_csv_host_list(inv, r.driver_fd, r.dev_fd, envp, l, err, err_size);
        xpu_inventory_free(inv);
        xpu_roots_close(&r);
        return ret;
}

/* Files that say which file: a NUL byte (file and line), a l4t.csv symlink leading nowhere inside
 * the driver root, a name with a control character (as read: the logger escapes it once). */
START_TEST(test_host_list_file_messages) {
        char *root = xpu_test_copy_host("jetson-xavier");
        char path[4096], err[768] = "";
        struct xpu_host_list *l = NULL;
        snprintf(path, sizeof path, "%s%s/l4t.csv", root, XPU_CSV_HOST_DIR);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(fwrite("lib, /x\nlib\0, /y\n", 1, 17, f), 17);
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_int_eq(list_of(root, NULL, &l, err, sizeof err), -EINVAL);
        ck_assert_str_eq(err, XPU_CSV_HOST_DIR "/l4t.csv:2: a NUL byte; a CSV file is text; fix or remove that line");
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(symlink("/etc/nowhere.csv", path), 0);
        ck_assert_int_eq(list_of(root, NULL, &l, err, sizeof err), -ENOENT);
        ck_assert_str_eq(err, XPU_CSV_HOST_DIR "/l4t.csv: a symlink to /etc/nowhere.csv, which does not exist inside "
                              "the driver root (links are followed there, as if it were /); point it at a file "
                              "inside the driver root or remove it");
        ck_assert_int_eq(unlink(path), 0);
        snprintf(path, sizeof path, "%s%s/x\ny.csv", root, XPU_CSV_HOST_DIR);
        xpu_test_write(root, path + strlen(root) + 1, "");
        char *all[] = { (char *)"NVIDIA_REQUIRE_JETPACK=csv-mounts=all", NULL };
        ck_assert_int_eq(list_of(root, all, &l, err, sizeof err), -EINVAL);
        ck_assert_str_eq(err, XPU_CSV_HOST_DIR ": the name of the *.csv file \"x\ny.csv\" holds unprintable "
                              "characters; rename it");
        /* not read without csv-mounts=all: counted, never printed */
        ck_assert_int_eq(list_of(root, NULL, &l, err, sizeof err), 0);
        ck_assert_uint_eq(l->n_notes, 1);
        ck_assert_str_eq(l->notes[0], "1 *.csv file(s) not read either");
        xpu_host_list_free(l);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* Many glob lines over a large directory: a repeated line is read once (one note per file), and
 * distinct lines stop at the budget with the line named; bounded time either way. */
START_TEST(test_host_list_many_globs) {
        char *root = xpu_test_copy_host("jetson-xavier");
        char rel[256];
        for (int i = 0; i < 3000; i++) {
                snprintf(rel, sizeof rel, "usr/lib/big/f%d", i);
                xpu_test_write(root, rel, "x");
        }
        size_t size = 4096 * 32 + 1;
        char *text = malloc(size), *p = text;
        ck_assert_ptr_nonnull(text);
        for (int i = 0; i < 4096; i++)
                p += snprintf(p, size - (size_t)(p - text), "lib, /usr/lib/big/f1*\n");
        snprintf(rel, sizeof rel, "%s/l4t.csv", XPU_CSV_HOST_DIR + 1);
        xpu_test_write(root, rel, text);
        struct xpu_host_list *l = NULL;
        char err[768] = "";
        ck_assert_int_eq(list_of(root, NULL, &l, err, sizeof err), 0);
        bool noted = false;
        for (size_t i = 0; i < l->n_notes; i++)
                noted |= strcmp(l->notes[i], "4095 more line(s) of l4t.csv name the same files as an earlier line; "
                                             "each is read once") == 0;
        ck_assert(noted);
        listed(l->files, "/usr/lib/big/f1");
        l = xpu_host_list_free(l);
        /* distinct patterns, each matched against the 3000 names: over the budget by line 349 */
        p = text;
        for (int i = 0; i < 4096; i++)
                p += snprintf(p, size - (size_t)(p - text), "lib, /usr/lib/big/z%d*\n", i);
        xpu_test_write(root, rel, text);
        ck_assert_int_eq(list_of(root, NULL, &l, err, sizeof err), -EINVAL);
        ck_assert_msg(strstr(err, "/l4t.csv:349: the lines up to this one visit more than 1048576 directory entries"),
                      "%s", err);
        free(text);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* A termination signal pending between lines (as xpuinit arms it): -EINTR, the signal left
 * pending. */
START_TEST(test_host_list_stop) {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGUSR1);
        ck_assert_int_eq(sigprocmask(SIG_BLOCK, &set, NULL), 0);
        xpu_isolate_set_interrupt(&set);
        ck_assert_int_eq(raise(SIGUSR1), 0);
        char err[768] = "";
        struct xpu_host_list *l = host_list("jetson-orin", NULL, err, sizeof err, -EINTR);
        ck_assert_ptr_null(l);
        ck_assert_str_eq(err, XPU_CSV_HOST_DIR ": reading stopped by SIGUSR1");
        ck_assert_int_eq(xpu_isolate_interrupted(), SIGUSR1);
        xpu_isolate_set_interrupt(NULL);
}
END_TEST

static Suite *csv_suite(void) {
        Suite *s = suite_create("nvidia-csv");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_parse_real_lines);
        tcase_add_test(tc, test_parse_hostile_lines);
        tcase_add_test(tc, test_parse_bounds);
        tcase_add_test(tc, test_base_files);
        tcase_add_test(tc, test_host_lists);
        tcase_add_test(tc, test_host_list_hostile_files);
        tcase_add_test(tc, test_host_list_file_messages);
        tcase_add_test(tc, test_host_list_many_globs);
        tcase_add_test(tc, test_host_list_stop);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(csv_suite());
}
