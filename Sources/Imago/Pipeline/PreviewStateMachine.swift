import Foundation

/// When one image's previews are decoded, as a value: the body's bytes go through a
/// ``JPEGScanTracker``, and each time more scans of a progressive JPEG are complete than the last
/// preview showed, a preview of them is decoded, one at a time. Bytes that complete more scans while
/// a preview decodes are kept for when it ends, replacing any kept before (intermediate previews
/// are skipped when data arrives faster than decoding). A sequential (baseline) JPEG, anything that
/// is not a JPEG, and a body that has ended (the final image comes next) get no preview.
///
/// The owner (``PreviewRenderer``) feeds the bytes and performs what each method returns; the rules
/// are tested without decoding or timing (`PreviewStateMachineTests`).
struct PreviewStateMachine: Sendable {
    /// What to do.
    enum Action: Sendable, Hashable {
        case none
        /// Decode a preview of the first `length` bytes, which hold `scans` complete scans.
        case decode(length: Int, scans: Int)
        /// A preview decodes now; keep the first `length` bytes (`scans` scans) for the next one.
        case keep(length: Int, scans: Int)
    }

    /// Previews stop at this many scans (``DecodingLimits/maximumProgressiveScans``).
    let maximumScans: Int
    private(set) var tracker = JPEGScanTracker()
    /// Whether a preview is decoding.
    private(set) var isDecoding = false
    /// The scans of the newest preview decoded or decoding: later ones must show more.
    private(set) var scansStarted = 0
    /// What was kept for the next decode.
    private(set) var kept: (length: Int, scans: Int)?
    /// No more previews: stopped by the owner, or the bytes will not make any.
    private(set) var isFinished = false

    init(maximumScans: Int) {
        self.maximumScans = maximumScans
    }

    /// Reads the next bytes of the body.
    mutating func consume(_ bytes: some DataProtocol) {
        guard !isFinished else { return }
        tracker.consume(bytes)
    }

    /// What to do after the bytes read so far.
    mutating func next() -> Action {
        guard !isFinished else { return .none }
        if tracker.isMalformed || tracker.kind == .sequential || tracker.reachedEnd || tracker.completedScans > maximumScans {
            finish()
            return .none
        }
        let scans = tracker.completedScans
        guard scans > max(scansStarted, kept?.scans ?? 0) else { return .none }
        if isDecoding {
            kept = (tracker.boundary, scans)
            return .keep(length: tracker.boundary, scans: scans)
        }
        isDecoding = true
        scansStarted = scans
        return .decode(length: tracker.boundary, scans: scans)
    }

    /// The preview decode ended (shown or failed): decode what was kept meanwhile, if anything.
    mutating func decodeEnded() -> Action {
        isDecoding = false
        guard !isFinished, let kept else { return .none }
        self.kept = nil
        isDecoding = true
        scansStarted = kept.scans
        return .decode(length: kept.length, scans: kept.scans)
    }

    /// A new download attempt starts the body again: its bytes are read from the start, and its
    /// previews still have to show more scans than those already shown.
    mutating func restartBody() {
        tracker = JPEGScanTracker()
        kept = nil
    }

    /// No more previews (the body is complete, or nobody waits).
    mutating func finish() {
        isFinished = true
        kept = nil
    }
}
