import Foundation

/// libFuzzer entry: a request path through the proxy's URL grammar (`ProcessingPath.parse`,
/// options, base64url and percent-decoded sources, the canonical text) and the address-literal
/// parser of the source policy (Fuzz/run.sh processing-url SECONDS). The grammar's files are
/// compiled into the harness (Fuzz/processing-url/sources), not linked from ImagoServer.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    processingURL(FuzzTarget.data(start, count))
    return 0
}

/// What the replay test does with each file, too (FuzzCorpus.replay, "processing-url").
func processingURL(_ data: Data) {
    let text = String(decoding: data, as: UTF8.self)
    if let path = try? ProcessingPath.parse(text) {
        _ = path.options.canonical
        _ = path.options.pixelWidth * path.options.pixelHeight
    }
    if let address = IPAddress(text) {
        _ = address.nonPublicKind
        _ = IPAddress(address.description)
    }
}
