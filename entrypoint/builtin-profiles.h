/* SPDX-License-Identifier: Apache-2.0 */
/* Built-in profiles, compiled at build time from the JSON files in profiles/ by
 * packaging/profile-cgen (which parses them with xpu_profile_parse(), so a bad built-in fails
 * the build). They are static data: builtin is true and xpu_profile_free() leaves them alone. */
#pragma once

#include "profile.h"

/* NULL-terminated, in file-name order. */
extern struct xpu_profile *const xpu_builtin_profiles[];
