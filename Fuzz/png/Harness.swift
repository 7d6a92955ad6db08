import Foundation

@testable import Imago

/// libFuzzer entry: PNG bytes through `ImageDecoder.decode(_:)` (Fuzz/run.sh png SECONDS): the
/// default lenient policy at full size, again with a small target (the streamed box reduction
/// and, for Adam7 files, the per-pass block sums), and once under the strict policy.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzTarget.data(start, count)
    FuzzTarget.decode(data, as: .png)
    guard ImageFormat.sniff(data) == .png else { return 0 }
    _ = try? ImageDecoder.decode(data, limits: FuzzTarget.limits, maximumPixelSize: 2).bitmap()
    _ = try? ImageDecoder.decode(data, limits: FuzzTarget.limits, policy: .strict).bitmap()
    return 0
}
