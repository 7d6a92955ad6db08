import CImagoAllocationCounter
import Foundation
import Imago
import ImagoTestSupport

/// Heap allocations of one `ImagePipeline.data(for:)` request over loopback beyond what the bare
/// loader's GET of the same file makes (the test server's and the HTTP client's allocations are in
/// both, and cancel out): the pipeline's own cost per request, which a throughput ratio shows only
/// through the noise of two busy cores.
enum RequestAllocations {
    static let requests = 200

    /// The median of three rounds. Printed by `--counts`, not recorded or checked: the difference
    /// moves between runs (the HTTP client's and the server's allocations depend on timing), by
    /// about 0.5 in a release build and by up to 3 in a debug build, the one CI checks, where one
    /// new allocation per request adds 1.
    static func measure() async throws -> HotPathCounts.Count {
        let server = try await TestServer.start()
        defer { Task { try? await server.shutdown() } }
        let image = try Fixtures.jpeg(width: 16, height: 16, seed: 3)  // one read on either side: no chunking to vary
        let urls = (0..<requests).map { index in
            server.set("/r/\(index).jpg", data: image, contentType: "image/jpeg")
            return server.url(for: "/r/\(index).jpg")
        }
        let loader = PlatformDataLoader(configuration: DataLoader.Configuration(maximumConnections: 1))
        defer { Task { try? await loader.shutdown() } }
        let pipeline = ImagePipeline(
            configuration: .init(
                dataLoader: loader, memoryCache: nil, diskCache: nil, maximumConcurrentDownloads: 1,
                connectivity: .alwaysReachable))
        let bare: () async throws -> Void = {
            for url in urls { _ = try await loader.loadData(for: DataLoader.Request(url: url), progress: { _ in }) }
        }
        let throughPipeline: () async throws -> Void = {
            for url in urls { _ = try await pipeline.data(for: ImageRequest(url: url)) }
        }
        try await bare()
        try await throughPipeline()
        // Each round: the bare GETs, then the same through the pipeline.
        var differences: [Double] = []
        for _ in 0..<3 {
            imago_allocation_counting_begin()
            try await bare()
            let bareCount = imago_allocation_counting_end()
            imago_allocation_counting_begin()
            try await throughPipeline()
            let pipelineCount = imago_allocation_counting_end()
            differences.append(Double(Int(pipelineCount) - Int(bareCount)) / Double(requests))
        }
        return HotPathCounts.Count(
            key: "data-request-allocations",
            description: "heap allocations per ImagePipeline.data(for:) request over loopback, beyond the bare loader's",
            perHit: differences.sorted()[1], isChecked: false)
    }
}
