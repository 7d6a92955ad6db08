// `Process` exists on macOS and Linux only among the platforms this target builds for (as for
// `CommandRunner`).
#if os(macOS) || os(Linux)
import Foundation
import Imago

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `imago serve` child process on a loopback port of its choosing, with a disk cache of its
/// own in `folder`, where what it prints goes too (`stdout.txt`, `stderr.txt`): for tests that run
/// the proxy as operators do, or that measure the server's own memory, descriptors and threads,
/// which the suites beside them in the test process would blur.
///
/// ``start(_:in:arguments:environment:lowestPriority:)`` returns once the child has printed
/// `listening on http://127.0.0.1:PORT/`, that is once it accepts connections. Its waits poll,
/// never with `waitUntilExit()`, which would hold one of the cooperative pool's threads while other
/// suites need it.
public final class ServeProcess: Sendable {
    /// The child did not start: what it printed on standard error says why.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) { self.description = description }
    }

    /// The child (with ``start(_:in:arguments:environment:lowestPriority:)``'s `lowestPriority`,
    /// `nice`, which execs `imago`, so the identifier is imago's).
    public let process: Process
    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    /// Its folder: the disk cache (`cache`) and what it printed. The caller owns it.
    public let folder: URL
    private let killed = Locked(false)

    private init(process: Process, port: Int, folder: URL) {
        self.process = process
        self.port = port
        self.folder = folder
    }

    /// The child's process identifier.
    public var pid: Int32 { process.processIdentifier }

    /// Starts `executable serve --port 0 --cache-directory folder/cache` with `arguments`, and
    /// waits (at most a minute) for it to accept connections.
    ///
    /// - Parameters:
    ///   - executable: the built `imago` (``BuiltExecutable/url(named:)``).
    ///   - folder: created if missing; the caller removes it.
    ///   - arguments: after the port and cache folder. The default (unsigned URLs, private networks
    ///     allowed) lets a loopback origin be fetched.
    ///   - environment: added to this process's environment for the child.
    ///   - lowestPriority: whether the child runs at the lowest priority (`nice -n 19`), so that
    ///     servers resizing at full speed do not starve the tests running beside them. Leave it
    ///     off where the test measures the server itself.
    /// - Throws: ``Failure`` when the child does not start listening; it is killed then.
    public static func start(
        _ executable: URL, in folder: URL, arguments: [String] = ["--allow-unsigned", "--allow-private-networks"],
        environment: [String: String] = [:], lowestPriority: Bool = true
    ) async throws -> ServeProcess {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let output = folder.appendingPathComponent("stdout.txt")
        let errors = folder.appendingPathComponent("stderr.txt")
        for file in [output, errors] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        let process = Process()
        let serve = [executable.path, "serve", "--port", "0", "--cache-directory", folder.appendingPathComponent("cache").path]
        if lowestPriority {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/nice")
            process.arguments = ["-n", "19"] + serve + arguments
        } else {
            process.executableURL = executable
            process.arguments = Array(serve.dropFirst()) + arguments
        }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        var port: Int?
        let started = await eventually(within: .seconds(60)) {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            guard let range = text.range(of: "listening on http://127.0.0.1:") else { return !process.isRunning }
            port = Int(text[range.upperBound...].prefix { $0.isNumber })
            return true
        }
        guard started, process.isRunning, let port else {
            if process.isRunning { deliver(SIGKILL, to: process.processIdentifier) }
            let log = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw Failure(description: "imago serve did not start: \(log)")
        }
        return ServeProcess(process: process, port: port, folder: folder)
    }

    /// Whether ``kill()`` ended it.
    public var wasKilled: Bool { killed.withLock { $0 } }

    /// Sends `signal` if the process still runs, without waiting.
    public func send(_ signal: Int32) {
        guard process.isRunning else { return }
        deliver(signal, to: process.processIdentifier)
    }

    /// Ends the process at once (`SIGKILL`): no drain, no goodbye to its connections; waits (at
    /// most a minute) for its exit.
    public func kill() async {
        guard process.isRunning else { return }
        killed.withLock { $0 = true }
        send(SIGKILL)
        _ = await eventually(within: .seconds(60)) { !self.process.isRunning }
    }

    /// Whether the process has ended by `signal`.
    public func exitedBySignal(_ signal: Int32) -> Bool {
        !process.isRunning && process.terminationReason == .uncaughtSignal && process.terminationStatus == signal
    }

    /// Stops the process the polite way (`SIGTERM`, which drains); `SIGKILL` if it has not ended
    /// within a minute, then waits (at most 10 s more) for its exit.
    public func stop() async {
        send(SIGTERM)
        if await !eventually(within: .seconds(60), { !self.process.isRunning }) {
            send(SIGKILL)
            _ = await eventually(within: .seconds(10)) { !self.process.isRunning }
        }
    }
}

/// `kill(2)`, under a name the class's own ``ServeProcess/kill()`` does not hide.
private func deliver(_ signal: Int32, to pid: Int32) {
    #if canImport(Glibc)
    _ = Glibc.kill(pid, signal)
    #else
    _ = Darwin.kill(pid, signal)
    #endif
}
#endif
