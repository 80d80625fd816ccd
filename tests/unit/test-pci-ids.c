/* SPDX-License-Identifier: Apache-2.0 */
/* probes/pci-ids.c: device names from a pci.ids database below a root. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/path.h"
#include "pci-ids.h"
#include "testlib.h"

static const char db[] =
        "#\n#\tList of PCI ID's\n#\n\n"
        "0001  SafeNet (wrong ID)\n"
        "10de  NVIDIA Corporation\n"
        "\t2204  GA102 [GeForce RTX 3090]\n"
        "1002  Advanced Micro Devices, Inc. [AMD/ATI]\n"
        "# a comment inside the block\n"
        "\t6860  Vega 10 [Instinct MI25/MI25x2/V340/V320]\n"
        "\t\t1002 0c35  Radeon Instinct MI25\n"
        "\t738c  Arcturus GL-XL [Instinct MI100]\r\n"
        "\t740f  Aldebaran/MI200 [Instinct MI210]\n"
        "\t7410  Bad \033[2J name\n"
        "\t7411  Radeon\xe2\x84\xa2 Pro W7900\n"
        "1003  ULSI Systems\n"
        "\t7412  Not AMD's\n"
        "C 00  Unclassified device\n"
        "\t00  Non-VGA unclassified device\n";

static int name_of(int root, uint16_t v, uint16_t d, char *out, size_t size) {
        return xpu_pci_ids_name(root, "usr/share/misc/pci.ids", v, d, out, size);
}

START_TEST(test_lookup) {
        _cleanup_free_ char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "usr/share/misc/pci.ids", db);
        int root = xpu_open_root(t);
        ck_assert_int_ge(root, 0);
        char n[128];
        ck_assert_int_eq(name_of(root, 0x1002, 0x740f, n, sizeof n), 1);
        ck_assert_str_eq(n, "Aldebaran/MI200 [Instinct MI210]");
        ck_assert_int_eq(name_of(root, 0x1002, 0x738c, n, sizeof n), 1); /* CRLF line */
        ck_assert_str_eq(n, "Arcturus GL-XL [Instinct MI100]");
        ck_assert_int_eq(name_of(root, 0x10de, 0x2204, n, sizeof n), 1);
        ck_assert_str_eq(n, "GA102 [GeForce RTX 3090]");
        ck_assert_int_eq(name_of(root, 0x1002, 0x7411, n, sizeof n), 1); /* UTF-8 kept */
        ck_assert_str_eq(n, "Radeon\xe2\x84\xa2 Pro W7900");
        /* a subsystem line is not a device; another vendor's device is not ours */
        ck_assert_int_eq(name_of(root, 0x1002, 0x0c35, n, sizeof n), 0);
        ck_assert_int_eq(name_of(root, 0x1002, 0x7412, n, sizeof n), 0);
        ck_assert_int_eq(name_of(root, 0x1003, 0x7412, n, sizeof n), 1);
        /* a control byte in the name: not taken */
        ck_assert_int_eq(name_of(root, 0x1002, 0x7410, n, sizeof n), 0);
        /* does not fit */
        ck_assert_int_eq(name_of(root, 0x1002, 0x740f, n, 8), 0);
        /* no such vendor, no such file, not a regular file */
        ck_assert_int_eq(name_of(root, 0xabcd, 0x0001, n, sizeof n), 0);
        ck_assert_int_eq(xpu_pci_ids_name(root, "usr/share/hwdata/pci.ids", 1, 1, n, sizeof n), -ENOENT);
        char fifo[4200];
        snprintf(fifo, sizeof fifo, "%s/fifo.ids", t);
        ck_assert_int_eq(mkfifo(fifo, 0600), 0);
        ck_assert_int_eq(xpu_pci_ids_name(root, "fifo.ids", 1, 1, n, sizeof n), -EINVAL);
        close(root);
        xpu_test_rm_rf(t);
}
END_TEST

/* An overlong line is skipped whole; a last line without a newline still counts. */
START_TEST(test_odd_lines) {
        _cleanup_free_ char *t = xpu_test_mkdtemp();
        size_t big = 5000;
        char *text = malloc(big + 200);
        ck_assert_ptr_nonnull(text);
        size_t len = (size_t)snprintf(text, big + 200, "1002  AMD\n\t740f  ");
        memset(text + len, 'x', big);
        snprintf(text + len + big, 200 - len, "\n\t738c  Arcturus GL-XL [Instinct MI100]");
        xpu_test_write(t, "usr/share/misc/pci.ids", text);
        free(text);
        int root = xpu_open_root(t);
        char n[128];
        ck_assert_int_eq(name_of(root, 0x1002, 0x740f, n, sizeof n), 0);
        ck_assert_int_eq(name_of(root, 0x1002, 0x738c, n, sizeof n), 1);
        ck_assert_str_eq(n, "Arcturus GL-XL [Instinct MI100]");
        close(root);
        xpu_test_rm_rf(t);
}
END_TEST

/* The inventory step: only devices without a name, the first database found, the source marked. */
START_TEST(test_inventory) {
        _cleanup_free_ char *t = xpu_test_mkdtemp();
        int root = xpu_open_root(t);
        struct xpu_inventory *inv = xpu_test_probe_host("amd-mi100x4");
        ck_assert_uint_eq(inv->n_devices, 4);
        ck_assert_int_eq(xpu_inventory_name_from_pci_ids(inv, root), 0); /* no database: nothing */
        ck_assert_str_eq(inv->devices[0].name, "");
        xpu_test_write(t, "usr/share/hwdata/pci.ids", db);
        snprintf(inv->devices[1].name, sizeof inv->devices[1].name, "From product_name");
        ck_assert_int_eq(xpu_inventory_name_from_pci_ids(inv, root), 3);
        ck_assert_str_eq(inv->devices[0].name, "Arcturus GL-XL [Instinct MI100]");
        ck_assert(inv->devices[0].name_from_pci_ids);
        ck_assert_str_eq(inv->devices[1].name, "From product_name");
        ck_assert(!inv->devices[1].name_from_pci_ids);
        ck_assert_str_eq(inv->devices[3].name, "Arcturus GL-XL [Instinct MI100]");
        xpu_inventory_free(inv);
        close(root);
        xpu_test_rm_rf(t);
}
END_TEST

static Suite *pci_ids_suite(void) {
        Suite *s = suite_create("pci-ids");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_lookup);
        tcase_add_test(tc, test_odd_lines);
        tcase_add_test(tc, test_inventory);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(pci_ids_suite());
}
