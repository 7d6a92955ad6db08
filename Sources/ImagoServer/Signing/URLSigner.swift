#if os(Linux)
import Crypto
import Foundation

/// Signs and checks processing paths as imgproxy does: the signature is the base64url
/// HMAC-SHA256, keyed with ``key``, of ``salt`` followed by the path after the signature segment.
///
/// Checking compares in constant time (swift-crypto's `isValidAuthenticationCode`), so the time
/// taken says nothing about how much of a forged signature was right.
public struct URLSigner: Sendable {
    /// Why a signature was refused.
    public enum Refusal: Sendable, Hashable {
        /// No signature (an empty segment, `_` or `insecure`).
        case missing
        /// A signature that does not match (malformed, altered options or source, another key).
        case mismatch

        /// The stable error code clients see.
        public var code: String { self == .missing ? "signature_missing" : "signature_invalid" }
    }

    private let key: SymmetricKey
    private let salt: [UInt8]

    /// A signer with raw `key` and `salt` bytes.
    public init(key: [UInt8], salt: [UInt8]) {
        self.key = SymmetricKey(data: key)
        self.salt = salt
    }

    /// The fewest bytes a key may have: 32, the output size of SHA-256 (RFC 2104 advises no less
    /// than the hash's output; a short key can be found by trying, and every URL signed with it forged).
    public static let minimumKeyLength = 32

    /// A signer with hex-encoded key and salt, as `IMAGO_KEY` and `IMAGO_SALT` hold them; a key
    /// of fewer than ``minimumKeyLength`` bytes is refused.
    public init(hexKey: String, hexSalt: String) throws(SigningKeyError) {
        guard let key = Self.bytes(fromHex: hexKey), !key.isEmpty else {
            throw SigningKeyError("the key is not an even number of hex digits (make one with `openssl rand -hex 32`)")
        }
        guard key.count >= Self.minimumKeyLength else {
            throw SigningKeyError(
                "the key has \(key.count) bytes; at least \(Self.minimumKeyLength) are needed (make one with `openssl rand -hex 32`)")
        }
        guard let salt = Self.bytes(fromHex: hexSalt) else {
            throw SigningKeyError("the salt is not an even number of hex digits (make one with `openssl rand -hex 16`)")
        }
        self.init(key: key, salt: salt)
    }

    /// The signature of `signedPart` (the path from the `/` after the signature segment).
    public func signature(for signedPart: String) -> String {
        Base64URL.encode(HMAC<SHA256>.authenticationCode(for: salt + Array(signedPart.utf8), using: key))
    }

    /// `nil` when `signature` is the right one for `signedPart`, else why not.
    public func check(signature: String, for signedPart: String) -> Refusal? {
        if signature.isEmpty || signature == "_" || signature == "insecure" { return .missing }
        guard let code = Base64URL.decode(Substring(signature)), code.count == SHA256.byteCount else { return .mismatch }
        let valid = HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: salt + Array(signedPart.utf8), using: key)
        return valid ? nil : .mismatch
    }

    /// A whole signed path for `options` (segments such as `rs:fit:300:200`) and `source`:
    /// `/{signature}/{options}/plain/{escaped source}[@ext]`, or the base64url form.
    public func signedPath(options: [String], source: URL, format: String? = nil, encodeSource: Bool = false) -> String {
        let part = Self.unsignedPart(options: options, source: source, format: format, encodeSource: encodeSource)
        return "/" + signature(for: part) + part
    }

    /// The path after the signature segment, for `imago sign` and for unsigned use.
    public static func unsignedPart(options: [String], source: URL, format: String?, encodeSource: Bool) -> String {
        let prefix = options.isEmpty ? "" : "/" + options.joined(separator: "/")
        if encodeSource {
            return prefix + "/" + Base64URL.encode(Array(source.absoluteString.utf8)) + (format.map { ".\($0)" } ?? "")
        }
        return prefix + "/plain/" + escaped(source.absoluteString) + (format.map { "@\($0)" } ?? "")
    }

    /// `text` with everything but unreserved characters percent-escaped (so `/`, `?`, `@` and `%`
    /// of the source survive the trip through the path).
    static func escaped(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static func bytes(fromHex text: String) -> [UInt8]? {
        let digits = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = digits[index].hexDigitValue, let low = digits[index + 1].hexDigitValue else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
#endif
