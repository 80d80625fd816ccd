/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the AMD sysfs text parsers (probes/amd/amd.h) on one text, as the probe hands them a
 * file read from /sys: xpu_amd_parse_properties() (KFD nodes/N/properties and mem_banks/M/
 * properties), then the decoders the probe applies to what it found (xpu_amd_gfx_target() on
 * gfx_target_version, xpu_amd_location_decode() on domain and location_id), and on the same text
 * xpu_amd_parse_dev() (kfd/dev "MAJ:MIN") and xpu_amd_parse_unique_id() (device/unique_id).
 * Corpus: tests/fuzz/corpus/amd-properties/. */
#include "amd/amd.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_strndup(data, size);
        if (!text)
                return 0;

        struct xpu_amd_properties props;
        if (xpu_amd_parse_properties(text, &props) == 0) {
                uint64_t v, domain = 0, location = 0;
                char gfx[16], tiny[4];
                if (xpu_amd_prop_get(&props, XPU_AMD_PROP_GFX_TARGET_VERSION, &v)) {
                        (void)xpu_amd_gfx_target((uint32_t)v, gfx, sizeof gfx);
                        (void)xpu_amd_gfx_target((uint32_t)v, tiny, sizeof tiny);
                }
                (void)xpu_amd_prop_get(&props, XPU_AMD_PROP_DOMAIN, &domain);
                if (xpu_amd_prop_get(&props, XPU_AMD_PROP_LOCATION_ID, &location)) {
                        struct xpu_amd_location loc;
                        (void)xpu_amd_location_decode(domain, location, &loc);
                }
        }

        uint32_t major, minor;
        (void)xpu_amd_parse_dev(text, &major, &minor);
        uint64_t unique_id;
        (void)xpu_amd_parse_unique_id(text, &unique_id);
        free(text);
        return 0;
}
