import Foundation
import Testing

@testable import Imago

/// Animated WebPs a hostile server could send: frames whose bitstream is not the size they
/// declare, frames outside the canvas, many frames on a large canvas, long animations.
@Suite struct WebPHostileTests {
    /// The 32x24 lossless bitstream of the `webp-lossless` fixture.
    static func bitstream() throws -> [UInt8] {
        try #require(WebPBuilder.bitstream(of: try Fixture.named("webp-lossless").data()))
    }

    /// A 32x24 bitstream in an ANMF chunk that declares another size must fail: a declared size
    /// larger than the bitstream used to hand back uninitialised memory for the rest.
    @Test(arguments: [(64, 48), (33, 24), (32, 25), (16, 12), (31, 24)])
    func frameOfAnotherSizeThanDeclaredFails(_ declared: (Int, Int)) throws {
        var webp = WebPBuilder(canvasWidth: 64, canvasHeight: 48)
        webp.frame(width: 32, height: 24, bitstream: try Self.bitstream())
        webp.frame(width: declared.0, height: declared.1, bitstream: try Self.bitstream())
        let error = #expect(throws: ImagePipeline.Error.self) { try ImageDecoder.decode(webp.data) }
        guard case .decodingFailed(_, .webp, let reason)? = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("frame 2 declares \(declared.0)x\(declared.1)"), "\(reason)")
    }

    /// The same frames declared at their true size decode, each composited onto the whole canvas.
    @Test func framesOfTheirDeclaredSizeDecode() throws {
        var webp = WebPBuilder(canvasWidth: 64, canvasHeight: 48)
        webp.frame(width: 32, height: 24, bitstream: try Self.bitstream())
        webp.frame(x: 32, y: 24, width: 32, height: 24, duration: 5, bitstream: try Self.bitstream())
        let container = try ImageDecoder.decode(webp.data)
        #expect(container.frames.count == 2)
        #expect(container.frames.map(\.duration) == [.milliseconds(100), .milliseconds(100)])
        let still = try ImageDecoder.decode(try Fixture.named("webp-lossless").data()).bitmap()
        let second = try container.frames[1].bitmap()
        #expect(second.width == 64 && second.height == 48)
        for y in 0..<24 {  // both quarters show the still; the other two stay transparent
            let row = Array(still.pixels[(y * 32 * 4)..<((y + 1) * 32 * 4)])
            #expect(Array(second.pixels[(y * 64 * 4)..<(y * 64 * 4 + 128)]) == row)
            #expect(Array(second.pixels[((y + 24) * 64 * 4 + 128)..<((y + 25) * 64 * 4)]) == row)
            #expect(second.pixels[(y * 64 * 4 + 128)..<((y + 1) * 64 * 4)].allSatisfy { $0 == 0 })
        }
    }

    /// Frames reaching past the canvas on any side fail instead of being drawn out of bounds.
    @Test(arguments: [(34, 0), (0, 26), (34, 26), (0x1FFFFE, 0)])
    func frameOutsideTheCanvasFails(_ offset: (Int, Int)) throws {
        var webp = WebPBuilder(canvasWidth: 64, canvasHeight: 48)
        webp.frame(x: offset.0, y: offset.1, width: 32, height: 24, bitstream: try Self.bitstream())
        let error = #expect(throws: ImagePipeline.Error.self) { try ImageDecoder.decode(webp.data) }
        guard case .decodingFailed(_, .webp, _)? = error else {
            Issue.record("expected decodingFailed, got \(String(describing: error))")
            return
        }
    }

    /// Frames times canvas area is checked from the chunk headers, before any canvas exists: seven
    /// frames on an 8000x8000 canvas (each within the per-frame limit) are 448 megapixels.
    @Test func frameBudgetIsCheckedFromTheHeader() throws {
        var webp = WebPBuilder(canvasWidth: 8_000, canvasHeight: 8_000)
        for _ in 0..<7 { webp.frame(width: 32, height: 24, bitstream: try Self.bitstream()) }
        #expect(throws: ImagePipeline.Error.limitExceeded(nil, .totalFramePixels(count: 448_000_000, limit: 400_000_000))) {
            try ImageDecoder.decode(webp.data)
        }
        var limits = DecodingLimits()
        limits.maximumFrameCount = 6
        #expect(throws: ImagePipeline.Error.limitExceeded(nil, .frameCount(count: 7, limit: 6))) {
            try ImageDecoder.decode(webp.data, limits: limits)
        }
    }

    /// A task cancelled while decoding a long animation stops with `cancelled`.
    @Test func cancelledTaskStopsDecoding() async throws {
        var webp = WebPBuilder(canvasWidth: 32, canvasHeight: 24)
        for _ in 0..<500 { webp.frame(width: 32, height: 24, bitstream: try Self.bitstream()) }
        let data = webp.data
        #expect(try ImageDecoder.decode(data).frameCount == 500)
        let url = URL(string: "https://example.com/long.webp")!
        let task = Task { () throws -> Int in
            withUnsafeCurrentTask { $0?.cancel() }
            return try WebPDecoder().decode(data, context: DecodingContext(format: .webp, url: url)).frameCount
        }
        await #expect(throws: ImagePipeline.Error.cancelled(url)) { try await task.value }
    }
}
