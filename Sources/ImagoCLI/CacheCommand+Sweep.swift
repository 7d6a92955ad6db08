import ArgumentParser
import Foundation
import Imago

extension CacheCommand {
    struct Sweep: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete expired and damaged entries and abandoned temporary files, then trim to the size limit.",
            discussion: """
                Least recently used entries go first when the cache is over --size-limit.

                Examples:
                  imago cache sweep
                  imago cache sweep --size-limit 20MB --json
                """)

        @OptionGroup var location: Location

        @Option(help: "Trim to this size: bytes, or with KB, MB or GB (default: 150 MiB, the cache's own limit).")
        var sizeLimit: ByteSize?

        func run() throws {
            let cache = try location.open()
            let removed = cache.sweep()
            let evicted = cache.trim(toSize: sizeLimit?.bytes ?? cache.configuration.sizeLimit)
            let statistics = cache.statistics()
            if location.json {
                print(
                    JSONValue.object([
                        "removed": .int(removed), "evicted": .int(evicted), "entries": .int(statistics.entryCount),
                        "bytes": .int(statistics.totalBytes),
                    ]).encoded())
            } else {
                print(
                    "removed \(removed) expired or damaged, evicted \(evicted) over the limit; "
                        + "\(statistics.entryCount) entries remain (\(ByteCount.format(statistics.totalBytes)))")
            }
        }
    }
}
