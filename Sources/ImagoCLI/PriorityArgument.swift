import ArgumentParser
import Imago

/// `--priority` values, spelled as in the library.
enum PriorityArgument: String, ExpressibleByArgument, CaseIterable {
    case veryLow, low, normal, high, veryHigh

    var value: ImageRequest.Priority {
        switch self {
        case .veryLow: .veryLow
        case .low: .low
        case .normal: .normal
        case .high: .high
        case .veryHigh: .veryHigh
        }
    }
}
