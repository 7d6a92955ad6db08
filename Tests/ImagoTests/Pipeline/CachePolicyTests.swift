import Foundation
@testable import Imago
import ImagoTestSupport
import Testing

@Suite("Cache policies, HTTP validators and cache layers")
struct CachePolicyTests {
    @Test("reloadIgnoringCache downloads again and stores the fresh copy")
    func reload() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            let pipeline = try fixture.makePipeline()
            _ = try await pipeline.image(for: ImageRequest(url: url))
            let reloaded = try await pipeline.image(for: ImageRequest(url: url, cachePolicy: .reloadIgnoringCache))
            #expect(reloaded.source == .network)
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 2)
            #expect(try await pipeline.image(for: ImageRequest(url: url)).source == .memory)
        }
    }

    @Test("returnCacheDataDontLoad answers from the caches and never touches the network")
    func offlinePolicy() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            let request = ImageRequest(url: url, cachePolicy: .returnCacheDataDontLoad)
            await #expect(throws: ImagePipeline.Error.notCached(url)) { try await fixture.makePipeline().image(for: request) }
            let warm = try fixture.makePipeline()
            _ = try await warm.image(for: ImageRequest(url: url))
            await warm.waitForDiskWrites()
            #expect(try await fixture.makePipeline().image(for: request).source == .disk)
            #expect(try await warm.image(for: request).source == .memory)
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 1)
        }
    }

    @Test("Memory and disk switches are honoured separately")
    func switches() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG()
            let pipeline = try fixture.makePipeline()
            let noWrites = ImageRequest.CachePolicy(writesMemory: false, writesDisk: false)
            _ = try await pipeline.image(for: ImageRequest(url: url, cachePolicy: noWrites))
            await pipeline.waitForDiskWrites()
            #expect(pipeline.cachedImage(for: ImageRequest(url: url)) == nil)
            #expect(try fixture.diskEntryCount() == 0)
            let noReads = ImageRequest.CachePolicy(readsMemory: false, readsDisk: false)
            _ = try await pipeline.image(for: ImageRequest(url: url))
            #expect(try await pipeline.image(for: ImageRequest(url: url, cachePolicy: noReads)).source == .network)
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 3)
        }
    }

    @Test("An expired entry is revalidated: a 304 refreshes it with no body transferred")
    func revalidation() async throws {
        try await PipelineFixture.with { fixture in
            let data = try Fixtures.jpeg(width: 32, height: 32)
            fixture.server.set(
                "/v.jpg", data: data, contentType: "image/jpeg", headers: ["Cache-Control": "max-age=0"],
                etag: "\"v1\"")
            let url = fixture.server.url(for: "/v.jpg")
            let first = try fixture.makePipeline()
            #expect(try await first.image(for: ImageRequest(url: url)).source == .network)
            await first.waitForDiskWrites()

            let second = try fixture.makePipeline()
            let revalidated = try await second.image(for: ImageRequest(url: url))
            #expect(revalidated.source == .disk)
            #expect(revalidated.timing.attempts == 1)
            let requests = fixture.server.requests(for: "/v.jpg")
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-None-Match") == "\"v1\"")
            #expect(requests.first?.header("If-None-Match") == nil)
        }
    }

    @Test("Offline first: an expired entry is served without asking the server")
    func offlineFirstServesExpired() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.set(
                "/x.jpg", data: try Fixtures.jpeg(width: 16, height: 16), contentType: "image/jpeg",
                headers: ["Cache-Control": "max-age=0"], etag: "\"x\"")
            let url = fixture.server.url(for: "/x.jpg")
            let first = try fixture.makePipeline()
            _ = try await first.image(for: ImageRequest(url: url))
            await first.waitForDiskWrites()
            var configuration = try fixture.configuration()
            configuration.servesExpiredEntries = true
            #expect(try await ImagePipeline(configuration: configuration).image(for: ImageRequest(url: url)).source == .disk)
            #expect(fixture.server.requestCount(for: "/x.jpg") == 1)
        }
    }

    @Test("An entry within its max-age is served without asking the server")
    func freshEntry() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.set(
                "/f.jpg", data: try Fixtures.jpeg(width: 16, height: 16), contentType: "image/jpeg",
                headers: ["Cache-Control": "max-age=3600"], etag: "\"f\"")
            let url = fixture.server.url(for: "/f.jpg")
            let first = try fixture.makePipeline()
            _ = try await first.image(for: ImageRequest(url: url))
            await first.waitForDiskWrites()
            #expect(try await fixture.makePipeline().image(for: ImageRequest(url: url)).source == .disk)
            #expect(fixture.server.requestCount(for: "/f.jpg") == 1)
        }
    }

    @Test("Cache-Control: no-store keeps the bytes off the disk")
    func noStore() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.set(
                "/n.jpg", data: try Fixtures.jpeg(width: 16, height: 16), contentType: "image/jpeg",
                headers: ["Cache-Control": "no-store"])
            let pipeline = try fixture.makePipeline()
            _ = try await pipeline.image(for: ImageRequest(url: fixture.server.url(for: "/n.jpg")))
            await pipeline.waitForDiskWrites()
            #expect(try fixture.diskEntryCount() == 0)
        }
    }

    @Test("A bundled directory layer answers before the network and is copied to disk")
    func bundledLayer() async throws {
        try await PipelineFixture.with { fixture in
            let bundle = fixture.directory.deletingLastPathComponent()
                .appendingPathComponent("imago-bundle-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: bundle) }
            let url = fixture.server.url(for: "/bundled/cat.jpg")
            let file = bundle.appendingPathComponent("\(url.host!)/bundled/cat.jpg")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Fixtures.jpeg(width: 20, height: 10).write(to: file)

            var configuration = try fixture.configuration()
            configuration.cacheLayers = [BundledImageDirectory(directory: bundle)]
            let pipeline = ImagePipeline(configuration: configuration)
            let response = try await pipeline.image(for: ImageRequest(url: url))
            #expect(response.source == .disk)
            #expect(response.container.pixelSize == PixelSize(width: 20, height: 10))
            #expect(fixture.server.requestCount(for: "/bundled/cat.jpg") == 0)
            await pipeline.waitForDiskWrites()  // the copy to disk runs off the response path
            #expect(try fixture.diskEntryCount() == 1)
        }
    }

    @Test("The bundled layer never leaves its directory")
    func bundledLayerStaysInside() {
        let layer = BundledImageDirectory(directory: URL(fileURLWithPath: "/srv/mirror"))
        #expect(layer.file(forKey: "https://cdn.example.com/a/b.jpg")?.path == "/srv/mirror/cdn.example.com/a/b.jpg")
        #expect(layer.file(forKey: "https://cdn.example.com/../../etc/passwd") == nil)
        #expect(layer.file(forKey: "file:///etc/passwd") == nil)
        #expect(layer.file(forKey: "not a url") == nil)
    }
}

@Suite("Processed variants on disk")
struct ProcessedVariantTests {
    @Test("With storesProcessedImagesOnDisk, a thumbnail is served from disk without the original")
    func thumbnailFromDisk() async throws {
        try await PipelineFixture.with { fixture in
            let url = try fixture.serveJPEG(width: 300, height: 200)
            var configuration = try fixture.configuration()
            configuration.storesProcessedImagesOnDisk = true
            let request = ImageRequest(url: url, maximumPixelSize: 60)
            let first = ImagePipeline(configuration: configuration)
            #expect(try await first.image(for: request).container.pixelSize == PixelSize(width: 60, height: 40))
            await first.waitForDiskWrites()
            let disk = try DiskCache(directory: fixture.directory)
            #expect(disk.statistics().entryCount == 2)
            disk.remove(forKey: request.originalKey)  // only the processed variant can answer now

            var second = configuration
            second.memoryCache = MemoryCache()
            second.diskCache = disk
            let response = try await ImagePipeline(configuration: second).image(for: request)
            #expect(response.source == .disk)
            #expect(response.container.pixelSize == PixelSize(width: 60, height: 40))
            #expect(fixture.server.requestCount(for: "/photo.jpg") == 1)
        }
    }
}

@Suite("Processed variants follow their original's HTTP caching")
struct ProcessedVariantHTTPCachingTests {
    /// A configuration that stores processed variants on the fixture's disk cache.
    private func configuration(_ fixture: PipelineFixture) throws -> ImagePipeline.Configuration {
        var configuration = try fixture.configuration()
        configuration.storesProcessedImagesOnDisk = true
        return configuration
    }

    @Test("no-store keeps both the original and its processed variant off the disk")
    func noStore() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.set(
                "/n.jpg", data: try Fixtures.jpeg(width: 120, height: 80), contentType: "image/jpeg",
                headers: ["Cache-Control": "no-store"])
            let pipeline = ImagePipeline(configuration: try configuration(fixture))
            let request = ImageRequest(url: fixture.server.url(for: "/n.jpg"), maximumPixelSize: 30)
            #expect(try await pipeline.image(for: request).container.pixelSize == PixelSize(width: 30, height: 20))
            await pipeline.waitForDiskWrites()
            #expect(try fixture.diskEntryCount() == 0)
        }
    }

    @Test("A processed variant expires with its original and is stored with the same expiry")
    func sameLifetime() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.set(
                "/m.jpg", data: try Fixtures.jpeg(width: 120, height: 80), contentType: "image/jpeg",
                headers: ["Cache-Control": "max-age=600"], etag: "\"m\"")
            let configuration = try configuration(fixture)
            let pipeline = ImagePipeline(configuration: configuration)
            let request = ImageRequest(url: fixture.server.url(for: "/m.jpg"), maximumPixelSize: 30)
            _ = try await pipeline.image(for: request)
            await pipeline.waitForDiskWrites()
            let disk = try DiskCache(directory: fixture.directory)
            let original = try #require(disk.entry(forKey: request.originalKey))
            let processed = try #require(disk.entry(forKey: request.processedKey))
            let originalExpiry = try #require(original.expiresAt)
            let processedExpiry = try #require(processed.expiresAt)
            #expect(abs(originalExpiry.timeIntervalSince(processedExpiry)) < 5)
        }
    }

    @Test("After a 304 for the original, the expired processed variant is served and stays valid")
    func revalidatedWithOriginal() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.set(
                "/v.jpg", data: try Fixtures.jpeg(width: 120, height: 80), contentType: "image/jpeg",
                headers: ["Cache-Control": "max-age=0"], etag: "\"v1\"")
            let request = ImageRequest(url: fixture.server.url(for: "/v.jpg"), maximumPixelSize: 30)
            let first = ImagePipeline(configuration: try configuration(fixture))
            _ = try await first.image(for: request)
            await first.waitForDiskWrites()

            // The same bytes, now cacheable for an hour: the 304 says so (RFC 9111 §4.3.4).
            fixture.server.set(
                "/v.jpg", data: try Fixtures.jpeg(width: 120, height: 80), contentType: "image/jpeg",
                headers: ["Cache-Control": "max-age=3600"], etag: "\"v1\"")
            let second = ImagePipeline(configuration: try configuration(fixture))
            let revalidated = try await second.image(for: request)
            #expect(revalidated.source == .disk)
            #expect(revalidated.container.pixelSize == PixelSize(width: 30, height: 20))
            let requests = fixture.server.requests(for: "/v.jpg")
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-None-Match") == "\"v1\"")
            await second.waitForDiskWrites()

            // The 304's max-age refreshed both: the processed variant alone answers, with no request.
            let disk = try DiskCache(directory: fixture.directory)
            #expect(disk.entry(forKey: request.processedKey)?.isExpired == false)
            disk.remove(forKey: request.originalKey)
            var third = try configuration(fixture)
            third.diskCache = disk
            let response = try await ImagePipeline(configuration: third).image(for: request)
            #expect(response.source == .disk)
            #expect(fixture.server.requestCount(for: "/v.jpg") == 2)
        }
    }

    @Test("When the original changed, the stale processed variant is not served")
    func changedOriginal() async throws {
        try await PipelineFixture.with { fixture in
            fixture.server.set(
                "/c.jpg", data: try Fixtures.jpeg(width: 120, height: 80), contentType: "image/jpeg",
                headers: ["Cache-Control": "max-age=0"], etag: "\"c1\"")
            let request = ImageRequest(url: fixture.server.url(for: "/c.jpg"), maximumPixelSize: 30)
            let first = ImagePipeline(configuration: try configuration(fixture))
            #expect(try await first.image(for: request).container.pixelSize == PixelSize(width: 30, height: 20))
            await first.waitForDiskWrites()

            fixture.server.set(
                "/c.jpg", data: try Fixtures.jpeg(width: 80, height: 120, seed: 2), contentType: "image/jpeg",
                headers: ["Cache-Control": "max-age=600"], etag: "\"c2\"")
            let second = ImagePipeline(configuration: try configuration(fixture))
            let changed = try await second.image(for: request)
            #expect(changed.source == .network)
            #expect(changed.container.pixelSize == PixelSize(width: 20, height: 30))
            await second.waitForDiskWrites()

            let third = ImagePipeline(configuration: try configuration(fixture))
            #expect(try await third.image(for: request).container.pixelSize == PixelSize(width: 20, height: 30))
            #expect(fixture.server.requestCount(for: "/c.jpg") == 2)
        }
    }

    /// RFC 9111 §4.3.4: a 304's headers update the stored ones, and `no-store` among them means the
    /// copy must not stay stored. It is served this once (the server said it is current), then gone.
    @Test("A 304 that says no-store removes the stored copy and its variant instead of refreshing them")
    func notModifiedWithNoStore() async throws {
        try await PipelineFixture.with { fixture in
            let data = try Fixtures.jpeg(width: 120, height: 80)
            fixture.server.set("/s.jpg", data: data, contentType: "image/jpeg", headers: ["Cache-Control": "max-age=0"], etag: "\"s1\"")
            let request = ImageRequest(url: fixture.server.url(for: "/s.jpg"), maximumPixelSize: 30)
            let first = ImagePipeline(configuration: try configuration(fixture))
            _ = try await first.image(for: request)
            await first.waitForDiskWrites()
            #expect(try fixture.diskEntryCount() == 2)

            fixture.server.set("/s.jpg", data: data, contentType: "image/jpeg", headers: ["Cache-Control": "no-store"], etag: "\"s1\"")
            let second = ImagePipeline(configuration: try configuration(fixture))
            let revalidated = try await second.image(for: request)
            #expect(revalidated.source == .disk, "the 304 said the stored bytes are current")
            #expect(revalidated.container.pixelSize == PixelSize(width: 30, height: 20))
            #expect(!revalidated.isStorable)
            #expect(fixture.server.requests(for: "/s.jpg").last?.header("If-None-Match") == "\"s1\"")
            await second.waitForDiskWrites()
            #expect(try fixture.diskEntryCount() == 0, "neither the original nor its variant stays on disk")

            // The next load has nothing to revalidate: it downloads, unconditionally.
            let third = ImagePipeline(configuration: try configuration(fixture))
            #expect(try await third.image(for: request).source == .network)
            #expect(fixture.server.requests(for: "/s.jpg").last?.header("If-None-Match") == nil)
        }
    }
}
