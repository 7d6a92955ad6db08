#if os(Linux) || os(macOS)
import Foundation
import Imago
import ImagoTestSupport

/// PNGs of noise whose re-encoding by the proxy (`f:png`, no resize) is as large as their
/// pixels: noise does not compress, so every pixel costs its 4 bytes. Each is made once per
/// test process.
enum LargeImage {
    /// 3,300 x 3,300: over 40 MiB.
    static let png = noise(side: 3_300, seed: 25)
    /// 1,800 x 1,800: over 12 MiB.
    static let mediumPNG = noise(side: 1_800, seed: 26)

    static func noise(side: Int, seed: UInt64) -> Data {
        var generator = SplitMix(seed: seed)
        var pixels = [UInt8](repeating: 0, count: side * side * 4)
        pixels.withUnsafeMutableBytes { bytes in
            let words = bytes.bindMemory(to: UInt64.self)
            for index in words.indices { words[index] = generator.next() }
        }
        // Straight alpha from the noise: the image is not opaque, so `auto` would pick PNG too.
        let bitmap = Bitmap(width: side, height: side, alphaMode: .straight, pixels: pixels)
        return (try? PNGEncoder().encode(bitmap)) ?? Data()
    }
}
#endif
