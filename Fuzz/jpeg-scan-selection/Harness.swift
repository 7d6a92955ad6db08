import Imago

/// libFuzzer entry: `JPEGScanSelector`, which picks the scans of a progressive JPEG that a 1/8
/// decode reads, and the decode of those scans against the whole file's
/// (Fuzz/run.sh jpeg-scan-selection SECONDS).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.jpegScanSelection(FuzzTarget.data(start, count))
    return 0
}
