/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base/seccomp: each spec loaded in a forked child (PR_SET_NO_NEW_PRIVS first, as the
 * privilege sequence does); denied calls answer EPERM, allowed ones work; strict runs busybox sh,
 * ldconfig and the e2e workload with the fake libcuda; JSON lists; the i386 and x32 ABIs; the
 * load in a CLONE_VM child without libseccomp; the built-in filters equal a fresh compilation. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/root-file.h"
#include "base/macro.h"
#include "base/path.h"
#include "sandbox/seccomp-internal.h"
#include "sandbox/seccomp.h"
#include "testlib.h"

/* ---- libseccomp calls counted (interposed: the static archive's references bind here) ---- */

static atomic_int libseccomp_calls;

#define FORWARD(ret, name, params, args)                                                           \
        ret name params {                                                                          \
                static ret(*next) params;                                                          \
                if (!next)                                                                         \
                        next = (ret(*) params)dlsym(RTLD_NEXT, #name);                            \
                atomic_fetch_add(&libseccomp_calls, 1);                                            \
                return next args;                                                                  \
        }
FORWARD(scmp_filter_ctx, seccomp_init, (uint32_t def_action), (def_action))
FORWARD(void, seccomp_release, (scmp_filter_ctx ctx), (ctx))
FORWARD(int, seccomp_export_bpf, (const scmp_filter_ctx ctx, int fd), (ctx, fd))
FORWARD(int, seccomp_load, (const scmp_filter_ctx ctx), (ctx))

/* ---- helpers ------------------------------------------------------------------------------ */

static struct xpu_seccomp_program *build(const char *spec, int root_fd) {
        struct xpu_seccomp_program *p = NULL;
        char err[512] = "";
        int r = xpu_seccomp_build(spec, root_fd, &p, err, sizeof err);
        ck_assert_msg(r == 0, "build %s: %d %s", spec, r, err);
        ck_assert_str_eq(xpu_seccomp_name(p), spec);
        ck_assert_uint_gt(xpu_seccomp_size(p), 10);
        return p;
}

/* Expect a call to fail with errno E; in a child, so report through the exit status. */
#define CHILD_EXPECT(call, e)                                                                      \
        do {                                                                                       \
                errno = 0;                                                                         \
                long r_ = (long)(call);                                                            \
                if (r_ != -1 || errno != (e)) {                                                    \
                        fprintf(stderr, "%s:%d: %s = %ld errno %d (%s), wanted errno %d\n", __FILE__, \
                                __LINE__, #call, r_, errno, strerror(errno), (e));                 \
                        _exit(10);                                                                 \
                }                                                                                  \
        } while (0)
#define CHILD_OK(call)                                                                             \
        do {                                                                                       \
                errno = 0;                                                                         \
                long r_ = (long)(call);                                                            \
                if (r_ < 0) {                                                                      \
                        fprintf(stderr, "%s:%d: %s = %ld: %s\n", __FILE__, __LINE__, #call, r_,     \
                                strerror(errno));                                                  \
                        _exit(11);                                                                 \
                }                                                                                  \
        } while (0)

/* Run ARGV (execv) in a child of the filtered child; returns its exit status or -1. */
static int run_prog(char *const argv[], char *const envp[]) {
        pid_t pid = fork();
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
                if (null >= 0)
                        dup2(null, 1);
                execve(argv[0], argv, envp);
                _exit(126);
        }
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) != pid)
                return -1;
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Fork; the child sets no_new_privs, loads P and runs FN; assert it exits 0. */
static void in_filtered_child(const struct xpu_seccomp_program *p, void (*fn)(void)) {
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                        _exit(3);
                int r = xpu_seccomp_load(p);
                if (r < 0) {
                        fprintf(stderr, "load: %s\n", strerror(-r));
                        _exit(4);
                }
                fn();
                _exit(0);
        }
        int st = 0;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert_msg(WIFEXITED(st), "child killed by signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        ck_assert_msg(WEXITSTATUS(st) == 0, "child exited %d (see stderr)", WEXITSTATUS(st));
}

static void *thread_fn(void *arg) {
        return arg;
}

/* What every spec leaves working. */
static void common_allowed(void) {
        int fds[2];
        CHILD_OK(getpid());
        CHILD_OK(pipe2(fds, O_CLOEXEC));
        CHILD_OK(write(fds[1], "x", 1));
        char c;
        CHILD_OK(read(fds[0], &c, 1));
        pthread_t t;
        if (pthread_create(&t, NULL, thread_fn, NULL) != 0 || pthread_join(t, NULL) != 0)
                _exit(12);
        pid_t pid = fork(); /* glibc: clone without namespace flags */
        if (pid == 0)
                _exit(0);
        CHILD_OK(pid);
        CHILD_OK(waitpid(pid, NULL, 0));
        CHILD_OK(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        /* Seccomp: 2 (filter mode) in /proc/self/status */
        char status[8192];
        int root = xpu_open_root("/");
        if (root < 0 || xpu_read_file_in_root(root, "/proc/self/status", status, sizeof status) < 0 ||
            !strstr(status, "\nSeccomp:\t2\n") || !strstr(status, "\nNoNewPrivs:\t1\n"))
                _exit(13);
        close(root);
}

/* What every spec denies. */
static void common_denied(void) {
        CHILD_EXPECT(mount("none", "/mnt", "tmpfs", 0, NULL), EPERM);
        CHILD_EXPECT(umount2("/mnt", 0), EPERM);
        CHILD_EXPECT(unshare(CLONE_NEWNS), EPERM);
        CHILD_EXPECT(unshare(CLONE_NEWUSER), EPERM);
        CHILD_EXPECT(syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0), EPERM);
        CHILD_EXPECT(syscall(SYS_clone3, NULL, 0), ENOSYS);
        CHILD_EXPECT(syscall(SYS_bpf, 0, NULL, 0), EPERM);
        CHILD_EXPECT(syscall(SYS_keyctl, 0, 0, 0, 0, 0), EPERM);
        CHILD_EXPECT(syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0), EPERM);
        CHILD_EXPECT(ptrace(PTRACE_TRACEME, 0, NULL, NULL), EPERM);
        CHILD_EXPECT(syscall(SYS_init_module, NULL, 0, ""), EPERM);
        CHILD_EXPECT(syscall(SYS_kexec_load, 0, 0, NULL, 0), EPERM);
        CHILD_EXPECT(syscall(SYS_open_by_handle_at, -1, NULL, 0), EPERM);
        CHILD_EXPECT(syscall(SYS_userfaultfd, 0), EPERM);
        CHILD_EXPECT(syscall(SYS_setns, -1, 0), EPERM);
        CHILD_EXPECT(syscall(SYS_reboot, 0, 0, 0, NULL), EPERM);
        CHILD_EXPECT(syscall(SYS_swapoff, "/nonexistent"), EPERM);
        CHILD_EXPECT(syscall(SYS_pivot_root, "/", "/"), EPERM);
        CHILD_EXPECT(syscall(SYS_io_uring_setup, 1, NULL), EPERM);
        CHILD_EXPECT(syscall(SYS_io_uring_register, -1, 0, NULL, 0), EPERM);
}

static char *const true_argv[] = { (char *)"/bin/true", NULL };
static char *const no_env[] = { NULL };

/* ---- default ------------------------------------------------------------------------------ */

static void default_child(void) {
        common_allowed();
        common_denied();
        /* A deny list: a no-op setresuid and exec work. */
        CHILD_OK(syscall(SYS_setresuid, -1, -1, -1));
        if (run_prog(true_argv, no_env) != 0)
                _exit(20);
        /* personality: the default persona is fine, ASLR off is not. */
        CHILD_OK(personality(PER_LINUX));
        CHILD_EXPECT(personality(PER_LINUX | ADDR_NO_RANDOMIZE), EPERM);
        CHILD_EXPECT(personality(PER_LINUX | READ_IMPLIES_EXEC), EPERM);
}

START_TEST(test_default) {
        struct xpu_seccomp_program *p = build("default", -1);
        in_filtered_child(p, default_child);
        xpu_seccomp_free(p);
}
END_TEST

/* ---- strict ------------------------------------------------------------------------------- */

static void strict_child(void) {
        common_allowed();
        common_denied();
        /* strict denies what default allows */
        CHILD_EXPECT(syscall(SYS_setresuid, -1, -1, -1), EPERM);
        CHILD_EXPECT(personality(PER_LINUX), EPERM);
        CHILD_EXPECT(socket(AF_PACKET, SOCK_RAW, 0), EPERM);
        CHILD_OK(socket(AF_INET, SOCK_STREAM, 0));
        CHILD_OK(socket(AF_NETLINK, SOCK_RAW, 0));
        if (run_prog(true_argv, no_env) != 0)
                _exit(20);
        char *const sh[] = { (char *)"/bin/busybox", (char *)"sh", (char *)"-c",
                             (char *)"x=$(echo hi | cat); test \"$x\" = hi && ls / >/dev/null", NULL };
        if (run_prog(sh, no_env) != 0)
                _exit(21);
        char *const ldconfig[] = { (char *)"/sbin/ldconfig", (char *)"-p", NULL };
        if (run_prog(ldconfig, no_env) != 0)
                _exit(22);
        char *const ldconfig_n[] = { (char *)"/sbin/ldconfig", (char *)"-N", (char *)"-X", NULL };
        if (run_prog(ldconfig_n, no_env) != 0)
                _exit(23);
}

START_TEST(test_strict) {
        ck_assert_msg(access("/bin/busybox", X_OK) == 0, "/bin/busybox missing: apt-get install busybox-static");
        struct xpu_seccomp_program *p = build("strict", -1);
        in_filtered_child(p, strict_child);
        xpu_seccomp_free(p);
}
END_TEST

/* The e2e workload finds the fake libcuda (two GPUs) and answers cuInit + cuDeviceGetCount. */
static char workload[4096], workload_env_lib[4200], workload_env_state[4200];

static void workload_child(void) {
        char *const argv[] = { workload, (char *)"--expect-cuda-count", (char *)"2", NULL };
        /* LeakSanitizer (an ASan build's workload) stops the world with ptrace, which every
         * filter denies: leak checking off, as tests/run-tests.sh does for filtered programs. */
        char *const envp[] = { workload_env_lib, workload_env_state, (char *)"ASAN_OPTIONS=detect_leaks=0", NULL };
        int r = run_prog(argv, envp);
        if (r != 0) {
                fprintf(stderr, "workload exited %d\n", r);
                _exit(24);
        }
}

START_TEST(test_strict_workload) {
        const char *b = getenv("XPU_BUILD");
        ck_assert_msg(b && *b, "XPU_BUILD is unset: run through tests/run-tests.sh");
        char *dir = xpu_test_mkdtemp(), shim[4096], link[4200];
        snprintf(workload, sizeof workload, "%s/tests/e2e/workload", b);
        snprintf(shim, sizeof shim, "%s/tests/shims/libcuda.so.shim", b);
        ck_assert_msg(access(workload, X_OK) == 0 && access(shim, R_OK) == 0, "%s or %s missing: make build-tests",
                      workload, shim);
        snprintf(link, sizeof link, "%s/libcuda.so.1", dir);
        ck_assert_int_eq(symlink(shim, link), 0);
        xpu_test_write(dir, "state", "cuda_version 12040\ndevice_count 2\n");
        snprintf(workload_env_lib, sizeof workload_env_lib, "LD_LIBRARY_PATH=%s", dir);
        snprintf(workload_env_state, sizeof workload_env_state, "XPU_FAKE_STATE=%s/state", dir);
        struct xpu_seccomp_program *p = build("strict", -1);
        in_filtered_child(p, workload_child);
        xpu_seccomp_free(p);
        xpu_test_rm_rf(dir);
        free(dir);
}
END_TEST

/* ---- xpud --------------------------------------------------------------------------------- */

static void xpud_child(void) {
        common_allowed();
        common_denied();
        CHILD_EXPECT(execve(true_argv[0], true_argv, no_env), EPERM);
        CHILD_EXPECT(syscall(SYS_execveat, AT_FDCWD, true_argv[0], true_argv, no_env, 0), EPERM);
        CHILD_OK(syscall(SYS_setresuid, -1, -1, -1)); /* the vendor helper switches to nobody */
        CHILD_OK(setsid());
        CHILD_OK(prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0));
}

START_TEST(test_xpud) {
        struct xpu_seccomp_program *p = build("xpud", -1);
        in_filtered_child(p, xpud_child);
        xpu_seccomp_free(p);
}
END_TEST

#if defined(__x86_64__)
/* ---- foreign ABIs ---------------------------------------------------------------------------
 * The exported program runs here on synthetic seccomp_data (a small classic BPF interpreter for
 * the instructions libseccomp emits), so the i386 rules are checked even on a kernel without ia32
 * emulation; x32 numbers are checked live (the filter answers before the kernel). */

/* The library's interpreter (xpu_seccomp_verdict_arch) on P for ARCH's call NR. */
static uint32_t run_on(const struct xpu_seccomp_program *p, uint32_t arch, int nr, uint64_t a0) {
        return xpu_seccomp_verdict_arch(p, arch, nr, a0);
}

#define RET_EPERM (SECCOMP_RET_ERRNO | EPERM)
#define RET_ENOSYS (SECCOMP_RET_ERRNO | ENOSYS)

START_TEST(test_foreign_abis_bpf) {
        const char *specs[] = { "default", "strict", "xpud" };
        for (size_t i = 0; i < ELEMENTSOF(specs); i++) {
                struct xpu_seccomp_program *p = build(specs[i], -1);
                bool strict = strcmp(specs[i], "strict") == 0;
                /* native */
                ck_assert_uint_eq(run_on(p, AUDIT_ARCH_X86_64, SYS_getpid, 0), SECCOMP_RET_ALLOW);
                ck_assert_uint_eq(run_on(p, AUDIT_ARCH_X86_64, SYS_mount, 0), RET_EPERM);
                ck_assert_uint_eq(run_on(p, AUDIT_ARCH_X86_64, SYS_clone, CLONE_NEWUSER), RET_EPERM);
                ck_assert_uint_eq(run_on(p, AUDIT_ARCH_X86_64, SYS_clone, CLONE_VM | SIGCHLD), SECCOMP_RET_ALLOW);
                ck_assert_uint_eq(run_on(p, AUDIT_ARCH_X86_64, SYS_clone3, 0), RET_ENOSYS);
                /* i386 (AUDIT_ARCH_I386): getpid 20, mount 21, unshare 310, bpf 357, clone 120,
                 * setresuid32 208 (default allows it, strict denies it) */
                ck_assert_uint_eq(run_on(p, AUDIT_ARCH_I386, 20, 0), SECCOMP_RET_ALLOW);
                ck_assert_uint_eq(run_on(p, AUDIT_ARCH_I386, 21, 0), RET_EPERM);
                ck_assert_uint_eq(run_on(p, AUDIT_ARCH_I386, 310, CLONE_NEWNS), RET_EPERM);
                ck_assert_uint_eq(run_on(p, AUDIT_ARCH_I386, 357, 0), RET_EPERM);
                ck_assert_uint_eq(run_on(p, AUDIT_ARCH_I386, 120, CLONE_NEWUSER), RET_EPERM);
                ck_assert_uint_eq(run_on(p, AUDIT_ARCH_I386, 120, SIGCHLD), SECCOMP_RET_ALLOW);
                ck_assert_uint_eq(run_on(p, AUDIT_ARCH_I386, 208, 0), strict ? RET_EPERM : SECCOMP_RET_ALLOW);
                /* x32 (AUDIT_ARCH_X86_64, numbers | 0x40000000): mount 165, getpid 39 */
                ck_assert_uint_eq(run_on(p, AUDIT_ARCH_X86_64, 165 | 0x40000000, 0), RET_EPERM);
                ck_assert_uint_eq(run_on(p, AUDIT_ARCH_X86_64, 39 | 0x40000000, 0), SECCOMP_RET_ALLOW);
                /* any other ABI: killed */
                ck_assert_uint_eq(run_on(p, AUDIT_ARCH_AARCH64, 39, 0), SECCOMP_RET_KILL_PROCESS);
                ck_assert_uint_eq(run_on(p, AUDIT_ARCH_ARM, 20, 0), SECCOMP_RET_KILL_PROCESS);
                xpu_seccomp_free(p);
        }
}
END_TEST

static long int80(long nr, long a, long b, long c) {
        long ret;
        __asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
        return ret;
}

static bool i386_live;

static void abi_child(void) {
        /* x32 mount (165 | 0x40000000) and unshare (272): EPERM from the filter (ENOSYS would
         * mean it reached a kernel without x32, success that it was not filtered). */
        CHILD_EXPECT(syscall(165 | 0x40000000, 0, 0, 0, 0, 0), EPERM);
        CHILD_EXPECT(syscall(272 | 0x40000000, CLONE_NEWUSER), EPERM);
        if (!i386_live)
                return;
        /* i386 getpid (20) works; mount (21) and unshare (310) are denied like native ones. */
        if (int80(20, 0, 0, 0) != getpid())
                _exit(30);
        if (int80(21, 0, 0, 0) != -EPERM)
                _exit(31);
        if (int80(310, CLONE_NEWUSER, 0, 0) != -EPERM)
                _exit(32);
}

START_TEST(test_foreign_abis_live) {
        /* int 0x80 works only with ia32 emulation (ia32_emulation=0 or a kernel without
         * IA32_EMULATION kills it with SIGSEGV): the i386 rules then have the BPF test above. */
        pid_t pid = fork();
        if (pid == 0) {
                signal(SIGSEGV, SIG_DFL); /* no sanitizer report for the expected crash */
                _exit(int80(20, 0, 0, 0) == getpid() ? 0 : 1);
        }
        int st = 0;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        i386_live = WIFEXITED(st) && WEXITSTATUS(st) == 0;
        if (!i386_live)
                printf("# no ia32 emulation in this kernel: i386 checked on the BPF only (test_foreign_abis_bpf)\n");
        const char *specs[] = { "default", "strict", "xpud" };
        for (size_t i = 0; i < ELEMENTSOF(specs); i++) {
                struct xpu_seccomp_program *p = build(specs[i], -1);
                in_filtered_child(p, abi_child);
                xpu_seccomp_free(p);
        }
}
END_TEST
#endif

/* ---- JSON lists --------------------------------------------------------------------------- */

static int build_err(const char *spec, int root_fd, char *err, size_t size) {
        struct xpu_seccomp_program *p = NULL;
        err[0] = '\0';
        int r = xpu_seccomp_build(spec, root_fd, &p, err, size);
        ck_assert_msg(r < 0 || p, "success without a program");
        xpu_seccomp_free(p);
        return r;
}

static void list_child(void) {
        CHILD_OK(getpid());
        CHILD_OK(syscall(SYS_setresuid, -1, -1, -1)); /* named in the list besides @strict */
        CHILD_EXPECT(syscall(SYS_setresgid, -1, -1, -1), EPERM);
        CHILD_EXPECT(mount("none", "/mnt", "tmpfs", 0, NULL), EPERM);
        if (run_prog(true_argv, no_env) != 0)
                _exit(20);
}

START_TEST(test_json_list) {
        char *t = xpu_test_mkdtemp(), err[512];
        xpu_test_write(t, "etc/ok.json", "[\"@strict\", \"setresuid\"]\n");
        xpu_test_write(t, "etc/groups.json", "[\"@basic-io\", \"@file-system\", \"@memory\", \"@process\", "
                                             "\"@signal\", \"@time\", \"@network\", \"setresuid\"]");
        xpu_test_write(t, "etc/unknown.json", "[\"@strict\", \"mountt\"]");
        xpu_test_write(t, "etc/object.json", "{\"allow\": [\"read\"]}");
        xpu_test_write(t, "etc/empty.json", "[]");
        xpu_test_write(t, "etc/number.json", "[\"read\", 3]");
        xpu_test_write(t, "etc/denygroup.json", "[\"@mount\"]");
        xpu_test_write(t, "etc/nogroup.json", "[\"@everything\"]");
        xpu_test_write(t, "etc/broken.json", "[\"read\",");
        xpu_test_write(t, "../outside-secc.json", "[\"@strict\"]");
        /* Lists that would pass `plan` and then fail the workload's exec. */
        xpu_test_write(t, "etc/noexec.json", "[\"@basic-io\", \"@memory\"]");
        xpu_test_write(t, "etc/clone3.json", "[\"clone3\"]");
        xpu_test_write(t, "etc/execonly.json", "[\"execve\"]");
        xpu_test_write(t, "etc/execwrite.json", "[\"execve\", \"write\", \"@memory\"]");
        xpu_test_write(t, "etc/execmin.json", "[\"execve\", \"write\", \"exit\", \"exit_group\"]");
        /* A JSON escape: cJSON would read "read\u0000x" as "read". */
        xpu_test_write(t, "etc/escape.json", "[\"@strict\", \"read\\u0000x\"]");
        /* A NUL byte at offset 8, after a valid list. */
        char nul_path[4200];
        snprintf(nul_path, sizeof nul_path, "%s/etc/nul.json", t);
        FILE *nf = fopen(nul_path, "we");
        ck_assert_ptr_nonnull(nf);
        ck_assert_uint_eq(fwrite("[\"read\"]\0 ]", 1, 12, nf), 12);
        ck_assert_int_eq(fclose(nf), 0);
        char fifo[4200];
        snprintf(fifo, sizeof fifo, "%s/etc/fifo.json", t);
        ck_assert_int_eq(mkfifo(fifo, 0600), 0);
        char link[4200], out[4200];
        snprintf(link, sizeof link, "%s/etc/link.json", t);
        snprintf(out, sizeof out, "%s/../outside-secc.json", t);
        ck_assert_int_eq(symlink(out, link), 0);
        /* Too big: more than XPU_READ_MAX bytes. */
        size_t big = XPU_READ_MAX + 16;
        char *huge = malloc(big + 1);
        ck_assert_ptr_nonnull(huge);
        memset(huge, ' ', big);
        huge[0] = '[';
        huge[big - 1] = ']';
        huge[big] = '\0';
        xpu_test_write(t, "etc/huge.json", huge);
        free(huge);
        int root = xpu_open_root(t);
        ck_assert_int_ge(root, 0);

        struct xpu_seccomp_program *p = build("/etc/ok.json", root);
        in_filtered_child(p, list_child);
        xpu_seccomp_free(p);
        p = build("/etc/groups.json", root);
        in_filtered_child(p, list_child);
        xpu_seccomp_free(p);

        ck_assert_int_eq(build_err("/etc/unknown.json", root, err, sizeof err), -EINVAL);
        ck_assert_msg(strstr(err, "/etc/unknown.json") && strstr(err, "entry 1 \"mountt\"") && strstr(err, "spelling"),
                      "%s", err);
        ck_assert_int_eq(build_err("/etc/object.json", root, err, sizeof err), -EINVAL);
        ck_assert_msg(strstr(err, "/etc/object.json") && strstr(err, "not a JSON array"), "%s", err);
        ck_assert_int_eq(build_err("/etc/empty.json", root, err, sizeof err), -EINVAL);
        ck_assert_msg(strstr(err, "empty"), "%s", err);
        ck_assert_int_eq(build_err("/etc/number.json", root, err, sizeof err), -EINVAL);
        ck_assert_msg(strstr(err, "entry 1 is not a non-empty string"), "%s", err);
        ck_assert_int_eq(build_err("/etc/denygroup.json", root, err, sizeof err), -EINVAL);
        ck_assert_msg(strstr(err, "\"@mount\" is a deny group") && strstr(err, "@strict"), "%s", err);
        ck_assert_int_eq(build_err("/etc/nogroup.json", root, err, sizeof err), -EINVAL);
        ck_assert_msg(strstr(err, "\"@everything\" is not a group") && strstr(err, "@basic-io"), "%s", err);
        ck_assert_int_eq(build_err("/etc/broken.json", root, err, sizeof err), -EINVAL);
        ck_assert_msg(strstr(err, "not valid JSON"), "%s", err);
        ck_assert_int_eq(build_err("/etc/huge.json", root, err, sizeof err), -EFBIG);
        ck_assert_msg(strstr(err, "/etc/huge.json") && strstr(err, "larger than"), "%s", err);
        /* Outside the root: a symlink to a file beside the root, and "..": both resolve inside
         * the root, where no such file exists. */
        ck_assert_int_eq(build_err("/etc/link.json", root, err, sizeof err), -ENOENT);
        ck_assert_msg(strstr(err, "/etc/link.json") && strstr(err, "inside the container root"), "%s", err);
        ck_assert_int_eq(build_err("/../outside-secc.json", root, err, sizeof err), -ENOENT);
        /* Missing: the root by its path, and the fix. */
        char want[4400];
        snprintf(want, sizeof want, "seccomp list /etc/missing.json: no such file inside the container root %s; "
                 "create the file or fix the profile's seccomp path", t);
        ck_assert_int_eq(build_err("/etc/missing.json", root, err, sizeof err), -ENOENT);
        ck_assert_str_eq(err, want);
        ck_assert_int_eq(build_err("/etc/nodir/x.json", root, err, sizeof err), -ENOENT);
        ck_assert_msg(strstr(err, "create the file or fix the profile's seccomp path"), "%s", err);
        ck_assert_int_eq(build_err("/etc/escape.json", root, err, sizeof err), -EINVAL);
        ck_assert_msg(strstr(err, "seccomp list /etc/escape.json: a backslash at offset 17: names are plain"),
                      "%s", err);
        /* A NUL byte: where it is, not "Invalid argument". */
        ck_assert_int_eq(build_err("/etc/nul.json", root, err, sizeof err), -EINVAL);
        ck_assert_msg(strstr(err, "seccomp list /etc/nul.json: contains a NUL byte at offset 8;"), "%s", err);
        ck_assert_int_eq(build_err("/etc/fifo.json", root, err, sizeof err), -EINVAL);
        ck_assert_msg(strstr(err, "/etc/fifo.json: a FIFO, device or socket, not a regular file"), "%s", err);
        ck_assert_int_eq(build_err("/etc", root, err, sizeof err), -EISDIR);
        ck_assert_msg(strstr(err, "/etc: a directory, not a regular file"), "%s", err);
        /* No execve: refused when built (the plan), naming the file and the fix. */
        const char *noexec[] = { "/etc/noexec.json", "/etc/clone3.json" };
        for (size_t i = 0; i < ELEMENTSOF(noexec); i++) {
                ck_assert_int_eq(build_err(noexec[i], root, err, sizeof err), -EINVAL);
                ck_assert_msg(strstr(err, noexec[i]) && strstr(err, "does not allow execve") &&
                                      strstr(err, "add \"execve\" or \"@process\""),
                              "%s", err);
        }
        /* execve without write/exit/exit_group: a failed exec could not be reported (it crashed,
         * status 139, no message): refused too, the missing calls named. */
        ck_assert_int_eq(build_err("/etc/execonly.json", root, err, sizeof err), -EINVAL);
        ck_assert_msg(strstr(err, "seccomp list /etc/execonly.json: does not allow write, exit, exit_group, which "
                                  "xpuinit needs after loading the filter to report a failed exec"),
                      "%s", err);
        ck_assert_int_eq(build_err("/etc/execwrite.json", root, err, sizeof err), -EINVAL);
        ck_assert_msg(strstr(err, "does not allow exit, exit_group, which") && strstr(err, "\"@basic-io\" and \"@process\""),
                      "%s", err);
        p = build("/etc/execmin.json", root);
        ck_assert_uint_eq(xpu_seccomp_verdict(p, __NR_execve, 0), SECCOMP_RET_ALLOW);
        ck_assert_uint_eq(xpu_seccomp_verdict(p, __NR_exit_group, 0), SECCOMP_RET_ALLOW);
        ck_assert_uint_eq(xpu_seccomp_verdict(p, __NR_read, 0), SECCOMP_RET_ERRNO | EPERM);
        xpu_seccomp_free(p);
        ck_assert_int_eq(build_err("etc/ok.json", root, err, sizeof err), -EINVAL); /* not absolute */
        ck_assert_msg(strstr(err, "absolute path"), "%s", err);
        ck_assert_int_eq(build_err("none", root, err, sizeof err), -EINVAL);
        ck_assert_int_eq(build_err("/etc/ok.json", -1, err, sizeof err), -EBADF);
        close(root);
        char outside[4200];
        snprintf(outside, sizeof outside, "%s/../outside-secc.json", t);
        unlink(outside);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* ---- load: one syscall, no libseccomp, in a CLONE_VM child -------------------------------------- */

static const struct xpu_seccomp_program *vm_prog;
static volatile int vm_result = -1000;

/* Returns instead of calling _exit(): ASan warns about a noreturn call on a stack it did not
 * make; clone's wrapper exits with the return value. */
static int vm_child(void *arg) {
        /* Shares the parent's memory: no malloc, no libseccomp, only the raw syscalls. */
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
                vm_result = -1;
                return 1;
        }
        int r = xpu_seccomp_load(vm_prog);
        if (r < 0) {
                vm_result = r;
                return 1;
        }
        long m = syscall(SYS_mount, "none", "/mnt", "tmpfs", 0, NULL);
        vm_result = m == -1 && errno == EPERM ? 0 : 2;
        return 0;
}

/* Under a filter that denies seccomp(2) but allows prctl (strict here; systemd's
 * @system-service for xpud), a second filter still loads, through prctl(PR_SET_SECCOMP). */
static const struct xpu_seccomp_program *second;

static void stacked_child(void) {
        CHILD_EXPECT(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, NULL), EPERM);
        int r = xpu_seccomp_load(second);
        if (r < 0) {
                fprintf(stderr, "second load: %s\n", strerror(-r));
                _exit(40);
        }
        CHILD_EXPECT(syscall(SYS_execveat, AT_FDCWD, true_argv[0], true_argv, no_env, 0), EPERM); /* xpud's */
        char status[8192];
        int root = xpu_open_root("/");
        if (root < 0 || xpu_read_file_in_root(root, "/proc/self/status", status, sizeof status) < 0 ||
            !strstr(status, "\nSeccomp_filters:\t2\n"))
                _exit(41);
}

START_TEST(test_load_stacked) {
        struct xpu_seccomp_program *p = build("strict", -1);
        second = build("xpud", -1);
        in_filtered_child(p, stacked_child);
        second = xpu_seccomp_free((struct xpu_seccomp_program *)second);
        xpu_seccomp_free(p);
}
END_TEST

/* The built-in filters (packaging/seccomp-cgen, compiled at build time) are exactly what
 * libseccomp compiles now from the same tables, so the generated data cannot drift; building one
 * calls no libseccomp. A JSON list and the errors still go through the run-time compiler. */
START_TEST(test_builtin) {
        static const char *const specs[] = { "default", "strict", "xpud" };
        ck_assert_uint_eq(xpu_sc_n_builtins, ELEMENTSOF(specs));
        for (size_t i = 0; i < ELEMENTSOF(specs); i++) {
                atomic_store(&libseccomp_calls, 0);
                struct xpu_seccomp_program *b = build(specs[i], -1);
                ck_assert_int_eq(atomic_load(&libseccomp_calls), 0);
                ck_assert(xpu_seccomp_is_builtin(b));
                ck_assert_str_eq(xpu_sc_builtins[i].name, specs[i]);
                ck_assert_ptr_eq(xpu_seccomp_insns(b), xpu_sc_builtins[i].insns);
                struct xpu_seccomp_program *c = NULL;
                char err[512] = "";
                ck_assert_int_eq(xpu_seccomp_compile(specs[i], -1, &c, err, sizeof err), 0);
                ck_assert_int_gt(atomic_load(&libseccomp_calls), 0);
                ck_assert(!xpu_seccomp_is_builtin(c));
                ck_assert_str_eq(xpu_seccomp_name(c), specs[i]);
                ck_assert_uint_eq(xpu_seccomp_size(b), xpu_seccomp_size(c));
                for (size_t k = 0; k < xpu_seccomp_size(b); k++) {
                        const struct sock_filter *x = &xpu_seccomp_insns(b)[k], *y = &xpu_seccomp_insns(c)[k];
                        ck_assert_msg(x->code == y->code && x->jt == y->jt && x->jf == y->jf && x->k == y->k,
                                      "%s: instruction %zu: built-in {0x%x,%u,%u,0x%x}, libseccomp {0x%x,%u,%u,0x%x}; "
                                      "rebuild (make) so seccomp-cgen runs again",
                                      specs[i], k, x->code, x->jt, x->jf, x->k, y->code, y->jt, y->jf, y->k);
                }
                xpu_seccomp_free(c);
                xpu_seccomp_free(b);
        }
        /* Errors are the run-time compiler's, word for word. */
        char e1[512] = "", e2[512] = "";
        struct xpu_seccomp_program *p = NULL;
        ck_assert_int_eq(xpu_seccomp_build("Default", -1, &p, e1, sizeof e1), -EINVAL);
        ck_assert_int_eq(xpu_seccomp_compile("Default", -1, &p, e2, sizeof e2), -EINVAL);
        ck_assert_ptr_null(p);
        ck_assert_str_eq(e1, e2);
        ck_assert_int_eq(xpu_seccomp_build(NULL, -1, &p, e1, sizeof e1), -EINVAL);
        ck_assert_int_eq(xpu_seccomp_build("default", -1, NULL, e1, sizeof e1), -EINVAL);
        ck_assert(!xpu_seccomp_is_builtin(NULL));
}
END_TEST

START_TEST(test_load_clone_vm) {
        /* Compiled now (not a built-in): the load must not touch what libseccomp allocated. */
        struct xpu_seccomp_program *p = NULL;
        char err[512] = "";
        ck_assert_int_eq(xpu_seccomp_compile("default", -1, &p, err, sizeof err), 0);
        ck_assert(!xpu_seccomp_is_builtin(p));
        ck_assert_int_gt(atomic_load(&libseccomp_calls), 0); /* the interposition works */
        atomic_store(&libseccomp_calls, 0);
        vm_prog = p;
        size_t stack_size = 256 * 1024;
        char *stack = malloc(stack_size);
        ck_assert_ptr_nonnull(stack);
        pid_t pid = clone(vm_child, stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
        ck_assert_int_gt(pid, 0);
        int st = 0;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert_int_eq(vm_result, 0);
        ck_assert_int_eq(atomic_load(&libseccomp_calls), 0); /* the load called no libseccomp */
        free(stack);
        /* Without no_new_privs and CAP_SYS_ADMIN the kernel refuses: -EACCES, not a crash. */
        pid = fork();
        if (pid == 0) {
                if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0 || setresuid(65534, 65534, 65534) < 0)
                        _exit(2);
                _exit(xpu_seccomp_load(p) == -EACCES ? 0 : 1);
        }
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "load without no_new_privs: status %d", st);
        ck_assert_int_eq(xpu_seccomp_load(NULL), -EINVAL);
        ck_assert_ptr_null(xpu_seccomp_free(p));
        ck_assert_ptr_null(xpu_seccomp_free(NULL));
        ck_assert_str_eq(xpu_seccomp_name(NULL), "");
}
END_TEST

int main(void) {
        Suite *s = suite_create("seccomp");
        TCase *tc = tcase_create("seccomp");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_default);
        tcase_add_test(tc, test_strict);
        tcase_add_test(tc, test_strict_workload);
        tcase_add_test(tc, test_xpud);
#if defined(__x86_64__)
        tcase_add_test(tc, test_foreign_abis_bpf);
        tcase_add_test(tc, test_foreign_abis_live);
#endif
        tcase_add_test(tc, test_json_list);
        tcase_add_test(tc, test_load_stacked);
        tcase_add_test(tc, test_load_clone_vm);
        tcase_add_test(tc, test_builtin);
        suite_add_tcase(s, tc);
        return xpu_test_run(s);
}
