#if os(Linux)
import Foundation

/// Signs and checks processing paths as imgproxy does: the signature is the base64url
/// HMAC-SHA256, keyed with a key, of its salt followed by the path after the signature segment,
/// cut to ``signatureSize`` bytes (imgproxy's `IMGPROXY_SIGNATURE_SIZE`).
///
/// Several key/salt pairs may be given (imgproxy's comma-separated `IMGPROXY_KEY` and
/// `IMGPROXY_SALT`), so keys can be rotated: a path signed with any of them is accepted, and new
/// paths are signed with the first.
///
/// Checking compares in constant time (every byte of every pair is compared), so the time taken
/// says nothing about how much of a forged signature was right.
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

    /// The key/salt pairs; the first signs.
    private let pairs: [(key: [UInt8], salt: [UInt8])]
    /// Bytes of the HMAC a signature carries, 1 to 32 (imgproxy's `IMGPROXY_SIGNATURE_SIZE`).
    /// Default: 32, the whole HMAC.
    public let signatureSize: Int

    /// Signatures accepted as they are, for any path (imgproxy's `IMGPROXY_TRUSTED_SIGNATURES`:
    /// URLs signed elsewhere that must keep working). Default: none.
    public var trustedSignatures: Set<String> = []

    /// A signer with raw `key` and `salt` bytes.
    public init(key: [UInt8], salt: [UInt8]) {
        self.init(pairs: [(key, salt)])
    }

    /// A signer with several raw key/salt pairs (at least one), signing with the first and
    /// accepting any; signatures cut to `signatureSize` bytes (clamped to 1...32).
    public init(pairs: [(key: [UInt8], salt: [UInt8])], signatureSize: Int = 32) {
        self.pairs = pairs
        self.signatureSize = min(max(1, signatureSize), 32)
    }

    /// The fewest bytes a key may have: 32, the output size of SHA-256 (RFC 2104 advises no less
    /// than the hash's output; a short key can be found by trying, and every URL signed with it forged).
    public static let minimumKeyLength = 32

    /// A signer with hex-encoded keys and salts, as `IMGPROXY_KEY` and `IMGPROXY_SALT` (or
    /// `IMAGO_KEY` and `IMAGO_SALT`) hold them: one each, or as many of each, comma-separated, as
    /// imgproxy allows; a key of fewer than ``minimumKeyLength`` bytes is refused. Errors never
    /// repeat a key's or salt's value.
    public init(hexKeys: String, hexSalts: String, signatureSize: Int = 32) throws(SigningKeyError) {
        let keys = hexKeys.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        var salts = hexSalts.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        if salts.isEmpty { salts = [""] }
        guard keys.count == salts.count else {
            throw SigningKeyError("there are \(keys.count) keys and \(salts.count) salts; give one salt per key, in the same order")
        }
        var pairs: [(key: [UInt8], salt: [UInt8])] = []
        for (key, salt) in zip(keys, salts) {
            let one = try URLSigner(hexKey: key, hexSalt: salt)
            pairs.append(one.rawPairs[0])
        }
        guard (1...32).contains(signatureSize) else {
            throw SigningKeyError("the signature size is \(signatureSize); it takes 1 to 32 bytes")
        }
        self.init(pairs: pairs, signatureSize: signatureSize)
    }

    /// The raw bytes of each pair (for building a signer of several pairs from checked ones).
    private var rawPairs: [(key: [UInt8], salt: [UInt8])] {
        pairs.map { pair in (pair.key.withUnsafeBytes { Array($0) }, pair.salt) }
    }

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

    /// The signature of `signedPart` (the path from the `/` after the signature segment), with
    /// the first pair.
    public func signature(for signedPart: String) -> String {
        Base64URL.encode(code(for: signedPart, pair: 0))
    }

    /// The HMAC of `signedPart` with pair `index`, cut to ``signatureSize`` bytes.
    private func code(for signedPart: String, pair index: Int) -> [UInt8] {
        let pair = pairs[index]
        return Array(HMACSHA256.code(for: pair.salt + Array(signedPart.utf8), key: pair.key).prefix(signatureSize))
    }

    /// `nil` when `signature` is the right one for `signedPart` under any pair, else why not.
    public func check(signature: String, for signedPart: String) -> Refusal? {
        if signature.isEmpty || signature == "_" || signature == "insecure" { return .missing }
        if trustedSignatures.contains(signature) { return nil }
        guard let given = Base64URL.decode(Substring(signature)), given.count == signatureSize else { return .mismatch }
        var valid = false
        for index in pairs.indices {
            // Every byte compared, whatever matched before: the time says nothing about the bytes.
            let matches = HMACSHA256.isEqual(Array(given), code(for: signedPart, pair: index))
            valid = valid || matches
        }
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
