/* SPDX-License-Identifier: Apache-2.0 */
/* `xpud query` (query.h). */
#include "query.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/macro.h"
#include "base/str.h"
#include "text.h"

/* The header block's value of NAME (case-insensitive, as HTTP field names are) into VAL, without
 * surrounding blanks. HDR..END is the block after the status line. Returns true when present. */
static bool header_value(const char *hdr, const char *end, const char *name, char *val, size_t size) {
        size_t nlen = strlen(name);
        for (const char *p = hdr; p < end;) {
                const char *eol = memchr(p, '\n', (size_t)(end - p));
                if (!eol)
                        eol = end;
                if ((size_t)(eol - p) > nlen && strncasecmp(p, name, nlen) == 0 && p[nlen] == ':') {
                        const char *v = p + nlen + 1, *ve = eol;
                        while (v < ve && (*v == ' ' || *v == '\t'))
                                v++;
                        while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t'))
                                ve--;
                        size_t n = (size_t)(ve - v) < size - 1 ? (size_t)(ve - v) : size - 1;
                        memcpy(val, v, n);
                        val[n] = '\0';
                        return true;
                }
                p = eol + 1;
        }
        return false;
}

/* Decode the chunked body P..END (RFC 9112 §7.1; extensions and trailers ignored) into a new
 * buffer. Returns 0, -EBADMSG, -ENOMEM. */
static int dechunk(const char *p, const char *end, char **ret, size_t *ret_len) {
        _cleanup_free_ char *out = malloc((size_t)(end - p) + 1);
        size_t n = 0;
        if (!out)
                return -ENOMEM;
        for (;;) {
                const char *eol = memchr(p, '\n', (size_t)(end - p));
                if (!eol)
                        return -EBADMSG;
                char size_text[20];
                size_t l = 0;
                while (p + l < eol && strchr("0123456789abcdefABCDEF", p[l]) && p[l])
                        l++;
                if (l == 0 || l >= sizeof size_text)
                        return -EBADMSG;
                memcpy(size_text, p, l);
                size_text[l] = '\0';
                uint64_t size;
                if (xpu_parse_u64(size_text, 16, &size) < 0)
                        return -EBADMSG;
                p = eol + 1;
                if (size == 0)
                        break;
                if (size > (uint64_t)(end - p) || (uint64_t)(end - p) - size < 2 || p[size] != '\r' || p[size + 1] != '\n')
                        return -EBADMSG;
                memcpy(out + n, p, size);
                n += size;
                p += size + 2;
        }
        *ret = TAKE_PTR(out);
        *ret_len = n;
        return 0;
}

/* One answer head and body at BUF..END: *STATUS and the body's start, or -EBADMSG. */
static int parse_one(const char *buf, const char *end, struct xpud_query_response *ret);

int xpud_query_parse_response(const char *buf, size_t len, struct xpud_query_response *ret) {
        *ret = (struct xpud_query_response){ 0 };
        const char *end = buf + len;
        /* Interim answers (1xx) come before the final one: skip their heads (they have no body). */
        for (unsigned skipped = 0; skipped < 8; skipped++) {
                int r = parse_one(buf, end, ret);
                if (r < 0 || ret->status >= 200 || ret->status == 101)
                        return r;
                buf = ret->body; /* parse_one left the interim head's end here */
                xpud_query_response_done(ret);
        }
        return -EBADMSG;
}

static int parse_one(const char *buf, const char *end, struct xpud_query_response *ret) {
        *ret = (struct xpud_query_response){ 0 };
        size_t len = (size_t)(end - buf);
        if (len < 12 || memcmp(buf, "HTTP/1.", 7) != 0 || (buf[7] != '0' && buf[7] != '1') || buf[8] != ' ')
                return -EBADMSG;
        int status = 0;
        for (int i = 9; i < 12; i++) {
                if (buf[i] < '0' || buf[i] > '9')
                        return -EBADMSG;
                status = status * 10 + (buf[i] - '0');
        }
        if (status < 100 || (len > 12 && buf[12] != ' ' && buf[12] != '\r' && buf[12] != '\n'))
                return -EBADMSG;
        const char *hdr = memchr(buf, '\n', len);
        if (!hdr)
                return -EBADMSG;
        hdr++;
        /* The blank line: CRLF CRLF, or bare LFs from a lenient server. */
        const char *body = NULL, *hdr_end = NULL;
        for (const char *p = hdr; p < end; p++) {
                const char *eol = memchr(p, '\n', (size_t)(end - p));
                if (!eol)
                        break;
                if (eol == p || (eol == p + 1 && *p == '\r')) {
                        hdr_end = p;
                        body = eol + 1;
                        break;
                }
                p = eol;
        }
        if (!body)
                return -EBADMSG;
        if (status < 200 && status != 101) {
                *ret = (struct xpud_query_response){ .status = status, .body = body, .body_len = 0 };
                return 0;
        }
        char v[64];
        if (header_value(hdr, hdr_end, "Transfer-Encoding", v, sizeof v)) {
                if (strcasecmp(v, "chunked") != 0)
                        return -EBADMSG;
                char *out;
                size_t out_len;
                int r = dechunk(body, end, &out, &out_len);
                if (r < 0)
                        return r;
                *ret = (struct xpud_query_response){
                        .status = status, .body = out, .body_len = out_len, .owned = true
                };
                return 0;
        }
        size_t body_len = (size_t)(end - body);
        if (header_value(hdr, hdr_end, "Content-Length", v, sizeof v)) {
                uint64_t cl;
                if (!*v || strspn(v, "0123456789") != strlen(v) || xpu_parse_u64(v, 10, &cl) < 0 || cl > body_len)
                        return -EBADMSG;
                body_len = (size_t)cl;
                *ret = (struct xpud_query_response){ .status = status, .body = body, .body_len = body_len };
                return 0;
        }
        *ret = (struct xpud_query_response){ .status = status, .body = body, .body_len = body_len };
        return 0;
}

void xpud_query_response_done(struct xpud_query_response *r) {
        if (r->owned)
                free((char *)r->body);
        *r = (struct xpud_query_response){ 0 };
}

bool xpud_query_is_healthy(const struct xpud_query_response *r) {
        if (r->status < 200 || r->status > 299)
                return false;
        if (memchr(r->body, '\0', r->body_len))
                return false; /* a JSON text has no NUL: what follows one is hidden from the parser */
        const char *parse_end = NULL;
        cJSON *root = cJSON_ParseWithLengthOpts(r->body, r->body_len, &parse_end, false);
        if (root && parse_end)
                for (const char *p = parse_end; p < r->body + r->body_len; p++)
                        if (!strchr(" \t\r\n", *p)) {
                                cJSON_Delete(root);
                                return false; /* a second value after the first: not one answer */
                        }
        const cJSON *st = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "status") : NULL;
        bool ok = true;
        if (cJSON_IsString(st))
                ok = strcmp(st->valuestring, "healthy") == 0 || strcmp(st->valuestring, "ok") == 0 ||
                     strcmp(st->valuestring, "ready") == 0;
        cJSON_Delete(root);
        return ok;
}

static long long now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until FD is ready for EVENTS, at most until DEADLINE (now_ms). Returns 0, -ETIMEDOUT,
 * -errno. */
static int wait_fd(int fd, short events, long long deadline) {
        for (;;) {
                long long left = deadline - now_ms();
                if (left <= 0)
                        return -ETIMEDOUT;
                struct pollfd p = { .fd = fd, .events = events };
                int r = poll(&p, 1, (int)left);
                if (r > 0)
                        return 0;
                if (r < 0 && errno != EINTR)
                        return -errno;
        }
}

/* Does BUF (USED bytes so far) hold a final answer whose Content-Length body is all there? Only
 * the head is scanned (the body is never parsed here), so checking after every read stays cheap.
 * Interim 1xx heads are stepped over. */
static bool complete_by_length(const char *buf, size_t used) {
        const char *p = buf, *end = buf + used;
        for (unsigned heads = 0; heads < 8; heads++) {
                if (end - p < 12 || memcmp(p, "HTTP/1.", 7) != 0)
                        return false;
                bool interim = p[9] == '1';
                const char *hdr = memchr(p, '\n', (size_t)(end - p)), *hdr_end = NULL, *body = NULL;
                for (const char *q = hdr ? hdr + 1 : end; q < end;) {
                        const char *eol = memchr(q, '\n', (size_t)(end - q));
                        if (!eol)
                                break;
                        if (eol == q || (eol == q + 1 && *q == '\r')) {
                                hdr_end = q;
                                body = eol + 1;
                                break;
                        }
                        q = eol + 1;
                }
                if (!body)
                        return false;
                if (interim) {
                        p = body;
                        continue;
                }
                char v[64];
                uint64_t cl;
                if (header_value(hdr + 1, hdr_end, "Transfer-Encoding", v, sizeof v) ||
                    !header_value(hdr + 1, hdr_end, "Content-Length", v, sizeof v) || xpu_parse_u64(v, 10, &cl) < 0)
                        return false;
                return (uint64_t)(end - body) >= cl;
        }
        return false;
}

/* Send REQ (LEN bytes) on the non-blocking FD and read the whole answer into *RET (NUL-terminated,
 * *RET_LEN bytes). Returns 0, -ETIMEDOUT, -EFBIG, -ENOMEM, -errno. */
static int exchange(int fd, const char *req, size_t len, long long deadline, char **ret, size_t *ret_len) {
        for (size_t off = 0; off < len;) {
                ssize_t n = send(fd, req + off, len - off, MSG_NOSIGNAL);
                if (n > 0) {
                        off += (size_t)n;
                        continue;
                }
                if (n < 0 && errno != EAGAIN && errno != EINTR)
                        return -errno;
                int r = wait_fd(fd, POLLOUT, deadline);
                if (r < 0)
                        return r;
        }
        _cleanup_free_ char *buf = NULL;
        size_t size = 0, used = 0;
        for (;;) {
                if (size - used < 4096) {
                        size_t want = size ? size * 2 : 16384;
                        if (want > XPUD_QUERY_MAX_BYTES + 1)
                                want = XPUD_QUERY_MAX_BYTES + 1;
                        if (want <= used + 1)
                                return -EFBIG;
                        char *nb = realloc(buf, want);
                        if (!nb)
                                return -ENOMEM;
                        buf = nb;
                        size = want;
                }
                ssize_t n = recv(fd, buf + used, size - used - 1, 0);
                if (n == 0)
                        break;
                if (n > 0) {
                        used += (size_t)n;
                        /* A server that keeps the connection open after a complete answer with a
                         * Content-Length need not be waited for (a chunked one: until it closes). */
                        if (complete_by_length(buf, used))
                                break;
                        continue;
                }
                if (errno != EAGAIN && errno != EINTR)
                        return -errno;
                int r = wait_fd(fd, POLLIN, deadline);
                if (r < 0)
                        return r;
        }
        buf[used] = '\0';
        *ret = TAKE_PTR(buf);
        *ret_len = used;
        return 0;
}

/* Connect to SOCKET_PATH, GET PATH and parse the answer into *RESP (its body points into *RET_BUF,
 * which the caller frees after xpud_query_response_done()). Returns 0, or -1 with one line in ERR
 * naming the socket and the fix, and its gist without the socket's path in BRIEF (for the 80 bytes
 * of `xpud query --npd`). */
static int fetch(const char *socket_path, const char *path, char **ret_buf, struct xpud_query_response *resp,
                 char *err, size_t err_size, char *brief, size_t brief_size) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        if (xpu_strlcpy(sa.sun_path, socket_path, sizeof sa.sun_path) < 0) {
                snprintf(err, err_size, "--socket: \"%s\" is longer than %zu bytes; give a shorter path", socket_path,
                         sizeof sa.sun_path - 1);
                snprintf(brief, brief_size, "the --socket path is too long");
                return -1;
        }
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0) {
                snprintf(err, err_size, "cannot make a socket: %s", strerror(errno));
                snprintf(brief, brief_size, "%s", err);
                return -1;
        }
        long long deadline = now_ms() + XPUD_QUERY_TIMEOUT_MS;
        if (connect(fd, (const struct sockaddr *)&sa, sizeof sa) < 0) {
                int e = errno;
                if (e == ENOENT || e == ECONNREFUSED)
                        snprintf(err, err_size, "cannot connect to %s: %s (is xpud running? give its socket with "
                                 "--socket)", socket_path, strerror(e));
                else if (e == EACCES)
                        snprintf(err, err_size, "cannot connect to %s: %s (run as root or as a member of the socket's "
                                 "group, e.g. xpud)", socket_path, strerror(e));
                else
                        snprintf(err, err_size, "cannot connect to %s: %s", socket_path, strerror(e));
                snprintf(brief, brief_size, "cannot connect: %s", strerror(e));
                return -1;
        }
        char req[1024];
        int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: xpud\r\nUser-Agent: xpud-query/" XPU_VERSION
                         "\r\nConnection: close\r\n\r\n", path);
        if (n < 0 || (size_t)n >= sizeof req) {
                snprintf(err, err_size, "path \"%.64s...\" is too long", path);
                snprintf(brief, brief_size, "the path is too long");
                return -1;
        }
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r = exchange(fd, req, (size_t)n, deadline, &buf, &len);
        if (r == -ETIMEDOUT) {
                snprintf(err, err_size, "%s: no complete answer within %d s (xpud busy or stopped?)", socket_path,
                         XPUD_QUERY_TIMEOUT_MS / 1000);
                snprintf(brief, brief_size, "no answer within %d s (first sample not done, or busy)",
                         XPUD_QUERY_TIMEOUT_MS / 1000);
                return -1;
        }
        if (r == -EFBIG) {
                snprintf(err, err_size, "%s: the answer to %s is larger than %u MiB", socket_path, path,
                         XPUD_QUERY_MAX_BYTES >> 20);
                snprintf(brief, brief_size, "the answer is larger than %u MiB", XPUD_QUERY_MAX_BYTES >> 20);
                return -1;
        }
        if (r < 0) {
                snprintf(err, err_size, "%s: %s", socket_path, strerror(-r));
                snprintf(brief, brief_size, "%s", strerror(-r));
                return -1;
        }
        r = xpud_query_parse_response(buf, len, resp);
        if (r < 0) {
                snprintf(err, err_size, "%s: %s", socket_path,
                         r == -ENOMEM ? strerror(ENOMEM)
                         : len == 0   ? "the connection closed without an answer (not allowed on this socket? see "
                                        "xpud's log and --allow-uid/--allow-gid)"
                                      : "the answer is not HTTP/1.1 (is this xpud's socket?)");
                snprintf(brief, brief_size, "%s",
                         r == -ENOMEM ? strerror(ENOMEM)
                         : len == 0   ? "closed without an answer (not allowed? see --allow-uid/--allow-gid)"
                                      : "the answer is not HTTP (is this xpud's socket?)");
                return -1;
        }
        *ret_buf = TAKE_PTR(buf);
        return 0;
}

int xpud_query(const char *socket_path, const char *path, FILE *out) {
        char err[512], brief[128];
        _cleanup_free_ char *buf = NULL;
        struct xpud_query_response resp;
        if (fetch(socket_path, path, &buf, &resp, err, sizeof err, brief, sizeof brief) < 0) {
                log_error("%s", err);
                return 1;
        }
        fwrite(resp.body, 1, resp.body_len, out);
        if (resp.body_len > 0 && resp.body[resp.body_len - 1] != '\n')
                fputc('\n', out);
        bool healthy = xpud_query_is_healthy(&resp);
        if (resp.status < 200 || resp.status > 299)
                log_error("%s: %s answered HTTP %d", socket_path, path, resp.status);
        xpud_query_response_done(&resp);
        if (fflush(out) != 0 || ferror(out)) {
                log_error("cannot write the answer: %m");
                return 1;
        }
        return healthy ? 0 : 1;
}

/* ---- Node Problem Detector ------------------------------------------------------------------- */

/* /v1/health's device states, worst highest (as health.h's xpud_health_rank()). */
static int state_rank(const char *state) {
        static const struct {
                const char *name;
                int rank;
        } ranks[] = { { "healthy", 0 }, { "unknown", 1 }, { "degraded", 2 }, { "unhealthy", 3 } };
        for (size_t i = 0; state && i < ELEMENTSOF(ranks); i++)
                if (strcmp(state, ranks[i].name) == 0)
                        return ranks[i].rank;
        return -1;
}

/* Copy S into OUT (SIZE bytes) with every byte below 0x20 and DEL as a blank: NPD keeps the line as
 * the condition's message, and a newline there would break it in two. */
static void one_line(char *out, size_t size, const char *s) {
        size_t n = 0;
        for (; s && *s && n + 1 < size; s++)
                out[n++] = ((unsigned char)*s < 0x20 || *s == 0x7f) ? ' ' : *s;
        out[n] = '\0';
}

/* The short name of device O: its UUID's first XPUD_NPD_ID_MAX bytes ("GPU-307dcc96"), else its
 * PCI bus id, else nothing; a byte that is not printable ASCII becomes '?' (a cut never splits a
 * UTF-8 character). */
static void device_id(const cJSON *o, char *out, size_t size) {
        const cJSON *u = cJSON_GetObjectItemCaseSensitive(o, "uuid");
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "pci_bus_id");
        const char *id = cJSON_IsString(u) && u->valuestring[0] ? u->valuestring
                         : cJSON_IsString(b)                     ? b->valuestring
                                                                 : "";
        size_t n = 0;
        for (; id[n] && n < XPUD_NPD_ID_MAX && n + 1 < size; n++)
                out[n] = id[n] > 0x20 && id[n] < 0x7f ? id[n] : '?';
        out[n] = '\0';
}

int xpud_npd_verdict(int http_status, const char *body, size_t len, bool degraded, char *line, size_t size) {
        const char *level = degraded ? "degraded or unhealthy" : "unhealthy";
        if (http_status == 503) {
                snprintf(line, size, "xpud has no sample yet (HTTP 503); retrying at the next run");
                return XPUD_NPD_UNKNOWN;
        }
        if (http_status < 200 || http_status > 299) {
                snprintf(line, size, "xpud answered /v1/health with HTTP %d", http_status);
                return XPUD_NPD_UNKNOWN;
        }
        if (memchr(body, '\0', len)) {
                snprintf(line, size, "xpud's /v1/health answer is not JSON");
                return XPUD_NPD_UNKNOWN;
        }
        cJSON *root = cJSON_ParseWithLength(body, len);
        const cJSON *devs = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "devices") : NULL;
        if (!cJSON_IsArray(devs)) {
                cJSON_Delete(root);
                snprintf(line, size, "xpud's /v1/health answer has no devices list");
                return XPUD_NPD_UNKNOWN;
        }
        const cJSON *worst = NULL;
        int worst_rank = -1, n = 0, bad = 0, unknown = 0;
        for (const cJSON *o = devs->child; o; o = o->next) {
                const cJSON *st = cJSON_GetObjectItemCaseSensitive(o, "state");
                int rank = cJSON_IsString(st) ? state_rank(st->valuestring) : -1;
                if (rank < 0) {
                        cJSON_Delete(root);
                        snprintf(line, size, "xpud's /v1/health answer has a device without a known state");
                        return XPUD_NPD_UNKNOWN;
                }
                n++;
                unknown += rank == 1;
                if (rank < (degraded ? 2 : 3))
                        continue;
                bad++;
                if (rank > worst_rank) { /* the first of the worst: lowest index, as listed */
                        worst = o;
                        worst_rank = rank;
                }
        }
        if (!worst) {
                cJSON_Delete(root);
                char unk[32] = "";
                if (unknown) /* not sampled yet, or its backend failed: no verdict on those */
                        snprintf(unk, sizeof unk, ", %d unknown", unknown);
                snprintf(line, size, "OK: %d GPU%s, none %s%s", n, n == 1 ? "" : "s", level, unk);
                return XPUD_NPD_OK;
        }
        const cJSON *idx = cJSON_GetObjectItemCaseSensitive(worst, "index");
        const cJSON *reasons = cJSON_GetObjectItemCaseSensitive(worst, "reasons");
        const cJSON *first = cJSON_IsArray(reasons) ? reasons->child : NULL;
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(worst, "state");
        char id[XPUD_NPD_ID_MAX + 1], reason[XPUD_NPD_LINE_MAX + 1], more[24] = "", head[48];
        device_id(worst, id, sizeof id);
        one_line(reason, sizeof reason, cJSON_IsString(first) ? first->valuestring : st->valuestring);
        if (bad > 1)
                snprintf(more, sizeof more, " (+%d more)", bad - 1);
        if (cJSON_IsNumber(idx) && idx->valuedouble >= 0 && idx->valuedouble < 1e6)
                snprintf(head, sizeof head, "gpu %d%s%s: ", (int)idx->valuedouble, id[0] ? " " : "", id);
        else /* no usable index: a garbled answer, named as such */
                snprintf(head, sizeof head, "gpu ?%s%s: ", id[0] ? " " : "", id);
        cJSON_Delete(root);
        /* The reason gets what the GPU's name and "+N more" leave of the line, cut visibly. */
        size_t room = size > XPUD_NPD_LINE_MAX + 1 ? XPUD_NPD_LINE_MAX + 1 : size;
        size_t fixed = strlen(head) + strlen(more);
        char cut[XPUD_NPD_LINE_MAX + 1] = "";
        if (fixed + 4 < room)
                xpud_text_cut(cut, room - fixed, "%s", reason);
        /* Cut by design when the parts are long: the check below uses the result, as the
         * truncation warning of the sanitizer build's -O1 wants. */
        if (snprintf(line, room, "%s%s%s", head, cut, more) < 0)
                line[0] = '\0';
        return XPUD_NPD_PROBLEM;
}

int xpud_query_npd(const char *socket_path, bool degraded, FILE *out) {
        char err[512], brief[128], line[XPUD_NPD_LINE_MAX + 1];
        _cleanup_free_ char *buf = NULL;
        struct xpud_query_response resp;
        int code;
        if (fetch(socket_path, "/v1/health", &buf, &resp, err, sizeof err, brief, sizeof brief) < 0) {
                /* The whole error to stderr (NPD logs it), the gist to the one line it keeps. */
                log_error("%s", err);
                xpud_text_cut(line, sizeof line, "xpud unreachable: %s", brief);
                code = XPUD_NPD_UNKNOWN;
        } else {
                code = xpud_npd_verdict(resp.status, resp.body, resp.body_len, degraded, line, sizeof line);
                xpud_query_response_done(&resp);
        }
        fprintf(out, "%s\n", line);
        if (fflush(out) != 0 || ferror(out))
                return XPUD_NPD_UNKNOWN;
        return code;
}
