import Imago

/// libFuzzer entry: a JPEG arriving in pieces, through the scan tracker, the preview decisions and
/// the preview decoder (Fuzz/run.sh jpeg-preview SECONDS).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.jpegPreview(FuzzTarget.data(start, count))
    return 0
}
