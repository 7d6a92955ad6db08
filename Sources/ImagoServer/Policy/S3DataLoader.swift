#if os(Linux)
import Foundation
import Imago

/// The proxy's ``DataLoading`` for `s3://bucket/key` sources (imgproxy's `IMGPROXY_USE_S3`): each
/// is turned into S3's `GetObject` request (path-style or virtual-hosted, on AWS or the
/// configured S3-compatible endpoint), signed with AWS Signature Version 4 (``SignatureV4``), and
/// fetched through the proxy's guarded loader, so it has the same clients, timeouts and size
/// limits as an http source; every other URL goes to the loader it wraps.
///
/// The endpoint is the operator's, so its origin is trusted: the source policy's allow-lists and
/// address rules are not applied to it (``GuardedDataLoader/loadData(fromTrustedOrigin:progress:)``),
/// while the `s3://` URL itself is checked against `IMGPROXY_ALLOWED_SOURCES` as any source is.
///
/// As in imgproxy: a key may carry a version after `?` (`s3://bucket/key?VERSION`: `versionId`;
/// another separator, or none, with ``SourceURLQuerySeparator``);
/// an empty bucket or key is a 404; what S3 answers 4xx is answered with that status. Errors and
/// logs name the request's URL, never the credentials or the signature.
package final class S3DataLoader: DataLoading {
    /// The scheme served from S3.
    package static let scheme = "s3"
    package let configuration: S3Configuration
    private let transport: GuardedDataLoader
    private let next: any DataLoading
    private let now: @Sendable () -> Date
    private let querySeparator: SourceURLQuerySeparator

    /// Fetches `s3:` sources through `transport` as `configuration` says, signed at `now`, a key's
    /// version after `querySeparator`, and hands every other URL to `next`.
    package init(
        configuration: S3Configuration, transport: GuardedDataLoader, next: any DataLoading,
        now: @escaping @Sendable () -> Date = { Date() }, querySeparator: SourceURLQuerySeparator = .standard
    ) {
        self.configuration = configuration
        self.transport = transport
        self.next = next
        self.now = now
        self.querySeparator = querySeparator
    }

    package func loadData(
        for request: DataLoader.Request, progress: @escaping @Sendable (ImageTask.Progress) -> Void
    ) async throws(ImagePipeline.Error) -> DataLoader.Response {
        guard request.url.scheme?.lowercased() == Self.scheme else {
            return try await next.loadData(for: request, progress: progress)
        }
        guard let object = Self.object(request.url, separator: querySeparator) else { throw .httpStatus(request.url, statusCode: 404) }
        guard let target = Self.request(for: object, configuration: configuration, date: now()) else {
            throw .connectionFailed(request.url, reason: "the S3 endpoint cannot address bucket \(object.bucket)")
        }
        var signed = target
        signed.maximumBodySize = request.maximumBodySize
        return try await transport.loadData(fromTrustedOrigin: signed, progress: progress)
    }

    /// A bucket, a key and the version asked for.
    package struct Object: Sendable, Hashable {
        package var bucket: String
        package var key: String
        package var version: String?
    }

    /// The bucket (the host), the key (the decoded path without its leading slash) and the version
    /// (what follows `separator`: by default the whole query) of an `s3:` URL; `nil` when the
    /// bucket or the key is empty.
    package static func object(_ url: URL, separator: SourceURLQuerySeparator = .standard) -> Object? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let bucket = components.host, !bucket.isEmpty,
            let decoded = separator.encodedText(of: components).removingPercentEncoding
        else { return nil }
        var (key, version) = separator.split(decoded, components: components)
        while key.hasPrefix("/") { key.removeFirst() }
        guard !key.isEmpty else { return nil }
        if version?.isEmpty == true { version = nil }
        return Object(bucket: bucket, key: key, version: version)
    }

    /// The signed `GetObject` request for `object`, or `nil` when the endpoint yields no URL.
    package static func request(for object: Object, configuration: S3Configuration, date: Date) -> DataLoader.Request? {
        let endpoint = configuration.endpoint
        guard var components = endpoint.flatMap({ URLComponents(url: $0, resolvingAgainstBaseURL: false) }) ?? URLComponents(string: "https://s3.\(configuration.region).amazonaws.com"),
            let endpointHost = components.host
        else { return nil }
        let base = components.path
        let pathStyle = endpoint == nil ? !isDNSLabel(object.bucket) : configuration.usesPathStyle
        let host = pathStyle ? endpointHost : "\(object.bucket).\(endpointHost)"
        let path = (pathStyle ? "\(base)/\(object.bucket)/" : "\(base)/") + object.key
        let query = object.version.map { [("versionId", $0)] } ?? []
        components.host = nil
        let authority = (host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host) + (components.port.map { ":\($0)" } ?? "")
        var headers = ["x-amz-content-sha256": SignatureV4.emptyPayloadHash]
        if let credentials = configuration.credentials {
            let signer = SignatureV4(credentials: credentials, region: configuration.region, service: "s3")
            let signed = signer.sign(host: authority, path: path, query: query, headers: headers, date: date)
            headers.merge(signed.headers) { $1 }
        }
        let queryText = query.isEmpty ? "" : "?" + SignatureV4.canonicalQuery(query)
        guard let url = URL(string: "\(components.scheme ?? "https")://\(authority)\(SignatureV4.encodedPath(path))\(queryText)") else {
            return nil
        }
        return DataLoader.Request(url: url, headers: headers, credentialHeaderNames: ["x-amz-security-token"])
    }

    /// Whether `bucket` can be the first label of a host name with a wildcard certificate:
    /// lower-case letters, digits and hyphens, 3 to 63 of them, no dot.
    private static func isDNSLabel(_ bucket: String) -> Bool {
        let allowed = Set(Array("abcdefghijklmnopqrstuvwxyz0123456789-".utf8))
        guard (3...63).contains(bucket.utf8.count), bucket.first != "-", bucket.last != "-" else { return false }
        return bucket.utf8.allSatisfy { allowed.contains($0) }
    }
}
#endif
