import Foundation
import Testing

@testable import Imago

@Suite("CRC-32C")
struct ChecksumTests {
    /// The standard check value, and the iSCSI (RFC 3720) test vectors.
    @Test func checkValues() {
        #expect(Checksum.crc32c(Array("123456789".utf8)) == 0xE306_9283)
        #expect(Checksum.crc32c([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(Checksum.crc32c([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(Checksum.crc32c(Array(0...31 as ClosedRange<UInt8>)) == 0x46DD_794E)
        #expect(Checksum.crc32c([UInt8]()) == 0)
        #expect(Checksum.crc32cPortable(UnsafeRawBufferPointer(start: nil, count: 0)) == 0)
    }

    /// The fast paths (the CPU's crc32c instruction below 256 bytes, ISA-L's folding from 256 on)
    /// and the portable slicing-by-8 agree at every length and alignment around their boundaries,
    /// and a checksum continues across pieces (of either path) as over the whole.
    @Test(arguments: [0, 1, 7, 8, 9, 255, 256, 257, 767, 768, 769, 1_000, 24_575, 24_576, 24_577, 51_200, 100_003])
    func hardwareAgreesWithPortable(length: Int) {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(length + 8)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes.withUnsafeBytes { raw in
            for offset in [0, 1, 3, 5] {
                let slice = UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + length)])
                let whole = Checksum.crc32c(slice)
                #expect(whole == Checksum.crc32cPortable(slice), "length \(length), offset \(offset)")
                let cut = length / 3
                let first = Checksum.crc32c(UnsafeRawBufferPointer(rebasing: slice[0..<cut]))
                #expect(Checksum.crc32c(UnsafeRawBufferPointer(rebasing: slice[cut...]), continuing: first) == whole)
            }
        }
    }

    #if os(Linux) && arch(x86_64)
        /// Where the CPU has SSE4.2 (every x86_64 CPU since 2008), the checksum runs on it.
        @Test func usesTheCPUInstructionWhereAvailable() throws {
            let flags = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
            let hasSSE42 = flags.split(separator: "\n").first { $0.hasPrefix("flags") }?
                .split(separator: " ").contains("sse4_2") ?? false
            #expect(Checksum.crc32cIsHardware == hasSSE42)
        }
    #endif
}
