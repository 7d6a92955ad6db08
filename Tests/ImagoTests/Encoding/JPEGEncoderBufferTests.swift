import Foundation
import Testing

@testable import Imago

/// The libjpeg shim owns its growing output buffer: large outputs come out whole, and failing after
/// the buffer has grown frees it exactly once (libjpeg-turbo's `jpeg_mem_dest` used to free the
/// first buffer on growth and leave the error path a stale pointer to free again).
@Suite struct JPEGEncoderBufferTests {
    /// Deterministic noise, which JPEG cannot compress much: about 0.8 bytes a pixel at quality 90.
    static func noise(width: Int, height: Int) -> Bitmap {
        var state: UInt32 = 0x1234_5678
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for index in pixels.indices where index % 4 != 3 {
            state = state &* 1_664_525 &+ 1_013_904_223
            pixels[index] = UInt8(truncatingIfNeeded: state >> 24)
        }
        return Bitmap(width: width, height: height, alphaMode: .opaque, pixels: pixels)
    }

    /// A megapixel of noise makes the buffer grow from 16 KiB several times over.
    @Test func largeOutputGrowsTheBufferAndDecodes() throws {
        let bitmap = Self.noise(width: 1_024, height: 1_024)
        let data = try JPEGEncoder(quality: 0.9).encode(bitmap)
        #expect(data.count > 16_384 * 16)
        #expect(data.suffix(2) == Data([0xFF, 0xD9]))
        let decoded = try ImageDecoder.decode(data).bitmap()
        #expect(decoded.width == 1_024 && decoded.height == 1_024)
    }

    /// Failing at every stage of growth (before the first, after one, after several) is an error,
    /// and the encoder works normally afterwards.
    @Test(arguments: [1, 16_384, 16_385, 40_000, 100_000, 500_000])
    func failingAfterTheBufferGrewFreesItOnce(_ limit: Int) throws {
        let bitmap = Self.noise(width: 1_024, height: 1_024)
        let error = #expect(throws: ImagePipeline.Error.self) {
            try JPEGEncoder(quality: 0.9).encode(bitmap, outputLimit: limit)
        }
        guard case .encodingFailed(.jpeg, let reason)? = error else {
            Issue.record("expected encodingFailed, got \(String(describing: error))")
            return
        }
        #expect(reason.localizedCaseInsensitiveContains("insufficient memory"), "\(reason)")
        let whole = try JPEGEncoder(quality: 0.9).encode(bitmap, outputLimit: 2_000_000)
        #expect(whole == (try JPEGEncoder(quality: 0.9).encode(bitmap)))
    }
}
