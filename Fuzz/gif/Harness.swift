import Imago

/// libFuzzer entry: GIF bytes through `ImageDecoder.decode(_:)` (Fuzz/run.sh gif SECONDS).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.decode(FuzzTarget.data(start, count), as: .gif)
    return 0
}
