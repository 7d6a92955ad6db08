#if os(Linux)
import Foundation
import Imago

extension ServeEnvironment {
    /// `IMGPROXY_PREFERRED_FORMATS`, read as imgproxy reads it: format names (case as written,
    /// `jpg` for `jpeg`) joined by commas; a name imgproxy does not know stops the start; one it
    /// knows but this server cannot write is set aside (second value), and none left to write
    /// stops the start too.
    static func preferredFormats(_ text: String) throws(ServeEnvironmentError) -> ([ImageFormat], [String]) {
        let writable: [String: ImageFormat] = [
            "jpeg": .jpeg, "jpg": .jpeg, "png": .png, "gif": .gif, "webp": .webp, "avif": .avif, "jxl": .jxl,
        ]
        let unwritable: Set = ["ico", "svg", "heic", "bmp", "tiff"]
        var formats: [ImageFormat] = []
        var passedOver: [String] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = item.trimmingCharacters(in: .whitespaces)
            if let format = writable[name] {
                if !formats.contains(format) { formats.append(format) }
            } else if unwritable.contains(name) {
                passedOver.append(name)
            } else {
                throw ServeEnvironmentError(
                    variable: "IMGPROXY_PREFERRED_FORMATS",
                    message: "takes format names (jpeg, png, gif, webp, avif, jxl) joined by commas; \"\(name)\" is none")
            }
        }
        guard !formats.isEmpty else {
            throw ServeEnvironmentError(
                variable: "IMGPROXY_PREFERRED_FORMATS", message: "names no format this server writes (jpeg, png, gif, webp, avif, jxl)")
        }
        return (formats, passedOver)
    }

    /// `IMGPROXY_PATH_PREFIX`: the path every route is served under, as imgproxy puts it before
    /// each of its routes (`/health` included). Trailing slashes are dropped (imgproxy would then
    /// answer only paths with a doubled slash); a prefix that does not start with `/`, has an
    /// empty, `.` or `..` segment, or a character outside letters, digits and `-._~` stops the
    /// start (imgproxy would serve nothing, or the router would read it as a pattern).
    static func pathPrefix(_ reader: Reader) throws(ServeEnvironmentError) -> String? {
        guard let text = reader.text("IMGPROXY_PATH_PREFIX") else { return nil }
        var prefix = text
        while prefix.count > 1, prefix.hasSuffix("/") { prefix.removeLast() }
        if prefix == "/" { return nil }
        let segments = prefix.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        guard prefix.hasPrefix("/"),
            segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && $0.allSatisfy(allowed.contains) })
        else {
            throw ServeEnvironmentError(
                variable: "IMGPROXY_PATH_PREFIX",
                message: "takes a path such as /images (segments of letters, digits and -._~), not \"\(text)\"")
        }
        return prefix
    }

    /// `IMGPROXY_BASE_URL`, `IMGPROXY_URL_REPLACEMENTS` (`pattern=replacement` pairs joined by
    /// `;`), `IMGPROXY_BASE64_URL_INCLUDES_FILENAME`, `IMGPROXY_ARGUMENTS_SEPARATOR` (not `/`) and
    /// `IMGPROXY_ALLOWED_PROCESSING_OPTIONS` (names joined by commas); `nil` when none is set.
    static func pathRules(_ reader: Reader) throws(ServeEnvironmentError) -> ProcessingPath.Rules? {
        var rules = ProcessingPath.Rules()
        var isSet = false
        if let base = reader.environment["IMGPROXY_BASE_URL"], !base.isEmpty {
            rules.baseURL = base
            isSet = true
        }
        if let text = reader.environment["IMGPROXY_URL_REPLACEMENTS"], !text.isEmpty {
            for pair in text.split(separator: ";", omittingEmptySubsequences: false) {
                guard let equals = pair.firstIndex(of: "=") else {
                    throw ServeEnvironmentError(
                        variable: "IMGPROXY_URL_REPLACEMENTS", message: "takes pattern=replacement pairs joined by ;, not \"\(pair)\"")
                }
                rules.urlReplacements.append(
                    .init(pattern: String(pair[..<equals]), replacement: String(pair[pair.index(after: equals)...])))
            }
            isSet = true
        }
        if let includes = try reader.boolean("IMGPROXY_BASE64_URL_INCLUDES_FILENAME") {
            rules.base64URLIncludesFilename = includes
            isSet = true
        }
        if let separator = reader.environment["IMGPROXY_ARGUMENTS_SEPARATOR"], !separator.isEmpty {
            guard !separator.contains("/") else {
                throw ServeEnvironmentError(
                    variable: "IMGPROXY_ARGUMENTS_SEPARATOR", message: "takes text without /, which separates a path's segments")
            }
            rules.argumentsSeparator = separator
            isSet = true
        }
        if let text = reader.text("IMGPROXY_ALLOWED_PROCESSING_OPTIONS") {
            rules.allowedOptions = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            isSet = true
        }
        return isSet ? rules : nil
    }
}
#endif
