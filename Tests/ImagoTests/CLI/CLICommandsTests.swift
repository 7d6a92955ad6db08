import Foundation
import Imago
import ImagoTestSupport
import Testing

extension CLITests {
    /// `imago prefetch` with lists, `imago cache list|verify|sweep|clear`, `imago inspect`, the
    /// demo's contact sheet, and what every command shares (help, version, completion, errors),
    /// run as the built executable against the loopback server.
    @Suite struct CLICommandsTests {
        /// Serves `count` small JPEGs and returns their URLs.
        static func serveImages(_ server: TestServer, count: Int, behavior: TestServer.Behavior? = nil) throws -> [String] {
            try (0..<count).map { index in
                let path = "/img/\(index).jpg"
                server.set(path, data: try Fixtures.jpeg(width: 24 + index, height: 16, seed: index), contentType: "image/jpeg")
                if let behavior { server.setBehavior(path, behavior) }
                return server.url(for: path).absoluteString
            }
        }

        /// Whether `text` holds an escape or carriage return (a redrawn bar, a colour).
        static func hasControlCharacters(_ text: String) -> Bool {
            text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\r" }
        }

        // MARK: - prefetch

        @Test func prefetchReadsAListFileSkippingBlankLinesAndComments() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    let urls = try Self.serveImages(server, count: 3)
                    let list = sandbox.root.appendingPathComponent("urls.txt")
                    try ("# images to warm\n\n" + urls[0] + "\n  \n" + urls[1] + "\n# " + urls[2] + "\n").write(
                        to: list, atomically: true, encoding: .utf8)
                    let cache = sandbox.path("cache").path

                    let text = try await sandbox.imago(["prefetch", "--from", list.path, "--cache-dir", cache, urls[2]])
                    #expect(text.exited(with: 0), "\(text.output) \(text.errorOutput)")
                    #expect(text.outputLines.filter { $0.hasPrefix("ok   network") }.count == 3, "\(text.output)")
                    #expect(text.outputLines.last?.hasPrefix("prefetched 3 of 3 (3 downloaded, 0 already cached)") == true, "\(text.output)")
                    #expect(!Self.hasControlCharacters(text.output + text.errorOutput))
                    #expect(server.totalRequestCount == 3)

                    let json = try await sandbox.imago(["prefetch", "--json", "--from", list.path, "--cache-dir", cache])
                    #expect(json.exited(with: 0), "\(json.errorOutput)")
                    let lines = try sandbox.jsonLines(json)
                    #expect(lines.filter { $0["url"] != nil }.allSatisfy { $0["source"]?.string == "disk" })
                    let summary = try #require(lines.last?["summary"]?.object)
                    #expect(summary["urls"]?.int == 2)
                    #expect(summary["already_cached"]?.int == 2)
                    #expect(summary["downloaded"]?.int == 0)
                    #expect(summary["failed"]?.int == 0)
                    #expect(server.totalRequestCount == 3)
                }
            }
        }

        @Test func prefetchReadsStandardInputAndReportsFailuresWithExitStatusOne() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    let urls = try Self.serveImages(server, count: 2)
                    server.setBehavior("/missing.jpg", .status(404, body: Data("no".utf8)))
                    let missing = server.url(for: "/missing.jpg").absoluteString
                    let cache = sandbox.path("cache").path
                    let result = try await sandbox.shell(
                        "printf '%s\\n' '\(urls[0])' '\(missing)' '\(urls[1])' | \"$IMAGO\" prefetch --json --from - --cache-dir '\(cache)'")
                    #expect(result.exited(with: 1), "\(result.output) \(result.errorOutput)")
                    let lines = try sandbox.jsonLines(result)
                    let failed = lines.filter { $0["ok"]?.bool == false }
                    #expect(failed.count == 1)
                    #expect(failed.first?["url"]?.string == missing)
                    #expect(lines.last?["summary"]?.object?["failed"]?.int == 1)
                    #expect(lines.last?["summary"]?.object?["cached"]?.int == 2)
                }
            }
        }

        @Test func prefetchNamesAnUnreadableListOrABadLineAndExitsTwo() async throws {
            try await withCLISandbox { sandbox in
                let absent = sandbox.root.appendingPathComponent("absent.txt").path
                let missing = try await sandbox.imago(["prefetch", "--from", absent])
                #expect(missing.exited(with: 2), "\(missing.errorOutput)")
                #expect(missing.errorOutput.contains(absent) && missing.errorOutput.contains("Check the path"), "\(missing.errorOutput)")

                let list = sandbox.root.appendingPathComponent("bad.txt")
                try "http://127.0.0.1:1/a.jpg\nnot a url\n".write(to: list, atomically: true, encoding: .utf8)
                let bad = try await sandbox.imago(["prefetch", "--from", list.path])
                #expect(bad.exited(with: 2), "\(bad.errorOutput)")
                #expect(bad.errorOutput.contains("bad.txt:2"), "\(bad.errorOutput)")

                let none = try await sandbox.imago(["prefetch"])
                #expect(none.exited(with: 2))
                #expect(none.errorOutput.contains("--from"), "\(none.errorOutput)")
            }
        }

        // MARK: - cache

        @Test func cacheListAndStatsGroupEntriesByHost() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    let urls = try Self.serveImages(server, count: 3)
                    let cache = sandbox.path("cache").path
                    let prefetch = try await sandbox.imago(["prefetch", "--cache-dir", cache] + urls)
                    #expect(prefetch.exited(with: 0), "\(prefetch.errorOutput)")

                    let list = try await sandbox.imago(["cache", "list", "--cache-dir", cache])
                    #expect(list.exited(with: 0), "\(list.errorOutput)")
                    #expect(list.outputLines.first?.hasPrefix("127.0.0.1  (3, ") == true, "\(list.output)")
                    for url in urls { #expect(list.output.contains(url), "\(list.output)") }
                    #expect(list.outputLines.filter { $0.contains("age ") && $0.contains("no expiry") }.count == 3)

                    let entries = try sandbox.jsonLines(try await sandbox.imago(["cache", "list", "--json", "--cache-dir", cache]))
                    #expect(Set(entries.compactMap { $0["key"]?.string }) == Set(urls))
                    #expect(entries.allSatisfy { $0["host"]?.string == "127.0.0.1" && ($0["bytes"]?.int ?? 0) > ($0["payload_bytes"]?.int ?? 0) })
                    #expect(entries.allSatisfy { $0["expired"]?.bool == false && $0["expires_in_seconds"] == JSON.null })

                    let stats = try sandbox.jsonObject(try await sandbox.imago(["cache", "stats", "--json", "--cache-dir", cache]))
                    let host = try #require(stats["hosts"]?.object?["127.0.0.1"]?.object)
                    #expect(host["entries"]?.int == 3)
                    #expect(host["bytes"]?.int == entries.compactMap { $0["bytes"]?.int }.reduce(0, +))
                    let text = try await sandbox.imago(["cache", "stats", "--cache-dir", cache])
                    #expect(text.output.contains("by host:") && text.output.contains("127.0.0.1  3 entries"), "\(text.output)")
                }
            }
        }

        @Test(arguments: [false, true])
        func cacheVerifyRemovesEntriesCorruptedByHandAndSaysHowMany(json: Bool) async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    let urls = try Self.serveImages(server, count: 4)
                    let cache = sandbox.path("cache")
                    #expect(try await sandbox.imago(["prefetch", "--cache-dir", cache.path] + urls).exited(with: 0))
                    let entries = cache.appendingPathComponent("entries")
                    let files = try FileManager.default.contentsOfDirectory(atPath: entries.path).sorted()
                    try #require(files.count == 4)
                    // One payload byte flipped, one header overwritten, one file cut short.
                    let flipped = entries.appendingPathComponent(files[0])
                    var bytes = try Data(contentsOf: flipped)
                    bytes[bytes.count - 10] ^= 0xFF
                    try bytes.write(to: flipped)
                    let garbled = entries.appendingPathComponent(files[1])
                    bytes = try Data(contentsOf: garbled)
                    bytes.replaceSubrange(0..<8, with: Data("garbage!".utf8))
                    try bytes.write(to: garbled)
                    let truncated = entries.appendingPathComponent(files[2])
                    bytes = try Data(contentsOf: truncated)
                    try bytes.prefix(bytes.count - 100).write(to: truncated)
                    let intact = entries.appendingPathComponent(files[3])
                    let modified = try #require(
                        try FileManager.default.attributesOfItem(atPath: intact.path)[.modificationDate] as? Date)

                    let verify = try await sandbox.imago(["cache", "verify", "--cache-dir", cache.path] + (json ? ["--json"] : []))
                    #expect(verify.exited(with: 1), "\(verify.output) \(verify.errorOutput)")
                    if json {
                        let report = try sandbox.jsonObject(verify)
                        #expect(report["checked"]?.int == 4)
                        #expect(report["intact"]?.int == 1)
                        #expect(report["removed"]?.int == 3)
                        guard case .array(let removed) = report["removed_entries"] else {
                            Issue.record("no removed_entries: \(verify.output)")
                            return
                        }
                        #expect(Set(removed.compactMap { $0.object?["file"]?.string }) == Set(files.prefix(3)))
                    } else {
                        #expect(verify.outputLines.last == "checked 4 entries: 1 intact, 3 damaged and removed", "\(verify.output)")
                        #expect(verify.outputLines.filter { $0.hasPrefix("removed ") }.count == 3)
                    }
                    #expect(try FileManager.default.contentsOfDirectory(atPath: entries.path) == [files[3]])
                    let after = try #require(
                        try FileManager.default.attributesOfItem(atPath: intact.path)[.modificationDate] as? Date)
                    #expect(abs(after.timeIntervalSince(modified)) < 0.01, "verifying changed the entry's recency")

                    let again = try await sandbox.imago(["cache", "verify", "--json", "--cache-dir", cache.path])
                    #expect(again.exited(with: 0), "\(again.output)")
                    #expect(try sandbox.jsonObject(again)["removed"]?.int == 0)
                }
            }
        }

        @Test func cacheSweepTrimsToTheSizeLimitOldestFirst() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    let urls = try Self.serveImages(server, count: 3)
                    let cache = sandbox.path("cache").path
                    for url in urls {  // one at a time, so their recency is in this order
                        #expect(try await sandbox.imago(["prefetch", "--cache-dir", cache, url]).exited(with: 0))
                    }
                    let entries = try sandbox.jsonLines(try await sandbox.imago(["cache", "list", "--json", "--cache-dir", cache]))
                    let newest = try #require(entries.first { $0["key"]?.string == urls[2] }?["bytes"]?.int)

                    let sweep = try await sandbox.imago(["cache", "sweep", "--json", "--size-limit", "\(newest)", "--cache-dir", cache])
                    #expect(sweep.exited(with: 0), "\(sweep.errorOutput)")
                    let report = try sandbox.jsonObject(sweep)
                    #expect(report["evicted"]?.int == 2)
                    #expect(report["entries"]?.int == 1)
                    let left = try sandbox.jsonLines(try await sandbox.imago(["cache", "list", "--json", "--cache-dir", cache]))
                    #expect(left.map { $0["key"]?.string } == [urls[2]])

                    let text = try await sandbox.imago(["cache", "sweep", "--size-limit", "0KB", "--cache-dir", cache])
                    #expect(text.output.contains("evicted 1 over the limit; 0 entries remain"), "\(text.output)")
                    let bad = try await sandbox.imago(["cache", "sweep", "--size-limit", "lots", "--cache-dir", cache])
                    #expect(bad.exited(with: 2))
                    #expect(bad.errorOutput.contains("--size-limit"), "\(bad.errorOutput)")
                }
            }
        }

        @Test func cacheClearWithoutATerminalRefusesUnlessTold() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    let urls = try Self.serveImages(server, count: 2)
                    let cache = sandbox.path("cache").path
                    #expect(try await sandbox.imago(["prefetch", "--cache-dir", cache] + urls).exited(with: 0))

                    let refused = try await sandbox.imago(["cache", "clear", "--cache-dir", cache])
                    #expect(refused.exited(with: 2), "\(refused.output) \(refused.errorOutput)")
                    #expect(refused.errorOutput.contains("--yes") && refused.errorOutput.contains(cache), "\(refused.errorOutput)")
                    #expect(try sandbox.jsonObject(try await sandbox.imago(["cache", "stats", "--json", "--cache-dir", cache]))["entries"]?.int == 2)

                    let cleared = try await sandbox.imago(["cache", "clear", "--yes", "--cache-dir", cache])
                    #expect(cleared.exited(with: 0))
                    #expect(cleared.output.hasPrefix("removed 2 entries"), "\(cleared.output)")
                    let empty = try await sandbox.imago(["cache", "list", "--cache-dir", cache])
                    #expect(empty.output.contains("is empty"), "\(empty.output)")
                    #expect(try await sandbox.imago(["cache", "list", "--json", "--cache-dir", cache]).outputLines.isEmpty)
                }
            }
        }

        // MARK: - inspect

        /// A fixture and what `imago inspect` must say about it; nil where the test does not ask.
        struct Inspected: Sendable, CustomTestStringConvertible {
            var file: String
            var format: String
            var size: (Int, Int)? = (32, 24)
            var frames = 1
            var orientation: Int? = nil
            var colorModel: String? = nil
            var bitDepth: Int? = nil
            var alpha: Bool? = nil
            var testDescription: String { file }
        }

        static let inspected: [Inspected] = [
            Inspected(file: "jpeg-baseline.jpg", format: "jpeg", colorModel: "ycbcr", bitDepth: 8, alpha: false),
            Inspected(file: "jpeg-gray.jpg", format: "jpeg", colorModel: "gray", bitDepth: 8),
            Inspected(file: "jpeg-cmyk.jpg", format: "jpeg", colorModel: "cmyk", bitDepth: 8),
            Inspected(file: "jpeg-orientation-6.jpg", format: "jpeg", size: nil, orientation: 6, colorModel: "ycbcr"),
            Inspected(file: "png-rgb.png", format: "png", colorModel: "rgb", bitDepth: 8, alpha: false),
            Inspected(file: "png-rgba16.png", format: "png", colorModel: "rgba", bitDepth: 16, alpha: true),
            Inspected(file: "png-gray-1bit.png", format: "png", colorModel: "gray", bitDepth: 1, alpha: false),
            Inspected(file: "png-palette-trns.png", format: "png", colorModel: "indexed", alpha: true),
            Inspected(file: "gif-still.gif", format: "gif", colorModel: "indexed", alpha: false),
            Inspected(file: "gif-transparent.gif", format: "gif", colorModel: "indexed", alpha: true),
            Inspected(file: "gif-animated.gif", format: "gif", frames: 5, colorModel: "indexed"),
            Inspected(file: "gif-200-frames.gif", format: "gif", size: (8, 8), frames: 200),
            Inspected(file: "webp-lossy.webp", format: "webp", colorModel: "yuv", bitDepth: 8, alpha: false),
            Inspected(file: "webp-lossless-alpha.webp", format: "webp", colorModel: "argb", alpha: true),
            Inspected(file: "webp-lossy-alpha.webp", format: "webp", colorModel: "yuv", alpha: true),
            Inspected(file: "webp-animated.webp", format: "webp", frames: 3),
            Inspected(file: "avif-animated.avif", format: "avif", frames: 3),
            Inspected(file: "heif-lossy.heif", format: "heif"),
        ]

        @Test(arguments: inspected)
        func inspectReadsTheHeader(_ expected: Inspected) async throws {
            try await withCLISandbox { sandbox in
                let path = Fixture.folder.appendingPathComponent(expected.file).path
                let result = try await sandbox.imago(["inspect", "--json", path])
                #expect(result.exited(with: 0), "\(result.errorOutput)")
                let object = try sandbox.jsonObject(result)
                #expect(object["format"]?.string == expected.format)
                if let (width, height) = expected.size {
                    #expect(object["width"]?.int == width && object["height"]?.int == height)
                }
                #expect(object["frames"]?.int == expected.frames)
                #expect(object["orientation"]?.int == expected.orientation)
                if let colorModel = expected.colorModel { #expect(object["color_model"]?.string == colorModel) }
                if let bitDepth = expected.bitDepth { #expect(object["bit_depth"]?.int == bitDepth) }
                if let alpha = expected.alpha { #expect(object["has_alpha"]?.bool == alpha) }
                #expect(object["bytes"]?.int == (try Data(contentsOf: URL(fileURLWithPath: path))).count)
            }
        }

        @Test func inspectShowsTheColourProfile() async throws {
            try await withCLISandbox { sandbox in
                let folder = ColorFixture.folder
                let text = try await sandbox.imago(["inspect", folder.appendingPathComponent("displayp3.jpg").path])
                #expect(text.exited(with: 0), "\(text.errorOutput)")
                #expect(text.output.contains("profile     \"Display P3\" (ICC 4."), "\(text.output)")
                #expect(text.output.contains("converted to sRGB when decoded"))

                let json = try sandbox.jsonObject(try await sandbox.imago(["inspect", "--json", folder.appendingPathComponent("prophoto.png").path]))
                #expect(json["color_declaration"]?.string == "ICC profile")
                let profile = try #require(json["color_profile"]?.object)
                #expect(profile["name"]?.string == "ProPhoto RGB" && profile["color_space"]?.string == "rgb")

                let nclx = try sandbox.jsonObject(try await sandbox.imago(["inspect", "--json", folder.appendingPathComponent("displayp3-nclx.avif").path]))
                #expect(nclx["color_declaration"]?.string == "CICP 12/13/6 (Display P3 primaries, sRGB transfer)", "\(nclx)")

                let broken = try await sandbox.imago(["inspect", folder.appendingPathComponent("broken-order.jpg").path])
                #expect(broken.output.contains("unusable, read as sRGB: the ICC profile's APP2 segments are numbered wrongly"), "\(broken.output)")
                let plain = try await sandbox.imago(["inspect", Fixture.folder.appendingPathComponent("jpeg-baseline.jpg").path])
                #expect(plain.output.contains("profile     none (sRGB)"), "\(plain.output)")
            }
        }

        @Test func inspectShowsTheGainMap() async throws {
            try await withCLISandbox { sandbox in
                let path = Fixture.folder.appendingPathComponent("gainmap/ultrahdr-96x64.jpg").path
                let text = try await sandbox.imago(["inspect", path])
                #expect(text.exited(with: 0), "\(text.errorOutput)")
                #expect(text.output.contains("gain map    48 x 32 pixels, headroom "), "\(text.output)")
                #expect(text.output.contains("ISO 21496-1"), "\(text.output)")
                let json = try sandbox.jsonObject(try await sandbox.imago(["inspect", "--json", path]))
                let map = try #require(json["gain_map"]?.object, "\(json)")
                #expect(map["width"]?.int == 48 && map["height"]?.int == 32)
                #expect((map["headroom_stops"]?.number ?? 0) > 1, "\(map)")
                let plain = try sandbox.jsonObject(try await sandbox.imago(["inspect", "--json", Fixture.folder.appendingPathComponent("jpeg-baseline.jpg").path]))
                #expect(plain["gain_map"] == .null, "\(plain)")
            }
        }

        @Test func inspectReadsAURLAndNamesWhatItCannotRead() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    server.set("/anim.gif", data: try Fixture.data("gif-animated.gif"), contentType: "image/gif")
                    server.setBehavior("/gone.png", .status(404, body: Data("no".utf8)))
                    let text = try await sandbox.imago(["inspect", server.url(for: "/anim.gif").absoluteString])
                    #expect(text.exited(with: 0), "\(text.errorOutput)")
                    #expect(text.output.contains("format      GIF"), "\(text.output)")
                    #expect(text.output.contains("size        32 x 24 pixels"))
                    #expect(text.output.contains("frames      5"))
                    #expect(text.output.contains("orientation not stated"))
                    #expect(!Self.hasControlCharacters(text.output))

                    let gone = server.url(for: "/gone.png").absoluteString
                    let failed = try await sandbox.imago(["inspect", gone])
                    #expect(failed.exited(with: 1))
                    #expect(failed.errorOutput.contains(gone), "\(failed.errorOutput)")
                }
                let absent = sandbox.root.appendingPathComponent("absent.png").path
                let missing = try await sandbox.imago(["inspect", absent])
                #expect(missing.exited(with: 2))
                #expect(missing.errorOutput.contains(absent), "\(missing.errorOutput)")
                let notImage = sandbox.root.appendingPathComponent("notes.txt")
                try "hello".write(to: notImage, atomically: true, encoding: .utf8)
                let wrong = try await sandbox.imago(["inspect", "--json", notImage.path])
                #expect(wrong.exited(with: 1))
                #expect(wrong.errorOutput.contains("notes.txt is not an image"), "\(wrong.errorOutput)")
            }
        }

        // MARK: - demo

        @Test func demoWritesAContactSheetWhosePixelSizeMatchesItsGrid() async throws {
            try await withCLISandbox { sandbox in
                let result = try await sandbox.imago(
                    ["demo", "--json", "--count", "7", "--thumbnail", "64", "--size", "200"], timeLimit: .seconds(300))
                #expect(result.exited(with: 0), "\(result.output) \(result.errorOutput)")
                let report = try sandbox.jsonObject(result)
                #expect(report["images"]?.int == 7)
                #expect(report["ok"]?.bool == true)
                let sheet = try #require(report["contact_sheet"]?.object)
                let file = sandbox.root.appendingPathComponent("imago-demo/contact-sheet.png")
                #expect(sheet["path"]?.string?.hasSuffix("imago-demo/contact-sheet.png") == true)
                let data = try Data(contentsOf: file)
                // 7 cells of 64 pixels, 6 to a row: 2 rows; 8 pixels around and between cells; a
                // 13-pixel label strip (7-pixel font, 3 above and below) under each thumbnail.
                let width = 6 * 64 + 7 * 8
                let height = 2 * (64 + 13) + 3 * 8
                #expect(sheet["width"]?.int == width && sheet["height"]?.int == height)
                #expect(sheet["columns"]?.int == 6 && sheet["rows"]?.int == 2)
                let header = try #require(ImageHeader.probe(data), "not a PNG header")
                #expect(header.format == .png)
                #expect(header.width == width && header.height == height)
                let decoded = try ImageDecoder.decode(data).bitmap()
                #expect(decoded.width == width && decoded.height == height)
                // The label strip of the first cell holds dark label pixels on the light background.
                let labelRow = 8 + 64 + 3
                let dark = (8..<(8 + 64)).filter { x in (labelRow..<(labelRow + 7)).contains { decoded[x, $0].r < 100 } }
                #expect(!dark.isEmpty, "no label drawn under the first thumbnail")
            }
        }

        // MARK: - what every command shares

        @Test func versionHelpAndCompletionScripts() async throws {
            try await withCLISandbox { sandbox in
                let version = try await sandbox.imago(["--version"])
                #expect(version.exited(with: 0))
                #expect(version.output.trimmingCharacters(in: .whitespacesAndNewlines) == "0.1.0")

                for command in [["fetch"], ["prefetch"], ["cache"], ["cache", "verify"], ["cache", "clear"], ["inspect"], ["demo"]] {
                    let help = try await sandbox.imago(command + ["--help"])
                    #expect(help.exited(with: 0), "\(command)")
                    #expect(help.output.contains("Examples:"), "\(command): \(help.output)")
                    #expect(help.output.contains("Exit status"), "\(command): \(help.output)")
                    #expect(!Self.hasControlCharacters(help.output), "\(command)")
                }
                let root = try await sandbox.imago(["--help"])
                #expect(root.output.contains("--generate-completion-script"), "\(root.output)")

                for shell in ["bash", "zsh", "fish"] {
                    let script = try await sandbox.imago(["--generate-completion-script", shell])
                    #expect(script.exited(with: 0), "\(shell): \(script.errorOutput)")
                    #expect(script.output.contains("prefetch") && script.output.contains("inspect"), "\(shell)")
                }
            }
        }

        // MARK: - the progress bar on a terminal

        /// On a pseudo-terminal (util-linux `script`, Essential on Debian) the bar's escapes reach
        /// the terminal; with `NO_COLOR` set they do not, and neither does the bar.
        @Test func noColorTurnsTheBarOffOnATerminal() async throws {
            try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "util-linux script is missing")
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    let urls = try Self.serveImages(server, count: 3)
                    let arguments = urls.map { "'\($0)'" }.joined(separator: " ")
                    let live = try await sandbox.shell(
                        "env -u NO_COLOR TERM=xterm /usr/bin/script -qec \"\\\"$IMAGO\\\" prefetch --cache-dir live \(arguments)\" /dev/null")
                    #expect(live.exited(with: 0), "\(live.output) \(live.errorOutput)")
                    #expect(live.output.contains("\u{1B}[K") && live.output.contains("prefetch ["), "\(live.output.debugDescription)")

                    let plain = try await sandbox.shell(
                        "NO_COLOR=1 TERM=xterm /usr/bin/script -qec \"\\\"$IMAGO\\\" prefetch --cache-dir plain \(arguments)\" /dev/null")
                    #expect(plain.exited(with: 0), "\(plain.output) \(plain.errorOutput)")
                    #expect(!plain.output.contains("\u{1B}"), "\(plain.output.debugDescription)")
                    #expect(!plain.output.contains("prefetch ["))
                    #expect(plain.output.contains("prefetched 3 of 3"))
                }
            }
        }

        @Test func theProgressBarRedrawsInPlaceUnderTmuxAndIsAbsentInAPipe() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    let urls = try Self.serveImages(server, count: 8, behavior: .delay(.milliseconds(400)))
                    let imago = try #require(ImagoExecutable.url)
                    let tmux = try #require(
                        ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"].first {
                            FileManager.default.isExecutableFile(atPath: $0)
                        }, "tmux is not installed (Debian: apt-get install tmux; .ci/run installs it)")
                    let socket = "imago-test-\(UUID().uuidString.prefix(8))"
                    var environment = sandbox.environment
                    environment["TMUX"] = nil  // a test run inside tmux still starts its own server
                    environment["TERM"] = "xterm"
                    func run(_ arguments: [String]) async throws -> CommandResult {
                        try await CommandRunner.run(
                            URL(fileURLWithPath: tmux), arguments: ["-L", socket, "-f", "/dev/null"] + arguments,
                            environment: environment, timeLimit: .seconds(30))
                    }
                    let quoted = ([imago.path, "prefetch", "--concurrency", "1", "--cache-dir", sandbox.path("cache").path] + urls)
                        .map { "'\($0)'" }.joined(separator: " ")
                    let script = "env -u NO_COLOR TERM=screen \(quoted); echo imago-exit-$?; sleep 120"
                    // The tmux server this starts outlives the client and keeps every descriptor it
                    // inherited: close all but 0-2 (our output pipes among them) before starting it
                    // (bash: dash cannot name descriptors above 9).
                    let closeInherited = "for fd in /proc/$$/fd/*; do n=${fd##*/}; [ \"$n\" -gt 2 ] && eval \"exec $n>&-\"; done"
                    let started = try await CommandRunner.run(
                        URL(fileURLWithPath: "/bin/bash"),
                        arguments: [
                            "-c",
                            closeInherited + "; exec \"$0\" -L \"$1\" -f /dev/null new-session -d -x 160 -y 40 -s bar \"$2\" >/dev/null 2>&1 </dev/null",
                            tmux, socket, script,
                        ], environment: environment, timeLimit: .seconds(30))
                    try #require(started.exited(with: 0), "tmux: \(started.errorOutput)")

                    var sawBarMidway = false
                    var mostBarLines = 0
                    var screen = ""
                    let clock = ContinuousClock()
                    let deadline = clock.now + .seconds(60)
                    while clock.now < deadline {
                        screen = try await run(["capture-pane", "-p", "-t", "bar"]).output
                        let bars = screen.split(separator: "\n").filter { $0.contains("prefetch [") }
                        mostBarLines = max(mostBarLines, bars.count)
                        if bars.count == 1, let bar = bars.first, !bar.contains(" 0/8"), !bar.contains(" 8/8") { sawBarMidway = true }
                        if screen.contains("imago-exit-") { break }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    _ = try? await run(["kill-server"])

                    #expect(screen.contains("imago-exit-0"), "\(screen)")
                    #expect(sawBarMidway, "never saw the bar part way: \(screen)")
                    #expect(mostBarLines == 1, "the bar took \(mostBarLines) lines at once: \(screen)")
                    let lines = screen.split(separator: "\n")
                    #expect(lines.filter { $0.hasPrefix("ok   network") }.count == 8, "\(screen)")
                    #expect(lines.contains { $0.hasPrefix("prefetched 8 of 8") }, "\(screen)")
                    #expect(!lines.contains { $0.contains("prefetch [") }, "the finished bar was left on screen: \(screen)")

                    // The same run, piped: plain lines, not one control character.
                    let piped = try await sandbox.imago(["prefetch", "--cache-dir", sandbox.path("cache2").path] + urls)
                    #expect(piped.exited(with: 0))
                    #expect(!Self.hasControlCharacters(piped.output + piped.errorOutput), "\(piped.output.debugDescription)")
                    #expect(!piped.output.contains("prefetch ["))
                }
            }
        }
    }
}
