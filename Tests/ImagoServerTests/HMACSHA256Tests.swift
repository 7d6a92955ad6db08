#if os(Linux)
import Foundation
import Imago
import Testing

@testable import ImagoServer

/// HMAC-SHA256 against RFC 4231's test cases (every one whose output is not truncated, and the
/// truncated one by its prefix): short and long keys, a key longer than a block (hashed first), a
/// message longer than a block.
@Suite struct HMACSHA256Tests {
    private static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return result
    }

    static let cases: [(key: [UInt8], message: [UInt8], mac: String)] = [
        (
            [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        (
            bytes("0102030405060708090a0b0c0d0e0f10111213141516171819"), [UInt8](repeating: 0xcd, count: 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        (
            [UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            [UInt8](repeating: 0xaa, count: 131),
            Array(
                "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."
                    .utf8),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
    ]

    @Test(arguments: 0..<cases.count)
    func matchesRFC4231(index: Int) {
        let test = Self.cases[index]
        #expect(HMACSHA256.code(for: test.message, key: test.key) == Self.bytes(test.mac))
    }

    /// RFC 4231 test case 5: the output truncated to 128 bits.
    @Test func truncatedOutputIsThePrefix() {
        let mac = HMACSHA256.code(for: Array("Test With Truncation".utf8), key: [UInt8](repeating: 0x0c, count: 20))
        #expect(Array(mac.prefix(16)) == Self.bytes("a3b6167473100ee06e0c796c2955552b"))
    }

    /// A key of exactly one block is used as it is, one byte more is hashed first: the two give
    /// different codes, and the hashed one equals the code under the key's digest.
    @Test func keysAroundTheBlockSize() {
        let message = Array("block".utf8)
        let block = [UInt8](repeating: 0x42, count: 64)
        let longer = block + [0x42]
        #expect(HMACSHA256.code(for: message, key: block) != HMACSHA256.code(for: message, key: longer))
        #expect(HMACSHA256.code(for: message, key: longer) == HMACSHA256.code(for: message, key: StableHash.sha256(longer)))
    }

    @Test func comparisonNeedsEveryByte() {
        #expect(HMACSHA256.isEqual([1, 2, 3], [1, 2, 3]))
        #expect(!HMACSHA256.isEqual([1, 2, 3], [1, 2, 4]))
        #expect(!HMACSHA256.isEqual([9, 2, 3], [1, 2, 3]))
        #expect(!HMACSHA256.isEqual([1, 2], [1, 2, 3]))
        #expect(HMACSHA256.isEqual([], []))
    }
}
#endif
