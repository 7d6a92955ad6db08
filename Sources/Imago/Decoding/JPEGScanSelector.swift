import Foundation

/// Picks, from a progressive JPEG, the scans a 1/8-scale decode reads, so libjpeg is given only
/// those: a 256-pixel thumbnail of a 12-megapixel photograph then skips the luma AC scans, most of
/// the file and most of the entropy decoding.
///
/// At 1/8 libjpeg-turbo gives each component an inverse DCT of 1x1, or larger for a component
/// subsampled by a power of two so that it needs no upsampling (jdmaster.c: 2x2 for the chroma
/// of 4:2:0). A 1x1 transform reads only the DC coefficient; a larger one reads AC coefficients
/// too. So the DC scans (with their refinements) are kept, and so is every AC scan of a component
/// with a larger transform; the other AC scans are cut out by their markers, without decoding
/// them. Every other segment (tables, restart intervals, metadata) stays. Decoded with block
/// smoothing off, the coefficients never sent are zero, which a 1x1 transform ignores: the pixels
/// are those of the whole file.
///
/// Anything else is left to the whole decode (``Selection/whole(_:)`` says why): another scale, a
/// sequential, arithmetic-coded, lossless or 12-bit frame, a DNL marker, a scan script that is not
/// a clean progression (a coefficient sent twice, refined out of order, or never completed, which
/// would make libjpeg smooth the whole file's blocks), more scans than the limit, truncated data,
/// no end of image. The walk reads each byte at most once and every length is checked against the
/// bytes left.
enum JPEGScanSelector {
    /// Why the whole file is decoded instead.
    enum Fallback: Error, Sendable, Hashable {
        /// Not a JPEG, or bytes between segments that are not markers.
        case malformed
        /// A sequential frame: one scan, nothing to skip.
        case sequential
        /// Arithmetic coding, lossless or hierarchical, a precision other than 8 bits, a DNL
        /// marker, or a frame header out of place.
        case unusualFrame
        /// The decode is not at 1/8.
        case scale
        /// A scan header libjpeg would refuse or warn about, or a script that is not a clean
        /// progression ending with every coefficient complete.
        case unusualScans
        /// More scans than ``DecodingLimits/maximumProgressiveScans``: libjpeg refuses the file.
        case scanLimit
        /// The data ends before the end-of-image marker.
        case truncated
    }

    enum Selection: Sendable, Hashable {
        /// The file without the scans a 1/8 decode does not read.
        case scans(Data, kept: Int, of: Int)
        case whole(Fallback)
    }

    /// The scans of `data` that a decode at the scale `scaleNumerator` picks (out of 8) reads.
    /// - Parameters:
    ///   - scaleNumerator: the numerator of the decode's scale for a frame of the given width and
    ///     height (``JPEGDecoder/scaleNumerator(width:height:target:)``); only 1 selects scans.
    ///   - maximumScans: the scan limit, which the whole decode enforces.
    static func select(
        _ data: Data, maximumScans: Int, scaleNumerator: (_ width: Int, _ height: Int) -> Int
    ) -> Selection {
        data.withUnsafeBytes { raw in
            select(raw.bindMemory(to: UInt8.self), maximumScans: maximumScans, scaleNumerator: scaleNumerator)
        }
    }

    static func select(
        _ bytes: UnsafeBufferPointer<UInt8>, maximumScans: Int, scaleNumerator: (_ width: Int, _ height: Int) -> Int
    ) -> Selection {
        var reader = JPEGSegmentReader(bytes)
        guard reader.readStartOfImage() else { return .whole(.malformed) }
        var frame: JPEGScanScript?
        var skipped: [Range<Int>] = []
        var scans = 0
        while true {
            let segment: JPEGSegmentReader.Segment
            switch reader.next() {
            case .failure(let fallback): return .whole(fallback)
            case .success(let next): segment = next
            }
            switch segment.marker {
            case 0xD9:  // end of image
                guard let frame else { return .whole(.malformed) }
                guard frame.isComplete else { return .whole(.unusualScans) }
                return .scans(reader.copy(upTo: segment.end, leavingOut: skipped), kept: scans - skipped.count, of: scans)
            case 0xC0, 0xC1:
                return .whole(.sequential)
            case 0xC2:
                guard frame == nil, let parsed = JPEGScanScript(frameHeader: segment.body) else { return .whole(.unusualFrame) }
                guard scaleNumerator(parsed.width, parsed.height) == 1 else { return .whole(.scale) }
                frame = parsed
            case 0xC3, 0xC5...0xC7, 0xC8...0xCF, 0xDC, 0xDE, 0xDF:  // other frames, JPG, DAC, DNL, DHP, EXP
                return .whole(.unusualFrame)
            case 0xDA:
                guard frame != nil else { return .whole(.unusualFrame) }
                scans += 1
                guard scans <= maximumScans else { return .whole(.scanLimit) }
                guard let keep = frame?.read(scanHeader: segment.body) else { return .whole(.unusualScans) }
                let end: Int
                switch reader.skipEntropyCodedData() {
                case .failure(let fallback): return .whole(fallback)
                case .success(let found): end = found
                }
                if !keep { skipped.append(segment.start..<end) }
            default:
                break  // tables, restart interval, application data, comments: kept as they are
            }
        }
    }
}

/// Walks a JPEG's segments for ``JPEGScanSelector``: markers, lengths, and the entropy-coded data
/// after a scan header, where `FF 00` is a stuffed byte and `FF D0`…`FF D7` restart markers.
struct JPEGSegmentReader {
    struct Segment {
        var marker: UInt8
        /// The offset of the marker's `FF` (after any fill bytes).
        var start: Int
        /// The bytes after the length field.
        var body: UnsafeBufferPointer<UInt8>
        /// The offset after the segment.
        var end: Int
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private(set) var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func readStartOfImage() -> Bool {
        guard bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return false }
        index = 2
        return true
    }

    /// The next segment; the end of image has no body.
    mutating func next() -> Result<Segment, JPEGScanSelector.Fallback> {
        guard index < bytes.count else { return .failure(.truncated) }
        guard bytes[index] == 0xFF else { return .failure(.malformed) }
        var position = index
        while position + 1 < bytes.count, bytes[position + 1] == 0xFF { position += 1 }  // fill bytes
        guard position + 1 < bytes.count else { return .failure(.truncated) }
        let marker = bytes[position + 1]
        let start = position
        position += 2
        switch marker {
        case 0xD9:
            index = position
            return .success(Segment(marker: marker, start: start, body: UnsafeBufferPointer(rebasing: bytes[position..<position]), end: position))
        case 0x00, 0x01, 0xD0...0xD8:  // a stuffed byte, TEM, a restart or a second start of image here
            return .failure(.malformed)
        default:
            break
        }
        guard bytes.count - position >= 2 else { return .failure(.truncated) }
        let length = Int(bytes[position]) << 8 | Int(bytes[position + 1])
        guard length >= 2 else { return .failure(.malformed) }
        guard bytes.count - position >= length else { return .failure(.truncated) }
        let end = position + length
        index = end
        return .success(Segment(marker: marker, start: start, body: UnsafeBufferPointer(rebasing: bytes[(position + 2)..<end]), end: end))
    }

    /// Moves past a scan's entropy-coded data to the `FF` of the marker after it, and returns that
    /// offset.
    mutating func skipEntropyCodedData() -> Result<Int, JPEGScanSelector.Fallback> {
        guard let base = bytes.baseAddress else { return .failure(.truncated) }
        var position = index
        while position < bytes.count {
            guard let found = memchr(base + position, 0xFF, bytes.count - position) else { return .failure(.truncated) }
            position = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            var code = position + 1
            while code < bytes.count, bytes[code] == 0xFF { code += 1 }  // fill bytes before a marker
            guard code < bytes.count else { return .failure(.truncated) }
            switch bytes[code] {
            case 0x00, 0xD0...0xD7:
                position = code + 1  // a stuffed byte or a restart marker: the scan goes on
            default:
                index = position
                return .success(position)
            }
        }
        return .failure(.truncated)
    }

    /// The bytes before `end` without the `omitted` ranges (in order, inside `0..<end`).
    func copy(upTo end: Int, leavingOut omitted: [Range<Int>]) -> Data {
        var data = Data(capacity: end - omitted.reduce(0) { $0 + $1.count })
        var from = 0
        for range in omitted {
            data.append(UnsafeBufferPointer(rebasing: bytes[from..<range.lowerBound]))
            from = range.upperBound
        }
        data.append(UnsafeBufferPointer(rebasing: bytes[from..<end]))
        return data
    }
}
