/// GIF's variable-length LZW compression (the inverse of ``LZWDecoder``).
///
/// The code width is decided as the decoder will decide it: the encoder follows the decoder's
/// table (which lags one entry behind its own) and widens a code exactly when the decoder will,
/// so the two never disagree, at the end of the data either. When the encoder's table is full
/// (4096 codes) it sends a clear code and starts again.
enum GIFLZWEncoder {
    /// `indices` (each below `1 << minimumCodeSize`) compressed, without GIF's sub-block framing.
    static func compress(_ indices: [UInt8], minimumCodeSize: Int) -> [UInt8] {
        var writer = Writer(minimumCodeSize: minimumCodeSize)
        let clear = 1 << minimumCodeSize
        var table: [Int: Int] = [:]
        table.reserveCapacity(4096)
        var nextCode = clear + 2
        writer.emit(clear)
        guard var current = indices.first.map(Int.init) else {
            writer.emit(clear + 1)
            return writer.finish()
        }
        for index in indices.dropFirst() {
            let key = current << 8 | Int(index)
            if let code = table[key] {
                current = code
                continue
            }
            writer.emit(current)
            if nextCode < 4096 {
                table[key] = nextCode
                nextCode += 1
            } else {
                writer.emit(clear)
                table.removeAll(keepingCapacity: true)
                nextCode = clear + 2
            }
            current = Int(index)
        }
        writer.emit(current)
        writer.emit(clear + 1)
        return writer.finish()
    }

    /// Packs codes least significant bit first, at the width the decoder reads them.
    struct Writer {
        let minimumCodeSize: Int
        var bytes: [UInt8] = []
        var bits = 0
        var bitCount = 0
        /// The decoder's next free code and code width, and whether its next code is the first
        /// after a clear (which adds no entry).
        var decoderNext: Int
        var codeSize: Int
        var firstAfterClear = true

        init(minimumCodeSize: Int) {
            self.minimumCodeSize = minimumCodeSize
            decoderNext = (1 << minimumCodeSize) + 2
            codeSize = minimumCodeSize + 1
        }

        mutating func emit(_ code: Int) {
            bits |= code << bitCount
            bitCount += codeSize
            while bitCount >= 8 {
                bytes.append(UInt8(bits & 0xFF))
                bits >>= 8
                bitCount -= 8
            }
            let clear = 1 << minimumCodeSize
            if code == clear {
                decoderNext = clear + 2
                codeSize = minimumCodeSize + 1
                firstAfterClear = true
            } else if code == clear + 1 {
                return
            } else if firstAfterClear {
                firstAfterClear = false
            } else if decoderNext < 4096 {
                decoderNext += 1
                if decoderNext >= 1 << codeSize && codeSize < 12 { codeSize += 1 }
            }
        }

        mutating func finish() -> [UInt8] {
            if bitCount > 0 { bytes.append(UInt8(bits & 0xFF)) }
            return bytes
        }
    }
}
