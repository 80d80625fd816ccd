/* SPDX-License-Identifier: Apache-2.0 */
/* The plain-text replies of isolated vendor helpers (isolate.h), both sides: the helper builds
 * its whole answer in a struct xpu_reply and writes it once; the parent parses it strictly with
 * struct xpu_reply_parser and a table of fields. Vendor-neutral; nothing here logs.
 *
 * Wire format: one "KEY VALUE" pair per line, KEY and VALUE separated by one blank, VALUE text:
 * printable ASCII, and in names UTF-8 (xpu_str_is_text(): no control character, nothing that is
 * not well-formed UTF-8; the helper replaces anything else), a last line "end" (a reply without
 * it was cut short); or, instead of all of it, one line "error ERRNO TEXT" with ERRNO a negative
 * errno. Per-device keys are "device.N.FIELD" with N a decimal index without leading zeros. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/macro.h"

/* Longest reply a helper builds and the parent accepts, in bytes. */
#define XPU_REPLY_MAX (256u * 1024u)
/* Longest line, in bytes. */
#define XPU_REPLY_LINE_MAX 512u

/* ---- helper side ---- */

struct xpu_reply {
        size_t len;
        bool overflow; /* a line did not fit: xpu_reply_send() sends an error instead */
        bool framed;   /* a session helper (isolate.h): xpu_reply_send() and xpu_reply_fail() write
                          the reply as one frame (xpu_isolate_session_send()); never reset by them */
        char buf[XPU_REPLY_MAX];
};

/* Append one formatted line part to R (no newline added). Overflow is remembered, not fatal. */
void xpu_reply_add(struct xpu_reply *r, const char *fmt, ...) _printf_(2, 3);
/* Replace every byte of S (SIZE bytes, NUL-terminated at SIZE-1 at the latest) outside printable
 * ASCII by '?', so one value stays one line. */
void xpu_reply_sanitize(char *s, size_t size);
/* Append "end", write R to OUT_FD. Returns the helper's exit status: 0 when written, 1 when the
 * write failed; an overflowed reply is replaced by "error -EMSGSIZE <WHAT> helper reply too long". */
int xpu_reply_send(struct xpu_reply *r, int out_fd, const char *what);
/* Replace R by the one line "error ERR TEXT" (TEXT from FMT, sanitized) and write it. ERR is a
 * negative errno. Returns the helper's exit status as xpu_reply_send(). */
int xpu_reply_fail(struct xpu_reply *r, int out_fd, int err, const char *fmt, ...) _printf_(4, 5);

/* ---- handing the driver root to a helper ----
 * xpu_isolate_run() closes every fd but the reply pipe, so a root directory travels by its path
 * (read back from /proc/self/fd) and identity; the helper reopens it and checks the identity. */
struct xpu_root_ref {
        char path[PATH_MAX];
        dev_t dev;
        ino_t ino;
};
/* Fill REF from the open directory FD. Returns 0, or -errno with ERR "cannot name the driver
 * root: ..." (-ENAMETOOLONG when the path does not fit or is not absolute). */
int xpu_root_ref_init(struct xpu_root_ref *ref, int fd, char *err, size_t err_size);
/* In the helper: reopen REF (xpu_open_root()). Returns the fd, -ESTALE when the directory there
 * now is another one, or -errno: -EACCES when the helper (nobody, no capabilities) may not search
 * the root or a directory above it (a root under /root, mode 0700). */
int xpu_root_ref_open(const struct xpu_root_ref *ref);
/* What to append to the message about a failed xpu_root_ref_open() returning ERR: for -EACCES and
 * -EPERM "; the vendor-library helper runs as nobody: make the driver root and its parent
 * directories searchable by others (chmod o+x)", else "" (static strings). E.g.
 * "cannot reopen the driver root %s: %s%s", path, strerror(-r), xpu_root_ref_hint(r). */
const char *xpu_root_ref_hint(int err);

/* ---- parent side ---- */

/* Run FN(ARG, OUT_FD) in an isolated helper (xpu_isolate_run(), timeout TIMEOUT_MS, 0 = 10 s;
 * reply at most XPU_REPLY_MAX bytes) and return its reply text in *RET (NUL-terminated, free()).
 * Errors: the runner's -errno with ERR = "<WHAT> helper " + its reason, e.g. "NVML helper timed
 * out after 10 s", "NVML helper killed by signal 6 (Aborted)", "NVML helper set-up failed at
 * setresuid: Operation not permitted", "NVML helper status lost (reaped elsewhere)";
 * -EBADMSG "garbage from the <WHAT> helper: NUL byte". */
int xpu_reply_run(int (*fn)(void *arg, int out_fd), void *arg, unsigned timeout_ms, const char *what, char **ret,
                  char *err, size_t err_size);

struct xpu_isolate_session;

/* The same for one request to a session helper (xpu_isolate_session_call(): REQUEST, e.g.
 * "sample", bounded by TIMEOUT_MS, 0 = the session's default): its framed reply text in *RET
 * (NUL-terminated, free()). Errors end the session and come back as the call's -errno with ERR =
 * "<WHAT> helper " + its reason ("NVML helper timed out after 10 s", "NVML helper killed by
 * signal 6 (Aborted)", "NVML helper has ended"); -EBADMSG "garbage from the <WHAT> helper: NUL
 * byte" (the session is still running then: the caller ends it). */
int xpu_reply_session_call(struct xpu_isolate_session *s, const char *request, unsigned timeout_ms, const char *what,
                           char **ret, char *err, size_t err_size);

struct xpu_reply_parser {
        const char *what;  /* "NVML": names the helper in messages */
        const char *next;  /* rest of the text */
        size_t line_no;
        bool ended;        /* "end" seen */
        char line[XPU_REPLY_LINE_MAX];
        const char *key;   /* of the current line; points into line */
        const char *value; /* of the current line, non-empty text (xpu_str_is_text()) */
};

/* Start parsing TEXT (NUL-terminated, kept alive by the caller). */
void xpu_reply_parser_init(struct xpu_reply_parser *p, const char *what, const char *text);
/* Advance to the next "KEY VALUE" line. Returns 1 with P->key and P->value set; 0 after the
 * "end" line when nothing follows it; the helper's own error with ERR = its TEXT when the first
 * line is "error ERRNO TEXT"; -EBADMSG with ERR "garbage from the <what> helper: line N" for
 * anything else (no "end", text after it, an empty value or one that is not text, a line without a
 * newline or longer than XPU_REPLY_LINE_MAX).
 *
 * The helper's ERRNO comes from code we do not trust, and callers act on errnos (-ENOMEM aborts a
 * whole probe, -ETIMEDOUT is reported as a timeout). Only these pass through unchanged: -ENOENT,
 * -EPROTO, -ENODEV, -EIO, -EPERM, -EACCES, -EOPNOTSUPP, -EBUSY, -ETIMEDOUT, -EMSGSIZE, -ESTALE,
 * -ENODATA, -ELIBBAD, -ENAMETOOLONG, -EXDEV; any other (-ENOMEM, -EINVAL, -EFAULT, ...) becomes
 * -EIO, with its TEXT kept. */
int xpu_reply_next(struct xpu_reply_parser *p, char *err, size_t err_size);
/* Report the current line as garbage: ERR "garbage from the <what> helper: line N"; returns
 * -EBADMSG. */
int xpu_reply_garbage(const struct xpu_reply_parser *p, char *err, size_t err_size);

/* Split a "device.N.FIELD" KEY with N < COUNT. Returns N and *FIELD, or -EINVAL. */
int xpu_reply_device_key(const char *key, size_t count, const char **field);

/* How a field's VALUE is checked and stored. */
enum xpu_reply_kind {
        XPU_REPLY_STR,    /* char[size], printable ASCII, must fit: identifiers, versions */
        XPU_REPLY_TEXT,   /* char[size], UTF-8 text (xpu_str_is_text()), must fit: names */
        XPU_REPLY_U32,    /* uint32_t, decimal */
        XPU_REPLY_U64,    /* uint64_t, decimal */
        XPU_REPLY_I64,    /* int64_t, decimal, optional '-' */
        XPU_REPLY_BUS_ID, /* char[XPU_PCI_BUS_ID_MAX], any form xpu_pci_bus_id_normalize() takes */
        XPU_REPLY_CC,     /* char[size], "major.minor", 1-2 digits each ("9.0") */
};

/* One row of a field table: KEY stored at OFFSET of the object, SIZE bytes, HAVE ORed into the
 * object's have word when set. */
struct xpu_reply_field {
        const char *key;
        enum xpu_reply_kind kind;
        size_t offset, size;
        uint32_t have;
};
#define XPU_REPLY_FIELD(key, kind, type, member, have)                                                        \
        { key, kind, offsetof(type, member), sizeof(((type *)0)->member), have }

/* Store VALUE into the field of TABLE (N rows) named KEY in OBJ, ORing its bit into *HAVE.
 * Returns 0, -ENOENT for an unknown key, -EINVAL for a value of the wrong form. */
int xpu_reply_set_field(void *obj, uint32_t *have, const struct xpu_reply_field *table, size_t n, const char *key,
                        const char *value);
