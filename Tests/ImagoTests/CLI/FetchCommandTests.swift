import Foundation
import Imago
import ImagoTestSupport
import Testing

extension CLITests {
    /// `imago fetch`, run as the built executable against a loopback server.
    @Suite struct FetchCommandTests {
        @Test func fiftyCopiesOfOneURLMakeOneRequestThenNoneFromTheSameDiskCache() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    server.set("/a.jpg", data: try Fixtures.jpeg(width: 64, height: 48), contentType: "image/jpeg")
                    let urls = Array(repeating: server.url(for: "/a.jpg").absoluteString, count: 50)
                    let cache = sandbox.path("cache").path

                    let first = try await sandbox.imago(["fetch", "--json", "--cache-dir", cache] + urls)
                    #expect(first.exited(with: 0), "\(first.errorOutput)")
                    let firstLines = try sandbox.jsonLines(first)
                    #expect(firstLines.count == 50)
                    #expect(firstLines.allSatisfy { $0["ok"]?.bool == true })
                    #expect(server.requestCount(for: "/a.jpg") == 1)

                    let second = try await sandbox.imago(["fetch", "--json", "--cache-dir", cache] + urls)
                    #expect(second.exited(with: 0), "\(second.errorOutput)")
                    let secondLines = try sandbox.jsonLines(second)
                    #expect(secondLines.count == 50)
                    #expect(secondLines.allSatisfy { $0["ok"]?.bool == true })
                    // A new process starts with an empty memory cache, so the image comes from disk;
                    // the copies share that one load and report its source.
                    let sources = secondLines.map { $0["source"]?.string }
                    #expect(sources.allSatisfy { $0 == "disk" }, "\(sources)")
                    #expect(server.requestCount(for: "/a.jpg") == 1)
                }
            }
        }

        /// A damaged source decoded leniently says so: `"repairs"`, one sentence each, only then.
        @Test func jsonLineOfADamagedImageListsItsRepairs() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    let whole = try Fixtures.jpeg(width: 320, height: 240, seed: 2)
                    server.set("/cut.jpg", data: whole.prefix(whole.count / 2), contentType: "image/jpeg")
                    server.set("/whole.jpg", data: whole, contentType: "image/jpeg")
                    let urls = ["/cut.jpg", "/whole.jpg"].map { server.url(for: $0).absoluteString }

                    let result = try await sandbox.imago(["fetch", "--json", "--no-disk-cache"] + urls)
                    #expect(result.exited(with: 0), "\(result.errorOutput)")
                    let lines = try sandbox.jsonLines(result)
                    let cut = try #require(lines.first { $0["url"]?.string == urls[0] })
                    #expect(cut["ok"]?.bool == true)
                    #expect(cut["width"]?.int == 320 && cut["height"]?.int == 240)
                    guard case .array(let repairs)? = cut["repairs"] else {
                        Issue.record("no repairs in \(cut)")
                        return
                    }
                    #expect(!repairs.isEmpty)
                    #expect(repairs.contains { $0.string?.localizedCaseInsensitiveContains("premature end") == true }, "\(repairs)")
                    let clean = try #require(lines.first { $0["url"]?.string == urls[1] })
                    #expect(clean["repairs"] == nil)
                }
            }
        }

        @Test func jsonLineOfASuccessHasEveryFieldWithItsType() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    let data = try Fixtures.png(width: 40, height: 30)
                    server.set("/p.png", data: data, contentType: "image/png")
                    let url = server.url(for: "/p.png").absoluteString

                    let result = try await sandbox.imago(["fetch", "--json", "--no-disk-cache", url])
                    #expect(result.exited(with: 0), "\(result.errorOutput)")
                    let line = try sandbox.jsonObject(result)
                    #expect(
                        Set(line.keys)
                            == [
                            "url", "ok", "source", "format", "width", "height", "frames", "bytes", "attempts",
                            "timing_ms",
                        ])
                    #expect(line["url"]?.string == url)
                    #expect(line["ok"]?.bool == true)
                    #expect(line["source"]?.string == "network")
                    #expect(line["format"]?.string == "png")
                    #expect(line["width"]?.int == 40)
                    #expect(line["height"]?.int == 30)
                    #expect(line["frames"]?.int == 1)
                    #expect(line["bytes"]?.int == data.count)
                    #expect(line["attempts"]?.int == 1)
                    let timing = try #require(line["timing_ms"]?.object)
                    #expect(Set(timing.keys).isSubset(of: ["queued", "disk", "download", "decode", "process", "total"]))
                    #expect(timing.keys.contains("total") && timing.keys.contains("download"))
                    for (stage, value) in timing {
                        let milliseconds = try #require(value.number, "timing_ms.\(stage) is not a number")
                        #expect(milliseconds >= 0)
                    }
                    #expect(server.requestCount(for: "/p.png") == 1)
                }
            }
        }

        @Test func aNotFoundURLFailsWithItsCodeAndExitStatusOne() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    server.setBehavior("/gone.png", .status(404, body: Data("no".utf8)))
                    let url = server.url(for: "/gone.png").absoluteString

                    let result = try await sandbox.imago(["fetch", "--json", "--no-disk-cache", url])
                    #expect(result.exited(with: 1), "\(result.errorOutput)")
                    let line = try sandbox.jsonObject(result)
                    #expect(Set(line.keys) == ["url", "ok", "error", "attempts"])
                    #expect(line["attempts"]?.int == 1)
                    #expect(line["url"]?.string == url)
                    #expect(line["ok"]?.bool == false)
                    let error = try #require(line["error"]?.object)
                    #expect(Set(error.keys) == ["code", "message"])
                    #expect(error["code"]?.string == "http_status")
                    let message = try #require(error["message"]?.string)
                    #expect(message.contains(url), "\(message)")
                    #expect(message.contains("404"), "\(message)")
                }
            }
        }

        @Test func oneFailureAmongSuccessesMakesExitStatusOne() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    server.set("/a.png", data: try Fixtures.png(width: 8, height: 8), contentType: "image/png")
                    server.set("/b.jpg", data: try Fixtures.jpeg(width: 16, height: 8), contentType: "image/jpeg")
                    let good = [server.url(for: "/a.png").absoluteString, server.url(for: "/b.jpg").absoluteString]
                    let bad = server.url(for: "/missing.png").absoluteString

                    let result = try await sandbox.imago(["fetch", "--json", "--no-disk-cache"] + good + [bad])
                    #expect(result.exited(with: 1), "\(result.errorOutput)")
                    let lines = try sandbox.jsonLines(result)
                    #expect(lines.count == 3)
                    let okByURL = Dictionary(
                        uniqueKeysWithValues: lines.compactMap { line in
                            (line["url"]?.string).map { ($0, line["ok"]?.bool) }
                        })
                    #expect(okByURL == [good[0]: true, good[1]: true, bad: false])
                }
            }
        }

        @Test func aRetriedDownloadReportsItsAttempts() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    server.set("/r.png", data: try Fixtures.png(width: 12, height: 10), contentType: "image/png")
                    server.setBehavior("/r.png", .sequence([.status(503)]))
                    let url = server.url(for: "/r.png").absoluteString

                    let result = try await sandbox.imago([
                        "fetch", "--json", "--no-disk-cache", "--retries", "1", "--priority", "high", "--timeout", "30",
                        url,
                    ])
                    #expect(result.exited(with: 0), "\(result.output) \(result.errorOutput)")
                    let line = try sandbox.jsonObject(result)
                    #expect(line["ok"]?.bool == true)
                    #expect(line["attempts"]?.int == 2)
                    #expect(server.requestCount(for: "/r.png") == 2)
                }
            }
        }

        @Test func aFailureAfterRetriesReportsItsAttempts() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    server.setBehavior("/down.png", .status(503))
                    let url = server.url(for: "/down.png").absoluteString

                    let result = try await sandbox.imago(["fetch", "--json", "--no-disk-cache", "--retries", "2", url])
                    #expect(result.exited(with: 1), "\(result.output) \(result.errorOutput)")
                    let line = try sandbox.jsonObject(result)
                    #expect(line["ok"]?.bool == false)
                    #expect(line["attempts"]?.int == 3)
                    let error = try #require(line["error"]?.object)
                    #expect(error["code"]?.string == "http_status")
                    #expect(error["message"]?.string?.contains("gave up after 3 attempts") == true)
                    #expect(server.requestCount(for: "/down.png") == 3)
                }
            }
        }

        @Test func noRetriesLeaveATransientFailureFailed() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    server.setBehavior("/busy.png", .status(503))
                    let url = server.url(for: "/busy.png").absoluteString

                    let result = try await sandbox.imago(["fetch", "--json", "--no-disk-cache", "--retries", "0", url])
                    #expect(result.exited(with: 1), "\(result.errorOutput)")
                    let error = try #require(try sandbox.jsonObject(result)["error"]?.object)
                    #expect(error["code"]?.string == "http_status")
                    #expect(server.requestCount(for: "/busy.png") == 1)
                }
            }
        }

        /// Command lines that must be refused before any work, with the server's address standing in
        /// for `URL`, a sandbox directory for `DIR`, and a regular file (no place for a cache) for `FILE`.
        @Test(arguments: [
            ["fetch"],
            ["fetch", "--json"],
            ["fetch", "--thumbnail", "0", "URL"],
            ["fetch", "--thumbnail", "-5", "URL"],
            ["fetch", "--cache-dir", "DIR", "--no-disk-cache", "URL"],
            ["fetch", "--no-such-flag", "URL"],
            ["fetch", "--priority", "urgent", "URL"],
            ["fetch", "--timeout", "0", "URL"],
            ["prefetch"],
            ["fetch", "--cache-dir", "FILE", "URL"],
            ["prefetch", "--cache-dir", "FILE", "URL"],
            ["cache", "stats", "--cache-dir", "FILE"],
        ])
        func usageErrorsExitWithStatusTwo(_ template: [String]) async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    server.set("/a.png", data: try Fixtures.png(width: 8, height: 8), contentType: "image/png")
                    let arguments = template.map {
                        switch $0 {
                        case "URL": server.url(for: "/a.png").absoluteString
                        case "DIR": sandbox.path("cache").path
                        case "FILE": sandbox.path("not-a-directory").path
                        default: $0
                        }
                    }
                    try Data("x".utf8).write(to: sandbox.path("not-a-directory"))
                    let result = try await sandbox.imago(arguments)
                    #expect(result.exited(with: 2), "status \(result.status): \(result.output) \(result.errorOutput)")
                    #expect(!result.errorOutput.isEmpty)
                    #expect(result.output.isEmpty)
                    #expect(server.totalRequestCount == 0)
                }
            }
        }

        @Test func thumbnailsAreWrittenToTheOutputDirectory() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    server.set("/wide.jpg", data: try Fixtures.jpeg(width: 200, height: 100), contentType: "image/jpeg")
                    server.set("/tall.png", data: try Fixtures.png(width: 90, height: 180), contentType: "image/png")
                    let urls = ["/wide.jpg", "/tall.png"].map { server.url(for: $0).absoluteString }
                    let out = sandbox.path("thumbs")

                    let result = try await sandbox.imago(
                        ["fetch", "--json", "--no-disk-cache", "--thumbnail", "64", "--out", out.path] + urls)
                    #expect(result.exited(with: 0), "\(result.errorOutput)")
                    let lines = try sandbox.jsonLines(result)
                    #expect(lines.count == 2)
                    for line in lines {
                        #expect(max(line["width"]?.int ?? 0, line["height"]?.int ?? 0) == 64)
                        let file = try #require(line["file"]?.string, "no file in \(line)")
                        #expect(URL(fileURLWithPath: file).deletingLastPathComponent().standardizedFileURL.path
                            == out.standardizedFileURL.path)
                    }

                    let files = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
                    #expect(files.count == 2, "\(files)")
                    var sizes: [String: PixelSize] = [:]
                    for name in files {
                        let data = try Data(contentsOf: out.appendingPathComponent(name))
                        let image = try ImageDecoder.decode(data)
                        sizes[URL(fileURLWithPath: name).pathExtension] = image.pixelSize
                    }
                    #expect(sizes["jpg"].map { max($0.width, $0.height) } == 64)
                    #expect(sizes["png"].map { max($0.width, $0.height) } == 64)
                    #expect(sizes["jpg"].map { $0.width > $0.height } == true)
                    #expect(sizes["png"].map { $0.height > $0.width } == true)
                }
            }
        }

        /// A wide-gamut source is written as sRGB without a profile, in the colours Little CMS gives it.
        @Test func outputIsWrittenInSRGB() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    server.set("/prophoto.png", data: try ColorFixture.data("prophoto.png"), contentType: "image/png")
                    let out = sandbox.path("converted")
                    let result = try await sandbox.imago(
                        ["fetch", "--no-disk-cache", "--out", out.path, server.url(for: "/prophoto.png").absoluteString])
                    #expect(result.exited(with: 0), "\(result.errorOutput)")
                    let files = try FileManager.default.contentsOfDirectory(atPath: out.path)
                    let data = try Data(contentsOf: out.appendingPathComponent(try #require(files.first)))
                    let written = ImageHeader.details(data)
                    #expect(written?.colorProfile == nil && written?.colorDeclaration != "ICC profile")
                    let reference = try #require(ColorFixture.decoded.first { $0.file == "prophoto.png" })
                    let deltaE = ColorDifference.meanCIEDE2000(try ImageDecoder.decode(data).bitmap(), try reference.referenceBitmap())
                    #expect(deltaE < 1.5, "ΔE \(deltaE)")
                }
            }
        }

        @Test func offlineWithAnEmptyCacheFailsAsNotCachedWithoutTheNetwork() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    server.set("/a.png", data: try Fixtures.png(width: 8, height: 8), contentType: "image/png")
                    let url = server.url(for: "/a.png").absoluteString

                    let result = try await sandbox.imago(
                        ["fetch", "--json", "--offline", "--cache-dir", sandbox.path("cache").path, url])
                    #expect(result.exited(with: 1), "\(result.errorOutput)")
                    let line = try sandbox.jsonObject(result)
                    #expect(line["ok"]?.bool == false)
                    let error = try #require(line["error"]?.object)
                    #expect(error["code"]?.string == "not_cached")
                    #expect(server.totalRequestCount == 0)
                }
            }
        }
    }
}
