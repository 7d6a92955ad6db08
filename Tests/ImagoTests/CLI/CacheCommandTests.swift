import Foundation
import ImagoTestSupport
import Testing

extension CLITests {
    /// `imago prefetch`, `imago cache` and `imago demo`, run as the built executable.
    @Suite struct CacheCommandTests {
        @Test func prefetchedImagesLoadOfflineAndTheCacheCommandsSeeThem() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    server.set("/a.jpg", data: try Fixtures.jpeg(width: 32, height: 24), contentType: "image/jpeg")
                    server.set("/b.png", data: try Fixtures.png(width: 20, height: 20), contentType: "image/png")
                    let urls = [server.url(for: "/a.jpg").absoluteString, server.url(for: "/b.png").absoluteString]
                    let cache = sandbox.path("cache").path

                    let prefetch = try await sandbox.imago(["prefetch", "--json", "--cache-dir", cache] + urls)
                    #expect(prefetch.exited(with: 0), "\(prefetch.errorOutput)")
                    let lines = try sandbox.jsonLines(prefetch)
                    let prefetched = lines.filter { $0["url"] != nil }
                    #expect(prefetched.count == 2)
                    #expect(lines.last?["summary"]?.object?["cached"]?.int == 2)
                    #expect(prefetched.allSatisfy { $0["ok"]?.bool == true && $0["source"]?.string == "network" })
                    #expect(server.totalRequestCount == 2)

                    let offline = try await sandbox.imago(["fetch", "--json", "--offline", "--cache-dir", cache] + urls)
                    #expect(offline.exited(with: 0), "\(offline.output) \(offline.errorOutput)")
                    let loaded = try sandbox.jsonLines(offline)
                    #expect(loaded.count == 2)
                    #expect(loaded.allSatisfy { $0["ok"]?.bool == true && $0["source"]?.string == "disk" })
                    #expect(server.totalRequestCount == 2)

                    let stats = try sandbox.jsonObject(
                        try await sandbox.imago(["cache", "stats", "--json", "--cache-dir", cache]))
                    #expect(stats["entries"]?.int == 2)
                    #expect((stats["bytes"]?.int ?? 0) > 0)

                    let clear = try await sandbox.imago(["cache", "clear", "--yes", "--json", "--cache-dir", cache])
                    #expect(clear.exited(with: 0), "\(clear.errorOutput)")
                    #expect(try sandbox.jsonObject(clear)["removed"]?.int == 2)

                    let after = try sandbox.jsonObject(
                        try await sandbox.imago(["cache", "stats", "--json", "--cache-dir", cache]))
                    #expect(after["entries"]?.int == 0)
                    #expect(after["bytes"]?.int == 0)

                    let again = try await sandbox.imago(["fetch", "--json", "--offline", "--cache-dir", cache] + urls)
                    #expect(again.exited(with: 1))
                    let codes = try sandbox.jsonLines(again).map { ($0["error"]?.object)?["code"]?.string }
                    #expect(codes == ["not_cached", "not_cached"])
                    #expect(server.totalRequestCount == 2)
                }
            }
        }

        @Test func cacheWithNoSubcommandPrintsItsStatistics() async throws {
            try await withCLISandbox { sandbox in
                let cache = sandbox.path("cache")
                let result = try await sandbox.imago(["cache", "--cache-dir", cache.path])
                #expect(result.exited(with: 0), "\(result.errorOutput)")
                #expect(result.output.contains("entries    0"), "\(result.output)")
                #expect(result.output.contains(cache.path), "\(result.output)")
            }
        }

        @Test func demoLoadsItsGalleryFromNetworkThenMemoryThenDisk() async throws {
            try await withCLISandbox { sandbox in
                let result = try await sandbox.imago(["demo"], timeLimit: .seconds(300))
                #expect(result.exited(with: 0), "\(result.output) \(result.errorOutput)")
                #expect(result.output.contains("(exactly one each)"), "\(result.output)")
                #expect(result.output.contains("1  cold: network"))
                #expect(result.output.contains("3  new pipeline, same disk"))
                // The contact sheet of the first pass, where the printed line says.
                let sheet = sandbox.root.appendingPathComponent("imago-demo/contact-sheet.png").standardizedFileURL
                #expect(result.output.contains("Contact sheet: /"), "\(result.output)")
                #expect(result.output.contains("imago-demo/contact-sheet.png"), "\(result.output)")
                #expect(FileManager.default.fileExists(atPath: sheet.path))
                #expect(!result.output.contains("\u{1B}") && !result.output.contains("\r"))
                // The demo cleans up the cache it made in the temporary directory.
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: sandbox.path("tmp").path)
                #expect(leftovers.filter { $0.hasPrefix("imago-demo-") }.isEmpty, "\(leftovers)")
            }
        }
    }
}
