extension ImageRequest {
    /// How urgent a request is. Waiting downloads start in priority order, then in arrival order.
    public enum Priority: Int, Sendable, Hashable, Comparable, CaseIterable, Codable {
        case veryLow = 0
        case low
        case normal
        case high
        case veryHigh

        public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }
    }
}

extension ImageRequest.Priority {
    /// The task priority that work of this priority runs at.
    var taskPriority: TaskPriority {
        switch self {
        case .veryLow, .low: .low
        case .normal: .medium
        case .high, .veryHigh: .high
        }
    }
}
