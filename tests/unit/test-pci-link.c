/* SPDX-License-Identifier: Apache-2.0 */
/* probes/pci-link.c: the PCIe link speed strings of both kernel spellings (pci_speed_string() of
 * Linux 4.19+, "16.0 GT/s PCIe"; PCIE_SPEED2STR before, "8 GT/s"), and the reader on hand-made
 * PCI function directories: a whole link, a narrower one, a function without the files, and odd
 * files (each pair left out with one warning naming the file). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pci-link.h"
#include "testlib.h"

START_TEST(test_parse_speed) {
        static const struct {
                const char *text;
                uint64_t tps;
        } good[] = {
                { "2.5 GT/s PCIe", 2500000000ull },   { "5.0 GT/s PCIe", 5000000000ull },
                { "8.0 GT/s PCIe", 8000000000ull },   { "16.0 GT/s PCIe", 16000000000ull },
                { "32.0 GT/s PCIe", 32000000000ull }, { "64.0 GT/s PCIe", 64000000000ull },
                { "2.5 GT/s", 2500000000ull },        { "5 GT/s", 5000000000ull },
                { "8 GT/s", 8000000000ull },          { "16 GT/s", 16000000000ull },
        };
        for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
                uint64_t v = 0;
                ck_assert_msg(xpu_pcie_parse_link_speed(good[i].text, &v) == 0, "refused \"%s\"", good[i].text);
                ck_assert_uint_eq(v, good[i].tps);
        }
        uint64_t v = 7;
        ck_assert_int_eq(xpu_pcie_parse_link_speed("Unknown", &v), -ENODATA);
        ck_assert_int_eq(xpu_pcie_parse_link_speed("Unknown speed", &v), -ENODATA);
        static const char *const bad[] = {
                "",          "GT/s",          "16.0",          "16.0 GT/s PCIe ", "16.0 GT/s PCIe x", "16.00 GT/s",
                "16. GT/s",  "-16 GT/s",      "0 GT/s",        "0.0 GT/s PCIe",   "1001 GT/s",        "99999999 GT/s",
                "16.0 GB/s", "16.0  GT/s",    " 16.0 GT/s",    "unknown",         "16,0 GT/s",        "1e3 GT/s",
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                v = 7;
                ck_assert_msg(xpu_pcie_parse_link_speed(bad[i], &v) == -EINVAL, "accepted \"%s\"", bad[i]);
                ck_assert_uint_eq(v, 7);
        }
        ck_assert_int_eq(xpu_pcie_parse_link_speed(NULL, &v), -EINVAL);
}
END_TEST

/* A sys root with the PCI function BUS's link files (NULL: no such file). */
static char *sys_with_link(const char *bus, const char *cw, const char *mw, const char *cs, const char *ms) {
        char *root = xpu_test_mkdtemp();
        const char *names[] = { "current_link_width", "max_link_width", "current_link_speed", "max_link_speed" };
        const char *values[] = { cw, mw, cs, ms };
        char rel[256], text[128];
        snprintf(rel, sizeof rel, "sys/bus/pci/devices/%s/.keep", bus);
        xpu_test_write(root, rel, "");
        for (size_t i = 0; i < 4; i++) {
                if (!values[i])
                        continue;
                snprintf(rel, sizeof rel, "sys/bus/pci/devices/%s/%s", bus, names[i]);
                snprintf(text, sizeof text, "%s\n", values[i]);
                xpu_test_write(root, rel, text);
        }
        return root;
}

/* Read BUS's link below ROOT into *R (cleared first), with a fresh inventory for the warnings. */
static struct xpu_inventory *read_link(const char *root, const char *bus, struct xpu_readings *r) {
        int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        *r = (struct xpu_readings){ .have = XPU_READ_POWER, .power_watts = 42 };
        ck_assert_int_eq(xpu_pcie_link_read(fd, bus, inv, r), 0);
        close(fd);
        /* The rest of R is left alone. */
        ck_assert_uint_eq(r->have & XPU_READ_POWER, XPU_READ_POWER);
        ck_assert_double_eq(r->power_watts, 42);
        return inv;
}

static void rm_rf(char *root) {
        xpu_test_rm_rf(root);
        free(root);
}

START_TEST(test_read_whole_link) {
        char *root = sys_with_link("0000:3b:00.0", "16", "16", "2.5 GT/s PCIe", "32.0 GT/s PCIe");
        struct xpu_readings r;
        struct xpu_inventory *inv = read_link(root, "0000:3b:00.0", &r);
        ck_assert_uint_eq(inv->n_warnings, 0);
        ck_assert_uint_eq(r.have, XPU_READ_POWER | XPU_READ_PCIE_WIDTH | XPU_READ_PCIE_SPEED);
        ck_assert_uint_eq(r.pcie_link_width[XPU_LINK_CURRENT], 16);
        ck_assert_uint_eq(r.pcie_link_width[XPU_LINK_MAX], 16);
        ck_assert_uint_eq(r.pcie_link_speed[XPU_LINK_CURRENT], 2500000000ull); /* idle: lowered */
        ck_assert_uint_eq(r.pcie_link_speed[XPU_LINK_MAX], 32000000000ull);
        xpu_inventory_free(inv);
        /* Another function's files are not this one's. */
        inv = read_link(root, "0000:3c:00.0", &r);
        ck_assert_uint_eq(inv->n_warnings, 0);
        ck_assert_uint_eq(r.have, XPU_READ_POWER);
        xpu_inventory_free(inv);
        rm_rf(root);
}
END_TEST

START_TEST(test_read_narrow_and_partial) {
        /* A x16 GPU trained at x8, on an old kernel's spelling. */
        char *root = sys_with_link("0000:05:00.0", "8", "16", "8 GT/s", "8 GT/s");
        struct xpu_readings r;
        struct xpu_inventory *inv = read_link(root, "0000:05:00.0", &r);
        ck_assert_uint_eq(inv->n_warnings, 0);
        ck_assert_uint_eq(r.pcie_link_width[XPU_LINK_CURRENT], 8);
        ck_assert_uint_eq(r.pcie_link_width[XPU_LINK_MAX], 16);
        ck_assert_uint_eq(r.pcie_link_speed[XPU_LINK_MAX], 8000000000ull);
        xpu_inventory_free(inv);
        rm_rf(root);
        /* Only the widths: the speeds stay out quietly, and the other way round. */
        root = sys_with_link("0000:05:00.0", "4", "4", NULL, NULL);
        inv = read_link(root, "0000:05:00.0", &r);
        ck_assert_uint_eq(inv->n_warnings, 0);
        ck_assert_uint_eq(r.have, XPU_READ_POWER | XPU_READ_PCIE_WIDTH);
        xpu_inventory_free(inv);
        rm_rf(root);
        root = sys_with_link("0000:05:00.0", "4", NULL, "Unknown", "16.0 GT/s PCIe");
        inv = read_link(root, "0000:05:00.0", &r);
        ck_assert_uint_eq(inv->n_warnings, 0); /* "Unknown" is the kernel's word, not an odd file */
        ck_assert_uint_eq(r.have, XPU_READ_POWER);
        xpu_inventory_free(inv);
        rm_rf(root);
        /* A maximum of 0 lanes: no link capability, nothing said. */
        root = sys_with_link("0000:05:00.0", "0", "0", NULL, NULL);
        inv = read_link(root, "0000:05:00.0", &r);
        ck_assert_uint_eq(r.have, XPU_READ_POWER);
        xpu_inventory_free(inv);
        rm_rf(root);
        /* No bus id: nothing read. */
        root = xpu_test_mkdtemp();
        inv = read_link(root, "", &r);
        ck_assert_uint_eq(r.have, XPU_READ_POWER);
        ck_assert_uint_eq(inv->n_warnings, 0);
        xpu_inventory_free(inv);
        rm_rf(root);
}
END_TEST

START_TEST(test_read_odd_files) {
        static const struct {
                const char *cw, *mw, *cs, *ms, *file, *warning;
                uint32_t have;
        } cases[] = {
                { "x16", "16", "16.0 GT/s PCIe", "16.0 GT/s PCIe", "current_link_width",
                  "/sys/bus/pci/devices/0000:05:00.0/current_link_width: \"x16\" is not a lane count (0 to 32); the "
                  "link's width left out",
                  XPU_READ_PCIE_SPEED },
                { "16", "255", "16.0 GT/s PCIe", "16.0 GT/s PCIe", "max_link_width",
                  "/sys/bus/pci/devices/0000:05:00.0/max_link_width: \"255\" is not a lane count (0 to 32); the "
                  "link's width left out",
                  XPU_READ_PCIE_SPEED },
                { "16", "16", "16.0 GT/s PCIe", "fast", "max_link_speed",
                  "/sys/bus/pci/devices/0000:05:00.0/max_link_speed: \"fast\" is not a link speed (\"16.0 GT/s "
                  "PCIe\"); the link's speed left out",
                  XPU_READ_PCIE_WIDTH },
                { "16", "16", "16.0 GT/s \x1b[31m", "16.0 GT/s PCIe", "current_link_speed",
                  "/sys/bus/pci/devices/0000:05:00.0/current_link_speed: not printable text; left out",
                  XPU_READ_PCIE_WIDTH },
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                char *root = sys_with_link("0000:05:00.0", cases[i].cw, cases[i].mw, cases[i].cs, cases[i].ms);
                struct xpu_readings r;
                struct xpu_inventory *inv = read_link(root, "0000:05:00.0", &r);
                ck_assert_uint_eq(r.have, XPU_READ_POWER | cases[i].have);
                ck_assert_uint_eq(inv->n_warnings, 1);
                ck_assert_str_eq(inv->warnings[0], cases[i].warning);
                xpu_inventory_free(inv);
                rm_rf(root);
        }
        /* A directory where a file should be: unreadable, warned. */
        char *root = sys_with_link("0000:05:00.0", "16", NULL, NULL, NULL);
        char path[600];
        snprintf(path, sizeof path, "%s/sys/bus/pci/devices/0000:05:00.0/max_link_width", root);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        struct xpu_readings r;
        struct xpu_inventory *inv = read_link(root, "0000:05:00.0", &r);
        ck_assert_uint_eq(r.have, XPU_READ_POWER);
        ck_assert_uint_eq(inv->n_warnings, 1);
        ck_assert_msg(strstr(inv->warnings[0], "max_link_width: ") && strstr(inv->warnings[0], "; left out"), "%s",
                      inv->warnings[0]);
        xpu_inventory_free(inv);
        rm_rf(root);
}
END_TEST

static Suite *pci_link_suite(void) {
        Suite *s = suite_create("pci-link");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_parse_speed);
        tcase_add_test(tc, test_read_whole_link);
        tcase_add_test(tc, test_read_narrow_and_partial);
        tcase_add_test(tc, test_read_odd_files);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(pci_link_suite());
}
