/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/workloads.c: the kubelet's allocations (hand-built struct xpud_podres_list, in the shapes
 * of tests/fixtures/kubelet/) mapped onto the devices of the fixture hosts as the fast path probes
 * them: NVIDIA GPU and MIG UUIDs with time-slicing replicas (nvidia-a100-mig), AMD PCI bus ids and
 * partition platform devices (amd-mi210x8, a synthetic amdgpu_xcp_*), Intel card ids
 * (intel-arc-b580-xe), DRA claims through CDI node numbers (a stub resolver, and the real CDI
 * reader on a spec file), ids that name no GPU, GPUs shared by several containers; then
 * xpu_workload_info, --workload-labels and the `workloads` of /v1/devices, line for line. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "render-json.h"
#include "nvidia/nvidia-facts.h"
#include "render-prom.h"
#include "testlib.h"
#include "workloads.h"

#define A100_UUID "GPU-202d648d-7b39-6345-296c-251c4321e21c"
#define A100_MIG1 "MIG-5c89852c-d268-c3f3-1b07-005d5ae1dc3f"
#define MI210_BUS0 "0000:63:00.0"
#define MI210_BUS1 "0000:43:00.0"

static void no_free(struct xpud_podres_list *l) {
        (void)l;
}

/* A snapshot holding the devices the fast path finds on fixture host NAME, with xpud indices in
 * probe order. The caller may edit devices before mapping. */
static struct xpud_snapshot *host_snapshot(const char *name) {
        struct xpud_snapshot *s = xpud_snapshot_new();
        ck_assert_ptr_nonnull(s);
        s->inv = xpu_test_probe_host(name);
        s->n_devices = s->inv->n_devices;
        s->devices = calloc(s->n_devices + 1, sizeof *s->devices);
        ck_assert_ptr_nonnull(s->devices);
        for (size_t i = 0; i < s->n_devices; i++) {
                s->devices[i].dev = s->inv->devices[i];
                s->devices[i].dev.index = (unsigned)i;
        }
        return s;
}

/* Map ALLOCS (N of them) onto S with RESOLVE; returns the unmatched count. */
static uint64_t map(struct xpud_snapshot *s, const char *host, struct xpud_podres_alloc *allocs, size_t n,
                    xpud_cdi_resolve_fn resolve, char *first, size_t first_size) {
        struct xpud_podres_list l = { .allocs = allocs, .n_allocs = n, .n_pods = n };
        struct xpud_podres_answer *a = xpud_podres_answer_new(&l, 1700000000.0, resolve, NULL, no_free);
        ck_assert_ptr_nonnull(a);
        struct xpu_roots roots;
        xpu_test_open_host(&roots, host);
        ck_assert_int_eq(xpud_workloads_map(a, &roots, s, first, first_size), 0);
        xpu_roots_close(&roots);
        xpud_podres_answer_unref(a); /* S keeps its own reference */
        return s->podres.unmatched_ids;
}

static const struct xpud_device *by_bus(const struct xpud_snapshot *s, const char *bus) {
        for (size_t i = 0; i < s->n_devices; i++)
                if (strcmp(s->devices[i].dev.pci_bus_id, bus) == 0)
                        return &s->devices[i];
        ck_abort_msg("no device %s", bus);
        return NULL;
}

static char *prom(const struct xpud_snapshot *s) {
        char *text;
        size_t len;
        ck_assert_int_eq(xpud_render_prom(s, &text, &len), 0);
        return text;
}

static bool has_line(const char *text, const char *line) {
        size_t n = strlen(line);
        for (const char *p = text; (p = strstr(p, line)); p += n)
                if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
                        return true;
        return false;
}

static size_t count_prefix(const char *text, const char *prefix) {
        size_t c = 0;
        for (const char *p = text; (p = strstr(p, prefix)); p++)
                c += p == text || p[-1] == '\n';
        return c;
}

/* ---- NVIDIA ------------------------------------------------------------------------------------- */

START_TEST(test_nvidia_gpu_mig_shared) {
        struct xpud_snapshot *s = host_snapshot("nvidia-a100-mig");
        struct xpud_device *d = (struct xpud_device *)by_bus(s, "0000:01:00.0");
        ck_assert_str_eq(d->dev.uuid, A100_UUID);
        ck_assert_uint_ge(xpu_nvidia_facts(&d->dev)->n_mig, 2);
        /* MIG UUIDs are NVML's (rich path): set one as NVML would. */
        snprintf(xpu_nvidia_facts(&d->dev)->mig[1].uuid, sizeof xpu_nvidia_facts(&d->dev)->mig[1].uuid, "%s", A100_MIG1);
        static const char *const whole[] = { A100_UUID "::0", A100_UUID "::3" }; /* time-sliced replicas */
        static const char *const mig[] = { A100_MIG1 };
        static const char *const other[] = { "GPU-00000000-0000-0000-0000-000000000000", "not-a-uuid" };
        static const char *const cpu[] = { "0", "1" };
        struct xpud_podres_alloc allocs[] = {
                { "ml", "train-0", "main", "nvidia.com/gpu", NULL, whole, 2 },
                { "ml", "infer-1", "server", "nvidia.com/mig-1g.10gb", NULL, mig, 1 },
                { "ml", "lost-2", "main", "nvidia.com/gpu", NULL, other, 2 },
                { "ml", "nic-3", "main", "example.com/nic", NULL, cpu, 2 }, /* not a GPU: not counted */
        };
        char first[128];
        ck_assert_uint_eq(map(s, "nvidia-a100-mig", allocs, 4, NULL, first, sizeof first), 2);
        ck_assert_str_eq(first, "nvidia.com/gpu id GPU-00000000-0000-0000-0000-000000000000");
        ck_assert_uint_eq(d->n_workloads, 2); /* both replicas: one entry */
        ck_assert_str_eq(d->workloads[0].pod, "infer-1");
        ck_assert_str_eq(d->workloads[0].resource, "nvidia.com/mig-1g.10gb");
        ck_assert_str_eq(d->workloads[1].pod, "train-0");
        ck_assert_ptr_null(d->workloads[1].claim);
        char *text = prom(s);
        char want[512];
        snprintf(want, sizeof want,
                 "xpu_workload_info{vendor=\"nvidia\",gpu=\"%u\",uuid=\"" A100_UUID "\",pci_bus_id=\"0000:01:00.0\","
                 "namespace=\"ml\",pod=\"train-0\",container=\"main\",resource=\"nvidia.com/gpu\"} 1",
                 d->dev.index);
        ck_assert_msg(has_line(text, want), "%s not in\n%s", want, text);
        ck_assert_uint_eq(count_prefix(text, "xpu_workload_info{"), 2);
        /* Without --workload-labels the device series carry no pod. */
        ck_assert_ptr_null(strstr(text, "xpu_up{vendor=\"nvidia\",gpu=\"0\",uuid=\"" A100_UUID "\",pci_bus_id=\"0000:01:00.0\",namespace"));
        free(text);
        xpud_snapshot_unref(s);
}
END_TEST

/* ---- AMD --------------------------------------------------------------------------------------- */

START_TEST(test_amd_bus_ids_and_partitions) {
        /* A partition's platform device, as MI300 in CPX mode shows it, on a copy of the host. */
        char *root = xpu_test_copy_host("amd-mi210x8");
        xpu_test_write(root, "sys/devices/platform/amdgpu_xcp_30/drm/renderD129/dev", "226:129\n");
        struct xpud_snapshot *s = xpud_snapshot_new();
        s->inv = xpu_test_probe_backend(xpu_vendors[XPU_VENDOR_AMD], root);
        s->n_devices = s->inv->n_devices;
        ck_assert_uint_eq(s->n_devices, 8);
        s->devices = calloc(s->n_devices, sizeof *s->devices);
        for (size_t i = 0; i < s->n_devices; i++) {
                s->devices[i].dev = s->inv->devices[i];
                s->devices[i].dev.index = (unsigned)i;
        }
        static const char *const ids0[] = { "0000:63:00.0" };
        static const char *const ids1[] = { "amdgpu_xcp_30" };
        static const char *const bad[] = { "0000:99:00.0", "amdgpu_xcp_99" };
        struct xpud_podres_alloc allocs[] = {
                { "hpc", "sim-0", "solver", "amd.com/gpu", NULL, ids0, 1 },
                { "hpc", "sim-1", "solver", "amd.com/cpx_nps4", NULL, ids1, 1 },
                { "hpc", "sim-2", "solver", "amd.com/gpu", NULL, bad, 2 },
        };
        struct xpud_podres_list l = { .allocs = allocs, .n_allocs = 3, .n_pods = 3 };
        struct xpud_podres_answer *a = xpud_podres_answer_new(&l, 1700000000.0, NULL, NULL, no_free);
        struct xpu_roots roots;
        ck_assert_int_eq(xpu_roots_open(&roots, root, root, root, NULL), 0);
        char first[128];
        ck_assert_int_eq(xpud_workloads_map(a, &roots, s, first, sizeof first), 0);
        xpu_roots_close(&roots);
        xpud_podres_answer_unref(a);
        ck_assert_uint_eq(s->podres.unmatched_ids, 2);
        ck_assert_str_eq(first, "amd.com/gpu id 0000:99:00.0");
        const struct xpud_device *d0 = by_bus(s, MI210_BUS0), *d1 = by_bus(s, MI210_BUS1);
        ck_assert_uint_eq(d0->n_workloads, 1);
        ck_assert_str_eq(d0->workloads[0].pod, "sim-0");
        ck_assert_uint_eq(d1->dev.render_minor, 129);
        ck_assert_uint_eq(d1->n_workloads, 1);
        ck_assert_str_eq(d1->workloads[0].resource, "amd.com/cpx_nps4");
        xpud_snapshot_unref(s);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* ---- Intel ------------------------------------------------------------------------------------- */

START_TEST(test_intel_card_ids_shared) {
        struct xpud_snapshot *s = host_snapshot("intel-arc-b580-xe");
        ck_assert_uint_eq(s->n_devices, 1);
        static const char *const share0[] = { "card0-0" }, *const share1[] = { "card0-1" }, *const gone[] = { "card7-0" };
        struct xpud_podres_alloc allocs[] = {
                { "media", "enc-b", "ffmpeg", "gpu.intel.com/xe", NULL, share1, 1 },
                { "media", "enc-a", "ffmpeg", "gpu.intel.com/xe", NULL, share0, 1 },
                { "media", "enc-c", "ffmpeg", "gpu.intel.com/xe", NULL, gone, 1 },
        };
        ck_assert_uint_eq(map(s, "intel-arc-b580-xe", allocs, 3, NULL, NULL, 0), 1);
        const struct xpud_device *d = &s->devices[0];
        ck_assert_uint_eq(d->n_workloads, 2);
        ck_assert_str_eq(d->workloads[0].pod, "enc-a"); /* sorted */
        ck_assert_str_eq(d->workloads[1].pod, "enc-b");
        /* --workload-labels: one series per container sharing the GPU. */
        s->workload_labels = true;
        char *text = prom(s);
        ck_assert_msg(has_line(text, "xpu_up{vendor=\"intel\",gpu=\"0\",uuid=\"\",pci_bus_id=\"0000:03:00.0\","
                                     "namespace=\"media\",pod=\"enc-a\",container=\"ffmpeg\"} 0"), "%s", text);
        ck_assert_msg(has_line(text, "xpu_up{vendor=\"intel\",gpu=\"0\",uuid=\"\",pci_bus_id=\"0000:03:00.0\","
                                     "namespace=\"media\",pod=\"enc-b\",container=\"ffmpeg\"} 0"), "%s", text);
        ck_assert_uint_eq(count_prefix(text, "xpu_up{"), 2);
        ck_assert_uint_eq(count_prefix(text, "# TYPE xpu_up "), 1);
        free(text);
        xpud_snapshot_unref(s);
}
END_TEST

/* ---- DRA --------------------------------------------------------------------------------------- */

/* The CDI specs of the test: NVIDIA's DRA driver names /dev/nvidia0 (195:0) and nvidiactl; a
 * spec for a GPU that is not there; an unknown name. */
static int stub_resolve(const void *ctx, const char *name, dev_t *nodes, size_t max, size_t *n) {
        (void)ctx;
        *n = 0;
        if (max < 2)
                return -ENOBUFS;
        if (strcmp(name, "k8s.gpu.nvidia.com/claim=uid-1-gpu-0") == 0) {
                nodes[0] = makedev(195, 0);
                nodes[1] = makedev(195, 255);
                *n = 2;
                return 0;
        }
        if (strcmp(name, "k8s.gpu.nvidia.com/claim=uid-2-gpu-7") == 0) {
                nodes[0] = makedev(195, 7);
                *n = 1;
                return 0;
        }
        return -ENOENT;
}

START_TEST(test_dra_claims) {
        struct xpud_snapshot *s = host_snapshot("nvidia-rtx2080ti-x8");
        const struct xpud_device *d0 = NULL;
        for (size_t i = 0; i < s->n_devices; i++)
                for (size_t k = 0; k < s->devices[i].dev.n_nodes; k++)
                        if (strcmp(s->devices[i].dev.nodes[k].path, "/dev/nvidia0") == 0)
                                d0 = &s->devices[i];
        ck_assert_ptr_nonnull(d0);
        static const char *const c1[] = { "k8s.gpu.nvidia.com/claim=uid-1-gpu-0" };
        static const char *const c2[] = { "k8s.gpu.nvidia.com/claim=uid-2-gpu-7", "vendor.example/gpu=nope" };
        struct xpud_podres_alloc allocs[] = {
                { "ml", "train-0", "main", "gpu.nvidia.com", "ml/train-0-gpu", c1, 1 },
                { "ml", "train-1", "main", "gpu.nvidia.com", "ml/train-1-gpu", c2, 2 },
        };
        char first[128];
        uint64_t unmatched = map(s, "nvidia-rtx2080ti-x8", allocs, 2, stub_resolve, first, sizeof first);
        ck_assert_uint_eq(d0->n_workloads, 1);
        ck_assert_str_eq(d0->workloads[0].claim, "ml/train-0-gpu");
        ck_assert_str_eq(d0->workloads[0].resource, "gpu.nvidia.com");
        /* nvidia7 exists on this 8-GPU host; the unknown CDI name is the one unmatched. */
        ck_assert_uint_eq(unmatched, 1);
        ck_assert_str_eq(first, "CDI device id vendor.example/gpu=nope");
        char *text = prom(s);
        char want[512];
        snprintf(want, sizeof want,
                 "xpu_workload_info{vendor=\"nvidia\",gpu=\"%u\",uuid=\"%s\",pci_bus_id=\"%s\",namespace=\"ml\","
                 "pod=\"train-0\",container=\"main\",resource=\"gpu.nvidia.com\",claim=\"ml/train-0-gpu\"} 1",
                 d0->dev.index, d0->dev.uuid, d0->dev.pci_bus_id);
        ck_assert_msg(has_line(text, want), "%s not in\n%s", want, text);
        free(text);
        /* /v1/devices: workloads with the claim; null claim for device plugins, [] when none. */
        char *json;
        size_t len;
        ck_assert_int_eq(xpud_render_json(s, XPUD_ROUTE_DEVICES, &json, &len), 0);
        ck_assert_msg(strstr(json, "\"workloads\":[{\"namespace\":\"ml\",\"pod\":\"train-0\",\"container\":\"main\","
                                   "\"resource\":\"gpu.nvidia.com\",\"claim\":\"ml/train-0-gpu\"}]"),
                      "%s", json);
        ck_assert_msg(strstr(json, "\"workloads\":[]"), "%s", json);
        free(json);
        xpud_snapshot_unref(s);
}
END_TEST

/* The same through the real CDI reader (cdi-devices.h): a spec file in a temporary directory,
 * the numbers in it; a common node (nvidiactl) names no GPU. */
START_TEST(test_dra_real_specs) {
        char *dir = xpu_test_mkdtemp();
        xpu_test_write(dir, "claim.json",
                       "{\"cdiVersion\": \"0.6.0\", \"kind\": \"k8s.gpu.nvidia.com/claim\", \"devices\": [{\"name\": "
                       "\"u1-gpu-1\", \"containerEdits\": {\"deviceNodes\": [{\"path\": \"/dev/nvidia1\", \"type\": "
                       "\"c\", \"major\": 195, \"minor\": 1}]}}], \"containerEdits\": {\"deviceNodes\": [{\"path\": "
                       "\"/dev/nvidiactl\", \"type\": \"c\", \"major\": 195, \"minor\": 255}]}}");
        const char *dirs[] = { dir };
        struct xpud_cdi_devices *cdi = NULL;
        char err[256];
        ck_assert_int_eq(xpud_cdi_devices_load(dirs, 1, NULL, NULL, &cdi, err, sizeof err), 0);
        struct xpud_snapshot *s = host_snapshot("nvidia-rtx2080ti-x8");
        static const char *const c[] = { "k8s.gpu.nvidia.com/claim=u1-gpu-1" };
        struct xpud_podres_alloc al[] = { { "ml", "p", "c", "gpu.nvidia.com", "ml/p-gpu", c, 1 } };
        struct xpud_podres_list l = { .allocs = al, .n_allocs = 1, .n_pods = 1 };
        struct xpud_podres_answer *a = xpud_podres_answer_new(&l, 1700000000.0, xpud_workloads_cdi_resolve, cdi, no_free);
        cdi = xpud_cdi_devices_free(cdi); /* the answer holds numbers, not the specs */
        struct xpu_roots roots;
        xpu_test_open_host(&roots, "nvidia-rtx2080ti-x8");
        ck_assert_int_eq(xpud_workloads_map(a, &roots, s, NULL, 0), 0);
        xpu_roots_close(&roots);
        xpud_podres_answer_unref(a);
        ck_assert_uint_eq(s->n_workloads, 1);
        ck_assert_uint_eq(s->podres.unmatched_ids, 0);
        for (size_t i = 0; i < s->n_devices; i++)
                ck_assert_uint_eq(s->devices[i].n_workloads, xpu_nvidia_facts(&s->devices[i].dev)->minor == 1 ? 1 : 0);
        xpud_snapshot_unref(s);
        xpu_test_rm_rf(dir);
        free(dir);
}
END_TEST

/* The daemon series: only when the client is on. */
START_TEST(test_daemon_series) {
        struct xpud_snapshot *s = host_snapshot("intel-arc-b580-xe");
        char *text = prom(s);
        ck_assert_ptr_null(strstr(text, "xpud_pod_resources"));
        free(text);
        s->podres = (struct xpud_pod_resources){ .on = true, .up = false, .have_answer = true, .age_seconds = 12.5,
                                                 .errors_total = 3, .unmatched_ids = 1 };
        text = prom(s);
        ck_assert(has_line(text, "xpud_pod_resources_up 0"));
        ck_assert(has_line(text, "xpud_pod_resources_age_seconds 12.5"));
        ck_assert(has_line(text, "xpud_pod_resources_errors_total 3"));
        ck_assert(has_line(text, "xpud_workload_unmatched_ids 1"));
        free(text);
        xpud_snapshot_unref(s);
}
END_TEST

/* The client: "none" and a missing default socket leave it off; a given missing socket is tried. */
START_TEST(test_client_off_and_on) {
        struct xpud_workloads *w = (struct xpud_workloads *)1;
        struct xpud_workloads_options o = { .socket_path = "none", .interval_s = 1 };
        ck_assert_int_eq(xpud_workloads_new(&o, &w), 0);
        ck_assert_ptr_null(w);
        char *dir = xpu_test_mkdtemp();
        char sock[512];
        snprintf(sock, sizeof sock, "%s/kubelet.sock", dir);
        o = (struct xpud_workloads_options){ .socket_path = sock, .interval_s = 1 };
        ck_assert_int_eq(xpud_workloads_new(&o, &w), 0);
        ck_assert_ptr_null(w); /* not given: the default rule */
        o.socket_given = true;
        o.cdi_spec_dirs = "/etc/cdi,relative";
        ck_assert_int_eq(xpud_workloads_new(&o, &w), -EINVAL);
        o.cdi_spec_dirs = NULL;
        ck_assert_int_eq(xpud_workloads_new(&o, &w), 0);
        ck_assert_ptr_nonnull(w);
        ck_assert_int_eq(xpud_workloads_start(w), 0);
        struct xpud_snapshot *s = host_snapshot("intel-arc-b580-xe");
        ck_assert_int_eq(xpud_workloads_attach(w, NULL, s), 0); /* never waits */
        ck_assert(s->podres.on);
        ck_assert(!s->podres.have_answer);
        for (int i = 0; i < 200 && xpud_workloads_calls(w) < 1; i++)
                usleep(10000);
        ck_assert_uint_eq(xpud_workloads_calls(w), 1); /* one call per attach */
        ck_assert_int_eq(xpud_workloads_attach(w, NULL, s), 0);
        ck_assert(!s->podres.up);
        ck_assert_uint_eq(s->podres.errors_total, 1);
        w = xpud_workloads_free(w);
        xpud_snapshot_unref(s);
        xpu_test_rm_rf(dir);
        free(dir);
}
END_TEST

static Suite *workloads_suite(void) {
        Suite *s = suite_create("workloads");
        TCase *tc = tcase_create("map");
        tcase_add_test(tc, test_nvidia_gpu_mig_shared);
        tcase_add_test(tc, test_amd_bus_ids_and_partitions);
        tcase_add_test(tc, test_intel_card_ids_shared);
        tcase_add_test(tc, test_dra_claims);
        tcase_add_test(tc, test_dra_real_specs);
        tcase_add_test(tc, test_daemon_series);
        tcase_add_test(tc, test_client_off_and_on);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(workloads_suite());
}
