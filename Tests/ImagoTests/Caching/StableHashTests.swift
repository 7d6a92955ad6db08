import Foundation
import Testing

@testable import Imago

@Suite("SHA-256 and CRC-32")
struct StableHashTests {
    /// The FIPS 180-4 / NIST example vectors.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                + "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func nistVectors(message: String, digest: String) {
        #expect(StableHash.sha256Hex(message) == digest)
    }

    @Test func oneMillionLetterA() {
        let digest = StableHash.sha256(repeatElement(UInt8(ascii: "a"), count: 1_000_000))
        #expect(StableHash.hex(digest) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Lengths around the 55/56/64-byte padding boundaries, checked against the contiguous path.
    @Test(arguments: [55, 56, 57, 63, 64, 65, 119, 120, 128])
    func paddingBoundaries(length: Int) {
        let bytes = [UInt8](repeating: 0x61, count: length)
        #expect(StableHash.sha256(bytes) == StableHash.sha256(repeatElement(UInt8(0x61), count: length)))
        #expect(StableHash.sha256(bytes).count == 32)
    }

    /// The CPU's SHA instructions (where this machine has them) and the rounds written in Swift
    /// agree on every length from 0 to 300 bytes, in one piece and fed in uneven parts.
    @Test func hardwareAndPortableRoundsAgree() throws {
        #if os(Linux) && arch(x86_64)
            // Where the CPU has them, the instructions are used (or this test compares one path with itself).
            let flags = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
            #expect(StableHash.usesHardware == flags.contains(" sha_ni"))
        #endif
        var random = SystemRandomNumberGenerator()
        for length in 0...300 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let portable = StableHash.sha256(bytes, portable: true)
            #expect(StableHash.sha256(bytes) == portable, "\(length) bytes")
            #expect(StableHash.sha256Hex(String(decoding: bytes.map { $0 & 0x7F }, as: UTF8.self))
                == StableHash.hex(StableHash.sha256(bytes.map { $0 & 0x7F }, portable: true)), "\(length) ASCII bytes")
        }
    }

    @Test func crc32CheckValue() {
        #expect(Checksum.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Checksum.crc32([UInt8]()) == 0)
    }
}
