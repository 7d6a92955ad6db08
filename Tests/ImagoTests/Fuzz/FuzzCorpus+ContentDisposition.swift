import Foundation

#if os(Linux)
@testable import ImagoServer
#endif

extension FuzzCorpus {
    /// Fuzz/content-disposition/Harness.swift: the `Content-Disposition` value the proxy writes
    /// from a URL's `fn` (plain and base64url), a source URL's last component, and a bare name:
    /// printable ASCII, a quoted name without quote or backslash, a `filename*` that decodes to it.
    static func contentDisposition(_ data: Data) {
        #if os(Linux)
        let text = String(decoding: data, as: UTF8.self)
        var names: [(ContentDisposition, String)] = []
        for path in [
            "/insecure/fn:\(text)/att:1/plain/https://example.com/a.png",
            "/insecure/fn:\(Base64URL.encode(data)):1/plain/https://example.com/a.png",
        ] {
            guard let parsed = try? ProcessingPath.parse(path), let filename = parsed.options.filename else { continue }
            names.append((ContentDisposition(options: parsed.options, source: parsed.source, format: .jpeg), filename + ".jpg"))
        }
        if let url = URL(string: "https://example.com/" + text) {
            let stem = ContentDisposition.stem(of: url)
            names.append((ContentDisposition(options: ProcessingOptions(), source: url, format: .webp), (stem.isEmpty ? "image" : stem) + ".webp"))
        }
        var bare = ProcessingOptions()
        bare.filename = text
        bare.returnAttachment = data.count % 2 == 1
        names.append((ContentDisposition(options: bare, source: URL(fileURLWithPath: "/a.png"), format: .png), (text.isEmpty ? "image" : text) + ".png"))
        for (disposition, expected) in names {
            precondition(disposition.filename == expected, "the file name is not the one asked")
            let value = disposition.headerValue
            precondition(value.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) }, "a byte outside printable ASCII")
            let prefix = value.hasPrefix("inline; filename=\"") ? "inline; filename=\"" : "attachment; filename=\""
            precondition(value.hasPrefix(prefix), "neither inline nor attachment with a filename")
            let rest = value.dropFirst(prefix.count)
            guard let quote = rest.firstIndex(of: "\"") else { preconditionFailure("the quoted name does not end") }
            precondition(!rest[..<quote].contains("\\"), "a backslash in the quoted name")
            let tail = rest[rest.index(after: quote)...]
            if tail.isEmpty {
                precondition(String(rest[..<quote]) == disposition.filename, "a changed name without filename*")
                continue
            }
            let star = "; filename*=UTF-8''"
            precondition(tail.hasPrefix(star), "something after the quoted name other than filename*")
            let encoded = tail.dropFirst(star.count)
            let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&+-.^_`|~%".utf8)
            precondition(encoded.utf8.allSatisfy(allowed.contains), "a character filename* may not hold")
            precondition(encoded.removingPercentEncoding == disposition.filename, "filename* does not decode to the name")
        }
        #endif
    }
}
