/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/sampler.c and daemon/nfd.c: samples of fixture hosts end to end through the
 * store, with values and units asserted on the snapshot and its rendered bodies. AMD: the
 * amd-mi100x4 capture read from sysfs. NVIDIA: two GPUs of nvidia-rtx2080ti-x8 with the fake NVML
 * and its state file: one nvmlInit_v2 across samples, NVML names merged, a GPU falling off the bus
 * (unhealthy, event, value series dropped, xpu_up 0), the helper hanging and aborting (backend
 * down, last good values stale, recovery with fresh values), a device that leaves the fast path;
 * the sampler thread and a prompt xpud_sampler_free(); the NFD labels file (content, written only
 * when changed, atomically). Needs root (the helper's PID namespace and ids). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "nvidia/nvidia-facts.h"
#include "events.h"
#include "health.h"
#include "nfd.h"
#include "render-json.h"
#include "sampler.h"
#include "server.h"
#include "shim-root.h"
#include "xpud-sampler-fx.h"

#define DRIVER "465.19.01"
#define UUID0 "GPU-307dcc96-618a-4416-c1ef-87823c2e1a31"
#define UUID1 "GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe"

static const struct xpud_event *find_event(const struct xpud_snapshot *s, const char *kind, const char *needle) {
        for (size_t i = 0; i < s->n_events; i++)
                if (strcmp(s->events[i].kind, kind) == 0 && strstr(s->events[i].message, needle))
                        return &s->events[i];
        return NULL;
}

/* ---- AMD ------------------------------------------------------------------------------------------ */

START_TEST(test_amd_host) {
        struct fixture f = { .root = xpu_test_copy_host("amd-mi100x4") };
        sampler_new(&f, 10, 5, NULL);
        struct xpud_snapshot *s = sample(&f);
        ck_assert_uint_eq(s->seq, 1);
        ck_assert_uint_eq(s->n_devices, 4);
        ck_assert_uint_eq(s->inv->n_devices, 4);
        ck_assert_uint_eq(s->n_backends, 1); /* no NVIDIA driver, no NVIDIA device: no nvml backend */
        ck_assert_str_eq(s->backends[0].name, "amdgpu_sysfs");
        ck_assert(s->backends[0].up);
        ck_assert(s->backends[0].collect_seconds >= 0 && s->backends[0].collect_seconds < 5);
        const struct xpud_device *d = &s->devices[0];
        ck_assert(d->up);
        ck_assert(!d->stale);
        ck_assert_int_eq(d->health, XPUD_HEALTH_HEALTHY);
        ck_assert_double_eq(d->r.power_watts, 36);
        ck_assert_double_eq(d->r.temperature_celsius[XPU_TEMP_JUNCTION], 55);
        ck_assert(d->sample_time > 1.6e9);
        const char *m = body(s, XPUD_ROUTE_METRICS);
        char prefix[256];
        snprintf(prefix, sizeof prefix, "xpu_power_watts{vendor=\"amd\",gpu=\"%u\",", d->dev.index);
        ASSERT_SAMPLE(m, prefix, "36");
        snprintf(prefix, sizeof prefix, "xpu_temperature_celsius{vendor=\"amd\",gpu=\"%u\",", d->dev.index);
        ASSERT_SAMPLE(m, prefix, "53");
        ASSERT_SAMPLE(m, "xpud_backend_up{backend=\"amdgpu_sysfs\"}", "1");
        ASSERT_NO_SERIES(m, "xpud_backend_up{backend=\"nvml\"}");
        ck_assert_int_eq(xpud_health_overall(s), XPUD_HEALTH_HEALTHY);
        xpud_snapshot_unref(s);

        /* card 3 leaves sysfs: its device stays, lost, until it is listed again */
        char card[PATH_MAX], moved[PATH_MAX];
        snprintf(card, sizeof card, "%s/sys/class/drm/card3", f.root);
        snprintf(moved, sizeof moved, "%s/sys/class/drm/gone3", f.root);
        ck_assert_int_eq(rename(card, moved), 0);
        s = sample(&f);
        ck_assert_uint_eq(s->n_devices, 4);
        ck_assert_uint_eq(s->inv->n_devices, 4);
        d = &s->devices[3];
        ck_assert(d->r.lost);
        ck_assert_str_eq(d->r.lost_reason, "no longer listed by the sysfs fast path");
        ck_assert_int_eq(d->health, XPUD_HEALTH_UNHEALTHY);
        ck_assert_ptr_nonnull(find_event(s, "device_lost", "fell off the bus: no longer listed by the sysfs fast path"));
        m = body(s, XPUD_ROUTE_METRICS);
        snprintf(prefix, sizeof prefix, "xpu_up{vendor=\"amd\",gpu=\"%u\",", d->dev.index);
        ASSERT_SAMPLE(m, prefix, "0");
        snprintf(prefix, sizeof prefix, "xpu_power_watts{vendor=\"amd\",gpu=\"%u\",", d->dev.index);
        ASSERT_NO_SERIES(m, prefix);
        xpud_snapshot_unref(s);
        s = sample(&f); /* still gone: still there, lost, no second event */
        ck_assert(s->devices[3].r.lost);
        size_t lost_events = 0;
        for (size_t i = 0; i < s->n_events; i++)
                lost_events += strcmp(s->events[i].kind, "device_lost") == 0;
        ck_assert_uint_eq(lost_events, 1);
        xpud_snapshot_unref(s);
        ck_assert_int_eq(rename(moved, card), 0);
        s = sample(&f);
        ck_assert(!s->devices[3].r.lost);
        ck_assert(s->devices[3].up);
        ck_assert_ptr_nonnull(find_event(s, "device_back", "is back"));
        xpud_snapshot_unref(s);
        fixture_done(&f);
}
END_TEST

/* The UUID of the device with xpud index INDEX in S, checked in /v1/devices/{index} and in the
 * /metrics series of that gpu label (one xpu_up series per label, with that UUID). */
static void assert_index(struct xpud_snapshot *s, unsigned index, const char *uuid, bool up) {
        char key[16], want[128], prefix[256];
        snprintf(key, sizeof key, "%u", index);
        const struct xpud_device *d = xpud_snapshot_find_device(s, key);
        ck_assert_msg(d, "no device %u", index);
        ck_assert_msg(strcmp(d->dev.uuid, uuid) == 0, "gpu %u is %s, want %s", index, d->dev.uuid, uuid);
        char *json = NULL;
        size_t len = 0;
        ck_assert_int_eq(xpud_render_device_json(s, key, &json, &len), 0);
        snprintf(want, sizeof want, "\"uuid\":\"%s\"", uuid);
        ck_assert_msg(strstr(json, want), "/v1/devices/%u: %s", index, json);
        free(json);
        const char *m = body(s, XPUD_ROUTE_METRICS);
        snprintf(prefix, sizeof prefix, "xpu_up{vendor=\"amd\",gpu=\"%u\",uuid=\"%s\",", index, uuid);
        ASSERT_SAMPLE(m, prefix, up ? "1" : "0");
        snprintf(prefix, sizeof prefix, "xpu_up{vendor=\"amd\",gpu=\"%u\",", index);
        size_t series = 0;
        for (const char *p = strstr(m, prefix); p; p = strstr(p + 1, prefix))
                series++;
        ck_assert_msg(series == 1, "%zu xpu_up series for gpu %u:\n%s", series, index, m);
}

/* Swap the targets of the links sys/class/drm/cardA and cardB of ROOT: the probes then list the
 * two GPUs the other way round. */
static void swap_cards(const char *root, unsigned a, unsigned b) {
        char pa[PATH_MAX], pb[PATH_MAX], ta[PATH_MAX], tb[PATH_MAX];
        snprintf(pa, sizeof pa, "%s/sys/class/drm/card%u", root, a);
        snprintf(pb, sizeof pb, "%s/sys/class/drm/card%u", root, b);
        ssize_t na = readlink(pa, ta, sizeof ta - 1), nb = readlink(pb, tb, sizeof tb - 1);
        ck_assert(na > 0 && nb > 0);
        ta[na] = tb[nb] = '\0';
        ck_assert_int_eq(unlink(pa), 0);
        ck_assert_int_eq(unlink(pb), 0);
        ck_assert_int_eq(symlink(tb, pa), 0);
        ck_assert_int_eq(symlink(ta, pb), 0);
}

/* One GPU disappears, then the probe order changes and it comes back: every gpu label and
 * /v1/devices/{index} keeps naming the same UUID, and the devices stay listed in index order. */
/* Write TEXT into ROOT/sys/bus/pci/devices/BUS/NAME. */
static void put_pci_attr(const char *root, const char *bus, const char *name, const char *text) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/sys/bus/pci/devices/%s/%s", root, bus, name);
        FILE *fp = fopen(path, "w");
        ck_assert_ptr_nonnull(fp);
        fputs(text, fp);
        ck_assert_int_eq(fclose(fp), 0);
}

START_TEST(test_pcie_link) {
        /* The capture has no link files (they are not in rocm-smi's JSON): a GPU whose link trained
         * at x8 of x16 is degraded, one at full width with a lowered (idle) speed is not. */
        struct fixture f = { .root = xpu_test_copy_host("amd-mi100x4") };
        sampler_new(&f, 10, 5, NULL);
        struct xpud_snapshot *s = sample(&f);
        for (size_t i = 0; i < s->n_devices; i++)
                ck_assert_uint_eq(s->devices[i].r.have & (XPU_READ_PCIE_WIDTH | XPU_READ_PCIE_SPEED), 0);
        const char *m = body(s, XPUD_ROUTE_METRICS);
        ASSERT_NO_SERIES(m, "xpu_pcie_link_width_lanes");
        const char *bus0 = s->devices[0].dev.pci_bus_id, *bus1 = s->devices[1].dev.pci_bus_id;
        char b0[XPU_PCI_BUS_ID_MAX], b1[XPU_PCI_BUS_ID_MAX];
        snprintf(b0, sizeof b0, "%s", bus0);
        snprintf(b1, sizeof b1, "%s", bus1);
        unsigned i1 = s->devices[1].dev.index;
        xpud_snapshot_unref(s);

        put_pci_attr(f.root, b0, "current_link_width", "16\n");
        put_pci_attr(f.root, b0, "max_link_width", "16\n");
        put_pci_attr(f.root, b0, "current_link_speed", "2.5 GT/s PCIe\n");
        put_pci_attr(f.root, b0, "max_link_speed", "16.0 GT/s PCIe\n");
        put_pci_attr(f.root, b1, "current_link_width", "8\n");
        put_pci_attr(f.root, b1, "max_link_width", "16\n");
        put_pci_attr(f.root, b1, "current_link_speed", "16.0 GT/s PCIe\n");
        put_pci_attr(f.root, b1, "max_link_speed", "16.0 GT/s PCIe\n");
        s = sample(&f);
        const struct xpud_device *d0 = &s->devices[0], *d1 = &s->devices[1];
        ck_assert_uint_eq(d0->r.have & (XPU_READ_PCIE_WIDTH | XPU_READ_PCIE_SPEED),
                          XPU_READ_PCIE_WIDTH | XPU_READ_PCIE_SPEED);
        ck_assert_uint_eq(d0->r.pcie_link_speed[XPU_LINK_CURRENT], 2500000000ull);
        ck_assert_int_eq(d0->health, XPUD_HEALTH_HEALTHY);
        ck_assert_uint_eq(d1->r.pcie_link_width[XPU_LINK_CURRENT], 8);
        ck_assert_int_eq(d1->health, XPUD_HEALTH_DEGRADED);
        ck_assert_uint_eq(d1->n_reasons, 1);
        ck_assert_str_eq(d1->reasons[0], "PCIe link x8 of x16 (trained narrower than it can be)");
        ck_assert_ptr_nonnull(find_event(s, "health", "healthy -> degraded: PCIe link x8 of x16"));
        m = body(s, XPUD_ROUTE_METRICS);
        char prefix[256];
        snprintf(prefix, sizeof prefix, "xpu_pcie_link_width_lanes{vendor=\"amd\",gpu=\"%u\",", i1);
        ASSERT_SAMPLE(m, prefix, "8");
        snprintf(prefix, sizeof prefix, "xpu_pcie_link_speed_transfers_per_second{vendor=\"amd\",gpu=\"%u\",", i1);
        ASSERT_SAMPLE(m, prefix, "16000000000");
        for (size_t i = 2; i < s->n_devices; i++) /* the others have no link files: no series, no guess */
                ck_assert_uint_eq(s->devices[i].r.have & XPU_READ_PCIE_WIDTH, 0);
        ck_assert_uint_eq(s->inv->n_warnings, 0);
        xpud_snapshot_unref(s);

        /* An odd file: that pair left out, one warning naming the file, the device still read. */
        put_pci_attr(f.root, b1, "current_link_width", "sixteen\n");
        s = sample(&f);
        d1 = &s->devices[1];
        ck_assert(d1->up);
        ck_assert_uint_eq(d1->r.have & (XPU_READ_PCIE_WIDTH | XPU_READ_PCIE_SPEED), XPU_READ_PCIE_SPEED);
        ck_assert_int_eq(d1->health, XPUD_HEALTH_HEALTHY);
        bool warned = false;
        for (size_t i = 0; i < s->inv->n_warnings; i++)
                warned = warned || strstr(s->inv->warnings[i], "current_link_width: \"sixteen\" is not a lane count");
        ck_assert(warned);
        xpud_snapshot_unref(s);
        fixture_done(&f);
}
END_TEST

START_TEST(test_stable_index) {
        static const char *const uuid[] = { "GPU-2aba500bd9e889b6", "GPU-0d7c5ae471ffe776", "GPU-8e7767dc4ce4cf3a",
                                            "GPU-fb46471209d2c6e6" }; /* cards 0 to 3 */
        struct fixture f = { .root = xpu_test_copy_host("amd-mi100x4") };
        sampler_new(&f, 10, 5, NULL);
        struct xpud_snapshot *s = sample(&f);
        for (unsigned i = 0; i < 4; i++)
                assert_index(s, i, uuid[i], true);
        xpud_snapshot_unref(s);

        /* card 0 leaves: the probes number the others 0 to 2; they keep 1 to 3, and the lost
         * one keeps 0. */
        char card[PATH_MAX], moved[PATH_MAX];
        snprintf(card, sizeof card, "%s/sys/class/drm/card0", f.root);
        snprintf(moved, sizeof moved, "%s/sys/class/drm/gone0", f.root);
        ck_assert_int_eq(rename(card, moved), 0);
        s = sample(&f);
        ck_assert_uint_eq(s->n_devices, 4);
        for (unsigned i = 0; i < 4; i++) {
                assert_index(s, i, uuid[i], i != 0);
                ck_assert_uint_eq(s->devices[i].dev.index, i); /* listed in index order */
                ck_assert_uint_eq(s->inv->devices[i].index, i);
        }
        ck_assert(s->devices[0].r.lost);
        ck_assert_ptr_nonnull(find_event(s, "device_lost", "gpu 0 (0000:83:00.0)"));
        xpud_snapshot_unref(s);

        /* cards 1 and 2 listed the other way round, card 0 back: the same indices. */
        swap_cards(f.root, 1, 2);
        ck_assert_int_eq(rename(moved, card), 0);
        s = sample(&f);
        ck_assert_uint_eq(s->n_devices, 4);
        for (unsigned i = 0; i < 4; i++) {
                assert_index(s, i, uuid[i], true);
                ck_assert_uint_eq(s->devices[i].dev.index, i);
        }
        ck_assert_ptr_nonnull(find_event(s, "device_back", "gpu 0 (0000:83:00.0) is back"));
        const char *j = body(s, XPUD_ROUTE_DEVICES);
        const char *p1 = strstr(j, uuid[1]), *p2 = strstr(j, uuid[2]);
        ck_assert_msg(p1 && p2 && p1 < p2, "/v1/devices not in index order: %s", j);
        xpud_snapshot_unref(s);
        fixture_done(&f);
}
END_TEST

/* ---- NVIDIA --------------------------------------------------------------------------------------- */

/* The state file: GPUs 0 and 1 of the fixture with readings; EXTRA lines first (first key wins). */
static void nvidia_state(struct fixture *f, const char *extra) {
        char state[4096];
        snprintf(state, sizeof state,
                 "%s"
                 "driver_version " DRIVER "\n"
                 "calls_log %s\n"
                 "device_count 2\n"
                 "device.0.name NVIDIA GeForce RTX 2080 Ti\n"
                 "device.0.uuid " UUID0 "\n"
                 "device.0.bus_id 00000000:1A:00.0\n"
                 "device.0.memory_total 11811160064\n"
                 "device.0.memory_used 524288000\n"
                 "device.0.cc 7.5\n"
                 "device.0.power_usage_mw 250000\n"
                 "device.0.power_limit_mw 260000\n"
                 "device.0.temperature 41\n"
                 "device.0.util_gpu 35\n"
                 "device.0.util_memory 12\n"
                 "device.0.clock_sm_mhz 1350\n"
                 "device.1.name NVIDIA GeForce RTX 2080 Ti\n"
                 "device.1.uuid " UUID1 "\n"
                 "device.1.bus_id 00000000:1B:00.0\n"
                 "device.1.power_usage_mw 71234\n"
                 "device.1.temperature 38\n",
                 extra, f->calls);
        shim_write_state(f->root, state);
}

/* A copy of nvidia-rtx2080ti-x8 with only its first two GPUs, the fake NVML installed as the
 * driver's libnvidia-ml, a calls log the helper (nobody) can append to. */
static void nvidia_fixture(struct fixture *f) {
        f->root = xpu_test_copy_host("nvidia-rtx2080ti-x8");
        ck_assert_int_eq(chmod(f->root, 0755), 0);
        static const char *const gone[] = { "0000:60:00.0", "0000:61:00.0", "0000:b1:00.0",
                                            "0000:b2:00.0", "0000:da:00.0", "0000:db:00.0" };
        for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
                char p[PATH_MAX];
                snprintf(p, sizeof p, "%s/proc/driver/nvidia/gpus/%s", f->root, gone[i]);
                xpu_test_rm_rf(p);
        }
        snprintf(f->calls, sizeof f->calls, "%s/calls", f->root);
        int fd = open(f->calls, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(fchmod(fd, 0666), 0);
        close(fd);
        nvidia_state(f, "");
        shim_install(f->root, "libnvidia-ml.so.shim", "libnvidia-ml.so", DRIVER);
}

static int count_calls(const struct fixture *f, const char *function) {
        FILE *fp = fopen(f->calls, "re");
        char line[256];
        int n = 0;
        ck_assert_ptr_nonnull(fp);
        while (fgets(line, sizeof line, fp))
                n += strncmp(line, function, strlen(function)) == 0 && line[strlen(function)] == ' ';
        fclose(fp);
        return n;
}

START_TEST(test_nvidia_session_and_readings) {
        struct fixture f;
        nvidia_fixture(&f);
        sampler_new(&f, 10, 5, NULL);
        struct xpud_snapshot *s = sample(&f);
        ck_assert_uint_eq(s->n_devices, 2);
        ck_assert_uint_eq(s->n_backends, 1);
        ck_assert_str_eq(s->backends[0].name, "nvml");
        ck_assert_msg(s->backends[0].up, "%s", s->backends[0].error);
        const struct xpud_device *d = &s->devices[0];
        ck_assert(d->up);
        ck_assert_str_eq(d->dev.uuid, UUID0);
        ck_assert_str_eq(xpu_nvidia_facts(&d->dev)->compute_capability, "7.5"); /* merged from NVML */
        ck_assert_double_eq(d->r.power_watts, 250);
        ck_assert_double_eq(d->r.power_limit_watts, 260);
        ck_assert_double_eq(d->r.temperature_celsius[XPU_TEMP_GPU], 41);
        ck_assert_double_eq(d->r.utilization_ratio, 0.35);
        ck_assert_uint_eq(d->r.clock_hertz[XPU_CLOCK_GRAPHICS], 1350000000ull);
        ck_assert_uint_eq(d->r.memory_used_bytes, 524288000ull);
        ck_assert_int_eq(d->health, XPUD_HEALTH_HEALTHY);
        const char *m = body(s, XPUD_ROUTE_METRICS);
        ASSERT_SAMPLE(m, "xpu_power_watts{vendor=\"nvidia\",gpu=\"0\",uuid=\"" UUID0 "\",pci_bus_id=\"0000:1a:00.0\"}", "250");
        ASSERT_SAMPLE(m, "xpu_temperature_celsius{vendor=\"nvidia\",gpu=\"0\",uuid=\"" UUID0
                         "\",pci_bus_id=\"0000:1a:00.0\",sensor=\"gpu\"}",
                      "41");
        ASSERT_SAMPLE(m, "xpu_power_watts{vendor=\"nvidia\",gpu=\"1\",", "71.234");
        ASSERT_SAMPLE(m, "xpud_backend_up{backend=\"nvml\"}", "1");
        xpud_snapshot_unref(s);
        for (int i = 0; i < 3; i++)
                xpud_snapshot_unref(sample(&f));
        ck_assert_int_eq(count_calls(&f, "nvmlInit_v2"), 1); /* four samples, one NVML session */
        s = xpud_store_acquire(&f.store);
        ck_assert_uint_eq(s->seq, 4);
        xpud_snapshot_unref(s);
        f.smp = xpud_sampler_free(f.smp);
        ck_assert_int_eq(count_calls(&f, "nvmlShutdown"), 1);
        fixture_done(&f);
}
END_TEST

START_TEST(test_nvidia_gpu_lost) {
        struct fixture f;
        nvidia_fixture(&f);
        sampler_new(&f, 10, 5, NULL);
        xpud_snapshot_unref(sample(&f));
        nvidia_state(&f, "device.1.lost 1\n");
        struct xpud_snapshot *s = sample(&f);
        ck_assert(s->backends[0].up); /* a lost GPU is a reading, not a backend failure */
        const struct xpud_device *d = &s->devices[1];
        ck_assert(d->r.lost);
        ck_assert(!d->up);
        ck_assert_int_eq(d->health, XPUD_HEALTH_UNHEALTHY);
        ck_assert_str_eq(d->reasons[0], "fell off the bus: nvmlDeviceGetHandleByIndex_v2 failed: GPU is lost (error 15)");
        ck_assert_ptr_nonnull(find_event(s, "device_lost", "gpu 1 (0000:1b:00.0) fell off the bus: nvmlDeviceGetHandleByIndex_v2"));
        ck_assert_ptr_nonnull(find_event(s, "health", "gpu 1 (0000:1b:00.0): healthy -> unhealthy"));
        ck_assert_int_eq(xpud_health_overall(s), XPUD_HEALTH_UNHEALTHY);
        const char *m = body(s, XPUD_ROUTE_METRICS);
        ASSERT_SAMPLE(m, "xpu_up{vendor=\"nvidia\",gpu=\"1\",", "0");
        ASSERT_SAMPLE(m, "xpu_health_state{vendor=\"nvidia\",gpu=\"1\",uuid=\"" UUID1
                         "\",pci_bus_id=\"0000:1b:00.0\",state=\"unhealthy\"}",
                      "1");
        ASSERT_NO_SERIES(m, "xpu_power_watts{vendor=\"nvidia\",gpu=\"1\",");
        ASSERT_SAMPLE(m, "xpu_power_watts{vendor=\"nvidia\",gpu=\"0\",", "250");
        const char *h = body(s, XPUD_ROUTE_HEALTH);
        ck_assert_msg(strstr(h, "\"status\":\"unhealthy\""), "%s", h);
        ck_assert_msg(strstr(h, "fell off the bus: nvmlDeviceGetHandleByIndex_v2 failed: GPU is lost (error 15)"), "%s", h);
        xpud_snapshot_unref(s);
        /* back */
        nvidia_state(&f, "");
        s = sample(&f);
        ck_assert(s->devices[1].up);
        ck_assert_int_eq(s->devices[1].health, XPUD_HEALTH_HEALTHY);
        ck_assert_ptr_nonnull(find_event(s, "device_back", "gpu 1 (0000:1b:00.0) is back"));
        xpud_snapshot_unref(s);
        ck_assert_int_eq(count_calls(&f, "nvmlInit_v2"), 1);
        f.smp = xpud_sampler_free(f.smp);
        xpud_store_done(&f.store);

        /* lost from the very first sample (NVML never gave its bus id): named by its position,
         * NVML's order being PCI bus order, as both list two devices */
        nvidia_state(&f, "device.1.lost 1\n");
        sampler_new(&f, 10, 5, NULL);
        s = sample(&f);
        ck_assert(!s->devices[0].r.lost);
        ck_assert(s->devices[1].r.lost);
        ck_assert_str_eq(s->devices[1].dev.pci_bus_id, "0000:1b:00.0");
        ck_assert_int_eq(s->devices[1].health, XPUD_HEALTH_UNHEALTHY);
        ck_assert_ptr_nonnull(find_event(s, "device_lost", "gpu 1 (0000:1b:00.0) fell off the bus"));
        xpud_snapshot_unref(s);
        fixture_done(&f);
}
END_TEST

/* A name NVML gives in UTF-8 reaches the snapshot, /v1/devices and xpu_info byte for byte (GPU 1
 * of the capture has no Model line in procfs: its name is NVML's); bytes that are not UTF-8
 * become U+FFFD in the helper. */
START_TEST(test_nvidia_utf8_name) {
        struct fixture f;
        nvidia_fixture(&f);
        nvidia_state(&f, "device.1.name NVIDIA RTX\xe2\x84\xa2 A6000 \xff\n");
        sampler_new(&f, 10, 5, NULL);
        struct xpud_snapshot *s = sample(&f);
        ck_assert_msg(s->backends[0].up, "%s", s->backends[0].error);
        ck_assert_str_eq(s->devices[1].dev.name, "NVIDIA RTX\xe2\x84\xa2 A6000 \xef\xbf\xbd");
        const char *m = body(s, XPUD_ROUTE_METRICS);
        ck_assert_msg(strstr(m, "name=\"NVIDIA RTX\xe2\x84\xa2 A6000 \xef\xbf\xbd\""), "%s", m);
        const char *j = body(s, XPUD_ROUTE_DEVICES);
        ck_assert_msg(strstr(j, "\"name\":\"NVIDIA RTX\xe2\x84\xa2 A6000 \xef\xbf\xbd\""), "%s", j);
        xpud_snapshot_unref(s);
        fixture_done(&f);
}
END_TEST

/* The helper hangs (or aborts) in the middle of the session: the backend is down, the last good
 * readings stay, marked stale; the fault gone, the next sample is fresh again. */
static void helper_fault(const char *fault, const char *want_error) {
        struct fixture f;
        nvidia_fixture(&f);
        sampler_new(&f, 10, 1, NULL);
        struct xpud_snapshot *good = sample(&f);
        double good_time = good->devices[0].sample_time;
        xpud_snapshot_unref(good);
        nvidia_state(&f, fault);
        struct xpud_snapshot *s = sample(&f);
        ck_assert(!s->backends[0].up);
        ck_assert_str_eq(s->backends[0].error, want_error);
        ck_assert_uint_eq(s->backends[0].errors_total, 1);
        const struct xpud_device *d = &s->devices[0];
        ck_assert(d->stale);
        ck_assert(!d->up);
        ck_assert_double_eq(d->r.power_watts, 250); /* the last good value */
        ck_assert_double_eq(d->sample_time, good_time);
        ck_assert_int_eq(d->health, XPUD_HEALTH_DEGRADED);
        char reason[300];
        snprintf(reason, sizeof reason, "stale sample: nvml: %s", want_error);
        ck_assert_str_eq(d->reasons[0], reason);
        ck_assert_ptr_nonnull(find_event(s, "backend_error", want_error));
        const char *m = body(s, XPUD_ROUTE_METRICS);
        ASSERT_SAMPLE(m, "xpud_backend_up{backend=\"nvml\"}", "0");
        ASSERT_SAMPLE(m, "xpud_collect_errors_total{backend=\"nvml\"}", "1");
        ASSERT_SAMPLE(m, "xpu_up{vendor=\"nvidia\",gpu=\"0\",", "0");
        const char *j = body(s, XPUD_ROUTE_DEVICES);
        ck_assert_msg(strstr(j, "\"stale\":true"), "%s", j);
        xpud_snapshot_unref(s);

        nvidia_state(&f, "");
        s = sample(&f);
        ck_assert(s->backends[0].up);
        ck_assert_str_eq(s->backends[0].error, "");
        ck_assert(s->devices[0].up);
        ck_assert(!s->devices[0].stale);
        ck_assert(s->devices[0].sample_time > good_time);
        ck_assert_int_eq(s->devices[0].health, XPUD_HEALTH_HEALTHY);
        ck_assert_ptr_nonnull(find_event(s, "backend_up", "nvml is back"));
        m = body(s, XPUD_ROUTE_METRICS);
        ASSERT_SAMPLE(m, "xpud_backend_up{backend=\"nvml\"}", "1");
        ASSERT_SAMPLE(m, "xpu_up{vendor=\"nvidia\",gpu=\"0\",", "1");
        xpud_snapshot_unref(s);
        ck_assert_int_eq(count_calls(&f, "nvmlInit_v2"), 2); /* a new session after the failure */
        fixture_done(&f);
}

START_TEST(test_nvidia_helper_hang) {
        helper_fault("hang.nvmlDeviceGetPowerUsage 1\n", "NVML helper timed out after 1 s");
}
END_TEST

START_TEST(test_nvidia_helper_abort) {
        helper_fault("abort.nvmlDeviceGetPowerUsage 1\n", "NVML helper killed by signal 6 (Aborted)");
}
END_TEST

/* ---- thread ---------------------------------------------------------------------------------------- */

static unsigned calls_seen;
static void on_sample(void *userdata, const struct xpud_snapshot *s) {
        __atomic_add_fetch(&calls_seen, 1, __ATOMIC_SEQ_CST);
        *(uint64_t *)userdata = s->seq;
}

START_TEST(test_thread) {
        struct fixture f = { .root = xpu_test_copy_host("amd-mi100x4") };
        struct xpud_sampler_options o = { .sys_root = f.root, .dev_root = f.root, .driver_root = f.root, .interval_s = 1 };
        uint64_t last = 0;
        xpud_store_init(&f.store);
        ck_assert_int_eq(xpud_sampler_new(&o, &f.store, on_sample, &last, &f.smp), 0);
        ck_assert_ptr_null(xpud_store_acquire(&f.store)); /* nothing before the first sample */
        ck_assert_int_eq(xpud_sampler_sample(f.smp), 0);
        ck_assert_int_eq(xpud_sampler_start(f.smp), 0);
        ck_assert_int_eq(xpud_sampler_start(f.smp), -EALREADY);
        for (int i = 0; i < 50 && __atomic_load_n(&last, __ATOMIC_SEQ_CST) < 3; i++)
                usleep(100 * 1000);
        ck_assert_uint_ge(__atomic_load_n(&last, __ATOMIC_SEQ_CST), 3); /* samples every second */
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        f.smp = xpud_sampler_free(f.smp);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double took = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
        /* woken at once, not at the end of the 1 s interval (bound kept loose for loaded CI) */
        ck_assert_msg(took < 0.9, "free took %.3f s", took);
        ck_assert_uint_eq(calls_seen, last);
        xpud_store_done(&f.store);
        shim_drop_root(f.root);
        o.dev_root = o.driver_root = NULL; /* they pointed into the tree just removed */

        /* bad options and roots */
        struct xpud_store st;
        struct xpud_sampler *smp = NULL;
        xpud_store_init(&st);
        o.interval_s = 0;
        ck_assert_int_eq(xpud_sampler_new(&o, &st, NULL, NULL, &smp), -EINVAL);
        o.interval_s = 1;
        o.sys_root = "/nonexistent/xpud-test";
        ck_assert_int_eq(xpud_sampler_new(&o, &st, NULL, NULL, &smp), -ENOENT);
        ck_assert_ptr_null(smp);
        xpud_store_done(&st);
        ck_assert_ptr_null(xpud_sampler_free(NULL));
}
END_TEST

/* ---- NFD ------------------------------------------------------------------------------------------- */

START_TEST(test_nfd_label_value) {
        char v[XPUD_NFD_VALUE_MAX + 1];
        ck_assert_uint_eq(xpud_nfd_label_value("NVIDIA GeForce RTX 2080 Ti", v, sizeof v), 26);
        ck_assert_str_eq(v, "NVIDIA-GeForce-RTX-2080-Ti");
        xpud_nfd_label_value("AMD Instinct MI210 (rev c1)", v, sizeof v);
        ck_assert_str_eq(v, "AMD-Instinct-MI210-rev-c1");
        xpud_nfd_label_value("  __x/y\xc3\xa9z.. ", v, sizeof v);
        ck_assert_str_eq(v, "x-y-z");
        ck_assert_uint_eq(xpud_nfd_label_value("()", v, sizeof v), 0);
        ck_assert_str_eq(v, "");
        xpud_nfd_label_value("550.54.15", v, sizeof v);
        ck_assert_str_eq(v, "550.54.15");
        char longname[200];
        memset(longname, 'a', sizeof longname - 1);
        longname[sizeof longname - 1] = '\0';
        longname[62] = ' '; /* a cut that ends in a dash is trimmed */
        ck_assert_uint_eq(xpud_nfd_label_value(longname, v, sizeof v), 62);
        ck_assert_uint_eq(strlen(v), 62);
}
END_TEST

static char *read_text(const char *path) {
        FILE *fp = fopen(path, "re");
        ck_assert_msg(fp != NULL, "%s: %s", path, strerror(errno));
        static char buf[4096];
        size_t n = fread(buf, 1, sizeof buf - 1, fp);
        buf[n] = '\0';
        fclose(fp);
        return buf;
}

static ino_t inode_of(const char *path) {
        struct stat st;
        ck_assert_int_eq(stat(path, &st), 0);
        ck_assert_int_eq(st.st_mode & 0777, 0644);
        return st.st_ino;
}

START_TEST(test_nfd_file) {
        struct fixture f;
        nvidia_fixture(&f);
        char dir[PATH_MAX], path[PATH_MAX], dot[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/features.d", f.root);
        ck_assert_int_eq(mkdir(dir, 0755), 0);
        snprintf(path, sizeof path, "%s/xpud", dir);
        snprintf(dot, sizeof dot, "%s/.xpud", dir);
        sampler_new(&f, 10, 5, path);
        xpud_snapshot_unref(sample(&f));
        ck_assert_str_eq(read_text(path), "feature.node.kubernetes.io/xpu.present=true\n"
                                          "feature.node.kubernetes.io/xpu.count=2\n"
                                          "feature.node.kubernetes.io/xpu.healthy=2\n"
                                          "feature.node.kubernetes.io/xpu.nvidia.count=2\n"
                                          "feature.node.kubernetes.io/xpu.nvidia.healthy=2\n"
                                          "feature.node.kubernetes.io/xpu.nvidia.product=NVIDIA-GeForce-RTX-2080-Ti\n"
                                          "feature.node.kubernetes.io/xpu.nvidia.driver=465.19.01\n"
                                          /* the fake NVML gives device 0's compute capability only */
                                          "feature.node.kubernetes.io/xpu.vendor=nvidia\n"
                                          "feature.node.kubernetes.io/xpu.arch.sm_75=1\n");
        ck_assert_int_eq(access(dot, F_OK), -1); /* the dot-file was renamed */
        ino_t first = inode_of(path);
        xpud_snapshot_unref(sample(&f));
        ck_assert_uint_eq(inode_of(path), first); /* unchanged labels: not rewritten */
        nvidia_state(&f, "device.0.lost 1\n");
        xpud_snapshot_unref(sample(&f));
        ck_assert_uint_ne(inode_of(path), first); /* replaced by rename */
        ck_assert_msg(strstr(read_text(path), "feature.node.kubernetes.io/xpu.nvidia.healthy=1\n"), "%s", read_text(path));
        ck_assert_msg(strstr(read_text(path), "feature.node.kubernetes.io/xpu.healthy=1\n"), "%s", read_text(path));

        /* the directory is gone for a while: the sample still works, the file is retried */
        char moved[PATH_MAX];
        snprintf(moved, sizeof moved, "%s/features.moved", f.root);
        ck_assert_int_eq(rename(dir, moved), 0);
        nvidia_state(&f, "");
        xpud_snapshot_unref(sample(&f));
        ck_assert_int_eq(rename(moved, dir), 0);
        xpud_snapshot_unref(sample(&f));
        ck_assert_msg(strstr(read_text(path), "feature.node.kubernetes.io/xpu.healthy=2\n"), "%s", read_text(path));
        fixture_done(&f);

        /* no device at all */
        struct xpud_snapshot *s = xpud_snapshot_new();
        s->inv = xpu_inventory_new();
        char *text = NULL;
        size_t len = 0;
        ck_assert_int_eq(xpud_nfd_render(s, &text, &len), 0);
        ck_assert_str_eq(text, "feature.node.kubernetes.io/xpu.present=false\n"
                               "feature.node.kubernetes.io/xpu.count=0\n"
                               "feature.node.kubernetes.io/xpu.healthy=0\n");
        ck_assert_uint_eq(len, strlen(text));
        free(text);
        xpud_snapshot_unref(s);
        ck_assert_int_eq(xpu_write_file_replace("/nonexistent-dir/x", "a", 1, 0644), -ENOENT);
        ck_assert_int_eq(xpu_write_file_replace("/tmp/", "a", 1, 0644), -EINVAL);
}
END_TEST

/* A FIFO or someone else's file at the dot-file: replaced by a fresh file of ours (the open used
 * to block forever on a FIFO, and kept another owner's file). */
START_TEST(test_nfd_dot_file_taken) {
        char dir[] = "/tmp/xpud-nfd.XXXXXX", path[PATH_MAX], dot[PATH_MAX];
        ck_assert_ptr_nonnull(mkdtemp(dir));
        snprintf(path, sizeof path, "%s/xpud", dir);
        snprintf(dot, sizeof dot, "%s/.xpud", dir);
        ck_assert_int_eq(mkfifo(dot, 0666), 0);
        alarm(10); /* a blocking open would hang here */
        ck_assert_int_eq(xpu_write_file_replace(path, "a=1\n", 4, 0644), 0);
        alarm(0);
        ck_assert_str_eq(read_text(path), "a=1\n");
        ck_assert_int_eq(access(dot, F_OK), -1);
        /* a dot-file made by another user, open to everyone */
        int fd = open(dot, O_WRONLY | O_CREAT | O_EXCL, 0666);
        ck_assert_int_ge(fd, 0);
        close(fd);
        ck_assert_int_eq(chmod(dot, 0666), 0);
        if (geteuid() == 0)
                ck_assert_int_eq(chown(dot, 65534, 65534), 0);
        ck_assert_int_eq(xpu_write_file_replace(path, "b=2\n", 4, 0644), 0);
        struct stat st;
        ck_assert_int_eq(stat(path, &st), 0);
        ck_assert_uint_eq(st.st_uid, geteuid());
        ck_assert_uint_eq(st.st_mode & 07777, 0644);
        ck_assert_str_eq(read_text(path), "b=2\n");
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

static Suite *sampler_suite(void) {
        Suite *s = suite_create("xpud-sampler");
        TCase *tc = tcase_create("sampler");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_amd_host);
        tcase_add_test(tc, test_pcie_link);
        tcase_add_test(tc, test_stable_index);
        tcase_add_test(tc, test_nvidia_session_and_readings);
        tcase_add_test(tc, test_nvidia_gpu_lost);
        tcase_add_test(tc, test_nvidia_utf8_name);
        tcase_add_test(tc, test_nvidia_helper_hang);
        tcase_add_test(tc, test_nvidia_helper_abort);
        tcase_add_test(tc, test_thread);
        tcase_add_test(tc, test_nfd_label_value);
        tcase_add_test(tc, test_nfd_file);
        tcase_add_test(tc, test_nfd_dot_file_taken);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(sampler_suite());
}
