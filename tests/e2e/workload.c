/* SPDX-License-Identifier: Apache-2.0 */
/* The workload of the end-to-end tests: runs inside the container as xpuinit's COMMAND, prints
 * what it sees (identity, argv, environment, device nodes, libraries) as "key=value" lines (one
 * fact per line, stable keys) and checks what argv tells it to expect. Exit status: 0 when every
 * expectation holds (or the --exit value), 1 when one does not (each failed check is a
 * "check.N=FAIL ..." line), 2 for a usage error.
 *
 *   --expect-cuda-count N        libcuda.so.1 loads through the loader's normal search path,
 *                                cuInit(0) succeeds and cuDeviceGetCount() = N
 *   --expect-cuda-version N      cuDriverGetVersion() = N (e.g. 11030)
 *   --expect-no-cuda             libcuda.so.1 cannot be loaded
 *   --expect-nvml-count N        libnvidia-ml.so.1 loads, nvmlInit_v2 + nvmlDeviceGetCount_v2 = N
 *   --expect-env NAME=VALUE      the variable has exactly this value
 *   --expect-env-prefix NAME=P   the variable is set and starts with P
 *   --expect-unset NAME          the variable is not set
 *   --expect-node PATH[=MAJ:MIN] PATH is a character device (with this number)
 *   --expect-no-node PATH        PATH does not exist
 *   --expect-file PATH=TEXT      PATH reads as TEXT (its first line, without the newline)
 *   --expect-connect PATH        connect(2) to the UNIX socket PATH succeeds
 *   --expect-group GID           GID is among the supplementary groups (getgroups)
 *   --expect-uid UID             the real user id
 *   --list-dir DIR               print DIR's entries (dir.DIR=a,b,c sorted, or dir.DIR=missing)
 *   --mounts PREFIX              print the mounts at or below PREFIX
 *                                (mount.POINT=FSTYPE OPTIONS, from /proc/self/mountinfo)
 *   --print-env NAME             also print this variable
 *   --exit N                     exit with N when every check passes
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

/* Variables printed even when not asked for: what xpuinit sets or must pass through. */
static const char *const default_env[] = {
        "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
        "NVIDIA_VISIBLE_DEVICES", "XPU_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "XPU_FAKE_STATE",
        "XPU_E2E_MARK", "PATH",
};

/* Directories scanned for device nodes to print (in /dev only the GPU ones, see print_nodes). */
static const char *const node_dirs[] = { "/dev", "/dev/dri", "/dev/nvidia-caps" };

#ifdef __SANITIZE_ADDRESS__
/* Built with ASan (make check-asan), the workload runs under xpuinit's seccomp filter, which
 * denies ptrace: LeakSanitizer could not stop the world at exit and would fail the run. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) {
        return "detect_leaks=0";
}
#endif

static unsigned checks, failures;

/* Record one expectation: prints check.N=pass|FAIL with DESC and, on failure, what was seen. */
static void check(bool ok, const char *desc, const char *seen) {
        checks++;
        if (ok) {
                printf("check.%u=pass %s\n", checks, desc);
                return;
        }
        failures++;
        printf("check.%u=FAIL %s (saw: %s)\n", checks, desc, seen ? seen : "nothing");
}

static bool parse_long(const char *s, long *ret) {
        char *end = NULL;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno || end == s || *end)
                return false;
        *ret = v;
        return true;
}

static void print_identity(void) {
        gid_t groups[256];
        int n = getgroups((int)(sizeof(groups) / sizeof(groups[0])), groups);
        printf("pid=%ld\nppid=%ld\nuid=%ld\ngid=%ld\ngroups=", (long)getpid(), (long)getppid(),
               (long)getuid(), (long)getgid());
        for (int i = 0; i < n; i++)
                printf("%s%ld", i ? "," : "", (long)groups[i]);
        putchar('\n');
}

/* The signal mask and ignored set the workload started with, as /proc/self/status shows them
 * (SigBlk, SigIgn: hex bit masks): "sig.blocked=..." and "sig.ignored=...". */
static void print_signals(void) {
        FILE *f = fopen("/proc/self/status", "re");
        char line[256], mask[64];
        if (!f)
                return;
        while (fgets(line, sizeof(line), f)) {
                if (sscanf(line, "SigBlk: %63s", mask) == 1)
                        printf("sig.blocked=%s\n", mask);
                else if (sscanf(line, "SigIgn: %63s", mask) == 1)
                        printf("sig.ignored=%s\n", mask);
        }
        fclose(f);
}

static bool has_group(long gid) {
        gid_t groups[256];
        int n = getgroups((int)(sizeof(groups) / sizeof(groups[0])), groups);
        for (int i = 0; i < n; i++)
                if ((long)groups[i] == gid)
                        return true;
        return false;
}

static void print_node(const char *path) {
        struct stat st;
        if (lstat(path, &st) < 0 || !S_ISCHR(st.st_mode))
                return;
        printf("node.%s=c %u:%u mode=%04o gid=%ld\n", path, major(st.st_rdev), minor(st.st_rdev),
               (unsigned)(st.st_mode & 07777), (long)st.st_gid);
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

static void print_nodes(void) {
        for (size_t d = 0; d < sizeof(node_dirs) / sizeof(node_dirs[0]); d++) {
                DIR *dir = opendir(node_dirs[d]);
                if (!dir)
                        continue;
                char *names[512];
                size_t n = 0;
                for (struct dirent *e; (e = readdir(dir)) && n < 512;) {
                        /* In /dev itself only the accelerator nodes, not null, zero, tty... */
                        if (d == 0 && strncmp(e->d_name, "nvidia", 6) && strcmp(e->d_name, "kfd"))
                                continue;
                        if (e->d_name[0] != '.' && (names[n] = strdup(e->d_name)))
                                n++;
                }
                closedir(dir);
                qsort(names, n, sizeof(names[0]), cmp_str);
                for (size_t i = 0; i < n; i++) {
                        char path[PATH_MAX];
                        snprintf(path, sizeof(path), "%s/%s", node_dirs[d], names[i]);
                        print_node(path);
                        free(names[i]);
                }
        }
}

static void list_dir(const char *path) {
        DIR *dir = opendir(path);
        if (!dir) {
                printf("dir.%s=missing\n", path);
                return;
        }
        char *names[512];
        size_t n = 0;
        for (struct dirent *e; (e = readdir(dir)) && n < 512;)
                if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && (names[n] = strdup(e->d_name)))
                        n++;
        closedir(dir);
        qsort(names, n, sizeof(names[0]), cmp_str);
        printf("dir.%s=", path);
        for (size_t i = 0; i < n; i++) {
                printf("%s%s", i ? "," : "", names[i]);
                free(names[i]);
        }
        putchar('\n');
}

/* Mount points at or below PREFIX: "mount.POINT=FSTYPE PER-MOUNT-OPTIONS". mountinfo fields:
 * id parent major:minor root point options [optional...] - fstype source super-options. */
static void print_mounts(const char *prefix) {
        FILE *f = fopen("/proc/self/mountinfo", "re");
        char line[4096];
        size_t plen = strlen(prefix);
        if (!f) {
                printf("mounts=unreadable\n");
                return;
        }
        while (fgets(line, sizeof(line), f)) {
                char point[PATH_MAX], opts[512], fstype[64];
                const char *sep = strstr(line, " - ");
                if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s %511s", point, opts) != 2 ||
                    sscanf(sep + 3, "%63s", fstype) != 1)
                        continue;
                if (strncmp(point, prefix, plen) == 0 && (point[plen] == '\0' || point[plen] == '/'))
                        printf("mount.%s=%s %s\n", point, fstype, opts);
        }
        fclose(f);
}

/* Facts from the CUDA driver API, loaded by SONAME through the loader's own search. */
struct cuda_facts {
        bool loaded;
        int init;
        int version;
        int count;
};

typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_int_fn)(int *);
typedef int (*cu_name_fn)(char *, int, int);
typedef int (*cu_uuid_fn)(unsigned char *, int);

static void print_library_path(const char *prefix, void *handle) {
        struct link_map *map = NULL;
        char real[PATH_MAX];
        if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map) {
                printf("%s.path=%s\n", prefix, map->l_name);
                if (realpath(map->l_name, real))
                        printf("%s.realpath=%s\n", prefix, real);
        }
}

static struct cuda_facts probe_cuda(void) {
        struct cuda_facts f = { .init = -1, .version = -1, .count = -1 };
        void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!h) {
                printf("cuda.dlopen=error %s\n", dlerror());
                return f;
        }
        f.loaded = true;
        printf("cuda.dlopen=ok\n");
        print_library_path("cuda", h);
        cu_init_fn init = (cu_init_fn)dlsym(h, "cuInit");
        cu_int_fn version = (cu_int_fn)dlsym(h, "cuDriverGetVersion");
        cu_int_fn count = (cu_int_fn)dlsym(h, "cuDeviceGetCount");
        cu_name_fn name = (cu_name_fn)dlsym(h, "cuDeviceGetName");
        cu_uuid_fn uuid = (cu_uuid_fn)dlsym(h, "cuDeviceGetUuid");
        if (!init || !version || !count) {
                printf("cuda.symbols=missing\n");
                return f;
        }
        f.init = init(0);
        printf("cuda.init=%d\n", f.init);
        if (version(&f.version) == 0)
                printf("cuda.version=%d\n", f.version);
        if (f.init == 0 && count(&f.count) == 0)
                printf("cuda.count=%d\n", f.count);
        for (int i = 0; i < f.count; i++) {
                char buf[256];
                unsigned char u[16];
                if (name && name(buf, (int)sizeof(buf), i) == 0)
                        printf("cuda.device.%d.name=%s\n", i, buf);
                if (uuid && uuid(u, i) == 0)
                        printf("cuda.device.%d.uuid=GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
                               "%02x%02x%02x%02x%02x%02x\n",
                               i, u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
                               u[11], u[12], u[13], u[14], u[15]);
        }
        /* The handle stays open: the library is the workload's for its whole life. */
        return f;
}

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_uint_fn)(unsigned *);
typedef int (*nvml_str_fn)(char *, unsigned);

/* Returns the NVML device count, or -1 when the library or a call failed. */
static long probe_nvml(void) {
        void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!h) {
                printf("nvml.dlopen=error %s\n", dlerror());
                return -1;
        }
        printf("nvml.dlopen=ok\n");
        print_library_path("nvml", h);
        nvml_void_fn init = (nvml_void_fn)dlsym(h, "nvmlInit_v2");
        nvml_uint_fn count = (nvml_uint_fn)dlsym(h, "nvmlDeviceGetCount_v2");
        nvml_str_fn driver = (nvml_str_fn)dlsym(h, "nvmlSystemGetDriverVersion");
        nvml_void_fn shutdown = (nvml_void_fn)dlsym(h, "nvmlShutdown");
        if (!init || !count || !driver || !shutdown)
                return -1;
        int r = init();
        printf("nvml.init=%d\n", r);
        if (r != 0)
                return -1;
        char buf[96];
        unsigned n = 0;
        if (driver(buf, sizeof(buf)) == 0)
                printf("nvml.driver_version=%s\n", buf);
        long ret = count(&n) == 0 ? (long)n : -1;
        if (ret >= 0)
                printf("nvml.count=%ld\n", ret);
        shutdown();
        return ret;
}

static int usage(const char *why) {
        fprintf(stderr, "workload: %s\n", why);
        return 2;
}

int main(int argc, char **argv) {
        long want_cuda = -1, want_cuda_version = -1, want_nvml = -1, exit_code = 0;
        bool want_no_cuda = false;
        setvbuf(stdout, NULL, _IOLBF, 0);

        /* First pass: options that change what is printed or probed. */
        for (int i = 1; i < argc; i++) {
                const char *opt = argv[i], *arg = i + 1 < argc ? argv[i + 1] : NULL;
                if (!strcmp(opt, "--expect-no-cuda")) {
                        want_no_cuda = true;
                        continue;
                }
                if (!arg)
                        return usage("option without argument");
                i++;
                if (!strcmp(opt, "--expect-cuda-count") && parse_long(arg, &want_cuda))
                        continue;
                if (!strcmp(opt, "--expect-cuda-version") && parse_long(arg, &want_cuda_version))
                        continue;
                if (!strcmp(opt, "--expect-nvml-count") && parse_long(arg, &want_nvml))
                        continue;
                if (!strcmp(opt, "--exit") && parse_long(arg, &exit_code))
                        continue;
                if (!strncmp(opt, "--expect-", 9) || !strcmp(opt, "--list-dir") ||
                    !strcmp(opt, "--print-env") || !strcmp(opt, "--mounts"))
                        continue;
                return usage("unknown option or bad number");
        }

        print_identity();
        print_signals();
        for (int i = 0; i < argc; i++)
                printf("argv.%d=%s\n", i, argv[i]);
        for (size_t i = 0; i < sizeof(default_env) / sizeof(default_env[0]); i++) {
                const char *v = getenv(default_env[i]);
                if (v)
                        printf("env.%s=%s\n", default_env[i], v);
        }
        print_nodes();

        struct cuda_facts cuda = probe_cuda();
        long nvml = want_nvml >= 0 ? probe_nvml() : -1;
        char seen[512];

        if (want_no_cuda)
                check(!cuda.loaded, "libcuda.so.1 not loadable", "it loaded");
        if (want_cuda >= 0) {
                snprintf(seen, sizeof(seen), "loaded=%d init=%d count=%d", cuda.loaded, cuda.init,
                         cuda.count);
                check(cuda.loaded && cuda.init == 0 && cuda.count == want_cuda, "cuda device count",
                      seen);
        }
        if (want_cuda_version >= 0) {
                snprintf(seen, sizeof(seen), "%d", cuda.version);
                check(cuda.version == want_cuda_version, "cuda driver version", seen);
        }
        if (want_nvml >= 0) {
                snprintf(seen, sizeof(seen), "%ld", nvml);
                check(nvml == want_nvml, "nvml device count", seen);
        }

        /* Second pass: the other expectations, in argv order. */
        for (int i = 1; i + 1 < argc; i++) {
                const char *opt = argv[i], *arg = argv[i + 1];
                char name[256], desc[600];
                if (!strcmp(opt, "--expect-no-cuda"))
                        continue;
                i++;
                const char *eq = strchr(arg, '=');
                size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
                snprintf(name, sizeof(name), "%.*s", (int)nlen, arg);
                const char *value = getenv(name);
                snprintf(desc, sizeof(desc), "%s %s", opt + 2, arg);
                if (!strcmp(opt, "--expect-env") && eq) {
                        check(value && !strcmp(value, eq + 1), desc, value);
                } else if (!strcmp(opt, "--expect-env-prefix") && eq) {
                        check(value && !strncmp(value, eq + 1, strlen(eq + 1)), desc, value);
                } else if (!strcmp(opt, "--expect-unset")) {
                        check(!value, desc, value);
                } else if (!strcmp(opt, "--expect-node")) {
                        struct stat st;
                        bool ok = stat(name, &st) == 0 && S_ISCHR(st.st_mode);
                        if (ok)
                                snprintf(seen, sizeof(seen), "c %u:%u", major(st.st_rdev),
                                         minor(st.st_rdev));
                        else
                                snprintf(seen, sizeof(seen), "no character device");
                        check(ok && (!eq || !strcmp(seen + 2, eq + 1)), desc, seen);
                } else if (!strcmp(opt, "--expect-no-node")) {
                        check(access(arg, F_OK) < 0, desc, "it exists");
                } else if (!strcmp(opt, "--expect-file") && eq) {
                        FILE *in = fopen(name, "re");
                        snprintf(seen, sizeof(seen), "%s", in ? "" : strerror(errno));
                        if (in && !fgets(seen, sizeof(seen), in))
                                seen[0] = '\0';
                        if (in)
                                fclose(in);
                        seen[strcspn(seen, "\n")] = '\0';
                        check(in && !strcmp(seen, eq + 1), desc, seen);
                } else if (!strcmp(opt, "--expect-connect")) {
                        struct sockaddr_un sa = { .sun_family = AF_UNIX };
                        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                        bool ok = fd >= 0 && strlen(arg) < sizeof(sa.sun_path);
                        if (ok) {
                                memcpy(sa.sun_path, arg, strlen(arg) + 1);
                                ok = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
                        }
                        snprintf(seen, sizeof(seen), "%s", ok ? "connected" : strerror(errno));
                        if (fd >= 0)
                                close(fd);
                        check(ok, desc, seen);
                } else if (!strcmp(opt, "--expect-group")) {
                        long gid = -1;
                        check(parse_long(arg, &gid) && has_group(gid), desc, "see groups=");
                } else if (!strcmp(opt, "--expect-uid")) {
                        long uid = -1;
                        snprintf(seen, sizeof(seen), "%ld", (long)getuid());
                        check(parse_long(arg, &uid) && uid == (long)getuid(), desc, seen);
                } else if (!strcmp(opt, "--list-dir")) {
                        list_dir(arg);
                } else if (!strcmp(opt, "--mounts")) {
                        print_mounts(arg);
                } else if (!strcmp(opt, "--print-env")) {
                        if (value)
                                printf("env.%s=%s\n", name, value);
                }
        }

        printf("checks=%u failed=%u\n", checks, failures);
        return failures ? 1 : (int)exit_code;
}
