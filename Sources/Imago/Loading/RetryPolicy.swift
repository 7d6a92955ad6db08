/// When and how soon a failed download is tried again.
///
/// Only failures a second try can cure are retried: connection errors, timeouts, HTTP 408, 429
/// and 5xx. Never other 4xx statuses, never undecodable bytes. Waits grow exponentially with
/// full jitter (a random wait between zero and the exponential step, as AWS recommends, so many
/// clients do not retry in lockstep), capped by ``maximumDelay``; a server's `Retry-After` wins
/// when it asks for longer, up to ``maximumRetryAfter``.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included; 1 means no retry. Default: 3.
    public var maximumAttempts: Int
    /// The first step of the back-off. Default: 0.5 s.
    public var baseDelay: Duration
    /// No computed wait is longer than this. Default: 10 s.
    public var maximumDelay: Duration
    /// The longest `Retry-After` honoured; a server asking for more fails the load instead.
    /// Default: 60 s.
    public var maximumRetryAfter: Duration

    /// A policy with every default but what is given.
    public init(
        maximumAttempts: Int = 3, baseDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(10),
        maximumRetryAfter: Duration = .seconds(60)
    ) {
        precondition(maximumAttempts >= 1, "maximumAttempts counts the first attempt: at least 1")
        self.maximumAttempts = maximumAttempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// Three attempts, 0.5 s base, 10 s cap.
    public static let `default` = RetryPolicy()
    /// One attempt: failures are final.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// How long to wait before attempt `attempt + 1` after `error` ended attempt `attempt`
    /// (counting from 1), or `nil` when the load should fail now.
    public func delay(
        after error: ImagePipeline.Error, attempt: Int, using generator: inout some RandomNumberGenerator
    ) -> Duration? {
        guard attempt < maximumAttempts, error.isTransient else { return nil }
        let exponent = min(attempt - 1, 30)
        let step = min(maximumDelay, baseDelay * (1 << exponent))
        let jittered = step * Double.random(in: 0...1, using: &generator)
        guard let retryAfter = error.retryAfter else { return jittered }
        guard retryAfter <= maximumRetryAfter else { return nil }
        return max(retryAfter, jittered)
    }
}
