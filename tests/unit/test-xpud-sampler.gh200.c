/* SPDX-License-Identifier: Apache-2.0 */
/* xpud on a Grace Hopper host: the nvidia-gh200 fixture (one GH200 at 0009:01:00.0, its memory on
 * NUMA node 1) with the fake NVML answering nvmlDeviceGetNumaNodeId, nvmlDeviceGetAddressingMode
 * and nvmlDeviceGetC2cModeInfoV. The snapshot, /v1/devices, /v1/devices/{key} and the labels of
 * xpu_info carry memory_numa_node, memory_coherent and addressing_mode; without NVML's answers
 * the sysfs pairing still gives the node; NVML's hostile values are left out. Needs root (the
 * helper's PID namespace and ids), as test-xpud-sampler.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "render-json.h"
#include "sampler.h"
#include "server.h"
#include "shim-root.h"
#include "xpud-sampler-fx.h"

#define DRIVER "570.124.06"
#define UUID "GPU-7c1e2d3a-9b4f-4e21-a6d8-3f5b0c9e7a12"
#define LABELS "vendor=\"nvidia\",gpu=\"0\",uuid=\"" UUID "\",pci_bus_id=\"0009:01:00.0\""

/* The fixture copied, the fake NVML installed as its libnvidia-ml with EXTRA state lines. */
static void gh200_fixture(struct fixture *f, const char *extra) {
        char state[1024];
        f->root = xpu_test_copy_host("nvidia-gh200");
        ck_assert_int_eq(chmod(f->root, 0755), 0);
        f->calls[0] = '\0';
        snprintf(state, sizeof state,
                 "driver_version " DRIVER "\n"
                 "device_count 1\n"
                 "device.0.name NVIDIA GH200 480GB\n"
                 "device.0.uuid " UUID "\n"
                 "device.0.bus_id 00000009:01:00.0\n"
                 "device.0.memory_total 102625181696\n"
                 "device.0.cc 9.0\n"
                 "%s",
                 extra);
        shim_write_state(f->root, state);
        shim_install(f->root, "libnvidia-ml.so.shim", "libnvidia-ml.so", DRIVER);
}

START_TEST(test_gh200_nvml) {
        struct fixture f;
        gh200_fixture(&f, "device.0.numa_node 1\ndevice.0.addressing_mode 2\ndevice.0.c2c_mode 1\n");
        sampler_new(&f, 10, 5, NULL);
        struct xpud_snapshot *s = sample(&f);
        ck_assert_uint_eq(s->n_devices, 1);
        ck_assert_msg(s->backends[0].up, "%s", s->backends[0].error);
        const struct xpu_device *d = &s->devices[0].dev;
        ck_assert_str_eq(xpu_nvidia_facts(d)->compute_capability, "9.0"); /* NVML was merged */
        ck_assert_uint_eq(xpu_nvidia_facts(d)->memory_numa_node, 1);
        ck_assert_str_eq(xpu_nvidia_facts(d)->memory_coherent, "true");
        ck_assert_str_eq(xpu_nvidia_facts(d)->addressing_mode, "ats");

        const char *m = body(s, XPUD_ROUTE_METRICS);
        ASSERT_SAMPLE(m, "xpu_info{" LABELS ",name=\"NVIDIA GH200 480GB\",driver_version=\"" DRIVER
                         "\",compute_capability=\"9.0\",memory_numa_node=\"1\",memory_coherent=\"true\","
                         "addressing_mode=\"ats\"}",
                      "1");
        const char *j = body(s, XPUD_ROUTE_DEVICES);
        ck_assert_msg(strstr(j, "\"memory_numa_node\":1,\"memory_numa_node_source\":\"sysfs\",\"memory_coherent\":true,"
                                "\"addressing_mode\":\"ats\""),
                      "%s", j);
        char *dev = NULL;
        size_t len = 0;
        ck_assert_int_eq(xpud_render_device_json(s, "0009:01:00.0", &dev, &len), 0);
        ck_assert_msg(strstr(dev, "\"memory_numa_node\":1,"), "%s", dev);
        free(dev);
        xpud_snapshot_unref(s);
        fixture_done(&f);
}
END_TEST

/* NVML without the calls' answers (NOT_SUPPORTED) or with values it does not define: the sysfs
 * pairing stays, no addressing_mode label, nothing hostile reaches the bodies. */
START_TEST(test_gh200_nvml_silent_or_hostile) {
        static const char *const extras[] = {
                "",
                "device.0.numa_node 70000\ndevice.0.addressing_mode 9\ndevice.0.c2c_mode 7\n",
        };
        for (size_t i = 0; i < sizeof extras / sizeof extras[0]; i++) {
                struct fixture f;
                gh200_fixture(&f, extras[i]);
                sampler_new(&f, 10, 5, NULL);
                struct xpud_snapshot *s = sample(&f);
                ck_assert_msg(s->backends[0].up, "%s", s->backends[0].error);
                const struct xpu_device *d = &s->devices[0].dev;
                ck_assert_uint_eq(xpu_nvidia_facts(d)->memory_numa_node, 1);
                ck_assert_uint_eq(xpu_nvidia_facts(d)->memory_numa_source, XPU_SOURCE_SYSFS);
                ck_assert_str_eq(xpu_nvidia_facts(d)->addressing_mode, "");
                const char *m = body(s, XPUD_ROUTE_METRICS);
                ASSERT_SAMPLE(m, "xpu_info{" LABELS ",name=\"NVIDIA GH200 480GB\",driver_version=\"" DRIVER
                                 "\",compute_capability=\"9.0\",memory_numa_node=\"1\",memory_coherent=\"true\"}",
                              "1");
                ck_assert_msg(!strstr(m, "70000") && !strstr(m, "addressing_mode"), "%s", m);
                const char *j = body(s, XPUD_ROUTE_DEVICES);
                ck_assert_msg(!strstr(j, "70000") && !strstr(j, "\"addressing_mode\""), "%s", j);
                xpud_snapshot_unref(s);
                fixture_done(&f);
        }
}
END_TEST

static Suite *gh200_suite(void) {
        Suite *s = suite_create("xpud-sampler.gh200");
        TCase *tc = tcase_create("gh200");
        tcase_set_timeout(tc, 30);
        tcase_add_test(tc, test_gh200_nvml);
        tcase_add_test(tc, test_gh200_nvml_silent_or_hostile);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(gh200_suite());
}
