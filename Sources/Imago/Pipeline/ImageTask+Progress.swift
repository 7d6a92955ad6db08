extension ImageTask {
    /// How far a download has come.
    public struct Progress: Sendable, Hashable {
        /// Bytes received so far.
        public var completed: Int64
        /// Bytes expected, when the server declared a length.
        public var total: Int64?

        /// `completed` bytes of `total` (`nil` when the server did not say).
        public init(completed: Int64, total: Int64?) {
            self.completed = completed
            self.total = total
        }

        /// Completed fraction in 0...1, or `nil` when the total is unknown. Nothing to load (a total
        /// of 0, as for a memory hit) counts as done.
        public var fraction: Double? {
            guard let total else { return nil }
            guard total > 0 else { return 1 }
            return min(1, Double(completed) / Double(total))
        }
    }
}
