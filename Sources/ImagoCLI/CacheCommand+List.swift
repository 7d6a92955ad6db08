import ArgumentParser
import Foundation
import Imago

extension CacheCommand {
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
}
