/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the parent's parser of the CUDA helper's reply (probes/nvidia/nvidia-cuda.h,
 * xpu_cuda_parse_reply(), with and without an error buffer) and, for a reply it accepts, the
 * merge into a small fixed inventory (two NVIDIA GPUs by bus id, one in MIG mode) and the
 * backend's JSON view. Corpus: tests/fuzz/corpus/cuda-reply/. */
#include <cJSON.h>

#include "fuzz.h"
#include "nvidia/nvidia-facts.h"
#include "nvidia/nvidia-cuda.h"
#include "rich.h"

static void merge_into_fixed_inventory(const struct xpu_cuda_result *r) {
        struct xpu_inventory *inv = xpu_inventory_new();
        if (!inv)
                return;
        static const char *const buses[] = { "0000:1a:00.0", "0000:1b:00.0" };
        for (size_t i = 0; i < 2; i++) {
                struct xpu_device d = { .vendor = XPU_VENDOR_NVIDIA, .source = XPU_SOURCE_PROCFS, .index = (unsigned)i };
                memcpy(d.pci_bus_id, buses[i], strlen(buses[i]) + 1);
                memcpy(d.uuid, "GPU-307dcc96-618a-4416-c1ef-87823c2e1a31", 41);
                if (i == 1) {
                        d.have |= XPU_HAVE_MIG_MODE | XPU_HAVE_MEMORY_TOTAL;
                        xpu_nvidia_facts(&d)->mig_enabled = true;
                        d.memory_total_bytes = 1u << 30;
                }
                if (!xpu_inventory_add_device(inv, &d)) {
                        xpu_inventory_free(inv);
                        return;
                }
        }
        (void)xpu_cuda_merge(inv, r);
        (void)xpu_cuda_merge(inv, r); /* again: every fact now set, so only cross-checks */
        xpu_inventory_free(inv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_strndup(data, size);
        if (!text)
                return 0;
        struct xpu_cuda_result *r = NULL;
        char err[256];
        if (xpu_cuda_parse_reply(text, &r, err, sizeof err) == 0) {
                merge_into_fixed_inventory(r);
                cJSON *j = xpu_rich_cuda.to_json(r);
                cJSON_Delete(j);
                r = xpu_cuda_result_free(r);
        }
        if (xpu_cuda_parse_reply(text, &r, NULL, 0) == 0)
                xpu_cuda_result_free(r);
        free(text);
        return 0;
}
