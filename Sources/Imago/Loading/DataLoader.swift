import Foundation

/// The values a ``DataLoading`` implementation works with: the ``Request`` it is given, the
/// ``Response`` it returns, and the limits (``Configuration``) that both loaders shipped with Imago,
/// `HTTPClientDataLoader` and `URLSessionDataLoader`, enforce.
public enum DataLoader {}

extension DataLoader {
    /// One HTTP GET: the URL and any extra headers.
    public struct Request: Sendable, Hashable {
        /// An http or https URL.
        public var url: URL
        /// Extra request headers (authorization, cookies, `If-None-Match`…).
        public var headers: [String: String]
        /// Names of headers in ``headers`` that are credentials, dropped when a redirect leads to
        /// another origin (any case). `Authorization`, `Proxy-Authorization` and `Cookie` are always
        /// treated so. Default: none.
        public var credentialHeaderNames: Set<String>
        /// This download's own body limit in bytes, below the loader's
        /// ``DataLoader/Configuration/maximumBodySize`` (``ImageRequest/maximumSourceByteCount``):
        /// refused from `Content-Length` and while streaming with
        /// ``ImagePipeline/Error/sourceTooLarge(_:_:)``. Default: `nil`, the loader's limit only.
        public var maximumBodySize: Int?

        /// A request for `url` with `headers`; see ``credentialHeaderNames`` for what a redirect drops.
        public init(
            url: URL, headers: [String: String] = [:], credentialHeaderNames: Set<String> = [], maximumBodySize: Int? = nil
        ) {
            self.url = url
            self.headers = headers
            self.credentialHeaderNames = credentialHeaderNames
            self.maximumBodySize = maximumBodySize
        }
    }

    /// A completed download.
    public struct Response: Sendable, Hashable {
        /// The complete body.
        public var data: Data
        /// The HTTP status (2xx, or 304 for a revalidated entry).
        public var statusCode: Int
        /// Response headers with lower-cased names.
        public var headers: [String: String]

        /// A response of `data` with this status and these headers.
        public init(data: Data, statusCode: Int, headers: [String: String]) {
            self.data = data
            self.statusCode = statusCode
            self.headers = headers
        }
    }

    /// Limits that every ``DataLoading`` implementation shipped with Imago enforces.
    public struct Configuration: Sendable, Hashable {
        /// Largest body accepted, enforced while streaming. Default: 50 MiB.
        public var maximumBodySize: Int
        /// Time allowed to establish a connection. Default: 10 s.
        public var connectTimeout: Duration
        /// Time allowed for the whole download, from request to last byte. Default: 30 s.
        public var downloadTimeout: Duration
        /// Longest silence allowed in the middle of a download. Default: 15 s. Time the process spends
        /// with no free thread to read (a busy cooperative pool) does not count as the server's silence.
        public var stallTimeout: Duration
        /// Most connections open at once to one host (both transports pool per host; the pipeline's
        /// scheduler limits downloads across hosts). Default: 6.
        public var maximumConnections: Int
        /// Sent as `User-Agent` unless the request sets one. Default: `Imago`.
        public var userAgent: String

        /// The defaults, with any of them replaced.
        public init(
            maximumBodySize: Int = 50 * 1024 * 1024, connectTimeout: Duration = .seconds(10),
            downloadTimeout: Duration = .seconds(30), stallTimeout: Duration = .seconds(15),
            maximumConnections: Int = 6, userAgent: String = "Imago"
        ) {
            self.maximumBodySize = maximumBodySize
            self.connectTimeout = connectTimeout
            self.downloadTimeout = downloadTimeout
            self.stallTimeout = stallTimeout
            self.maximumConnections = maximumConnections
            self.userAgent = userAgent
        }
    }
}
