import Foundation
import Imago
import ImagoTestSupport

/// Progressive previews on a slow link: a 12-megapixel progressive JPEG of a photograph sent at
/// 1 MB/s by a `TestServer` on 127.0.0.1 (`trickle`, 16 KiB every 16 ms), loaded at full size by a
/// pipeline that decodes previews. Ours: the time to the first preview; baseline: the time to the
/// final image, in the same load (the issue's target: the first preview within the first fifth of
/// the transfer, a ratio under 0.2).
///
/// The photograph: the repository's 1024x768 photo (`Tests/ImagoTests/Fixtures/thumbnail-photo.jpg`)
/// scaled to 4032x3024 with Lanczos, given sensor-like noise (σ ≈ 5), saved as a progressive JPEG
/// at quality 0.9 by `JPEGEncoder` (five spectral-selection scans, the DC of all components first).
enum PreviewBenchmark {
    static let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Tests/ImagoTests/Fixtures/thumbnail-photo.jpg").standardizedFileURL

    static func run(_ context: BenchmarkContext) async throws -> [Figure] {
        guard let source = try? Data(contentsOf: photo) else {
            throw BenchmarkSkip(message: "previews: no photograph at \(photo.path)")
        }
        let (width, height) = context.quick ? (800, 600) : (4032, 3024)
        let data = try photographLike(source, width: width, height: height)
        let server = try await TestServer.start()
        defer { Task { try? await server.shutdown() } }
        server.set("/photo.jpg", data: data, contentType: "image/jpeg")
        // 1 MB/s: 16 KiB every 16 ms (quick mode: 64 KiB, so it stays short).
        server.setBehavior("/photo.jpg", .trickle(bytesPerInterval: context.quick ? 65_536 : 16_384, interval: .milliseconds(16)))
        let url = server.url(for: "/photo.jpg")
        let transfer = Double(data.count) / (context.quick ? 4_096_000 : 1_024_000)
        context.note("previews: \(width)x\(height) progressive JPEG, \(data.count / 1024) KB, about \(String(format: "%.1f", transfer)) s a transfer")

        var firsts: [Double] = []
        var finals: [Double] = []
        var firstScans: [Double] = []
        var firstBytes: [Double] = []
        var counts: [Double] = []
        for _ in 0..<context.repetitions {
            var configuration = ImagePipeline.Configuration(memoryCache: nil, connectivity: .alwaysReachable)
            configuration.decodesPreviews = true
            let pipeline = ImagePipeline(configuration: configuration)
            let start = ContinuousClock.now
            let task = pipeline.imageTask(with: ImageRequest(url: url))
            var first: (at: Double, preview: ImagePreview)?
            var count = 0
            for await event in task.events {
                guard case .preview(_, let preview) = event else { continue }
                count += 1
                if first == nil { first = ((ContinuousClock.now - start).seconds, preview) }
            }
            let response = try await task.response
            let final = (ContinuousClock.now - start).seconds
            guard let first, response.container.pixelSize == first.preview.container.pixelSize else {
                throw BenchmarkSkip(message: "previews: no preview at the final size arrived")
            }
            firsts.append(first.at * 1000)
            finals.append(final * 1000)
            firstScans.append(Double(first.preview.scanCount))
            firstBytes.append(Double(first.preview.byteCount) / 1024)
            counts.append(Double(count))
        }
        let size = String(format: width * height >= 1_000_000 ? "%.0f MP" : "%.1f MP", Double(width * height) / 1e6)
        return [
            Figure(
                benchmark: "previews",
                name: "\(size) progressive JPEG photo (\(data.count / 1024) KB) at \(context.quick ? 4 : 1) MB/s, full size: first preview",
                unit: "ms", higherIsBetter: false, ours: median(firsts), baselineName: "the final image, same load",
                baseline: median(finals),
                extra: [
                    ("scans in the first preview", median(firstScans)), ("KB at the first preview", median(firstBytes)),
                    ("previews per load", median(counts)), ("transfer at the nominal rate, ms", transfer * 1000),
                ],
                repetitions: context.repetitions)
        ]
    }

    /// `source` scaled to `width` x `height` with Lanczos and given noise like a phone sensor's, as
    /// a progressive JPEG at quality 0.9.
    static func photographLike(_ source: Data, width: Int, height: Int) throws -> Data {
        let decoded = try ImageDecoder.decode(source).bitmap()
        var scaled = try ImageProcessors.Resize(size: PixelSize(width: width, height: height), contentMode: .aspectFill, upscale: true, crop: true)
            .process(decoded)
        var random = SplitMix(seed: 24)
        scaled.pixels.withUnsafeMutableBufferPointer { pixels in
            for index in pixels.indices where index % 4 != 3 {
                // The sum of four uniform draws in ±4.3: roughly normal, σ ≈ 5.
                var noise = 0.0
                for _ in 0..<4 { noise += Double(random.next() % 1_000) / 1_000 * 8.6 - 4.3 }
                pixels[index] = UInt8(clamping: Int((Double(pixels[index]) + noise).rounded()))
            }
        }
        return try JPEGEncoder(quality: 0.9, progressive: true).encode(scaled)
    }
}
