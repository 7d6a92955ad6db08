import ArgumentParser
import Foundation

/// `imago`: load images through the Imago pipeline from the command line.
@main
struct ImagoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imago",
        abstract: "Load, cache and inspect images with the Imago pipeline.",
        subcommands: [FetchCommand.self, PrefetchCommand.self, CacheCommand.self, DemoCommand.self, ServeCommand.self, SignCommand.self]
    )

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
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(usageErrorStatus)
            }
            exit(withError: error)
        }
    }
}
