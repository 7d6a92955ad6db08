import Foundation

/// What `imago-bench` was asked to do, parsed from its arguments.
///
/// `--filter PATTERN` runs only the groups whose name contains PATTERN (case-insensitive); when no
/// group's name matches, every group runs and only the figures whose name contains it are kept.
/// `--only thumbnails` is the older spelling of `--filter thumbnails`. `--quick` is the smoke mode:
/// tiny inputs and one repetition, so that every figure is proven to run in about a minute; its
/// numbers mean nothing.
///
/// `--counts` measures only the allocation and system-call counts of the hot paths
/// (``HotPathCounts``); `--record-counts FILE` writes them to FILE as this build's recorded values,
/// `--check-counts FILE` exits with status 1 when one rose above its recorded value. A full run
/// (no filter) prints the counts under the figures.
struct BenchmarkOptions: Sendable {
    var filter: String?
    var json = false
    var quick = false
    var repetitions = 7
    var countsOnly = false
    var recordCounts: String?
    var checkCounts: String?

    /// A message saying what is wrong with the arguments, for a usage error.
    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    static let usage = """
        usage: imago-bench [--filter PATTERN] [--json] [--quick] [--repetitions N]
               imago-bench --counts [--record-counts FILE] [--check-counts FILE]
               imago-bench --page-faults
               imago-bench \(OverheadProbe.flag) PASSES [\(OverheadProbe.wayNames)…]
        groups: \(BenchmarkGroup.all.map(\.name).joined(separator: ", "))
        """

    init(arguments: [String]) throws(UsageError) {
        var index = 0
        func value(after option: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(description: "\(option) needs a value\n\(Self.usage)") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--json": json = true
            case "--quick": quick = true
            case "--filter", "--only": filter = try value(after: argument)
            case "--counts": countsOnly = true
            case "--record-counts": recordCounts = try value(after: argument)
            case "--check-counts": checkCounts = try value(after: argument)
            case "--repetitions":
                let text = try value(after: argument)
                guard let count = Int(text), count >= 1 else {
                    throw UsageError(description: "--repetitions needs a positive number, not \(text)")
                }
                repetitions = max(5, count)
            case "--help", "-h": throw UsageError(description: Self.usage)
            default: throw UsageError(description: "unknown argument \(argument)\n\(Self.usage)")
            }
            index += 1
        }
        if quick { repetitions = 1 }
        if recordCounts != nil || checkCounts != nil { countsOnly = true }
    }

    /// Whether the group called `name` runs.
    func runs(group name: String) -> Bool {
        guard let filter else { return true }
        if BenchmarkGroup.all.contains(where: { $0.name.localizedCaseInsensitiveContains(filter) }) {
            return name.localizedCaseInsensitiveContains(filter)
        }
        return true
    }

    /// Whether a figure of a group that ran is reported.
    func keeps(_ figure: Figure) -> Bool {
        guard let filter else { return true }
        if BenchmarkGroup.all.contains(where: { $0.name.localizedCaseInsensitiveContains(filter) }) { return true }
        return figure.name.localizedCaseInsensitiveContains(filter)
            || figure.benchmark.localizedCaseInsensitiveContains(filter)
    }
}
