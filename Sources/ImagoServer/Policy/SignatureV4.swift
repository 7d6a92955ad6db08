#if os(Linux)
import Foundation
import Imago

/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`) of a request without a body, as a pure function:
/// the method, path, query, headers and time in, the headers to add out. ``S3DataLoader`` signs
/// its `GetObject` requests with it; it follows S3's reading of the rules: the path is encoded
/// once, segment by segment, `/` kept, and never normalized (a key may contain `..` or `//`).
///
/// The steps are AWS's: a canonical request (method, encoded path, sorted encoded query, sorted
/// lower-cased headers, signed header names, payload hash), the string to sign (algorithm, time,
/// scope, the canonical request's SHA-256), and the signature (HMAC-SHA256 under a key derived
/// from the secret by date, region and service).
package struct SignatureV4: Sendable {
    /// An access key and its secret, with the session token of temporary credentials.
    package struct Credentials: Sendable, Hashable, CustomStringConvertible {
        package var accessKeyID: String
        package var secretAccessKey: String
        /// `x-amz-security-token`, for temporary (STS) credentials. Default: `nil`.
        package var sessionToken: String?

        package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
            self.accessKeyID = accessKeyID
            self.secretAccessKey = secretAccessKey
            self.sessionToken = sessionToken
        }

        /// Never the secret or the token: credentials may end up in a log line.
        package var description: String { "credentials of access key \(accessKeyID)" }
    }

    /// The hex SHA-256 of an empty payload: what a GET signs as its body.
    package static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    package var credentials: Credentials
    /// The region of the scope (`us-east-1`).
    package var region: String
    /// The service of the scope (`s3`).
    package var service: String

    package init(credentials: Credentials, region: String, service: String) {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// What a request needs to carry to be signed.
    package struct Signed: Sendable, Hashable {
        /// `Authorization`, `x-amz-date` and, with temporary credentials, `x-amz-security-token`.
        package var headers: [String: String]
        /// The canonical request (for tests and debugging; holds no secret).
        package var canonicalRequest: String
        /// The string that was signed (holds no secret).
        package var stringToSign: String
    }

    /// Signs a request to `host` (with `:port` when not the scheme's default) for `path` (the
    /// decoded path, as the object key reads) with `query` (decoded names and values) and
    /// `headers` (besides `host` and `x-amz-date`, which are added), at `date`.
    package func sign(
        method: String = "GET", host: String, path: String, query: [(String, String)] = [], headers: [String: String] = [:],
        payloadHash: String = Self.emptyPayloadHash, date: Date
    ) -> Signed {
        let time = Self.timestamp(date)
        let day = String(time.prefix(8))
        var all: [String: String] = ["host": host, "x-amz-date": time]
        if let token = credentials.sessionToken { all["x-amz-security-token"] = token }
        for (name, value) in headers { all[name.lowercased()] = value }
        let names = all.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(Self.trimmed(all[$0] ?? ""))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let canonicalRequest = [
            method, Self.encodedPath(path), Self.canonicalQuery(query), canonicalHeaders, signedHeaders, payloadHash,
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", time, scope, StableHash.hex(StableHash.sha256(canonicalRequest.utf8)),
        ].joined(separator: "\n")
        var key = Array("AWS4\(credentials.secretAccessKey)".utf8)
        for part in [day, region, service, "aws4_request"] {
            key = HMACSHA256.code(for: part.utf8, key: key)
        }
        let signature = StableHash.hex(HMACSHA256.code(for: stringToSign.utf8, key: key))
        var added = [
            "Authorization":
                "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)",
            "x-amz-date": time,
        ]
        if let token = credentials.sessionToken { added["x-amz-security-token"] = token }
        return Signed(headers: added, canonicalRequest: canonicalRequest, stringToSign: stringToSign)
    }

    /// `path` encoded as S3 wants it in the canonical request and on the wire: every byte but
    /// the unreserved ones (`A-Z a-z 0-9 - . _ ~`) and `/` as `%XX`, upper-case hex.
    package static func encodedPath(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : "/" + path
        return absolute.split(separator: "/", omittingEmptySubsequences: false).map { encoded(String($0)) }.joined(separator: "/")
    }

    /// The canonical query: names and values encoded (`/` too), sorted by name, then value.
    package static func canonicalQuery(_ query: [(String, String)]) -> String {
        let pairs: [(name: String, value: String)] = query.map { (encoded($0.0), encoded($0.1)) }
        let sorted = pairs.sorted { (a, b) -> Bool in a.name == b.name ? a.value < b.value : a.name < b.name }
        return sorted.map { (pair) -> String in pair.name + "=" + pair.value }.joined(separator: "&")
    }

    /// `text`'s UTF-8 bytes with everything but `A-Z a-z 0-9 - . _ ~` as `%XX`.
    package static func encoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result.unicodeScalars.append("%")
                result.unicodeScalars.append(hexDigits[Int(byte >> 4)])
                result.unicodeScalars.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return result
    }

    /// The bytes never encoded: `A-Z a-z 0-9 - . _ ~`.
    private static let unreserved = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8))
    private static let hexDigits = Array("0123456789ABCDEF".unicodeScalars)

    /// `20150830T123600Z`: the time in UTC, to the second.
    package static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(parts.year ?? 1970)\(two(parts.month))\(two(parts.day))T\(two(parts.hour))\(two(parts.minute))\(two(parts.second))Z"
    }

    /// A header value as signed: no leading or trailing spaces, inner runs of spaces as one.
    private static func trimmed(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}
#endif
