/* SPDX-License-Identifier: Apache-2.0 */
/* The ELF reader of probes/libs (see libs.h): DT_SONAME, through the one reader of dynamic segments
 * (base/elf-dynamic.h). A fuzz target. Silent. */
#include "libs.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/elf-dynamic.h"
#include "base/macro.h"
#include "base/str.h"

struct soname {
        char *buf;
        size_t size;
        bool seen;
        int r;
};

/* The first DT_SONAME counts, as for the loader; an empty one is no SONAME. */
static int soname_cb(unsigned tag, const char *value, void *userdata) {
        struct soname *s = userdata;
        if (!s->seen) {
                s->seen = true;
                s->r = !value[0] ? -ENOENT : xpu_strlcpy(s->buf, value, s->size) < 0 ? -ENAMETOOLONG : 0;
        }
        return 0;
}

int xpu_elf_soname(int fd, char *buf, size_t size) {
        struct stat st;
        if (!buf || size == 0)
                return -EINVAL;
        buf[0] = '\0';
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        struct soname s = { .buf = buf, .size = size, .r = -ENOENT };
        int r = xpu_elf_dynamic_strings(fd, (uint64_t)st.st_size, false, true, soname_cb, &s, NULL);
        if (r == -ENOENT)
                return -ENOENT;
        if (r < 0)
                return r == -EBADMSG || r == -ENOEXEC ? -EINVAL : r;
        if (s.r < 0)
                buf[0] = '\0';
        return s.r;
}
