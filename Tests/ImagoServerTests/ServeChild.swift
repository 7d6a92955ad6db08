#if os(Linux)
import Foundation
import ImagoTestSupport

/// `imago serve` (the built executable) as a child process (``ServeProcess``) with the default
/// limits of ``ImagoServer/Configuration``: for tests that measure the server's own memory,
/// descriptors and threads, which the suites running beside them in the test process would blur,
/// and that should not load the test process itself with them.
extension ServeProcess {
    /// `/metrics` of the child, fetched on a connection of its own.
    func metrics() async -> String {
        guard let client = try? RawClient.connect(port: port) else { return "" }
        defer { client.close() }
        try? client.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        return await client.readResponse(within: .seconds(10), keepingBody: true)?.head ?? ""
    }
}

/// Runs `body` with an `imago serve` child, unsigned, with private networks allowed (the origin
/// is on loopback), at normal priority, with `environment` added to the test process's; stops it
/// and removes its folder afterwards whatever happens.
func withServeChild<Result>(
    environment: [String: String] = [:], _ body: (ServeProcess) async throws -> Result
) async throws -> Result {
    guard let executable = BuiltExecutable.url(named: "imago") else {
        throw ServeProcess.Failure(description: "no built imago beside the test bundle")
    }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imago-hostile-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    // Under AddressSanitizer (CI's asan stage builds `imago` with it), freed memory waits in a
    // quarantine of up to 256 MiB before reuse, which a test of the server's resident memory
    // would count as the server's: keep the child's small. Other builds ignore it.
    var extra = [
        "ASAN_OPTIONS": [ProcessInfo.processInfo.environment["ASAN_OPTIONS"], "quarantine_size_mb=4"]
            .compactMap { $0 }.joined(separator: ":")
    ]
    extra.merge(environment) { _, new in new }
    let child = try await ServeProcess.start(executable, in: folder, environment: extra, lowestPriority: false)
    do {
        let result = try await body(child)
        await child.stop()
        return result
    } catch {
        await child.stop()
        throw error
    }
}
#endif
