#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Logging
import Testing

@testable import ImagoServer

/// `IMGPROXY_LOG_MEM_STATS` (``ImagoServer/Configuration/logsMemoryStatistics``): a debug line of
/// this server's memory figures after each request the proxy answers, and none without it.
@Suite struct MemoryStatisticsTests {
    @Test func theResidentSetIsRead() throws {
        let resident = try #require(MemoryStatistics.residentBytes())
        #expect(resident > 1024 * 1024)
    }

    @Test(arguments: [true, false])
    func aLineFollowsEachProcessedRequest(enabled: Bool) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imago-memstats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Fixtures.jpeg(width: 64, height: 48).write(to: root.appendingPathComponent("a.jpg"))
        var configuration = ImageProxyConfiguration()
        configuration.localFilesystemRoot = root.path
        var limits = ImagoServer.Configuration()
        limits.logsMemoryStatistics = enabled
        let log = LogRecorder()
        try await withServer(configuration, server: limits, logger: log.logger) { server in
            let health = try await server.get("/health")  // not a processed request
            let image = try await server.get("/insecure/rs:fit:16:16/plain/local:///a.jpg")
            let refused = try await server.get("/insecure/w:nope/plain/local:///a.jpg")
            #expect(health.status == 200 && image.status == 200 && refused.status == 400)
            let figures = MemoryStatistics(proxy: server.proxy, inFlight: ResponseBytesInFlight(limit: 1, metrics: nil))
            #expect(figures.residentBytes > 0 && figures.decodedTierEntries >= 1 && figures.decodedTierBytes > 0)
            #expect(figures.responseCacheBytes > 0 && figures.responseBytesInFlight == 0)
            #expect(figures.metadata["resident_bytes"] == "\(figures.residentBytes)")
        }
        #expect(log.all.filter { $0 == "memory usage" }.count == (enabled ? 2 : 0), "\(log.all)")
    }
}
#endif
