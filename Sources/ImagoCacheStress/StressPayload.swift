import Foundation
import Imago

/// The one payload of each stress key: a length and bytes derived from the key's index alone.
/// The crash-safety tests carry an identical copy, so they check reads independently.
enum StressPayload {
    /// SplitMix64: small, fast, and the same on every platform.
    struct Generator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func key(_ index: Int) -> CacheKey { CacheKey("stress/\(index)") }

    /// 1 byte to 96 KiB, so some writes take several `write` calls and some are tiny.
    static func bytes(for index: Int) -> Data {
        var generator = Generator(seed: UInt64(index) &* 0x1000_0000_01B3 &+ 17)
        let count = 1 + Int(generator.next() % (96 * 1024))
        var data = Data(count: count)
        data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
            var offset = 0
            while offset < count {
                var word = generator.next()
                for _ in 0..<8 where offset < count {
                    buffer[offset] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                    offset += 1
                }
            }
        }
        return data
    }
}
