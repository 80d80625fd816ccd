/* SPDX-License-Identifier: Apache-2.0 */
/* probes/wsl.c: WSL2's /dev/dxg and the Windows driver store, on the three WSL2 fixture hosts
 * (tests/fixtures/hosts/wsl-{nvidia,amd,intel}: the platform, one device per vendor's driver store
 * folder, its node, the inventory JSON) and on broken copies of them (/dev/dxg a regular file or of
 * another major, an empty /usr/lib/wsl/lib, a driver store folder that is a symbolic link out of
 * the root, two folders of one vendor, a folder without the vendor's marker file); the files a
 * container is given: from the driver store first, then from /usr/lib/wsl/lib. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/macro.h"
#include "host-files.h"
#include "inventory-json.h"
#include "testlib.h"
#include "wsl.h"

#define NV_STORE "/usr/lib/wsl/drivers/nv_dispsi.inf_amd64_7cc7738d8e428783"
#define AMD_STORE "/usr/lib/wsl/drivers/u0420529.inf_amd64_94ad5a6c4d1a04e2"
#define INTEL_STORE "/usr/lib/wsl/drivers/iigd_dch.inf_amd64_d73f88d32ddb95d3"

static bool has_warning(const struct xpu_inventory *inv, const char *needle) {
        for (size_t i = 0; i < inv->n_warnings; i++)
                if (strstr(inv->warnings[i], needle))
                        return true;
        return false;
}

/* Each fixture: platform wsl, one device of its vendor (source wsl, /dev/dxg 10:124, present, no
 * PCI bus id, no UUID), the vendor's driver store, the driver "loaded", no warning, and the other
 * vendors as on any host without them. */
START_TEST(test_fixtures) {
        static const struct {
                const char *host;
                enum xpu_vendor vendor;
                const char *store;
        } cases[] = {
                { "wsl-nvidia", XPU_VENDOR_NVIDIA, NV_STORE },
                { "wsl-amd", XPU_VENDOR_AMD, AMD_STORE },
                { "wsl-intel", XPU_VENDOR_INTEL, INTEL_STORE },
        };
        for (size_t c = 0; c < ELEMENTSOF(cases); c++) {
                struct xpu_inventory *inv = xpu_test_probe_copy(cases[c].host, NULL, NULL, NULL);
                ck_assert_int_eq(inv->platform, XPU_PLATFORM_WSL);
                ck_assert_msg(inv->n_warnings == 0, "%s: %s", cases[c].host, inv->n_warnings ? inv->warnings[0] : "");
                ck_assert_uint_eq(inv->n_devices, 1);
                const struct xpu_device *d = &inv->devices[0];
                ck_assert_int_eq(d->vendor, cases[c].vendor);
                ck_assert_int_eq(d->source, XPU_SOURCE_WSL);
                ck_assert_uint_eq(d->index, 0);
                ck_assert_uint_eq(d->vendor_index, 0);
                ck_assert_str_eq(d->pci_bus_id, "");
                ck_assert_str_eq(d->uuid, "");
                ck_assert_uint_eq(d->n_nodes, 1);
                ck_assert_str_eq(d->nodes[0].path, "/dev/dxg");
                ck_assert_uint_eq(d->nodes[0].major, 10);
                ck_assert_uint_eq(d->nodes[0].minor, 124);
                ck_assert(d->nodes[0].present && d->nodes[0].have_major && !d->nodes[0].optional);
                ck_assert(xpu_device_available(d));
                for (int v = 0; v < _XPU_VENDOR_MAX; v++) {
                        const struct xpu_vendor_info *vi = &inv->vendors[v];
                        if (v == (int)cases[c].vendor) {
                                ck_assert(vi->driver_loaded);
                                ck_assert_str_eq(vi->wsl_store, cases[c].store);
                                ck_assert_str_eq(vi->looked_for, "");
                        } else {
                                ck_assert(!vi->driver_loaded);
                                ck_assert_str_eq(vi->wsl_store, "");
                        }
                }
                cJSON *j = xpu_inventory_to_json(inv);
                ck_assert_ptr_nonnull(j);
                cJSON *host = cJSON_GetObjectItem(j, "host");
                ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(host, "platform")), "wsl");
                cJSON *vj = cJSON_GetObjectItem(cJSON_GetObjectItem(host, "vendors"), xpu_vendor_to_string(cases[c].vendor));
                ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(vj, "wsl_driver_store")), cases[c].store);
                ck_assert_ptr_null(cJSON_GetObjectItem(vj, "looked_for"));
                cJSON *dj = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "devices"), 0);
                ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(dj, "source")), "wsl");
                ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(dj, "count_known")));
                ck_assert_ptr_null(cJSON_GetObjectItem(dj, "pci_bus_id"));
                cJSON_Delete(j);
                xpu_inventory_free(inv);
        }
}
END_TEST

/* A Linux host says "linux" and has no WSL2 facts; the NVIDIA host without its nodes made is not
 * WSL2 (no /dev/dxg), and none of the vendors' fast paths warns on a WSL2 host. */
START_TEST(test_linux) {
        struct xpu_inventory *inv = xpu_test_probe_host("nvidia-l4-single");
        ck_assert_int_eq(inv->platform, XPU_PLATFORM_LINUX);
        ck_assert_str_eq(xpu_platform_name(inv->platform), "linux");
        ck_assert_str_eq(xpu_platform_name(XPU_PLATFORM_WSL), "wsl");
        ck_assert_str_eq(xpu_platform_name(XPU_PLATFORM_TEGRA), "tegra");
        ck_assert_ptr_null(xpu_platform_name(_XPU_PLATFORM_MAX));
        for (int v = 0; v < _XPU_VENDOR_MAX; v++)
                ck_assert_str_eq(inv->vendors[v].wsl_store, "");
        cJSON *j = xpu_inventory_to_json(inv);
        ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "host"), "platform")), "linux");
        cJSON_Delete(j);
        xpu_inventory_free(inv);
        inv = xpu_test_probe_host("wsl-nvidia"); /* the tree as stored: DEVNODES, no node */
        ck_assert_int_eq(inv->platform, XPU_PLATFORM_LINUX);
        ck_assert_uint_eq(inv->n_devices, 0);
        ck_assert_uint_eq(inv->n_warnings, 0);
        xpu_inventory_free(inv);
}
END_TEST

static void dxg_regular(const char *root) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/dev/dxg", root);
        ck_assert_int_eq(unlink(p), 0);
        xpu_test_write(root, "dev/dxg", "");
}

static void dxg_wrong_major(const char *root) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s/dev/dxg", root);
        ck_assert_int_eq(unlink(p), 0);
        ck_assert_int_eq(mknod(p, S_IFCHR | 0666, makedev(1, 3)), 0);
}

/* Every file of ROOT/REL removed (the directory kept). */
static void empty_dir(const char *root, const char *rel) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/%s", root, rel);
        DIR *d = opendir(dir);
        ck_assert_ptr_nonnull(d);
        for (struct dirent *de; (de = readdir(d));)
                if (de->d_name[0] != '.')
                        ck_assert_int_eq(unlinkat(dirfd(d), de->d_name, 0), 0);
        closedir(d);
}

static void lib_empty(const char *root) {
        empty_dir(root, "usr/lib/wsl/lib");
}

/* The driver store folder replaced by a symbolic link to a folder outside the root holding the
 * same files. */
static void store_symlink_out(const char *root) {
        char store[PATH_MAX], outside[PATH_MAX];
        snprintf(store, sizeof store, "%s" NV_STORE, root);
        snprintf(outside, sizeof outside, "%s.outside", root);
        ck_assert_int_eq(rename(store, outside), 0);
        ck_assert_int_eq(symlink(outside, store), 0);
}

static void store_twice(const char *root) {
        xpu_test_write(root, "usr/lib/wsl/drivers/nvltwi.inf_amd64_08cf6d985207979a/libcuda.so.1.1", "");
}

static void store_no_marker(const char *root) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s" NV_STORE "/libcuda.so.1.1", root);
        ck_assert_int_eq(unlink(path), 0);
        xpu_test_write(root, "usr/lib/wsl/drivers/nvmii.inf_amd64_dc83e8227e4d659f/NvCamera.dll", "");
}

/* A folder whose name would add a line to the loader's drop-in. */
static void store_newline(const char *root) {
        char store[PATH_MAX], odd[PATH_MAX];
        snprintf(store, sizeof store, "%s" NV_STORE, root);
        snprintf(odd, sizeof odd, "%s/usr/lib/wsl/drivers/nv_x.inf_amd64_1\ninclude", root);
        ck_assert_int_eq(rename(store, odd), 0);
}

/* Bad input: each a warning naming the path and the fix, never a device guessed. */
START_TEST(test_bad_input) {
        struct xpu_inventory *inv = xpu_test_probe_copy("wsl-nvidia", dxg_regular, NULL, NULL);
        ck_assert_int_eq(inv->platform, XPU_PLATFORM_LINUX);
        ck_assert_uint_eq(inv->n_devices, 0);
        ck_assert_uint_eq(inv->n_warnings, 1);
        ck_assert_msg(strstr(inv->warnings[0], "/dev/dxg under dev root ") &&
                              strstr(inv->warnings[0], ": a regular file, not a character device; not taken for WSL2's "
                                                       "GPU node (dxgkrnl makes it a misc character device, major 10): "
                                                       "give the container the host's /dev/dxg (--device /dev/dxg)"),
                      "%s", inv->warnings[0]);
        xpu_inventory_free(inv);

        inv = xpu_test_probe_copy("wsl-nvidia", dxg_wrong_major, NULL, NULL);
        ck_assert_int_eq(inv->platform, XPU_PLATFORM_LINUX);
        ck_assert_uint_eq(inv->n_devices, 0);
        ck_assert_uint_eq(inv->n_warnings, 1);
        ck_assert_msg(strstr(inv->warnings[0], ": character device 1:3, not of the misc major 10; not taken for "
                                               "WSL2's GPU node"), "%s", inv->warnings[0]);
        xpu_inventory_free(inv);

        /* an empty /usr/lib/wsl/lib: said, and the driver store still found */
        inv = xpu_test_probe_copy("wsl-nvidia", lib_empty, NULL, NULL);
        ck_assert_int_eq(inv->platform, XPU_PLATFORM_WSL);
        ck_assert_uint_eq(inv->n_devices, 1);
        ck_assert_uint_eq(inv->n_warnings, 1);
        ck_assert_msg(strstr(inv->warnings[0], "/usr/lib/wsl/lib in driver root ") &&
                              strstr(inv->warnings[0], ": empty; WSL2 mounts the Windows driver's libraries there: give "
                                                       "the container the host's /usr/lib/wsl (-v "
                                                       "/usr/lib/wsl:/usr/lib/wsl:ro) or pass --driver-root"),
                      "%s", inv->warnings[0]);
        xpu_inventory_free(inv);

        char *root = NULL;
        inv = xpu_test_probe_copy("wsl-nvidia", store_symlink_out, NULL, &root);
        ck_assert_int_eq(inv->platform, XPU_PLATFORM_WSL);
        ck_assert_uint_eq(inv->n_devices, 0);
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].wsl_store, "");
        ck_assert(has_warning(inv, NV_STORE " in driver root "));
        ck_assert(has_warning(inv, ": a symbolic link, not a folder; skipped"));
        ck_assert(has_warning(inv, "/dev/dxg is WSL2's GPU node, but /usr/lib/wsl/drivers in driver root "));
        xpu_inventory_free(inv);
        char outside[PATH_MAX + 16];
        snprintf(outside, sizeof outside, "%s.outside", root);
        xpu_test_rm_rf(outside);
        xpu_test_rm_rf(root);
        free(root);

        inv = xpu_test_probe_copy("wsl-nvidia", store_twice, NULL, NULL);
        ck_assert_uint_eq(inv->n_devices, 1);
        ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].wsl_store, NV_STORE);
        ck_assert_uint_eq(inv->n_warnings, 1);
        ck_assert_msg(strstr(inv->warnings[0], "/usr/lib/wsl/drivers/nvltwi.inf_amd64_08cf6d985207979a in driver root ") &&
                              strstr(inv->warnings[0], ": another NVIDIA driver store folder besides " NV_STORE
                                                       "; using " NV_STORE " (the first by name)"),
                      "%s", inv->warnings[0]);
        xpu_inventory_free(inv);

        inv = xpu_test_probe_copy("wsl-nvidia", store_newline, NULL, NULL);
        ck_assert_uint_eq(inv->n_devices, 0);
        ck_assert(has_warning(inv, "/usr/lib/wsl/drivers/nv_x.inf_amd64_1"));
        ck_assert(has_warning(inv, ": not a driver store folder's name (letters, digits, '.', '_', '-'); skipped"));
        xpu_inventory_free(inv);

        /* NVIDIA folders without libcuda.so.1.1 are other packages of NVIDIA's: no GPU */
        inv = xpu_test_probe_copy("wsl-nvidia", store_no_marker, NULL, NULL);
        ck_assert_int_eq(inv->platform, XPU_PLATFORM_WSL);
        ck_assert_uint_eq(inv->n_devices, 0);
        ck_assert_uint_eq(inv->n_warnings, 1);
        ck_assert(has_warning(inv, "holds no GPU driver folder of a known vendor"));
        xpu_inventory_free(inv);
}
END_TEST

/* The files of NVIDIA's descriptor: from its driver store where it has them, libdxcore.so from
 * /usr/lib/wsl/lib; none from /usr/lib/wsl/lib that the store has (its libcuda.so.1.1 stays the
 * store's). Without a store, all from /usr/lib/wsl/lib. A vendor without wsl data: -EINVAL. */
START_TEST(test_files) {
        struct xpu_roots r;
        xpu_test_open_host(&r, "wsl-nvidia");
        const struct xpu_vendor_wsl *w = xpu_vendor(XPU_VENDOR_NVIDIA)->wsl;
        struct xpu_host_files *f = NULL;
        ck_assert_int_eq(xpu_wsl_files_find(r.driver_fd, w, NV_STORE, &f), 0);
        static const char *const want[] = {
                NV_STORE "/libcuda.so.1.1",    NV_STORE "/libcuda_loader.so", NV_STORE "/libnvidia-ptxjitcompiler.so.1",
                NV_STORE "/libnvidia-ml.so.1", NV_STORE "/libnvidia-ml_loader.so", NV_STORE "/libnvdxgdmal.so.1",
                NV_STORE "/nvcubins.bin",      NV_STORE "/nvidia-smi",       "/usr/lib/wsl/lib/libdxcore.so",
        };
        ck_assert_uint_eq(f->n, ELEMENTSOF(want));
        for (size_t i = 0; i < f->n; i++) {
                ck_assert_str_eq(f->files[i].path, want[i]);
                ck_assert_str_eq(f->files[i].resolved, want[i]);
                ck_assert_int_eq(f->files[i].kind, XPU_HOST_FILE_REGULAR);
                ck_assert_str_eq(f->files[i].capability, "wsl");
        }
        ck_assert_uint_eq(f->n_skipped, 0);
        xpu_host_files_free(f);

        ck_assert_int_eq(xpu_wsl_files_find(r.driver_fd, w, "", &f), 0);
        static const char *const lib[] = { "/usr/lib/wsl/lib/libcuda.so.1.1", "/usr/lib/wsl/lib/libnvidia-ml.so.1",
                                           "/usr/lib/wsl/lib/libdxcore.so", "/usr/lib/wsl/lib/nvidia-smi" };
        ck_assert_uint_eq(f->n, ELEMENTSOF(lib));
        for (size_t i = 0; i < f->n; i++)
                ck_assert_str_eq(f->files[i].path, lib[i]);
        xpu_host_files_free(f);
        ck_assert_int_eq(xpu_wsl_files_find(r.driver_fd, NULL, NV_STORE, &f), -EINVAL);
        xpu_roots_close(&r);
}
END_TEST

/* xpu_wsl_expand(): a vendor's driver store entry replaced, in place, by N copies of it (source
 * of the backend, vendor_index 0..N-1, the /dev/dxg node kept, indices renumbered) between the
 * devices around it; a cap at XPU_WSL_DEVICES_MAX with a warning; no entry: -ENOENT, nothing
 * changed; N 0: -EINVAL; the JSON's count_known true for the copies. */
START_TEST(test_expand) {
        struct xpu_inventory *inv = xpu_test_probe_copy("wsl-nvidia", NULL, NULL, NULL);
        ck_assert_uint_eq(inv->n_devices, 1);
        /* another vendor's entry after it, as a mixed WSL2 host has */
        struct xpu_device amd = inv->devices[0];
        amd.vendor = XPU_VENDOR_AMD;
        ck_assert_ptr_nonnull(xpu_inventory_add_device(inv, &amd));
        inv->devices[1].index = 1;
        ck_assert_int_eq(xpu_wsl_expand(inv, XPU_VENDOR_INTEL, XPU_SOURCE_NVML, 2), -ENOENT);
        ck_assert_int_eq(xpu_wsl_expand(inv, XPU_VENDOR_NVIDIA, XPU_SOURCE_NVML, 0), -EINVAL);
        ck_assert_uint_eq(inv->n_devices, 2);
        ck_assert_int_eq(xpu_wsl_expand(inv, XPU_VENDOR_NVIDIA, XPU_SOURCE_NVML, 3), 0);
        ck_assert_uint_eq(inv->n_devices, 4);
        for (unsigned i = 0; i < 3; i++) {
                const struct xpu_device *d = &inv->devices[i];
                ck_assert_int_eq(d->vendor, XPU_VENDOR_NVIDIA);
                ck_assert_int_eq(d->source, XPU_SOURCE_NVML);
                ck_assert_uint_eq(d->index, i);
                ck_assert_uint_eq(d->vendor_index, i);
                ck_assert_uint_eq(d->n_nodes, 1);
                ck_assert_str_eq(d->nodes[0].path, "/dev/dxg");
                cJSON *j = xpu_device_to_json(d);
                ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(j, "count_known")));
                cJSON_Delete(j);
        }
        ck_assert_int_eq(inv->devices[3].vendor, XPU_VENDOR_AMD);
        ck_assert_int_eq(inv->devices[3].source, XPU_SOURCE_WSL);
        ck_assert_uint_eq(inv->devices[3].index, 3);
        ck_assert_uint_eq(inv->n_warnings, 0);
        /* done once: no entry of NVIDIA's left */
        ck_assert_int_eq(xpu_wsl_expand(inv, XPU_VENDOR_NVIDIA, XPU_SOURCE_NVML, 3), -ENOENT);
        /* more than the cap: the first XPU_WSL_DEVICES_MAX, said */
        ck_assert_int_eq(xpu_wsl_expand(inv, XPU_VENDOR_AMD, XPU_SOURCE_ROCM_SMI, XPU_WSL_DEVICES_MAX + 5), 3);
        ck_assert_uint_eq(inv->n_devices, 3 + XPU_WSL_DEVICES_MAX);
        ck_assert_uint_eq(inv->devices[inv->n_devices - 1].vendor_index, XPU_WSL_DEVICES_MAX - 1);
        ck_assert(has_warning(inv, "rocm_smi: 21 AMD GPUs on WSL2, only the first 16 listed"));
        xpu_inventory_free(inv);
}
END_TEST

static Suite *wsl_suite(void) {
        Suite *s = suite_create("wsl");
        TCase *tc = tcase_create("probe");
        tcase_add_test(tc, test_fixtures);
        tcase_add_test(tc, test_linux);
        tcase_add_test(tc, test_bad_input);
        tcase_add_test(tc, test_files);
        tcase_add_test(tc, test_expand);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(wsl_suite());
}
