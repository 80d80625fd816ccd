/* SPDX-License-Identifier: Apache-2.0 */
#include "strv.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"

char **xpu_strv_free(char **v) {
        if (!v)
                return NULL;
        for (char **p = v; *p; p++)
                free(*p);
        free(v);
        return NULL;
}

size_t xpu_strv_length(char *const *v) {
        size_t n = 0;
        while (v && v[n])
                n++;
        return n;
}

int xpu_strv_push(char ***v, const char *s) {
        size_t n = xpu_strv_length(*v);
        char *c = strdup(s);
        if (!c)
                return -ENOMEM;
        char **nv = reallocarray(*v, n + 2, sizeof(char *));
        if (!nv) {
                free(c);
                return -ENOMEM;
        }
        nv[n] = c;
        nv[n + 1] = NULL;
        *v = nv;
        return 0;
}

int xpu_strv_extend(char ***v, char *const *src) {
        for (size_t i = 0; src && src[i]; i++) {
                int r = xpu_strv_push(v, src[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

char **xpu_strv_copy(char *const *v) {
        size_t n = xpu_strv_length(v);
        char **c = calloc(n + 1, sizeof(char *)); /* one allocation: this copies the environment */
        if (!c)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (!(c[i] = strdup(v[i])))
                        return xpu_strv_free(c);
        return c;
}

char *xpu_strv_join(char *const *v, const char *sep) {
        size_t len = 1, sl = strlen(sep);
        for (size_t i = 0; v && v[i]; i++)
                len += strlen(v[i]) + (i ? sl : 0);
        char *out = malloc(len);
        if (!out)
                return NULL;
        char *p = out;
        for (size_t i = 0; v && v[i]; i++) {
                if (i) {
                        memcpy(p, sep, sl);
                        p += sl;
                }
                size_t l = strlen(v[i]);
                memcpy(p, v[i], l);
                p += l;
        }
        *p = '\0';
        return out;
}

static int env_match(const char *entry, const char *name) {
        size_t l = strlen(name);
        return strncmp(entry, name, l) == 0 && entry[l] == '=';
}

const char *xpu_env_get(char *const *env, const char *name) {
        for (size_t i = 0; env && env[i]; i++)
                if (env_match(env[i], name))
                        return env[i] + strlen(name) + 1;
        return NULL;
}

int xpu_env_set(char ***env, const char *name, const char *value) {
        char *entry = NULL;
        if (asprintf(&entry, "%s=%s", name, value) < 0)
                return -ENOMEM;
        for (size_t i = 0; *env && (*env)[i]; i++)
                if (env_match((*env)[i], name)) {
                        free((*env)[i]);
                        (*env)[i] = entry;
                        /* Drop later duplicates so the value is unambiguous. */
                        xpu_env_unset(*env + i + 1, name);
                        return 0;
                }
        int r = xpu_strv_push(env, entry);
        free(entry);
        return r;
}

void xpu_env_unset(char **env, const char *name) {
        size_t w = 0;
        for (size_t i = 0; env && env[i]; i++) {
                if (env_match(env[i], name))
                        free(env[i]);
                else
                        env[w++] = env[i];
        }
        if (env)
                env[w] = NULL;
}

int xpu_env_name_is_valid(const char *name) {
        if (!name || !(isalpha((unsigned char)name[0]) || name[0] == '_'))
                return 0;
        for (const char *p = name + 1; *p; p++)
                if (!(isalnum((unsigned char)*p) || *p == '_'))
                        return 0;
        return 1;
}
