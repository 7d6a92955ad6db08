import Foundation
import Logging
import Metrics
import Synchronization

extension ImagePipeline {
    /// Bytes from a cache or the network, shared by every image made from them.
    final class LoadedData: Sendable {
        let data: Data
        let source: ImageResponse.Source
        /// How the bytes, and what is made from them, may be kept on disk.
        let storage: DiskStorage
        let timing: StageTiming
        /// When the original's disk entry stops being fresh (stored, read or refreshed): processed
        /// variants made from these bytes are stored to expire with it.
        let expiry: DiskCache.Expiry
        /// Bytes kept from an interrupted download that this one resumed (0: it started from zero).
        let resumedByteCount: Int
        private let diskWriteClaimed = Atomic<Bool>(false)

        init(
            data: Data, source: ImageResponse.Source, storage: DiskStorage = .unrestricted, timing: StageTiming,
            expiry: DiskCache.Expiry = .lifetime(nil), resumedByteCount: Int = 0
        ) {
            self.data = data
            self.source = source
            self.storage = storage
            self.timing = timing
            self.expiry = expiry
            self.resumedByteCount = resumedByteCount
        }

        /// Names these exact bytes (CRC-32 and length): a processed variant on disk records the
        /// fingerprint of its original, so it is served only while the original is unchanged.
        var fingerprint: String {
            String(Checksum.crc32(data), radix: 16) + "-" + String(data.count)
        }

        /// True for the first caller only: several images decoded from one download (different
        /// thumbnails, say) store the bytes once.
        func claimDiskWrite() -> Bool {
            !diskWriteClaimed.exchange(true, ordering: .acquiringAndReleasing)
        }
    }

    /// The original bytes for `request`: joins the download or disk read under way for its
    /// original key, or starts one.
    func loadData(
        for request: ImageRequest, progress: (@Sendable (DownloadProgress) -> Void)?,
        updates: (@Sendable (WorkUpdate) -> Void)? = nil,
        onWaiting: (InFlightTable<WorkKey, LoadedData>.WaiterHandle) -> Void
    ) async throws(Error) -> LoadedData {
        try await dataWork.value(
            for: WorkKey(request.originalKey, request.cachePolicy), priority: request.priority,
            cancellation: .cancelled(request.url), progress: progress, updates: updates, onWaiting: onWaiting,
            runsInCaller: downloadStarter != nil
        ) { context throws(Error) in
            try await self.fetchData(for: request, context: context)
        }
    }

    /// Disk, then cache layers, then the network (waiting for connectivity, queued by priority,
    /// retried by policy, revalidated when a stale copy has validators).
    private func fetchData(
        for request: ImageRequest, context: InFlightTable<WorkKey, LoadedData>.Context
    ) async throws(Error) -> LoadedData {
        var timing = StageTiming()
        let clock = ContinuousClock()
        var stale: DiskCache.Entry?
        let hasLocalTiers = configuration.diskCache != nil || !configuration.cacheLayers.isEmpty
        if request.cachePolicy.readsDisk, hasLocalTiers {
            let start = clock.now
            let entry = configuration.diskCache?.entry(forKey: request.originalKey, allowExpired: true)
            if let entry, !entry.isExpired || configuration.servesExpiredEntries {
                timing.diskRead = clock.now - start
                metrics.diskHits.increment()
                return LoadedData(data: entry.data, source: .disk, timing: timing, expiry: .date(entry.expiresAt))
            }
            if configuration.diskCache != nil { metrics.diskMisses.increment() }
            stale = entry
            let layered = await readCacheLayers(for: request)
            timing.diskRead = clock.now - start
            if let layered { return LoadedData(data: layered, source: .disk, timing: timing) }
        }
        guard request.cachePolicy.loadsFromNetwork else {
            if let stale { return LoadedData(data: stale.data, source: .disk, timing: timing, expiry: .date(stale.expiresAt)) }
            throw .notCached(request.url)
        }
        if let limit = configuration.waitsForConnectivity,
            !(await configuration.connectivity.waitUntilReachable(for: limit, clock: configuration.clock))
        {
            if Task.isCancelled { throw .cancelled(request.url) }
            if let stale { return LoadedData(data: stale.data, source: .disk, timing: timing, expiry: .date(stale.expiresAt)) }
            throw .offline(request.url)
        }
        return try await download(request, stale: stale, timing: timing, context: context)
    }

    /// Asks the extra cache layers in order; copies a hit into the disk cache and earlier layers.
    private func readCacheLayers(for request: ImageRequest) async -> Data? {
        let layers = configuration.cacheLayers
        for (index, layer) in layers.enumerated() {
            guard let data = await layer.data(forKey: request.originalKey) else { continue }
            if request.cachePolicy.writesDisk {
                for earlier in layers[..<index] where earlier.isWritable {
                    await earlier.store(data, forKey: request.originalKey)
                }
                diskWriter.storeFromCacheLayer(data, for: request)
            }
            configuration.logger.debug("Cache layer \(layer.name) had \(configuration.logged(request.url))")
            return data
        }
        return nil
    }

    /// Downloads with retries, each attempt under the scheduler; what each response and failure
    /// means is decided by a ``DownloadStateMachine``, and how an attempt resumes the bytes an
    /// earlier one left by a ``ResumptionStateMachine``.
    private func download(
        _ request: ImageRequest, stale: DiskCache.Entry?, timing: StageTiming,
        context: InFlightTable<WorkKey, LoadedData>.Context
    ) async throws(Error) -> LoadedData {
        var timing = timing
        let clock = ContinuousClock()
        var machine = DownloadStateMachine(
            url: request.url, retryPolicy: configuration.retryPolicy,
            honoursHTTPCacheHeaders: configuration.honoursHTTPCacheHeaders,
            servesExpiredEntries: configuration.servesExpiredEntries,
            staleValidators: stale.map { HTTPCacheHeaders(metadata: $0.metadata) })
        let dataRequest = DataRequest(
            url: request.url, headers: machine.headers(adding: request.headers),
            credentialHeaderNames: request.credentialHeaderNames, maximumBodySize: request.maximumSourceByteCount)
        let store = configuration.resumableData
        while true {
            machine.startAttempt()
            timing.attempts = machine.attempts
            let queuedAt = clock.now
            var startedAt: ContinuousClock.Instant?
            let failure: Error
            // A download that a caller who left started: its attempt goes on here, as it began.
            let kept = context.kept(KeptDownload.self)
            let resumption =
                kept?.resumption
                ?? ResumptionStateMachine(
                    url: request.url, requestHeaders: dataRequest.headers,
                    partial: store?.take(ResumableDataStore.Key(url: request.url, headers: request.headers)))
            if kept == nil, let partial = resumption.partial {
                configuration.logger.debug(
                    "Resuming \(configuration.logged(request.url)) from byte \(partial.data.count) of \(partial.totalLength)")
            }
            var attemptRequest = dataRequest
            attemptRequest.headers = resumption.headers(adding: dataRequest.headers)
            let observer = downloadObserver(
                resumption, attempt: machine.attempts, store: store, headers: request.headers, context: context)
            do throws(Error) {
                let response: DataResponse
                if let kept {
                    // It holds no scheduler slot any more (its starter's ended with it): waiting for
                    // one would only delay what is under way.
                    startedAt = clock.now
                    response = try await self.response(of: kept.download, url: request.url, context: context)
                } else {
                    response = try await scheduler.run(
                        priority: context.priority, cancellation: .cancelled(request.url),
                        onTicket: { ticket in context.observePriority { ticket.updatePriority($0) } }
                    ) { [attemptRequest] () async throws(Error) -> DataResponse in
                        startedAt = clock.now
                        let prepared = try await prepare(attemptRequest)
                        guard let loader = downloadStarter else {
                            return try await configuration.dataLoader.loadData(for: prepared, observer: observer)
                        }
                        let download = try await loader.startDownload(for: prepared, observer: observer)
                        let kept = KeptDownload(download: download, resumption: resumption)
                        context.keep(kept) { kept.cancel() }
                        return try await self.response(of: download, url: request.url, context: context)
                    }
                }
                let started = startedAt ?? queuedAt
                timing.queued = (timing.queued ?? .zero) + (started - queuedAt)
                timing.download = (timing.download ?? .zero) + (clock.now - started)
                metrics.downloadDuration.recordInterval(since: started, now: clock.now)
                metrics.downloadedBytes.increment(by: Int64(response.data.count))
                var body = response.data
                var resumedByteCount = 0
                switch resumption.response(statusCode: response.statusCode, headers: response.headers, body: response.data) {
                case .whole:
                    break
                case .resumed(let joined):
                    resumedByteCount = joined.count - response.data.count
                    body = joined
                case .restart(let reason):
                    configuration.logger.info(
                        "Downloading \(configuration.logged(request.url)) again from the start: \(reason)")
                    continue
                }
                switch machine.response(statusCode: response.statusCode, headers: response.headers) {
                case .accept(let storage):
                    return LoadedData(
                        data: body, source: .network, storage: storage, timing: timing,
                        expiry: .lifetime(storage.lifetime), resumedByteCount: resumedByteCount)
                case .refreshStale(let storage):
                    if let stale {
                        diskWriter.refresh(stale, for: request, storage: storage)
                        return LoadedData(data: stale.data, source: .disk, timing: timing, expiry: .lifetime(storage.lifetime))
                    }
                    throw .httpStatus(request.url, statusCode: response.statusCode)
                case .fail(let error):
                    throw error
                }
            } catch {
                if let startedAt {  // a download that never left the queue took no download time
                    timing.download = (timing.download ?? .zero) + (clock.now - startedAt)
                }
                failure = error
            }
            let action = random.withLock { generator in
                machine.failure(failure, taskCancelled: Task.isCancelled, using: &generator)
            }
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
                return LoadedData(data: stale.data, source: .disk, timing: timing, expiry: .date(stale.expiresAt))
            case .fail(let error):
                throw error
            }
        }
    }

    /// A download started by a ``DownloadStarting`` loader, kept in the work's context while it
    /// runs, so that when the caller whose task runs the work leaves, the work, started again for
    /// the callers still waiting, takes it over instead of downloading again.
    ///
    /// A class: as the context's `any Sendable` it is one reference, not a boxed copy, and the
    /// closure that cancels it captures that reference alone.
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

    /// Waits for `download`. The waiting task's cancellation ends only the wait: the download stays
    /// kept for whoever takes the work over, and is cancelled when every caller has left. Once it
    /// has ended, it is forgotten.
    private func response(
        of download: any StartedDownload, url: URL, context: InFlightTable<WorkKey, LoadedData>.Context
    ) async throws(Error) -> DataResponse {
        do throws(Error) {
            let response = try await download.response(cancelling: false)
            context.discardKept()
            return response
        } catch {
            if !(error == .cancelled(url) && Task.isCancelled) { context.discardKept() }
            throw error
        }
    }

    /// What the loader tells this attempt: progress (counted from the first byte of the image when
    /// it resumes), the body so far (for previews) and, when downloads may be resumed, what arrived
    /// before it stopped, kept in `store` (under the URL and the request's own `headers`) for the
    /// next attempt or request.
    private func downloadObserver(
        _ resumption: ResumptionStateMachine, attempt: Int, store: ResumableDataStore?, headers: [String: String],
        context: InFlightTable<WorkKey, LoadedData>.Context
    ) -> DownloadObserver {
        let attempt = AttemptObserver(
            resumption: resumption, attempt: attempt, context: context,
            keeping: resumption.isResumable ? store.map { ($0, headers) } : nil, logger: configuration.logger,
            redactsURLs: configuration.redactsURLs)
        // Each closure captures the one object, which serves as its context: no allocation apiece.
        var observer = DownloadObserver(progress: { attempt.progress($0) }, receivedBody: { attempt.receivedBody($0) })
        if attempt.keeping != nil { observer.interrupted = { attempt.interrupted($0) } }
        return observer
    }

    /// One download attempt's view of its work: what ``downloadObserver(_:attempt:store:headers:context:)``
    /// passes on, and to whom.
    private final class AttemptObserver: Sendable {
        let resumption: ResumptionStateMachine
        let attempt: Int
        let context: InFlightTable<WorkKey, LoadedData>.Context
        /// Where to keep what arrived of an interrupted download, and the request's own headers
        /// that key it with the URL; `nil` when it cannot be resumed.
        let keeping: (store: ResumableDataStore, headers: [String: String])?
        let logger: Logger
        let redactsURLs: Bool

        init(
            resumption: ResumptionStateMachine, attempt: Int, context: InFlightTable<WorkKey, LoadedData>.Context,
            keeping: (store: ResumableDataStore, headers: [String: String])?, logger: Logger, redactsURLs: Bool
        ) {
            self.resumption = resumption
            self.attempt = attempt
            self.context = context
            self.keeping = keeping
            self.logger = logger
            self.redactsURLs = redactsURLs
        }

        /// Whether the attempt continues bytes kept from an earlier one.
        var resumes: Bool { resumption.partial != nil }

        /// The loader's count; a resumed download reports from ``receivedBody(_:)`` instead, where
        /// the bytes kept from before are added.
        func progress(_ progress: DownloadProgress) {
            if !resumes { context.report(progress) }
        }

        /// The body so far goes to the image works that decode previews from it (none asked:
        /// nothing sent).
        func receivedBody(_ received: DataResponse) {
            if resumes { context.report(resumption.progress(of: received)) }
            guard context.wantsUpdates else { return }
            context.send(.body(ReceivedBody(kept: resumption.keptData(for: received), received: received.data, attempt: attempt)))
        }

        func interrupted(_ received: DataResponse) {
            guard let keeping, let kept = resumption.resumableData(from: received) else { return }
            keeping.store.store(kept, for: ResumableDataStore.Key(url: resumption.url, headers: keeping.headers))
            // The URL is written out only here: redacting it parses it, too dear for every download.
            logger.debug(
                "Kept \(kept.data.count) of \(kept.totalLength) bytes of \(resumption.url.description(redacting: redactsURLs)) to resume")
        }
    }
}
