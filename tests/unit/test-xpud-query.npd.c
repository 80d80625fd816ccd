/* SPDX-License-Identifier: Apache-2.0 */
/* daemon/query.c's Node Problem Detector verdict (xpud_npd_verdict()): exit status and the one
 * line for each level, the worst GPU first with "+N more", the 80-byte bound with a UTF-8 reason
 * cut at a character boundary, control characters made blanks, and every answer that is no
 * /v1/health (503 before the first sample, other statuses, garbage) as unknown; and the command
 * line of `xpud query --npd`. The protocol end to end against a real xpud is tests/e2e/xpud-npd.sh. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/macro.h"
#include "query.h"
#include "testlib.h"
#include "xpud-options.h"

#define UUID0 "GPU-307dcc96-618a-4416-c1ef-87823c2e1a31"
#define UUID1 "GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe"

/* A /v1/health body with devices D (a JSON array's contents). */
#define HEALTH(d) "{\"status\":\"x\",\"seq\":3,\"collect_time\":1,\"devices\":[" d "],\"backends\":[]}"
#define DEV(i, uuid, bus, state, reason)                                                                       \
        "{\"index\":" #i ",\"vendor\":\"nvidia\"" uuid bus ",\"state\":\"" state "\",\"reasons\":[" reason      \
        "],\"action\":\"\"}"
#define U(x) ",\"uuid\":\"" x "\""
#define B(x) ",\"pci_bus_id\":\"" x "\""

static const struct npd_case {
        const char *what;
        int status;
        const char *body;
        bool degraded;
        int want;
        const char *want_line;
} cases[] = {
        { "all healthy", 200,
          HEALTH(DEV(0, U(UUID0), B("0000:1a:00.0"), "healthy", "") "," DEV(1, U(UUID1), , "healthy", "")), false,
          XPUD_NPD_OK, "OK: 2 GPUs, none unhealthy" },
        { "no GPU", 200, HEALTH(""), false, XPUD_NPD_OK, "OK: 0 GPUs, none unhealthy" },
        { "degraded is OK for the unhealthy level", 200,
          HEALTH(DEV(0, U(UUID0), , "degraded", "\"thermal throttling\"")), false, XPUD_NPD_OK,
          "OK: 1 GPU, none unhealthy" },
        { "degraded is a problem for the degraded level", 200,
          HEALTH(DEV(0, U(UUID0), , "degraded", "\"thermal throttling\"")), true, XPUD_NPD_PROBLEM,
          "gpu 0 GPU-307dcc96: thermal throttling" },
        { "unknown is no problem", 200, HEALTH(DEV(0, U(UUID0), , "unknown", "\"not sampled yet\"")), true,
          XPUD_NPD_OK, "OK: 1 GPU, none degraded or unhealthy, 1 unknown" },
        { "lost GPU", 200,
          HEALTH(DEV(0, U(UUID0), , "healthy", "") "," DEV(1, U(UUID1), B("0000:1b:00.0"), "unhealthy",
                                                          "\"fell off the bus\"")),
          false, XPUD_NPD_PROBLEM, "gpu 1 GPU-e28db54c: fell off the bus" },
        { "no UUID: the bus id", 200, HEALTH(DEV(7, , B("0000:c1:00.0"), "unhealthy", "\"uncorrected ECC errors: 2\"")),
          false, XPUD_NPD_PROBLEM, "gpu 7 0000:c1:00.0: uncorrected ECC errors: 2" },
        { "neither: the index alone", 200, HEALTH(DEV(3, , , "unhealthy", "\"x\"")), false, XPUD_NPD_PROBLEM,
          "gpu 3: x" },
        { "no reasons: the state", 200, HEALTH(DEV(2, U(UUID0), , "unhealthy", "")), false, XPUD_NPD_PROBLEM,
          "gpu 2 GPU-307dcc96: unhealthy" },
        { "the worst first, then the lowest index, +N more", 200,
          HEALTH(DEV(0, U(UUID0), , "degraded", "\"hardware slowdown\"") "," DEV(1, U(UUID1), , "unhealthy",
                                                                                 "\"row remapping failed\"") ","
                 DEV(2, U("GPU-aaaaaaaa-0"), , "unhealthy", "\"fell off the bus\"")),
          true, XPUD_NPD_PROBLEM, "gpu 1 GPU-e28db54c: row remapping failed (+2 more)" },
        { "+N counts only GPUs at the level", 200,
          HEALTH(DEV(0, U(UUID0), , "degraded", "\"hardware slowdown\"") "," DEV(1, U(UUID1), , "unhealthy",
                                                                                 "\"row remapping failed\"")),
          false, XPUD_NPD_PROBLEM, "gpu 1 GPU-e28db54c: row remapping failed" },
        { "a long reason is cut to 80 bytes, visibly", 200,
          HEALTH(DEV(0, U(UUID0), , "unhealthy",
                     "\"Xid 79: GPU has fallen off the bus (kernel log at 7203.114825 s after boot: NVRM: Xid "
                     "(PCI:0000:1a:00): 79, pid=1234)\"") ","
                 DEV(1, U(UUID1), , "unhealthy", "\"y\"")),
          false, XPUD_NPD_PROBLEM,
          "gpu 0 GPU-307dcc96: Xid 79: GPU has fallen off the bus (kernel log ... (+1 more)" },
        { "a UTF-8 reason cut to 80 bytes", 200,
          HEALTH(DEV(0, U(UUID0), , "unhealthy",
                     "\"junction temperature 106 °C at or above its shutdown limit 105 °C; ° ° ° ° ° ° ° °\"")),
          false, XPUD_NPD_PROBLEM, "gpu 0 GPU-307dcc96: junction temperature 106 °C at or above its shutdown lim..." },
        { "never inside a UTF-8 character", 200,
          HEALTH(DEV(0, U(UUID0), , "unhealthy", "\"°°°°°°°°°°°°°°°°°°°°°°°°°°°°°°°°°°°°°°°°\"")), false, XPUD_NPD_PROBLEM,
          "gpu 0 GPU-307dcc96: °°°°°°°°°°°°°°°°°°°°°°°°°°°°..." },
        { "a UUID that is not ASCII", 200, HEALTH(DEV(4, U("GPU-\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9"), , "unhealthy", "\"x\"")),
          false, XPUD_NPD_PROBLEM, "gpu 4 GPU-????????: x" },
        { "no usable index", 200, "{\"devices\":[{\"index\":-1,\"state\":\"unhealthy\",\"reasons\":[5]}]}", false,
          XPUD_NPD_PROBLEM, "gpu ?: unhealthy" },
        { "control characters become blanks", 200, HEALTH(DEV(0, U(UUID0), , "unhealthy", "\"a\\nb\\tc\\u0001d\"")),
          false, XPUD_NPD_PROBLEM, "gpu 0 GPU-307dcc96: a b c d" },
        { "503 before the first sample", 503, "{\"error\":\"not ready: the first sample is not done yet\"}", false,
          XPUD_NPD_UNKNOWN, "xpud has no sample yet (HTTP 503); retrying at the next run" },
        { "403", 403, "{\"error\":\"forbidden\"}", false, XPUD_NPD_UNKNOWN, "xpud answered /v1/health with HTTP 403" },
        { "not JSON", 200, "garbage", false, XPUD_NPD_UNKNOWN, "xpud's /v1/health answer has no devices list" },
        { "devices not a list", 200, "{\"devices\":{}}", false, XPUD_NPD_UNKNOWN,
          "xpud's /v1/health answer has no devices list" },
        { "a device without a state", 200, "{\"devices\":[{\"index\":0}]}", false, XPUD_NPD_UNKNOWN,
          "xpud's /v1/health answer has a device without a known state" },
        { "an unknown state", 200, HEALTH(DEV(0, U(UUID0), , "on fire", "")), true, XPUD_NPD_UNKNOWN,
          "xpud's /v1/health answer has a device without a known state" },
};

START_TEST(test_verdict) {
        const struct npd_case *c = &cases[_i];
        char line[XPUD_NPD_LINE_MAX + 1];
        memset(line, 'Z', sizeof line);
        int r = xpud_npd_verdict(c->status, c->body, strlen(c->body), c->degraded, line, sizeof line);
        ck_assert_msg(r == c->want, "%s: exit %d, want %d (\"%s\")", c->what, r, c->want, line);
        ck_assert_msg(strcmp(line, c->want_line) == 0, "%s:\n got \"%s\"\nwant \"%s\"", c->what, line, c->want_line);
        ck_assert_uint_le(strlen(line), XPUD_NPD_LINE_MAX);
        for (const char *p = line; *p; p++)
                ck_assert_msg((unsigned char)*p >= 0x20 && *p != 0x7f, "%s: control byte in \"%s\"", c->what, line);
}
END_TEST

/* Whatever the body, the line stays within 80 bytes, one line, and the verdict is one of three. */
START_TEST(test_verdict_bounded) {
        char reason[1024], body[4096], line[XPUD_NPD_LINE_MAX + 1];
        for (size_t n = 0; n < sizeof reason - 1; n += 37) {
                memset(reason, 'r', n);
                reason[n] = '\0';
                snprintf(body, sizeof body,
                         "{\"devices\":[{\"index\":123456,\"uuid\":\"%s\",\"state\":\"unhealthy\",\"reasons\":[\"%s\"]},"
                         "{\"index\":1,\"state\":\"unhealthy\"}]}",
                         reason, reason);
                int r = xpud_npd_verdict(200, body, strlen(body), false, line, sizeof line);
                ck_assert_int_eq(r, XPUD_NPD_PROBLEM);
                ck_assert_uint_le(strlen(line), XPUD_NPD_LINE_MAX);
                ck_assert_ptr_nonnull(strstr(line, "(+1 more)"));
        }
        static const char nul[] = "{\"devices\":[]}\0{";
        ck_assert_int_eq(xpud_npd_verdict(200, nul, sizeof nul - 1, false, line, sizeof line), XPUD_NPD_UNKNOWN);
        ck_assert_int_eq(xpud_npd_verdict(200, "", 0, true, line, sizeof line), XPUD_NPD_UNKNOWN);
}
END_TEST

static int parse(struct xpud_options *o, char *err, size_t size, const char *const *args) {
        char *argv[8] = { (char *)"xpud" };
        int argc = 1;
        for (size_t i = 0; args[i] && argc < 7; i++)
                argv[argc++] = (char *)args[i];
        argv[argc] = NULL;
        return xpud_options_parse(argc, argv, o, err, size);
}

#define PARSE(o, err, ...) parse(o, err, sizeof err, (const char *const[]){ __VA_ARGS__, NULL })

START_TEST(test_options) {
        struct xpud_options o;
        char err[256];
        ck_assert_int_eq(PARSE(&o, err, "query"), 0);
        ck_assert(!o.query_npd);
        ck_assert_int_eq(PARSE(&o, err, "query", "--npd"), 0);
        ck_assert_int_eq(o.action, XPUD_ACTION_QUERY);
        ck_assert(o.query_npd && !o.query_npd_degraded);
        ck_assert_int_eq(PARSE(&o, err, "query", "--socket", "/tmp/x.sock", "--npd=degraded"), 0);
        ck_assert(o.query_npd && o.query_npd_degraded);
        ck_assert_str_eq(o.socket_path, "/tmp/x.sock");
        ck_assert_int_eq(PARSE(&o, err, "query", "--npd=unhealthy"), 0);
        ck_assert(o.query_npd && !o.query_npd_degraded);
        static const struct {
                const char *args[4];
                const char *message;
        } bad[] = {
                { { "query", "--npd=warm" }, "--npd: unknown level \"warm\" (use --npd, --npd=unhealthy or --npd=degraded)" },
                { { "query", "--npd", "degraded" }, "xpud query --npd: unexpected argument \"degraded\"" },
                { { "query", "--npd", "/v1/health" }, "xpud query --npd: unexpected argument \"/v1/health\"" },
                { { "--npd" }, "unknown option" },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                ck_assert_int_eq(parse(&o, err, sizeof err, bad[i].args), -EINVAL);
                ck_assert_msg(strstr(err, bad[i].message), "got \"%s\", want \"%s\"", err, bad[i].message);
        }
}
END_TEST

/* No xpud on the socket: exit 2, one line saying so, within 80 bytes. */
START_TEST(test_unreachable) {
        char *dir = xpu_test_mkdtemp();
        char sock[512], out[512] = "";
        snprintf(sock, sizeof sock, "%s/xpud.sock", dir);
        FILE *f = tmpfile();
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(xpud_query_npd(sock, false, f), XPUD_NPD_UNKNOWN);
        rewind(f);
        ck_assert_ptr_nonnull(fgets(out, sizeof out, f));
        fclose(f);
        ck_assert_str_eq(out, "xpud unreachable: cannot connect: No such file or directory\n");
        ck_assert_uint_le(strlen(out), XPUD_NPD_LINE_MAX + 1); /* with its newline */
        ck_assert_int_eq(out[strlen(out) - 1], '\n');
        xpu_test_rm_rf(dir);
        free(dir);
}
END_TEST

static Suite *npd_suite(void) {
        Suite *s = suite_create("xpud-query.npd");
        TCase *tc = tcase_create("core");
        tcase_add_loop_test(tc, test_verdict, 0, (int)ELEMENTSOF(cases));
        tcase_add_test(tc, test_verdict_bounded);
        tcase_add_test(tc, test_options);
        tcase_add_test(tc, test_unreachable);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(npd_suite());
}
