import ArgumentParser
import Foundation

/// `imago`: load images through the Imago pipeline from the command line.
@main
struct ImagoCommand: AsyncParsableCommand {
    /// The version `--version` prints; the package's release (CHANGELOG.md).
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "imago",
        abstract: "Load, cache and inspect images with the Imago pipeline.",
        discussion: """
            Examples:
              imago demo                                  (no network needed)
              imago fetch https://example.com/a.jpg
              imago prefetch --from urls.txt
              imago cache stats
              imago inspect photo.heic

            Every subcommand takes --help (with examples) and --json. Output is plain text \
            without control characters when it is not a terminal or NO_COLOR is set.

            Shell completion: imago --generate-completion-script bash|zsh|fish \
            (for example: imago --generate-completion-script zsh > ~/.zfunc/_imago).

            Exit status: 0 on success, 1 when some image or entry failed, 2 for a usage error \
            (a bad option, a missing file, a question that needs a terminal).
            """,
        version: version,
        subcommands: subcommands
    )

    /// `serve` and `sign` belong to the image proxy, which is built for Linux only (Package.swift).
    private static var subcommands: [any ParsableCommand.Type] {
        var commands: [any ParsableCommand.Type] = [
            FetchCommand.self, PrefetchCommand.self, CacheCommand.self, InspectCommand.self, DemoCommand.self,
        ]
        #if os(Linux)
        commands += [ServeCommand.self, SignCommand.self]
        #endif
        return commands
    }

    /// Exit status for a usage error (ArgumentParser's own default is 64).
    static let usageErrorStatus: Int32 = 2

    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as CLIError {
            Terminal.writeError("imago: error: \(error.message)")
            Foundation.exit(error.status)
        } catch {
            if exitCode(for: error) == .validationFailure {
                Terminal.writeError(fullMessage(for: error))
                Foundation.exit(usageErrorStatus)
            }
            exit(withError: error)
        }
    }
}
