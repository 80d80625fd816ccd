/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the device-code index a container start reads (xpu_index_parse,
 * probes/devcode/object-json.h), on the input as the index's text. Checks the bounds a start
 * relies on: an accepted index has at most XPU_OBJECT_NAMES_MAX names per list and objects that
 * judge without error; a refused one says why. Each object is written back and read again, as
 * `xpuinit audit --write-index` checks before it writes. Corpus: tests/fuzz/corpus/index/ (indexes
 * of the CUDA 13 libraries and Debian's ROCm 5 packages, lists longer than the audit writes, and
 * the hostile ones of tests/attack/mkhostile.py --seeds). */
#include <errno.h>

#include "base/strv.h"
#include "devcode/judge.h"
#include "devcode/object-json.h"
#include "devcode/object.h"
#include "fuzz.h"

static void check_lists(const struct xpu_object *o) {
        char **const lists[] = { o->needed,      o->nv_sass,     o->nv_ptx,     o->nv_lto,         o->nv_rel_sass,
                                 o->nv_rel_ptx,  o->nv_sections, o->amd_gfx,    o->amd_compression, o->amd_sections };
        for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
                if (xpu_strv_length(lists[i]) > XPU_OBJECT_NAMES_MAX)
                        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        struct xpu_object *objects = NULL;
        size_t n = 0;
        char err[512] = "";
        int r = xpu_index_parse((const char *)data, size, &objects, &n, err, sizeof err);
        if (r == -ENOMEM)
                return 0;
        if (r < 0) {
                if (r != -EINVAL || !err[0] || objects || n)
                        abort(); /* a refusal names its reason and hands nothing back */
                return 0;
        }
        struct xpu_code_target t;
        if (xpu_code_target_parse("gfx90a:xnack-", &t) < 0)
                abort();
        const struct xpu_code_env env = { .hsa_xnack = -1, .cuda_driver = 13000 };
        struct xpu_code_verdict v;
        if (xpu_code_judge(objects, n, &t, &env, &v) == 0)
                xpu_code_verdict_clear(&v);
        for (size_t i = 0; i < n; i++) {
                check_lists(&objects[i]);
                cJSON *j = xpu_object_to_json(&objects[i]);
                struct xpu_object back;
                if (j && xpu_object_from_json(j, &back, err, sizeof err) == 0)
                        xpu_object_clear(&back);
                else if (j)
                        abort(); /* what was read, written again, must read back */
                cJSON_Delete(j);
                xpu_object_clear(&objects[i]);
        }
        free(objects);
        return 0;
}
