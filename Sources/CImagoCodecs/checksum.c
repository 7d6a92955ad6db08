/* CRC-32C for the disk cache: see include/CImagoChecksum.h. */
#include "requirements.h"
#include "CImagoChecksum.h"

#include <isa-l/crc.h>
#include <limits.h>
#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#define IMAGO_CRC_HW_TARGET __attribute__((target("sse4.2")))
#elif defined(__aarch64__)
#include <arm_acle.h>
#if defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#endif
#define IMAGO_CRC_HW_TARGET __attribute__((target("crc")))
#endif

/* The reflected Castagnoli polynomial. */
#define POLY 0x82f63b78u
static uint32_t slicing_table[8][256];
static int uses_hardware;

__attribute__((constructor)) static void imago_crc32c_initialize(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t crc = n;
        for (int k = 0; k < 8; k++) crc = crc & 1 ? (crc >> 1) ^ POLY : crc >> 1;
        slicing_table[0][n] = crc;
    }
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t crc = slicing_table[0][n];
        for (int k = 1; k < 8; k++) {
            crc = slicing_table[0][crc & 0xff] ^ (crc >> 8);
            slicing_table[k][n] = crc;
        }
    }
#if defined(__x86_64__)
    __builtin_cpu_init();
    uses_hardware = __builtin_cpu_supports("sse4.2");
#elif defined(__aarch64__) && defined(__linux__)
    uses_hardware = (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#endif
}

uint32_t imago_crc32c_portable(uint32_t crc, const void *bytes, size_t length) {
    const unsigned char *next = bytes;
    uint32_t c = ~crc;
    while (length && ((uintptr_t)next & 7)) {
        c = slicing_table[0][(c ^ *next++) & 0xff] ^ (c >> 8);
        length--;
    }
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, next, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        word = __builtin_bswap64(word);
#endif
        word ^= c;
        c = slicing_table[7][word & 0xff] ^ slicing_table[6][(word >> 8) & 0xff] ^
            slicing_table[5][(word >> 16) & 0xff] ^ slicing_table[4][(word >> 24) & 0xff] ^
            slicing_table[3][(word >> 32) & 0xff] ^ slicing_table[2][(word >> 40) & 0xff] ^
            slicing_table[1][(word >> 48) & 0xff] ^ slicing_table[0][word >> 56];
        next += 8;
        length -= 8;
    }
    while (length--) c = slicing_table[0][(c ^ *next++) & 0xff] ^ (c >> 8);
    return ~c;
}

#if defined(__x86_64__) || defined(__aarch64__)

#if defined(__x86_64__)
#define CRC_BYTE(crc, byte) _mm_crc32_u8((crc), (byte))
#define CRC_WORD(crc, word) ((uint64_t)_mm_crc32_u64((crc), (word)))
#else
#define CRC_BYTE(crc, byte) __crc32cb((uint32_t)(crc), (byte))
#define CRC_WORD(crc, word) ((uint64_t)__crc32cd((uint32_t)(crc), (word)))
#endif

static inline uint64_t load64(const unsigned char *p) {
    uint64_t word;
    memcpy(&word, p, 8);
    return word;
}

/* Inputs shorter than ISAL_FROM (entry headers): one crc32c instruction per 8 bytes. */
IMAGO_CRC_HW_TARGET static uint32_t hardware(uint32_t crc, const void *bytes, size_t length) {
    const unsigned char *next = bytes;
    uint64_t crc0 = ~crc;
    while (length && ((uintptr_t)next & 7)) {
        crc0 = CRC_BYTE((uint32_t)crc0, *next++);
        length--;
    }
    while (length >= 8) {
        crc0 = CRC_WORD(crc0, load64(next));
        next += 8;
        length -= 8;
    }
    while (length--) crc0 = CRC_BYTE((uint32_t)crc0, *next++);
    return ~(uint32_t)crc0;
}
#endif

/* From this length on, ISA-L's crc32_iscsi: it folds 64 bytes at a time with carry-less
 * multiplication (PCLMULQDQ, or ARM's PMULL) where the loop above is bound by one crc32c
 * instruction per 8 bytes (0.8 us for a 50 KB entry on the development machine). ISA-L takes the
 * CRC without its final inversion and an `int` length. */
#define ISAL_FROM 256

uint32_t imago_crc32c(uint32_t crc, const void *bytes, size_t length) {
    if (length >= ISAL_FROM) {
        const unsigned char *next = bytes;
        while (length > 0) {
            size_t chunk = length > (size_t)INT_MAX ? (size_t)1 << 30 : length;
            crc = ~crc32_iscsi((unsigned char *)next, (int)chunk, ~crc);
            next += chunk;
            length -= chunk;
        }
        return crc;
    }
#if defined(__x86_64__) || defined(__aarch64__)
    if (uses_hardware) return hardware(crc, bytes, length);
#endif
    return imago_crc32c_portable(crc, bytes, length);
}

int imago_crc32c_is_hardware(void) { return uses_hardware; }
