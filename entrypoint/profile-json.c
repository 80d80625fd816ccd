/* SPDX-License-Identifier: Apache-2.0 */
/* The profile parser's JSON helpers: see profile-json.h. */
#include "profile-json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/str.h"
#include "sandbox/privilege.h"
#include "host-files.h"

/* ---- parse context and messages ------------------------------------------------------------- */


/* Write "<origin>: <message>" and return -EINVAL. */
int xpu_pj_fail(const struct xpu_pctx *c, const char *fmt, ...) {
        if (c->err && c->err_size > 0) {
                int n = snprintf(c->err, c->err_size, "%s: ", c->origin);
                if (n >= 0 && (size_t)n < c->err_size) {
                        va_list ap;
                        va_start(ap, fmt);
                        vsnprintf(c->err + n, c->err_size - (size_t)n, fmt, ap);
                        va_end(ap);
                }
        }
        return -EINVAL;
}

/* Short description of a JSON value for "got ..." ("\"intel\"", "a number (-1)", "an array"). */
const char *xpu_pj_describe(const cJSON *j, char buf[GOT_MAX]) {
        if (cJSON_IsString(j)) {
                const char *s = j->valuestring;
                if (strlen(s) > 40)
                        snprintf(buf, GOT_MAX, "\"%.40s...\"", s);
                else
                        snprintf(buf, GOT_MAX, "\"%s\"", s);
        } else if (cJSON_IsNumber(j))
                snprintf(buf, GOT_MAX, "a number (%g)", j->valuedouble);
        else if (cJSON_IsBool(j))
                snprintf(buf, GOT_MAX, "%s", cJSON_IsTrue(j) ? "true" : "false");
        else if (cJSON_IsNull(j))
                snprintf(buf, GOT_MAX, "null");
        else if (cJSON_IsArray(j))
                snprintf(buf, GOT_MAX, "an array");
        else if (cJSON_IsObject(j))
                snprintf(buf, GOT_MAX, "an object");
        else
                snprintf(buf, GOT_MAX, "an invalid value");
        return buf;
}

int xpu_pj_fail_expected(const struct xpu_pctx *c, const char *path, const char *expected,
                         const cJSON *got) {
        char g[GOT_MAX];
        return xpu_pj_fail(c, "key \"%s\": expected %s, got %s", path, expected, xpu_pj_describe(got, g));
}

/* Key paths longer than KEY_PATH_MAX are cut (messages only). */
/* Key paths are built for every key parsed, so they are joined by hand: snprintf here was a
 * measurable part of xpuinit's start-up. Both truncate at KEY_PATH_MAX - 1. */
size_t xpu_pj_key_append(char out[KEY_PATH_MAX], size_t len, const char *s) {
        size_t n = strlen(s);
        if (n > KEY_PATH_MAX - 1 - len)
                n = KEY_PATH_MAX - 1 - len;
        memcpy(out + len, s, n);
        out[len + n] = '\0';
        return len + n;
}

void xpu_pj_key_join(char out[KEY_PATH_MAX], const char *parent, const char *child) {
        size_t len = 0;
        out[0] = '\0';
        if (parent && *parent) {
                len = xpu_pj_key_append(out, len, parent);
                len = xpu_pj_key_append(out, len, ".");
        }
        xpu_pj_key_append(out, len, child);
}

void xpu_pj_key_index(char out[KEY_PATH_MAX], const char *parent, size_t i) {
        char num[24];
        size_t d = sizeof num - 1;
        num[d] = '\0';
        do {
                num[--d] = (char)('0' + i % 10);
                i /= 10;
        } while (i && d > 0);
        out[0] = '\0';
        size_t len = xpu_pj_key_append(out, 0, parent);
        len = xpu_pj_key_append(out, len, "[");
        len = xpu_pj_key_append(out, len, num + d);
        xpu_pj_key_append(out, len, "]");
}

/* Every key of OBJ must appear once and (when ALLOWED is not NULL) be listed in ALLOWED
 * (NULL-terminated). PATH is OBJ's own key path ("" for the top level). */
int xpu_pj_check_keys(const struct xpu_pctx *c, const cJSON *obj, const char *path,
                      const char *const *allowed) {
        const cJSON *item;
        cJSON_ArrayForEach(item, obj) {
                char kp[KEY_PATH_MAX];
                xpu_pj_key_join(kp, path, item->string);
                if (allowed) {
                        bool ok = false;
                        for (const char *const *a = allowed; *a; a++)
                                if (strcmp(*a, item->string) == 0)
                                        ok = true;
                        if (!ok) {
                                char list[256] = "";
                                size_t used = 0;
                                for (const char *const *a = allowed; *a; a++) {
                                        int n = snprintf(list + used, sizeof list - used, "%s%s",
                                                         used ? ", " : "", *a);
                                        if (n < 0 || (size_t)n >= sizeof list - used)
                                                break;
                                        used += (size_t)n;
                                }
                                return xpu_pj_fail(c, "unknown key \"%s\"; expected one of %s", kp, list);
                        }
                }
                for (const cJSON *prev = obj->child; prev != item; prev = prev->next)
                        if (strcmp(prev->string, item->string) == 0)
                                return xpu_pj_fail(c, "key \"%s\" appears twice", kp);
        }
        return 0;
}

/* ---- value validators: NULL when S is fine, else what was expected -------------------------- */


bool xpu_pj_is_ident(const char *s, bool lower_only) {
        if (!*s || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') ||
                     (!lower_only && s[0] >= 'A' && s[0] <= 'Z')))
                return false;
        for (const char *p = s; *p; p++)
                if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
                      (!lower_only && *p >= 'A' && *p <= 'Z')))
                        return false;
        return true;
}

bool xpu_pj_has_control(const char *s) {
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
                if (*p < 0x20 || *p == 0x7f)
                        return true;
        return false;
}

const char *xpu_pj_v_any(const char *s) {
        return strlen(s) < STRING_VALUE_MAX ? NULL : "a string shorter than 4096 bytes";
}

const char *xpu_pj_v_capability(const char *s) {
        /* Fits xpu_driver_file.capability[32]. */
        return xpu_pj_is_ident(s, true) && s[0] != '_' && strlen(s) < 32
                       ? NULL
                       : "a capability name (lower-case letters, digits, '_'; at most 31 bytes)";
}

const char *xpu_pj_v_filename(const char *s) {
        return *s && strlen(s) < 256 && !strchr(s, '/') && strcmp(s, ".") != 0 &&
                               strcmp(s, "..") != 0 && !xpu_pj_has_control(s) && !strchr(s, ' ')
                       ? NULL
                       : "a file name or glob without '/' or spaces (at most 255 bytes)";
}

const char *xpu_pj_v_devnode(const char *s) {
        static const char *const expected =
                "an absolute path under /dev/ without \".\" or \"..\" components (at most 63 bytes)";
        if (!xpu_startswith(s, "/dev/") || strlen(s) >= 64 || xpu_pj_has_control(s) || strstr(s, "//") ||
            strstr(s, "/./") || strstr(s, "/../") || s[strlen(s) - 1] == '/')
                return expected;
        const char *last = strrchr(s, '/');
        if (strcmp(last, "/.") == 0 || strcmp(last, "/..") == 0)
                return expected;
        return NULL;
}

const char *xpu_pj_v_envname(const char *s) {
        return xpu_pj_is_ident(s, false) && strlen(s) < 256
                       ? NULL
                       : "a variable name ([A-Za-z_][A-Za-z0-9_]*, at most 255 bytes)";
}

/* A capability name as linux/capability.h spells it, CAP_ prefix required, any case
 * (xpu_capability_from_name() keeps the one table of names, probes/sandbox/privilege.c). */
const char *xpu_pj_v_linux_cap(const char *s) {
        if (strncasecmp(s, "CAP_", 4) == 0 && xpu_capability_from_name(s) >= 0)
                return NULL;
        return "a Linux capability name (CAP_CHOWN to CAP_CHECKPOINT_RESTORE in linux/capability.h, "
               "any case)";
}

const char *xpu_pj_v_argv(const char *s) {
        return strlen(s) < STRING_VALUE_MAX && !xpu_pj_has_control(s) ? NULL
                                                               : "an argument without control "
                                                                 "characters (at most 4095 bytes)";
}

/* ---- typed getters ---------------------------------------------------------------------------- */

/* A string item, checked by V; *RET is a new copy. */
int xpu_pj_take_string(const struct xpu_pctx *c, const cJSON *j, const char *path, xpu_pj_validator_t v,
                       char **ret) {
        if (!cJSON_IsString(j))
                return xpu_pj_fail_expected(c, path, "a string", j);
        const char *why = v ? v(j->valuestring) : NULL;
        if (why)
                return xpu_pj_fail_expected(c, path, why, j);
        char *s = strdup(j->valuestring);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

/* An integral number in [MIN, MAX]. */
int xpu_pj_take_int(const struct xpu_pctx *c, const cJSON *j, const char *path, int min, int max,
                    int *ret) {
        char expected[96];
        snprintf(expected, sizeof expected, "an integer from %d to %d", min, max);
        if (!cJSON_IsNumber(j))
                return xpu_pj_fail_expected(c, path, expected, j);
        double d = j->valuedouble;
        if (!(d >= (double)min && d <= (double)max) || (double)(int)d != d)
                return xpu_pj_fail_expected(c, path, expected, j);
        *ret = (int)d;
        return 0;
}

/* An array of strings, each checked by V. With NULL_TERMINATED the vector gets a trailing NULL. */
int xpu_pj_take_strv(const struct xpu_pctx *c, const cJSON *j, const char *path, xpu_pj_validator_t v,
                     bool null_terminated, char ***ret, size_t *ret_n) {
        if (!cJSON_IsArray(j))
                return xpu_pj_fail_expected(c, path, "an array of strings", j);
        size_t n = (size_t)cJSON_GetArraySize(j);
        char **strv = calloc(n + 1, sizeof *strv);
        if (!strv)
                return -ENOMEM;
        size_t i = 0;
        const cJSON *item;
        cJSON_ArrayForEach(item, j) {
                char kp[KEY_PATH_MAX];
                xpu_pj_key_index(kp, path, i);
                int r = xpu_pj_take_string(c, item, kp, v, &strv[i]);
                if (r < 0) {
                        xpu_profile_strv_free(strv, i);
                        return r;
                }
                i++;
        }
        if (!null_terminated && n == 0) {
                free(strv);
                strv = NULL;
        }
        *ret = strv;
        *ret_n = n;
        return 0;
}

/* "libraries" / "binaries" / "files": capability -> array of names, each checked by V. */
int xpu_pj_take_capfiles(const struct xpu_pctx *c, const cJSON *j, const char *path, xpu_pj_validator_t v,
                         struct xpu_capability_files **ret, size_t *ret_n) {
        if (!cJSON_IsObject(j))
                return xpu_pj_fail_expected(c, path, "an object mapping capabilities to arrays of names", j);
        int r = xpu_pj_check_keys(c, j, path, NULL);
        if (r < 0)
                return r;
        size_t n = (size_t)cJSON_GetArraySize(j);
        if (n == 0) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        struct xpu_capability_files *cf = calloc(n, sizeof *cf);
        if (!cf)
                return -ENOMEM;
        size_t i = 0;
        const cJSON *item;
        cJSON_ArrayForEach(item, j) {
                char kp[KEY_PATH_MAX];
                xpu_pj_key_join(kp, path, item->string);
                const char *why = xpu_pj_v_capability(item->string);
                if (why) {
                        xpu_profile_capfiles_free(cf, i);
                        return xpu_pj_fail(c, "key \"%s\": expected %s as the key", kp, why);
                }
                cf[i].capability = strdup(item->string);
                if (!cf[i].capability) {
                        xpu_profile_capfiles_free(cf, i);
                        return -ENOMEM;
                }
                r = xpu_pj_take_strv(c, item, kp, v, false, &cf[i].names, &cf[i].n_names);
                if (r < 0) {
                        xpu_profile_capfiles_free(cf, i + 1);
                        return r;
                }
                i++;
        }
        *ret = cf;
        *ret_n = n;
        return 0;
}

/* "library_links": link name -> library base name, both file names. */
int xpu_pj_take_links(const struct xpu_pctx *c, const cJSON *j, struct xpu_profile *p) {
        if (!cJSON_IsObject(j))
                return xpu_pj_fail_expected(c, "library_links", "an object mapping link names to library base names", j);
        int r = xpu_pj_check_keys(c, j, "library_links", NULL);
        size_t n = (size_t)cJSON_GetArraySize(j);
        if (r < 0 || n == 0)
                return r;
        if (!(p->library_links = calloc(2 * n, sizeof(char *))))
                return -ENOMEM;
        const cJSON *item;
        cJSON_ArrayForEach(item, j) {
                char kp[KEY_PATH_MAX];
                xpu_pj_key_join(kp, "library_links", item->string);
                const char *why = xpu_pj_v_filename(item->string);
                if (why || strpbrk(item->string, "*?["))
                        return xpu_pj_fail(c, "key \"%s\": expected a file name without '/', spaces or glob characters as "
                                    "the key", kp);
                if (!(p->library_links[2 * p->n_library_links] = strdup(item->string)))
                        return -ENOMEM;
                r = xpu_pj_take_string(c, item, kp, xpu_pj_v_filename, &p->library_links[2 * p->n_library_links + 1]);
                p->n_library_links++; /* (freed by the caller whatever happens) */
                if (r < 0)
                        return r;
                if (strpbrk(p->library_links[2 * p->n_library_links - 1], "*?["))
                        return xpu_pj_fail_expected(c, kp, "a library base name without glob characters "
                                                    "(\"libGLX_nvidia.so\")", item);
        }
        return 0;
}

