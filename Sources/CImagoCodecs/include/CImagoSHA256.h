/* SHA-256 compression with the CPU's SHA extensions, for naming disk-cache entries.
 *
 * On x86_64 CPUs with the SHA extensions (Intel since Ice Lake and Goldmont, AMD since Zen), the
 * sha256rnds2/sha256msg1/sha256msg2 instructions run a 64-byte block about ten times faster than
 * the portable rounds. Elsewhere imago_sha256_is_hardware() is 0 and the caller uses its own. */
#ifndef CIMAGO_SHA256_H
#define CIMAGO_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* 1 when imago_sha256_blocks may be called on this machine, 0 otherwise (decided once, when the
 * library loads). */
int imago_sha256_is_hardware(void);

/* Compresses `blocks` 64-byte blocks at `bytes` into `state` (the eight words a to h, as
 * FIPS 180-4 names them). Only when imago_sha256_is_hardware() is 1. */
void imago_sha256_blocks(uint32_t state[8], const void *bytes, size_t blocks);

#endif
