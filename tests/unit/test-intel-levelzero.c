/* SPDX-License-Identifier: Apache-2.0 */
/* Selection of Intel GPUs (entrypoint/select.c with probes/intel/intel-levelzero.c): Level Zero's
 * ZE_AFFINITY_MASK in the FLAT, COMBINED and COMPOSITE hierarchies, and the mask written for the
 * workload when XPU_VISIBLE_DEVICES decides. On the intel-max1550-x6-aurora fixture host: six
 * GPUs with two tiles each, in PCI bus order (vendor indices 0..5). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "select.h"
#include "testlib.h"

static char *host;
static struct xpu_inventory *inv;

/* Probe a copy of the host with its device nodes made; the nodes of the GPUs in GONE (card
 * numbers, -1 ends) removed: those GPUs were not given to the container. */
static void setup_host(const int *gone) {
        host = xpu_test_copy_host("intel-max1550-x6-aurora");
        xpu_test_make_devnodes(host);
        for (size_t i = 0; gone && gone[i] >= 0; i++) {
                char path[PATH_MAX];
                snprintf(path, sizeof path, "%s/dev/dri/card%d", host, gone[i]);
                ck_assert_int_eq(unlink(path), 0);
                snprintf(path, sizeof path, "%s/dev/dri/renderD%d", host, 128 + gone[i]);
                ck_assert_int_eq(unlink(path), 0);
        }
        struct xpu_roots r;
        const char *which = NULL;
        ck_assert_int_eq(xpu_roots_open(&r, host, host, host, &which), 0);
        ck_assert_int_eq(xpu_inventory_probe(&r, &inv), 0);
        xpu_roots_close(&r);
        ck_assert_uint_eq(xpu_inventory_count(inv, XPU_VENDOR_INTEL), 6);
}

static void setup(void) {
        unsetenv("ZE_FLAT_DEVICE_HIERARCHY");
        setup_host(NULL);
}


static void teardown(void) {
        xpu_inventory_free(inv);
        inv = NULL;
        xpu_test_rm_rf(host);
        free(host);
        unsetenv("ZE_FLAT_DEVICE_HIERARCHY");
}

/* The selection's Intel vendor indices ("1,2"), and its write-back in *MASK (NULL: none). */
static const char *pick(const char *xpu, const char *ze, const char **mask) {
        static char buf[64];
        static char mask_buf[256];
        struct xpu_selection *s = NULL;
        char err[512] = "";
        int r = xpu_selection_parse(inv, xpu, (const char *const[_XPU_VENDOR_MAX]){ [XPU_VENDOR_INTEL] = ze }, &s, err,
                                    sizeof err);
        ck_assert_msg(r == 0, "XPU_VISIBLE_DEVICES=%s ZE_AFFINITY_MASK=%s: %s", xpu ? xpu : "(unset)", ze ? ze : "(unset)",
                      err);
        buf[0] = '\0';
        for (size_t i = 0; i < s->n; i++)
                if (s->selected[i]) {
                        size_t len = strlen(buf);
                        snprintf(buf + len, sizeof buf - len, "%s%u", len ? "," : "", inv->devices[i].vendor_index);
                }
        if (mask) {
                *mask = NULL;
                if (s->workload_env[XPU_VENDOR_INTEL]) {
                        snprintf(mask_buf, sizeof mask_buf, "%s", s->workload_env[XPU_VENDOR_INTEL]);
                        *mask = mask_buf;
                }
        } else
                ck_assert_ptr_null(s->workload_env[XPU_VENDOR_INTEL]);
        ck_assert_str_eq(s->source[XPU_VENDOR_INTEL], xpu ? "XPU_VISIBLE_DEVICES" : ze ? "ZE_AFFINITY_MASK" : "default");
        xpu_selection_free(s);
        return buf;
}

static void pick_err(const char *ze, const char *want) {
        struct xpu_selection *s = NULL;
        char err[512] = "";
        ck_assert_int_eq(xpu_selection_parse(inv, NULL, (const char *const[_XPU_VENDOR_MAX]){ [XPU_VENDOR_INTEL] = ze },
                                             &s, err, sizeof err),
                         -EINVAL);
        ck_assert_ptr_null(s);
        ck_assert_str_eq(err, want);
}

/* FLAT (the default) and COMBINED: each tile is a device, numbered across the GPUs; a GPU one of
 * whose tiles is named is selected whole, and the mask reaches the workload unchanged. */
START_TEST(test_flat) {
        ck_assert_str_eq(pick(NULL, NULL, NULL), "0,1,2,3,4,5");
        ck_assert_str_eq(pick(NULL, "2,3", NULL), "1");
        ck_assert_str_eq(pick(NULL, "5", NULL), "2");
        ck_assert_str_eq(pick(NULL, " 0 , 11 ", NULL), "0,5");
        ck_assert_str_eq(pick(NULL, "", NULL), "0,1,2,3,4,5"); /* blank: Level Zero filters nothing */
        setenv("ZE_FLAT_DEVICE_HIERARCHY", "COMBINED", 1);
        ck_assert_str_eq(pick(NULL, "5", NULL), "2");
}
END_TEST

START_TEST(test_composite) {
        setenv("ZE_FLAT_DEVICE_HIERARCHY", "COMPOSITE", 1);
        ck_assert_str_eq(pick(NULL, "4.1,0", NULL), "0,4");
        ck_assert_str_eq(pick(NULL, "5", NULL), "5");
        ck_assert_str_eq(pick(NULL, ",1,,2,", NULL), "1,2"); /* empty entries name nothing */
        ck_assert_str_eq(pick(NULL, "default", NULL), "0,1,2,3,4,5"); /* the runtime's "no filter" */
}
END_TEST

/* Unset, the hierarchy is the compute runtime's default for the product: FLAT on Data Center GPU
 * Max (this host), COMPOSITE on others (an Arc B580: "0.0" is its one tile). */
START_TEST(test_default_hierarchy) {
        ck_assert_str_eq(pick(NULL, "1", NULL), "0"); /* FLAT: tile 1 of GPU 0 */
        teardown();
        inv = xpu_test_probe_copy("intel-arc-b580-xe", NULL, NULL, &host);
        ck_assert_str_eq(pick(NULL, "0.0", NULL), "0");
        pick_err("1", "ZE_AFFINITY_MASK=\"1\": no device 1: 1 Intel GPUs are given (COMPOSITE hierarchy: one device "
                      "per GPU)");
}
END_TEST

START_TEST(test_errors) {
        pick_err("12", "ZE_AFFINITY_MASK=\"12\": no device 12 in the FLAT hierarchy: the Intel GPUs given have 12 "
                       "tiles, devices 0 to 11");
        pick_err("0.1", "ZE_AFFINITY_MASK=\"0.1\": \"0.1\" names a sub-device, but in the FLAT hierarchy every tile "
                        "is a device of its own (use its number); set ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE for D.S");
        pick_err("1,x", "ZE_AFFINITY_MASK=\"1,x\": \"x\" is not a device (D) or a tile of one (D.S)");
        pick_err("-1", "ZE_AFFINITY_MASK=\"-1\": \"-1\" is not a device (D) or a tile of one (D.S)");
        setenv("ZE_FLAT_DEVICE_HIERARCHY", "COMPOSITE", 1);
        pick_err("0.2", "ZE_AFFINITY_MASK=\"0.2\": GPU 0 has no tile 2 (it has 2)");
        pick_err("6", "ZE_AFFINITY_MASK=\"6\": no device 6: 6 Intel GPUs are given (COMPOSITE hierarchy: one device "
                      "per GPU)");
        /* the runtime compares with strcmp: another spelling would be ignored, so it is refused */
        setenv("ZE_FLAT_DEVICE_HIERARCHY", "composite", 1);
        pick_err("0", "ZE_FLAT_DEVICE_HIERARCHY=\"composite\": Level Zero takes FLAT, COMPOSITE or COMBINED, spelled so "
                      "(it would ignore this value and use its default)");
        setenv("ZE_FLAT_DEVICE_HIERARCHY", "FLAT", 1);
        pick_err("123456", "ZE_AFFINITY_MASK=\"123456\": no device 123456 in the FLAT hierarchy: the Intel GPUs given "
                           "have 12 tiles, devices 0 to 11");
        char big[40000];
        memset(big, '1', sizeof big - 1);
        big[sizeof big - 1] = '\0';
        char err[512] = "";
        struct xpu_selection *sel = NULL;
        ck_assert_int_eq(xpu_selection_parse(inv, NULL, (const char *const[_XPU_VENDOR_MAX]){ [XPU_VENDOR_INTEL] = big },
                                             &sel, err, sizeof err),
                         -EINVAL);
        ck_assert_msg(strstr(err, "is not a device (D) or a tile of one (D.S)"), "the reason is cut off: %s", err);
}
END_TEST

/* XPU_VISIBLE_DEVICES decides: the workload gets the ZE_AFFINITY_MASK that says the same in Level
 * Zero's numbers (every tile in FLAT, the GPU in COMPOSITE); all given GPUs need none, and a mask
 * the image set is then removed (""). */
START_TEST(test_write_back) {
        const char *mask;
        ck_assert_str_eq(pick("intel:3", NULL, &mask), "3");
        ck_assert_str_eq(mask, "6,7");
        ck_assert_str_eq(pick("0001:42:00.0,intel:0", "9", &mask), "0,4");
        ck_assert_str_eq(mask, "0,1,8,9");
        ck_assert_str_eq(pick("all", NULL, &mask), "0,1,2,3,4,5");
        ck_assert_ptr_null(mask);
        ck_assert_str_eq(pick("all", "3", &mask), "0,1,2,3,4,5");
        ck_assert_str_eq(mask, "");
        setenv("ZE_FLAT_DEVICE_HIERARCHY", "COMPOSITE", 1);
        ck_assert_str_eq(pick("intel:3", NULL, &mask), "3");
        ck_assert_str_eq(mask, "3");
}
END_TEST

/* Level Zero in the container numbers only the GPUs it was given, and of those only the ones with
 * a render node: with card0 and card2 gone, FLAT device 0 is the second GPU's first tile, and
 * write-back counts the same way. */
START_TEST(test_given_numbering) {
        teardown();
        setup_host((const int[]){ 0, 2, -1 });
        ck_assert_str_eq(pick(NULL, "0", NULL), "1");
        ck_assert_str_eq(pick(NULL, "2,7", NULL), "3,5");
        pick_err("8", "ZE_AFFINITY_MASK=\"8\": no device 8 in the FLAT hierarchy: the Intel GPUs given have 8 tiles, "
                      "devices 0 to 7");
        const char *mask;
        ck_assert_str_eq(pick("intel:4", NULL, &mask), "4");
        ck_assert_str_eq(mask, "4,5");
        /* a GPU whose render node is gone (its card node is still given) is not Level Zero's */
        teardown();
        host = xpu_test_copy_host("intel-max1550-x6-aurora");
        xpu_test_make_devnodes(host);
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/sys/class/drm/card0/device/drm/renderD128", host);
        xpu_test_rm_rf(path);
        struct xpu_roots r;
        const char *which = NULL;
        ck_assert_int_eq(xpu_roots_open(&r, host, host, host, &which), 0);
        ck_assert_int_eq(xpu_inventory_probe(&r, &inv), 0);
        xpu_roots_close(&r);
        ck_assert_str_eq(pick(NULL, "0", NULL), "1");
        ck_assert_str_eq(pick("intel:1", NULL, &mask), "1");
        ck_assert_str_eq(mask, "0,1");
}
END_TEST

/* A GPU whose tile count is not known (more tile directories than any part has) stops a mask:
 * its numbers cannot be read. */
START_TEST(test_unknown_tiles) {
        teardown();
        host = xpu_test_copy_host("intel-arc-b580-xe");
        xpu_test_make_devnodes(host);
        for (int t = 0; t <= 16; t++) {
                char rel[96];
                snprintf(rel, sizeof rel, "sys/class/drm/card0/device/tile%d/id", t);
                xpu_test_write(host, rel, "0\n");
        }
        struct xpu_roots r;
        const char *which = NULL;
        ck_assert_int_eq(xpu_roots_open(&r, host, host, host, &which), 0);
        ck_assert_int_eq(xpu_inventory_probe(&r, &inv), 0);
        xpu_roots_close(&r);
        ck_assert(!(inv->devices[0].have & XPU_HAVE_TILES));
        ck_assert_uint_eq(inv->n_warnings, 1);
        ck_assert_ptr_nonnull(strstr(inv->warnings[0], "more than 16 tile directories; tile count left out"));
        pick_err("0", "ZE_AFFINITY_MASK: the tile count of Intel GPU 0 (0000:03:00.0) is not known (see xpuinit "
                      "probe's warnings), so Level Zero's numbers cannot be read; select with XPU_VISIBLE_DEVICES and "
                      "ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE");
}
END_TEST

static Suite *select_intel_suite(void) {
        Suite *s = suite_create("intel-levelzero");
        TCase *tc = tcase_create("levelzero");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_flat);
        tcase_add_test(tc, test_composite);
        tcase_add_test(tc, test_errors);
        tcase_add_test(tc, test_write_back);
        tcase_add_test(tc, test_given_numbering);
        tcase_add_test(tc, test_default_hierarchy);
        tcase_add_test(tc, test_unknown_tiles);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(select_intel_suite());
}
