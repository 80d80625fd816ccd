/* SPDX-License-Identifier: Apache-2.0 */
/* The shared frame of the vendor-library readers: see helper-job.h. */
#include "sandbox/helper-job.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/dl.h"
#include "base/escape.h"
#include "base/macro.h"
#include "base/str.h"

/* ---- parent side ---- */

int xpu_helper_job_run(int (*fn)(void *job, int out_fd), struct xpu_helper_job *job, const char *what,
                       unsigned timeout_ms, int driver_root_fd, const char *driver_version, char **ret_reply,
                       char *err, size_t err_size) {
        char fallback[8];
        if (!err) {
                err = fallback;
                err_size = sizeof(fallback);
        }
        if (!fn || !what || !ret_reply) {
                snprintf(err, err_size, "invalid arguments");
                return -EINVAL;
        }
        int r = xpu_helper_job_prepare(job, driver_root_fd, driver_version, err, err_size);
        if (r < 0)
                return r;
        return xpu_reply_run(fn, job, timeout_ms, what, ret_reply, err, err_size);
}

int xpu_helper_job_prepare(struct xpu_helper_job *job, int driver_root_fd, const char *driver_version, char *err,
                           size_t err_size) {
        char fallback[8];
        if (!err) {
                err = fallback;
                err_size = sizeof(fallback);
        }
        if (!job || driver_root_fd < 0) {
                snprintf(err, err_size, "invalid arguments");
                return -EINVAL;
        }
        memset(job, 0, sizeof(*job));
        if (driver_version) {
                if (xpu_strlcpy(job->driver_version, driver_version, sizeof(job->driver_version)) < 0) {
                        snprintf(err, err_size, "driver version too long");
                        return -EINVAL;
                }
                if (!xpu_is_driver_version(job->driver_version)) {
                        snprintf(err, err_size, "no driver version to check the library against");
                        return -ENODATA;
                }
                job->check_version = true;
        }
        return xpu_root_ref_init(&job->root, driver_root_fd, err, err_size);
}

/* ---- helper side ---- */

/* "library PATH", PATH shortened to "/.../<file name>" when the line would be too long. */
static void add_library_line(struct xpu_reply *r, const char *loaded) {
        char path[PATH_MAX];
        const char *base = strrchr(loaded, '/');
        snprintf(path, sizeof(path), "%s", loaded);
        if (strlen(path) + sizeof("library \n") > XPU_REPLY_LINE_MAX)
                snprintf(path, sizeof(path), "/...%s", base ? base : "/?");
        xpu_reply_sanitize(path, sizeof(path));
        xpu_reply_add(r, "library %s\n", path);
}

int xpu_helper_job_load(const struct xpu_helper_job *job, const char *const *sonames, const char *const *extra_dirs,
                        const struct xpu_dl_symbol *syms, size_t n, void **ret_handle, char loaded[PATH_MAX],
                        struct xpu_reply *r, int out_fd, int *status) {
        char err[1024];
        void *handle = NULL;
        int e;

        if (!job || !sonames || !sonames[0] || !ret_handle || !loaded || !r || !status ||
            (job->check_version && extra_dirs)) {
                if (status && r)
                        *status = xpu_reply_fail(r, out_fd, -EINVAL, "helper job: invalid arguments");
                return -EINVAL;
        }
        _cleanup_close_ int root = xpu_root_ref_open(&job->root);
        if (root < 0) {
                *status = xpu_reply_fail(r, out_fd, root, "cannot reopen the driver root %s: %s%s", job->root.path,
                                         root == -ESTALE ? "it changed under the helper" : strerror(-root),
                                         xpu_root_ref_hint(root));
                return root;
        }
        if (job->check_version && !job->driver_version[0]) {
                /* Never fall back to loading unchecked. */
                *status = xpu_reply_fail(r, out_fd, -ENODATA,
                                         "not loading %s: no driver version to check its file name against", sonames[0]);
                return -ENODATA;
        }
        /* With a driver version, the library's file name is checked before it is loaded at all. */
        if (job->check_version)
                e = xpu_dl_open_version(root, sonames, job->driver_version, loaded, PATH_MAX, &handle, err,
                                        sizeof(err));
        else if (job->dirs_first)
                e = xpu_dl_open_dirs_first(root, sonames, extra_dirs, loaded, PATH_MAX, &handle, err, sizeof(err));
        else
                e = xpu_dl_open_dirs(root, sonames, extra_dirs, loaded, PATH_MAX, &handle, err, sizeof(err));
        if (e < 0) {
                *status = xpu_reply_fail(r, out_fd, e, "%s", err);
                return e;
        }
        e = xpu_dl_bind(handle, syms, n, err, sizeof(err));
        if (e < 0) {
                *status = xpu_reply_fail(r, out_fd, e, "%s: %s", loaded, err);
                return e;
        }
        add_library_line(r, loaded);
        *ret_handle = handle;
        return 0;
}

/* The longest name xpu_helper_clean_string() sends, bytes with the NUL (a reply line holds the
 * key too). */
#define HELPER_TEXT_MAX 384

/* xpu_helper_clean_string() for a name, in place. */
static bool clean_text(char *buf, size_t size, size_t field_size) {
        char text[HELPER_TEXT_MAX];
        size_t limit = field_size < size ? field_size : size;
        if (limit > sizeof text)
                limit = sizeof text;
        buf[size - 1] = '\0';
        size_t end = strlen(buf);
        while (end > 0 && (buf[end - 1] == ' ' || buf[end - 1] == '\t'))
                buf[--end] = '\0';
        (void)xpu_utf8_sanitize(text, limit, buf + strspn(buf, " \t"), NULL);
        size_t len = strlen(text);
        while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\t'))
                len--;
        memcpy(buf, text, len);
        buf[len] = '\0';
        return len > 0;
}

bool xpu_helper_clean_string(char *buf, size_t size, size_t field_size, bool may_cut) {
        if (!buf || size == 0 || field_size == 0)
                return false;
        if (may_cut)
                return clean_text(buf, size, field_size);
        xpu_reply_sanitize(buf, size);
        size_t start = strspn(buf, " \t"), len = strlen(buf + start);
        while (len > 0 && buf[start + len - 1] == ' ')
                len--;
        if (len > field_size - 1)
                len = 0;
        memmove(buf, buf + start, len);
        buf[len] = '\0';
        return len > 0;
}
