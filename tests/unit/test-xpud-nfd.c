/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/nfd.c, the labels that say what a node can run: xpu.vendor, xpu.arch (one target, or
 * mixed with a count per target), xpu.nvidia.cc and xpu.nvidia.cuda as integers, xpu.amd.generic,
 * xpu.memory.mib (the smallest), xpu.partition; each left out when a device's fact is unknown, and
 * every line a valid NFD label (name and value at most 63 characters of [A-Za-z0-9._-], starting
 * and ending with a letter or digit). The node: hand-built snapshots (xpud-fixture.h and
 * variations of it). */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "nfd.h"
#include "amd/amd-facts.h"
#include "nvidia/nvidia-facts.h"
#include "testlib.h"
#include "xpud-fixture.h"

#define P "feature.node.kubernetes.io/"

static char *render(const struct xpud_snapshot *s) {
        char *text = NULL;
        size_t len = 0;
        ck_assert_int_eq(xpud_nfd_render(s, &text, &len), 0);
        ck_assert_uint_eq(strlen(text), len);
        /* Every line a valid label: NFD (and the API server) drop any other. */
        regex_t re;
        ck_assert_int_eq(regcomp(&re,
                                 "^feature\\.node\\.kubernetes\\.io/([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)="
                                 "([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$",
                                 REG_EXTENDED | REG_NOSUB),
                         0);
        char *copy = strdup(text), *save = NULL;
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                ck_assert_msg(regexec(&re, line, 0, NULL, 0) == 0, "not a valid label line: \"%s\"", line);
        free(copy);
        regfree(&re);
        return text;
}

/* The value of label NAME (after the prefix) in TEXT, or NULL. */
static const char *label(const char *text, const char *name) {
        static char v[128];
        char key[128];
        snprintf(key, sizeof key, P "%s=", name);
        for (const char *p = text; p && *p;) {
                const char *eol = strchr(p, '\n');
                size_t len = eol ? (size_t)(eol - p) : strlen(p);
                if (len > strlen(key) && strncmp(p, key, strlen(key)) == 0) {
                        snprintf(v, sizeof v, "%.*s", (int)(len - strlen(key)), p + strlen(key));
                        return v;
                }
                p = eol ? eol + 1 : NULL;
        }
        return NULL;
}

#define LABEL_IS(text, name, want)                                                                         \
        do {                                                                                               \
                const char *got_ = label(text, name);                                                      \
                ck_assert_msg(got_ && strcmp(got_, want) == 0, "%s: got %s, want %s", name,                \
                              got_ ? got_ : "(absent)", want);                                             \
        } while (0)
#define LABEL_ABSENT(text, name)                                                                           \
        ck_assert_msg(label(text, name) == NULL, "%s: %s, want it absent", name, label(text, name))

/* Two H100 (9.0) and two MI210 (gfx90a): the fixture node. NVIDIA's MIG mode and every memory
 * size unknown (no NVML readings of them here). */
START_TEST(test_mixed_node) {
        struct xpud_snapshot *s = fx_snapshot();
        char *t = render(s);
        /* The fixture's gfx_target without XPU_HAVE_GFX_TARGET_VERSION: not known to be true. */
        LABEL_ABSENT(t, "xpu.arch");
        LABEL_IS(t, "xpu.arch.sm_90", "2");
        free(t);
        s->devices[2].dev.have |= XPU_HAVE_GFX_TARGET_VERSION;
        s->devices[3].dev.have |= XPU_HAVE_GFX_TARGET_VERSION;
        t = render(s);
        LABEL_IS(t, "xpu.vendor", "mixed");
        LABEL_IS(t, "xpu.arch", "mixed");
        LABEL_IS(t, "xpu.arch.sm_90", "2");
        LABEL_IS(t, "xpu.arch.gfx90a", "2");
        LABEL_IS(t, "xpu.nvidia.cc", "90");
        LABEL_IS(t, "xpu.nvidia.cuda", "124");
        LABEL_ABSENT(t, "xpu.amd.generic"); /* gfx90a belongs to no generic family */
        LABEL_ABSENT(t, "xpu.memory.mib");
        LABEL_ABSENT(t, "xpu.partition");
        /* The labels that were there before stay. */
        LABEL_IS(t, "xpu.count", "4");
        LABEL_IS(t, "xpu.nvidia.product", "NVIDIA-H100-80GB-HBM3");
        free(t);

        /* Memory known everywhere: the smallest, in MiB; MIG mode known off and the AMD GPUs
         * unpartitioned: none. */
        for (size_t i = 0; i < s->n_devices; i++) {
                s->devices[i].dev.have |= XPU_HAVE_MEMORY_TOTAL;
                s->devices[i].dev.memory_total_bytes = i < 2 ? 85520809984ull : 68702699520ull;
        }
        s->devices[0].dev.have |= XPU_HAVE_MIG_MODE;
        s->devices[1].dev.have |= XPU_HAVE_MIG_MODE;
        t = render(s);
        LABEL_IS(t, "xpu.memory.mib", "65520"); /* 68702699520 / 2^20 = 65520 */
        LABEL_IS(t, "xpu.partition", "none");
        free(t);

        /* MIG on one H100: the node is partitioned two ways. */
        xpu_nvidia_facts(&s->devices[1].dev)->mig_enabled = true;
        t = render(s);
        LABEL_IS(t, "xpu.partition", "mixed");
        free(t);
        xpud_snapshot_unref(s);
}
END_TEST

/* Only AMD: four MI300X partitions (gfx942, CPX/NPS4). */
START_TEST(test_amd_node) {
        struct xpud_snapshot *s = fx_snapshot();
        for (size_t i = 0; i < s->n_devices; i++) {
                struct xpu_device *d = &s->devices[i].dev;
                d->vendor = XPU_VENDOR_AMD;
                memset(d->vendor_facts, 0, sizeof d->vendor_facts); /* no NVIDIA facts left in its storage */
                snprintf(xpu_amd_facts(d)->gfx_target, sizeof xpu_amd_facts(d)->gfx_target, "gfx942");
                d->have |= XPU_HAVE_GFX_TARGET_VERSION | XPU_HAVE_PARTITION | XPU_HAVE_MEMORY_TOTAL;
                d->partition = (uint32_t)i;
                d->memory_total_bytes = 51539607552ull; /* 48 GiB */
                snprintf(xpu_amd_facts(d)->partition_mode, sizeof xpu_amd_facts(d)->partition_mode, "cpx_nps4");
                snprintf(d->name, sizeof d->name, "AMD Instinct MI300X");
        }
        char *t = render(s);
        LABEL_IS(t, "xpu.vendor", "amd");
        LABEL_IS(t, "xpu.arch", "gfx942");
        LABEL_ABSENT(t, "xpu.arch.gfx942"); /* one target: no counters */
        LABEL_IS(t, "xpu.amd.generic", "gfx9-4-generic");
        LABEL_ABSENT(t, "xpu.nvidia.cc");   /* NVIDIA's labels are NVIDIA-only */
        LABEL_ABSENT(t, "xpu.nvidia.cuda"); /* the host has a CUDA version (fixture), but no NVIDIA GPU */
        LABEL_IS(t, "xpu.memory.mib", "49152");
        LABEL_IS(t, "xpu.partition", "cpx_nps4");
        free(t);

        /* A partition whose driver shows no mode: partitioned, but how is unknown. */
        xpu_amd_facts(&s->devices[2].dev)->partition_mode[0] = '\0';
        t = render(s);
        LABEL_ABSENT(t, "xpu.partition");
        free(t);
        /* A target with features: they are dropped (":" is no label character). */
        snprintf(xpu_amd_facts(&s->devices[3].dev)->gfx_target, sizeof xpu_amd_facts(&s->devices[3].dev)->gfx_target, "gfx90a:xnack-");
        t = render(s);
        LABEL_IS(t, "xpu.arch", "mixed");
        LABEL_IS(t, "xpu.arch.gfx942", "3");
        LABEL_IS(t, "xpu.arch.gfx90a", "1");
        LABEL_ABSENT(t, "xpu.amd.generic"); /* gfx90a: no family shared by all */
        free(t);
        /* Two generic families. */
        snprintf(xpu_amd_facts(&s->devices[3].dev)->gfx_target, sizeof xpu_amd_facts(&s->devices[3].dev)->gfx_target, "gfx1100");
        t = render(s);
        LABEL_ABSENT(t, "xpu.amd.generic");
        LABEL_IS(t, "xpu.arch.gfx1100", "1");
        free(t);
        xpud_snapshot_unref(s);
}
END_TEST

/* Only NVIDIA: an H100 (9.0) and an L4 (8.9), then one whose compute capability NVML did not
 * give. */
START_TEST(test_nvidia_node) {
        struct xpud_snapshot *s = fx_snapshot();
        s->n_devices = 2; /* the H100s; the AMD entries stay allocated and are freed with s */
        snprintf(xpu_nvidia_facts(&s->devices[1].dev)->compute_capability, sizeof xpu_nvidia_facts(&s->devices[1].dev)->compute_capability, "8.9");
        snprintf(s->inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version,
                 sizeof s->inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version, "13.0");
        char *t = render(s);
        LABEL_IS(t, "xpu.vendor", "nvidia");
        LABEL_IS(t, "xpu.arch", "mixed");
        LABEL_IS(t, "xpu.arch.sm_90", "1");
        LABEL_IS(t, "xpu.arch.sm_89", "1");
        LABEL_IS(t, "xpu.nvidia.cc", "89"); /* the smallest: every GPU has at least it */
        LABEL_IS(t, "xpu.nvidia.cuda", "130");
        LABEL_ABSENT(t, "xpu.amd.generic");
        free(t);

        xpu_nvidia_facts(&s->devices[1].dev)->compute_capability[0] = '\0';
        t = render(s);
        LABEL_ABSENT(t, "xpu.arch");       /* one GPU's target unknown: not "sm_90" for the node */
        LABEL_IS(t, "xpu.arch.sm_90", "1"); /* the one that is known is counted */
        LABEL_ABSENT(t, "xpu.nvidia.cc");
        free(t);

        /* A CUDA version the integers cannot carry, or none: no label. */
        snprintf(xpu_nvidia_facts(&s->devices[1].dev)->compute_capability, sizeof xpu_nvidia_facts(&s->devices[1].dev)->compute_capability, "9.0");
        static const char *const bad[] = { "", "12", "12.10", "x.1", "12.2.1", "1234.5" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                snprintf(s->inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version,
                         sizeof s->inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version, "%s", bad[i]);
                t = render(s);
                ck_assert_msg(label(t, "xpu.nvidia.cuda") == NULL, "\"%s\" gave %s", bad[i], label(t, "xpu.nvidia.cuda"));
                LABEL_IS(t, "xpu.arch", "sm_90");
                free(t);
        }
        s->n_devices = 4;
        xpud_snapshot_unref(s);
}
END_TEST

/* No device: the node says so and nothing more. */
START_TEST(test_empty_node) {
        struct xpud_snapshot *s = fx_snapshot();
        size_t n = s->n_devices;
        s->n_devices = 0;
        char *t = render(s);
        LABEL_IS(t, "xpu.present", "false");
        LABEL_ABSENT(t, "xpu.vendor");
        LABEL_ABSENT(t, "xpu.arch");
        LABEL_ABSENT(t, "xpu.memory.mib");
        free(t);
        s->n_devices = n;
        xpud_snapshot_unref(s);
}
END_TEST

static Suite *nfd_suite(void) {
        Suite *s = suite_create("xpud-nfd");
        TCase *tc = tcase_create("labels");
        tcase_add_test(tc, test_mixed_node);
        tcase_add_test(tc, test_amd_node);
        tcase_add_test(tc, test_nvidia_node);
        tcase_add_test(tc, test_empty_node);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(nfd_suite());
}
