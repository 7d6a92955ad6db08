import ArgumentParser
import Foundation
import Imago

/// `imago cache stats|sweep|clear`: look into and tidy the disk cache.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect and tidy the disk cache.",
        subcommands: [Stats.self, Sweep.self, Clear.self],
        defaultSubcommand: Stats.self
    )

    /// The `--cache-dir` option shared by the subcommands.
    struct Location: ParsableArguments {
        @OptionGroup var cacheDirectory: CacheDirectoryOption

        @Flag(help: "Print one JSON object instead of text.")
        var json = false

        func open() throws -> DiskCache { try cacheDirectory.open() }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Entries, bytes and the size limit of the disk cache.")

        @OptionGroup var location: Location

        func run() throws {
            let cache = try location.open()
            let statistics = cache.statistics()
            let limit = cache.configuration.sizeLimit
            if location.json {
                print(
                    JSONValue.object([
                        "directory": .string(cache.directory.path), "entries": .int(statistics.entryCount),
                        "bytes": .int(statistics.totalBytes), "size_limit": .int(limit),
                    ]).encoded())
            } else {
                print("directory  \(cache.directory.path)")
                print("entries    \(statistics.entryCount)")
                print("size       \(ByteCount.format(statistics.totalBytes)) of \(ByteCount.format(limit))")
            }
        }
    }

    struct Sweep: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete expired and damaged entries and abandoned temporary files.")

        @OptionGroup var location: Location

        func run() throws {
            let cache = try location.open()
            let removed = cache.sweep()
            let statistics = cache.statistics()
            if location.json {
                print(JSONValue.object(["removed": .int(removed), "entries": .int(statistics.entryCount)]).encoded())
            } else {
                print("removed \(removed) entries; \(statistics.entryCount) remain (\(ByteCount.format(statistics.totalBytes)))")
            }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete every entry of the disk cache.")

        @OptionGroup var location: Location

        func run() throws {
            let cache = try location.open()
            let before = cache.statistics()
            cache.removeAll()
            if location.json {
                print(JSONValue.object(["removed": .int(before.entryCount), "bytes": .int(before.totalBytes)]).encoded())
            } else {
                print("removed \(before.entryCount) entries (\(ByteCount.format(before.totalBytes)))")
            }
        }
    }
}
