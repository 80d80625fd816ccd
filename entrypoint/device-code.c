/* SPDX-License-Identifier: Apache-2.0 */
/* The start-time device-code check's facts, read in the needs step (device-code.h has the
 * contract); device-code-verdict.c judges them. */
#include "device-code.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/macro.h"
#include "base/str.h"
#include "base/strv.h"
#include "devcode/object-json.h"
#include "version.h"
#include "vendor.h"

int xpu_device_code_index_load(const char *path, struct xpu_object **objects, size_t *n, char *err,
                               size_t err_size) {
        /* O_PATH, then reopened only when it is a regular file: a FIFO there is never opened. */
        _cleanup_close_ int pfd = open(path, O_PATH | O_CLOEXEC);
        if (pfd < 0) {
                if (errno == ENOENT)
                        return -ENOENT;
                xpu_format_error(err, err_size, "device-code index %s: %s", path, strerror(errno));
                return -EINVAL;
        }
        struct stat st;
        _cleanup_close_ int fd = xpu_reopen_regular(pfd, O_NONBLOCK, &st);
        if (fd < 0 && fd != -EISDIR && fd != -EINVAL) {
                xpu_format_error(err, err_size, "device-code index %s: %s", path, strerror(-fd));
                return -EINVAL;
        }
        if (fd < 0 || st.st_size > (off_t)XPU_DEVICE_CODE_INDEX_MAX) {
                xpu_format_error(err, err_size, "device-code index %s is not a regular file of at most %u MiB", path,
                                 XPU_DEVICE_CODE_INDEX_MAX >> 20);
                return -EINVAL;
        }
        _cleanup_free_ char *text = malloc((size_t)st.st_size + 1);
        if (!text)
                return -ENOMEM;
        ssize_t len = xpu_read_full(fd, text, (size_t)st.st_size);
        if (len < 0) {
                xpu_format_error(err, err_size, "device-code index %s: %s", path, strerror((int)-len));
                return -EINVAL;
        }
        char why[512];
        int r = xpu_index_parse(text, (size_t)len, objects, n, why, sizeof why);
        if (r == -EINVAL)
                xpu_format_error(err, err_size,
                                 "device-code index %s: %s; write it again with `xpuinit audit --write-index %s /` "
                                 "in the image build",
                                 path, why, path);
        return r;
}

bool xpu_device_code_needs_rich_facts(const struct xpu_object *objects, size_t n) {
        for (size_t i = 0; i < n; i++) {
                /* A CUDA runtime is judged on the host's CUDA driver version, a rich fact. */
                if (objects[i].cudart_major)
                        return true;
                /* Device code of a vendor whose GPUs' targets only the rich path tells. */
                for (int v = 0; v < _XPU_VENDOR_MAX; v++) {
                        const struct xpu_vendor_code *code = &xpu_vendor((enum xpu_vendor)v)->code;
                        if (code->vendor && code->target_sources && xpu_object_has_code(&objects[i], code->vendor))
                                return true;
                }
        }
        return false;
}

bool xpu_device_code_targets_missing(const struct xpu_inventory *inv, const size_t *devices, size_t n) {
        for (size_t i = 0; i < (devices ? n : inv->n_devices); i++) {
                const struct xpu_device *d = &inv->devices[devices ? devices[i] : i];
                const struct xpu_vendor_ops *ops = xpu_vendor(d->vendor);
                char target[32];
                if (!ops || !ops->code.target_sources || !ops->code.target)
                        continue;
                ops->code.target(d, target, sizeof target);
                if (!target[0])
                        return true;
        }
        return false;
}

void xpu_device_code_facts_done(struct xpu_device_code_facts *f) {
        for (size_t i = 0; i < f->n; i++)
                xpu_object_clear(&f->objects[i]);
        free(f->objects);
        f->objects = NULL;
        f->n = 0;
}

int xpu_device_code_read(const struct xpu_device_code_setting *s, const struct xpu_profile *pr,
                         const struct xpu_inventory *inv, const struct xpu_selection *sel,
                         struct xpu_device_code_facts *f) {
        *f = (struct xpu_device_code_facts){ .index = s->index };
        /* XPUINIT_DEVICE_CODE, else the profile's "device_code", else enforce. */
        f->mode = s->mode_set ? s->mode : pr->device_code_set ? pr->device_code : XPU_DEVICE_CODE_ENFORCE;
        /* The devices the plan takes (planner.c): the selected ones of the profile's vendor. */
        _cleanup_free_ size_t *devices = NULL;
        size_t n = 0;
        if (xpu_profile_take_devices(pr, inv, sel->selected, &devices, &n) < 0)
                return -ENOMEM;
        f->judged = f->mode != XPU_DEVICE_CODE_OFF && n > 0;
        if (!f->judged)
                return 0;
        f->error = xpu_device_code_index_load(s->index, &f->objects, &f->n, f->err, sizeof f->err);
        if (f->error == -ENOMEM)
                xpu_format_error(f->err, sizeof f->err, "device-code index %s: %s", s->index, strerror(ENOMEM));
        /* The compute capability and the CUDA version come from the rich path, asked for only here:
         * an image without NVIDIA device code never loads a vendor library for the check. */
        if (f->error == 0 && xpu_device_code_needs_rich_facts(f->objects, f->n) &&
            xpu_device_code_targets_missing(inv, devices, n))
                for (int v = 0; v < _XPU_VENDOR_MAX; v++)
                        f->rich_sources |= xpu_vendors[v]->code.target_sources;
        return 0;
}
