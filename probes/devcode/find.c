/* SPDX-License-Identifier: Apache-2.0 */
/* A 4-byte needle at any byte offset (find.h). */
#include "devcode/find.h"

#include <stdbool.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#ifdef __x86_64__
#include <immintrin.h>
#endif

/* The vector loops test two bytes a position, the needle's first at K and its last at K + 3, and
 * compare the two between only where both match: in real data that is rare. Each returns a match
 * among the starts it covered, or NULL with *DONE set to the first start it did not cover. */

#ifdef __SSE2__
static inline unsigned pairs16(const uint8_t *p, __m128i first, __m128i last) {
        __m128i a = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), first);
        __m128i b = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + 3)), last);
        return (unsigned)_mm_movemask_epi8(_mm_and_si128(a, b));
}

static const uint8_t *find_sse2(const uint8_t *buf, size_t starts, const uint8_t needle[4], size_t *done) {
        const __m128i first = _mm_set1_epi8((char)needle[0]), last = _mm_set1_epi8((char)needle[3]);
        size_t i = 0;
        for (; i + 32 <= starts; i += 32) { /* loads end at I + 34 */
                unsigned m = pairs16(buf + i, first, last) | pairs16(buf + i + 16, first, last) << 16;
                for (; m; m &= m - 1) {
                        const uint8_t *p = buf + i + __builtin_ctz(m);
                        if (memcmp(p + 1, needle + 1, 2) == 0)
                                return p;
                }
        }
        *done = i;
        return NULL;
}
#endif

#ifdef __x86_64__
__attribute__((target("avx2"))) static inline uint64_t pairs32(const uint8_t *p, __m256i first, __m256i last) {
        __m256i a = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(const void *)p), first);
        __m256i b = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(p + 3)), last);
        return (uint32_t)_mm256_movemask_epi8(_mm256_and_si256(a, b));
}

__attribute__((target("avx2"))) static const uint8_t *find_avx2(const uint8_t *buf, size_t starts, const uint8_t needle[4],
                                                                size_t *done) {
        const __m256i first = _mm256_set1_epi8((char)needle[0]), last = _mm256_set1_epi8((char)needle[3]);
        size_t i = 0;
        for (; i + 64 <= starts; i += 64) { /* loads end at I + 66 */
                uint64_t m = pairs32(buf + i, first, last) | pairs32(buf + i + 32, first, last) << 32;
                for (; m; m &= m - 1) {
                        const uint8_t *p = buf + i + __builtin_ctzll(m);
                        if (memcmp(p + 1, needle + 1, 2) == 0)
                                return p;
                }
        }
        *done = i;
        return NULL;
}

static bool have_avx2(void) {
        static int avx2 = -1;
        if (avx2 < 0)
                avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
        return avx2 > 0;
}
#endif

const uint8_t *xpu_find4(const uint8_t *buf, size_t len, const uint8_t needle[4]) {
        if (len < 4)
                return NULL;
        size_t i = 0;
#if defined(__x86_64__) || defined(__SSE2__)
        const size_t starts = len - 3; /* a match can start at 0 .. STARTS - 1 */
        const uint8_t *hit;
#if defined(__x86_64__)
        hit = have_avx2() ? find_avx2(buf, starts, needle, &i) : find_sse2(buf, starts, needle, &i);
#else
        hit = find_sse2(buf, starts, needle, &i);
#endif
        if (hit)
                return hit;
#endif
        /* The rest, or everything without vectors (aarch64: glibc's memchr is NEON there): by the needle's last byte (a hit at AT is a
         * start at AT - 3). */
        for (size_t at = i + 3; at < len;) {
                const uint8_t *q = memchr(buf + at, needle[3], len - at);
                if (!q)
                        return NULL;
                if (memcmp(q - 3, needle, 3) == 0)
                        return q - 3;
                at = (size_t)(q - buf) + 1;
        }
        return NULL;
}
