/* SPDX-License-Identifier: Apache-2.0 */
/* The profile parser's JSON helpers (profile-json.c), shared by the parser (profile-parse.c):
 * the parse context and its one-line messages ("<origin>: key \"env.set.A\": expected ...,
 * got ..."), key paths, value validators and typed getters. Internal to the profile parser. */
#pragma once

#include <cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/macro.h"
#include "profile.h"

#define KEY_PATH_MAX 256      /* bytes of a key path in messages */
#define GOT_MAX 96            /* bytes of the "got ..." part of messages */
#define STRING_VALUE_MAX 4096 /* bytes of any string value (descriptions, env values, argv) */

/* Where a parse is and where its one error message goes. */
struct xpu_pctx {
        const char *origin;
        char *err;
        size_t err_size;
};

/* A value validator: NULL when S is fine, else what was expected (for the message). */
typedef const char *(*xpu_pj_validator_t)(const char *s);

/* Write "<origin>: <message>" into C's buffer and return -EINVAL. */
int xpu_pj_fail(const struct xpu_pctx *c, const char *fmt, ...) _printf_(2, 3);
const char *xpu_pj_describe(const cJSON *j, char buf[GOT_MAX]);
int xpu_pj_fail_expected(const struct xpu_pctx *c, const char *path, const char *expected, const cJSON *got);
size_t xpu_pj_key_append(char out[KEY_PATH_MAX], size_t len, const char *s);
void xpu_pj_key_join(char out[KEY_PATH_MAX], const char *parent, const char *child);
void xpu_pj_key_index(char out[KEY_PATH_MAX], const char *parent, size_t i);
int xpu_pj_check_keys(const struct xpu_pctx *c, const cJSON *obj, const char *path, const char *const *allowed);
bool xpu_pj_is_ident(const char *s, bool lower_only);
bool xpu_pj_has_control(const char *s);
const char *xpu_pj_v_any(const char *s);
const char *xpu_pj_v_capability(const char *s);
const char *xpu_pj_v_filename(const char *s);
const char *xpu_pj_v_devnode(const char *s);
const char *xpu_pj_v_envname(const char *s);
const char *xpu_pj_v_linux_cap(const char *s);
const char *xpu_pj_v_argv(const char *s);
int xpu_pj_take_string(const struct xpu_pctx *c, const cJSON *j, const char *path, xpu_pj_validator_t v, char **ret);
int xpu_pj_take_int(const struct xpu_pctx *c, const cJSON *j, const char *path, int min, int max, int *ret);
int xpu_pj_take_strv(const struct xpu_pctx *c, const cJSON *j, const char *path, xpu_pj_validator_t v, bool null_terminated, char ***ret, size_t *ret_n);
int xpu_pj_take_capfiles(const struct xpu_pctx *c, const cJSON *j, const char *path, xpu_pj_validator_t v, struct xpu_capability_files **ret, size_t *ret_n);
int xpu_pj_take_links(const struct xpu_pctx *c, const cJSON *j, struct xpu_profile *p);
