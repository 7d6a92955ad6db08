import ArgumentParser
import Foundation

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
