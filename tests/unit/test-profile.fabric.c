/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/profile-parse.c, the "fabric" key (fabric device sets a profile gives; the sets are
 * probes/fabric.h's): parsed in order, an unknown set name and a value that is not an array of
 * strings refused with the file and key named, and the built-ins compiled by profile-cgen with
 * the key (none of them asks for a set). Kept apart from test-profile.c for its size. */
#include <errno.h>
#include <string.h>

#include "profile.h"
#include "testlib.h"

START_TEST(test_parsed) {
        struct xpu_profile *p = NULL;
        char err[512] = "";
        ck_assert_msg(xpu_profile_parse("{\"name\": \"nccl\", \"match\": {\"vendor\": \"nvidia\"}, "
                                        "\"fabric\": [\"rdma\", \"imex\", \"gdrcopy\", \"gds\", \"nvswitch\"]}",
                                        "nccl.json", &p, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(p->n_fabric, 5);
        ck_assert_str_eq(p->fabric[0], "rdma");
        ck_assert_str_eq(p->fabric[4], "nvswitch");
        xpu_profile_free(p);
        ck_assert_int_eq(xpu_profile_parse("{\"name\": \"none\", \"fabric\": []}", "n.json", &p, err, sizeof err), 0);
        ck_assert_uint_eq(p->n_fabric, 0);
        xpu_profile_free(p);
}
END_TEST

START_TEST(test_refused) {
        static const struct {
                const char *json, *want;
        } bad[] = {
                { "{\"name\": \"x\", \"fabric\": [\"mofed\"]}",
                  "x.json: key \"fabric[0]\": expected the name of a fabric device set: rdma, imex, gdrcopy, gds or "
                  "nvswitch" },
                { "{\"name\": \"x\", \"fabric\": [\"rdma\", \"RDMA\"]}", "key \"fabric[1]\"" },
                { "{\"name\": \"x\", \"fabric\": \"rdma\"}", "key \"fabric\"" },
                { "{\"name\": \"x\", \"fabric\": [1]}", "key \"fabric[0]\"" },
                { "{\"name\": \"x\", \"fabric\": {\"rdma\": true}}", "key \"fabric\"" },
        };
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
                struct xpu_profile *p = NULL;
                char err[512] = "";
                ck_assert_int_eq(xpu_profile_parse(bad[i].json, "x.json", &p, err, sizeof err), -EINVAL);
                ck_assert_ptr_null(p);
                ck_assert_msg(strstr(err, bad[i].want), "%s: \"%s\" lacks \"%s\"", bad[i].json, err, bad[i].want);
        }
}
END_TEST

START_TEST(test_builtins) {
        struct xpu_profile_set *set = NULL;
        char err[512] = "";
        ck_assert_msg(xpu_profile_set_load(NULL, &set, err, sizeof err) == 0, "%s", err);
        for (const char *const *name = (const char *const[]){ "nvidia-cuda", "amd-rocm", "cpu", NULL }; *name; name++) {
                const struct xpu_profile *p = xpu_profile_set_find(set, *name);
                ck_assert_ptr_nonnull(p);
                ck_assert_uint_eq(p->n_fabric, 0);
        }
        xpu_profile_set_free(set);
}
END_TEST

static Suite *profile_fabric_suite(void) {
        Suite *s = suite_create("profile.fabric");
        TCase *tc = tcase_create("fabric");
        tcase_add_test(tc, test_parsed);
        tcase_add_test(tc, test_refused);
        tcase_add_test(tc, test_builtins);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(profile_fabric_suite());
}
