/* SPDX-License-Identifier: Apache-2.0 */
/* /proc readers of the supervisor (init-procs.h). */
#include "init-procs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/macro.h"
#include "base/str.h"

/* Longest children list read, in bytes ("PID " per child): about 100,000 children. */
#define CHILDREN_MAX (1024u * 1024u)

/* A decimal pid spanning the whole of S (a /proc directory entry). 0 when it is not one. */
static pid_t parse_pid(const char *s) {
        uint64_t v = 0;
        if (!s[0] || s[0] < '1' || s[0] > '9' || xpu_parse_u64(s, 10, &v) < 0 || v > INT32_MAX)
                return 0;
        return (pid_t)v;
}

int xpu_proc_signal_action(pid_t pid, int sig) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
        static const struct {
                const char *key;
                enum xpu_signal_action action;
        } lines[] = { { "SigIgn", XPU_SIGNAL_IGNORED }, { "SigCgt", XPU_SIGNAL_CAUGHT } };
        enum xpu_signal_action action = XPU_SIGNAL_DEFAULT;
        for (size_t i = 0; i < ELEMENTSOF(lines); i++) {
                uint64_t mask = 0;
                int r = xpu_proc_status_mask(path, lines[i].key, &mask);
                if (r < 0)
                        return r == -ENOENT && access(path, F_OK) == 0 ? -EBADMSG : r;
                if (sig >= 1 && sig <= 64 && (mask & (UINT64_C(1) << (sig - 1))))
                        action = lines[i].action;
        }
        return action;
}

int xpu_proc_pgrp_orphaned(pid_t pgrp, pid_t sid) {
        _cleanup_closedir_ DIR *d = opendir("/proc");
        if (!d)
                return negative_errno();
        for (struct dirent *de; (de = readdir(d));) {
                pid_t pid = parse_pid(de->d_name);
                struct xpu_proc_stat member, parent;
                if (pid == 0 || xpu_proc_stat_read(pid, &member) < 0 || member.pgrp != pgrp ||
                    member.state == 'Z' || member.ppid <= 0)
                        continue; /* gone meanwhile, another group, a zombie, or a parent we cannot see */
                if (xpu_proc_stat_read(member.ppid, &parent) == 0 && parent.pgrp != pgrp && parent.session == sid)
                        return 0; /* that parent's shell can continue the group: job control applies */
        }
        return 1;
}

/* Add PID to *LIST (*N entries, *CAP allocated). Returns 0 or -ENOMEM. */
static int pid_list_add(pid_t **list, size_t *n, size_t *cap, pid_t pid) {
        if (*n == *cap) {
                size_t ncap = *cap ? *cap * 2 : 16;
                pid_t *l = realloc(*list, ncap * sizeof(pid_t));
                if (!l)
                        return -ENOMEM;
                *list = l;
                *cap = ncap;
        }
        (*list)[(*n)++] = pid;
        return 0;
}

/* The children of every thread from the children files. -ENOENT when the kernel has none
 * (CONFIG_PROC_CHILDREN off). */
static int children_from_tasks(pid_t **list, size_t *n, size_t *cap) {
        _cleanup_closedir_ DIR *d = opendir("/proc/self/task");
        if (!d)
                return negative_errno();
        for (struct dirent *de; (de = readdir(d));) {
                pid_t tid = parse_pid(de->d_name);
                if (tid == 0)
                        continue;
                char path[64];
                snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)tid);
                _cleanup_free_ char *buf = NULL;
                ssize_t len = xpu_proc_read_alloc(path, CHILDREN_MAX, &buf);
                if (len == -ESRCH)
                        continue; /* the thread ended meanwhile */
                if (len < 0)
                        return (int)len;
                for (char *p = buf, *tok; (tok = strsep(&p, " \n"));) {
                        pid_t pid = parse_pid(tok);
                        if (pid > 0 && pid_list_add(list, n, cap, pid) < 0)
                                return -ENOMEM;
                }
        }
        return 0;
}

/* The children by their ppid, from every /proc/PID/stat. */
static int children_from_stat(pid_t self, pid_t **list, size_t *n, size_t *cap) {
        _cleanup_closedir_ DIR *d = opendir("/proc");
        if (!d)
                return negative_errno();
        for (struct dirent *de; (de = readdir(d));) {
                pid_t pid = parse_pid(de->d_name);
                struct xpu_proc_stat st;
                if (pid > 0 && xpu_proc_stat_read(pid, &st) == 0 && st.ppid == self &&
                    pid_list_add(list, n, cap, pid) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int xpu_proc_children(pid_t self, pid_t **ret, size_t *ret_n) {
        if (!xpu_proc_self_is(self))
                return -ENOENT; /* another pid namespace's /proc (or none): its numbers are not ours */
        _cleanup_free_ pid_t *list = NULL;
        size_t n = 0, cap = 0;
        int r = children_from_tasks(&list, &n, &cap);
        if (r == -ENOENT) {
                n = 0;
                r = children_from_stat(self, &list, &n, &cap);
        }
        if (r < 0)
                return r;
        *ret = TAKE_PTR(list);
        *ret_n = n;
        return 0;
}
