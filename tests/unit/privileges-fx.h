/* SPDX-License-Identifier: Apache-2.0 */
/* What test-privileges.c and test-privileges.seccomp.c share: the privileged sequence of a start
 * (xpu_start_privileges(), entrypoint/privileges.c) run in a forked child, since it changes the
 * process (groups, bounding set, no_new_privs, a filter, closed descriptors). The child applies a
 * plan with one file (the loader drop-in) to a scratch container root first, so that a stop has
 * something to take back, then runs the sequence on a plan whose ids, groups and capability
 * sets the case gives, and writes what it sees as "key value" lines: the return value, its
 * descriptors, what S holds, and the lines of /proc/self/status (CapBnd, NoNewPrivs, Seccomp,
 * Groups). The test compares them with exact values. Needs root with CAP_SETPCAP, CAP_SETGID
 * and CAP_SETUID (a default container's), and fails loudly otherwise. */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "base/path.h"
#include "entrypoint/plan.h"
#include "entrypoint/privileges.h"
#include "entrypoint/stop.h"
#include "sandbox/privilege.h"
#include "sandbox/seccomp.h"
#include "testlib.h"

#define BIT(c) XPU_CAP_BIT(c)
#define DROPIN "/etc/ld.so.conf.d/000-xpuinit.conf"
#define DEVICE_GROUP 4242 /* the group of the device node the plan names */

static char *tmp;
/* What the test process has; expectations are computed from it. */
static uint64_t have_eff, have_prm, have_bnd;

static void setup(void) {
        tmp = xpu_test_mkdtemp();
        ck_assert_int_eq(xpu_capability_current(&have_eff, &have_prm, &have_bnd), 0);
        const uint64_t need = BIT(CAP_SETPCAP) | BIT(CAP_SETUID) | BIT(CAP_SETGID) | BIT(CAP_KILL);
        ck_assert_msg(geteuid() == 0 && (have_eff & need) == need,
                      "test-privileges needs root with CAP_SETPCAP, CAP_SETUID, CAP_SETGID and CAP_KILL (has %#llx)",
                      (unsigned long long)have_eff);
        xpu_test_write(tmp, "rootfs/etc/ld.so.conf.d/libc.conf", "/usr/local/lib\n");
        xpu_test_write(tmp, "devroot/dev/.keep", "");
}

static void teardown(void) {
        xpu_test_rm_rf(tmp);
        free(tmp);
}

/* One run of the sequence. */
struct seq_case {
        bool exec;               /* --exec: no supervisor */
        bool user_set;           /* --user 1000:1000 */
        const char *filter;      /* the plan's seccomp filter ("default", "strict") */
        uint64_t bounding;       /* the plan's bounding set (0: the whole of xpuinit's) */
        bool stop;               /* a SIGTERM pending when the sequence starts */
        uint64_t drop_effective; /* capabilities the child removes from its effective set first */
        bool node;               /* the device node that asks for DEVICE_GROUP is in the dev root */
        bool info;               /* log info lines too (-v info) */
};

/* Remove CAPS from the calling process's effective set. Returns 0 or -1. */
static int drop_effective(uint64_t caps) {
        cap_t c = cap_get_proc();
        if (!c)
                return -1;
        int r = 0;
        for (cap_value_t v = 0; v <= CAP_LAST_CAP && r == 0; v++)
                if (caps & BIT(v))
                        r = cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_CLEAR);
        r = r == 0 ? cap_set_proc(c) : r;
        cap_free(c);
        return r;
}

/* Copy the /proc/self/status lines of KEYS into OUT as "key value". */
static void status_lines(int out) {
        static const char *const keys[] = { "CapBnd:", "NoNewPrivs:", "Seccomp:", "Groups:" };
        FILE *f = fopen("/proc/self/status", "re");
        char line[1024];
        while (f && fgets(line, sizeof line, f))
                for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
                        if (strncmp(line, keys[i], strlen(keys[i])) == 0) {
                                char *v = line + strlen(keys[i]);
                                v += strspn(v, " \t");
                                v[strcspn(v, "\n")] = '\0';
                                dprintf(out, "%.*s %s\n", (int)strlen(keys[i]) - 1, keys[i], v);
                        }
        if (f)
                fclose(f);
}

static const char *which(const struct xpu_seccomp_program *p, const struct xpu_start_privileges *s) {
        return !p ? "none" : p == s->filter ? "plan" : p == s->self_filter ? "self" : "other";
}

/* The child: everything the case asks, then the sequence; never returns. */
_Noreturn static void seq_child(const struct seq_case *c, int out) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/stderr", tmp);
        int efd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (efd < 0 || dup2(efd, STDERR_FILENO) < 0)
                _exit(90);
        xpu_log_set_program("xpuinit");
        if (c->info)
                xpu_log_set_level(XPU_LOG_INFO);
        if (c->drop_effective && drop_effective(c->drop_effective) < 0)
                _exit(91);
        if (c->stop) { /* as main(): blocked from the start, pending when it comes */
                sigset_t set;
                sigemptyset(&set);
                sigaddset(&set, SIGTERM);
                sigprocmask(SIG_BLOCK, &set, NULL);
                xpu_stop_arm();
                raise(SIGTERM);
        }
        char container[PATH_MAX], devroot[PATH_MAX];
        snprintf(container, sizeof container, "%s/rootfs", tmp);
        snprintf(devroot, sizeof devroot, "%s/devroot", tmp);
        if (c->node)
                xpu_test_write(devroot, "dev/nvidiactl", "");
        int container_fd = xpu_open_root(container), dev_fd = xpu_open_root(devroot);
        if (container_fd < 0 || dev_fd < 0)
                _exit(92);
        struct xpu_plan *p = calloc(1, sizeof *p);
        struct xpu_op *op = p ? xpu_plan_add_op(p, XPU_OP_WRITE_FILE, DROPIN) : NULL;
        if (!op || !(op->content = strdup("/run/xpuinit/lib\n")))
                _exit(93);
        snprintf(p->library_dir, sizeof p->library_dir, "/run/xpuinit/lib");
        p->inject = XPU_INJECT_LINK;
        struct xpu_apply_record record = { 0 }; /* what the stop check takes back */
        const struct xpu_apply_roots roots = { .container_fd = container_fd, .container_path = container,
                                               .driver_fd = container_fd, .dev_fd = dev_fd, .dev_path = devroot,
                                               .record = &record };
        char err[512] = "";
        if (xpu_plan_apply(p, &roots, false, err, sizeof err) < 0)
                _exit(94);
        uint64_t eff, prm, bnd;
        if (xpu_capability_current(&eff, &prm, &bnd) < 0)
                _exit(95);
        static gid_t groups[] = { DEVICE_GROUP };
        static char *from[] = { (char *)"/dev/nvidiactl", NULL };
        p->user_set = c->user_set;
        p->uid = c->user_set ? 1000 : getuid();
        p->gid = c->user_set ? 1000 : getgid();
        p->groups = groups;
        p->groups_from = from;
        p->n_groups = 1;
        p->cap_have_effective = eff;
        p->cap_have_permitted = prm;
        p->cap_have_bounding = bnd;
        p->cap_bounding = c->bounding ? c->bounding & bnd : bnd;
        p->cap_keep = p->cap_bounding & prm;
        struct xpu_seccomp_program *f = NULL;
        if (xpu_seccomp_build(c->filter, -1, &f, err, sizeof err) < 0)
                _exit(96);
        /* xpuinit's own descriptors: two open ones, an unset one and an empty slot. */
        int fa = open("/dev/null", O_RDONLY | O_CLOEXEC), fb = dup(fa), none = -1;
        const int a = fa, b = fb;
        const struct xpu_start_own own = { .applied = &roots, .fds = { &fa, &fb, &none, NULL } };
        struct xpu_start_privileges s = XPU_START_PRIVILEGES_INIT;
        int r = xpu_start_privileges(&s, p, f, &own, c->exec);
        dprintf(out, "rc %d\n", r);
        dprintf(out, "fds %d %d %d\n", fa, fb, none);
        dprintf(out, "open %d %d\n", fcntl(a, F_GETFD) >= 0, fcntl(b, F_GETFD) >= 0);
        struct stat st;
        dprintf(out, "dropin %d\n", fstatat(container_fd, DROPIN + 1, &st, AT_SYMLINK_NOFOLLOW) == 0);
        dprintf(out, "filter_owned %d\n", s.filter == f);
        dprintf(out, "self_filter %d\n", s.self_filter != NULL);
        dprintf(out, "shared %s\n", which(s.shared, &s));
        dprintf(out, "workload_seccomp %s\n", which(s.workload.seccomp, &s));
        dprintf(out, "supervisor_seccomp %s\n", which(s.supervisor.seccomp, &s));
        dprintf(out, "workload_set_ids %d\n", s.workload.set_ids);
        dprintf(out, "workload_groups %zu\n", s.workload.n_groups);
        dprintf(out, "workload_bounding %#llx\n", (unsigned long long)s.workload.bounding);
        dprintf(out, "workload_keep %#llx\n", (unsigned long long)s.workload.keep);
        dprintf(out, "workload_bounding_now %#llx\n", (unsigned long long)s.workload.bounding_now);
        dprintf(out, "supervisor_bounding_now %#llx\n", (unsigned long long)s.supervisor.bounding_now);
        dprintf(out, "supervisor_keep %#llx\n", (unsigned long long)s.supervisor.keep);
        dprintf(out, "supervisor_bounding %#llx\n", (unsigned long long)s.supervisor.bounding);
        status_lines(out);
        _exit(0);
}

/* What a run left: its lines and its log. */
struct seq_result {
        char lines[8192];
        char log[8192];
};

static void read_into(const char *name, char *buf, size_t size) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", tmp, name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
        ssize_t n = read(fd, buf, size - 1);
        close(fd);
        buf[n > 0 ? n : 0] = '\0';
}

/* Run case C in a child; asserts that it got as far as the sequence. */
static void seq_run(const struct seq_case *c, struct seq_result *res) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/lines", tmp);
        int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        ck_assert_int_ge(out, 0);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0)
                seq_child(c, out);
        close(out);
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        read_into("lines", res->lines, sizeof res->lines);
        read_into("stderr", res->log, sizeof res->log);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x (90+: its set-up failed)\n%s", st,
                      res->log);
}

/* The value of KEY in RES (static buffer). */
static const char *field(const struct seq_result *res, const char *key) {
        static char v[1024];
        size_t n = strlen(key);
        for (const char *l = res->lines; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
                if (strncmp(l, key, n) == 0 && l[n] == ' ') {
                        snprintf(v, sizeof v, "%.*s", (int)strcspn(l + n + 1, "\n"), l + n + 1);
                        return v;
                }
        ck_abort_msg("no \"%s\" in\n%s", key, res->lines);
        return NULL;
}

static unsigned long long field_hex(const struct seq_result *res, const char *key) {
        return strtoull(field(res, key), NULL, 16);
}

/* Whether the process's supplementary groups (the Groups line) hold GID. */
static bool has_group(const struct seq_result *res, gid_t gid) {
        char groups[1024];
        snprintf(groups, sizeof groups, " %s ", field(res, "Groups"));
        char want[32];
        snprintf(want, sizeof want, " %u ", (unsigned)gid);
        return strstr(groups, want) != NULL;
}
