/* SPDX-License-Identifier: Apache-2.0 */
/* Built-in profiles embedded at build time from the JSON files in profiles/ (packaging/embed-profiles.sh). */
#pragma once

struct xpu_builtin_profile {
        const char *file; /* "nvidia-cuda.json" */
        const char *json; /* the file's text */
};

/* Terminated by an entry whose file is NULL. */
extern const struct xpu_builtin_profile xpu_builtin_profiles[];
