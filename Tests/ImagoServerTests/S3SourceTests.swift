#if os(Linux)
import AsyncHTTPClient
import Foundation
import Glibc
import Imago
import ImagoTestSupport
import NIOCore
import Testing

/// `s3://bucket/key` through the built `imago serve`, configured by `IMGPROXY_USE_S3`,
/// `IMGPROXY_S3_ENDPOINT` and the AWS variables alone, against moto's standalone S3 server on
/// loopback (from the test venv, `Scripts/packages.sh`), which checks the Signature V4 of every
/// request once set up (`INITIAL_NO_AUTH_ACTION_COUNT`). Skipped as every external-program test is
/// (``ExternalPrograms/runs(_:)``).
@Suite(.enabled(if: ExternalPrograms.runs(ExternalPrograms.testVenvPython)))
struct S3SourceTests {
    /// moto on a free loopback port with a bucket `pics` holding `dir/x.png`, and the access key
    /// that may read it; `body` runs, then moto is stopped.
    static func withMoto(_ body: (_ endpoint: String, _ key: String, _ secret: String, _ png: Data) async throws -> Void) async throws {
        let python = try #require(ExternalPrograms.testVenvPython, "make the test venv: Scripts/run test, or Scripts/packages.sh's install_test_venv")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imago-s3-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = try Fixtures.png(width: 64, height: 48)
        let pngFile = folder.appendingPathComponent("x.png")
        try png.write(to: pngFile)
        let port = try ExternalPrograms.freePort()
        let endpoint = "http://127.0.0.1:\(port)"
        let moto = Process()
        moto.executableURL = URL(fileURLWithPath: python).deletingLastPathComponent().appendingPathComponent("moto_server")
        moto.arguments = ["-H", "127.0.0.1", "-p", "\(port)"]
        // The setup script's three IAM requests go unchecked; every request after is authenticated.
        moto.environment = ProcessInfo.processInfo.environment.merging(["INITIAL_NO_AUTH_ACTION_COUNT": "3"]) { $1 }
        moto.standardOutput = FileHandle.nullDevice
        moto.standardError = FileHandle.nullDevice
        try moto.run()
        defer {
            // moto's server does not end on SIGTERM.
            kill(moto.processIdentifier, SIGKILL)
            moto.waitUntilExit()
        }
        let setup = Process()
        setup.executableURL = URL(fileURLWithPath: python)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("S3/moto-setup.py")
        // The script waits (at most 60 s) until moto accepts connections.
        setup.arguments = [script.path, endpoint, "pics", "dir/x.png", pngFile.path]
        let output = Pipe()
        setup.standardOutput = output
        try setup.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        setup.waitUntilExit()
        let parts = printed.split(whereSeparator: \.isWhitespace).map(String.init)
        try #require(setup.terminationStatus == 0 && parts.count == 2, "the moto setup failed: \(printed)")
        try await body(endpoint, parts[0], parts[1], png)
    }

    /// `GET path` of a started `imago serve` whose environment adds `environment`; `check` sees
    /// the status, the body and the server's log.
    static func serve(
        _ environment: [String: String], paths: [String], _ check: ([(status: Int, body: Data)], String) throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imago-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        // No --allow-private-networks: the S3 endpoint on loopback is the operator's, trusted.
        let replies = try await withServeProcess(arguments: ["--allow-unsigned"], environment: environment, in: folder) { serve, client in
            var replies: [(status: Int, body: Data)] = []
            for path in paths {
                let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(serve.port)\(path)"), timeout: .seconds(60))
                let body = try await response.body.collect(upTo: 10 << 20)
                replies.append((Int(response.status.code), Data(buffer: body)))
            }
            return replies
        }
        let log = ["stdout.txt", "stderr.txt"].map { (try? String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)) ?? "" }.joined()
        try check(replies, log)
    }

    static func path(_ source: String) -> String { "/insecure/rs:fit:16:16/plain/" + source + "@png" }

    @Test func anObjectIsFetchedThroughS3AndWrongCredentialsNameNoSecret() async throws {
        try await Self.withMoto { endpoint, key, secret, _ in
            let base = [
                "IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ENDPOINT": endpoint, "AWS_REGION": "us-east-1",
                "AWS_ACCESS_KEY_ID": key,
            ]
            try await Self.serve(
                base.merging(["AWS_SECRET_ACCESS_KEY": secret]) { $1 },
                paths: [Self.path("s3://pics/dir/x.png"), Self.path("s3://pics/dir/none.png"), Self.path(endpoint + "/pics/dir/x.png")]
            ) { replies, _ in
                #expect(replies[0].status == 200, "\(String(decoding: replies[0].body, as: UTF8.self))")
                let bitmap = try ImageDecoder().decode(replies[0].body, context: DecodingContext(format: .png)).bitmap()
                #expect(bitmap.width == 16 && bitmap.height == 12)
                #expect(replies[1].status == 404)
                // The same endpoint as a user's http URL is still under the address rules.
                #expect(replies[2].status == 403 && String(decoding: replies[2].body, as: UTF8.self).contains("forbidden_source"))
            }
            let wrongSecret = "wrong" + String(secret.dropFirst(5))
            try await Self.serve(base.merging(["AWS_SECRET_ACCESS_KEY": wrongSecret]) { $1 }, paths: [Self.path("s3://pics/dir/x.png")]) {
                replies, log in
                #expect(replies[0].status == 403)
                let body = String(decoding: replies[0].body, as: UTF8.self)
                for secretPart in [wrongSecret, secret, key, "Signature=", "AWS4-HMAC-SHA256"] {
                    #expect(!body.contains(secretPart), "the answer names \(secretPart): \(body)")
                    if secretPart != key { #expect(!log.contains(secretPart), "the log names a secret") }
                }
            }
        }
    }
}
#endif
