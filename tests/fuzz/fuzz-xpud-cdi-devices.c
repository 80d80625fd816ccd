/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: one CDI spec file's bytes as xpud reads them back (daemon/cdi-spec-read.h, through
 * the bounded YAML reader of daemon/yaml-json.h that takes .yaml and .json alike), then the bytes
 * as a qualified device name (xpud_cdi_qualified_name_valid, the lookup's check).
 *
 * Checked besides memory safety (abort() when broken): a spec is accepted only with a valid kind
 * and at least one device, every device name valid and unique, every node with a path, a known
 * type and numbers in the kernel's range; a refusal says why (a non-empty error) and returns
 * -EINVAL, -E2BIG or -ENOMEM. Corpus: tests/fuzz/corpus/xpud-cdi-devices/ (the specs of
 * tests/fixtures/cdi/ and hostile ones). */
#include <errno.h>
#include <string.h>

#include "cdi-spec-read.h"
#include "fuzz.h"

static void check_nodes(const struct xpud_cdi_node *nodes, size_t n) {
        for (size_t i = 0; i < n; i++) {
                const struct xpud_cdi_node *x = &nodes[i];
                if (!x->path || !*x->path || (x->host_path && !*x->host_path) || x->type > XPUD_CDI_NODE_OTHER ||
                    x->major > 0xfff || x->minor > 0xfffff || (x->has_numbers && x->major == 0))
                        abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = (char *)fuzz_memdup(data, size);
        if (!text)
                return 0;
        struct xpud_cdi_spec *s = NULL;
        char err[256] = "";
        int r = xpud_cdi_spec_read(text, size, &s, err, sizeof err);
        if (r == 0) {
                if (!s || !xpud_cdi_kind_valid(s->kind) || s->n_devices == 0)
                        abort();
                for (size_t i = 0; i < s->n_devices; i++) {
                        if (!xpud_cdi_device_name_valid(s->devices[i].name))
                                abort();
                        for (size_t k = 0; k < i; k++)
                                if (strcmp(s->devices[k].name, s->devices[i].name) == 0)
                                        abort();
                        check_nodes(s->devices[i].nodes, s->devices[i].n_nodes);
                }
                check_nodes(s->common, s->n_common);
                xpud_cdi_spec_free(s);
        } else if ((r != -EINVAL && r != -E2BIG && r != -ENOMEM) || (r != -ENOMEM && !err[0]))
                abort();
        free(text);

        char *name = fuzz_strndup(data, size);
        if (name) {
                (void)xpud_cdi_qualified_name_valid(name);
                free(name);
        }
        return 0;
}
