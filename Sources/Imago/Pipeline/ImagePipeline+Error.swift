import Foundation

extension ImagePipeline {
    /// Everything that can go wrong between a URL and a decoded image.
    ///
    /// Each case names what failed and carries what a user needs to act on it: the URL, the HTTP
    /// status, the format, the limit. ``code`` is a stable machine-readable name (used by the
    /// command line's `--json` output); ``description`` is a sentence for people.
    public enum Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// The URL's scheme is not http or https (file, ftp, data and the like are refused).
        case unsupportedScheme(URL)
        /// The server answered with a status outside 200–299; `retryAfter` is its `Retry-After`
        /// header, when it sent one (429 and 503 often do).
        case httpStatus(URL, statusCode: Int, retryAfter: Duration? = nil)
        /// The body grew past the configured maximum; the download was stopped there.
        case bodyTooLarge(URL, limit: Int)
        /// The source is larger than the request's own limit (``ImageRequest/maximumSourceByteCount``
        /// or ``ImageRequest/maximumSourcePixelCount``); `limit` says which, and the figures.
        case sourceTooLarge(URL, SourceLimit)
        /// The body ended at a different length than its `Content-Length` declared.
        case bodyLengthMismatch(URL, expected: Int, received: Int)
        /// A time limit ran out (see ``TimeoutKind``).
        case timedOut(URL, TimeoutKind, after: Duration)
        /// The connection could not be made or broke off; `reason` is the transport's own words.
        case connectionFailed(URL, reason: String)
        /// The server sent an empty body.
        case emptyBody(URL)
        /// The bytes are not an image format this platform can decode. `detail` says what they
        /// looked like (an HTML page, say) or what to install.
        case unsupportedFormat(URL?, detail: String)
        /// The bytes claim a known format but could not be decoded: truncated or corrupt.
        case decodingFailed(URL?, ImageFormat, reason: String)
        /// The image exceeds a decoding limit, checked before any pixel memory was allocated.
        case limitExceeded(URL?, DecodingLimits.Violation)
        /// A processor (resize, crop…) could not produce its output.
        case processingFailed(URL?, processor: String, reason: String)
        /// An image could not be encoded (for the disk cache's processed variants or `--out`).
        case encodingFailed(ImageFormat, reason: String)
        /// The request asked for cached data only, and nothing was cached.
        case notCached(URL)
        /// The network is unreachable and the request could not wait any longer for it.
        case offline(URL)
        /// The caller cancelled the request.
        case cancelled(URL)
        /// The download failed `attempts` times (retries included) and was given up; `last` is
        /// the last attempt's failure, and ``code``, ``url`` and ``isTransient`` are its own.
        /// Only thrown after more than one attempt: a single failure is thrown as it is.
        indirect case gaveUp(last: Error, attempts: Int)

        /// Which of a request's source limits a source passed, with the figures.
        public enum SourceLimit: Sendable, Hashable, CustomStringConvertible {
            /// More bytes than `limit`: `actual` when known (a `Content-Length`, bytes from disk),
            /// `nil` when the download was stopped as it passed the limit.
            case bytes(limit: Int, actual: Int?)
            /// More pixels than `limit`: the source's `width` x `height` (after its orientation).
            case pixels(limit: Int, width: Int, height: Int)
            /// An animation of `frames` frames of `width` x `height` pixels (as many as the request
            /// decodes, ``ImageRequest/maximumAnimationFrames``) past `limit`: each frame's pixels
            /// when `perFrame` (``ImageRequest/maximumAnimationFramePixels``), else all frames'
            /// together (``ImageRequest/maximumSourcePixelCount``, counting every frame).
            case animationPixels(limit: Int, width: Int, height: Int, frames: Int, perFrame: Bool)

            /// `4,000,000 bytes, more than the limit of 1,000,000`.
            public var description: String {
                switch self {
                case .bytes(let limit, let actual):
                    (actual.map { "\($0) bytes, more than" } ?? "more bytes than") + " the request's limit of \(limit) bytes"
                case .pixels(let limit, let width, let height):
                    "\(width)x\(height) pixels, more than the request's limit of \(limit)"
                case .animationPixels(let limit, let width, let height, let frames, let perFrame):
                    "\(frames) animation frames of \(width)x\(height) pixels, more than the request's limit of \(limit) "
                        + (perFrame ? "pixels a frame" : "pixels for all frames")
                }
            }
        }

        /// Which time limit ran out.
        public enum TimeoutKind: String, Sendable, Hashable {
            /// No connection was established in time.
            case connect
            /// The whole download took longer than allowed.
            case download
            /// No byte arrived for too long in the middle of a download.
            case stall
        }

        /// A stable, machine-readable name for the case, e.g. `http_status`.
        public var code: String {
            switch self {
            case .unsupportedScheme: "unsupported_scheme"
            case .httpStatus: "http_status"
            case .bodyTooLarge: "body_too_large"
            case .sourceTooLarge: "source_too_large"
            case .bodyLengthMismatch: "body_length_mismatch"
            case .timedOut(_, let kind, _): "timeout_\(kind.rawValue)"
            case .connectionFailed: "connection_failed"
            case .emptyBody: "empty_body"
            case .unsupportedFormat: "unsupported_format"
            case .decodingFailed: "decoding_failed"
            case .limitExceeded: "limit_exceeded"
            case .processingFailed: "processing_failed"
            case .encodingFailed: "encoding_failed"
            case .notCached: "not_cached"
            case .offline: "offline"
            case .cancelled: "cancelled"
            case .gaveUp(let last, _): last.code
            }
        }

        /// The failure itself: the last attempt's error for ``gaveUp(last:attempts:)``, else `self`.
        /// Match on this to handle a kind of failure however many attempts it took.
        public var underlying: Error {
            if case .gaveUp(let last, _) = self { return last.underlying }
            return self
        }

        /// How many download attempts ended in this error: the count for
        /// ``gaveUp(last:attempts:)``, 0 when no download was tried (an unsupported scheme, a
        /// cache-only request, no network), else 1.
        public var attempts: Int {
            switch self {
            case .gaveUp(_, let attempts): attempts
            case .unsupportedScheme, .notCached, .offline: 0
            default: 1
            }
        }

        /// The URL the failure concerns, when there is one.
        public var url: URL? {
            switch self {
            case .unsupportedScheme(let url), .httpStatus(let url, _, _), .bodyTooLarge(let url, _), .sourceTooLarge(let url, _),
                .bodyLengthMismatch(let url, _, _), .timedOut(let url, _, _), .connectionFailed(let url, _),
                .emptyBody(let url), .notCached(let url), .offline(let url), .cancelled(let url):
                url
            case .unsupportedFormat(let url, _), .decodingFailed(let url, _, _), .limitExceeded(let url, _),
                .processingFailed(let url, _, _):
                url
            case .encodingFailed:
                nil
            case .gaveUp(let last, _):
                last.url
            }
        }

        /// Whether a second attempt could succeed (connection trouble, timeouts, a body cut off
        /// short of its declared length, 408, 429, 5xx).
        public var isTransient: Bool {
            switch self {
            case .gaveUp(let last, _): last.isTransient
            case .timedOut, .connectionFailed: true
            // A body cut off short of its declared length broke in transit: the next attempt
            // may arrive whole. (More bytes than declared is the server's own error.)
            case .bodyLengthMismatch(_, let expected, let received): received < expected
            case .httpStatus(_, let status, _): status == 408 || status == 429 || (500...599).contains(status)
            default: false
            }
        }

        /// How long the server asked to wait before trying again (`Retry-After`), if it did.
        public var retryAfter: Duration? {
            if case .httpStatus(_, _, let retryAfter) = underlying { return retryAfter }
            return nil
        }

        /// A sentence for people, with URLs redacted (see `URL.redactedDescription`):
        /// no user, password, query string or fragment. ``url`` keeps the whole URL, and
        /// ``description(redactingURLs:)`` shows it in the sentence.
        public var description: String { description(redactingURLs: true) }

        /// ``description``, with the whole URL when `redactingURLs` is false: only for callers
        /// who know their URLs carry no secrets, or who keep the text private.
        public func description(redactingURLs: Bool) -> String {
            let subject = url.map { $0.description(redacting: redactingURLs) } ?? "the image"
            switch self {
            case .unsupportedScheme(let url):
                return "\(url.description(redacting: redactingURLs)): only http and https URLs can be loaded, not '\(url.scheme ?? "")'."
            case .httpStatus(_, let status, _):
                return "\(subject): the server answered HTTP \(status) \(HTTPStatus.reason(status)); no image was loaded."
            case .bodyTooLarge(_, let limit):
                return "\(subject): the body is larger than the \(limit)-byte limit; raise maximumBodySize to allow it."
            case .sourceTooLarge(_, let limit):
                return "\(subject): the source has \(limit); it was not decoded."
            case .bodyLengthMismatch(_, let expected, let received):
                return "\(subject): the server declared \(expected) bytes but sent \(received); the download is incomplete."
            case .timedOut(_, let kind, let after):
                let what = switch kind {
                case .connect: "no connection was made"
                case .download: "the download did not finish"
                case .stall: "no data arrived"
                }
                return "\(subject): \(what) within \(after.formattedSeconds); the server is slow or unreachable."
            case .connectionFailed(_, let reason):
                return "\(subject): the connection failed (\(reason)); check the host and the network."
            case .emptyBody:
                return "\(subject): the server sent an empty body instead of an image."
            case .unsupportedFormat(_, let detail):
                return "\(subject): not a supported image (\(detail))."
            case .decodingFailed(_, let format, let reason):
                return "\(subject): the \(format) data could not be decoded (\(reason)); the file is truncated or corrupt."
            case .limitExceeded(_, let violation):
                return "\(subject): \(violation); raise the limit in DecodingLimits only for trusted sources."
            case .processingFailed(_, let processor, let reason):
                return "\(subject): processor '\(processor)' failed: \(reason)."
            case .encodingFailed(let format, let reason):
                return "The image could not be encoded as \(format): \(reason)."
            case .notCached:
                return "\(subject): not in any cache, and the request's cache policy forbids loading it."
            case .offline:
                return "\(subject): the network is unreachable; try again when the device is online."
            case .cancelled:
                return "\(subject): the request was cancelled."
            case .gaveUp(let last, let attempts):
                var sentence = last.description(redactingURLs: redactingURLs)
                if sentence.hasSuffix(".") { sentence.removeLast() }
                return "\(sentence) (gave up after \(attempts) attempts)."
            }
        }
    }
}

extension ImagePipeline.Error {
    /// Whether the error says the source's bytes are not an image this pipeline decodes (damaged,
    /// empty, of no known format, or beyond what any decode here may read), so a stored copy of
    /// them is worth nothing. A cancellation, a refusal by one request's own limits, or a ceiling
    /// on what one decode makes (its size depends on the reduction asked) says nothing about them.
    var condemnsTheBytes: Bool {
        switch self {
        case .decodingFailed, .unsupportedFormat, .emptyBody:
            true
        case .limitExceeded(_, let violation):
            switch violation {
            case .sourcePixelCount, .sourceDimension, .encodedSize, .frameCount, .progressiveScans: true
            case .pixelCount, .dimension, .totalFramePixels: false
            }
        default:
            false
        }
    }
}
