/* SPDX-License-Identifier: Apache-2.0 */
/* `xpuinit audit`: collect, judge (audit.h has the contract; audit-summary.c summarizes,
 * audit-render.c prints). */
#include "audit.h"
#include "audit-render.h"
#include "audit-summary.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/macro.h"
#include "base/str.h"
#include "base/strv.h"
#include "devcode/object-json.h"
#include "devcode/object.h"
#include "devcode/walk.h"
#include "device-code.h"
#include "options.h"

#define XPU_EXIT_SETUP 125

struct collect {
        struct xpu_object *objects;
        size_t n, cap;
        uint64_t read_errors;
};

static int collect_one(int fd, const char *path, const struct stat *st, void *userdata) {
        struct collect *c = userdata;
        if (c->n == c->cap) {
                size_t ncap = c->cap ? c->cap * 2 : 256;
                struct xpu_object *n = realloc(c->objects, ncap * sizeof *n);
                if (!n)
                        return -ENOMEM;
                c->objects = n;
                c->cap = ncap;
        }
        int r = xpu_object_read(fd, path, (uint64_t)st->st_size, &c->objects[c->n]);
        if (r == 0)
                c->n++;
        else if (r == -ENOMEM)
                return r;
        else if (r != -ENOEXEC) {
                c->read_errors++;
                log_warning("audit: %s: %s; left out of the report", path, strerror(-r));
        }
        return 0;
}

static int cmp_object(const void *a, const void *b) {
        return strcmp(((const struct xpu_object *)a)->path, ((const struct xpu_object *)b)->path);
}

static int add_issue(struct xpu_audit *a, const char *kind, const char *path, char *message) {
        if (!message)
                return -ENOMEM;
        struct xpu_audit_issue *n = realloc(a->issues, (a->n_issues + 1) * sizeof *n);
        if (!n) {
                free(message);
                return -ENOMEM;
        }
        a->issues = n;
        a->issues[a->n_issues++] = (struct xpu_audit_issue){ .kind = kind, .path = path, .message = message };
        return 0;
}

static char *format(const char *fmt, ...) _printf_(1, 2);
static char *format(const char *fmt, ...) {
        va_list ap;
        char *s = NULL;
        va_start(ap, fmt);
        if (vasprintf(&s, fmt, ap) < 0)
                s = NULL;
        va_end(ap);
        return s;
}

static int find_issues(struct xpu_audit *a) {
        int r = 0;
        for (size_t i = 0; i < a->n_objects && r == 0; i++) {
                const struct xpu_object *o = &a->objects[i];
                /* CUDA forward compatibility (the cuda-compat package, /usr/local/cuda-X/compat/): a newer
                 * libcuda the image carries on purpose, used only where the loader is pointed at it. */
                bool compat = xpu_startswith(o->path, "compat/") || strstr(o->path, "/compat/");
                if (o->driver_copy && compat)
                        continue;
                if (o->stub)
                        r = add_issue(a, "stub-driver-library", o->path,
                                      format("%s is a stub of the driver library %s (as in the CUDA toolkit's stubs "
                                             "directory): where the loader finds it, it shadows the host driver's "
                                             "library that xpuinit injects and every call fails "
                                             "(CUDA_ERROR_STUB_LIBRARY); remove it from the image or keep it off the "
                                             "loader's path",
                                             o->path, o->soname));
                else if (o->driver_copy)
                        r = add_issue(a, "stub-driver-library", o->path,
                                      format("%s is a copy of the driver library %s: it shadows the host driver's "
                                             "library that xpuinit injects, and works only with the kernel module "
                                             "of its own version; remove it from the image",
                                             o->path, o->soname));
                if (r == 0 && o->malformed)
                        r = add_issue(a, "malformed-object", o->path, format("%s: %s", o->path, o->malformed));
        }
        for (size_t t = 0; t < a->n_targets && r == 0; t++)
                for (size_t k = 0; k < a->verdicts[t].n_file_issues && r == 0; k++) {
                        const struct xpu_code_file_issue *fi = &a->verdicts[t].file_issues[k];
                        r = add_issue(a, "kernel-files-without-host-target", fi->dir,
                                      format("%s: %s", fi->dir, fi->message));
                }
        return r;
}

/* Write the index to PATH atomically (a dot file next to it, then rename), creating its
 * directory when missing. Compact: a start reads it, people read it through `jq`. */
static int write_index(const struct xpu_audit *a, const char *path) {
        cJSON *j = xpu_index_to_json(a->objects, a->n_objects, a->root, "xpuinit " XPU_VERSION);
        char *text = j ? cJSON_PrintUnformatted(j) : NULL;
        cJSON_Delete(j);
        if (!text) {
                log_error("audit: --write-index %s: %s", path, strerror(ENOMEM));
                return -ENOMEM;
        }
        /* What a start reads back must parse: an index it refuses would stop every start. */
        struct xpu_object *back = NULL;
        size_t n_back = 0;
        char why[512];
        size_t len = strlen(text);
        int q = len > XPU_DEVICE_CODE_INDEX_MAX ? -EFBIG : xpu_index_parse(text, len, &back, &n_back, why, sizeof why);
        if (q == -EFBIG)
                snprintf(why, sizeof why, "%zu bytes, more than the %u MiB a start reads", len,
                         XPU_DEVICE_CODE_INDEX_MAX >> 20);
        for (size_t i = 0; i < n_back; i++)
                xpu_object_clear(&back[i]);
        free(back);
        if (q < 0) {
                free(text);
                log_error("audit: --write-index %s: the index would not read back (%s); nothing written (a start "
                          "without an index runs without the check)",
                          path, q == -ENOMEM ? strerror(ENOMEM) : why);
                return q;
        }
        char dir[PATH_MAX], tmp[PATH_MAX + 16];
        const char *slash = strrchr(path, '/');
        int r = 0;
        if (snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".") >= (int)sizeof dir ||
            snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, slash ? slash + 1 : path) >= (int)sizeof tmp) {
                free(text);
                log_error("audit: --write-index %s: the path is too long", path);
                return -ENAMETOOLONG;
        }
        /* mkdir -p DIR */
        for (char *p = dir + 1; dir[0] && *p; p++)
                if (*p == '/') {
                        *p = '\0';
                        (void)mkdir(dir, 0755);
                        *p = '/';
                }
        if (dir[0])
                (void)mkdir(dir, 0755);
        /* A file of that name already there (left over, or put there) is replaced, never written
         * through: O_EXCL after unlinking it. */
        (void)unlink(tmp);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0 || xpu_write_full(fd, text, len) < 0 || xpu_write_full(fd, "\n", 1) < 0 || fsync(fd) < 0)
                r = negative_errno();
        if (fd >= 0 && close(fd) < 0 && r == 0)
                r = negative_errno();
        if (r == 0 && rename(tmp, path) < 0)
                r = negative_errno();
        if (r < 0) {
                (void)unlink(tmp);
                log_error("audit: cannot write the device-code index %s: %s; give a writable path", path, strerror(-r));
        }
        free(text);
        return r;
}

static void audit_free(struct xpu_audit *a) {
        for (size_t i = 0; i < a->n_objects; i++)
                xpu_object_clear(&a->objects[i]);
        free(a->objects);
        for (size_t i = 0; i < a->n_targets && a->verdicts; i++)
                xpu_code_verdict_clear(&a->verdicts[i]);
        free(a->verdicts);
        for (size_t i = 0; i < a->n_issues; i++)
                free(a->issues[i].message);
        free(a->issues);
        xpu_strv_free(a->nv_sass);
        xpu_strv_free(a->nv_ptx);
        xpu_strv_free(a->amd_gfx);
}

int xpu_audit_run(const struct xpu_audit_options *o, const struct xpu_code_target *t, size_t n, int cuda_driver,
                  char *const *env, FILE *out) {
        struct timespec start, end;
        clock_gettime(CLOCK_MONOTONIC, &start);
        struct xpu_audit a = { .root = o->audit_root, .targets = t, .n_targets = n };
        char err[256];
        if (xpu_code_env_from(env, true, &a.env, err, sizeof err) < 0) {
                log_error("audit: %s", err);
                return XPU_EXIT_USAGE;
        }
        a.env.cuda_driver = cuda_driver;
        /* O_PATH: a FIFO or device given as the root is never opened for real (see below). */
        _cleanup_close_ int root = open(o->audit_root, O_PATH | O_CLOEXEC);
        struct stat rst;
        const struct xpu_walk_limits limits = XPU_WALK_LIMITS_DEFAULT;
        struct collect c = { 0 };
        int r = 0, status = 0;
        a.max_depth = limits.max_depth;
        if (root < 0 || fstat(root, &rst) < 0) {
                log_error("audit: cannot open the root directory %s: %s; give the image's root (an unpacked "
                          "image, a container's rootfs, or / inside the image)",
                          o->audit_root, strerror(errno));
                return XPU_EXIT_USAGE;
        }
        if (S_ISREG(rst.st_mode)) {
                /* One file: audited as the only object of a root that holds just it. */
                const char *base = strrchr(o->audit_root, '/');
                _cleanup_close_ int fd = xpu_reopen_regular(root, O_NONBLOCK, &rst);
                r = fd < 0 ? fd : collect_one(fd, base && base[1] ? base + 1 : o->audit_root, &rst, &c);
                a.walk.files = 1;
        } else if (S_ISDIR(rst.st_mode)) {
                r = xpu_walk(root, &limits, collect_one, &c, &a.walk);
        } else {
                log_error("audit: %s is neither a directory nor a regular file; give an image root or one object",
                          o->audit_root);
                return XPU_EXIT_USAGE;
        }
        a.objects = c.objects;
        a.n_objects = c.n;
        a.read_errors = c.read_errors;
        if (r < 0) {
                log_error("audit: reading %s failed: %s", o->audit_root, strerror(-r));
                status = r == -ENOMEM ? XPU_EXIT_SETUP : XPU_EXIT_USAGE;
                goto out;
        }
        if (a.walk.stopped_by)
                log_warning("audit: the walk of %s stopped at its %s (%s): the report covers what was read", o->audit_root,
                            a.walk.stopped_by,
                            strcmp(a.walk.stopped_by, "file limit") == 0 ? "1,000,000 files" : "600 s");
        if (a.walk.skipped_deep)
                log_warning("audit: %llu directories of %s deeper than %u levels were not read",
                            (unsigned long long)a.walk.skipped_deep, o->audit_root, limits.max_depth);
        if (a.walk.errors)
                log_warning("audit: %llu entries of %s could not be read; the first: %s, %s (%s)",
                            (unsigned long long)a.walk.errors, o->audit_root, a.walk.first_error_path,
                            a.walk.first_error, strerror(a.walk.first_error_errno));
        if (a.n_objects)
                qsort(a.objects, a.n_objects, sizeof *a.objects, cmp_object);
        a.verdicts = calloc(n ? n : 1, sizeof *a.verdicts);
        if (!a.verdicts)
                r = -ENOMEM;
        for (size_t i = 0; i < n && r >= 0; i++)
                r = xpu_code_judge(a.objects, a.n_objects, &t[i], &a.env, &a.verdicts[i]);
        if (r >= 0)
                r = xpu_audit_summarize(&a);
        if (r >= 0)
                r = find_issues(&a);
        if (r < 0) {
                log_error("audit: %s", strerror(-r));
                status = XPU_EXIT_SETUP;
                goto out;
        }
        clock_gettime(CLOCK_MONOTONIC, &end);
        a.elapsed_seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
        if (o->write_index && (a.walk.stopped_by || a.walk.skipped_deep || a.walk.errors || a.read_errors)) {
                log_error("audit: --write-index %s: the audit of %s is incomplete (see above); an index of part of the "
                          "image would pass a start it cannot judge, so none is written",
                          o->write_index, o->audit_root);
                status = XPU_EXIT_SETUP;
                goto out;
        }
        if (o->write_index) {
                if (write_index(&a, o->write_index) < 0) {
                        status = XPU_EXIT_SETUP;
                        goto out;
                }
                a.index_path = o->write_index;
                for (size_t i = 0; i < a.n_objects; i++)
                        a.index_objects += a.objects[i].vendors != 0;
        }
        errno = 0; /* a failed write through stdio leaves its errno (EBADF, ENOSPC) */
        r = o->k8s_affinity ? xpu_audit_render_k8s_affinity(&a, out)
            : o->json       ? xpu_audit_render_json(&a, out)
                            : xpu_audit_render_text(&a, out);
        if (r == -ENOENT) { /* --k8s-affinity: no node kind to admit (logged) */
                status = 1;
                goto out;
        }
        if (fflush(out) != 0 || r < 0) {
                log_error("audit: cannot write the report: %s", strerror(errno ? errno : r < 0 ? -r : EIO));
                status = XPU_EXIT_SETUP;
                goto out;
        }
        for (size_t i = 0; i < n && o->fail_on >= 0; i++)
                if ((int)a.verdicts[i].level >= o->fail_on) {
                        log_error("audit: --fail-on %s: %s is %s", xpu_code_level_name((enum xpu_code_level)o->fail_on),
                                  t[i].name, xpu_code_level_name(a.verdicts[i].level));
                        status = 1;
                } else if (a.verdicts[i].not_judged) {
                        log_error("audit: --fail-on %s: %s could not be judged", xpu_code_level_name((enum xpu_code_level)o->fail_on),
                                  t[i].name);
                        status = 1;
                }
        for (size_t i = 0; i < a.n_issues && o->fail_on >= 0; i++)
                if (strcmp(a.issues[i].kind, "malformed-object") == 0) {
                        log_error("audit: --fail-on %s: %s could not be read whole, so its code is not known",
                                  xpu_code_level_name((enum xpu_code_level)o->fail_on), a.issues[i].path);
                        status = 1;
                        break;
                }
        if (o->fail_on >= 0 && (a.walk.stopped_by || a.walk.skipped_deep || a.walk.errors || a.read_errors)) {
                log_error("audit: --fail-on %s: the audit of %s is incomplete (see above), so it cannot pass",
                          xpu_code_level_name((enum xpu_code_level)o->fail_on), o->audit_root);
                status = 1;
        }
out:
        audit_free(&a);
        return status;
}
