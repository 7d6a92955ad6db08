#if os(Linux)
import Foundation
import Imago

/// A parsed proxy request path, imgproxy's processing-URL grammar (a subset):
///
/// ```
/// /{signature}/{option}/{option}…/plain/{percent-encoded source URL}[@{extension}]
/// /{signature}/{option}/{option}…/{base64url source URL, may be split by /}[.{extension}]
/// ```
///
/// Options are `name:arg:arg…` (``ProcessingOptionsParser``); the extension sets the output
/// format like `f:`. The signature covers ``signedPart``: everything after the signature segment,
/// its leading `/` included, exactly as received.
///
/// The path is untrusted input: every malformed part is a ``ProcessingPathError``, never a trap.
public struct ProcessingPath: Sendable, Hashable {
    /// The first segment: the base64url HMAC, or anything (`insecure`, `_`) when unsigned URLs are allowed.
    public var signature: String
    /// The part the signature covers: `/` and everything after the signature segment.
    public var signedPart: String
    /// The options, the extension applied.
    public var options: ProcessingOptions
    /// The source image URL (not yet checked against the source policy).
    public var source: URL

    /// The longest path accepted, in bytes.
    public static let maximumLength = 8 * 1024

    public init(signature: String, signedPart: String, options: ProcessingOptions, source: URL) {
        self.signature = signature
        self.signedPart = signedPart
        self.options = options
        self.source = source
    }

    /// Parses a request path (without query string); `pr:` names the presets of `presets`, whose
    /// `default` preset applies first, and which may say that paths name presets only; `rules`
    /// are the server's reading of options and sources (``Rules``: separator, allowed options,
    /// base URL, replacements). `defaults` are the options before the default preset and the
    /// path's own (the client hints' width and ratio, as imgproxy takes them).
    public static func parse(
        _ path: String, presets: ProcessingPresets = .none, rules: Rules = Rules(),
        defaults: ProcessingOptions = ProcessingOptions()
    ) throws(ProcessingPathError) -> ProcessingPath {
        guard path.utf8.count <= maximumLength else {
            throw .badPath("the path is \(path.utf8.count) bytes long, more than the \(maximumLength) accepted")
        }
        guard path.hasPrefix("/") else { throw .badPath("the path must start with /") }
        let body = path.dropFirst()
        guard let slash = body.firstIndex(of: "/") else {
            throw .badPath("expected /{signature}/{options}/{source}, found one segment only")
        }
        let signature = String(body[..<slash])  // may be empty: the signer calls that missing
        let signedPart = String(body[slash...])
        var segments = signedPart.dropFirst().split(separator: "/", omittingEmptySubsequences: false)[...]
        var parser = ProcessingOptionsParser(presets: presets)
        parser.options = defaults
        parser.argumentsSeparator = rules.argumentsSeparator
        parser.allowedOptions = rules.allowedOptions
        if presets.definitions["default"] != nil { try parser.applyPresets(["default"], for: "default") }
        if presets.onlyPresets {
            // imgproxy's only-presets mode: `/{signature}/{name}:{name}…/{source}`.
            guard let names = segments.first, !names.isEmpty, segments.count > 1 else {
                throw .badPath("expected /{signature}/{preset}:{preset}…/{source}: this server takes presets only")
            }
            try parser.applyPresets(names.split(separator: rules.argumentsSeparator, omittingEmptySubsequences: false), for: "preset")
            segments = segments.dropFirst()
            if segments.first == "plain" {
                segments = segments.dropFirst()
                let source = try plainSource(segments.joined(separator: "/"), parser: &parser, rules: rules)
                return ProcessingPath(signature: signature, signedPart: signedPart, options: parser.options, source: source)
            }
            let source = try encodedSource(encoded(segments, rules: rules), parser: &parser, rules: rules)
            return ProcessingPath(signature: signature, signedPart: signedPart, options: parser.options, source: source)
        }
        while let segment = segments.first {
            if segment == "plain" {
                segments = segments.dropFirst()
                let source = try plainSource(segments.joined(separator: "/"), parser: &parser, rules: rules)
                return ProcessingPath(signature: signature, signedPart: signedPart, options: parser.options, source: source)
            }
            if segment.contains(rules.argumentsSeparator) {
                try parser.apply(segment)
                segments = segments.dropFirst()
                continue
            }
            break
        }
        guard !segments.isEmpty else {
            throw .badPath("no source: end the path with /plain/{escaped URL} or /{base64url URL}")
        }
        let source = try encodedSource(encoded(segments, rules: rules), parser: &parser, rules: rules)
        return ProcessingPath(signature: signature, signedPart: signedPart, options: parser.options, source: source)
    }

    /// The base64url source's segments joined, its last segment left off when it is a file name
    /// (``Rules/base64URLIncludesFilename``, and more than one segment).
    private static func encoded(_ segments: ArraySlice<Substring>, rules: Rules) -> String {
        (rules.base64URLIncludesFilename && segments.count > 1 ? segments.dropLast() : segments).joined()
    }

    /// `{percent-encoded URL}[@ext]`.
    private static func plainSource(
        _ text: String, parser: inout ProcessingOptionsParser, rules: Rules
    ) throws(ProcessingPathError) -> URL {
        var encoded = Substring(text)
        if let at = encoded.lastIndex(of: "@") {
            let suffix = encoded[encoded.index(after: at)...]
            if let format = ProcessingOptionsParser.format(named: suffix) {
                parser.options.format = format
                encoded = encoded[..<at]
            }
        }
        guard let decoded = String(encoded).removingPercentEncoding else {
            throw .badSource("the plain source URL has a malformed percent escape")
        }
        return try url(from: rules.preprocess(decoded))
    }

    /// `{base64url}[.ext]`, the segments already joined.
    private static func encodedSource(
        _ text: String, parser: inout ProcessingOptionsParser, rules: Rules
    ) throws(ProcessingPathError) -> URL {
        var encoded = Substring(text)
        if let dot = encoded.lastIndex(of: ".") {
            let suffix = encoded[encoded.index(after: dot)...]
            guard let format = ProcessingOptionsParser.format(named: suffix) else {
                throw .badOptions("unknown extension \(ProcessingOptionsParser.quoted(suffix)); use jpg, jpeg, png, webp, avif, jxl, gif or auto")
            }
            parser.options.format = format
            encoded = encoded[..<dot]
        }
        guard let data = Base64URL.decode(encoded), let decoded = String(data: data, encoding: .utf8) else {
            throw .badSource("the source is neither /plain/{URL} nor valid base64url")
        }
        return try url(from: rules.preprocess(decoded))
    }

    /// An absolute URL with a host, or a `local:///path` (a file under the server's local
    /// filesystem root, imgproxy's `IMGPROXY_LOCAL_FILESYSTEM_ROOT`), which has none.
    private static func url(from text: String) throws(ProcessingPathError) -> URL {
        if let url = URL(string: text), url.scheme?.lowercased() == "local", !url.path.isEmpty { return url }
        guard !text.isEmpty, let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty,
            let host = url.host, !host.isEmpty
        else {
            throw .badSource("the source \(ProcessingOptionsParser.quoted(Substring(text))) is not an absolute URL with a host")
        }
        return url
    }
}
#endif
