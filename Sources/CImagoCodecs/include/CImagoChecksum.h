/* CRC-32C (Castagnoli) for the disk cache's entry checksums, at hardware speed.
 *
 * From 256 bytes on, ISA-L's crc32_iscsi (folding with carry-less multiplication, chosen for the
 * CPU by ISA-L). Shorter inputs (entry headers): on x86_64 with SSE4.2 and ARMv8 with the CRC
 * extension the CPU's crc32c instruction, 8 bytes at a time; on other CPUs a table-driven
 * slicing-by-8 loop, chosen once, when the library loads.
 */
#ifndef CIMAGO_CHECKSUM_H
#define CIMAGO_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32C of `length` bytes at `bytes`, continuing from `crc` (0 for a fresh checksum):
 * imago_crc32c(imago_crc32c(0, a, n), b, m) is the CRC-32C of a followed by b.
 * "123456789" gives 0xE3069283. */
uint32_t imago_crc32c(uint32_t crc, const void *bytes, size_t length);

/* The same CRC-32C computed without the CPU's instructions (slicing-by-8), for tests. */
uint32_t imago_crc32c_portable(uint32_t crc, const void *bytes, size_t length);

/* 1 when imago_crc32c uses the CPU's crc32c instructions (below 256 bytes) on this machine, 0
 * otherwise. */
int imago_crc32c_is_hardware(void);

#endif
