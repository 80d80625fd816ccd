/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base/reply: what a helper's "error ERRNO TEXT" line may make the caller believe, and the
 * driver-root handoff's hint for a root the helper (nobody) cannot search. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/macro.h"
#include "base/path.h"
#include "base/str.h"
#include "sandbox/reply.h"
#include "testlib.h"

/* Parse the one-line reply TEXT; the return of the first xpu_reply_next() and ERR. */
static int parse(const char *text, char *err, size_t size) {
        struct xpu_reply_parser p;
        xpu_reply_parser_init(&p, "TEST", text);
        err[0] = '\0';
        return xpu_reply_next(&p, err, size);
}

/* The errnos callers act on in their own right never come through from a helper: -ENOMEM would
 * abort the whole probe as if xpuinit itself ran out of memory. The TEXT stays. */
START_TEST(test_error_errno_not_trusted) {
        static const struct {
                int sent, got;
        } cases[] = {
                { -ENOMEM, -EIO },     { -EINVAL, -EIO },        { -EFAULT, -EIO },     { -EAGAIN, -EIO },
                { -ECHILD, -EIO },     { -ECONNABORTED, -EIO },  { -EBADMSG, -EIO },    { -EINTR, -EIO },
                { -4095, -EIO },       { -ENOENT, -ENOENT },     { -EPROTO, -EPROTO },  { -ENODEV, -ENODEV },
                { -EIO, -EIO },        { -EPERM, -EPERM },       { -EACCES, -EACCES },  { -EOPNOTSUPP, -EOPNOTSUPP },
                { -EBUSY, -EBUSY },    { -ETIMEDOUT, -ETIMEDOUT }, { -EMSGSIZE, -EMSGSIZE }, { -ESTALE, -ESTALE },
                { -ENODATA, -ENODATA }, { -ELIBBAD, -ELIBBAD },  { -ENAMETOOLONG, -ENAMETOOLONG },
                { -EXDEV, -EXDEV },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char text[64], err[128];
                snprintf(text, sizeof text, "error %d boom %zu\n", cases[i].sent, i);
                ck_assert_msg(parse(text, err, sizeof err) == cases[i].got, "%s", text);
                char want[32];
                snprintf(want, sizeof want, "boom %zu", i);
                ck_assert_str_eq(err, want);
        }
        char err[128];
        ck_assert_int_eq(parse("error -12 boom\n", err, sizeof err), -EIO);
        ck_assert_str_eq(err, "boom");
        /* Malformed error lines stay garbage, not an errno. */
        ck_assert_int_eq(parse("error 12 boom\n", err, sizeof err), -EBADMSG);
        ck_assert_str_eq(err, "garbage from the TEST helper: line 1");
        ck_assert_int_eq(parse("error -4096 boom\n", err, sizeof err), -EBADMSG);
        ck_assert_int_eq(parse("error -12\n", err, sizeof err), -EBADMSG);
}
END_TEST

/* The helper side's xpu_reply_fail() with any errno, through the parser: the same rule. */
START_TEST(test_reply_fail_round_trip) {
        static struct xpu_reply r;
        int fds[2];
        ck_assert_int_eq(pipe(fds), 0);
        ck_assert_int_eq(xpu_reply_fail(&r, fds[1], -ENOMEM, "cannot allocate %d bytes", 64), 0);
        ck_assert_int_eq(xpu_reply_fail(&r, fds[1], -ENODEV, "nvmlInit_v2 failed: Driver Not Loaded (error 9)"), 0);
        close(fds[1]);
        char buf[512] = "";
        ssize_t n = read(fds[0], buf, sizeof buf - 1);
        ck_assert_int_gt(n, 0);
        close(fds[0]);
        ck_assert_str_eq(buf, "error -12 cannot allocate 64 bytes\n"
                              "error -19 nvmlInit_v2 failed: Driver Not Loaded (error 9)\n");
        char err[128];
        ck_assert_int_eq(parse("error -12 cannot allocate 64 bytes\n", err, sizeof err), -EIO);
        ck_assert_str_eq(err, "cannot allocate 64 bytes");
        ck_assert_int_eq(parse("error -19 nvmlInit_v2 failed: Driver Not Loaded (error 9)\n", err, sizeof err),
                         -ENODEV);
        ck_assert_str_eq(err, "nvmlInit_v2 failed: Driver Not Loaded (error 9)");
}
END_TEST

START_TEST(test_root_ref_hint) {
        static const char hint[] = "; the vendor-library helper runs as nobody: make the driver root and its parent "
                                   "directories searchable by others (chmod o+x)";
        ck_assert_str_eq(xpu_root_ref_hint(-EACCES), hint);
        ck_assert_str_eq(xpu_root_ref_hint(-EPERM), hint);
        ck_assert_str_eq(xpu_root_ref_hint(-ESTALE), "");
        ck_assert_str_eq(xpu_root_ref_hint(-ENOENT), "");
        ck_assert_str_eq(xpu_root_ref_hint(0), "");
}
END_TEST

/* A driver root under a directory of mode 0700 (a clone under /root): the parent names it, the
 * helper (nobody) cannot reopen it: -EACCES, and the hint that says why. Then made searchable
 * (o+x on the directory above), the same reference opens. */
START_TEST(test_root_ref_unsearchable) {
        char *top = xpu_test_mkdtemp(); /* mode 0700, like /root */
        xpu_test_write(top, "driver/usr/lib64/.keep", "");
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/driver", top);
        int fd = xpu_open_root(dir);
        ck_assert_int_ge(fd, 0);
        struct xpu_root_ref ref;
        char err[256] = "";
        ck_assert_msg(xpu_root_ref_init(&ref, fd, err, sizeof err) == 0, "%s", err);
        close(fd);
        for (int searchable = 0; searchable <= 1; searchable++) {
                ck_assert_int_eq(chmod(top, searchable ? 0711 : 0700), 0);
                pid_t pid = fork();
                ck_assert_int_ge(pid, 0);
                if (pid == 0) {
                        if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
                            setresuid(65534, 65534, 65534) < 0)
                                _exit(100);
                        int r = xpu_root_ref_open(&ref);
                        if (r >= 0)
                                _exit(0);
                        char msg[1024];
                        snprintf(msg, sizeof msg, "cannot reopen the driver root %s: %s%s", ref.path, strerror(-r),
                                 xpu_root_ref_hint(r));
                        char want[1024];
                        snprintf(want, sizeof want,
                                 "cannot reopen the driver root %s: Permission denied; the vendor-library helper "
                                 "runs as nobody: make the driver root and its parent directories searchable by "
                                 "others (chmod o+x)",
                                 ref.path);
                        _exit(r == -EACCES && strcmp(msg, want) == 0 ? 1 : 2);
                }
                int st = 0;
                ck_assert_int_eq(waitpid(pid, &st, 0), pid);
                ck_assert(WIFEXITED(st));
                ck_assert_int_eq(WEXITSTATUS(st), searchable ? 0 : 1);
        }
        xpu_test_rm_rf(top);
        free(top);
}
END_TEST

START_TEST(test_parse_lines) {
        char lib[PATH_MAX];
        size_t total = 0;
        ck_assert_int_eq(xpu_reply_parse_library("/usr/lib/libcuda.so.550.90.07", lib), 0);
        ck_assert_str_eq(lib, "/usr/lib/libcuda.so.550.90.07");
        ck_assert_int_eq(xpu_reply_parse_library("usr/lib/libcuda.so", lib), -EINVAL);
        ck_assert_int_eq(xpu_reply_parse_library("", lib), -EINVAL);
        ck_assert_int_eq(xpu_reply_parse_library(NULL, lib), -EINVAL);

        ck_assert_int_eq(xpu_reply_parse_devices_total("70", 64, 64, &total), 0);
        ck_assert_uint_eq(total, 70);
        ck_assert_int_eq(xpu_reply_parse_devices_total("64", 64, 64, &total), -EINVAL); /* not above */
        ck_assert_int_eq(xpu_reply_parse_devices_total("70", 63, 64, &total), -EINVAL); /* count not full */
        ck_assert_int_eq(xpu_reply_parse_devices_total("-1", 64, 64, &total), -EINVAL);
        ck_assert_int_eq(xpu_reply_parse_devices_total("7x", 64, 64, &total), -EINVAL);
        ck_assert_uint_eq(total, 70);
}
END_TEST

/* A small vendor for xpu_reply_read(): one head key, two table fields, one hand-parsed field and a
 * check after "end". */
struct toy_result {
        char version[16];
};
struct toy_device {
        uint32_t have;
        char name[16];
        uint32_t busy;
        uint32_t flag;
};
static int toy_version(void *result, const char *value) {
        struct toy_result *r = result;
        return xpu_strlcpy(r->version, value, sizeof r->version) < 0 ? -EINVAL : 0;
}
static int toy_line(void *device, const char *field, const char *value) {
        struct toy_device *d = device;
        if (strcmp(field, "flag") != 0)
                return -ENOENT;
        if (strcmp(value, "1") != 0)
                return -EINVAL;
        d->flag = 1;
        return 0;
}
static int toy_end(void *device, size_t i, char *err, size_t err_size) {
        const struct toy_device *d = device;
        if (d->flag && !d->name[0]) {
                snprintf(err, err_size, "device %zu: flag without a name", i);
                return -EBADMSG;
        }
        return 0;
}
static const struct xpu_reply_key toy_keys[] = { { "version", true, toy_version } };
static const struct xpu_reply_field toy_fields[] = {
        XPU_REPLY_FIELD("name", XPU_REPLY_TEXT, struct toy_device, name, 1u),
        XPU_REPLY_FIELD("busy", XPU_REPLY_PERCENT, struct toy_device, busy, 2u),
};

/* Read TEXT with the toy spec (FIELDS_ONCE, NAME_COUNT_FIRST); the return, ERR and the devices. */
static int toy_read(const char *text, bool once, bool count_first, struct toy_device dev[4], size_t *count,
                    size_t *total, char *err, size_t err_size) {
        const struct xpu_reply_spec spec = {
                .what = "TOY",
                .keys = toy_keys,
                .n_keys = ELEMENTSOF(toy_keys),
                .devices_max = 4,
                .device_size = sizeof(struct toy_device),
                .have_offset = offsetof(struct toy_device, have),
                .fields = toy_fields,
                .n_fields = ELEMENTSOF(toy_fields),
                .fields_once = once,
                .device_line = toy_line,
                .device_end = toy_end,
                .name_count_first = count_first,
        };
        static char lib[PATH_MAX];
        struct toy_result r = { { 0 } };
        memset(dev, 0, 4 * sizeof(dev[0]));
        struct xpu_reply_out out = { .result = &r, .library = lib, .devices = dev };
        err[0] = '\0';
        int e = xpu_reply_read(&spec, text, &out, err, err_size);
        *count = out.count;
        *total = out.total;
        if (e == 0)
                ck_assert_str_eq(lib, "/lib/libtoy.so");
        return e;
}

START_TEST(test_reply_read) {
        struct toy_device d[4];
        size_t n = 0, total = 0;
        char err[256];
        ck_assert_int_eq(toy_read("library /lib/libtoy.so\nversion 1.2\ndevice_count 2\ndevice.1.name b\n"
                                  "device.1.busy 100\ndevice.1.flag 1\ndevice.0.busy 7\nend\n",
                                  true, false, d, &n, &total, err, sizeof err),
                         0);
        ck_assert_uint_eq(n, 2);
        ck_assert_uint_eq(total, 2);
        ck_assert_str_eq(d[1].name, "b");
        ck_assert_uint_eq(d[1].busy, 100);
        ck_assert_uint_eq(d[1].have, 3);
        ck_assert_uint_eq(d[1].flag, 1);
        ck_assert_uint_eq(d[0].have, 2);
        ck_assert_uint_eq(d[0].busy, 7);

        /* A full count with a total above it. */
        ck_assert_int_eq(toy_read("library /lib/libtoy.so\ndevice_count 4\ndevices_total 9\nend\n", true, false, d, &n,
                                  &total, err, sizeof err),
                         0);
        ck_assert_uint_eq(n, 4);
        ck_assert_uint_eq(total, 9);

        /* Each line the reader cannot take is garbage at its line number. */
        static const struct {
                const char *text;
                const char *err;
        } bad[] = {
                { "library /lib/libtoy.so\nlibrary /lib/libtoy.so\ndevice_count 0\nend\n", "line 2" },
                { "library lib/libtoy.so\ndevice_count 0\nend\n", "line 1" },
                { "library /lib/libtoy.so\ndevice_count 5\nend\n", "line 2" },
                { "library /lib/libtoy.so\ndevice_count 1\ndevices_total 9\nend\n", "line 3" },
                { "library /lib/libtoy.so\ndevice_count 0\nversion 1\nend\n", "line 3" },
                { "library /lib/libtoy.so\nversion 1\nversion 1\ndevice_count 0\nend\n", "line 3" },
                { "library /lib/libtoy.so\ndevice.0.name a\ndevice_count 1\nend\n", "line 2" },
                { "library /lib/libtoy.so\ndevice_count 1\ndevice.1.name a\nend\n", "line 3" },
                { "library /lib/libtoy.so\ndevice_count 1\ndevice.0.busy 101\nend\n", "line 3" },
                { "library /lib/libtoy.so\ndevice_count 1\ndevice.0.flag 2\nend\n", "line 3" },
                { "library /lib/libtoy.so\ndevice_count 1\ndevice.0.size 2\nend\n", "line 3" },
                { "library /lib/libtoy.so\ndevice_count 1\ndevice.0.name a\ndevice.0.name b\nend\n", "line 4" },
                { "library /lib/libtoy.so\ndevice_count 1\nwhat 1\nend\n", "line 3" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char want[64];
                snprintf(want, sizeof want, "garbage from the TOY helper: %s", bad[i].err);
                ck_assert_int_eq(toy_read(bad[i].text, true, false, d, &n, &total, err, sizeof err), -EBADMSG);
                ck_assert_str_eq(err, want);
        }
        /* Without FIELDS_ONCE a repeated table field keeps the last value. */
        ck_assert_int_eq(toy_read("library /lib/libtoy.so\ndevice_count 1\ndevice.0.name a\ndevice.0.name b\nend\n",
                                  false, false, d, &n, &total, err, sizeof err),
                         0);
        ck_assert_str_eq(d[0].name, "b");

        /* The checks after "end", and which missing head key is named. */
        ck_assert_int_eq(toy_read("library /lib/libtoy.so\ndevice_count 1\ndevice.0.flag 1\nend\n", true, false, d, &n,
                                  &total, err, sizeof err),
                         -EBADMSG);
        ck_assert_str_eq(err, "device 0: flag without a name");
        ck_assert_int_eq(toy_read("end\n", true, false, d, &n, &total, err, sizeof err), -EBADMSG);
        ck_assert_str_eq(err, "garbage from the TOY helper: no library");
        ck_assert_int_eq(toy_read("end\n", true, true, d, &n, &total, err, sizeof err), -EBADMSG);
        ck_assert_str_eq(err, "garbage from the TOY helper: no device_count");
        ck_assert_int_eq(toy_read("device_count 0\nend\n", true, true, d, &n, &total, err, sizeof err), -EBADMSG);
        ck_assert_str_eq(err, "garbage from the TOY helper: no library");
        ck_assert_int_eq(toy_read("library /lib/libtoy.so\nend\n", true, false, d, &n, &total, err, sizeof err),
                         -EBADMSG);
        ck_assert_str_eq(err, "garbage from the TOY helper: no device_count");

        /* The helper's own error comes through. */
        ck_assert_int_eq(toy_read("error -19 no device\n", true, false, d, &n, &total, err, sizeof err), -ENODEV);
        ck_assert_str_eq(err, "no device");
}
END_TEST

static Suite *reply_suite(void) {
        Suite *s = suite_create("reply");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_error_errno_not_trusted);
        tcase_add_test(tc, test_reply_fail_round_trip);
        tcase_add_test(tc, test_root_ref_hint);
        tcase_add_test(tc, test_parse_lines);
        tcase_add_test(tc, test_reply_read);
        suite_add_tcase(s, tc);
        if (geteuid() == 0) {
                TCase *priv = tcase_create("root");
                tcase_add_test(priv, test_root_ref_unsearchable);
                suite_add_tcase(s, priv);
        }
        return s;
}

int main(void) {
        return xpu_test_run(reply_suite());
}
