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
#endif
