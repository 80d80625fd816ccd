/* SPDX-License-Identifier: Apache-2.0 */
/* Shared helpers for the libcheck unit tests. */
#pragma once

#include <check.h>
#include <stdbool.h>

#include "probe.h"
#include "vendor.h"

/* Absolute path of tests/fixtures/hosts/NAME in the source tree (static buffer). */
const char *xpu_test_host(const char *name);
/* Open the roots of a fixture host (sys, dev and driver root all = the host tree). Asserts. */
void xpu_test_open_host(struct xpu_roots *r, const char *name);
/* Probe a fixture host; asserts success. Free with xpu_inventory_free(). */
struct xpu_inventory *xpu_test_probe_host(const char *name);
/* Probe a copy of fixture host NAME (xpu_test_copy_host) with its dev/DEVNODES nodes made (root),
 * after EDIT ran on the copy (NULL: none), the copy being the sys, dev and driver root; asserts
 * success. R (may be NULL) keeps the roots open (xpu_roots_close()); RET_ROOT (may be NULL) gets
 * the copy's path (xpu_test_rm_rf() and free() it), else the copy is removed. Free the inventory
 * with xpu_inventory_free(). */
struct xpu_inventory *xpu_test_probe_copy(const char *name, void (*edit)(const char *root), struct xpu_roots *r,
                                          char **ret_root);

/* Run only BACKEND against DIR (sys, dev and driver root all = DIR); asserts success. */
struct xpu_inventory *xpu_test_probe_backend(const struct xpu_vendor_ops *backend, const char *dir);

/* A fresh temporary directory (free with xpu_test_rm_rf + free). */
char *xpu_test_mkdtemp(void);
/* Write CONTENT to ROOT/REL, creating parent directories. Asserts. */
void xpu_test_write(const char *root, const char *rel, const char *content);
/* Create a symlink ROOT/REL -> TARGET, creating parent directories. Asserts. */
void xpu_test_symlink(const char *root, const char *rel, const char *target);
/* Copy a fixture host tree into a new temporary directory (cp -a); returns it. */
char *xpu_test_copy_host(const char *name);
/* Create the device nodes listed in ROOT/dev/DEVNODES (lines "PATH c MAJOR:MINOR", '#' comments)
 * under ROOT with mknod. Needs root (CAP_MKNOD): fails the test loudly otherwise. */
void xpu_test_make_devnodes(const char *root);
/* rm -rf DIR. */
void xpu_test_rm_rf(const char *dir);
/* The whole file tests/fixtures/REL of the source tree, malloc'ed (free it); *LEN its size.
 * Asserts that it exists and is not empty. */
unsigned char *xpu_test_read_fixture(const char *rel, size_t *len);
/* A memfd holding the LEN bytes of DATA (close it). Asserts. */
int xpu_test_memfd(const void *data, size_t len);

/* Run SUITE with CK_FORK; returns the process exit status (0 when every test passed). */
int xpu_test_run(Suite *suite);
