extension ImageResponse {
    /// How long each stage of one load took; stages that did not run are `nil`.
    public struct Timing: Sendable, Hashable, CustomStringConvertible {
        /// Time waiting for a download slot.
        public var queued: Duration?
        /// Time reading the disk cache (hit or miss).
        public var diskRead: Duration?
        /// Time downloading, all attempts together.
        public var download: Duration?
        /// Time decoding.
        public var decode: Duration?
        /// Time in processors (thumbnail included).
        public var process: Duration?
        /// From the call to the answer.
        public var total: Duration = .zero
        /// Download attempts made (0 when no download ran).
        public var attempts: Int = 0

        /// No stage timed yet: every stage `nil`, a zero total, no attempts.
        public init() {}

        /// `total 12.3 ms: queued 0.1 ms, download 8.0 ms, decode 4.0 ms; 1 attempt`: the stages that ran.
        public var description: String {
            let stages = [("queued", queued), ("disk", diskRead), ("download", download), ("decode", decode), ("process", process)]
                .compactMap { name, value in value.map { "\(name) \($0.formattedMilliseconds)" } }
            var text = "total \(total.formattedMilliseconds)"
            if !stages.isEmpty { text += ": " + stages.joined(separator: ", ") }
            if attempts > 0 { text += "; \(attempts) attempt\(attempts == 1 ? "" : "s")" }
            return text
        }
    }
}
