// `Process` (Foundation) exists on macOS, Linux and Windows only: on iOS, tvOS, watchOS and
// visionOS an app cannot start a child process, so the runner is simply absent there and the rest
// of ImagoTestSupport still builds.
#if os(macOS) || os(Linux) || os(Windows)
import Foundation
import Imago
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program as a child process with a time limit and captures what it printed and how it
/// ended: for tests of a command line (the built `imago` executable, say).
///
/// Standard input is `/dev/null`; standard output and standard error are read on threads of their
/// own while the child runs, so a chatty child never blocks on a full pipe. A child still running
/// at the time limit is killed (`SIGKILL`) and its result says ``CommandResult/timedOut``.
public enum CommandRunner {
    /// Runs `executable` with `arguments` and waits for it to exit.
    ///
    /// - Parameters:
    ///   - executable: the program's path.
    ///   - arguments: its arguments, without the program's name.
    ///   - environment: the child's whole environment; `nil` inherits this process's.
    ///   - currentDirectory: the child's working directory; `nil` inherits this process's.
    ///   - timeLimit: how long the child may run before it is killed. Generous by design: it stops
    ///     a hung child, it does not measure speed.
    /// - Throws: when the child cannot be started.
    public static func run(
        _ executable: URL, arguments: [String] = [], environment: [String: String]? = nil,
        currentDirectory: URL? = nil, timeLimit: Duration = .seconds(120)
    ) async throws -> CommandResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        // `run()` closes this process's copies of the pipes' write ends, so the readers below see
        // end of file once the child (and anything it started) has closed its own.
        try process.run()

        let child = Child(process)
        let watchdog = Task {
            try await Task.sleep(for: timeLimit)
            child.killIfRunning()
        }
        defer { watchdog.cancel() }

        let outputReader = OffThreadRead(output.fileHandleForReading)
        let errorReader = OffThreadRead(error.fileHandleForReading)
        let standardOutput = await outputReader.value()
        let standardError = await errorReader.value()
        let (status, bySignal) = await child.waitForExit()
        return CommandResult(
            status: status, terminatedBySignal: bySignal, timedOut: child.wasKilled,
            standardOutput: standardOutput, standardError: standardError)
    }
}

/// How a child process ended and what it printed.
public struct CommandResult: Sendable {
    /// The exit status, or the signal number when ``terminatedBySignal``.
    public let status: Int32
    /// Whether a signal ended the child (as it does when it ran out of time).
    public let terminatedBySignal: Bool
    /// Whether ``CommandRunner`` killed the child at its time limit.
    public let timedOut: Bool
    /// Everything the child wrote to standard output.
    public let standardOutput: Data
    /// Everything the child wrote to standard error.
    public let standardError: Data

    /// Standard output as UTF-8 text.
    public var output: String { String(decoding: standardOutput, as: UTF8.self) }

    /// Standard error as UTF-8 text.
    public var errorOutput: String { String(decoding: standardError, as: UTF8.self) }

    /// The non-empty lines of standard output.
    public var outputLines: [String] {
        output.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// Whether the child exited on its own with `status` (not killed, not timed out).
    public func exited(with status: Int32) -> Bool {
        !timedOut && !terminatedBySignal && self.status == status
    }
}

/// The child process, shared between the runner and its watchdog. `Process` is used only through
/// these methods, which are safe from any thread.
private final class Child: @unchecked Sendable {
    private let process: Process
    private let killed = Atomic<Bool>(false)

    init(_ process: Process) { self.process = process }

    /// Whether ``killIfRunning()`` killed the child.
    var wasKilled: Bool { killed.load(ordering: .sequentiallyConsistent) }

    /// Sends `SIGKILL` to the child if it is still running.
    func killIfRunning() {
        guard process.isRunning else { return }
        if kill(process.processIdentifier, SIGKILL) == 0 { killed.store(true, ordering: .sequentiallyConsistent) }
    }

    /// Waits for the child to exit on a thread of its own (never blocking the cooperative pool).
    /// Returns the exit status (or signal number) and whether a signal ended the child.
    func waitForExit() async -> (Int32, Bool) {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                self.process.waitUntilExit()
                continuation.resume(
                    returning: (self.process.terminationStatus, self.process.terminationReason == .uncaughtSignal))
            }
            thread.start()
        }
    }
}

/// Reads a file handle to its end on a thread of its own, started at once.
private final class OffThreadRead: Sendable {
    private let state = Locked<(data: Data?, waiter: CheckedContinuation<Data, Never>?)>((nil, nil))

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            let data = Self.readToEnd(handle.fileDescriptor)
            let waiter = state.withLock { state in
                state.data = data
                return state.waiter.take()
            }
            waiter?.resume(returning: data)
        }
        thread.start()
    }

    /// Every byte until end of file or an error other than an interrupted call: Foundation's
    /// `readDataToEndOfFile` traps on `EINTR`, which a child's signal can cause.
    private static func readToEnd(_ descriptor: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return data
            }
        }
    }

    /// Everything read, once the writer has closed its end.
    func value() async -> Data {
        await withCheckedContinuation { continuation in
            let data = state.withLock { state -> Data? in
                if let data = state.data { return data }
                state.waiter = continuation
                return nil
            }
            if let data { continuation.resume(returning: data) }
        }
    }
}
#endif
