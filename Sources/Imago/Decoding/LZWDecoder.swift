/// Decompresses GIF's variable-width LZW codes into colour indices.
///
/// Codes start at `minimumCodeSize + 1` bits and grow to 12; the table stops growing when full
/// (a "deferred clear"), as every browser allows. The decoder never produces more than `capacity`
/// indices, so a hostile stream cannot make it allocate beyond the frame it belongs to.
struct LZWDecoder {
    /// Why decompression stopped early.
    enum Failure: Error {
        /// A code referred to a table entry that does not exist yet.
        case invalidCode(Int)
        /// The minimum code size byte is outside 1…11 (0…11 when code size 0 is allowed).
        case invalidCodeSize(Int)
    }

    /// Decodes `compressed` and hands each run of indices to `emit`; returns how many indices were
    /// emitted, at most `capacity`. Fewer than `capacity` means the data ended early.
    ///
    /// A minimum code size of 0, which broken encoders write, is refused unless
    /// `allowsCodeSizeZero` (lenient decoding): then, as in browsers, the clear code is 1 and
    /// codes start one bit wide.
    static func decode(
        _ compressed: [UInt8], minimumCodeSize: Int, capacity: Int, allowsCodeSizeZero: Bool = false,
        emit: (UnsafeBufferPointer<UInt8>) -> Void
    ) throws(Failure) -> Int {
        guard ((allowsCodeSizeZero ? 0 : 1)...11).contains(minimumCodeSize) else { throw .invalidCodeSize(minimumCodeSize) }
        let clear = 1 << minimumCodeSize
        let end = clear + 1
        var prefix = [UInt16](repeating: 0, count: 4096)
        var suffix = [UInt8](repeating: 0, count: 4096)
        var stack = [UInt8](repeating: 0, count: 4097)
        for code in 0..<clear { suffix[code] = UInt8(truncatingIfNeeded: code) }

        var codeSize = minimumCodeSize + 1
        var next = clear + 2
        var previous = -1
        var first: UInt8 = 0
        var produced = 0
        var bits = 0
        var bitCount = 0
        var position = 0

        return try stack.withUnsafeMutableBufferPointer { (stack) throws(Failure) -> Int in
            while produced < capacity {
                while bitCount < codeSize && position < compressed.count {
                    bits |= Int(compressed[position]) << bitCount
                    bitCount += 8
                    position += 1
                }
                guard bitCount >= codeSize else { break }  // data ended
                let code = bits & ((1 << codeSize) - 1)
                bits >>= codeSize
                bitCount -= codeSize

                if code == clear {
                    codeSize = minimumCodeSize + 1
                    next = clear + 2
                    previous = -1
                    continue
                }
                if code == end { break }
                if previous < 0 {
                    guard code < clear else { throw .invalidCode(code) }
                    first = UInt8(truncatingIfNeeded: code)
                    stack[0] = first
                    produced += emitRun(stack, length: 1, limit: capacity - produced, emit)
                    previous = code
                    continue
                }
                var length = 0
                var current = code
                if code >= next {
                    guard code == next else { throw .invalidCode(code) }
                    stack[0] = first  // the KwKwK case: the code being defined right now
                    length = 1
                    current = previous
                }
                while current >= clear {
                    stack[length] = suffix[current]
                    length += 1
                    current = Int(prefix[current])
                }
                stack[length] = UInt8(truncatingIfNeeded: current)
                length += 1
                first = UInt8(truncatingIfNeeded: current)
                // The stack holds the string backwards; emit it in order.
                var string = UnsafeMutableBufferPointer(rebasing: stack[0..<length])
                string.reverse()
                produced += emitRun(stack, length: length, limit: capacity - produced, emit)

                if next < 4096 {
                    prefix[next] = UInt16(previous)
                    suffix[next] = first
                    next += 1
                    // `>=`: with a minimum code size of 0 or 1 the first new code is already past
                    // what the starting width can name.
                    if next >= 1 << codeSize && codeSize < 12 { codeSize += 1 }
                }
                previous = code
            }
            return produced
        }
    }

    private static func emitRun(
        _ stack: UnsafeMutableBufferPointer<UInt8>, length: Int, limit: Int,
        _ emit: (UnsafeBufferPointer<UInt8>) -> Void
    ) -> Int {
        let count = min(length, limit)
        emit(UnsafeBufferPointer(rebasing: stack[0..<count]))
        return count
    }
}
