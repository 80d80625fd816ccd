/* SPDX-License-Identifier: Apache-2.0 */
/* "Results agree with the fast path on the same fixture host": for every NVIDIA fixture
 * host (tests/fixtures/hosts/nvidia-*), a fake NVML state is written from what the host's capture
 * says (expected.json; names missing there from the procfs information files), NVML lists the
 * devices in the reverse of bus order, the real helper reads it, and xpu_nvml_merge() must match
 * every device of the fast path by bus id, add no warning, and leave procfs's uuid and minor as
 * they were. A host whose capture has no /proc/driver/nvidia/version is first refused (-ENODATA),
 * then read with the library's version. */
#include <cJSON.h>

#include "shim-root.h"
#include "nvidia/nvidia-facts.h"

/* The text of FILE under the fixture HOST, or NULL when it does not exist. free(). */
static char *host_file(const char *host, const char *file) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", xpu_test_host(host), file);
        FILE *f = fopen(path, "re");
        if (!f)
                return NULL;
        char *buf = NULL;
        size_t cap = 0;
        ssize_t n = getdelim(&buf, &cap, '\0', f);
        fclose(f);
        if (n < 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

/* The "Model:" of the host's procfs information file of BUS, into OUT ("" when absent). */
static void procfs_model(const char *host, const char *bus, char *out, size_t size) {
        char rel[128];
        out[0] = '\0';
        snprintf(rel, sizeof rel, "proc/driver/nvidia/gpus/%s/information", bus);
        char *text = host_file(host, rel);
        ck_assert_msg(text, "%s: %s missing", host, rel);
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
                if (strncmp(line, "Model:", 6) == 0) {
                        snprintf(out, size, "%s", line + 6 + strspn(line + 6, " \t"));
                        break;
                }
        free(text);
}

static const char *json_str(const cJSON *o, const char *key) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
        return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* What the test expects of one device, from expected.json. */
struct want {
        char bus[XPU_PCI_BUS_ID_MAX];
        char uuid[64];
        char name[128];
        unsigned minor;
        double memory_total;
        size_t n_mig;
        int mig_mode; /* -1 unknown */
        unsigned mig_gi[XPU_MIG_DEVICES_MAX], mig_ci[XPU_MIG_DEVICES_MAX]; /* gpu/compute_instance_id */
        double mig_memory[XPU_MIG_DEVICES_MAX];                           /* memory_total_bytes, 0 absent */
};

/* Append "device.K.* ..." lines for W to STATE (LEN used of SIZE). */
static void add_state(char *state, size_t size, size_t *len, size_t k, const struct want *w, const char *brand) {
        unsigned domain = 0, bus = 0, dev = 0, fn = 0;
        ck_assert_int_eq(sscanf(w->bus, "%x:%x:%x.%x", &domain, &bus, &dev, &fn), 4);
        int n = snprintf(state + *len, size - *len,
                         "device.%zu.uuid %s\ndevice.%zu.name %s\ndevice.%zu.bus_id %08X:%02X:%02X.%X\n"
                         "device.%zu.minor %u\n",
                         k, w->uuid, k, w->name, k, domain, bus, dev, fn, k, w->minor);
        ck_assert(n > 0 && (size_t)n < size - *len);
        *len += (size_t)n;
        if (w->memory_total > 0)
                *len += (size_t)snprintf(state + *len, size - *len, "device.%zu.memory_total %.0f\n", k, w->memory_total);
        if (brand)
                *len += (size_t)snprintf(state + *len, size - *len, "device.%zu.brand %s\n", k, brand);
        if (w->mig_mode >= 0)
                *len += (size_t)snprintf(state + *len, size - *len, "device.%zu.mig_mode %d\n", k, w->mig_mode);
        for (size_t m = 0; m < w->n_mig; m++) {
                *len += (size_t)snprintf(state + *len, size - *len,
                                         "device.%zu.mig.%zu.uuid MIG-%08zx-0000-4000-8000-%012zx\n"
                                         "device.%zu.mig.%zu.gi %u\ndevice.%zu.mig.%zu.ci %u\n",
                                         k, m, k, m, k, m, w->mig_gi[m], k, m, w->mig_ci[m]);
                if (w->mig_memory[m] > 0)
                        *len += (size_t)snprintf(state + *len, size - *len, "device.%zu.mig.%zu.memory_total %.0f\n",
                                                 k, m, w->mig_memory[m]);
        }
        ck_assert(*len < size);
}

/* Check one host; returns the number of NVIDIA devices it has. */
static size_t check_host(const char *host) {
        struct xpu_inventory *inv = xpu_test_probe_host(host);
        size_t fast = xpu_inventory_count(inv, XPU_VENDOR_NVIDIA);
        char *text = host_file(host, "expected.json");
        cJSON *root = text ? cJSON_Parse(text) : NULL;
        free(text);
        const cJSON *nv = cJSON_GetObjectItemCaseSensitive(root, "nvidia");
        const cJSON *devices = cJSON_GetObjectItemCaseSensitive(nv, "devices");
        size_t n = cJSON_IsArray(devices) ? (size_t)cJSON_GetArraySize(devices) : 0;
        ck_assert_msg(fast == n, "%s: fast path has %zu NVIDIA devices, expected.json %zu", host, fast, n);
        if (n == 0) {
                cJSON_Delete(root);
                xpu_inventory_free(inv);
                return 0;
        }

        struct want *w = calloc(n, sizeof(*w));
        const char **brands = calloc(n, sizeof(*brands));
        ck_assert(w && brands);
        const char *first_name = NULL;
        for (size_t i = 0; i < n; i++) {
                const cJSON *d = cJSON_GetArrayItem(devices, (int)i);
                const char *uuid = json_str(d, "uuid"), *bus = json_str(d, "pci_bus_id"), *name = json_str(d, "name");
                const cJSON *minor = cJSON_GetObjectItemCaseSensitive(d, "device_minor");
                const cJSON *mem = cJSON_GetObjectItemCaseSensitive(d, "memory_total_bytes");
                const cJSON *migs = cJSON_GetObjectItemCaseSensitive(d, "mig_devices");
                const char *mig = json_str(d, "mig_mode");
                ck_assert_msg(uuid && bus && cJSON_IsNumber(minor), "%s: device %zu lacks uuid, bus id or minor", host, i);
                ck_assert_int_eq(xpu_pci_bus_id_normalize(bus, w[i].bus), 0);
                snprintf(w[i].uuid, sizeof w[i].uuid, "%s", uuid);
                if (name)
                        snprintf(w[i].name, sizeof w[i].name, "%s", name);
                else
                        procfs_model(host, w[i].bus, w[i].name, sizeof w[i].name);
                if (w[i].name[0] && !first_name)
                        first_name = w[i].name;
                w[i].minor = (unsigned)minor->valuedouble;
                w[i].memory_total = cJSON_IsNumber(mem) ? mem->valuedouble : 0;
                w[i].mig_mode = !mig ? -1 : strcmp(mig, "Enabled") == 0 ? 1 : 0;
                w[i].n_mig = cJSON_IsArray(migs) ? (size_t)cJSON_GetArraySize(migs) : 0;
                ck_assert_uint_le(w[i].n_mig, XPU_MIG_DEVICES_MAX);
                for (size_t m = 0; m < w[i].n_mig; m++) {
                        const cJSON *g = cJSON_GetArrayItem(migs, (int)m);
                        const cJSON *gi = cJSON_GetObjectItemCaseSensitive(g, "gpu_instance_id");
                        const cJSON *ci = cJSON_GetObjectItemCaseSensitive(g, "compute_instance_id");
                        const cJSON *gm = cJSON_GetObjectItemCaseSensitive(g, "memory_total_bytes");
                        ck_assert_msg(cJSON_IsNumber(gi) && cJSON_IsNumber(ci), "%s: MIG device %zu lacks its ids", host, m);
                        w[i].mig_gi[m] = (unsigned)gi->valuedouble;
                        w[i].mig_ci[m] = (unsigned)ci->valuedouble;
                        w[i].mig_memory[m] = cJSON_IsNumber(gm) ? gm->valuedouble : 0;
                }
                brands[i] = json_str(d, "brand");
        }
        /* NVML names every GPU; where the capture has no name for one, it has the host's model. */
        for (size_t i = 0; i < n; i++)
                if (!w[i].name[0])
                        snprintf(w[i].name, sizeof w[i].name, "%s", first_name ? first_name : "NVIDIA GPU");

        const char *driver = inv->vendors[XPU_VENDOR_NVIDIA].driver_version;
        const char *expected_driver = json_str(nv, "driver_version"), *cuda = json_str(nv, "cuda_version");
        if (expected_driver)
                ck_assert_str_eq(driver, expected_driver);
        const char *library_version = driver[0] ? driver : "550.90.07";
        char state[16384];
        size_t len = (size_t)snprintf(state, sizeof state, "driver_version %s\n%s%s%sdevice_count %zu\n", library_version,
                                      cuda ? "cuda_version " : "", cuda ? cuda : "", cuda ? "\n" : "", n);
        for (size_t k = 0; k < n; k++) /* NVML index k = the host's device n-1-k */
                add_state(state, sizeof state, &len, k, &w[n - 1 - k], brands[n - 1 - k]);

        char *droot = nvml_make_root(library_version, state);
        struct xpu_nvml_result *r = NULL;
        char err[256] = "";
        if (!driver[0]) {
                /* A capture without /proc/driver/nvidia/version (nvidia-l4-single): the reader never
                 * loads a library it cannot check against the module's version. The agreement
                 * check below then reads as on a host whose module has the library's version. */
                ck_assert_int_eq(nvml_read_root(droot, driver, 5000, &r, err, sizeof err), -ENODATA);
                ck_assert_str_eq(err, "not loading libnvidia-ml.so.1: the NVIDIA kernel module's version is unknown "
                                      "(no readable /proc/driver/nvidia/version), so the library cannot be checked "
                                      "against it");
                ck_assert_ptr_null(r);
        }
        ck_assert_msg(nvml_read_root(droot, library_version, 5000, &r, err, sizeof err) == 0, "%s: %s", host, err);
        ck_assert_uint_eq(r->n, n);

        struct xpu_device *before = calloc(inv->n_devices, sizeof(*before));
        ck_assert_ptr_nonnull(before);
        memcpy(before, inv->devices, inv->n_devices * sizeof(*before));
        size_t warnings = inv->n_warnings;
        ck_assert_msg(xpu_nvml_merge(inv, r) == (int)n, "%s: not every device matched", host);
        ck_assert_msg(inv->n_warnings == warnings, "%s: merge warned:\n%s", host, shim_warnings_since(inv, warnings));

        for (size_t i = 0; i < n; i++) {
                const struct xpu_device *dev = shim_by_bus(inv, w[i].bus);
                const struct xpu_device *old = &before[dev - inv->devices];
                ck_assert_str_eq(dev->uuid, w[i].uuid);
                ck_assert_str_eq(dev->uuid, old->uuid);
                ck_assert_int_eq(xpu_device_field_source(dev, XPU_FIELD_UUID), XPU_SOURCE_PROCFS);
                ck_assert_uint_eq(xpu_nvidia_facts(dev)->minor, w[i].minor);
                ck_assert_uint_eq(xpu_nvidia_facts(dev)->minor, xpu_nvidia_facts(old)->minor);
                ck_assert_str_eq(dev->name, w[i].name);
                ck_assert_int_eq(xpu_device_field_source(dev, XPU_FIELD_NAME),
                                 old->name[0] ? XPU_SOURCE_PROCFS : XPU_SOURCE_NVML);
                if (w[i].memory_total > 0) {
                        ck_assert_uint_ne(dev->have & XPU_HAVE_MEMORY_TOTAL, 0);
                        ck_assert(dev->memory_total_bytes == (uint64_t)w[i].memory_total);
                }
                /* nvidia-smi prints "GeForce"; the inventory has the toolkit's "geforce" */
                if (brands[i])
                        ck_assert_msg(strcasecmp(xpu_nvidia_facts(dev)->brand, brands[i]) == 0, "brand %s, captured %s", xpu_nvidia_facts(dev)->brand,
                                      brands[i]);
                if (w[i].mig_mode >= 0) {
                        ck_assert_uint_ne(dev->have & XPU_HAVE_MIG_MODE, 0);
                        ck_assert_int_eq(xpu_nvidia_facts(dev)->mig_enabled, w[i].mig_mode == 1);
                        ck_assert_uint_eq(xpu_nvidia_facts(dev)->n_mig, w[i].n_mig);
                        for (size_t m = 0; m < w[i].n_mig; m++) {
                                char uuid[64];
                                snprintf(uuid, sizeof uuid, "MIG-%08zx-0000-4000-8000-%012zx", i, m);
                                ck_assert_uint_eq(xpu_nvidia_facts(dev)->mig[m].gi, w[i].mig_gi[m]);
                                ck_assert_uint_eq(xpu_nvidia_facts(dev)->mig[m].ci, w[i].mig_ci[m]);
                                ck_assert_str_eq(xpu_nvidia_facts(dev)->mig[m].uuid, uuid);
                                if (w[i].mig_memory[m] > 0)
                                        ck_assert(xpu_nvidia_facts(dev)->mig[m].memory_total_bytes == (uint64_t)w[i].mig_memory[m]);
                        }
                } else {
                        ck_assert_uint_eq(dev->have & XPU_HAVE_MIG_MODE, 0);
                }
        }
        if (cuda)
                ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version, cuda);

        free(before);
        xpu_nvml_result_free(r);
        shim_drop_root(droot);
        free(brands);
        free(w);
        cJSON_Delete(root);
        xpu_inventory_free(inv);
        return n;
}

START_TEST(test_fixture_hosts_agree) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", xpu_test_host(""));
        DIR *d = opendir(dir);
        ck_assert_ptr_nonnull(d);
        struct dirent *de;
        size_t hosts = 0, with_gpus = 0, gpus = 0;
        while ((de = readdir(d)))
                if (strncmp(de->d_name, "nvidia-", 7) == 0) {
                        size_t n = check_host(de->d_name);
                        hosts++;
                        with_gpus += n > 0;
                        gpus += n;
                }
        closedir(d);
        /* nvidia-a100-mig (1 GPU, MIG), nvidia-l4-single (1), nvidia-rtx2080ti-x8 (8),
         * nvidia-hyperv-t4x2 (2, 32-bit PCI domains: NVML's 8-digit bus ids must match the kernel's
         * spelling by number), and the GPU-less nvidia-edge-nouveau and nvidia-libs-550 at the time of
         * writing. */
        ck_assert_uint_ge(hosts, 6);
        ck_assert_uint_ge(with_gpus, 4);
        ck_assert_uint_ge(gpus, 12);
}
END_TEST

static Suite *nvml_fixtures_suite(void) {
        Suite *s = suite_create("nvidia-nvml.fixtures");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 30);
        tcase_add_test(tc, test_fixture_hosts_agree);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(nvml_fixtures_suite());
}
