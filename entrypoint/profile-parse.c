/* SPDX-License-Identifier: Apache-2.0 */
/* Runtime profiles: the strict cJSON-based parser of one profile (profile.h). The loader of the
 * set (built-ins + profile directory) and selection are in profile-set.c. The format is
 * documented in docs/profiles.md.
 *
 * Strictness: every object has a fixed key table; an unknown key, a key given twice, a wrong type
 * or a value out of range is an error naming the origin (file path or "built-in <file>"), the key
 * path ("env.set.PATH", "capabilities[2]") and what was expected. Nothing here logs. */
#include <cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/fileio.h"
#include "base/macro.h"
#include "sandbox/privilege.h"
#include "host-files.h"
#include "profile.h"
#include "fabric.h"
#include "profile-json.h"
#include "require-parse.h"

#define PROFILE_NAME_MAX 63    /* bytes of a profile name */
#define MIN_DEVICES_MAX 1024   /* match.min_devices upper bound */
#define PRIORITY_MAX 10000     /* priority range is 0..PRIORITY_MAX */

static void xpu_profile_freep(struct xpu_profile **p) {
        xpu_profile_free(*p);
}

static void cjson_deletep(cJSON **j) {
        cJSON_Delete(*j);
}

/* ---- sections --------------------------------------------------------------------------------- */

static const char *const top_keys[] = {
        "name",     "description", "priority", "match",   "capabilities",      "libraries",
        "binaries", "device_nodes", "env",     "command", "keep_capabilities", "seccomp",
        "device_code", "files", "library_links", "forward_compat", "capability_32bit", "fabric", NULL,
};
static const char *const match_keys[] = { "vendor", "min_devices", "require", NULL };
static const char *const env_keys[] = { "set", "prepend", "append", "unset", NULL };
static const char *const command_keys[] = { "replace", "prefix", NULL };

static int parse_name(const struct xpu_pctx *c, const cJSON *j, struct xpu_profile *p) {
        static const char *const expected =
                "a profile name of letters, digits, '.', '_' and '-' (1 to 63 bytes, not starting "
                "with '.' or '-')";
        if (!j)
                return xpu_pj_fail(c, "key \"name\" is missing; expected %s", expected);
        if (!cJSON_IsString(j))
                return xpu_pj_fail_expected(c, "name", expected, j);
        const char *s = j->valuestring;
        bool ok = *s && strlen(s) <= PROFILE_NAME_MAX && s[0] != '.' && s[0] != '-';
        for (const char *q = s; ok && *q; q++)
                ok = (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
                     (*q >= '0' && *q <= '9') || *q == '.' || *q == '_' || *q == '-';
        if (!ok)
                return xpu_pj_fail_expected(c, "name", expected, j);
        p->name = strdup(s);
        return p->name ? 0 : -ENOMEM;
}

/* "match": vendor and min_devices into P; the requirement's text into *REQUIRE (parsed last). */
static int parse_match(const struct xpu_pctx *c, const cJSON *j, struct xpu_profile *p, char **require) {
        p->match_any = true;
        p->min_devices = 1;
        if (!j)
                return 0;
        if (!cJSON_IsObject(j))
                return xpu_pj_fail_expected(c, "match", "an object", j);
        int r = xpu_pj_check_keys(c, j, "match", match_keys);
        if (r < 0)
                return r;

        const cJSON *vendor = cJSON_GetObjectItemCaseSensitive(j, "vendor");
        if (vendor) {
                char expected[128] = "one of";
                for (int v = 0; v < _XPU_VENDOR_MAX; v++) {
                        size_t used = strlen(expected);
                        snprintf(expected + used, sizeof expected - used, "%s \"%s\"",
                                 v ? "," : "", xpu_vendor_to_string((enum xpu_vendor)v));
                }
                int v = cJSON_IsString(vendor) ? xpu_vendor_from_string(vendor->valuestring)
                                               : -EINVAL;
                if (v < 0)
                        return xpu_pj_fail_expected(c, "match.vendor", expected, vendor);
                p->match_any = false;
                p->vendor = (enum xpu_vendor)v;
        }

        const cJSON *min = cJSON_GetObjectItemCaseSensitive(j, "min_devices");
        if (min) {
                if (!vendor)
                        return xpu_pj_fail(c, "key \"match.min_devices\": needs \"match.vendor\" (a "
                                       "device count of no vendor in particular)");
                int v = 0;
                r = xpu_pj_take_int(c, min, "match.min_devices", 1, MIN_DEVICES_MAX, &v);
                if (r < 0)
                        return r;
                p->min_devices = (unsigned)v;
        }

        const cJSON *req = cJSON_GetObjectItemCaseSensitive(j, "require");
        if (req) {
                if (!cJSON_IsString(req) || !*req->valuestring)
                        return xpu_pj_fail_expected(c, "match.require",
                                             "a non-empty requirement expression string", req);
                r = xpu_pj_take_string(c, req, "match.require", xpu_pj_v_any, require);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int env_add(struct xpu_profile *p, enum xpu_env_op op, const char *name, const char *value) {
        struct xpu_env_edit *e = realloc(p->env, (p->n_env + 1) * sizeof *e);
        if (!e)
                return -ENOMEM;
        p->env = e;
        e = &p->env[p->n_env];
        *e = (struct xpu_env_edit){ .op = op };
        e->name = strdup(name);
        e->value = value ? strdup(value) : NULL;
        if (!e->name || (value && !e->value)) {
                free(e->name);
                free(e->value);
                return -ENOMEM;
        }
        p->n_env++;
        return 0;
}

static int check_env_value(const struct xpu_pctx *c, const cJSON *j, const char *path) {
        if (!cJSON_IsString(j))
                return xpu_pj_fail_expected(c, path, "a string", j);
        const char *why = xpu_pj_v_any(j->valuestring);
        if (why)
                return xpu_pj_fail_expected(c, path, why, j);
        size_t bad = 0;
        if (xpu_env_check_placeholders(j->valuestring, &bad) < 0) {
                char list[160] = "";
                for (size_t i = 0; i < _XPU_PLACEHOLDER_MAX; i++) {
                        size_t used = strlen(list);
                        snprintf(list + used, sizeof list - used, "%s${%s}", i ? ", " : "",
                                 xpu_placeholder_to_string((enum xpu_placeholder)i));
                }
                const char *at = j->valuestring + bad;
                size_t n = strcspn(at, "}");
                /* No "}" before the end or before the next "${": the brace is missing. */
                const char *next = strstr(at + 2, "${");
                if (!at[n] || (next && next < at + n)) {
                        size_t m = next && next < at + n ? (size_t)(next - at) : n;
                        return xpu_pj_fail(c, "key \"%s\": unterminated placeholder \"%.*s%s\" (missing })",
                                    path, (int)(m > 40 ? 40 : m), at, m > 40 ? "..." : "");
                }
                return xpu_pj_fail(c, "key \"%s\": unknown placeholder \"%.*s%s\"; expected one of %s", path,
                            (int)(n > 40 ? 40 : n), at, at[n] == '}' && n <= 40 ? "}" : "", list);
        }
        return 0;
}

static int parse_env(const struct xpu_pctx *c, const cJSON *j, struct xpu_profile *p) {
        static const enum xpu_env_op ops[] = { XPU_ENV_SET, XPU_ENV_PREPEND, XPU_ENV_APPEND };
        if (!j)
                return 0;
        if (!cJSON_IsObject(j))
                return xpu_pj_fail_expected(c, "env", "an object", j);
        int r = xpu_pj_check_keys(c, j, "env", env_keys);
        if (r < 0)
                return r;
        /* Sections in file order, entries in file order. */
        const cJSON *sec;
        cJSON_ArrayForEach(sec, j) {
                char sp[KEY_PATH_MAX];
                xpu_pj_key_join(sp, "env", sec->string);
                const cJSON *item;
                if (strcmp(sec->string, "unset") == 0) {
                        if (!cJSON_IsArray(sec))
                                return xpu_pj_fail_expected(c, sp, "an array of variable names", sec);
                        size_t i = 0;
                        cJSON_ArrayForEach(item, sec) {
                                char kp[KEY_PATH_MAX];
                                xpu_pj_key_index(kp, sp, i++);
                                if (!cJSON_IsString(item) || xpu_pj_v_envname(item->valuestring))
                                        return xpu_pj_fail_expected(c, kp, xpu_pj_v_envname(""), item);
                                r = env_add(p, XPU_ENV_UNSET, item->valuestring, NULL);
                                if (r < 0)
                                        return r;
                        }
                        continue;
                }
                enum xpu_env_op op = XPU_ENV_SET;
                for (size_t k = 0; k < ELEMENTSOF(ops); k++)
                        if (strcmp(sec->string, env_keys[k]) == 0)
                                op = ops[k];
                if (!cJSON_IsObject(sec))
                        return xpu_pj_fail_expected(c, sp, "an object of NAME: value", sec);
                r = xpu_pj_check_keys(c, sec, sp, NULL);
                if (r < 0)
                        return r;
                cJSON_ArrayForEach(item, sec) {
                        char kp[KEY_PATH_MAX];
                        xpu_pj_key_join(kp, sp, item->string);
                        const char *why = xpu_pj_v_envname(item->string);
                        if (why)
                                return xpu_pj_fail(c, "key \"%s\": expected %s as the key", kp, why);
                        r = check_env_value(c, item, kp);
                        if (r < 0)
                                return r;
                        r = env_add(p, op, item->string, item->valuestring);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

static int parse_command(const struct xpu_pctx *c, const cJSON *j, struct xpu_profile *p) {
        if (!j)
                return 0;
        if (!cJSON_IsObject(j))
                return xpu_pj_fail_expected(c, "command", "an object with \"replace\" or \"prefix\"", j);
        int r = xpu_pj_check_keys(c, j, "command", command_keys);
        if (r < 0)
                return r;
        if (cJSON_GetArraySize(j) != 1)
                return xpu_pj_fail(c, "key \"command\": expected exactly one of \"replace\", \"prefix\"");
        const cJSON *argv = j->child;
        char kp[KEY_PATH_MAX];
        xpu_pj_key_join(kp, "command", argv->string);
        if (!cJSON_IsArray(argv) || cJSON_GetArraySize(argv) == 0 || !cJSON_IsString(argv->child) ||
            !*argv->child->valuestring)
                return xpu_pj_fail_expected(c, kp, "a non-empty array of strings whose first is not empty",
                                     argv);
        p->command_mode = strcmp(argv->string, "replace") == 0 ? XPU_COMMAND_REPLACE
                                                               : XPU_COMMAND_PREFIX;
        return xpu_pj_take_strv(c, argv, kp, xpu_pj_v_argv, true, &p->command, &p->n_command);
}

static int parse_seccomp(const struct xpu_pctx *c, const cJSON *j, struct xpu_profile *p) {
        static const char *const expected = "\"default\", \"strict\" or an absolute file path";
        if (!j)
                return 0;
        if (!cJSON_IsString(j))
                return xpu_pj_fail_expected(c, "seccomp", expected, j);
        const char *s = j->valuestring;
        if (strcmp(s, "default") != 0 && strcmp(s, "strict") != 0 &&
            !(s[0] == '/' && strlen(s) < PATH_MAX && !xpu_pj_has_control(s)))
                return xpu_pj_fail_expected(c, "seccomp", expected, j);
        p->seccomp = strdup(s);
        return p->seccomp ? 0 : -ENOMEM;
}

/* "forward_compat": {"dir": absolute path, "library": base name, "require": expression}. */
static const char *v_compat_dir(const char *s) {
        return xpu_host_file_pattern_invalid(s) || strpbrk(s, "*?[$")
                       ? "an absolute directory path without \".\", \"..\", empty components, globs or "
                         "placeholders"
                       : NULL;
}

static const char *v_library_base(const char *s) {
        return xpu_pj_v_filename(s) || strpbrk(s, "*?[") || !strstr(s, ".so")
                       ? "a library base name such as \"libcuda.so\" (no '/', spaces or globs)"
                       : NULL;
}

static int parse_forward_compat(const struct xpu_pctx *c, const cJSON *j, struct xpu_profile *p, char **require) {
        static const char *const keys[] = { "dir", "library", "require", NULL };
        if (!j)
                return 0;
        if (!cJSON_IsObject(j))
                return xpu_pj_fail_expected(c, "forward_compat", "an object with \"dir\", \"library\" and "
                                            "optionally \"require\"", j);
        int r = xpu_pj_check_keys(c, j, "forward_compat", keys);
        if (r < 0)
                return r;
        const cJSON *dir = cJSON_GetObjectItemCaseSensitive(j, "dir");
        const cJSON *lib = cJSON_GetObjectItemCaseSensitive(j, "library");
        const cJSON *req = cJSON_GetObjectItemCaseSensitive(j, "require");
        if (!dir || !lib)
                return xpu_pj_fail(c, "key \"forward_compat.%s\" is missing; expected %s", dir ? "library" : "dir",
                                   dir ? "a library base name such as \"libcuda.so\""
                                       : "the image's directory of newer driver libraries");
        r = xpu_pj_take_string(c, dir, "forward_compat.dir", v_compat_dir, &p->forward_compat_dir);
        if (r == 0)
                r = xpu_pj_take_string(c, lib, "forward_compat.library", v_library_base, &p->forward_compat_library);
        if (r == 0 && req)
                r = xpu_pj_take_string(c, req, "forward_compat.require", xpu_pj_v_any, require);
        return r;
}

/* The requirement expression TEXT of KEY (NULL: absent, *RET stays NULL) into *RET, its error
 * named as any key's is. */
static int parse_require(const struct xpu_pctx *c, const char *key, const char *text, struct xpu_require **ret) {
        if (!text)
                return 0;
        char err[XPU_REQUIRE_ERROR_MAX];
        err[0] = '\0';
        int r = xpu_require_parse(text, ret, err, sizeof err);
        if (r < 0) {
                (void)xpu_pj_fail(c, "key \"%s\": %s", key, err[0] ? err : strerror(-r));
                return r;
        }
        return 0;
}

static int parse_device_code(const struct xpu_pctx *c, const cJSON *j, struct xpu_profile *p) {
        int m = cJSON_IsString(j) ? xpu_device_code_mode_from_string(j->valuestring) : -EINVAL;
        if (!j)
                return 0;
        if (m < 0)
                return xpu_pj_fail_expected(c, "device_code", "\"enforce\", \"apply\", \"warn\" or \"off\"", j);
        p->device_code = (enum xpu_device_code_mode)m;
        p->device_code_set = true;
        return 0;
}

/* Line and column (1-based) of offset AT in TEXT. */
static void line_col(const char *text, const char *at, unsigned *line, unsigned *col) {
        *line = 1;
        *col = 1;
        for (const char *q = text; q < at && *q; q++) {
                if (*q == '\n') {
                        (*line)++;
                        *col = 1;
                } else
                        (*col)++;
        }
}

int xpu_profile_parse(const char *json, const char *origin, struct xpu_profile **ret, char *err,
                      size_t err_size) {
        const struct xpu_pctx c = { .origin = origin ? origin : "profile", .err = err, .err_size = err_size };
        /* JSON white space only: say so rather than "invalid JSON at line 1, column 1". */
        if (json[strspn(json, " \t\r\n")] == '\0')
                return xpu_pj_fail(&c, "empty file: a profile is a JSON object");
        /* cJSON decodes "\u0000" into a NUL that silently cuts the string ("nvidia-cuda\u0000x"
         * would become "nvidia-cuda"): refuse it. A "\" before the escape's own backslash makes it
         * literal text, so count the backslashes in front. */
        for (const char *q = strstr(json, "u0000"); q; q = strstr(q + 1, "u0000")) {
                size_t bs = 0;
                while (q - (ptrdiff_t)bs > json && q[-(ptrdiff_t)bs - 1] == '\\')
                        bs++;
                if (bs % 2 == 1) {
                        unsigned line, col;
                        line_col(json, q - 1, &line, &col);
                        return xpu_pj_fail(&c, "\\u0000 at line %u, column %u: profile strings may not contain NUL", line,
                                    col);
                }
        }
        const char *end = NULL;
        _cleanup_(cjson_deletep) cJSON *root = cJSON_ParseWithOpts(json, &end, true);
        if (!root) {
                unsigned line, col;
                line_col(json, end ? end : json, &line, &col);
                return xpu_pj_fail(&c, "invalid JSON at line %u, column %u", line, col);
        }
        if (!cJSON_IsObject(root)) {
                char g[GOT_MAX];
                return xpu_pj_fail(&c, "expected a JSON object at the top level, got %s", xpu_pj_describe(root, g));
        }
        int r = xpu_pj_check_keys(&c, root, "", top_keys);
        if (r < 0)
                return r;

        _cleanup_(xpu_profile_freep) struct xpu_profile *p = calloc(1, sizeof *p);
        _cleanup_free_ char *match_require = NULL, *compat_require = NULL;
        if (!p)
                return -ENOMEM;
        p->origin = strdup(c.origin);
        if (!p->origin)
                return -ENOMEM;

#define GET(key) cJSON_GetObjectItemCaseSensitive(root, key)
        r = parse_name(&c, GET("name"), p);
        if (r < 0)
                return r;
        if (GET("description")) {
                r = xpu_pj_take_string(&c, GET("description"), "description", xpu_pj_v_any, &p->description);
                if (r < 0)
                        return r;
        }
        if (GET("priority")) {
                r = xpu_pj_take_int(&c, GET("priority"), "priority", 0, PRIORITY_MAX, &p->priority);
                if (r < 0)
                        return r;
        }
        r = parse_match(&c, GET("match"), p, &match_require);
        if (r < 0)
                return r;
        if (GET("capabilities")) {
                r = xpu_pj_take_strv(&c, GET("capabilities"), "capabilities", xpu_pj_v_capability, false,
                              &p->capabilities, &p->n_capabilities);
                if (r < 0)
                        return r;
        }
        if (GET("libraries")) {
                r = xpu_pj_take_capfiles(&c, GET("libraries"), "libraries", xpu_pj_v_filename, &p->libraries, &p->n_libraries);
                if (r < 0)
                        return r;
        }
        if (GET("binaries")) {
                r = xpu_pj_take_capfiles(&c, GET("binaries"), "binaries", xpu_pj_v_filename, &p->binaries, &p->n_binaries);
                if (r < 0)
                        return r;
        }
        if (GET("library_links") && (r = xpu_pj_take_links(&c, GET("library_links"), p)) < 0)
                return r;
        if (GET("capability_32bit") &&
            (r = xpu_pj_take_string(&c, GET("capability_32bit"), "capability_32bit", xpu_pj_v_capability,
                                    &p->capability_32bit)) < 0)
                return r;
        if (GET("files")) {
                r = xpu_pj_take_capfiles(&c, GET("files"), "files", xpu_host_file_pattern_invalid, &p->files, &p->n_files);
                if (r < 0)
                        return r;
        }
        if (GET("device_nodes")) {
                r = xpu_pj_take_strv(&c, GET("device_nodes"), "device_nodes", xpu_pj_v_devnode, false,
                              &p->device_nodes, &p->n_device_nodes);
                if (r < 0)
                        return r;
        }
        if (GET("fabric") && (r = xpu_pj_take_strv(&c, GET("fabric"), "fabric", xpu_fabric_name_invalid, false,
                                                   &p->fabric, &p->n_fabric)) < 0)
                return r;
        r = parse_env(&c, GET("env"), p);
        if (r < 0)
                return r;
        r = parse_command(&c, GET("command"), p);
        if (r < 0)
                return r;
        if (GET("keep_capabilities")) {
                r = xpu_pj_take_strv(&c, GET("keep_capabilities"), "keep_capabilities", xpu_pj_v_linux_cap, false,
                              &p->keep_capabilities, &p->n_keep_capabilities);
                if (r < 0)
                        return r;
                p->keep_capabilities_set = true;
        }
        r = parse_seccomp(&c, GET("seccomp"), p);
        if (r == 0)
                r = parse_device_code(&c, GET("device_code"), p);
        if (r == 0)
                r = parse_forward_compat(&c, GET("forward_compat"), p, &compat_require);
        /* Requirement expressions last: a profile with another bad key reports that key. */
        if (r == 0)
                r = parse_require(&c, "match.require", match_require, &p->require);
        if (r == 0)
                r = parse_require(&c, "forward_compat.require", compat_require, &p->forward_compat_require);
        if (r < 0)
                return r;
#undef GET
        *ret = TAKE_PTR(p);
        return 0;
}
