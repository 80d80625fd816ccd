/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base/mountinfo.c: mountinfo lines and the origin of a tmpfs on a write target's way. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/mountinfo.h"
#include "base/path.h"
#include "testlib.h"

START_TEST(test_parse_line) {
        struct xpu_mount_entry e;
        ck_assert_int_eq(xpu_mountinfo_parse_line("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root "
                                                  "rw,errors=continue\n",
                                                  &e),
                         0);
        ck_assert_uint_eq(e.id, 36);
        ck_assert_uint_eq(e.major, 98);
        ck_assert_uint_eq(e.minor, 0);
        ck_assert_str_eq(e.root, "/mnt1");
        ck_assert_str_eq(e.point, "/mnt2");
        ck_assert_str_eq(e.fstype, "ext3");
        ck_assert_uint_eq(e.master, 1);
        /* no optional fields; an escaped space and backslash in the mount point */
        ck_assert_int_eq(xpu_mountinfo_parse_line("812 27 0:75 / /tmp/a\\040b\\134c rw - tmpfs tmpfs rw", &e), 0);
        ck_assert_str_eq(e.point, "/tmp/a b\\c");
        ck_assert_str_eq(e.root, "/");
        ck_assert_uint_eq(e.minor, 75);
        ck_assert_uint_eq(e.master, 0);
        ck_assert_int_eq(xpu_mountinfo_parse_line("36 35 98:0 / /x rw master:x - ext3 /dev/root rw", &e), -EINVAL);
        ck_assert_int_eq(xpu_mountinfo_parse_line("36 35 98:0 / /x rw master:0 - ext3 /dev/root rw", &e), -EINVAL);
        /* malformed */
        ck_assert_int_eq(xpu_mountinfo_parse_line("", &e), -EINVAL);
        ck_assert_int_eq(xpu_mountinfo_parse_line("36 35 98:0 / /x rw shared:1 ext3 /dev/root rw", &e), -EINVAL);
        ck_assert_int_eq(xpu_mountinfo_parse_line("36 35 98 / /x rw - ext3 /dev/root rw", &e), -EINVAL);
        ck_assert_int_eq(xpu_mountinfo_parse_line("x 35 98:0 / /x rw - ext3 /dev/root rw", &e), -EINVAL);
        ck_assert_int_eq(xpu_mountinfo_parse_line("36 35 -1:0 / /x rw - ext3 /dev/root rw", &e), -EINVAL);
        ck_assert_int_eq(xpu_mountinfo_parse_line("36 35 98:0 / /x rw -", &e), -EINVAL);
        char longline[PATH_MAX + 64];
        memset(longline, 'a', sizeof longline);
        memcpy(longline, "1 2 0:1 /", 9);
        longline[sizeof longline - 1] = '\0';
        ck_assert_int_eq(xpu_mountinfo_parse_line(longline, &e), -EINVAL);
}
END_TEST

/* A stat file for a process that started TICKS clock ticks after boot, with a comm of spaces
 * and parentheses (fields are counted from the last ')'). */
static void write_stat(const char *dir, unsigned long long ticks) {
        char buf[512];
        snprintf(buf, sizeof buf,
                 "1 (a) (b c) S 0 1 1 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 %llu 1000 10 18446744073709551615\n",
                 ticks);
        xpu_test_write(dir, "stat", buf);
}

static unsigned long long ticks_now(void) {
        struct timespec bt;
        clock_gettime(CLOCK_BOOTTIME, &bt);
        long hz = sysconf(_SC_CLK_TCK);
        return (unsigned long long)bt.tv_sec * (unsigned long long)hz +
               (unsigned long long)bt.tv_nsec * (unsigned long long)hz / 1000000000ull;
}

START_TEST(test_process_start) {
        _cleanup_free_ char *d = xpu_test_mkdtemp();
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/stat", d);
        unsigned long long now = ticks_now();
        write_stat(d, now);
        int64_t ns = 0;
        ck_assert_int_eq(xpu_process_start_realtime_ns(path, &ns), 0);
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        int64_t rt_ns = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
        /* a process started "now" (to the tick) started within a second of the wall clock now */
        ck_assert_int_lt(llabs(rt_ns - ns), 1000000000LL);
        xpu_test_write(d, "stat", "1 (init) S 0 1 1\n");
        ck_assert_int_eq(xpu_process_start_realtime_ns(path, &ns), -EINVAL);
        xpu_test_write(d, "stat", "garbage without a parenthesis");
        ck_assert_int_eq(xpu_process_start_realtime_ns(path, &ns), -EINVAL);
        snprintf(path, sizeof path, "%s/missing", d);
        ck_assert_int_eq(xpu_process_start_realtime_ns(path, &ns), -ENOENT);
        xpu_test_rm_rf(d);
}
END_TEST

/* A tmpfs in a private mount namespace of this (forked) test, for the birth-time rule. */
struct tmpfs_case {
        char *dir;
        char mnt[PATH_MAX], mountinfo[PATH_MAX], stat[PATH_MAX];
        int fd;
        uint64_t id;
};

static void tmpfs_case_init(struct tmpfs_case *t) {
        ck_assert_msg(unshare(CLONE_NEWNS) == 0, "unshare(CLONE_NEWNS): %s (needs root)", strerror(errno));
        ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
        t->dir = xpu_test_mkdtemp();
        snprintf(t->mnt, sizeof t->mnt, "%s/t", t->dir);
        snprintf(t->mountinfo, sizeof t->mountinfo, "%s/mountinfo", t->dir);
        snprintf(t->stat, sizeof t->stat, "%s/stat", t->dir);
        ck_assert_int_eq(mkdir(t->mnt, 0755), 0);
        ck_assert_msg(mount("xpu-test", t->mnt, "tmpfs", 0, NULL) == 0, "mount tmpfs: %s", strerror(errno));
        t->fd = open(t->mnt, O_PATH | O_DIRECTORY | O_CLOEXEC);
        ck_assert_int_ge(t->fd, 0);
        struct statx stx;
        ck_assert_int_eq(statx(t->fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx), 0);
        ck_assert(stx.stx_mask & STATX_MNT_ID);
        t->id = stx.stx_mnt_id;
}

static void tmpfs_case_mountinfo(struct tmpfs_case *t, const char *extra) {
        char buf[4096];
        snprintf(buf, sizeof buf,
                 "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n"
                 "%llu 1 0:4242 / /run rw,nosuid shared:7 - tmpfs tmpfs rw,mode=755\n%s",
                 (unsigned long long)t->id, extra);
        xpu_test_write(t->dir, "mountinfo", buf);
}

START_TEST(test_origin_rules) {
        struct tmpfs_case t;
        tmpfs_case_init(&t);
        struct xpu_tmpfs_verdict v;
        /* PID 1 started at boot: the tmpfs is younger, once, whole: the container's own */
        write_stat(t.dir, 1);
        tmpfs_case_mountinfo(&t, "");
        ck_assert_int_eq(xpu_tmpfs_origin(t.fd, t.id, t.mountinfo, t.stat, false, &v), 0);
        ck_assert_int_eq(v.origin, XPU_TMPFS_OWN);
        /* the same superblock stacked on the same point is not "elsewhere" */
        tmpfs_case_mountinfo(&t, "999999 1 0:4242 / /run rw - tmpfs tmpfs rw\n");
        ck_assert_int_eq(xpu_tmpfs_origin(t.fd, t.id, t.mountinfo, t.stat, false, &v), 0);
        ck_assert_int_eq(v.origin, XPU_TMPFS_OWN);
        /* mounted at another point too: a bind of a host's tmpfs */
        tmpfs_case_mountinfo(&t, "999999 1 0:4242 / /host\\040run rw - tmpfs tmpfs rw\n");
        ck_assert_int_eq(xpu_tmpfs_origin(t.fd, t.id, t.mountinfo, t.stat, false, &v), 0);
        ck_assert_int_eq(v.origin, XPU_TMPFS_SHARED);
        ck_assert_str_eq(v.detail, "/host run");
        /* a line that does not parse could be that other mount (a point past PATH_MAX): refused */
        tmpfs_case_mountinfo(&t, "garbage line\n");
        ck_assert_int_eq(xpu_tmpfs_origin(t.fd, t.id, t.mountinfo, t.stat, false, &v), 0);
        ck_assert_int_eq(v.origin, XPU_TMPFS_UNKNOWN);
        ck_assert_msg(strstr(v.detail, "has a line it cannot read") != NULL, "%s", v.detail);
        /* PID 1 started after the tmpfs was made: a tmpfs older than the container */
        tmpfs_case_mountinfo(&t, "");
        write_stat(t.dir, ticks_now() + 2 * (unsigned long long)sysconf(_SC_CLK_TCK));
        ck_assert_int_eq(xpu_tmpfs_origin(t.fd, t.id, t.mountinfo, t.stat, false, &v), 0);
        ck_assert_int_eq(v.origin, XPU_TMPFS_OLDER);
        ck_assert_msg(strstr(v.detail, " s") != NULL, "detail %s", v.detail);
        /* an unreadable PID 1 stat: the birth-time rule cannot apply, the others did */
        ck_assert_int_eq(xpu_tmpfs_origin(t.fd, t.id, t.mountinfo, "/nonexistent/stat", false, &v), 0);
        ck_assert_int_eq(v.origin, XPU_TMPFS_OWN);
        xpu_test_rm_rf(t.mountinfo);
        ck_assert_int_eq(xpu_tmpfs_origin(t.fd, t.id, t.mountinfo, t.stat, false, &v), -ENOENT);
        close(t.fd);
        umount2(t.mnt, MNT_DETACH);
        xpu_test_rm_rf(t.dir);
        free(t.dir);
}
END_TEST

START_TEST(test_origin_subdir_unknown) {
        struct tmpfs_case t;
        tmpfs_case_init(&t);
        struct xpu_tmpfs_verdict v;
        write_stat(t.dir, 1);
        char buf[512];
        snprintf(buf, sizeof buf, "%llu 1 0:4242 /xpu-host/run /run rw - tmpfs tmpfs rw\n", (unsigned long long)t.id);
        xpu_test_write(t.dir, "mountinfo", buf);
        ck_assert_int_eq(xpu_tmpfs_origin(t.fd, t.id, t.mountinfo, t.stat, false, &v), 0);
        ck_assert_int_eq(v.origin, XPU_TMPFS_SUBDIR);
        ck_assert_str_eq(v.detail, "/xpu-host/run");
        /* "master:N": it came by propagation from a mount outside (HostToContainer, rslave) */
        snprintf(buf, sizeof buf, "%llu 1 0:4242 / /run rw,relatime shared:3 master:2 - tmpfs tmpfs rw\n",
                 (unsigned long long)t.id);
        xpu_test_write(t.dir, "mountinfo", buf);
        ck_assert_int_eq(xpu_tmpfs_origin(t.fd, t.id, t.mountinfo, t.stat, false, &v), 0);
        ck_assert_int_eq(v.origin, XPU_TMPFS_PROPAGATED);
        ck_assert_str_eq(v.detail, "master:2");
        /* shared only (the container's own, with shared propagation) is not propagated from outside */
        snprintf(buf, sizeof buf, "%llu 1 0:4242 / /run rw shared:3 - tmpfs tmpfs rw\n", (unsigned long long)t.id);
        xpu_test_write(t.dir, "mountinfo", buf);
        ck_assert_int_eq(xpu_tmpfs_origin(t.fd, t.id, t.mountinfo, t.stat, false, &v), 0);
        ck_assert_int_eq(v.origin, XPU_TMPFS_OWN);
        /* no line for the mount: cannot tell */
        xpu_test_write(t.dir, "mountinfo", "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n");
        ck_assert_int_eq(xpu_tmpfs_origin(t.fd, t.id, t.mountinfo, t.stat, false, &v), 0);
        ck_assert_int_eq(v.origin, XPU_TMPFS_UNKNOWN);
        /* the real /proc/self/mountinfo knows the real mount: whole, once, made after our PID 1 */
        ck_assert_int_eq(xpu_tmpfs_origin(t.fd, t.id, "/proc/self/mountinfo", t.stat, false, &v), 0);
        ck_assert_int_eq(v.origin, XPU_TMPFS_OWN);
        close(t.fd);
        umount2(t.mnt, MNT_DETACH);
        xpu_test_rm_rf(t.dir);
        free(t.dir);
}
END_TEST

/* The write-target walk refuses a directory of a tmpfs bound into the root, and crosses a tmpfs
 * mounted there for it. */
START_TEST(test_beneath_tmpfs) {
        struct tmpfs_case t;
        tmpfs_case_init(&t);
        char root[PATH_MAX], run[PATH_MAX], sub[PATH_MAX];
        snprintf(root, sizeof root, "%s/root", t.dir);
        snprintf(run, sizeof run, "%s/root/run", t.dir);
        snprintf(sub, sizeof sub, "%s/sub", t.mnt);
        ck_assert_int_eq(mkdir(root, 0755), 0);
        ck_assert_int_eq(mkdir(run, 0755), 0);
        ck_assert_int_eq(mkdir(sub, 0755), 0);
        ck_assert_int_eq(mount(sub, run, NULL, MS_BIND, NULL), 0);
        int rfd = xpu_open_root(root);
        ck_assert_int_ge(rfd, 0);
        struct xpu_path_refusal why;
        ck_assert_int_eq(xpu_check_beneath(rfd, "/run/xpuinit", &why), -EXDEV);
        ck_assert_int_eq(why.kind, XPU_REFUSE_TMPFS_SUBDIR);
        ck_assert_str_eq(why.path, "/run");
        char msg[PATH_MAX * 3];
        xpu_path_refusal_format(&why, "the container root", msg, sizeof msg);
        ck_assert_msg(strstr(msg, "/run is a mount point of the directory /sub of a tmpfs") != NULL, "%s", msg);
        ck_assert_int_eq(umount2(run, MNT_DETACH), 0);
        /* the whole tmpfs bound there is mounted twice: refused as well */
        ck_assert_int_eq(mount(t.mnt, run, NULL, MS_BIND, NULL), 0);
        ck_assert_int_eq(xpu_check_beneath(rfd, "/run/xpuinit", &why), -EXDEV);
        ck_assert_int_eq(why.kind, XPU_REFUSE_TMPFS_SHARED);
        ck_assert_str_eq(why.detail, t.mnt);
        ck_assert_int_eq(umount2(run, MNT_DETACH), 0);
        /* a tmpfs of its own: crossed */
        ck_assert_int_eq(mount("xpu-own", run, "tmpfs", 0, NULL), 0);
        ck_assert_int_eq(xpu_check_beneath(rfd, "/run/xpuinit", &why), 0);
        ck_assert_int_eq(umount2(run, MNT_DETACH), 0);
        close(rfd);
        close(t.fd);
        umount2(t.mnt, MNT_DETACH);
        xpu_test_rm_rf(t.dir);
        free(t.dir);
}
END_TEST

static Suite *mountinfo_suite(void) {
        Suite *s = suite_create("mountinfo");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_parse_line);
        tcase_add_test(tc, test_process_start);
        tcase_add_test(tc, test_origin_rules);
        tcase_add_test(tc, test_origin_subdir_unknown);
        tcase_add_test(tc, test_beneath_tmpfs);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(mountinfo_suite());
}
