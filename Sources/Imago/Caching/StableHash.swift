#if os(Linux)
    import CImagoCodecs
#endif

/// SHA-256 (FIPS 180-4), used to name disk-cache entries (and, in the image proxy, for its URL
/// signatures, S3 request signing and response tags).
///
/// Entry names must be the same in every process and on every run, so Swift's per-process seeded
/// `Hasher` cannot be used. SHA-256 is written out here rather than taken from swift-crypto, which
/// would add a second copy of BoringSSL (about 400 C files) to every clean Linux build.
/// On Linux with x86_64's SHA extensions the blocks are compressed by the CPU's instructions (a
/// C shim): naming the entry is part of every disk-cache hit.
package enum StableHash {
    /// The 32-byte SHA-256 digest of `bytes`; `portable` keeps to the rounds written in Swift
    /// (tests compare the two paths).
    package static func sha256(_ bytes: some Sequence<UInt8>, portable: Bool = false) -> [UInt8] {
        var hasher = SHA256(usesHardware: SHA256.hardwareAvailable && !portable)
        let handled: Void? = bytes.withContiguousStorageIfAvailable { hasher.update($0) }
        if handled == nil { Array(bytes).withUnsafeBufferPointer { hasher.update($0) } }
        return hasher.finalize()
    }

    /// Whether blocks go to the CPU's SHA instructions on this machine.
    static var usesHardware: Bool { SHA256.hardwareAvailable }

    /// The SHA-256 of the string's UTF-8 bytes as its eight 32-bit words, most significant first
    /// (the digest's bytes are their big-endian spelling). Allocates nothing.
    static func sha256Words(_ string: String) -> (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) {
        var string = string
        return string.withUTF8 { bytes in
            var hasher = SHA256()
            return hasher.oneShot(bytes)
        }
    }

    /// The lower-case hexadecimal SHA-256 of the string's UTF-8 bytes: 64 characters, safe in any
    /// file name whatever the string contains.
    static func sha256Hex(_ string: String) -> String {
        let words = sha256Words(string)
        return String(unsafeUninitializedCapacity: 64) { buffer in
            withUnsafeBytes(of: words) { words in
                for index in 0..<8 {
                    let word = words.load(fromByteOffset: 4 * index, as: UInt32.self)
                    writeHex(UInt64(word), digits: 8, into: UnsafeMutableBufferPointer(rebasing: buffer[8 * index..<8 * index + 8]))
                }
            }
            return 64
        }
    }

    /// Writes the low `digits` nibbles of `value` as lower-case hexadecimal, most significant first,
    /// into the first `digits` bytes of `buffer`.
    static func writeHex(_ value: UInt64, digits: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        for nibble in 0..<digits {
            let digit = UInt8(truncatingIfNeeded: value >> UInt64(4 * (digits - 1 - nibble))) & 0xF
            buffer[nibble] = digit < 10 ? 0x30 + digit : 0x57 + digit  // "0"…"9", "a"…"f"
        }
    }

    /// Lower-case hexadecimal, two characters per byte.
    package static func hex(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            for (index, byte) in bytes.enumerated() {
                writeHex(UInt64(byte), digits: 2, into: UnsafeMutableBufferPointer(rebasing: buffer[2 * index..<2 * index + 2]))
            }
            return bytes.count * 2
        }
    }
}

/// The incremental SHA-256 state: feed bytes with `update`, then read the digest with `finalize`.
private struct SHA256 {
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    /// Bytes waiting for a full 64-byte block.
    private var pending: [UInt8] = []
    private var messageLength: UInt64 = 0
    /// Whether ``compress(blocks:)`` hands the blocks to the CPU's SHA instructions.
    private let usesHardware: Bool

    init(usesHardware: Bool = SHA256.hardwareAvailable) {
        self.usesHardware = usesHardware
    }

    mutating func update(_ bytes: UnsafeBufferPointer<UInt8>) {
        messageLength &+= UInt64(bytes.count)
        var start = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<take])
            start = take
            guard pending.count == 64 else { return }
            pending.withUnsafeBufferPointer { compress(blocks: UnsafeRawBufferPointer($0)) }
            pending.removeAll(keepingCapacity: true)
        }
        let raw = UnsafeRawBufferPointer(bytes)
        let end = start + (bytes.count - start) / 64 * 64
        compress(blocks: UnsafeRawBufferPointer(rebasing: raw[start..<end]))
        pending.append(contentsOf: bytes[end...])
    }

    /// The digest of `bytes`, all of the message, as the eight state words: full blocks are
    /// compressed in place and the padded tail is built on the stack, so nothing is allocated.
    mutating func oneShot(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) {
        let raw = UnsafeRawBufferPointer(bytes)
        let start = raw.count / 64 * 64
        compress(blocks: UnsafeRawBufferPointer(rebasing: raw[0..<start]))
        let remaining = raw.count - start
        let tailLength = remaining < 56 ? 64 : 128
        let bitLength = UInt64(raw.count) &* 8
        withUnsafeTemporaryAllocation(byteCount: 128, alignment: 8) { tail in
            tail.initializeMemory(as: UInt8.self, repeating: 0)
            if remaining > 0 {
                tail.baseAddress!.copyMemory(from: raw.baseAddress! + start, byteCount: remaining)
            }
            tail[remaining] = 0x80
            for index in 0..<8 {
                tail[tailLength - 1 - index] = UInt8(truncatingIfNeeded: bitLength >> UInt64(8 * index))
            }
            compress(blocks: UnsafeRawBufferPointer(rebasing: tail[0..<tailLength]))
        }
        return state
    }

    /// Whether this machine has the SHA instructions the C shim uses (x86_64 on Linux).
    #if os(Linux)
        static let hardwareAvailable = imago_sha256_is_hardware() != 0
    #else
        static let hardwareAvailable = false
    #endif

    /// Compresses every 64-byte block of `blocks` (a multiple of 64 bytes) into the state.
    private mutating func compress(blocks: UnsafeRawBufferPointer) {
        #if os(Linux)
            if usesHardware, let base = blocks.baseAddress {
                withUnsafeMutableBytes(of: &state) { words in
                    imago_sha256_blocks(words.baseAddress!.assumingMemoryBound(to: UInt32.self), base, blocks.count / 64)
                }
                return
            }
        #endif
        for start in stride(from: 0, to: blocks.count - 63, by: 64) {
            compress(block: UnsafeRawBufferPointer(rebasing: blocks[start..<start + 64]))
        }
    }

    mutating func finalize() -> [UInt8] {
        let bitLength = messageLength &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        tail.withUnsafeBytes { compress(blocks: $0) }
        let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
        return words.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * UInt32($0))) } }
    }

    private mutating func compress(block: UnsafeRawBufferPointer) {
        // The message schedule lives on the stack: a heap array per block cost more than the rounds.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for t in 0..<16 {
                w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * t, as: UInt32.self))
            }
            for t in 16..<64 {
                let s0 = w[t - 15].rotatedRight(7) ^ w[t - 15].rotatedRight(18) ^ (w[t - 15] >> 3)
                let s1 = w[t - 2].rotatedRight(17) ^ w[t - 2].rotatedRight(19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = state
            Self.roundConstants.withUnsafeBufferPointer { k in
                for t in 0..<64 {
                    let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = h &+ sum1 &+ choice &+ k[t] &+ w[t]
                    let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = sum0 &+ majority
                    (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
            }
            state = (
                state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
                state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h
            )
        }
    }
}

extension UInt32 {
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { (self >> count) | (self << (32 - count)) }
}
