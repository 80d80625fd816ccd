/* SPDX-License-Identifier: Apache-2.0 */
/* probes/libs: driver-file discovery in a driver root (parsers: test-libs-parse.c). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libs.h"
#include "testlib.h"
#include "libs-images.h"
#include "base/str.h"
#include "base/path.h"

/* ---- helpers ----------------------------------------------------------------------------- */

static void write_cache(const char *root, enum cache_format fmt, const struct entry *e, size_t n) {
        static unsigned char buf[16384];
        size_t len = build_cache(buf, sizeof buf, fmt, e, n);
        write_bytes(root, "etc/ld.so.cache", buf, len, 0644);
}

/* A minimal ELF shared object: ELF header, PT_LOAD (whole file at address 0x1000 higher than its
 * offset), PT_DYNAMIC with DT_STRTAB/DT_STRSZ/DT_SONAME, then the string table. */
static int open_dir_root(const char *path) {
        int fd = xpu_open_root(path);
        ck_assert_msg(fd >= 0, "open root %s", path);
        return fd;
}

static const char *driver_root(const char *name) {
        static char buf[PATH_MAX];
        snprintf(buf, sizeof buf, "%s/tests/fixtures/driver-roots/%s", XPU_SRCDIR, name);
        return buf;
}

/* One capability's name list: cap("compute", "libcuda.so", ..., NULL), from a static pool (each
 * test runs in its own process). */
static struct xpu_capability_files cap(const char *capability, ...) {
        static char *pool[16][32];
        static size_t used;
        struct xpu_capability_files c = {.capability = (char *)capability};
        va_list ap;
        ck_assert_uint_lt(used, 16);
        c.names = pool[used++];
        va_start(ap, capability);
        for (const char *n; (n = va_arg(ap, const char *));) {
                ck_assert_uint_lt(c.n_names, 32);
                c.names[c.n_names++] = (char *)n;
        }
        va_end(ap);
        return c;
}

static struct xpu_driver_files *find(int root, const char *ver, const char *const *caps, size_t n_caps,
                                     const struct xpu_capability_files *libs, size_t n_libs,
                                     const struct xpu_capability_files *bins, size_t n_bins) {
        struct xpu_driver_files *f = NULL;
        int r = xpu_driver_files_find(root, ver, caps, n_caps, libs, n_libs, bins, n_bins, &f);
        ck_assert_msg(r == 0, "xpu_driver_files_find: %s", strerror(-r));
        ck_assert_ptr_nonnull(f);
        return f;
}

static bool skipped_has(const struct xpu_driver_files *f, const char *prefix, const char *needle) {
        for (size_t i = 0; i < f->n_skipped; i++)
                if (strncmp(f->skipped[i], prefix, strlen(prefix)) == 0 && strstr(f->skipped[i], needle))
                        return true;
        return false;
}

static int run_ldconfig(const char *root, const char *format) {
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
                dup2(null, 1);
                dup2(null, 2);
                execl("/sbin/ldconfig", "ldconfig", "-c", format, "-r", root, "-C", "/etc/ld.so.cache", "-f",
                      "/etc/ld.so.conf", (char *)NULL);
                _exit(127);
        }
        int st = 0;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* ---- discovery on fixture driver roots --------------------------------------------------- */

static cJSON *load_expected(const char *dir) {
        char path[PATH_MAX];
        unsigned char *text;
        snprintf(path, sizeof path, "%s/expected.json", dir);
        size_t n = read_whole(path, &text);
        cJSON *j = cJSON_ParseWithLength((const char *)text, n);
        free(text);
        ck_assert_msg(j != NULL, "parse %s", path);
        return j;
}

START_TEST(test_find_host17_chains) {
        /* Driver 550.90.07 with .so -> .so.1 -> .so.<ver> chains (leptonai/gpud#415). */
        const char *dir = xpu_test_host("nvidia-libs-550");
        int root = open_dir_root(dir);
        cJSON *exp = load_expected(dir);
        cJSON *libs = cJSON_GetObjectItem(cJSON_GetObjectItem(exp, "nvidia"), "libraries");
        cJSON *inject = cJSON_GetObjectItem(libs, "inject");
        const char *libdir = cJSON_GetStringValue(cJSON_GetObjectItem(libs, "dir"));
        ck_assert_int_eq(cJSON_GetArraySize(inject), 3);

        const char *const caps[] = {"utility", "compute"};
        const struct xpu_capability_files want[] = {
                cap("utility", "libnvidia-ml.so", NULL),
                cap("compute", "libcuda.so", "libcudadebugger.so", NULL),
        };
        struct xpu_driver_files *f = find(root, "550.90.07", caps, 2, want, 2, NULL, 0);
        ck_assert_uint_eq(f->n, 3);
        ck_assert_uint_eq(f->n_skipped, 0);
        for (size_t i = 0; i < f->n; i++) {
                cJSON *e = cJSON_GetArrayItem(inject, (int)i);
                char path[PATH_MAX];
                snprintf(path, sizeof path, "%s/%s", libdir, cJSON_GetStringValue(cJSON_GetObjectItem(e, "file")));
                ck_assert_str_eq(f->files[i].name, cJSON_GetStringValue(cJSON_GetObjectItem(e, "file")));
                ck_assert_str_eq(f->files[i].soname, cJSON_GetStringValue(cJSON_GetObjectItem(e, "soname")));
                ck_assert_str_eq(f->files[i].path, path);
                ck_assert(!f->files[i].is_binary);
        }
        ck_assert_str_eq(f->files[0].name, "libnvidia-ml.so.550.90.07");
        ck_assert_str_eq(f->files[0].capability, "utility");
        ck_assert_str_eq(f->files[1].name, "libcuda.so.550.90.07");
        ck_assert_str_eq(f->files[1].soname, "libcuda.so.1");
        ck_assert_str_eq(f->files[1].capability, "compute");
        ck_assert_str_eq(f->files[2].name, "libcudadebugger.so.550.90.07");
        ck_assert_str_eq(f->files[2].soname, "libcudadebugger.so.1");
        xpu_driver_files_free(f);

        char ver[32];
        ck_assert_int_eq(xpu_driver_version_from_libraries(root, ver, sizeof ver), 0);
        ck_assert_str_eq(ver, cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(exp, "nvidia"),
                                                                       "driver_version_from_libraries")));
        ck_assert_int_eq(xpu_driver_version_from_libraries(root, ver, 9), -ENAMETOOLONG);
        /* Another version asked: nothing taken, the 550 files listed as other-version. */
        f = find(root, "565.57.01", caps, 2, want, 2, NULL, 0);
        ck_assert_uint_eq(f->n, 0);
        ck_assert_uint_eq(f->n_skipped, 3);
        ck_assert(skipped_has(f, "/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07: ", "other driver version"));
        xpu_driver_files_free(f);
        cJSON_Delete(exp);
        close(root);
}
END_TEST

START_TEST(test_find_rtx2080ti_stale) {
        /* host05: 465.19.01 plus a stale libnvidia-compiler.so.460.73.01 (nvidia-docker#1506). */
        int root = open_dir_root(driver_root("rtx2080ti-465"));
        cJSON *exp = load_expected(xpu_test_host("nvidia-rtx2080ti-x8"));
        cJSON *nv = cJSON_GetObjectItem(exp, "nvidia");
        cJSON *libs = cJSON_GetObjectItem(nv, "libraries");
        const char *ver = cJSON_GetStringValue(cJSON_GetObjectItem(nv, "driver_version"));
        ck_assert_str_eq(ver, "465.19.01");

        const char *const caps[] = {"graphics", "compute", "utility", "video"};
        const struct xpu_capability_files want[] = {
                cap("utility", "libnvidia-ml.so", "libnvidia-cfg.so", "libnvidia-nscq.so", NULL),
                cap("compute", "libcuda.so", "libnvidia-compiler.so", "libnvidia-ptxjitcompiler.so",
                    "libnvidia-opencl.so", NULL),
                cap("video", "libnvidia-encode.so", "libnvcuvid.so", NULL),
                cap("graphics", "libnvidia-eglcore.so", "libnvidia-glcore.so", "libnvidia-glsi.so",
                    "libnvidia-fbc.so", "libnvidia-ifr.so", "libnvidia-glvkspirv.so", "libnvidia-cbl.so",
                    "libnvidia-tls.so", NULL),
        };
        struct xpu_driver_files *f = find(root, ver, caps, 4, want, 4, NULL, 0);
        cJSON *inject = cJSON_GetObjectItem(libs, "inject");
        ck_assert_uint_eq(f->n, (size_t)cJSON_GetArraySize(inject));
        ck_assert_uint_eq(f->n, 11);
        cJSON *e;
        cJSON_ArrayForEach(e, inject) {
                size_t hits = 0;
                for (size_t i = 0; i < f->n; i++)
                        hits += strcmp(f->files[i].name, cJSON_GetStringValue(e)) == 0;
                ck_assert_msg(hits == 1, "%s found %zu times", cJSON_GetStringValue(e), hits);
        }
        /* Capability order, then name order. */
        static const char *const order[] = {
                "libnvidia-cbl.so.465.19.01",   "libnvidia-eglcore.so.465.19.01", "libnvidia-fbc.so.465.19.01",
                "libnvidia-glcore.so.465.19.01", "libnvidia-glsi.so.465.19.01",  "libnvidia-glvkspirv.so.465.19.01",
                "libnvidia-ifr.so.465.19.01",   "libnvidia-compiler.so.465.19.01", "libnvidia-cfg.so.465.19.01",
                "libnvidia-ml.so.465.19.01",    "libnvidia-encode.so.465.19.01",
        };
        for (size_t i = 0; i < f->n; i++)
                ck_assert_str_eq(f->files[i].name, order[i]);
        ck_assert_str_eq(f->files[7].capability, "compute");
        ck_assert_str_eq(f->files[7].soname, "libnvidia-compiler.so.1"); /* no link, no ELF: derived */
        cJSON *stale = cJSON_GetArrayItem(cJSON_GetObjectItem(libs, "must_not_inject"), 0);
        for (size_t i = 0; i < f->n; i++)
                ck_assert_str_ne(f->files[i].name, cJSON_GetStringValue(stale));
        ck_assert_uint_eq(f->n_skipped, 1);
        ck_assert_str_eq(f->skipped[0], "/usr/lib/x86_64-linux-gnu/libnvidia-compiler.so.460.73.01: "
                                        "older/other driver version (460.73.01, running 465.19.01)");
        xpu_driver_files_free(f);

        /* Globs match directory entries. */
        const char *const gcap[] = {"graphics"};
        const struct xpu_capability_files glob[] = {cap("graphics", "libnvidia-gl*.so", NULL)};
        f = find(root, ver, gcap, 1, glob, 1, NULL, 0);
        ck_assert_uint_eq(f->n, 3);
        ck_assert_str_eq(f->files[0].name, "libnvidia-glcore.so.465.19.01");
        ck_assert_str_eq(f->files[1].name, "libnvidia-glsi.so.465.19.01");
        ck_assert_str_eq(f->files[2].name, "libnvidia-glvkspirv.so.465.19.01");
        xpu_driver_files_free(f);

        /* No libcuda here: the version comes from libnvidia-ml. */
        char v[32];
        ck_assert_int_eq(xpu_driver_version_from_libraries(root, v, sizeof v), 0);
        ck_assert_str_eq(v, "465.19.01");
        cJSON_Delete(exp);
        close(root);
}
END_TEST

/* ---- synthetic and hostile driver roots -------------------------------------------------- */

/* "usr/lib/<triplet>/NAME" relative to a root (xpu_library_dirs[1] without the leading '/'). */
static const char *libdir_rel(const char *name) {
        static char buf[PATH_MAX];
        snprintf(buf, sizeof buf, "%s/%s", xpu_library_dirs[1] + 1, name);
        return buf;
}
static const char *libdir_abs(const char *name) {
        static char buf[PATH_MAX];
        snprintf(buf, sizeof buf, "%s/%s", xpu_library_dirs[1], name);
        return buf;
}

START_TEST(test_find_hostile_root) {
        char *t = xpu_test_mkdtemp();
        char p[PATH_MAX];
        /* Absolute link to a host secret: resolves to <root>/etc/shadow, which does not exist. */
        xpu_test_symlink(t, libdir_rel("libcuda.so.550.90.07"), "/etc/shadow");
        /* Relative escape: clamped at the root, lands on <root>/etc/passwd (missing). */
        xpu_test_symlink(t, libdir_rel("libnvidia-ml.so.550.90.07"), "../../../../../../../../etc/passwd");
        /* (A FIFO or directory named like a library stops the search: test_find_refuses.) */
        xpu_test_write(t, libdir_rel("placeholder"), "");
        /* A self loop. */
        xpu_test_symlink(t, libdir_rel("libnvidia-allocator.so.550.90.07"), "libnvidia-allocator.so.550.90.07");
        /* Links that stay inside the root are followed: relative and absolute. */
        xpu_test_write(t, libdir_rel("real/debugger.bin"), "");
        xpu_test_symlink(t, libdir_rel("libcudadebugger.so.550.90.07"), "real/debugger.bin");
        xpu_test_write(t, "opt/nv/opencl.bin", "");
        xpu_test_symlink(t, libdir_rel("libnvidia-opencl.so.550.90.07"), "/usr/../opt/./nv//opencl.bin");
        /* Binaries: executable, not executable, FIFO. */
        write_bytes(t, "usr/bin/nvidia-smi", "#!/bin/sh\n", 10, 0755);
        write_bytes(t, "usr/bin/nvidia-debugdump", "x", 1, 0644);
        snprintf(p, sizeof p, "%s/sbin", t);
        ck_assert_int_eq(mkdir(p, 0755), 0);
        snprintf(p, sizeof p, "%s/sbin/nvidia-persistenced", t);
        ck_assert_int_eq(mkfifo(p, 0644), 0);
        xpu_test_symlink(t, "bin/nv-fabricmanager", "/etc/shadow");

        int root = open_dir_root(t);
        const char *const caps[] = {"utility", "compute"};
        const struct xpu_capability_files libs[] = {
                cap("compute", "libcuda.so", "libcudadebugger.so", "libnvidia-ptxjitcompiler.so",
                    "libnvidia-opencl.so", "libnvidia-allocator.so", "libnvidia-nvvm.so", NULL),
                cap("utility", "libnvidia-ml.so", "libnvidia-cfg.so", NULL),
        };
        const struct xpu_capability_files bins[] = {
                cap("utility", "nvidia-smi", "nvidia-debugdump", "nvidia-persistenced", "nv-fabricmanager",
                    "../../etc/shadow", NULL),
        };
        struct xpu_driver_files *f = find(root, "550.90.07", caps, 2, libs, 2, bins, 1);
        ck_assert_uint_eq(f->n, 3);
        ck_assert_str_eq(f->files[0].name, "nvidia-smi");
        ck_assert_str_eq(f->files[0].path, "/usr/bin/nvidia-smi");
        ck_assert_str_eq(f->files[0].soname, "");
        ck_assert(f->files[0].is_binary);
        ck_assert_str_eq(f->files[1].name, "libcudadebugger.so.550.90.07");
        ck_assert_str_eq(f->files[1].path, libdir_abs("real/debugger.bin"));
        ck_assert_str_eq(f->files[1].soname, "libcudadebugger.so.1");
        ck_assert_str_eq(f->files[2].name, "libnvidia-opencl.so.550.90.07");
        ck_assert_str_eq(f->files[2].path, "/opt/nv/opencl.bin");
        ck_assert_str_eq(f->files[2].capability, "compute");

        char pre[PATH_MAX];
        snprintf(pre, sizeof pre, "%s: ", libdir_abs("libcuda.so.550.90.07"));
        ck_assert(skipped_has(f, pre, "cannot be resolved inside the driver root: No such file"));
        snprintf(pre, sizeof pre, "%s: ", libdir_abs("libnvidia-ml.so.550.90.07"));
        ck_assert(skipped_has(f, pre, "No such file"));
        snprintf(pre, sizeof pre, "%s: ", libdir_abs("libnvidia-allocator.so.550.90.07"));
        ck_assert(skipped_has(f, pre, "Too many levels of symbolic links"));
        ck_assert(skipped_has(f, "/usr/bin/nvidia-debugdump: ", "not an executable regular file"));
        ck_assert(skipped_has(f, "/sbin/nvidia-persistenced: ", "(a FIFO)"));
        ck_assert(skipped_has(f, "/bin/nv-fabricmanager: ", "No such file"));
        ck_assert_uint_eq(f->n_skipped, 6);
        ck_assert_ptr_null(f->refused);
        xpu_driver_files_free(f);
        close(root);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* A file of the running version that cannot be a driver library stops the search, named:
 * a FIFO (never opened for reading), a directory, a device, a link to a non-ELF file
 * (/etc/shadow), a directory too large to read. Other versions and names are not taken. */
/* A profile may name any binary (the image's profiles too): one that others on the driver root's
 * host may not read and run (a 0700 or 0750 admin tool) is skipped, never mounted. */
START_TEST(test_find_binary_private) {
        char *t = xpu_test_mkdtemp();
        write_bytes(t, "usr/bin/nvidia-smi", "\177ELF", 4, 0755);
        write_bytes(t, "usr/sbin/admin-tool", "\177ELF", 4, 0700);
        write_bytes(t, "usr/sbin/group-tool", "\177ELF", 4, 0750);
        write_bytes(t, "usr/sbin/exec-only", "\177ELF", 4, 0711);
        int root = open_dir_root(t);
        const char *const caps[] = {"utility"};
        const struct xpu_capability_files bins[] = {
                cap("utility", "nvidia-smi", "admin-tool", "group-tool", "exec-only", NULL),
        };
        struct xpu_driver_files *f = find(root, "550.90.07", caps, 1, NULL, 0, bins, 1);
        ck_assert_uint_eq(f->n, 1);
        ck_assert_str_eq(f->files[0].path, "/usr/bin/nvidia-smi");
        ck_assert(skipped_has(f, "/usr/sbin/admin-tool: ", "mode 0700: not readable and executable by others"));
        ck_assert(skipped_has(f, "/usr/sbin/group-tool: ", "mode 0750: not readable and executable by others"));
        ck_assert(skipped_has(f, "/usr/sbin/exec-only: ", "mode 0711: not readable and executable by others"));
        ck_assert_uint_eq(f->n_skipped, 3);
        xpu_driver_files_free(f);
        close(root);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

START_TEST(test_find_refuses) {
        static const struct {
                const char *kind;
                const char *want;
        } cases[] = {
                {"fifo", "is a FIFO"},
                {"dir", "is a directory"},
                {"chr", "is a character device"},
                {"shadow", "(it leads to /etc/shadow) is a file without the ELF magic"},
                {"huge", "has more than 65536 entries"},
        };
        const char *const caps[] = {"compute"};
        const struct xpu_capability_files libs[] = {cap("compute", "libcuda.so", NULL)};
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *t = xpu_test_mkdtemp();
                char p[PATH_MAX];
                xpu_test_write(t, libdir_rel("placeholder"), "");
                snprintf(p, sizeof p, "%s/%s", t, libdir_rel("libcuda.so.550.90.07"));
                const char *k = cases[i].kind;
                if (strcmp(k, "fifo") == 0)
                        ck_assert_int_eq(mkfifo(p, 0644), 0);
                else if (strcmp(k, "dir") == 0)
                        ck_assert_int_eq(mkdir(p, 0755), 0);
                else if (strcmp(k, "chr") == 0)
                        ck_assert_msg(mknod(p, S_IFCHR | 0644, makedev(1, 3)) == 0, "mknod: %s (needs root)",
                                      strerror(errno));
                else if (strcmp(k, "shadow") == 0) {
                        xpu_test_write(t, "etc/shadow", "root:$6$secret:19000:0:99999:7:::\n");
                        xpu_test_symlink(t, libdir_rel("libcuda.so.550.90.07"), "/etc/shadow");
                } else {
                        write_bytes(t, libdir_rel("libcuda.so.550.90.07"), "\177ELF", 4, 0755);
                        /* Hard links: the entries the limit counts, without an inode each (two
                         * passes of make check do this at once on a small machine); a new file
                         * every 30000 names, below ext4's 65000 links per inode. */
                        char first[PATH_MAX];
                        for (int n = 0; n < XPU_LIBDIR_ENTRIES_MAX + 1; n++) {
                                snprintf(p, sizeof p, "%s/%s/f%d", t, libdir_rel(""), n);
                                if (n % 30000 == 0) {
                                        int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
                                        ck_assert_int_ge(fd, 0);
                                        close(fd);
                                        xpu_strlcpy(first, p, sizeof first);
                                } else {
                                        ck_assert_int_eq(link(first, p), 0);
                                }
                        }
                }
                int root = open_dir_root(t);
                struct xpu_driver_files *f = find(root, "550.90.07", caps, 1, libs, 1, NULL, 0);
                ck_assert_msg(f->refused && strstr(f->refused, cases[i].want), "%s: %s", k,
                              f->refused ? f->refused : "(not refused)");
                if (strcmp(k, "huge") != 0)
                        ck_assert_msg(strstr(f->refused, "libcuda.so.550.90.07"), "%s", f->refused);
                xpu_driver_files_free(f);
                close(root);
                xpu_test_rm_rf(t);
                free(t);
        }
        /* Only the running version's real ELF file is taken. */
        char *t = xpu_test_mkdtemp();
        write_bytes(t, libdir_rel("libcuda.so.550.90.08"), "\177ELF", 4, 0755);
        write_bytes(t, libdir_rel("libcuda.so.550.90.07.bak"), "\177ELF", 4, 0755);
        write_bytes(t, libdir_rel("libcuda.so.550.90.07"), "\177ELF", 4, 0755);
        int root = open_dir_root(t);
        struct xpu_driver_files *f = find(root, "550.90.07", caps, 1, libs, 1, NULL, 0);
        ck_assert_ptr_null(f->refused);
        ck_assert_uint_eq(f->n, 1);
        ck_assert_str_eq(f->files[0].name, "libcuda.so.550.90.07");
        char pre[PATH_MAX];
        snprintf(pre, sizeof pre, "%s: ", libdir_abs("libcuda.so.550.90.08"));
        ck_assert(skipped_has(f, pre, "older/other driver version (550.90.08, running 550.90.07)"));
        xpu_driver_files_free(f);
        close(root);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* A crafted DT_SONAME must never become a link name: a path ("../../../etc/passwd"), another
 * library's name or control characters fall back to the derived soname. */
START_TEST(test_hostile_soname) {
        static const struct {
                const char *soname;
                const char *want;
        } cases[] = {
                { "../../../etc/passwd", "libcuda.so.1" },      /* a path: refused */
                { "libcuda.so.1/../../x", "libcuda.so.1" },     /* a '/' anywhere: refused */
                { "libc.so.6", "libcuda.so.1" },                /* another library's name */
                { "libcuda.so.1\033[2J", "libcuda.so.1" },      /* control characters */
                { "libcuda.so.7", "libcuda.so.7" },             /* a sane one is kept */
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *t = xpu_test_mkdtemp();
                write_elf(t, libdir_rel("libcuda.so.550.90.07"), cases[i].soname);
                int root = open_dir_root(t);
                const char *const caps[] = {"compute"};
                const struct xpu_capability_files libs[] = { cap("compute", "libcuda.so", NULL) };
                struct xpu_driver_files *f = find(root, "550.90.07", caps, 1, libs, 1, NULL, 0);
                ck_assert_uint_eq(f->n, 1);
                ck_assert_msg(strcmp(f->files[0].soname, cases[i].want) == 0, "soname \"%s\" gave \"%s\"",
                              cases[i].soname, f->files[0].soname);
                xpu_driver_files_free(f);
                close(root);
                xpu_test_rm_rf(t);
                free(t);
        }
}
END_TEST

START_TEST(test_find_dedupe_and_order) {
        char *t = xpu_test_mkdtemp();
        /* The same name in /usr/lib64 and /usr/lib/<triplet>: /usr/lib64 comes first. */
        xpu_test_write(t, "usr/lib64/libcuda.so.550.90.07", "");
        xpu_test_write(t, libdir_rel("libcuda.so.550.90.07"), "");
        /* /lib -> usr/lib (merged /usr): the triplet dir is seen twice, listed once. */
        xpu_test_symlink(t, "lib", "usr/lib");
        xpu_test_write(t, libdir_rel("libnvidia-ml.so.550.90.07"), "");
        xpu_test_symlink(t, libdir_rel("libnvidia-ml.so.1"), "libnvidia-ml.so.550.90.07");
        /* An ELF file carries its own SONAME (differs from the file name on purpose). */
        write_elf(t, libdir_rel("libnvidia-cfg.so.550.90.07"), "libnvidia-cfg.so.7");
        /* Stale other version in another directory; a symlink with a version name is not stale. */
        xpu_test_write(t, "usr/lib64/libnvidia-ml.so.535.54.03", "");
        xpu_test_symlink(t, libdir_rel("libnvidia-cfg.so.1.2"), "libnvidia-cfg.so.550.90.07");
        /* utility asked twice (two capabilities name the same library): listed once. */
        int root = open_dir_root(t);
        const char *const caps[] = {"utility", "compute", "graphics"};
        const struct xpu_capability_files libs[] = {
                cap("utility", "libnvidia-ml.so", "libnvidia-cfg.so", NULL),
                cap("compute", "libcuda.so", "libnvidia-ml.so", NULL),
        };
        struct xpu_driver_files *f = find(root, "550.90.07", caps, 3, libs, 2, NULL, 0);
        ck_assert_uint_eq(f->n, 3);
        ck_assert_str_eq(f->files[0].name, "libnvidia-cfg.so.550.90.07");
        ck_assert_str_eq(f->files[0].soname, "libnvidia-cfg.so.7");
        ck_assert_str_eq(f->files[1].name, "libnvidia-ml.so.550.90.07");
        ck_assert_str_eq(f->files[1].path, libdir_abs("libnvidia-ml.so.550.90.07"));
        ck_assert_str_eq(f->files[1].soname, "libnvidia-ml.so.1");
        ck_assert_str_eq(f->files[2].name, "libcuda.so.550.90.07");
        ck_assert_str_eq(f->files[2].path, "/usr/lib64/libcuda.so.550.90.07");
        ck_assert_str_eq(f->files[2].capability, "compute");
        ck_assert_uint_eq(f->n_skipped, 1);
        ck_assert(skipped_has(f, "/usr/lib64/libnvidia-ml.so.535.54.03: ", "older/other driver version"));
        xpu_driver_files_free(f);

        /* Bad versions are refused before any lookup. */
        ck_assert_int_eq(xpu_driver_files_find(root, "../../x", caps, 1, libs, 2, NULL, 0, &f), -EINVAL);
        ck_assert_int_eq(xpu_driver_files_find(root, "", caps, 1, libs, 2, NULL, 0, &f), -EINVAL);
        ck_assert_int_eq(xpu_driver_files_find(root, "5*", caps, 1, libs, 2, NULL, 0, &f), -EINVAL);
        close(root);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

START_TEST(test_version_from_libraries) {
        char *t = xpu_test_mkdtemp();
        char v[32];
        int root = open_dir_root(t);
        ck_assert_int_eq(xpu_driver_version_from_libraries(root, v, sizeof v), -ENOENT);
        /* A leftover older libcuda beside the current one: the soname link decides. */
        xpu_test_write(t, libdir_rel("libcuda.so.460.73.01"), "");
        xpu_test_write(t, libdir_rel("libcuda.so.465.19.01"), "");
        xpu_test_symlink(t, libdir_rel("libcuda.so.1"), "libcuda.so.465.19.01");
        xpu_test_write(t, libdir_rel("libnvidia-ml.so.999.1"), "");
        ck_assert_int_eq(xpu_driver_version_from_libraries(root, v, sizeof v), 0);
        ck_assert_str_eq(v, "465.19.01");
        close(root);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* The default driver root, in a private mount namespace whose /run (and /host, when this machine
 * has one) are empty tmpfs: "/" while neither default holds driver libraries, then the GPU
 * Operator's root once it does; the reasons name the list. Needs root (unshare, mount). */
START_TEST(test_default_driver_root) {
        ck_assert_msg(unshare(CLONE_NEWNS) == 0, "unshare(CLONE_NEWNS): %s (needs root)", strerror(errno));
        ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
        ck_assert_msg(mount("xpu-test", "/run", "tmpfs", 0, NULL) == 0, "mount tmpfs on /run: %s", strerror(errno));
        struct stat st;
        if (stat("/host", &st) == 0)
                ck_assert_msg(mount("xpu-test", "/host", "tmpfs", 0, NULL) == 0, "mount tmpfs on /host: %s",
                              strerror(errno));
        const char *why = NULL;
        ck_assert_str_eq(xpu_default_driver_root(&why), "/");
        ck_assert_str_eq(why, "neither /run/nvidia/driver nor /host holds driver libraries");
        ck_assert_str_eq(xpu_default_driver_root(NULL), "/");
        /* A root without a versioned library is passed over. */
        xpu_test_write("/run/nvidia/driver", "etc/os-release", "ID=test\n");
        ck_assert_str_eq(xpu_default_driver_root(&why), "/");
        xpu_test_write("/run/nvidia/driver", libdir_rel("libcuda.so.550.90.07"), "");
        why = NULL;
        ck_assert_str_eq(xpu_default_driver_root(&why), XPU_DRIVER_ROOT_FIRST);
        ck_assert_str_eq(XPU_DRIVER_ROOT_FIRST, "/run/nvidia/driver");
        ck_assert_str_eq(why, "the first of /run/nvidia/driver, /host, / that holds driver libraries");
}
END_TEST

/* ---- the driver root's own ld.so.cache --------------------------------------------------- */

static void check_cache_root(const char *t, const char *what) {
        int root = open_dir_root(t);
        const char *const caps[] = {"compute"};
        const struct xpu_capability_files libs[] = {cap("compute", "libcuda.so", NULL)};
        struct xpu_driver_files *f = find(root, "550.90.07", caps, 1, libs, 1, NULL, 0);
        ck_assert_msg(f->n == 1, "%s: %zu files", what, f->n);
        ck_assert_str_eq(f->files[0].path, "/opt/nv/lib/libcuda.so.550.90.07");
        ck_assert_str_eq(f->files[0].soname, "libcuda.so.1");
        ck_assert_uint_eq(f->n_skipped, 0);
        xpu_driver_files_free(f);
        char v[32];
        ck_assert_int_eq(xpu_driver_version_from_libraries(root, v, sizeof v), 0);
        ck_assert_str_eq(v, "550.90.07");
        close(root);
}

START_TEST(test_find_via_crafted_cache) {
        /* /opt/nv/lib is not a standard directory: only the cache can point there. */
        static const enum cache_format fmts[] = {CACHE_NEW, CACHE_OLD, CACHE_COMPAT};
        for (size_t i = 0; i < 3; i++) {
                char *t = xpu_test_mkdtemp();
                xpu_test_write(t, "opt/nv/lib/libcuda.so.550.90.07", "");
                xpu_test_symlink(t, "opt/nv/lib/libcuda.so.1", "libcuda.so.550.90.07");
                xpu_test_write(t, "opt/lib32/libcuda.so.550.90.07", "");
                xpu_test_symlink(t, "opt/lib32/libcuda.so.1", "libcuda.so.550.90.07");
                const struct entry e[] = {
                        {0x0003 /* 32-bit: ignored */, "libcuda.so.1", "/opt/lib32/libcuda.so.1"},
                        {xpu_ldcache_native_flags(), "libcuda.so.1", "/opt/nv/lib/libcuda.so.1"},
                        {xpu_ldcache_native_flags(), "libshadow.so.1", "/etc/shadow"},
                };
                write_cache(t, fmts[i], e, 3);
                check_cache_root(t, "crafted");
                /* A malformed cache is ignored: the standard directories still work. */
                write_bytes(t, "etc/ld.so.cache", "glibc-ld.so.cache1.1 garbage", 28, 0644);
                xpu_test_write(t, libdir_rel("libcuda.so.550.90.07"), "");
                int root = open_dir_root(t);
                const char *const caps[] = {"compute"};
                const struct xpu_capability_files libs[] = {cap("compute", "libcuda.so", NULL)};
                struct xpu_driver_files *f = find(root, "550.90.07", caps, 1, libs, 1, NULL, 0);
                ck_assert_uint_eq(f->n, 1);
                ck_assert_str_eq(f->files[0].path, libdir_abs("libcuda.so.550.90.07"));
                xpu_driver_files_free(f);
                close(root);
                xpu_test_rm_rf(t);
                free(t);
        }
}
END_TEST

START_TEST(test_find_via_ldconfig_cache) {
        /* Caches written by the real ldconfig (-r chroots: needs root), new and compat formats. */
        ck_assert_msg(geteuid() == 0, "ldconfig -r needs root; run the tests as root");
        static const char *const formats[] = {"new", "compat"};
        static const char *const magics[] = {"glibc-ld.so.cache1.1", "ld.so-1.7.0"};
        for (size_t i = 0; i < 2; i++) {
                char *t = xpu_test_mkdtemp();
                write_elf(t, "opt/nv/lib/libcuda.so.550.90.07", "libcuda.so.1");
                xpu_test_write(t, "etc/ld.so.conf", "/opt/nv/lib\n");
                ck_assert_int_eq(run_ldconfig(t, formats[i]), 0);
                char path[PATH_MAX];
                snprintf(path, sizeof path, "%s/etc/ld.so.cache", t);
                unsigned char *cache;
                size_t n = read_whole(path, &cache);
                ck_assert_int_eq(memcmp(cache, magics[i], strlen(magics[i])), 0);
                struct seen s = {.want = "libcuda.so.1"};
                ck_assert_int_eq(xpu_ldcache_parse(cache, n, find_key_cb, &s), 1);
                ck_assert_str_eq(s.value, "/opt/nv/lib/libcuda.so.1");
                free(cache);
                check_cache_root(t, formats[i]);
                xpu_test_rm_rf(t);
                free(t);
        }
}
END_TEST

START_TEST(test_find_on_this_host) {
        /* The real root: libc.so.6 through the real cache, SONAME from the real ELF file. */
        int root = open_dir_root("/");
        const char *const caps[] = {"libc"};
        const struct xpu_capability_files libs[] = {cap("libc", "libc.so", NULL)};
        const struct xpu_capability_files bins[] = {cap("libc", "true", NULL)};
        struct xpu_driver_files *f = find(root, "6", caps, 1, libs, 1, bins, 1);
        char path[PATH_MAX];
        real_libc_path(path, sizeof path);
        ck_assert_uint_eq(f->n, 2);
        ck_assert_str_eq(f->files[0].name, "libc.so.6");
        ck_assert_str_eq(f->files[0].soname, "libc.so.6");
        struct stat a, b;
        ck_assert_int_eq(stat(path, &a), 0);
        ck_assert_int_eq(stat(f->files[0].path, &b), 0);
        ck_assert(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
        ck_assert_str_eq(f->files[1].name, "true");
        ck_assert(f->files[1].is_binary);
        xpu_driver_files_free(f);
        close(root);
}
END_TEST

static Suite *libs_suite(void) {
        Suite *s = suite_create("libs");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 30);
        tcase_add_test(tc, test_find_host17_chains);
        tcase_add_test(tc, test_hostile_soname);
        tcase_add_test(tc, test_find_rtx2080ti_stale);
        tcase_add_test(tc, test_find_hostile_root);
        tcase_add_test(tc, test_find_refuses);
        tcase_add_test(tc, test_find_binary_private);
        tcase_add_test(tc, test_find_dedupe_and_order);
        tcase_add_test(tc, test_version_from_libraries);
        tcase_add_test(tc, test_default_driver_root);
        tcase_add_test(tc, test_find_via_crafted_cache);
        tcase_add_test(tc, test_find_via_ldconfig_cache);
        tcase_add_test(tc, test_find_on_this_host);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(libs_suite());
}

