import Imago
import Testing

// Synthetic images for the processing tests, and a way to read a processing failure.

extension Bitmap {
    /// Black and white squares of `cell` x `cell` pixels, opaque.
    static func checkerboard(width: Int, height: Int, cell: Int) -> Bitmap {
        var bitmap = Bitmap(width: width, height: height, fill: RGBA(0, 0, 0))
        for y in 0..<height {
            for x in 0..<width where (x / cell + y / cell) % 2 == 1 {
                bitmap[x, y] = RGBA(255, 255, 255)
            }
        }
        return bitmap
    }

    /// A transparent canvas (colour black, alpha 0) with an opaque `color` square in the middle.
    static func square(
        _ color: RGBA, side: Int, onTransparentCanvas canvas: Int, alphaMode: AlphaMode = .straight
    ) -> Bitmap {
        var bitmap = Bitmap(width: canvas, height: canvas, fill: RGBA(0, 0, 0, 0))
        bitmap.alphaMode = alphaMode
        let start = (canvas - side) / 2
        for y in start..<(start + side) {
            for x in start..<(start + side) { bitmap[x, y] = color }
        }
        return bitmap
    }

    /// Every pixel different: red = x, green = y, blue = x ^ y (for sizes up to 256).
    static func coordinates(width: Int, height: Int) -> Bitmap {
        var bitmap = Bitmap(width: width, height: height, fill: RGBA(0, 0, 0))
        for y in 0..<height {
            for x in 0..<width { bitmap[x, y] = RGBA(UInt8(x), UInt8(y), UInt8(x ^ y)) }
        }
        return bitmap
    }

    var size: PixelSize { PixelSize(width: width, height: height) }

    /// Every pixel, row by row.
    var allPixels: [RGBA] {
        (0..<height).flatMap { y in (0..<width).map { x in self[x, y] } }
    }
}

/// The processor and reason of the `processingFailed` error `body` throws, recording an issue
/// when it throws something else or nothing.
func processingFailure(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> (processor: String, reason: String)? {
    do {
        try body()
        Issue.record("expected processingFailed, nothing was thrown", sourceLocation: sourceLocation)
    } catch ImagePipeline.Error.processingFailed(let url, let processor, let reason) {
        #expect(url == nil, sourceLocation: sourceLocation)
        return (processor, reason)
    } catch {
        Issue.record("expected processingFailed, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Whether two channel values differ by at most `tolerance`.
func close(_ a: UInt8, _ b: UInt8, within tolerance: Int = 1) -> Bool {
    abs(Int(a) - Int(b)) <= tolerance
}
