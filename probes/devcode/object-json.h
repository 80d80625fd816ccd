/* SPDX-License-Identifier: Apache-2.0 */
/* An audited object as JSON, and back: the objects of `xpuinit audit --json` and of the
 * device-code index that `--write-index` writes and the start-time check reads are the same
 * shape, so the check judges exactly what the audit saw.
 *
 * {"path", "size_bytes", "kind", "vendor", "library", "layers": [...], "needed": [...],
 *  "nvidia": {"sass": [...], "ptx": [...], "ptx_isa": {"compute_90": "9.0"}, "lto": [...],
 *             "relocatable": {"sass", "ptx"}, "compression": [...], "sections": [...]},
 *  "amd": {"gfx": [...], "compression": [...], "sections": [...]},
 *  "cudart": 13, "stub": true, "driver_copy": true, "malformed": "why"}
 * ("nvidia"/"amd" only when the object has such code; "ptx_isa" gives the lowest PTX ISA of each
 * PTX architecture, which decides whether a driver can JIT-compile it). */
#pragma once

#include <cJSON.h>
#include <stddef.h>

#include "devcode/object.h"

/* O as a new JSON object, or NULL on -ENOMEM. */
cJSON *xpu_object_to_json(const struct xpu_object *o);

/* Read J (one object as written by xpu_object_to_json()) into *O. Returns 0, or -EINVAL with
 * ERR naming the field when J is not that shape, or -ENOMEM. On error *O holds nothing. */
int xpu_object_from_json(const cJSON *j, struct xpu_object *o, char *err, size_t err_size);

/* The device-code index: {"version": 1, "generator": "xpuinit X.Y.Z", "root": ROOT,
 * "objects": [the vendor-tied objects of OBJECTS[0..N)]}. Returns a new JSON object, or NULL on
 * -ENOMEM. */
cJSON *xpu_index_to_json(const struct xpu_object *objects, size_t n, const char *root, const char *generator);

/* Parse an index TEXT[0..LEN) into a new array *OBJECTS of *N objects (free each with
 * xpu_object_clear() and the array with free()). Returns 0; -EINVAL with ERR naming what is
 * wrong (not JSON, another version, a bad object); -ENOMEM. */
int xpu_index_parse(const char *text, size_t len, struct xpu_object **objects, size_t *n, char *err,
                    size_t err_size);
