/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the kernel log reader (daemon/kmsg.h) on one input, as xpud meets it: the input
 * parsed as one record (xpud_kmsg_parse()), then written to a pipe in two pieces and read as a
 * stream (xpud_kmsg_poll(): records split across reads, continuation lines, records longer than
 * the buffer).
 *
 * Checked besides memory safety (abort() when broken): a record is an event (1), another message
 * (0) or no record (-EINVAL); an event has a known kind, an Xid only with kind "xid", a bus id
 * that is empty or canonical (it parses and prints back the same), printable text, and an effect
 * in range; the stream gives no more events than it has lines. Corpus: tests/fuzz/corpus/xpud-kmsg/. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "base/pci.h"
#include "fuzz.h"
#include "kmsg.h"

static void check_event(const struct xpu_kernel_event *ev) {
        static const char *const kinds[] = { "xid", "amdgpu_reset", "amdgpu_ring_timeout", "amdgpu_ras" };
        bool known = false;
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
                known |= strcmp(ev->kind, kinds[i]) == 0;
        if (!known || (ev->xid && strcmp(ev->kind, "xid") != 0) || ev->effect > XPU_KERNEL_UNHEALTHY)
                abort();
        if (ev->bus_id[0]) {
                struct xpu_pci_bus_id id;
                char back[XPU_PCI_BUS_ID_MAX];
                if (xpu_pci_bus_id_parse(ev->bus_id, &id) < 0)
                        abort();
                xpu_pci_bus_id_format(&id, back);
                if (strcmp(back, ev->bus_id) != 0)
                        abort();
        }
        for (const char *p = ev->text; *p; p++)
                if (*p < 0x20 || *p > 0x7e)
                        abort();
}

static void on_event(void *userdata, const struct xpu_kernel_event *ev) {
        check_event(ev);
        (*(size_t *)userdata)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_strndup(data, size);
        if (!text)
                return 0;
        struct xpu_kernel_event ev;
        int r = xpud_kmsg_parse(text, &ev);
        if (r != 1 && r != 0 && r != -EINVAL)
                abort();
        if (r == 1)
                check_event(&ev);
        free(text);

        /* The stream: the bytes through a pipe, in two writes (a pipe holds 64 KiB: inputs are
         * cut to 60 KiB). */
        int p[2];
        if (size > 60 * 1024)
                size = 60 * 1024;
        if (pipe2(p, O_CLOEXEC) < 0)
                return 0;
        struct xpud_kmsg k;
        xpud_kmsg_init(&k, p[0], "fuzz");
        if (fcntl(p[0], F_SETFL, O_NONBLOCK) < 0)
                abort();
        size_t half = size / 2, events = 0, lines = 0;
        for (size_t i = 0; i < size; i++)
                lines += data[i] == '\n';
        if (write(p[1], data, half) != (ssize_t)half)
                abort();
        int n = xpud_kmsg_poll(&k, on_event, &events);
        if (write(p[1], data + half, size - half) != (ssize_t)(size - half))
                abort();
        close(p[1]);
        int m = xpud_kmsg_poll(&k, on_event, &events);
        if (n < 0 || m < 0 || events != (size_t)n + (size_t)m || events > lines + 1)
                abort();
        xpud_kmsg_done(&k);
        return 0;
}
