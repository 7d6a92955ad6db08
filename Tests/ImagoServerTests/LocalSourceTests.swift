#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Synchronization
import Testing

@testable import ImagoServer

/// `local:///` sources under the local filesystem root (imgproxy's
/// `IMGPROXY_LOCAL_FILESYSTEM_ROOT`), through a real server and real files: a file is served,
/// nothing leads out of the root, and without a root they are off; beside them, `/health`, the
/// operator's health-check path and the `Cache-Control` passthrough.
@Suite struct LocalSourceTests {
    /// A root with `a.jpg`, `sub/b.jpg` and links, beside an `outside` folder with `secret.jpg`.
    struct Folders {
        let base: URL
        var root: URL { base.appendingPathComponent("root") }

        init() throws {
            base = FileManager.default.temporaryDirectory.appendingPathComponent("imago-local-\(UUID().uuidString)")
            let manager = FileManager.default
            let outside = base.appendingPathComponent("outside")
            try manager.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
            try manager.createDirectory(at: outside, withIntermediateDirectories: true)
            try Fixtures.jpeg(width: 64, height: 48).write(to: root.appendingPathComponent("a.jpg"))
            try Fixtures.jpeg(width: 32, height: 32, seed: 1).write(to: root.appendingPathComponent("sub/b.jpg"))
            try Fixtures.jpeg(width: 40, height: 40, seed: 2).write(to: outside.appendingPathComponent("secret.jpg"))
            try manager.createSymbolicLink(
                atPath: root.appendingPathComponent("escape.jpg").path, withDestinationPath: outside.appendingPathComponent("secret.jpg").path)
            try manager.createSymbolicLink(atPath: root.appendingPathComponent("away").path, withDestinationPath: outside.path)
            try manager.createSymbolicLink(atPath: root.appendingPathComponent("inside.jpg").path, withDestinationPath: "sub/b.jpg")
        }

        func remove() { try? FileManager.default.removeItem(at: base) }
    }

    static func path(_ source: String) -> String {
        "/insecure/rs:fit:16:16/plain/" + URLSigner.escaped(source) + "@png"
    }

    static func configuration(root: URL?) -> ImageProxyConfiguration {
        var configuration = ImageProxyConfiguration()
        configuration.localFilesystemRoot = root?.path
        return configuration
    }

    @Test func aFileUnderTheRootIsServed() async throws {
        let folders = try Folders()
        defer { folders.remove() }
        let cache = try DiskCache(directory: folders.base.appendingPathComponent("cache"))
        let server = try await RunningServer.start(Self.configuration(root: folders.root), diskCache: cache)
        do {
            for source in ["local:///a.jpg", "local:///sub/b.jpg", "local:///inside.jpg", "local:///sub/./b.jpg"] {
                let reply = try await server.get(Self.path(source))
                #expect(reply.status == 200, "\(source): \(String(decoding: reply.body, as: UTF8.self))")
                #expect(reply.headers["content-type"] == "image/png")
            }
            let missing = try await server.get(Self.path("local:///none.jpg"))
            #expect(missing.status == 404 && missing.errorCode == "source_not_found")
            // Local files never go to the disk cache: a kept cache folder outlives a change of root.
            await server.proxy.pipeline.waitForDiskWrites()
            #expect(cache.statistics().entryCount == 0)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test(arguments: [
        "local:///../outside/secret.jpg", "local:///sub/../../outside/secret.jpg", "local:///escape.jpg",
        "local:///away/secret.jpg", "local:///sub%2F..%2F..%2Foutside%2Fsecret.jpg", "local:///..%2foutside/secret.jpg",
        "local://host/a.jpg",
    ])
    func nothingLeadsOutOfTheRoot(source: String) async throws {
        let folders = try Folders()
        defer { folders.remove() }
        try await withServer(Self.configuration(root: folders.root)) { server in
            let reply = try await server.get(Self.path(source))
            #expect(reply.status == 403 && reply.errorCode == "forbidden_source", "\(source): \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        }
    }

    /// imgproxy's `IMGPROXY_SOURCE_URL_QUERY_SEPARATOR` for `local://`: by default the path ends at
    /// `?`, another separator cuts it there, an empty one keeps `?` in the file name; through the
    /// server, the variable reaches the loader.
    @Test func thePathEndsAtTheQuerySeparator() async throws {
        let folders = try Folders()
        defer { folders.remove() }
        try Fixtures.jpeg(width: 24, height: 24, seed: 3).write(to: folders.root.appendingPathComponent("c?v=1.jpg"))
        let root = folders.root.path
        let realRoot = folders.root.resolvingSymlinksInPath().path
        let query = try #require(URL(string: "local:///a.jpg?v=1"))
        #expect(try LocalFileDataLoader.resolve(query, under: root) == realRoot + "/a.jpg")
        let semicolon = try #require(URL(string: "local:///sub/b.jpg;v=1"))
        #expect(try LocalFileDataLoader.resolve(semicolon, under: root, separator: SourceURLQuerySeparator(";")) == realRoot + "/sub/b.jpg")
        let questionMark = try #require(URL(string: "local:///c?v=1.jpg"))
        #expect(try LocalFileDataLoader.resolve(questionMark, under: root, separator: SourceURLQuerySeparator("")) == realRoot + "/c?v=1.jpg")
        #expect(throws: ImagePipeline.Error.httpStatus(questionMark, statusCode: 404)) {
            try LocalFileDataLoader.resolve(questionMark, under: root)  // `c`: no such file
        }
        var configuration = Self.configuration(root: folders.root)
        #expect(configuration.sourceURLQuerySeparator == "?")
        try ServeEnvironment(["IMGPROXY_SOURCE_URL_QUERY_SEPARATOR": ""]).apply(to: &configuration)
        #expect(configuration.sourceURLQuerySeparator == "")
        try await withServer(configuration) { server in
            let reply = try await server.get(Self.path("local:///c?v=1.jpg"))
            #expect(reply.status == 200, "\(String(decoding: reply.body, as: UTF8.self))")
        }
    }

    /// A FIFO or a folder under the root is no source: refused as missing, at once. Opening a
    /// FIFO for reading waits for a writer: the read runs on a thread of its own, and if it has
    /// not answered within 10 s the test opens the FIFO for writing to release it, then fails.
    @Test func aFIFOOrAFolderIsNotASource() async throws {
        let folders = try Folders()
        defer { folders.remove() }
        let fifo = folders.root.appendingPathComponent("pipe.jpg").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let folder = try #require(URL(string: "local:///sub"))
        #expect(throws: ImagePipeline.Error.httpStatus(folder, statusCode: 404)) {
            try LocalFileDataLoader.read(folder, under: folders.root.path, limit: 1 << 20)
        }
        let url = try #require(URL(string: "local:///pipe.jpg"))
        let outcome = Outcome()
        let root = folders.root.path
        Thread.detachNewThread {
            do throws(ImagePipeline.Error) {
                _ = try LocalFileDataLoader.read(url, under: root, limit: 1 << 20)
                outcome.code.store(1, ordering: .sequentiallyConsistent)
            } catch {
                outcome.code.store(error == .httpStatus(url, statusCode: 404) ? 2 : 3, ordering: .sequentiallyConsistent)
            }
        }
        let answered = await eventually(within: .seconds(10)) { outcome.code.load(ordering: .sequentiallyConsistent) != 0 }
        if !answered {
            let writer = open(fifo, O_WRONLY)  // releases the reader waiting in open
            if writer >= 0 { close(writer) }
            _ = await eventually(within: .seconds(10)) { outcome.code.load(ordering: .sequentiallyConsistent) != 0 }
        }
        #expect(answered, "reading a FIFO waited for a writer")
        #expect(outcome.code.load(ordering: .sequentiallyConsistent) == 2, "a FIFO is refused as a missing source")
    }

    /// What the reading thread saw: 0 nothing yet, 1 bytes, 2 the 404, 3 another error.
    final class Outcome: Sendable {
        let code = Atomic(0)
    }

    @Test func withoutARootLocalSourcesAreOff() async throws {
        let folders = try Folders()
        defer { folders.remove() }
        try await withServer(Self.configuration(root: nil)) { server in
            let reply = try await server.get(Self.path("local:///a.jpg"))
            #expect(reply.status == 404 && reply.errorCode == "source_not_found")
        }
    }

    @Test func healthAnswersOnImgproxysPathAndTheOperatorsOwn() async throws {
        var limits = ImagoServer.Configuration()
        limits.healthCheckPath = "/ping"
        try await withServer(ImageProxyConfiguration(), server: limits) { server in
            for path in ["/health", "/healthz", "/ping"] {
                let reply = try await server.get(path)
                #expect(reply.status == 200 && reply.headers["cache-control"] == "no-cache", "\(path)")
            }
        }
    }

    @Test func cacheControlPassthroughFollowsTheSourcesFreshness() async throws {
        let origin = try await TestServer.start()
        let jpeg = try Fixtures.jpeg(width: 64, height: 48)
        origin.set("/fresh.jpg", data: jpeg, contentType: "image/jpeg", headers: ["Cache-Control": "max-age=60"])
        origin.set("/secret.jpg", data: jpeg, contentType: "image/jpeg", headers: ["Cache-Control": "no-store"])
        var configuration = ImageProxyConfiguration(sourcePolicy: SourcePolicy(allowsPrivateNetworks: true))
        configuration.passesCacheControlThrough = true
        try await withServer(configuration) { server in
            let fresh = try await server.get(Self.path(origin.url(for: "/fresh.jpg").absoluteString))
            #expect(fresh.status == 200)
            let age = fresh.headers["cache-control"].flatMap { $0.split(separator: "=").last.flatMap { Int($0) } }
            #expect(age.map { (50...60).contains($0) } == true, "\(fresh.headers["cache-control"] ?? "none")")
            let secret = try await server.get(Self.path(origin.url(for: "/secret.jpg").absoluteString))
            #expect(secret.status == 200 && secret.headers["cache-control"] == "no-store")
        }
        try await origin.shutdown()
    }

    /// imgproxy's `IMGPROXY_ENFORCE_WEBP`: a client that takes WebP gets it, whatever the path asks.
    @Test func anEnforcedFormatWinsOverThePathsWhenTheClientTakesIt() async throws {
        let folders = try Folders()
        defer { folders.remove() }
        var configuration = Self.configuration(root: folders.root)
        configuration.enforcesWebP = true
        try await withServer(configuration) { server in
            try #require(server.proxy.canWriteWebP, "this build writes WebP (ServerTests checks it too)")
            let webp = try await server.get(Self.path("local:///a.jpg"), headers: ["Accept": "image/webp,*/*"])
            #expect(webp.status == 200 && webp.headers["content-type"] == "image/webp" && webp.headers["vary"] == "Accept")
            let png = try await server.get(Self.path("local:///a.jpg"), headers: ["Accept": "*/*"])
            #expect(png.status == 200 && png.headers["content-type"] == "image/png")
        }
    }
}
#endif
