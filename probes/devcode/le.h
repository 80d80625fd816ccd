/* SPDX-License-Identifier: Apache-2.0 */
/* Little-endian loads for the device-code formats (fatbin and offload-bundle headers are
 * little-endian on every host), from positions the caller has bounds-checked. */
#pragma once

#include <stdint.h>

static inline uint16_t xpu_le16(const uint8_t *p) {
        return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t xpu_le32(const uint8_t *p) {
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t xpu_le64(const uint8_t *p) {
        return (uint64_t)xpu_le32(p) | (uint64_t)xpu_le32(p + 4) << 32;
}
