/* SPDX-License-Identifier: Apache-2.0 */
/* Jetson's CSV host lists (probes/nvidia/nvidia-csv.c): the parser on real and hostile lines, its
 * bounds, and the host lists of the jetson-orin and jetson-xavier fixture hosts. How the plan
 * places them: test-plan-host-files.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvidia/nvidia-csv.h"
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
        bad("\n\nlib\x1b, /x\n", "drivers.csv:3: unknown kind \"lib\\x1b\"");
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
        ck_assert_str_eq(err, XPU_CSV_HOST_DIR "/fifo.csv: not a regular file of text (a FIFO, a device or a NUL "
                              "byte); the host lists are text files");
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
        ck_assert_int_eq(xpu_nvidia_csv_host_list(inv, r.driver_fd, r.dev_fd, NULL, &l, err, sizeof err), -EINVAL);
        ck_assert_str_eq(err, XPU_CSV_HOST_DIR ": more than 64 *.csv files; remove the ones the host does not need");
        xpu_inventory_free(inv);
        xpu_roots_close(&r);
        xpu_test_rm_rf(root);
        free(root);
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
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(csv_suite());
}
