#if os(Linux)
import AsyncHTTPClient
import Foundation
import Imago
import ImagoTestSupport
import Testing

@testable import ImagoServer

/// `imago serve` as operators start it: `/metrics` on its own port, the open-files limit raised.
@Suite struct ServeCommandTests {
    @Test func metricsMoveToTheirOwnPortAndTheFileLimitIsRaised() async throws {
        try await withServeProcess(arguments: ["--allow-unsigned", "--metrics-port", "0"]) { serve, client in
            let port = try await serve.metricsPort()
            let get: (Int, String) async throws -> (status: Int, body: String, nosniff: String?) = { port, path in
                let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 1024 * 1024)
                return (Int(response.status.code), String(decoding: body.readableBytesView, as: UTF8.self),
                    response.headers.first(name: "x-content-type-options"))
            }
            let health = try await get(serve.port, "/healthz")
            #expect(health.status == 200 && health.nosniff == "nosniff")
            let moved = try await get(serve.port, "/metrics")
            #expect(moved.status == 404)
            let metrics = try await get(port, "/metrics")
            #expect(metrics.status == 200)
            // Both requests to the serving port are counted, the 404 too.
            #expect(metrics.body.contains("imago_serve_requests_total{status=\"200\"} 1"), "\(metrics.body)")
            #expect(metrics.body.contains("imago_serve_requests_total{status=\"404\"} 1"), "\(metrics.body)")
            // The soft open-files limit is the hard one.
            let limits = try String(contentsOfFile: "/proc/\(serve.process.processIdentifier)/limits", encoding: .utf8)
            let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
            let numbers = line.split(separator: " ").compactMap { Int($0) }
            #expect(numbers.count == 2 && numbers[0] == numbers[1], "\(line)")
        }
    }

    /// An imgproxy deployment's environment alone (no flags but the test's port and cache folder):
    /// a path signed as imgproxy signs it (several keys, a 16-byte signature), a `local://` source,
    /// `/health` and the health-check path, the TTL; a bad option is a 400.
    @Test func imgproxysEnvironmentAloneConfiguresIt() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imago-env-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = folder.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Fixtures.jpeg(width: 120, height: 90).write(to: root.appendingPathComponent("a.jpg"))
        let key = URLSignerTests.key
        let salt = URLSignerTests.salt
        let retired = String(repeating: "5a", count: 32)
        let environment = [
            "IMGPROXY_KEY": "\(retired),\(key)", "IMGPROXY_SALT": "00,\(salt)", "IMGPROXY_SIGNATURE_SIZE": "16",
            "IMGPROXY_LOCAL_FILESYSTEM_ROOT": root.path, "IMGPROXY_HEALTH_CHECK_PATH": "/alive", "IMGPROXY_TTL": "600",
            "IMAGO_KEY": "", "IMAGO_SALT": "", "IMAGO_KEY_FILE": "",
        ]
        try await withServeProcess(arguments: [], environment: environment, in: folder) { serve, client in
            let get: (String) async throws -> (status: Int, body: Data, cacheControl: String?) = { path in
                let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(serve.port)\(path)"), timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 4 * 1024 * 1024)
                return (Int(response.status.code), Data(body.readableBytesView), response.headers.first(name: "cache-control"))
            }
            // imgproxy's algorithm: HMAC-SHA256 of salt + path, base64url, cut to IMGPROXY_SIGNATURE_SIZE
            // bytes (URLSignerTests pins it to an independent implementation), with the second pair.
            let part = "/rs:fit:60:60/plain/local:///a.jpg@png"
            let signer = URLSigner(
                pairs: [(URLSigner.bytes(fromHex: key) ?? [], URLSigner.bytes(fromHex: salt) ?? [])], signatureSize: 16)
            let signed = try await get("/" + signer.signature(for: part) + part)
            #expect(signed.status == 200, "\(String(decoding: signed.body, as: UTF8.self))")
            #expect(ImageHeader.probe(signed.body).map { [$0.width, $0.height] } == [60, 45])
            #expect(signed.cacheControl == "public, max-age=600")
            let unsigned = try await get("/insecure" + part)
            #expect(unsigned.status == 403)
            let bad = try await get("/" + signer.signature(for: "/rs:fit:x/plain/local:///a.jpg") + "/rs:fit:x/plain/local:///a.jpg")
            #expect(bad.status == 400, "\(String(decoding: bad.body, as: UTF8.self))")
            for path in ["/health", "/alive"] {
                #expect(try await get(path).status == 200, "\(path)")
            }
        }
    }

    /// A variable that does not parse stops `imago serve` at start, with a message naming it.
    @Test func aBadVariableIsRefusedAtStartByName() async throws {
        let executable = try #require(BuiltExecutable.url(named: "imago"), "no built imago beside the test bundle")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imago-env-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            let serve = try await ServeProcess.start(
                executable, in: folder, arguments: ["--allow-unsigned"], environment: ["IMGPROXY_TTL": "a year"])
            await serve.stop()
            Issue.record("imago serve started with IMGPROXY_TTL=\"a year\"")
        } catch let failure as ServeProcess.Failure {
            #expect(failure.description.contains("IMGPROXY_TTL"), "\(failure.description)")
        }
    }
}
#endif
