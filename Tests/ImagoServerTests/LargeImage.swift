#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport

/// Sources whose PNG output (`f:png`, no resize) is large while they are small: a JPEG of noise
/// at quality 20 decodes to pixels that PNG cannot compress (4,096 a side: a 2 MiB source, a
/// 46 MiB output; 1,536: 0.3 MiB, 6.8 MiB). Small sources stay within `imago serve`'s 20 MiB
/// download limit and keep this process light. Made by each test that needs one.
enum LargeImage {
    static func noiseJPEG(side: Int, seed: UInt64) -> Data {
        var generator = SplitMix(seed: seed)
        var pixels = [UInt8](repeating: 0, count: side * side * 4)
        pixels.withUnsafeMutableBytes { bytes in
            let words = bytes.bindMemory(to: UInt64.self)
            for index in words.indices { words[index] = generator.next() | 0xFF00_0000_FF00_0000 }  // opaque
        }
        let bitmap = Bitmap(width: side, height: side, alphaMode: .opaque, pixels: pixels)
        return (try? JPEGEncoder(quality: 0.2, progressive: false).encode(bitmap)) ?? Data()
    }
}
#endif
