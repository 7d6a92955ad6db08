import Foundation
import ImagoTestSupport
import Testing

/// The built `imago` executable, found beside the test bundle; `IMAGO_EXECUTABLE` overrides the search.
enum ImagoExecutable {
    static let url: URL? = {
        if let path = ProcessInfo.processInfo.environment["IMAGO_EXECUTABLE"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return BuiltExecutable.url(named: "imago")
    }()
}

/// A private home for one test's `imago` processes: `HOME`, `XDG_CACHE_HOME` and `TMPDIR` all
/// point into a fresh temporary directory, so no test reads or writes the user's cache.
struct CLISandbox {
    let root: URL

    /// A directory inside the sandbox (not created).
    func path(_ name: String) -> URL { root.appendingPathComponent(name, isDirectory: true) }

    /// Runs `imago` with `arguments`, killed if it runs longer than `timeLimit`.
    func imago(_ arguments: [String], timeLimit: Duration = .seconds(120)) async throws -> CommandResult {
        let executable = try #require(
            ImagoExecutable.url, "No built imago beside the test bundle (\(Bundle.main.bundleURL.path))")
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = path("home").path
        environment["XDG_CACHE_HOME"] = path("xdg-cache").path
        environment["TMPDIR"] = path("tmp").path
        let result = try await CommandRunner.run(
            executable, arguments: arguments, environment: environment, currentDirectory: root,
            timeLimit: timeLimit)
        #expect(!result.timedOut, "imago \(arguments.joined(separator: " ")) ran out of time")
        return result
    }

    /// The environment `imago` runs with: the sandbox's home, caches and temporary directory.
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = path("home").path
        environment["XDG_CACHE_HOME"] = path("xdg-cache").path
        environment["TMPDIR"] = path("tmp").path
        return environment
    }

    /// Runs `script` with `/bin/sh -c` in the sandbox, `$IMAGO` naming the built executable: for
    /// pipelines such as `printf … | "$IMAGO" prefetch --from -`.
    func shell(_ script: String, timeLimit: Duration = .seconds(120)) async throws -> CommandResult {
        let executable = try #require(ImagoExecutable.url, "No built imago beside the test bundle")
        var environment = environment
        environment["IMAGO"] = executable.path
        let result = try await CommandRunner.run(
            URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script], environment: environment,
            currentDirectory: root, timeLimit: timeLimit)
        #expect(!result.timedOut, "sh -c \(script) ran out of time")
        return result
    }

    /// The lines of `result`'s standard output, each parsed as one JSON object.
    func jsonLines(_ result: CommandResult) throws -> [[String: JSON]] {
        try result.outputLines.map { line in
            try #require(try JSON.parse(line).object, "not a JSON object: \(line)")
        }
    }

    /// The one JSON object `result` printed.
    func jsonObject(_ result: CommandResult) throws -> [String: JSON] {
        let lines = try jsonLines(result)
        try #require(lines.count == 1, "expected one line, got: \(result.output)")
        return lines[0]
    }
}

/// Runs `body` with a fresh ``CLISandbox`` and removes it afterwards.
func withCLISandbox<Result>(
    isolation: isolated (any Actor)? = #isolation, _ body: (CLISandbox) async throws -> Result
) async throws -> Result {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("imago-cli-\(UUID().uuidString)")
    let sandbox = CLISandbox(root: root)
    for name in ["home", "xdg-cache", "tmp"] {
        try FileManager.default.createDirectory(at: sandbox.path(name), withIntermediateDirectories: true)
    }
    defer { try? FileManager.default.removeItem(at: root) }
    return try await body(sandbox)
}
