import Imago

/// libFuzzer entry: `JPEGScanCounter`, which counts a JPEG's progressive scans from its markers
/// before ImageIO sees the bytes on Apple platforms (Fuzz/run.sh jpeg-scans SECONDS).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.jpegScans(FuzzTarget.data(start, count))
    return 0
}
