/* SPDX-License-Identifier: Apache-2.0 */
/* The attacker's library for the LD_PRELOAD=/proc/self/cwd/x.so case (tests/attack/attack.sh):
 * its constructor runs before main() of any dynamically linked program that preloads it and
 * writes the marker file named by XPU_ATTACK_MARKER (or /tmp/xpu-attack-marker), standing for
 * "code of the image ran on the host with the hook's privileges". */
#define _GNU_SOURCE 1
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void xpu_attack_preload(void) {
        const char *marker = secure_getenv("XPU_ATTACK_MARKER");
        int fd = open(marker ? marker : "/tmp/xpu-attack-marker", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) {
                (void)!write(fd, "preloaded\n", 10);
                close(fd);
        }
}
