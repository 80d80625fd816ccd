/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the parent's parser of the NVML helper's reply (probes/nvidia/nvidia-nvml-parse.h,
 * xpu_nvml_parse_reply(), with and without an error buffer) and, for a reply it accepts, the
 * merge into a small fixed inventory (three NVIDIA GPUs by bus id: one already in MIG mode, one
 * with memory used and a minor known) twice (the second time every fact is set: cross-checks
 * only), and the backend's JSON and text views.
 *
 * Checked besides memory safety (abort() when broken): a success holds at most
 * XPU_NVML_DEVICES_MAX devices, percentages at most 100, at
 * most XPU_MIG_DEVICES_MAX MIG devices each "MIG-..." and only with MIG on, a lost flag exactly
 * when there is a reason; a failure returns nothing and a non-empty error line; the merge matches
 * at most as many devices as the reply has. Corpus: tests/fuzz/corpus/nvml-reply/. */
#include <errno.h>
#include <stdio.h>

#include <cJSON.h>

#include "fuzz.h"
#include "nvidia/nvidia-facts.h"
#include "nvidia/nvidia-nvml.h"
#include "nvidia/nvidia-nvml-parse.h"
#include "rich.h"

static void check_result(const struct xpu_nvml_result *r) {
        if (r->n > XPU_NVML_DEVICES_MAX)
                abort();
        for (size_t i = 0; i < r->n; i++) {
                const struct xpu_nvml_device *d = &r->devices[i];
                if (d->lost != (d->lost_reason[0] != '\0'))
                        abort();
                if (d->utilization_gpu_percent > 100 || d->utilization_memory_percent > 100)
                        abort();
                if (d->n_mig > XPU_MIG_DEVICES_MAX || (d->n_mig > 0 && !d->mig_enabled))
                        abort();
                for (size_t m = 0; m < d->n_mig; m++)
                        if (strncmp(d->mig[m].uuid, "MIG-", 4) != 0)
                                abort();
        }
}

static void merge_into_fixed_inventory(const struct xpu_nvml_result *r) {
        static const char *const buses[] = { "0000:01:00.0", "0000:1a:00.0", "0000:1b:00.0" };
        struct xpu_inventory *inv = xpu_inventory_new();
        if (!inv)
                return;
        for (size_t i = 0; i < ELEMENTSOF(buses); i++) {
                struct xpu_device d = { .vendor = XPU_VENDOR_NVIDIA, .source = XPU_SOURCE_PROCFS, .index = (unsigned)i };
                memcpy(d.pci_bus_id, buses[i], strlen(buses[i]) + 1);
                memcpy(d.uuid, "GPU-307dcc96-618a-4416-c1ef-87823c2e1a31", 41);
                xpu_nvidia_facts(&d)->minor = (uint32_t)i;
                d.have = XPU_HAVE_MINOR;
                if (i == 1) {
                        d.have |= XPU_HAVE_MIG_MODE | XPU_HAVE_MEMORY_USED;
                        xpu_nvidia_facts(&d)->mig_enabled = true;
                        d.memory_used_bytes = 1u << 20;
                }
                if (!xpu_inventory_add_device(inv, &d)) {
                        xpu_inventory_free(inv);
                        return;
                }
        }
        for (int pass = 0; pass < 2; pass++) {
                int matched = xpu_nvml_merge(inv, r);
                if (matched > (int)r->n)
                        abort();
        }
        for (size_t i = 0; i < inv->n_devices; i++)
                if (xpu_nvidia_facts(&inv->devices[i])->n_mig > XPU_MIG_DEVICES_MAX)
                        abort();
        xpu_inventory_free(inv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_strndup(data, size);
        if (!text)
                return 0;
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        int e = xpu_nvml_parse_reply(text, &r, err, sizeof err);
        if (e == 0) {
                if (!r)
                        abort();
                check_result(r);
                merge_into_fixed_inventory(r);
                cJSON_Delete(xpu_rich_nvml.to_json(r));
                char *buf = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&buf, &len); /* memory, not a file */
                if (f) {
                        xpu_rich_nvml.print(r, f);
                        fclose(f);
                }
                free(buf);
                r = xpu_nvml_result_free(r);
        } else if (r || (e != -ENOMEM && !err[0])) {
                abort();
        }
        if (xpu_nvml_parse_reply(text, &r, NULL, 0) == 0)
                xpu_nvml_result_free(r);
        free(text);
        return 0;
}
