/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/profile.c: the strict profile parser, built-ins, the profile directory, matching. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile.h"
#include "require.h"
#include "select.h"
#include "testlib.h"

#define assert_contains(hay, needle)                                                               \
        ck_assert_msg(strstr((hay), (needle)) != NULL, "\"%s\" does not contain \"%s\"", (hay),    \
                      (needle))

static struct xpu_profile *parse_ok(const char *json) {
        struct xpu_profile *p = NULL;
        char err[512] = "";
        int r = xpu_profile_parse(json, "test.json", &p, err, sizeof err);
        ck_assert_msg(r == 0, "parse failed: %s", err);
        ck_assert_ptr_nonnull(p);
        return p;
}

static const char *const full_profile =
        "{\n"
        "  \"name\": \"custom-cuda\", \"description\": \"d\", \"priority\": 250,\n"
        "  \"match\": { \"vendor\": \"NVIDIA\", \"min_devices\": 2, \"require\": \"cuda>=12.2\" },\n"
        "  \"capabilities\": [\"compute\", \"video\"],\n"
        "  \"libraries\": { \"compute\": [\"libcuda.so\", \"libnvidia-*.so\"], \"display\": [] },\n"
        "  \"binaries\": { \"utility\": [\"nvidia-smi\"] },\n"
        "  \"device_nodes\": [\"/dev/nvidiactl\", \"/dev/nvidia-uvm\"],\n"
        "  \"env\": { \"unset\": [\"LD_PRELOAD\"],\n"
        "             \"set\": { \"A\": \"1\", \"CUDA_VISIBLE_DEVICES\": \"${XPU_VISIBLE_IDS}\" },\n"
        "             \"prepend\": { \"PATH\": \"${XPU_LIBRARY_DIR}/../bin\" },\n"
        "             \"append\": { \"LD_LIBRARY_PATH\": \"/opt/x $HOME\" } },\n"
        "  \"command\": { \"prefix\": [\"/usr/bin/env\", \"\", \"X=1\"] },\n"
        "  \"keep_capabilities\": [\"CAP_NET_BIND_SERVICE\"],\n"
        "  \"seccomp\": \"/etc/xpuinit/seccomp.json\"\n"
        "}\n";

START_TEST(test_parse_full) {
        struct xpu_profile *p = parse_ok(full_profile);
        ck_assert_str_eq(p->name, "custom-cuda");
        ck_assert_str_eq(p->description, "d");
        ck_assert_str_eq(p->origin, "test.json");
        ck_assert(!p->builtin);
        ck_assert_int_eq(p->priority, 250);
        ck_assert(!p->match_any);
        ck_assert_int_eq(p->vendor, XPU_VENDOR_NVIDIA);
        ck_assert_uint_eq(p->min_devices, 2);
        ck_assert_str_eq(xpu_require_to_string(p->require), "cuda>=12.2");
        ck_assert_uint_eq(p->n_capabilities, 2);
        ck_assert_str_eq(p->capabilities[1], "video");
        ck_assert_uint_eq(p->n_libraries, 2);
        ck_assert_str_eq(p->libraries[0].capability, "compute");
        ck_assert_uint_eq(p->libraries[0].n_names, 2);
        ck_assert_str_eq(p->libraries[0].names[1], "libnvidia-*.so");
        ck_assert_str_eq(p->libraries[1].capability, "display");
        ck_assert_uint_eq(p->libraries[1].n_names, 0);
        ck_assert_uint_eq(p->n_binaries, 1);
        ck_assert_str_eq(p->binaries[0].names[0], "nvidia-smi");
        ck_assert_uint_eq(p->n_device_nodes, 2);
        ck_assert_str_eq(p->device_nodes[1], "/dev/nvidia-uvm");
        /* env: sections in file order, entries in file order. */
        ck_assert_uint_eq(p->n_env, 5);
        ck_assert_int_eq(p->env[0].op, XPU_ENV_UNSET);
        ck_assert_str_eq(p->env[0].name, "LD_PRELOAD");
        ck_assert_ptr_null(p->env[0].value);
        ck_assert_int_eq(p->env[1].op, XPU_ENV_SET);
        ck_assert_str_eq(p->env[1].name, "A");
        ck_assert_str_eq(p->env[1].value, "1");
        ck_assert_str_eq(p->env[2].value, "${XPU_VISIBLE_IDS}");
        ck_assert_int_eq(p->env[3].op, XPU_ENV_PREPEND);
        ck_assert_str_eq(p->env[3].name, "PATH");
        ck_assert_int_eq(p->env[4].op, XPU_ENV_APPEND);
        ck_assert_str_eq(p->env[4].value, "/opt/x $HOME");
        ck_assert_int_eq(p->command_mode, XPU_COMMAND_PREFIX);
        ck_assert_uint_eq(p->n_command, 3);
        ck_assert_str_eq(p->command[0], "/usr/bin/env");
        ck_assert_str_eq(p->command[1], "");
        ck_assert_ptr_null(p->command[3]);
        ck_assert_uint_eq(p->n_keep_capabilities, 1);
        ck_assert_str_eq(p->keep_capabilities[0], "CAP_NET_BIND_SERVICE");
        ck_assert_str_eq(p->seccomp, "/etc/xpuinit/seccomp.json");
        xpu_profile_free(p);
}
END_TEST

START_TEST(test_parse_minimal_defaults) {
        struct xpu_profile *p = parse_ok("{\"name\": \"m\"}");
        ck_assert_str_eq(p->name, "m");
        ck_assert_ptr_null(p->description);
        ck_assert_int_eq(p->priority, 0);
        ck_assert(p->match_any);
        ck_assert_uint_eq(p->min_devices, 1);
        ck_assert_ptr_null(p->require);
        ck_assert_uint_eq(p->n_capabilities, 0);
        ck_assert_uint_eq(p->n_env, 0);
        ck_assert_int_eq(p->command_mode, XPU_COMMAND_KEEP);
        ck_assert_ptr_null(p->command);
        ck_assert_ptr_null(p->seccomp);
        xpu_profile_free(p);

        p = parse_ok("{\"name\": \"r\", \"match\": {\"vendor\": \"amd\"}, "
                     "\"command\": {\"replace\": [\"/opt/rocm/bin/app\"]}}");
        ck_assert(!p->match_any);
        ck_assert_int_eq(p->vendor, XPU_VENDOR_AMD);
        ck_assert_uint_eq(p->min_devices, 1);
        ck_assert_int_eq(p->command_mode, XPU_COMMAND_REPLACE);
        ck_assert_uint_eq(p->n_command, 1);
        ck_assert_ptr_null(p->command[1]);
        xpu_profile_free(p);
}
END_TEST

/* Each bad document and the pieces its one-line message must hold. */
static const struct {
        const char *json;
        const char *want[3];
} bad_profiles[] = {
        { "{\"name\": \"x\",\n  \"priority\": }", { "test.json: invalid JSON at line 2, column" } },
        { "[1]", { "test.json: expected a JSON object at the top level, got an array" } },
        { "{}", { "test.json: key \"name\" is missing; expected a profile name" } },
        { "{\"name\": \"\"}", { "key \"name\": expected a profile name", "got \"\"" } },
        { "{\"name\": \"a/b\"}", { "key \"name\": expected a profile name", "got \"a/b\"" } },
        { "{\"name\": \".hidden\"}", { "key \"name\"", "got \".hidden\"" } },
        { "{\"name\": 7}", { "key \"name\"", "got a number (7)" } },
        { "{\"name\": \"x\", \"nmae\": 1}",
          { "test.json: unknown key \"nmae\"; expected one of name, description, priority" } },
        { "{\"name\": \"x\", \"match\": {\"vendr\": \"amd\"}}",
          { "unknown key \"match.vendr\"; expected one of vendor, min_devices, require" } },
        { "{\"name\": \"x\", \"name\": \"y\"}", { "test.json: key \"name\" appears twice" } },
        { "{\"name\": \"x\", \"match\": {\"vendor\": \"matrox\"}}",
          { "key \"match.vendor\": expected one of \"nvidia\", \"amd\", \"intel\", got \"matrox\"" } },
        { "{\"name\": \"x\", \"match\": {\"vendor\": 1}}",
          { "key \"match.vendor\"", "got a number (1)" } },
        { "{\"name\": \"x\", \"match\": []}", { "key \"match\": expected an object, got an array" } },
        { "{\"name\": \"x\", \"match\": {\"vendor\": \"amd\", \"min_devices\": -1}}",
          { "key \"match.min_devices\": expected an integer from 1 to 1024, got a number (-1)" } },
        { "{\"name\": \"x\", \"match\": {\"vendor\": \"amd\", \"min_devices\": 1e12}}",
          { "key \"match.min_devices\": expected an integer from 1 to 1024", "got a number (1e+12)" } },
        { "{\"name\": \"x\", \"match\": {\"vendor\": \"amd\", \"min_devices\": 1.5}}",
          { "key \"match.min_devices\": expected an integer", "got a number (1.5)" } },
        { "{\"name\": \"x\", \"match\": {\"min_devices\": 2}}",
          { "key \"match.min_devices\": needs \"match.vendor\"" } },
        { "{\"name\": \"x\", \"match\": {\"vendor\": \"amd\", \"require\": \"\"}}",
          { "key \"match.require\": expected a non-empty requirement expression string" } },
        { "{\"name\": \"x\", \"priority\": \"high\"}",
          { "key \"priority\": expected an integer from 0 to 10000, got \"high\"" } },
        { "{\"name\": \"x\", \"priority\": -5}", { "key \"priority\"", "got a number (-5)" } },
        { "{\"name\": \"x\", \"priority\": 99999999999}", { "key \"priority\"", "got a number" } },
        { "{\"name\": \"x\", \"capabilities\": \"compute\"}",
          { "key \"capabilities\": expected an array of strings, got \"compute\"" } },
        { "{\"name\": \"x\", \"capabilities\": [\"compute\", 3]}",
          { "key \"capabilities[1]\": expected a string, got a number (3)" } },
        { "{\"name\": \"x\", \"capabilities\": [\"Compute\"]}",
          { "key \"capabilities[0]\": expected a capability name", "got \"Compute\"" } },
        { "{\"name\": \"x\", \"libraries\": {\"compute\": \"libcuda.so\"}}",
          { "key \"libraries.compute\": expected an array of strings" } },
        { "{\"name\": \"x\", \"libraries\": {\"compute\": [\"../lib/libcuda.so\"]}}",
          { "key \"libraries.compute[0]\": expected a file name or glob without '/'",
            "got \"../lib/libcuda.so\"" } },
        { "{\"name\": \"x\", \"libraries\": {\"Bad Cap\": []}}",
          { "key \"libraries.Bad Cap\": expected a capability name" } },
        { "{\"name\": \"x\", \"binaries\": [\"nvidia-smi\"]}",
          { "key \"binaries\": expected an object mapping capabilities" } },
        { "{\"name\": \"x\", \"libraries\": {\"compute\": [], \"compute\": []}}",
          { "key \"libraries.compute\" appears twice" } },
        { "{\"name\": \"x\", \"device_nodes\": [\"/etc/passwd\"]}",
          { "key \"device_nodes[0]\": expected an absolute path under /dev/", "got \"/etc/passwd\"" } },
        { "{\"name\": \"x\", \"device_nodes\": [\"/dev/../etc/shadow\"]}",
          { "key \"device_nodes[0]\"", "got \"/dev/../etc/shadow\"" } },
        { "{\"name\": \"x\", \"env\": {\"set\": {\"PATH\": 1}}}",
          { "test.json: key \"env.set.PATH\": expected a string, got a number (1)" } },
        { "{\"name\": \"x\", \"env\": {\"set\": {\"1BAD\": \"v\"}}}",
          { "key \"env.set.1BAD\": expected a variable name ([A-Za-z_][A-Za-z0-9_]*" } },
        { "{\"name\": \"x\", \"env\": {\"prepend\": {\"A-B\": \"v\"}}}",
          { "key \"env.prepend.A-B\": expected a variable name" } },
        { "{\"name\": \"x\", \"env\": {\"set\": {\"A\": \"${HOME}/x\"}}}",
          { "key \"env.set.A\": unknown placeholder \"${HOME}\"; expected one of "
            "${XPU_VISIBLE_IDS}, ${XPU_VISIBLE_INDICES}, ${XPU_DRIVER_VERSION}, ${XPU_LIBRARY_DIR}" } },
        { "{\"name\": \"x\", \"env\": {\"append\": {\"A\": \"x${XPU_VISIBLE_IDS\"}}}",
          { "test.json: key \"env.append.A\": unterminated placeholder \"${XPU_VISIBLE_IDS\" "
            "(missing })" } },
        /* The name runs into the next placeholder: the first one is the unterminated one. */
        { "{\"name\": \"x\", \"env\": {\"set\": {\"A\": \"${XPU_VISIBLE_IDS:${XPU_LIBRARY_DIR}\"}}}",
          { "key \"env.set.A\": unterminated placeholder \"${XPU_VISIBLE_IDS:\" (missing })" } },
        { "{\"name\": \"x\", \"env\": {\"set\": {\"A\": \"a${\"}}}",
          { "key \"env.set.A\": unterminated placeholder \"${\" (missing })" } },
        { "{\"name\": \"x\", \"env\": {\"unset\": [\"OK\", \"NO=1\"]}}",
          { "key \"env.unset[1]\": expected a variable name", "got \"NO=1\"" } },
        { "{\"name\": \"x\", \"env\": {\"unset\": \"A\"}}",
          { "key \"env.unset\": expected an array of variable names" } },
        { "{\"name\": \"x\", \"env\": {\"replace\": {}}}",
          { "unknown key \"env.replace\"; expected one of set, prepend, append, unset" } },
        { "{\"name\": \"x\", \"env\": {\"set\": {\"A\": \"1\", \"A\": \"2\"}}}",
          { "key \"env.set.A\" appears twice" } },
        { "{\"name\": \"x\", \"command\": {\"replace\": [\"a\"], \"prefix\": [\"b\"]}}",
          { "key \"command\": expected exactly one of \"replace\", \"prefix\"" } },
        { "{\"name\": \"x\", \"command\": {\"replace\": []}}",
          { "key \"command.replace\": expected a non-empty array of strings" } },
        { "{\"name\": \"x\", \"command\": {\"prefix\": [\"a\", 2]}}",
          { "key \"command.prefix[1]\": expected a string, got a number (2)" } },
        { "{\"name\": \"x\", \"command\": {\"run\": [\"a\"]}}",
          { "unknown key \"command.run\"; expected one of replace, prefix" } },
        { "{\"name\": \"x\", \"keep_capabilities\": [\"NET_ADMIN\"]}",
          { "key \"keep_capabilities[0]\": expected a Linux capability name", "got \"NET_ADMIN\"" } },
        /* Well-formed but not a capability Linux has. */
        { "{\"name\": \"x\", \"keep_capabilities\": [\"CAP_CHOWN\", \"CAP_BOGUS\"]}",
          { "test.json: key \"keep_capabilities[1]\": expected a Linux capability name "
            "(CAP_CHOWN to CAP_CHECKPOINT_RESTORE in linux/capability.h, any case), got "
            "\"CAP_BOGUS\"" } },
        { "{\"name\": \"x\", \"keep_capabilities\": [\"cap_sys_admins\"]}",
          { "key \"keep_capabilities[0]\"", "got \"cap_sys_admins\"" } },
        { "{\"name\": \"x\", \"keep_capabilities\": [\"CAP_\"]}",
          { "key \"keep_capabilities[0]\"", "got \"CAP_\"" } },
        { "{\"name\": \"x\", \"seccomp\": \"relaxed\"}",
          { "key \"seccomp\": expected \"default\", \"strict\" or an absolute file path, got "
            "\"relaxed\"" } },
        { "{\"name\": \"x\", \"description\": false}",
          { "key \"description\": expected a string, got false" } },
        { "{\"name\": \"x\", \"files\": {\"utility\": [\"/lib/firmware/../../etc/shadow\"]}}",
          { "key \"files.utility[0]\": expected an absolute path", "no \".\", \"..\" or empty components",
            "got \"/lib/firmware/../../etc/shadow\"" } },
        { "{\"name\": \"x\", \"files\": {\"utility\": [\"/lib/*/gsp.bin\"]}}",
          { "key \"files.utility[0]\"", "last component only may be a glob", "got \"/lib/*/gsp.bin\"" } },
        { "{\"name\": \"x\", \"files\": {\"utility\": [\"/lib/${VERSION}/gsp.bin\"]}}",
          { "key \"files.utility[0]\"", "\"${DRIVER_VERSION}\" as its only placeholder" } },
        { "{\"name\": \"x\", \"files\": {\"Utility!\": [\"/a\"]}}", { "key \"files.Utility!\"" } },
        { "{\"name\": \"x\", \"library_links\": {\"libGLX_*.so.0\": \"libGLX_nvidia.so\"}}",
          { "key \"library_links.libGLX_*.so.0\": expected a file name without '/', spaces or glob characters" } },
        { "{\"name\": \"x\", \"library_links\": {\"libGLX_indirect.so.0\": \"../libc.so\"}}",
          { "key \"library_links.libGLX_indirect.so.0\": expected a file name or glob without '/'" } },
        { "{\"name\": \"x\", \"library_links\": {\"libA.so.0\": \"libnvidia-*.so\"}}",
          { "key \"library_links.libA.so.0\": expected a library base name without glob characters" } },
        { "{\"name\": \"x\", \"library_links\": [\"a\"]}",
          { "key \"library_links\": expected an object mapping link names to library base names" } },
        { "{\"name\": \"x\", \"files\": [\"/a\"]}",
          { "key \"files\": expected an object mapping capabilities to arrays of names" } },
};

START_TEST(test_parse_errors) {
        const char *json = bad_profiles[_i].json;
        struct xpu_profile *p = NULL;
        char err[512] = "";
        ck_assert_int_eq(xpu_profile_parse(json, "test.json", &p, err, sizeof err), -EINVAL);
        ck_assert_ptr_null(p);
        ck_assert_msg(strncmp(err, "test.json: ", 11) == 0, "no origin in \"%s\"", err);
        ck_assert_msg(strchr(err, '\n') == NULL, "not one line: \"%s\"", err);
        for (size_t k = 0; k < 3 && bad_profiles[_i].want[k]; k++)
                assert_contains(err, bad_profiles[_i].want[k]);
}
END_TEST

START_TEST(test_env_expand) {
        const char *values[_XPU_PLACEHOLDER_MAX] = {
                [XPU_PLACEHOLDER_VISIBLE_IDS] = "GPU-a,GPU-b",
                [XPU_PLACEHOLDER_LIBRARY_DIR] = "/run/xpuinit/lib",
        };
        char *out = NULL;
        ck_assert_int_eq(xpu_env_expand("${XPU_VISIBLE_IDS}", values, &out), 0);
        ck_assert_str_eq(out, "GPU-a,GPU-b");
        free(out);
        ck_assert_int_eq(xpu_env_expand("$HOME:${XPU_LIBRARY_DIR}/../bin:${XPU_DRIVER_VERSION}$", values, &out),
                         0);
        ck_assert_str_eq(out, "$HOME:/run/xpuinit/lib/../bin:$");
        free(out);
        out = NULL;
        ck_assert_int_eq(xpu_env_expand("${NOPE}", values, &out), -EINVAL);
        ck_assert_int_eq(xpu_env_expand("${XPU_LIBRARY_DIR", values, &out), -EINVAL);
        ck_assert_ptr_null(out);
        ck_assert_str_eq(xpu_placeholder_to_string(XPU_PLACEHOLDER_VISIBLE_INDICES), "XPU_VISIBLE_INDICES");
        ck_assert_ptr_null(xpu_placeholder_to_string(_XPU_PLACEHOLDER_MAX));
}
END_TEST

static struct xpu_profile_set *load_ok(const char *dir) {
        struct xpu_profile_set *s = NULL;
        char err[1024] = "";
        int r = xpu_profile_set_load(dir, &s, err, sizeof err);
        ck_assert_msg(r == 0, "load failed: %s", err);
        return s;
}

static int load_err(const char *dir, char *err, size_t size) {
        struct xpu_profile_set *s = NULL;
        int r = xpu_profile_set_load(dir, &s, err, size);
        ck_assert_ptr_null(s);
        return r;
}

START_TEST(test_builtins) {
        struct xpu_profile_set *s = load_ok(NULL);
        ck_assert_uint_eq(s->n, 4);
        /* Priority 100 three times: ties by name; cpu last. */
        ck_assert_str_eq(s->profiles[0]->name, "amd-rocm");
        ck_assert_str_eq(s->profiles[1]->name, "intel-oneapi");
        ck_assert_str_eq(s->profiles[2]->name, "nvidia-cuda");
        ck_assert_str_eq(s->profiles[3]->name, "cpu");

        const struct xpu_profile *n = xpu_profile_set_find(s, "nvidia-cuda");
        ck_assert_ptr_eq(n, s->profiles[2]);
        ck_assert_str_eq(n->origin, "built-in nvidia-cuda.json");
        ck_assert(n->builtin);
        ck_assert_int_eq(n->priority, 100);
        ck_assert(!n->match_any);
        ck_assert_int_eq(n->vendor, XPU_VENDOR_NVIDIA);
        ck_assert_uint_eq(n->min_devices, 1);
        ck_assert_ptr_null(n->require);
        ck_assert_uint_eq(n->n_capabilities, 2);
        ck_assert_str_eq(n->capabilities[0], "utility");
        ck_assert_str_eq(n->capabilities[1], "compute");
        ck_assert_uint_eq(n->n_libraries, 6);
        ck_assert_str_eq(n->libraries[0].capability, "utility");
        ck_assert_str_eq(n->libraries[0].names[0], "libnvidia-ml.so");
        ck_assert_str_eq(n->libraries[1].capability, "compute");
        ck_assert_str_eq(n->libraries[1].names[0], "libcuda.so");
        ck_assert_uint_eq(n->libraries[1].n_names, 12);
        ck_assert_uint_eq(n->n_binaries, 2);
        ck_assert_str_eq(n->binaries[0].names[0], "nvidia-smi");
        ck_assert_str_eq(n->binaries[1].names[1], "nvidia-cuda-mps-server");
        ck_assert_uint_eq(n->n_device_nodes, 4);
        ck_assert_str_eq(n->device_nodes[0], "/dev/nvidiactl");
        ck_assert_str_eq(n->device_nodes[3], "/dev/nvidia-modeset");
        ck_assert_uint_eq(n->n_env, 3);
        ck_assert_str_eq(n->env[0].name, "CUDA_DEVICE_ORDER");
        ck_assert_str_eq(n->env[0].value, "PCI_BUS_ID");
        ck_assert_str_eq(n->env[1].name, "CUDA_VISIBLE_DEVICES");
        ck_assert_str_eq(n->env[1].value, "${XPU_VISIBLE_IDS}");
        ck_assert_str_eq(n->env[2].name, "NVIDIA_VISIBLE_DEVICES");
        ck_assert_str_eq(n->env[2].value, "void");
        ck_assert_int_eq(n->command_mode, XPU_COMMAND_KEEP);
        ck_assert_str_eq(n->seccomp, "default");

        const struct xpu_profile *a = xpu_profile_set_find(s, "amd-rocm");
        ck_assert_int_eq(a->vendor, XPU_VENDOR_AMD);
        ck_assert_int_eq(a->priority, 100);
        ck_assert_uint_eq(a->n_libraries, 0);
        ck_assert_uint_eq(a->n_device_nodes, 1);
        ck_assert_str_eq(a->device_nodes[0], "/dev/kfd");
        ck_assert_uint_eq(a->n_env, 1);
        ck_assert_int_eq(a->env[0].op, XPU_ENV_SET);
        ck_assert_str_eq(a->env[0].name, "ROCR_VISIBLE_DEVICES");
        ck_assert_str_eq(a->env[0].value, "${XPU_VISIBLE_IDS}");

        const struct xpu_profile *i = xpu_profile_set_find(s, "intel-oneapi");
        ck_assert_int_eq(i->vendor, XPU_VENDOR_INTEL);
        ck_assert_int_eq(i->priority, 100);
        ck_assert_uint_eq(i->n_libraries, 0);
        ck_assert_uint_eq(i->n_device_nodes, 0);
        ck_assert_uint_eq(i->n_env, 1);
        ck_assert_str_eq(i->env[0].name, "ZE_ENABLE_PCI_ID_DEVICE_ORDER");
        ck_assert_str_eq(i->env[0].value, "1");

        const struct xpu_profile *c = xpu_profile_set_find(s, "cpu");
        ck_assert(c->match_any);
        ck_assert_int_eq(c->priority, 0);
        ck_assert_uint_eq(c->n_env, 0);
        ck_assert_uint_eq(c->n_device_nodes, 0);
        ck_assert_ptr_null(xpu_profile_set_find(s, "intel"));
        ck_assert_ptr_null(xpu_profile_set_find(s, "oneapi"));
        xpu_profile_set_free(s);
}
END_TEST

START_TEST(test_missing_dir_is_fine) {
        struct xpu_profile_set *s = load_ok("/nonexistent/xpuinit/profiles.d");
        ck_assert_uint_eq(s->n, 4);
        xpu_profile_set_free(s);
}
END_TEST

START_TEST(test_dir_override_and_add) {
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "10-nvidia.json", "{\"name\": \"nvidia-cuda\", \"priority\": 5, "
                                            "\"match\": {\"vendor\": \"nvidia\"}}");
        xpu_test_write(t, "zeta.json", "{\"name\": \"zeta\", \"priority\": 100}");
        xpu_test_write(t, "cpu.json", "{\"name\": \"cpu\", \"priority\": 9000}");
        xpu_test_write(t, "README", "not a profile");
        xpu_test_write(t, ".hidden.json", "{broken");
        xpu_test_write(t, "old.json.bak", "{broken");
        struct xpu_profile_set *s = load_ok(t);
        ck_assert_uint_eq(s->n, 5);
        ck_assert_str_eq(s->profiles[0]->name, "amd-rocm");
        ck_assert_str_eq(s->profiles[1]->name, "intel-oneapi");
        ck_assert_str_eq(s->profiles[2]->name, "zeta");
        ck_assert_str_eq(s->profiles[3]->name, "nvidia-cuda");
        ck_assert_str_eq(s->profiles[4]->name, "cpu"); /* last despite priority 9000 */
        const struct xpu_profile *n = s->profiles[3];
        ck_assert(!n->builtin);
        ck_assert_int_eq(n->priority, 5);
        ck_assert_uint_eq(n->n_libraries, 0);
        char want[4096];
        snprintf(want, sizeof want, "%s/10-nvidia.json", t);
        ck_assert_str_eq(n->origin, want);
        ck_assert_int_eq(s->profiles[4]->priority, 9000);
        ck_assert(!s->profiles[4]->builtin);
        xpu_profile_set_free(s);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

START_TEST(test_dir_duplicate_names) {
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "a.json", "{\"name\": \"mine\"}");
        xpu_test_write(t, "b.json", "{\"name\": \"mine\"}");
        char err[1024] = "";
        ck_assert_int_eq(load_err(t, err, sizeof err), -EINVAL);
        char want[4096];
        snprintf(want, sizeof want, "%s/b.json: profile name \"mine\" is already used by %s/a.json", t,
                 t);
        ck_assert_str_eq(err, want);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

START_TEST(test_dir_bad_file) {
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "a.json", "{\"name\": \"ok\"}");
        xpu_test_write(t, "b.json", "{\"name\": \"bad\", \"env\": {\"set\": {\"PATH\": [1]}}}");
        char err[1024] = "";
        ck_assert_int_eq(load_err(t, err, sizeof err), -EINVAL);
        char want[4096];
        snprintf(want, sizeof want, "%s/b.json: key \"env.set.PATH\": expected a string, got an array",
                 t);
        ck_assert_str_eq(err, want);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* An empty (or white-space only) file is not "invalid JSON at line 1, column 1". */
START_TEST(test_empty_file) {
        static const char *const empties[] = { "", " ", "\n", " \t\r\n\n  " };
        for (size_t i = 0; i < ELEMENTSOF(empties); i++) {
                struct xpu_profile *p = NULL;
                char err[512] = "";
                ck_assert_int_eq(xpu_profile_parse(empties[i], "test.json", &p, err, sizeof err), -EINVAL);
                ck_assert_ptr_null(p);
                ck_assert_str_eq(err, "test.json: empty file: a profile is a JSON object");
        }
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "empty.json", "");
        char err[1024] = "";
        ck_assert_int_eq(load_err(t, err, sizeof err), -EINVAL);
        char want[4096];
        snprintf(want, sizeof want, "%s/empty.json: empty file: a profile is a JSON object", t);
        ck_assert_str_eq(err, want);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

START_TEST(test_dir_not_regular_and_big) {
        char *t = xpu_test_mkdtemp();
        char path[4096], err[1024] = "";
        /* A directory with a .json name. */
        snprintf(path, sizeof path, "%s/d.json", t);
        ck_assert_int_eq(mkdir(path, 0755), 0);
        ck_assert_int_eq(load_err(t, err, sizeof err), -EINVAL);
        snprintf(path, sizeof path, "%s/d.json: not a regular file", t);
        ck_assert_str_eq(err, path);
        snprintf(path, sizeof path, "%s/d.json", t);
        ck_assert_int_eq(rmdir(path), 0);

        /* A FIFO must not block the loader. */
        snprintf(path, sizeof path, "%s/f.json", t);
        ck_assert_int_eq(mkfifo(path, 0644), 0);
        ck_assert_int_eq(load_err(t, err, sizeof err), -EINVAL);
        assert_contains(err, "/f.json: not a regular file");
        ck_assert_int_eq(unlink(path), 0);

        /* Over 1 MiB. */
        size_t big = XPU_PROFILE_FILE_MAX + 10;
        char *text = malloc(big + 1);
        ck_assert_ptr_nonnull(text);
        memset(text, ' ', big);
        text[0] = '{';
        memcpy(text + big - 14, "\"name\": \"x\"}\n", 14);
        text[big] = '\0';
        xpu_test_write(t, "big.json", text);
        free(text);
        ck_assert_int_eq(load_err(t, err, sizeof err), -EFBIG);
        assert_contains(err, "/big.json: larger than 1 MiB");
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

START_TEST(test_dir_is_a_file) {
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "file", "x");
        char path[4096], err[1024] = "";
        snprintf(path, sizeof path, "%s/file", t);
        ck_assert_int_eq(load_err(path, err, sizeof err), -ENOTDIR);
        assert_contains(err, "/file: cannot open the profile directory: Not a directory");
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* Two NVIDIA GPUs and one AMD GPU. */
static struct xpu_inventory *mixed_inventory(void) {
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        static const enum xpu_vendor vendors[] = { XPU_VENDOR_NVIDIA, XPU_VENDOR_NVIDIA, XPU_VENDOR_AMD };
        for (unsigned i = 0; i < ELEMENTSOF(vendors); i++) {
                struct xpu_device d = { .index = i, .vendor = vendors[i], .vendor_index = i < 2 ? i : 0 };
                ck_assert_ptr_nonnull(xpu_inventory_add_device(inv, &d));
        }
        return inv;
}

START_TEST(test_matches_why) {
        struct xpu_profile_set *s = load_ok(NULL);
        struct xpu_inventory *inv = mixed_inventory();
        const struct xpu_profile *n = xpu_profile_set_find(s, "nvidia-cuda");
        const struct xpu_profile *a = xpu_profile_set_find(s, "amd-rocm");
        const struct xpu_profile *c = xpu_profile_set_find(s, "cpu");
        char why[256];
        bool sel[3] = { true, true, false };
        ck_assert(xpu_profile_matches(n, inv, sel, why, sizeof why));
        ck_assert_str_eq(why, "matches: 2 nvidia devices selected (needs >= 1)");
        ck_assert(!xpu_profile_matches(a, inv, sel, why, sizeof why));
        /* Found but not selected: the reason says whether the container was given them. */
        ck_assert_str_eq(why, "no: 0 amd devices selected (needs >= 1); 1 found, 0 with their device nodes in this container");
        ck_assert(xpu_profile_matches(c, inv, sel, why, sizeof why));
        ck_assert_str_eq(why, "matches any host (no match.vendor)");
        sel[2] = true;
        ck_assert(xpu_profile_matches(a, inv, sel, why, sizeof why));
        ck_assert_str_eq(why, "matches: 1 amd device selected (needs >= 1)");
        /* NULL selection = nothing selected. */
        ck_assert(!xpu_profile_matches(n, inv, NULL, why, sizeof why));
        ck_assert_str_eq(why, "no: 0 nvidia devices selected (needs >= 1); 2 found, 0 with their device nodes in this container");
        xpu_inventory_free(inv);
        xpu_profile_set_free(s);
}
END_TEST

START_TEST(test_select_builtins) {
        struct xpu_profile_set *s = load_ok(NULL);
        struct xpu_inventory *inv = mixed_inventory();
        bool none[3] = { false, false, false }, nv[3] = { false, true, false },
             amd[3] = { false, false, true }, both[3] = { true, false, true };
        ck_assert_str_eq(xpu_profile_select(s, inv, none)->name, "cpu");
        ck_assert_str_eq(xpu_profile_select(s, inv, nv)->name, "nvidia-cuda");
        ck_assert_str_eq(xpu_profile_select(s, inv, amd)->name, "amd-rocm");
        /* Equal priority: the name decides. */
        ck_assert_str_eq(xpu_profile_select(s, inv, both)->name, "amd-rocm");
        struct xpu_inventory *empty = xpu_inventory_new();
        ck_assert_str_eq(xpu_profile_select(s, empty, NULL)->name, "cpu");
        xpu_inventory_free(empty);
        xpu_inventory_free(inv);
        xpu_profile_set_free(s);
}
END_TEST

START_TEST(test_select_custom) {
        char *t = xpu_test_mkdtemp();
        /* Two GPUs needed; above the built-ins. */
        xpu_test_write(t, "pair.json", "{\"name\": \"nv-pair\", \"priority\": 200, "
                                       "\"match\": {\"vendor\": \"nvidia\", \"min_devices\": 2}}");
        /* Same priority: b-any loses to a-any by name; both beat cpu only by being tried first. */
        xpu_test_write(t, "b.json", "{\"name\": \"b-any\", \"priority\": 50}");
        xpu_test_write(t, "a.json", "{\"name\": \"a-any\", \"priority\": 50}");
        struct xpu_profile_set *s = load_ok(t);
        struct xpu_inventory *inv = mixed_inventory();
        bool one[3] = { true, false, false }, two[3] = { true, true, false },
             none[3] = { false, false, false };
        ck_assert_str_eq(xpu_profile_select(s, inv, two)->name, "nv-pair");
        ck_assert_str_eq(xpu_profile_select(s, inv, one)->name, "nvidia-cuda");
        ck_assert_str_eq(xpu_profile_select(s, inv, none)->name, "a-any");
        xpu_inventory_free(inv);
        xpu_profile_set_free(s);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* Every capability of linux/capability.h (0 CAP_CHOWN .. 40 CAP_CHECKPOINT_RESTORE) is accepted,
 * in any case. */
START_TEST(test_keep_capabilities_all) {
        static const char *const caps[] = {
                "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
                "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
                "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW",
                "CAP_IPC_LOCK", "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT",
                "CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
                "CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE",
                "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE",
                "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ",
                "CAP_PERFMON", "CAP_BPF", "cap_checkpoint_restore",
        };
        ck_assert_uint_eq(ELEMENTSOF(caps), 41);
        char json[2048] = "{\"name\": \"caps\", \"keep_capabilities\": [";
        for (size_t i = 0; i < ELEMENTSOF(caps); i++) {
                size_t len = strlen(json);
                snprintf(json + len, sizeof json - len, "%s\"%s\"", i ? ", " : "", caps[i]);
        }
        size_t len = strlen(json);
        snprintf(json + len, sizeof json - len, "]}");
        struct xpu_profile *p = parse_ok(json);
        ck_assert_uint_eq(p->n_keep_capabilities, 41);
        ck_assert_str_eq(p->keep_capabilities[40], "cap_checkpoint_restore");
        xpu_profile_free(p);
}
END_TEST

/* match.require is evaluated against the host's facts with the profile's vendor: a profile whose
 * requirement fails is not chosen and the reason shows required versus found; one whose
 * requirement holds is chosen by priority as usual. */
START_TEST(test_require_evaluated) {
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "cuda99.json", "{\"name\": \"cuda99\", \"priority\": 500, "
                                         "\"match\": {\"vendor\": \"nvidia\", \"require\": \"cuda>=99\"}}");
        xpu_test_write(t, "drv465.json", "{\"name\": \"drv465\", \"priority\": 450, "
                                         "\"match\": {\"vendor\": \"nvidia\", \"require\": \"driver>=465\"}}");
        xpu_test_write(t, "anyreq.json", "{\"name\": \"anyreq\", \"priority\": 400, "
                                         "\"match\": {\"require\": \"rocm>=1\"}}");
        struct xpu_profile_set *s = load_ok(t);
        struct xpu_inventory *inv = mixed_inventory();
        snprintf(inv->vendors[XPU_VENDOR_NVIDIA].driver_version, sizeof inv->vendors[XPU_VENDOR_NVIDIA].driver_version,
                 "465.19.01");
        bool nv[3] = { true, true, false }, none[3] = { false, false, false };
        char why[512];
        const struct xpu_profile *p = xpu_profile_set_find(s, "cuda99");
        ck_assert_ptr_nonnull(p);
        /* The fast path has no CUDA driver version: a cuda factor is not met. */
        ck_assert(!xpu_profile_matches(p, inv, nv, why, sizeof why));
        ck_assert_str_eq(why, "no: requirement \"cuda>=99\" not met: cuda>=99 but host CUDA driver version unknown "
                              "(needs the rich probe); driver 465.19.01");
        /* The device count is checked first. */
        ck_assert(!xpu_profile_matches(p, inv, none, why, sizeof why));
        ck_assert_str_eq(why, "no: 0 nvidia devices selected (needs >= 1); 2 found, 0 with their device nodes in "
                              "this container");
        p = xpu_profile_set_find(s, "drv465");
        ck_assert(xpu_profile_matches(p, inv, nv, why, sizeof why));
        ck_assert_str_eq(why, "matches: 2 nvidia devices selected (needs >= 1); requirement \"driver>=465\" met");
        p = xpu_profile_set_find(s, "anyreq");
        ck_assert(!xpu_profile_matches(p, inv, none, why, sizeof why));
        ck_assert_str_eq(why, "no: requirement \"rocm>=1\" not met: rocm>=1 but host ROCm version unknown (no "
                              "backend reports it yet)");
        /* NULL WHY is fine. */
        ck_assert(!xpu_profile_matches(p, inv, none, NULL, 0));
        ck_assert_str_eq(xpu_profile_select(s, inv, nv)->name, "drv465");
        ck_assert_str_eq(xpu_profile_select(s, inv, none)->name, "cpu");
        /* A host whose facts meet cuda>=99 gets the higher-priority profile. */
        snprintf(inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version,
                 sizeof inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version, "99.1");
        ck_assert_str_eq(xpu_profile_select(s, inv, nv)->name, "cuda99");
        /* An older driver: drv465 is refused with the side-by-side reason. */
        snprintf(inv->vendors[XPU_VENDOR_NVIDIA].driver_version, sizeof inv->vendors[XPU_VENDOR_NVIDIA].driver_version,
                 "460.73.01");
        ck_assert(!xpu_profile_matches(xpu_profile_set_find(s, "drv465"), inv, nv, why, sizeof why));
        ck_assert_str_eq(why, "no: requirement \"driver>=465\" not met: driver>=465 but host has nvidia driver "
                              "460.73.01; update the driver or use CUDA forward compatibility");
        /* No built-in carries a requirement. */
        for (size_t i = 0; i < s->n; i++)
                if (s->profiles[i]->builtin)
                        ck_assert_ptr_null(s->profiles[i]->require);
        xpu_inventory_free(inv);
        xpu_profile_set_free(s);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* A bad match.require is an error of its file when the profile directory is loaded. */
START_TEST(test_require_bad_in_file) {
        static const struct {
                const char *require, *err;
        } cases[] = {
                { "cuda>=x", "requirement \"cuda>=x\": \"x\" is not a dotted number (e.g. 12.2)" },
                { "nvml>1", "requirement \"nvml>1\": unknown key \"nvml\"; expected one of vendor, driver, cuda, arch, "
                            "brand, rocm, gfx, memory" },
                { "cuda>=12,", "requirement \"cuda>=12,\": empty factor (a comma at either end, or two in a row)" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *t = xpu_test_mkdtemp();
                char json[256];
                snprintf(json, sizeof json, "{\"name\": \"r\", \"match\": {\"vendor\": \"nvidia\", \"require\": \"%s\"}}",
                         cases[i].require);
                xpu_test_write(t, "r.json", json);
                char err[1024] = "";
                ck_assert_int_eq(load_err(t, err, sizeof err), -EINVAL);
                char want[2048];
                snprintf(want, sizeof want, "%s/r.json: key \"match.require\": %s", t, cases[i].err);
                ck_assert_str_eq(err, want);
                /* The parser of one profile says the same (profile-cgen fails a built-in's build with it). */
                struct xpu_profile *p = NULL;
                ck_assert_int_eq(xpu_profile_parse(json, "x.json", &p, err, sizeof err), -EINVAL);
                ck_assert_ptr_null(p);
                snprintf(want, sizeof want, "x.json: key \"match.require\": %s", cases[i].err);
                ck_assert_str_eq(err, want);
                /* forward_compat.require too */
                snprintf(json, sizeof json, "{\"name\": \"r\", \"forward_compat\": {\"dir\": \"/c\", \"library\": "
                         "\"libcuda.so\", \"require\": \"%s\"}}", cases[i].require);
                ck_assert_int_eq(xpu_profile_parse(json, "x.json", &p, err, sizeof err), -EINVAL);
                snprintf(want, sizeof want, "x.json: key \"forward_compat.require\": %s", cases[i].err);
                ck_assert_str_eq(err, want);
                /* Another bad key is reported first, whatever the order of the keys. */
                snprintf(json, sizeof json, "{\"name\": \"r\", \"match\": {\"require\": \"%s\"}, \"seccomp\": 1}",
                         cases[i].require);
                ck_assert_int_eq(xpu_profile_parse(json, "x.json", &p, err, sizeof err), -EINVAL);
                ck_assert_msg(strncmp(err, "x.json: key \"seccomp\"", 21) == 0, "%s", err);
                xpu_test_rm_rf(t);
                free(t);
        }
}
END_TEST

/* docs/profiles.md: NVIDIA_VISIBLE_DEVICES=none selects no NVIDIA device, so nvidia-cuda does not
 * match and another profile is chosen (no NVIDIA driver files), unlike the NVIDIA Container
 * Toolkit's "driver files but no GPU". */
START_TEST(test_none_means_no_vendor_profile) {
        struct xpu_profile_set *s = load_ok(NULL);
        /* Two NVIDIA GPUs given to the container (their nodes present). */
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        for (unsigned i = 0; i < 2; i++) {
                struct xpu_device d = { .index = i, .vendor = XPU_VENDOR_NVIDIA, .vendor_index = i, .n_nodes = 1 };
                snprintf(d.nodes[0].path, sizeof d.nodes[0].path, "/dev/nvidia%u", i);
                d.nodes[0].present = true;
                ck_assert_ptr_nonnull(xpu_inventory_add_device(inv, &d));
        }
        struct xpu_selection *sel = NULL;
        char err[512] = "";
        /* Without the variable nvidia-cuda is chosen... */
        ck_assert_int_eq(xpu_selection_parse(inv, NULL, NULL, &sel, err, sizeof err), 0);
        ck_assert_str_eq(xpu_profile_select(s, inv, sel->selected)->name, "nvidia-cuda");
        xpu_selection_free(sel);
        /* ...with "none" it is not. */
        ck_assert_int_eq(xpu_selection_parse(inv, NULL, (const char *const[_XPU_VENDOR_MAX]){ [XPU_VENDOR_NVIDIA] = "none" }, &sel, err, sizeof err), 0);
        ck_assert_int_eq(sel->request[XPU_VENDOR_NVIDIA], XPU_REQUEST_NONE);
        char why[256];
        ck_assert(!xpu_profile_matches(xpu_profile_set_find(s, "nvidia-cuda"), inv, sel->selected, why,
                                       sizeof why));
        ck_assert_str_eq(why, "no: 0 nvidia devices selected (needs >= 1); 2 found, 2 with their device "
                              "nodes in this container");
        ck_assert_str_eq(xpu_profile_select(s, inv, sel->selected)->name, "cpu");
        xpu_selection_free(sel);
        xpu_inventory_free(inv);
        xpu_profile_set_free(s);
}
END_TEST

/* "\u0000" would cut a string short inside cJSON: refused; an escaped backslash before "u0000"
 * is literal text and fine. */
START_TEST(test_nul_escape_refused) {
        struct xpu_profile *p = NULL;
        char err[512] = "";
        ck_assert_int_eq(xpu_profile_parse("{\"name\": \"nvidia-cuda\\u0000x\"}", "x.json", &p, err, sizeof err),
                         -EINVAL);
        ck_assert_ptr_null(p);
        ck_assert_str_eq(err, "x.json: \\u0000 at line 1, column 22: profile strings may not contain NUL");
        ck_assert_int_eq(xpu_profile_parse("{\"name\": \"a\", \"description\": \"C:\\\\u0000\"}", "y.json", &p, err,
                                           sizeof err),
                         0);
        ck_assert_str_eq(p->description, "C:\\u0000");
        xpu_profile_free(p);
}
END_TEST

static Suite *profile_suite(void) {
        Suite *s = suite_create("profile");
        TCase *tc = tcase_create("profile");
        tcase_add_test(tc, test_parse_full);
        tcase_add_test(tc, test_nul_escape_refused);
        tcase_add_test(tc, test_parse_minimal_defaults);
        tcase_add_loop_test(tc, test_parse_errors, 0, (int)ELEMENTSOF(bad_profiles));
        tcase_add_test(tc, test_env_expand);
        tcase_add_test(tc, test_builtins);
        tcase_add_test(tc, test_missing_dir_is_fine);
        tcase_add_test(tc, test_dir_override_and_add);
        tcase_add_test(tc, test_dir_duplicate_names);
        tcase_add_test(tc, test_dir_bad_file);
        tcase_add_test(tc, test_empty_file);
        tcase_add_test(tc, test_dir_not_regular_and_big);
        tcase_add_test(tc, test_dir_is_a_file);
        tcase_add_test(tc, test_matches_why);
        tcase_add_test(tc, test_select_builtins);
        tcase_add_test(tc, test_select_custom);
        tcase_add_test(tc, test_require_evaluated);
        tcase_add_test(tc, test_require_bad_in_file);
        tcase_add_test(tc, test_keep_capabilities_all);
        tcase_add_test(tc, test_none_means_no_vendor_profile);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(profile_suite());
}
