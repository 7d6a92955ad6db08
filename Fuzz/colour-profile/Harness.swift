import Imago

/// libFuzzer entry: the colour-profile readers and Little CMS (Fuzz/run.sh colour-profile SECONDS):
/// the colour a JPEG, PNG, WebP, HEIF or AVIF declares, or any other bytes as a bare ICC profile;
/// the profile it resolves to; a transform to sRGB from it, applied to a 7x3 bitmap; and the ICC
/// header reader on the raw bytes (FuzzTarget.colourProfile).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTarget.colourProfile(FuzzTarget.data(start, count))
    return 0
}
