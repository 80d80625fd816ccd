/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/cdi-devices.c (and cdi-spec-read.c, yaml-json.c): the node's CDI specs read back. The
 * specs every producer writes (tests/fixtures/cdi/, README there: nvidia-ctk, NVIDIA's, AMD's and
 * Intel's DRA drivers, amd-ctk, xpuinit's own cdi generate) resolved to the device numbers of the
 * fixture hosts; the later directory over the earlier, two files of one directory naming one
 * device (neither counts), a spec's common nodes with each of its devices, nodes without numbers
 * taken from the dev root (mknod: runs as root); and hostile specs, each left out with one
 * warning naming the file while the others still count: bad syntax, wrong types, missing fields,
 * a huge file, too many files, deep nesting, an alias bomb, a FIFO, a symlink out of the root. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "cdi-devices.h"
#include "testlib.h"

static const char *const DIRS[] = { "/etc/cdi", "/var/run/cdi" };

/* A test's root: ROOT/etc/cdi, ROOT/var/run/cdi (created), ROOT/dev for the nodes. */
static char *new_root(void) {
        char *root = xpu_test_mkdtemp();
        /* Dot files are no specs: these only make the directories. */
        xpu_test_write(root, "etc/cdi/.keep", "");
        xpu_test_write(root, "var/run/cdi/.keep", "");
        return root;
}

/* Copy fixture tests/fixtures/cdi/NAME to ROOT/DIR/AS. */
static void put_fixture(const char *root, const char *dir, const char *name, const char *as) {
        char rel[512], dst[512];
        size_t len;
        snprintf(rel, sizeof rel, "cdi/%s", name);
        unsigned char *text = xpu_test_read_fixture(rel, &len);
        snprintf(dst, sizeof dst, "%s/%s", dir + 1, as ? as : name);
        char *s = strndup((const char *)text, len);
        xpu_test_write(root, dst, s);
        free(s);
        free(text);
}

/* Make the device nodes of fixture host HOST under ROOT/dev. */
static void make_nodes(const char *root, const char *host) {
        char rel[256];
        size_t len;
        snprintf(rel, sizeof rel, "hosts/%s/dev/DEVNODES", host);
        unsigned char *text = xpu_test_read_fixture(rel, &len);
        char *s = strndup((const char *)text, len);
        xpu_test_write(root, "dev/DEVNODES", s);
        free(s);
        free(text);
        xpu_test_make_devnodes(root);
}

/* Load DIRS under ROOT (dev root ROOT) with warnings captured into *LOG (free it). */
static struct xpud_cdi_devices *load_log(const char *root, char **log) {
        FILE *f = tmpfile();
        ck_assert_ptr_nonnull(f);
        fflush(stderr);
        int saved = dup(2);
        ck_assert_int_ge(saved, 0);
        ck_assert_int_eq(dup2(fileno(f), 2), 2);
        xpu_log_set_level(XPU_LOG_WARNING);
        struct xpud_cdi_devices *c = NULL;
        char err[256] = "";
        int r = xpud_cdi_devices_load(DIRS, 2, root, root, &c, err, sizeof err);
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        ck_assert_msg(r == 0, "load: %d %s", r, err);
        long n = ftell(f);
        ck_assert_int_ge(n, 0);
        *log = calloc((size_t)n + 1, 1);
        rewind(f);
        ck_assert_uint_eq(fread(*log, 1, (size_t)n, f), (size_t)n);
        fclose(f);
        return c;
}

static struct xpud_cdi_devices *load_quiet(const char *root) {
        char *log;
        struct xpud_cdi_devices *c = load_log(root, &log);
        ck_assert_msg(!*log, "unexpected warnings: %s", log);
        free(log);
        return c;
}

/* Assert that NAME resolves to exactly the nodes of EXPECT ("MAJ:MIN,MAJ:MIN", "" for none), in order. */
static void expect_nodes(const struct xpud_cdi_devices *c, const char *name, const char *expect) {
        dev_t nodes[XPUD_CDI_DEVICE_NODES_MAX];
        size_t n = 99;
        int r = xpud_cdi_devices_lookup(c, name, nodes, XPUD_CDI_DEVICE_NODES_MAX, &n);
        ck_assert_msg(r == 0, "%s: lookup %d", name, r);
        char got[1024] = "";
        for (size_t i = 0; i < n; i++)
                snprintf(got + strlen(got), sizeof got - strlen(got), "%s%u:%u", i ? "," : "", major(nodes[i]),
                         minor(nodes[i]));
        ck_assert_msg(strcmp(got, expect) == 0, "%s: nodes \"%s\", expected \"%s\"", name, got, expect);
}

static void expect_lookup(const struct xpud_cdi_devices *c, const char *name, int want) {
        dev_t nodes[4];
        size_t n = 0;
        ck_assert_msg(xpud_cdi_devices_lookup(c, name, nodes, 4, &n) == want, "%s: not %d", name, want);
}

static void done(struct xpud_cdi_devices *c, char *root) {
        ck_assert_ptr_null(xpud_cdi_devices_free(c));
        xpu_test_rm_rf(root);
        free(root);
}

/* ---- what the producers write ---------------------------------------------------------------- */

START_TEST(nvidia_ctk) {
        char *root = new_root();
        make_nodes(root, "nvidia-rtx2080ti-x8");
        put_fixture(root, "/etc/cdi", "nvidia-ctk-rtx2080ti-x8.yaml", "nvidia.yaml");
        struct xpud_cdi_devices *c = load_quiet(root);
        ck_assert_uint_eq(xpud_cdi_devices_n_files(c), 1);
        /* Path-only nodes: the numbers of the nodes under the dev root; the spec's control nodes with
         * every device; nvidia-modeset is not on that host: left out. */
        expect_nodes(c, "nvidia.com/gpu=0", "195:0,195:255,239:0,239:1");
        expect_nodes(c, "nvidia.com/gpu=7", "195:7,195:255,239:0,239:1");
        expect_nodes(c, "nvidia.com/gpu=GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe", "195:1,195:255,239:0,239:1");
        expect_nodes(c, "nvidia.com/gpu=all", "195:0,195:1,195:7,195:255,239:0,239:1");
        expect_lookup(c, "nvidia.com/gpu=3", -ENOENT); /* trimmed from the fixture */
        done(c, root);
}
END_TEST

START_TEST(nvidia_dra) {
        char *root = new_root();
        make_nodes(root, "nvidia-rtx2080ti-x8");
        put_fixture(root, "/var/run/cdi", "nvidia-dra-device-base.yaml", "k8s.gpu.nvidia.com-device_base.yaml");
        put_fixture(root, "/var/run/cdi", "nvidia-dra-claim.yaml",
                    "k8s.gpu.nvidia.com-claim_5b1c7a2e-9d4f-4f1a-8c3e-2a7b6d9e0f11.yaml");
        struct xpud_cdi_devices *c = load_quiet(root);
        ck_assert_uint_eq(xpud_cdi_devices_n_files(c), 2);
        expect_nodes(c, "k8s.gpu.nvidia.com/device=gpu-1", "195:1,195:255,239:0,239:1");
        /* The claim's own device carries its config edits only: known, no node. */
        expect_nodes(c, "k8s.gpu.nvidia.com/claim=5b1c7a2e-9d4f-4f1a-8c3e-2a7b6d9e0f11-gpu-1", "");
        expect_lookup(c, "k8s.gpu.nvidia.com/claim=5b1c7a2e-9d4f-4f1a-8c3e-2a7b6d9e0f11-gpu-0", -ENOENT);
        done(c, root);
}
END_TEST

START_TEST(amd) {
        char *root = new_root(); /* no nodes at all: every AMD node has its numbers */
        put_fixture(root, "/etc/cdi", "amd-ctk-mi210x8.json", "amd.json");
        put_fixture(root, "/var/run/cdi", "amd-dra-claim.yaml", "k8s.gpu.amd.com-gpu_0e4a1c37.yaml");
        put_fixture(root, "/var/run/cdi", "amd-dra-common.yaml", "k8s.gpu.amd.com-gpu_common.yaml");
        struct xpud_cdi_devices *c = load_quiet(root);
        ck_assert_uint_eq(xpud_cdi_devices_n_files(c), 3);
        expect_nodes(c, "amd.com/gpu=3", "226:4,226:131,510:0");
        expect_nodes(c, "k8s.gpu.amd.com/gpu=0e4a1c37-5d2b-4c8e-9f60-7a1b2c3d4e5f-gpu-2-129", "510:0,226:2,226:129");
        expect_nodes(c, "k8s.gpu.amd.com/gpu=common", "");
        /* The whole set fits; a smaller MAX gets the first. */
        dev_t one[1];
        size_t n = 0;
        ck_assert_int_eq(xpud_cdi_devices_lookup(c, "amd.com/gpu=all", one, 1, &n), 0);
        ck_assert_uint_eq(n, 1);
        ck_assert_uint_eq(one[0], makedev(226, 1));
        done(c, root);
}
END_TEST

START_TEST(intel) {
        char *root = new_root();
        make_nodes(root, "intel-arc-b580-xe");
        put_fixture(root, "/var/run/cdi", "intel-dra-gpu.yaml", "intel.com-gpu.yaml");
        struct xpud_cdi_devices *c = load_quiet(root);
        expect_nodes(c, "intel.com/gpu=0000-03-00-0-0xe20b", "226:0,226:128");
        ck_assert_ptr_null(xpud_cdi_devices_free(c));
        /* Typed "c" without numbers and no node there: the device is known, with nothing to map. */
        char p[4096];
        snprintf(p, sizeof p, "%s/dev/dri/renderD128", root);
        ck_assert_int_eq(unlink(p), 0);
        c = load_quiet(root);
        expect_nodes(c, "intel.com/gpu=0000-03-00-0-0xe20b", "226:0");
        done(c, root);
}
END_TEST

START_TEST(xpuinit_own) {
        char *root = new_root();
        put_fixture(root, "/var/run/cdi", "xpuinit-amd-mi210x8.json", "xpuinit.json");
        struct xpud_cdi_devices *c = load_quiet(root);
        expect_nodes(c, "xpuinit.dev/gpu=0000:63:00.0", "510:0,226:128");
        expect_nodes(c, "xpuinit.dev/gpu=GPU-18a7fcf9b717fab7", "510:0,226:135");
        expect_nodes(c, "xpuinit.dev/gpu=7", "510:0,226:135");
        ck_assert_ptr_null(xpud_cdi_devices_free(c));
        xpu_test_rm_rf(root);
        free(root);

        root = new_root();
        put_fixture(root, "/etc/cdi", "xpuinit-intel-arc-b580-xe.yaml", "xpuinit.yaml");
        c = load_quiet(root);
        expect_nodes(c, "xpuinit.dev/gpu=0000:03:00.0", "226:128,226:0");
        done(c, root);
}
END_TEST

/* ---- precedence -------------------------------------------------------------------------------- */

#define SPEC_HEAD "cdiVersion: 0.5.0\nkind: example.com/gpu\n"

START_TEST(later_dir_wins) {
        char *root = new_root();
        xpu_test_write(root, "etc/cdi/a.yaml",
                       SPEC_HEAD "containerEdits:\n  deviceNodes:\n  - {path: /dev/ctl, type: c, major: 1, minor: 9}\n"
                                 "devices:\n- name: \"0\"\n  containerEdits:\n    deviceNodes:\n"
                                 "    - {path: /dev/g0, type: c, major: 1, minor: 1}\n"
                                 "- name: \"1\"\n  containerEdits:\n    deviceNodes:\n"
                                 "    - {path: /dev/g1, type: c, major: 1, minor: 2}\n");
        xpu_test_write(root, "var/run/cdi/b.json",
                       "{\"cdiVersion\":\"0.5.0\",\"kind\":\"example.com/gpu\",\"devices\":[{\"name\":\"0\","
                       "\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/g0\",\"type\":\"c\",\"major\":2,"
                       "\"minor\":2}]}}]}");
        struct xpud_cdi_devices *c = load_quiet(root);
        ck_assert_uint_eq(xpud_cdi_devices_n_files(c), 2);
        /* /var/run/cdi's device, with its own spec's (no) common nodes, not /etc/cdi's. */
        expect_nodes(c, "example.com/gpu=0", "2:2");
        expect_nodes(c, "example.com/gpu=1", "1:2,1:9");
        done(c, root);
}
END_TEST

START_TEST(same_dir_conflict) {
        char *root = new_root();
        const char *a = SPEC_HEAD "devices:\n- name: x\n  containerEdits:\n    deviceNodes:\n"
                                  "    - {path: /dev/x, type: c, major: 3, minor: 1}\n"
                                  "- name: y\n  containerEdits:\n    deviceNodes:\n"
                                  "    - {path: /dev/y, type: c, major: 3, minor: 2}\n";
        const char *b = SPEC_HEAD "devices:\n- name: x\n  containerEdits:\n    deviceNodes:\n"
                                  "    - {path: /dev/x, type: c, major: 4, minor: 1}\n";
        xpu_test_write(root, "var/run/cdi/a.yaml", a);
        xpu_test_write(root, "var/run/cdi/b.yaml", b);
        char *log;
        struct xpud_cdi_devices *c = load_log(root, &log);
        /* The engines use neither; xpud neither. The files' other devices still count. */
        expect_lookup(c, "example.com/gpu=x", -ENOENT);
        expect_nodes(c, "example.com/gpu=y", "3:2");
        ck_assert_msg(strstr(log, "example.com/gpu=x is in both") && strstr(log, "/var/run/cdi/a.yaml") &&
                              strstr(log, "/var/run/cdi/b.yaml"),
                      "log: %s", log);
        free(log);
        ck_assert_ptr_null(xpud_cdi_devices_free(c));
        /* A higher directory's device settles it. */
        xpu_test_write(root, "etc/cdi/c.yaml", b);
        c = load_log(root, &log);
        expect_lookup(c, "example.com/gpu=x", -ENOENT);
        free(log);
        done(c, root);
}
END_TEST

/* ---- device nodes ------------------------------------------------------------------------------ */

START_TEST(nodes_from_dev_root) {
        char *root = new_root();
        char p[4096];
        xpu_test_write(root, "dev/dri/.keep", "");
        snprintf(p, sizeof p, "%s/dev/dri/card5", root);
        ck_assert_int_eq(mknod(p, S_IFCHR | 0600, makedev(226, 5)), 0);
        snprintf(p, sizeof p, "%s/dev/host-only", root);
        ck_assert_int_eq(mknod(p, S_IFCHR | 0600, makedev(240, 7)), 0);
        snprintf(p, sizeof p, "%s/dev/blk", root);
        ck_assert_int_eq(mknod(p, S_IFBLK | 0600, makedev(8, 0)), 0);
        /* An absolute link resolves inside the dev root, never on this host. */
        xpu_test_symlink(root, "dev/dri/by-path/pci-card", "/dev/dri/card5");
        xpu_test_symlink(root, "dev/escape", "../../../../../../../../dev/null");
        xpu_test_write(root, "etc/cdi/n.yaml",
                       SPEC_HEAD "devices:\n"
                                 "- name: path-only\n  containerEdits:\n    deviceNodes:\n    - path: /dev/dri/card5\n"
                                 "- name: host-path\n  containerEdits:\n    deviceNodes:\n"
                                 "    - {path: /dev/in-container, hostPath: /dev/host-only}\n"
                                 "- name: typed-no-numbers\n  containerEdits:\n    deviceNodes:\n"
                                 "    - {path: /dev/dri/card5, type: c}\n"
                                 "- name: by-link\n  containerEdits:\n    deviceNodes:\n"
                                 "    - path: /dev/dri/by-path/pci-card\n"
                                 "- name: missing\n  containerEdits:\n    deviceNodes:\n    - path: /dev/nothing\n"
                                 "- name: block\n  containerEdits:\n    deviceNodes:\n    - path: /dev/blk\n"
                                 "- name: typed-block\n  containerEdits:\n    deviceNodes:\n"
                                 "    - {path: /dev/sda, type: b, major: 8, minor: 0}\n"
                                 "- name: fifo\n  containerEdits:\n    deviceNodes:\n    - {path: /dev/f, type: p}\n"
                                 "- name: escape\n  containerEdits:\n    deviceNodes:\n    - path: /dev/escape\n"
                                 "- name: major-only\n  containerEdits:\n    deviceNodes:\n"
                                 "    - {path: /dev/nvidia0, major: 195}\n"
                                 "- name: block-numbers\n  containerEdits:\n    deviceNodes:\n"
                                 "    - {path: /dev/blk, major: 8}\n"
                                 "- name: char-numbers\n  containerEdits:\n    deviceNodes:\n"
                                 "    - {path: /dev/dri/card5, major: 226, minor: 6}\n"
                                 "- name: dup\n  containerEdits:\n    deviceNodes:\n"
                                 "    - {path: /dev/a, type: c, major: 9, minor: 9}\n"
                                 "    - {path: /dev/b, type: c, major: 9, minor: 9}\n");
        struct xpud_cdi_devices *c = load_quiet(root);
        expect_nodes(c, "example.com/gpu=path-only", "226:5");
        expect_nodes(c, "example.com/gpu=host-path", "240:7");
        expect_nodes(c, "example.com/gpu=typed-no-numbers", "226:5");
        expect_nodes(c, "example.com/gpu=by-link", "226:5");
        expect_nodes(c, "example.com/gpu=missing", "");
        expect_nodes(c, "example.com/gpu=block", "");
        expect_nodes(c, "example.com/gpu=typed-block", "");
        expect_nodes(c, "example.com/gpu=fifo", "");
        expect_nodes(c, "example.com/gpu=escape", "");
        /* CDI's numbers omit a minor of 0 (Go's omitempty): a major alone is 195:0. */
        expect_nodes(c, "example.com/gpu=major-only", "195:0");
        /* Untyped with numbers: the node, when there, must be a character device; the spec's
         * numbers count. */
        expect_nodes(c, "example.com/gpu=block-numbers", "");
        expect_nodes(c, "example.com/gpu=char-numbers", "226:6");
        expect_nodes(c, "example.com/gpu=dup", "9:9");
        done(c, root);
}
END_TEST

START_TEST(too_many_nodes) {
        char *root = new_root();
        char *spec = malloc(1 << 16);
        int n = snprintf(spec, 1 << 16, SPEC_HEAD "devices:\n- name: big\n  containerEdits:\n    deviceNodes:\n");
        for (int i = 0; i < 70; i++)
                n += snprintf(spec + n, (size_t)(1 << 16) - (size_t)n, "    - {path: /dev/n%d, type: c, major: 7, minor: %d}\n",
                              i, i);
        xpu_test_write(root, "etc/cdi/big.yaml", spec);
        free(spec);
        char *log;
        struct xpud_cdi_devices *c = load_log(root, &log);
        dev_t nodes[XPUD_CDI_DEVICE_NODES_MAX];
        size_t k = 0;
        ck_assert_int_eq(xpud_cdi_devices_lookup(c, "example.com/gpu=big", nodes, XPUD_CDI_DEVICE_NODES_MAX, &k), 0);
        ck_assert_uint_eq(k, XPUD_CDI_DEVICE_NODES_MAX);
        ck_assert_uint_eq(nodes[63], makedev(7, 63));
        ck_assert_msg(strstr(log, "/etc/cdi/big.yaml: 6 device nodes past the 64"), "log: %s", log);
        free(log);
        done(c, root);
}
END_TEST

/* ---- names --------------------------------------------------------------------------------------- */

START_TEST(names) {
        char *root = new_root();
        put_fixture(root, "/etc/cdi", "amd-ctk-mi210x8.json", "amd.json");
        struct xpud_cdi_devices *c = load_quiet(root);
        static const char *const bad[] = {
                "",           "amd.com/gpu",  "amd.com/gpu=",  "=0",          "amd.com=0",  "/gpu=0",
                "amd.com/=0", "amd.com/gpu=-0", "amd.com/gpu=0-", "amd.com/gpu=a b", "-amd.com/gpu=0",
                "amd.com/gpu-=0", "amd.com/g/pu=0", "amd.com/gpu=0=1", "1amd.com/gpu=0",
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
                expect_lookup(c, bad[i], -EINVAL);
        expect_lookup(c, NULL, -EINVAL);
        expect_lookup(c, "amd.com/gpu=8", -ENOENT);
        expect_lookup(c, "amd.com/gpux=0", -ENOENT);
        expect_lookup(c, "nvidia.com/gpu=0", -ENOENT);
        expect_lookup(c, "amd.com/gpu=0", 0);
        done(c, root);
}
END_TEST

START_TEST(load_arguments) {
        struct xpud_cdi_devices *c = NULL;
        char err[256] = "";
        const char *rel[] = { "/etc/cdi", "var/run/cdi" };
        ck_assert_int_eq(xpud_cdi_devices_load(rel, 2, NULL, NULL, &c, err, sizeof err), -EINVAL);
        ck_assert_ptr_null(c);
        ck_assert_msg(strstr(err, "\"var/run/cdi\" is not an absolute path"), "err: %s", err);
        /* Directories that are not there: no spec, no warning. */
        char *root = xpu_test_mkdtemp();
        c = load_quiet(root);
        ck_assert_uint_eq(xpud_cdi_devices_n_files(c), 0);
        expect_lookup(c, "amd.com/gpu=0", -ENOENT);
        ck_assert_ptr_null(xpud_cdi_devices_free(c));
        ck_assert_ptr_null(xpud_cdi_devices_free(NULL));
        ck_assert_uint_eq(xpud_cdi_devices_n_files(NULL), 0);
        /* Without a root: the paths as they are. */
        xpu_test_write(root, "specs/x.yaml", SPEC_HEAD "devices:\n- name: a\n  containerEdits:\n    deviceNodes:\n"
                                             "    - {path: /dev/a, type: c, major: 5, minor: 5}\n");
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/specs/", root);
        const char *one[] = { dir };
        ck_assert_int_eq(xpud_cdi_devices_load(one, 1, NULL, NULL, &c, err, sizeof err), 0);
        expect_nodes(c, "example.com/gpu=a", "5:5");
        done(c, root);
}
END_TEST

/* ---- hostile and broken specs -------------------------------------------------------------- */

/* Each spec wrong in one way, and what the warning about it says. */
static const struct {
        const char *file, *text, *says;
} broken[] = {
        { "bad-json.json", "{\"cdiVersion\": \"0.5.0\", \"kind\": \"a.com/b\", \"devices\": [", "did not find expected node" },
        { "bad-yaml.yaml", "cdiVersion: \"0.5.0\nkind: a.com/b\n", "line" },
        { "tab.yaml", "cdiVersion: 0.5.0\nkind: a.com/b\ndevices:\n\t- name: x\n", "line 4" },
        { "no-version.yaml", "kind: a.com/b\ndevices: [{name: x}]\n", "cdiVersion is missing" },
        { "version-number.yaml", "cdiVersion: 0.5\nkind: a.com/b\ndevices: [{name: x}]\n", "cdiVersion is \"0.5\"" },
        { "no-kind.yaml", "cdiVersion: 0.5.0\ndevices: [{name: x}]\n", "kind is missing" },
        { "bad-kind.yaml", "cdiVersion: 0.5.0\nkind: -a.com/b\ndevices: [{name: x}]\n", "kind \"-a.com/b\"" },
        { "kind-no-class.yaml", "cdiVersion: 0.5.0\nkind: a.com\ndevices: [{name: x}]\n", "kind \"a.com\"" },
        { "kind-list.yaml", "cdiVersion: 0.5.0\nkind: [a.com/b]\ndevices: [{name: x}]\n", "kind is not a string" },
        { "no-devices.yaml", "cdiVersion: 0.5.0\nkind: a.com/b\n", "devices is missing" },
        { "empty-devices.json", "{\"cdiVersion\":\"0.5.0\",\"kind\":\"a.com/b\",\"devices\":[]}", "devices is empty" },
        { "devices-string.yaml", "cdiVersion: 0.5.0\nkind: a.com/b\ndevices: x\n", "not a sequence" },
        { "device-scalar.yaml", "cdiVersion: 0.5.0\nkind: a.com/b\ndevices: [x]\n", "devices[0] is not a mapping" },
        { "bad-name.yaml", "cdiVersion: 0.5.0\nkind: a.com/b\ndevices: [{name: -bad}]\n", "devices[0].name \"-bad\"" },
        { "no-name.yaml", "cdiVersion: 0.5.0\nkind: a.com/b\ndevices: [{containerEdits: {}}]\n", "is missing" },
        { "name-list.yaml", "cdiVersion: 0.5.0\nkind: a.com/b\ndevices: [{name: [1]}]\n", "name is not a string" },
        { "twice.yaml", "cdiVersion: 0.5.0\nkind: a.com/b\ndevices: [{name: x}, {name: y}, {name: x}]\n",
          "\"x\" is named twice" },
        { "edits-list.yaml", "cdiVersion: 0.5.0\nkind: a.com/b\ndevices: [{name: x, containerEdits: [1]}]\n",
          "containerEdits is not a mapping" },
        { "nodes-map.yaml",
          "cdiVersion: 0.5.0\nkind: a.com/b\ndevices: [{name: x, containerEdits: {deviceNodes: {path: /dev/x}}}]\n",
          "deviceNodes is not a sequence" },
        { "node-no-path.yaml",
          "cdiVersion: 0.5.0\nkind: a.com/b\ndevices: [{name: x, containerEdits: {deviceNodes: [{type: c}]}}]\n",
          "deviceNodes[0].path is missing" },
        { "major-string.json",
          "{\"cdiVersion\":\"0.5.0\",\"kind\":\"a.com/b\",\"devices\":[{\"name\":\"x\",\"containerEdits\":"
          "{\"deviceNodes\":[{\"path\":\"/dev/x\",\"major\":\"195\"}]}}]}",
          "major is not an integer" },
        { "major-negative.yaml",
          "cdiVersion: 0.5.0\nkind: a.com/b\ndevices: [{name: x, containerEdits: {deviceNodes: [{path: /x, major: -1}]}}]\n",
          "major is not an integer from 0 to 4095" },
        { "major-big.yaml",
          "cdiVersion: 0.5.0\nkind: a.com/b\ndevices: [{name: x, containerEdits: {deviceNodes: [{path: /x, major: 4096}]}}]\n",
          "major is not an integer" },
        { "minor-frac.yaml",
          "cdiVersion: 0.5.0\nkind: a.com/b\ndevices: [{name: x, containerEdits: {deviceNodes: [{path: /x, major: 1, minor: 1.5}]}}]\n",
          "minor is not an integer" },
        { "bad-type.yaml",
          "cdiVersion: 0.5.0\nkind: a.com/b\ndevices: [{name: x, containerEdits: {deviceNodes: [{path: /x, type: char}]}}]\n",
          "type is \"char\"" },
        { "spec-nodes.yaml",
          "cdiVersion: 0.5.0\nkind: a.com/b\ncontainerEdits: {deviceNodes: [{hostPath: /x}]}\ndevices: [{name: x}]\n",
          "containerEdits.deviceNodes[0].path is missing" },
        { "scalar.yaml", "just text\n", "not a mapping" },
        { "empty.yaml", "", "no YAML document" },
        { "two-docs.yaml", "cdiVersion: 0.5.0\nkind: a.com/b\ndevices: [{name: x}]\n---\nkind: c.com/d\n",
          "a second YAML document" },
        { "alias.yaml", "cdiVersion: 0.5.0\nkind: &k a.com/b\ndevices: [{name: *k}]\n", "an alias" },
        { "merge.yaml", "cdiVersion: 0.5.0\nkind: a.com/b\ndevices: [{<<: {name: x}}]\n", "a merge key" },
        { "complex-key.yaml", "cdiVersion: 0.5.0\nkind: a.com/b\n? [a]\n: b\ndevices: [{name: x}]\n",
          "used as a key" },
        { "twice-key.yaml", "cdiVersion: 0.5.0\nkind: a.com/b\ndevices: [{name: x}]\nkind: c.com/d\n",
          "the key \"kind\" twice" },
        { "nul.yaml", "cdiVersion: \"0.5\\0.0\"\nkind: a.com/b\ndevices: [{name: x}]\n", "a NUL character" },
};

START_TEST(broken_specs) {
        char *root = new_root();
        for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
                char rel[256];
                snprintf(rel, sizeof rel, "var/run/cdi/%s", broken[i].file);
                xpu_test_write(root, rel, broken[i].text);
        }
        xpu_test_write(root, "var/run/cdi/good.yaml", SPEC_HEAD "devices:\n- name: \"0\"\n  containerEdits:\n"
                                                      "    deviceNodes:\n    - {path: /dev/g, type: c, major: 6, minor: 6}\n");
        char *log;
        struct xpud_cdi_devices *c = load_log(root, &log);
        ck_assert_uint_eq(xpud_cdi_devices_n_files(c), 1);
        expect_nodes(c, "example.com/gpu=0", "6:6");
        for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
                char path[512];
                snprintf(path, sizeof path, "%s/var/run/cdi/%s left out: ", root, broken[i].file);
                const char *line = strstr(log, path);
                ck_assert_msg(line, "no warning for %s in: %s", broken[i].file, log);
                const char *eol = strchr(line, '\n');
                ck_assert_msg(eol && memmem(line, (size_t)(eol - line), broken[i].says, strlen(broken[i].says)),
                              "%s: the warning does not say \"%s\": %.*s", broken[i].file, broken[i].says,
                              eol ? (int)(eol - line) : 200, line);
        }
        /* One line per file, nothing else. */
        size_t lines = 0;
        for (const char *p = log; *p; p++)
                lines += *p == '\n';
        ck_assert_uint_eq(lines, sizeof broken / sizeof broken[0]);
        free(log);
        done(c, root);
}
END_TEST

/* Work budgets: each hostile file is refused quickly, whatever it asks for. */
START_TEST(hostile_specs) {
        char *root = new_root();
        /* Billion laughs: nine levels of ten aliases each. */
        char bomb[4096];
        int n = snprintf(bomb, sizeof bomb, "cdiVersion: 0.5.0\nkind: a.com/b\na0: &a0 [lol]\n");
        for (int i = 1; i < 10; i++)
                n += snprintf(bomb + n, sizeof bomb - (size_t)n,
                              "a%d: &a%d [*a%d,*a%d,*a%d,*a%d,*a%d,*a%d,*a%d,*a%d,*a%d,*a%d]\n", i, i, i - 1, i - 1,
                              i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
        snprintf(bomb + n, sizeof bomb - (size_t)n, "devices: [{name: x}]\n");
        xpu_test_write(root, "var/run/cdi/bomb.yaml", bomb);
        /* Nesting past the depth bound, in flow and block style. */
        char *deep = calloc(1, 1 << 20);
        n = snprintf(deep, 1 << 20, "cdiVersion: 0.5.0\nkind: a.com/b\ndevices: ");
        for (int i = 0; i < 100000; i++)
                deep[n++] = '[';
        xpu_test_write(root, "var/run/cdi/deep.json", deep);
        n = snprintf(deep, 1 << 20, "cdiVersion: 0.5.0\nkind: a.com/b\nx:\n");
        for (int i = 1; i < 40; i++)
                n += snprintf(deep + n, (size_t)(1 << 20) - (size_t)n, "%*sk:\n", i, "");
        xpu_test_write(root, "var/run/cdi/deep-block.yaml", deep);
        /* Values past the count bound: a flat sequence of 40000 numbers (200 KiB). */
        n = snprintf(deep, 1 << 20, "{\"cdiVersion\":\"0.5.0\",\"kind\":\"a.com/b\",\"x\":[0");
        for (int i = 0; i < 40000; i++)
                n += snprintf(deep + n, (size_t)(1 << 20) - (size_t)n, ",1");
        snprintf(deep + n, (size_t)(1 << 20) - (size_t)n, "]}");
        xpu_test_write(root, "var/run/cdi/wide.json", deep);
        free(deep);
        /* A file past the size bound (sparse: its size alone refuses it). */
        char p[4096];
        snprintf(p, sizeof p, "%s/var/run/cdi/huge.yaml", root);
        int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(ftruncate(fd, XPUD_CDI_SPEC_FILE_MAX + 1), 0);
        close(fd);
        /* A FIFO named like a spec is never opened for real (that would block); a directory so
         * named is skipped as the engines skip it. */
        snprintf(p, sizeof p, "%s/var/run/cdi/fifo.yaml", root);
        ck_assert_int_eq(mkfifo(p, 0644), 0);
        snprintf(p, sizeof p, "%s/var/run/cdi/dir.json", root);
        ck_assert_int_eq(mkdir(p, 0755), 0);
        /* Symlinks: one inside the root is read; one that climbs out of it or names an absolute path
         * resolves inside the root (there is nothing there), never to the host's file. */
        const char *good = SPEC_HEAD "devices:\n- name: linked\n  containerEdits:\n    deviceNodes:\n"
                                     "    - {path: /dev/l, type: c, major: 8, minor: 8}\n";
        xpu_test_write(root, "srv/linked.yaml", good);
        xpu_test_symlink(root, "var/run/cdi/in-root.yaml", "/srv/linked.yaml");
        char *outside = xpu_test_mkdtemp();
        xpu_test_write(outside, "out.yaml", SPEC_HEAD "devices:\n- name: out\n  containerEdits:\n    deviceNodes:\n"
                                                    "    - {path: /dev/o, type: c, major: 9, minor: 9}\n");
        char target[4096];
        snprintf(target, sizeof target, "%s/out.yaml", outside);
        xpu_test_symlink(root, "var/run/cdi/absolute.yaml", target);
        snprintf(target, sizeof target, "../../../../../../../../../..%s/out.yaml", outside);
        xpu_test_symlink(root, "var/run/cdi/climb.yaml", target);
        /* Dot files (a producer's half-written temporary) and other suffixes are not specs. */
        xpu_test_write(root, "var/run/cdi/.tmp.json", "{");
        xpu_test_write(root, "var/run/cdi/notes.txt", "{");
        xpu_test_write(root, "var/run/cdi/x.yml", "{");

        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        char *log;
        struct xpud_cdi_devices *c = load_log(root, &log);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        /* No budget (make bench measures those): only a guard against work without a bound. */
        ck_assert_msg(s < 20.0, "load took %.2f s", s);
        ck_assert_uint_eq(xpud_cdi_devices_n_files(c), 1);
        expect_nodes(c, "example.com/gpu=linked", "8:8");
        expect_lookup(c, "example.com/gpu=out", -ENOENT);
        static const char *const says[] = {
                "bomb.yaml left out: line 4, column 10: an alias",
                "deep.json left out: line 3, column 25: more than 16 nested",
                "deep-block.yaml left out: line 19",
                "wide.json left out: line 1, column ",
                "more than 32768 values",
                "huge.yaml is larger than 1048576 bytes",
                "fifo.yaml is not a regular file",
                "absolute.yaml cannot be read: No such file or directory",
                "climb.yaml cannot be read: No such file or directory",
        };
        for (size_t i = 0; i < sizeof says / sizeof says[0]; i++)
                ck_assert_msg(strstr(log, says[i]), "no \"%s\" in: %s", says[i], log);
        ck_assert_msg(!strstr(log, "dir.json") && !strstr(log, ".tmp.json") && !strstr(log, "notes.txt") &&
                              !strstr(log, "x.yml"),
                      "log: %s", log);
        free(log);
        xpu_test_rm_rf(outside);
        free(outside);
        done(c, root);
}
END_TEST

START_TEST(too_many_files) {
        char *root = new_root();
        for (unsigned i = 0; i < XPUD_CDI_SPEC_FILES_MAX + 6; i++) {
                char rel[64], text[256];
                snprintf(rel, sizeof rel, "%s/s%04u.json", i % 2 ? "etc/cdi" : "var/run/cdi", i);
                snprintf(text, sizeof text,
                         "{\"cdiVersion\":\"0.5.0\",\"kind\":\"example.com/gpu\",\"devices\":[{\"name\":\"d%u\","
                         "\"containerEdits\":{\"deviceNodes\":[{\"path\":\"/dev/x\",\"type\":\"c\",\"major\":1,"
                         "\"minor\":%u}]}}]}",
                         i, i);
                xpu_test_write(root, rel, text);
        }
        char *log;
        struct xpud_cdi_devices *c = load_log(root, &log);
        ck_assert_uint_eq(xpud_cdi_devices_n_files(c), XPUD_CDI_SPEC_FILES_MAX);
        /* /etc/cdi is read first: all of its files count. */
        expect_nodes(c, "example.com/gpu=d1", "1:1");
        ck_assert_msg(strstr(log, "/var/run/cdi: more than 1024 spec files in all"), "log: %s", log);
        free(log);
        done(c, root);
}
END_TEST

START_TEST(yaml_scalars) {
        char *root = new_root();
        /* A plain 0 is a name (as the engines read it into a string field); quoted and tagged
         * strings; a JSON-in-YAML flow mapping; comments, anchors without aliases. */
        xpu_test_write(root, "etc/cdi/s.yaml",
                       "# a comment\ncdiVersion: '0.5.0'\nkind: !!str example.com/gpu\ndevices:\n"
                       "- name: 0\n  containerEdits: {\"deviceNodes\": [{\"path\": \"/dev/a\", \"type\": \"c\", "
                       "\"major\": 10, \"minor\": 0x1}]}\n"
                       "- &anchor\n  name: \"01\"\n  containerEdits:\n    deviceNodes:\n"
                       "    - path: /dev/b\n      type: u\n      major: +11\n      minor: 2e0\n"
                       "- name: n\n  containerEdits: ~\n"
                       "- name: m\n  containerEdits:\n    deviceNodes: null\n");
        char *log;
        struct xpud_cdi_devices *c = load_log(root, &log);
        /* 0x1 is no decimal number: a string, so the file is refused as the engines refuse it. */
        ck_assert_msg(strstr(log, "devices[0].containerEdits.deviceNodes[0].minor is not an integer"), "log: %s", log);
        free(log);
        ck_assert_ptr_null(xpud_cdi_devices_free(c));
        xpu_test_write(root, "etc/cdi/s.yaml",
                       "# a comment\ncdiVersion: '0.5.0'\nkind: !!str example.com/gpu\ndevices:\n"
                       "- name: 0\n  containerEdits: {\"deviceNodes\": [{\"path\": \"/dev/a\", \"type\": \"c\", "
                       "\"major\": 10, \"minor\": 1}]}\n"
                       "- &anchor\n  name: \"01\"\n  containerEdits:\n    deviceNodes:\n"
                       "    - path: /dev/b\n      type: u\n      major: +11\n      minor: 2e0\n"
                       "- name: n\n  containerEdits: ~\n"
                       "- name: m\n  containerEdits:\n    deviceNodes: null\n");
        c = load_quiet(root);
        expect_nodes(c, "example.com/gpu=0", "10:1");
        expect_nodes(c, "example.com/gpu=01", "11:2");
        expect_nodes(c, "example.com/gpu=n", "");
        expect_nodes(c, "example.com/gpu=m", "");
        done(c, root);
}
END_TEST

static Suite *cdi_devices_suite(void) {
        Suite *s = suite_create("xpud-cdi-devices");
        TCase *tc = tcase_create("producers");
        tcase_add_test(tc, nvidia_ctk);
        tcase_add_test(tc, nvidia_dra);
        tcase_add_test(tc, amd);
        tcase_add_test(tc, intel);
        tcase_add_test(tc, xpuinit_own);
        suite_add_tcase(s, tc);
        tc = tcase_create("rules");
        tcase_add_test(tc, later_dir_wins);
        tcase_add_test(tc, same_dir_conflict);
        tcase_add_test(tc, nodes_from_dev_root);
        tcase_add_test(tc, too_many_nodes);
        tcase_add_test(tc, names);
        tcase_add_test(tc, load_arguments);
        tcase_add_test(tc, yaml_scalars);
        suite_add_tcase(s, tc);
        tc = tcase_create("hostile");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, broken_specs);
        tcase_add_test(tc, hostile_specs);
        tcase_add_test(tc, too_many_files);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(cdi_devices_suite());
}
