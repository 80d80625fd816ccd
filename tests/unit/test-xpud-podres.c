/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/podres-decode.c: ListPodResourcesResponse payloads, built with the protobuf-c structs
 * generated from daemon/podresources.proto and packed (or written byte by byte where protobuf-c
 * cannot produce them), decoded into struct xpud_podres_list: device plugins of the three vendors,
 * DRA claims (with and without driver names), pods and containers without devices, the empty
 * reply, every limit of podres.h, truncated and garbage bytes, control bytes, NUL and bad UTF-8 in
 * strings, unknown fields and the reserved DynamicResource.class_name skipped. The HTTP/2 call is
 * tested end to end by tests/e2e/xpud-podres-client.sh. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "podres.h"
#include "podresources.pb-c.h"
#include "testlib.h"

/* protobuf-c's generated structs hold strings as char *; the tests point them at literals, which
 * packing only reads. */
#pragma GCC diagnostic ignored "-Wdiscarded-qualifiers"

/* REPLY packed into a malloc'ed buffer, its size in *LEN. */
static uint8_t *pack(const V1__ListPodResourcesResponse *reply, size_t *len) {
        *len = v1__list_pod_resources_response__get_packed_size(reply);
        uint8_t *b = malloc(*len ? *len : 1);
        ck_assert_ptr_nonnull(b);
        ck_assert_uint_eq(v1__list_pod_resources_response__pack(reply, b), *len);
        return b;
}

/* Allocation I of L as "ns/pod/container resource claim id,id" (claim "-" when NULL). */
static const char *alloc_line(const struct xpud_podres_list *l, size_t i) {
        static char line[4096];
        const struct xpud_podres_alloc *a = &l->allocs[i];
        int n = snprintf(line, sizeof line, "%s/%s/%s %s %s ", a->pod_namespace, a->pod, a->container, a->resource,
                         a->claim ? a->claim : "-");
        for (size_t k = 0; k < a->n_ids && n > 0 && (size_t)n < sizeof line; k++)
                n += snprintf(line + n, sizeof line - (size_t)n, "%s%s", k ? "," : "", a->ids[k]);
        return line;
}

/* A reply of three pods: device plugins of NVIDIA (GPU and MIG), AMD and Intel in the first, a
 * DRA claim over two drivers (one without a driver name, as before Kubernetes 1.31) in the
 * second, a CPU-only container and a pod without containers. */
static uint8_t *sample_reply(size_t *len) {
        char *nv_ids[] = { "GPU-307dcc96-618a-4416-c1ef-87823c2e1a31", "GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe" };
        char *mig_ids[] = { "MIG-5fd0a6e9-4f33-5b3c-9b9a-5a2f4b0e1a11" };
        char *amd_ids[] = { "0000:03:00.0" };
        char *intel_ids[] = { "card1-0", "card1-1" };
        V1__ContainerDevices nv = V1__CONTAINER_DEVICES__INIT, mig = V1__CONTAINER_DEVICES__INIT,
                             amd = V1__CONTAINER_DEVICES__INIT, intel = V1__CONTAINER_DEVICES__INIT;
        nv.resource_name = "nvidia.com/gpu", nv.n_device_ids = 2, nv.device_ids = nv_ids;
        mig.resource_name = "nvidia.com/mig-1g.10gb", mig.n_device_ids = 1, mig.device_ids = mig_ids;
        amd.resource_name = "amd.com/gpu", amd.n_device_ids = 1, amd.device_ids = amd_ids;
        intel.resource_name = "gpu.intel.com/i915", intel.n_device_ids = 2, intel.device_ids = intel_ids;
        V1__NUMANode numa = V1__NUMANODE__INIT, *numas[] = { &numa };
        V1__TopologyInfo topo = V1__TOPOLOGY_INFO__INIT;
        topo.n_nodes = 1, topo.nodes = numas;
        nv.topology = &topo;
        V1__ContainerDevices *devs_a[] = { &nv, &mig }, *devs_b[] = { &amd, &intel };
        int64_t cpus[] = { 2, 3 };
        V1__ContainerMemory mem = V1__CONTAINER_MEMORY__INIT, *mems[] = { &mem };
        mem.memory_type = "memory", mem.size = 1 << 30;
        V1__ContainerResources ca = V1__CONTAINER_RESOURCES__INIT, cb = V1__CONTAINER_RESOURCES__INIT,
                               cpu_only = V1__CONTAINER_RESOURCES__INIT;
        ca.name = "main", ca.n_devices = 2, ca.devices = devs_a, ca.n_cpu_ids = 2, ca.cpu_ids = cpus;
        cb.name = "helper", cb.n_devices = 2, cb.devices = devs_b, cb.n_memory = 1, cb.memory = mems;
        cpu_only.name = "sidecar", cpu_only.n_cpu_ids = 2, cpu_only.cpu_ids = cpus;
        V1__ContainerResources *ctrs0[] = { &ca, &cb, &cpu_only };
        V1__PodResources p0 = V1__POD_RESOURCES__INIT;
        p0.name = "train-0", p0.namespace_ = "ml", p0.n_containers = 3, p0.containers = ctrs0;

        V1__CDIDevice cdi0 = V1__CDIDEVICE__INIT, cdi1 = V1__CDIDEVICE__INIT, cdi2 = V1__CDIDEVICE__INIT;
        cdi0.name = "k8s.gpu.nvidia.com/claim=6f1c-gpu-0";
        cdi1.name = "amd.com/gpu=gpu-1";
        cdi2.name = "k8s.gpu.amd.com/claim=6f1c";
        V1__CDIDevice *cdis_a[] = { &cdi0 }, *cdis_b[] = { &cdi1, &cdi2 };
        V1__ClaimResource cr0 = V1__CLAIM_RESOURCE__INIT, cr1 = V1__CLAIM_RESOURCE__INIT;
        cr0.driver_name = "gpu.nvidia.com", cr0.pool_name = "node-1", cr0.device_name = "gpu-0";
        cr0.n_cdi_devices = 1, cr0.cdi_devices = cdis_a;
        cr1.n_cdi_devices = 2, cr1.cdi_devices = cdis_b; /* no driver name: Kubernetes 1.30 */
        V1__ClaimResource *crs[] = { &cr0, &cr1 };
        V1__DynamicResource dr = V1__DYNAMIC_RESOURCE__INIT, *drs[] = { &dr };
        dr.claim_name = "two-gpus", dr.claim_namespace = "dra", dr.n_claim_resources = 2, dr.claim_resources = crs;
        V1__ContainerResources srv = V1__CONTAINER_RESOURCES__INIT, *ctrs1[] = { &srv };
        srv.name = "srv", srv.n_dynamic_resources = 1, srv.dynamic_resources = drs;
        V1__PodResources p1 = V1__POD_RESOURCES__INIT, p2 = V1__POD_RESOURCES__INIT;
        p1.name = "inference", p1.namespace_ = "dra", p1.n_containers = 1, p1.containers = ctrs1;
        p2.name = "empty", p2.namespace_ = "kube-system";

        V1__PodResources *pods[] = { &p0, &p1, &p2 };
        V1__ListPodResourcesResponse reply = V1__LIST_POD_RESOURCES_RESPONSE__INIT;
        reply.n_pod_resources = 3, reply.pod_resources = pods;
        return pack(&reply, len);
}

static void check_sample(const struct xpud_podres_list *l) {
        static const char *const want[] = {
                "ml/train-0/main nvidia.com/gpu - GPU-307dcc96-618a-4416-c1ef-87823c2e1a31,"
                "GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe",
                "ml/train-0/main nvidia.com/mig-1g.10gb - MIG-5fd0a6e9-4f33-5b3c-9b9a-5a2f4b0e1a11",
                "ml/train-0/helper amd.com/gpu - 0000:03:00.0",
                "ml/train-0/helper gpu.intel.com/i915 - card1-0,card1-1",
                "dra/inference/srv gpu.nvidia.com dra/two-gpus k8s.gpu.nvidia.com/claim=6f1c-gpu-0",
                "dra/inference/srv  dra/two-gpus amd.com/gpu=gpu-1,k8s.gpu.amd.com/claim=6f1c",
        };
        ck_assert_uint_eq(l->n_pods, 3);
        ck_assert_uint_eq(l->n_allocs, sizeof want / sizeof want[0]);
        for (size_t i = 0; i < l->n_allocs; i++)
                ck_assert_str_eq(alloc_line(l, i), want[i]);
        /* Strings of one container are shared, not copied per allocation. */
        ck_assert_ptr_eq(l->allocs[0].pod, l->allocs[1].pod);
        ck_assert_ptr_eq(l->allocs[4].claim, l->allocs[5].claim);
}

START_TEST(test_decode) {
        size_t len;
        uint8_t *b = sample_reply(&len);
        struct xpud_podres_list l;
        char err[256] = "stale";
        ck_assert_int_eq(xpud_podres_decode(b, len, &l, err, sizeof err), 0);
        ck_assert_str_eq(err, "");
        check_sample(&l);
        xpud_podres_list_free(&l);
        ck_assert_ptr_null(l.allocs);
        ck_assert_ptr_null(l.arena);
        xpud_podres_list_free(&l); /* twice: a no-op */
        xpud_podres_list_free(NULL);
        free(b);
}
END_TEST

START_TEST(test_empty) {
        struct xpud_podres_list l;
        char err[256];
        ck_assert_int_eq(xpud_podres_decode(NULL, 0, &l, err, sizeof err), 0);
        ck_assert_uint_eq(l.n_pods, 0);
        ck_assert_uint_eq(l.n_allocs, 0);
        ck_assert_ptr_null(l.allocs);
        xpud_podres_list_free(&l);

        /* Pods, none with devices: counted, nothing listed. */
        V1__ContainerResources c = V1__CONTAINER_RESOURCES__INIT, *cs[] = { &c };
        c.name = "app";
        V1__PodResources p = V1__POD_RESOURCES__INIT, *ps[] = { &p, &p };
        p.name = "web", p.namespace_ = "default", p.n_containers = 1, p.containers = cs;
        V1__ListPodResourcesResponse r = V1__LIST_POD_RESOURCES_RESPONSE__INIT;
        r.n_pod_resources = 2, r.pod_resources = ps;
        size_t len;
        uint8_t *b = pack(&r, &len);
        ck_assert_int_eq(xpud_podres_decode(b, len, &l, err, sizeof err), 0);
        ck_assert_uint_eq(l.n_pods, 2);
        ck_assert_uint_eq(l.n_allocs, 0);
        xpud_podres_list_free(&l);
        free(b);

        /* A device entry with no ids is kept (the resource is known), with n_ids 0. */
        V1__ContainerDevices d = V1__CONTAINER_DEVICES__INIT, *ds[] = { &d };
        d.resource_name = "amd.com/gpu";
        c.n_devices = 1, c.devices = ds;
        r.n_pod_resources = 1;
        b = pack(&r, &len);
        ck_assert_int_eq(xpud_podres_decode(b, len, &l, err, sizeof err), 0);
        ck_assert_uint_eq(l.n_allocs, 1);
        ck_assert_uint_eq(l.allocs[0].n_ids, 0);
        ck_assert_str_eq(alloc_line(&l, 0), "default/web/app amd.com/gpu - ");
        xpud_podres_list_free(&l);
        free(b);
}
END_TEST

/* One pod, one container, with NDEV device entries of NIDS ids each (ID, or "" when NULL). */
static uint8_t *many(size_t ndev, size_t nids, const char *id, size_t *len) {
        char **ids = calloc(nids ? nids : 1, sizeof *ids);
        V1__ContainerDevices d = V1__CONTAINER_DEVICES__INIT;
        V1__ContainerDevices **ds = calloc(ndev, sizeof *ds);
        ck_assert(ids && ds);
        for (size_t i = 0; i < nids; i++)
                ids[i] = (char *)(id ? id : "");
        d.resource_name = "r", d.n_device_ids = nids, d.device_ids = ids;
        for (size_t i = 0; i < ndev; i++)
                ds[i] = &d;
        V1__ContainerResources c = V1__CONTAINER_RESOURCES__INIT, *cs[] = { &c };
        c.name = "c", c.n_devices = ndev, c.devices = ds;
        V1__PodResources p = V1__POD_RESOURCES__INIT, *ps[] = { &p };
        p.name = "p", p.namespace_ = "n", p.n_containers = 1, p.containers = cs;
        V1__ListPodResourcesResponse r = V1__LIST_POD_RESOURCES_RESPONSE__INIT;
        r.n_pod_resources = 1, r.pod_resources = ps;
        uint8_t *b = pack(&r, len);
        free(ids);
        free(ds);
        return b;
}

static void expect(const uint8_t *b, size_t len, int want, const char *err_part) {
        struct xpud_podres_list l;
        char err[256];
        int r = xpud_podres_decode(b, len, &l, err, sizeof err);
        ck_assert_msg(r == want, "decode: %d (%s), want %d", r, err, want);
        if (want < 0) {
                ck_assert_msg(strncmp(err, "pod-resources reply: ", 21) == 0, "%s", err);
                ck_assert_msg(strstr(err, err_part), "'%s' does not say '%s'", err, err_part);
        }
        xpud_podres_list_free(&l);
}

START_TEST(test_limits) {
        size_t len;
        uint8_t *b = many(XPUD_PODRES_ALLOCS_MAX, 0, NULL, &len);
        expect(b, len, 0, NULL);
        free(b);
        b = many(XPUD_PODRES_ALLOCS_MAX + 1, 0, NULL, &len);
        expect(b, len, -EMSGSIZE, "65537 allocations, more than the limit of 65536");
        free(b);
        b = many(1, XPUD_PODRES_IDS_MAX, NULL, &len);
        expect(b, len, 0, NULL);
        free(b);
        b = many(2, XPUD_PODRES_IDS_MAX / 2 + 1, NULL, &len);
        expect(b, len, -EMSGSIZE, "262146 device ids and CDI names, more than the limit of 262144");
        free(b);

        char *s = malloc(XPUD_PODRES_STRING_MAX + 2);
        ck_assert_ptr_nonnull(s);
        memset(s, 'g', XPUD_PODRES_STRING_MAX);
        s[XPUD_PODRES_STRING_MAX] = '\0';
        b = many(1, 1, s, &len);
        expect(b, len, 0, NULL);
        free(b);
        s[XPUD_PODRES_STRING_MAX] = 'g', s[XPUD_PODRES_STRING_MAX + 1] = '\0';
        b = many(1, 1, s, &len);
        expect(b, len, -EMSGSIZE, "ContainerDevices.device_ids: 1025 bytes, more than the limit of 1024");
        free(b);
        free(s);

        /* Past the reply's size limit nothing is read at all. */
        uint8_t *big = calloc(XPUD_PODRES_REPLY_MAX + 1, 1);
        ck_assert_ptr_nonnull(big);
        expect(big, XPUD_PODRES_REPLY_MAX + 1, -EMSGSIZE, "4194305 bytes, more than the limit of 4194304");
        free(big);
}
END_TEST

START_TEST(test_truncated_garbage) {
        size_t len;
        uint8_t *b = sample_reply(&len);
        /* Every prefix: a valid shorter message (cut at a field boundary) or -EPROTO, never more. */
        size_t ok = 0;
        for (size_t n = 0; n < len; n++) {
                uint8_t *cut = malloc(n ? n : 1); /* exact size: ASan sees a read past the end */
                ck_assert_ptr_nonnull(cut);
                memcpy(cut, b, n);
                struct xpud_podres_list l;
                char err[256];
                int r = xpud_podres_decode(cut, n, &l, err, sizeof err);
                ck_assert_msg(r == 0 || r == -EPROTO, "prefix of %zu bytes: %d", n, r);
                ok += r == 0;
                xpud_podres_list_free(&l);
                free(cut);
        }
        ck_assert_uint_eq(ok, 3); /* 0 bytes, and the ends of the first and second pods */
        free(b);

        static const struct {
                const char *bytes;
                size_t len;
                const char *says;
        } bad[] = {
                { "\xff\xff\xff", 3, "cut short" },                        /* a cut varint key */
                { "\x0a\x05\x12\x03\x0a\x01", 6, "cut short" },             /* length past the end */
                { "\x0a\x04\x12\x03\x0a\x01", 6, "PodResources: a field is cut short" },
                { "\x0b\x0c", 2, "wire type 3" },                           /* a group */
                { "\x0f", 1, "wire type 7" },
                { "\x08\x01", 2, "not a ListPodResourcesResponse" },         /* field 1 as a varint */
                { "\x0a\x02\x18\x01", 4, "not a ListPodResourcesResponse" }, /* containers as a varint */
                { "\x0a\x03\x1a\x01\xff", 5, "cut short" },
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                expect((const uint8_t *)bad[i].bytes, bad[i].len, -EPROTO, bad[i].says);
}
END_TEST

/* A reply whose one PodResources holds STR as its name (field 1), as raw bytes: protobuf-c packs
 * C strings, so a NUL inside could not be made with it. */
static void expect_name(const char *str, size_t n, int want, const char *says) {
        uint8_t b[64];
        ck_assert_uint_lt(n, 40);
        b[0] = 0x0a, b[1] = (uint8_t)(n + 2), b[2] = 0x0a, b[3] = (uint8_t)n;
        memcpy(b + 4, str, n);
        expect(b, n + 4, want, says);
}

START_TEST(test_strings) {
        expect_name("train-0", 7, 0, NULL);
        expect_name("caf\xc3\xa9-\xe6\x97\xa5", 9, 0, NULL); /* UTF-8 is fine */
        expect_name("a\nb", 3, -EPROTO, "PodResources.name: byte 0x0a at offset 1");
        expect_name("a\0b", 3, -EPROTO, "PodResources.name: byte 0x00 at offset 1");
        expect_name("\x1b[2J", 4, -EPROTO, "byte 0x1b at offset 0");
        expect_name("del\x7f", 4, -EPROTO, "byte 0x7f at offset 3");
        expect_name("c1\xc2\x85", 4, -EPROTO, "byte 0xc2 at offset 2");        /* U+0085 */
        expect_name("bad\xc3\x28", 5, -EPROTO, "not UTF-8");                    /* a cut sequence */
        expect_name("over\xc0\xaf", 6, -EPROTO, "byte 0xc0");                   /* overlong '/' */
        expect_name("sur\xed\xa0\x80", 6, -EPROTO, "byte 0xed");                /* a surrogate */
        expect_name("cut\xe6\x97", 5, -EPROTO, "byte 0xe6");

        /* Deeper: a CDI device name with a tab (CDIDevice.name inside ClaimResource inside ...). */
        V1__CDIDevice cdi = V1__CDIDEVICE__INIT, *cdis[] = { &cdi };
        cdi.name = "vendor.com/gpu=\tx";
        V1__ClaimResource cr = V1__CLAIM_RESOURCE__INIT, *crs[] = { &cr };
        cr.n_cdi_devices = 1, cr.cdi_devices = cdis;
        V1__DynamicResource dr = V1__DYNAMIC_RESOURCE__INIT, *drs[] = { &dr };
        dr.n_claim_resources = 1, dr.claim_resources = crs;
        V1__ContainerResources c = V1__CONTAINER_RESOURCES__INIT, *cs[] = { &c };
        c.n_dynamic_resources = 1, c.dynamic_resources = drs;
        V1__PodResources p = V1__POD_RESOURCES__INIT, *ps[] = { &p };
        p.n_containers = 1, p.containers = cs;
        V1__ListPodResourcesResponse r = V1__LIST_POD_RESOURCES_RESPONSE__INIT;
        r.n_pod_resources = 1, r.pod_resources = ps;
        size_t len;
        uint8_t *b = pack(&r, &len);
        expect(b, len, -EPROTO, "CDIDevice.name: byte 0x09 at offset 15");
        free(b);
        /* The same with a clean name: the claim of empty names is "/". */
        cdi.name = "vendor.com/gpu=x";
        b = pack(&r, &len);
        struct xpud_podres_list l;
        char err[256];
        ck_assert_int_eq(xpud_podres_decode(b, len, &l, err, sizeof err), 0);
        ck_assert_str_eq(alloc_line(&l, 0), "//  / vendor.com/gpu=x");
        xpud_podres_list_free(&l);
        free(b);
}
END_TEST

START_TEST(test_unknown_fields) {
        size_t len;
        uint8_t *b = sample_reply(&len);
        /* Fields of a later API version, at the top and inside a pod (the first pod is field 1 of
         * the reply, its length a varint after the key): a varint, a fixed64, a fixed32, a string,
         * and the reserved DynamicResource.class_name (field 1) inside a claim of the third pod. */
        static const uint8_t top[] = { 0x78, 0x2a,                                 /* 15: varint */
                                       0x81, 0x01, 1, 2, 3, 4, 5, 6, 7, 8,         /* 16: fixed64 */
                                       0x8d, 0x01, 1, 2, 3, 4,                     /* 17: fixed32 */
                                       0x92, 0x01, 3, 'n', 'e', 'w' };             /* 18: string */
        /* pod 3: name "x", one container "c" whose DynamicResource has class_name "gpu.example"
         * (field 1), claim_name "cl" and claim_namespace "ns", with one empty ClaimResource. */
        static const uint8_t pod3[] = { 0x0a, 29,                  /* pod_resources */
                                        0x0a, 1, 'x',               /* name */
                                        0x1a, 24,                   /* containers */
                                        0x0a, 1, 'c',               /* name */
                                        0x2a, 19,                   /* dynamic_resources */
                                        0x0a, 3, 'o', 'l', 'd',     /* class_name (reserved) */
                                        0x12, 2, 'c', 'l',          /* claim_name */
                                        0x1a, 2, 'n', 's',          /* claim_namespace */
                                        0x22, 0,                    /* claim_resources: one, empty */
                                        0x28, 7,                    /* 5: unknown varint */
                                        0x30, 1 };                  /* 6: unknown varint */
        uint8_t *x = malloc(len + sizeof top + sizeof pod3);
        ck_assert_ptr_nonnull(x);
        memcpy(x, top, sizeof top);
        memcpy(x + sizeof top, b, len);
        memcpy(x + sizeof top + len, pod3, sizeof pod3);
        struct xpud_podres_list l;
        char err[256];
        ck_assert_int_eq(xpud_podres_decode(x, len + sizeof top + sizeof pod3, &l, err, sizeof err), 0);
        ck_assert_uint_eq(l.n_pods, 4);
        ck_assert_uint_eq(l.n_allocs, 7);
        ck_assert_str_eq(alloc_line(&l, 6), "/x/c  ns/cl ");
        ck_assert_ptr_null(l.allocs[0].claim);
        xpud_podres_list_free(&l);
        /* The sample's own allocations are unchanged by the extra fields. */
        l = (struct xpud_podres_list){ 0 };
        ck_assert_int_eq(xpud_podres_decode(x, len + sizeof top, &l, err, sizeof err), 0);
        check_sample(&l);
        xpud_podres_list_free(&l);
        free(x);
        free(b);
}
END_TEST

static Suite *podres_suite(void) {
        Suite *s = suite_create("xpud-podres");
        TCase *tc = tcase_create("decode");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_decode);
        tcase_add_test(tc, test_empty);
        tcase_add_test(tc, test_limits);
        tcase_add_test(tc, test_truncated_garbage);
        tcase_add_test(tc, test_strings);
        tcase_add_test(tc, test_unknown_fields);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(podres_suite());
}
