import Foundation
import Logging

/// One download attempt's view of its work: what the loader tells the attempt (progress, the body
/// so far, what arrived before it stopped) passed on to the work's waiters, and to the store of
/// resumable bytes.
final class AttemptObserver: Sendable {
    typealias Context = InFlightTable<ImagePipeline.WorkKey, ImagePipeline.LoadedData>.Context

    let resumption: ResumptionStateMachine
    let attempt: Int
    let context: Context
    /// Where to keep what arrived of an interrupted download, and the request's own headers that
    /// key it with the URL; `nil` when it cannot be resumed.
    let keeping: (store: ResumableDataStore, headers: [String: String])?
    let logger: Logger
    let redactsURLs: Bool

    init(
        resumption: ResumptionStateMachine, attempt: Int, context: Context,
        keeping: (store: ResumableDataStore, headers: [String: String])?, logger: Logger, redactsURLs: Bool
    ) {
        self.resumption = resumption
        self.attempt = attempt
        self.context = context
        self.keeping = keeping
        self.logger = logger
        self.redactsURLs = redactsURLs
    }

    /// The loader's observer for this attempt: progress (counted from the first byte of the image
    /// when it resumes), the body so far (for previews) and, when it keeps what arrived, the
    /// interruption.
    var downloadObserver: DownloadObserver {
        // Each closure captures the one object, which serves as its context: no allocation apiece.
        var observer = DownloadObserver(progress: { self.progress($0) }, receivedBody: { self.receivedBody($0) })
        if keeping != nil { observer.interrupted = { self.interrupted($0) } }
        return observer
    }

    /// Whether the attempt continues bytes kept from an earlier one.
    var resumes: Bool { resumption.partial != nil }

    /// The loader's count; a resumed download reports from ``receivedBody(_:)`` instead, where the
    /// bytes kept from before are added.
    func progress(_ progress: ImageTask.Progress) {
        if !resumes { context.report(progress) }
    }

    /// The body so far goes to the image works that decode previews from it (none asked: nothing
    /// sent).
    func receivedBody(_ received: DataLoader.Response) {
        if resumes { context.report(resumption.progress(of: received)) }
        guard context.wantsUpdates else { return }
        context.send(.body(ReceivedBody(kept: resumption.keptData(for: received), received: received.data, attempt: attempt)))
    }

    /// What arrived before the attempt stopped is kept for the next attempt or request to resume.
    func interrupted(_ received: DataLoader.Response) {
        guard let keeping, let kept = resumption.resumableData(from: received) else { return }
        keeping.store.store(kept, for: ResumableDataStore.Key(url: resumption.url, headers: keeping.headers))
        // The URL is written out only here: redacting it parses it, too dear for every download.
        logger.debug(
            "Kept \(kept.data.count) of \(kept.totalLength) bytes of \(resumption.url.description(redacting: redactsURLs)) to resume")
    }
}
