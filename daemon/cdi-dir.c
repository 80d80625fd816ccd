/* SPDX-License-Identifier: Apache-2.0 */
/* --cdi-dir (cdi-dir.h). */
#include "cdi-dir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/macro.h"
#include "base/strv.h"
#include "cdi-spec.h"

int xpud_cdi_dir_init(struct xpud_cdi_dir *c, const char *dir, const char *host_root) {
        *c = (struct xpud_cdi_dir){ .host_root = host_root };
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/')
                n--;
        if (asprintf(&c->path, "%.*s/" XPUD_CDI_SPEC_NAME, (int)n, dir) < 0) {
                c->path = NULL;
                return -ENOMEM;
        }
        return 0;
}

/* What a spec of INV is made of: the driver versions, the vendor nodes and every GPU's identity and
 * nodes, with whether each node is there. Returns a malloc'ed string or NULL. */
static char *spec_key(const struct xpu_inventory *inv) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return NULL;
        for (int v = 0; v < _XPU_VENDOR_MAX; v++) {
                const struct xpu_vendor_info *vi = &inv->vendors[v];
                fprintf(f, "%d %s", v, vi->driver_version);
                for (size_t i = 0; i < vi->n_nodes; i++)
                        fprintf(f, " %s%c", vi->nodes[i].path, vi->nodes[i].present ? '+' : '-');
                fputc('\n', f);
        }
        for (size_t i = 0; i < inv->n_devices; i++) {
                const struct xpu_device *d = &inv->devices[i];
                fprintf(f, "%u %d %s %s %u %u", d->index, (int)d->vendor, d->uuid, d->pci_bus_id, d->partition,
                        (d->have & XPU_HAVE_CARD) ? d->card : ~0u);
                for (size_t k = 0; k < d->n_nodes; k++)
                        fprintf(f, " %s%c", d->nodes[k].path, d->nodes[k].present ? '+' : '-');
                fputc('\n', f);
        }
        bool failed = ferror(f);
        if (fclose(f) != 0 || failed) {
                free(buf);
                return NULL;
        }
        return buf;
}

/* Log a failure once per kind; a success after one says so. */
static int note(struct xpud_cdi_dir *c, int r) {
        if (r < 0 && r != c->error)
                log_warning("--cdi-dir: cannot write %s: %s; retrying at the next sample", c->path, strerror(-r));
        else if (r >= 0 && c->error < 0)
                log_info("--cdi-dir: %s written again", c->path);
        c->error = r < 0 ? r : 0;
        return r;
}

int xpud_cdi_dir_update(struct xpud_cdi_dir *c, const struct xpu_inventory *inv, const struct xpu_roots *roots) {
        char *key = spec_key(inv);
        if (!key)
                return note(c, -ENOMEM);
        if (c->key && c->error == 0 && strcmp(c->key, key) == 0) {
                free(key);
                return 0;
        }
        bool changed = !c->key || strcmp(c->key, key) != 0;
        free(c->key);
        c->key = key;
        const struct xpu_cdi_roots cr = {
                .dev_root = roots->dev,
                .driver_root = roots->driver,
                .driver_fd = roots->driver_fd,
                .host_root = c->host_root,
        };
        cJSON *spec = NULL;
        char **warnings = NULL;
        char err[1024] = "";
        int r = xpu_cdi_spec_build(inv, &cr, XPU_CDI_KIND_DEFAULT, &spec, &warnings, err, sizeof err);
        for (size_t i = 0; changed && warnings && warnings[i]; i++)
                log_warning("--cdi-dir: %s", warnings[i]);
        xpu_strv_free(warnings);
        if (r < 0) {
                if (r == -EIO && changed)
                        log_warning("--cdi-dir: %s", err);
                return note(c, r);
        }
        if (r == 0) {
                if (changed)
                        log_info("--cdi-dir: no spec: %s", err);
                if (c->written && unlink(c->path) < 0 && errno != ENOENT)
                        return note(c, negative_errno());
                bool was = c->written;
                c->written = false;
                note(c, 0);
                return was ? 1 : 0;
        }
        char *text = cJSON_Print(spec);
        cJSON_Delete(spec);
        if (!text)
                return note(c, -ENOMEM);
        size_t len = strlen(text);
        r = xpu_write_file_replace(c->path, text, len, 0644);
        free(text);
        if (r < 0)
                return note(c, r);
        c->written = true;
        note(c, 0);
        return 1;
}

void xpud_cdi_dir_done(struct xpud_cdi_dir *c) {
        if (c->written && c->path && unlink(c->path) < 0 && errno != ENOENT)
                log_warning("--cdi-dir: cannot remove %s: %m", c->path);
        free(c->path);
        free(c->key);
        *c = (struct xpud_cdi_dir){ 0 };
}
