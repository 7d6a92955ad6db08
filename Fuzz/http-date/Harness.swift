import Imago

/// libFuzzer entry: any bytes through `HTTPDate` (IMF-fixdate, RFC 850, asctime), the
/// `Retry-After` reader and the strong-`Last-Modified` rule of resumption, with a consistency
/// check: a date read prints back as an IMF-fixdate that reads to the same second
/// (Fuzz/run.sh http-date SECONDS).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.httpDate(FuzzTarget.data(start, count))
    return 0
}
