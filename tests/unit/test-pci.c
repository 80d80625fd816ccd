/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base/pci.c: PCI bus ids in every spelling a source uses, compared as numbers. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "base/pci.h"
#include "base/str.h"
#include "testlib.h"

/* Every spelling a source uses becomes one canonical form: lower case, domain of 4 digits, or of
 * 8 when the number needs more than 4 (Hyper-V). */
static const struct {
        const char *in, *want;
} bus_id_spellings[] = {
        { "0000:1a:00.0", "0000:1a:00.0" },         /* procfs directory, sysfs link, Bus Location */
        { "00000000:1A:00.0", "0000:1a:00.0" },     /* nvidia-smi, NVML busId (8-digit domain) */
        { "0000:1A:00.0", "0000:1a:00.0" },         /* NVML busIdLegacy */
        { "0000:A3:00.0", "0000:a3:00.0" },         /* rocm-smi */
        { "1b:00.0", "0000:1b:00.0" },              /* no domain (user input) */
        { "3:0.0", "0000:03:00.0" },                /* short fields */
        { "0004:04:00.0\n", "0004:04:00.0" },       /* POWER9 domain, a line read from a file */
        { "  0000:ff:1f.7 ", "0000:ff:1f.7" },      /* largest bus, device, function */
        { "ffff:00:01.0", "ffff:00:01.0" },         /* widest 4-digit domain */
        { "10000:00:00.0", "00010000:00:00.0" },    /* first domain that needs more than 4 digits */
        { "1a2b3c:00:00.0", "001a2b3c:00:00.0" },   /* Hyper-V domain as the kernel spells it */
        { "001A2B3C:00:00.0", "001a2b3c:00:00.0" }, /* the same as NVML spells it */
        { "3f8cfdd:00:00.0", "03f8cfdd:00:00.0" },  /* Azure, kernel spelling (7 digits) */
        { "03F8CFDD:00:00.0", "03f8cfdd:00:00.0" }, /* Azure, nvidia-smi spelling */
        { "3E3F8E05:00:00.0", "3e3f8e05:00:00.0" }, /* 8 significant digits */
        { "00000001:83:00.0", "0001:83:00.0" },     /* 8-digit spelling of a small domain */
};

START_TEST(test_pci_bus_id_spellings) {
        char out[XPU_PCI_BUS_ID_MAX];
        const char *in = bus_id_spellings[_i].in;
        ck_assert_msg(xpu_pci_bus_id_normalize(in, out) == 0, "\"%s\" does not parse", in);
        ck_assert_str_eq(out, bus_id_spellings[_i].want);
        /* The canonical form reads back as the same numbers. */
        struct xpu_pci_bus_id a, b;
        ck_assert_int_eq(xpu_pci_bus_id_parse(in, &a), 0);
        ck_assert_int_eq(xpu_pci_bus_id_parse(out, &b), 0);
        ck_assert_int_eq(xpu_pci_bus_id_compare(&a, &b), 0);
        ck_assert(xpu_pci_bus_id_equal(in, out));
}
END_TEST

START_TEST(test_pci_bus_id) {
        char out[XPU_PCI_BUS_ID_MAX] = "untouched";
        struct xpu_pci_bus_id id = { 0 };
        ck_assert_int_eq(xpu_pci_bus_id_parse("001A2B3C:3b:1f.7", &id), 0);
        ck_assert_uint_eq(id.domain, 0x1a2b3c);
        ck_assert_uint_eq(id.bus, 0x3b);
        ck_assert_uint_eq(id.device, 0x1f);
        ck_assert_uint_eq(id.function, 7);
        xpu_pci_bus_id_format(&id, out);
        ck_assert_str_eq(out, "001a2b3c:3b:1f.7");
        id = (struct xpu_pci_bus_id){ .domain = UINT32_MAX, .bus = 0xff, .device = 0x1f, .function = 7 };
        xpu_pci_bus_id_format(&id, out);
        ck_assert_str_eq(out, "ffffffff:ff:1f.7");
        ck_assert_uint_lt(strlen(out), XPU_PCI_BUS_ID_MAX);

        /* Refused, and nothing written */
        static const char *const bad[] = { "0000:1a:00.8", "0000:1a:20.0", "123456789:1a:00.0", "0000:100:00.0",
                                           "GPU-1234", "", " ", "0000:1a:00", "0000:1a:00.", ":1a:00.0",
                                           "0000::00.0", "0x00:1a:00.0", "0000:1a:00.0.0", "00 00:1a:00.0" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                xpu_strlcpy(out, "untouched", sizeof out);
                ck_assert_msg(xpu_pci_bus_id_normalize(bad[i], out) == -EINVAL, "\"%s\" accepted", bad[i]);
                ck_assert_str_eq(out, "untouched");
        }
        ck_assert_int_eq(xpu_pci_bus_id_parse(NULL, &id), -EINVAL);

        /* Compared as numbers, not as text: 0xffff < 0x10000 < 0x3f8cfdd < 0x3e3f8e05, although
         * "3f8cfdd" > "3e3f8e05" and "ffff" > "10000" as strings. */
        static const char *const order[] = { "0000:07:00.0", "0000:41:00.0", "ffff:00:01.0", "10000:00:00.0",
                                             "3f8cfdd:00:00.0", "3E3F8E05:00:00.0" };
        for (size_t i = 0; i + 1 < ELEMENTSOF(order); i++) {
                struct xpu_pci_bus_id lo, hi;
                ck_assert_int_eq(xpu_pci_bus_id_parse(order[i], &lo), 0);
                ck_assert_int_eq(xpu_pci_bus_id_parse(order[i + 1], &hi), 0);
                ck_assert_int_lt(xpu_pci_bus_id_compare(&lo, &hi), 0);
                ck_assert_int_gt(xpu_pci_bus_id_compare(&hi, &lo), 0);
                ck_assert(!xpu_pci_bus_id_equal(order[i], order[i + 1]));
        }
        ck_assert(xpu_pci_bus_id_equal("0000:1a:00.1", "00000000:1A:00.1"));
        ck_assert(!xpu_pci_bus_id_equal("0000:1a:00.1", "0000:1a:00.0"));
        ck_assert(!xpu_pci_bus_id_equal("", ""));
        ck_assert(!xpu_pci_bus_id_equal("nonsense", "nonsense"));
        ck_assert(!xpu_pci_bus_id_equal(NULL, "0000:1a:00.0"));

        /* sysfs paths use the kernel's spelling (%04x domain), not the canonical one */
        char path[64];
        ck_assert_int_eq(xpu_pci_sysfs_path("001A2B3C:00:00.0", "numa_node", path, sizeof path), 0);
        ck_assert_str_eq(path, "/sys/bus/pci/devices/1a2b3c:00:00.0/numa_node");
        ck_assert_int_eq(xpu_pci_sysfs_path("00000000:3B:00.0", NULL, path, sizeof path), 0);
        ck_assert_str_eq(path, "/sys/bus/pci/devices/0000:3b:00.0");
        ck_assert_int_eq(xpu_pci_sysfs_path("3e3f8e05:00:00.0", "device", path, sizeof path), 0);
        ck_assert_str_eq(path, "/sys/bus/pci/devices/3e3f8e05:00:00.0/device");
        ck_assert_int_eq(xpu_pci_sysfs_path("bad", NULL, path, sizeof path), -EINVAL);
        ck_assert_int_eq(xpu_pci_sysfs_path("0000:3b:00.0", "numa_node", path, 20), -ENAMETOOLONG);
}
END_TEST

static Suite *pci_suite(void) {
        Suite *s = suite_create("pci");
        TCase *tc = tcase_create("bus-id");
        tcase_add_loop_test(tc, test_pci_bus_id_spellings, 0, (int)ELEMENTSOF(bus_id_spellings));
        tcase_add_test(tc, test_pci_bus_id);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(pci_suite());
}
