import Foundation
import Imago
import ImagoTestSupport

/// A pipeline over a fresh temporary disk cache, with a loopback server: the parts every
/// pipeline test needs, torn down afterwards.
struct PipelineFixture {
    let server: TestServer
    let directory: URL

    /// A new pipeline on this fixture's disk cache (a "new process" when called twice).
    func makePipeline(memoryCache: Bool = true) throws -> ImagePipeline {
        ImagePipeline(configuration: try configuration(memoryCache: memoryCache))
    }

    /// The configuration ``makePipeline(memoryCache:)`` uses, to adjust before making one.
    func configuration(memoryCache: Bool = true) throws -> ImagePipeline.Configuration {
        ImagePipeline.Configuration(
            memoryCache: memoryCache ? MemoryCache() : nil,
            diskCache: try DiskCache(directory: directory), connectivity: .alwaysReachable)
    }

    /// Runs `body` with a started server and an empty cache directory, then removes both.
    static func with(_ body: (PipelineFixture) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("imago-pipeline-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTestServer { server in
            try await body(PipelineFixture(server: server, directory: directory))
        }
    }

    /// Serves a small real JPEG at `path` and returns its URL.
    func serveJPEG(_ path: String = "/photo.jpg", width: Int = 64, height: Int = 48, seed: Int = 1) throws -> URL {
        server.set(path, data: try Fixtures.jpeg(width: width, height: height, seed: seed), contentType: "image/jpeg")
        return server.url(for: path)
    }

    /// Number of entries in the disk cache directory.
    func diskEntryCount() throws -> Int {
        try DiskCache(directory: directory).statistics().entryCount
    }
}
