import Imago

/// libFuzzer entry: JPEG XL bytes (the `SizeHeader` and container walk of `JXLHeader`, then libjxl,
/// frame by frame) through `ImageDecoder.decode(_:)`, and `ImageHeader.probe` (Fuzz/run.sh jxl SECONDS).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzTarget.data(start, count)
    if let header = ImageHeader.probe(data) { precondition(header.width > 0 && header.height > 0) }
    FuzzTarget.decode(data, as: .jxl)
    return 0
}
