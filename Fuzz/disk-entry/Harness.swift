import Imago

/// libFuzzer entry: the disk cache's entry header decoder (Fuzz/run.sh disk-entry SECONDS).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.diskEntryHeader(FuzzTarget.data(start, count))
    return 0
}
