import Foundation

/// What the pipeline did with one request, for observers of ``ImagePipeline/events(bufferingNewest:)``.
public enum PipelineEvent: Sendable, CustomStringConvertible {
    /// A request missed the memory cache and its work began (or joined work under way).
    case started(URL, key: CacheKey)
    /// Bytes arrived for a request's download.
    case progress(URL, ImageTask.Progress)
    /// A preview of a request's image arrived (see ``ImagePipeline/Configuration/decodesPreviews``).
    /// Only an ``ImageTask``'s own ``ImageTask/events`` carry previews, and only when its request
    /// asked for them; ``ImagePipeline/events(bufferingNewest:)`` does not.
    case preview(URL, ImagePreview)
    /// A request got its image.
    case completed(URL, source: ImageResponse.Source, timing: ImageResponse.Timing)
    /// A request failed.
    case failed(URL, ImagePipeline.Error)
    /// A request's caller cancelled it.
    case cancelled(URL)

    /// `completed https://…/a.jpg from disk (total 3.1 ms, decode 2.0 ms)`: one line for a log.
    public var description: String {
        switch self {
        case .started(let url, _): "started \(url.redactedDescription)"
        case .progress(let url, let progress):
            "progress \(url.redactedDescription): \(ByteCountDescription.format(progress.completed))"
                + (progress.total.map { " of \(ByteCountDescription.format($0))" } ?? "")
        case .preview(let url, let preview): "\(preview) of \(url.redactedDescription)"
        case .completed(let url, let source, let timing): "completed \(url.redactedDescription) from \(source.rawValue) (\(timing))"
        case .failed(_, let error): "failed: \(error)"
        case .cancelled(let url): "cancelled \(url.redactedDescription)"
        }
    }

    /// The URL the event concerns.
    public var url: URL {
        switch self {
        case .started(let url, _), .progress(let url, _), .preview(let url, _), .completed(let url, _, _),
            .failed(let url, _), .cancelled(let url):
            url
        }
    }
}

