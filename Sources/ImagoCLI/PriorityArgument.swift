import ArgumentParser
import Imago

/// `--priority veryLow|low|normal|high|veryHigh`, spelled as in the library, each described in
/// `--help` and its default shown as users type it (`default: normal`).
enum PriorityArgument: String, CaseIterable, ExpressibleByArgument {
    case veryLow, low, normal, high, veryHigh

    /// The library's priority of the same name.
    var value: ImageRequest.Priority {
        switch self {
        case .veryLow: .veryLow
        case .low: .low
        case .normal: .normal
        case .high: .high
        case .veryHigh: .veryHigh
        }
    }

    /// What each value means, listed under `--priority` in `--help`.
    var defaultValueDescription: String {
        switch self {
        case .veryLow: "after everything else, for speculative prefetching"
        case .low: "behind visible work, for prefetching the next screen"
        case .normal: "the default for ordinary loads"
        case .high: "ahead of normal loads, for what is on screen"
        case .veryHigh: "first in the queue (and pinned in memory by some presets)"
        }
    }
}
