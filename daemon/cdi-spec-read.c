/* SPDX-License-Identifier: Apache-2.0 */
/* One CDI spec file read back (cdi-spec-read.h). */
#include "cdi-spec-read.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/macro.h"
#include "yaml-json.h"

#define MAJOR_MAX 0xfffu   /* the kernel's 12 bits of major */
#define MINOR_MAX 0xfffffu /* and 20 of minor */

static bool is_alpha(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static bool is_alnum(char c) {
        return is_alpha(c) || (c >= '0' && c <= '9');
}

/* The CDI parser's rule for a vendor or class (N bytes of S): a letter first, a letter or digit
 * last, letters, digits, '_', '-', '.' between; at most MAX bytes. */
static bool vendor_or_class_ok(const char *s, size_t n, size_t max) {
        if (n == 0 || n > max || !is_alpha(s[0]) || !is_alnum(s[n - 1]))
                return false;
        for (size_t i = 1; i + 1 < n; i++)
                if (!is_alnum(s[i]) && !strchr("_-.", s[i]))
                        return false;
        return true;
}

/* The kind part of "<vendor>/<class>" (N bytes of S). */
static bool kind_ok(const char *s, size_t n) {
        const char *slash = memchr(s, '/', n);
        if (!slash)
                return false;
        size_t nv = (size_t)(slash - s);
        return vendor_or_class_ok(s, nv, 253) && vendor_or_class_ok(slash + 1, n - nv - 1, 63);
}

bool xpud_cdi_kind_valid(const char *kind) {
        return kind && kind_ok(kind, strlen(kind));
}

bool xpud_cdi_device_name_valid(const char *name) {
        size_t n = name ? strlen(name) : 0;
        if (n == 0 || !is_alnum(name[0]) || !is_alnum(name[n - 1]))
                return false;
        for (size_t i = 1; i + 1 < n; i++)
                if (!is_alnum(name[i]) && !strchr("_-.:", name[i]))
                        return false;
        return true;
}

bool xpud_cdi_qualified_name_valid(const char *qname) {
        const char *eq = qname ? strchr(qname, '=') : NULL;
        return eq && kind_ok(qname, (size_t)(eq - qname)) && xpud_cdi_device_name_valid(eq + 1);
}

/* "X.Y.Z", decimal. */
static bool version_ok(const char *v) {
        for (int part = 0; part < 3; part++) {
                if (!(*v >= '0' && *v <= '9'))
                        return false;
                while (*v >= '0' && *v <= '9')
                        v++;
                if (part < 2 && *v++ != '.')
                        return false;
        }
        return *v == '\0';
}

static void node_clear(struct xpud_cdi_node *n) {
        free(n->path);
        free(n->host_path);
}

static void nodes_free(struct xpud_cdi_node *nodes, size_t n) {
        for (size_t i = 0; i < n; i++)
                node_clear(&nodes[i]);
        free(nodes);
}

struct xpud_cdi_spec *xpud_cdi_spec_free(struct xpud_cdi_spec *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_devices; i++) {
                free(s->devices[i].name);
                nodes_free(s->devices[i].nodes, s->devices[i].n_nodes);
        }
        free(s->devices);
        nodes_free(s->common, s->n_common);
        free(s->kind);
        free(s);
        return NULL;
}

/* The string field KEY of O into *RET (absent or null: NULL, 0); -EINVAL when it is no scalar. */
static int get_string(const cJSON *o, const char *key, const char *where, char **ret, char *err, size_t err_size) {
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
        *ret = NULL;
        if (!it || cJSON_IsNull(it))
                return 0;
        /* A plain scalar read as a number or boolean is still text to a string field, as the CDI
         * library reads it (a device named 0). */
        const char *s = xpud_yaml_text(it);
        if (!s) {
                xpu_format_error(err, err_size, "%s%s is not a string", where, key);
                return -EINVAL;
        }
        return (*ret = strdup(s)) ? 0 : -ENOMEM;
}

/* A number field KEY of O at most MAX (absent: *HAVE false). */
static int get_number(const cJSON *o, const char *key, const char *where, unsigned max, bool *have, unsigned *ret,
                      char *err, size_t err_size) {
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
        *have = false;
        *ret = 0;
        if (!it || cJSON_IsNull(it))
                return 0;
        double d = cJSON_IsNumber(it) ? it->valuedouble : -1.0;
        if (!cJSON_IsNumber(it) || d < 0 || d > (double)max || d != floor(d)) {
                xpu_format_error(err, err_size, "%s%s is not an integer from 0 to %u", where, key, max);
                return -EINVAL;
        }
        *have = true;
        *ret = (unsigned)d;
        return 0;
}

static int read_node(const cJSON *o, const char *where, struct xpud_cdi_node *n, char *err, size_t err_size) {
        _cleanup_free_ char *type = NULL;
        bool have_major, have_minor;
        int r;
        if (!cJSON_IsObject(o)) {
                xpu_format_error(err, err_size, "%s is not a mapping", where);
                return -EINVAL;
        }
        char w[128];
        snprintf(w, sizeof w, "%s.", where);
        if ((r = get_string(o, "path", w, &n->path, err, err_size)) < 0 ||
            (r = get_string(o, "hostPath", w, &n->host_path, err, err_size)) < 0 ||
            (r = get_string(o, "type", w, &type, err, err_size)) < 0 ||
            (r = get_number(o, "major", w, MAJOR_MAX, &have_major, &n->major, err, err_size)) < 0 ||
            (r = get_number(o, "minor", w, MINOR_MAX, &have_minor, &n->minor, err, err_size)) < 0)
                return r;
        if (!n->path || !*n->path) {
                xpu_format_error(err, err_size, "%spath is missing: every device node needs one", w);
                return -EINVAL;
        }
        if (n->host_path && !*n->host_path) {
                free(n->host_path);
                n->host_path = NULL;
        }
        if (!type || !*type)
                n->type = XPUD_CDI_NODE_UNSET;
        else if (strcmp(type, "c") == 0 || strcmp(type, "u") == 0)
                n->type = XPUD_CDI_NODE_CHAR;
        else if (strcmp(type, "b") == 0 || strcmp(type, "p") == 0)
                n->type = XPUD_CDI_NODE_OTHER;
        else {
                xpu_format_error(err, err_size, "%stype is \"%s\": one of c, u, b, p, or none", w, type);
                return -EINVAL;
        }
        n->has_numbers = have_major && n->major != 0;
        return 0;
}

/* The deviceNodes of containerEdits EDITS (may be NULL) into *RET, *N. */
static int read_edits(const cJSON *edits, const char *where, struct xpud_cdi_node **ret, size_t *n, char *err,
                      size_t err_size) {
        *ret = NULL;
        *n = 0;
        if (!edits || cJSON_IsNull(edits))
                return 0;
        if (!cJSON_IsObject(edits)) {
                xpu_format_error(err, err_size, "%scontainerEdits is not a mapping", where);
                return -EINVAL;
        }
        const cJSON *dn = cJSON_GetObjectItemCaseSensitive(edits, "deviceNodes");
        if (!dn || cJSON_IsNull(dn))
                return 0;
        if (!cJSON_IsArray(dn)) {
                xpu_format_error(err, err_size, "%scontainerEdits.deviceNodes is not a sequence", where);
                return -EINVAL;
        }
        size_t count = (size_t)cJSON_GetArraySize(dn);
        struct xpud_cdi_node *nodes = calloc(count ? count : 1, sizeof *nodes);
        if (!nodes)
                return -ENOMEM;
        size_t i = 0;
        const cJSON *it;
        int r = 0;
        cJSON_ArrayForEach(it, dn) {
                char w[96];
                snprintf(w, sizeof w, "%scontainerEdits.deviceNodes[%zu]", where, i);
                r = read_node(it, w, &nodes[i], err, err_size);
                i++;
                if (r < 0)
                        break;
        }
        if (r < 0) {
                nodes_free(nodes, i);
                return r;
        }
        *ret = nodes;
        *n = count;
        return 0;
}

static int name_cmp(const void *a, const void *b) {
        const struct xpud_cdi_spec_device *x = *(const struct xpud_cdi_spec_device *const *)a;
        const struct xpud_cdi_spec_device *y = *(const struct xpud_cdi_spec_device *const *)b;
        return strcmp(x->name, y->name);
}

/* CDI refuses a spec that names a device twice ("invalid spec, multiple device"). */
static int check_unique(const struct xpud_cdi_spec *s, char *err, size_t err_size) {
        _cleanup_free_ const struct xpud_cdi_spec_device **v = calloc(s->n_devices, sizeof *v);
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < s->n_devices; i++)
                v[i] = &s->devices[i];
        qsort(v, s->n_devices, sizeof *v, name_cmp);
        for (size_t i = 1; i < s->n_devices; i++)
                if (strcmp(v[i - 1]->name, v[i]->name) == 0) {
                        xpu_format_error(err, err_size, "device \"%s\" is named twice: give each device its own name",
                                         v[i]->name);
                        return -EINVAL;
                }
        return 0;
}

static int read_devices(const cJSON *devs, struct xpud_cdi_spec *s, char *err, size_t err_size) {
        if (!cJSON_IsArray(devs) || cJSON_GetArraySize(devs) == 0) {
                xpu_format_error(err, err_size, "%s: a spec needs a sequence of at least one device",
                                 devs ? "devices is empty or not a sequence" : "devices is missing");
                return -EINVAL;
        }
        size_t count = (size_t)cJSON_GetArraySize(devs);
        if (!(s->devices = calloc(count, sizeof *s->devices)))
                return -ENOMEM;
        const cJSON *d;
        cJSON_ArrayForEach(d, devs) {
                size_t i = s->n_devices;
                struct xpud_cdi_spec_device *dev = &s->devices[i];
                char w[48];
                int r;
                s->n_devices++;
                snprintf(w, sizeof w, "devices[%zu].", i);
                if (!cJSON_IsObject(d)) {
                        xpu_format_error(err, err_size, "devices[%zu] is not a mapping", i);
                        return -EINVAL;
                }
                if ((r = get_string(d, "name", w, &dev->name, err, err_size)) < 0)
                        return r;
                if (!dev->name) {
                        xpu_format_error(err, err_size, "%sname is missing: every device needs one", w);
                        return -EINVAL;
                }
                if (!xpud_cdi_device_name_valid(dev->name)) {
                        xpu_format_error(err, err_size,
                                         "%sname \"%s\" is not a CDI device name: letters, digits, '-', '_', '.', "
                                         "':', starting and ending with a letter or digit",
                                         w, dev->name);
                        return -EINVAL;
                }
                if ((r = read_edits(cJSON_GetObjectItemCaseSensitive(d, "containerEdits"), w, &dev->nodes,
                                    &dev->n_nodes, err, err_size)) < 0)
                        return r;
        }
        return check_unique(s, err, err_size);
}

static int read_spec(const cJSON *root, struct xpud_cdi_spec *s, char *err, size_t err_size) {
        _cleanup_free_ char *version = NULL;
        int r;
        if (!cJSON_IsObject(root)) {
                xpu_format_error(err, err_size, "the document is not a mapping: a CDI spec is one");
                return -EINVAL;
        }
        if ((r = get_string(root, "cdiVersion", "", &version, err, err_size)) < 0)
                return r;
        if (!version) {
                xpu_format_error(err, err_size, "cdiVersion is missing: a spec names its CDI version (\"0.5.0\")");
                return -EINVAL;
        }
        if (!version_ok(version)) {
                xpu_format_error(err, err_size, "cdiVersion is \"%s\": a CDI version is \"X.Y.Z\" (\"0.5.0\")",
                                 version);
                return -EINVAL;
        }
        if ((r = get_string(root, "kind", "", &s->kind, err, err_size)) < 0)
                return r;
        if (!s->kind) {
                xpu_format_error(err, err_size, "kind is missing: a spec names its \"<vendor>/<class>\"");
                return -EINVAL;
        }
        if (!xpud_cdi_kind_valid(s->kind)) {
                xpu_format_error(err, err_size,
                                 "kind \"%s\" is not \"<vendor>/<class>\" (letters, digits, '-', '_', '.'; each "
                                 "starting with a letter and ending with a letter or digit)",
                                 s->kind);
                return -EINVAL;
        }
        if ((r = read_edits(cJSON_GetObjectItemCaseSensitive(root, "containerEdits"), "", &s->common, &s->n_common,
                            err, err_size)) < 0)
                return r;
        return read_devices(cJSON_GetObjectItemCaseSensitive(root, "devices"), s, err, err_size);
}

int xpud_cdi_spec_read(const char *text, size_t len, struct xpud_cdi_spec **ret, char *err, size_t err_size) {
        static const struct xpud_yaml_limits limits = {
                .depth_max = XPUD_CDI_SPEC_DEPTH_MAX,
                .nodes_max = XPUD_CDI_SPEC_VALUES_MAX,
        };
        cJSON *root = NULL;
        int r = xpud_yaml_to_json(text, len, &limits, &root, err, err_size);
        if (r < 0)
                return r;
        struct xpud_cdi_spec *s = calloc(1, sizeof *s);
        r = s ? read_spec(root, s, err, err_size) : -ENOMEM;
        cJSON_Delete(root);
        if (r < 0) {
                xpud_cdi_spec_free(s);
                return r;
        }
        *ret = s;
        return 0;
}
