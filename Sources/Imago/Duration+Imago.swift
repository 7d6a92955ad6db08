import Foundation

/// Durations as Foundation and people want them.
extension Duration {
    /// The span as a `TimeInterval`, for Foundation.
    var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// "2.5 s", for error messages.
    var formattedSeconds: String {
        "\(timeInterval.formatted(.number.precision(.fractionLength(0...3)))) s"
    }

    /// "12.3 ms", for descriptions and logs.
    var formattedMilliseconds: String {
        let milliseconds = Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
        return "\(ByteCountDescription.oneDecimal(milliseconds)) ms"
    }
}
