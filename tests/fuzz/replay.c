/* SPDX-License-Identifier: Apache-2.0 */
/* Corpus replay for `make check`: runs every file of one fuzz target's corpus through its
 * LLVMFuzzerTestOneInput() once, without libFuzzer, and prints TAP: "1..N", then
 * "ok N - <file>" per file, in name order. A crash (or an ASan report in `make asan`) kills the
 * program, which tests/run-tests.sh counts as a failure; an empty or unreadable corpus is
 * "not ok".
 *
 * Built once per target (tests/fuzz/fuzz.mk) with -DFUZZ_TARGET="<target>" and
 * -DCORPUS_DIR="<source dir>/tests/fuzz/corpus/<target>". The corpus is
 * $XPU_SRCDIR/tests/fuzz/corpus/<target> when XPU_SRCDIR is set (the test runner sets it, so a
 * moved tree still works), else CORPUS_DIR. Arguments, when given, are files to replay instead
 * (a crash reproducer: build-fuzz/tests/test-fuzz-select crash-1234). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/macro.h"
#include "fuzz.h"

#ifndef FUZZ_TARGET
#error "build with -DFUZZ_TARGET=\"<target>\""
#endif
#ifndef CORPUS_DIR
#error "build with -DCORPUS_DIR=\"<corpus directory>\""
#endif

/* Largest corpus file replayed, in bytes (the corpus rules say < 64 KiB). */
#define REPLAY_FILE_MAX (1024 * 1024)

/* Read the regular file PATH (relative to DIR_FD) into a malloc'ed buffer of exactly its size, so
 * ASan catches a read past the input as libFuzzer's copy would. Returns the size or -errno. */
static ssize_t read_input(int dir_fd, const char *path, uint8_t **ret) {
        _cleanup_close_ int fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return negative_errno();
        struct stat st;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        if (st.st_size > REPLAY_FILE_MAX)
                return -EFBIG;
        size_t size = (size_t)st.st_size;
        _cleanup_free_ uint8_t *buf = malloc(size ? size : 1);
        if (!buf)
                return -ENOMEM;
        size_t done = 0;
        while (done < size) {
                ssize_t n = read(fd, buf + done, size - done);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return negative_errno();
                if (n == 0)
                        return -EIO; /* the file shrank while read */
                done += (size_t)n;
        }
        *ret = TAKE_PTR(buf);
        return (ssize_t)size;
}

/* Replay one file; prints its TAP line. Returns 0 when it ran, -errno when it could not be read. */
static int replay_one(unsigned number, int dir_fd, const char *path) {
        _cleanup_free_ uint8_t *data = NULL;
        ssize_t size = read_input(dir_fd, path, &data);
        if (size < 0) {
                printf("not ok %u - %s: cannot read: %s\n", number, path, strerror((int)-size));
                return (int)size;
        }
        (void)LLVMFuzzerTestOneInput(data, (size_t)size);
        printf("ok %u - %s (%zd bytes)\n", number, path, size);
        fflush(stdout);
        return 0;
}

static int skip_hidden(const struct dirent *d) {
        return d->d_name[0] != '.';
}

int main(int argc, char **argv) {
        if (argc > 1) {
                printf("1..%d\n", argc - 1);
                int failed = 0;
                for (int i = 1; i < argc; i++)
                        failed |= replay_one((unsigned)i, AT_FDCWD, argv[i]) < 0;
                return failed;
        }

        char dir[PATH_MAX];
        const char *src = getenv("XPU_SRCDIR");
        if (src && src[0])
                snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/%s", src, FUZZ_TARGET);
        else
                snprintf(dir, sizeof dir, "%s", CORPUS_DIR);

        _cleanup_close_ int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct dirent **names = NULL;
        int n = dir_fd < 0 ? -1 : scandir(dir, &names, skip_hidden, alphasort);
        if (n <= 0) {
                printf("1..1\nnot ok 1 - fuzz-%s corpus %s: %s\n", FUZZ_TARGET, dir,
                       n == 0 ? "no files" : strerror(errno));
                free(names);
                return 1;
        }
        printf("# fuzz-%s: %d files from %s\n1..%d\n", FUZZ_TARGET, n, dir, n);
        int failed = 0;
        for (int i = 0; i < n; i++) {
                failed |= replay_one((unsigned)i + 1, dir_fd, names[i]->d_name) < 0;
                free(names[i]);
        }
        free(names);
        return failed;
}
