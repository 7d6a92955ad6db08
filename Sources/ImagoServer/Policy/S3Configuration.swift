#if os(Linux)
import Foundation

/// Where `s3://bucket/key` sources are fetched and with which credentials (imgproxy's
/// `IMGPROXY_USE_S3`, `IMGPROXY_S3_REGION`, `IMGPROXY_S3_ENDPOINT`,
/// `IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE`, and the AWS SDK's `AWS_*` credentials).
public struct S3Configuration: Sendable, Hashable {
    /// The region requests are signed for. Default: `us-west-1`, imgproxy's when neither
    /// `IMGPROXY_S3_REGION` nor `AWS_REGION` is set.
    public var region: String = "us-west-1"
    /// An S3-compatible store (MinIO, R2, Ceph…) instead of AWS: `http://host:port` (imgproxy
    /// reads a bare `host:port` as http). The operator names it, so the source policy's address
    /// rules (which guard the URLs of requests) do not apply to it. Default: `nil`, AWS's
    /// regional endpoint `s3.REGION.amazonaws.com` over https.
    public var endpoint: URL? = nil
    /// With ``endpoint``, whether the bucket is the path's first segment (`http://host/bucket/key`)
    /// rather than the host's first label (`http://bucket.host/key`). AWS's own endpoint is
    /// always addressed virtual-hosted, except for a bucket name that is no DNS label there
    /// (a dot would break the certificate's wildcard). Default: `true`, as imgproxy.
    public var usesPathStyle: Bool = true
    /// The credentials requests are signed with; `nil` sends them unsigned (public buckets).
    /// Default: `nil`.
    package var credentials: SignatureV4.Credentials? = nil

    public init() {}

    /// The credentials requests are signed with, from an access key and secret (and a session
    /// token for temporary credentials).
    public mutating func setCredentials(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        credentials = SignatureV4.Credentials(accessKeyID: accessKeyID, secretAccessKey: secretAccessKey, sessionToken: sessionToken)
    }

    /// `text` as an endpoint URL: `http://` added when it names no scheme (imgproxy's reading),
    /// the scheme's default port and a trailing slash dropped; `nil` when it is no http(s) URL
    /// with a host.
    public static func endpoint(_ text: String) -> URL? {
        let withScheme = text.contains("://") ? text : "http://" + text
        guard var components = URLComponents(string: withScheme), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { return nil }
        components.scheme = scheme
        if components.port == (scheme == "https" ? 443 : 80) { components.port = nil }
        while components.path.hasSuffix("/") { components.path.removeLast() }
        components.query = nil
        components.fragment = nil
        return components.url
    }
}
#endif
