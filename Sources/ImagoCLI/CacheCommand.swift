import ArgumentParser
import Foundation
import Imago

/// `imago cache stats|list|verify|sweep|clear`: look into and tidy the disk cache.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect and tidy the disk cache.",
        discussion: """
            Examples:
              imago cache                       (same as: imago cache stats)
              imago cache list --cache-dir /tmp/imago
              imago cache verify --json
              imago cache sweep --size-limit 50MB
              imago cache clear --yes

            Exit status: 0 on success, 1 when verify found damaged entries (it removes them) or \
            clear was declined, 2 for a usage error (including clear without --yes when standard \
            input is not a terminal).
            """,
        subcommands: [Stats.self, List.self, Verify.self, Sweep.self, Clear.self],
        defaultSubcommand: Stats.self
    )

    /// The `--cache-dir` option and `--json` flag shared by the subcommands.
    struct Location: ParsableArguments {
        @OptionGroup var cacheDirectory: CacheDirectoryOption

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func open() throws -> DiskCache { try cacheDirectory.open() }
    }
}
