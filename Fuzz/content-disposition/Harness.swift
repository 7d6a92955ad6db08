import Foundation

@testable import Imago

/// libFuzzer entry: the `Content-Disposition` value the proxy writes (`ContentDisposition`) from
/// untrusted text three ways: a URL's `fn` argument (plain and base64url, through
/// `ProcessingPath.parse`), a source URL's last path component, and a file name as it is
/// (Fuzz/run.sh content-disposition SECONDS). Every value must be printable ASCII, `inline` or
/// `attachment` with a quoted `filename` holding no quote or backslash, and, when that lost
/// anything, a `filename*` that percent-decodes to the whole name. The grammar's files and
/// ContentDisposition.swift are compiled into the harness (Fuzz/content-disposition/sources).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    contentDisposition(FuzzTarget.data(start, count))
    return 0
}

/// What the replay test does with each file, too (FuzzCorpus.replay, "content-disposition").
func contentDisposition(_ data: Data) {
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
        checkContentDisposition(disposition.headerValue, filename: disposition.filename)
    }
}

/// The header value's rules (see Harness.swift's summary).
func checkContentDisposition(_ value: String, filename: String) {
    precondition(value.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) }, "a byte outside printable ASCII")
    let prefix = value.hasPrefix("inline; filename=\"") ? "inline; filename=\"" : "attachment; filename=\""
    precondition(value.hasPrefix(prefix), "neither inline nor attachment with a filename")
    let rest = value.dropFirst(prefix.count)
    guard let quote = rest.firstIndex(of: "\"") else { preconditionFailure("the quoted name does not end") }
    let quoted = rest[..<quote]
    precondition(!quoted.contains("\\"), "a backslash in the quoted name")
    let tail = rest[rest.index(after: quote)...]
    if tail.isEmpty {
        precondition(String(quoted) == filename, "a changed name without filename*")
        return
    }
    let star = "; filename*=UTF-8''"
    precondition(tail.hasPrefix(star), "something after the quoted name other than filename*")
    let encoded = tail.dropFirst(star.count)
    let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&+-.^_`|~%".utf8)
    precondition(encoded.utf8.allSatisfy(allowed.contains), "a character filename* may not hold")
    precondition(encoded.removingPercentEncoding == filename, "filename* does not decode to the name")
}
