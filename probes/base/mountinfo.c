/* SPDX-License-Identifier: Apache-2.0 */
/* The origin of a tmpfs on a write target's way (mountinfo.h, docs/safe-paths.md). */
#include "mountinfo.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "procfs.h"
#include "str.h"

/* Copy the space-separated field at *P into OUT (SIZE bytes), decoding the kernel's octal
 * escapes (show_mountinfo() escapes space, tab, newline and backslash as \ooo); advance *P past
 * it and the space after it. Returns 0, or -EINVAL for an empty field or one that does not fit. */
static int next_field(const char **p, char *out, size_t size) {
        const char *s = *p;
        size_t n = 0;
        while (*s && *s != ' ' && *s != '\n') {
                char c = *s++;
                if (c == '\\' && s[0] >= '0' && s[0] <= '3' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' &&
                    s[2] <= '7') {
                        c = (char)((s[0] - '0') << 6 | (s[1] - '0') << 3 | (s[2] - '0'));
                        s += 3;
                }
                if (n + 1 >= size)
                        return -EINVAL;
                out[n++] = c;
        }
        if (n == 0)
                return -EINVAL;
        out[n] = '\0';
        if (*s == ' ')
                s++;
        *p = s;
        return 0;
}

int xpu_mountinfo_parse_line(const char *line, struct xpu_mount_entry *ret) {
        char f[PATH_MAX];
        const char *p = line;
        struct xpu_mount_entry e = { 0 };
        uint64_t v;
        char *colon, *end;

        if (next_field(&p, f, sizeof f) < 0 || xpu_parse_u64(f, 10, &e.id) < 0)
                return -EINVAL;
        if (next_field(&p, f, sizeof f) < 0) /* (2) parent ID */
                return -EINVAL;
        if (next_field(&p, f, sizeof f) < 0 || !(colon = strchr(f, ':')))
                return -EINVAL;
        *colon = '\0';
        errno = 0;
        unsigned long mj = strtoul(f, &end, 10);
        if (errno || end == f || *end)
                return -EINVAL;
        if (xpu_parse_u64(colon + 1, 10, &v) < 0 || mj > UINT32_MAX || v > UINT32_MAX)
                return -EINVAL;
        e.major = (unsigned)mj;
        e.minor = (unsigned)v;
        if (next_field(&p, e.root, sizeof e.root) < 0 || next_field(&p, e.point, sizeof e.point) < 0)
                return -EINVAL;
        /* (6) options, (7) optional fields up to "-", then the filesystem type */
        if (next_field(&p, f, sizeof f) < 0)
                return -EINVAL;
        for (;;) {
                if (next_field(&p, f, sizeof f) < 0)
                        return -EINVAL;
                if (strcmp(f, "-") == 0)
                        break;
                if (xpu_startswith(f, "master:") && (xpu_parse_u64(f + 7, 10, &e.master) < 0 || e.master == 0))
                        return -EINVAL;
        }
        if (next_field(&p, e.fstype, sizeof e.fstype) < 0)
                return -EINVAL;
        *ret = e;
        return 0;
}

int xpu_process_start_realtime_ns(const char *path, int64_t *ret) {
        struct xpu_proc_stat st;
        int r = xpu_proc_stat_read_file(path, &st);
        if (r < 0)
                return r == -EBADMSG ? -EINVAL : r;
        long hz = sysconf(_SC_CLK_TCK);
        if (hz <= 0 || st.starttime > (uint64_t)(INT64_MAX / 1000000000) * (uint64_t)hz)
                return -EINVAL;
        struct timespec rt, bt;
        if (clock_gettime(CLOCK_REALTIME, &rt) < 0 || clock_gettime(CLOCK_BOOTTIME, &bt) < 0)
                return negative_errno();
        int64_t boot_rt = ((int64_t)rt.tv_sec - bt.tv_sec) * 1000000000 + (rt.tv_nsec - bt.tv_nsec);
        *ret = boot_rt + (int64_t)(st.starttime / (uint64_t)hz) * 1000000000 +
               (int64_t)(st.starttime % (uint64_t)hz) * 1000000000 / hz;
        return 0;
}

/* A runtime makes its tmpfs after the container's first process started (runc and crun mount in
 * that process before they exec), so its root is born after it. The allowance covers the start
 * time's resolution (one clock tick, 10 ms at 100 Hz) and clock adjustments since. */
#define XPU_TMPFS_BIRTH_SLACK_NS (50 * 1000000LL)

int xpu_tmpfs_origin(int fd, uint64_t mnt_id, const char *mountinfo, const char *init_stat, bool inside,
                     struct xpu_tmpfs_verdict *ret) {
        _cleanup_fclose_ FILE *f = fopen(mountinfo, "re");
        if (!f)
                return negative_errno();
        _cleanup_free_ char *line = NULL;
        size_t cap = 0;
        struct xpu_mount_entry self, e;
        bool found = false;
        /* Two passes over one read would need the whole file in memory; mountinfo is small in a
         * container and a few hundred lines on a host: read it twice. */
        /* Kernels before 5.8 have no mount ID: fileio-beneath.c then passes st_dev with bit 63
         * set, and the first mount of that filesystem stands for it. */
        bool by_dev = mnt_id >> 63;
        unsigned dev_major = (unsigned)(mnt_id >> 32 & 0x7fffffff), dev_minor = (unsigned)mnt_id;
        while (getline(&line, &cap, f) > 0)
                if (xpu_mountinfo_parse_line(line, &e) == 0 &&
                    (by_dev ? e.major == dev_major && e.minor == dev_minor : e.id == mnt_id)) {
                        self = e;
                        found = true;
                        break;
                }
        *ret = (struct xpu_tmpfs_verdict){ .origin = XPU_TMPFS_UNKNOWN };
        if (!found) {
                snprintf(ret->detail, sizeof ret->detail, "%s has no line for it", mountinfo);
                return 0;
        }
        if (strcmp(self.root, "/") != 0) {
                ret->origin = XPU_TMPFS_SUBDIR;
                xpu_strlcpy(ret->detail, self.root, sizeof ret->detail);
                return 0;
        }
        if (self.master) {
                ret->origin = XPU_TMPFS_PROPAGATED;
                snprintf(ret->detail, sizeof ret->detail, "master:%" PRIu64, self.master);
                return 0;
        }
        rewind(f);
        while (getline(&line, &cap, f) > 0) {
                if (xpu_mountinfo_parse_line(line, &e) < 0) {
                        /* It could be that other mount of the same tmpfs (a mount point longer
                         * than PATH_MAX): refuse rather than miss it. */
                        snprintf(ret->detail, sizeof ret->detail, "%s has a line it cannot read", mountinfo);
                        return 0;
                }
                if (e.id != self.id && e.major == self.major && e.minor == self.minor &&
                    strcmp(e.point, self.point) != 0) {
                        /* The same superblock somewhere else (a stacked mount of it on the same
                         * point is not "elsewhere"). */
                        ret->origin = XPU_TMPFS_SHARED;
                        xpu_strlcpy(ret->detail, e.point, sizeof ret->detail);
                        return 0;
                }
        }
        bool birth_rule = !xpu_startswith(init_stat, "/proc/") || xpu_proc_self_is(getpid());
        if (!birth_rule && inside) {
                /* through a call: an inlined copy stores the text in pieces, which reads to
                 * lintian's spelling check as broken words */
                xpu_strlcpy(ret->detail, "/proc is another PID namespace's, so PID 1's start says nothing of this "
                                         "container", sizeof ret->detail);
                return 0;
        }
        struct statx stx;
        int64_t init_ns;
        if (birth_rule && statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_BTIME, &stx) == 0 &&
            (stx.stx_mask & STATX_BTIME) && xpu_process_start_realtime_ns(init_stat, &init_ns) == 0) {
                int64_t born = (int64_t)stx.stx_btime.tv_sec * 1000000000 + stx.stx_btime.tv_nsec;
                if (born < init_ns - XPU_TMPFS_BIRTH_SLACK_NS) {
                        ret->origin = XPU_TMPFS_OLDER;
                        snprintf(ret->detail, sizeof ret->detail, "%.1f s", (double)(init_ns - born) / 1e9);
                        return 0;
                }
        }
        ret->origin = XPU_TMPFS_OWN;
        return 0;
}
