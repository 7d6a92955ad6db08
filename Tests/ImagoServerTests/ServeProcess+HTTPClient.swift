#if os(Linux)
import AsyncHTTPClient
import Foundation
import ImagoTestSupport
import Testing

/// Runs `body` with the built `imago serve` (``ServeProcess``, with `arguments` and
/// `environment`) and an HTTP client, in `folder` (the caller's, which it removes) or else a fresh
/// temporary folder (removed here); afterwards, whatever happens, shuts the client down and stops
/// the server.
func withServeProcess<Result>(
    arguments: [String], environment: [String: String] = [:], in folder: URL? = nil,
    _ body: (ServeProcess, HTTPClient) async throws -> Result
) async throws -> Result {
    let executable = try #require(BuiltExecutable.url(named: "imago"), "no built imago beside the test bundle")
    let fresh = FileManager.default.temporaryDirectory.appendingPathComponent("imago-serve-\(UUID().uuidString)")
    defer { if folder == nil { try? FileManager.default.removeItem(at: fresh) } }
    let serve = try await ServeProcess.start(executable, in: folder ?? fresh, arguments: arguments, environment: environment)
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    do {
        let result = try await body(serve, client)
        try await client.shutdown()
        await serve.stop()
        return result
    } catch {
        try? await client.shutdown()
        await serve.stop()
        throw error
    }
}

extension ServeProcess {
    /// The port of the separate metrics listener that `imago serve` printed (`metrics on
    /// http://127.0.0.1:PORT`), waited for up to 30 s.
    func metricsPort(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int {
        let output = folder.appendingPathComponent("stdout.txt")
        var port: Int?
        _ = await eventually(within: .seconds(30)) {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            guard let range = text.range(of: "metrics on http://127.0.0.1:") else { return false }
            port = Int(text[range.upperBound...].prefix { $0.isNumber })
            return true
        }
        return try #require(port, "imago serve did not print its metrics port", sourceLocation: sourceLocation)
    }
}
#endif
