/* SPDX-License-Identifier: Apache-2.0 */
/* --cdi-dir (cdi-dir.h). */
#include "cdi-dir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/macro.h"
#include "base/strv.h"
#include "cdi-spec.h"
#include "health.h"

int xpud_cdi_dir_init(struct xpud_cdi_dir *c, const char *dir, const char *host_root) {
        *c = (struct xpud_cdi_dir){ 0 };
        /* Resolved, as the dev and driver roots are: a prefix given through a symlink would match
         * none of their paths, and no host path would be written without it. */
        if (host_root && !(c->host_root = realpath(host_root, NULL))) {
                int e = negative_errno();
                log_error("--cdi-host-root %s: %m", host_root);
                return e;
        }
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/')
                n--;
        if (asprintf(&c->path, "%.*s/" XPUD_CDI_SPEC_NAME, (int)n, dir) < 0) {
                c->path = NULL;
                return -ENOMEM;
        }
        return 0;
}

/* The devices of S's inventory that S does not hold lost (a GPU that fell off the bus, or no longer
 * listed, is kept in the snapshot for xpu_up 0; an engine must not hand it out), as an inventory
 * that borrows S's (free only its devices array). Returns 0 or -ENOMEM. */
static int usable_devices(const struct xpud_snapshot *s, struct xpu_inventory *out) {
        *out = *s->inv;
        out->devices = calloc(s->inv->n_devices + 1, sizeof *out->devices);
        if (!out->devices)
                return -ENOMEM;
        out->n_devices = 0;
        for (size_t i = 0; i < s->inv->n_devices; i++) {
                bool lost = false;
                for (size_t k = 0; k < s->n_devices; k++)
                        if (xpud_device_same(&s->devices[k].dev, &s->inv->devices[i]))
                                lost = lost || s->devices[k].r.lost;
                if (!lost)
                        out->devices[out->n_devices++] = s->inv->devices[i];
        }
        return 0;
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

int xpud_cdi_dir_update(struct xpud_cdi_dir *c, const struct xpud_snapshot *s, const struct xpu_roots *roots) {
        struct xpu_inventory inv;
        if (usable_devices(s, &inv) < 0)
                return note(c, -ENOMEM);
        const struct xpu_cdi_roots cr = {
                .dev_root = roots->dev,
                .driver_root = roots->driver,
                .driver_fd = roots->driver_fd,
                .host_root = c->host_root,
        };
        /* Built at every sample and compared as text: a node's numbers, mode or group, or driver
         * files that appear later (a driver container filling its root), change the spec as
         * surely as a GPU does. */
        cJSON *spec = NULL;
        char **warnings = NULL;
        char err[1024] = "";
        int r = xpu_cdi_spec_build(&inv, &cr, XPU_CDI_KIND_DEFAULT, &spec, &warnings, err, sizeof err);
        free(inv.devices);
        char *text = r > 0 ? cJSON_Print(spec) : strdup("");
        cJSON_Delete(spec);
        if (!text) {
                xpu_strv_free(warnings);
                return note(c, -ENOMEM);
        }
        bool changed = r < 0 ? c->error != r : !c->key || strcmp(c->key, text) != 0;
        for (size_t i = 0; changed && warnings && warnings[i]; i++)
                log_warning("--cdi-dir: %s", warnings[i]);
        xpu_strv_free(warnings);
        if (r < 0) {
                free(text);
                if (r == -EIO && changed)
                        log_warning("--cdi-dir: %s", err);
                return note(c, r);
        }
        if (!changed && c->error == 0) {
                free(text);
                return 0;
        }
        free(c->key);
        c->key = text;
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
        r = xpu_write_file_replace(c->path, text, strlen(text), 0644);
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
        free(c->host_root);
        *c = (struct xpud_cdi_dir){ 0 };
}
