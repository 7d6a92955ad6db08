/// A download started by a ``DownloadStarting`` loader, kept in the work's context while it runs,
/// so that when the caller whose task runs the work leaves, the work, started again for the
/// callers still waiting, takes it over instead of downloading again (``Downloader``).
///
/// A class: as the context's `any Sendable` it is one reference, not a boxed copy, and the closure
/// that cancels it captures that reference alone.
final class KeptDownload: Sendable {
    let download: any StartedDownload
    /// How its attempt resumes bytes kept from an earlier one (it sent the range already).
    let resumption: ResumptionStateMachine

    init(download: any StartedDownload, resumption: ResumptionStateMachine) {
        self.download = download
        self.resumption = resumption
    }

    func cancel() { download.cancel() }
}
