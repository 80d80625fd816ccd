/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/select.c: XPU_VISIBLE_DEVICES, NVIDIA_VISIBLE_DEVICES and AMD_VISIBLE_DEVICES on
 * synthetic inventories. Availability is modelled by nodes[].present. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select.h"
#include "amd/amd-facts.h"
#include "nvidia/nvidia-facts.h"
#include "testlib.h"

#define assert_contains(hay, needle)                                                               \
        ck_assert_msg(strstr((hay), (needle)) != NULL, "\"%s\" does not contain \"%s\"", (hay),    \
                      (needle))

#define UUID_N0 "GPU-4a7c1b52-9f0e-4d2b-8c31-0e5f6a7b8c90"
#define UUID_N1 "GPU-b2e8d0f4-1c3a-4e5b-9d7f-2a4c6e8f0a12"
#define UUID_N2 "GPU-c9d1e3f5-7a9b-4c1d-8e2f-4a6b8c0d2e34"
#define UNIQUE_A0 "ef2c1799a1f3e2ed"
#define UNIQUE_A1 "0123456789abcdef" /* shared by partitions amd:1 and amd:2 */

struct dev_spec {
        enum xpu_vendor vendor;
        unsigned vendor_index;
        const char *uuid;
        const char *bus;
        const char *unique_id;
        bool available;
};

/* 0 nvidia:0, 1 nvidia:1, 2 nvidia:2 (not given to the container), 3 amd:0, 4 amd:1, 5 amd:2
 * (a partition of the same GPU as amd:1, not given). */
static const struct dev_spec mixed[] = {
        { XPU_VENDOR_NVIDIA, 0, UUID_N0, "0000:1a:00.0", NULL, true },
        { XPU_VENDOR_NVIDIA, 1, UUID_N1, "0000:3b:00.0", NULL, true },
        { XPU_VENDOR_NVIDIA, 2, UUID_N2, "0000:5e:00.0", NULL, false },
        { XPU_VENDOR_AMD, 0, "GPU-" UNIQUE_A0, "0000:c1:00.0", UNIQUE_A0, true },
        { XPU_VENDOR_AMD, 1, "GPU-" UNIQUE_A1, "0000:c2:00.0", UNIQUE_A1, true },
        { XPU_VENDOR_AMD, 2, "GPU-" UNIQUE_A1, "0000:c2:00.1", UNIQUE_A1, false },
};

static struct xpu_inventory *make_inventory(const struct dev_spec *spec, size_t n) {
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        for (size_t i = 0; i < n; i++) {
                struct xpu_device d = {
                        .index = (unsigned)i,
                        .vendor = spec[i].vendor,
                        .vendor_index = spec[i].vendor_index,
                        .n_nodes = 1,
                };
                snprintf(d.uuid, sizeof d.uuid, "%s", spec[i].uuid);
                snprintf(d.pci_bus_id, sizeof d.pci_bus_id, "%s", spec[i].bus);
                if (spec[i].unique_id)
                        snprintf(xpu_amd_facts(&d)->unique_id, sizeof xpu_amd_facts(&d)->unique_id, "%s", spec[i].unique_id);
                if (spec[i].vendor == XPU_VENDOR_NVIDIA)
                        snprintf(d.nodes[0].path, sizeof d.nodes[0].path, "/dev/nvidia%u",
                                 spec[i].vendor_index);
                else
                        snprintf(d.nodes[0].path, sizeof d.nodes[0].path, "/dev/dri/renderD%u",
                                 128 + spec[i].vendor_index);
                d.nodes[0].present = spec[i].available;
                ck_assert_ptr_nonnull(xpu_inventory_add_device(inv, &d));
        }
        return inv;
}

/* Selected devices as a string of indices, "0,1,3". */
static const char *picked(const struct xpu_selection *s) {
        static char buf[64];
        buf[0] = '\0';
        for (size_t i = 0; i < s->n; i++)
                if (s->selected[i]) {
                        size_t len = strlen(buf);
                        snprintf(buf + len, sizeof buf - len, "%s%zu", len ? "," : "", i);
                }
        return buf;
}

static struct xpu_selection *sel_ok(const struct xpu_inventory *inv, const char *xpu,
                                    const char *nv, const char *amd) {
        struct xpu_selection *s = NULL;
        char err[1024] = "";
        int r = xpu_selection_parse(inv, xpu, (const char *const[_XPU_VENDOR_MAX]){ [XPU_VENDOR_NVIDIA] = nv, [XPU_VENDOR_AMD] = amd }, &s, err, sizeof err);
        ck_assert_msg(r == 0, "selection failed: %s", err);
        ck_assert_ptr_nonnull(s);
        ck_assert_uint_eq(s->n, inv->n_devices);
        return s;
}

static void sel_err(const struct xpu_inventory *inv, const char *xpu, const char *nv,
                    const char *amd, char *err, size_t size) {
        struct xpu_selection *s = NULL;
        err[0] = '\0';
        ck_assert_int_eq(xpu_selection_parse(inv, xpu, (const char *const[_XPU_VENDOR_MAX]){ [XPU_VENDOR_NVIDIA] = nv, [XPU_VENDOR_AMD] = amd }, &s, err, size), -EINVAL);
        ck_assert_ptr_null(s);
        ck_assert_msg(strchr(err, '\n') == NULL, "not one line: %s", err);
}

/* One case: the three variables and the expected devices, requests and sources. */
static const struct {
        const char *xpu, *nv, *amd;
        const char *picked;
        enum xpu_request req_nv, req_amd;
        const char *src_nv, *src_amd;
} ok_cases[] = {
        /* Nothing set: every device the runtime gave. */
        { NULL, NULL, NULL, "0,1,3,4", XPU_REQUEST_DEFAULT, XPU_REQUEST_DEFAULT, "default", "default" },
        { "all", NULL, NULL, "0,1,3,4", XPU_REQUEST_ALL, XPU_REQUEST_ALL, "XPU_VISIBLE_DEVICES",
          "XPU_VISIBLE_DEVICES" },
        { " ALL ", NULL, NULL, "0,1,3,4", XPU_REQUEST_ALL, XPU_REQUEST_ALL, "XPU_VISIBLE_DEVICES",
          "XPU_VISIBLE_DEVICES" },
        { "none", NULL, NULL, "", XPU_REQUEST_NONE, XPU_REQUEST_NONE, "XPU_VISIBLE_DEVICES",
          "XPU_VISIBLE_DEVICES" },
        { "void", NULL, NULL, "", XPU_REQUEST_VOID, XPU_REQUEST_VOID, "XPU_VISIBLE_DEVICES",
          "XPU_VISIBLE_DEVICES" },
        { "", NULL, NULL, "", XPU_REQUEST_VOID, XPU_REQUEST_VOID, "XPU_VISIBLE_DEVICES",
          "XPU_VISIBLE_DEVICES" },
        { "  ", NULL, NULL, "", XPU_REQUEST_VOID, XPU_REQUEST_VOID, "XPU_VISIBLE_DEVICES",
          "XPU_VISIBLE_DEVICES" },
        /* Lists: xpuinit index, UUID (any case), bus id (any spelling), vendor:index. */
        { "1", NULL, NULL, "1", XPU_REQUEST_LIST, XPU_REQUEST_LIST, "XPU_VISIBLE_DEVICES",
          "XPU_VISIBLE_DEVICES" },
        { " 3 , 0 ", NULL, NULL, "0,3", XPU_REQUEST_LIST, XPU_REQUEST_LIST, "XPU_VISIBLE_DEVICES",
          "XPU_VISIBLE_DEVICES" },
        { "gpu-b2e8d0f4-1c3a-4e5b-9d7f-2a4c6e8f0a12", NULL, NULL, "1", XPU_REQUEST_LIST,
          XPU_REQUEST_LIST, "XPU_VISIBLE_DEVICES", "XPU_VISIBLE_DEVICES" },
        { "00000000:1A:00.0,c1:00.0", NULL, NULL, "0,3", XPU_REQUEST_LIST, XPU_REQUEST_LIST,
          "XPU_VISIBLE_DEVICES", "XPU_VISIBLE_DEVICES" },
        { "nvidia:1,AMD:0", NULL, NULL, "1,3", XPU_REQUEST_LIST, XPU_REQUEST_LIST,
          "XPU_VISIBLE_DEVICES", "XPU_VISIBLE_DEVICES" },
        /* Duplicates are selected once. */
        { "0,nvidia:0," UUID_N0 ",0000:1a:00.0", NULL, NULL, "0", XPU_REQUEST_LIST,
          XPU_REQUEST_LIST, "XPU_VISIBLE_DEVICES", "XPU_VISIBLE_DEVICES" },
        /* A GPU-level AMD id names its partitions; the one not given is left out. */
        { "0x" UNIQUE_A1, NULL, NULL, "4", XPU_REQUEST_LIST, XPU_REQUEST_LIST,
          "XPU_VISIBLE_DEVICES", "XPU_VISIBLE_DEVICES" },
        /* XPU_ decides for every vendor: the vendor variables are ignored. */
        { "amd:0", "all", "all", "3", XPU_REQUEST_LIST, XPU_REQUEST_LIST, "XPU_VISIBLE_DEVICES",
          "XPU_VISIBLE_DEVICES" },
        { "none", "0", "0", "", XPU_REQUEST_NONE, XPU_REQUEST_NONE, "XPU_VISIBLE_DEVICES",
          "XPU_VISIBLE_DEVICES" },
        /* NVIDIA_VISIBLE_DEVICES: nvidia-smi indices, UUIDs, bus ids; AMD stays default. */
        { NULL, "1", NULL, "1,3,4", XPU_REQUEST_LIST, XPU_REQUEST_DEFAULT, "NVIDIA_VISIBLE_DEVICES",
          "default" },
        { NULL, "00000000:3B:00.0, " UUID_N0, NULL, "0,1,3,4", XPU_REQUEST_LIST,
          XPU_REQUEST_DEFAULT, "NVIDIA_VISIBLE_DEVICES", "default" },
        { NULL, "all", NULL, "0,1,3,4", XPU_REQUEST_ALL, XPU_REQUEST_DEFAULT,
          "NVIDIA_VISIBLE_DEVICES", "default" },
        { NULL, "none", NULL, "3,4", XPU_REQUEST_NONE, XPU_REQUEST_DEFAULT,
          "NVIDIA_VISIBLE_DEVICES", "default" },
        { NULL, "void", NULL, "3,4", XPU_REQUEST_VOID, XPU_REQUEST_DEFAULT,
          "NVIDIA_VISIBLE_DEVICES", "default" },
        { NULL, "", NULL, "3,4", XPU_REQUEST_VOID, XPU_REQUEST_DEFAULT, "NVIDIA_VISIBLE_DEVICES",
          "default" },
        /* AMD_VISIBLE_DEVICES: indices, ranges, GPU- UUIDs and 0x unique ids, bus ids. */
        { NULL, NULL, "0-1", "0,1,3,4", XPU_REQUEST_DEFAULT, XPU_REQUEST_LIST, "default",
          "AMD_VISIBLE_DEVICES" },
        { NULL, NULL, "0xEF2C1799A1F3E2ED", "0,1,3", XPU_REQUEST_DEFAULT, XPU_REQUEST_LIST,
          "default", "AMD_VISIBLE_DEVICES" },
        { NULL, NULL, "GPU-" UNIQUE_A1, "0,1,4", XPU_REQUEST_DEFAULT, XPU_REQUEST_LIST, "default",
          "AMD_VISIBLE_DEVICES" },
        { NULL, NULL, "0000:c2:00.0", "0,1,4", XPU_REQUEST_DEFAULT, XPU_REQUEST_LIST, "default",
          "AMD_VISIBLE_DEVICES" },
        { NULL, "0", "none", "0", XPU_REQUEST_LIST, XPU_REQUEST_NONE, "NVIDIA_VISIBLE_DEVICES",
          "AMD_VISIBLE_DEVICES" },
        /* Qualified CDI names (the toolkit's CDI mode, DRA): the device name as its spec names it. */
        { NULL, "nvidia.com/gpu=1", NULL, "1,3,4", XPU_REQUEST_LIST, XPU_REQUEST_DEFAULT,
          "NVIDIA_VISIBLE_DEVICES", "default" },
        { NULL, "nvidia.com/gpu=" UUID_N0 ",nvidia.com/gpu=0000:3b:00.0", NULL, "0,1,3,4", XPU_REQUEST_LIST,
          XPU_REQUEST_DEFAULT, "NVIDIA_VISIBLE_DEVICES", "default" },
        { NULL, "nvidia.com/gpu=all", NULL, "0,1,3,4", XPU_REQUEST_LIST, XPU_REQUEST_DEFAULT,
          "NVIDIA_VISIBLE_DEVICES", "default" },
        { NULL, NULL, "amd.com/gpu=1", "0,1,4", XPU_REQUEST_DEFAULT, XPU_REQUEST_LIST, "default",
          "AMD_VISIBLE_DEVICES" },
        /* In XPU_: xpuinit's own kind names xpuinit indices, a vendor's kind that vendor's. */
        { "xpuinit.dev/gpu=3,nvidia.com/gpu=1", NULL, NULL, "1,3", XPU_REQUEST_LIST, XPU_REQUEST_LIST,
          "XPU_VISIBLE_DEVICES", "XPU_VISIBLE_DEVICES" },
        { "amd.com/gpu=0,xpuinit.dev/gpu=GPU-" UNIQUE_A1, NULL, NULL, "3,4", XPU_REQUEST_LIST, XPU_REQUEST_LIST,
          "XPU_VISIBLE_DEVICES", "XPU_VISIBLE_DEVICES" },
        { "amd.com/gpu=all", NULL, NULL, "3,4", XPU_REQUEST_LIST, XPU_REQUEST_LIST, "XPU_VISIBLE_DEVICES",
          "XPU_VISIBLE_DEVICES" },
};

START_TEST(test_select_ok) {
        struct xpu_inventory *inv = make_inventory(mixed, ELEMENTSOF(mixed));
        struct xpu_selection *s = sel_ok(inv, ok_cases[_i].xpu, ok_cases[_i].nv, ok_cases[_i].amd);
        ck_assert_str_eq(picked(s), ok_cases[_i].picked);
        ck_assert_int_eq(s->request[XPU_VENDOR_NVIDIA], ok_cases[_i].req_nv);
        ck_assert_int_eq(s->request[XPU_VENDOR_AMD], ok_cases[_i].req_amd);
        ck_assert_str_eq(s->source[XPU_VENDOR_NVIDIA], ok_cases[_i].src_nv);
        ck_assert_str_eq(s->source[XPU_VENDOR_AMD], ok_cases[_i].src_amd);
        xpu_selection_free(s);
        xpu_inventory_free(inv);
}
END_TEST

START_TEST(test_count) {
        struct xpu_inventory *inv = make_inventory(mixed, ELEMENTSOF(mixed));
        struct xpu_selection *s = sel_ok(inv, NULL, "0", NULL);
        ck_assert_uint_eq(xpu_selection_count(s, inv, XPU_VENDOR_NVIDIA), 1);
        ck_assert_uint_eq(xpu_selection_count(s, inv, XPU_VENDOR_AMD), 2);
        xpu_selection_free(s);
        ck_assert_ptr_null(xpu_selection_free(NULL));
        xpu_inventory_free(inv);
}
END_TEST

#define ALL_XPU                                                                                    \
        "; devices: 0 (nvidia:0 " UUID_N0 " 0000:1a:00.0), 1 (nvidia:1 " UUID_N1                   \
        " 0000:3b:00.0), 2 (nvidia:2 " UUID_N2 " 0000:5e:00.0 not given to this container), "     \
        "3 (amd:0 GPU-" UNIQUE_A0 " 0000:c1:00.0), 4 (amd:1 GPU-" UNIQUE_A1 " 0000:c2:00.0), "   \
        "5 (amd:2 GPU-" UNIQUE_A1 " 0000:c2:00.1 not given to this container)"
#define ALL_NVIDIA                                                                                 \
        "; nvidia devices: 0 (" UUID_N0 " 0000:1a:00.0), 1 (" UUID_N1 " 0000:3b:00.0), 2 (" UUID_N2 \
        " 0000:5e:00.0 not given to this container)"

/* Exact messages. */
static const struct {
        const char *xpu, *nv, *amd;
        const char *message;
} err_cases[] = {
        { "7", NULL, NULL, "XPU_VISIBLE_DEVICES: no device \"7\"" ALL_XPU },
        { "0,GPU-ffff", NULL, NULL, "XPU_VISIBLE_DEVICES: no device \"GPU-ffff\"" ALL_XPU },
        { "intel:0", NULL, NULL, "XPU_VISIBLE_DEVICES: no device \"intel:0\"" ALL_XPU },
        { "nvidia:x", NULL, NULL, "XPU_VISIBLE_DEVICES: no device \"nvidia:x\"" ALL_XPU },
        { "0000:99:00.0", NULL, NULL, "XPU_VISIBLE_DEVICES: no device \"0000:99:00.0\"" ALL_XPU },
        { "2", NULL, NULL,
          "XPU_VISIBLE_DEVICES: \"2\" names 2 (nvidia:2 " UUID_N2
          " 0000:5e:00.0), which the container runtime did not give to this container "
          "(/dev/nvidia2 is missing); ask the runtime for it or leave it out" },
        { "GPU-C9D1E3F5-7A9B-4C1D-8E2F-4A6B8C0D2E34", NULL, NULL,
          "XPU_VISIBLE_DEVICES: \"GPU-C9D1E3F5-7A9B-4C1D-8E2F-4A6B8C0D2E34\" names 2 (nvidia:2 "
          UUID_N2 " 0000:5e:00.0), which the container runtime did not give to this container "
          "(/dev/nvidia2 is missing); ask the runtime for it or leave it out" },
        { "amd:2", NULL, NULL,
          "XPU_VISIBLE_DEVICES: \"amd:2\" names 5 (amd:2 GPU-" UNIQUE_A1
          " 0000:c2:00.1), which the container runtime did not give to this container "
          "(/dev/dri/renderD130 is missing); ask the runtime for it or leave it out" },
        { "0:1", NULL, NULL,
          "XPU_VISIBLE_DEVICES: \"0:1\": device 0 has no MIG device (no MIG instance is listed for this NVIDIA GPU; "
          "NVIDIA's driver lists them under /proc/driver/nvidia/capabilities); name the whole device as 0" },
        { NULL, "MIG-4a7c1b52-9f0e-4d2b-8c31-0e5f6a7b8c90", NULL,
          "NVIDIA_VISIBLE_DEVICES: \"MIG-4a7c1b52-9f0e-4d2b-8c31-0e5f6a7b8c90\": MIG UUIDs come from NVML, which "
          "gave none here (its MIG calls failed or there is no MIG device); name the MIG device as <gpu>:<mig> or "
          "MIG-GPU-<gpu uuid>/<gi>/<ci>; no MIG devices" },
        /* Qualified CDI names: a kind the variable does not take, an index that does not exist,
         * a MIG device, nothing after '='. */
        { NULL, "amd.com/gpu=0", NULL,
          "NVIDIA_VISIBLE_DEVICES: \"amd.com/gpu=0\": the CDI kind \"amd.com/gpu\" is not one "
          "NVIDIA_VISIBLE_DEVICES takes (it takes nvidia.com/gpu=NAME, NAME an index, UUID, PCI bus id, MIG device "
          "or all)" },
        { NULL, "nvidia.com/mig=0:1", NULL,
          "NVIDIA_VISIBLE_DEVICES: \"nvidia.com/mig=0:1\": the CDI kind \"nvidia.com/mig\" is not one "
          "NVIDIA_VISIBLE_DEVICES takes (it takes nvidia.com/gpu=NAME, NAME an index, UUID, PCI bus id, MIG device "
          "or all)" },
        { "vendor.example/x=0", NULL, NULL,
          "XPU_VISIBLE_DEVICES: \"vendor.example/x=0\": the CDI kind \"vendor.example/x\" is not one "
          "XPU_VISIBLE_DEVICES takes (it takes xpuinit.dev/gpu=NAME, nvidia.com/gpu=NAME, amd.com/gpu=NAME, NAME an "
          "index, UUID, PCI bus id, MIG device or all)" },
        { NULL, "nvidia.com/gpu=7", NULL, "NVIDIA_VISIBLE_DEVICES: no nvidia device \"nvidia.com/gpu=7\"" ALL_NVIDIA },
        { NULL, "nvidia.com/gpu=2", NULL,
          "NVIDIA_VISIBLE_DEVICES: \"nvidia.com/gpu=2\" names 2 (" UUID_N2
          " 0000:5e:00.0), which the container runtime did not give to this container "
          "(/dev/nvidia2 is missing); ask the runtime for it or leave it out" },
        { NULL, "nvidia.com/gpu=0:1", NULL,
          "NVIDIA_VISIBLE_DEVICES: \"nvidia.com/gpu=0:1\": device 0 has no MIG device (no MIG instance is listed "
          "for this NVIDIA GPU; NVIDIA's driver lists them under /proc/driver/nvidia/capabilities); name the whole "
          "device as 0" },
        { NULL, "nvidia.com/gpu=", NULL, "NVIDIA_VISIBLE_DEVICES: \"nvidia.com/gpu=\": no device name after '='" },
        { "0,,1", NULL, NULL, "XPU_VISIBLE_DEVICES: empty entry in \"0,,1\"" },
        { "0,", NULL, NULL, "XPU_VISIBLE_DEVICES: empty entry in \"0,\"" },
        { "0,all", NULL, NULL,
          "XPU_VISIBLE_DEVICES: \"all\" must be the whole value, not one entry of a list (\"0,all\")" },
        { NULL, "3", NULL, "NVIDIA_VISIBLE_DEVICES: no nvidia device \"3\"" ALL_NVIDIA },
        /* Another vendor's id in NVIDIA's variable. */
        { NULL, "GPU-" UNIQUE_A0, NULL,
          "NVIDIA_VISIBLE_DEVICES: no nvidia device \"GPU-" UNIQUE_A0 "\"" ALL_NVIDIA },
        /* No ranges in NVIDIA's variable. */
        { NULL, "0-1", NULL, "NVIDIA_VISIBLE_DEVICES: no nvidia device \"0-1\"" ALL_NVIDIA },
        { NULL, "2", NULL,
          "NVIDIA_VISIBLE_DEVICES: \"2\" names 2 (" UUID_N2
          " 0000:5e:00.0), which the container runtime did not give to this container "
          "(/dev/nvidia2 is missing); ask the runtime for it or leave it out" },
        { NULL, NULL, "1-0",
          "AMD_VISIBLE_DEVICES: no amd device \"1-0\"; amd devices: 0 (GPU-" UNIQUE_A0
          " 0000:c1:00.0), 1 (GPU-" UNIQUE_A1 " 0000:c2:00.0), 2 (GPU-" UNIQUE_A1
          " 0000:c2:00.1 not given to this container)" },
        { NULL, NULL, "1-2",
          "AMD_VISIBLE_DEVICES: \"1-2\" names 2 (GPU-" UNIQUE_A1 " 0000:c2:00.1), which the "
          "container runtime did not give to this container (/dev/dri/renderD130 is missing); "
          "ask the runtime for it or leave it out" },
        /* A range names every index in it: an end (or start) past the last device is an error,
         * never a silent cut to the devices that exist. */
        { NULL, NULL, "0-9",
          "AMD_VISIBLE_DEVICES: no amd device 3 in range \"0-9\"; amd devices: 0 (GPU-" UNIQUE_A0
          " 0000:c1:00.0), 1 (GPU-" UNIQUE_A1 " 0000:c2:00.0), 2 (GPU-" UNIQUE_A1
          " 0000:c2:00.1 not given to this container)" },
        { NULL, NULL, "0,5-9",
          "AMD_VISIBLE_DEVICES: no amd device 5 in range \"5-9\"; amd devices: 0 (GPU-" UNIQUE_A0
          " 0000:c1:00.0), 1 (GPU-" UNIQUE_A1 " 0000:c2:00.0), 2 (GPU-" UNIQUE_A1
          " 0000:c2:00.1 not given to this container)" },
        { NULL, NULL, "0-18446744073709551615",
          "AMD_VISIBLE_DEVICES: no amd device 3 in range \"0-18446744073709551615\"; amd devices: 0 (GPU-"
          UNIQUE_A0 " 0000:c1:00.0), 1 (GPU-" UNIQUE_A1 " 0000:c2:00.0), 2 (GPU-" UNIQUE_A1
          " 0000:c2:00.1 not given to this container)" },
        { NULL, NULL, "0x12",
          "AMD_VISIBLE_DEVICES: no amd device \"0x12\"; amd devices: 0 (GPU-" UNIQUE_A0
          " 0000:c1:00.0), 1 (GPU-" UNIQUE_A1 " 0000:c2:00.0), 2 (GPU-" UNIQUE_A1
          " 0000:c2:00.1 not given to this container)" },
};

START_TEST(test_partition_bus_ids) {
        /* Four partitions of one MI300X: the bus id of the PCI function with the partition's
         * number as the function names that partition (as ROCm SMI lists them); the shared UUID
         * names all four. */
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        for (unsigned i = 0; i < 4; i++) {
                struct xpu_device d = { .index = i, .vendor = XPU_VENDOR_AMD, .vendor_index = i, .n_nodes = 1,
                                        .have = XPU_HAVE_PARTITION, .partition = i };
                snprintf(d.uuid, sizeof d.uuid, "GPU-1234567890abcdef");
                snprintf(d.pci_bus_id, sizeof d.pci_bus_id, "0000:05:00.0");
                snprintf(d.nodes[0].path, sizeof d.nodes[0].path, "/dev/dri/renderD%u", 128 + i);
                d.nodes[0].present = true;
                ck_assert_ptr_nonnull(xpu_inventory_add_device(inv, &d));
        }
        static const struct {
                const char *xpu, *amd, *picked;
        } cases[] = {
                { "0000:05:00.2", NULL, "2" }, { NULL, "05:00.3,0000:05:00.1", "1,3" }, { NULL, "0000:05:00.0", "0" },
                { NULL, "GPU-1234567890abcdef", "0,1,2,3" }, { "amd.com/gpu=0000:05:00.1", NULL, "1" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct xpu_selection *s = sel_ok(inv, cases[i].xpu, NULL, cases[i].amd);
                ck_assert_str_eq(picked(s), cases[i].picked);
                xpu_selection_free(s);
        }
        char err[1024];
        sel_err(inv, NULL, NULL, "0000:05:00.4", err, sizeof err);
        ck_assert_msg(strstr(err, "no amd device \"0000:05:00.4\""), "%s", err);
        char named[XPU_PCI_BUS_ID_MAX];
        ck_assert(xpu_device_named_bus_id(&inv->devices[3], named));
        ck_assert_str_eq(named, "0000:05:00.3");
        inv->devices[3].pci_bus_id[0] = '\0';
        ck_assert(!xpu_device_named_bus_id(&inv->devices[3], named));
        ck_assert_str_eq(named, "");
        xpu_inventory_free(inv);
}
END_TEST

START_TEST(test_unique_id_own_vendor_only) {
        /* "0x<hex>" in XPU_VISIBLE_DEVICES is every vendor's in scope, but only a vendor with such a
         * number (AMD) is asked for it: an NVIDIA GPU whose own facts leave bytes that read "11"
         * where an AMD device keeps its unique_id (one union) is no match. */
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        struct xpu_device d = { .vendor = XPU_VENDOR_NVIDIA, .n_nodes = 1 };
        snprintf(xpu_amd_facts(&d)->unique_id, sizeof xpu_amd_facts(&d)->unique_id, "11");
        snprintf(d.uuid, sizeof d.uuid, "%s", UUID_N0);
        snprintf(d.pci_bus_id, sizeof d.pci_bus_id, "0000:1a:00.0");
        snprintf(d.nodes[0].path, sizeof d.nodes[0].path, "/dev/nvidia0");
        d.nodes[0].present = true;
        ck_assert_ptr_nonnull(xpu_inventory_add_device(inv, &d));
        char err[1024];
        sel_err(inv, "0x11", NULL, NULL, err, sizeof err);
        ck_assert_msg(strstr(err, "\"0x11\""), "%s", err);
        xpu_inventory_free(inv);
}
END_TEST

/* One NVIDIA GPU in MIG mode (index 0) with MIG devices 0:0 (GI 1 CI 0, NVML UUID), 0:1 (GI 2 CI
 * 0, no UUID), 0:2 (GI 2 CI 1, its CI node not given), then an AMD GPU (index 1). */
#define MIG_UUID0 "MIG-5d3e6a10-7c2b-5f41-9e08-3b7d1c2a4f60"
static struct xpu_inventory *make_mig_inventory(void) {
        static const struct dev_spec spec[] = {
                { XPU_VENDOR_NVIDIA, 0, UUID_N0, "0000:1a:00.0", NULL, true },
                { XPU_VENDOR_AMD, 0, "GPU-" UNIQUE_A0, "0000:c1:00.0", UNIQUE_A0, true },
        };
        struct xpu_inventory *inv = make_inventory(spec, ELEMENTSOF(spec));
        struct xpu_device *d = &inv->devices[0];
        d->have |= XPU_HAVE_MIG_MODE | XPU_HAVE_MINOR; /* /dev/nvidia0: minor 0 */
        xpu_nvidia_facts(d)->mig_enabled = true;
        xpu_nvidia_facts(d)->n_mig = 3;
        static const uint32_t ids[3][2] = { { 1, 0 }, { 2, 0 }, { 2, 1 } };
        for (size_t m = 0; m < 3; m++) {
                struct xpu_mig_device *g = &xpu_nvidia_facts(d)->mig[m];
                g->gi = ids[m][0];
                g->ci = ids[m][1];
                g->have = XPU_MIG_HAVE_CAPS;
                snprintf(g->gi_cap.path, sizeof g->gi_cap.path, "/dev/nvidia-caps/nvidia-cap%u", 3 + 9 * g->gi);
                snprintf(g->ci_cap.path, sizeof g->ci_cap.path, "/dev/nvidia-caps/nvidia-cap%u", 4 + 9 * g->gi + g->ci);
                g->gi_cap.present = true;
                g->ci_cap.present = m != 2;
        }
        snprintf(xpu_nvidia_facts(d)->mig[0].uuid, sizeof xpu_nvidia_facts(d)->mig[0].uuid, "%s", MIG_UUID0);
        return inv;
}

static const struct {
        const char *xpu, *nv;
        bool whole; /* device 0 selected whole, else by MIG_MASK */
        uint32_t mig_mask;
} mig_ok[] = {
        { NULL, "0:0", false, 0x1 },
        { NULL, "0:1,0:0", false, 0x3 },
        { NULL, MIG_UUID0, false, 0x1 },
        { NULL, "mig-5D3E6A10-7C2B-5F41-9E08-3B7D1C2A4F60", false, 0x1 }, /* any case, as CUDA reads UUIDs */
        { NULL, "MIG-" UUID_N0 "/2/0", false, 0x2 },
        { NULL, "nvidia.com/gpu=0:1", false, 0x2 },
        { NULL, "nvidia.com/gpu=" MIG_UUID0, false, 0x1 },
        { NULL, "0:0,0", true, 0 },     /* the whole GPU wins */
        { NULL, "all", false, 0x3 },    /* every MIG device given, not 0:2 */
        { NULL, NULL, false, 0x3 },     /* the default, likewise */
        { NULL, "0", true, 0 },         /* whole, as asked (the plan warns) */
        { "0:1", NULL, false, 0x2 },    /* XPU_: the xpuinit index */
        { "xpuinit.dev/gpu=0:0", NULL, false, 0x1 },
        { "all", NULL, false, 0x3 },
};

START_TEST(test_mig_select) {
        struct xpu_inventory *inv = make_mig_inventory();
        struct xpu_selection *s = sel_ok(inv, mig_ok[_i].xpu, mig_ok[_i].nv, NULL);
        ck_assert_msg(s->selected[0], "case %d: GPU not selected", _i);
        ck_assert_uint_eq(s->mig[0], mig_ok[_i].mig_mask);
        ck_assert_uint_eq(s->mig[1], 0);
        ck_assert_int_eq(xpu_selection_count(s, inv, XPU_VENDOR_NVIDIA), 1);
        xpu_selection_free(s);
        xpu_inventory_free(inv);
}
END_TEST

#define MIG_LIST "; MIG devices: 0:0 (" MIG_UUID0 " gi 1 ci 0), 0:1 (gi 2 ci 0), 0:2 (gi 2 ci 1 not given to this container)"
static const struct {
        const char *xpu, *nv;
        const char *message;
} mig_err[] = {
        { NULL, "0:2",
          "NVIDIA_VISIBLE_DEVICES: \"0:2\" names MIG device 0:2 (GPU instance 2, compute instance 1 of " UUID_N0
          "), which the container runtime did not give to this container (/dev/nvidia-caps/nvidia-cap23 is missing); "
          "ask the runtime for it or leave it out" },
        { NULL, "0:3", "NVIDIA_VISIBLE_DEVICES: \"0:3\": device 0 has MIG devices 0:0 to 0:2" MIG_LIST },
        { NULL, "7:0", "NVIDIA_VISIBLE_DEVICES: \"7:0\": no device 7; nvidia devices: 0 (" UUID_N0 " 0000:1a:00.0)" },
        { NULL, "MIG-" UUID_N0 "/9/0",
          "NVIDIA_VISIBLE_DEVICES: \"MIG-" UUID_N0 "/9/0\": " UUID_N0 " has no GPU instance 9 with compute instance 0"
          MIG_LIST },
        { NULL, "MIG-" UUID_N0 "/x/0",
          "NVIDIA_VISIBLE_DEVICES: \"MIG-" UUID_N0 "/x/0\": not a MIG device name (MIG-GPU-<gpu uuid>/<gpu "
          "instance>/<compute instance>)" },
        { NULL, "MIG-GPU-nope/1/0",
          "NVIDIA_VISIBLE_DEVICES: \"MIG-GPU-nope/1/0\": no device GPU-nope; nvidia devices: 0 (" UUID_N0
          " 0000:1a:00.0)" },
        { NULL, "MIG-00000000-0000-4000-8000-000000000000",
          "NVIDIA_VISIBLE_DEVICES: no MIG device \"MIG-00000000-0000-4000-8000-000000000000\"" MIG_LIST },
        { NULL, "nvidia.com/gpu=0:9", "NVIDIA_VISIBLE_DEVICES: \"nvidia.com/gpu=0:9\": device 0 has MIG devices 0:0 to "
          "0:2" MIG_LIST },
        { "1:0", NULL,
          "XPU_VISIBLE_DEVICES: \"1:0\": device 1 has no MIG device (no MIG instance is listed for this AMD GPU; "
          "NVIDIA's driver lists them under /proc/driver/nvidia/capabilities); name the whole device as 1" },
        { NULL, "99999999999999999999999:0", "NVIDIA_VISIBLE_DEVICES: no MIG device \"99999999999999999999999:0\""
          MIG_LIST },
};

START_TEST(test_mig_errors) {
        struct xpu_inventory *inv = make_mig_inventory();
        char err[2048];
        sel_err(inv, mig_err[_i].xpu, mig_err[_i].nv, NULL, err, sizeof err);
        ck_assert_str_eq(err, mig_err[_i].message);
        xpu_inventory_free(inv);
}
END_TEST

/* MIG devices without capability nodes (listed by NVML only) cannot be given; a GPU in MIG mode
 * with none of its MIG devices given is taken whole by "all". Which values make the start read
 * NVML first. */
START_TEST(test_mig_caps_unknown) {
        struct xpu_inventory *inv = make_mig_inventory();
        for (size_t m = 0; m < 3; m++)
                xpu_nvidia_facts(&inv->devices[0])->mig[m].have = 0;
        char err[2048];
        sel_err(inv, NULL, "0:0", NULL, err, sizeof err);
        ck_assert_str_eq(err, "NVIDIA_VISIBLE_DEVICES: \"0:0\" names MIG device 0:0 (GPU instance 1, compute instance 0 of "
                              UUID_N0 "), whose capability nodes are unknown (no /proc/driver/nvidia/capabilities/gpu0/mig "
                              "here); mount the host's /proc/driver/nvidia");
        /* No "Device Minor" from procfs: the directory is named by its pattern, not a made-up 0. */
        inv->devices[0].have &= ~(uint32_t)XPU_HAVE_MINOR;
        sel_err(inv, NULL, "0:0", NULL, err, sizeof err);
        ck_assert_msg(strstr(err, "(no /proc/driver/nvidia/capabilities/gpu<minor>/mig here)"), "%s", err);
        inv->devices[0].have |= XPU_HAVE_MINOR;
        struct xpu_selection *s = sel_ok(inv, NULL, "all", NULL);
        ck_assert(s->selected[0]);
        ck_assert_uint_eq(s->mig[0], 0);
        xpu_selection_free(s);
        xpu_inventory_free(inv);

        static const struct {
                const char *xpu, *nv;
                bool want;
        } env_cases[] = {
                { NULL, MIG_UUID0, true },
                { NULL, "0, " MIG_UUID0, true },
                { NULL, "nvidia.com/gpu=MIG-x", true },
                { "mig-x", "0", true },
                { NULL, "MIG-GPU-x/1/0", false },
                { NULL, "0:1,GPU-x", false },
                { "0", MIG_UUID0, false }, /* XPU_VISIBLE_DEVICES decides */
                { NULL, NULL, false },
        };
        for (size_t i = 0; i < ELEMENTSOF(env_cases); i++) {
                struct xpu_selection_env env = { .xpu_visible = env_cases[i].xpu };
                env.visible[XPU_VENDOR_NVIDIA] = env_cases[i].nv;
                ck_assert_msg(xpu_selection_env_names_mig_uuid(&env) == env_cases[i].want, "case %zu", i);
        }
}
END_TEST

START_TEST(test_select_errors) {
        struct xpu_inventory *inv = make_inventory(mixed, ELEMENTSOF(mixed));
        char err[2048];
        sel_err(inv, err_cases[_i].xpu, err_cases[_i].nv, err_cases[_i].amd, err, sizeof err);
        ck_assert_str_eq(err, err_cases[_i].message);
        xpu_inventory_free(inv);
}
END_TEST

START_TEST(test_no_devices) {
        struct xpu_inventory *inv = xpu_inventory_new();
        char err[512];
        sel_err(inv, "0", NULL, NULL, err, sizeof err);
        ck_assert_str_eq(err, "XPU_VISIBLE_DEVICES: no device \"0\"; no devices");
        sel_err(inv, NULL, NULL, "0", err, sizeof err);
        ck_assert_str_eq(err, "AMD_VISIBLE_DEVICES: no amd device \"0\"; no amd devices");
        struct xpu_selection *s = sel_ok(inv, "all", NULL, NULL);
        ck_assert_uint_eq(s->n, 0);
        xpu_selection_free(s);
        /* Only AMD devices: NVIDIA's list has nothing to name. */
        xpu_inventory_free(inv);
        inv = make_inventory(mixed + 3, 1);
        sel_err(inv, NULL, "0", NULL, err, sizeof err);
        ck_assert_str_eq(err, "NVIDIA_VISIBLE_DEVICES: no nvidia device \"0\"; no nvidia devices");
        xpu_inventory_free(inv);
}
END_TEST

/* The new-user report: AMD_VISIBLE_DEVICES=0-9 on an 8-GPU host selected 0-7 without a word. */
START_TEST(test_range_past_last_device) {
        struct dev_spec eight[8];
        for (unsigned i = 0; i < 8; i++)
                eight[i] = (struct dev_spec){ XPU_VENDOR_AMD, i, "", "", NULL, true };
        struct xpu_inventory *inv = make_inventory(eight, ELEMENTSOF(eight));
        char err[1024];
        sel_err(inv, NULL, NULL, "0-9", err, sizeof err);
        ck_assert_str_eq(err, "AMD_VISIBLE_DEVICES: no amd device 8 in range \"0-9\"; amd devices: "
                              "0 (), 1 (), 2 (), 3 (), 4 (), 5 (), 6 (), 7 ()");
        sel_err(inv, NULL, NULL, "9-9", err, sizeof err);
        assert_contains(err, "no amd device 9 in range \"9-9\"");
        /* A range inside the host still works, ends included. */
        struct xpu_selection *s = sel_ok(inv, NULL, NULL, "0-7");
        ck_assert_str_eq(picked(s), "0,1,2,3,4,5,6,7");
        xpu_selection_free(s);
        s = sel_ok(inv, NULL, NULL, "6-7,2-2");
        ck_assert_str_eq(picked(s), "2,6,7");
        xpu_selection_free(s);
        xpu_inventory_free(inv);
}
END_TEST

/* Bus ids are compared as numbers: a Hyper-V domain in the kernel's spelling ("3f8cfdd"), in
 * nvidia-smi's ("03F8CFDD") or without leading zeros names the device the inventory stores in the
 * canonical form ("03f8cfdd:00:00.0"). */
START_TEST(test_hyperv_bus_ids) {
        static const struct dev_spec hv[] = {
                { XPU_VENDOR_NVIDIA, 0, UUID_N0, "03f8cfdd:00:00.0", NULL, true },
                { XPU_VENDOR_NVIDIA, 1, UUID_N1, "3e3f8e05:00:00.0", NULL, true },
                { XPU_VENDOR_AMD, 0, "GPU-" UNIQUE_A0, "00010000:c1:00.0", UNIQUE_A0, true },
        };
        struct xpu_inventory *inv = make_inventory(hv, ELEMENTSOF(hv));
        static const struct {
                const char *xpu, *nv, *amd, *picked;
        } cases[] = {
                { "3f8cfdd:00:00.0", NULL, NULL, "0" },
                { "03F8CFDD:00:00.0", NULL, NULL, "0" },
                { "003f8cfdd:00:00.0", NULL, NULL, "" }, /* 9 digits: not a bus id (error below) */
                { "3E3F8E05:0:0.0,10000:C1:00.0", NULL, NULL, "1,2" },
                { NULL, "3e3f8e05:00:00.0", "0010000:c1:00.0", "1,2" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                if (!cases[i].picked[0]) {
                        char err[1024];
                        sel_err(inv, cases[i].xpu, cases[i].nv, cases[i].amd, err, sizeof err);
                        ck_assert_str_eq(err, "XPU_VISIBLE_DEVICES: no device \"003f8cfdd:00:00.0\"; devices: 0 "
                                              "(nvidia:0 " UUID_N0 " 03f8cfdd:00:00.0), 1 (nvidia:1 " UUID_N1
                                              " 3e3f8e05:00:00.0), 2 (amd:0 GPU-" UNIQUE_A0 " 00010000:c1:00.0)");
                        continue;
                }
                struct xpu_selection *s = sel_ok(inv, cases[i].xpu, cases[i].nv, cases[i].amd);
                ck_assert_msg(strcmp(picked(s), cases[i].picked) == 0, "case %zu: picked %s, want %s", i, picked(s),
                              cases[i].picked);
                xpu_selection_free(s);
        }
        xpu_inventory_free(inv);
}
END_TEST

/* The vendors' CDI marks: with the mark, "void", "" and unset take the devices CDI gave; "none",
 * "all", lists and XPU_VISIBLE_DEVICES keep their meaning; without it "void" stays "no device". */
#define NV_MARK "NVIDIA_CTK_LIBCUDA_DIR"
#define AMD_MARK "DRA_RESOURCE_DRIVER_NAME"
static const struct {
        const char *xpu, *nv, *amd;
        const char *nv_mark, *amd_mark, *libdir;
        const char *picked;
        enum xpu_request req_nv, req_amd;
        const char *src_nv, *want_libdir;
} cdi_cases[] = {
        { NULL, "void", NULL, NV_MARK, NULL, "/usr/lib/x86_64-linux-gnu", "0,1,3,4", XPU_REQUEST_CDI,
          XPU_REQUEST_DEFAULT, "NVIDIA_VISIBLE_DEVICES", "/usr/lib/x86_64-linux-gnu" },
        { NULL, " VOID ", NULL, NV_MARK, NULL, "/usr/lib64", "0,1,3,4", XPU_REQUEST_CDI, XPU_REQUEST_DEFAULT,
          "NVIDIA_VISIBLE_DEVICES", "/usr/lib64" },
        { NULL, "", NULL, NV_MARK, NULL, "/usr/lib64", "0,1,3,4", XPU_REQUEST_CDI, XPU_REQUEST_DEFAULT,
          "NVIDIA_VISIBLE_DEVICES", "/usr/lib64" },
        { NULL, NULL, NULL, NV_MARK, NULL, "/usr/lib64", "0,1,3,4", XPU_REQUEST_CDI, XPU_REQUEST_DEFAULT, "default",
          "/usr/lib64" },
        /* What the variable says otherwise stands. */
        { NULL, "none", NULL, NV_MARK, NULL, "/usr/lib64", "3,4", XPU_REQUEST_NONE, XPU_REQUEST_DEFAULT,
          "NVIDIA_VISIBLE_DEVICES", "/usr/lib64" },
        { NULL, "1", NULL, NV_MARK, NULL, "/usr/lib64", "1,3,4", XPU_REQUEST_LIST, XPU_REQUEST_DEFAULT,
          "NVIDIA_VISIBLE_DEVICES", "/usr/lib64" },
        { NULL, "all", NULL, NV_MARK, NULL, "/usr/lib64", "0,1,3,4", XPU_REQUEST_ALL, XPU_REQUEST_DEFAULT,
          "NVIDIA_VISIBLE_DEVICES", "/usr/lib64" },
        { "0", "void", NULL, NV_MARK, NULL, "/usr/lib64", "0", XPU_REQUEST_LIST, XPU_REQUEST_LIST,
          "XPU_VISIBLE_DEVICES", "/usr/lib64" },
        /* No mark: the toolkit's meaning, no device. */
        { NULL, "void", NULL, NULL, NULL, "/usr/lib64", "3,4", XPU_REQUEST_VOID, XPU_REQUEST_DEFAULT,
          "NVIDIA_VISIBLE_DEVICES", NULL },
        /* A libdir that is no absolute path is left out. */
        { NULL, "void", NULL, NV_MARK, NULL, "usr/lib", "0,1,3,4", XPU_REQUEST_CDI, XPU_REQUEST_DEFAULT,
          "NVIDIA_VISIBLE_DEVICES", NULL },
        /* AMD's DRA mark; one vendor's mark says nothing of the other vendor. */
        { NULL, NULL, "void", NULL, AMD_MARK, NULL, "0,1,3,4", XPU_REQUEST_DEFAULT, XPU_REQUEST_CDI, "default",
          NULL },
        { NULL, NULL, "void", NV_MARK, NULL, "/usr/lib64", "0,1", XPU_REQUEST_CDI, XPU_REQUEST_VOID, "default",
          "/usr/lib64" },
        { NULL, "void", "none", NULL, AMD_MARK, NULL, "", XPU_REQUEST_VOID, XPU_REQUEST_NONE,
          "NVIDIA_VISIBLE_DEVICES", NULL },
};

START_TEST(test_cdi_marks) {
        struct xpu_inventory *inv = make_inventory(mixed, ELEMENTSOF(mixed));
        const struct xpu_selection_env env = {
                .xpu_visible = cdi_cases[_i].xpu,
                .visible = { [XPU_VENDOR_NVIDIA] = cdi_cases[_i].nv, [XPU_VENDOR_AMD] = cdi_cases[_i].amd },
                .cdi_mark = { [XPU_VENDOR_NVIDIA] = cdi_cases[_i].nv_mark, [XPU_VENDOR_AMD] = cdi_cases[_i].amd_mark },
                .cdi_libdir = { [XPU_VENDOR_NVIDIA] = cdi_cases[_i].libdir },
        };
        struct xpu_selection *s = NULL;
        char err[1024] = "";
        ck_assert_msg(xpu_selection_parse_env(inv, &env, &s, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(picked(s), cdi_cases[_i].picked);
        ck_assert_int_eq(s->request[XPU_VENDOR_NVIDIA], cdi_cases[_i].req_nv);
        ck_assert_int_eq(s->request[XPU_VENDOR_AMD], cdi_cases[_i].req_amd);
        ck_assert_str_eq(s->source[XPU_VENDOR_NVIDIA], cdi_cases[_i].src_nv);
        /* The marks are kept whatever decided: the plan does not inject CDI's files again. */
        if (cdi_cases[_i].nv_mark)
                ck_assert_str_eq(s->cdi_mark[XPU_VENDOR_NVIDIA], cdi_cases[_i].nv_mark);
        else
                ck_assert_ptr_null(s->cdi_mark[XPU_VENDOR_NVIDIA]);
        if (cdi_cases[_i].want_libdir)
                ck_assert_str_eq(s->cdi_libdir[XPU_VENDOR_NVIDIA], cdi_cases[_i].want_libdir);
        else
                ck_assert_ptr_null(s->cdi_libdir[XPU_VENDOR_NVIDIA]);
        ck_assert_ptr_null(s->cdi_libdir[XPU_VENDOR_AMD]);
        xpu_selection_free(s);
        xpu_inventory_free(inv);
}
END_TEST

START_TEST(test_small_error_buffer) {
        struct xpu_inventory *inv = make_inventory(mixed, ELEMENTSOF(mixed));
        char err[24];
        sel_err(inv, "7", NULL, NULL, err, sizeof err);
        ck_assert_str_eq(err, "XPU_VISIBLE_DEVICES: no");
        /* A NULL buffer is allowed. */
        struct xpu_selection *s = NULL;
        ck_assert_int_eq(xpu_selection_parse(inv, "7", NULL, &s, NULL, 0), -EINVAL);
        xpu_inventory_free(inv);
}
END_TEST

static Suite *select_suite(void) {
        Suite *s = suite_create("select");
        TCase *tc = tcase_create("select");
        tcase_add_loop_test(tc, test_select_ok, 0, (int)ELEMENTSOF(ok_cases));
        tcase_add_test(tc, test_count);
        tcase_add_test(tc, test_partition_bus_ids);
        tcase_add_test(tc, test_unique_id_own_vendor_only);
        tcase_add_loop_test(tc, test_select_errors, 0, (int)ELEMENTSOF(err_cases));
        tcase_add_loop_test(tc, test_mig_select, 0, (int)ELEMENTSOF(mig_ok));
        tcase_add_loop_test(tc, test_mig_errors, 0, (int)ELEMENTSOF(mig_err));
        tcase_add_test(tc, test_mig_caps_unknown);
        tcase_add_test(tc, test_no_devices);
        tcase_add_test(tc, test_range_past_last_device);
        tcase_add_test(tc, test_small_error_buffer);
        tcase_add_test(tc, test_hyperv_bus_ids);
        tcase_add_loop_test(tc, test_cdi_marks, 0, (int)ELEMENTSOF(cdi_cases));
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(select_suite());
}
