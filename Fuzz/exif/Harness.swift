import Imago

/// libFuzzer entry: the EXIF orientation reader over a JPEG's marker segments
/// (Fuzz/run.sh exif SECONDS).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.exifOrientation(FuzzTarget.data(start, count))
    return 0
}
