import Foundation
import Testing

@testable import Imago

/// One file of the decoder corpus in `Fixtures/` (made by `Fixtures/make-fixtures.py`), with its
/// expected decoding. The folder is copied into the test bundle (`resources: [.copy("Fixtures")]`).
struct Fixture: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let file: String
    let reference: String
    let width: Int
    let height: Int
    let frameCount: Int
    let durationsMilliseconds: [Int]
    /// Largest difference allowed in any channel of any pixel: 0 for lossless formats, a few levels
    /// for JPEG and lossy WebP, whose decoders (ours against Pillow's builds) may round differently.
    let tolerance: Int
    let alpha: String

    var testDescription: String { name }

    /// The fixtures folder inside the test bundle.
    static let folder: URL = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    /// Every fixture in the manifest; empty if it cannot be read (a test then fails on the count).
    static let all: [Fixture] = {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("manifest.json")) else { return [] }
        return (try? JSONDecoder().decode([Fixture].self, from: data)) ?? []
    }()

    static func named(_ name: String) -> Fixture { all.first { $0.name == name }! }

    /// The bytes of a file in the fixtures folder.
    static func data(_ file: String) throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent(file))
    }

    func data() throws -> Data { try Fixture.data(file) }

    /// The expected RGBA bytes of each frame.
    func referenceFrames() throws -> [[UInt8]] {
        let bytes = [UInt8](try Fixture.data(reference))
        let frameSize = width * height * 4
        return (0..<frameCount).map { Array(bytes[($0 * frameSize)..<(($0 + 1) * frameSize)]) }
    }
}

/// The largest per-channel difference between `bitmap` and `expected`, with where it is.
func largestDifference(_ bitmap: Bitmap, _ expected: [UInt8]) -> (value: Int, x: Int, y: Int, channel: Int) {
    var worst = (value: 0, x: 0, y: 0, channel: 0)
    for index in 0..<min(bitmap.pixels.count, expected.count) {
        let difference = abs(Int(bitmap.pixels[index]) - Int(expected[index]))
        if difference > worst.value {
            let pixel = index / 4
            worst = (difference, pixel % bitmap.width, pixel / bitmap.width, index % 4)
        }
    }
    return worst
}

/// A bitmap of a smooth diagonal gradient with a partly transparent band, for encoder tests.
func gradientBitmap(width: Int, height: Int, alpha: Bool = false) -> Bitmap {
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            let index = (y * width + x) * 4
            pixels[index] = UInt8(x * 255 / max(width - 1, 1))
            pixels[index + 1] = UInt8(y * 255 / max(height - 1, 1))
            pixels[index + 2] = UInt8((x + y) * 255 / max(width + height - 2, 1))
            if alpha { pixels[index + 3] = UInt8(x * 255 / max(width - 1, 1)) }
        }
    }
    return Bitmap(width: width, height: height, alphaMode: alpha ? .straight : .opaque, pixels: pixels)
}
