/// Filters IPTC-IIM records (`1C`, record, dataset, a 16-bit length or an extended one, the
/// value), as imgproxy's `keep_copyright` does.
enum IPTCFilter {
    /// The datasets of record 2 that carry authorship: 80 (by-line), 110 (credit), 116
    /// (copyright notice).
    static let copyrightDatasets: Set<UInt8> = [80, 110, 116]

    /// `records` with every dataset of record 2 removed except ``copyrightDatasets`` (the other
    /// records, such as 1:90, the character set, kept); `nil` when none of record 2's kept
    /// datasets remains or the records cannot be read to their end.
    static func copyright(_ records: [UInt8]) -> [UInt8]? {
        var kept: [UInt8] = []
        var keepsAuthorship = false
        guard let ranges = self.records(records) else { return nil }
        for record in ranges {
            let number = records[record.lowerBound + 1], dataset = records[record.lowerBound + 2]
            if number == 2 {
                guard copyrightDatasets.contains(dataset) else { continue }
                keepsAuthorship = true
            }
            kept += records[record]
        }
        return keepsAuthorship ? kept : nil
    }

    /// Each record's whole range in `bytes` (marker to the end of its value), or `nil` when the
    /// bytes are not a sequence of records (trailing zero padding is allowed).
    static func records(_ bytes: [UInt8]) -> [Range<Int>]? {
        var ranges: [Range<Int>] = []
        var offset = 0
        while offset < bytes.count {
            if bytes[offset] == 0, bytes[offset...].allSatisfy({ $0 == 0 }) { break }  // padding
            guard bytes[offset] == 0x1C, bytes.count - offset >= 5 else { return nil }
            var length = Int(bytes[offset + 3]) << 8 | Int(bytes[offset + 4])
            var header = 5
            if length & 0x8000 != 0 {
                // Extended dataset: the low 15 bits count the bytes of the real length (at most 4 here).
                let count = length & 0x7FFF
                guard (1...4).contains(count), bytes.count - offset >= 5 + count else { return nil }
                length = 0
                for index in 0..<count { length = length << 8 | Int(bytes[offset + 5 + index]) }
                header += count
            }
            guard length <= bytes.count - offset - header else { return nil }
            ranges.append(offset..<(offset + header + length))
            offset += header + length
        }
        return ranges
    }
}
