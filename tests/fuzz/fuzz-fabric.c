/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the fabric sets' variables (probes/fabric.h): xpu_fabric_parse_channels() on the
 * input as NVIDIA_IMEX_CHANNELS holds it, and xpu_fabric_parse_enabled() on it as XPU_RDMA does.
 *
 * Checked besides memory safety (abort() when broken): an accepted list is ascending, each id
 * once and at most XPU_FABRIC_CHANNEL_MAX, at most XPU_FABRIC_CHANNELS_MAX ids, and "all" has none;
 * a refusal leaves nothing asked for and one terminated, non-empty error line; the switch answers
 * 1, 0 or -EINVAL only. xpu_fabric_channel_id() on the input as a channel node's name: an accepted
 * id is at most XPU_FABRIC_CHANNEL_MAX and its path (xpu_fabric_channel_path()) is the input
 * itself (one name per channel). Corpus: tests/fuzz/corpus/fabric/. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fabric.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *value = fuzz_strndup(data, size);
        if (!value)
                return 0;
        struct xpu_fabric_request r;
        memset(&r, 0xa5, sizeof r); /* the parser sets what it answers, whatever was there */
        char err[256] = "";
        int k = xpu_fabric_parse_channels(value, &r, err, sizeof err);
        if (k == 0) {
                if (r.n_channels > XPU_FABRIC_CHANNELS_MAX || (r.all && r.n_channels) || (r.all && !r.wanted) ||
                    (!r.wanted && r.n_channels))
                        abort();
                for (size_t i = 0; i < r.n_channels; i++)
                        if (r.channels[i] > XPU_FABRIC_CHANNEL_MAX || (i && r.channels[i] <= r.channels[i - 1]))
                                abort();
        } else {
                size_t n = strnlen(err, sizeof err);
                if ((k != -EINVAL && k != -E2BIG) || r.wanted || n == 0 || n == sizeof err)
                        abort();
        }
        int e = xpu_fabric_parse_enabled(value);
        if (e != 1 && e != 0 && e != -EINVAL)
                abort();
        const struct xpu_fabric_set *sets[XPU_FABRIC_SETS_MAX];
        enum xpu_vendor vendor[XPU_FABRIC_SETS_MAX];
        size_t n = xpu_fabric_sets(sets, vendor);
        for (size_t i = 0; i < n; i++) {
                if (!sets[i]->channels)
                        continue;
                char name[64], back[64];
                const char *glob = sets[i]->nodes[0].glob; /* the input in place of its '*' */
                const char *star = strchr(glob, '*');
                snprintf(name, sizeof name, "%.*s%s%s", (int)(star - glob), glob, value, star + 1);
                uint32_t id;
                if (xpu_fabric_channel_id(sets[i], name, &id) == 0 &&
                    (id > XPU_FABRIC_CHANNEL_MAX || xpu_fabric_channel_path(sets[i], id, back, sizeof back) < 0 ||
                     strcmp(back, name) != 0))
                        abort();
        }
        free(value);
        return 0;
}
