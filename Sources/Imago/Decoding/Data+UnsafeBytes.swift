import Foundation

extension Data {
    /// Runs `body` over the bytes with the typed error intact (`withUnsafeBytes` only rethrows
    /// untyped errors).
    func withBytes<Result>(
        _ body: (UnsafeBufferPointer<UInt8>) throws(ImagePipeline.Error) -> Result
    ) throws(ImagePipeline.Error) -> Result {
        let outcome: Swift.Result<Result, ImagePipeline.Error> = withUnsafeBytes { raw in
            Swift.Result { () throws(ImagePipeline.Error) -> Result in try body(raw.bindMemory(to: UInt8.self)) }
        }
        return try outcome.get()
    }
}

extension Array where Element == UInt8 {
    /// An array of `count` bytes that `fill` writes in full; the caller throws away the array when
    /// `fill` reports failure. Saves zeroing a buffer a decoder overwrites anyway, and asks for
    /// huge pages when the buffer is large (``PixelMemory``), which saves most first-touch faults.
    static func filled(count: Int, by fill: (UnsafeMutablePointer<UInt8>) -> Bool) -> [UInt8]? {
        var succeeded = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress {
                PixelMemory.adviseSequentialWrite(base, count: count)
                succeeded = fill(base)
            }
            initialized = count
        }
        return succeeded ? bytes : nil
    }
}
