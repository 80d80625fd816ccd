/* SPDX-License-Identifier: Apache-2.0 */
/* Every fixture host built from a real capture carries the capture's expected.json: the values a
 * correct probe must report. This suite probes each such host and compares, field by field, every
 * fact the fast path (procfs, sysfs, dev) can know. Facts only a vendor library or tool could
 * give (NVML memory, rocm-smi's pci.ids names, temperatures) are not fast-path facts and are
 * listed in SKIPPED below, so nothing is silently left out. */
#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/path.h"
#include "intel/intel-facts.h"
#include "amd/amd-facts.h"
#include "nvidia/nvidia-facts.h"
#include "pci-ids.h"
#include "testlib.h"

/* expected.json keys of a device that the fast path does not read, with the reason. */
static const char *const skipped[] = {
        "index",                  /* checked as the position */
        "name_hint",              /* prose */
        "kfd_bdf",                /* same value as pci_bus_id */
        "unique_id_decimal",      /* same value as unique_id */
        "xgmi_hive_id",           /* not in the device model yet */
        "gfx_target_version",     /* checked through gfx_target */
        "serial",                 /* nvidia-smi */
        "pci_device_id",          /* checked as a number below */
        "device_id",              /* checked as a number below */
        "gsp_firmware_version",   /* checked below (gsp_firmware) */
        "memory_reserved_bytes",  /* nvidia-smi */
        "power_limit_watts",      /* NVML */
        "temperature_c",          /* NVML */
        "mig_mode",               /* NVML */
        "mig_devices",            /* NVML */
        "brand",                  /* NVML */
        "card",                   /* checked as a number below */
        "subsystem",              /* not in the device model */
        "gpu_busy_percent",       /* xpud readings */
        "temperature_edge_c",     /* xpud readings */
        "temperature_junction_c", /* xpud readings */
        "power_average_watts",    /* xpud readings */
        "power_cap_watts",        /* xpud readings */
        "vbios_version",          /* checked below for NVIDIA; AMD keeps it out of the model */
        "num_xcc",                /* checked as a number below */
        "kfd_node",               /* checked as a number below */
        "gpu_id",                 /* checked as a number below */
        "vendor",                 /* the section it is in */
        "platform",               /* prose: the pciids.h family */
        "pci_class",              /* a filter of the probe, not in the model */
        "render_minor_source",    /* prose */
        "driver_note",            /* prose */
        "soc_uuid",               /* Level Zero (xpu-smi), not in sysfs */
        "memory_total_mib_per_tile_levelzero", /* Level Zero */
        "driver",                 /* checked below (kernel_driver) */
        "tile_count",             /* checked as a number below */
        "integrated",             /* checked below */
        NULL,
};

/* Fields that need a vendor library on this vendor: an NVIDIA memory total comes from NVML. (An
 * AMD name without product_name is pci.ids's, as rocm-smi's was: the fixture carries that
 * database and the probe reads it, xpu_inventory_name_from_pci_ids.) */
static bool library_only(enum xpu_vendor v, const char *key) {
        if (v == XPU_VENDOR_NVIDIA) /* host03's device id is nvidia-smi's; its tree has no sysfs */
                return strcmp(key, "memory_total_bytes") == 0 || strcmp(key, "pci_device_id") == 0;
        if (v == XPU_VENDOR_INTEL) /* i915 and xe publish no product name: Level Zero's */
                return strcmp(key, "name") == 0;
        return false;
}

static char *read_text(const char *path) {
        FILE *f = fopen(path, "re");
        if (!f)
                return NULL;
        char *buf = calloc(1, 1 << 20);
        size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
        fclose(f);
        if (buf)
                buf[n] = '\0';
        return buf;
}

static bool is_skipped(const char *key) {
        for (size_t i = 0; skipped[i]; i++)
                if (strcmp(skipped[i], key) == 0)
                        return true;
        return false;
}

static unsigned checked;

static void expect_str(const char *host, size_t i, const char *key, const cJSON *want, const char *got) {
        ck_assert_msg(cJSON_IsString(want), "%s: device %zu: %s is not a string in expected.json", host, i, key);
        ck_assert_msg(strcmp(want->valuestring, got) == 0, "%s: device %zu: %s: expected \"%s\", probe says \"%s\"",
                      host, i, key, want->valuestring, got);
        checked++;
}

static void expect_num(const char *host, size_t i, const char *key, const cJSON *want, bool have, double got) {
        ck_assert_msg(cJSON_IsNumber(want), "%s: device %zu: %s is not a number", host, i, key);
        ck_assert_msg(have, "%s: device %zu: %s: expected %.0f, probe has none", host, i, key, want->valuedouble);
        ck_assert_msg(want->valuedouble == got, "%s: device %zu: %s: expected %.0f, probe says %.0f", host, i, key,
                      want->valuedouble, got);
        checked++;
}

static void compare_device(const char *host, size_t i, const cJSON *e, const struct xpu_device *d) {
        const cJSON *f;
        cJSON_ArrayForEach(f, e) {
                const char *k = f->string;
                if (library_only(d->vendor, k))
                        continue;
                /* A vendor's own fact is read from that vendor's member of the device's facts union:
                 * on another vendor's device it would be compared with bytes that mean something else. */
                static const struct {
                        const char *key;
                        enum xpu_vendor vendor;
                } own[] = {
                        { "device_minor", XPU_VENDOR_NVIDIA }, { "irq", XPU_VENDOR_NVIDIA },
                        { "bus_type", XPU_VENDOR_NVIDIA },     { "excluded", XPU_VENDOR_NVIDIA },
                        { "gsp_firmware_version", XPU_VENDOR_NVIDIA },
                        { "gfx_target", XPU_VENDOR_AMD },      { "unique_id", XPU_VENDOR_AMD },
                        { "simd_count", XPU_VENDOR_AMD },      { "compute_units", XPU_VENDOR_AMD },
                        { "kfd_node", XPU_VENDOR_AMD },        { "gpu_id", XPU_VENDOR_AMD },
                        { "num_xcc", XPU_VENDOR_AMD },         { "tile_count", XPU_VENDOR_INTEL },
                        { "memory_numa_node", XPU_VENDOR_NVIDIA }, { "memory_coherent", XPU_VENDOR_NVIDIA },
                };
                for (size_t j = 0; j < ELEMENTSOF(own); j++)
                        ck_assert_msg(strcmp(k, own[j].key) != 0 || d->vendor == own[j].vendor,
                                      "%s: device %zu: expected.json's %s is %s's fact, the probe's device is %s's", host,
                                      i, k, xpu_vendor_to_string(own[j].vendor), xpu_vendor_to_string(d->vendor));
                if (!strcmp(k, "name"))
                        expect_str(host, i, k, f, d->name);
                else if (!strcmp(k, "uuid"))
                        expect_str(host, i, k, f, d->uuid);
                else if (!strcmp(k, "pci_bus_id"))
                        expect_str(host, i, k, f, d->pci_bus_id);
                else if (!strcmp(k, "device_minor"))
                        expect_num(host, i, k, f, d->have & XPU_HAVE_MINOR, xpu_nvidia_facts(d)->minor);
                else if (!strcmp(k, "irq"))
                        expect_num(host, i, k, f, d->have & XPU_HAVE_IRQ, xpu_nvidia_facts(d)->irq);
                else if (!strcmp(k, "bus_type"))
                        expect_str(host, i, k, f, xpu_nvidia_facts(d)->bus_type);
                else if (!strcmp(k, "excluded")) {
                        ck_assert_msg(d->have & XPU_HAVE_EXCLUDED, "%s: device %zu: no excluded", host, i);
                        ck_assert_int_eq(cJSON_IsTrue(f), xpu_nvidia_facts(d)->excluded);
                        checked++;
                } else if (!strcmp(k, "gfx_target"))
                        expect_str(host, i, k, f, xpu_amd_facts(d)->gfx_target);
                else if (!strcmp(k, "render_minor"))
                        expect_num(host, i, k, f, d->have & XPU_HAVE_RENDER_MINOR, d->render_minor);
                else if (!strcmp(k, "unique_id"))
                        expect_str(host, i, k, f, xpu_amd_facts(d)->unique_id);
                else if (!strcmp(k, "simd_count"))
                        expect_num(host, i, k, f, d->have & XPU_HAVE_SIMD_COUNT, xpu_amd_facts(d)->simd_count);
                else if (!strcmp(k, "compute_units"))
                        expect_num(host, i, k, f, d->have & XPU_HAVE_SIMD_COUNT, xpu_amd_facts(d)->compute_units);
                else if (!strcmp(k, "memory_total_bytes"))
                        expect_num(host, i, k, f, d->have & XPU_HAVE_MEMORY_TOTAL, (double)d->memory_total_bytes);
                else if (!strcmp(k, "memory_used_bytes"))
                        expect_num(host, i, k, f, d->have & XPU_HAVE_MEMORY_USED, (double)d->memory_used_bytes);
                else if (!strcmp(k, "numa_node"))
                        expect_num(host, i, k, f, d->have & XPU_HAVE_NUMA_NODE, d->numa_node);
                else if (!strcmp(k, "memory_numa_node")) /* Grace Hopper: sysfs */
                        expect_num(host, i, k, f, xpu_nvidia_facts(d)->memory_numa_known, xpu_nvidia_facts(d)->memory_numa_node);
                else if (!strcmp(k, "memory_coherent")) {
                        ck_assert_str_eq(xpu_nvidia_facts(d)->memory_coherent, cJSON_IsTrue(f) ? "true" : "false");
                        checked++;
                } else if (!strcmp(k, "kfd_node"))
                        expect_num(host, i, k, f, d->have & XPU_HAVE_KFD_NODE, xpu_amd_facts(d)->kfd_node);
                else if (!strcmp(k, "gpu_id"))
                        expect_num(host, i, k, f, d->have & XPU_HAVE_KFD_GPU_ID, xpu_amd_facts(d)->kfd_gpu_id);
                else if (!strcmp(k, "num_xcc"))
                        expect_num(host, i, k, f, d->have & XPU_HAVE_NUM_XCC, xpu_amd_facts(d)->num_xcc);
                else if (!strcmp(k, "card")) {
                        ck_assert(cJSON_IsString(f) && strncmp(f->valuestring, "card", 4) == 0);
                        ck_assert_msg(d->have & XPU_HAVE_CARD, "%s: device %zu: no card", host, i);
                        ck_assert_uint_eq(d->card, strtoul(f->valuestring + 4, NULL, 10));
                        checked++;
                } else if (!strcmp(k, "device_id") || !strcmp(k, "pci_device_id")) {
                        ck_assert_msg(d->have & XPU_HAVE_PCI_IDS, "%s: device %zu: no PCI ids", host, i);
                        ck_assert_uint_eq(d->pci_device_id, strtoul(f->valuestring, NULL, 16));
                        checked++;
                } else if (!strcmp(k, "driver")) {
                        expect_str(host, i, k, cJSON_IsNull(f) ? &(cJSON){ .type = cJSON_String, .valuestring = (char *)"" } : f,
                                   d->kernel_driver);
                } else if (!strcmp(k, "tile_count"))
                        expect_num(host, i, k, f, d->have & XPU_HAVE_TILES, xpu_intel_facts(d)->tile_count);
                else if (!strcmp(k, "integrated")) {
                        ck_assert_int_eq(cJSON_IsTrue(f), d->integrated);
                        checked++;
                } else if (!strcmp(k, "vbios_version") && d->vendor == XPU_VENDOR_NVIDIA)
                        expect_str(host, i, k, f, xpu_nvidia_facts(d)->vbios_version);
                else if (!strcmp(k, "gsp_firmware_version"))
                        expect_str(host, i, k, f, xpu_nvidia_facts(d)->gsp_firmware);
                else if (!strcmp(k, "tegra_soc") && d->vendor == XPU_VENDOR_NVIDIA)
                        expect_str(host, i, k, f, xpu_nvidia_facts(d)->tegra_soc);
                else if (!strcmp(k, "l4t_release") && d->vendor == XPU_VENDOR_NVIDIA)
                        expect_str(host, i, k, f, xpu_nvidia_facts(d)->l4t_release);
                else if (!strcmp(k, "compute_capability") && d->vendor == XPU_VENDOR_NVIDIA)
                        expect_str(host, i, k, f, xpu_nvidia_facts(d)->compute_capability);
                else if (!strcmp(k, "device_nodes")) {
                        /* Same set of paths (order free). */
                        ck_assert_msg((size_t)cJSON_GetArraySize(f) == d->n_nodes,
                                      "%s: device %zu: %d device nodes expected, probe has %zu", host, i,
                                      cJSON_GetArraySize(f), d->n_nodes);
                        const cJSON *n;
                        cJSON_ArrayForEach(n, f) {
                                bool found = false;
                                for (size_t j = 0; j < d->n_nodes; j++)
                                        found |= strcmp(d->nodes[j].path, n->valuestring) == 0;
                                ck_assert_msg(found, "%s: device %zu: node %s missing", host, i, n->valuestring);
                        }
                        checked++;
                } else
                        ck_assert_msg(is_skipped(k), "%s: expected.json key \"%s\" is neither checked nor skipped", host, k);
        }
}

static void compare_vendor(const char *name, const cJSON *e, const struct xpu_inventory *inv, enum xpu_vendor v) {
        if (!e) { /* captures from before a vendor was supported: none of its GPUs */
                ck_assert_msg(xpu_inventory_count(inv, v) == 0, "%s: %zu %s devices, expected.json has none", name,
                              xpu_inventory_count(inv, v), xpu_vendor_to_string(v));
                return;
        }
        const cJSON *count = cJSON_GetObjectItemCaseSensitive(e, "count");
        ck_assert_msg(cJSON_IsNumber(count), "%s: no %s.count", name, xpu_vendor_to_string(v));
        /* host17 holds libraries only: its count says so in count_note. */
        ck_assert_msg((double)xpu_inventory_count(inv, v) == count->valuedouble, "%s: %s count: expected %.0f, got %zu",
                      name, xpu_vendor_to_string(v), count->valuedouble, xpu_inventory_count(inv, v));
        checked++;
        const cJSON *ver = cJSON_GetObjectItemCaseSensitive(e, "driver_version");
        if (cJSON_IsString(ver)) {
                ck_assert_str_eq(inv->vendors[v].driver_version, ver->valuestring);
                checked++;
        }
        const cJSON *store = cJSON_GetObjectItemCaseSensitive(e, "wsl_driver_store");
        if (cJSON_IsString(store)) {
                ck_assert_str_eq(inv->vendors[v].wsl_store, store->valuestring);
                checked++;
        }
        const cJSON *devs = cJSON_GetObjectItemCaseSensitive(e, "devices");
        size_t k = 0;
        const cJSON *d;
        cJSON_ArrayForEach(d, devs) {
                const struct xpu_device *got = NULL;
                size_t seen = 0;
                for (size_t i = 0; i < inv->n_devices && !got; i++)
                        if (inv->devices[i].vendor == v && seen++ == k)
                                got = &inv->devices[i];
                ck_assert_ptr_nonnull(got);
                const cJSON *idx = cJSON_GetObjectItemCaseSensitive(d, "index");
                ck_assert_msg(cJSON_IsNumber(idx) && idx->valuedouble == got->vendor_index, "%s: device %zu index", name, k);
                compare_device(name, k, d, got);
                k++;
        }
}

START_TEST(test_expected_json) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/tests/fixtures/hosts", XPU_SRCDIR);
        DIR *d = opendir(dir);
        ck_assert_ptr_nonnull(d);
        unsigned hosts = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                char path[8192];
                snprintf(path, sizeof path, "%s/%s/expected.json", dir, de->d_name);
                char *text = read_text(path);
                if (!text)
                        continue; /* most synthetic edge-case hosts have no capture */
                cJSON *e = cJSON_Parse(text);
                ck_assert_msg(e != NULL, "%s does not parse", path);
                /* A host that says its platform (WSL2: /dev/dxg; a Jetson) is probed on a copy with its nodes made. */
                const cJSON *platform = cJSON_GetObjectItemCaseSensitive(e, "platform");
                char *copy = NULL;
                struct xpu_inventory *inv = NULL;
                if (cJSON_IsString(platform)) {
                        inv = xpu_test_probe_copy(de->d_name, NULL, NULL, &copy);
                        ck_assert_str_eq(xpu_platform_name(inv->platform), platform->valuestring);
                        checked++;
                } else
                        inv = xpu_test_probe_host(de->d_name);
                int root = xpu_open_root(xpu_test_host(de->d_name));
                ck_assert_int_ge(root, 0);
                ck_assert_int_ge(xpu_inventory_name_from_pci_ids(inv, root), 0);
                close(root);
                /* The host's platform: "linux" unless expected.json says (wsl-*, jetson-*: above). */
                if (!cJSON_IsString(platform)) {
                        ck_assert_str_eq(xpu_platform_name(inv->platform), "linux");
                        checked++;
                }
                for (int v = 0; v < _XPU_VENDOR_MAX; v++)
                        compare_vendor(de->d_name, cJSON_GetObjectItemCaseSensitive(e, xpu_vendor_to_string(v)), inv,
                                       (enum xpu_vendor)v);
                xpu_inventory_free(inv);
                if (copy) {
                        xpu_test_rm_rf(copy);
                        free(copy);
                }
                cJSON_Delete(e);
                free(text);
                hosts++;
        }
        closedir(d);
        /* Eleven captures (host01, 03, 05, 07, 08, 11, 13, 17; Intel host20, 21, 22), nvidia-gh200
         * (GH200 captures), the synthetic nvidia-hyperv-t4x2, whose Hyper-V domains are wider than 16
         * bits, the three WSL2 hosts (wsl-nvidia, wsl-amd, wsl-intel), the two Jetsons (jetson-orin,
         * jetson-xavier) and the composed nvidia-fabric-imex-rdma (its fabric nodes are checked by
         * test-plan-fabric). */
        ck_assert_uint_eq(hosts, 19);
        ck_assert_uint_gt(checked, 150);
}
END_TEST

static Suite *oracle_suite(void) {
        Suite *s = suite_create("probe.oracle");
        TCase *tc = tcase_create("expected.json");
        tcase_add_test(tc, test_expected_json);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(oracle_suite());
}
