import Imago

/// libFuzzer entry: the HDR gain map readers (MPF index, ISO 21496-1, hdrgm XMP) and the JPEG
/// decode that carries the map (Fuzz/run.sh gain-map SECONDS).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.gainMap(FuzzTarget.data(start, count))
    return 0
}
