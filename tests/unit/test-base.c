/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base: root-confined file access and text parsers. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/fileio.h"
#include "base/path.h"
#include "base/str.h"
#include "devcode/elf.h"
#include "probe.h"
#include "testlib.h"

START_TEST(test_parse_u64) {
        uint64_t v = 0;
        ck_assert_int_eq(xpu_parse_u64(" 42\n", 10, &v), 0);
        ck_assert_uint_eq(v, 42);
        ck_assert_int_eq(xpu_parse_u64("0x1002", 0, &v), 0);
        ck_assert_uint_eq(v, 0x1002);
        ck_assert_int_eq(xpu_parse_u64("18446744073709551615", 10, &v), 0);
        ck_assert_uint_eq(v, UINT64_MAX);
        ck_assert_int_eq(xpu_parse_u64("18446744073709551616", 10, &v), -ERANGE);
        ck_assert_int_eq(xpu_parse_u64("-1", 10, &v), -ERANGE);
        ck_assert_int_eq(xpu_parse_u64("12abc", 10, &v), -EINVAL);
        ck_assert_int_eq(xpu_parse_u64("", 10, &v), -EINVAL);
        ck_assert_int_eq(xpu_parse_u64("   ", 10, &v), -EINVAL);
}
END_TEST

START_TEST(test_parse_i64) {
        int64_t v = 0;
        ck_assert_int_eq(xpu_parse_i64("-1\n", 10, &v), 0);
        ck_assert_int_eq(v, -1);
        ck_assert_int_eq(xpu_parse_i64("x", 10, &v), -EINVAL);
}
END_TEST

/* Every spelling a source uses becomes one canonical form: lower case, domain of 4 digits, or of
 * 8 when the number needs more than 4 (Hyper-V). */
static const struct {
        const char *in, *want;
} bus_id_spellings[] = {
        { "0000:1a:00.0", "0000:1a:00.0" },         /* procfs directory, sysfs link, Bus Location */
        { "00000000:1A:00.0", "0000:1a:00.0" },     /* nvidia-smi, NVML busId (8-digit domain) */
        { "0000:1A:00.0", "0000:1a:00.0" },         /* NVML busIdLegacy */
        { "0000:A3:00.0", "0000:a3:00.0" },         /* rocm-smi */
        { "1b:00.0", "0000:1b:00.0" },              /* no domain (user input) */
        { "3:0.0", "0000:03:00.0" },                /* short fields */
        { "0004:04:00.0\n", "0004:04:00.0" },       /* POWER9 domain, a line read from a file */
        { "  0000:ff:1f.7 ", "0000:ff:1f.7" },      /* largest bus, device, function */
        { "ffff:00:01.0", "ffff:00:01.0" },         /* widest 4-digit domain */
        { "10000:00:00.0", "00010000:00:00.0" },    /* first domain that needs more than 4 digits */
        { "1a2b3c:00:00.0", "001a2b3c:00:00.0" },   /* Hyper-V domain as the kernel spells it */
        { "001A2B3C:00:00.0", "001a2b3c:00:00.0" }, /* the same as NVML spells it */
        { "3f8cfdd:00:00.0", "03f8cfdd:00:00.0" },  /* Azure, kernel spelling (7 digits) */
        { "03F8CFDD:00:00.0", "03f8cfdd:00:00.0" }, /* Azure, nvidia-smi spelling */
        { "3E3F8E05:00:00.0", "3e3f8e05:00:00.0" }, /* 8 significant digits */
        { "00000001:83:00.0", "0001:83:00.0" },     /* 8-digit spelling of a small domain */
};

START_TEST(test_pci_bus_id_spellings) {
        char out[XPU_PCI_BUS_ID_MAX];
        const char *in = bus_id_spellings[_i].in;
        ck_assert_msg(xpu_pci_bus_id_normalize(in, out) == 0, "\"%s\" does not parse", in);
        ck_assert_str_eq(out, bus_id_spellings[_i].want);
        /* The canonical form reads back as the same numbers. */
        struct xpu_pci_bus_id a, b;
        ck_assert_int_eq(xpu_pci_bus_id_parse(in, &a), 0);
        ck_assert_int_eq(xpu_pci_bus_id_parse(out, &b), 0);
        ck_assert_int_eq(xpu_pci_bus_id_compare(&a, &b), 0);
        ck_assert(xpu_pci_bus_id_equal(in, out));
}
END_TEST

START_TEST(test_pci_bus_id) {
        char out[XPU_PCI_BUS_ID_MAX] = "untouched";
        struct xpu_pci_bus_id id = { 0 };
        ck_assert_int_eq(xpu_pci_bus_id_parse("001A2B3C:3b:1f.7", &id), 0);
        ck_assert_uint_eq(id.domain, 0x1a2b3c);
        ck_assert_uint_eq(id.bus, 0x3b);
        ck_assert_uint_eq(id.device, 0x1f);
        ck_assert_uint_eq(id.function, 7);
        xpu_pci_bus_id_format(&id, out);
        ck_assert_str_eq(out, "001a2b3c:3b:1f.7");
        id = (struct xpu_pci_bus_id){ .domain = UINT32_MAX, .bus = 0xff, .device = 0x1f, .function = 7 };
        xpu_pci_bus_id_format(&id, out);
        ck_assert_str_eq(out, "ffffffff:ff:1f.7");
        ck_assert_uint_lt(strlen(out), XPU_PCI_BUS_ID_MAX);

        /* Refused, and nothing written */
        static const char *const bad[] = { "0000:1a:00.8", "0000:1a:20.0", "123456789:1a:00.0", "0000:100:00.0",
                                           "GPU-1234", "", " ", "0000:1a:00", "0000:1a:00.", ":1a:00.0",
                                           "0000::00.0", "0x00:1a:00.0", "0000:1a:00.0.0", "00 00:1a:00.0" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                xpu_strlcpy(out, "untouched", sizeof out);
                ck_assert_msg(xpu_pci_bus_id_normalize(bad[i], out) == -EINVAL, "\"%s\" accepted", bad[i]);
                ck_assert_str_eq(out, "untouched");
        }
        ck_assert_int_eq(xpu_pci_bus_id_parse(NULL, &id), -EINVAL);

        /* Compared as numbers, not as text: 0xffff < 0x10000 < 0x3f8cfdd < 0x3e3f8e05, although
         * "3f8cfdd" > "3e3f8e05" and "ffff" > "10000" as strings. */
        static const char *const order[] = { "0000:07:00.0", "0000:41:00.0", "ffff:00:01.0", "10000:00:00.0",
                                             "3f8cfdd:00:00.0", "3E3F8E05:00:00.0" };
        for (size_t i = 0; i + 1 < ELEMENTSOF(order); i++) {
                struct xpu_pci_bus_id lo, hi;
                ck_assert_int_eq(xpu_pci_bus_id_parse(order[i], &lo), 0);
                ck_assert_int_eq(xpu_pci_bus_id_parse(order[i + 1], &hi), 0);
                ck_assert_int_lt(xpu_pci_bus_id_compare(&lo, &hi), 0);
                ck_assert_int_gt(xpu_pci_bus_id_compare(&hi, &lo), 0);
                ck_assert(!xpu_pci_bus_id_equal(order[i], order[i + 1]));
        }
        ck_assert(xpu_pci_bus_id_equal("0000:1a:00.1", "00000000:1A:00.1"));
        ck_assert(!xpu_pci_bus_id_equal("0000:1a:00.1", "0000:1a:00.0"));
        ck_assert(!xpu_pci_bus_id_equal("", ""));
        ck_assert(!xpu_pci_bus_id_equal("nonsense", "nonsense"));
        ck_assert(!xpu_pci_bus_id_equal(NULL, "0000:1a:00.0"));

        /* sysfs paths use the kernel's spelling (%04x domain), not the canonical one */
        char path[64];
        ck_assert_int_eq(xpu_pci_sysfs_path("001A2B3C:00:00.0", "numa_node", path, sizeof path), 0);
        ck_assert_str_eq(path, "/sys/bus/pci/devices/1a2b3c:00:00.0/numa_node");
        ck_assert_int_eq(xpu_pci_sysfs_path("00000000:3B:00.0", NULL, path, sizeof path), 0);
        ck_assert_str_eq(path, "/sys/bus/pci/devices/0000:3b:00.0");
        ck_assert_int_eq(xpu_pci_sysfs_path("3e3f8e05:00:00.0", "device", path, sizeof path), 0);
        ck_assert_str_eq(path, "/sys/bus/pci/devices/3e3f8e05:00:00.0/device");
        ck_assert_int_eq(xpu_pci_sysfs_path("bad", NULL, path, sizeof path), -EINVAL);
        ck_assert_int_eq(xpu_pci_sysfs_path("0000:3b:00.0", "numa_node", path, 20), -ENAMETOOLONG);
}
END_TEST

START_TEST(test_read_in_root_confined) {
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "root/etc/value", "  hello \n");
        xpu_test_write(t, "outside", "secret\n");
        char root[4096];
        snprintf(root, sizeof root, "%s/root", t);
        xpu_test_symlink(root, "etc/abs", "/etc/value");
        xpu_test_symlink(root, "etc/up", "../../outside");
        int rfd = xpu_open_root(root);
        ck_assert_int_ge(rfd, 0);
        char buf[64];
        ck_assert_int_eq(xpu_read_value_in_root(rfd, "/etc/value", buf, sizeof buf), 5);
        ck_assert_str_eq(buf, "hello");
        /* An absolute symlink resolves inside the root. */
        ck_assert_int_eq(xpu_read_value_in_root(rfd, "etc/abs", buf, sizeof buf), 5);
        ck_assert_str_eq(buf, "hello");
        /* ".." cannot climb out of the root: ../../outside lands on /outside inside it. */
        ck_assert_int_eq(xpu_read_value_in_root(rfd, "etc/up", buf, sizeof buf), -ENOENT);
        ck_assert_int_eq(xpu_read_value_in_root(rfd, "/../../outside", buf, sizeof buf), -ENOENT);
        /* Too small a buffer is an error, never a silent cut. */
        ck_assert_int_eq(xpu_read_file_in_root(rfd, "/etc/value", buf, 4), -EFBIG);
        ck_assert_int_eq(xpu_read_file_in_root(rfd, "/etc", buf, sizeof buf), -EISDIR);
        /* Magic links are refused. */
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", rfd);
        int procfd = xpu_open_root("/");
        ck_assert_int_lt(xpu_read_file_in_root(procfd, self, buf, sizeof buf), 0);
        close(procfd);
        close(rfd);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

START_TEST(test_read_refuses_fifo) {
        char *t = xpu_test_mkdtemp();
        char p[4096];
        snprintf(p, sizeof p, "%s/fifo", t);
        ck_assert_int_eq(mkfifo(p, 0600), 0);
        int rfd = xpu_open_root(t);
        char buf[16];
        ck_assert_int_eq(xpu_read_file_in_root(rfd, "fifo", buf, sizeof buf), -EINVAL);
        close(rfd);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* The read and write loops: a pipe hands its bytes over in pieces, and the file helpers see
 * only regular files. */
START_TEST(test_full_read_write_and_open_file) {
        int p[2];
        ck_assert_int_eq(pipe(p), 0);
        ck_assert_int_eq(xpu_write_full(p[1], "abc", 3), 0);
        ck_assert_int_eq(xpu_write_full(p[1], "defg", 4), 0);
        close(p[1]);
        char buf[16];
        ck_assert_int_eq(xpu_read_full(p[0], buf, 5), 5); /* across both writes */
        ck_assert_int_eq(memcmp(buf, "abcde", 5), 0);
        ck_assert_int_eq(xpu_read_full(p[0], buf, sizeof buf), 2); /* short only at the end */
        ck_assert_int_eq(memcmp(buf, "fg", 2), 0);
        ck_assert_int_eq(xpu_read_full(p[0], buf, sizeof buf), 0);
        ck_assert_int_eq(xpu_read_full(-1, buf, sizeof buf), -EBADF);
        ck_assert_int_eq(xpu_write_full(-1, "x", 1), -EBADF);
        close(p[0]);

        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "dir/file", "12345");
        char fifo[4096];
        snprintf(fifo, sizeof fifo, "%s/fifo", t);
        ck_assert_int_eq(mkfifo(fifo, 0600), 0);
        int rfd = xpu_open_root(t);
        struct stat st;
        int fd = xpu_open_file_in_root(rfd, "/dir/file", &st);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(st.st_size, 5);
        ck_assert_int_eq(xpu_read_full(fd, buf, sizeof buf), 5);
        ck_assert_int_eq(xpu_pread_full(fd, buf, 2, 1), 2); /* at an offset, file position unused */
        ck_assert_int_eq(memcmp(buf, "23", 2), 0);
        ck_assert_int_eq(xpu_pread_full(fd, buf, sizeof buf, 3), 2); /* short only at the end */
        ck_assert_int_eq(xpu_pread_full(fd, buf, sizeof buf, 99), 0);
        close(fd);
        ck_assert_int_eq(xpu_pread_full(-1, buf, 1, 0), -EBADF);
        ck_assert_int_eq(xpu_open_file_in_root(rfd, "dir", NULL), -EISDIR);
        ck_assert_int_eq(xpu_open_file_in_root(rfd, "fifo", NULL), -EINVAL); /* and did not block */
        ck_assert_int_eq(xpu_open_file_in_root(rfd, "none", NULL), -ENOENT);
        close(rfd);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

START_TEST(test_mkdir_and_write_in_root) {
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "outside/keep", "x");
        char root[4096];
        snprintf(root, sizeof root, "%s/root", t);
        ck_assert_int_eq(mkdir(root, 0755), 0);
        /* An absolute symlink is refused for writes, named, and nothing is created anywhere. */
        char target[4096];
        snprintf(target, sizeof target, "%s/outside", t);
        xpu_test_symlink(root, "run", target);
        int rfd = xpu_open_root(root);
        struct xpu_path_refusal why;
        ck_assert_int_eq(xpu_mkdir_p_in_root(rfd, "/run/xpuinit/lib", 0755, &why), -EXDEV);
        ck_assert_int_eq(why.kind, XPU_REFUSE_ABSOLUTE_LINK);
        ck_assert_str_eq(why.path, "/run");
        ck_assert_str_eq(why.detail, target);
        char check[8192], msg[8192];
        xpu_path_refusal_format(&why, "the container root", msg, sizeof msg);
        ck_assert_msg(strstr(msg, "/run is a symlink to ") && strstr(msg, "outside the container root"), "%s", msg);
        snprintf(check, sizeof check, "%s/outside/xpuinit", t);
        struct stat st;
        ck_assert_int_eq(stat(check, &st), -1);
        /* A relative link that stays beneath the root is followed. */
        xpu_test_symlink(root, "var/run", "../srv");
        snprintf(check, sizeof check, "%s/srv", root);
        ck_assert_int_eq(mkdir(check, 0755), 0);
        int dfd = xpu_mkdir_p_in_root(rfd, "/var/run/xpuinit/lib", 0755, &why);
        ck_assert_int_ge(dfd, 0);
        close(dfd);
        ck_assert_int_eq(xpu_write_file_in_root(rfd, "/var/run/xpuinit/x.conf", "a\n", 2, 0644, &why), 0);
        snprintf(check, sizeof check, "%s/srv/xpuinit/x.conf", root);
        ck_assert_int_eq(stat(check, &st), 0);
        ck_assert_int_eq(st.st_mode & 0777, 0644);
        /* ".." above the root, in the path or in a link's target. */
        ck_assert_int_eq(xpu_mkdir_p_in_root(rfd, "/a/../../b", 0755, &why), -EXDEV);
        ck_assert_int_eq(why.kind, XPU_REFUSE_DOTDOT);
        snprintf(check, sizeof check, "%s/a", root);
        ck_assert_int_eq(stat(check, &st), -1); /* checked in full before the first mkdir */
        xpu_test_symlink(root, "etc/up", "../..");
        ck_assert_int_eq(xpu_write_file_in_root(rfd, "/etc/up/evil", "x", 1, 0644, &why), -EXDEV);
        ck_assert_int_eq(why.kind, XPU_REFUSE_DOTDOT);
        ck_assert_str_eq(why.path, "/etc/up");
        /* ".." that stays inside is fine (through an existing directory). */
        snprintf(check, sizeof check, "%s/a", root);
        ck_assert_int_eq(mkdir(check, 0755), 0);
        dfd = xpu_mkdir_p_in_root(rfd, "/a/../b", 0755, &why);
        ck_assert_int_ge(dfd, 0);
        close(dfd);
        /* A final symlink is never written through. */
        xpu_test_symlink(root, "etc/ld.conf", "../srv/xpuinit/x.conf");
        ck_assert_int_eq(xpu_write_file_in_root(rfd, "/etc/ld.conf", "b", 1, 0644, &why), -ELOOP);
        ck_assert_int_eq(why.kind, XPU_REFUSE_FINAL_LINK);
        ck_assert_int_eq(xpu_open_beneath(rfd, "/etc/ld.conf", O_WRONLY | O_CREAT, 0644, &why), -ELOOP);
        /* A magic link (procfs) is another filesystem: refused, never followed. */
        xpu_test_symlink(root, "proc", "/proc");
        ck_assert_int_eq(xpu_open_beneath(rfd, "/proc/self/cwd/x", O_WRONLY | O_CREAT, 0644, &why), -EXDEV);
        close(rfd);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* Deep nesting and link loops end in a clear refusal, not a hang. */
START_TEST(test_beneath_bounds) {
        char *t = xpu_test_mkdtemp();
        int rfd = xpu_open_root(t);
        char deep[4096] = "";
        for (int i = 0; i < XPU_BENEATH_DEPTH_MAX + 2; i++)
                memcpy(deep + 2 * i, "/d", 3);
        struct xpu_path_refusal why;
        ck_assert_int_eq(xpu_mkdir_p_in_root(rfd, deep, 0755, &why), -ENAMETOOLONG);
        ck_assert_int_eq(why.kind, XPU_REFUSE_TOO_DEEP);
        xpu_test_symlink(t, "l1", "l2");
        xpu_test_symlink(t, "l2", "l1");
        ck_assert_int_eq(xpu_open_beneath(rfd, "/l1/x", O_RDONLY, 0, &why), -ELOOP);
        ck_assert_int_eq(why.kind, XPU_REFUSE_LOOP);
        /* ELF magic on an fd. */
        xpu_test_write(t, "notelf", "root:x:0:0\n");
        xpu_test_write(t, "elf", "\177ELF....");
        int a = xpu_open_in_root(rfd, "notelf", O_RDONLY, 0), b = xpu_open_in_root(rfd, "elf", O_RDONLY, 0);
        ck_assert_int_eq(xpu_fd_is_elf(a), 0);
        ck_assert_int_eq(xpu_fd_is_elf(b), 1);
        close(a);
        close(b);
        close(rfd);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* The userspace walk (no openat2) must resolve exactly like RESOLVE_IN_ROOT. */
START_TEST(test_walk_matches_openat2) {
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "root/etc/value", "hello\n");
        xpu_test_write(t, "root/a/b/file", "deep\n");
        xpu_test_write(t, "outside", "secret\n");
        char root[4096];
        snprintf(root, sizeof root, "%s/root", t);
        xpu_test_symlink(root, "etc/abs", "/etc/value");
        xpu_test_symlink(root, "etc/up", "../../outside");
        xpu_test_symlink(root, "etc/dirlink", "/a/b");
        xpu_test_symlink(root, "etc/loop", "/etc/loop");
        xpu_test_symlink(root, "etc/host", t); /* absolute path of the host's temp dir */
        int rfd = xpu_open_root(root);
        ck_assert_int_ge(rfd, 0);
        const char *paths[] = { "/etc/value", "etc/abs", "etc/up", "/../../outside", "etc/dirlink/file",
                                "/a/./b/../b/file", "etc/loop", "etc/host/outside", "/", "a/b/" };
        for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
                int a = xpu_open_in_root(rfd, paths[i], O_RDONLY, 0);
                int b = xpu_open_in_root_walk(rfd, paths[i], O_RDONLY, 0);
                ck_assert_msg((a >= 0) == (b >= 0), "%s: openat2 %d, walk %d", paths[i], a, b);
                if (a >= 0) {
                        struct stat sa, sb;
                        ck_assert_int_eq(fstat(a, &sa), 0);
                        ck_assert_int_eq(fstat(b, &sb), 0);
                        ck_assert_msg(sa.st_ino == sb.st_ino, "%s: different files", paths[i]);
                        close(a);
                        close(b);
                } else {
                        ck_assert_msg(a == b || (a == -ELOOP && b == -ELOOP) || (a < 0 && b < 0), "%s", paths[i]);
                }
        }
        /* The escapes fail (nothing named /outside inside the root). */
        ck_assert_int_eq(xpu_open_in_root_walk(rfd, "etc/up", O_RDONLY, 0), -ENOENT);
        ck_assert_int_eq(xpu_open_in_root_walk(rfd, "etc/host/outside", O_RDONLY, 0), -ENOENT);
        ck_assert_int_eq(xpu_open_in_root_walk(rfd, "etc/loop", O_RDONLY, 0), -ELOOP);
        /* O_CREAT through a symlinked directory stays inside. */
        int c = xpu_open_in_root_walk(rfd, "etc/dirlink/new", O_WRONLY | O_CREAT | O_EXCL, 0600);
        ck_assert_int_ge(c, 0);
        close(c);
        char check[8192];
        snprintf(check, sizeof check, "%s/a/b/new", root);
        struct stat st;
        ck_assert_int_eq(stat(check, &st), 0);
        close(rfd);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* Names are UTF-8 text: well-formed sequences kept byte for byte, every ill-formed byte and every
 * control character one U+FFFD, a cut only at a character boundary. */
START_TEST(test_utf8_text) {
        static const struct {
                const char *s;
                size_t len;
        } lens[] = {
                { "A", 1 }, { "", 1 }, { "\xc3\xa9", 2 }, { "\xe2\x84\xa2", 3 }, { "\xf0\x9f\x98\x80", 4 },
                { "\xf4\x8f\xbf\xbf", 4 }, /* U+10FFFF */
                { "\x80", 0 },                 /* a continuation byte alone */
                { "\xc0\xaf", 0 },             /* overlong '/' */
                { "\xc1\xbf", 0 },             /* overlong */
                { "\xe0\x80\xaf", 0 },         /* overlong 3-byte */
                { "\xed\xa0\x80", 0 },         /* UTF-16 surrogate U+D800 */
                { "\xf0\x80\x80\xaf", 0 },     /* overlong 4-byte */
                { "\xf4\x90\x80\x80", 0 },     /* above U+10FFFF */
                { "\xf5\x80\x80\x80", 0 },     /* no such lead byte */
                { "\xe2\x84", 0 },             /* cut short */
                { "\xe2\x84" "A", 0 },
                { "\xff", 0 },
        };
        for (size_t i = 0; i < ELEMENTSOF(lens); i++)
                ck_assert_msg(xpu_utf8_char_len(lens[i].s) == lens[i].len, "case %zu: %zu", i, xpu_utf8_char_len(lens[i].s));

        ck_assert(xpu_str_is_text("AMD Radeon\xe2\x84\xa2 Pro W7900"));
        ck_assert(xpu_str_is_text("Radeon RX Vega"));
        ck_assert(!xpu_str_is_text(""));
        ck_assert(!xpu_str_is_text(NULL));
        ck_assert(!xpu_str_is_text("a\tb"));
        ck_assert(!xpu_str_is_text("a\x7f"));
        ck_assert(!xpu_str_is_text("a\xc2\x9b[2J")); /* C1 CSI */
        ck_assert(xpu_str_is_text("a\xc2\xa0" "b"));    /* NO-BREAK SPACE is text */
        ck_assert(!xpu_str_is_text("Radeon\377"));

        char out[64];
        bool cut = true;
        ck_assert_uint_eq(xpu_utf8_sanitize(out, sizeof out, "AMD Radeon\xe2\x84\xa2 Pro W7900", &cut), 0);
        ck_assert_str_eq(out, "AMD Radeon\xe2\x84\xa2 Pro W7900");
        ck_assert(!cut);
        ck_assert_uint_eq(xpu_utf8_sanitize(out, sizeof out, "a\xff\x1b[1mb\xc2\x9b\xe2\x84", &cut), 5);
        ck_assert_str_eq(out, "a\xef\xbf\xbd\xef\xbf\xbd[1mb\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
        ck_assert(xpu_str_is_text(out));
        /* Cut at a character boundary: "ab™" in 5 bytes is "ab", in 6 all of it. */
        ck_assert_uint_eq(xpu_utf8_sanitize(out, 5, "ab\xe2\x84\xa2", &cut), 0);
        ck_assert_str_eq(out, "ab");
        ck_assert(cut);
        ck_assert_uint_eq(xpu_utf8_sanitize(out, 6, "ab\xe2\x84\xa2", &cut), 0);
        ck_assert_str_eq(out, "ab\xe2\x84\xa2");
        ck_assert(!cut);
        /* A replacement that does not fit is not put in half. */
        ck_assert_uint_eq(xpu_utf8_sanitize(out, 4, "a\xff", NULL), 0);
        ck_assert_str_eq(out, "a");
        ck_assert_uint_eq(xpu_utf8_sanitize(out, 1, "abc", &cut), 0);
        ck_assert_str_eq(out, "");
        ck_assert(cut);
        ck_assert_uint_eq(xpu_utf8_sanitize(out, sizeof out, NULL, &cut), 0);
        ck_assert_str_eq(out, "");
}
END_TEST

/* Warnings quote file contents: non-printable bytes are escaped, never passed through. */
START_TEST(test_warning_escapes) {
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        ck_assert_int_eq(xpu_inventory_warn(inv, "%s: \"%s\"", "/sys/x", "ok\033[2J\377\n"), 0);
        ck_assert_str_eq(inv->warnings[0], "/sys/x: \"ok\\x1b[2J\\xff\\x0a\"");
        xpu_inventory_free(inv);
        ck_assert(xpu_str_is_printable("Radeon RX Vega"));
        ck_assert(!xpu_str_is_printable(""));
        ck_assert(!xpu_str_is_printable("Radeon\377"));
        ck_assert(!xpu_str_is_printable("a\tb"));
}
END_TEST

START_TEST(test_escape_text) {
        char out[256];
        /* printable UTF-8 is kept: "Radeon\u2122 Pro", U+00E9, a 4-byte emoji */
        ck_assert_str_eq(xpu_escape_text("AMD Radeon\xe2\x84\xa2 Pro \xc3\xa9 \xf0\x9f\x98\x80", out, sizeof out),
                         "AMD Radeon\xe2\x84\xa2 Pro \xc3\xa9 \xf0\x9f\x98\x80");
        /* controls (C0, DEL, C1 U+0085) and invalid bytes are escaped, byte by byte */
        ck_assert_str_eq(xpu_escape_text("a\nb\tc\033[2J\x7f\xc2\x85", out, sizeof out),
                         "a\\x0ab\\x09c\\x1b[2J\\x7f\\xc2\\x85");
        ck_assert_str_eq(xpu_escape_text("\xff\xc0\xaf\xed\xa0\x80\xe2\x84", out, sizeof out),
                         "\\xff\\xc0\\xaf\\xed\\xa0\\x80\\xe2\\x84");
        ck_assert_str_eq(xpu_escape_text("\xf4\x90\x80\x80", out, sizeof out), "\\xf4\\x90\\x80\\x80");
        /* format characters that change how a line reads: U+2028, U+202E, U+2066, U+FEFF, U+200B */
        ck_assert_str_eq(xpu_escape_text("a\xe2\x80\xa8" "b\xe2\x80\xae" "c\xe2\x81\xa6" "d\xef\xbb\xbf\xe2\x80\x8b", out,
                                         sizeof out),
                         "a\\xe2\\x80\\xa8b\\xe2\\x80\\xaec\\xe2\\x81\\xa6d\\xef\\xbb\\xbf\\xe2\\x80\\x8b");
        ck_assert(!xpu_str_is_text("Radeon\xe2\x80\xae"));
        /* their neighbours are text: U+2027, U+202F, U+2122 */
        ck_assert(xpu_str_is_text("\xe2\x80\xa7\xe2\x80\xaf\xe2\x84\xa2"));
        /* a literal backslash is doubled: "\x0a" typed in a value is not an escaped newline */
        ck_assert_str_eq(xpu_escape_text("a\\x0a\n", out, sizeof out), "a\\\\x0a\\x0a");
        ck_assert_uint_eq(xpu_utf8_printable_len("\xe2\x84\xa2"), 3);
        ck_assert_uint_eq(xpu_utf8_printable_len("\xe2\x84"), 0);
        ck_assert_uint_eq(xpu_utf8_printable_len(""), 0);
        /* cut at a whole escape or character, always terminated */
        ck_assert_str_eq(xpu_escape_text("ab\ncd", out, 6), "ab");
        ck_assert_str_eq(xpu_escape_text("a\xe2\x84\xa2", out, 4), "a");
        ck_assert_str_eq(xpu_escape_text("abc", out, 1), "");
}
END_TEST

static Suite *base_suite(void) {
        Suite *s = suite_create("base");
        TCase *tc = tcase_create("fileio");
        tcase_add_test(tc, test_parse_u64);
        tcase_add_test(tc, test_parse_i64);
        tcase_add_test(tc, test_pci_bus_id);
        tcase_add_loop_test(tc, test_pci_bus_id_spellings, 0, (int)ELEMENTSOF(bus_id_spellings));
        tcase_add_test(tc, test_read_in_root_confined);
        tcase_add_test(tc, test_read_refuses_fifo);
        tcase_add_test(tc, test_full_read_write_and_open_file);
        tcase_add_test(tc, test_mkdir_and_write_in_root);
        tcase_add_test(tc, test_beneath_bounds);
        tcase_add_test(tc, test_walk_matches_openat2);
        tcase_add_test(tc, test_warning_escapes);
        tcase_add_test(tc, test_escape_text);
        tcase_add_test(tc, test_utf8_text);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(base_suite());
}
