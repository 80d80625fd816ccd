/* SPDX-License-Identifier: Apache-2.0 */
/* A filesystem that reports no file types (tests/attack/audit.sh): preloaded, readdir(3) says
 * DT_UNKNOWN for every entry, as XFS without ftype, some FUSE and network filesystems do, so a
 * walker must find out what an entry is before it opens it. */
#define _GNU_SOURCE 1
#include <dirent.h>
#include <dlfcn.h>
#include <stddef.h>

struct dirent *readdir(DIR *d) {
        static struct dirent *(*real)(DIR *);
        if (!real)
                real = (struct dirent * (*)(DIR *)) dlsym(RTLD_NEXT, "readdir");
        struct dirent *e = real ? real(d) : NULL;
        if (e)
                e->d_type = DT_UNKNOWN;
        return e;
}

struct dirent64 *readdir64(DIR *d) {
        static struct dirent64 *(*real)(DIR *);
        if (!real)
                real = (struct dirent64 * (*)(DIR *)) dlsym(RTLD_NEXT, "readdir64");
        struct dirent64 *e = real ? real(d) : NULL;
        if (e)
                e->d_type = DT_UNKNOWN;
        return e;
}
