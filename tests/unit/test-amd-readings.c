/* SPDX-License-Identifier: Apache-2.0 */
/* probes/amd/amd-readings.c: AMD live readings from amdgpu sysfs/hwmon with their units, on the
 * amd-mi100x4 fixture host (values from its SOURCE.md capture), on trees written by
 * tests/rocm/mkamdsys.sh and read through the whole AMD fast path, and on hand-made cards that
 * have every file (labels, pp_dpm_*, ras, energy), only power1_input, several hwmon directories,
 * and odd files (each leaves its reading out with one warning naming the file). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "amd/amd-readings.h"
#include "testlib.h"
#include "vendor.h"

/* ---- parsers ---------------------------------------------------------------------------------- */

START_TEST(test_parse_dpm) {
        uint64_t hz = 0;
        ck_assert_int_eq(xpu_amd_parse_dpm_current("0: 500Mhz \n1: 800Mhz *\n2: 1700Mhz \n", &hz), 0);
        ck_assert_uint_eq(hz, 800000000ull);
        ck_assert_int_eq(xpu_amd_parse_dpm_current("0: 96Mhz *\n", &hz), 0);
        ck_assert_uint_eq(hz, 96000000ull);
        /* a sleep level "S:" and MHz in another case; the first current line wins */
        ck_assert_int_eq(xpu_amd_parse_dpm_current("S: 19Mhz *\n0: 500MHz\n1: 2575mhz *\n", &hz), 0);
        ck_assert_uint_eq(hz, 19000000ull);
        ck_assert_int_eq(xpu_amd_parse_dpm_current("0: 500Mhz\n1: 1700Mhz\n", &hz), -ENODATA);
        ck_assert_int_eq(xpu_amd_parse_dpm_current("", &hz), -ENODATA);
        static const char *const bad[] = {
                "0: 500\n",            /* no unit */
                "0: 500Ghz *\n",       /* another unit */
                "0 500Mhz *\n",        /* no colon */
                "0: Mhz *\n",          /* no number */
                "0: 500Mhz * x\n",     /* trailing garbage */
                "0: -5Mhz *\n",        /* negative */
                "0: 1234567890Mhz *\n" /* 10 digits */
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
                hz = 7;
                ck_assert_msg(xpu_amd_parse_dpm_current(bad[i], &hz) == -EINVAL, "accepted \"%s\"", bad[i]);
                ck_assert_uint_eq(hz, 7);
        }
}
END_TEST

START_TEST(test_parse_ras) {
        uint64_t ue = 9, ce = 9;
        ck_assert_int_eq(xpu_amd_parse_ras_count("ue: 0\nce: 12\n", &ue, &ce), 0);
        ck_assert_uint_eq(ue, 0);
        ck_assert_uint_eq(ce, 12);
        ck_assert_int_eq(xpu_amd_parse_ras_count("ce: 3\nue: 4", &ue, &ce), 0);
        ck_assert_uint_eq(ue, 4);
        ck_assert_uint_eq(ce, 3);
        static const char *const bad[] = { "ue: 1\n", "ce: 1\n", "ue: 1\nue: 2\nce: 0\n", "ue: x\nce: 0\n",
                                           "ue: 1\nce: 1\nde: 2\n", "" };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                ck_assert_msg(xpu_amd_parse_ras_count(bad[i], &ue, &ce) == -EINVAL, "accepted \"%s\"", bad[i]);
}
END_TEST

/* ---- readings ---------------------------------------------------------------------------------- */

/* An AMD device on card N (what the fast path gives; only what the reader uses). */
static struct xpu_device card_device(unsigned n) {
        struct xpu_device d = { 0 };
        d.vendor = XPU_VENDOR_AMD;
        d.index = n;
        d.card = n;
        d.have = XPU_HAVE_CARD;
        return d;
}

/* Read DEV below DIR (all three roots = DIR) into *R with a fresh inventory for the warnings. */
static int read_dir(const char *dir, const struct xpu_device *dev, struct xpu_readings *r, struct xpu_inventory **inv,
                    char *err, size_t size) {
        struct xpu_roots roots;
        ck_assert_int_eq(xpu_roots_open(&roots, dir, dir, dir, NULL), 0);
        *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(*inv);
        err[0] = '\0';
        int e = xpu_amd_readings_read(&roots, dev, *inv, r, err, size);
        xpu_roots_close(&roots);
        return e;
}

/* The one warning of INV that names FILE; asserts there is exactly one. */
static const char *warning_for(const struct xpu_inventory *inv, const char *file) {
        const char *found = NULL;
        for (size_t i = 0; i < inv->n_warnings; i++)
                if (strstr(inv->warnings[i], file)) {
                        ck_assert_msg(!found, "two warnings name %s", file);
                        found = inv->warnings[i];
                }
        ck_assert_msg(found, "no warning names %s", file);
        return found;
}

START_TEST(test_fixture_mi100) {
        /* amd-mi100x4 card0: hwmon0 without name or label files (temp1..3 in the kernel's order). */
        struct xpu_device d = card_device(0);
        struct xpu_readings r;
        struct xpu_inventory *inv;
        char err[256];
        ck_assert_int_eq(read_dir(xpu_test_host("amd-mi100x4"), &d, &r, &inv, err, sizeof err), 0);
        ck_assert_uint_eq(inv->n_warnings, 0);
        ck_assert_uint_eq(r.have, XPU_READ_UTILIZATION | XPU_READ_MEMORY_UTILIZATION | XPU_READ_MEMORY_USED |
                                          XPU_READ_MEMORY_TOTAL | XPU_READ_POWER | XPU_READ_POWER_LIMIT);
        ck_assert_double_eq(r.utilization_ratio, 0);
        ck_assert_double_eq(r.memory_bandwidth_utilization_ratio, 0);
        ck_assert_uint_eq(r.memory_used_bytes, 6750208ull);
        ck_assert_uint_eq(r.memory_total_bytes, 34342961152ull);
        ck_assert_uint_eq(r.have_temperature,
                          (1u << XPU_TEMP_EDGE) | (1u << XPU_TEMP_JUNCTION) | (1u << XPU_TEMP_MEMORY));
        ck_assert_double_eq(r.temperature_celsius[XPU_TEMP_EDGE], 53);     /* 53000 m°C */
        ck_assert_double_eq(r.temperature_celsius[XPU_TEMP_JUNCTION], 55); /* 55000 */
        ck_assert_double_eq(r.temperature_celsius[XPU_TEMP_MEMORY], 53);
        ck_assert_double_eq(r.power_watts, 36);        /* 36000000 µW */
        ck_assert_double_eq(r.power_limit_watts, 290); /* 290000000 µW */
        ck_assert_uint_eq(r.have_clock, 0);
        ck_assert(!r.lost);
        xpu_inventory_free(inv);

        /* a device without a card, another vendor, a card that is gone */
        d.have = 0;
        ck_assert_int_eq(read_dir(xpu_test_host("amd-mi100x4"), &d, &r, &inv, err, sizeof err), -ENODEV);
        ck_assert_str_eq(err, "gpu 0: no amdgpu card in sysfs");
        xpu_inventory_free(inv);
        d = card_device(9);
        ck_assert_int_eq(read_dir(xpu_test_host("amd-mi100x4"), &d, &r, &inv, err, sizeof err), -ENODEV);
        ck_assert_str_eq(err, "/sys/class/drm/card9/device: No such file or directory");
        xpu_inventory_free(inv);
}
END_TEST

/* Run tests/rocm/mkamdsys.sh with ARGV (NULL-terminated, after the script name). */
static void mkamdsys(const char *const *argv) {
        char script[PATH_MAX];
        const char *args[32];
        size_t n = 0;
        snprintf(script, sizeof script, "%s/tests/rocm/mkamdsys.sh", XPU_SRCDIR);
        args[n++] = "sh";
        args[n++] = script;
        for (; *argv && n < 31; argv++)
                args[n++] = *argv;
        args[n] = NULL;
        pid_t p = fork();
        ck_assert_int_ge(p, 0);
        if (p == 0) {
                execvp("sh", (char *const *)args);
                _exit(127);
        }
        int st = 0;
        ck_assert_int_eq(waitpid(p, &st, 0), p);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "mkamdsys.sh failed: %d", st);
}

START_TEST(test_mkamdsys_through_fast_path) {
        char *tmp = xpu_test_mkdtemp();
        char out[PATH_MAX];
        snprintf(out, sizeof out, "%s/host", tmp);
        const char *const argv[] = { "-o", out, "-n", "2", "--busy", "0,25", "--temp-edge", "41000,47500",
                                     "--power", "250000000,95000000", "--vram-used", "1073741824,2147483648",
                                     "--junction-crit", "100000,", "--junction-emergency", "105000,", NULL };
        mkamdsys(argv);
        struct xpu_inventory *fast = xpu_test_probe_backend(xpu_vendors[XPU_VENDOR_AMD], out);
        ck_assert_uint_eq(fast->n_devices, 2);
        static const struct {
                double busy, edge, power;
                uint64_t used;
        } want[] = { { 0, 41, 250, 1073741824ull }, { 0.25, 47.5, 95, 2147483648ull } };
        for (size_t i = 0; i < 2; i++) {
                struct xpu_readings r;
                struct xpu_inventory *inv;
                char err[256];
                ck_assert_msg(read_dir(out, &fast->devices[i], &r, &inv, err, sizeof err) == 0, "%s", err);
                ck_assert_uint_eq(inv->n_warnings, 0);
                ck_assert_double_eq(r.utilization_ratio, want[i].busy);
                ck_assert_double_eq(r.temperature_celsius[XPU_TEMP_EDGE], want[i].edge);
                ck_assert_double_eq(r.temperature_celsius[XPU_TEMP_JUNCTION], 44);
                ck_assert_double_eq(r.temperature_celsius[XPU_TEMP_MEMORY], 40);
                ck_assert_double_eq(r.power_watts, want[i].power);
                ck_assert_uint_eq(r.memory_used_bytes, want[i].used);
                ck_assert_uint_eq(r.memory_total_bytes, 68702699520ull);
                ck_assert(r.have & XPU_READ_POWER);
                ck_assert(!(r.have & XPU_READ_POWER_LIMIT)); /* mkamdsys writes no power1_cap */
                /* junction limits on card 0 only (an empty element: no file) */
                ck_assert_uint_eq(r.have_temperature_limit,
                                  i ? 0 : XPU_TEMP_LIMIT_BIT(XPU_TEMP_JUNCTION, XPU_TEMP_LIMIT_SLOWDOWN) |
                                                  XPU_TEMP_LIMIT_BIT(XPU_TEMP_JUNCTION, XPU_TEMP_LIMIT_SHUTDOWN));
                if (i == 0) {
                        ck_assert_double_eq(r.temperature_limit_celsius[XPU_TEMP_JUNCTION][XPU_TEMP_LIMIT_SLOWDOWN], 100);
                        ck_assert_double_eq(r.temperature_limit_celsius[XPU_TEMP_JUNCTION][XPU_TEMP_LIMIT_SHUTDOWN], 105);
                }
                xpu_inventory_free(inv);
        }
        xpu_inventory_free(fast);
        xpu_test_rm_rf(tmp);
        free(tmp);
}
END_TEST

#define C0 "sys/class/drm/card0/device/"

/* A card with every file: labels in another order than the channels, pp_dpm_*, ras, energy,
 * power1_input beside power1_average, and a hwmon of another driver before amdgpu's. */
static void write_full_card(const char *root) {
        xpu_test_write(root, C0 "gpu_busy_percent", "37\n");
        xpu_test_write(root, C0 "mem_busy_percent", "5\n");
        xpu_test_write(root, C0 "mem_info_vram_used", "1073741824\n");
        xpu_test_write(root, C0 "mem_info_vram_total", "68702699520\n");
        xpu_test_write(root, C0 "pp_dpm_sclk", "0: 500Mhz \n1: 800Mhz \n2: 1700Mhz *\n");
        xpu_test_write(root, C0 "pp_dpm_mclk", "0: 400Mhz \n1: 1600Mhz *\n");
        xpu_test_write(root, C0 "pp_dpm_socclk", "0: 666Mhz *\n1: 1090Mhz \n");
        xpu_test_write(root, C0 "ras/umc_err_count", "ue: 2\nce: 17\n");
        xpu_test_write(root, C0 "hwmon/hwmon1/name", "nvme\n");
        xpu_test_write(root, C0 "hwmon/hwmon1/temp1_input", "99000\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/name", "amdgpu\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/temp1_label", "junction\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/temp1_input", "61000\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/temp2_label", "edge\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/temp2_input", "41000\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/temp3_label", "mem\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/temp3_input", "-1500\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/temp4_label", "vddgfx\n"); /* not a sensor we name */
        xpu_test_write(root, C0 "hwmon/hwmon3/temp4_input", "1\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/temp4_crit", "50000\n"); /* ... nor its limits */
        /* limits: junction both, edge slowdown only, mem none */
        xpu_test_write(root, C0 "hwmon/hwmon3/temp1_crit", "100000\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/temp1_emergency", "105000\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/temp2_crit", "94500\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/power1_average", "250000000\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/power1_input", "111000000\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/power1_cap", "300000000\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/energy1_input", "123456789\n");
}

START_TEST(test_full_card) {
        char *root = xpu_test_mkdtemp();
        write_full_card(root);
        struct xpu_device d = card_device(0);
        struct xpu_readings r;
        struct xpu_inventory *inv;
        char err[256];
        ck_assert_int_eq(read_dir(root, &d, &r, &inv, err, sizeof err), 0);
        ck_assert_msg(inv->n_warnings == 0, "%s", inv->n_warnings ? inv->warnings[0] : "");
        ck_assert_uint_eq(r.have, XPU_READ_UTILIZATION | XPU_READ_MEMORY_UTILIZATION | XPU_READ_MEMORY_USED |
                                          XPU_READ_MEMORY_TOTAL | XPU_READ_POWER | XPU_READ_POWER_LIMIT |
                                          XPU_READ_ENERGY | XPU_READ_ECC);
        ck_assert_double_eq(r.utilization_ratio, 0.37);
        ck_assert_double_eq(r.memory_bandwidth_utilization_ratio, 0.05);
        ck_assert_double_eq(r.temperature_celsius[XPU_TEMP_EDGE], 41);
        ck_assert_double_eq(r.temperature_celsius[XPU_TEMP_JUNCTION], 61);
        ck_assert_double_eq(r.temperature_celsius[XPU_TEMP_MEMORY], -1.5);
        ck_assert_uint_eq(r.have_temperature,
                          (1u << XPU_TEMP_EDGE) | (1u << XPU_TEMP_JUNCTION) | (1u << XPU_TEMP_MEMORY));
        ck_assert_uint_eq(r.have_temperature_limit, XPU_TEMP_LIMIT_BIT(XPU_TEMP_JUNCTION, XPU_TEMP_LIMIT_SLOWDOWN) |
                                                            XPU_TEMP_LIMIT_BIT(XPU_TEMP_JUNCTION, XPU_TEMP_LIMIT_SHUTDOWN) |
                                                            XPU_TEMP_LIMIT_BIT(XPU_TEMP_EDGE, XPU_TEMP_LIMIT_SLOWDOWN));
        ck_assert_double_eq(r.temperature_limit_celsius[XPU_TEMP_JUNCTION][XPU_TEMP_LIMIT_SLOWDOWN], 100);
        ck_assert_double_eq(r.temperature_limit_celsius[XPU_TEMP_JUNCTION][XPU_TEMP_LIMIT_SHUTDOWN], 105);
        ck_assert_double_eq(r.temperature_limit_celsius[XPU_TEMP_EDGE][XPU_TEMP_LIMIT_SLOWDOWN], 94.5);
        ck_assert_double_eq(r.power_watts, 250); /* power1_average first */
        ck_assert_double_eq(r.power_limit_watts, 300);
        ck_assert_double_eq(r.energy_joules, 123.456789);
        ck_assert_uint_eq(r.have_clock, (1u << XPU_CLOCK_GRAPHICS) | (1u << XPU_CLOCK_MEMORY) | (1u << XPU_CLOCK_SOC));
        ck_assert_uint_eq(r.clock_hertz[XPU_CLOCK_GRAPHICS], 1700000000ull);
        ck_assert_uint_eq(r.clock_hertz[XPU_CLOCK_MEMORY], 1600000000ull);
        ck_assert_uint_eq(r.clock_hertz[XPU_CLOCK_SOC], 666000000ull);
        ck_assert_uint_eq(r.ecc_uncorrected, 2);
        ck_assert_uint_eq(r.ecc_corrected, 17);
        xpu_inventory_free(inv);

        /* power1_input alone (newer kernels and ASICs); a partition gets no VRAM figures */
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/" C0 "hwmon/hwmon3/power1_average", root);
        ck_assert_int_eq(unlink(path), 0);
        d.have |= XPU_HAVE_PARTITION;
        d.partition = 1;
        ck_assert_int_eq(read_dir(root, &d, &r, &inv, err, sizeof err), 0);
        ck_assert_double_eq(r.power_watts, 111);
        ck_assert(!(r.have & (XPU_READ_MEMORY_USED | XPU_READ_MEMORY_TOTAL)));
        ck_assert(r.have & XPU_READ_UTILIZATION);
        xpu_inventory_free(inv);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* The cache of xpud's sampler: the same readings as uncached; a value rewritten in place is read
 * again (pread at offset 0); an absent attribute stays absent until the recheck 60 samples later;
 * a card directory replaced (another inode: a swapped tree, another card) starts over. */
START_TEST(test_cache) {
        char *root = xpu_test_mkdtemp();
        write_full_card(root);
        struct xpu_device d = card_device(0);
        struct xpu_roots roots;
        ck_assert_int_eq(xpu_roots_open(&roots, root, root, root, NULL), 0);
        struct xpu_amd_cache *cache = xpu_amd_cache_new();
        ck_assert_ptr_nonnull(cache);
        struct xpu_inventory *inv = xpu_inventory_new();
        struct xpu_readings r, u;
        char err[256], path[PATH_MAX];
        ck_assert_int_eq(xpu_amd_readings_read_cached(&roots, &d, cache, inv, &r, err, sizeof err), 0);
        ck_assert_int_eq(xpu_amd_readings_read(&roots, &d, inv, &u, err, sizeof err), 0);
        ck_assert_mem_eq(&r, &u, sizeof r);
        ck_assert_uint_eq(inv->n_warnings, 0);

        /* rewritten in place: the kept descriptor reads the new value */
        snprintf(path, sizeof path, "%s/" C0 "gpu_busy_percent", root);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs("99\n", f);
        fclose(f);
        ck_assert_int_eq(xpu_amd_readings_read_cached(&roots, &d, cache, inv, &r, err, sizeof err), 0);
        ck_assert_double_eq(r.utilization_ratio, 0.99);

        /* replaced by a rename: the new file is read at once, not the kept descriptor's */
        char tmp[PATH_MAX];
        snprintf(tmp, sizeof tmp, "%s/" C0 ".gpu_busy_percent", root);
        f = fopen(tmp, "w");
        ck_assert_ptr_nonnull(f);
        fputs("33\n", f);
        fclose(f);
        ck_assert_int_eq(rename(tmp, path), 0);
        ck_assert_int_eq(xpu_amd_readings_read_cached(&roots, &d, cache, inv, &r, err, sizeof err), 0);
        ck_assert_double_eq(r.utilization_ratio, 0.33);
        /* deleted: the reading is gone at once */
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(xpu_amd_readings_read_cached(&roots, &d, cache, inv, &r, err, sizeof err), 0);
        ck_assert(!(r.have & XPU_READ_UTILIZATION));
        xpu_test_write(root, C0 "mem_info_vram_reserved", "1\n"); /* not an attribute the reader asks for */
        snprintf(path, sizeof path, "%s/" C0 "hwmon/hwmon3/power1_cap", root);
        ck_assert_int_eq(unlink(path), 0);
        xpu_amd_cache_free(cache);
        cache = xpu_amd_cache_new();
        ck_assert_int_eq(xpu_amd_readings_read_cached(&roots, &d, cache, inv, &r, err, sizeof err), 0);
        ck_assert(!(r.have & XPU_READ_POWER_LIMIT) && !(r.have & XPU_READ_UTILIZATION));
        xpu_test_write(root, C0 "hwmon/hwmon3/power1_cap", "200000000\n");
        ck_assert_int_eq(xpu_amd_readings_read_cached(&roots, &d, cache, inv, &r, err, sizeof err), 0);
        ck_assert(!(r.have & XPU_READ_POWER_LIMIT));
        int samples = 2;
        while (!(r.have & XPU_READ_POWER_LIMIT) && samples < 100) {
                ck_assert_int_eq(xpu_amd_readings_read_cached(&roots, &d, cache, inv, &r, err, sizeof err), 0);
                samples++;
        }
        ck_assert_int_eq(samples, 61); /* looked for again at the 60th sample after the first */
        ck_assert_double_eq(r.power_limit_watts, 200);

        /* the card's directory replaced: read from the new one at once */
        char old[PATH_MAX], moved[PATH_MAX];
        snprintf(old, sizeof old, "%s/sys/class/drm/card0", root);
        snprintf(moved, sizeof moved, "%s/card0.old", root);
        ck_assert_int_eq(rename(old, moved), 0);
        write_full_card(root);
        ck_assert_int_eq(xpu_amd_readings_read_cached(&roots, &d, cache, inv, &r, err, sizeof err), 0);
        ck_assert_double_eq(r.utilization_ratio, 0.37);
        ck_assert_double_eq(r.power_limit_watts, 300);
        ck_assert_uint_eq(inv->n_warnings, 0);
        /* gone altogether: the error of the uncached read */
        xpu_test_rm_rf(old);
        ck_assert_int_eq(xpu_amd_readings_read_cached(&roots, &d, cache, inv, &r, err, sizeof err), -ENODEV);
        xpu_amd_cache_free(cache);
        xpu_inventory_free(inv);
        xpu_roots_close(&roots);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* Set the mtime of card 0's directory, its hwmon and ras/ under ROOT to an hour ago: a tree at
 * rest, whose kept files the cache then trusts until a directory changes. */
static void age_card_dirs(const char *root) {
        static const char *const dirs[] = { C0, C0 "hwmon/hwmon3", C0 "ras" };
        struct timespec now;
        ck_assert_int_eq(clock_gettime(CLOCK_REALTIME, &now), 0);
        struct timespec times[2] = { { .tv_sec = now.tv_sec - 3600 }, { .tv_sec = now.tv_sec - 3600 } };
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                char path[PATH_MAX];
                snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
                ck_assert_int_eq(utimensat(AT_FDCWD, path, times, 0), 0);
        }
}

static void replace_file(const char *root, const char *rel, const char *text) {
        char path[PATH_MAX], tmp[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", root, rel);
        snprintf(tmp, sizeof tmp, "%s.new", path);
        FILE *f = fopen(tmp, "w");
        ck_assert_ptr_nonnull(f);
        fputs(text, f);
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_int_eq(rename(tmp, path), 0);
}

/* A tree that is not sysfs at rest (its directories' mtimes an hour old): the cache reads the kept
 * files without looking at their link counts, and a file renamed over one, in the card's
 * directory, in hwmon or in ras/, is still read at the next sample, because the rename moved its
 * directory's mtime. */
START_TEST(test_cache_at_rest) {
        char *root = xpu_test_mkdtemp();
        write_full_card(root);
        struct xpu_device d = card_device(0);
        struct xpu_roots roots;
        ck_assert_int_eq(xpu_roots_open(&roots, root, root, root, NULL), 0);
        struct xpu_amd_cache *cache = xpu_amd_cache_new();
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(cache);
        struct xpu_readings r;
        char err[256];
        age_card_dirs(root);
        for (int k = 0; k < 3; k++) {
                ck_assert_int_eq(xpu_amd_readings_read_cached(&roots, &d, cache, inv, &r, err, sizeof err), 0);
                ck_assert_double_eq(r.utilization_ratio, 0.37);
        }
        replace_file(root, C0 "gpu_busy_percent", "12\n");
        ck_assert_int_eq(xpu_amd_readings_read_cached(&roots, &d, cache, inv, &r, err, sizeof err), 0);
        ck_assert_double_eq(r.utilization_ratio, 0.12);

        age_card_dirs(root);
        ck_assert_int_eq(xpu_amd_readings_read_cached(&roots, &d, cache, inv, &r, err, sizeof err), 0);
        replace_file(root, C0 "hwmon/hwmon3/power1_cap", "250000000\n");
        ck_assert_int_eq(xpu_amd_readings_read_cached(&roots, &d, cache, inv, &r, err, sizeof err), 0);
        ck_assert_double_eq(r.power_limit_watts, 250);

        age_card_dirs(root);
        ck_assert_int_eq(xpu_amd_readings_read_cached(&roots, &d, cache, inv, &r, err, sizeof err), 0);
        replace_file(root, C0 "ras/umc_err_count", "ue: 4\nce: 9\n");
        ck_assert_int_eq(xpu_amd_readings_read_cached(&roots, &d, cache, inv, &r, err, sizeof err), 0);
        ck_assert_uint_eq(r.ecc_uncorrected, 4);
        ck_assert_uint_eq(r.ecc_corrected, 9);
        ck_assert_uint_eq(inv->n_warnings, 0);
        xpu_amd_cache_free(cache);
        xpu_inventory_free(inv);
        xpu_roots_close(&roots);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

START_TEST(test_odd_files) {
        char *root = xpu_test_mkdtemp();
        write_full_card(root);
        xpu_test_write(root, C0 "gpu_busy_percent", "150\n");
        xpu_test_write(root, C0 "mem_busy_percent", "abc\n");
        xpu_test_write(root, C0 "mem_info_vram_used", "-1\n");
        xpu_test_write(root, C0 "pp_dpm_sclk", "0: 500Mhz\n1: 1700Mhz\n");   /* no current level */
        xpu_test_write(root, C0 "pp_dpm_mclk", "garbage\n");
        xpu_test_write(root, C0 "ras/umc_err_count", "ue: 1\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/temp2_input", "hot\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/power1_cap", "\x01\x02\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/energy1_input", "12.5\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/temp1_emergency", "warm\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/temp2_crit", "4294967295\n"); /* 4.29 million °C: no limit */
        struct xpu_device d = card_device(0);
        struct xpu_readings r;
        struct xpu_inventory *inv;
        char err[256];
        ck_assert_int_eq(read_dir(root, &d, &r, &inv, err, sizeof err), 0);
        ck_assert_str_eq(warning_for(inv, C0 "gpu_busy_percent"),
                         "/" C0 "gpu_busy_percent: \"150\" is not a percentage; left out");
        ck_assert_str_eq(warning_for(inv, C0 "mem_busy_percent"),
                         "/" C0 "mem_busy_percent: \"abc\" is not a percentage; left out");
        ck_assert_str_eq(warning_for(inv, C0 "mem_info_vram_used"),
                         "/" C0 "mem_info_vram_used: \"-1\" is not a number; left out");
        ck_assert_str_eq(warning_for(inv, C0 "pp_dpm_sclk"),
                         "/" C0 "pp_dpm_sclk: no level marked current ('*'); left out");
        ck_assert_str_eq(warning_for(inv, C0 "pp_dpm_mclk"),
                         "/" C0 "pp_dpm_mclk: not a list of \"N: <clock>Mhz\" lines; left out");
        ck_assert_str_eq(warning_for(inv, C0 "ras/umc_err_count"),
                         "/" C0 "ras/umc_err_count: not \"ue: N\" and \"ce: N\" lines; left out");
        ck_assert_str_eq(warning_for(inv, "temp2_input"),
                         "/" C0 "hwmon/hwmon3/temp2_input: \"hot\" is not a temperature in millidegrees; left out");
        ck_assert_str_eq(warning_for(inv, "power1_cap"), "/" C0 "hwmon/hwmon3/power1_cap: not printable text; left out");
        ck_assert_str_eq(warning_for(inv, "energy1_input"),
                         "/" C0 "hwmon/hwmon3/energy1_input: \"12.5\" is not a number; left out");
        ck_assert_str_eq(warning_for(inv, "temp1_emergency"),
                         "/" C0 "hwmon/hwmon3/temp1_emergency: \"warm\" is not a temperature in millidegrees; left out");
        ck_assert_str_eq(warning_for(inv, "temp2_crit"),
                         "/" C0 "hwmon/hwmon3/temp2_crit: 4294967295 millidegrees Celsius: outside -50..200 degrees "
                         "Celsius; left out");
        ck_assert_uint_eq(inv->n_warnings, 11);
        ck_assert_uint_eq(r.have_temperature_limit, XPU_TEMP_LIMIT_BIT(XPU_TEMP_JUNCTION, XPU_TEMP_LIMIT_SLOWDOWN));
        /* the odd ones are left out, the rest is read */
        ck_assert_uint_eq(r.have, XPU_READ_MEMORY_TOTAL | XPU_READ_POWER);
        ck_assert_uint_eq(r.have_clock, 1u << XPU_CLOCK_SOC);
        ck_assert_uint_eq(r.have_temperature, (1u << XPU_TEMP_JUNCTION) | (1u << XPU_TEMP_MEMORY));
        xpu_inventory_free(inv);

        /* no hwmon directory at all, no dpm files: quietly nothing of those */
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/" C0 "hwmon", root);
        xpu_test_rm_rf(path);
        xpu_test_write(root, C0 "gpu_busy_percent", "12\n");
        ck_assert_int_eq(read_dir(root, &d, &r, &inv, err, sizeof err), 0);
        ck_assert_uint_eq(r.have_temperature, 0);
        ck_assert(!(r.have & XPU_READ_POWER));
        ck_assert_double_eq(r.utilization_ratio, 0.12);
        ck_assert_ptr_null(strstr(inv->n_warnings ? inv->warnings[0] : "", "hwmon"));
        xpu_inventory_free(inv);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* Numbers that are no reading (readings-range.h): sentinels and impossible values are left out,
 * one warning each naming the file; values at the bounds are kept. */
START_TEST(test_implausible_values) {
        char *root = xpu_test_mkdtemp();
        write_full_card(root);
        xpu_test_write(root, C0 "mem_info_vram_total", "18446744073709551615\n"); /* UINT64_MAX */
        xpu_test_write(root, C0 "mem_info_vram_used", "1125899906842625\n");     /* 1 PiB + 1 */
        xpu_test_write(root, C0 "pp_dpm_sclk", "0: 500Mhz\n1: 20000Mhz *\n");     /* 20 GHz */
        xpu_test_write(root, C0 "pp_dpm_mclk", "0: 10000Mhz *\n");                 /* 10 GHz: kept */
        xpu_test_write(root, C0 "ras/umc_err_count", "ue: 18446744073709551615\nce: 3\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/temp1_input", "250000\n"); /* junction 250 degrees */
        xpu_test_write(root, C0 "hwmon/hwmon3/temp2_input", "-50000\n"); /* edge -50: kept */
        xpu_test_write(root, C0 "hwmon/hwmon3/temp3_input", "4294967295\n");
        xpu_test_write(root, C0 "hwmon/hwmon3/power1_average", "4294967295\n"); /* UINT32_MAX: power1_input instead */
        xpu_test_write(root, C0 "hwmon/hwmon3/power1_cap", "10000000001\n");    /* 10 kW + 1 uW */
        xpu_test_write(root, C0 "hwmon/hwmon3/energy1_input", "18446744073709551615\n");
        struct xpu_device d = card_device(0);
        struct xpu_readings r;
        struct xpu_inventory *inv;
        char err[256];
        ck_assert_int_eq(read_dir(root, &d, &r, &inv, err, sizeof err), 0);
        ck_assert_str_eq(warning_for(inv, "mem_info_vram_total"),
                         "/" C0 "mem_info_vram_total: 18446744073709551615 bytes: UINT64_MAX, a vendor's \"not "
                         "available\"; left out");
        ck_assert_str_eq(warning_for(inv, "mem_info_vram_used"),
                         "/" C0 "mem_info_vram_used: 1125899906842625 bytes: outside 0..1 PiB; left out");
        ck_assert_str_eq(warning_for(inv, "pp_dpm_sclk"),
                         "/" C0 "pp_dpm_sclk: 20000000000 Hz (current level): outside 0..10 GHz; left out");
        ck_assert_str_eq(warning_for(inv, "ras/umc_err_count"),
                         "/" C0 "ras/umc_err_count: 18446744073709551615 uncorrected errors: UINT64_MAX, a vendor's "
                         "\"not available\"; left out");
        ck_assert_str_eq(warning_for(inv, "temp1_input"),
                         "/" C0 "hwmon/hwmon3/temp1_input: 250000 millidegrees Celsius: outside -50..200 degrees "
                         "Celsius; left out");
        ck_assert_str_eq(warning_for(inv, "temp3_input"),
                         "/" C0 "hwmon/hwmon3/temp3_input: 4294967295 millidegrees Celsius: outside -50..200 degrees "
                         "Celsius; left out");
        ck_assert_str_eq(warning_for(inv, "power1_average"),
                         "/" C0 "hwmon/hwmon3/power1_average: 4294967295 microwatts: UINT32_MAX, a vendor's \"not "
                         "available\"; left out");
        ck_assert_str_eq(warning_for(inv, "power1_cap"),
                         "/" C0 "hwmon/hwmon3/power1_cap: 10000000001 microwatts: outside 0..10 kW; left out");
        ck_assert_str_eq(warning_for(inv, "energy1_input"),
                         "/" C0 "hwmon/hwmon3/energy1_input: 18446744073709551615 microjoules: UINT64_MAX, a vendor's "
                         "\"not available\"; left out");
        ck_assert_uint_eq(inv->n_warnings, 9);
        ck_assert_uint_eq(r.have, XPU_READ_UTILIZATION | XPU_READ_MEMORY_UTILIZATION | XPU_READ_POWER);
        ck_assert_double_eq(r.power_watts, 111);
        ck_assert_uint_eq(r.have_clock, (1u << XPU_CLOCK_MEMORY) | (1u << XPU_CLOCK_SOC));
        ck_assert_uint_eq(r.clock_hertz[XPU_CLOCK_MEMORY], 10000000000ull);
        ck_assert_uint_eq(r.have_temperature, 1u << XPU_TEMP_EDGE);
        ck_assert_double_eq(r.temperature_celsius[XPU_TEMP_EDGE], -50);
        xpu_inventory_free(inv);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

static Suite *amd_readings_suite(void) {
        Suite *s = suite_create("amd-readings");
        TCase *tc = tcase_create("readings");
        tcase_set_timeout(tc, 20);
        tcase_add_test(tc, test_parse_dpm);
        tcase_add_test(tc, test_parse_ras);
        tcase_add_test(tc, test_fixture_mi100);
        tcase_add_test(tc, test_mkamdsys_through_fast_path);
        tcase_add_test(tc, test_full_card);
        tcase_add_test(tc, test_cache);
        tcase_add_test(tc, test_cache_at_rest);
        tcase_add_test(tc, test_odd_files);
        tcase_add_test(tc, test_implausible_values);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(amd_readings_suite());
}
