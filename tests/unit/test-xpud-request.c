/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/request.c, body framing: the Content-Length value parser and the verdict on a request's
 * header fields (a bare CR, two Content-Length fields, a value that is not one decimal number,
 * Content-Length with Transfer-Encoding, a blank in a field name, a name that starts with one of
 * those two and goes on: ambiguous; a body; none); the request line's bytes. The same requests on
 * the wire are in test-xpud-server.c (test_framing_on_the_wire, test_request_bytes_on_the_wire). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "request.h"
#include "testlib.h"

START_TEST(test_content_length_parse) {
        static const struct {
                const char *value;
                int ret;
                uint64_t v;
        } cases[] = {
                { "0", 0, 0 },
                { "5", 0, 5 },
                { "00", 0, 0 },
                { "007", 0, 7 },
                { " 5", 0, 5 },
                { "5\t", 0, 5 },
                { "\t 42 \t", 0, 42 },
                { "18446744073709551615", 0, UINT64_MAX },
                { "000000000000000000000000000018446744073709551615", 0, UINT64_MAX },
                { "18446744073709551616", -ERANGE, 0 },
                { "99999999999999999999999", -ERANGE, 0 },
                { "", -EINVAL, 0 },
                { " ", -EINVAL, 0 },
                { "+5", -EINVAL, 0 },
                { "+0", -EINVAL, 0 },
                { "-0", -EINVAL, 0 },
                { "-5", -EINVAL, 0 },
                { "0x10", -EINVAL, 0 },
                { "5 5", -EINVAL, 0 },
                { " 5 5", -EINVAL, 0 },
                { "5,5", -EINVAL, 0 },
                { "0,0", -EINVAL, 0 },
                { "5;", -EINVAL, 0 },
                { "1e3", -EINVAL, 0 },
                { "5\r", -EINVAL, 0 },
                { "5\v", -EINVAL, 0 },
                { "\xd9\xa5", -EINVAL, 0 }, /* ARABIC-INDIC DIGIT FIVE */
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint64_t v = 12345;
                int r = xpud_content_length_parse(cases[i].value, &v);
                ck_assert_msg(r == cases[i].ret, "\"%s\": %d, want %d", cases[i].value, r, cases[i].ret);
                ck_assert_msg(v == (r == 0 ? cases[i].v : 12345), "\"%s\": %llu", cases[i].value,
                              (unsigned long long)v);
        }
        uint64_t v = 1;
        ck_assert_int_eq(xpud_content_length_parse(NULL, &v), -EINVAL);
        ck_assert_uint_eq(v, 1);
}
END_TEST

/* Up to four header fields as "Name", "value" pairs (NULL name: the end). */
struct fields {
        const char *f[4][2];
};

static enum xpud_request_body verdict(const struct fields *fs, const char **why) {
        struct xpud_framing f = {};
        for (size_t i = 0; i < ELEMENTSOF(fs->f) && fs->f[i][0]; i++)
                xpud_framing_add(&f, fs->f[i][0], fs->f[i][1]);
        return xpud_framing_body(&f, why);
}

START_TEST(test_framing) {
        static const struct {
                const char *what;
                struct fields fs;
                enum xpud_request_body want;
                const char *why; /* part of the reason, for ambiguous ones */
        } cases[] = {
                { "no field", { { { NULL } } }, XPUD_BODY_NONE, NULL },
                { "unrelated fields", { { { "Host", "x" }, { "Accept", "*/*" } } }, XPUD_BODY_NONE, NULL },
                { "Content-Length 0", { { { "Content-Length", "0" } } }, XPUD_BODY_NONE, NULL },
                { "content-length 00", { { { "content-length", "00" } } }, XPUD_BODY_NONE, NULL },
                { "Content-Length 5", { { { "Content-Length", "5" } } }, XPUD_BODY_PRESENT, NULL },
                { "Content-Length 2^64-1", { { { "CONTENT-LENGTH", "18446744073709551615" } } }, XPUD_BODY_PRESENT,
                  NULL },
                { "chunked", { { { "Transfer-Encoding", "chunked" } } }, XPUD_BODY_PRESENT, NULL },
                { "two Transfer-Encoding", { { { "Transfer-Encoding", "gzip" }, { "transfer-encoding", "chunked" } } },
                  XPUD_BODY_PRESENT, NULL },
                { "two equal Content-Length", { { { "Content-Length", "0" }, { "Content-Length", "0" } } },
                  XPUD_BODY_AMBIGUOUS, "more than one Content-Length" },
                { "two Content-Length 0, 5", { { { "Content-Length", "0" }, { "content-length", "5" } } },
                  XPUD_BODY_AMBIGUOUS, "more than one Content-Length" },
                { "two Content-Length 5, 0", { { { "Content-Length", "5" }, { "Content-Length", "0" } } },
                  XPUD_BODY_AMBIGUOUS, "more than one Content-Length" },
                { "three Content-Length", { { { "Content-Length", "1" }, { "Content-Length", "1" },
                                              { "Content-Length", "1" } } },
                  XPUD_BODY_AMBIGUOUS, "more than one Content-Length" },
                { "+5", { { { "Content-Length", "+5" } } }, XPUD_BODY_AMBIGUOUS, "not one decimal number" },
                { "0x10", { { { "Content-Length", "0x10" } } }, XPUD_BODY_AMBIGUOUS, "not one decimal number" },
                { "5 5", { { { "Content-Length", " 5 5" } } }, XPUD_BODY_AMBIGUOUS, "not one decimal number" },
                { "5,5", { { { "Content-Length", "5,5" } } }, XPUD_BODY_AMBIGUOUS, "not one decimal number" },
                { "empty", { { { "Content-Length", "" } } }, XPUD_BODY_AMBIGUOUS, "not one decimal number" },
                { "NULL value", { { { "Content-Length", NULL } } }, XPUD_BODY_AMBIGUOUS, "not one decimal number" },
                { "huge", { { { "Content-Length", "99999999999999999999999" } } }, XPUD_BODY_AMBIGUOUS,
                  "not one decimal number" },
                { "Content-Length with chunked", { { { "Content-Length", "0" }, { "Transfer-Encoding", "chunked" } } },
                  XPUD_BODY_AMBIGUOUS, "together with Transfer-Encoding" },
                { "chunked with Content-Length", { { { "Transfer-Encoding", "chunked" }, { "Content-Length", "4" } } },
                  XPUD_BODY_AMBIGUOUS, "together with Transfer-Encoding" },
                { "blank before the colon", { { { "Content-Length ", "5" } } }, XPUD_BODY_AMBIGUOUS,
                  "field name holds a blank" },
                { "tab in a name", { { { "Host", "x" }, { "X\tY", "1" } } }, XPUD_BODY_AMBIGUOUS,
                  "field name holds a blank" },
                /* "Content-Length: 5" folded onto " 0", as libmicrohttpd joins the lines. */
                { "folded Content-Length", { { { "Content-Length0", "5" } } }, XPUD_BODY_AMBIGUOUS,
                  "starts with Content-Length" },
                { "folded Transfer-Encoding", { { { "transfer-encodingchunked", "x" } } }, XPUD_BODY_AMBIGUOUS,
                  "starts with Content-Length or Transfer-Encoding" },
                { "a name that only ends like one", { { { "X-Content-Length", "5" } } }, XPUD_BODY_NONE, NULL },
                /* libmicrohttpd 0.9.75 ends lines at CRLF or LF only: a bare CR stays in the field. */
                { "a bare CR in a value", { { { "Host", "x\rContent-Length: 5" } } }, XPUD_BODY_AMBIGUOUS,
                  "a CR that does not end its line" },
                { "a bare CR ending a value", { { { "Host", "x" }, { "Accept", "*/*\r" } } }, XPUD_BODY_AMBIGUOUS,
                  "a CR that does not end its line" },
                { "a bare CR in a name", { { { "X-A\rB", "1" } } }, XPUD_BODY_AMBIGUOUS, "a CR that does not end its line" },
                { "a bare CR in a Content-Length", { { { "Content-Length", "5\r" } } }, XPUD_BODY_AMBIGUOUS,
                  "a CR that does not end its line" },
                { "a tab in a value", { { { "User-Agent", "a\tb" } } }, XPUD_BODY_NONE, NULL },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const char *why = "unset";
                enum xpud_request_body b = verdict(&cases[i].fs, &why);
                ck_assert_msg(b == cases[i].want, "%s: %d, want %d", cases[i].what, b, cases[i].want);
                if (!cases[i].why) {
                        ck_assert_msg(why == NULL, "%s: a reason \"%s\"", cases[i].what, why);
                        continue;
                }
                ck_assert_msg(why && strstr(why, cases[i].why), "%s: \"%s\" lacks \"%s\"", cases[i].what,
                              why ? why : "(null)", cases[i].why);
                /* One line, no quote or backslash to escape: it goes into the JSON body as it is. */
                ck_assert_msg(!strpbrk(why, "\n\r\"\\"), "%s: \"%s\"", cases[i].what, why);
        }
        /* The reason may be left out. */
        struct xpud_framing f = {};
        xpud_framing_add(&f, "Content-Length", "1,1");
        xpud_framing_add(&f, NULL, "ignored");
        ck_assert_int_eq(xpud_framing_body(&f, NULL), XPUD_BODY_AMBIGUOUS);
}
END_TEST

/* A request line's method and target: control bytes (a NUL included, counted by length) are
 * refused, everything else is the route's. */
START_TEST(test_request_bytes) {
        static const struct {
                const char *what, *bytes;
                size_t len;
                bool ok;
        } cases[] = {
                { "a path", "/v1/devices/0", 13, true },
                { "a method", "GET", 3, true },
                { "empty", "", 0, true },
                { "a space", "/a b", 4, true },
                { "UTF-8", "/\xc3\xa9", 3, true },
                { "0xff", "/\xff", 2, true },
                { "printable ASCII", " ~!\"#%&'()*+,-./:;<=>?@[\\]^_`{|}", 32, true },
                { "a NUL inside", "/v1/devices/0\0x", 15, false },
                { "a NUL at the end", "/metrics\0", 9, false },
                { "a NUL first", "\0GET", 4, false },
                { "0x01", "G\x01T", 3, false },
                { "a tab", "/met\trics", 9, false },
                { "a CR", "/metrics\r", 9, false },
                { "an LF", "/a\nb", 4, false },
                { "0x1f", "/\x1f", 2, false },
                { "0x7f", "/\x7f", 2, false },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                ck_assert_msg(xpud_request_bytes_ok(cases[i].bytes, cases[i].len) == cases[i].ok, "%s: want %d",
                              cases[i].what, cases[i].ok);
        /* Only LEN bytes count: what follows is not looked at. */
        ck_assert(xpud_request_bytes_ok("/metrics\0x", 8));
        /* The reason is one line with nothing to escape in JSON. */
        ck_assert_ptr_null(strpbrk(XPUD_REQUEST_LINE_WHY, "\n\r\"\\"));
}
END_TEST

static Suite *request_suite(void) {
        Suite *s = suite_create("xpud-request");
        TCase *tc = tcase_create("framing");
        tcase_add_test(tc, test_content_length_parse);
        tcase_add_test(tc, test_framing);
        tcase_add_test(tc, test_request_bytes);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(request_suite());
}
