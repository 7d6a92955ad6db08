import Foundation

/// Enforces the whole-download deadline and the stall limit around one transport download, and
/// turns cancellation into ``ImagePipeline/Error/cancelled(_:)``, the same way for every loader.
///
/// The transport calls ``noteActivity()`` whenever bytes arrive; silence counts from the start of
/// the request, so a server that never answers also stalls. When a limit runs out the download
/// task is cancelled and the caller gets ``ImagePipeline/Error/timedOut(_:_:after:)``.
package final class DownloadWatchdog: Sendable {
    private let url: URL
    /// Time allowed to connect (enforced by the transport; kept here for its error).
    let connectTimeout: Duration
    let downloadTimeout: Duration
    private let stallTimeout: Duration
    private let start: ContinuousClock.Instant
    private let lastActivity: Locked<ContinuousClock.Instant>

    package init(url: URL, configuration: DataLoader.Configuration) {
        self.url = url
        self.connectTimeout = configuration.connectTimeout
        self.downloadTimeout = configuration.downloadTimeout
        self.stallTimeout = configuration.stallTimeout
        self.start = .now
        self.lastActivity = Locked(start)
    }

    /// How late the watchdog may wake before the delay counts as starvation rather than timer slack.
    static let starvationTolerance: Duration = .seconds(1)

    /// The last activity to measure silence from, after the watchdog meant to wake at `wake` and
    /// woke at `woke`.
    ///
    /// Waking much later than asked means the process had no thread for this task (a cooperative
    /// pool kept busy by other work), so the download's own task could not run either, and bytes
    /// that arrived meanwhile may still be unread. That delay is the process's, not the server's
    /// silence, so the stall limit starts again from the late wake-up: the download gets its turn
    /// to read what is waiting, and a server that really is silent is declared stalled one limit
    /// later. The whole-download deadline is never extended.
    static func creditingStarvation(
        lastActivity: ContinuousClock.Instant, wake: ContinuousClock.Instant, woke: ContinuousClock.Instant
    ) -> ContinuousClock.Instant {
        woke - wake > starvationTolerance ? max(lastActivity, woke) : lastActivity
    }

    /// When the whole download must be over.
    var deadline: ContinuousClock.Instant { start + downloadTimeout }

    /// Records that bytes arrived, restarting the stall limit.
    package func noteActivity() {
        lastActivity.withLock { $0 = .now }
    }

    /// The limit that has run out at `now`, if any (the whole-download limit wins a tie).
    func expiredLimit(at now: ContinuousClock.Instant = .now) -> ImagePipeline.Error? {
        if now >= deadline { return .timedOut(url, .download, after: downloadTimeout) }
        if now >= lastActivity.withLock({ $0 }) + stallTimeout { return .timedOut(url, .stall, after: stallTimeout) }
        return nil
    }

    /// The error for a timeout the transport reported itself (URLSession has its own timers):
    /// the limit that has run out, or else the stall limit, which is the one a transport's idle
    /// timer measures, just from a slightly earlier last byte.
    func transportTimedOut() -> ImagePipeline.Error {
        expiredLimit() ?? .timedOut(url, .stall, after: stallTimeout)
    }

    /// Runs `download` until it finishes, a limit runs out or the calling task is cancelled.
    /// Errors other than ``ImagePipeline/Error`` are reported as a failed connection.
    package func run(
        _ download: @escaping @Sendable () async throws -> DataLoader.Response
    ) async throws(ImagePipeline.Error) -> DataLoader.Response {
        guard !Task.isCancelled else { throw .cancelled(url) }
        do {
            return try await withThrowingTaskGroup(of: DataLoader.Response?.self) { group in
                group.addTask { try await download() }
                group.addTask {
                    try await self.watch()
                    return nil
                }
                defer { group.cancelAll() }
                while let result = try await group.next() {
                    if let response = result { return response }
                }
                throw CancellationError()
            }
        } catch {
            if Task.isCancelled { throw .cancelled(url) }
            if let error = error as? ImagePipeline.Error { throw error }
            if error is CancellationError { throw .cancelled(url) }
            throw .connectionFailed(url, reason: String(describing: error))
        }
    }

    /// When the next limit could run out, as things stand: a watcher sleeps until then.
    var nextWake: ContinuousClock.Instant { min(deadline, lastActivity.withLock { $0 } + stallTimeout) }

    /// Tells the watchdog that a watcher meant to wake at `wake` and woke at `woke`, so that a
    /// late wake-up counts as starvation (see ``creditingStarvation(lastActivity:wake:woke:)``).
    func credit(wake: ContinuousClock.Instant, woke: ContinuousClock.Instant) {
        lastActivity.withLock { $0 = Self.creditingStarvation(lastActivity: $0, wake: wake, woke: woke) }
    }

    /// Sleeps until the next limit could run out, then throws the limit that did.
    private func watch() async throws {
        while true {
            if let expired = expiredLimit() { throw expired }
            let wake = nextWake
            try await Task.sleep(until: wake, clock: .continuous)
            credit(wake: wake, woke: .now)
        }
    }
}
