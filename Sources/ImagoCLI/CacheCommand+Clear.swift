import ArgumentParser
import Foundation
import Imago

extension CacheCommand {
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
