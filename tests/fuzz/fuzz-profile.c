/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the runtime profile parser, xpu_profile_parse() (entrypoint/profile.h), on one
 * JSON text as read from a profile directory; a parsed profile is freed again (leaks show under
 * ASan's leak checker), and an error must leave *ret untouched and ERR terminated. Values that
 * carry placeholders go through xpu_env_expand() as the plan would.
 * Corpus: tests/fuzz/corpus/profile/ (the built-in profiles and broken variants). */
#include "fuzz.h"
#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *json = fuzz_strndup(data, size);
        if (!json)
                return 0;

        struct xpu_profile *p = NULL;
        char err[512] = "";
        if (xpu_profile_parse(json, "fuzz.json", &p, err, sizeof err) < 0) {
                if (p || strnlen(err, sizeof err) == sizeof err)
                        abort(); /* the contract: nothing returned on error, one terminated line */
        } else if (p) {
                static const char *const values[_XPU_PLACEHOLDER_MAX] = {"0,1", "0,1", "550.90.07",
                                                                         "/usr/lib/xpuinit"};
                for (size_t i = 0; i < p->n_env; i++) {
                        char *out = NULL;
                        if (p->env[i].value && xpu_env_expand(p->env[i].value, values, &out) == 0)
                                free(out);
                }
        }
        xpu_profile_free(p);
        free(json);
        return 0;
}
