import Foundation
import Imago
import ImagoTestSupport

/// Target 7: 10,000 concurrent `image(for:)` calls over 100 URLs (100 callers each, in a scattered
/// order) on a fresh pipeline with the default configuration, against loading the 100 once on
/// another fresh pipeline. Exactly 100 downloads (counted by the loopback server) and 100 decodes
/// (counted by the decoder) are required, and checked on every repetition.
enum CoalescingBenchmark {
    static func run(_ context: BenchmarkContext) async throws -> [Figure] {
        let urlCount = context.quick ? 10 : 100
        let callersPerURL = 100
        let callers = urlCount * callersPerURL
        let images = try (0..<urlCount).map { try Fixtures.jpeg(width: 1024, height: 768, seed: $0) }
        let server = try await TestServer.start()
        for (index, image) in images.enumerated() {
            server.set("/coalescing/\(index).jpg", data: image, contentType: "image/jpeg")
        }
        let urls = (0..<urlCount).map { server.url(for: "/coalescing/\($0).jpg") }
        var random = SplitMix(seed: 10)
        let order = (0..<callers).map { $0 % urlCount }.shuffled(using: &random)

        struct Outcome {
            var seconds: Double
            var downloads: Int
            var decodes: Int
            var memoryHits: Int
        }
        /// A fresh default pipeline loading `indices` all at once.
        func load(_ indices: [Int]) async throws -> Outcome {
            let decoder = CountingDecoder()
            var configuration = ImagePipeline.Configuration(connectivity: .alwaysReachable)
            configuration.decoders.register(decoder)
            let pipeline = ImagePipeline(configuration: configuration)
            let before = server.totalRequestCount
            var memoryHits = 0
            let seconds = try await time {
                // Unstructured tasks, not a task group: the Concurrency runtime walks a group's list
                // of children to remove each finished one, O(n²) for 10,000 callers, which would be
                // timed here as the pipeline's.
                let callers = indices.map { index in
                    Task {
                        let response = try await pipeline.image(for: ImageRequest(url: urls[index]))
                        precondition(response.container.pixelSize.width == 1024)
                        return response.source == .memory
                    }
                }
                memoryHits = 0
                for caller in callers where try await caller.value { memoryHits += 1 }
            }
            return Outcome(
                seconds: seconds, downloads: server.totalRequestCount - before, decodes: decoder.count,
                memoryHits: memoryHits)
        }

        var many: [Outcome] = []
        var once: [Outcome] = []
        let contenders: [() async throws -> Double] = [
            {
                let outcome = try await load(order)
                many.append(outcome)
                return outcome.seconds * 1000
            },
            {
                let outcome = try await load(Array(0..<urlCount))
                once.append(outcome)
                return outcome.seconds * 1000
            },
        ]
        for contender in contenders { _ = try await contender() }  // warm up
        many.removeAll()
        once.removeAll()
        let m = try await Interleaved(repetitions: context.repetitions).run(contenders)
        try await server.shutdown()
        for outcome in many + once where outcome.downloads != urlCount || outcome.decodes != urlCount {
            throw BenchmarkFailure(
                message: "coalescing: \(outcome.downloads) downloads and \(outcome.decodes) decodes for \(urlCount) URLs")
        }
        let hits = many.map(\.memoryHits)
        return [
            Figure(
                benchmark: "coalescing",
                name: "\(callers) concurrent image(for:) over \(urlCount) URLs (1024x768 JPEGs), fresh default pipeline",
                unit: "ms", higherIsBetter: false, ours: m[0],
                baselineName: "the \(urlCount) URLs loaded once, fresh default pipeline", baseline: m[1],
                extra: [
                    ("downloads (server count), every repetition", Double(urlCount)),
                    ("decodes (decoder count), every repetition", Double(urlCount)),
                    ("callers answered from memory, median", median(hits.map(Double.init))),
                ], repetitions: context.repetitions)
        ]
    }
}

/// A figure's own check failed: the run stops, with what was seen.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
