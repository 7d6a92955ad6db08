import Imago

/// libFuzzer entry: WEBP bytes through `ImageDecoder.decode(_:)` (Fuzz/run.sh webp SECONDS).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.decode(FuzzTarget.data(start, count), as: .webp)
    return 0
}
