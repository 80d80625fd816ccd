/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/device-index.c: stable xpud indices across samples. A device keeps its index when
 * others disappear or the probe order changes, gets it back when it returns, a new device gets
 * the next index never given, a UUID learned later does not change the index, AMD partitions
 * (one UUID and bus id) keep theirs, a UUID wins over a bus id. The sampler end to end, on a
 * fixture host, is in test-xpud-sampler.c (test_stable_index). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "device-index.h"
#include "health.h"
#include "testlib.h"

/* An AMD device with probe index INDEX, UUID "GPU-<UUID>" ("" for none) and bus 0000:BUS:00.0. */
static struct xpu_device dev(unsigned index, const char *uuid, unsigned bus) {
        struct xpu_device d = { .index = index, .vendor = XPU_VENDOR_AMD, .vendor_index = index };
        if (uuid[0])
                snprintf(d.uuid, sizeof d.uuid, "GPU-%s", uuid);
        if (bus)
                snprintf(d.pci_bus_id, sizeof d.pci_bus_id, "0000:%02x:00.0", bus);
        return d;
}

/* Assign and check: the devices' indices afterwards are WANT (N of them). */
static void assign(struct xpud_index_map *m, struct xpu_device *d, size_t n, const unsigned *want) {
        ck_assert_int_eq(xpud_index_map_assign(m, d, n), 0);
        for (size_t i = 0; i < n; i++)
                ck_assert_msg(d[i].index == want[i], "device %zu (%s %s): index %u, want %u", i, d[i].uuid,
                              d[i].pci_bus_id, d[i].index, want[i]);
}

START_TEST(test_lost_and_reordered) {
        struct xpud_index_map m = {};
        /* First sample: the probes' numbering. */
        struct xpu_device s1[] = { dev(0, "a", 0x0c), dev(1, "b", 0x1c), dev(2, "c", 0x2c), dev(3, "d", 0x3c) };
        assign(&m, s1, 4, (const unsigned[]){ 0, 1, 2, 3 });
        /* "a" is gone: the probes number the rest 0, 1, 2; they keep 1, 2, 3. */
        struct xpu_device s2[] = { dev(0, "b", 0x1c), dev(1, "c", 0x2c), dev(2, "d", 0x3c) };
        assign(&m, s2, 3, (const unsigned[]){ 1, 2, 3 });
        /* The KFD order changes (d, b, c) and "a" is back, last: every one keeps its own. */
        struct xpu_device s3[] = { dev(0, "d", 0x3c), dev(1, "b", 0x1c), dev(2, "c", 0x2c), dev(3, "a", 0x0c) };
        assign(&m, s3, 4, (const unsigned[]){ 3, 1, 2, 0 });
        /* "b" is gone and a new "e" appears: the next index never given (4), not b's 1. */
        struct xpu_device s4[] = { dev(0, "a", 0x0c), dev(1, "e", 0x4c), dev(2, "c", 0x2c), dev(3, "d", 0x3c) };
        assign(&m, s4, 4, (const unsigned[]){ 0, 4, 2, 3 });
        /* Two new ones at once, numbered in the probes' order (f before g, whatever the array order). */
        struct xpu_device s5[] = { dev(1, "g", 0x6c), dev(0, "f", 0x5c), dev(2, "b", 0x1c) };
        assign(&m, s5, 3, (const unsigned[]){ 6, 5, 1 });
        ck_assert_uint_eq(m.n, 7);
        ck_assert_uint_eq(m.next, 7);
        /* A UUID in another case is the same device. */
        struct xpu_device s6[] = { dev(0, "C", 0x2c) };
        assign(&m, s6, 1, (const unsigned[]){ 2 });
        ck_assert_int_eq(xpud_index_map_assign(&m, NULL, 0), 0);
        xpud_index_map_done(&m);
        ck_assert_ptr_null(m.entries);
        ck_assert_uint_eq(m.n, 0);
}
END_TEST

START_TEST(test_identity) {
        struct xpud_index_map m = {};
        /* No UUID yet (NVML not read): matched by bus id, and the UUID learned later keeps it. */
        struct xpu_device s1[] = { dev(0, "", 0x1a), dev(1, "", 0x1b) };
        s1[0].vendor = s1[1].vendor = XPU_VENDOR_NVIDIA;
        assign(&m, s1, 2, (const unsigned[]){ 0, 1 });
        struct xpu_device s2[] = { dev(0, "x", 0x1a), dev(1, "y", 0x1b) };
        s2[0].vendor = s2[1].vendor = XPU_VENDOR_NVIDIA;
        assign(&m, s2, 2, (const unsigned[]){ 0, 1 });
        /* Now known by UUID: a GPU swapped into bus 1a with another UUID is another device. */
        struct xpu_device s3[] = { dev(0, "z", 0x1a), dev(1, "y", 0x1b) };
        s3[0].vendor = s3[1].vendor = XPU_VENDOR_NVIDIA;
        assign(&m, s3, 2, (const unsigned[]){ 2, 1 });
        /* Another vendor at the same bus id and UUID is not the same device. */
        struct xpu_device s4[] = { dev(0, "y", 0x1b) };
        assign(&m, s4, 1, (const unsigned[]){ 3 });
        xpud_index_map_done(&m);

        /* A UUID match wins over a bus id match: entry 0 has no UUID at bus 1a, entry 1 has
         * UUID u at bus 2a; a device "u" now at bus 1a is entry 1's. */
        struct xpu_device t1[] = { dev(0, "", 0x1a), dev(1, "u", 0x2a) };
        assign(&m, t1, 2, (const unsigned[]){ 0, 1 });
        struct xpu_device t2[] = { dev(0, "u", 0x1a) };
        assign(&m, t2, 1, (const unsigned[]){ 1 });
        xpud_index_map_done(&m);

        /* Partitions of one AMD GPU share UUID and bus id: the partition number keeps them apart,
         * also when the KFD lists them in another order. */
        struct xpu_device p1[] = { dev(0, "p", 0x0c), dev(1, "p", 0x0c), dev(2, "p", 0x0c) };
        for (unsigned i = 0; i < 3; i++) {
                p1[i].have |= XPU_HAVE_PARTITION;
                p1[i].partition = i;
        }
        assign(&m, p1, 3, (const unsigned[]){ 0, 1, 2 });
        struct xpu_device p2[] = { p1[2], p1[0], p1[1] };
        p2[0].index = 0, p2[1].index = 1, p2[2].index = 2;
        assign(&m, p2, 3, (const unsigned[]){ 2, 0, 1 });
        xpud_index_map_done(&m);

        /* Neither UUID nor bus id (no probe lists one today): the vendor ordinal. */
        struct xpu_device n1[] = { dev(0, "", 0), dev(1, "", 0) };
        assign(&m, n1, 2, (const unsigned[]){ 0, 1 });
        struct xpu_device n2[] = { dev(1, "", 0) };
        n2[0].index = 0;
        assign(&m, n2, 1, (const unsigned[]){ 1 });
        xpud_index_map_done(&m);
}
END_TEST

/* WSL2's entries (one per vendor's driver store: no UUID, no bus id, source wsl) are one device
 * across samples by vendor and vendor ordinal, in the index map and for health (never "lost"). */
START_TEST(test_wsl_entries) {
        struct xpud_index_map m = {};
        struct xpu_device nv = { .index = 0, .vendor = XPU_VENDOR_NVIDIA, .source = XPU_SOURCE_WSL };
        struct xpu_device in = { .index = 1, .vendor = XPU_VENDOR_INTEL, .source = XPU_SOURCE_WSL };
        struct xpu_device s1[] = { nv, in };
        assign(&m, s1, 2, (const unsigned[]){ 0, 1 });
        struct xpu_device s2[] = { in };
        s2[0].index = 0;
        assign(&m, s2, 1, (const unsigned[]){ 1 });
        ck_assert(xpud_device_same(&nv, &nv));
        ck_assert(!xpud_device_same(&nv, &in));
        struct xpu_device other = nv;
        other.vendor_index = 1;
        ck_assert(!xpud_device_same(&nv, &other));
        xpud_index_map_done(&m);
}
END_TEST

static Suite *index_suite(void) {
        Suite *s = suite_create("xpud-device-index");
        TCase *tc = tcase_create("index");
        tcase_add_test(tc, test_lost_and_reordered);
        tcase_add_test(tc, test_identity);
        tcase_add_test(tc, test_wsl_entries);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(index_suite());
}
