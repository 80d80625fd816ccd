/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: requirement expressions (entrypoint/require.h): xpu_require_parse() on the input
 * (one expression, as XPU_REQUIRE or a profile's match.require holds it), then, when it parses,
 * xpu_require_check() against a fixed synthetic inventory for each vendor, for no vendor (the
 * cpu profile) and with no selection.
 *
 * Checked besides memory safety (abort() when broken): a parse failure returns nothing and one
 * terminated, non-empty error line; a check of a parsed expression on valid arguments answers 1 or
 * 0, never an error, with a terminated, non-empty WHY line.
 * Built only when entrypoint/require.c exists (tests/fuzz/fuzz.mk).
 * Corpus: tests/fuzz/corpus/require/. */
#include <stdio.h>

#include "fuzz.h"
#include "amd/amd-facts.h"
#include "nvidia/nvidia-facts.h"
#include "require.h"

#define GIB (1024ull * 1024 * 1024)

/* Facts the checks compare with: NVIDIA driver 535.54.03 with CUDA 12.2, two H100-like GPUs given
 * to the container (compute capability 9.0 and 8.6) and one not given; two AMD GPUs, gfx90a with
 * 64 GiB and gfx942 with its memory size unknown. */
static const struct {
        enum xpu_vendor vendor;
        unsigned vendor_index;
        const char *compute_capability, *gfx_target;
        uint64_t memory; /* 0: unknown */
        bool available;
} spec[] = {
        {XPU_VENDOR_NVIDIA, 0, "9.0", NULL, 80 * GIB, true},
        {XPU_VENDOR_NVIDIA, 1, "8.6", NULL, 24 * GIB, true},
        {XPU_VENDOR_NVIDIA, 2, "", NULL, 0, false},
        {XPU_VENDOR_AMD, 0, NULL, "gfx90a", 64 * GIB, true},
        {XPU_VENDOR_AMD, 1, NULL, "gfx942", 0, true},
};

static struct xpu_inventory *inv;
static struct xpu_selection *sel;

/* The inventory and its default selection (every available device), built on the first call. */
static void setup(void) {
        if (inv)
                return;
        inv = xpu_inventory_new();
        if (!inv)
                abort();
        inv->vendors[XPU_VENDOR_NVIDIA].driver_loaded = true;
        snprintf(inv->vendors[XPU_VENDOR_NVIDIA].driver_version, sizeof inv->vendors[0].driver_version, "535.54.03");
        snprintf(inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version,
                 sizeof inv->vendors[0].cuda_driver_version, "12.2");
        inv->vendors[XPU_VENDOR_AMD].driver_loaded = true;
        snprintf(inv->vendors[XPU_VENDOR_AMD].driver_version, sizeof inv->vendors[0].driver_version, "6.7.0");
        for (size_t i = 0; i < ELEMENTSOF(spec); i++) {
                struct xpu_device d = {
                        .index = (unsigned)i,
                        .vendor = spec[i].vendor,
                        .vendor_index = spec[i].vendor_index,
                        .n_nodes = 1,
                };
                snprintf(d.uuid, sizeof d.uuid, "GPU-%016zx", i + 1);
                snprintf(d.pci_bus_id, sizeof d.pci_bus_id, "0000:%02zx:00.0", 0x10 + i);
                snprintf(d.nodes[0].path, sizeof d.nodes[0].path, "/dev/fuzz%zu", i);
                d.nodes[0].present = spec[i].available;
                if (spec[i].compute_capability)
                        snprintf(xpu_nvidia_facts(&d)->compute_capability, sizeof xpu_nvidia_facts(&d)->compute_capability, "%s",
                                 spec[i].compute_capability);
                if (spec[i].gfx_target) {
                        snprintf(xpu_amd_facts(&d)->gfx_target, sizeof xpu_amd_facts(&d)->gfx_target, "%s", spec[i].gfx_target);
                        d.have |= XPU_HAVE_GFX_TARGET_VERSION;
                }
                if (spec[i].memory) {
                        d.memory_total_bytes = spec[i].memory;
                        d.have |= XPU_HAVE_MEMORY_TOTAL;
                }
                if (!xpu_inventory_add_device(inv, &d))
                        abort();
        }
        char err[256];
        if (xpu_selection_parse(inv, NULL, NULL, &sel, err, sizeof err) < 0)
                abort();
}

/* WHY must be one non-empty, terminated line. */
static void check_line(const char *why, size_t size) {
        size_t n = strnlen(why, size);
        if (n == 0 || n == size)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        setup();
        char *expr = fuzz_strndup(data, size);
        if (!expr)
                return 0;

        struct xpu_require *r = NULL;
        char why[512] = "";
        if (xpu_require_parse(expr, &r, why, sizeof why) < 0) {
                if (r)
                        abort();
                check_line(why, sizeof why);
                free(expr);
                return 0;
        }
        static const enum xpu_vendor vendors[] = {XPU_VENDOR_NVIDIA, XPU_VENDOR_AMD, _XPU_VENDOR_MAX};
        for (size_t v = 0; v < ELEMENTSOF(vendors); v++) {
                why[0] = '\0';
                int k = xpu_require_check(r, inv, sel, vendors[v], why, sizeof why);
                if (k != 0 && k != 1)
                        abort();
                check_line(why, sizeof why);
                k = xpu_require_check(r, inv, NULL, vendors[v], why, sizeof why);
                if (k != 0 && k != 1)
                        abort();
                /* A tiny WHY buffer is cut, never overrun. */
                char tiny[8];
                (void)xpu_require_check(r, inv, sel, vendors[v], tiny, sizeof tiny);
        }
        xpu_require_free(r);
        free(expr);
        return 0;
}
