import ArgumentParser
import Foundation
import Imago

extension CacheCommand {
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
}
