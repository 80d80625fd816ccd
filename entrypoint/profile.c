/* SPDX-License-Identifier: Apache-2.0 */
/* Runtime profiles as data (profile.h): the environment placeholders and their expansion, and a
 * profile's lifetime. The parser is profile-parse.c, the set (built-ins + profile directory) and
 * selection are in profile-set.c. The format is documented in docs/profiles.md. */
#include <cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/macro.h"
#include "base/strv.h"
#include "sandbox/privilege.h"
#include "host-files.h"
#include "profile.h"
#include "require-parse.h"

static const char *const placeholder_names[_XPU_PLACEHOLDER_MAX] = {
        [XPU_PLACEHOLDER_VISIBLE_IDS] = "XPU_VISIBLE_IDS",
        [XPU_PLACEHOLDER_VISIBLE_INDICES] = "XPU_VISIBLE_INDICES",
        [XPU_PLACEHOLDER_DRIVER_VERSION] = "XPU_DRIVER_VERSION",
        [XPU_PLACEHOLDER_LIBRARY_DIR] = "XPU_LIBRARY_DIR",
};

const char *xpu_placeholder_to_string(enum xpu_placeholder p) {
        if ((unsigned)p >= _XPU_PLACEHOLDER_MAX)
                return NULL;
        return placeholder_names[p];
}

/* Index of the placeholder named by the LEN bytes at S, or -EINVAL. */
static int placeholder_lookup(const char *s, size_t len) {
        for (size_t i = 0; i < _XPU_PLACEHOLDER_MAX; i++)
                if (strlen(placeholder_names[i]) == len && strncmp(s, placeholder_names[i], len) == 0)
                        return (int)i;
        return -EINVAL;
}

/* Walk VALUE's placeholders. With OUT NULL only validates (and counts the output length into
 * *LEN); with OUT set writes the expansion. *BAD gets the offset of a bad "${" on -EINVAL. */
static int expand_walk(const char *value, const char *const *values, char *out, size_t *len,
                       size_t *bad) {
        size_t n = 0;
        for (const char *p = value; *p;) {
                if (p[0] == '$' && p[1] == '{') {
                        const char *end = strchr(p + 2, '}');
                        int k = end ? placeholder_lookup(p + 2, (size_t)(end - p - 2)) : -EINVAL;
                        if (k < 0) {
                                if (bad)
                                        *bad = (size_t)(p - value);
                                return -EINVAL;
                        }
                        const char *v = values && values[k] ? values[k] : "";
                        size_t vl = strlen(v);
                        if (out)
                                memcpy(out + n, v, vl);
                        n += vl;
                        p = end + 1;
                        continue;
                }
                if (out)
                        out[n] = *p;
                n++;
                p++;
        }
        if (out)
                out[n] = '\0';
        *len = n;
        return 0;
}

int xpu_env_check_placeholders(const char *value, size_t *bad) {
        size_t len = 0;
        return expand_walk(value, NULL, NULL, &len, bad);
}

int xpu_env_expand(const char *value, const char *const values[_XPU_PLACEHOLDER_MAX], char **ret) {
        size_t len = 0;
        int r = expand_walk(value, values, NULL, &len, NULL);
        if (r < 0)
                return r;
        char *out = malloc(len + 1);
        if (!out)
                return -ENOMEM;
        (void)expand_walk(value, values, out, &len, NULL);
        *ret = out;
        return 0;
}

/* ---- freeing -------------------------------------------------------------------------------- */

void xpu_profile_strv_free(char **v, size_t n) {
        if (!v)
                return;
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

void xpu_profile_capfiles_free(struct xpu_capability_files *c, size_t n) {
        if (!c)
                return;
        for (size_t i = 0; i < n; i++) {
                free(c[i].capability);
                xpu_profile_strv_free(c[i].names, c[i].n_names);
        }
        free(c);
}

struct xpu_profile *xpu_profile_free(struct xpu_profile *p) {
        if (!p || p->builtin) /* built-ins are static data (builtin-profiles.h) */
                return NULL;
        free(p->name);
        free(p->description);
        free(p->origin);
        xpu_require_free(p->require);
        xpu_profile_strv_free(p->capabilities, p->n_capabilities);
        xpu_profile_capfiles_free(p->libraries, p->n_libraries);
        xpu_profile_capfiles_free(p->binaries, p->n_binaries);
        xpu_profile_capfiles_free(p->files, p->n_files);
        xpu_profile_strv_free(p->library_links, 2 * p->n_library_links);
        xpu_profile_strv_free(p->device_nodes, p->n_device_nodes);
        xpu_profile_strv_free(p->fabric, p->n_fabric);
        for (size_t i = 0; i < p->n_env; i++) {
                free(p->env[i].name);
                free(p->env[i].value);
        }
        free(p->env);
        xpu_profile_strv_free(p->command, p->n_command);
        xpu_profile_strv_free(p->keep_capabilities, p->n_keep_capabilities);
        free(p->seccomp);
        free(p->forward_compat_dir);
        free(p->forward_compat_library);
        xpu_require_free(p->forward_compat_require);
        free(p->capability_32bit);
        free(p);
        return NULL;
}

const struct xpu_capability_files *xpu_profile_capability_list(const struct xpu_profile *pr, int k, size_t *n) {
        switch (k) {
        case 0:
                *n = pr->n_libraries;
                return pr->libraries;
        case 1:
                *n = pr->n_binaries;
                return pr->binaries;
        case 2:
                *n = pr->n_files;
                return pr->files;
        default:
                *n = 0;
                return NULL;
        }
}

/* Push S onto *V (*N entries) unless it is there. */
static int push_unique(char ***v, size_t *n, const char *s) {
        for (size_t i = 0; i < *n; i++)
                if (strcmp((*v)[i], s) == 0)
                        return 0;
        int r = xpu_strv_push(v, s);
        if (r >= 0)
                (*n)++;
        return r;
}

int xpu_profile_capabilities_push(char ***v, size_t *n, const struct xpu_profile *pr) {
        size_t m;
        for (int k = 0; k < 3; k++) {
                const struct xpu_capability_files *cf = xpu_profile_capability_list(pr, k, &m);
                for (size_t i = 0; i < m; i++)
                        if (push_unique(v, n, cf[i].capability) < 0)
                                return -ENOMEM;
        }
        return pr->capability_32bit ? push_unique(v, n, pr->capability_32bit) : 0;
}

int xpu_profile_env_apply(const struct xpu_profile *pr, char ***env, const char *const values[_XPU_PLACEHOLDER_MAX]) {
        for (size_t i = 0; i < pr->n_env; i++) {
                const struct xpu_env_edit *e = &pr->env[i];
                if (e->op == XPU_ENV_UNSET) {
                        xpu_env_unset(*env, e->name);
                        continue;
                }
                _cleanup_free_ char *v = NULL;
                int r = xpu_env_expand(e->value ? e->value : "", values, &v);
                if (r < 0)
                        return r;
                const char *old = xpu_env_get(*env, e->name);
                _cleanup_free_ char *joined = NULL;
                if (e->op == XPU_ENV_PREPEND && old && *old) {
                        if (asprintf(&joined, "%s:%s", v, old) < 0)
                                return -ENOMEM;
                } else if (e->op == XPU_ENV_APPEND && old && *old) {
                        if (asprintf(&joined, "%s:%s", old, v) < 0)
                                return -ENOMEM;
                }
                if (xpu_env_set(env, e->name, joined ? joined : v) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int xpu_profile_take_devices(const struct xpu_profile *pr, const struct xpu_inventory *inv, const bool *selected,
                             size_t **ret, size_t *n) {
        size_t *devices = calloc(inv->n_devices ? inv->n_devices : 1, sizeof *devices);
        if (!devices)
                return -ENOMEM;
        *n = 0;
        for (size_t i = 0; !pr->match_any && i < inv->n_devices; i++)
                if (selected[i] && inv->devices[i].vendor == pr->vendor)
                        devices[(*n)++] = i;
        *ret = devices;
        return 0;
}
