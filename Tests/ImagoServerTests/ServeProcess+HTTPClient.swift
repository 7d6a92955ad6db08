#if os(Linux)
import AsyncHTTPClient
import Foundation
import ImagoTestSupport
import Testing

/// Runs `body` with the built `imago serve` (``ServeProcess``, with `arguments`) in a fresh
/// temporary folder and an HTTP client; afterwards, whatever happens, shuts the client down, stops
/// the server and removes its folder.
func withServeProcess<Result>(
    arguments: [String], _ body: (ServeProcess, HTTPClient) async throws -> Result
) async throws -> Result {
    let executable = try #require(BuiltExecutable.url(named: "imago"), "no built imago beside the test bundle")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imago-serve-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let serve = try await ServeProcess.start(executable, in: folder, arguments: arguments)
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
