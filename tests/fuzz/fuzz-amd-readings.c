/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the parsers of the AMD live readings (probes/amd/amd-readings.h) on one text, as the
 * sampler hands them a file read from amdgpu sysfs: xpu_amd_parse_dpm_current() (pp_dpm_sclk,
 * pp_dpm_mclk, pp_dpm_socclk) and xpu_amd_parse_ras_count() (ras/umc_err_count), with their
 * contracts checked: a current clock is a whole number of MHz below 10^9 MHz, outputs are written
 * only on success. Corpus: tests/fuzz/corpus/amd-readings/. */
#include <errno.h>

#include "amd/amd-readings.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = fuzz_strndup(data, size);
        if (!text)
                return 0;
        uint64_t hz = 7;
        int r = xpu_amd_parse_dpm_current(text, &hz);
        if (r == 0 && (hz % 1000000u != 0 || hz / 1000000u > 999999999u))
                abort();
        if (r < 0 && (hz != 7 || (r != -EINVAL && r != -ENODATA)))
                abort();
        uint64_t ue = 7, ce = 7;
        r = xpu_amd_parse_ras_count(text, &ue, &ce);
        if (r < 0 && (ue != 7 || ce != 7 || r != -EINVAL))
                abort();
        free(text);
        return 0;
}
