/* SPDX-License-Identifier: Apache-2.0 */
/* One CDI containerEdits object built (cdi-edits.h). */
#include "cdi-edits.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/macro.h"
#include "base/path.h"
#include "base/strv.h"

cJSON *xpu_cdi_edits_new(void) {
        cJSON *e = cJSON_CreateObject();
        if (e && (!cJSON_AddArrayToObject(e, "env") || !cJSON_AddArrayToObject(e, "deviceNodes") ||
                  !cJSON_AddArrayToObject(e, "mounts"))) {
                cJSON_Delete(e);
                return NULL;
        }
        return e;
}

/* Drop the empty arrays of E (CDI takes them, but a reader should not wonder). */
void xpu_cdi_edits_trim(cJSON *e) {
        static const char *const keys[] = { "env", "deviceNodes", "mounts" };
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(e, keys[i])) == 0)
                        cJSON_DeleteItemFromObjectCaseSensitive(e, keys[i]);
}

/* ARRAY holds an object whose KEY is the string VALUE. */
static bool has_entry(const cJSON *array, const char *key, const char *value) {
        const cJSON *it;
        cJSON_ArrayForEach(it, array) {
                const cJSON *v = cJSON_IsString(it) ? it : cJSON_GetObjectItemCaseSensitive(it, key);
                if (cJSON_IsString(v) && strcmp(v->valuestring, value) == 0)
                        return true;
        }
        return false;
}

int xpu_cdi_env_add(cJSON *edits, const char *kv) {
        cJSON *env = cJSON_GetObjectItemCaseSensitive(edits, "env");
        if (has_entry(env, NULL, kv))
                return 0;
        cJSON *s = cJSON_CreateString(kv);
        return s && cJSON_AddItemToArray(env, s) ? 0 : (cJSON_Delete(s), -ENOMEM);
}

/* Length of DIR without trailing slashes ("/" and "" are 0). */
static size_t dir_len(const char *dir) {
        size_t n = dir ? strlen(dir) : 0;
        while (n > 0 && dir[n - 1] == '/')
                n--;
        return n;
}

/* ROOT and the absolute PATH joined: the path of a host file as this process sees it. */
static int local_path(const char *root, const char *path, char out[PATH_MAX]) {
        int n = snprintf(out, PATH_MAX, "%.*s%s", (int)dir_len(root), root, path);
        return n > 0 && n < PATH_MAX ? 0 : -ENAMETOOLONG;
}

/* The file PATH of the driver root ROOT_FD (resolved inside it: symlinked directories and files
 * followed as if the root were "/") as this process names it, with no symlink left: the path the
 * engine will bind, which must be the file that was checked, not what the lexical PATH means on
 * the host. From /proc/self/fd of the file opened with O_PATH. Returns 0 or -errno. */
int xpu_cdi_resolved_path(int root_fd, const char *path, char out[PATH_MAX]) {
        _cleanup_close_ int fd = xpu_open_in_root(root_fd, path, O_PATH, 0);
        if (fd < 0)
                return fd;
        int r = xpu_fd_path(fd, out, PATH_MAX);
        if (r < 0)
                return r;
        if (out[0] != '/')
                return -EIO;
        size_t n = strlen(out);
        static const char deleted[] = " (deleted)";
        return (size_t)n > sizeof deleted && strcmp(out + n - (sizeof deleted - 1), deleted) == 0 ? -ENOENT : 0;
}

/* LOCAL (a local_path()) as the host names it: without the host root's prefix when below it. */
const char *xpu_cdi_host_view(const struct xpu_cdi_roots *roots, const char *local) {
        size_t hl = dir_len(roots->host_root);
        if (hl > 0 && strncmp(local, roots->host_root, hl) == 0 && local[hl] == '/')
                return local + hl;
        return local;
}

/* Device node PATH ("/dev/nvidia0") of the dev root into EDITS, with the host node's type,
 * numbers, mode and owner. Returns 1 when added (or there already), 0 when the dev root has no
 * character device there, -ENOMEM. */
int xpu_cdi_node_add(cJSON *edits, const struct xpu_cdi_roots *roots, const char *path) {
        cJSON *nodes = cJSON_GetObjectItemCaseSensitive(edits, "deviceNodes");
        if (has_entry(nodes, "path", path))
                return 1;
        char lp[PATH_MAX];
        struct stat st;
        if (local_path(roots->dev_root, path, lp) < 0 || lstat(lp, &st) < 0 || !S_ISCHR(st.st_mode))
                return 0;
        cJSON *n = cJSON_CreateObject();
        bool ok = n && cJSON_AddStringToObject(n, "path", path) &&
                  cJSON_AddStringToObject(n, "hostPath", xpu_cdi_host_view(roots, lp)) &&
                  cJSON_AddStringToObject(n, "type", "c") && cJSON_AddNumberToObject(n, "major", major(st.st_rdev)) &&
                  cJSON_AddNumberToObject(n, "minor", minor(st.st_rdev)) &&
                  cJSON_AddNumberToObject(n, "fileMode", st.st_mode & 07777) &&
                  cJSON_AddNumberToObject(n, "uid", st.st_uid) && cJSON_AddNumberToObject(n, "gid", st.st_gid) &&
                  cJSON_AddItemToArray(nodes, n);
        if (!ok) {
                cJSON_Delete(n);
                return -ENOMEM;
        }
        return 1;
}

/* A bind mount of HOST on CONTAINER: read-only (a file), or writable and noexec (WRITABLE: a
 * socket clients connect to, a directory they create pipes in; the toolkit's IPC mounts too). */
int xpu_cdi_mount_add(cJSON *edits, const char *host, const char *container, bool writable) {
        cJSON *mounts = cJSON_GetObjectItemCaseSensitive(edits, "mounts");
        if (has_entry(mounts, "containerPath", container))
                return 0;
        cJSON *m = cJSON_CreateObject();
        cJSON *opts = NULL;
        bool ok = m && cJSON_AddStringToObject(m, "hostPath", host) &&
                  cJSON_AddStringToObject(m, "containerPath", container) &&
                  (opts = cJSON_AddArrayToObject(m, "options"));
        static const char *const ro[] = { "ro", "nosuid", "nodev", "bind", NULL };
        static const char *const rw[] = { "nosuid", "nodev", "noexec", "bind", NULL };
        const char *const *options = writable ? rw : ro;
        for (size_t i = 0; ok && options[i]; i++) {
                cJSON *o = cJSON_CreateString(options[i]);
                ok = o && cJSON_AddItemToArray(opts, o);
                if (!ok)
                        cJSON_Delete(o);
        }
        if (!ok || !cJSON_AddItemToArray(mounts, m)) {
                cJSON_Delete(m);
                return -ENOMEM;
        }
        return 0;
}

int xpu_cdi_warn(char ***warnings, const char *fmt, ...) {
        char line[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        return xpu_strv_push(warnings, line);
}


/* The file PATH of the driver root (RESOLVED as xpu_cdi_resolved_path() does) when it may go into every
 * container: a regular file every user may read, or a directory every user may read and search.
 * A host list's sym line is only checked as a link, so its target is checked here, where the
 * spec would mount it. Returns 0, -errno, -EPERM (not for a container: WHY says so). */
int xpu_cdi_shareable_path(int root_fd, const char *path, char out[PATH_MAX], const char **why) {
        _cleanup_close_ int fd = xpu_open_in_root(root_fd, path, O_PATH, 0);
        struct stat st;
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
                *why = "not a regular file or directory";
                return -EPERM;
        }
        if (!(st.st_mode & S_IROTH) || (S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH))) {
                *why = "not readable by every user";
                return -EPERM;
        }
        int r = xpu_fd_path(fd, out, PATH_MAX);
        return r < 0 ? r : out[0] == '/' ? 0 : -EIO;
}

/* A copy of FROM's items into TO's arrays (duplicates skipped, as the engines skip them). */
int xpu_cdi_edits_merge(cJSON *to, const cJSON *from) {
        static const struct {
                const char *key, *id;
        } arrays[] = { { "env", NULL }, { "deviceNodes", "path" }, { "mounts", "containerPath" } };
        for (size_t k = 0; k < ELEMENTSOF(arrays); k++) {
                cJSON *dst = cJSON_GetObjectItemCaseSensitive(to, arrays[k].key);
                const cJSON *it;
                cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(from, arrays[k].key)) {
                        const cJSON *id = arrays[k].id ? cJSON_GetObjectItemCaseSensitive(it, arrays[k].id) : it;
                        if (cJSON_IsString(id) && has_entry(dst, arrays[k].id, id->valuestring))
                                continue;
                        cJSON *dup = cJSON_Duplicate(it, true);
                        if (!dup || !cJSON_AddItemToArray(dst, dup)) {
                                cJSON_Delete(dup);
                                return -ENOMEM;
                        }
                }
        }
        return 0;
}
