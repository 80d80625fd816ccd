/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/privileges.c, the shared filter (the rest: test-privileges.c): supervised with the
 * "default" filter, the workload's and the supervisor's filter are one, loaded once by xpuinit
 * itself at the sequence's last step, after no_new_privs and the bounding set, and inherited by
 * the workload; neither loads another. Loads a seccomp filter into a forked child
 * (privileges-fx.h), which qemu-user cannot do (tests/qemu-excluded.txt). */
#include "privileges-fx.h"

START_TEST(test_shared_filter_loaded_once) {
        const uint64_t bnd = BIT(CAP_CHOWN) | BIT(CAP_KILL);
        struct seq_result res;
        seq_run(&(struct seq_case){ .filter = "default", .bounding = bnd }, &res);
        ck_assert_str_eq(field(&res, "rc"), "0");
        ck_assert_str_eq(field(&res, "shared"), "plan");
        ck_assert_str_eq(field(&res, "workload_seccomp"), "none"); /* inherited, not loaded again */
        ck_assert_str_eq(field(&res, "supervisor_seccomp"), "none");
        ck_assert_str_eq(field(&res, "self_filter"), "1");
        ck_assert_str_eq(field(&res, "NoNewPrivs"), "1");
        ck_assert_str_eq(field(&res, "Seccomp"), "2");
        ck_assert_uint_eq(field_hex(&res, "CapBnd"), bnd & have_bnd);
        ck_assert_str_eq(field(&res, "open"), "0 0");
        ck_assert(has_group(&res, DEVICE_GROUP));
        ck_assert_str_eq(res.log, "");
}
END_TEST

int main(void) {
        Suite *s = suite_create("privileges.seccomp");
        TCase *tc = tcase_create("shared");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_shared_filter_loaded_once);
        suite_add_tcase(s, tc);
        return xpu_test_run(s);
}
