import Imago

/// libFuzzer entry: a response head (status line, then `Name: value` lines) through everything
/// that reads response headers: the cache validators, Retry-After, Content-Length and the retry
/// decision (Fuzz/run.sh http-headers SECONDS).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.responseHead(FuzzTarget.data(start, count))
    return 0
}
