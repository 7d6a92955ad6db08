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

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Entries and bytes of the disk cache, in total and per host.",
            discussion: """
                Examples:
                  imago cache stats
                  imago cache stats --json --cache-dir ~/.cache/imago
                """)

        @OptionGroup var location: Location

        func run() throws {
            let cache = try location.open()
            let inventory = cache.inventory()
            let statistics = cache.statistics()
            let limit = cache.configuration.sizeLimit
            let now = Date()
            let expired = inventory.entries.filter { $0.isExpired(at: now) }.count
            let hosts = HostGroup.group(inventory.entries)
            if location.json {
                print(
                    JSONValue.object([
                        "directory": .string(cache.directory.path), "entries": .int(statistics.entryCount),
                        "bytes": .int(statistics.totalBytes), "size_limit": .int(limit), "expired": .int(expired),
                        "damaged": .int(inventory.damagedFileNames.count),
                        "hosts": .object(
                            Dictionary(
                                uniqueKeysWithValues: hosts.map {
                                    ($0.host, JSONValue.object(["entries": .int($0.entries.count), "bytes": .int($0.bytes)]))
                                })),
                    ]).encoded())
            } else {
                print("directory  \(cache.directory.path)")
                print("entries    \(statistics.entryCount)")
                print("size       \(ByteCount.format(statistics.totalBytes)) of \(ByteCount.format(limit))")
                if expired > 0 { print("expired    \(expired)") }
                if !inventory.damagedFileNames.isEmpty { print("damaged    \(inventory.damagedFileNames.count)") }
                if !hosts.isEmpty {
                    print("by host:")
                    let width = hosts.map(\.host.count).max() ?? 0
                    for group in hosts {
                        print(
                            "  \(group.host.padding(toLength: width, withPad: " ", startingAt: 0))  "
                                + "\(group.entries.count) \(group.entries.count == 1 ? "entry" : "entries")  \(ByteCount.format(group.bytes))")
                    }
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Every entry with its key, size, age and expiry, grouped by host.",
            discussion: """
                Reads only each entry's header. With --json, one JSON object per entry \
                ({"key", "host", "bytes", "payload_bytes", "age_seconds", "expires_in_seconds", \
                "expired", "file"}), and {"file", "damaged": true} for an entry whose header is damaged.

                Examples:
                  imago cache list
                  imago cache list --json | jq -r 'select(.expired) | .key'
                """)

        @OptionGroup var location: Location

        func run() throws {
            let cache = try location.open()
            let inventory = cache.inventory()
            let now = Date()
            let hosts = HostGroup.group(inventory.entries)
            if location.json {
                for group in hosts {
                    for entry in group.entries {
                        var object: [String: JSONValue] = [
                            "key": .string(entry.key.description), "host": .string(group.host),
                            "bytes": .int(entry.fileSize), "payload_bytes": .int(entry.payloadSize),
                            "age_seconds": .int(Int(now.timeIntervalSince(entry.createdAt).rounded())),
                            "expired": .bool(entry.isExpired(at: now)), "file": .string(entry.fileName),
                        ]
                        object["expires_in_seconds"] =
                            entry.expiresAt.map { JSONValue.int(Int($0.timeIntervalSince(now).rounded())) } ?? JSONValue.null
                        print(JSONValue.object(object).encoded())
                    }
                }
                for name in inventory.damagedFileNames {
                    print(JSONValue.object(["file": .string(name), "damaged": .bool(true)]).encoded())
                }
                return
            }
            if hosts.isEmpty && inventory.damagedFileNames.isEmpty {
                print("The disk cache at \(cache.directory.path) is empty.")
                return
            }
            for group in hosts {
                print("\(group.host)  (\(group.entries.count), \(ByteCount.format(group.bytes)))")
                for entry in group.entries {
                    let size = ByteCount.format(entry.fileSize).padding(toLength: 9, withPad: " ", startingAt: 0)
                    let age = "age " + ProgressBar.duration(now.timeIntervalSince(entry.createdAt))
                    let expiry: String
                    if let expiresAt = entry.expiresAt {
                        expiry = expiresAt <= now
                            ? "expired \(ProgressBar.duration(now.timeIntervalSince(expiresAt))) ago"
                            : "expires in \(ProgressBar.duration(expiresAt.timeIntervalSince(now)))"
                    } else {
                        expiry = "no expiry"
                    }
                    print("  \(size) \(age.padding(toLength: 10, withPad: " ", startingAt: 0)) \(expiry.padding(toLength: 18, withPad: " ", startingAt: 0)) \(entry.key)")
                }
            }
            if !inventory.damagedFileNames.isEmpty {
                print("damaged (run imago cache verify to remove them)")
                for name in inventory.damagedFileNames { print("  \(name)") }
            }
        }
    }

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

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete every entry of the disk cache.",
            discussion: """
                Asks before deleting unless --yes is given; without a terminal to ask on, it refuses \
                (exit status 2) rather than guess.

                Examples:
                  imago cache clear
                  imago cache clear --yes --json

                Exit status: 0 when cleared, 1 when the question was answered no, 2 for a usage \
                error (including no terminal to ask on and no --yes).
                """)

        @OptionGroup var location: Location

        @Flag(name: [.customShort("y"), .long], help: "Delete without asking.")
        var yes = false

        func run() throws {
            let cache = try location.open()
            let before = cache.statistics()
            if !yes {
                guard Terminal.hasInteractiveInput else {
                    throw CLIError.usage(
                        "Not clearing the disk cache at \(cache.directory.path): standard input is not a terminal, "
                            + "so there is no one to confirm. Pass --yes to clear it.")
                }
                Terminal.write(
                    "Delete \(before.entryCount) entries (\(ByteCount.format(before.totalBytes))) in \(cache.directory.path)? [y/N] ")
                let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
                guard answer == "y" || answer == "yes" else {
                    print("Nothing deleted.")
                    throw ExitCode(1)
                }
            }
            cache.removeAll()
            if location.json {
                print(JSONValue.object(["removed": .int(before.entryCount), "bytes": .int(before.totalBytes)]).encoded())
            } else {
                print("removed \(before.entryCount) entries (\(ByteCount.format(before.totalBytes)))")
            }
        }
    }
}

/// Entries of one host, for `cache stats` and `cache list`.
struct HostGroup {
    let host: String
    let entries: [DiskCache.EntrySummary]
    var bytes: Int { entries.reduce(0) { $0 + $1.fileSize } }

    /// Groups by host (keys without one under "(no host)"), hosts and keys in order.
    static func group(_ entries: [DiskCache.EntrySummary]) -> [HostGroup] {
        Dictionary(grouping: entries) { $0.host ?? "(no host)" }
            .map { HostGroup(host: $0.key, entries: $0.value.sorted { $0.key.rawValue < $1.key.rawValue }) }
            .sorted { $0.host < $1.host }
    }
}

/// `--size-limit 50MB`: a byte count, with an optional KB, MB or GB (powers of 1000) or KiB, MiB,
/// GiB suffix.
struct ByteSize: ExpressibleByArgument {
    let bytes: Int

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).uppercased()
        let units: [(String, Int)] = [
            ("KIB", 1 << 10), ("MIB", 1 << 20), ("GIB", 1 << 30), ("KB", 1000), ("MB", 1_000_000), ("GB", 1_000_000_000),
            ("K", 1000), ("M", 1_000_000), ("G", 1_000_000_000), ("B", 1),
        ]
        var number = Substring(text)
        var multiplier = 1
        if let (suffix, value) = units.first(where: { text.hasSuffix($0.0) }) {
            number = text.dropLast(suffix.count)
            multiplier = value
        }
        guard let value = Int(number.trimmingCharacters(in: .whitespaces)), value >= 0 else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { return nil }
        bytes = product
    }
}
