import Foundation

/// What the pipeline did with one request, for observers of ``ImagePipeline/events()``.
public enum PipelineEvent: Sendable {
    /// A request missed the memory cache and its work began (or joined work under way).
    case started(URL, key: CacheKey)
    /// Bytes arrived for a request's download.
    case progress(URL, DownloadProgress)
    /// A request got its image.
    case completed(URL, source: ImageResponse.Source, timing: StageTiming)
    /// A request failed.
    case failed(URL, ImagePipeline.Error)
    /// A request's caller cancelled it.
    case cancelled(URL)

    /// The URL the event concerns.
    public var url: URL {
        switch self {
        case .started(let url, _), .progress(let url, _), .completed(let url, _, _), .failed(let url, _),
            .cancelled(let url):
            url
        }
    }
}

/// How long each stage of one load took; stages that did not run are `nil`.
public struct StageTiming: Sendable, Hashable {
    /// Time waiting for a download slot.
    public var queued: Duration?
    /// Time reading the disk cache (hit or miss).
    public var diskRead: Duration?
    /// Time downloading, all attempts together.
    public var download: Duration?
    /// Time decoding.
    public var decode: Duration?
    /// Time in processors (thumbnail included).
    public var process: Duration?
    /// From the call to the answer.
    public var total: Duration = .zero
    /// Download attempts made (0 when no download ran).
    public var attempts: Int = 0

    public init() {}
}
