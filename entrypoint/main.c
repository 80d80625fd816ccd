/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>

#include "base/log.h"

int main(int argc, char **argv) {
        (void)argc;
        (void)argv;
        puts("xpuinit " XPU_VERSION);
        return 0;
}
