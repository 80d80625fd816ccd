/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/privileges.c: the workload's privileges planned from a profile (xpu_plan_privilege),
 * and the privileged sequence of a start (xpu_start_privileges) in a forked child
 * (privileges-fx.h): its order (device groups, prepare, the stop check, xpuinit's descriptors,
 * the bounding set, no_new_privs and the shared filter), what it hands to the workload and the
 * supervisor, and each failure with its line. The shared filter, which loads a seccomp filter
 * into the process, is test-privileges.seccomp.c (qemu-user cannot load one); every case here
 * leaves the filter to the workload. */
#include "privileges-fx.h"

#include "entrypoint/profile.h"

/* --exec: xpuinit does nothing that the workload's own xpu_privilege_apply() does (bounding set,
 * no_new_privs, filter); it adds the device group and closes its descriptors, and hands the
 * plan's filter and sets to the workload. No supervisor: no filter of its own. */
START_TEST(test_exec_leaves_the_drops_to_the_workload) {
        const uint64_t bnd = BIT(CAP_CHOWN) | BIT(CAP_KILL) | BIT(CAP_NET_BIND_SERVICE);
        struct seq_result res;
        seq_run(&(struct seq_case){ .exec = true, .filter = "default", .bounding = bnd }, &res);
        ck_assert_str_eq(field(&res, "rc"), "0");
        ck_assert_str_eq(field(&res, "fds"), "-9 -9 -1"); /* closed and marked -EBADF; -1 left */
        ck_assert_str_eq(field(&res, "open"), "0 0");
        ck_assert_str_eq(field(&res, "dropin"), "1");      /* no stop: the apply stays */
        ck_assert_str_eq(field(&res, "filter_owned"), "1");
        ck_assert_str_eq(field(&res, "self_filter"), "0");
        ck_assert_str_eq(field(&res, "shared"), "none");
        ck_assert_str_eq(field(&res, "workload_seccomp"), "plan");
        ck_assert_str_eq(field(&res, "supervisor_seccomp"), "none");
        ck_assert(has_group(&res, DEVICE_GROUP));
        ck_assert_uint_eq(field_hex(&res, "CapBnd"), have_bnd); /* the workload narrows it itself */
        ck_assert_str_eq(field(&res, "NoNewPrivs"), "0");
        ck_assert_str_eq(field(&res, "Seccomp"), "0");
        ck_assert_uint_eq(field_hex(&res, "workload_bounding"), bnd & have_bnd);
        ck_assert_uint_eq(field_hex(&res, "workload_keep"), bnd & have_bnd & have_prm);
        ck_assert_uint_eq(field_hex(&res, "workload_bounding_now"), have_bnd);
        ck_assert_str_eq(field(&res, "workload_set_ids"), "0");
        ck_assert_str_eq(res.log, "");
}
END_TEST

/* Supervised with a filter other than "default": the bounding set is narrowed once in xpuinit,
 * before the clone (both inherit it); the workload loads its own filter and the supervisor the
 * "default" one after the start, keeping CAP_KILL at most. Nothing is loaded in xpuinit. */
START_TEST(test_supervised_own_filter) {
        const uint64_t bnd = BIT(CAP_CHOWN) | BIT(CAP_KILL) | BIT(CAP_NET_BIND_SERVICE);
        struct seq_result res;
        seq_run(&(struct seq_case){ .filter = "strict", .bounding = bnd }, &res);
        ck_assert_str_eq(field(&res, "rc"), "0");
        ck_assert_str_eq(field(&res, "open"), "0 0");
        ck_assert_str_eq(field(&res, "shared"), "none");
        ck_assert_str_eq(field(&res, "self_filter"), "1");
        ck_assert_str_eq(field(&res, "workload_seccomp"), "plan");
        ck_assert_str_eq(field(&res, "supervisor_seccomp"), "self");
        ck_assert_uint_eq(field_hex(&res, "CapBnd"), bnd & have_bnd);
        ck_assert_uint_eq(field_hex(&res, "workload_bounding_now"), bnd & have_bnd);
        ck_assert_uint_eq(field_hex(&res, "supervisor_bounding_now"), bnd & have_bnd);
        ck_assert_uint_eq(field_hex(&res, "supervisor_keep"), BIT(CAP_KILL));
        ck_assert_uint_eq(field_hex(&res, "supervisor_bounding"), BIT(CAP_KILL)); /* it has CAP_SETPCAP */
        ck_assert_str_eq(field(&res, "NoNewPrivs"), "0");
        ck_assert_str_eq(field(&res, "Seccomp"), "0");
        ck_assert(has_group(&res, DEVICE_GROUP));
        ck_assert_str_eq(res.log, "");
}
END_TEST

/* A SIGTERM pending at the stop check: 143, the apply taken back, and nothing of steps 4 to 6
 * done (descriptors open, bounding set and no_new_privs as they were); steps 1 and 2 ran before
 * it (the device group is there). */
START_TEST(test_stop_takes_the_apply_back) {
        struct seq_result res;
        seq_run(&(struct seq_case){ .filter = "strict", .bounding = BIT(CAP_KILL), .stop = true, .info = true }, &res);
        ck_assert_str_eq(field(&res, "rc"), "143");
        ck_assert_str_eq(field(&res, "dropin"), "0");
        ck_assert_str_eq(field(&res, "open"), "1 1");
        ck_assert_msg(strncmp(field(&res, "fds"), "-", 1) != 0, "fds %s", field(&res, "fds")); /* not marked closed */
        ck_assert_uint_eq(field_hex(&res, "CapBnd"), have_bnd);
        ck_assert_str_eq(field(&res, "NoNewPrivs"), "0");
        ck_assert(has_group(&res, DEVICE_GROUP));
        ck_assert_msg(strstr(res.log, "SIGTERM arrived before the workload started: not starting it"), "%s", res.log);
        ck_assert_str_eq(field(&res, "filter_owned"), "1"); /* S owns it: freed by xpu_start_privileges_done */
}
END_TEST

/* --user: the device groups are the workload's only supplementary groups (set in its process),
 * so xpuinit's own are left as they are. */
START_TEST(test_user_groups_go_to_the_workload) {
        struct seq_result res;
        seq_run(&(struct seq_case){ .exec = true, .user_set = true, .filter = "default" }, &res);
        ck_assert_str_eq(field(&res, "rc"), "0");
        ck_assert(!has_group(&res, DEVICE_GROUP));
        ck_assert_str_eq(field(&res, "workload_set_ids"), "1");
        ck_assert_str_eq(field(&res, "workload_groups"), "1");
}
END_TEST

/* Without CAP_SETGID the device group cannot be added: the start stops (-EPERM) naming the
 * group, the node and the fix, before anything is closed or dropped; when the node is usable
 * anyway, the start goes on without the group. */
START_TEST(test_device_group_without_setgid) {
        struct seq_result res;
        seq_run(&(struct seq_case){ .filter = "strict", .drop_effective = BIT(CAP_SETGID) }, &res);
        ck_assert_str_eq(field(&res, "rc"), "-1");
        ck_assert_msg(strstr(res.log, "cannot add group 4242 (owner of /dev/nvidiactl) to the workload: Operation not "
                                      "permitted; give the container CAP_SETGID or run it with --group-add 4242"),
                      "%s", res.log);
        ck_assert_str_eq(field(&res, "open"), "1 1");
        ck_assert_str_eq(field(&res, "dropin"), "1");
        ck_assert_uint_eq(field_hex(&res, "CapBnd"), have_bnd);
        ck_assert(!has_group(&res, DEVICE_GROUP));

        seq_run(&(struct seq_case){ .filter = "strict", .drop_effective = BIT(CAP_SETGID), .node = true, .info = true },
                &res);
        ck_assert_str_eq(field(&res, "rc"), "0");
        ck_assert(!has_group(&res, DEVICE_GROUP));
        ck_assert_str_eq(field(&res, "open"), "0 0");
        ck_assert_str_eq(res.log, "xpuinit: info: could not add the device groups (Operation not permitted), but the "
                                  "device nodes are accessible\n");
}
END_TEST

/* A bounding set that cannot be narrowed (no CAP_SETPCAP) fails step 5 with one line; step 4
 * ran before it (descriptors closed). Without CAP_SETPCAP the supervisor keeps its bounding set
 * whole (no prctl). */
START_TEST(test_bounding_set_refused) {
        struct seq_result res;
        seq_run(&(struct seq_case){ .filter = "strict", .bounding = BIT(CAP_KILL), .drop_effective = BIT(CAP_SETPCAP) },
                &res);
        ck_assert_str_eq(field(&res, "rc"), "-1");
        ck_assert_msg(strstr(res.log, "cannot narrow the bounding set for the workload: Operation not permitted"), "%s",
                      res.log);
        ck_assert_str_eq(field(&res, "open"), "0 0");
        ck_assert_uint_eq(field_hex(&res, "CapBnd"), have_bnd);
        ck_assert_uint_eq(field_hex(&res, "supervisor_bounding"), ~0ULL);
        ck_assert_str_eq(field(&res, "NoNewPrivs"), "0");
}
END_TEST

/* ---- xpu_plan_privilege ----------------------------------------------------------------------- */

static struct xpu_profile profile(const char *const *keep, size_t n, bool keep_set) {
        return (struct xpu_profile){ .name = (char *)"p", .origin = (char *)"test", .keep_capabilities = (char **)keep,
                                     .n_keep_capabilities = n, .keep_capabilities_set = keep_set };
}

/* The defaults: xpuinit's own ids, the "default" filter, the runtimes' default set less what
 * only set-up needs, and xpuinit's sets recorded for the sequence. */
START_TEST(test_plan_default) {
        struct xpu_profile pr = profile(NULL, 0, false);
        struct xpu_plan p = { 0 };
        ck_assert_int_eq(xpu_plan_privilege(&pr, false, 0, 0, &p), 0);
        ck_assert(!p.user_set);
        ck_assert_uint_eq(p.uid, getuid());
        ck_assert_uint_eq(p.gid, getgid());
        ck_assert_str_eq(p.seccomp, "default");
        const uint64_t want = xpu_capability_runtime_default() & have_prm & have_bnd & ~XPU_CAP_SETUP_ONLY;
        ck_assert_uint_eq(p.cap_keep, want);
        ck_assert_uint_eq(p.cap_bounding, want);
        ck_assert(!p.cap_ambient);
        ck_assert_uint_eq(p.cap_have_effective, have_eff);
        ck_assert_uint_eq(p.cap_have_permitted, have_prm);
        ck_assert_uint_eq(p.cap_have_bounding, have_bnd);
        /* A profile's filter and list: kept as named. */
        static const char *const keep[] = { "CAP_NET_BIND_SERVICE" };
        pr = profile(keep, 1, true);
        pr.seccomp = (char *)"strict";
        ck_assert_int_eq(xpu_plan_privilege(&pr, true, 1000, 1000, &p), 0);
        ck_assert(p.user_set);
        ck_assert_uint_eq(p.uid, 1000);
        ck_assert_uint_eq(p.gid, 1000);
        ck_assert_str_eq(p.seccomp, "strict");
        ck_assert_uint_eq(p.cap_keep, BIT(CAP_NET_BIND_SERVICE));
        ck_assert(p.cap_ambient); /* a non-root workload keeps it through the ambient set */
}
END_TEST

/* In a child that lost a capability (bounding set) or CAP_SETUID: the profile's
 * keep_capabilities and --user are refused with the line that says how to fix them. */
START_TEST(test_plan_refusals) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/stderr", tmp);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                int efd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
                if (efd < 0 || dup2(efd, STDERR_FILENO) < 0 || prctl(PR_CAPBSET_DROP, CAP_SYS_MODULE, 0, 0, 0) < 0)
                        _exit(90);
                xpu_log_set_program("xpuinit");
                static const char *const keep[] = { "CAP_SYS_MODULE" };
                struct xpu_profile pr = profile(keep, 1, true);
                struct xpu_plan p = { 0 };
                if (xpu_plan_privilege(&pr, false, 0, 0, &p) != -EPERM)
                        _exit(91);
                if (drop_effective(BIT(CAP_SETUID)) < 0)
                        _exit(92);
                pr = profile(NULL, 0, false);
                _exit(xpu_plan_privilege(&pr, true, 1000, 1000, &p) == -EPERM ? 0 : 93);
        }
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        char log[4096];
        read_into("stderr", log, sizeof log);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x\n%s", st, log);
        ck_assert_msg(strstr(log, "profile \"p\" (test): keep_capabilities asks for CAP_SYS_MODULE, which xpuinit does "
                                  "not have; start the container with that capability"),
                      "%s", log);
        ck_assert_msg(strstr(log, "--user 1000:1000: --user needs CAP_SETUID and CAP_SETGID"), "%s", log);
}
END_TEST

int main(void) {
        Suite *s = suite_create("privileges");
        TCase *tc = tcase_create("start");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_exec_leaves_the_drops_to_the_workload);
        tcase_add_test(tc, test_supervised_own_filter);
        tcase_add_test(tc, test_stop_takes_the_apply_back);
        tcase_add_test(tc, test_user_groups_go_to_the_workload);
        tcase_add_test(tc, test_device_group_without_setgid);
        tcase_add_test(tc, test_bounding_set_refused);
        tcase_add_test(tc, test_plan_default);
        tcase_add_test(tc, test_plan_refusals);
        suite_add_tcase(s, tc);
        return xpu_test_run(s);
}
