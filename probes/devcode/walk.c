/* SPDX-License-Identifier: Apache-2.0 */
/* Bounded, non-following walk of a root directory (walk.h has the contract). */
#include "devcode/walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/macro.h"
#include "base/str.h"

/* statfs(2) f_type of filesystems that hold no image files (linux/magic.h). */
static bool pseudo_filesystem(long type) {
        static const unsigned long types[] = {
                0x9fa0,     /* proc */
                0x62656572, /* sysfs */
                0x1cd1,     /* devpts */
                0x27e0eb,   /* cgroup */
                0x63677270, /* cgroup2 */
                0x64626720, /* debugfs */
                0x74726163, /* tracefs */
                0x73636673, /* securityfs */
                0xcafe4a11, /* bpf */
                0x6165676c, /* pstore */
                0x62656570, /* configfs */
                0x65735543, /* fusectl */
                0x19800202, /* mqueue */
                0x42494e4d, /* binfmt_misc */
                0xde5e81e4, /* efivarfs */
                0xf97cff8c, /* selinuxfs */
                0x6e736673, /* nsfs */
                0x0187,     /* autofs */
        };
        for (size_t i = 0; i < ELEMENTSOF(types); i++)
                if ((unsigned long)type == types[i])
                        return true;
        return false;
}

/* Hard-linked files seen, by st_dev/st_ino (open addressing; only files with st_nlink > 1). */
struct seen {
        struct {
                dev_t dev;
                ino_t ino;
                bool used;
        } *slots;
        size_t cap, n;
};

/* Returns 1 when DEV/INO was seen before, 0 after adding it, -ENOMEM. */
static int seen_add(struct seen *s, dev_t dev, ino_t ino) {
        if (s->n * 2 >= s->cap) {
                size_t ncap = s->cap ? s->cap * 2 : 256;
                __typeof__(s->slots) n = calloc(ncap, sizeof *n);
                if (!n)
                        return -ENOMEM;
                for (size_t i = 0; i < s->cap; i++) {
                        if (!s->slots[i].used)
                                continue;
                        size_t h = (size_t)((s->slots[i].ino * 0x9e3779b97f4a7c15ull) ^ s->slots[i].dev) & (ncap - 1);
                        while (n[h].used)
                                h = (h + 1) & (ncap - 1);
                        n[h] = s->slots[i];
                }
                free(s->slots);
                s->slots = n;
                s->cap = ncap;
        }
        size_t h = (size_t)((ino * 0x9e3779b97f4a7c15ull) ^ dev) & (s->cap - 1);
        while (s->slots[h].used) {
                if (s->slots[h].dev == dev && s->slots[h].ino == ino)
                        return 1;
                h = (h + 1) & (s->cap - 1);
        }
        s->slots[h].dev = dev;
        s->slots[h].ino = ino;
        s->slots[h].used = true;
        s->n++;
        return 0;
}

struct walk {
        const struct xpu_walk_limits *limits;
        struct xpu_walk_stats *stats;
        xpu_walk_cb cb;
        void *userdata;
        struct timespec start;
        uint64_t visited;         /* entries so far: the deadline is checked every 64 */
        struct seen seen;
        struct {
                dev_t dev;
                ino_t ino;
        } path_dirs[256];         /* the directories on the current path, for cycles */
        char path[PATH_MAX];
};

static void count_error(struct walk *w, const char *what) {
        int e = errno;
        w->stats->errors++;
        if (!w->stats->first_error) {
                w->stats->first_error = what;
                w->stats->first_error_errno = e;
                xpu_strlcpy(w->stats->first_error_path, w->path, sizeof w->stats->first_error_path);
        }
}

static bool past_deadline(const struct walk *w) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        uint64_t ns = (uint64_t)(now.tv_sec - w->start.tv_sec) * 1000000000ull + (uint64_t)now.tv_nsec -
                      (uint64_t)w->start.tv_nsec;
        return ns > w->limits->max_ns;
}

static int walk_dir(struct walk *w, int dfd, const struct stat *dst, size_t path_len, unsigned depth);

static int visit(struct walk *w, int dfd, const struct stat *dst, const char *name, unsigned char type,
                 size_t path_len, unsigned depth) {
        if (type == DT_LNK) {
                w->stats->links++;
                return 0;
        }
        if (type != DT_REG && type != DT_DIR && type != DT_UNKNOWN) {
                w->stats->special++;
                return 0;
        }
        size_t nl = strlen(name), len = path_len + (path_len ? 1 : 0) + nl;
        if (len >= sizeof w->path) {
                count_error(w, "a path longer than PATH_MAX");
                return 0;
        }
        if (path_len)
                w->path[path_len] = '/';
        memcpy(w->path + path_len + (path_len ? 1 : 0), name, nl + 1);
        int r = 0;
        /* O_PATH first, reopened for reading only when fstat says it is a regular file: a FIFO or
         * a device node swapped in after readdir (or behind DT_UNKNOWN) is never opened. */
        int fd = -1;
        _cleanup_close_ int pfd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        struct stat st = { 0 }; /* st_mode stays 0 when fstat failed */
        if (pfd < 0) {
                count_error(w, "an entry that could not be opened");
                goto out;
        }
        fd = xpu_reopen_regular(pfd, O_NONBLOCK, &st);
        if (fd >= 0) {
                if (st.st_nlink > 1) {
                        r = seen_add(&w->seen, st.st_dev, st.st_ino);
                        if (r != 0) {
                                r = r < 0 ? r : 0;
                                goto out;
                        }
                }
                if (w->stats->files >= w->limits->max_files) {
                        w->stats->stopped_by = "file limit";
                        goto out;
                }
                w->stats->files++;
                r = w->cb(fd, w->path, &st, w->userdata);
                /* A crafted object costs at most its work budget, but many of them in a row
                 * must not carry the walk far past its deadline. */
                if (r >= 0 && past_deadline(w))
                        w->stats->stopped_by = "time limit";
        } else if (st.st_mode == 0) {
                errno = -fd;
                count_error(w, "an entry that could not be stat'ed");
        } else if (S_ISREG(st.st_mode)) {
                errno = -fd;
                count_error(w, fd == -ENOENT ? "a file that could not be reopened for reading (is /proc mounted?)"
                                             : "a file that could not be opened for reading");
        } else if (S_ISDIR(st.st_mode)) {
                if (depth + 1 > w->limits->max_depth || depth + 1 >= ELEMENTSOF(w->path_dirs)) {
                        w->stats->skipped_deep++; /* the rest of the walk goes on */
                } else if ((fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
                        count_error(w, "a directory that could not be read");
                } else {
                        r = walk_dir(w, fd, &st, len, depth + 1);
                        fd = -1; /* walk_dir owns it */
                }
        } else if (S_ISLNK(st.st_mode)) {
                w->stats->links++;
        } else {
                w->stats->special++;
        }
out:
        if (fd >= 0)
                close(fd);
        w->path[path_len] = '\0';
        (void)dst;
        return r;
}

/* Walk directory DFD (owned: closed here) whose stat is DST and whose path is w->path[0..PATH_LEN). */
static int walk_dir(struct walk *w, int dfd, const struct stat *dst, size_t path_len, unsigned depth) {
        for (unsigned i = 0; i < depth; i++)
                if (w->path_dirs[i].dev == dst->st_dev && w->path_dirs[i].ino == dst->st_ino) {
                        w->stats->cycles++;
                        close(dfd);
                        return 0;
                }
        if (depth > 0 && dst->st_dev != w->path_dirs[depth - 1].dev) {
                struct statfs sf;
                if (fstatfs(dfd, &sf) == 0 && pseudo_filesystem((long)sf.f_type)) {
                        w->stats->pseudo++;
                        close(dfd);
                        return 0;
                }
        }
        w->path_dirs[depth].dev = dst->st_dev;
        w->path_dirs[depth].ino = dst->st_ino;
        DIR *d = fdopendir(dfd);
        if (!d) {
                int r = negative_errno();
                close(dfd);
                if (depth == 0)
                        return r;
                count_error(w, "a directory that could not be read");
                return 0;
        }
        w->stats->dirs++;
        int r = 0;
        for (;;) {
                errno = 0;
                struct dirent *de = readdir(d);
                if (!de) {
                        if (errno)
                                count_error(w, "a directory that could not be read");
                        break;
                }
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                if ((++w->visited & 63) == 0 && past_deadline(w)) {
                        w->stats->stopped_by = "time limit";
                        break;
                }
                if (w->stats->stopped_by)
                        break;
                r = visit(w, dirfd(d), dst, de->d_name, de->d_type, path_len, depth);
                if (r < 0)
                        break;
        }
        closedir(d);
        return r;
}

int xpu_walk(int root_fd, const struct xpu_walk_limits *limits, xpu_walk_cb cb, void *userdata,
             struct xpu_walk_stats *stats) {
        struct walk *w = calloc(1, sizeof *w);
        if (!w)
                return -ENOMEM;
        *stats = (struct xpu_walk_stats){ 0 };
        w->limits = limits;
        w->stats = stats;
        w->cb = cb;
        w->userdata = userdata;
        clock_gettime(CLOCK_MONOTONIC, &w->start);
        struct stat st;
        int r;
        int fd = openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                r = negative_errno();
        else if (fstat(fd, &st) < 0) {
                r = negative_errno();
                close(fd);
        } else
                r = walk_dir(w, fd, &st, 0, 0);
        free(w->seen.slots);
        free(w);
        return r;
}
