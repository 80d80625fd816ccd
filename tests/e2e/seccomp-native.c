/* SPDX-License-Identifier: Apache-2.0 */
/* packaging/seccomp-cgen built for the programs' own architecture and run there (tests/e2e/
 * seccomp-builtin.sh): its output is what a native build would compile into xpuinit and xpud, so
 * a cross build's built-in filters (seccomp-cgen of the build machine with the target's name) must
 * equal it byte for byte. Under qemu-user, which has no seccomp(2), libseccomp would take the
 * kernel for one without SECCOMP_RET_KILL_PROCESS (API level 1) and refuse the filters: the level
 * the build machine's kernel has (3: seccomp(2) with SECCOMP_GET_ACTION_AVAIL) is set first. The
 * filters are only compiled here, never loaded.
 *   seccomp-native > builtin-seccomp.inc */
#include <seccomp.h>
#include <stdio.h>

int xpu_seccomp_cgen_main(int argc, char **argv); /* seccomp-cgen.c's main(), renamed */

int main(int argc, char **argv) {
        int r = seccomp_api_set(3);
        if (r != 0) {
                fprintf(stderr, "seccomp-native: libseccomp refused API level 3 (%d)\n", r);
                return 1;
        }
        return xpu_seccomp_cgen_main(argc, argv);
}
