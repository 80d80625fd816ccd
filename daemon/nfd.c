/* SPDX-License-Identifier: Apache-2.0 */
/* Node Feature Discovery labels file (nfd.h). */
#include "nfd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/macro.h"
#include "device-targets.h"
#include "health.h"
#include "vendor.h"

static bool label_char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
               c == '-';
}

static bool alnum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

size_t xpud_nfd_label_value(const char *in, char *out, size_t size) {
        if (!out || size == 0)
                return 0;
        size_t n = 0, max = size - 1 < XPUD_NFD_VALUE_MAX ? size - 1 : XPUD_NFD_VALUE_MAX;
        bool dash = false;
        for (const char *p = in ? in : ""; *p && n < max; p++) {
                if (label_char(*p)) {
                        out[n++] = *p;
                        dash = false;
                } else if (!dash) {
                        out[n++] = '-';
                        dash = true;
                }
        }
        while (n > 0 && !alnum(out[n - 1]))
                n--;
        size_t start = 0;
        while (start < n && !alnum(out[start]))
                start++;
        memmove(out, out + start, n - start);
        n -= start;
        out[n] = '\0';
        return n;
}

/* One "prefix name=value" line, VALUE sanitised; nothing when it sanitises to "". */
static void put_label(FILE *f, const char *name, const char *value) {
        char v[XPUD_NFD_VALUE_MAX + 1];
        if (xpud_nfd_label_value(value, v, sizeof v) > 0)
                fprintf(f, XPUD_NFD_PREFIX "%s=%s\n", name, v);
}

static void put_count(FILE *f, const char *name, size_t n) {
        char v[24];
        snprintf(v, sizeof v, "%zu", n);
        put_label(f, name, v);
}

/* put_label() as a vendor's node-label hook calls it (vendor.h). */
static void put_vendor_label(void *f, const char *name, const char *value) {
        put_label(f, name, value);
}

/* The labels that say what the node can run: vendor, device-code targets, the vendors' own
 * (NVIDIA compute capability and CUDA version, AMD generic family: each descriptor's
 * k8s.node_labels), smallest memory, partitioning. Each is left out when a device's fact it needs
 * is unknown: a label never speaks for a GPU it did not see. */
static int put_node_labels(FILE *f, const struct xpud_snapshot *s) {
        if (s->n_devices == 0)
                return 0;
        /* The snapshot's devices as an inventory (lost ones included, as xpu.count counts them),
         * with the host facts of the snapshot's. */
        _cleanup_free_ struct xpu_device *devs = calloc(s->n_devices, sizeof *devs);
        if (!devs)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_devices; i++)
                devs[i] = s->devices[i].dev;
        struct xpu_inventory view = { .devices = devs, .n_devices = s->n_devices };
        if (s->inv)
                memcpy(view.vendors, s->inv->vendors, sizeof view.vendors);
        const struct xpu_inventory *inv = &view;
        const char *vendor = NULL;
        for (size_t i = 0; i < inv->n_devices; i++) {
                const char *v = xpu_vendor_to_string(inv->devices[i].vendor);
                vendor = !vendor || strcmp(vendor, v) == 0 ? v : "mixed";
        }
        put_label(f, "xpu.vendor", vendor);

        struct xpu_code_target t[XPU_DEVICE_CODE_TARGETS_MAX];
        size_t unknown = 0, known = 0;
        size_t nt = xpu_device_code_targets(inv, NULL, 0, t, ELEMENTSOF(t), &unknown);
        for (size_t i = 0; i < nt; i++)
                known += !t[i].unknown;
        /* Target features (":xnack-") are not label characters; the processor decides. */
        char arch[XPU_DEVICE_CODE_TARGETS_MAX][64];
        for (size_t i = 0; i < nt; i++)
                snprintf(arch[i], sizeof arch[i], "%.*s", (int)strcspn(t[i].name, ":"), t[i].name);
        if (known >= 2)
                put_label(f, "xpu.arch", "mixed");
        else if (known == 1 && unknown == 0)
                put_label(f, "xpu.arch", arch[0]);
        if (known >= 2 || (known == 1 && unknown > 0))
                for (size_t i = 0; i < nt; i++) {
                        if (t[i].unknown)
                                continue;
                        char name[80];
                        snprintf(name, sizeof name, "xpu.arch.%.63s", arch[i]);
                        put_count(f, name, t[i].count);
                }

        for (int v = 0; v < _XPU_VENDOR_MAX; v++)
                if (xpu_vendors[v]->k8s && xpu_vendors[v]->k8s->node_labels)
                        xpu_vendors[v]->k8s->node_labels(inv, t, nt, put_vendor_label, f);

        uint64_t mem = UINT64_MAX;
        const char *partition = NULL;
        bool partition_known = true;
        for (size_t i = 0; i < inv->n_devices; i++) {
                const struct xpu_device *d = &inv->devices[i];
                if (mem != 0 && (d->have & XPU_HAVE_MEMORY_TOTAL) && d->memory_total_bytes > 0)
                        mem = d->memory_total_bytes < mem ? d->memory_total_bytes : mem;
                else
                        mem = 0; /* one device of unknown size: no smallest */
                const char *p = xpu_device_partition(d);
                partition_known = partition_known && p;
                if (p)
                        partition = !partition || strcmp(partition, p) == 0 ? p : "mixed";
        }
        if (mem != 0 && mem != UINT64_MAX)
                put_count(f, "xpu.memory.mib", (size_t)(mem >> 20));
        if (partition_known && partition)
                put_label(f, "xpu.partition", partition);
        return 0;
}

int xpud_nfd_render(const struct xpud_snapshot *s, char **ret, size_t *ret_len) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;
        size_t healthy = 0;
        for (size_t i = 0; i < s->n_devices; i++)
                healthy += s->devices[i].health == XPUD_HEALTH_HEALTHY;
        put_label(f, "xpu.present", s->n_devices > 0 ? "true" : "false");
        put_count(f, "xpu.count", s->n_devices);
        put_count(f, "xpu.healthy", healthy);
        for (int v = 0; v < _XPU_VENDOR_MAX; v++) {
                const char *vendor = xpu_vendor_to_string((enum xpu_vendor)v);
                const struct xpud_device *first = NULL;
                size_t n = 0, ok = 0;
                for (size_t i = 0; i < s->n_devices; i++) {
                        const struct xpud_device *d = &s->devices[i];
                        if (d->dev.vendor != (enum xpu_vendor)v)
                                continue;
                        if (!first || d->dev.index < first->dev.index)
                                first = d;
                        n++;
                        ok += d->health == XPUD_HEALTH_HEALTHY;
                }
                if (n == 0)
                        continue;
                char name[64];
                snprintf(name, sizeof name, "xpu.%s.count", vendor);
                put_count(f, name, n);
                snprintf(name, sizeof name, "xpu.%s.healthy", vendor);
                put_count(f, name, ok);
                snprintf(name, sizeof name, "xpu.%s.product", vendor);
                put_label(f, name, first->dev.name);
                snprintf(name, sizeof name, "xpu.%s.driver", vendor);
                put_label(f, name, s->inv ? s->inv->vendors[v].driver_version : first->dev.driver_version);
        }
        bool failed = put_node_labels(f, s) < 0 || ferror(f);
        if (fclose(f) != 0 || failed) {
                free(buf);
                return -ENOMEM;
        }
        *ret = buf;
        *ret_len = len;
        return 0;
}

int xpud_nfd_init(struct xpud_nfd *n, const char *path) {
        *n = (struct xpud_nfd){ 0 };
        n->path = strdup(path);
        return n->path ? 0 : -ENOMEM;
}

void xpud_nfd_done(struct xpud_nfd *n) {
        free(n->path);
        free(n->last);
        *n = (struct xpud_nfd){ 0 };
}

int xpud_nfd_update(struct xpud_nfd *n, const struct xpud_snapshot *s) {
        char *text = NULL;
        size_t len = 0;
        int r = xpud_nfd_render(s, &text, &len);
        if (r < 0)
                return r;
        if (n->last && strcmp(n->last, text) == 0) {
                free(text);
                return 0;
        }
        r = xpu_write_file_replace(n->path, text, len, 0644);
        free(n->last);
        n->last = NULL;
        if (r < 0) {
                free(text);
                return r;
        }
        n->last = text;
        return 1;
}
