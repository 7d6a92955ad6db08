import Imago

/// libFuzzer entry: `ImageHeader.probe`, `ImageHeader.details` and the figures callers derive from its answer
/// (Fuzz/run.sh probe SECONDS).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.probe(FuzzTarget.data(start, count))
    return 0
}
