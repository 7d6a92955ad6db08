import Imago

/// libFuzzer entry: PNG bytes through `ImageDecoder.decode(_:)` (Fuzz/run.sh png SECONDS).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.decode(FuzzTarget.data(start, count), as: .png)
    return 0
}
