#if os(Linux)
import Foundation

extension ProcessingOptionsParser {
    /// `fiu`'s argument: a base64url-encoded absolute URL (imgproxy's `fallback_image_url`);
    /// empty: none.
    static func fallbackImageURL(_ argument: Substring, for name: Substring) throws(ProcessingPathError) -> URL? {
        guard !argument.isEmpty else { return nil }
        guard let data = Base64URL.decode(argument), let text = String(data: data, encoding: .utf8) else {
            throw .badOptions("\(quoted(name)): \(quoted(argument)) is not a base64url-encoded URL")
        }
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty, url.host?.isEmpty == false || scheme != "http" && scheme != "https"
        else {
            throw .badOptions("\(quoted(name)): the decoded text is not an absolute URL")
        }
        return url
    }
}
#endif
