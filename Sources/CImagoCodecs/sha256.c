/* SHA-256 block compression with the x86 SHA extensions: see include/CImagoSHA256.h. */
#include "CImagoSHA256.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

static int has_sha_extensions;

__attribute__((constructor)) static void imago_sha256_initialize(void) {
    unsigned int eax, ebx, ecx, edx;
    /* Leaf 1: SSSE3 (ECX bit 9) and SSE4.1 (ECX bit 19), which the shuffles and blends need. */
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return;
    int has_sse = (ecx & (1u << 9)) && (ecx & (1u << 19));
    /* Leaf 7, sub-leaf 0: SHA (EBX bit 29). */
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return;
    has_sha_extensions = has_sse && (ebx & (1u << 29));
}

int imago_sha256_is_hardware(void) { return has_sha_extensions; }

/* The 64 round constants, four per group of rounds. */
static const uint32_t round_constants[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

__attribute__((target("sha,sse4.1,ssse3")))
void imago_sha256_blocks(uint32_t state[8], const void *bytes, size_t blocks) {
    /* The instructions keep the state as two vectors, (a, b, e, f) and (c, d, g, h). */
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i low = _mm_loadu_si128((const __m128i *)&state[0]);   /* a b c d, a lowest */
    __m128i high = _mm_loadu_si128((const __m128i *)&state[4]);  /* e f g h */
    low = _mm_shuffle_epi32(low, 0xB1);                            /* b a d c */
    high = _mm_shuffle_epi32(high, 0x1B);                          /* h g f e */
    __m128i abef = _mm_alignr_epi8(low, high, 8);                  /* f e b a */
    __m128i cdgh = _mm_blend_epi16(high, low, 0xF0);               /* h g d c */
    const unsigned char *block = bytes;
    for (size_t index = 0; index < blocks; index++, block += 64) {
        const __m128i abef_before = abef;
        const __m128i cdgh_before = cdgh;
        /* The message schedule, four words per vector: group j holds W[4j] to W[4j + 3]. */
        __m128i groups[4];
        for (int j = 0; j < 4; j++) {
            groups[j] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 16 * j)), byte_swap);
        }
        for (int j = 0; j < 16; j++) {
            if (j >= 4) {
                /* W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16], four at a time. */
                __m128i next = _mm_sha256msg1_epu32(groups[j & 3], groups[(j - 3) & 3]);
                next = _mm_add_epi32(next, _mm_alignr_epi8(groups[(j - 1) & 3], groups[(j - 2) & 3], 4));
                groups[j & 3] = _mm_sha256msg2_epu32(next, groups[(j - 1) & 3]);
            }
            __m128i words = _mm_add_epi32(groups[j & 3], _mm_load_si128((const __m128i *)&round_constants[4 * j]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, words);
            words = _mm_shuffle_epi32(words, 0x0E);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, words);
        }
        abef = _mm_add_epi32(abef, abef_before);
        cdgh = _mm_add_epi32(cdgh, cdgh_before);
    }
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));  /* a b c d */
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));     /* e f g h */
}

#else

int imago_sha256_is_hardware(void) { return 0; }

void imago_sha256_blocks(uint32_t state[8], const void *bytes, size_t blocks) {
    (void)state;
    (void)bytes;
    (void)blocks;
}

#endif
