/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/auth.c: the allow-list decision, peer credentials read from real sockets (SO_PEERCRED,
 * SO_PEERGROUPS) and the once-per-uid denial log. Clients of other uids need root (setresuid in
 * a child): without it those tests fail loudly. */
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "auth.h"
#include "base/macro.h"
#include "testlib.h"

static const uid_t uids[] = { 1001, 1002 };
static const gid_t gids[] = { 3000 };

START_TEST(test_decision) {
        struct xpud_auth a;
        xpud_auth_init(&a, uids, ELEMENTSOF(uids), gids, ELEMENTSOF(gids));
        const gid_t other[] = { 5, 3001 }, member[] = { 5, 3000 };
        static const struct {
                uid_t uid;
                gid_t gid;
                bool supplementary_member;
                bool want;
        } cases[] = {
                { 0, 0, false, true },        /* root, always */
                { 0, 65534, false, true },    /* root with any gid */
                { 1001, 1001, false, true },  /* listed uid */
                { 1002, 65534, false, true }, /* listed uid */
                { 1003, 3000, false, true },  /* listed primary gid */
                { 1003, 1003, true, true },   /* listed supplementary gid */
                { 1003, 1003, false, false }, /* nothing listed */
                { 65534, 65534, false, false },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const gid_t *g = cases[i].supplementary_member ? member : other;
                ck_assert_msg(xpud_auth_allowed(&a, cases[i].uid, cases[i].gid, g, 2) == cases[i].want,
                              "uid %u gid %u: want %d", (unsigned)cases[i].uid, (unsigned)cases[i].gid, cases[i].want);
        }
        xpud_auth_done(&a);
        /* Empty lists: root only. */
        xpud_auth_init(&a, NULL, 0, NULL, 0);
        ck_assert(xpud_auth_allowed(&a, 0, 0, NULL, 0));
        ck_assert(!xpud_auth_allowed(&a, 1001, 3000, member, 2));
        xpud_auth_done(&a);
}
END_TEST

START_TEST(test_denials_logged_once) {
        struct xpud_auth a;
        xpud_auth_init(&a, NULL, 0, NULL, 0);
        struct xpud_peer p = { .pid = 1, .uid = 1000, .gid = 1000 };
        ck_assert_int_eq(xpud_auth_note_denied(&a, &p), XPUD_DENIAL_FIRST);
        ck_assert_int_eq(xpud_auth_note_denied(&a, &p), XPUD_DENIAL_REPEATED);
        ck_assert_int_eq(xpud_auth_note_denied(&a, &p), XPUD_DENIAL_REPEATED);
        p.uid = 1001;
        ck_assert_int_eq(xpud_auth_note_denied(&a, &p), XPUD_DENIAL_FIRST);
        ck_assert_uint_eq(a.denied_total, 4);
        ck_assert_uint_eq(a.n_logged, 2);
        /* Past XPUD_AUTH_LOGGED_MAX uids: one "no longer logged" answer, then quiet. */
        for (uid_t u = 2000; a.n_logged < XPUD_AUTH_LOGGED_MAX; u++) {
                p.uid = u;
                ck_assert_int_eq(xpud_auth_note_denied(&a, &p), XPUD_DENIAL_FIRST);
        }
        p.uid = 900000;
        ck_assert_int_eq(xpud_auth_note_denied(&a, &p), XPUD_DENIAL_LOG_FULL);
        p.uid = 900001;
        ck_assert_int_eq(xpud_auth_note_denied(&a, &p), XPUD_DENIAL_REPEATED);
        p.uid = 1000;
        ck_assert_int_eq(xpud_auth_note_denied(&a, &p), XPUD_DENIAL_REPEATED);
        ck_assert_uint_eq(a.denied_total, 4 + (XPUD_AUTH_LOGGED_MAX - 2) + 3);
        xpud_auth_done(&a);
}
END_TEST

/* A socketpair's peer is this process: root here (CI runs as root), so allowed; a TCP socket has
 * no credentials to read. */
START_TEST(test_check_fd_self_and_tcp) {
        struct xpud_auth a;
        xpud_auth_init(&a, uids, ELEMENTSOF(uids), NULL, 0);
        int sp[2];
        ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
        struct xpud_peer p = {};
        ck_assert_int_eq(xpud_auth_check_fd(&a, sp[0], &p), 0);
        ck_assert_int_eq(p.pid, getpid());
        ck_assert_uint_eq(p.uid, geteuid());
        ck_assert_uint_eq(p.gid, getegid());
        ck_assert(p.allowed == (geteuid() == 0));
        close(sp[0]);
        close(sp[1]);
        int t = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ck_assert_int_ge(t, 0);
        ck_assert_int_lt(xpud_auth_check_fd(&a, t, &p), 0);
        close(t);
        ck_assert_int_eq(xpud_auth_check_fd(&a, -1, &p), -EBADF);
        xpud_auth_done(&a);
}
END_TEST

/* A child as UID:GID with supplementary GROUP (0: none) connects to a listening socket; the
 * credentials the server side reads must be the child's, and the decision WANT. */
static void check_client(uid_t uid, gid_t gid, gid_t group, bool want) {
        ck_assert_msg(geteuid() == 0, "this test must run as root (it switches uids to be a client)");
        char *dir = xpu_test_mkdtemp();
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s/s", dir);
        int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ck_assert_int_eq(bind(l, (struct sockaddr *)&sa, sizeof sa), 0);
        ck_assert_int_eq(chmod(dir, 0755), 0);
        ck_assert_int_eq(chmod(sa.sun_path, 0666), 0);
        ck_assert_int_eq(listen(l, 4), 0);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                gid_t gs[1] = { group };
                if (setgroups(group ? 1 : 0, gs) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
                        _exit(90);
                int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                if (connect(c, (struct sockaddr *)&sa, sizeof sa) < 0)
                        _exit(91);
                char b;
                if (read(c, &b, 1) < 0) /* until the parent has looked */
                        _exit(92);
                _exit(0);
        }
        int c = accept4(l, NULL, NULL, SOCK_CLOEXEC);
        ck_assert_int_ge(c, 0);
        struct xpud_auth a;
        xpud_auth_init(&a, uids, ELEMENTSOF(uids), gids, ELEMENTSOF(gids));
        struct xpud_peer p = {};
        ck_assert_int_eq(xpud_auth_check_fd(&a, c, &p), 0);
        close(c);
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert_int_eq(WEXITSTATUS(st), 0);
        ck_assert_int_eq(p.pid, pid);
        ck_assert_uint_eq(p.uid, uid);
        ck_assert_uint_eq(p.gid, gid);
        ck_assert_msg(p.allowed == want, "uid %u gid %u group %u: allowed %d", (unsigned)uid, (unsigned)gid,
                      (unsigned)group, p.allowed);
        xpud_auth_done(&a);
        close(l);
        xpu_test_rm_rf(dir);
        free(dir);
}

START_TEST(test_check_fd_other_uids) {
        check_client(1001, 1001, 0, true);     /* listed uid */
        check_client(1000, 3000, 0, true);     /* listed primary gid */
        check_client(1000, 1000, 3000, true);  /* listed supplementary gid (SO_PEERGROUPS) */
        check_client(1000, 1000, 3001, false); /* nothing listed */
        check_client(1000, 1000, 0, false);
}
END_TEST

static Suite *auth_suite(void) {
        Suite *s = suite_create("xpud-auth");
        TCase *tc = tcase_create("auth");
        tcase_set_timeout(tc, 20);
        tcase_add_test(tc, test_decision);
        tcase_add_test(tc, test_denials_logged_once);
        tcase_add_test(tc, test_check_fd_self_and_tcp);
        tcase_add_test(tc, test_check_fd_other_uids);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(auth_suite());
}
