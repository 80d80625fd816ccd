/* SPDX-License-Identifier: Apache-2.0 */
/* One CDI spec file read back (cdi-devices.h reads the directories): its kind, its devices' names
 * and device nodes, and the spec-level device nodes that come with every one of its devices.
 * Nothing else of the spec is kept (env, mounts, hooks: xpud maps nodes to GPUs, it injects
 * nothing).
 *
 * Rules, those the CDI library (cncf-tags/container-device-interface, pkg/cdi/spec.go,
 * pkg/parser/parser.go, specs-go) applies before an engine uses a spec, so that xpud takes the
 * devices the engines take: one YAML or JSON document (yaml-json.h) holding a mapping with
 * `cdiVersion` (a string "X.Y.Z"), `kind` ("<vendor>/<class>": each starts with a letter, ends
 * with a letter or digit, and holds letters, digits, '-', '_' and '.'; the vendor at most 253
 * bytes, the class at most 63, SPEC.md), and `devices`, a non-empty sequence of mappings with a
 * unique `name` (starts and ends with a letter or digit, holds letters, digits, '-', '_', '.',
 * ':'). Device nodes (`containerEdits.deviceNodes[]`, on a device and on the spec): `path`
 * (required), `hostPath`, `type` ("c", "u", "b", "p" or absent), `major` and `minor` (integers,
 * at most 4095 and 1048575: Linux's 12 and 20 bits). Fields xpud does not read are not checked.
 * Silent: what is wrong goes to ERR, naming the field ("devices[2].name"). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Bounds on one spec's document (yaml-json.h); a spec holds some 5 levels and, for nvidia-ctk's
 * spec of an 8-GPU MIG host, a few thousand values. */
#define XPUD_CDI_SPEC_DEPTH_MAX 16u
#define XPUD_CDI_SPEC_VALUES_MAX 32768u

enum xpud_cdi_node_type {
        XPUD_CDI_NODE_UNSET = 0, /* no type: the node itself says (CDI stats it) */
        XPUD_CDI_NODE_CHAR,      /* "c" or "u" (OCI: an unbuffered character device) */
        XPUD_CDI_NODE_OTHER,     /* "b" or "p": a block device or FIFO, never a GPU */
};

struct xpud_cdi_node {
        char *path;      /* in the container */
        char *host_path; /* on the host, NULL when the spec gives none (then PATH is) */
        enum xpud_cdi_node_type type;
        bool has_numbers; /* major given and not 0: CDI takes the numbers as they are */
        unsigned major, minor;
};

struct xpud_cdi_spec_device {
        char *name; /* unqualified ("0", "GPU-...", "<claim uid>-gpu-0") */
        struct xpud_cdi_node *nodes;
        size_t n_nodes;
};

struct xpud_cdi_spec {
        char *kind; /* "<vendor>/<class>" */
        struct xpud_cdi_spec_device *devices;
        size_t n_devices;
        struct xpud_cdi_node *common; /* the spec's containerEdits.deviceNodes */
        size_t n_common;
};

/* Read the spec in TEXT (LEN bytes of YAML or JSON) into *RET (xpud_cdi_spec_free). Returns 0,
 * -EINVAL (not a CDI spec: ERR says where and what), -E2BIG (past the bounds above; ERR names
 * the bound), or -ENOMEM. */
int xpud_cdi_spec_read(const char *text, size_t len, struct xpud_cdi_spec **ret, char *err, size_t err_size);

/* Free. NULL-safe; returns NULL. */
struct xpud_cdi_spec *xpud_cdi_spec_free(struct xpud_cdi_spec *s);

/* True when KIND is a valid "<vendor>/<class>" (the rules above). */
bool xpud_cdi_kind_valid(const char *kind);

/* True when NAME is a valid unqualified device name. */
bool xpud_cdi_device_name_valid(const char *name);

/* True when QNAME is a fully qualified device name "<vendor>/<class>=<name>". */
bool xpud_cdi_qualified_name_valid(const char *qname);
