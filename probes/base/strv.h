/* SPDX-License-Identifier: Apache-2.0 */
/* NULL-terminated string vectors (argv, envp) and environment edits on them. */
#pragma once

#include <stddef.h>

/* Free every string and the vector; returns NULL. */
char **xpu_strv_free(char **v);
size_t xpu_strv_length(char *const *v);
/* Deep copy; NULL on -ENOMEM. A NULL V gives an empty vector. */
char **xpu_strv_copy(char *const *v);
/* Append a copy of S to *V. Returns 0 or -ENOMEM. */
int xpu_strv_push(char ***v, const char *s);
/* Append a copy of every string of SRC. Returns 0 or -ENOMEM. */
int xpu_strv_extend(char ***v, char *const *src);
/* Join with SEP into a new string; NULL on -ENOMEM. */
char *xpu_strv_join(char *const *v, const char *sep);

/* Value of NAME in the environment vector ENV ("NAME=value"), or NULL. */
const char *xpu_env_get(char *const *env, const char *name);
/* Set NAME=VALUE in *ENV, replacing an existing entry. Returns 0 or -ENOMEM. */
int xpu_env_set(char ***env, const char *name, const char *value);
/* Remove every NAME= entry of *ENV. */
void xpu_env_unset(char **env, const char *name);
/* True for a valid variable name: [A-Za-z_][A-Za-z0-9_]*. */
int xpu_env_name_is_valid(const char *name);
