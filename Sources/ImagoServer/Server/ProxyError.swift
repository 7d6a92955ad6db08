#if os(Linux)
import Imago

/// A refused or failed proxy request: the HTTP status and the stable code clients can rely on.
///
/// | status | codes |
/// |---|---|
/// | 400 | `bad_path`, `bad_options`, `bad_source`, `too_large`, `unsupported_output` |
/// | 403 | `signature_missing`, `signature_invalid`, `forbidden_source`, `forbidden_option` |
/// | 404 | `source_not_found`, `expired` |
/// | other 4xx | `source_refused` (the source's own 4xx status, as imgproxy answers it) |
/// | 415 | `not_an_image` |
/// | 422 | `undecodable`, `source_too_large`, `processing_failed` |
/// | 429 | `overloaded` (the admission queue is full; with `Retry-After`, as imgproxy answers) |
/// | 499 | `client_closed_request` (the client went while its request waited for a slot: never made; nginx's code, for the log) |
/// | 502 | `source_failed` |
/// | 503 | `overloaded` (response bytes on their way to clients at their limit), `cancelled`; both with `Retry-After` |
/// | 504 | `source_timeout` |
public struct ProxyError: Error, Sendable, Hashable {
    public var status: Int
    public var code: String
    /// What the client is told: what went wrong in terms of its own request, never what the
    /// server found out on the way (resolved addresses, internal names a redirect led to,
    /// connection errors that name an address).
    public var message: String
    public var retryAfterSeconds: Int?
    /// What the operator is told, in the server's log: the whole pipeline error. Never sent.
    public var detail: String?

    public init(status: Int, code: String, message: String, retryAfterSeconds: Int? = nil, detail: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
        self.detail = detail
    }

    init(_ error: ProcessingPathError) {
        // An option outside IMGPROXY_ALLOWED_PROCESSING_OPTIONS is refused, as a security option is.
        self.init(status: error.code == "forbidden_option" ? 403 : 400, code: error.code, message: error.message)
    }

    /// The pipeline's error as the client sees it: the code, and a message built only from what
    /// the client sent or what the source's bytes say; the error itself goes to ``detail``.
    init(_ error: ImagePipeline.Error) {
        let (status, code, message) = Self.answer(for: error)
        self.init(
            status: status, code: code, message: message, retryAfterSeconds: code == "cancelled" ? 1 : nil,
            detail: error.description)
    }

    private static func answer(for error: ImagePipeline.Error) -> (Int, String, String) {
        switch error {
        case .gaveUp(let last, _):
            return answer(for: last)
        case .httpStatus(_, let status, _) where status == 404 || status == 410:
            return (404, "source_not_found", "the source answered HTTP \(status)")
        case .httpStatus(_, let status, _) where (400..<500).contains(status):
            // imgproxy answers a source's other 4xx (an S3 403 for wrong credentials) with it.
            return (status, "source_refused", "the source answered HTTP \(status)")
        case .httpStatus(_, let status, _):
            return (502, "source_failed", "the source answered HTTP \(status)")
        case .bodyLengthMismatch(_, let expected, let received):
            return (502, "source_failed", "the source's body had \(received) bytes where it announced \(expected)")
        case .notCached, .offline, .unsupportedScheme:
            return (502, "source_failed", "the source could not be fetched")
        case .connectionFailed(_, let reason) where reason.hasPrefix(SourcePolicy.refusalMarker):
            // The rule that refused, never the host or address a redirect or a lookup led to.
            return (403, "forbidden_source", SourcePolicy.clientMessage(forLoaderReason: reason) ?? SourcePolicy.refusalMarker)
        case .connectionFailed:
            return (502, "source_failed", "the source could not be reached")
        case .timedOut(_, let kind, let after):
            return (504, "source_timeout", "the source was too slow (\(kind.rawValue) timeout of \(after))")
        case .emptyBody:
            return (415, "not_an_image", "the source's body is empty")
        case .unsupportedFormat(_, let detail):
            return (415, "not_an_image", "the source is not an image this server reads: \(detail)")
        case .decodingFailed(_, let format, let reason):
            return (422, "undecodable", "the source is a damaged \(format): \(reason)")
        case .bodyTooLarge(_, let limit):
            return (422, "source_too_large", "the source is larger than this server's limit of \(limit) bytes")
        case .sourceTooLarge(_, let limit):
            return (422, "source_too_large", "the source has \(limit)")
        case .limitExceeded(_, let violation):
            return (422, "source_too_large", "the source exceeds a decoding limit: \(violation)")
        case .processingFailed(_, _, let reason), .encodingFailed(_, let reason):
            return (422, "processing_failed", "the image could not be processed: \(reason)")
        case .cancelled:
            return (503, "cancelled", "the request was cancelled")
        }
    }

    /// The answer when the admission queue is full: 429, as imgproxy's "Too many requests".
    static func overloaded(retryAfter: Int) -> ProxyError {
        ProxyError(
            status: 429, code: "overloaded",
            message: "the server is at its limit of queued requests; retry after \(retryAfter) s", retryAfterSeconds: retryAfter)
    }
}
#endif
