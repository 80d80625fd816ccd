/* SPDX-License-Identifier: Apache-2.0 */
/* Plain-text replies of isolated vendor helpers: see reply.h. */
#include "sandbox/reply.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/fileio.h"
#include "base/path.h"
#include "base/str.h"
#include "sandbox/isolate.h"
#include "base/pci.h"
#include "base/macro.h"

/* ---- helper side ---- */

void xpu_reply_add(struct xpu_reply *r, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(r->buf + r->len, sizeof(r->buf) - r->len, fmt, ap);
        va_end(ap);
        if (n < 0 || (size_t)n >= sizeof(r->buf) - r->len)
                r->overflow = true;
        else
                r->len += (size_t)n;
}

void xpu_reply_sanitize(char *s, size_t size) {
        if (size == 0)
                return;
        s[size - 1] = '\0';
        for (; *s; s++)
                if (*s < 0x20 || *s > 0x7e)
                        *s = '?';
}

/* Write R's text to OUT_FD: as one frame for a session helper, else as it is. 0 or -errno. */
static int reply_write(const struct xpu_reply *r, int out_fd) {
        return r->framed ? xpu_isolate_session_send(out_fd, r->buf, r->len) : xpu_write_full(out_fd, r->buf, r->len);
}

int xpu_reply_fail(struct xpu_reply *r, int out_fd, int err, const char *fmt, ...) {
        char text[XPU_REPLY_LINE_MAX - 32];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(text, sizeof(text), fmt, ap);
        va_end(ap);
        xpu_reply_sanitize(text, sizeof(text));
        r->len = 0;
        r->overflow = false;
        xpu_reply_add(r, "error %d %s\n", err < 0 ? err : -EIO, text);
        return reply_write(r, out_fd) < 0 ? 1 : 0;
}

int xpu_reply_send(struct xpu_reply *r, int out_fd, const char *what) {
        xpu_reply_add(r, "end\n");
        if (r->overflow)
                return xpu_reply_fail(r, out_fd, -EMSGSIZE, "%s helper reply too long", what);
        return reply_write(r, out_fd) < 0 ? 1 : 0;
}

/* ---- the driver root handoff ---- */

int xpu_root_ref_init(struct xpu_root_ref *ref, int fd, char *err, size_t err_size) {
        char proc[64];
        struct stat st;
        memset(ref, 0, sizeof(*ref));
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        ssize_t n = fd < 0 ? -1 : readlink(proc, ref->path, sizeof(ref->path) - 1);
        if (n < 0 || fstat(fd, &st) < 0) {
                int e = fd < 0 ? -EBADF : -errno;
                snprintf(err, err_size, "cannot name the driver root: %s", strerror(-e));
                return e;
        }
        if ((size_t)n >= sizeof(ref->path) - 1 || ref->path[0] != '/') {
                snprintf(err, err_size, "cannot name the driver root: not an absolute path that fits");
                return -ENAMETOOLONG;
        }
        ref->path[n] = '\0';
        ref->dev = st.st_dev;
        ref->ino = st.st_ino;
        return 0;
}

int xpu_root_ref_open(const struct xpu_root_ref *ref) {
        struct stat st;
        int fd = xpu_open_root(ref->path);
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0 || st.st_dev != ref->dev || st.st_ino != ref->ino) {
                close(fd);
                return -ESTALE;
        }
        return fd;
}

const char *xpu_root_ref_hint(int err) {
        if (err == -EACCES || err == -EPERM)
                return "; the vendor-library helper runs as nobody: make the driver root and its parent "
                       "directories searchable by others (chmod o+x)";
        return "";
}

/* ---- parent side ---- */

int xpu_reply_run(int (*fn)(void *arg, int out_fd), void *arg, unsigned timeout_ms, const char *what, char **ret,
                  char *err, size_t err_size) {
        char reason[256];
        struct xpu_isolate_options o = XPU_ISOLATE_OPTIONS_DEFAULT;
        if (timeout_ms)
                o.timeout_ms = timeout_ms;
        o.max_reply_bytes = XPU_REPLY_MAX;
        void *reply = NULL;
        size_t len = 0;
        int r = xpu_isolate_run(fn, arg, &o, &reply, &len, reason, sizeof(reason));
        if (r < 0) {
                snprintf(err, err_size, "%s helper %s", what, reason);
                return r;
        }
        if (strlen(reply) != len) {
                free(reply);
                snprintf(err, err_size, "garbage from the %s helper: NUL byte", what);
                return -EBADMSG;
        }
        *ret = reply;
        return 0;
}

int xpu_reply_session_call(struct xpu_isolate_session *s, const char *request, unsigned timeout_ms, const char *what,
                           char **ret, char *err, size_t err_size) {
        char reason[256];
        void *reply = NULL;
        size_t len = 0;
        int r = xpu_isolate_session_call(s, request, timeout_ms, &reply, &len, reason, sizeof(reason));
        if (r < 0) {
                snprintf(err, err_size, "%s helper %s", what, reason);
                return r;
        }
        if (strlen(reply) != len) {
                free(reply);
                snprintf(err, err_size, "garbage from the %s helper: NUL byte", what);
                return -EBADMSG;
        }
        *ret = reply;
        return 0;
}

void xpu_reply_parser_init(struct xpu_reply_parser *p, const char *what, const char *text) {
        *p = (struct xpu_reply_parser){ .what = what, .next = text };
}

int xpu_reply_garbage(const struct xpu_reply_parser *p, char *err, size_t err_size) {
        snprintf(err, err_size, "garbage from the %s helper: line %zu", p->what, p->line_no);
        return -EBADMSG;
}

/* The errnos a helper's "error" line may carry through to the caller (reply.h). Anything else
 * (-ENOMEM, -EINVAL, -EFAULT, -EAGAIN, ...) could be taken for the caller's own failure. */
static const int helper_errnos[] = {
        ENOENT,       /* library or symbol not found */
        EPROTO,       /* driver/library version mismatch */
        ENODEV,       /* driver not loaded, no device */
        EIO,          /* any other vendor error */
        EPERM,        /* the vendor's "no permission" */
        EACCES,       /* the helper (nobody) may not read something */
        EOPNOTSUPP,   /* not supported */
        EBUSY,        /* the vendor's lock is held */
        ETIMEDOUT,    /* the vendor's own timeout */
        EMSGSIZE,     /* reply too long */
        ESTALE,       /* the driver root changed under the helper */
        ENODATA,      /* no version in the library's file name */
        ELIBBAD,      /* dlopen() failed */
        ENAMETOOLONG, /* a path did not fit */
        EXDEV,        /* a root the backend cannot use */
};

static int helper_errno(int64_t e) {
        for (size_t i = 0; i < ELEMENTSOF(helper_errnos); i++)
                if (e == -helper_errnos[i])
                        return (int)e;
        return -EIO;
}

/* The "error ERRNO TEXT" line of a helper that failed. */
static int parse_error_line(const char *value, char *err, size_t err_size) {
        int64_t e = 0;
        const char *sp = strchr(value, ' ');
        char num[24];
        if (!sp || !sp[1] || (size_t)(sp - value) >= sizeof(num))
                return -EBADMSG;
        memcpy(num, value, (size_t)(sp - value));
        num[sp - value] = '\0';
        if (xpu_parse_i64(num, 10, &e) < 0 || e >= 0 || e < -4095)
                return -EBADMSG;
        snprintf(err, err_size, "%s", sp + 1);
        return helper_errno(e);
}

int xpu_reply_next(struct xpu_reply_parser *p, char *err, size_t err_size) {
        for (;;) {
                if (!*p->next) {
                        if (p->ended)
                                return 0;
                        p->line_no++;
                        return xpu_reply_garbage(p, err, err_size);
                }
                const char *nl = strchr(p->next, '\n');
                size_t len = nl ? (size_t)(nl - p->next) : strlen(p->next);
                p->line_no++;
                if (!nl || p->ended || len >= sizeof(p->line))
                        return xpu_reply_garbage(p, err, err_size);
                memcpy(p->line, p->next, len);
                p->line[len] = '\0';
                p->next = nl + 1;

                char *sp = strchr(p->line, ' ');
                p->key = p->line;
                p->value = sp ? sp + 1 : "";
                if (sp)
                        *sp = '\0';
                if (p->line_no == 1 && strcmp(p->key, "error") == 0) {
                        int e = parse_error_line(p->value, err, err_size);
                        if (e == -EBADMSG || *p->next)
                                return xpu_reply_garbage(p, err, err_size);
                        return e;
                }
                if (strcmp(p->key, "end") == 0 && !sp) {
                        p->ended = true;
                        continue;
                }
                if (!*p->key || !*p->value || !xpu_str_is_text(p->value))
                        return xpu_reply_garbage(p, err, err_size);
                return 1;
        }
}

int xpu_reply_device_key(const char *key, size_t count, const char **field) {
        uint64_t i = 0;
        char num[8];
        if (!xpu_startswith(key, "device."))
                return -EINVAL;
        const char *s = key + 7, *dot = strchr(s, '.');
        if (!dot || dot == s || (size_t)(dot - s) >= sizeof(num) || (dot - s > 1 && s[0] == '0') || !dot[1])
                return -EINVAL;
        memcpy(num, s, (size_t)(dot - s));
        num[dot - s] = '\0';
        if (strspn(num, "0123456789") != strlen(num) || xpu_parse_u64(num, 10, &i) < 0 || i >= count)
                return -EINVAL;
        *field = dot + 1;
        return (int)i;
}

/* "7.5": 1-2 digits, a dot, 1-2 digits. */
static bool cc_valid(const char *s) {
        size_t a = strspn(s, "0123456789");
        if (a < 1 || a > 2 || s[a] != '.')
                return false;
        size_t b = strspn(s + a + 1, "0123456789");
        return b >= 1 && b <= 2 && s[a + 1 + b] == '\0';
}

/* The row of TABLE (N rows) named KEY, or NULL. */
static const struct xpu_reply_field *find_field(const struct xpu_reply_field *table, size_t n, const char *key) {
        for (size_t i = 0; i < n; i++)
                if (strcmp(table[i].key, key) == 0)
                        return &table[i];
        return NULL;
}

/* Store VALUE into row F of OBJ, ORing its bit into *HAVE. Returns 0 or -EINVAL. */
static int store_field(void *obj, uint32_t *have, const struct xpu_reply_field *f, const char *value) {
        void *p = (char *)obj + f->offset;
        uint64_t u = 0;
        int64_t s = 0;
        switch (f->kind) {
        case XPU_REPLY_CC:
                if (!cc_valid(value))
                        return -EINVAL;
                __attribute__((fallthrough));
        case XPU_REPLY_STR:
                if (!xpu_str_is_printable(value) || xpu_strlcpy(p, value, f->size) < 0)
                        return -EINVAL;
                break;
        case XPU_REPLY_TEXT:
                if (!xpu_str_is_text(value) || xpu_strlcpy(p, value, f->size) < 0)
                        return -EINVAL;
                break;
        case XPU_REPLY_BUS_ID:
                if (f->size < XPU_PCI_BUS_ID_MAX || xpu_pci_bus_id_normalize(value, p) < 0)
                        return -EINVAL;
                break;
        case XPU_REPLY_U32:
        case XPU_REPLY_PERCENT:
                if (xpu_parse_u64(value, 10, &u) < 0 || u > (f->kind == XPU_REPLY_PERCENT ? 100 : UINT32_MAX) ||
                    f->size != sizeof(uint32_t))
                        return -EINVAL;
                *(uint32_t *)p = (uint32_t)u;
                break;
        case XPU_REPLY_U64:
                if (xpu_parse_u64(value, 10, &u) < 0 || f->size != sizeof(uint64_t))
                        return -EINVAL;
                memcpy(p, &u, sizeof(u));
                break;
        case XPU_REPLY_I64:
                if (xpu_parse_i64(value, 10, &s) < 0 || f->size != sizeof(int64_t))
                        return -EINVAL;
                memcpy(p, &s, sizeof(s));
                break;
        default:
                return -EINVAL;
        }
        if (have)
                *have |= f->have;
        return 0;
}

int xpu_reply_set_field(void *obj, uint32_t *have, const struct xpu_reply_field *table, size_t n, const char *key,
                        const char *value) {
        const struct xpu_reply_field *f = find_field(table, n, key);
        return f ? store_field(obj, have, f, value) : -ENOENT;
}

int xpu_reply_parse_library(const char *value, char dst[PATH_MAX]) {
        if (!value || value[0] != '/' || xpu_strlcpy(dst, value, PATH_MAX) < 0)
                return -EINVAL;
        return 0;
}

int xpu_reply_parse_devices_total(const char *value, size_t count, size_t max, size_t *ret) {
        uint64_t v = 0;
        if (count != max || xpu_parse_u64(value, 10, &v) < 0 || v <= count || v > SIZE_MAX)
                return -EINVAL;
        *ret = (size_t)v;
        return 0;
}

/* ---- the whole-reply reader ---- */

/* Where xpu_reply_read() is in a reply: which head keys came, which table fields each device had. */
struct read_state {
        const struct xpu_reply_spec *spec;
        struct xpu_reply_out *out;
        bool have_library, have_count, have_total;
        uint32_t keys_seen;                          /* bit K: SPEC->keys[K] */
        uint32_t fields_seen[XPU_REPLY_DEVICES_MAX]; /* bit F: SPEC->fields[F], per device */
};

/* One "device.N.FIELD VALUE" line. Returns 0 or -EINVAL. */
static int read_device_line(struct read_state *st, const char *key, const char *value) {
        const struct xpu_reply_spec *s = st->spec;
        const char *field = NULL;
        if (!st->have_count)
                return -EINVAL;
        int i = xpu_reply_device_key(key, st->out->count, &field);
        if (i < 0)
                return -EINVAL;
        void *dev = (char *)st->out->devices + (size_t)i * s->device_size;
        if (s->device_line) {
                int e = s->device_line(dev, field, value);
                if (e != -ENOENT)
                        return e < 0 ? -EINVAL : 0;
        }
        const struct xpu_reply_field *f = find_field(s->fields, s->n_fields, field);
        if (!f)
                return -EINVAL;
        uint32_t bit = 1u << (f - s->fields);
        if (s->fields_once && (st->fields_seen[i] & bit))
                return -EINVAL;
        st->fields_seen[i] |= bit;
        return store_field(dev, (uint32_t *)((char *)dev + s->have_offset), f, value);
}

/* One line of the reply: a head key or a device line. Returns 0 or -EINVAL. */
static int read_line(struct read_state *st, const char *key, const char *value) {
        const struct xpu_reply_spec *s = st->spec;
        struct xpu_reply_out *out = st->out;
        if (strcmp(key, "library") == 0) {
                if (st->have_library || xpu_reply_parse_library(value, out->library) < 0)
                        return -EINVAL;
                st->have_library = true;
                return 0;
        }
        if (strcmp(key, "device_count") == 0) {
                uint64_t v = 0;
                if (st->have_count || xpu_parse_u64(value, 10, &v) < 0 || v > s->devices_max)
                        return -EINVAL;
                out->count = (size_t)v;
                st->have_count = true;
                return 0;
        }
        if (strcmp(key, "devices_total") == 0) {
                if (!st->have_count || st->have_total ||
                    xpu_reply_parse_devices_total(value, out->count, s->devices_max, &out->total) < 0)
                        return -EINVAL;
                st->have_total = true;
                return 0;
        }
        for (size_t k = 0; k < s->n_keys; k++)
                if (strcmp(key, s->keys[k].key) == 0) {
                        if ((st->keys_seen & (1u << k)) || (s->keys[k].before_count && st->have_count) ||
                            s->keys[k].set(out->result, value) < 0)
                                return -EINVAL;
                        st->keys_seen |= 1u << k;
                        return 0;
                }
        return read_device_line(st, key, value);
}

int xpu_reply_read(const struct xpu_reply_spec *spec, const char *text, struct xpu_reply_out *out, char *err,
                   size_t err_size) {
        struct xpu_reply_parser p;
        int e;
        if (spec->devices_max > XPU_REPLY_DEVICES_MAX || spec->n_fields > 32 || spec->n_keys > 32) {
                snprintf(err, err_size, "%s reply reader: table too large", spec->what);
                return -EINVAL;
        }
        struct read_state st = { .spec = spec, .out = out };
        out->count = out->total = 0;

        xpu_reply_parser_init(&p, spec->what, text);
        while ((e = xpu_reply_next(&p, err, err_size)) > 0)
                if (read_line(&st, p.key, p.value) < 0)
                        return xpu_reply_garbage(&p, err, err_size);
        if (e < 0)
                return e;
        if (!st.have_library || !st.have_count) {
                bool name_count = spec->name_count_first ? !st.have_count : st.have_library;
                snprintf(err, err_size, "garbage from the %s helper: no %s", spec->what,
                         name_count ? "device_count" : "library");
                return -EBADMSG;
        }
        for (size_t i = 0; spec->device_end && i < out->count; i++) {
                e = spec->device_end((char *)out->devices + i * spec->device_size, i, err, err_size);
                if (e < 0)
                        return e;
        }
        if (!st.have_total)
                out->total = out->count;
        return 0;
}
