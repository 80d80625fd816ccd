/* SPDX-License-Identifier: Apache-2.0 */
/* probes/cdi-spec.c and entrypoint/cdi.c: the kind rules, the YAML emitter, and specs of
 * hand-built inventories whose nodes are real character devices of this machine (/dev/null,
 * /dev/zero): names (index, UUID, bus id, partitions, shared and hostile UUIDs), nodes with the
 * host's numbers and mode, GPUs left out for a missing node or an unknown driver version, host
 * paths under --host-root, the driver files of an NVIDIA driver root, and a refused driver root
 * (a FIFO where a library should be). The same specs read by podman: tests/e2e/container-cdi-generate.sh. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/macro.h"
#include "nvidia/nvidia-csv.h"
#include "nvidia/nvidia-facts.h"
#include "base/strv.h"
#include "cdi-spec.h"
#include "cdi.h"
#include "vendor.h"
#include "wsl.h"
#include "testlib.h"

START_TEST(test_kind) {
        static const struct {
                const char *kind;
                const char *error; /* NULL: accepted */
        } cases[] = {
                { "xpuinit.dev/gpu", NULL },
                { "example.com/gpu_1", NULL },
                { "a/b", NULL },
                { "my-org.example/accel-x", NULL },
                /* The descriptors' CDI kinds, by their vendor part, in the descriptor's spelling. */
                { "nvidia.com/gpu", "\"nvidia.com/gpu\": nvidia.com is the vendor's own kind" },
                { "NVIDIA.com/mig", "\"NVIDIA.com/mig\": nvidia.com is the vendor's own kind" },
                { "amd.com/gpu", "\"amd.com/gpu\": amd.com is the vendor's own kind" },
                { "nvidia.co/gpu", NULL },
                { "amd.comx/gpu", NULL },
                { "intel.com/gpu", NULL }, /* Intel's descriptor names no CDI kind */
                { "xpuinit.dev/gpu.x", "a dot in it needs cdiVersion 0.6.0" },
                { "xpuinit.dev/", "the class \"\" must be" },
                { "/gpu", "the vendor \"\" must be" },
                { "gpu", "a CDI kind is VENDOR/CLASS" },
                { "a/b/c", "a CDI kind is VENDOR/CLASS" },
                { "-x.dev/gpu", "the vendor \"-x.dev\" must be" },
                { "x.dev/gpu-", "the class \"gpu-\" must be" },
                /* CDI's parser wants a letter first (a digit first: the whole spec is dropped). */
                { "1vendor/gpu", "the vendor \"1vendor\" must be letters, digits, '.', '-' and '_', starting with a letter" },
                { "x.dev/1gpu", "the class \"1gpu\" must be at most 63 letters, digits, '-' and '_', starting with a letter" },
                { "9/9", "the vendor \"9\" must be" },
                { "x9.dev/g9", NULL },
                { "x dev/gpu", "the vendor \"x dev\" must be" },
                { "x.dev/g\"pu", "the class \"g\"pu\" must be" },
                { "x.dev/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "at most 63" },
                { "", "a CDI kind is VENDOR/CLASS" },
                { NULL, "a CDI kind is VENDOR/CLASS" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char err[512] = "";
                int r = xpu_cdi_kind_check(cases[i].kind, err, sizeof err);
                if (!cases[i].error) {
                        ck_assert_msg(r == 0, "%s: %s", cases[i].kind, err);
                        continue;
                }
                ck_assert_msg(r == -EINVAL && strstr(err, cases[i].error), "%s: %d \"%s\", want \"%s\"",
                              cases[i].kind ? cases[i].kind : "(null)", r, err, cases[i].error);
                ck_assert_msg(strncmp(err, "--kind \"", 8) == 0, "%s", err);
        }
}
END_TEST

START_TEST(test_yaml) {
        cJSON *o = cJSON_Parse("{\"cdiVersion\":\"0.5.0\",\"kind\":\"x.dev/gpu\",\"devices\":[{\"name\":\"0\","
                               "\"containerEdits\":{\"env\":[\"A=true\",\"B=a: b # c\",\"C=\\\"q\\\"\\n\"],"
                               "\"deviceNodes\":[{\"path\":\"/dev/x\",\"major\":195,\"fileMode\":438,\"ok\":true,"
                               "\"none\":null,\"f\":0.5}]}},{\"name\":\"null\"},{\"name\":\"\"}]}");
        ck_assert_ptr_nonnull(o);
        char *y = NULL;
        size_t len = 0;
        ck_assert_int_eq(xpu_cdi_yaml(o, &y, &len), 0);
        ck_assert_uint_eq(strlen(y), len);
        ck_assert_str_eq(y, "cdiVersion: \"0.5.0\"\n"
                            "kind: \"x.dev/gpu\"\n"
                            "devices:\n"
                            "- name: \"0\"\n"
                            "  containerEdits:\n"
                            "    env:\n"
                            "    - \"A=true\"\n"
                            "    - \"B=a: b # c\"\n"
                            "    - \"C=\\\"q\\\"\\n\"\n"
                            "    deviceNodes:\n"
                            "    - path: \"/dev/x\"\n"
                            "      major: 195\n"
                            "      fileMode: 438\n"
                            "      ok: true\n"
                            "      none: null\n"
                            "      f: 0.5\n"
                            "- name: \"null\"\n"
                            "- name: \"\"\n");
        free(y);
        cJSON_Delete(o);
        /* A raw item has no YAML form. */
        o = cJSON_CreateObject();
        cJSON_AddItemToObject(o, "raw", cJSON_CreateRaw("{}"));
        ck_assert_int_eq(xpu_cdi_yaml(o, &y, &len), -EINVAL);
        cJSON_Delete(o);
}
END_TEST

/* An inventory of N GPUs of VENDOR whose own node is NODE (a real character device) and whose
 * vendor node is /dev/zero. */
static struct xpu_inventory *inventory(enum xpu_vendor vendor, size_t n, const char *node) {
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        struct xpu_vendor_info *vi = &inv->vendors[vendor];
        snprintf(vi->driver_version, sizeof vi->driver_version, "550.54.15");
        snprintf(vi->nodes[0].path, sizeof vi->nodes[0].path, "/dev/zero");
        vi->n_nodes = 1;
        for (size_t i = 0; i < n; i++) {
                struct xpu_device d = { .index = (unsigned)i, .vendor = vendor, .n_nodes = 1 };
                snprintf(d.uuid, sizeof d.uuid, "GPU-%08zx-0000-0000-0000-000000000000", i);
                snprintf(d.pci_bus_id, sizeof d.pci_bus_id, "0000:%02zx:00.0", 0x10 + i);
                snprintf(d.nodes[0].path, sizeof d.nodes[0].path, "%s", node);
                ck_assert_ptr_nonnull(xpu_inventory_add_device(inv, &d));
        }
        return inv;
}

static int build(const struct xpu_inventory *inv, const struct xpu_cdi_roots *roots, cJSON **spec, char ***warnings,
                 char *err) {
        err[0] = '\0';
        return xpu_cdi_spec_build(inv, roots, "xpuinit.dev/gpu", spec, warnings, err, 1024);
}

/* The names of SPEC's devices, comma-separated. */
static char *names(const cJSON *spec) {
        static char buf[1024];
        size_t n = 0;
        buf[0] = '\0';
        const cJSON *d;
        cJSON_ArrayForEach(d, cJSON_GetObjectItem(spec, "devices"))
                n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", n ? "," : "",
                                      cJSON_GetObjectItem(d, "name")->valuestring);
        return buf;
}

static const cJSON *device(const cJSON *spec, const char *name) {
        const cJSON *d;
        cJSON_ArrayForEach(d, cJSON_GetObjectItem(spec, "devices"))
                if (strcmp(cJSON_GetObjectItem(d, "name")->valuestring, name) == 0)
                        return cJSON_GetObjectItem(d, "containerEdits");
        return NULL;
}

START_TEST(test_amd_names_and_nodes) {
        struct xpu_inventory *inv = inventory(XPU_VENDOR_AMD, 2, "/dev/null");
        const struct xpu_cdi_roots roots = { .dev_root = "/", .driver_root = "/", .driver_fd = -1 };
        cJSON *spec = NULL;
        char **w = NULL, err[1024];
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), 2);
        ck_assert_ptr_null(w);
        ck_assert_str_eq(cJSON_GetObjectItem(spec, "cdiVersion")->valuestring, "0.5.0");
        ck_assert_str_eq(names(spec), "0,GPU-00000000-0000-0000-0000-000000000000,0000:10:00.0,"
                                      "1,GPU-00000001-0000-0000-0000-000000000000,0000:11:00.0,all");
        char *text = cJSON_PrintUnformatted(device(spec, "1"));
        struct stat null, zero;
        ck_assert_int_eq(stat("/dev/null", &null), 0);
        ck_assert_int_eq(stat("/dev/zero", &zero), 0);
        char want[1024];
        snprintf(want, sizeof want,
                 "{\"deviceNodes\":[{\"path\":\"/dev/zero\",\"hostPath\":\"/dev/zero\",\"type\":\"c\",\"major\":1,"
                 "\"minor\":5,\"fileMode\":%u,\"uid\":0,\"gid\":%u},{\"path\":\"/dev/null\",\"hostPath\":"
                 "\"/dev/null\",\"type\":\"c\",\"major\":1,\"minor\":3,\"fileMode\":%u,\"uid\":0,\"gid\":%u}]}",
                 zero.st_mode & 07777, zero.st_gid, null.st_mode & 07777, null.st_gid);
        ck_assert_str_eq(text, want); /* no env, no mounts: ROCm lives in the image */
        free(text);
        ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(device(spec, "all"), "deviceNodes")), 2); /* deduped */
        text = cJSON_PrintUnformatted(cJSON_GetObjectItem(spec, "containerEdits"));
        ck_assert_str_eq(text, "{\"env\":[\"XPU_VISIBLE_DEVICES=all\"]}");
        free(text);
        cJSON_Delete(spec);

        /* Partitions of one GPU: one UUID for all (not a name), the bus id's function = the
         * partition; a hostile UUID is no name either. */
        for (size_t i = 0; i < inv->n_devices; i++) {
                struct xpu_device *d = &inv->devices[i];
                snprintf(d->uuid, sizeof d->uuid, "GPU-1234567890abcdef");
                snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "0000:05:00.0");
                d->have |= XPU_HAVE_PARTITION;
                d->partition = (uint32_t)i + 2;
        }
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), 2);
        ck_assert_str_eq(names(spec), "0,0000:05:00.2,1,0000:05:00.3,all");
        ck_assert_uint_eq(xpu_strv_length(w), 1);
        ck_assert_str_eq(w[0], "GPUs 0, 1 share the UUID GPU-1234567890abcdef (partitions of one GPU?): it names none "
                               "of them");
        w = xpu_strv_free(w);
        cJSON_Delete(spec);
        snprintf(inv->devices[0].uuid, sizeof inv->devices[0].uuid, "GPU x\";rm");
        inv->devices[1].have &= ~(uint32_t)XPU_HAVE_PARTITION;
        inv->devices[0].have &= ~(uint32_t)XPU_HAVE_PARTITION;
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), 2);
        ck_assert_str_eq(names(spec), "0,1,GPU-1234567890abcdef,all"); /* the shared bus id names neither */
        ck_assert_uint_eq(xpu_strv_length(w), 1);
        w = xpu_strv_free(w);
        cJSON_Delete(spec);
        xpu_inventory_free(inv);
}
END_TEST

/* MIG devices of an NVIDIA GPU (no driver root here: its nodes only, said once): "<gpu>:<mig>"
 * and the UUID, the GPU's nodes plus the two capability nodes; one whose nodes are unknown or
 * missing is left out with a warning; a hostile UUID is no name. */
START_TEST(test_mig_names) {
        struct xpu_inventory *inv = inventory(XPU_VENDOR_NVIDIA, 1, "/dev/null");
        const struct xpu_cdi_roots roots = { .dev_root = "/", .driver_root = "/", .driver_fd = -1 };
        struct xpu_device *d = &inv->devices[0];
        xpu_nvidia_facts(d)->n_mig = 5;
        for (size_t m = 0; m < xpu_nvidia_facts(d)->n_mig; m++) {
                struct xpu_mig_device *g = &xpu_nvidia_facts(d)->mig[m];
                g->gi = (uint32_t)m + 1;
                g->have = XPU_MIG_HAVE_CAPS;
                snprintf(g->gi_cap.path, sizeof g->gi_cap.path, "/dev/full");
                snprintf(g->ci_cap.path, sizeof g->ci_cap.path, m == 2 ? "/dev/xpu-no-such-cap" : "/dev/urandom");
        }
        xpu_nvidia_facts(d)->mig[3].have = 0;
        snprintf(xpu_nvidia_facts(d)->mig[0].uuid, sizeof xpu_nvidia_facts(d)->mig[0].uuid, "MIG-aaaaaaaa-0000-4000-8000-000000000000");
        snprintf(xpu_nvidia_facts(d)->mig[4].uuid, sizeof xpu_nvidia_facts(d)->mig[4].uuid, "MIG x\";rm");
        cJSON *spec = NULL;
        char **w = NULL, err[1024];
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), 1);
        ck_assert_str_eq(names(spec), "0,GPU-00000000-0000-0000-0000-000000000000,0000:10:00.0,0:0,"
                                      "MIG-aaaaaaaa-0000-4000-8000-000000000000,0:1,0:4,all");
        ck_assert_uint_eq(xpu_strv_length(w), 3);
        ck_assert_str_eq(w[1], "MIG device 0:2: /dev/xpu-no-such-cap is missing or not a character device under /; left out");
        /* No driver root here: the device nodes only, said once. */
        ck_assert_str_eq(w[0], "nvidia: no library of driver 550.54.15 under the driver root /: the spec gives the "
                               "device nodes only (point --driver-root at the host's driver files)");
        ck_assert_str_eq(w[2], "MIG device 0:3 (GPU instance 4, compute instance 0): its capability nodes are unknown "
                               "(no /proc/driver/nvidia/capabilities); left out");
        const cJSON *n;
        char paths[256] = "";
        size_t len = 0;
        cJSON_ArrayForEach(n, cJSON_GetObjectItem(device(spec, "0:1"), "deviceNodes"))
                len += (size_t)snprintf(paths + len, sizeof paths - len, "%s%s", len ? "," : "",
                                        cJSON_GetObjectItem(n, "path")->valuestring);
        ck_assert_str_eq(paths, "/dev/zero,/dev/null,/dev/full,/dev/urandom");
        /* all: the GPU's and every MIG device's nodes, deduplicated */
        ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(device(spec, "all"), "deviceNodes")), 4);
        w = xpu_strv_free(w);
        cJSON_Delete(spec);
        xpu_inventory_free(inv);
}
END_TEST

START_TEST(test_left_out) {
        /* A GPU whose own node is missing is left out; with none left there is no spec. */
        struct xpu_inventory *inv = inventory(XPU_VENDOR_AMD, 2, "/dev/null");
        const struct xpu_cdi_roots roots = { .dev_root = "/", .driver_root = "/", .driver_fd = -1 };
        snprintf(inv->devices[1].nodes[0].path, sizeof inv->devices[1].nodes[0].path, "/dev/xpu-no-such-node");
        cJSON *spec = NULL;
        char **w = NULL, err[1024];
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), 1);
        ck_assert_str_eq(names(spec), "0,GPU-00000000-0000-0000-0000-000000000000,0000:10:00.0,all");
        ck_assert_uint_eq(xpu_strv_length(w), 1);
        ck_assert_str_eq(w[0], "GPU 1 (0000:11:00.0): /dev/xpu-no-such-node is missing or not a character device under /; left out");
        w = xpu_strv_free(w);
        cJSON_Delete(spec);
        /* A regular file is not a node. */
        snprintf(inv->devices[0].nodes[0].path, sizeof inv->devices[0].nodes[0].path, "/etc/passwd");
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), 0);
        ck_assert_ptr_null(spec);
        ck_assert_uint_eq(xpu_strv_length(w), 2);
        ck_assert_str_eq(err, "none of this host's 2 GPU(s) could go into the spec (the warnings above say why for "
                              "each: a device node missing under /, the driver version unknown, ...)");
        w = xpu_strv_free(w);
        /* A GPU with no node of its own (an AMD GPU whose render node the probe could not find)
         * would get only the vendor's shared nodes under its names: left out. */
        snprintf(inv->devices[0].nodes[0].path, sizeof inv->devices[0].nodes[0].path, "/dev/null");
        inv->devices[1].n_nodes = 0;
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), 1);
        ck_assert_str_eq(names(spec), "0,GPU-00000000-0000-0000-0000-000000000000,0000:10:00.0,all");
        ck_assert_uint_eq(xpu_strv_length(w), 1);
        ck_assert_str_eq(w[0], "GPU 1 (0000:11:00.0): no device node of its own was found (see the probe's warnings); "
                               "left out");
        w = xpu_strv_free(w);
        cJSON_Delete(spec);
        spec = NULL;
        /* Nodes that are all optional are none of its own either. */
        inv->devices[1].n_nodes = 1;
        inv->devices[1].nodes[0].optional = true;
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), 1);
        ck_assert_str_eq(names(spec), "0,GPU-00000000-0000-0000-0000-000000000000,0000:10:00.0,all");
        w = xpu_strv_free(w);
        cJSON_Delete(spec);
        spec = NULL;
        inv->devices[1].nodes[0].optional = false;
        snprintf(inv->devices[0].nodes[0].path, sizeof inv->devices[0].nodes[0].path, "/etc/passwd");
        snprintf(inv->devices[1].nodes[0].path, sizeof inv->devices[1].nodes[0].path, "/etc/passwd");
        /* A vendor node it needs: all of the vendor's GPUs go. */
        snprintf(inv->vendors[XPU_VENDOR_AMD].nodes[0].path, sizeof inv->vendors[0].nodes[0].path, "/dev/xpu-none");
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), 0);
        ck_assert_str_eq(w[0], "amd: /dev/xpu-none is not a character device under /; its GPUs are left out");
        w = xpu_strv_free(w);
        xpu_inventory_free(inv);
        /* No GPU at all. */
        inv = xpu_inventory_new();
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), 0);
        ck_assert_ptr_null(w);
        ck_assert_msg(strstr(err, "no GPU on this host"), "%s", err);
        xpu_inventory_free(inv);
}
END_TEST

START_TEST(test_nvidia_driver_files) {
        /* A driver root with this version's files, an older version's and a program. */
        char *root = xpu_test_mkdtemp();
        char path[PATH_MAX];
        static const char *const files[] = { "usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15",
                                             "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15",
                                             "usr/lib/x86_64-linux-gnu/libGLX_nvidia.so.550.54.15",
                                             "usr/lib/x86_64-linux-gnu/libcuda.so.535.1.1",
                                             "usr/lib/x86_64-linux-gnu/libfoo.so.550.54.15" };
        for (size_t i = 0; i < ELEMENTSOF(files); i++)
                xpu_test_write(root, files[i], "");
        xpu_test_write(root, "usr/bin/nvidia-smi", "");
        snprintf(path, sizeof path, "%s/usr/bin/nvidia-smi", root);
        ck_assert_int_eq(chmod(path, 0755), 0);
        int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        struct xpu_inventory *inv = inventory(XPU_VENDOR_NVIDIA, 1, "/dev/null");
        /* The host's / seen at ROOT's parent: paths below it lose that prefix. */
        char parent[PATH_MAX];
        snprintf(parent, sizeof parent, "%s", root);
        *strrchr(parent, '/') = '\0';
        const struct xpu_cdi_roots roots = { .dev_root = "/", .driver_root = root, .driver_fd = fd, .host_root = parent };
        cJSON *spec = NULL;
        char **w = NULL, err[1024];
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), 1);
        ck_assert_msg(w == NULL, "%s", w ? w[0] : "");
        const cJSON *e = device(spec, "0");
        char *text = cJSON_PrintUnformatted(cJSON_GetObjectItem(e, "env"));
        ck_assert_str_eq(text, "[\"XPUINIT_DRIVER_ROOT=/run/nvidia/driver\",\"NVIDIA_VISIBLE_DEVICES=void\"]");
        free(text);
        const char *base = root + strlen(parent); /* "/tmp.XXXX" as the host sees it */
        char want[4096];
        snprintf(want, sizeof want,
                 "%s/usr/lib/x86_64-linux-gnu/libGLX_nvidia.so.550.54.15>/run/nvidia/driver/usr/lib64/libGLX_nvidia.so.550.54.15,"
                 "%s/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15>/run/nvidia/driver/usr/lib64/libcuda.so.550.54.15,"
                 "%s/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15>/run/nvidia/driver/usr/lib64/libnvidia-ml.so.550.54.15,"
                 "%s/usr/bin/nvidia-smi>/run/nvidia/driver/usr/bin/nvidia-smi,",
                 base, base, base, base);
        char got[4096] = "";
        size_t n = 0;
        const cJSON *m;
        cJSON_ArrayForEach(m, cJSON_GetObjectItem(e, "mounts")) {
                n += (size_t)snprintf(got + n, sizeof got - n, "%s>%s,", cJSON_GetObjectItem(m, "hostPath")->valuestring,
                                      cJSON_GetObjectItem(m, "containerPath")->valuestring);
                text = cJSON_PrintUnformatted(cJSON_GetObjectItem(m, "options"));
                ck_assert_str_eq(text, "[\"ro\",\"nosuid\",\"nodev\",\"bind\"]");
                free(text);
        }
        ck_assert_str_eq(got, want);
        cJSON_Delete(spec);

        /* No library of the running version: the nodes only, said so. */
        snprintf(inv->vendors[XPU_VENDOR_NVIDIA].driver_version, 32, "560.1.1");
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), 1);
        ck_assert_uint_eq(xpu_strv_length(w), 1);
        ck_assert_msg(strstr(w[0], "nvidia: no library of driver 560.1.1 under the driver root"), "%s", w[0]);
        /* ... and the programs, which carry no version in their names. */
        ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(device(spec, "0"), "mounts")), 1);
        ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(device(spec, "0"), "mounts"), 0),
                                             "containerPath")->valuestring,
                         "/run/nvidia/driver/usr/bin/nvidia-smi");
        w = xpu_strv_free(w);
        cJSON_Delete(spec);
        /* No driver version: the vendor's GPUs cannot be given. */
        inv->vendors[XPU_VENDOR_NVIDIA].driver_version[0] = '\0';
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), 0);
        ck_assert_msg(strstr(w[0], "the driver version is unknown"), "%s", w[0]);
        w = xpu_strv_free(w);
        /* A FIFO where a library of the running version should be: the driver root is refused. */
        snprintf(inv->vendors[XPU_VENDOR_NVIDIA].driver_version, 32, "550.54.15");
        snprintf(path, sizeof path, "%s/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15", root);
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(mkfifo(path, 0644), 0);
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), -EIO);
        ck_assert_ptr_null(spec);
        ck_assert_msg(strstr(err, "driver root ") && strstr(err, "libnvidia-ml.so.550.54.15"), "%s", err);
        close(fd);
        xpu_inventory_free(inv);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* Files found by their path (firmware of the running version, the MPS pipe directory, the
 * Vulkan ICD) are mounted at the same path below /run/nvidia/driver: files read-only, the
 * directory writable and noexec; another version's firmware is not. The 32-bit copies of the
 * libraries go to /run/nvidia/driver/usr/lib32, where xpuinit's compat32 search looks. */
START_TEST(test_nvidia_host_files) {
        char *root = xpu_test_mkdtemp();
        xpu_test_write(root, "usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15", "");
        xpu_test_write(root, "lib/firmware/nvidia/550.54.15/gsp_ga10x.bin", "fw");
        xpu_test_write(root, "lib/firmware/nvidia/535.1.1/gsp_ga10x.bin", "old fw");
        xpu_test_write(root, "tmp/nvidia-mps/control", "");
        char mps[PATH_MAX];
        snprintf(mps, sizeof mps, "%s/tmp/nvidia-mps", root);
        ck_assert_int_eq(chmod(mps, 01777), 0);
        xpu_test_write(root, "usr/share/vulkan/icd.d/nvidia_icd.json", "{}");
        xpu_test_write(root, "usr/lib/i386-linux-gnu/libcuda.so.550.54.15", "\177ELF\001\001\001 a whole ELF32 header long: 52 bytes, and more.");
        int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        struct xpu_inventory *inv = inventory(XPU_VENDOR_NVIDIA, 1, "/dev/null");
        const struct xpu_cdi_roots roots = { .dev_root = "/", .driver_root = root, .driver_fd = fd };
        cJSON *spec = NULL;
        char **w = NULL, err[1024];
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), 1);
        ck_assert_msg(w == NULL, "%s", w ? w[0] : "");
        char got[8192] = "";
        size_t n = 0;
        const cJSON *m;
        cJSON_ArrayForEach(m, cJSON_GetObjectItem(device(spec, "0"), "mounts")) {
                char *opts = cJSON_PrintUnformatted(cJSON_GetObjectItem(m, "options"));
                n += (size_t)snprintf(got + n, sizeof got - n, "%s %s\n",
                                      cJSON_GetObjectItem(m, "containerPath")->valuestring, opts);
                free(opts);
        }
        ck_assert_str_eq(got, "/run/nvidia/driver/usr/lib64/libcuda.so.550.54.15 [\"ro\",\"nosuid\",\"nodev\",\"bind\"]\n"
                              "/run/nvidia/driver/usr/lib32/libcuda.so.550.54.15 [\"ro\",\"nosuid\",\"nodev\",\"bind\"]\n"
                              "/run/nvidia/driver/lib/firmware/nvidia/550.54.15/gsp_ga10x.bin "
                              "[\"ro\",\"nosuid\",\"nodev\",\"bind\"]\n"
                              "/run/nvidia/driver/tmp/nvidia-mps [\"nosuid\",\"nodev\",\"noexec\",\"bind\"]\n"
                              "/run/nvidia/driver/usr/share/vulkan/icd.d/nvidia_icd.json "
                              "[\"ro\",\"nosuid\",\"nodev\",\"bind\"]\n");
        cJSON_Delete(spec);
        close(fd);
        xpu_inventory_free(inv);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* WSL2 (the wsl-amd and wsl-nvidia fixture hosts, probed): every device gives /dev/dxg with the
 * host's numbers and the vendor's Windows driver files mounted at their own path (NVIDIA's from
 * its driver store), the variable naming the driver root says "/", and AMD's runtime is told to
 * use its dxg path. */
START_TEST(test_wsl) {
        char *root = NULL;
        struct xpu_roots r;
        struct xpu_inventory *inv = xpu_test_probe_copy("wsl-nvidia", NULL, &r, &root);
        const struct xpu_cdi_roots roots = { .dev_root = root, .driver_root = root, .driver_fd = r.driver_fd,
                                             .host_root = root };
        cJSON *spec = NULL;
        char **w = NULL, err[1024];
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), 1);
        ck_assert_msg(w == NULL, "%s", w ? w[0] : "");
        const cJSON *dev0 = device(spec, "0");
        char *env = cJSON_PrintUnformatted(cJSON_GetObjectItem(dev0, "env"));
        ck_assert_str_eq(env, "[\"XPUINIT_DRIVER_ROOT=/\",\"NVIDIA_VISIBLE_DEVICES=void\"]");
        free(env);
        const cJSON *nodes = cJSON_GetObjectItem(dev0, "deviceNodes");
        ck_assert_int_eq(cJSON_GetArraySize(nodes), 1);
        const cJSON *dxg = cJSON_GetArrayItem(nodes, 0);
        ck_assert_str_eq(cJSON_GetObjectItem(dxg, "path")->valuestring, "/dev/dxg");
        ck_assert_str_eq(cJSON_GetObjectItem(dxg, "hostPath")->valuestring, "/dev/dxg");
        ck_assert_int_eq(cJSON_GetObjectItem(dxg, "major")->valueint, 10);
        ck_assert_int_eq(cJSON_GetObjectItem(dxg, "minor")->valueint, 124);
        char got[4096] = "";
        size_t n = 0;
        const cJSON *m;
        cJSON_ArrayForEach(m, cJSON_GetObjectItem(dev0, "mounts")) {
                ck_assert_str_eq(cJSON_GetObjectItem(m, "hostPath")->valuestring,
                                 cJSON_GetObjectItem(m, "containerPath")->valuestring);
                n += (size_t)snprintf(got + n, sizeof got - n, "%s\n", cJSON_GetObjectItem(m, "containerPath")->valuestring);
        }
#define S "/usr/lib/wsl/drivers/nv_dispsi.inf_amd64_7cc7738d8e428783/"
        ck_assert_str_eq(got, S "libcuda.so.1.1\n" S "libcuda_loader.so\n" S "libnvidia-ptxjitcompiler.so.1\n" S
                              "libnvidia-ml.so.1\n" S "libnvidia-ml_loader.so\n" S "libnvdxgdmal.so.1\n" S
                              "nvcubins.bin\n" S "nvidia-smi\n/usr/lib/wsl/lib/libdxcore.so\n");
#undef S
        cJSON_Delete(spec);
        xpu_inventory_free(inv);
        xpu_roots_close(&r);
        xpu_test_rm_rf(root);
        free(root);

        inv = xpu_test_probe_copy("wsl-amd", NULL, &r, &root);
        const struct xpu_cdi_roots amd = { .dev_root = root, .driver_root = root, .driver_fd = r.driver_fd };
        ck_assert_int_eq(build(inv, &amd, &spec, &w, err), 1);
        ck_assert_msg(w == NULL, "%s", w ? w[0] : "");
        dev0 = device(spec, "0");
        env = cJSON_PrintUnformatted(cJSON_GetObjectItem(dev0, "env"));
        ck_assert_str_eq(env, "[\"HSA_ENABLE_DXG_DETECTION=1\"]");
        free(env);
        ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(dev0, "mounts")), 1);
        ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(dev0, "mounts"), 0),
                                             "containerPath")->valuestring, "/usr/lib/wsl/lib/libdxcore.so");
        cJSON_Delete(spec);
        xpu_inventory_free(inv);
        xpu_roots_close(&r);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* SPEC's device NAME: its nodes' paths, comma-separated, and its mounts, one "containerPath <-
 * hostPath [options]" line each with ROOT left out of the host path (NULL: kept). */
static void device_summary(const cJSON *spec, const char *name, const char *root, char *nodes, size_t nodes_size,
                           char *mounts, size_t mounts_size) {
        const cJSON *e = device(spec, name), *it;
        ck_assert_ptr_nonnull(e);
        size_t n = 0, m = 0, rl = root ? strlen(root) : 0;
        nodes[0] = mounts[0] = '\0';
        cJSON_ArrayForEach(it, cJSON_GetObjectItem(e, "deviceNodes"))
                n += (size_t)snprintf(nodes + n, nodes_size - n, "%s%s", n ? "," : "",
                                      cJSON_GetObjectItem(it, "path")->valuestring);
        cJSON_ArrayForEach(it, cJSON_GetObjectItem(e, "mounts")) {
                const char *hp = cJSON_GetObjectItem(it, "hostPath")->valuestring;
                if (rl && strncmp(hp, root, rl) == 0)
                        hp += rl;
                char *opts = cJSON_PrintUnformatted(cJSON_GetObjectItem(it, "options"));
                m += (size_t)snprintf(mounts + m, mounts_size - m, "%s <- %s %s\n",
                                      cJSON_GetObjectItem(it, "containerPath")->valuestring, hp, opts);
                free(opts);
        }
        ck_assert_uint_lt(n, nodes_size);
        ck_assert_uint_lt(m, mounts_size);
}

/* A Jetson (the jetson-orin and jetson-xavier fixture hosts, probed): no driver version, and the
 * device is what the host's CSV files list: their dev lines the host has as deviceNodes (with the
 * GPU's own), their lib and dir lines mounted read-only at their own path, and their sym lines as
 * the link's target (resolved in the driver root) mounted at the link's path; the driver-root
 * variable names "/". Names: the index and all (no UUID, no PCI bus id on a Tegra). */
START_TEST(test_jetson) {
        static const struct {
                const char *host, *nodes, *mounts;
        } hosts[] = {
                { "jetson-orin",
                  "/dev/dri/card0,/dev/dri/renderD128,/dev/host1x-fence,/dev/nvgpu/igpu0/as,/dev/nvgpu/igpu0/channel,"
                  "/dev/nvgpu/igpu0/ctrl,/dev/nvgpu/igpu0/ctxsw,/dev/nvgpu/igpu0/dbg,/dev/nvgpu/igpu0/power,"
                  "/dev/nvgpu/igpu0/prof,/dev/nvgpu/igpu0/sched,/dev/nvgpu/igpu0/tsg,/dev/nvidia-modeset,/dev/nvidia0,"
                  "/dev/nvidiactl,/dev/nvmap,/dev/nvsciipc",
#define L "/usr/lib/aarch64-linux-gnu/"
#define RO " [\"ro\",\"nosuid\",\"nodev\",\"bind\"]\n"
/* the lists themselves, so xpuinit in the image reads them */
#define CSV XPU_CSV_HOST_DIR " <- " XPU_CSV_HOST_DIR RO
                  L "nvidia/libcuda.so.1.1 <- " L "nvidia/libcuda.so.1.1" RO
                  L "nvidia/libnvidia-ml.so.1 <- " L "nvidia/libnvidia-ml.so.1" RO
                  L "nvidia/libnvidia-ptxjitcompiler.so.540.3.0 <- " L "nvidia/libnvidia-ptxjitcompiler.so.540.3.0" RO
                  L "nvidia/libnvrm_gpu.so <- " L "nvidia/libnvrm_gpu.so" RO
                  L "nvidia/libnvrm_host1x.so <- " L "nvidia/libnvrm_host1x.so" RO
                  L "nvidia/libnvrm_mem.so <- " L "nvidia/libnvrm_mem.so" RO
                  L "tegra-egl/libEGL_nvidia.so.0 <- " L "tegra-egl/libEGL_nvidia.so.0" RO
                  L "libcuda.so <- " L "nvidia/libcuda.so.1.1" RO
                  L "nvidia/libcuda.so <- " L "nvidia/libcuda.so.1.1" RO
                  L "nvidia/libcuda.so.1 <- " L "nvidia/libcuda.so.1.1" RO
                  L "nvidia/libnvidia-ptxjitcompiler.so.1 <- " L "nvidia/libnvidia-ptxjitcompiler.so.540.3.0" RO
                  L "tegra <- " L "nvidia" RO
                  "/lib/firmware/tegra23x/nvhost_nvdec050_desc_prod.bin <- "
                  "/lib/firmware/tegra23x/nvhost_nvdec050_desc_prod.bin" RO
                  "/usr/sbin/nvidia-smi <- /usr/sbin/nvidia-smi" RO CSV },
                { "jetson-xavier",
                  "/dev/fb0,/dev/nvhost-as-gpu,/dev/nvhost-ctrl,/dev/nvhost-ctrl-gpu,/dev/nvhost-dbg-gpu,"
                  "/dev/nvhost-gpu,/dev/nvhost-prof-gpu,/dev/nvhost-ctrl-nvdla0,/dev/nvhost-nvdla0,/dev/nvidiactl,"
                  "/dev/nvmap",
                  "/lib/firmware/tegra19x <- /lib/firmware/tegra19x" RO
                  L "tegra/libcuda.so.1.1 <- " L "tegra/libcuda.so.1.1" RO
                  L "tegra/libnvrm_gpu.so <- " L "tegra/libnvrm_gpu.so" RO
                  L "tegra/libnvrm.so <- " L "tegra/libnvrm.so" RO
                  L "tegra/libnvos.so <- " L "tegra/libnvos.so" RO
                  L "tegra/libcuda.so <- " L "tegra/libcuda.so.1.1" RO
                  L "libcuda.so <- " L "tegra/libcuda.so.1.1" RO CSV },
#undef L
#undef RO
#undef CSV
        };
        for (size_t h = 0; h < ELEMENTSOF(hosts); h++) {
                char *root = NULL;
                struct xpu_roots r;
                struct xpu_inventory *inv = xpu_test_probe_copy(hosts[h].host, NULL, &r, &root);
                ck_assert_int_eq(inv->platform, XPU_PLATFORM_TEGRA);
                ck_assert_str_eq(inv->vendors[XPU_VENDOR_NVIDIA].driver_version, "");
                const struct xpu_cdi_roots roots = { .dev_root = root, .driver_root = root, .driver_fd = r.driver_fd };
                cJSON *spec = NULL;
                char **w = NULL, err[1024];
                ck_assert_int_eq(build(inv, &roots, &spec, &w, err), 1);
                ck_assert_msg(w == NULL, "%s: %s", hosts[h].host, w ? w[0] : "");
                ck_assert_str_eq(names(spec), "0,all");
                char nodes[2048], mounts[8192];
                device_summary(spec, "0", root, nodes, sizeof nodes, mounts, sizeof mounts);
                ck_assert_str_eq(nodes, hosts[h].nodes);
                ck_assert_str_eq(mounts, hosts[h].mounts);
                char nodes_all[2048], mounts_all[8192];
                device_summary(spec, "all", root, nodes_all, sizeof nodes_all, mounts_all, sizeof mounts_all);
                ck_assert_str_eq(nodes_all, nodes);
                ck_assert_str_eq(mounts_all, mounts);
                char *env = cJSON_PrintUnformatted(cJSON_GetObjectItem(device(spec, "0"), "env"));
                ck_assert_str_eq(env, "[\"XPUINIT_DRIVER_ROOT=/\",\"NVIDIA_VISIBLE_DEVICES=void\"]");
                free(env);
                cJSON_Delete(spec);
                xpu_inventory_free(inv);
                xpu_roots_close(&r);
                xpu_test_rm_rf(root);
                free(root);
        }
}
END_TEST

/* A Jetson's hostile lists: a sym line whose target no container may read is left out with a
 * warning naming its line; a line the parser refuses stops the spec (-EIO) with the very words a
 * start stops with (the descriptor's host-list hook, which gather calls). */
START_TEST(test_jetson_hostile) {
        char *root = xpu_test_copy_host("jetson-orin");
        xpu_test_make_devnodes(root);
        char secret[PATH_MAX];
        xpu_test_write(root, "etc/secret", "key\n");
        snprintf(secret, sizeof secret, "%s/etc/secret", root);
        ck_assert_int_eq(chmod(secret, 0600), 0);
        xpu_test_symlink(root, "usr/lib/aarch64-linux-gnu/libleak.so", "../../../etc/secret");
        static const char l4t[] = "etc/nvidia-container-runtime/host-files-for-container.d/l4t.csv";
        xpu_test_write(root, l4t, "sym, /usr/lib/aarch64-linux-gnu/libleak.so\n");
        struct xpu_roots r;
        const char *which = NULL;
        ck_assert_int_eq(xpu_roots_open(&r, root, root, root, &which), 0);
        struct xpu_inventory *inv = NULL;
        ck_assert_int_eq(xpu_inventory_probe(&r, &inv), 0);
        const struct xpu_cdi_roots roots = { .dev_root = root, .driver_root = root, .driver_fd = r.driver_fd };
        cJSON *spec = NULL;
        char **w = NULL, err[1024];
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), 1);
        ck_assert_ptr_nonnull(w);
        ck_assert_str_eq(w[0], "nvidia: /usr/lib/aarch64-linux-gnu/libleak.so (l4t.csv:1, symlink) left out: not "
                               "readable by every user");
        ck_assert_ptr_null(w[1]);
        char nodes[2048], mounts[8192];
        device_summary(spec, "0", root, nodes, sizeof nodes, mounts, sizeof mounts);
        ck_assert_msg(!strstr(mounts, "libleak") && !strstr(mounts, "secret"), "%s", mounts);
        cJSON_Delete(spec);
        w = xpu_strv_free(w);

        /* A line the parser refuses. */
        xpu_test_write(root, l4t, "libs, /usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1.1\n");
        char start[1024] = "";
        struct xpu_host_list *list = NULL;
        ck_assert_int_eq(xpu_vendors[XPU_VENDOR_NVIDIA]->plan.host_list(inv, r.driver_fd, r.dev_fd, NULL, &list, start,
                                                                       sizeof start), -EINVAL);
        ck_assert_ptr_null(list);
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), -EIO);
        ck_assert_ptr_null(spec);
        ck_assert_str_eq(err, start);
        ck_assert_str_eq(err, XPU_CSV_HOST_DIR "/l4t.csv:1: unknown kind \"libs\"; expected \"KIND, PATH\" with KIND "
                              "dev, lib, sym or dir and an absolute PATH (\"lib, "
                              "/usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1\"); fix or remove that line");
        xpu_inventory_free(inv);
        xpu_roots_close(&r);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* WSL2 with the GPUs behind NVIDIA's driver store counted (xpu_wsl_expand(), as xpud's sample has
 * them): /dev/dxg reaches both, so the spec names them together ("all", with the driver store's
 * files), not by index or UUID, and says so. */
START_TEST(test_wsl_counted) {
        char *root = NULL;
        struct xpu_roots r;
        struct xpu_inventory *inv = xpu_test_probe_copy("wsl-nvidia", NULL, &r, &root);
        ck_assert_int_eq(xpu_wsl_expand(inv, XPU_VENDOR_NVIDIA, XPU_SOURCE_NVML, 2), 0);
        snprintf(inv->devices[0].uuid, sizeof inv->devices[0].uuid, "GPU-00000000-0000-4000-8000-00000000000a");
        snprintf(inv->devices[1].uuid, sizeof inv->devices[1].uuid, "GPU-00000000-0000-4000-8000-00000000000b");
        const struct xpu_cdi_roots roots = { .dev_root = root, .driver_root = root, .driver_fd = r.driver_fd,
                                             .host_root = root };
        cJSON *spec = NULL;
        char **w = NULL, err[1024];
        ck_assert_int_eq(build(inv, &roots, &spec, &w, err), 2);
        ck_assert_str_eq(names(spec), "all");
        ck_assert_ptr_nonnull(w);
        ck_assert_str_eq(w[0], "WSL2: 2 GPUs share /dev/dxg, which reaches all of them; the spec names them together "
                               "as \"all\", not one by one");
        ck_assert_ptr_null(w[1]);
        const cJSON *all = device(spec, "all");
        ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(all, "deviceNodes")), 1);
        ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(all, "mounts")), 9);
        xpu_strv_free(w);
        cJSON_Delete(spec);
        xpu_inventory_free(inv);
        xpu_roots_close(&r);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

static Suite *cdi_suite(void) {
        Suite *s = suite_create("cdi");
        TCase *tc = tcase_create("spec");
        tcase_add_test(tc, test_kind);
        tcase_add_test(tc, test_yaml);
        tcase_add_test(tc, test_amd_names_and_nodes);
        tcase_add_test(tc, test_mig_names);
        tcase_add_test(tc, test_left_out);
        tcase_add_test(tc, test_nvidia_driver_files);
        tcase_add_test(tc, test_nvidia_host_files);
        tcase_add_test(tc, test_wsl);
        tcase_add_test(tc, test_wsl_counted);
        tcase_add_test(tc, test_jetson);
        tcase_add_test(tc, test_jetson_hostile);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(cdi_suite());
}
