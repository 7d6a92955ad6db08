import Foundation

/// The recorded counts (`Benchmarks/counts.json`): for each build configuration, each count's
/// value per hit. `imago-bench --record-counts FILE` writes this build's section;
/// `--check-counts FILE` fails when a count rose above its recorded value by more than
/// ``HotPathCounts/tolerance``. A debug build (what `.ci/run bench` runs) and a release build
/// allocate differently, so each has its own section.
struct CountsRecord {
    /// Configuration name, count key, value per hit.
    var sections: [String: [String: Double]]

    /// This build's section: `debug` or `release`.
    static var configuration: String {
        #if DEBUG
            "debug"
        #else
            "release"
        #endif
    }

    init(sections: [String: [String: Double]] = [:]) {
        self.sections = sections
    }

    /// The record in `file`; an empty one when the file does not exist.
    init(contentsOf file: URL) throws {
        guard FileManager.default.fileExists(atPath: file.path) else {
            self.init()
            return
        }
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file))
        guard let sections = object as? [String: [String: Double]] else {
            throw CountsError("\(file.path) is not {\"debug\"|\"release\": {count: value}}")
        }
        self.init(sections: sections)
    }

    func write(to file: URL) throws {
        let data = try JSONSerialization.data(withJSONObject: sections, options: [.prettyPrinted, .sortedKeys])
        try (data + Data("\n".utf8)).write(to: file, options: .atomic)
    }

    /// Records `counts` as this build's section, rounded to hundredths.
    mutating func record(_ counts: [HotPathCounts.Count]) {
        sections[Self.configuration] = Dictionary(
            uniqueKeysWithValues: counts.filter(\.isChecked).map { ($0.key, ($0.perHit * 100).rounded() / 100) })
    }

    /// What rose: one line for each recorded count of this build that `counts` exceeds by more
    /// than the tolerance or does not have; empty when every count holds.
    func regressions(in counts: [HotPathCounts.Count]) -> [String] {
        guard let recorded = sections[Self.configuration], !recorded.isEmpty else {
            return ["no counts are recorded for \(Self.configuration) builds: record them with --record-counts"]
        }
        var lines: [String] = []
        for (key, limit) in recorded.sorted(by: { $0.key < $1.key }) {
            guard let count = counts.first(where: { $0.key == key }) else {
                lines.append("\(key): recorded as \(format(limit)), not measured")
                continue
            }
            if count.perHit > limit + HotPathCounts.tolerance {
                lines.append(
                    "\(key) (\(count.description)) rose from \(format(limit)) to \(format(count.perHit)) (\(Self.configuration) build)")
            }
        }
        return lines
    }

    /// A Markdown table of `counts` beside this build's recorded values.
    func table(_ counts: [HotPathCounts.Count]) -> String {
        let recorded = sections[Self.configuration] ?? [:]
        var lines = [
            "| count (\(Self.configuration) build) | per hit | recorded | system calls per hit |",
            "|---|---:|---:|---|",
        ]
        for count in counts {
            let breakdown = count.breakdown.map { "\($0.0) \(format($0.1))" }.joined(separator: ", ")
            lines.append(
                "| \(count.description) | \(format(count.perHit)) | \(recorded[count.key].map(format) ?? "–") | \(breakdown) |")
        }
        return lines.joined(separator: "\n")
    }

    private func format(_ value: Double) -> String { String(format: "%.2f", value) }
}
