import Foundation

/// What shared work tells the callers waiting for it besides progress: a download's body so far
/// (the image work decodes previews from it), or a preview (for the callers of the image work).
enum WorkUpdate: Sendable {
    case body(ReceivedBody)
    case preview(ImagePreview)
}

/// A download's body so far: the bytes an earlier attempt left (when this one resumes it), then
/// this attempt's. Kept in two parts so that nothing is copied until a preview needs the bytes.
struct ReceivedBody: Sendable {
    let kept: Data
    let received: Data
    /// The download attempt the bytes belong to: a new attempt starts its body again.
    let attempt: Int

    var count: Int { kept.count + received.count }

    /// The bytes from `offset` on, in up to two pieces.
    func bytes(from offset: Int) -> [Data.SubSequence] {
        let fromKept = kept.dropFirst(offset)
        let fromReceived = received.dropFirst(max(0, offset - kept.count))
        return [fromKept, fromReceived].filter { !$0.isEmpty }
    }

    /// The first `length` bytes, in one buffer of their own (no longer sharing the loader's).
    func prefix(_ length: Int) -> Data {
        var result = Data(capacity: min(length, count))
        result.append(kept.prefix(length))
        result.append(received.prefix(max(0, length - kept.count)))
        return result
    }
}
