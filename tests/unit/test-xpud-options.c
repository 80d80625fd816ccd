/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/options.c: xpud's command line: defaults, every option, lists of names and numbers,
 * TCP addresses, and the one-line message for each kind of bad input. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "base/log.h"
#include "base/macro.h"
#include "xpud-options.h"
#include "rich.h"
#include "testlib.h"

/* Parse a NULL-terminated argument list (argv[0] added). */
static int parse(struct xpud_options *o, char *err, size_t size, const char *const *args) {
        char *argv[32] = { (char *)"xpud" };
        int argc = 1;
        for (; args[argc - 1]; argc++) {
                ck_assert_int_lt(argc, (int)ELEMENTSOF(argv) - 1);
                argv[argc] = (char *)args[argc - 1];
        }
        argv[argc] = NULL;
        err[0] = '\0';
        return xpud_options_parse(argc, argv, o, err, size);
}

#define PARSE(o, err, ...) parse(o, err, sizeof err, (const char *const[]){ __VA_ARGS__, NULL })

START_TEST(test_defaults) {
        struct xpud_options o;
        char err[256];
        char *argv[] = { (char *)"xpud", NULL };
        ck_assert_int_eq(xpud_options_parse(1, argv, &o, err, sizeof err), 0);
        ck_assert_int_eq(o.action, XPUD_ACTION_RUN);
        ck_assert_str_eq(o.socket_path, "/run/xpud/xpud.sock");
        ck_assert(!o.tcp);
        ck_assert_uint_eq(o.interval_s, 10);
        ck_assert_uint_eq(o.vendor_timeout_s, 10);
        ck_assert_uint_eq(o.n_allow_uids, 0);
        ck_assert_uint_eq(o.n_allow_gids, 0);
        ck_assert_ptr_null(o.nfd_file);
        ck_assert_ptr_null(o.sys_root);
        ck_assert_ptr_null(o.dev_root);
        ck_assert_ptr_null(o.driver_root);
        ck_assert(!o.user_set);
        ck_assert_int_eq(o.log_level, -1);
        ck_assert_ptr_null(o.cdi_dir);
        ck_assert_ptr_null(o.cdi_host_root);
        ck_assert_str_eq(o.kmsg, "/dev/kmsg");
        ck_assert(!o.kmsg_set);
        char *cdi[] = { (char *)"xpud", (char *)"--cdi-dir", (char *)"/var/run/cdi", (char *)"--cdi-host-root=/host", NULL };
        ck_assert_int_eq(xpud_options_parse(4, cdi, &o, err, sizeof err), 0);
        ck_assert_str_eq(o.cdi_dir, "/var/run/cdi");
        ck_assert_str_eq(o.cdi_host_root, "/host");
}
END_TEST

START_TEST(test_every_option) {
        struct xpud_options o;
        char err[256];
        ck_assert_int_eq(PARSE(&o, err, "--socket", "/tmp/x.sock", "--listen-tcp", "127.0.0.1:9400", "--interval", "1",
                               "--allow-uid", "root,1000", "--allow-uid", "nobody", "--allow-gid", "0,nogroup",
                               "--nfd-file", "/tmp/nfd", "--sys-root", "/s", "--dev-root", "/d", "--driver-root",
                               "/r", "--user", "nobody", "--vendor-timeout", "600", "--log-level", "debug"),
                         0);
        ck_assert_str_eq(o.socket_path, "/tmp/x.sock");
        ck_assert(o.tcp);
        ck_assert_str_eq(o.tcp_text, "127.0.0.1:9400");
        const struct sockaddr_in *in = (const struct sockaddr_in *)&o.tcp_addr;
        ck_assert_int_eq(in->sin_family, AF_INET);
        ck_assert_uint_eq(ntohs(in->sin_port), 9400);
        ck_assert_uint_eq(ntohl(in->sin_addr.s_addr), INADDR_LOOPBACK);
        ck_assert_uint_eq(o.tcp_addr_len, sizeof *in);
        ck_assert_uint_eq(o.interval_s, 1);
        /* Lists add up, names resolved. */
        ck_assert_uint_eq(o.n_allow_uids, 3);
        ck_assert_uint_eq(o.allow_uids[0], 0);
        ck_assert_uint_eq(o.allow_uids[1], 1000);
        ck_assert_uint_eq(o.allow_uids[2], 65534);
        ck_assert_uint_eq(o.n_allow_gids, 2);
        ck_assert_uint_eq(o.allow_gids[0], 0);
        ck_assert_uint_eq(o.allow_gids[1], 65534);
        ck_assert_str_eq(o.nfd_file, "/tmp/nfd");
        ck_assert_str_eq(o.sys_root, "/s");
        ck_assert_str_eq(o.dev_root, "/d");
        ck_assert_str_eq(o.driver_root, "/r");
        ck_assert(o.user_set);
        ck_assert_str_eq(o.user, "nobody");
        ck_assert_uint_eq(o.user_uid, 65534);
        ck_assert_uint_eq(o.user_gid, 65534);
        ck_assert_uint_eq(o.vendor_timeout_s, XPU_VENDOR_TIMEOUT_S_MAX);
        ck_assert_int_eq(o.log_level, XPU_LOG_DEBUG);
        /* --user by number, -v and -vv, --help, --version, the "=" form. */
        ck_assert_int_eq(PARSE(&o, err, "--user=65534", "-v"), 0);
        ck_assert_str_eq(o.user, "nobody");
        ck_assert_int_eq(o.log_level, XPU_LOG_INFO);
        ck_assert_int_eq(PARSE(&o, err, "-vv"), 0);
        ck_assert_int_eq(o.log_level, XPU_LOG_DEBUG);
        ck_assert_int_eq(PARSE(&o, err, "--help"), 0);
        ck_assert_int_eq(o.action, XPUD_ACTION_HELP);
        ck_assert_int_eq(PARSE(&o, err, "-h"), 0);
        ck_assert_int_eq(o.action, XPUD_ACTION_HELP);
        ck_assert_int_eq(PARSE(&o, err, "--version"), 0);
        ck_assert_int_eq(o.action, XPUD_ACTION_VERSION);
}
END_TEST

START_TEST(test_tcp_addresses) {
        struct sockaddr_storage sa;
        socklen_t len = 0;
        ck_assert_int_eq(xpud_parse_tcp_address("[::1]:9400", &sa, &len), 0);
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&sa;
        ck_assert_int_eq(in6->sin6_family, AF_INET6);
        ck_assert_uint_eq(ntohs(in6->sin6_port), 9400);
        ck_assert(IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr));
        ck_assert_uint_eq(len, sizeof *in6);
        ck_assert_int_eq(xpud_parse_tcp_address("0.0.0.0:1", &sa, &len), 0);
        ck_assert_int_eq(xpud_parse_tcp_address("[::]:65535", &sa, &len), 0);
        static const char *const bad[] = {
                "127.0.0.1",        /* no port */
                "127.0.0.1:",       /* empty port */
                "127.0.0.1:0",      /* port 0 */
                "127.0.0.1:65536",  /* too big */
                "127.0.0.1:+80",    /* sign */
                "127.0.0.1:80x",    /* garbage */
                "localhost:9400",   /* names are not resolved */
                "::1:9400",         /* IPv6 without brackets */
                "[::1]9400",        /* no colon */
                "[::1:9400",        /* no closing bracket */
                "[127.0.0.1]:9400", /* IPv4 in brackets */
                ":9400",            /* no address */
                "",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(xpud_parse_tcp_address(bad[i], &sa, &len) == -EINVAL, "\"%s\" accepted", bad[i]);
        ck_assert_int_eq(xpud_parse_tcp_address(NULL, &sa, &len), -EINVAL);
}
END_TEST

START_TEST(test_id_lists) {
        uid_t u[3];
        gid_t g[2];
        size_t n = 0;
        char err[256];
        ck_assert_int_eq(xpud_parse_uid_list("0,4294967294", u, 3, &n, err, sizeof err), 0);
        ck_assert_uint_eq(n, 2);
        ck_assert_uint_eq(u[1], 4294967294u);
        ck_assert_int_eq(xpud_parse_uid_list("1,2", u, 3, &n, err, sizeof err), -E2BIG);
        ck_assert_str_eq(err, "--allow-uid: more than 3 entries (allow a group instead)");
        n = 0;
        ck_assert_int_eq(xpud_parse_gid_list("nogroup,root", g, 2, &n, err, sizeof err), 0);
        ck_assert_uint_eq(g[0], 65534);
        ck_assert_uint_eq(g[1], 0);
}
END_TEST

/* --listen-tcp twice is an error naming both, a too-long --socket says the limit (exit 2 in main). */
START_TEST(test_repeated_and_long) {
        struct xpud_options o;
        char err[256];
        ck_assert_int_eq(PARSE(&o, err, "--listen-tcp", "127.0.0.1:9400", "--listen-tcp", "[::1]:9400"), -EINVAL);
        ck_assert_str_eq(err, "--listen-tcp: given twice (\"127.0.0.1:9400\" and \"[::1]:9400\"); xpud serves one TCP "
                              "address");
        char path[120];
        memset(path, 'a', sizeof path - 1);
        path[0] = '/';
        path[107] = '\0'; /* 107 bytes: the longest sun_path with its NUL */
        ck_assert_int_eq(PARSE(&o, err, "--socket", path), 0);
        path[107] = 'a';
        path[108] = '\0';
        ck_assert_int_eq(PARSE(&o, err, "--socket", path), -EINVAL);
        ck_assert_ptr_nonnull(strstr(err, "is longer than 107 bytes (a limit of UNIX sockets); choose a shorter path"));
        ck_assert_int_eq(PARSE(&o, err, "--nfd-file", "labels"), 0);
        ck_assert_str_eq(o.nfd_file, "labels");
        ck_assert_int_eq(PARSE(&o, err, "--kmsg", "none"), 0);
        ck_assert_ptr_null(o.kmsg);
        ck_assert(o.kmsg_set);
        ck_assert_int_eq(PARSE(&o, err, "--kmsg", "/tmp/kmsg"), 0);
        ck_assert_str_eq(o.kmsg, "/tmp/kmsg");
        ck_assert_int_eq(PARSE(&o, err, "--kmsg", ""), -EINVAL);
        ck_assert_ptr_nonnull(strstr(err, "--kmsg: empty path"));
}
END_TEST

/* --pod-resources, --cdi-spec-dirs, --workload-labels (workloads.h). */
START_TEST(test_workload_options) {
        struct xpud_options o;
        char err[256];
        ck_assert_int_eq(PARSE(&o, err, "--interval", "5"), 0);
        ck_assert_ptr_null(o.pod_resources);
        ck_assert_ptr_null(o.cdi_spec_dirs);
        ck_assert(!o.workload_labels);
        ck_assert_int_eq(PARSE(&o, err, "--pod-resources", "/var/lib/kubelet/pod-resources/kubelet.sock",
                               "--cdi-spec-dirs", "/etc/cdi,/var/run/cdi,/host/etc/cdi", "--workload-labels"),
                         0);
        ck_assert_str_eq(o.pod_resources, "/var/lib/kubelet/pod-resources/kubelet.sock");
        ck_assert_str_eq(o.cdi_spec_dirs, "/etc/cdi,/var/run/cdi,/host/etc/cdi");
        ck_assert(o.workload_labels);
        ck_assert_int_eq(PARSE(&o, err, "--pod-resources", "none", "--cdi-spec-dirs=/cdi"), 0);
        ck_assert_str_eq(o.pod_resources, "none");
        ck_assert_str_eq(o.cdi_spec_dirs, "/cdi");
        ck_assert_int_eq(PARSE(&o, err, "--pod-resources", "kubelet.sock"), -EINVAL);
        ck_assert_str_eq(err, "--pod-resources: \"kubelet.sock\" is neither an absolute path nor none (give e.g. "
                              "/var/lib/kubelet/pod-resources/kubelet.sock)");
        ck_assert_int_eq(PARSE(&o, err, "--pod-resources", ""), -EINVAL);
        ck_assert_ptr_nonnull(strstr(err, "--pod-resources: empty path"));
        char path[120];
        memset(path, 'a', sizeof path - 1);
        path[0] = '/';
        path[108] = '\0';
        ck_assert_int_eq(PARSE(&o, err, "--pod-resources", path), -EINVAL);
        ck_assert_ptr_nonnull(strstr(err, "is longer than 107 bytes (a limit of UNIX sockets)"));
        static const char *const bad[] = { "", "etc/cdi", "/etc/cdi,", ",/etc/cdi", "/a,,/b", "/a,b" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                ck_assert_int_eq(PARSE(&o, err, "--cdi-spec-dirs", bad[i]), -EINVAL);
                ck_assert_msg(strstr(err, "is not a comma-separated list of absolute directories (give e.g. "
                                          "/etc/cdi,/var/run/cdi)"), "%s: %s", bad[i], err);
        }
        ck_assert_int_eq(PARSE(&o, err, "--cdi-spec-dirs", "/1,/2,/3,/4,/5,/6,/7,/8"), 0);
        ck_assert_int_eq(PARSE(&o, err, "--cdi-spec-dirs", "/1,/2,/3,/4,/5,/6,/7,/8,/9"), -EINVAL);
        ck_assert_ptr_nonnull(strstr(err, "names more than 8 directories"));
        ck_assert_int_eq(PARSE(&o, err, "--workload-labels=yes"), -EINVAL);
}
END_TEST

START_TEST(test_errors) {
        static const struct {
                const char *args[4];
                const char *message;
        } cases[] = {
                { { "--interval", "0" }, "--interval: \"0\" is not a whole number of seconds between 1 and 86400" },
                { { "--interval", "86401" }, "--interval: \"86401\" is not a whole number of seconds between 1 and 86400" },
                { { "--interval", "-5" }, "--interval: \"-5\" is not a whole number" },
                { { "--interval", "1.5" }, "--interval: \"1.5\" is not a whole number" },
                { { "--vendor-timeout", "601" }, "--vendor-timeout: \"601\" is not a whole number of seconds between 1 and 600" },
                { { "--allow-uid", "no-such-user-xpud" }, "--allow-uid: no user named \"no-such-user-xpud\" (check the name, or give the numeric id)" },
                { { "--allow-gid", "no-such-group-xpud" }, "--allow-gid: no group named \"no-such-group-xpud\"" },
                { { "--allow-uid", "1000,,1001" }, "--allow-uid: empty or overlong item in \"1000,,1001\"" },
                { { "--allow-uid", "1000," }, "--allow-uid: empty or overlong item" },
                { { "--allow-uid", "" }, "--allow-uid: empty list" },
                { { "--allow-gid", "4294967295" }, "--allow-gid: \"4294967295\" is not a valid group id" },
                { { "--allow-uid", "99999999999" }, "--allow-uid: \"99999999999\" is not a valid user id" },
                { { "--listen-tcp", "localhost:9400" }, "--listen-tcp: \"localhost:9400\" is not ADDR:PORT with a literal address" },
                { { "--user", "no-such-user-xpud" }, "--user: no user named \"no-such-user-xpud\"" },
                { { "--log-level", "loud" }, "--log-level: unknown level \"loud\" (use error, warning, info or debug)" },
                { { "--socket", "" }, "--socket: empty path" },
                { { "--sys-root", "" }, "--sys-root: empty path" },
                { { "--socket", "/run/xpud/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.sock" },
                  "--socket: \"/run/xpud/aaaa" },
                { { "--listen-tcp", "127.0.0.1:9400", "--listen-tcp" }, "option --listen-tcp needs a value" },
                { { "--nfd-file", "/" }, "--nfd-file: \"/\" does not end in a file name" },
                { { "--nfd-file", "/etc/features.d/" }, "--nfd-file: \"/etc/features.d/\" does not end in a file name" },
                { { "--nfd-file", "/etc/.." }, "--nfd-file: \"/etc/..\" does not end in a file name" },
                { { "--interval" }, "option --interval needs a value; see xpud --help" },
                { { "--bogus" }, "unknown option \"--bogus\"; see xpud --help" },
                { { "-x" }, "unknown option \"-x\"; see xpud --help" },
                { { "serve" }, "unexpected argument \"serve\" (xpud takes options only; see xpud --help)" },
                { { "--cdi-dir", "run/cdi" }, "--cdi-dir: \"run/cdi\" is not an absolute path" },
                { { "--cdi-dir", "" }, "--cdi-dir: empty path" },
                { { "--cdi-dir", "/run/cdi", "--cdi-host-root", "host" }, "--cdi-host-root: \"host\" is not an absolute" },
                { { "--cdi-host-root", "/host" }, "--cdi-host-root goes with --cdi-dir" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                struct xpud_options o = { .interval_s = 77 };
                char err[256];
                ck_assert_int_eq(parse(&o, err, sizeof err, cases[i].args), -EINVAL);
                ck_assert_msg(strstr(err, cases[i].message) == err, "%s: got \"%s\", want \"%s...\"", cases[i].args[0],
                              err, cases[i].message);
                ck_assert_uint_eq(o.interval_s, 77); /* *ret untouched on error */
        }
}
END_TEST

static Suite *options_suite(void) {
        Suite *s = suite_create("xpud-options");
        TCase *tc = tcase_create("options");
        tcase_add_test(tc, test_defaults);
        tcase_add_test(tc, test_every_option);
        tcase_add_test(tc, test_tcp_addresses);
        tcase_add_test(tc, test_id_lists);
        tcase_add_test(tc, test_errors);
        tcase_add_test(tc, test_repeated_and_long);
        tcase_add_test(tc, test_workload_options);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(options_suite());
}
