/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/kmsg.c and daemon/kernel-events.c: kmsg records parsed into driver events (NVIDIA Xid,
 * amdgpu RAS, ring timeout, reset), a record stream read in pieces from a file as from
 * /dev/kmsg, and the per-device state a sampler keeps: events in the ring, Xid counts, the health
 * effect held for XPUD_KMSG_HOLD_S and then dropped. Fixture: tests/fixtures/kmsg/xid-amdgpu.kmsg. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/macro.h"
#include "events.h"
#include "health.h"
#include "kernel-events.h"
#include "kmsg.h"
#include "testlib.h"
#include "xpud-fixture.h"

START_TEST(test_parse) {
        struct xpu_kernel_event ev;
        ck_assert_int_eq(xpud_kmsg_parse("4,2102,7203114825,-;NVRM: Xid (PCI:0000:1a:00): 79, pid=2563, name=python3, "
                                         "GPU has fallen off the bus.\n", &ev), 1);
        ck_assert_str_eq(ev.kind, "xid");
        ck_assert_str_eq(ev.label, "Xid 79"); /* NVIDIA's rules name the event (probes/nvidia/nvidia-kmsg.c) */
        ck_assert_uint_eq(ev.xid, 79);
        ck_assert_str_eq(ev.bus_id, "0000:1a:00.0");
        ck_assert(!ev.bus_has_function);
        ck_assert_int_eq(ev.effect, XPU_KERNEL_UNHEALTHY);
        ck_assert_str_eq(ev.what, "GPU has fallen off the bus");
        ck_assert(ev.kernel_time > 7203.1148 && ev.kernel_time < 7203.1149);
        ck_assert_str_eq(ev.text, "NVRM: Xid (PCI:0000:1a:00): 79, pid=2563, name=python3, GPU has fallen off the bus.");

        /* An application fault: an event, no health effect; an Xid not in the catalogue likewise. */
        ck_assert_int_eq(xpud_kmsg_parse("4,1,2,-;NVRM: Xid (PCI:0000:1b:00): 13, pid=1, name=x, Graphics Exception", &ev), 1);
        ck_assert_int_eq(ev.effect, XPU_KERNEL_NONE);
        ck_assert_int_eq(xpud_kmsg_parse("4,1,2,-;NVRM: Xid (PCI:0000:61:00): 154, pid=1, GPU recovery action", &ev), 1);
        ck_assert_uint_eq(ev.xid, 154);
        ck_assert_int_eq(ev.effect, XPU_KERNEL_NONE);
        ck_assert_str_eq(ev.what, "an Xid not in xpud's catalogue");
        /* A 32-bit PCI domain (Hyper-V). */
        ck_assert_int_eq(xpud_kmsg_parse("4,1,2,-;NVRM: Xid (PCI:3f8cfdd:00:00): 48, DBE (double bit error)", &ev), 1);
        ck_assert_str_eq(ev.bus_id, "03f8cfdd:00:00.0");
        ck_assert_int_eq(ev.effect, XPU_KERNEL_UNHEALTHY);

        /* amdgpu: the bus id from the prefix or from the DEVICE= continuation line. */
        ck_assert_int_eq(xpud_kmsg_parse("3,2108,8100000000,-;amdgpu 0000:c1:00.0: amdgpu: 3 uncorrectable hardware "
                                         "errors detected in umc block\n SUBSYSTEM=pci\n DEVICE=+pci:0000:c1:00.0\n",
                                         &ev), 1);
        ck_assert_str_eq(ev.kind, "amdgpu_ras");
        ck_assert_str_eq(ev.label, "amdgpu"); /* AMD's rules (probes/amd/amd-kmsg.c) */
        ck_assert_uint_eq(ev.xid, 0);
        ck_assert_str_eq(ev.bus_id, "0000:c1:00.0");
        ck_assert_int_eq(ev.effect, XPU_KERNEL_UNHEALTHY);
        ck_assert_int_eq(xpud_kmsg_parse("3,9,9,-;amdgpu 0000:c1:00.0: amdgpu: 1 correctable hardware errors detected "
                                         "in total in gfx block", &ev), 1);
        ck_assert_int_eq(ev.effect, XPU_KERNEL_NONE);
        ck_assert_int_eq(xpud_kmsg_parse("3,2109,8200000000,-;[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 "
                                         "timeout, signaled seq=10, emitted seq=12\n SUBSYSTEM=pci\n"
                                         " DEVICE=+pci:0000:c2:00.0\n", &ev), 1);
        ck_assert_str_eq(ev.kind, "amdgpu_ring_timeout");
        ck_assert_str_eq(ev.bus_id, "0000:c2:00.0");
        ck_assert_int_eq(ev.effect, XPU_KERNEL_DEGRADED);
        ck_assert_int_eq(xpud_kmsg_parse("4,9,9,-;amdgpu 0000:03:00.0: amdgpu: GPU reset begin!", &ev), 1);
        ck_assert_str_eq(ev.kind, "amdgpu_reset");
        ck_assert_str_eq(ev.bus_id, "0000:03:00.0"); /* from the prefix: no DEVICE= line */
        ck_assert_int_eq(xpud_kmsg_parse("3,9,9,-;amdgpu 0000:1a:00.1: amdgpu: 3 uncorrectable hardware errors "
                                         "detected in umc block", &ev), 1);
        ck_assert_str_eq(ev.bus_id, "0000:1a:00.1");
        ck_assert(ev.bus_has_function);
        /* An Xid that names the function is the same GPU as one that does not. */
        ck_assert_int_eq(xpud_kmsg_parse("4,1,2,-;NVRM: Xid (PCI:0000:1a:00.0): 79, fell off", &ev), 1);
        ck_assert_str_eq(ev.bus_id, "0000:1a:00.0");
        ck_assert(!ev.bus_has_function);
        /* No bus id anywhere: an event without a device. */
        ck_assert_int_eq(xpud_kmsg_parse("3,9,9,-;[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout", &ev), 1);
        ck_assert_str_eq(ev.bus_id, "");

        /* Other messages, and what is not a record at all. */
        static const char *const other[] = {
                "4,2103,7203114901,-;NVRM: GPU 0000:1a:00.0: GPU has fallen off the bus.",
                "6,2110,8300000000,-;Bluetooth: hci0: unexpected event for opcode 0x0000",
                "4,1,2,-;NVRM: Xid (PCI:zzzz): 79, x",
                "4,1,2,-;NVRM: Xid (PCI:0000:1a:00): x79",
                "4,1,2,-;NVRM: Xid (PCI:0000:1a:00): 99999999, x",
                "4,1,2,-;NVRM: Xid (PCI:0000:1a:00): 0, zero", /* Xids are numbered from 1 */
                "4,1,2,-;amdgpu 0000:c1:00.0: amdgpu: SMU is initialized successfully!",
                "4,1,2,-;usb 1-1: reset high-speed USB device number 2 using xhci_hcd (timeout)",
        };
        for (size_t i = 0; i < ELEMENTSOF(other); i++)
                ck_assert_msg(xpud_kmsg_parse(other[i], &ev) == 0, "%s", other[i]);
        static const char *const bad[] = { "", "no header", "4,1;x", "a,b,c;NVRM: Xid (PCI:0000:1a:00): 79, x",
                                           "4,1,2\n;x" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(xpud_kmsg_parse(bad[i], &ev) == -EINVAL, "%s", bad[i]);
        ck_assert_int_eq(xpud_kmsg_parse(NULL, &ev), -EINVAL);
        /* Control bytes in the kernel's text never reach a reason. */
        ck_assert_int_eq(xpud_kmsg_parse("4,1,2,-;NVRM: Xid (PCI:0000:1a:00): 79, \x1b[31mred\x7f", &ev), 1);
        ck_assert_str_eq(ev.text, "NVRM: Xid (PCI:0000:1a:00): 79, ?[31mred?");
}
END_TEST

static void collect(void *userdata, const struct xpu_kernel_event *ev) {
        char *log = userdata;
        size_t len = strlen(log);
        snprintf(log + len, 1024 - len, "%s%s/%u/%s", len ? "," : "", ev->kind, ev->xid, ev->bus_id);
}

/* A scratch directory (*DIR, free and remove it) with PATH = DIR/kmsg, and the fixture's bytes
 * (*LEN of them and a NUL, free()). */
static unsigned char *scratch(char **dir, char path[PATH_MAX], size_t *len) {
        *dir = xpu_test_mkdtemp();
        snprintf(path, PATH_MAX, "%s/kmsg", *dir);
        unsigned char *raw = xpu_test_read_fixture("kmsg/xid-amdgpu.kmsg", len);
        ck_assert_ptr_nonnull(raw);
        unsigned char *all = malloc(*len + 1); /* a NUL-terminated copy, for the string functions */
        ck_assert_ptr_nonnull(all);
        memcpy(all, raw, *len);
        all[*len] = '\0';
        free(raw);
        return all;
}

/* A stream read in pieces: a record split across reads waits for its end and its continuation
 * lines; the fixture's 12 records give 7 events. */
START_TEST(test_stream) {
        char *dir, path[PATH_MAX];
        size_t len = 0;
        unsigned char *all = scratch(&dir, path, &len);
        int w = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ck_assert_int_ge(w, 0);
        int fd = xpud_kmsg_open_path(path);
        ck_assert_int_ge(fd, 0);
        struct xpud_kmsg k;
        xpud_kmsg_init(&k, fd, path);
        char log[1024] = "";
        ck_assert_int_eq(xpud_kmsg_poll(&k, collect, log), 0);
        /* Up to the middle of the Xid 79 record, then the rest. */
        const char *mid = strstr((const char *)all, "fallen off");
        ck_assert_int_eq(write(w, all, (size_t)(mid - (const char *)all)), mid - (const char *)all);
        ck_assert_int_eq(xpud_kmsg_poll(&k, collect, log), 0);
        ck_assert_int_eq(write(w, mid, len - (size_t)(mid - (const char *)all)), (ssize_t)(len - (size_t)(mid - (const char *)all)));
        ck_assert_int_eq(xpud_kmsg_poll(&k, collect, log), 7);
        ck_assert_str_eq(log, "xid/79/0000:1a:00.0,xid/13/0000:1b:00.0,xid/13/0000:1b:00.0,xid/63/0000:60:00.0,"
                              "xid/154/0000:61:00.0,amdgpu_ras/0/0000:c1:00.0,amdgpu_ring_timeout/0/0000:c2:00.0");
        ck_assert_int_eq(xpud_kmsg_poll(&k, collect, log), 0);
        xpud_kmsg_done(&k);
        close(w);
        free(all);
        /* Not a file, FIFO or character device: refused. */
        ck_assert_int_eq(xpud_kmsg_open_path(dir), -EISDIR);
        /* A device that never runs dry: one poll reads a bounded amount and returns. */
        fd = xpud_kmsg_open_path("/dev/zero");
        ck_assert_int_ge(fd, 0);
        xpud_kmsg_init(&k, fd, "/dev/zero");
        ck_assert_int_eq(xpud_kmsg_poll(&k, collect, log), 0);
        ck_assert_uint_gt(k.lost, 0); /* no newline in 8 KiB: records too long, counted */
        xpud_kmsg_done(&k);
        ck_assert_int_eq(xpud_kmsg_open_path("/nonexistent/kmsg"), -ENOENT);
        xpu_test_rm_rf(dir);
        free(dir);
}
END_TEST

/* The sampler's side: the fixture's events on the H100/MI210 fixture snapshot (gpu 0 at
 * 0000:1a:00.0, gpu 1 at 1b, gpus 2 and 3 at c1 and c2): events, counts, reasons held an hour. */
START_TEST(test_kernel_state) {
        char *dir, path[PATH_MAX];
        size_t len = 0;
        unsigned char *all = scratch(&dir, path, &len);
        xpu_test_write(dir, "kmsg", (const char *)all);
        free(all);
        struct xpud_kernel_state ks;
        xpud_kernel_init(&ks, xpud_kmsg_open_path(path), path);
        struct xpud_events ev;
        ck_assert_int_eq(xpud_events_init(&ev, 0), 0);
        struct xpud_snapshot *s = fx_snapshot();
        ck_assert_int_eq(xpud_kernel_update(&ks, s, &ev, FX_TIME), 0);
        ck_assert_uint_eq(ev.n, 7);
        const struct xpud_event *e0 = &ev.ring[ev.head];
        ck_assert_str_eq(e0->kind, "xid");
        ck_assert_str_eq(e0->device, FX_UUID0);
        ck_assert_str_eq(e0->message, "gpu 0 (0000:1a:00.0): Xid 79: GPU has fallen off the bus; drain the node, reboot "
                                      "it and inspect the GPU's seating, power and cooling: NVRM: Xid (PCI:0000:1a:00): "
                                      "79, pid=2563, name=python3, GPU has fallen off the bus.");
        const struct xpud_event *e3 = &ev.ring[(ev.head + 3) % ev.cap];
        ck_assert_str_eq(e3->device, "0000:60:00.0"); /* not a GPU of this snapshot */
        ck_assert_msg(strstr(e3->message, "0000:60:00.0 (no GPU of the inventory): Xid 63:"), "%s", e3->message);

        struct xpud_device *d = s->devices;
        ck_assert_int_eq(d[0].kernel.health, XPUD_HEALTH_UNHEALTHY);
        ck_assert_uint_eq(d[0].kernel.n_xids, 1);
        ck_assert_uint_eq(d[0].kernel.xids[0].xid, 79);
        ck_assert_uint_eq(d[0].kernel.xids[0].count, 1);
        ck_assert_int_eq(d[1].kernel.health, XPUD_HEALTH_HEALTHY); /* Xid 13: an application's fault */
        ck_assert_uint_eq(d[1].kernel.xids[0].count, 2);
        ck_assert_int_eq(d[2].kernel.health, XPUD_HEALTH_UNHEALTHY);
        ck_assert_uint_eq(d[2].kernel.n_xids, 0);
        ck_assert_int_eq(d[3].kernel.health, XPUD_HEALTH_DEGRADED);

        /* Health takes the held event, with its action. */
        xpud_health_evaluate(&d[0], NULL, NULL);
        ck_assert_int_eq(d[0].health, XPUD_HEALTH_UNHEALTHY);
        ck_assert_str_eq(d[0].reasons[0], "Xid 79: GPU has fallen off the bus (kernel log at 7203.114825 s after boot: "
                                          "\"NVRM: Xid (PCI:0000:1a:00): 79, pid=2563, name=python3, GPU has fallen off "
                                          "the bus.\")");
        ck_assert_str_eq(d[0].action, "drain the node, reboot it and inspect the GPU's seating, power and cooling");
        xpud_health_evaluate(&d[1], NULL, NULL);
        ck_assert_int_ne(d[1].health, XPUD_HEALTH_UNHEALTHY);
        xpud_snapshot_unref(s);

        /* Nothing new: the counts and holds stay; an hour and a second later the holds are gone,
         * the counts are not. */
        s = fx_snapshot();
        ck_assert_int_eq(xpud_kernel_update(&ks, s, &ev, FX_TIME + 60), 0);
        ck_assert_uint_eq(ev.n, 7);
        ck_assert_int_eq(s->devices[0].kernel.health, XPUD_HEALTH_UNHEALTHY);
        xpud_snapshot_unref(s);
        s = fx_snapshot();
        ck_assert_int_eq(xpud_kernel_update(&ks, s, &ev, FX_TIME + XPUD_KMSG_HOLD_S + 1), 0);
        ck_assert_int_eq(s->devices[0].kernel.health, XPUD_HEALTH_HEALTHY);
        ck_assert_uint_eq(s->devices[0].kernel.xids[0].count, 1);
        xpud_health_evaluate(&s->devices[0], NULL, NULL);
        ck_assert_int_eq(s->devices[0].health, XPUD_HEALTH_HEALTHY);
        xpud_snapshot_unref(s);

        /* More Xids than XPUD_XIDS_MAX kinds: counted under the last one kept. */
        int w = open(path, O_WRONLY | O_APPEND);
        ck_assert_int_ge(w, 0);
        for (unsigned x = 200; x < 200 + XPUD_XIDS_MAX + 2; x++)
                ck_assert_int_gt(dprintf(w, "4,1,2,-;NVRM: Xid (PCI:0000:1a:00): %u, x\n", x), 0);
        close(w);
        s = fx_snapshot();
        ck_assert_int_eq(xpud_kernel_update(&ks, s, &ev, FX_TIME + 2 * XPUD_KMSG_HOLD_S), 0);
        ck_assert_uint_eq(s->devices[0].kernel.n_xids, XPUD_XIDS_MAX);
        /* 79 and 14 new Xids get slots of their own; the other 4 are counted as "other" (xid 0) */
        ck_assert_uint_eq(s->devices[0].kernel.xids[XPUD_XIDS_MAX - 2].xid, 213);
        ck_assert_uint_eq(s->devices[0].kernel.xids[XPUD_XIDS_MAX - 2].count, 1);
        ck_assert_uint_eq(s->devices[0].kernel.xids[XPUD_XIDS_MAX - 1].xid, 0);
        ck_assert_uint_eq(s->devices[0].kernel.xids[XPUD_XIDS_MAX - 1].count, 4);
        xpud_snapshot_unref(s);

        /* A record longer than the reader's buffer: lost, and said so in an event. */
        w = open(path, O_WRONLY | O_APPEND);
        ck_assert_int_ge(w, 0);
        ck_assert_int_gt(dprintf(w, "4,1,2,-;%09000d\n", 0), 0);
        close(w);
        s = fx_snapshot();
        ck_assert_int_eq(xpud_kernel_update(&ks, s, &ev, FX_TIME + 2 * XPUD_KMSG_HOLD_S), 0);
        const struct xpud_event *last = &ev.ring[(ev.head + ev.n - 1) % ev.cap];
        ck_assert_str_eq(last->kind, "kmsg_lost");
        ck_assert_msg(strstr(last->message, "1 kernel log record(s) lost"), "%s", last->message);
        xpud_snapshot_unref(s);

        /* No kernel log: nothing, and every device's state reset. */
        xpud_kernel_done(&ks);
        xpud_kernel_init(&ks, -1, "none");
        s = fx_snapshot();
        s->devices[0].kernel.health = XPUD_HEALTH_UNHEALTHY;
        ck_assert_int_eq(xpud_kernel_update(&ks, s, &ev, FX_TIME), 0);
        ck_assert_int_eq(s->devices[0].kernel.health, XPUD_HEALTH_HEALTHY);
        xpud_snapshot_unref(s);
        xpud_kernel_done(&ks);
        xpud_events_done(&ev);
        xpu_test_rm_rf(dir);
        free(dir);
}
END_TEST

static Suite *kmsg_suite(void) {
        Suite *s = suite_create("xpud-kmsg");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_parse);
        tcase_add_test(tc, test_stream);
        tcase_add_test(tc, test_kernel_state);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(kmsg_suite());
}
