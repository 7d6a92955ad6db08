import Foundation
import Imago

/// The one payload of each key of `imago-cache-stress` (Sources/ImagoCacheStress) and the
/// crash-safety tests that kill it: a length and bytes derived from the key's index alone, so any
/// read, in the stress process or in the test that reopens the cache after a `SIGKILL`, can be
/// checked byte for byte.
public enum StressPayload {
    /// The cache key of index `index`.
    public static func key(_ index: Int) -> CacheKey { CacheKey("stress/\(index)") }

    /// 1 byte to 96 KiB, so some writes take several `write` calls and some are tiny.
    public static func bytes(for index: Int) -> Data {
        var generator = SplitMix(seed: UInt64(index) &* 0x1000_0000_01B3 &+ 17)
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
