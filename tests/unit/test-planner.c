/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/planner.c: a plan built from the gathered facts alone, with no descriptor and no
 * system call but memory allocation, and the errors it reports from failed reads. The gathering
 * itself is test-gather.c's. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/strv.h"
#include "plan-fx.h"

#define LIBDIR "usr/lib/x86_64-linux-gnu"
#define VER "465.19.01"

/* ---- purity ------------------------------------------------------------------------------- */

static bool strv_same(char *const *a, char *const *b) {
        size_t i = 0;
        for (; a && b && a[i] && b[i]; i++)
                if (strcmp(a[i], b[i]) != 0)
                        return false;
        return (!a || !a[i]) && (!b || !b[i]);
}

static bool host_files_same(const struct xpu_host_files *a, const struct xpu_host_files *b) {
        if (a->n != b->n)
                return false;
        for (size_t i = 0; i < a->n; i++) {
                const struct xpu_host_file *x = &a->files[i], *y = &b->files[i];
                if (strcmp(x->path, y->path) != 0 || strcmp(x->resolved, y->resolved) != 0 ||
                    strcmp(x->capability, y->capability) != 0 || strcmp(x->origin, y->origin) != 0 ||
                    x->kind != y->kind || x->dev != y->dev || x->ino != y->ino)
                        return false;
        }
        return true;
}

static bool files_same(const struct xpu_driver_files *a, const struct xpu_driver_files *b) {
        if (!a || !b)
                return a == b;
        if (a->n != b->n || a->n_skipped != b->n_skipped || !a->refused != !b->refused)
                return false;
        for (size_t i = 0; i < a->n_skipped; i++)
                if (strcmp(a->skipped[i], b->skipped[i]) != 0)
                        return false;
        return a->n == 0 || memcmp(a->files, b->files, a->n * sizeof *a->files) == 0;
}

static bool op_same(const struct xpu_op *a, const struct xpu_op *b) {
        return a->type == b->type && strcmp(a->path, b->path) == 0 && strcmp(a->source, b->source) == 0 &&
               strcmp(a->target, b->target) == 0 && !a->content == !b->content &&
               (!a->content || strcmp(a->content, b->content) == 0) && a->mode == b->mode && a->major == b->major &&
               a->minor == b->minor && a->have_major == b->have_major && a->optional == b->optional &&
               a->filesystem == b->filesystem && a->host_file == b->host_file && a->host_kind == b->host_kind;
}

/* 0 when A and B are the same plan, else the number of the first part that differs. */
static int plan_difference(const struct xpu_plan *a, const struct xpu_plan *b) {
        if (a->profile != b->profile || a->inject != b->inject || strcmp(a->library_dir, b->library_dir) != 0 ||
            strcmp(a->driver_version, b->driver_version) != 0 || strcmp(a->lib32_dir, b->lib32_dir) != 0 ||
            strcmp(a->forward_compat_dir, b->forward_compat_dir) != 0)
                return 1;
        if (a->n_capabilities != b->n_capabilities || !strv_same(a->capabilities, b->capabilities))
                return 2;
        if (!files_same(a->files, b->files) || !files_same(a->files32, b->files32))
                return 3;
        if (!a->host_files != !b->host_files || (a->host_files && !host_files_same(a->host_files, b->host_files)))
                return 4;
        if (a->n_given != b->n_given || (a->n_given && memcmp(a->given, b->given, a->n_given * sizeof *a->given) != 0))
                return 5;
        if (a->n_ops != b->n_ops)
                return 6;
        for (size_t i = 0; i < a->n_ops; i++)
                if (!op_same(&a->ops[i], &b->ops[i]))
                        return 7;
        if (a->n_groups != b->n_groups ||
            (a->n_groups && memcmp(a->groups, b->groups, a->n_groups * sizeof *a->groups) != 0) ||
            !strv_same(a->groups_from, b->groups_from))
                return 8;
        if (!strv_same(a->env, b->env) || !strv_same(a->argv, b->argv))
                return 9;
        if (a->n_devices != b->n_devices || memcmp(a->devices, b->devices, a->n_devices * sizeof *a->devices) != 0)
                return 10;
        if (a->n_notes != b->n_notes || !strv_same(a->notes, b->notes) || a->n_warnings != b->n_warnings ||
            !strv_same(a->warnings, b->warnings))
                return 11;
        return 0;
}

/* From here on this process may only allocate memory and exit: any other system call (open,
 * stat, read, getdents, readlink ...) kills it with SIGSYS. */
static int allow_only_memory(void) {
        /* Memory, exit, and sigaltstack: AddressSanitizer's __asan_handle_no_return asks for the
         * signal stack before every call that does not return (the child's _exit). */
        static const int allowed[] = {
                __NR_brk,        __NR_mmap, __NR_munmap,      __NR_mremap, __NR_madvise,
                __NR_exit_group, __NR_exit, __NR_sigaltstack,
        };
        struct sock_filter prog[2 * ELEMENTSOF(allowed) + 2];
        size_t n = 0;
        prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
        for (size_t i = 0; i < ELEMENTSOF(allowed); i++) {
                prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)allowed[i], 0, 1);
                prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
        }
        prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
        const struct sock_fprog fprog = { .len = (unsigned short)n, .filter = prog };
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return -1;
        return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0);
}

/* The plan is built from the facts alone. With the facts gathered, a plan built with every
 * descriptor of the options at -1, in a process that may make no system call but allocate memory,
 * is the very plan a start builds: the same operations in the same order with the same values,
 * groups, environment, notes and warnings. */
START_TEST(test_plan_build_is_pure) {
        struct fx f;
        fx_rich(&f);
        const struct xpu_profile *pr = fx_profile(&f);
        for (int mode = XPU_INJECT_MOUNT; mode <= XPU_INJECT_LINK; mode++) {
                const struct xpu_plan_options o =
                        fx_options(&f, (enum xpu_inject_mode)mode, "utility,compute,ngz", workload);
                struct xpu_plan_facts *facts = NULL;
                struct xpu_plan *expected = NULL;
                char err[512] = "";
                ck_assert_msg(xpu_test_gather(f.inv, f.sel, pr, &o, &facts, err, sizeof err) == 0, "%s", err);
                ck_assert_int_eq(xpu_rich_facts_forward_compat(facts, f.inv, f.sel, pr), 0);
                ck_assert_int_eq(xpu_rich_facts_placeholders(facts, f.inv, f.sel, pr, o.library_dir), 0);
                ck_assert_msg(xpu_plan_build(f.inv, f.sel, pr, facts, &o, &expected, err, sizeof err) == 0, "%s", err);
                /* (a plan with something of every fact in it) */
                ck_assert_uint_eq(expected->n_given, 1);
                ck_assert_uint_eq(expected->n_groups, 1);
                ck_assert_uint_eq(expected->groups[0], 44);
                ck_assert_ptr_nonnull(find_op(expected, XPU_OP_LDCONFIG, "/sbin/ldconfig"));
                ck_assert_ptr_nonnull(find_op(expected, mode == XPU_INJECT_MOUNT ? XPU_OP_BIND : XPU_OP_SYMLINK,
                                              "/lib/firmware/nvidia/" VER "/gsp_tu10x.bin"));
                ck_assert_str_ne(note_with(expected, "forward compatibility: the image's"), "");
                ck_assert_uint_eq(expected->n_warnings, 1); /* ngz */

                fflush(NULL);
                pid_t pid = fork();
                ck_assert_int_ge(pid, 0);
                if (pid == 0) {
                        struct xpu_plan_options none = o;
                        none.driver_fd = none.container_fd = none.dev_fd = -1;
                        struct xpu_plan *p = NULL;
                        char child_err[512] = "";
                        if (allow_only_memory() < 0)
                                _exit(100);
                        if (xpu_plan_build(f.inv, f.sel, pr, facts, &none, &p, child_err, sizeof child_err) < 0)
                                _exit(101);
                        _exit(plan_difference(expected, p));
                }
                int status = 0;
                ck_assert_int_eq(waitpid(pid, &status, 0), pid);
                ck_assert_msg(!WIFSIGNALED(status), "xpu_plan_build made a system call (signal %d)",
                              WIFSIGNALED(status) ? WTERMSIG(status) : 0);
                ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                              "the plan built from the facts alone differs (part %d; 100: no seccomp, 101: failed)",
                              WEXITSTATUS(status));
                xpu_plan_free(expected);
                xpu_plan_facts_free(facts);
        }
        fx_close(&f);
}
END_TEST

/* The errors the plan reports from failed reads are its own, at their place: a driver root
 * without a versioned library and a kernel driver without a version. */
START_TEST(test_plan_reports_gathered_failure) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        f.inv->vendors[XPU_VENDOR_NVIDIA].driver_version[0] = '\0';
        char libdir[PATH_MAX];
        snprintf(libdir, sizeof libdir, "%s/" LIBDIR, f.root);
        xpu_test_rm_rf(libdir);
        struct xpu_plan *p = NULL;
        char err[512] = "";
        ck_assert_int_eq(fx_plan(&f, XPU_INJECT_LINK, "utility", workload, &p, err, sizeof err), -ENOENT);
        ck_assert_str_eq(err, "no nvidia driver version: the kernel driver reported none and no versioned driver "
                              "library was found in driver root /xpu/driver; load the kernel driver or pass "
                              "--driver-root");
        fx_close(&f);
}
END_TEST

int main(void) {
        Suite *s = suite_create("planner");
        TCase *tc = tcase_create("planner");
        tcase_add_test(tc, test_plan_build_is_pure);
        tcase_add_test(tc, test_plan_reports_gathered_failure);
        suite_add_tcase(s, tc);
        return xpu_test_run(s);
}
