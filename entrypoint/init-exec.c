/* SPDX-License-Identifier: Apache-2.0 */
/* The workload's exec: the PATH search, and the one line that says why it failed (init-exec.h). */
#include "entrypoint/init-exec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/macro.h"
#include "base/strv.h"

int xpu_exec_search(char *const argv[], char *const envp[]) {
        const char *file = argv[0];
        if (!file || !*file)
                return -ENOENT;
        if (strchr(file, '/')) {
                execve(file, argv, envp);
                return negative_errno();
        }
        const char *path = xpu_env_get(envp, "PATH");
        if (!path)
                path = XPU_DEFAULT_PATH;
        bool denied = false;
        for (const char *p = path;;) {
                const char *end = strchrnul(p, ':');
                char buf[PATH_MAX]; /* longer candidates cannot exist: skipped */
                int n = end == p ? snprintf(buf, sizeof(buf), "%s", file)
                                 : snprintf(buf, sizeof(buf), "%.*s/%s", (int)(end - p), p, file);
                if (n > 0 && (size_t)n < sizeof(buf)) {
                        execve(buf, argv, envp);
                        switch (errno) {
                        case ENOENT: case ENOTDIR: case ESTALE: case ENODEV: case ETIMEDOUT:
                        case ENAMETOOLONG: case ELOOP:
                                break; /* not here: next directory */
                        case EACCES:
                                denied = true; /* remember, but a later one may work */
                                break;
                        default:
                                return negative_errno();
                        }
                }
                if (!*end)
                        break;
                p = end + 1;
        }
        return denied ? -EACCES : -ENOENT;
}

/* Hints for failed execs, after the errno's own text. */
static const struct {
        int err;
        const char *hint;
} xpu_exec_hints[] = {
        { EACCES, "not executable: check its mode, that it is not a directory, and that its "
                  "filesystem is not mounted noexec" },
        { ENOEXEC, "not a binary for this machine and no #! line" },
        { ETXTBSY, "the file is open for writing" },
        { E2BIG, "argument list and environment too large" },
};

int xpu_exec_report(char *const argv[], char *const envp[], bool setup, int err, const char *step) {
        const char *name = argv[0] ? argv[0] : "";
        if (setup) {
                log_error("cannot set up the workload \"%s\": %s%s%s", name, step ? step : "", step ? ": " : "",
                          strerror(err));
                return XPU_STATUS_SETUP;
        }
        if (err == ENOENT && !strchr(name, '/')) {
                const char *path = xpu_env_get(envp, "PATH");
                log_error("cannot run \"%s\": not found in PATH (%s); check the command name", name,
                          path ? path : XPU_DEFAULT_PATH);
                return XPU_STATUS_NOTFOUND;
        }
        if (err == ENOENT) {
                log_error("cannot run \"%s\": %s (or its #! interpreter or ELF loader is missing)",
                          name, strerror(err));
                return XPU_STATUS_NOTFOUND;
        }
        const char *hint = NULL;
        for (size_t i = 0; i < ELEMENTSOF(xpu_exec_hints); i++)
                if (xpu_exec_hints[i].err == err)
                        hint = xpu_exec_hints[i].hint;
        log_error("cannot run \"%s\": %s%s%s", name, strerror(err), hint ? "; " : "",
                  hint ? hint : "");
        return XPU_STATUS_NOEXEC;
}
