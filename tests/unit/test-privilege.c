/* SPDX-License-Identifier: Apache-2.0 */
/* probes/sandbox/privilege.c: the privileged sequence, checked from inside real children. Each case
 * forks; the child applies a struct xpu_privilege and execs /bin/sh, which prints the lines of
 * /proc/self/status (CapInh/CapPrm/CapEff/CapBnd/CapAmb, NoNewPrivs, Seccomp, Uid, Gid, Groups)
 * into a file the test then compares with exact values. Needs root with the capabilities of a
 * default container at least (CAP_SETPCAP, CAP_SETUID, CAP_SETGID): fails loudly otherwise. Also
 * the capability names, the resolution of keep_capabilities and --user parsing. */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "base/macro.h"
#include "sandbox/privilege.h"
#include "sandbox/seccomp.h"
#include "entrypoint/init.h"
#include "entrypoint/options.h"
#include "entrypoint/plan.h"
#include "testlib.h"
#include "base/path.h"

#define BIT(c) XPU_CAP_BIT(c)

static char *tmp;
static char out_path[4096];

/* What the test process has: every case's expectations are computed from it. */
static uint64_t have_eff, have_prm, have_bnd;

static void setup(void) {
        tmp = xpu_test_mkdtemp();
        snprintf(out_path, sizeof out_path, "%s/status", tmp);
        ck_assert_int_eq(xpu_capability_current(&have_eff, &have_prm, &have_bnd), 0);
        const uint64_t need = BIT(CAP_SETPCAP) | BIT(CAP_SETUID) | BIT(CAP_SETGID);
        ck_assert_msg(geteuid() == 0 && (have_eff & need) == need,
                      "test-privilege needs root with CAP_SETPCAP, CAP_SETUID and CAP_SETGID (has %#llx)",
                      (unsigned long long)have_eff);
        /* a chmod so uid 1000 can create a file there */
        ck_assert_int_eq(chmod(tmp, 0777), 0);
}

static void teardown(void) {
        xpu_test_rm_rf(tmp);
        free(tmp);
}

static const char status_script[] =
        "grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp|Uid|Gid|Groups):' /proc/self/status | "
        "tr -s ' \\t' ' ' > \"$0\"; "
        /* fds the workload has, not counting sh's own 0-2 and the one for the output file */
        "for fd in 7 9; do [ -e /proc/$$/fd/$fd ] && echo \"fd$fd: open\" >> \"$0\"; done; "
        "unshare -U true 2>/dev/null; echo \"unshare: $?\" >> \"$0\"";

/* Fork; the child applies P (prepared here) and execs the status script. Fds 7 and 9 are open
 * (not close-on-exec) in the child before the apply. Returns the child's wait status; *STEP gets
 * the failed step through a pipe ("" when none). */
static int run_child(struct xpu_privilege *p, char *step, size_t step_size) {
        ck_assert_int_eq(xpu_privilege_prepare(p), 0);
        int pfd[2];
        ck_assert_int_eq(pipe2(pfd, O_CLOEXEC), 0);
        unlink(out_path);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                close(pfd[0]);
                (void)dup2(STDERR_FILENO, 7);
                (void)dup2(STDERR_FILENO, 9);
                const char *failed = NULL;
                int r = xpu_privilege_apply(p, &failed);
                if (r < 0) {
                        (void)!write(pfd[1], failed, strlen(failed));
                        _exit(100);
                }
                execl("/bin/sh", "sh", "-c", status_script, out_path, (char *)NULL);
                (void)!write(pfd[1], "exec", 4);
                _exit(101);
        }
        close(pfd[1]);
        ssize_t n = read(pfd[0], step, step_size - 1);
        step[n > 0 ? n : 0] = '\0';
        close(pfd[0]);
        int st = 0;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        xpu_privilege_done(p);
        return st;
}

/* The line "KEY: ..." of the output file, without the key. */
static char *field(const char *key, char *buf, size_t size) {
        _cleanup_fclose_ FILE *f = fopen(out_path, "re");
        ck_assert_msg(f != NULL, "%s: %s", out_path, strerror(errno));
        char line[512];
        size_t klen = strlen(key);
        while (fgets(line, sizeof line, f)) {
                if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
                        char *v = line + klen + 1;
                        v += strspn(v, " ");
                        size_t n = strcspn(v, "\n");
                        while (n > 0 && v[n - 1] == ' ') /* "Groups: 44 993 " */
                                n--;
                        v[n] = '\0';
                        snprintf(buf, size, "%s", v);
                        return buf;
                }
        }
        snprintf(buf, size, "(no %s line)", key);
        return buf;
}

static void expect_caps(uint64_t inh, uint64_t prm, uint64_t eff, uint64_t bnd, uint64_t amb) {
        static const char *const keys[] = { "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb" };
        const uint64_t want[] = { inh, prm, eff, bnd, amb };
        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                char got[64], exp[32];
                snprintf(exp, sizeof exp, "%016llx", (unsigned long long)want[i]);
                ck_assert_msg(strcmp(field(keys[i], got, sizeof got), exp) == 0, "%s: got %s, want %s", keys[i], got,
                              exp);
        }
}

static void expect_field(const char *key, const char *want) {
        char got[256];
        ck_assert_msg(strcmp(field(key, got, sizeof got), want) == 0, "%s: got \"%s\", want \"%s\"", key, got, want);
}

/* Resolve a request as xpuinit does for this process's capabilities. */
static struct xpu_capability_plan resolve(bool explicit_list, uint64_t requested, bool root) {
        struct xpu_capability_request rq = { .explicit_list = explicit_list, .requested = requested,
                                             .workload_root = root, .effective = have_eff,
                                             .permitted = have_prm, .bounding = have_bnd };
        struct xpu_capability_plan cp;
        ck_assert_int_eq(xpu_capability_resolve(&rq, &cp, NULL), 0);
        ck_assert(!cp.bounding_wide);
        return cp;
}

static struct xpu_privilege from_plan(const struct xpu_capability_plan *cp) {
        struct xpu_privilege p = XPU_PRIVILEGE_INIT;
        p.keep = cp->keep;
        p.bounding = cp->bounding;
        p.ambient = cp->ambient;
        return p;
}

/* ---- root workload ------------------------------------------------------------------------- */

/* The bounding set read from /proc/thread-self/status matches PR_CAPBSET_READ, in a thread whose
 * bounding set differs from the process's main thread (CK_FORK: this test's own process). */
static void *drop_and_compare(void *arg) {
        (void)arg;
        ck_assert_int_eq(prctl(PR_CAPBSET_DROP, CAP_SYS_BOOT, 0, 0, 0), 0);
        ck_assert_int_eq(prctl(PR_CAPBSET_DROP, CAP_NET_RAW, 0, 0, 0), 0);
        uint64_t bnd = 0, want = 0;
        ck_assert_int_eq(xpu_capability_current(NULL, NULL, &bnd), 0);
        for (int c = 0; c < 64 && prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0; c++)
                if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) > 0)
                        want |= BIT(c);
        ck_assert_uint_eq(bnd, want);
        ck_assert(!(bnd & BIT(CAP_SYS_BOOT)) && !(bnd & BIT(CAP_NET_RAW)));
        return NULL;
}

START_TEST(test_bounding_read) {
        ck_assert(have_bnd & BIT(CAP_SYS_BOOT));
        pthread_t t;
        ck_assert_int_eq(pthread_create(&t, NULL, drop_and_compare, NULL), 0);
        ck_assert_int_eq(pthread_join(t, NULL), 0);
        uint64_t bnd = 0;
        ck_assert_int_eq(xpu_capability_current(NULL, NULL, &bnd), 0);
        ck_assert_uint_eq(bnd, have_bnd); /* the main thread kept its own */
}
END_TEST

START_TEST(test_root_default) {
        struct xpu_capability_plan cp = resolve(false, 0, true);
        uint64_t want = xpu_capability_runtime_default() & have_prm & have_bnd & ~XPU_CAP_SETUP_ONLY;
        ck_assert_uint_eq(cp.keep, want);
        ck_assert_uint_eq(cp.bounding, want);
        ck_assert(!cp.ambient);
        ck_assert(!(want & (BIT(CAP_SYS_ADMIN) | BIT(CAP_SETPCAP))));
        struct xpu_privilege p = from_plan(&cp);
        char step[64];
        int st = run_child(&p, step, sizeof step);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x, step \"%s\"", st, step);
        /* root after execve: permitted = effective = bounding (no_new_privs: not above the old
         * permitted set); inheritable empty without the ambient set */
        expect_caps(0, want, want, want, 0);
        expect_field("NoNewPrivs", "1");
        expect_field("Seccomp", "0");
        expect_field("Uid", "0 0 0 0");
        expect_field("fd7", "open"); /* close_fds off */
}
END_TEST

START_TEST(test_root_keep_none) {
        struct xpu_capability_plan cp = resolve(true, 0, true);
        ck_assert_uint_eq(cp.keep, 0);
        ck_assert_uint_eq(cp.bounding, 0);
        struct xpu_privilege p = from_plan(&cp);
        char step[64];
        int st = run_child(&p, step, sizeof step);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x, step \"%s\"", st, step);
        expect_caps(0, 0, 0, 0, 0);
        expect_field("NoNewPrivs", "1");
        expect_field("Uid", "0 0 0 0");
}
END_TEST

/* ---- non-root workload ---------------------------------------------------------------------- */

START_TEST(test_user_default) {
        struct xpu_capability_plan cp = resolve(false, 0, false);
        uint64_t bnd = xpu_capability_runtime_default() & have_prm & have_bnd & ~BIT(CAP_SYS_ADMIN);
        ck_assert_uint_eq(cp.keep, 0);
        ck_assert_uint_eq(cp.bounding, bnd);
        ck_assert(!cp.ambient);
        struct xpu_privilege p = from_plan(&cp);
        static const gid_t groups[] = { 44, 993 };
        p.set_ids = true;
        p.uid = 1000;
        p.gid = 1001;
        p.groups = groups;
        p.n_groups = ELEMENTSOF(groups);
        p.close_fds = true;
        p.keep_fd = 9;
        char step[64];
        int st = run_child(&p, step, sizeof step);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x, step \"%s\"", st, step);
        expect_caps(0, 0, 0, bnd, 0);
        expect_field("NoNewPrivs", "1");
        expect_field("Uid", "1000 1000 1000 1000");
        expect_field("Gid", "1001 1001 1001 1001");
        expect_field("Groups", "44 993");
        expect_field("fd7", "(no fd7 line)"); /* closed */
        expect_field("fd9", "open");          /* KEEP_FD */
}
END_TEST

START_TEST(test_user_keep_net_bind_service) {
        ck_assert_msg(have_prm & BIT(CAP_NET_BIND_SERVICE), "test needs CAP_NET_BIND_SERVICE");
        struct xpu_capability_plan cp = resolve(true, BIT(CAP_NET_BIND_SERVICE), false);
        ck_assert_uint_eq(cp.keep, BIT(CAP_NET_BIND_SERVICE));
        ck_assert_uint_eq(cp.bounding, BIT(CAP_NET_BIND_SERVICE));
        ck_assert(cp.ambient);
        struct xpu_privilege p = from_plan(&cp);
        p.set_ids = true;
        p.uid = p.gid = 1000;
        char step[64];
        int st = run_child(&p, step, sizeof step);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x, step \"%s\"", st, step);
        /* the ambient set carries it across execve into permitted and effective */
        const uint64_t b = BIT(CAP_NET_BIND_SERVICE); /* 0x400 */
        expect_caps(b, b, b, b, b);
        expect_field("Uid", "1000 1000 1000 1000");
        expect_field("Groups", "");
}
END_TEST

/* ---- seccomp and failures ------------------------------------------------------------------- */

START_TEST(test_seccomp_default) {
        struct xpu_seccomp_program *prog = NULL;
        char err[256] = "";
        ck_assert_msg(xpu_seccomp_build("default", -1, &prog, err, sizeof err) == 0, "%s", err);
        struct xpu_capability_plan cp = resolve(false, 0, true);
        struct xpu_privilege p = from_plan(&cp);
        p.seccomp = prog;
        char step[64];
        int st = run_child(&p, step, sizeof step);
        xpu_seccomp_free(prog);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x, step \"%s\"", st, step);
        expect_field("NoNewPrivs", "1");
        expect_field("Seccomp", "2");
        expect_field("unshare", "1"); /* namespace creation denied (EPERM) */
}
END_TEST

/* A capability the process no longer has: capset fails and names itself. */
START_TEST(test_failed_step) {
        struct xpu_privilege p = XPU_PRIVILEGE_INIT;
        p.bounding = XPU_CAP_ALL; /* nothing to drop */
        p.keep = BIT(CAP_CHOWN);
        ck_assert_int_eq(xpu_privilege_prepare(&p), 0);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                /* lose every capability (no keepcaps), then ask for CAP_CHOWN back */
                if (syscall(SYS_setresuid, 1000, 1000, 1000) < 0)
                        _exit(90);
                const char *step = NULL;
                int r = xpu_privilege_apply(&p, &step);
                _exit(r == -EPERM && step && strcmp(step, "capset") == 0 ? 0 : 91);
        }
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        xpu_privilege_done(&p);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);

        /* unprepared */
        struct xpu_privilege q = XPU_PRIVILEGE_INIT;
        const char *step = NULL;
        ck_assert_int_eq(xpu_privilege_apply(&q, &step), -EINVAL);
        ck_assert_str_eq(step, "capset");
}
END_TEST

/* Through xpu_supervise: a failed step is status 125 and one line naming it. */
START_TEST(test_supervise_failure) {
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                /* drop CAP_NET_ADMIN from permitted, then ask the workload to keep it */
                struct xpu_privilege drop = XPU_PRIVILEGE_INIT;
                drop.bounding = XPU_CAP_ALL;
                drop.keep = have_prm & ~BIT(CAP_NET_ADMIN);
                if (xpu_privilege_prepare(&drop) < 0 || xpu_privilege_apply(&drop, NULL) < 0)
                        _exit(90);
                struct xpu_privilege p = XPU_PRIVILEGE_INIT;
                p.bounding = XPU_CAP_ALL;
                p.keep = BIT(CAP_NET_ADMIN);
                if (xpu_privilege_prepare(&p) < 0)
                        _exit(91);
                struct xpu_supervise_options o = { .grace_seconds = 1, .privilege = &p };
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
                (void)dup2(null, STDERR_FILENO);
                char *argv[] = { (char *)"/bin/true", NULL };
                char *envp[] = { NULL };
                _exit(xpu_supervise(argv, envp, &o));
        }
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 125, "status %#x", st);
}
END_TEST

/* ---- pure functions ------------------------------------------------------------------------- */

START_TEST(test_names) {
        ck_assert_int_eq(xpu_capability_from_name("CAP_NET_ADMIN"), 12);
        ck_assert_int_eq(xpu_capability_from_name("cap_net_admin"), 12);
        ck_assert_int_eq(xpu_capability_from_name("NET_ADMIN"), 12);
        ck_assert_int_eq(xpu_capability_from_name("net_bind_service"), 10);
        ck_assert_int_eq(xpu_capability_from_name("CAP_CHOWN"), 0);
        ck_assert_int_eq(xpu_capability_from_name("CAP_CHECKPOINT_RESTORE"), 40);
        ck_assert_int_eq(xpu_capability_from_name("CAP_BOGUS"), -EINVAL);
        ck_assert_int_eq(xpu_capability_from_name("CAP_"), -EINVAL);
        ck_assert_int_eq(xpu_capability_from_name(""), -EINVAL);
        ck_assert_int_eq(xpu_capability_from_name("CAP_NET_ADMIN "), -EINVAL);
        ck_assert_int_eq(xpu_capability_from_name(NULL), -EINVAL);
        ck_assert_str_eq(xpu_capability_to_name(12), "CAP_NET_ADMIN");
        ck_assert_str_eq(xpu_capability_to_name(40), "CAP_CHECKPOINT_RESTORE");
        ck_assert_ptr_null(xpu_capability_to_name(41));
        ck_assert_ptr_null(xpu_capability_to_name(-1));

        char buf[64];
        ck_assert_int_eq(xpu_capability_mask_to_names(0, buf, sizeof buf), 0);
        ck_assert_str_eq(buf, "");
        ck_assert_int_eq(xpu_capability_mask_to_names(BIT(0) | BIT(5) | BIT(50), buf, sizeof buf), 21);
        ck_assert_str_eq(buf, "CAP_CHOWN,CAP_KILL,50");
        ck_assert_int_eq(xpu_capability_mask_to_names(BIT(0) | BIT(5), buf, 12), -ENOBUFS);
        ck_assert_str_eq(buf, "CAP_CHOWN");

        /* containerd defaultUnixCaps / moby DefaultCapabilities: 14 capabilities */
        ck_assert_uint_eq(xpu_capability_runtime_default(), 0xa80425fbULL);
}
END_TEST

START_TEST(test_resolve) {
        const uint64_t all = XPU_CAP_ALL, rd = xpu_capability_runtime_default();
        struct xpu_capability_request rq = { .workload_root = true, .effective = all, .permitted = all,
                                             .bounding = all };
        struct xpu_capability_plan cp;
        uint64_t missing = 0;
        ck_assert_int_eq(xpu_capability_resolve(&rq, &cp, &missing), 0);
        ck_assert_uint_eq(cp.keep, rd & ~BIT(CAP_SETPCAP)); /* 0xa80424fb */
        ck_assert_uint_eq(cp.keep, 0xa80424fbULL);
        ck_assert_uint_eq(cp.bounding, 0xa80424fbULL);

        rq.workload_root = false;
        ck_assert_int_eq(xpu_capability_resolve(&rq, &cp, &missing), 0);
        ck_assert_uint_eq(cp.keep, 0);
        ck_assert_uint_eq(cp.bounding, rd);
        ck_assert(!cp.ambient);

        /* an explicit list with a capability the starter lacks: -EPERM naming it */
        rq.explicit_list = true;
        rq.requested = BIT(CAP_NET_ADMIN) | BIT(CAP_CHOWN);
        rq.permitted = all & ~BIT(CAP_NET_ADMIN);
        ck_assert_int_eq(xpu_capability_resolve(&rq, &cp, &missing), -EPERM);
        ck_assert_uint_eq(missing, BIT(CAP_NET_ADMIN));
        rq.permitted = all;
        ck_assert_int_eq(xpu_capability_resolve(&rq, &cp, &missing), 0);
        ck_assert_uint_eq(cp.keep, rq.requested);
        ck_assert_uint_eq(cp.bounding, rq.requested);
        ck_assert(cp.ambient);

        /* no CAP_SETPCAP: the bounding set cannot shrink, and says so */
        rq.effective = all & ~BIT(CAP_SETPCAP);
        ck_assert_int_eq(xpu_capability_resolve(&rq, &cp, &missing), 0);
        ck_assert_uint_eq(cp.bounding, all);
        ck_assert(cp.bounding_wide);

        /* a process with nothing (a non-root xpuinit): nothing, nothing to drop */
        struct xpu_capability_request none = { .bounding = rd };
        ck_assert_int_eq(xpu_capability_resolve(&none, &cp, &missing), 0);
        ck_assert_uint_eq(cp.keep, 0);
        ck_assert_uint_eq(cp.bounding, rd);
        ck_assert(cp.bounding_wide);
}
END_TEST

START_TEST(test_parse_user) {
        uid_t u = 0;
        gid_t g = 0;
        char errpath[] = "/tmp/test-privilege-err.XXXXXX";
        int efd = mkstemp(errpath);
        ck_assert_int_ge(efd, 0);
        unlink(errpath);
        int saved = dup(STDERR_FILENO);
        ck_assert_int_eq(dup2(efd, STDERR_FILENO), STDERR_FILENO);
        ck_assert_int_eq(xpu_options_parse_user("1000", "--user", &u, &g), 0);
        ck_assert_uint_eq(u, 1000);
        ck_assert_uint_eq(g, 1000);
        ck_assert_int_eq(xpu_options_parse_user("1000:44", "--user", &u, &g), 0);
        ck_assert_uint_eq(u, 1000);
        ck_assert_uint_eq(g, 44);
        ck_assert_int_eq(xpu_options_parse_user("0:0", "--user", &u, &g), 0);
        ck_assert_uint_eq(u, 0);
        ck_assert_int_eq(xpu_options_parse_user("4294967294", "--user", &u, &g), 0);
        ck_assert_uint_eq(u, 4294967294u);
        static const char *const bad[] = { "", "nobody", "1000:", ":44", "-1", "4294967295", " 12", "0x10",
                                           "1000:44:1", "12a", "1000:staff" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(xpu_options_parse_user(bad[i], "--user", &u, &g) == -EINVAL, "\"%s\" accepted",
                              bad[i]);
        (void)dup2(saved, STDERR_FILENO);
        char text[8192];
        ssize_t n = pread(efd, text, sizeof text - 1, 0);
        ck_assert_int_gt(n, 0);
        text[n] = '\0';
        close(efd);
        close(saved);
        ck_assert_msg(strstr(text, "error: --user: \"nobody\" is not UID or UID:GID in numbers (0 to 4294967294); "
                                   "user and group names are not looked up: give the numbers from the image's "
                                   "/etc/passwd\n"),
                      "%s", text);
}
END_TEST

/* keep_capabilities under a filter that denies what they are for: the calls, then the plan's
 * warning (the calls are run through the filter's BPF, xpu_seccomp_verdict). */
START_TEST(test_cap_seccomp_conflicts) {
        struct xpu_seccomp_program *def = NULL, *strict = NULL, *list = NULL;
        char err[512] = "", calls[256];
        ck_assert_int_eq(xpu_seccomp_build("default", -1, &def, err, sizeof err), 0);
        ck_assert_int_eq(xpu_seccomp_build("strict", -1, &strict, err, sizeof err), 0);
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "etc/debug.json", "[\"@strict\", \"ptrace\", \"process_vm_readv\", \"process_vm_writev\"]");
        int root = xpu_open_root(t);
        ck_assert_int_ge(root, 0);
        ck_assert_int_eq(xpu_seccomp_build("/etc/debug.json", root, &list, err, sizeof err), 0);
        close(root);

        ck_assert_uint_eq(xpu_seccomp_verdict(def, __NR_mount, 0), SECCOMP_RET_ERRNO | EPERM);
        ck_assert_uint_eq(xpu_seccomp_verdict(def, __NR_read, 0), SECCOMP_RET_ALLOW);
        ck_assert_uint_eq(xpu_seccomp_verdict(NULL, __NR_mount, 0), SECCOMP_RET_ALLOW);

        ck_assert_int_eq(xpu_capability_denied_calls(CAP_SYS_ADMIN, def, calls, sizeof calls), 6);
        ck_assert_str_eq(calls, "mount, umount2, unshare, setns, pivot_root, perf_event_open");
        ck_assert_int_eq(xpu_capability_denied_calls(CAP_SYS_PTRACE, def, calls, sizeof calls), 3);
        ck_assert_str_eq(calls, "ptrace, process_vm_readv, process_vm_writev");
        ck_assert_int_eq(xpu_capability_denied_calls(CAP_SYS_PTRACE, strict, calls, sizeof calls), 3);
        ck_assert_int_eq(xpu_capability_denied_calls(CAP_SYS_PTRACE, list, calls, sizeof calls), 0);
        ck_assert_str_eq(calls, "");
        ck_assert_int_eq(xpu_capability_denied_calls(CAP_BPF, def, calls, sizeof calls), 1);
        ck_assert_str_eq(calls, "bpf");
        ck_assert_int_eq(xpu_capability_denied_calls(CAP_SYS_TIME, def, calls, sizeof calls), 4);
        ck_assert_str_eq(calls, "settimeofday, clock_settime, adjtimex, clock_adjtime");
        ck_assert_int_eq(xpu_capability_denied_calls(CAP_SYS_MODULE, def, calls, sizeof calls), 3);
        ck_assert_int_eq(xpu_capability_denied_calls(CAP_PERFMON, def, calls, sizeof calls), 1);
        ck_assert_int_eq(xpu_capability_denied_calls(CAP_CHOWN, def, calls, sizeof calls), 0);
        ck_assert_int_eq(xpu_capability_denied_calls(CAP_SYS_ADMIN, NULL, calls, sizeof calls), 0);

        /* The plan: one warning per useless capability of an explicit list, none for the rest. */
        struct xpu_plan *p = calloc(1, sizeof *p);
        ck_assert_ptr_nonnull(p);
        p->cap_explicit = true;
        p->cap_keep = BIT(CAP_SYS_PTRACE) | BIT(CAP_CHOWN) | BIT(CAP_BPF);
        ck_assert_int_eq(xpu_plan_warn_seccomp(p, def), 0);
        ck_assert_uint_eq(p->n_warnings, 2);
        ck_assert_str_eq(p->warnings[0], "keep_capabilities CAP_SYS_PTRACE: the seccomp filter \"default\" denies "
                                         "ptrace, process_vm_readv, process_vm_writev, what the capability is for, so "
                                         "the workload cannot use it; use a JSON allow list that includes them, e.g. "
                                         "[\"@strict\", \"ptrace\"] (docs/seccomp.md)");
        ck_assert_ptr_nonnull(strstr(p->warnings[1], "keep_capabilities CAP_BPF: the seccomp filter \"default\" denies bpf,"));
        p = xpu_plan_free(p);
        p = calloc(1, sizeof *p);
        ck_assert_ptr_nonnull(p);
        p->cap_explicit = true;
        p->cap_keep = BIT(CAP_SYS_PTRACE);
        ck_assert_int_eq(xpu_plan_warn_seccomp(p, list), 0);
        ck_assert_uint_eq(p->n_warnings, 0);
        p->cap_explicit = false; /* the default set: no warning, whatever it holds */
        p->cap_keep = BIT(CAP_SYS_ADMIN);
        ck_assert_int_eq(xpu_plan_warn_seccomp(p, def), 0);
        ck_assert_uint_eq(p->n_warnings, 0);
        xpu_plan_free(p);
        xpu_seccomp_free(def);
        xpu_seccomp_free(strict);
        xpu_seccomp_free(list);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* --user: nothing to change (the test runs as root: 0:0), a change with and without the
 * capabilities it needs. */
START_TEST(test_user_switch_check) {
        ck_assert_uint_eq(getuid(), 0);
        ck_assert_uint_eq(getgid(), 0);
        const uint64_t both = BIT(CAP_SETUID) | BIT(CAP_SETGID);
        ck_assert_int_eq(xpu_user_switch_check(0, 0, 0), 0);                    /* own ids, no CAP_SETGID */
        ck_assert_int_eq(xpu_user_switch_check(0, 0, BIT(CAP_SETGID)), 1);      /* groups can be replaced */
        ck_assert_int_eq(xpu_user_switch_check(1000, 1000, both), 1);
        ck_assert_int_eq(xpu_user_switch_check(1000, 1000, 0), -EPERM);
        ck_assert_int_eq(xpu_user_switch_check(1000, 1000, BIT(CAP_SETGID)), -EPERM); /* uid needs CAP_SETUID */
        ck_assert_int_eq(xpu_user_switch_check(1000, 1000, BIT(CAP_SETUID)), -EPERM); /* groups need CAP_SETGID */
        ck_assert_int_eq(xpu_user_switch_check(0, 44, BIT(CAP_SETGID)), 1);     /* same uid: no CAP_SETUID needed */
        ck_assert_int_eq(xpu_user_switch_check(0, 44, 0), -EPERM);
}
END_TEST

static Suite *privilege_suite(void) {
        Suite *s = suite_create("privilege");
        TCase *tc = tcase_create("apply");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 30);
        tcase_add_test(tc, test_bounding_read);
        tcase_add_test(tc, test_root_default);
        tcase_add_test(tc, test_root_keep_none);
        tcase_add_test(tc, test_user_default);
        tcase_add_test(tc, test_user_keep_net_bind_service);
        tcase_add_test(tc, test_seccomp_default);
        tcase_add_test(tc, test_failed_step);
        tcase_add_test(tc, test_supervise_failure);
        suite_add_tcase(s, tc);
        TCase *pure = tcase_create("pure");
        tcase_add_test(pure, test_names);
        tcase_add_test(pure, test_resolve);
        tcase_add_test(pure, test_parse_user);
        tcase_add_test(pure, test_cap_seccomp_conflicts);
        tcase_add_test(pure, test_user_switch_check);
        suite_add_tcase(s, pure);
        return s;
}

int main(void) {
        return xpu_test_run(privilege_suite());
}
