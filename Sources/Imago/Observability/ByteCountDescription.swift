/// Sizes and durations as people read them in one-line descriptions and log lines.
enum ByteCountDescription {
    /// "512 B", "48.2 KB", "1.2 MB", "3.4 GB" (powers of 1,000, as file managers show sizes).
    static func format(_ bytes: some BinaryInteger) -> String {
        let value = Double(bytes)
        let units = ["B", "KB", "MB", "GB", "TB"]
        var scaled = value
        var unit = 0
        while abs(scaled) >= 1000, unit < units.count - 1 {
            scaled /= 1000
            unit += 1
        }
        return unit == 0 ? "\(Int64(bytes)) B" : "\(oneDecimal(scaled)) \(units[unit])"
    }

    /// `value` rounded to one decimal, without Foundation's locale-dependent formatting.
    static func oneDecimal(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        guard tenths.isFinite, abs(tenths) < 1e15 else { return "\(value)" }
        let whole = Int64(tenths)
        let sign = whole < 0 ? "-" : ""
        return "\(sign)\(abs(whole) / 10).\(abs(whole) % 10)"
    }
}
