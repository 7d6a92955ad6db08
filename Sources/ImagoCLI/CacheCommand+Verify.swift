import ArgumentParser
import Foundation
import Imago

extension CacheCommand {
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read every entry, check it, and remove the damaged ones.",
            discussion: """
                Each entry is read in full and checked as a load checks it: header, key, length and \
                payload checksum. Damaged entries are removed and listed; expired ones are kept (see \
                sweep). Verifying does not count as a use: entries keep their recency.

                Examples:
                  imago cache verify
                  imago cache verify --json

                Exit status: 0 when every entry is intact, 1 when damaged entries were found (and \
                removed), 2 for a usage error.
                """)

        @OptionGroup var location: Location

        func run() throws {
            let cache = try location.open()
            let result = cache.verifyEntries()
            if location.json {
                print(
                    JSONValue.object([
                        "directory": .string(cache.directory.path),
                        "checked": .int(result.checked), "intact": .int(result.intact), "skipped": .int(result.skipped),
                        "removed": .int(result.removed.count),
                        "removed_entries": .array(
                            result.removed.map { removal in
                                JSONValue.object([
                                    "file": .string(removal.fileName),
                                    "key": removal.key.map { JSONValue.string($0.description) } ?? JSONValue.null,
                                    "bytes": .int(removal.fileSize), "reason": .string(removal.reason),
                                ])
                            }),
                    ]).encoded())
            } else {
                for removal in result.removed {
                    print("removed \(removal.key?.description ?? removal.fileName): \(removal.reason)")
                }
                print(
                    "checked \(result.checked) entries: \(result.intact) intact, \(result.removed.count) damaged and removed"
                        + (result.skipped > 0 ? ", \(result.skipped) skipped" : ""))
            }
            if !result.removed.isEmpty { throw ExitCode(1) }
        }
    }
}
