/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/listen.c: xpud's UNIX socket bound in scratch directories (its mode, owner and group,
 * the directory made and checked, the lock beside it, a stale socket replaced, a live one or
 * another xpud's lock refused, a path too long, a file or directory in the way, removal at exit
 * only of what is still ours), the listeners systemd passes (LISTEN_FDS, LISTEN_FDNAMES, in a
 * forked child that owns fds 3 to 5) and --listen-tcp. Each refusal is checked with the line that
 * names the cause and the fix. Needs root for directories of another owner. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "listen.h"
#include "testlib.h"
#include "xpud-options.h"

static char *tmp;
static struct xpud_options opts;
static char sock[PATH_MAX]; /* TMP/run/xpud/xpud.sock */
static int err_saved = -1, err_fd = -1;

static void setup(void) {
        tmp = xpu_test_mkdtemp();
        memset(&opts, 0, sizeof opts);
        snprintf(sock, sizeof sock, "%s/run/xpud/xpud.sock", tmp);
        opts.socket_path = sock;
        xpud_listen_init(&opts);
        xpu_log_set_program("xpud");
        xpu_log_set_level(XPU_LOG_INFO);
}

static void teardown(void) {
        xpu_test_rm_rf(tmp);
        free(tmp);
}

static struct unix_listener listener(void) {
        return (struct unix_listener){ .fd = -1, .dir_fd = -1, .lock_fd = -1 };
}

static void listener_close(struct unix_listener *u) {
        if (u->fd >= 0)
                close(u->fd);
        if (u->dir_fd >= 0)
                close(u->dir_fd);
        if (u->lock_fd >= 0)
                close(u->lock_fd);
        *u = listener();
}

/* Log lines go to a file from capture() until captured() returns them (static buffer). */
static void capture(void) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/stderr", tmp);
        err_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        ck_assert_int_ge(err_fd, 0);
        err_saved = dup(STDERR_FILENO);
        ck_assert_int_eq(dup2(err_fd, STDERR_FILENO), STDERR_FILENO);
}

static const char *captured(void) {
        static char buf[8192];
        ck_assert_int_eq(dup2(err_saved, STDERR_FILENO), STDERR_FILENO);
        close(err_saved);
        ssize_t n = pread(err_fd, buf, sizeof buf - 1, 0);
        close(err_fd);
        buf[n > 0 ? n : 0] = '\0';
        return buf;
}

/* Bind SOCK, returning the result and the log in *LOG. */
static int bind_logged(struct unix_listener *u, const char **log) {
        capture();
        int r = xpud_listen_bind_unix(sock, u);
        *log = captured();
        return r;
}

static void mkdirs(const char *dir, mode_t mode) {
        xpu_test_write(dir, ".keep", ""); /* the directory and its parents */
        char keep[PATH_MAX + 8];
        snprintf(keep, sizeof keep, "%s/.keep", dir);
        ck_assert_int_eq(unlink(keep), 0);
        ck_assert_int_eq(chmod(dir, mode), 0);
}

static void sock_dir(char *buf, size_t size) {
        snprintf(buf, size, "%s/run/xpud", tmp);
}

/* A socket bound at PATH, listening when LISTENING (the fd), else closed at once (a stale file). */
static int socket_at(const char *path, bool listening) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ck_assert_int_ge(fd, 0);
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
        ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
        if (!listening) {
                close(fd);
                return -1;
        }
        ck_assert_int_eq(listen(fd, 1), 0);
        return fd;
}

static bool accepts_connections(int fd) {
        int v = 0;
        socklen_t len = sizeof v;
        return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &len) == 0 && v == 1;
}

static char *read_text(const char *path) {
        static char buf[256];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        buf[n > 0 ? n : 0] = '\0';
        return buf;
}

/* A fresh path: its directory made (0755), the socket born 0660 whatever the umask, our owner,
 * the "xpud" group when it exists, listening and close-on-exec; the lock file names our pid;
 * a client connects. At exit both files go. */
START_TEST(test_bind_fresh) {
        struct unix_listener u = listener();
        const char *log;
        mode_t old = umask(0);
        int r = bind_logged(&u, &log);
        umask(old);
        ck_assert_msg(r == 0, "%d: %s", r, log);
        ck_assert(u.created && !u.inherited && u.made_dir);
        ck_assert_str_eq(u.name, "xpud.sock");
        char dir[PATH_MAX];
        sock_dir(dir, sizeof dir);
        ck_assert_str_eq(u.dir, dir);
        struct stat st;
        ck_assert_int_eq(stat(dir, &st), 0);
        ck_assert_uint_eq(st.st_mode & 07777, 0755);
        ck_assert_int_eq(lstat(sock, &st), 0);
        ck_assert(S_ISSOCK(st.st_mode));
        ck_assert_uint_eq(st.st_mode & 07777, 0660);
        ck_assert_uint_eq(st.st_uid, geteuid());
        ck_assert_uint_eq(st.st_ino, u.ino);
        struct group *g = getgrnam("xpud");
        if (g) {
                ck_assert_uint_eq(st.st_gid, g->gr_gid);
        } else {
                ck_assert_uint_eq(st.st_gid, getegid());
                char want[PATH_MAX + 64];
                snprintf(want, sizeof want, "no group \"xpud\": %s stays root-only (mode 0660, group %u)", sock,
                         (unsigned)getegid());
                ck_assert_msg(strstr(log, want), "%s", log);
        }
        ck_assert(accepts_connections(u.fd));
        ck_assert(fcntl(u.fd, F_GETFD) & FD_CLOEXEC);
        char lock[PATH_MAX + 8], pid[32];
        snprintf(lock, sizeof lock, "%s.lock", sock);
        snprintf(pid, sizeof pid, "%d\n", (int)getpid());
        ck_assert_str_eq(read_text(lock), pid);
        int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
        ck_assert_int_eq(connect(c, (struct sockaddr *)&sa, sizeof sa), 0);
        close(c);
        xpud_listen_remove(&u);
        ck_assert_int_eq(lstat(sock, &st), -1);
        ck_assert_int_eq(lstat(lock, &st), -1);
        listener_close(&u);
}
END_TEST

/* No "xpud" group and --allow-uid given: the users allowed could not connect; the warning says so
 * and how to create the group. (With the group on this machine, its gid is checked above.) */
START_TEST(test_no_group_with_allow_lists) {
        if (getgrnam("xpud")) { /* the other branch: the socket is the group's */
                struct unix_listener u = listener();
                const char *log;
                ck_assert_int_eq(bind_logged(&u, &log), 0);
                struct stat st;
                ck_assert_int_eq(lstat(sock, &st), 0);
                ck_assert_uint_eq(st.st_gid, getgrnam("xpud")->gr_gid);
                listener_close(&u);
                return;
        }
        opts.allow_uids[0] = 1000;
        opts.n_allow_uids = 1;
        struct unix_listener u = listener();
        const char *log;
        ck_assert_int_eq(bind_logged(&u, &log), 0);
        ck_assert_msg(strstr(log, "warning: no group \"xpud\"") && strstr(log, "cannot connect") &&
                              strstr(log, "groupadd --system xpud"),
                      "%s", log);
        listener_close(&u);

        /* only the socket's own group allowed (and root): its members can connect, no warning */
        opts.n_allow_uids = 0;
        opts.allow_gids[0] = getegid();
        opts.n_allow_gids = 1;
        u = listener();
        ck_assert_int_eq(bind_logged(&u, &log), 0);
        ck_assert_msg(!strstr(log, "cannot connect") && strstr(log, "stays root-only"), "%s", log);
        listener_close(&u);
        opts.n_allow_gids = 0;
}
END_TEST

/* A socket file nobody listens on (a crashed xpud's) is replaced; one somebody listens on is
 * refused, and left. */
START_TEST(test_stale_and_live_socket) {
        char dir[PATH_MAX];
        sock_dir(dir, sizeof dir);
        mkdirs(dir, 0755);
        (void)socket_at(sock, false);
        struct stat before, after;
        ck_assert_int_eq(lstat(sock, &before), 0);
        struct unix_listener u = listener();
        const char *log;
        ck_assert_int_eq(bind_logged(&u, &log), 0);
        ck_assert_msg(strstr(log, "replaced the stale socket"), "%s", log);
        ck_assert_int_eq(lstat(sock, &after), 0);
        ck_assert_uint_eq(after.st_ino, u.ino);
        ck_assert(accepts_connections(u.fd));
        ck_assert(!u.made_dir);
        listener_close(&u); /* the lock goes with its fd; the socket file stays, live no more */

        ck_assert_int_eq(unlink(sock), 0);
        int fd = socket_at(sock, true);
        ck_assert_int_eq(bind_logged(&u, &log), -EADDRINUSE);
        ck_assert_msg(strstr(log, "another process is serving") && strstr(log, sock) &&
                              strstr(log, "stop it or choose another --socket"),
                      "%s", log);
        ck_assert_int_eq(lstat(sock, &after), 0); /* left alone */
        close(fd);
        listener_close(&u);
}
END_TEST

/* Another xpud holds the lock (a process that bound the same path): refused at once, naming its
 * pid, before the socket file is looked at. */
START_TEST(test_lock_held_by_another_xpud) {
        int ready[2], done[2];
        ck_assert_int_eq(pipe2(ready, O_CLOEXEC), 0);
        ck_assert_int_eq(pipe2(done, O_CLOEXEC), 0);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                struct unix_listener u = listener();
                char c = xpud_listen_bind_unix(sock, &u) == 0 ? 'y' : 'n';
                if (write(ready[1], &c, 1) != 1 || read(done[0], &c, 1) < 0)
                        _exit(1);
                _exit(0);
        }
        char c = 0;
        ck_assert_int_eq(read(ready[0], &c, 1), 1);
        ck_assert_int_eq(c, 'y');
        struct unix_listener u = listener();
        const char *log;
        int r = bind_logged(&u, &log);
        ck_assert_int_eq(write(done[1], "x", 1), 1);
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert_int_eq(r, -EADDRINUSE);
        char want[PATH_MAX * 2 + 64];
        snprintf(want, sizeof want, "another xpud (pid %d) is serving %s (it holds %s.lock)", (int)pid, sock, sock);
        ck_assert_msg(strstr(log, want), "%s", log);
        listener_close(&u);
        /* Gone with its process: the next bind takes the lock and replaces the stale socket. */
        ck_assert_int_eq(bind_logged(&u, &log), 0);
        listener_close(&u);
}
END_TEST

/* Something else at the path: a file or a directory is not replaced. */
START_TEST(test_something_else_in_the_way) {
        char dir[PATH_MAX];
        sock_dir(dir, sizeof dir);
        mkdirs(dir, 0755);
        xpu_test_write(tmp, "run/xpud/xpud.sock", "data\n");
        struct unix_listener u = listener();
        const char *log;
        ck_assert_int_eq(bind_logged(&u, &log), -EEXIST);
        ck_assert_msg(strstr(log, "exists and is not a socket; remove it or choose another --socket"), "%s", log);
        ck_assert_str_eq(read_text(sock), "data\n");
        listener_close(&u);
        ck_assert_int_eq(unlink(sock), 0);
        ck_assert_int_eq(mkdir(sock, 0755), 0);
        ck_assert_int_eq(bind_logged(&u, &log), -EEXIST);
        ck_assert_msg(strstr(log, "exists and is not a socket"), "%s", log);
        listener_close(&u);
        /* A file where the socket's directory would be made. */
        char file[PATH_MAX];
        snprintf(file, sizeof file, "%s/run/file", tmp);
        xpu_test_write(tmp, "run/file", "");
        snprintf(sock, sizeof sock, "%s/sub/s.sock", file);
        ck_assert_int_eq(bind_logged(&u, &log), -ENOTDIR);
        ck_assert_msg(strstr(log, "cannot create the directory") && strstr(log, "Not a directory"), "%s", log);
        listener_close(&u);
}
END_TEST

/* sun_path holds 107 characters and a NUL: a longer path is refused before anything is made. */
START_TEST(test_path_too_long) {
        char name[200];
        memset(name, 'a', sizeof name - 1);
        name[sizeof name - 1] = '\0';
        snprintf(sock, sizeof sock, "%s/%s", tmp, name);
        struct unix_listener u = listener();
        ck_assert_int_eq(xpud_listen_bind_unix(sock, &u), -ENAMETOOLONG);
        ck_assert_int_eq(u.fd, -1);
        struct stat st;
        ck_assert_int_eq(lstat(sock, &st), -1);
}
END_TEST

/* The directory: nobody but root, xpud or its --user may be able to change what is in it. */
START_TEST(test_directory_checks) {
        char dir[PATH_MAX];
        sock_dir(dir, sizeof dir);
        mkdirs(dir, 0777);
        struct unix_listener u = listener();
        const char *log;
        ck_assert_int_eq(bind_logged(&u, &log), -EPERM);
        char want[PATH_MAX + 64];
        snprintf(want, sizeof want, "(chmod go-w %s)", dir);
        ck_assert_msg(strstr(log, "others could replace the socket") && strstr(log, want), "%s", log);
        listener_close(&u);
        ck_assert_int_eq(chmod(dir, 01777), 0); /* as /tmp */
        ck_assert_int_eq(bind_logged(&u, &log), -EPERM);
        ck_assert_msg(strstr(log, "a shared directory") && strstr(log, "mkdir -m 0755 /run/xpud"), "%s", log);
        listener_close(&u);
        ck_assert_int_eq(chmod(dir, 0755), 0);
        ck_assert_int_eq(chown(dir, 12345, 12345), 0);
        ck_assert_int_eq(bind_logged(&u, &log), -EPERM);
        snprintf(want, sizeof want, "(chown root %s)", dir);
        ck_assert_msg(strstr(log, want), "%s", log);
        listener_close(&u);
        /* Owned by the --user xpud becomes: its own directory. */
        opts.user_set = true;
        opts.user_uid = 12345;
        snprintf(opts.user, sizeof opts.user, "svc");
        ck_assert_int_eq(bind_logged(&u, &log), 0);
        ck_assert(xpud_listen_dir_owned_by_user(&u));
        opts.user_uid = 4321;
        ck_assert(!xpud_listen_dir_owned_by_user(&u));
        listener_close(&u);
        ck_assert(!xpud_listen_dir_owned_by_user(&u)); /* no directory: false */
        /* A symlink to a good directory: refused (the directory itself must be named). */
        char real[PATH_MAX];
        snprintf(real, sizeof real, "%s/real", tmp);
        mkdirs(real, 0755);
        snprintf(dir, sizeof dir, "%s/link", tmp);
        ck_assert_int_eq(symlink(real, dir), 0);
        snprintf(sock, sizeof sock, "%s/xpud.sock", dir);
        ck_assert_int_lt(bind_logged(&u, &log), 0);
        ck_assert_msg(strstr(log, "cannot open the socket's directory") && strstr(log, "(a directory, not a symlink)"),
                      "%s", log);
        listener_close(&u);
}
END_TEST

/* The lock file must be one xpud could have made: a regular file with one link. */
START_TEST(test_lock_file_checks) {
        char dir[PATH_MAX], lock[PATH_MAX + 8];
        sock_dir(dir, sizeof dir);
        mkdirs(dir, 0755);
        snprintf(lock, sizeof lock, "%s.lock", sock);
        ck_assert_int_eq(mkdir(lock, 0755), 0);
        struct unix_listener u = listener();
        const char *log;
        ck_assert_int_lt(bind_logged(&u, &log), 0);
        ck_assert_msg(strstr(log, "xpud.sock.lock"), "%s", log);
        listener_close(&u);
        ck_assert_int_eq(rmdir(lock), 0);
        xpu_test_write(tmp, "victim", "keep\n");
        char victim[PATH_MAX];
        snprintf(victim, sizeof victim, "%s/victim", tmp);
        ck_assert_int_eq(link(victim, lock), 0);
        ck_assert_int_eq(bind_logged(&u, &log), -EEXIST);
        ck_assert_msg(strstr(log, "has 2 links and owner uid 0: not a lock file xpud made"), "%s", log);
        ck_assert_str_eq(read_text(victim), "keep\n"); /* not truncated */
        listener_close(&u);
        ck_assert_int_eq(unlink(lock), 0);
        ck_assert_int_eq(symlink(victim, lock), 0);
        ck_assert_int_lt(bind_logged(&u, &log), 0);
        ck_assert_msg(strstr(log, "cannot open the lock file"), "%s", log);
        ck_assert_str_eq(read_text(victim), "keep\n");
        listener_close(&u);
}
END_TEST

/* At exit only the socket bound here goes: one that a newer xpud put at the path stays. */
START_TEST(test_remove_only_ours) {
        struct unix_listener u = listener();
        const char *log;
        ck_assert_int_eq(bind_logged(&u, &log), 0);
        ck_assert_int_eq(unlink(sock), 0);
        int other = socket_at(sock, true);
        xpud_listen_remove(&u);
        struct stat st;
        ck_assert_int_eq(lstat(sock, &st), 0);
        ck_assert(S_ISSOCK(st.st_mode));
        char lock[PATH_MAX + 8];
        snprintf(lock, sizeof lock, "%s.lock", sock);
        ck_assert_int_eq(lstat(lock, &st), -1); /* the lock file, while it still held it */
        close(other);
        listener_close(&u);
        /* A listener systemd passed is never removed. */
        struct unix_listener inherited = listener();
        inherited.inherited = true;
        other = socket_at(lock, true); /* any socket file */
        xpud_listen_remove(&inherited);
        ck_assert_int_eq(lstat(lock, &st), 0);
        close(other);
}
END_TEST

/* ---- socket activation ------------------------------------------------------------------------ */

/* A listening TCP socket on 127.0.0.1 (an ephemeral port). */
static int tcp_listener(void) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 1) < 0)
                return -1;
        return fd;
}

/* In a child: fds 3.. are KINDS ('u' listening UNIX, 't' listening TCP, 'd' UDP), LISTEN_FDS
 * their count (FDS, when not NULL, instead; neither variable with no KINDS and no FDS), LISTEN_FDNAMES NAMES (NULL: unset); then
 * xpud_listen_take_fds. Writes "rc R unix U tcp T inherited I env E closed C" to OUT, C the fds
 * of 3.. that are closed. */
_Noreturn static void take_child(const char *kinds, const char *fds, const char *names, int out) {
        int made[8];
        size_t n = strlen(kinds);
        for (size_t i = 0; i < n; i++) {
                int fd = kinds[i] == 't' ? tcp_listener()
                         : kinds[i] == 'd' ? socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)
                                           : socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                if (fd < 0)
                        _exit(90);
                if (kinds[i] == 'u') {
                        char path[PATH_MAX];
                        snprintf(path, sizeof path, "%s/a%zu.sock", tmp, i);
                        struct sockaddr_un sa = { .sun_family = AF_UNIX };
                        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
                        (void)unlink(path); /* an earlier case's */
                        if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 1) < 0)
                                _exit(91);
                }
                made[i] = fcntl(fd, F_DUPFD_CLOEXEC, 20);
                close(fd);
        }
        int o = fcntl(out, F_DUPFD_CLOEXEC, 40);
        for (size_t i = 0; i < n; i++) /* systemd's fds: 3, 4, ... in order */
                if (dup2(made[i], 3 + (int)i) < 0)
                        _exit(92);
        char v[32];
        snprintf(v, sizeof v, "%d", (int)getpid());
        if (n > 0 || fds) /* nothing passed: no variable at all, as without systemd */
                setenv("LISTEN_PID", v, 1);
        snprintf(v, sizeof v, "%zu", n);
        if (n > 0 || fds)
                setenv("LISTEN_FDS", fds ? fds : v, 1);
        if (names)
                setenv("LISTEN_FDNAMES", names, 1);
        struct unix_listener u = listener();
        int tcp = -1;
        int r = xpud_listen_take_fds(&u, &tcp);
        char closed[64] = "";
        for (size_t i = 0; i < n; i++)
                if (fcntl(3 + (int)i, F_GETFD) < 0)
                        snprintf(closed + strlen(closed), sizeof closed - strlen(closed), "%s%zu", closed[0] ? "," : "",
                                 3 + i);
        dprintf(o, "rc %d unix %d tcp %d inherited %d env %s closed %s\n", r, u.fd, tcp, u.inherited,
                getenv("LISTEN_FDS") ? "set" : "unset", closed[0] ? closed : "-");
        _exit(0);
}

/* Run take_child; returns its line (static buffer) and its log in *LOG. */
static const char *take(const char *kinds, const char *fds, const char *names, const char **log) {
        static char line[256];
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/take", tmp);
        int out = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        ck_assert_int_ge(out, 0);
        capture();
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0)
                take_child(kinds, fds, names, out);
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        *log = captured();
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x\n%s", st, *log);
        ssize_t n = pread(out, line, sizeof line - 1, 0);
        close(out);
        line[n > 0 ? n : 0] = '\0';
        line[strcspn(line, "\n")] = '\0';
        return line;
}

START_TEST(test_listen_fds) {
        const char *log;
        /* Named: "api" is the UNIX listener wherever it stands, "metrics" the TCP one; a UDP socket
         * is neither: closed, with a warning naming it. The variables are unset. */
        ck_assert_str_eq(take("tud", NULL, "metrics:api:junk", &log), "rc 0 unix 4 tcp 3 inherited 1 env unset closed 5");
        ck_assert_msg(strstr(log, "ignoring socket 5 (\"junk\") passed by systemd"), "%s", log);
        /* Unnamed: the first listening UNIX socket; a TCP one without the name "metrics" is closed. */
        ck_assert_str_eq(take("tu", NULL, NULL, &log), "rc 0 unix 4 tcp -1 inherited 1 env unset closed 3");
        /* Named "api" wins over an earlier unnamed one. */
        ck_assert_str_eq(take("uu", NULL, "x:api", &log), "rc 0 unix 4 tcp -1 inherited 1 env unset closed 3");
        /* No UNIX listener among them: refused, naming the fix. */
        ck_assert_str_eq(take("t", NULL, NULL, &log), "rc -22 unix -1 tcp -1 inherited 0 env unset closed 3");
        ck_assert_msg(strstr(log, "systemd passed 1 socket(s), none a listening AF_UNIX stream socket; check "
                                  "ListenStream= in xpud.socket"),
                      "%s", log);
        /* LISTEN_FDS that is no number. */
        ck_assert_str_eq(take("u", "three", NULL, &log), "rc -22 unix -1 tcp -1 inherited 0 env unset closed -");
        ck_assert_msg(strstr(log, "LISTEN_FDS is set but unusable"), "%s", log);
        /* Nothing passed: nothing taken, xpud binds its own. */
        ck_assert_str_eq(take("", NULL, NULL, &log), "rc 0 unix -1 tcp -1 inherited 0 env unset closed -");
}
END_TEST

/* ---- --listen-tcp ---------------------------------------------------------------------------- */

static void tcp_option(const char *addr, uint16_t port) {
        struct sockaddr_in *sa = (struct sockaddr_in *)&opts.tcp_addr;
        memset(&opts.tcp_addr, 0, sizeof opts.tcp_addr);
        sa->sin_family = AF_INET;
        sa->sin_port = htons(port);
        ck_assert_int_eq(inet_pton(AF_INET, addr, &sa->sin_addr), 1);
        opts.tcp_addr_len = sizeof *sa;
        opts.tcp = true;
        snprintf(opts.tcp_text, sizeof opts.tcp_text, "%s:%u", addr, (unsigned)port);
}

START_TEST(test_listen_tcp) {
        tcp_option("127.0.0.1", 0);
        capture();
        int fd = xpud_listen_bind_tcp();
        const char *log = captured();
        ck_assert_msg(fd >= 0, "%d: %s", fd, log);
        ck_assert(accepts_connections(fd));
        ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
        ck_assert_msg(strstr(log, "info: serving /metrics without authentication on TCP 127.0.0.1:0 (--listen-tcp)"),
                      "%s", log);
        close(fd);
        /* Not a loopback address: a warning that says who can reach it. */
        tcp_option("0.0.0.0", 0);
        capture();
        fd = xpud_listen_bind_tcp();
        log = captured();
        ck_assert_int_ge(fd, 0);
        ck_assert_msg(strstr(log, "warning: serving /metrics without authentication on TCP 0.0.0.0:0, not a loopback "
                                  "address"),
                      "%s", log);
        close(fd);
        /* An address this host does not have (TEST-NET-1). */
        tcp_option("192.0.2.1", 9);
        capture();
        fd = xpud_listen_bind_tcp();
        log = captured();
        ck_assert_int_eq(fd, -EADDRNOTAVAIL);
        ck_assert_msg(strstr(log, "--listen-tcp 192.0.2.1:9: cannot listen: Cannot assign requested address"), "%s", log);
}
END_TEST

int main(void) {
        Suite *s = suite_create("xpud-listen");
        TCase *tc = tcase_create("listen");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_bind_fresh);
        tcase_add_test(tc, test_no_group_with_allow_lists);
        tcase_add_test(tc, test_stale_and_live_socket);
        tcase_add_test(tc, test_lock_held_by_another_xpud);
        tcase_add_test(tc, test_something_else_in_the_way);
        tcase_add_test(tc, test_path_too_long);
        tcase_add_test(tc, test_directory_checks);
        tcase_add_test(tc, test_lock_file_checks);
        tcase_add_test(tc, test_remove_only_ours);
        tcase_add_test(tc, test_listen_fds);
        tcase_add_test(tc, test_listen_tcp);
        suite_add_tcase(s, tc);
        return xpu_test_run(s);
}
