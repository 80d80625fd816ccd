/* SPDX-License-Identifier: Apache-2.0 */
/* A bounded YAML → cJSON converter: one document of YAML 1.1 (libyaml's parser; JSON is a part of
 * it, so .json files go through it too, as the CDI library reads both with one YAML parser) into
 * a cJSON tree that one reader then walks.
 *
 * Scalars: a quoted scalar (or one tagged !!str) is a string; a plain one is null ("", "~",
 * "null"), a boolean ("true"/"false" in any of YAML's three spellings), a number (decimal integer
 * or float), else a string. A plain scalar made a null, boolean or number keeps its text in the
 * item's valuestring (cJSON_Delete frees it), so a reader that wants a string (a device named 0)
 * can still have it: xpud_yaml_text().
 *
 * Hostile input has a work budget: at most DEPTH_MAX nested collections and NODES_MAX items;
 * aliases (*name) and merge keys (<<) are refused, so no document can grow by reference ("billion
 * laughs"); a complex (collection) key, a key twice in one mapping (checked sorted: n log n), a
 * second document and an empty stream are refused.
 * Silent: errors go to ERR with the line and column. */
#pragma once

#include <cjson/cJSON.h>
#include <stddef.h>

struct xpud_yaml_limits {
        size_t depth_max; /* nested mappings and sequences */
        size_t nodes_max; /* cJSON items, keys not counted */
};

/* Parse TEXT (LEN bytes, need not be NUL-terminated) into *RET (cJSON_Delete). Returns 0,
 * -EINVAL (a syntax error, an alias, a merge, complex or repeated key, a second or no document; ERR says
 * which and where), -E2BIG (past LIMITS; ERR names the limit), or -ENOMEM. */
int xpud_yaml_to_json(const char *text, size_t len, const struct xpud_yaml_limits *limits, cJSON **ret, char *err,
                      size_t err_size);

/* The text of ITEM when it is a string, or a plain YAML scalar read as a number, boolean or null
 * (xpud_yaml_to_json keeps its text); NULL for anything else. */
const char *xpud_yaml_text(const cJSON *item);
