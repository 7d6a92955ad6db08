/// Bounds-checked reads over untrusted bytes: every read past the end is `nil`, never a trap, and
/// offsets are plain `Int`s that a caller checks before adding sizes read from the bytes.
struct MetadataBytes {
    let bytes: UnsafeBufferPointer<UInt8>

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var count: Int { bytes.count }

    func byte(_ offset: Int) -> UInt8? {
        offset >= 0 && offset < bytes.count ? bytes[offset] : nil
    }

    func uint16(_ offset: Int, bigEndian: Bool) -> Int? {
        guard let a = byte(offset), let b = byte(offset &+ 1), offset < Int.max - 1 else { return nil }
        return bigEndian ? Int(a) << 8 | Int(b) : Int(b) << 8 | Int(a)
    }

    func uint32(_ offset: Int, bigEndian: Bool) -> Int? {
        guard offset >= 0, offset <= bytes.count - 4 else { return nil }
        let (a, b, c, d) = (Int(bytes[offset]), Int(bytes[offset + 1]), Int(bytes[offset + 2]), Int(bytes[offset + 3]))
        return bigEndian ? a << 24 | b << 16 | c << 8 | d : d << 24 | c << 16 | b << 8 | a
    }

    /// Whether `expected` lies at `offset`.
    func matches(_ offset: Int, _ expected: [UInt8]) -> Bool {
        guard offset >= 0, offset <= bytes.count - expected.count else { return false }
        for index in expected.indices where bytes[offset + index] != expected[index] { return false }
        return true
    }

    /// The bytes in `start..<start + length`, or `nil` when any of them lies outside.
    func slice(_ start: Int, length: Int) -> UnsafeBufferPointer<UInt8>.SubSequence? {
        guard start >= 0, length >= 0, start <= bytes.count, length <= bytes.count - start else { return nil }
        return bytes[start..<(start + length)]
    }
}
