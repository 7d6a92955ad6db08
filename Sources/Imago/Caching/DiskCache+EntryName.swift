#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension DiskCache {
    /// The name of an entry file: the SHA-256 of the entry's key, spelt as 64 lower-case
    /// hexadecimal digits on disk.
    ///
    /// In memory it is the digest's 32 bytes as four words, so the index and the recency journal
    /// hash and compare four integers on every hit, not a 64-character string, and hold no heap
    /// object per entry. The digits are written only where a path or a report needs them.
    struct EntryName: Hashable, Comparable, Sendable, CustomStringConvertible {
        /// The digest, most significant word first: its hexadecimal spelling in order.
        private let high: UInt64
        private let midHigh: UInt64
        private let midLow: UInt64
        private let low: UInt64

        /// The number of hexadecimal digits in a file name.
        static let length = 64

        /// The name of `key`'s entry.
        init(key: CacheKey) {
            let w = StableHash.sha256Words(key.rawValue)
            high = UInt64(w.0) << 32 | UInt64(w.1)
            midHigh = UInt64(w.2) << 32 | UInt64(w.3)
            midLow = UInt64(w.4) << 32 | UInt64(w.5)
            low = UInt64(w.6) << 32 | UInt64(w.7)
        }

        /// The name a directory listing shows, or nil when it is not an entry file's name (exactly
        /// 64 lower-case hexadecimal digits: temporary files, strays and upper-case spellings are
        /// not entries).
        init?(fileName: UnsafeBufferPointer<UInt8>) {
            guard fileName.count == Self.length,
                let high = Self.word(fileName, at: 0), let midHigh = Self.word(fileName, at: 16),
                let midLow = Self.word(fileName, at: 32), let low = Self.word(fileName, at: 48)
            else { return nil }
            (self.high, self.midHigh, self.midLow, self.low) = (high, midHigh, midLow, low)
        }

        /// The name a directory listing shows, or nil when `fileName` is not an entry's.
        init?(fileName: String) {
            var fileName = fileName
            guard let name = fileName.withUTF8({ EntryName(fileName: $0) }) else { return nil }
            self = name
        }

        /// The name a directory listing shows (a C string from `readdir`), or nil when it is not an entry's.
        init?(fileName: UnsafePointer<CChar>) {
            let count = strlen(fileName)
            guard count == Self.length else { return nil }
            let name = fileName.withMemoryRebound(to: UInt8.self, capacity: count) {
                EntryName(fileName: UnsafeBufferPointer(start: $0, count: count))
            }
            guard let name else { return nil }
            self = name
        }

        /// The 16 digits at `offset` as a word, or nil if one is not a lower-case hexadecimal digit.
        private static func word(_ digits: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt64? {
            var word: UInt64 = 0
            for character in digits[offset..<offset + 16] {
                switch character {
                case 0x30...0x39: word = word << 4 | UInt64(character - 0x30)
                case 0x61...0x66: word = word << 4 | UInt64(character - 0x57)
                default: return nil
                }
            }
            return word
        }

        /// Writes the 64 digits into the first 64 bytes of `buffer`.
        func writeDigits(into buffer: UnsafeMutableBufferPointer<UInt8>) {
            StableHash.writeHex(high, digits: 16, into: UnsafeMutableBufferPointer(rebasing: buffer[0..<16]))
            StableHash.writeHex(midHigh, digits: 16, into: UnsafeMutableBufferPointer(rebasing: buffer[16..<32]))
            StableHash.writeHex(midLow, digits: 16, into: UnsafeMutableBufferPointer(rebasing: buffer[32..<48]))
            StableHash.writeHex(low, digits: 16, into: UnsafeMutableBufferPointer(rebasing: buffer[48..<64]))
        }

        /// Calls `body` with `directory`, a slash and the 64 digits as a C string on the stack:
        /// the path of a hit costs no allocation.
        func withPath<Result>(in directory: String, _ body: (UnsafePointer<CChar>) -> Result) -> Result {
            var directory = directory
            return directory.withUTF8 { prefix in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: prefix.count + 2 + Self.length) { buffer in
                    _ = buffer.initialize(fromContentsOf: prefix)
                    buffer[prefix.count] = UInt8(ascii: "/")
                    writeDigits(into: UnsafeMutableBufferPointer(rebasing: buffer[(prefix.count + 1)...]))
                    buffer[prefix.count + 1 + Self.length] = 0
                    return buffer.withMemoryRebound(to: CChar.self) { body(UnsafePointer($0.baseAddress!)) }
                }
            }
        }

        /// `directory`, a slash and the 64 digits.
        func path(in directory: String) -> String {
            withPath(in: directory) { String(cString: $0) }
        }

        /// One word: the digest's words are uniformly distributed, and equal names have equal words.
        func hash(into hasher: inout Hasher) {
            hasher.combine(high)
        }

        /// The order of the file names' spellings.
        static func < (lhs: EntryName, rhs: EntryName) -> Bool {
            (lhs.high, lhs.midHigh, lhs.midLow, lhs.low) < (rhs.high, rhs.midHigh, rhs.midLow, rhs.low)
        }

        /// The file name: 64 lower-case hexadecimal digits.
        var description: String {
            String(unsafeUninitializedCapacity: Self.length) { buffer in
                writeDigits(into: buffer)
                return Self.length
            }
        }
    }
}
