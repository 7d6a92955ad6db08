import Foundation
import CZlib

/// CRC-32 (the zlib/PNG polynomial) through zlib's `crc32`, which is table- and SIMD-accelerated.
///
/// The disk cache stores a CRC-32 of each payload and of each header, so a torn or bit-flipped
/// entry is noticed and discarded instead of being decoded as an image.
enum Checksum {
    /// The CRC-32 of `bytes`, continuing from `initial` (0 for a fresh checksum).
    static func crc32(_ bytes: UnsafeRawBufferPointer, continuing initial: UInt32 = 0) -> UInt32 {
        var crc = UInt(initial)
        var remaining = bytes
        // zlib takes a 32-bit length; feed larger buffers in pieces.
        while !remaining.isEmpty {
            let count = min(remaining.count, Int(UInt32.max >> 1))
            let base = remaining.baseAddress?.assumingMemoryBound(to: UInt8.self)
            crc = CZlib.crc32(crc, base, uInt(count))
            remaining = UnsafeRawBufferPointer(rebasing: remaining[count...])
        }
        return UInt32(truncatingIfNeeded: crc)
    }

    /// The CRC-32 of a byte array or `Data`.
    static func crc32(_ bytes: some ContiguousBytes, continuing initial: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { crc32($0, continuing: initial) }
    }
}
