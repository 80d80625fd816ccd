/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: `xpud query --npd`'s verdict on an answer (daemon/query.h, xpud_npd_verdict()), as
 * the client hands it a body that came over the socket. Input: the first byte picks the HTTP
 * status (even: 200, odd: 503 when below 0x80, else 403) and the level (bit 6: degraded), the rest
 * is the body (any bytes, NULs included).
 *
 * Checked besides memory safety (abort() when broken): the verdict is 0, 1 or 2; the line is
 * NUL-terminated within XPUD_NPD_LINE_MAX bytes, holds no byte below 0x20 nor 0x7f (it stays one
 * line), starts with "OK: " for 0 and "gpu " for 1; a status other than 200 is always 2; and the
 * verdict is the same with a buffer of exactly XPUD_NPD_LINE_MAX + 1 bytes as with a larger one,
 * the line too. Corpus: tests/fuzz/corpus/xpud-npd/. */
#include <stdio.h>

#include "fuzz.h"
#include "query.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size < 1)
                return 0;
        int status = (data[0] & 1) == 0 ? 200 : data[0] < 0x80 ? 503 : 403;
        bool degraded = data[0] & 0x40;
        char *body = (char *)fuzz_memdup(data + 1, size - 1);
        if (!body)
                return 0;
        char line[XPUD_NPD_LINE_MAX + 1], big[512];
        memset(line, 'Z', sizeof line);
        int r = xpud_npd_verdict(status, body, size - 1, degraded, line, sizeof line);
        if (r != XPUD_NPD_OK && r != XPUD_NPD_PROBLEM && r != XPUD_NPD_UNKNOWN)
                abort();
        if (!memchr(line, '\0', sizeof line))
                abort();
        for (const char *p = line; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f)
                        abort();
        if ((r == XPUD_NPD_OK && strncmp(line, "OK: ", 4) != 0) ||
            (r == XPUD_NPD_PROBLEM && strncmp(line, "gpu ", 4) != 0) || (status != 200 && r != XPUD_NPD_UNKNOWN))
                abort();
        int r2 = xpud_npd_verdict(status, body, size - 1, degraded, big, sizeof big);
        if (r2 != r || strcmp(big, line) != 0)
                abort();
        free(body);
        return 0;
}
