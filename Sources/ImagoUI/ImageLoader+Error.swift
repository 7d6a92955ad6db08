import Foundation
import Imago

extension ImageLoader {
    /// Why a load failed: the pipeline's error, or the loader's own time limit.
    public enum Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// The pipeline failed; its error says how. Never `cancelled`: a cancelled load returns
        /// to ``ImageLoader/Phase/empty``.
        case pipeline(ImagePipeline.Error)
        /// The image did not arrive within ``ImageLoader/Configuration/timeout``; the load was
        /// stopped.
        case timedOut(URL, after: Duration)

        /// The URL of the image that failed, when known.
        public var url: URL? {
            switch self {
            case .pipeline(let error): error.url
            case .timedOut(let url, _): url
            }
        }

        /// What failed, with the URL and, for a timeout, after how long.
        public var description: String {
            switch self {
            case .pipeline(let error):
                error.description
            case .timedOut(let url, let timeout):
                "\(url.absoluteString): the image did not load within \(timeout), this view's time limit, "
                    + "so the load was stopped; try again, or raise ImageLoader.Configuration.timeout."
            }
        }
    }
}
