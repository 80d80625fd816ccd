/* SPDX-License-Identifier: Apache-2.0 */
/* Runtime profile sets: built-ins embedded at build time, then the profile
 * directory's "*.json" files (a file replaces the built-in of the same name), sorted in selection
 * order; matching and selection. Parsing of one profile is in profile.c. Nothing here logs. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/macro.h"
#include "base/str.h"
#include "builtin-profiles.h"
#include "profile.h"
#include "require.h"

#define CPU_PROFILE "cpu" /* the fallback profile: always matches, always tried last */

static void xpu_profile_freep(struct xpu_profile **p) {
        xpu_profile_free(*p);
}

static void xpu_profile_set_freep(struct xpu_profile_set **s) {
        xpu_profile_set_free(*s);
}

/* ---- the set -------------------------------------------------------------------------------- */

struct xpu_profile_set *xpu_profile_set_free(struct xpu_profile_set *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n; i++)
                xpu_profile_free(s->profiles[i]);
        free(s->profiles);
        free(s);
        return NULL;
}

static int profile_cmp(const void *a, const void *b) {
        const struct xpu_profile *x = *(const struct xpu_profile *const *)a;
        const struct xpu_profile *y = *(const struct xpu_profile *const *)b;
        bool xc = strcmp(x->name, CPU_PROFILE) == 0, yc = strcmp(y->name, CPU_PROFILE) == 0;
        if (xc != yc)
                return xc ? 1 : -1;
        if (x->priority != y->priority)
                return x->priority > y->priority ? -1 : 1;
        return strcmp(x->name, y->name);
}

static struct xpu_profile **set_slot(struct xpu_profile_set *s, const char *name) {
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->profiles[i]->name, name) == 0)
                        return &s->profiles[i];
        return NULL;
}

/* Add P (taking it) to S. A profile of the same name is replaced when it is a built-in and P is
 * not; any other clash is an error. */
static int set_add(struct xpu_profile_set *s, struct xpu_profile **pp, char *err, size_t err_size) {
        struct xpu_profile *p = *pp;
        struct xpu_profile **slot = set_slot(s, p->name);
        if (slot) {
                if (!(*slot)->builtin || p->builtin) {
                        if (err && err_size)
                                snprintf(err, err_size,
                                         "%s: profile name \"%s\" is already used by %s", p->origin,
                                         p->name, (*slot)->origin);
                        return -EINVAL;
                }
                xpu_profile_free(*slot);
                *slot = TAKE_PTR(*pp);
                return 0;
        }
        struct xpu_profile **v = realloc(s->profiles, (s->n + 1) * sizeof *v);
        if (!v)
                return -ENOMEM;
        s->profiles = v;
        s->profiles[s->n++] = TAKE_PTR(*pp);
        return 0;
}

static int name_cmp(const void *a, const void *b) {
        return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void names_freep(char ***v) {
        if (!*v)
                return;
        for (char **q = *v; *q; q++)
                free(*q);
        free(*v);
}

/* An image's profile directory is read by a privileged process: a directory too large to be a
 * profile directory is refused (-E2BIG), not read to the end (docs/safe-paths.md). */
#define PROFILE_DIR_ENTRIES_MAX 65536
#define PROFILE_DIR_FILES_MAX 1024

/* Sorted, NULL-terminated list of the "*.json" names in DIR_FD (hidden files skipped). Returns 0,
 * -E2BIG past PROFILE_DIR_ENTRIES_MAX entries or PROFILE_DIR_FILES_MAX profiles, -errno. */
static int list_json(int dir_fd, char ***ret) {
        int fd = dup(dir_fd);
        if (fd < 0)
                return negative_errno();
        _cleanup_closedir_ DIR *d = fdopendir(fd);
        if (!d) {
                int r = negative_errno();
                close(fd);
                return r;
        }
        _cleanup_(names_freep) char **names = calloc(1, sizeof *names);
        size_t n = 0;
        if (!names)
                return -ENOMEM;
        struct dirent *de;
        size_t entries = 0;
        errno = 0;
        while ((de = readdir(d))) {
                size_t len = strlen(de->d_name);
                if (++entries > PROFILE_DIR_ENTRIES_MAX)
                        return -E2BIG;
                if (de->d_name[0] == '.' || len <= 5 || strcmp(de->d_name + len - 5, ".json") != 0)
                        continue;
                if (n >= PROFILE_DIR_FILES_MAX)
                        return -E2BIG;
                char **v = realloc(names, (n + 2) * sizeof *v);
                if (!v)
                        return -ENOMEM;
                names = v;
                names[n] = strdup(de->d_name);
                if (!names[n])
                        return -ENOMEM;
                names[++n] = NULL;
                errno = 0;
        }
        if (errno)
                return negative_errno();
        qsort(names, n, sizeof *names, name_cmp);
        *ret = TAKE_PTR(names);
        return 0;
}

/* Read NAME in DIR_FD: a regular file of at most XPU_PROFILE_FILE_MAX bytes without NUL bytes. */
static int read_profile_file(int dir_fd, const char *name, char **ret, const char **why) {
        _cleanup_close_ int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return negative_errno();
        struct stat st;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode)) {
                *why = "not a regular file";
                return -EINVAL;
        }
        if (st.st_size > XPU_PROFILE_FILE_MAX) {
                *why = "larger than 1 MiB";
                return -EFBIG;
        }
        _cleanup_free_ char *buf = malloc(XPU_PROFILE_FILE_MAX + 2);
        if (!buf)
                return -ENOMEM;
        ssize_t n = xpu_read_full(fd, buf, XPU_PROFILE_FILE_MAX + 1);
        if (n < 0)
                return (int)n;
        size_t len = (size_t)n;
        if (len > XPU_PROFILE_FILE_MAX) {
                *why = "larger than 1 MiB";
                return -EFBIG;
        }
        buf[len] = '\0';
        if (strlen(buf) != len) {
                *why = "contains a NUL byte";
                return -EINVAL;
        }
        *ret = TAKE_PTR(buf);
        return 0;
}

int xpu_profile_set_load(const char *dir, struct xpu_profile_set **ret, char *err, size_t err_size) {
        _cleanup_(xpu_profile_set_freep) struct xpu_profile_set *s = calloc(1, sizeof *s);
        if (!s)
                return -ENOMEM;

        /* Built-ins were parsed and checked at build time (packaging/profile-cgen), their
         * requirement expressions too: a start parses nothing for them. */
        for (size_t i = 0; xpu_builtin_profiles[i]; i++) {
                struct xpu_profile *p = xpu_builtin_profiles[i];
                int r = set_add(s, &p, err, err_size);
                if (r < 0)
                        return r;
        }

        if (dir) {
                _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (dfd < 0 && errno != ENOENT) {
                        int r = negative_errno();
                        if (err && err_size)
                                snprintf(err, err_size, "%s: cannot open the profile directory: %s",
                                         dir, strerror(-r));
                        return r;
                }
                _cleanup_(names_freep) char **names = NULL;
                if (dfd >= 0) {
                        int r = list_json(dfd, &names);
                        if (r < 0) {
                                if (err && err_size && r == -E2BIG)
                                        snprintf(err, err_size,
                                                 "%s: the profile directory has more than %d entries or %d "
                                                 "profiles; refusing to read it: keep a few profiles there",
                                                 dir, PROFILE_DIR_ENTRIES_MAX, PROFILE_DIR_FILES_MAX);
                                else if (err && err_size)
                                        snprintf(err, err_size,
                                                 "%s: cannot read the profile directory: %s", dir,
                                                 strerror(-r));
                                return r;
                        }
                }
                for (char **q = names; q && *q; q++) {
                        char origin[PATH_MAX];
                        snprintf(origin, sizeof origin, "%s%s%s", dir,
                                 *dir && dir[strlen(dir) - 1] == '/' ? "" : "/", *q);
                        _cleanup_free_ char *text = NULL;
                        const char *why = NULL;
                        int r = read_profile_file(dfd, *q, &text, &why);
                        if (r < 0) {
                                if (err && err_size)
                                        snprintf(err, err_size, "%s: %s", origin,
                                                 why ? why : strerror(-r));
                                return r;
                        }
                        _cleanup_(xpu_profile_freep) struct xpu_profile *p = NULL;
                        /* Requirement expressions included: a bad one is an error of its file. */
                        r = xpu_profile_parse(text, origin, &p, err, err_size);
                        if (r < 0)
                                return r;
                        r = set_add(s, &p, err, err_size);
                        if (r < 0)
                                return r;
                }
        }

        qsort(s->profiles, s->n, sizeof *s->profiles, profile_cmp);
        *ret = TAKE_PTR(s);
        return 0;
}

const struct xpu_profile *xpu_profile_set_find(const struct xpu_profile_set *s, const char *name) {
        if (!s || !name)
                return NULL;
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->profiles[i]->name, name) == 0)
                        return s->profiles[i];
        return NULL;
}

bool xpu_profile_matches(const struct xpu_profile *p, const struct xpu_inventory *inv,
                         const bool *selected, char *why, size_t why_size) {
        static const struct xpu_inventory no_devices = { .n_devices = 0 };
        if (!inv)
                inv = &no_devices;
        char base[256];
        bool ok = p->match_any;
        if (p->match_any)
                snprintf(base, sizeof base, "matches any host (no match.vendor)");
        else {
                size_t n = 0;
                for (size_t i = 0; selected && i < inv->n_devices; i++)
                        if (selected[i] && inv->devices[i].vendor == p->vendor)
                                n++;
                ok = n >= p->min_devices;
                /* Found but not selected: say whether the container was not given them. */
                size_t found = 0, given = 0;
                for (size_t i = 0; i < inv->n_devices; i++)
                        if (inv->devices[i].vendor == p->vendor) {
                                found++;
                                given += xpu_device_available(&inv->devices[i]);
                        }
                char extra[160] = "";
                if (found > n)
                        snprintf(extra, sizeof extra, "; %zu found, %zu with their device nodes in this container",
                                 found, given);
                snprintf(base, sizeof base, "%s: %zu %s device%s selected (needs >= %u)%s",
                         ok ? "matches" : "no", n, xpu_vendor_to_string(p->vendor),
                         n == 1 ? "" : "s", p->min_devices, extra);
        }
        if (!ok || !p->require) {
                if (why && why_size)
                        xpu_strlcpy(why, base, why_size);
                return ok;
        }
        /* match.require against the same facts as --require, with this profile's vendor. */
        char req[1024];
        int r = xpu_require_check_selected(p->require, inv, selected, p->match_any ? _XPU_VENDOR_MAX : p->vendor, req,
                                           sizeof req);
        if (why && why_size) {
                if (r == 1)
                        snprintf(why, why_size, "%s; %s", base, req);
                else if (r == 0)
                        snprintf(why, why_size, "no: %s", req);
                else
                        snprintf(why, why_size, "no: match.require not checked: %s", strerror(-r));
        }
        return r == 1;
}

const struct xpu_profile *xpu_profile_select(const struct xpu_profile_set *s,
                                             const struct xpu_inventory *inv, const bool *selected) {
        if (!s)
                return NULL;
        /* The set is in selection order already; the second pass keeps "cpu" last even if a
         * caller reordered it. */
        for (int pass = 0; pass < 2; pass++)
                for (size_t i = 0; i < s->n; i++) {
                        const struct xpu_profile *p = s->profiles[i];
                        if ((strcmp(p->name, CPU_PROFILE) == 0) != (pass == 1))
                                continue;
                        if (xpu_profile_matches(p, inv, selected, NULL, 0))
                                return p;
                }
        return NULL;
}
