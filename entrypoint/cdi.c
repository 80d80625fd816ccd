/* SPDX-License-Identifier: Apache-2.0 */
/* `xpuinit cdi generate` (cdi.h). */
#include "cdi.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/macro.h"
#include "base/strv.h"
#include "cdi-spec.h"

struct buffer {
        char *data;
        size_t len, size;
        bool failed;
};

static int buffer_write(void *userdata, unsigned char *bytes, size_t n) {
        struct buffer *b = userdata;
        if (b->len + n + 1 > b->size) {
                size_t want = b->size ? b->size * 2 : 4096;
                while (want < b->len + n + 1)
                        want *= 2;
                char *d = realloc(b->data, want);
                if (!d) {
                        b->failed = true;
                        return 0; /* libyaml: 0 is a write error */
                }
                b->data = d;
                b->size = want;
        }
        memcpy(b->data + b->len, bytes, n);
        b->len += n;
        b->data[b->len] = '\0';
        return 1;
}

static bool scalar(yaml_emitter_t *em, const char *s, bool quoted) {
        yaml_event_t ev;
        return yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), !quoted, quoted,
                                            quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_PLAIN_SCALAR_STYLE) &&
               yaml_emitter_emit(em, &ev);
}

/* Emit ITEM and what is below it. Returns 0, -EINVAL (a raw or invalid item), -ENOMEM. */
static int emit(yaml_emitter_t *em, const cJSON *item) {
        yaml_event_t ev;
        if (cJSON_IsObject(item) || cJSON_IsArray(item)) {
                bool map = cJSON_IsObject(item);
                if (!(map ? yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE)
                          : yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE)) ||
                    !yaml_emitter_emit(em, &ev))
                        return -ENOMEM;
                const cJSON *it;
                cJSON_ArrayForEach(it, item) {
                        /* Keys are the spec's own field names: plain. */
                        if (map && !scalar(em, it->string, false))
                                return -ENOMEM;
                        int r = emit(em, it);
                        if (r < 0)
                                return r;
                }
                if (!(map ? yaml_mapping_end_event_initialize(&ev) : yaml_sequence_end_event_initialize(&ev)) ||
                    !yaml_emitter_emit(em, &ev))
                        return -ENOMEM;
                return 0;
        }
        if (cJSON_IsString(item))
                return scalar(em, item->valuestring, true) ? 0 : -ENOMEM;
        if (cJSON_IsNumber(item)) {
                char num[32];
                double v = item->valuedouble;
                if (v >= -9007199254740992.0 && v <= 9007199254740992.0 && v == (double)(long long)v)
                        snprintf(num, sizeof num, "%lld", (long long)v);
                else
                        snprintf(num, sizeof num, "%.17g", v);
                return scalar(em, num, false) ? 0 : -ENOMEM;
        }
        if (cJSON_IsBool(item))
                return scalar(em, cJSON_IsTrue(item) ? "true" : "false", false) ? 0 : -ENOMEM;
        if (cJSON_IsNull(item))
                return scalar(em, "null", false) ? 0 : -ENOMEM;
        return -EINVAL;
}

int xpu_cdi_yaml(const cJSON *spec, char **ret, size_t *ret_len) {
        struct buffer b = { 0 };
        yaml_emitter_t em;
        yaml_event_t ev;
        if (!yaml_emitter_initialize(&em))
                return -ENOMEM;
        yaml_emitter_set_output(&em, buffer_write, &b);
        yaml_emitter_set_unicode(&em, 1);
        yaml_emitter_set_width(&em, -1); /* no folding of long paths */
        int r = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) && yaml_emitter_emit(&em, &ev) &&
                                yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) &&
                                yaml_emitter_emit(&em, &ev)
                        ? 0
                        : -ENOMEM;
        if (r == 0)
                r = emit(&em, spec);
        if (r == 0 && !(yaml_document_end_event_initialize(&ev, 1) && yaml_emitter_emit(&em, &ev) &&
                        yaml_stream_end_event_initialize(&ev) && yaml_emitter_emit(&em, &ev) &&
                        yaml_emitter_flush(&em)))
                r = -ENOMEM;
        yaml_emitter_delete(&em);
        if (r < 0 || b.failed || !b.data) {
                free(b.data);
                return r < 0 ? r : -ENOMEM;
        }
        *ret = b.data;
        *ret_len = b.len;
        return 0;
}

/* FILE's suffix ("" when its last path component has no dot). */
static const char *suffix_of(const char *file) {
        const char *base = strrchr(file, '/'), *dot = strrchr(base ? base : file, '.');
        return dot ? dot : "";
}

/* The format --format gave, else the one --output's name says (.yaml, .yml), else JSON. */
static bool want_yaml(const struct xpu_cdi_options *o) {
        if (o->cdi_format)
                return strcmp(o->cdi_format, "yaml") == 0;
        const char *sfx = o->cdi_output ? suffix_of(o->cdi_output) : "";
        return strcmp(sfx, ".yaml") == 0 || strcmp(sfx, ".yml") == 0;
}

/* Engines (the container-device-interface library of podman, CRI-O and containerd) load from a
 * spec directory only the files whose suffix is exactly ".json" or ".yaml": any other name is
 * written but never read, with nothing but "unresolvable CDI devices" at run time to show. */
static void warn_unread_name(const char *file) {
        const char *sfx = suffix_of(file);
        if (strcmp(sfx, ".json") != 0 && strcmp(sfx, ".yaml") != 0)
                log_warning("cdi: %s: container engines read only spec files named *.json or *.yaml from a CDI "
                            "directory (/etc/cdi, /var/run/cdi), so they will not see this one there; name it "
                            "e.g. xpuinit.yaml",
                            file);
}

int xpu_cdi_generate(const struct xpu_cdi_options *o, const struct xpu_roots *roots, const struct xpu_inventory *inv,
                     FILE *out) {
        /* The spec is read by the engine from anywhere: absolute paths, without "..". */
        char dev[PATH_MAX], driver[PATH_MAX];
        if (!realpath(roots->dev, dev) || !realpath(roots->driver, driver)) {
                log_error("cdi generate: cannot resolve the dev root %s or the driver root %s: %m", roots->dev,
                          roots->driver);
                return 125;
        }
        /* The host root resolved like the others: through a symlink it would prefix none of them. */
        char host[PATH_MAX];
        if (o->cdi_host_root && !realpath(o->cdi_host_root, host)) {
                log_error("cdi generate: --host-root %s: %m", o->cdi_host_root);
                return 125;
        }
        const struct xpu_cdi_roots cr = {
                .dev_root = dev,
                .driver_root = driver,
                .driver_fd = roots->driver_fd,
                .host_root = o->cdi_host_root ? host : NULL,
        };
        const char *kind = o->cdi_kind ? o->cdi_kind : XPU_CDI_KIND_DEFAULT;
        char err[1024] = "";
        cJSON *spec = NULL;
        char **warnings = NULL;
        int r = xpu_cdi_spec_build(inv, &cr, kind, &spec, &warnings, err, sizeof err);
        int given = r;
        for (size_t i = 0; warnings && warnings[i]; i++)
                log_warning("cdi: %s", warnings[i]);
        xpu_strv_free(warnings);
        if (r <= 0) {
                log_error("cdi generate: %s", r == 0 || r == -EIO ? err : strerror(-r));
                return 125;
        }
        char *text = NULL;
        size_t len = 0;
        if (want_yaml(o)) {
                r = xpu_cdi_yaml(spec, &text, &len);
        } else {
                text = cJSON_Print(spec);
                r = text ? 0 : -ENOMEM;
                if (text) {
                        len = strlen(text);
                        char *nl = realloc(text, len + 2);
                        if (nl) {
                                text = nl;
                                memcpy(text + len, "\n", 2);
                                len++;
                        } else
                                r = -ENOMEM;
                }
        }
        cJSON_Delete(spec);
        if (r < 0) {
                free(text);
                log_error("cdi generate: %s", strerror(-r));
                return 125;
        }
        int status = 0;
        if (o->cdi_output && strcmp(o->cdi_output, "-") != 0) {
                warn_unread_name(o->cdi_output);
                r = xpu_write_file_replace(o->cdi_output, text, len, 0644);
                if (r == -EEXIST) {
                        log_error("cdi generate: %s is there and is not a regular file (a device node, a symlink "
                                  "such as /dev/stdout, a directory): it is not replaced; give a file name, or - "
                                  "for standard output",
                                  o->cdi_output);
                        status = 125;
                } else if (r < 0) {
                        log_error("cdi generate: cannot write %s: %s (give a file in a directory you can write, "
                                  "e.g. /etc/cdi/xpuinit.yaml or /var/run/cdi/xpuinit.json)",
                                  o->cdi_output, strerror(-r));
                        status = 125;
                } else
                        log_info("cdi: wrote %s (%d GPU(s) as %s=...)", o->cdi_output, given, kind);
        } else if (fwrite(text, 1, len, out) != len || fflush(out) != 0) {
                log_error("cdi generate: cannot write the spec: %m");
                status = 125;
        }
        free(text);
        return status;
}
