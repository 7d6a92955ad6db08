import Imago

/// libFuzzer entry: a resumed download's answer (a response head, an empty line, body bytes)
/// through the `Content-Range` and `Accept-Ranges` readers and `ResumptionStateMachine`
/// (Fuzz/run.sh resumption SECONDS).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.resumption(FuzzTarget.data(start, count))
    return 0
}
