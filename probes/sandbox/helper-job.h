/* SPDX-License-Identifier: Apache-2.0 */
/* The frame every vendor-library reader (NVML, the CUDA driver API, ROCm SMI) shares
 * around its own calls: on the parent side, hand the driver root (and the kernel module's version
 * the library must carry) to an isolated helper and collect its reply (xpu_helper_job_run()); in
 * the helper, reopen the driver root, load the library and bind its symbols, answering with an
 * error reply when any step fails (xpu_helper_job_load()); and the helper-side cleaning that keeps
 * a library's odd string from turning the whole reply into garbage (xpu_helper_clean_string()).
 *
 * Vendor-neutral: the vendor files keep their library calls and their wire keys; the parent reads
 * the reply with the table-driven reader of reply.h (xpu_reply_read()). Built on isolate.h (the helper process), reply.h (its wire format) and dl.h (loading).
 * Nothing here logs. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/dl.h"
#include "sandbox/reply.h"

/* What the parent hands to its helper (the child gets it as a copy through fork()). */
struct xpu_helper_job {
        struct xpu_root_ref root; /* the driver root, reopened in the helper (fds do not survive) */
        bool check_version;       /* the library's file name must carry DRIVER_VERSION */
        char driver_version[64];  /* the running kernel module's version ("550.90.07") when checked */
        bool dirs_first;          /* xpu_helper_job_load()'s EXTRA_DIRS before the loader cache and the
                                   * standard directories (xpu_dl_open_dirs_first(); WSL2) */
};

/* Parent side. Fill JOB from DRIVER_ROOT_FD (an open directory) and DRIVER_VERSION, run
 * FN(JOB, OUT_FD) in an isolated helper bounded by TIMEOUT_MS (0 = 10 s; xpu_reply_run(), which
 * prefixes the runner's reasons with "<WHAT> helper") and return its reply text in *RET_REPLY
 * (NUL-terminated; free()) for the vendor's parser.
 *
 * DRIVER_VERSION NULL: the library's file name carries no driver version (ROCm SMI), no check.
 * Otherwise it must be a driver version (xpu_is_driver_version(): digits and dots), and the
 * helper then loads only a library whose file-name version equals it (xpu_helper_job_load()).
 * Callers check DRIVER_VERSION first with their own message; this refusal is the backstop.
 *
 * ERR may be NULL. Returns 0; -EINVAL with ERR "invalid arguments" (DRIVER_ROOT_FD < 0, FN, JOB,
 * WHAT or RET_REPLY NULL) or "driver version too long"; -ENODATA with ERR "no driver version to
 * check the library against"; xpu_root_ref_init()'s -errno ("cannot name the driver root: ...");
 * xpu_reply_run()'s -errno ("NVML helper timed out after 10 s", "garbage from the NVML helper:
 * NUL byte", ...). */
int xpu_helper_job_run(int (*fn)(void *job, int out_fd), struct xpu_helper_job *job, const char *what,
                       unsigned timeout_ms, int driver_root_fd, const char *driver_version, char **ret_reply,
                       char *err, size_t err_size);

/* Parent side, the first half of xpu_helper_job_run() for callers that start the helper
 * themselves (a session helper, isolate.h): fill JOB from DRIVER_ROOT_FD and DRIVER_VERSION with
 * the same rules and errors (-EINVAL, -ENODATA, xpu_root_ref_init()'s). Returns 0 or -errno. */
int xpu_helper_job_prepare(struct xpu_helper_job *job, int driver_root_fd, const char *driver_version, char *err,
                           size_t err_size);

/* Helper side. Reopen JOB's driver root (xpu_root_ref_open()), find and load the first of SONAMES
 * (NULL-terminated) in it: with JOB->check_version through xpu_dl_open_version() against
 * JOB->driver_version (a mismatching library is never loaded; EXTRA_DIRS must then be NULL), else
 * through xpu_dl_open_dirs() with EXTRA_DIRS (may be NULL; xpu_dl_open_dirs_first() when
 * JOB->dirs_first); then bind the N entries of SYMS
 * (xpu_dl_bind()). On success add the reply line "library PATH" to R, PATH being the loaded
 * file's path inside the driver root as LOADED holds it (PATH_MAX bytes; a path too long for one
 * reply line is sent as "/.../<file name>"), and return 0 with *RET_HANDLE (never dlclose()d: the
 * helper exits).
 *
 * On failure the one error line has been written to OUT_FD (xpu_reply_fail()); returns the
 * -errno and sets *STATUS to the exit status the helper must return:
 *   -ESTALE, -ENOENT, -EACCES ...  "cannot reopen the driver root /x: it changed under the helper"
 *                                  (or strerror)
 *   -ENODATA    "not loading libnvidia-ml.so.1: no driver version to check its file name against"
 *               (check_version without a version: never loads unchecked)
 *   what xpu_dl_open*() return: -ENOENT "not available: ...", -EPROTO "driver/library version
 *               mismatch: ...", -ELIBBAD "cannot load ...", with their messages
 *   -ENOENT     "PATH: symbol nvmlInit_v2 (or nvmlInit) not found: ..." from xpu_dl_bind()
 *   -EINVAL     bad arguments. */
int xpu_helper_job_load(const struct xpu_helper_job *job, const char *const *sonames, const char *const *extra_dirs,
                        const struct xpu_dl_symbol *syms, size_t n, void **ret_handle, char loaded[PATH_MAX],
                        struct xpu_reply *r, int out_fd, int *status);

/* Helper side: make a string a library wrote into BUF (SIZE bytes; it may have filled all of
 * them without a NUL) fit the parent's field of FIELD_SIZE bytes (char[FIELD_SIZE], NUL
 * included) and one reply line: NUL-terminate at SIZE - 1 and strip blanks at both ends. MAY_CUT
 * is a name ("NVIDIA RTX™ A6000"): UTF-8 kept, every byte that is not well-formed UTF-8 and every
 * control character U+FFFD (xpu_utf8_sanitize()), and when longer than FIELD_SIZE - 1 bytes (or
 * SIZE - 1), cut at a character boundary: its start is still the name. Otherwise an identifier:
 * every byte outside printable ASCII '?' (xpu_reply_sanitize()), and when it is longer than
 * FIELD_SIZE - 1 bytes, emptied (an identifier cut short would name something else). Returns true
 * when a value is left to send, false when nothing is (empty, or too long and not MAY_CUT): leave
 * the line out. */
bool xpu_helper_clean_string(char *buf, size_t size, size_t field_size, bool may_cut);

