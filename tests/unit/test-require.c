/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/require.c: the requirement grammar (OR terms of AND factors, every operator, dotted
 * numbers of unequal length, errors naming the factor) and the check against synthetic
 * inventories (host-wide and per-device facts, unknown facts, the side-by-side message). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "require.h"
#include "amd/amd-facts.h"
#include "nvidia/nvidia-facts.h"
#include "testlib.h"

#define NV XPU_VENDOR_NVIDIA
#define AMD XPU_VENDOR_AMD
#define NO_VENDOR _XPU_VENDOR_MAX
#define GiB (1024ull * 1024 * 1024)

struct dev_spec {
        enum xpu_vendor vendor;
        unsigned vendor_index;
        const char *cc;  /* compute capability, NULL = unknown */
        const char *gfx; /* gfx target, NULL = unknown */
        unsigned long long memory; /* 0 = unknown */
};

/* 0 nvidia:0 (7.5, 11 GiB), 1 nvidia:1 (8.6, 24 GiB), 2 nvidia:2 (no facts), 3 amd:0 (gfx90a,
 * 64 GiB), 4 amd:1 (gfx908, 32 GiB). NVIDIA driver 535.54.03, AMD driver 6.3.6. */
static const struct dev_spec devs[] = {
        { NV, 0, "7.5", NULL, 11 * GiB },   { NV, 1, "8.6", NULL, 24 * GiB },     { NV, 2, NULL, NULL, 0 },
        { AMD, 0, NULL, "gfx90a", 64 * GiB }, { AMD, 1, NULL, "gfx908", 32 * GiB },
};

static struct xpu_inventory *make_inv(const char *nv_driver, const char *cuda) {
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        for (size_t i = 0; i < ELEMENTSOF(devs); i++) {
                struct xpu_device d = { .index = (unsigned)i, .vendor = devs[i].vendor, .vendor_index = devs[i].vendor_index };
                if (devs[i].cc)
                        snprintf(xpu_nvidia_facts(&d)->compute_capability, sizeof xpu_nvidia_facts(&d)->compute_capability, "%s", devs[i].cc);
                if (devs[i].gfx) {
                        snprintf(xpu_amd_facts(&d)->gfx_target, sizeof xpu_amd_facts(&d)->gfx_target, "%s", devs[i].gfx);
                        d.have |= XPU_HAVE_GFX_TARGET_VERSION;
                }
                if (devs[i].memory) {
                        d.memory_total_bytes = devs[i].memory;
                        d.have |= XPU_HAVE_MEMORY_TOTAL;
                }
                ck_assert_ptr_nonnull(xpu_inventory_add_device(inv, &d));
        }
        inv->vendors[NV].driver_loaded = true;
        snprintf(inv->vendors[NV].driver_version, sizeof inv->vendors[NV].driver_version, "%s", nv_driver);
        snprintf(inv->vendors[NV].cuda_driver_version, sizeof inv->vendors[NV].cuda_driver_version, "%s", cuda);
        inv->vendors[AMD].driver_loaded = true;
        snprintf(inv->vendors[AMD].driver_version, sizeof inv->vendors[AMD].driver_version, "6.3.6");
        return inv;
}

/* Parse EXPR and check it (strictly, or LENIENT as xpu_require_check_lenient()): 1 or 0 with WHY,
 * or the parse's error with WHY holding its line. */
static int parse_check(const char *expr, const struct xpu_inventory *inv, const bool *sel, enum xpu_vendor v,
                       bool lenient, char *unchecked, size_t unchecked_size, char *why, size_t size) {
        struct xpu_require *r = NULL;
        int k = xpu_require_parse(expr, &r, why, size);
        if (k < 0)
                return k;
        k = lenient ? xpu_require_check_lenient(r, inv, sel, v, unchecked, unchecked_size, why, size)
                    : xpu_require_check_selected(r, inv, sel, v, why, size);
        xpu_require_free(r);
        return k;
}

static int eval_expr(const char *expr, const struct xpu_inventory *inv, const bool *sel, enum xpu_vendor v, char *why,
                     size_t size) {
        return parse_check(expr, inv, sel, v, false, NULL, 0, why, size);
}

static int eval_lenient(const char *expr, const struct xpu_inventory *inv, const bool *sel, enum xpu_vendor v,
                        char *unchecked, size_t unchecked_size, char *why, size_t size) {
        return parse_check(expr, inv, sel, v, true, unchecked, unchecked_size, why, size);
}

/* Evaluate EXPR; asserts it parses; returns 1 or 0, WHY filled. */
static int eval(const struct xpu_inventory *inv, const bool *sel, enum xpu_vendor v, const char *expr, char *why,
                size_t size) {
        int r = eval_expr(expr, inv, sel, v, why, size);
        ck_assert_msg(r == 0 || r == 1, "\"%s\": %d (%s)", expr, r, why);
        return r;
}

static const bool nv_all[5] = { true, true, false, false, false };
static const bool amd_all[5] = { false, false, false, true, true };

START_TEST(test_grammar_normal_form) {
        static const struct {
                const char *in, *out;
        } cases[] = {
                { "cuda>=12.2", "cuda>=12.2" },
                /* the toolkit's NVIDIA_REQUIRE_CUDA shape: white space of any kind between terms */
                { "  cuda>=11.0 brand=tesla,driver>=418,driver<419\t\nbrand=tesla,driver>=440 ",
                  "cuda>=11.0 brand=tesla,driver>=418,driver<419 brand=tesla,driver>=440" },
                { "DRIVER>=1,Vendor=NVIDIA", "driver>=1,vendor=NVIDIA" }, /* keys in lower case */
                { "memory>=0,gfx!=gfx90a,rocm<6,arch<=9.0,cuda>1", "memory>=0,gfx!=gfx90a,rocm<6,arch<=9.0,cuda>1" },
                { "", "" },
                { " \t\n", "" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct xpu_require *r = NULL;
                char err[256] = "";
                ck_assert_msg(xpu_require_parse(cases[i].in, &r, err, sizeof err) == 0, "%s: %s", cases[i].in, err);
                ck_assert_str_eq(xpu_require_to_string(r), cases[i].out);
                xpu_require_free(r);
        }
        ck_assert_ptr_null(xpu_require_free(NULL));
        ck_assert_str_eq(xpu_require_to_string(NULL), "");
}
END_TEST

START_TEST(test_empty_is_met) {
        struct xpu_inventory *inv = make_inv("535.54.03", "");
        char why[256];
        ck_assert_int_eq(eval_expr("   ", inv, nv_all, NV, why, sizeof why), 1);
        ck_assert_str_eq(why, "no requirement");
        ck_assert_int_eq(xpu_require_check(NULL, inv, NULL, NV, why, sizeof why), 1);
        xpu_inventory_free(inv);
}
END_TEST

/* Every operator on the driver version 535.54.03 (a leading zero is just a number). */
START_TEST(test_operators) {
        static const struct {
                const char *expr;
                int met;
        } cases[] = {
                { "driver=535.54.03", 1 }, { "driver=535.54.3", 1 },   { "driver=535.54", 0 },
                { "driver!=535.54.03", 0 }, { "driver!=535.54", 1 },   { "driver<535.54.04", 1 },
                { "driver<535.54.03", 0 }, { "driver<=535.54.03", 1 }, { "driver<=535.54.02", 0 },
                { "driver>535.54", 1 },    { "driver>535.54.03", 0 },  { "driver>=535.54.03", 1 },
                { "driver>=535.55", 0 },   { "driver>=535", 1 },       { "driver<536", 1 },
                { "driver>1000", 0 },
        };
        struct xpu_inventory *inv = make_inv("535.54.03", "");
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char why[512];
                ck_assert_msg(eval(inv, nv_all, NV, cases[i].expr, why, sizeof why) == cases[i].met, "%s: %s",
                              cases[i].expr, why);
        }
        xpu_inventory_free(inv);
}
END_TEST

/* Dotted numbers of unequal length: numeric per component, a missing component is 0. */
START_TEST(test_dotted_unequal_length) {
        static const struct {
                const char *host, *expr;
                int met;
        } cases[] = {
                { "12.10", "cuda>12.9", 1 },   { "12.10", "cuda>=12.10", 1 }, { "12.10", "cuda=12.10.0", 1 },
                { "12.10", "cuda>12", 1 },     { "12.10", "cuda<12.9", 0 },   { "12.10", "cuda<12.10.1", 1 },
                { "12.9", "cuda<12.10", 1 },   { "12.9", "cuda>=12.10", 0 },  { "12.9", "cuda>12", 1 },
                { "12", "cuda=12.0", 1 },      { "12", "cuda=12.0.0.0", 1 },  { "12", "cuda<12.1", 1 },
                { "12", "cuda>=12.0.1", 0 },   { "12", "cuda!=12.00", 0 },    { "11.8", "cuda>=12", 0 },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct xpu_inventory *inv = make_inv("535.54.03", cases[i].host);
                char why[512];
                ck_assert_msg(eval(inv, nv_all, NV, cases[i].expr, why, sizeof why) == cases[i].met,
                              "host %s, %s: %s", cases[i].host, cases[i].expr, why);
                xpu_inventory_free(inv);
        }
}
END_TEST

static const struct {
        const char *expr, *err;
} bad[] = {
        { "driverr>=1", "requirement \"driverr>=1\": unknown key \"driverr\"; expected one of vendor, driver, cuda, "
                        "arch, brand, rocm, gfx, memory, l4t" },
        { "cuda>=12 nvml>1", "requirement \"nvml>1\": unknown key \"nvml\"; expected one of vendor, driver, cuda, "
                             "arch, brand, rocm, gfx, memory, l4t" },
        { "cuda>=x", "requirement \"cuda>=x\": \"x\" is not a dotted number (e.g. 12.2)" },
        { "cuda>=12.", "requirement \"cuda>=12.\": \"12.\" is not a dotted number (e.g. 12.2)" },
        { "cuda>=12..1", "requirement \"cuda>=12..1\": \"12..1\" is not a dotted number (e.g. 12.2)" },
        { "cuda>=.1", "requirement \"cuda>=.1\": \".1\" is not a dotted number (e.g. 12.2)" },
        { "driver>=18446744073709551616",
          "requirement \"driver>=18446744073709551616\": \"18446744073709551616\" is not a dotted number (e.g. 12.2)" },
        { "cuda==12", "requirement \"cuda==12\": unknown operator \"==\"; expected one of = != < <= > >=" },
        { "cuda=>12", "requirement \"cuda=>12\": unknown operator \"=>\"; expected one of = != < <= > >=" },
        { "cuda", "requirement \"cuda\": expected an operator after \"cuda\", one of = != < <= > >=" },
        { "cuda~12", "requirement \"cuda~12\": expected an operator after \"cuda\", one of = != < <= > >=" },
        { "cuda>=", "requirement \"cuda>=\": no value after \">=\"" },
        { "cuda>=12,", "requirement \"cuda>=12,\": empty factor (a comma at either end, or two in a row)" },
        { ",cuda>=12", "requirement \",cuda>=12\": empty factor (a comma at either end, or two in a row)" },
        { "cuda>=12,,driver>1",
          "requirement \"cuda>=12,,driver>1\": empty factor (a comma at either end, or two in a row)" },
        { ">=12", "requirement \">=12\": expected KEY OP VALUE, e.g. cuda>=12.2" },
        { "12.2", "requirement \"12.2\": expected KEY OP VALUE, e.g. cuda>=12.2" },
        { "\x01\xff", "requirement \"??\": expected KEY OP VALUE, e.g. cuda>=12.2" },
        { "brand>tesla", "requirement \"brand>tesla\": brand compares only with = or !=" },
        { "vendor>=nvidia", "requirement \"vendor>=nvidia\": vendor compares only with = or !=" },
        { "gfx<gfx90a", "requirement \"gfx<gfx90a\": gfx compares only with = or !=" },
        { "vendor=nv/idia", "requirement \"vendor=nv/idia\": \"nv/idia\" is not a name (letters, digits, '.', "
                            "'_', '-')" },
        { "brand=a=b", "requirement \"brand=a=b\": \"a=b\" is not a name (letters, digits, '.', '_', '-')" },
        { "memory>=16G", "requirement \"memory>=16G\": \"16G\" is not a number of bytes (plain decimal, no suffix)" },
        { "memory>=-1", "requirement \"memory>=-1\": \"-1\" is not a number of bytes (plain decimal, no suffix)" },
        { "memory>=18446744073709551616", "requirement \"memory>=18446744073709551616\": \"18446744073709551616\" "
                                          "is not a number of bytes (plain decimal, no suffix)" },
        { "brand=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
          "requirement \"brand=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\": value longer "
          "than 64 bytes" },
};

START_TEST(test_parse_errors) {
        struct xpu_require *r = NULL;
        char err[512] = "";
        ck_assert_int_eq(xpu_require_parse(bad[_i].expr, &r, err, sizeof err), -EINVAL);
        ck_assert_ptr_null(r);
        ck_assert_str_eq(err, bad[_i].err);
        /* the check of a start reports the same line */
        struct xpu_inventory *inv = make_inv("535.54.03", "12.2");
        char why[512] = "";
        ck_assert_int_eq(eval_expr(bad[_i].expr, inv, nv_all, NV, why, sizeof why), -EINVAL);
        ck_assert_str_eq(why, bad[_i].err);
        xpu_inventory_free(inv);
}
END_TEST

/* 64 terms of 64 factors parse; one more of either does not; a value of exactly 64 bytes does. */
START_TEST(test_bounds) {
        char expr[64 * 64 * 12 + 16];
        size_t n = 0;
        for (int t = 0; t < 64; t++)
                for (int f = 0; f < 64; f++)
                        n += (size_t)snprintf(expr + n, sizeof expr - n, "%sdriver>%d", f ? "," : t ? " " : "", f);
        struct xpu_require *r = NULL;
        char err[512] = "";
        ck_assert_msg(xpu_require_parse(expr, &r, err, sizeof err) == 0, "%s", err);
        xpu_require_free(r);
        snprintf(expr + n, sizeof expr - n, " cuda>1");
        ck_assert_int_eq(xpu_require_parse(expr, &r, err, sizeof err), -EINVAL);
        ck_assert_str_eq(err, "requirement: more than 64 alternatives (terms separated by spaces)");
        n = 0;
        for (int f = 0; f < 65; f++)
                n += (size_t)snprintf(expr + n, sizeof expr - n, "%scuda>%d", f ? "," : "", f);
        ck_assert_int_eq(xpu_require_parse(expr, &r, err, sizeof err), -EINVAL);
        /* the term is quoted up to 80 bytes */
        ck_assert_msg(strstr(err, "...\": more than 64 factors (separated by commas)") != NULL, "%s", err);
        ck_assert(strncmp(err, "requirement \"cuda>0,cuda>1,", 27) == 0);
        snprintf(expr, sizeof expr, "brand=%064d", 7);
        ck_assert_int_eq(xpu_require_parse(expr, &r, err, sizeof err), 0);
        xpu_require_free(r);
}
END_TEST

/* vendor and brand compare case-insensitively, gfx exactly; keys in any case. */
START_TEST(test_case) {
        struct xpu_inventory *inv = make_inv("535.54.03", "");
        char why[512];
        ck_assert_int_eq(eval(inv, nv_all, NV, "vendor=NVIDIA", why, sizeof why), 1);
        ck_assert_str_eq(why, "requirement \"vendor=NVIDIA\" met");
        ck_assert_int_eq(eval(inv, nv_all, NV, "Vendor=Nvidia", why, sizeof why), 1);
        ck_assert_int_eq(eval(inv, nv_all, NV, "vendor!=nVidia", why, sizeof why), 0);
        ck_assert_int_eq(eval(inv, amd_all, AMD, "VENDOR=amd", why, sizeof why), 1);
        ck_assert_int_eq(eval(inv, amd_all, AMD, "vendor=nvidia", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"vendor=nvidia\" not met: vendor=nvidia but host has vendor amd");
        ck_assert_int_eq(eval(inv, amd_all, AMD, "gfx!=GFX90A,gfx!=GFX908", why, sizeof why), 1);
        const bool amd0[5] = { false, false, false, true, false };
        ck_assert_int_eq(eval(inv, amd0, AMD, "gfx=gfx90a", why, sizeof why), 1);
        ck_assert_int_eq(eval(inv, amd0, AMD, "gfx=GFX90A", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"gfx=GFX90A\" not met: gfx=GFX90A but host has amd:0 with gfx90a");
        /* brand parses in any case; the fast path has no brand, so it is never met */
        ck_assert_int_eq(eval(inv, nv_all, NV, "BRAND=Tesla", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"brand=Tesla\" not met: brand=Tesla but nvidia:0 brand unknown (needs "
                              "the rich probe)");
        xpu_inventory_free(inv);
}
END_TEST

/* Per-device factors hold when every selected device of the vendor satisfies them. */
START_TEST(test_per_device) {
        struct xpu_inventory *inv = make_inv("535.54.03", "12.2");
        char why[512];
        const bool nv1[5] = { false, true, false, false, false }, none[5] = { false };
        ck_assert_int_eq(eval(inv, nv_all, NV, "arch>=7.5", why, sizeof why), 1);
        ck_assert_int_eq(eval(inv, nv_all, NV, "arch>=8.0", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"arch>=8.0\" not met: arch>=8.0 but host has nvidia:0 with compute "
                              "capability 7.5");
        ck_assert_int_eq(eval(inv, nv1, NV, "arch>=8.0", why, sizeof why), 1);
        ck_assert_int_eq(eval(inv, nv1, NV, "arch=8.6,arch!=8.0", why, sizeof why), 1);
        /* no selected device: holds, as in the toolkit */
        ck_assert_int_eq(eval(inv, none, NV, "arch>=99,memory>=99999999999999", why, sizeof why), 1);
        ck_assert_int_eq(eval(inv, NULL, NV, "arch>=99", why, sizeof why), 1);
        /* AMD devices do not count for an NVIDIA profile, nor NVIDIA ones for an AMD profile */
        const bool everything[5] = { true, true, false, true, true };
        ck_assert_int_eq(eval(inv, everything, NV, "memory<=25769803776", why, sizeof why), 1);
        ck_assert_int_eq(eval(inv, everything, AMD, "memory<=25769803776", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"memory<=25769803776\" not met: memory<=25769803776 but host has amd:0 "
                              "with 68719476736 bytes");
        ck_assert_int_eq(eval(inv, nv_all, NV, "memory>11811160064", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"memory>11811160064\" not met: memory>11811160064 but host has nvidia:0 "
                              "with 11811160064 bytes");
        ck_assert_int_eq(eval(inv, nv_all, NV, "memory=11811160064", why, sizeof why), 0);
        ck_assert_int_eq(eval(inv, nv_all, NV, "memory>=11811160064", why, sizeof why), 1);
        ck_assert_int_eq(eval(inv, nv1, NV, "memory=25769803776", why, sizeof why), 1);
        ck_assert_int_eq(eval(inv, amd_all, AMD, "gfx=gfx90a", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"gfx=gfx90a\" not met: gfx=gfx90a but host has amd:1 with gfx908");
        xpu_inventory_free(inv);
}
END_TEST

/* A fact the host does not report fails its factor, whatever the operator, and says so. */
START_TEST(test_unknown_facts) {
        struct xpu_inventory *inv = make_inv("535.54.03", "");
        char why[512];
        const bool nv2[5] = { false, false, true, false, false };
        ck_assert_int_eq(eval(inv, nv_all, NV, "cuda>=12.4", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"cuda>=12.4\" not met: cuda>=12.4 but host CUDA driver version unknown "
                              "(needs the rich probe); driver 535.54.03");
        ck_assert_int_eq(eval(inv, nv_all, NV, "cuda<1", why, sizeof why), 0);
        ck_assert_int_eq(eval(inv, amd_all, AMD, "rocm>=5", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"rocm>=5\" not met: rocm>=5 but host ROCm version unknown (no backend "
                              "reports it yet)");
        ck_assert_int_eq(eval(inv, amd_all, AMD, "rocm!=5", why, sizeof why), 0);
        ck_assert_int_eq(eval(inv, nv2, NV, "arch>=1", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"arch>=1\" not met: arch>=1 but nvidia:2 compute capability unknown "
                              "(needs the rich probe)");
        ck_assert_int_eq(eval(inv, nv2, NV, "memory>=0", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"memory>=0\" not met: memory>=0 but nvidia:2 memory size unknown (needs the "
                              "rich probe)");
        ck_assert_int_eq(eval(inv, nv2, NV, "gfx!=gfx90a", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"gfx!=gfx90a\" not met: gfx!=gfx90a but nvidia:2 gfx target unknown");
        ck_assert_int_eq(eval(inv, amd_all, AMD, "arch>=1", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"arch>=1\" not met: arch>=1 but amd:0 compute capability unknown (needs "
                              "the rich probe)");
        /* no profile vendor (cpu): vendor facts are absent, "vendor!=" holds, devices are none */
        ck_assert_int_eq(eval(inv, nv_all, NO_VENDOR, "driver>=1", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"driver>=1\" not met: driver>=1 but host has no vendor driver (cpu "
                              "profile)");
        ck_assert_int_eq(eval(inv, nv_all, NO_VENDOR, "vendor=nvidia", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"vendor=nvidia\" not met: vendor=nvidia but host has no vendor (cpu "
                              "profile)");
        ck_assert_int_eq(eval(inv, nv_all, NO_VENDOR, "vendor!=nvidia,vendor!=amd,arch>=99", why, sizeof why), 1);
        /* AMD without a driver version (in-tree amdgpu) and NVIDIA without any driver */
        inv->vendors[AMD].driver_version[0] = '\0';
        ck_assert_int_eq(eval(inv, amd_all, AMD, "driver>=1", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"driver>=1\" not met: driver>=1 but host amd driver version unknown");
        inv->vendors[NV].driver_version[0] = '\0';
        inv->vendors[NV].driver_loaded = false;
        ck_assert_int_eq(eval(inv, nv_all, NV, "driver<999", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"driver<999\" not met: driver<999 but host nvidia driver version unknown "
                              "(no driver loaded)");
        ck_assert_int_eq(eval(inv, nv_all, NV, "cuda>=1", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"cuda>=1\" not met: cuda>=1 but host CUDA driver version unknown (no "
                              "nvidia driver loaded)");
        /* a driver version that is not a dotted number is not compared */
        snprintf(inv->vendors[NV].driver_version, sizeof inv->vendors[NV].driver_version, "535.54.03-custom");
        ck_assert_int_eq(eval(inv, nv_all, NV, "driver!=1", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"driver!=1\" not met: driver!=1 but host nvidia driver "
                              "\"535.54.03-custom\" is not a dotted number");
        xpu_inventory_free(inv);
}
END_TEST

/* The side-by-side line of the issue, on a host with driver 535.54.03. */
START_TEST(test_side_by_side) {
        struct xpu_inventory *inv = make_inv("535.54.03", "");
        char why[1024];
        ck_assert_int_eq(eval(inv, nv_all, NV, "driver>=550", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"driver>=550\" not met: driver>=550 but host has nvidia driver "
                              "535.54.03; update the driver or use CUDA forward compatibility");
        ck_assert_int_eq(eval(inv, nv_all, NV, "vendor=nvidia,driver>=535,driver<535.54", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"vendor=nvidia,driver>=535,driver<535.54\" not met: driver<535.54 but "
                              "host has nvidia driver 535.54.03; update the driver or use CUDA forward "
                              "compatibility");
        snprintf(inv->vendors[NV].cuda_driver_version, sizeof inv->vendors[NV].cuda_driver_version, "12.2");
        ck_assert_int_eq(eval(inv, nv_all, NV, "cuda>=12.4", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"cuda>=12.4\" not met: cuda>=12.4 but host has CUDA driver 12.2 (driver "
                              "535.54.03); update the driver or use CUDA forward compatibility");
        /* OR: the first term's first failing factor; any term met is enough */
        ck_assert_int_eq(eval(inv, nv_all, NV, "cuda>=12.4 brand=tesla,driver>=470", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"cuda>=12.4 brand=tesla,driver>=470\" not met: no alternative met; "
                              "first: cuda>=12.4 but host has CUDA driver 12.2 (driver 535.54.03); update the driver "
                              "or use CUDA forward compatibility");
        ck_assert_int_eq(eval(inv, nv_all, NV, "cuda>=12.4 vendor=nvidia,cuda>=12.2", why, sizeof why), 1);
        ck_assert_str_eq(why, "requirement \"cuda>=12.4 vendor=nvidia,cuda>=12.2\" met");
        /* AMD's driver: no CUDA advice */
        ck_assert_int_eq(eval(inv, amd_all, AMD, "driver>=6.4", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"driver>=6.4\" not met: driver>=6.4 but host has amd driver 6.3.6; "
                              "update the driver");
        /* WHY is cut to its buffer, never overrun */
        char small[24];
        ck_assert_int_eq(eval(inv, nv_all, NV, "driver>=550", small, sizeof small), 0);
        ck_assert_str_eq(small, "requirement \"driver>=55");
        xpu_inventory_free(inv);
}
END_TEST

/* The image's NVIDIA_REQUIRE_* are checked leniently: an unknown fact counts as met and is listed;
 * a known one (driver) is still enforced. */
START_TEST(test_lenient_unknown_facts) {
        struct xpu_inventory *inv = make_inv("465.19.01", ""); /* no CUDA version: fast path */
        char why[1024], unchecked[512];
        /* A typical CUDA image: the cuda alternative cannot be checked, so it counts as met. */
        ck_assert_int_eq(eval_lenient("cuda>=11.0 brand=tesla,driver>=418,driver<419", inv, nv_all, NV,
                                                  unchecked, sizeof unchecked, why, sizeof why),
                         1);
        ck_assert_str_eq(unchecked, "cuda>=11.0 (host CUDA driver version unknown (needs the rich probe); driver "
                                    "465.19.01)");
        /* Known facts are enforced even so. */
        ck_assert_int_eq(eval_lenient("driver>=999", inv, nv_all, NV, unchecked, sizeof unchecked, why,
                                                  sizeof why),
                         0);
        ck_assert_str_eq(unchecked, "");
        ck_assert_msg(strstr(why, "driver>=999 but host has nvidia driver 465.19.01"), "%s", why);
        /* A known failing factor next to an unknown one still fails its term. */
        ck_assert_int_eq(eval_lenient("cuda>=11,driver>=999", inv, nv_all, NV, unchecked,
                                                  sizeof unchecked, why, sizeof why),
                         0);
        /* The strict check never takes the unknown as met. */
        ck_assert_int_eq(eval(inv, nv_all, NV, "cuda>=11.0", why, sizeof why), 0);
        xpu_inventory_free(inv);
}
END_TEST

/* l4t: a Jetson's L4T release, on its fast path; a GPU that is no Jetson's has none (strict: not
 * met; an image variable: unchecked). */
START_TEST(test_l4t) {
        struct xpu_inventory *inv = xpu_test_probe_host("jetson-orin"); /* L4T 36.4.3 */
        const bool one[1] = { true };
        char why[1024], unchecked[512];
        ck_assert_int_eq(eval(inv, one, NV, "l4t>=36", why, sizeof why), 1);
        ck_assert_int_eq(eval(inv, one, NV, "l4t>=36.4.3,l4t<37", why, sizeof why), 1);
        ck_assert_int_eq(eval(inv, one, NV, "l4t>=36.5", why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"l4t>=36.5\" not met: l4t>=36.5 but host has nvidia:0 on L4T 36.4.3 (a "
                              "newer L4T comes with a newer JetPack)");
        ck_assert_int_eq(eval_lenient("l4t>=37", inv, one, NV, unchecked, sizeof unchecked, why, sizeof why), 0);
        xpu_inventory_free(inv);

        inv = make_inv("465.19.01", "");
        ck_assert_int_eq(eval(inv, nv_all, NV, "l4t>=35", why, sizeof why), 0);
        ck_assert_msg(strstr(why, "has no L4T release (not a Jetson"), "%s", why);
        ck_assert_int_eq(eval_lenient("l4t>=35", inv, nv_all, NV, unchecked, sizeof unchecked, why, sizeof why), 1);
        ck_assert_msg(strstr(unchecked, "l4t>=35 (nvidia:0 has no L4T release"), "%s", unchecked);
        xpu_inventory_free(inv);

}
END_TEST

START_TEST(test_rich_facts) {
        struct xpu_inventory *inv = make_inv("535.54.03", "");
        char why[1024];
        /* brand from NVML (the toolkit's spelling), compared case-insensitively */
        snprintf(xpu_nvidia_facts(&inv->devices[0])->brand, sizeof xpu_nvidia_facts(&inv->devices[0])->brand, "geforce");
        snprintf(xpu_nvidia_facts(&inv->devices[1])->brand, sizeof xpu_nvidia_facts(&inv->devices[1])->brand, "tesla");
        const bool nv0[5] = { true, false, false, false, false };
        ck_assert_int_eq(eval_expr("brand=GeForce", inv, nv0, NV, why, sizeof why), 1);
        ck_assert_int_eq(eval_expr("brand=tesla", inv, nv_all, NV, why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"brand=tesla\" not met: brand=tesla but host has nvidia:0 of brand geforce");
        ck_assert_int_eq(eval_expr("brand!=nvs", inv, nv_all, NV, why, sizeof why), 1);
        ck_assert_int_eq(eval_expr("brand=tesla brand=geforce", inv, nv0, NV, why, sizeof why), 1);
        /* a failed rich probe is named where the fact is missing */
        snprintf(inv->vendors[NV].rich_note, sizeof inv->vendors[NV].rich_note,
                 "nvml: NVML helper timed out after 1 s");
        ck_assert_int_eq(eval_expr("cuda>=12.4", inv, nv_all, NV, why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"cuda>=12.4\" not met: cuda>=12.4 but host CUDA driver version unknown "
                              "(nvml: NVML helper timed out after 1 s); driver 535.54.03");
        const bool nv2[5] = { false, false, true, false, false };
        ck_assert_int_eq(eval_expr("arch>=7.0", inv, nv2, NV, why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"arch>=7.0\" not met: arch>=7.0 but nvidia:2 compute capability unknown "
                              "(nvml: NVML helper timed out after 1 s)");
        /* a backend answered but had nothing for this device */
        inv->vendors[NV].rich_ok = (1u << XPU_SOURCE_NVML) | (1u << XPU_SOURCE_CUDA);
        ck_assert_int_eq(eval_expr("brand=tesla", inv, nv2, NV, why, sizeof why), 0);
        ck_assert_str_eq(why, "requirement \"brand=tesla\" not met: brand=tesla but nvidia:2 brand unknown (not "
                              "reported by nvml cuda)");
        xpu_inventory_free(inv);
}
END_TEST

/* Which rich sources an expression, and a start, need. */
START_TEST(test_sources) {
        const uint32_t nvml = 1u << XPU_SOURCE_NVML, cuda = 1u << XPU_SOURCE_CUDA;
        struct xpu_require *r = NULL;
        ck_assert_int_eq(xpu_require_parse("driver>=470 gfx=gfx90a vendor=amd", &r, NULL, 0), 0);
        ck_assert_uint_eq(xpu_require_sources(r), 0);
        xpu_require_free(r);
        /* memory: NVIDIA's procfs lacks it, NVML and libcuda have it */
        ck_assert_int_eq(xpu_require_parse("driver>=470,memory>=1", &r, NULL, 0), 0);
        ck_assert_uint_eq(xpu_require_sources(r), nvml | cuda);
        xpu_require_free(r);
        ck_assert_int_eq(xpu_require_parse("driver>=470 brand=tesla", &r, NULL, 0), 0);
        ck_assert_uint_eq(xpu_require_sources(r), nvml);
        xpu_require_free(r);
        ck_assert_int_eq(xpu_require_parse("cuda>=12", &r, NULL, 0), 0);
        ck_assert_uint_eq(xpu_require_sources(r), nvml | cuda);
        xpu_require_free(r);
        ck_assert_uint_eq(xpu_require_sources(NULL), 0);
}
END_TEST

START_TEST(test_check_arguments) {
        struct xpu_inventory *inv = make_inv("535.54.03", "");
        struct xpu_require *r = NULL;
        char why[512];
        ck_assert_int_eq(xpu_require_parse("driver>=535", &r, NULL, 0), 0);
        bool flags[5] = { true, true, false, false, false };
        struct xpu_selection sel = { .selected = flags, .n = 5 };
        ck_assert_int_eq(xpu_require_check(r, inv, &sel, NV, why, sizeof why), 1);
        ck_assert_int_eq(xpu_require_check(r, inv, NULL, NV, why, sizeof why), 1);
        sel.n = 4; /* a selection of another inventory */
        ck_assert_int_eq(xpu_require_check(r, inv, &sel, NV, why, sizeof why), -EINVAL);
        ck_assert_int_eq(xpu_require_check(r, NULL, NULL, NV, why, sizeof why), -EINVAL);
        ck_assert_int_eq(xpu_require_check(r, inv, NULL, (enum xpu_vendor)(_XPU_VENDOR_MAX + 1), why, sizeof why),
                         -EINVAL);
        ck_assert_int_eq(xpu_require_check(r, inv, NULL, NV, NULL, 0), 1);
        ck_assert_int_eq(xpu_require_parse(NULL, &r, why, sizeof why), -EINVAL);
        xpu_require_free(r);
        /* a parse error without an ERR buffer is still an error */
        r = NULL;
        ck_assert_int_eq(xpu_require_parse("x", &r, NULL, 0), -EINVAL);
        ck_assert_ptr_null(r);
        xpu_inventory_free(inv);
}
END_TEST

static Suite *require_suite(void) {
        Suite *s = suite_create("require");
        TCase *tc = tcase_create("require");
        tcase_add_test(tc, test_grammar_normal_form);
        tcase_add_test(tc, test_empty_is_met);
        tcase_add_test(tc, test_operators);
        tcase_add_test(tc, test_dotted_unequal_length);
        tcase_add_loop_test(tc, test_parse_errors, 0, (int)ELEMENTSOF(bad));
        tcase_add_test(tc, test_bounds);
        tcase_add_test(tc, test_case);
        tcase_add_test(tc, test_per_device);
        tcase_add_test(tc, test_unknown_facts);
        tcase_add_test(tc, test_side_by_side);
        tcase_add_test(tc, test_check_arguments);
        tcase_add_test(tc, test_lenient_unknown_facts);
        tcase_add_test(tc, test_rich_facts);
        tcase_add_test(tc, test_l4t);
        tcase_add_test(tc, test_sources);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(require_suite());
}
