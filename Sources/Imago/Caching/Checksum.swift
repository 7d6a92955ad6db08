import CZlib
import Foundation

#if os(Linux)
    import CImagoCodecs
#endif

/// The checksums of disk-cache entries.
///
/// Entries written now (format version 2) carry CRC-32C (Castagnoli) of their header and payload:
/// on Linux ISA-L's folding `crc32_iscsi` computes it from 256 bytes on, and the CPU's crc32c
/// instruction (SSE4.2 on x86_64, the CRC extension on ARMv8) below, many times faster than zlib's
/// CRC-32; elsewhere it runs a table-driven slicing-by-8 loop in Swift that computes the same
/// values. CRC-32C rather than XXH3:
/// the same 32 bits of protection the format always had, no new library on Linux, and a portable
/// fallback of 40 lines that Apple builds (which never see the C shims) share.
///
/// Version-1 entries carry zlib's CRC-32 (the PNG polynomial), still verified when they are read.
enum Checksum {
    /// The CRC-32C of `bytes`, continuing from `initial` (0 for a fresh checksum).
    static func crc32c(_ bytes: UnsafeRawBufferPointer, continuing initial: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress else { return initial }
        #if os(Linux)
            return imago_crc32c(initial, base, bytes.count)
        #else
            return crc32cPortable(UnsafeRawBufferPointer(start: base, count: bytes.count), continuing: initial)
        #endif
    }

    /// The CRC-32C of a byte array or `Data`.
    static func crc32c(_ bytes: some ContiguousBytes, continuing initial: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { crc32c($0, continuing: initial) }
    }

    /// CRC-32C by slicing-by-8 in Swift: the fallback where the C shim is absent, and the
    /// reference the hardware path is tested against.
    static func crc32cPortable(_ bytes: UnsafeRawBufferPointer, continuing initial: UInt32 = 0) -> UInt32 {
        var crc = ~initial
        var offset = 0
        let count = bytes.count
        return slicingTable.withUnsafeBufferPointer { table in
            while count - offset >= 8 {
                let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                    ^ UInt64(crc)
                var next = table[7 * 256 + Int(word & 0xFF)] ^ table[6 * 256 + Int((word >> 8) & 0xFF)]
                next ^= table[5 * 256 + Int((word >> 16) & 0xFF)] ^ table[4 * 256 + Int((word >> 24) & 0xFF)]
                next ^= table[3 * 256 + Int((word >> 32) & 0xFF)] ^ table[2 * 256 + Int((word >> 40) & 0xFF)]
                next ^= table[1 * 256 + Int((word >> 48) & 0xFF)] ^ table[Int(word >> 56)]
                crc = next
                offset += 8
            }
            while offset < count {
                crc = table[Int((crc ^ UInt32(bytes[offset])) & 0xFF)] ^ (crc >> 8)
                offset += 1
            }
            return ~crc
        }
    }

    /// Eight 256-entry tables, one after another: table k maps a byte to its CRC followed by k zero bytes.
    private static let slicingTable: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            table[byte] = crc
        }
        for byte in 0..<256 {
            var crc = table[byte]
            for slice in 1..<8 {
                crc = table[Int(crc & 0xFF)] ^ (crc >> 8)
                table[slice * 256 + byte] = crc
            }
        }
        return table
    }()

    /// Whether ``crc32c(_:continuing:)`` runs on the CPU's instructions here.
    static var crc32cIsHardware: Bool {
        #if os(Linux)
            imago_crc32c_is_hardware() != 0
        #else
            false
        #endif
    }

    /// The CRC-32 (the zlib/PNG polynomial) of `bytes`, continuing from `initial`: version-1 entries'
    /// checksum, and the fingerprint of original bytes.
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
