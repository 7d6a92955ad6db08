import Foundation
import Imago
import ImagoTestSupport

/// Benchmark 5: 200 distinct ~50 KB JPEGs from a `TestServer` on 127.0.0.1, through `ImagePipeline`
/// (no caches, at most 8 downloads at once) with and without decoding, against raw
/// `PlatformDataLoader` (HTTPClientDataLoader on Linux, URLSessionDataLoader on Apple) GETs of the same URLs by 8 workers.
#if os(Linux)
/// The platform's default loader: the baseline and the pipeline's transport.
typealias PlatformDataLoader = HTTPClientDataLoader
#else
/// The platform's default loader: the baseline and the pipeline's transport.
typealias PlatformDataLoader = URLSessionDataLoader
#endif

enum NetworkBenchmark {
    static let imageCount = 200
    static let passes = 5
    static let concurrency = 8
    static let targetBytes = 50 * 1024

    static func run(repetitions: Int) async throws -> [Figure] {
        // Pick dimensions whose JPEG is about 50 KB, then make 200 different pictures of that size.
        // (Bytes grow slower than area and vary with the seed: refine on the mean of eight pictures.)
        var width = 640
        var height = 480
        for _ in 0..<3 {
            let probes = try (0..<8).map { try Fixtures.jpeg(width: width, height: height, seed: $0).count }
            let scale = (Double(targetBytes) / (Double(probes.reduce(0, +)) / 8)).squareRoot()
            width = Int(Double(width) * scale)
            height = width * 3 / 4
        }
        let images = try (0..<imageCount).map { try Fixtures.jpeg(width: width, height: height, seed: $0) }
        let meanBytes = images.reduce(0) { $0 + $1.count } / imageCount

        let server = try await TestServer.start()
        for (index, image) in images.enumerated() {
            server.set("/images/\(index).jpg", data: image, contentType: "image/jpeg")
        }
        let urls = (0..<imageCount).map { server.url(for: "/images/\($0).jpg") }
        let total = imageCount * passes

        let raw = PlatformDataLoader(configuration: DataLoaderConfiguration(maximumConnections: concurrency))
        let pipelineLoader = PlatformDataLoader(
            configuration: DataLoaderConfiguration(maximumConnections: concurrency))
        let pipeline = ImagePipeline(
            configuration: .init(
                dataLoader: pipelineLoader, memoryCache: nil, diskCache: nil,
                maximumConcurrentDownloads: concurrency, connectivity: .alwaysReachable))

        // Baseline: 8 workers, each GETting every 8th URL, pass after pass.
        let rawGets: () async throws -> Double = {
            let seconds = try await time {
                for _ in 0..<passes {
                    try await withThrowingTaskGroup(of: Int.self) { group in
                        for worker in 0..<concurrency {
                            group.addTask {
                                var bytes = 0
                                for index in stride(from: worker, to: imageCount, by: concurrency) {
                                    bytes += try await raw.loadData(for: DataRequest(url: urls[index]), progress: { _ in }).data.count
                                }
                                return bytes
                            }
                        }
                        let bytes = try await group.reduce(0, +)
                        precondition(bytes == images.reduce(0) { $0 + $1.count }, "raw GETs lost bytes")
                    }
                }
            }
            return Double(total) / seconds
        }
        // Ours: every request of a pass handed to the pipeline at once; its scheduler runs 8 at a time.
        let pipelineData: () async throws -> Double = {
            let seconds = try await time {
                for _ in 0..<passes {
                    try await withThrowingTaskGroup(of: Int.self) { group in
                        for url in urls {
                            group.addTask { try await pipeline.data(for: ImageRequest(url: url)).0.count }
                        }
                        _ = try await group.reduce(0, +)
                    }
                }
            }
            return Double(total) / seconds
        }
        let pipelineImages: () async throws -> Double = {
            let seconds = try await time {
                for _ in 0..<passes {
                    try await withThrowingTaskGroup(of: Int.self) { group in
                        for url in urls {
                            group.addTask {
                                let response = try await pipeline.image(for: ImageRequest(url: url))
                                precondition(response.source == .network)
                                return response.container.pixelSize.width
                            }
                        }
                        _ = try await group.reduce(0, +)
                    }
                }
            }
            return Double(total) / seconds
        }
        let contenders = [pipelineData, rawGets, pipelineImages]
        for contender in contenders { _ = try await contender() }  // warm up connections and code
        let requestsBefore = server.totalRequestCount
        let m = try await Interleaved(repetitions: repetitions).run(contenders)
        let requestsMade = server.totalRequestCount - requestsBefore
        precondition(requestsMade == repetitions * total * contenders.count, "a request was coalesced or lost")

        #if os(Linux)
        try await raw.shutdown()
        try await pipelineLoader.shutdown()
        #else
        await raw.shutdown()
        await pipelineLoader.shutdown()
        #endif
        try await server.shutdown()
        let label = "\(imageCount) JPEGs \(width)x\(height) (mean \(meanBytes / 1024) KB), \(passes) passes"
        return [
            Figure(
                benchmark: "network", name: "ImagePipeline.data(for:), \(label)", unit: "req/s",
                higherIsBetter: true, ours: m[0], baselineName: "\(PlatformDataLoader.self), 8 workers",
                baseline: m[1], repetitions: repetitions),
            Figure(
                benchmark: "network", name: "ImagePipeline.image(for:) with decode, same", unit: "req/s",
                higherIsBetter: true, ours: m[2], baselineName: "\(PlatformDataLoader.self), 8 workers",
                baseline: m[1], repetitions: repetitions),
        ]
    }
}
