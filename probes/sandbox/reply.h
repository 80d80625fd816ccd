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
        XPU_REPLY_PERCENT, /* uint32_t, decimal, 0..100 */
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

/* The value of a "library PATH" reply line into DST (PATH_MAX bytes). Returns 0, or -EINVAL when
 * it is not an absolute path or does not fit (the reader reports the line). */
int xpu_reply_parse_library(const char *value, char dst[PATH_MAX]);
/* The value of a "devices_total N" reply line, which a helper sends after "device_count COUNT"
 * when the library listed more devices than the reply holds: N must be a decimal number above
 * COUNT, and COUNT must be the reader's limit MAX. Returns 0 with *RET, or -EINVAL. */
int xpu_reply_parse_devices_total(const char *value, size_t count, size_t max, size_t *ret);

/* ---- the reader of a whole device-list reply (NVML, CUDA, ROCm SMI) ----
 *
 * Every vendor-library reply is a head, "library PATH", "device_count N" (N at most the reader's
 * limit), "devices_total T" (only after a full "device_count", T above it) and the vendor's own
 * head keys, then "device.N.FIELD VALUE" lines (only after "device_count", N below it). A vendor
 * describes its reply in a struct xpu_reply_spec: its head keys, its device struct and field
 * table, and hooks for what a table cannot say; xpu_reply_read() does the rest and words every
 * message. Any line it cannot take (an unknown or repeated head key, a head key out of order, a
 * value the key's setter or field refuses, a device line before "device_count" or for a device
 * not below it) is "garbage from the <what> helper: line N". */

/* Most devices a reply may list (the largest reader limit, ROCm SMI's 128). */
#define XPU_REPLY_DEVICES_MAX 128u

/* A vendor's own head key: KEY, at most once; with BEFORE_COUNT only before "device_count". SET
 * stores VALUE (non-empty text) into the vendor's result: 0, or -EINVAL for a bad value. */
struct xpu_reply_key {
        const char *key;
        bool before_count;
        int (*set)(void *result, const char *value);
};

struct xpu_reply_spec {
        const char *what; /* "NVML": names the helper in messages */
        const struct xpu_reply_key *keys;
        size_t n_keys;
        size_t devices_max;  /* the reader's limit, at most XPU_REPLY_DEVICES_MAX */
        size_t device_size;  /* bytes of one device in the caller's array */
        size_t have_offset;  /* of the device's uint32_t have word, which FIELDS' bits are ORed into */
        const struct xpu_reply_field *fields; /* the device fields stored as they are */
        size_t n_fields;     /* at most 32 */
        bool fields_once;    /* a table field given twice for one device is garbage */
        /* Tried before the table for each device line: store FIELD's VALUE into DEVICE, 0; -ENOENT
         * when FIELD is not one it knows (the table is tried); -EINVAL garbage. NULL: none. */
        int (*device_line)(void *device, const char *field, const char *value);
        /* After "end", for each device I below the count in order: checks across fields, the wire's
         * units to the result's. 0, or -EBADMSG with ERR set. NULL: none. */
        int (*device_end)(void *device, size_t i, char *err, size_t err_size);
        /* Neither "library" nor "device_count" came: name device_count (else library). */
        bool name_count_first;
};

/* Where xpu_reply_read() puts what it reads. */
struct xpu_reply_out {
        void *result;   /* handed to the head keys' SET */
        char *library;  /* PATH_MAX bytes: the "library" value */
        void *devices;  /* SPEC->devices_max devices of SPEC->device_size bytes, zeroed by the caller */
        size_t count;   /* out: "device_count" */
        size_t total;   /* out: "devices_total", else the count */
};

/* Read the helper's reply TEXT (NUL-terminated) as SPEC describes into OUT. Returns 0; the
 * helper's own error (xpu_reply_next()) with ERR = its TEXT; -EBADMSG with ERR "garbage from the
 * <what> helper: line N", "garbage from the <what> helper: no library" (or "no device_count"), or
 * SPEC->device_end's message. */
int xpu_reply_read(const struct xpu_reply_spec *spec, const char *text, struct xpu_reply_out *out, char *err,
                   size_t err_size);
