/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the audit's reader of one file (xpu_object_read, probes/devcode/object.h) on a
 * memfd holding the input: ELF sections mapped and scanned for fatbin containers and offload
 * bundles (CCOB heads decompressed), standalone fatbin, bundle, cubin, code-object and (named
 * .ptx on every other input) PTX files. Checks that an object comes back whole (path, kind, sorted
 * lists, a vendor whenever code was found), that its JSON form reads back to the same verdicts for
 * a few targets (the index the start-time check trusts), and that clearing leaves nothing (leaks
 * are findings under ASan), and that the object's work counters stay within its budget (a crafted
 * input that costs more is a finding). Corpus: tests/fuzz/corpus/object/ (the devcode fixtures:
 * nvcc and clang output, gcc libraries; the hostile ones of tests/attack/mkhostile.py --seeds). */
#include <errno.h>

#include "devcode/judge.h"
#include "devcode/object-json.h"
#include "devcode/object.h"
#include "fuzz.h"

static int fd = -1;

static void check_roundtrip(const struct xpu_object *o) {
        cJSON *j = xpu_object_to_json(o);
        if (!j)
                return; /* -ENOMEM */
        struct xpu_object back;
        char err[256];
        int r = xpu_object_from_json(j, &back, err, sizeof err);
        cJSON_Delete(j);
        if (r == -ENOMEM)
                return;
        if (r < 0)
                abort(); /* what the audit writes, the check must read */
        static const char *const targets[] = { "sm_80", "sm_90", "sm_120", "gfx90a:xnack-", "gfx1030", "gfx1031" };
        const struct xpu_code_env env = { .hsa_xnack = -1, .cuda_driver = 12080 };
        for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
                struct xpu_code_target t;
                if (xpu_code_target_parse(targets[i], &t) < 0)
                        abort();
                if (xpu_code_object_level(o, &t, &env) != xpu_code_object_level(&back, &t, &env))
                        abort();
        }
        xpu_object_clear(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (fuzz_memfd_fill(&fd, data, size) < 0)
                return 0;
        struct xpu_object o;
        const char *name = size && (data[0] & 1) ? "k.ptx" : "usr/lib/libfuzz.so";
        int r = xpu_object_read(fd, name, size, &o);
        if (r != 0 && r != -ENOEXEC && r != -ENOMEM)
                abort();
        if (r != 0)
                return 0;
        if (!o.path || !xpu_object_kind_name(o.kind) || o.size_bytes != size)
                abort();
        /* The work budget holds whatever the input: a bound is checked after each container or
         * bundle, so at most one more of them (4096 entries, IDs of 1 KiB) is read past it. */
        const struct xpu_object_work *w = &o.work;
        if (w->entries > XPU_OBJECT_WORK_ENTRIES_MAX + 4097 || w->id_bytes > XPU_OBJECT_WORK_ID_BYTES_MAX + (4u << 20) ||
            w->unpacked > XPU_OBJECT_WORK_UNPACKED_MAX || w->decompressions > XPU_OBJECT_WORK_DECOMPRESSIONS_MAX + 1)
                abort();
        if ((xpu_object_has_code(&o, XPU_CODE_VENDOR_NVIDIA) && !(o.vendors & XPU_CODE_VENDOR_NVIDIA)) ||
            (xpu_object_has_code(&o, XPU_CODE_VENDOR_AMD) && !(o.vendors & XPU_CODE_VENDOR_AMD)))
                abort();
        for (char **p = o.amd_gfx; p && p[0] && p[1]; p++)
                if (xpu_code_name_cmp(&p[0], &p[1]) > 0)
                        abort();
        check_roundtrip(&o);
        xpu_object_clear(&o);
        return 0;
}
