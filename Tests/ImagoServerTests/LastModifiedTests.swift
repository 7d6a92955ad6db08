#if os(Linux)
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// imgproxy's `IMGPROXY_USE_LAST_MODIFIED` through a real server and a real origin: the source's
/// `Last-Modified` is passed on and `If-Modified-Since` answered only when it is on; an
/// `If-None-Match` decides alone; a malformed date is ignored; a local file gives its mtime.
@Suite struct LastModifiedTests {
    static let modified = "Tue, 03 Nov 2026 10:00:00 GMT"

    /// Runs `body` with the path of a 20-pixel PNG of a loopback origin's 40x30 JPEG, whose
    /// `Last-Modified` is ``modified``.
    static func withDatedSource(_ body: (String) async throws -> Void) async throws {
        try await withTestServer { origin in
            origin.set(
                "/a.jpg", data: try Fixtures.jpeg(width: 40, height: 30, seed: 4), contentType: "image/jpeg",
                lastModified: Self.modified)
            try await body(ServerTests.path("w:20/f:png", origin.url(for: "/a.jpg")))
        }
    }

    @Test func theSourcesDateIsPassedOnAndAnsweredWhenOn() async throws {
        try await Self.withDatedSource { path in
            // Off (the default, as imgproxy): no header, and If-Modified-Since changes nothing.
            try await withServer(ServerTests.local) { server in
                let reply = try await server.get(path, headers: ["If-Modified-Since": Self.modified])
                #expect(reply.status == 200 && reply.headers["last-modified"] == nil && !reply.body.isEmpty)
            }

            var configuration = ServerTests.local
            try ServeEnvironment(["IMGPROXY_USE_LAST_MODIFIED": "true"]).apply(to: &configuration)
            #expect(configuration.usesLastModified)
            try await withServer(configuration) { server in
                let plain = try await server.get(path)
                #expect(plain.status == 200 && plain.headers["last-modified"] == Self.modified)
                #expect(ServerTests.size(of: plain.body) == PixelSize(width: 20, height: 15))
                let cases: [([String: String], Int)] = [
                    (["If-Modified-Since": Self.modified], 304),
                    (["If-Modified-Since": "Wed, 04 Nov 2026 08:00:00 GMT"], 304),
                    (["If-Modified-Since": "Tue, 03 Nov 2026 09:59:59 GMT"], 200),
                    (["If-Modified-Since": "yesterday"], 200),
                    (["If-Modified-Since": Self.modified, "If-None-Match": "\"another\""], 200),
                    (["If-Modified-Since": "Mon, 02 Nov 2026 10:00:00 GMT", "If-None-Match": plain.headers["etag"] ?? ""], 304),
                ]
                for (headers, status) in cases {
                    let reply = try await server.get(path, headers: headers)
                    #expect(reply.status == status, "\(headers)")
                    #expect(reply.headers["last-modified"] == Self.modified, "\(headers)")
                    #expect(reply.body.isEmpty == (status == 304), "\(headers)")
                }
            }
        }
    }

    /// `IMGPROXY_LAST_MODIFIED_BUSTER`: a source's older date gives way to it, so a client's
    /// copy from before it is made again; an RFC 3339 date, anything else refused at start.
    @Test func theBusterMovesOlderDatesLater() async throws {
        try await Self.withDatedSource { path in
            var configuration = ServerTests.local
            try ServeEnvironment([
                "IMGPROXY_USE_LAST_MODIFIED": "1", "IMGPROXY_LAST_MODIFIED_BUSTER": "2026-11-05T01:00:00+01:00",
            ]).apply(to: &configuration)
            let buster = "Thu, 05 Nov 2026 00:00:00 GMT"
            try await withServer(configuration) { server in
                let fresh = try await server.get(path, headers: ["If-Modified-Since": Self.modified])
                #expect(fresh.status == 200 && fresh.headers["last-modified"] == buster)
                #expect(try await server.get(path, headers: ["If-Modified-Since": buster]).status == 304)
            }
        }
        #expect(ServeEnvironment.rfc3339("2026-11-05T00:00:00.123Z") == ServeEnvironment.rfc3339("2026-11-05T00:00:00Z"))
        for bad in ["yesterday", "2026-11-31T00:00:00Z", "2026-11-05 00:00:00Z", "2026-11-05T00:00:00"] {
            #expect(ServeEnvironment.rfc3339(bad) == nil, "\(bad)")
        }
        #expect(throws: ServeEnvironmentError.self) { try ServeEnvironment(["IMGPROXY_LAST_MODIFIED_BUSTER": "yesterday"]) }
    }

    /// A `local://` source's date is its file's modification time.
    @Test func aLocalFileGivesItsModificationTime() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imago-lastmod-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("a.jpg")
        try Fixtures.jpeg(width: 24, height: 16).write(to: file)
        let date = Date(timeIntervalSince1970: 1_780_000_000)
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: file.path)
        var configuration = ImageProxyConfiguration()
        configuration.localFilesystemRoot = root.path
        configuration.usesLastModified = true
        try await withServer(configuration) { server in
            let path = "/insecure/w:12/plain/local:///a.jpg@png"
            let reply = try await server.get(path)
            #expect(reply.status == 200 && reply.headers["last-modified"] == HTTPDate.imfFixdate(date))
            let again = try await server.get(path, headers: ["If-Modified-Since": HTTPDate.imfFixdate(date)])
            #expect(again.status == 304)
        }
    }
}
#endif
