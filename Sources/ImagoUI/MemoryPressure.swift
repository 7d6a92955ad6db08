/// How hard the system asks an app to give memory back.
public enum MemoryPressure: Sendable, Hashable {
    /// Memory is getting scarce: macOS's `DispatchSource.MemoryPressureEvent.warning`.
    case warning
    /// Memory is short: macOS's `.critical`, and iOS's, tvOS's and visionOS's
    /// `UIApplication.didReceiveMemoryWarningNotification` (the only level UIKit reports, sent
    /// just before the system starts ending apps).
    case critical
}

/// How much of a memory cache survives each level of memory pressure: the decision behind
/// ``MemoryPressureTrimmer``, kept as a value so it is tested without a system that runs short.
public struct MemoryTrimPolicy: Sendable, Hashable {
    /// The fraction of the cache's current cost kept on a ``MemoryPressure/warning``.
    /// Default: 0.5, half, least recently used images first.
    public var keptOnWarning: Double
    /// The fraction kept on ``MemoryPressure/critical``. Default: 0, everything goes, as Nuke and
    /// Kingfisher do on a memory warning: decoded images are the easiest memory to give back,
    /// and whatever is on screen stays in its view.
    public var keptOnCritical: Double

    /// A policy that keeps these fractions (clamped to 0...1).
    public init(keptOnWarning: Double = 0.5, keptOnCritical: Double = 0) {
        self.keptOnWarning = keptOnWarning
        self.keptOnCritical = keptOnCritical
    }

    /// The defaults.
    public static let `default` = MemoryTrimPolicy()

    /// The cost a cache holding `currentCost` should be trimmed to under `pressure`, or `nil` when
    /// it already holds no more than that.
    public func targetCost(for pressure: MemoryPressure, currentCost: Int) -> Int? {
        let kept = pressure == .warning ? keptOnWarning : keptOnCritical
        let fraction = kept.isNaN ? 0 : min(max(kept, 0), 1)
        let target = Int((Double(max(currentCost, 0)) * fraction).rounded(.down))
        return target < currentCost ? target : nil
    }
}
