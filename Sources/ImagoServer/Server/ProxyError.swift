import Imago

/// A refused or failed proxy request: the HTTP status and the stable code clients can rely on.
///
/// | status | codes |
/// |---|---|
/// | 400 | `bad_path`, `bad_options`, `bad_source`, `too_large`, `unsupported_output` |
/// | 403 | `signature_missing`, `signature_invalid`, `forbidden_source` |
/// | 404 | `source_not_found` |
/// | 415 | `not_an_image` |
/// | 422 | `undecodable`, `source_too_large`, `processing_failed` |
/// | 502 | `source_failed` |
/// | 503 | `overloaded` (with `Retry-After`) |
/// | 504 | `source_timeout` |
public struct ProxyError: Error, Sendable, Hashable {
    public var status: Int
    public var code: String
    public var message: String
    public var retryAfterSeconds: Int?

    public init(status: Int, code: String, message: String, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    init(_ error: ProcessingPathError) {
        self.init(status: 400, code: error.code, message: error.message)
    }

    /// The pipeline's error as the client sees it.
    init(_ error: ImagePipeline.Error) {
        let message = error.description
        switch error {
        case .gaveUp(let last, _):
            self.init(last)
        case .httpStatus(_, let status, _) where status == 404 || status == 410:
            self.init(status: 404, code: "source_not_found", message: message)
        case .httpStatus, .bodyLengthMismatch, .notCached, .offline, .unsupportedScheme:
            self.init(status: 502, code: "source_failed", message: message)
        case .connectionFailed(_, let reason) where reason.hasPrefix(SourcePolicy.refusalMarker):
            self.init(status: 403, code: "forbidden_source", message: reason)
        case .connectionFailed:
            self.init(status: 502, code: "source_failed", message: message)
        case .timedOut:
            self.init(status: 504, code: "source_timeout", message: message)
        case .emptyBody, .unsupportedFormat:
            self.init(status: 415, code: "not_an_image", message: message)
        case .decodingFailed:
            self.init(status: 422, code: "undecodable", message: message)
        case .bodyTooLarge, .limitExceeded:
            self.init(status: 422, code: "source_too_large", message: message)
        case .processingFailed, .encodingFailed:
            self.init(status: 422, code: "processing_failed", message: message)
        case .cancelled:
            self.init(status: 503, code: "cancelled", message: message, retryAfterSeconds: 1)
        }
    }

    static func overloaded(retryAfter: Int) -> ProxyError {
        ProxyError(
            status: 503, code: "overloaded",
            message: "the server is at its limit of queued requests; retry after \(retryAfter) s", retryAfterSeconds: retryAfter)
    }
}
