import Imago

/// libFuzzer entry: the EXIF, XMP and IPTC readers, filters and writers (Fuzz/run.sh metadata SECONDS).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.metadata(FuzzTarget.data(start, count))
    return 0
}
