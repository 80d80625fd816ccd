/* SPDX-License-Identifier: Apache-2.0 */
/* gathered: the gathered facts' lifetime and look-ups (gathered.h); the needs' lifetime too, as
 * the facts take them over. A library no step owns: the steps after gather read the facts. */
#include "gathered.h"

#include <stdlib.h>
#include <string.h>

#include "base/strv.h"

void xpu_plan_needs_done(struct xpu_plan_needs *n) {
        n->capabilities = xpu_strv_free(n->capabilities);
        n->ignored = xpu_strv_free(n->ignored);
        n->n_capabilities = n->n_ignored = 0;
}

struct xpu_plan_facts *xpu_plan_facts_free(struct xpu_plan_facts *f) {
        if (!f)
                return NULL;
        xpu_plan_needs_done(&f->needs);
        free(f->nodes);
        free(f->fabric);
        xpu_driver_files_free(f->files);
        xpu_driver_files_free(f->files32);
        xpu_host_files_free(f->host_files);
        xpu_host_list_free(f->host_list);
        free(f->host_file_present);
        free(f->host_dir_has_entries);
        free(f->given);
        for (int i = 0; i < _XPU_PLACEHOLDER_MAX; i++)
                free(f->placeholders[i]);
        free(f);
        return NULL;
}

const struct xpu_node_fact *xpu_plan_facts_node(const struct xpu_plan_facts *f, const char *path) {
        for (size_t i = 0; i < f->n_nodes; i++)
                if (strcmp(f->nodes[i].path, path) == 0)
                        return &f->nodes[i];
        return NULL;
}
