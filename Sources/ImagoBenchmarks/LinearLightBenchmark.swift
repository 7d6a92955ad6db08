import Foundation
import Imago
import ImagoTestSupport

/// What linear light costs: `ImageProcessors.Resize` shrinking a 12-megapixel photograph-like
/// RGBA bitmap to 256 pixels in linear light (imgproxy's `IMGPROXY_USE_LINEAR_COLORSPACE`), beside
/// the same resize on the stored values, interleaved in the same run.
enum LinearLightBenchmark {
    static func run(_ context: BenchmarkContext) throws -> [Figure] {
        let repetitions = context.repetitions
        let (width, height) = context.quick ? (400, 300) : (CodecBenchmark.width, CodecBenchmark.height)
        let bitmap = Fixtures.picture(width: width, height: height)
        let target = PixelSize(width: CodecBenchmark.target, height: CodecBenchmark.target)
        func contender(linearLight: Bool) -> () throws -> Double {
            let resize = ImageProcessors.Resize(size: target, contentMode: .aspectFit, linearLight: linearLight)
            return {
                var out = Bitmap(width: 1, height: 1)
                let seconds = try time { out = try resize.process(bitmap) }
                precondition(max(out.width, out.height) == CodecBenchmark.target)
                return seconds * 1000
            }
        }
        let linear = contender(linearLight: true)
        let stored = contender(linearLight: false)
        _ = try linear()
        _ = try stored()
        let m = try Interleaved(repetitions: repetitions).run([linear, stored])
        let size = ImageProcessors.Resize(size: target, contentMode: .aspectFit).outputSize(for: PixelSize(width: width, height: height))
        return [
            Figure(
                benchmark: "linear-light", name: "Resize \(width)x\(height) RGBA → \(size), linear light (Lanczos-3)", unit: "ms",
                higherIsBetter: false, ours: m[0], baselineName: "the same Resize on the stored values", baseline: m[1],
                repetitions: repetitions)
        ]
    }
}
