import Imago
import Observation

/// The state of one image on screen, shared by every ImagoUI front end: `LazyImage`, the
/// image-view helpers, or your own view.
///
/// ```swift
/// @State private var loader = ImageLoader()
/// // …
/// content(loader.phase)
///     .onAppear { loader.onAppear(); loader.load(ImageRequest(url: url)) }
///     .onDisappear { loader.onDisappear() }
/// ```
///
/// Every decision lives here, so the platform views only draw ``phase``:
/// - A memory-cache hit reaches ``Phase/success(_:)`` inside ``load(_:)``, with no
///   ``Phase/loading(_:waitingForNetwork:)`` in between, so a cached image never flickers.
/// - When the request decodes previews, each one moves the phase to ``Phase/preview(_:_:)``
///   until the image arrives; a preview never follows the image.
/// - Loading the request that is already loading or loaded does nothing; loading another one
///   stops the old load first, and the old result never lands.
/// - ``cancel()`` returns to ``Phase/empty``: a cancellation is never shown as a failure.
/// - The phase says `waitingForNetwork` once a load has run for
///   ``Configuration/offlineHintDelay`` while the pipeline's `connectivity` says the network is
///   unreachable, and a ``Configuration/timeout`` ends a load with ``Error/timedOut(_:after:)``.
/// - ``onAppear()`` and ``onDisappear()`` raise the priority of the load, and lower or cancel it
///   (``Configuration/disappearBehavior``).
@MainActor @Observable
public final class ImageLoader {
    /// Where the image is: nothing asked, loading, shown, or failed.
    public private(set) var phase: Phase = .empty
    /// The request loading or shown, or the last one cancelled; `nil` before the first load.
    public private(set) var request: ImageRequest?

    /// The pipeline that loads the images.
    public let pipeline: ImagePipeline
    /// The offline hint, the timeout and the priorities.
    public let configuration: Configuration

    /// Told of every change of ``phase``, synchronously, by ``ImageViewBinding`` (which has no
    /// SwiftUI to observe the loader for it) and by tests.
    @ObservationIgnored var phaseDidChange: (@MainActor (Phase) -> Void)?

    /// Called each time a load ends in ``Phase/success(_:)`` (memory hits included) or
    /// ``Phase/failure(_:)``; never for a cancelled or replaced load. `LazyImage`'s
    /// `onCompletion` sets it.
    @ObservationIgnored public var onCompletion: (@MainActor (Result<ImageResponse, Error>) -> Void)?

    /// The load running now, if any.
    @ObservationIgnored private var work: Work?
    /// Counts loads: a result, a progress update or a timer of an older load sees a different
    /// value and is dropped.
    @ObservationIgnored private var generation: UInt64 = 0
    @ObservationIgnored private var visibility = Visibility.unknown
    /// Whether ``onDisappear()`` cancelled the load, so ``onAppear()`` starts it again.
    @ObservationIgnored private var resumesOnAppear = false

    /// A loader on `pipeline` (by default `ImagePipeline.shared`). The pipeline's memory
    /// cache is trimmed on the system's memory warnings from now on (``MemoryPressureTrimmer``).
    public init(pipeline: ImagePipeline = .shared, configuration: Configuration = Configuration()) {
        self.pipeline = pipeline
        self.configuration = configuration
        MemoryPressureTrimmer.shared.watch(pipeline)
    }

    deinit { work?.cancel() }

    // MARK: - Loading

    /// Loads `request`, or shows nothing for `nil`.
    ///
    /// Does nothing while the same request (same `processedKey` and cache policy) is loading or
    /// shown. Otherwise it stops the current load, then ends in ``Phase/success(_:)`` at once on a
    /// memory-cache hit, or starts loading.
    public func load(_ request: ImageRequest?) {
        guard let request else {
            cancel()
            self.request = nil
            return
        }
        if isLoadingOrShowing(request) { return }
        stop()
        self.request = request
        resumesOnAppear = false
        if let container = pipeline.cachedImage(for: request) {
            setPhase(.success(ImageResponse(container: container, source: .memory)))
        } else {
            start(request)
        }
    }

    /// Stops loading and returns to ``Phase/empty``; the pipeline's download goes on only while
    /// other callers still wait for the same image.
    public func cancel() {
        stop()
        resumesOnAppear = false
        if case .empty = phase { return }
        setPhase(.empty)
    }

    /// Whether `request` is the one loading or shown now.
    func isLoadingOrShowing(_ request: ImageRequest) -> Bool {
        guard let current = self.request, current.processedKey == request.processedKey,
            current.cachePolicy == request.cachePolicy
        else { return false }
        switch phase {
        case .loading, .preview, .success: return true
        case .empty, .failure: return false
        }
    }

    /// The pipeline's task of the load running now, if any.
    var imageTask: ImageTask? { work?.imageTask }

    // MARK: - Visibility

    /// The view is on screen: the load (running or next) gets ``Configuration/visiblePriority``,
    /// and a load that ``onDisappear()`` cancelled starts again.
    public func onAppear() {
        visibility = .visible
        if let work, let request {
            work.imageTask.priority = priority(for: request)
        } else if resumesOnAppear, let request {
            resumesOnAppear = false
            load(request)
        }
    }

    /// The view left the screen: an unfinished load is cancelled or lowered, as
    /// ``Configuration/disappearBehavior`` says. A shown image stays.
    public func onDisappear() {
        visibility = .hidden
        guard let work, let request else { return }
        switch configuration.disappearBehavior {
        case .cancel:
            cancel()
            resumesOnAppear = true
        case .lowerPriority:
            work.imageTask.priority = priority(for: request)
        }
    }

    /// The priority a load of `request` should have now.
    private func priority(for request: ImageRequest) -> ImageRequest.Priority {
        switch (visibility, configuration.disappearBehavior) {
        case (.visible, _): max(request.priority, configuration.visiblePriority)
        case (.hidden, .lowerPriority(let lowered)): min(request.priority, lowered)
        case (.hidden, .cancel), (.unknown, _): request.priority
        }
    }

    // MARK: - One load

    private func start(_ request: ImageRequest) {
        var scheduled = request
        scheduled.priority = priority(for: request)
        let imageTask = pipeline.imageTask(with: scheduled)
        let generation = self.generation
        setPhase(.loading(nil, waitingForNetwork: false))

        var helpers: [Task<Void, Never>] = []
        helpers.append(Task { [weak self] in
            do throws(ImagePipeline.Error) {
                let response = try await imageTask.response
                self?.finish(.success(response), generation: generation)
            } catch {
                self?.finish(.failure(error), generation: generation)
            }
        })
        helpers.append(Task { [weak self] in
            for await progress in imageTask.progress {
                self?.report(progress, generation: generation)
            }
        })
        if request.decodesPreviews ?? pipeline.configuration.decodesPreviews {
            helpers.append(Task { [weak self] in
                for await event in imageTask.events {
                    guard case .preview(_, let preview) = event else { continue }
                    self?.show(preview, generation: generation)
                }
            })
        }
        helpers.append(Task { [weak self, clock = configuration.clock, delay = configuration.offlineHintDelay,
                               connectivity = pipeline.configuration.connectivity] in
            // Every `delay` while loading: the hint appears when the network is gone and goes
            // away when it is back.
            while true {
                do { try await clock.sleep(for: delay) } catch { return }
                let isReachable = await connectivity.isReachable()
                guard let self, self.showNetworkHint(!isReachable, generation: generation) else { return }
            }
        })
        if let timeout = configuration.timeout {
            helpers.append(Task { [weak self, clock = configuration.clock] in
                do { try await clock.sleep(for: timeout) } catch { return }
                self?.timeOut(after: timeout, generation: generation)
            })
        }
        work = Work(imageTask: imageTask, helpers: helpers)
    }

    private func finish(_ result: Result<ImageResponse, ImagePipeline.Error>, generation: UInt64) {
        guard generation == self.generation else { return }
        stop()
        switch result {
        case .success(let response): setPhase(.success(response))
        case .failure(.cancelled): setPhase(.empty)
        case .failure(let error): setPhase(.failure(.pipeline(error)))
        }
    }

    private func report(_ progress: ImageTask.Progress, generation: UInt64) {
        guard generation == self.generation else { return }
        switch phase {
        case .loading(_, let isWaiting): setPhase(.loading(progress, waitingForNetwork: isWaiting))
        case .preview(let preview, _): setPhase(.preview(preview, progress))
        case .empty, .success, .failure: break
        }
    }

    private func show(_ preview: ImagePreview, generation: UInt64) {
        guard generation == self.generation else { return }
        switch phase {
        case .loading(let progress, _), .preview(_, let progress): setPhase(.preview(preview, progress))
        case .empty, .success, .failure: break
        }
    }

    /// Shows or hides the offline hint; returns whether the load is still running.
    private func showNetworkHint(_ isWaiting: Bool, generation: UInt64) -> Bool {
        guard generation == self.generation else { return false }
        if case .preview = phase { return true }  // bytes are arriving
        guard case .loading(let progress, let wasWaiting) = phase else { return false }
        if isWaiting != wasWaiting { setPhase(.loading(progress, waitingForNetwork: isWaiting)) }
        return true
    }

    private func timeOut(after timeout: Duration, generation: UInt64) {
        guard generation == self.generation, let request else { return }
        switch phase {
        case .loading, .preview: break
        case .empty, .success, .failure: return
        }
        stop()
        setPhase(.failure(.timedOut(request.url, after: timeout)))
    }

    /// Cancels the running load, if any, so nothing it does lands any more.
    private func stop() {
        generation &+= 1
        work?.cancel()
        work = nil
    }

    private func setPhase(_ phase: Phase) {
        self.phase = phase
        phaseDidChange?(phase)
        switch phase {
        case .success(let response): onCompletion?(.success(response))
        case .failure(let error): onCompletion?(.failure(error))
        case .empty, .loading, .preview: break
        }
    }
}

extension ImageLoader {
    /// What one load runs: the pipeline's task and the loader's tasks around it.
    private struct Work: Sendable {
        let imageTask: ImageTask
        let helpers: [Task<Void, Never>]

        func cancel() {
            imageTask.cancel()
            helpers.forEach { $0.cancel() }
        }
    }

    private enum Visibility {
        case unknown, visible, hidden
    }
}
