import Foundation

struct Report {
    var machine: Machine
    var repetitions: Int
    var python: String
    var figures: [Figure]
    var seconds: Double
    /// A `--quick` smoke run: its numbers mean nothing, and the table says so.
    var quick = false
    /// The load average when the run ended, beside the one at its start.
    var loadAverageAtEnd = ""

    func table() -> String {
        var lines = [
            "imago-bench — \(machine.date)",
            "machine: \(machine.cores) cores, \(machine.cpu), Linux \(machine.kernel), load average at start \(machine.loadAverage), at end \(loadAverageAtEnd)",
            "temporary files: \(machine.temporaryFileSystem); \(python)",
            (quick ? "QUICK SMOKE RUN (--quick): tiny inputs, the numbers mean nothing; " : "")
                + "each figure: median of \(repetitions) interleaved repetitions; ratio = ours / baseline; run took \(String(format: "%.0f", seconds)) s",
            "",
            "| figure | unit | ours | baseline | baseline is | ratio | also measured |",
            "|---|---|---:|---:|---|---:|---|",
        ]
        for figure in figures {
            let extra = figure.extra.map { "\($0.0): \(format($0.1))" }.joined(separator: "; ")
            lines.append(
                "| \(figure.name) | \(figure.unit)\(figure.higherIsBetter ? " ↑" : " ↓") | \(format(figure.ours)) | \(format(figure.baseline)) | \(figure.baselineName) | \(figure.ratio.isFinite ? String(format: "%.2f", figure.ratio) : "—") | \(extra) |"
            )
        }
        lines.append("")
        lines.append("↑ higher is better, ↓ lower is better.")
        return lines.joined(separator: "\n")
    }

    func json() -> String {
        func quote(_ text: String) -> String {
            let data = try? JSONSerialization.data(withJSONObject: [text], options: [])
            return data.flatMap { String(data: $0, encoding: .utf8) }.map { String($0.dropFirst().dropLast()) } ?? "\"\""
        }
        func number(_ value: Double) -> String { value.isFinite ? String(format: "%.6g", value) : "null" }
        var rows: [String] = []
        for figure in figures {
            let extra = figure.extra.map { "{\"name\": \(quote($0.0)), \"value\": \(number($0.1))}" }.joined(separator: ", ")
            rows.append(
                "    {\"benchmark\": \(quote(figure.benchmark)), \"name\": \(quote(figure.name)), \"unit\": \(quote(figure.unit)), "
                    + "\"higherIsBetter\": \(figure.higherIsBetter), \"ours\": \(number(figure.ours)), "
                    + "\"baselineName\": \(quote(figure.baselineName)), \"baseline\": \(number(figure.baseline)), "
                    + "\"ratio\": \(number(figure.ratio)), \"repetitions\": \(figure.repetitions), \"extra\": [\(extra)]}")
        }
        return """
            {
              "date": \(quote(machine.date)),
              "machine": {"cores": \(machine.cores), "cpu": \(quote(machine.cpu)), "kernel": \(quote(machine.kernel)), "loadAverage": \(quote(machine.loadAverage)), "loadAverageAtEnd": \(quote(loadAverageAtEnd)), "temporaryFileSystem": \(quote(machine.temporaryFileSystem))},
              "quick": \(quick),
              "python": \(quote(python)),
              "repetitions": \(repetitions),
              "seconds": \(number(seconds)),
              "figures": [
            \(rows.joined(separator: ",\n"))
              ]
            }
            """
    }

    private func format(_ value: Double) -> String {
        guard value.isFinite else { return "—" }
        if value >= 1000 {
            let digits = String(format: "%.0f", value)
            var grouped = ""
            for (offset, digit) in digits.enumerated() {
                if offset > 0, (digits.count - offset) % 3 == 0 { grouped.append(",") }
                grouped.append(digit)
            }
            return grouped
        }
        if value >= 100 { return String(format: "%.0f", value) }
        if value >= 10 { return String(format: "%.1f", value) }
        return String(format: "%.2f", value)
    }
}
