#if os(Linux)
import Imago

/// HMAC-SHA256 (RFC 2104 over FIPS 180-4), for imgproxy's URL signatures and AWS Signature V4,
/// on Imago's own SHA-256 (`StableHash`): swift-crypto would compile a second copy of BoringSSL,
/// about 400 C files, into every clean build for these two uses.
enum HMACSHA256 {
    /// SHA-256's block size: a longer key is hashed first, a shorter one padded with zeros.
    private static let blockSize = 64

    /// The 32-byte authentication code of `message` under `key`.
    static func code(for message: some Sequence<UInt8>, key: some Sequence<UInt8>) -> [UInt8] {
        var block = Array(key)
        if block.count > blockSize { block = StableHash.sha256(block) }
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        let inner = StableHash.sha256(block.map { $0 ^ 0x36 } + Array(message))
        return StableHash.sha256(block.map { $0 ^ 0x5c } + inner)
    }

    /// Whether `a` and `b` are the same bytes, in a time that depends on their lengths only
    /// (every byte is compared, whatever matched before).
    static func isEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
#endif
