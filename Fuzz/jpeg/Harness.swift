import Imago

/// libFuzzer entry: JPEG bytes through `ImageDecoder.decode(_:)` (Fuzz/run.sh jpeg SECONDS).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.decode(FuzzTarget.data(start, count), as: .jpeg)
    return 0
}
