#if os(Linux)
import Foundation
import Glibc
import ImagoTestSupport

/// `imago serve` (the built executable) as a child process on a free loopback port, with the
/// default limits of ``ImagoServer/Configuration``: for tests that measure the server's own
/// memory, descriptors and threads, which the suites running beside them in the test process
/// would blur, and that should not load the test process itself with them.
final class ServeChild: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let process: Process
    let port: Int
    let folder: URL

    private init(process: Process, port: Int, folder: URL) {
        self.process = process
        self.port = port
        self.folder = folder
    }

    var pid: Int32 { process.processIdentifier }

    /// Starts it unsigned, with private networks allowed (the origin is on loopback), with
    /// `environment` added to the test process's.
    static func start(environment extra: [String: String] = [:]) async throws -> ServeChild {
        guard let executable = BuiltExecutable.url(named: "imago") else { throw Failure(description: "no built imago beside the test bundle") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imago-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let output = folder.appendingPathComponent("stdout.txt")
        let errors = folder.appendingPathComponent("stderr.txt")
        for file in [output, errors] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        let process = Process()
        process.executableURL = executable
        process.arguments = [
            "serve", "--port", "0", "--allow-unsigned", "--allow-private-networks",
            "--cache-directory", folder.appendingPathComponent("cache").path,
        ]
        // Under AddressSanitizer (CI's asan stage builds `imago` with it), freed memory waits in
        // a quarantine of up to 256 MiB before reuse, which a test of the server's resident
        // memory would count as the server's: keep the child's small. Other builds ignore it.
        var environment = ProcessInfo.processInfo.environment
        environment["ASAN_OPTIONS"] = [environment["ASAN_OPTIONS"], "quarantine_size_mb=4"].compactMap { $0 }.joined(separator: ":")
        environment.merge(extra) { _, new in new }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        // It prints "listening on http://127.0.0.1:PORT/" once it accepts connections.
        var port: Int?
        let started = await eventually(within: .seconds(60)) {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            guard let range = text.range(of: "listening on http://127.0.0.1:") else { return !process.isRunning }
            port = Int(text[range.upperBound...].prefix { $0.isNumber })
            return true
        }
        guard started, process.isRunning, let port else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            let log = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: folder)
            throw Failure(description: "imago serve did not start: \(log)")
        }
        return ServeChild(process: process, port: port, folder: folder)
    }

    /// `/metrics` of the child, fetched on a connection of its own.
    func metrics() async -> String {
        guard let client = try? RawClient.connect(port: port) else { return "" }
        defer { client.close() }
        try? client.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        return await client.readResponse(within: .seconds(10), keepingBody: true)?.head ?? ""
    }

    /// Stops it the polite way (`SIGTERM`), waiting by polling (never with `waitUntilExit()`,
    /// which holds one of the cooperative pool's threads), `SIGKILL` after 30 s; removes its folder.
    func stop() async {
        if process.isRunning { kill(pid, SIGTERM) }
        if await !eventually(within: .seconds(30), { !self.process.isRunning }) { kill(pid, SIGKILL) }
        _ = await eventually(within: .seconds(10)) { !self.process.isRunning }
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Runs `body` with an `imago serve` child (`environment` added to its own), stopping it
/// afterwards whatever happens.
func withServeChild<Result>(
    environment: [String: String] = [:], _ body: (ServeChild) async throws -> Result
) async throws -> Result {
    let child = try await ServeChild.start(environment: environment)
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
