/* SPDX-License-Identifier: Apache-2.0 */
/* Finding the 4-byte magics of the device-code formats (fatbin, CCOB) in large sections, at every
 * byte offset. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The first occurrence of the four bytes NEEDLE in BUF[0..LEN), at any byte offset, or NULL:
 * memmem(BUF, LEN, NEEDLE, 4) at the speed memory is read (glibc's memmem steps three bytes at a
 * time for such a needle). On x86-64, 64 positions a step with AVX2 where the CPU has it, else 32
 * with SSE2; elsewhere memchr(3) of the needle's last byte, then a compare. */
const uint8_t *xpu_find4(const uint8_t *buf, size_t len, const uint8_t needle[4]);
