import Imago

/// libFuzzer entry: HEIF and AVIF bytes (the ISOBMFF box parser, then libheif or libavif) through
/// `ImageDecoder.decode(_:)`, and again preferring an embedded thumbnail (Fuzz/run.sh heif-avif SECONDS).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzTarget.data(start, count)
    FuzzTarget.decode(data, as: .heif)
    FuzzTarget.decode(data, as: .avif)
    FuzzTarget.decodeEmbeddedThumbnail(data)
    return 0
}
