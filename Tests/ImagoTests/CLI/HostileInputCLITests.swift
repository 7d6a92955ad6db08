import Foundation
import Imago
import ImagoTestSupport
import Testing

extension CLITests {
    /// Numbers no one should type and headers no server should send: usage errors and failures
    /// with a message, never a signal.
    @Suite struct HostileInputCLITests {
        @Test(arguments: [
            ("--timeout", "1e19"), ("--timeout", "-1"), ("--timeout", "nan"), ("--timeout", "inf"),
            ("--timeout", "0"), ("--timeout", "1e-12"), ("--retries", "9223372036854775807"),
            ("--retries", "9223372036854775806"), ("--retries", "-1"), ("--retries", "99999999999999999999"),
            ("--thumbnail", "9223372036854775807"), ("--thumbnail", "0"),
        ])
        func absurdNumbersAreUsageErrorsNamingTheOption(option: String, value: String) async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    server.set("/a.png", data: try Fixtures.png(width: 8, height: 8), contentType: "image/png")
                    let url = server.url(for: "/a.png").absoluteString
                    // `--option=value`, so a leading minus is read as the value, not as an option.
                    let result = try await sandbox.imago(["fetch", "--no-disk-cache", "\(option)=\(value)", url])
                    #expect(result.exited(with: 2), "status \(result.status): \(result.output) \(result.errorOutput)")
                    #expect(result.errorOutput.contains(option), "\(result.errorOutput)")
                    #expect(server.totalRequestCount == 0)
                }
            }
        }

        @Test(arguments: ["--thumbnail=9223372036854775807", "--thumbnail=-1"])
        func demoRefusesAbsurdThumbnails(argument: String) async throws {
            try await withCLISandbox { sandbox in
                let result = try await sandbox.imago(["demo", argument])
                #expect(result.exited(with: 2), "status \(result.status): \(result.errorOutput)")
                #expect(result.errorOutput.contains("--thumbnail"))
            }
        }

        @Test func theLargestTimeoutAndRetriesAllowedStillWork() async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    server.set("/a.png", data: try Fixtures.png(width: 8, height: 8), contentType: "image/png")
                    let url = server.url(for: "/a.png").absoluteString
                    let result = try await sandbox.imago(["fetch", "--no-disk-cache", "--timeout=86400", "--retries=100", url])
                    #expect(result.exited(with: 0), "\(result.errorOutput)")
                }
            }
        }

        /// The trap the issue names: `imago fetch` died with signal 4 on `Cache-Control: max-age=`.
        @Test(arguments: ["max-age=", "max-age", "max-age=-1", "max-age=99999999999999999999999", "max-age=1, max-age=2"])
        func hostileCacheControlIsServedAndCached(value: String) async throws {
            try await withCLISandbox { sandbox in
                try await withTestServer { server in
                    server.set(
                        "/a.png", data: try Fixtures.png(width: 8, height: 8), contentType: "image/png",
                        headers: ["Cache-Control": value, "Age": "-5", "Retry-After": "soon"])
                    let url = server.url(for: "/a.png").absoluteString
                    let cache = sandbox.path("cache").path
                    let result = try await sandbox.imago(["fetch", "--json", "--cache-dir", cache, url])
                    #expect(result.exited(with: 0), "status \(result.status): \(result.errorOutput)")
                    #expect(try sandbox.jsonObject(result)["ok"]?.bool == true)
                }
            }
        }
    }
}
