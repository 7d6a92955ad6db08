/// Integers as the bytes a container format stores them in: what the writers of JPEG segments,
/// PNG chunks and WebP chunks (`ColorProfileEmbedder`, `MetadataEmbedder`, `WebPChunks`) share.
enum ByteOrder {
    /// Four bytes, most significant first (JPEG and PNG lengths).
    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// Four bytes, least significant first (RIFF sizes).
    static func littleEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }

    /// The low three bytes of `value`, least significant first (`VP8X`'s canvas size).
    static func littleEndian24(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)]
    }
}
