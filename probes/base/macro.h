/* SPDX-License-Identifier: Apache-2.0 */
/* Small helpers every file uses: cleanup attributes, ownership transfer, array sizes. */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

/* Take ownership of a pointer or fd: return the value and reset the variable, so the
 * cleanup attribute of the old owner does nothing. */
#define TAKE_PTR(p)                                                                                \
        ({                                                                                         \
                __typeof__(p) _tp_ = (p);                                                          \
                (p) = NULL;                                                                        \
                _tp_;                                                                              \
        })
#define TAKE_FD(fd)                                                                                \
        ({                                                                                         \
                int _tfd_ = (fd);                                                                  \
                (fd) = -EBADF;                                                                     \
                _tfd_;                                                                             \
        })

static inline void freep(void *p) {
        free(*(void **)p);
}
static inline void closep(const int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}
static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}
static inline void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}

#define _cleanup_(f)       __attribute__((cleanup(f)))
#define _cleanup_free_     _cleanup_(freep)
#define _cleanup_close_    _cleanup_(closep)
#define _cleanup_fclose_   _cleanup_(fclosep)
#define _cleanup_closedir_ _cleanup_(closedirp)

#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))

/* Negative errno from the last failed libc call; never 0, so callers can return it. */
static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EIO;
}
