import Foundation
import Metrics

/// Runs the attempts of one original's download: each under the scheduler (or taking over the
/// download a departed caller started), retried by policy, resuming the bytes an earlier attempt
/// kept, and refreshing the stale disk copy when the server answers 304.
///
/// It performs; the decisions are values, tested without a server or a clock: what a response's
/// caching headers and status mean and whether a failure is retried (``DownloadStateMachine``),
/// whether an attempt resumes and what a resumed answer means (``ResumptionStateMachine``), and
/// the two combined into what the attempt yields (``verdict(statusCode:headers:body:resumption:machine:)``).
struct Downloader {
    typealias Context = InFlightTable<ImagePipeline.WorkKey, ImagePipeline.LoadedData>.Context

    /// What one attempt's response yields.
    enum Verdict: Equatable {
        /// The image's bytes (the kept ones first when it resumed), kept on disk as `storage` says.
        case accept(body: Data, storage: DiskStorage, resumedByteCount: Int)
        /// 304 for the stale copy: serve it, with the lifetime and validators of `storage` (removed
        /// from disk instead when `storage` forbids storing).
        case refreshStale(storage: DiskStorage)
        /// The answer cannot be joined to the kept bytes: a new attempt starts from zero.
        case restart(reason: String)
        case fail(ImagePipeline.Error)
    }

    let pipeline: ImagePipeline
    let request: ImageRequest
    /// The expired disk copy, revalidated when it has validators and served when the policy says.
    let stale: DiskCache.Entry?
    let context: Context

    /// What a successful (2xx or 304) response means for an attempt that resumes as `resumption`
    /// says and is judged by `machine`: first whether its body continues the kept bytes, then
    /// what its status and caching headers allow.
    static func verdict(
        statusCode: Int, headers: [String: String], body: Data, resumption: ResumptionStateMachine,
        machine: DownloadStateMachine
    ) -> Verdict {
        var body = body
        var resumedByteCount = 0
        switch resumption.response(statusCode: statusCode, headers: headers, body: body) {
        case .whole:
            break
        case .resumed(let joined):
            resumedByteCount = joined.count - body.count
            body = joined
        case .restart(let reason):
            return .restart(reason: reason)
        case .fail(let error):
            return .fail(error)
        }
        switch machine.response(statusCode: statusCode, headers: headers) {
        case .accept(let storage): return .accept(body: body, storage: storage, resumedByteCount: resumedByteCount)
        case .refreshStale(let storage): return .refreshStale(storage: storage)
        case .fail(let error): return .fail(error)
        }
    }

    /// How an attempt resumes: as the kept download it takes over began, else from the bytes
    /// `partial` kept from an interrupted one (taken from the store only when there is no kept
    /// download), when the request allows resuming at all.
    static func resumption(
        kept: KeptDownload?, url: URL, requestHeaders: [String: String], partial: () -> ResumableData?
    ) -> ResumptionStateMachine {
        kept?.resumption ?? ResumptionStateMachine(url: url, requestHeaders: requestHeaders, partial: partial())
    }

    /// Downloads until an attempt yields the bytes, the stale copy is served, or the machine gives up.
    ///
    /// Inlined into its caller (`ImagePipeline.fetchData`), as `attempt` is into it: a request
    /// queued for a download slot holds the frame of every async function on its path, and one
    /// frame for the three is 2.7 KB smaller than three and needs no slabs of its own from the
    /// task's allocator: 4.9 KB of heap less for each request waiting (500 asked at once).
    @inline(__always)
    func run(timing: ImageResponse.Timing) async throws(ImagePipeline.Error) -> ImagePipeline.LoadedData {
        let configuration = pipeline.configuration
        var timing = timing
        let clock = ContinuousClock()
        var machine = DownloadStateMachine(
            url: request.url, retryPolicy: configuration.retryPolicy,
            honoursHTTPCacheHeaders: configuration.honoursHTTPCacheHeaders,
            servesExpiredEntries: configuration.servesExpiredEntries,
            staleValidators: stale.map { HTTPCacheHeaders(metadata: $0.metadata) })
        let dataRequest = DataLoader.Request(
            url: request.url, headers: machine.headers(adding: request.headers),
            credentialHeaderNames: request.credentialHeaderNames, maximumBodySize: request.maximumSourceByteCount)
        let store = configuration.resumableData
        while true {
            machine.startAttempt()
            timing.attempts = machine.attempts
            let queuedAt = clock.now
            var startedAt: ContinuousClock.Instant?
            let failure: ImagePipeline.Error
            // A download that a caller who left started: its attempt goes on here, as it began.
            let kept = context.kept(KeptDownload.self)
            let resumption = Self.resumption(kept: kept, url: request.url, requestHeaders: dataRequest.headers) {
                store?.take(ResumableDataStore.Key(url: request.url, headers: request.headers))
            }
            if kept == nil, let partial = resumption.partial {
                configuration.logger.debug(
                    "Resuming \(configuration.logged(request.url)) from byte \(partial.data.count) of \(partial.totalLength)")
            }
            do throws(ImagePipeline.Error) {
                let response = try await attempt(
                    dataRequest, kept: kept, resumption: resumption, number: machine.attempts, startedAt: &startedAt)
                let started = startedAt ?? queuedAt
                timing.queued = (timing.queued ?? .zero) + (started - queuedAt)
                timing.download = (timing.download ?? .zero) + (clock.now - started)
                pipeline.metrics.downloadDuration.recordInterval(since: started, now: clock.now)
                pipeline.metrics.downloadedBytes.increment(by: Int64(response.data.count))
                let verdict = Self.verdict(
                    statusCode: response.statusCode, headers: response.headers, body: response.data,
                    resumption: resumption, machine: machine)
                switch verdict {
                case .accept(let body, let storage, let resumedByteCount):
                    return ImagePipeline.LoadedData(
                        data: body, source: .network, storage: storage, timing: timing,
                        expiry: .lifetime(storage.lifetime), resumedByteCount: resumedByteCount,
                        lastModified: HTTPCacheHeaders(responseHeaders: response.headers).lastModifiedDate)
                case .refreshStale(let storage):
                    guard let stale else { throw .httpStatus(request.url, statusCode: response.statusCode) }
                    pipeline.diskWriter.refresh(stale, for: request, storage: storage)
                    // The 304's storage rules hold for what is made of the bytes (no-store: nothing kept).
                    let validators = HTTPCacheHeaders(responseHeaders: response.headers)
                    return ImagePipeline.LoadedData(
                        data: stale.data, source: .disk, storage: storage, timing: timing, expiry: .lifetime(storage.lifetime),
                        lastModified: validators.lastModifiedDate ?? HTTPCacheHeaders(metadata: stale.metadata).lastModifiedDate)
                case .restart(let reason):
                    configuration.logger.info(
                        "Downloading \(configuration.logged(request.url)) again from the start: \(reason)")
                    continue
                case .fail(let error):
                    throw error
                }
            } catch {
                if let startedAt {  // a download that never left the queue took no download time
                    timing.download = (timing.download ?? .zero) + (clock.now - startedAt)
                }
                failure = error
            }
            // The system's random numbers, one generator per decision (nothing shared to guard).
            var generator = JitterSource()
            let action = machine.failure(failure, taskCancelled: Task.isCancelled, using: &generator)
            switch action {
            case .retry(let delay):
                configuration.logger.debug(
                    "Retrying \(configuration.logged(request.url)) in \(delay): \(configuration.logged(failure))")
                do {
                    try await configuration.clock.sleep(for: delay, tolerance: nil)
                } catch {
                    throw .cancelled(request.url)
                }
            case .serveStale:
                guard let stale else { throw failure }
                configuration.logger.info(
                    "Serving an expired copy of \(configuration.logged(request.url)): \(configuration.logged(failure))")
                return ImagePipeline.LoadedData(
                    data: stale.data, source: .disk, timing: timing, expiry: .date(stale.expiresAt),
                    lastModified: HTTPCacheHeaders(metadata: stale.metadata).lastModifiedDate)
            case .fail(let error):
                throw error
            }
        }
    }

    /// One attempt: the kept download taken over (it holds no scheduler slot any more: its
    /// starter's ended with it, and waiting for one would only delay what is under way), or a new
    /// request under the scheduler, kept in the context when the loader can hand it over.
    @inline(__always)
    private func attempt(
        _ dataRequest: DataLoader.Request, kept: KeptDownload?, resumption: ResumptionStateMachine, number: Int,
        startedAt: inout ContinuousClock.Instant?
    ) async throws(ImagePipeline.Error) -> DataLoader.Response {
        let clock = ContinuousClock()
        if let kept {
            startedAt = clock.now
            return try await response(of: kept.download)
        }
        let configuration = pipeline.configuration
        let store = configuration.resumableData
        var attemptRequest = dataRequest
        attemptRequest.headers = resumption.headers(adding: dataRequest.headers)
        let observer = AttemptObserver(
            resumption: resumption, attempt: number, context: context,
            keeping: resumption.isResumable ? store.map { ($0, request.headers) } : nil, logger: configuration.logger,
            redactsURLs: configuration.redactsURLs
        ).downloadObserver
        return try await pipeline.scheduler.run(
            priority: context.priority, cancellation: .cancelled(request.url),
            onTicket: { ticket in context.observePriority { ticket.updatePriority($0) } }
        ) { [attemptRequest] () async throws(ImagePipeline.Error) -> DataLoader.Response in
            startedAt = clock.now
            let prepared = try await pipeline.prepare(attemptRequest)
            guard let loader = pipeline.downloadStarter else {
                return try await configuration.dataLoader.loadData(for: prepared, observer: observer)
            }
            let download = try await loader.startDownload(for: prepared, observer: observer)
            let kept = KeptDownload(download: download, resumption: resumption)
            context.keep(kept) { kept.cancel() }
            return try await response(of: download)
        }
    }

    /// Waits for `download`. The waiting task's cancellation ends only the wait: the download stays
    /// kept for whoever takes the work over, and is cancelled when every caller has left. Once it
    /// has ended, it is forgotten.
    private func response(of download: any StartedDownload) async throws(ImagePipeline.Error) -> DataLoader.Response {
        do throws(ImagePipeline.Error) {
            let response = try await download.response(cancelling: false)
            context.discardKept()
            return response
        } catch {
            if !(error == .cancelled(request.url) && Task.isCancelled) { context.discardKept() }
            throw error
        }
    }
}

/// The system's random numbers for retry jitter, through a generator with a stored word: an `inout`
/// of an empty generator (`SystemRandomNumberGenerator` is one) is reported by ThreadSanitizer
/// (Swift 6.3.1) as a race between any two threads that make one, at one shared fake address.
private struct JitterSource: RandomNumberGenerator {
    private var last: UInt64 = 0

    mutating func next() -> UInt64 {
        last = UInt64.random(in: .min ... .max)
        return last
    }
}
