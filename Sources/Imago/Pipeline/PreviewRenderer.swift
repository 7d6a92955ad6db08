import Foundation

/// Decodes and hands out the previews of one image (one processed key) while its body downloads,
/// as its ``PreviewStateMachine`` says: at most one decode at a time, off the download's thread,
/// each on a copy of the bytes it needs (so the loader's growing buffer is never shared).
///
/// A preview is handed out under the renderer's lock, so once ``stop()`` has returned none can
/// follow: the final image always comes after the last preview, and a cancelled load gets none.
final class PreviewRenderer: Sendable {
    /// Decodes the first bytes into a processed preview.
    typealias Render = @Sendable (_ prefix: Data) throws(ImagePipeline.Error) -> ImageContainer

    private struct State: Sendable {
        var machine: PreviewStateMachine
        /// Bytes of the current attempt's body read so far, and which attempt that is.
        var read = 0
        var attempt = 0
        /// The bytes kept for the next decode (``PreviewStateMachine/Action/keep(length:scans:)``).
        var kept: Data?
        var task: Task<Void, Never>?
    }

    private let state: Locked<State>
    private let priority: TaskPriority?
    private let render: Render
    private let deliver: @Sendable (ImagePreview) -> Void
    private let onDecode: @Sendable (_ shown: Bool) -> Void

    /// - Parameters:
    ///   - maximumScans: no preview of more scans than this.
    ///   - render: decodes and processes a preview (on a task of `priority`).
    ///   - deliver: hands a preview to the image's callers.
    ///   - onDecode: told when a decode starts (`false`) and when one is shown (`true`), for metrics.
    init(
        maximumScans: Int, priority: TaskPriority?, render: @escaping Render,
        deliver: @escaping @Sendable (ImagePreview) -> Void, onDecode: @escaping @Sendable (_ shown: Bool) -> Void = { _ in }
    ) {
        self.state = Locked(State(machine: PreviewStateMachine(maximumScans: maximumScans)))
        self.priority = priority
        self.render = render
        self.deliver = deliver
        self.onDecode = onDecode
    }

    /// The body so far has grown to `body`.
    func receive(_ body: ReceivedBody) {
        state.withLock { state in
            if body.attempt != state.attempt {
                state.attempt = body.attempt
                state.read = 0
                state.kept = nil
                state.machine.restartBody()
            }
            guard body.count > state.read else { return }
            for piece in body.bytes(from: state.read) { state.machine.consume(piece) }
            state.read = body.count
            switch state.machine.next() {
            case .none:
                break
            case .keep(let length, _):
                state.kept = body.prefix(length)
            case .decode(let length, let scans):
                start(body.prefix(length), scans: scans, state: &state)
            }
        }
    }

    /// No more previews: cancels the decode under way and waits for it to end.
    func stop() async {
        let task = state.withLock { state in
            state.machine.finish()
            state.kept = nil
            return state.task
        }
        task?.cancel()
        await task?.value
    }

    private func start(_ prefix: Data, scans: Int, state: inout State) {
        let attempt = state.attempt
        onDecode(false)
        state.task = Task.detached(priority: priority) { [self] in
            let result = Result { () throws(ImagePipeline.Error) in try render(prefix) }
            ended(result, scans: scans, byteCount: prefix.count, attempt: attempt)
        }
    }

    private func ended(_ result: Result<ImageContainer, ImagePipeline.Error>, scans: Int, byteCount: Int, attempt: Int) {
        state.withLock { state in
            if case .success(let container) = result, !state.machine.isFinished, attempt == state.attempt {
                deliver(ImagePreview(container: container, scanCount: scans, byteCount: byteCount))
                onDecode(true)
            }
            switch state.machine.decodeEnded() {
            case .decode(_, let scans):
                if let kept = state.kept {
                    state.kept = nil
                    start(kept, scans: scans, state: &state)
                } else {
                    _ = state.machine.decodeEnded()
                    state.task = nil
                }
            case .none, .keep:
                state.task = nil
            }
        }
    }
}
