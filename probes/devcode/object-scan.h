/* SPDX-License-Identifier: Apache-2.0 */
/* One byte range of a file (an ELF section, or a standalone device-code file) scanned for device
 * code and the facts recorded in its object: NVIDIA fatbin containers (fatbin.h), AMD offload
 * bundles, plain and compressed (bundle.h, ccob.h), and the mangled names that mark Thrust, CUB,
 * rocPRIM and hipCUB instantiations. Fatbin sections are read through a window of preads
 * (window.h), bundle sections mapped read-only, string tables read in pieces; containers are walked
 * header by header, so payloads stay on disk; a file that shrinks while it is read is reported,
 * not a crash. Everything a scan costs is counted in the object's work budget (object.h), across
 * all its scans. Silent: problems are recorded in the object. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "devcode/object.h"

enum xpu_scan_what {
        XPU_SCAN_FATBIN,    /* loadable NVIDIA containers */
        XPU_SCAN_RELFATBIN, /* relocatable NVIDIA containers (__nv_relfatbin) */
        XPU_SCAN_BUNDLE,    /* AMD offload bundles */
        XPU_SCAN_MARKS,     /* only the parallel-algorithm marks (a section of strings) */
};

/* Scan FD[OFFSET, OFFSET + LEN) for WHAT, SECTION naming it in
 * messages and, where containers or bundles are found, in O's section lists; count its work in
 * O->work. With MARKS (may be NULL), also search the bytes the scan reads for the
 * parallel-algorithm marks until *MARKS is set (never the payloads of the containers it skips).
 * Returns the number of containers or bundles found, -ENOMEM, -ECANCELED when O's work budget ran
 * out, or -E2BIG when a list of O is full (other problems are recorded in O). */
int xpu_object_scan(int fd, uint64_t offset, uint64_t len, struct xpu_object *o, const char *section,
                    enum xpu_scan_what what, bool *marks);
