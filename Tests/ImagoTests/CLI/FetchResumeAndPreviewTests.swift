import Foundation
import ImagoTestSupport
import Testing

@testable import Imago

extension CLITests {
    /// `imago fetch` with an interrupted download, and with a progressive JPEG on a terminal.
    @Suite struct FetchResumeAndPreviewTests {
        /// A download cut in the middle is retried from where it stopped, and `--json` says so.
        @Test func jsonSaysHowMuchARetryResumed() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    let data = try Fixtures.jpeg(width: 480, height: 360, seed: 6)
                    let half = data.count / 2
                    server.set("/a.jpg", data: data, contentType: "image/jpeg", etag: "\"a1\"", acceptsRanges: true)
                    server.setBehavior("/a.jpg", .sequence([.truncated(sendBytes: half)]))
                    let url = server.url(for: "/a.jpg").absoluteString

                    let result = try await sandbox.imago(["fetch", "--json", "--no-disk-cache", url])
                    #expect(result.exited(with: 0), "\(result.errorOutput)")
                    let line = try #require(try sandbox.jsonLines(result).first)
                    #expect(line["ok"]?.bool == true)
                    #expect(line["attempts"]?.int == 2)
                    let resumed = try #require(line["resumed_bytes"]?.int, "\(line)")
                    #expect(resumed > 0 && resumed <= half)
                    #expect(server.requests(for: "/a.jpg").last?.header("range") == "bytes=\(resumed)-")
                    #expect(server.bodyBytesSent(for: "/a.jpg") == half + data.count - resumed)

                    // Without an interruption there is no such field.
                    let again = try await sandbox.imago(["fetch", "--json", "--no-disk-cache", url])
                    #expect(try sandbox.jsonLines(again).first?["resumed_bytes"] == nil)
                }
            }
        }

        /// On a pseudo-terminal the bar names the preview of a progressive JPEG while the rest of
        /// it is held back by the server.
        @Test(.timeLimit(.minutes(2)))
        func theBarNamesThePreviewOnATerminal() async throws {
            try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "util-linux script is missing")
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    let data = try JPEGEncoder(quality: 0.9, progressive: true).encode(Fixtures.picture(width: 320, height: 240, seed: 5))
                    var tracker = JPEGScanTracker()
                    var firstScan = 0
                    for offset in data.indices where firstScan == 0 {
                        tracker.consume(data[offset...offset])
                        if tracker.completedScans == 1 { firstScan = offset + 1 }
                    }
                    server.set("/p.jpg", data: data, contentType: "image/jpeg")
                    server.setBehavior("/p.jpg", .slices(boundaries: [firstScan]))
                    let url = server.url(for: "/p.jpg").absoluteString
                    async let run = sandbox.shell(
                        "env -u NO_COLOR TERM=xterm COLUMNS=160 /usr/bin/script -qec \"\\\"$IMAGO\\\" fetch --no-disk-cache '\(url)'\" /dev/null")
                    #expect(await eventually { server.bodyBytesSent(for: "/p.jpg") == firstScan })
                    // What is waited for is the preview's decode of a 320x240 scan (milliseconds);
                    // the bound is generous for a loaded machine, and not a measurement.
                    try await Task.sleep(for: .seconds(3))
                    server.sendNextSlice("/p.jpg")
                    let result = try await run
                    #expect(result.exited(with: 0), "\(result.output) \(result.errorOutput)")
                    #expect(result.output.contains("preview: p.jpg, 1 scan"), "\(result.output.debugDescription)")
                }
            }
        }
    }
}
