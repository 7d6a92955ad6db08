import Foundation

/// Follows a JPEG's markers as its bytes arrive, to tell whether it is progressive, how many of its
/// scans are complete and where the last complete one ends: a progressive JPEG cut there decodes
/// to a preview of those scans (``ImagePipeline/Configuration/decodesPreviews``).
///
/// A scan is complete once the marker after its entropy-coded data has arrived (until then more of
/// its data may follow). The tracker reads each byte once, in pieces of any size, and gives the same
/// answers whatever the split; it never looks back, keeps a few integers of state, and stops at the
/// end of the image or at bytes that cannot be a JPEG (``isMalformed``). It decodes nothing: the
/// decoder refuses what is wrong inside a scan.
struct JPEGScanTracker: Sendable, Hashable {
    /// What the frame header (`SOF`) says about the scans.
    enum Kind: Sendable, Hashable {
        /// No frame header yet.
        case unknown
        /// Progressive (`SOF2`, `SOF6`, `SOF10`, `SOF14`): each scan refines the whole image.
        case progressive
        /// Sequential (baseline and the rest): one scan, top to bottom; not previewed.
        case sequential
    }

    private(set) var kind = Kind.unknown
    /// Scans whose entropy-coded data has ended.
    private(set) var completedScans = 0
    /// Where the last complete scan's data ends (the offset of the marker after it): the bytes to
    /// decode for a preview of ``completedScans`` scans. 0 before the first scan completes.
    private(set) var boundary = 0
    /// Whether the end-of-image marker has arrived.
    private(set) var reachedEnd = false
    /// Whether the bytes cannot be a JPEG (no start-of-image, a segment length under 2).
    private(set) var isMalformed = false
    /// Bytes read so far.
    private(set) var count = 0

    private enum Step: Sendable, Hashable {
        case startOfImage(second: Bool)
        /// Between segments: looking for `FF`.
        case marker
        /// After `FF`: the marker's code.
        case markerCode
        case lengthHigh
        case lengthLow(high: UInt8)
        /// Inside a segment: bytes left to skip.
        case segment(remaining: Int)
        /// Inside a scan's entropy-coded data.
        case entropy
        /// After `FF` inside entropy-coded data, which began at `start`.
        case entropyFF(start: Int)
    }

    private var step = Step.startOfImage(second: false)
    private var marker: UInt8 = 0

    /// Reads the next bytes of the file.
    mutating func consume(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        let end = bytes.count
        var index = 0
        while index < end, !isMalformed, !reachedEnd {
            let byte = base[index]
            switch step {
            case .startOfImage(let second):
                guard byte == (second ? 0xD8 : 0xFF) else {
                    isMalformed = true
                    break
                }
                step = second ? .marker : .startOfImage(second: true)
            case .marker:
                if byte == 0xFF { step = .markerCode }  // anything else: junk between segments
            case .markerCode:
                readMarkerCode(byte)
            case .lengthHigh:
                step = .lengthLow(high: byte)
            case .lengthLow(let high):
                let length = Int(high) << 8 | Int(byte)
                guard length >= 2 else {
                    isMalformed = true
                    break
                }
                if length == 2 { endSegment() } else { step = .segment(remaining: length - 2) }
            case .segment(let remaining):
                let skipped = min(remaining, end - index)
                index += skipped
                if skipped == remaining { endSegment() } else { step = .segment(remaining: remaining - skipped) }
                continue
            case .entropy:
                // The data runs to the next FF; memchr finds it without a byte-by-byte loop.
                guard let found = memchr(base + index, 0xFF, end - index) else {
                    index = end
                    continue
                }
                index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                step = .entropyFF(start: count + index)
            case .entropyFF(let start):
                switch byte {
                case 0x00, 0xD0...0xD7:
                    step = .entropy  // a stuffed FF or a restart marker: the scan goes on
                case 0xFF:
                    break  // fill bytes before a marker
                default:
                    completedScans += 1
                    boundary = start
                    readMarkerCode(byte)
                }
            }
            index += 1
        }
        count += end
    }

    /// Reads the next bytes of the file from `data`.
    mutating func consume(_ data: some DataProtocol) {
        for region in data.regions {
            region.withUnsafeBytes { consume($0.bindMemory(to: UInt8.self)) }
        }
    }

    /// A marker's code: the end of the image, a marker without a length, or a segment's.
    private mutating func readMarkerCode(_ code: UInt8) {
        switch code {
        case 0xFF:
            step = .markerCode  // fill byte
        case 0xD9:
            reachedEnd = true
        case 0x00, 0x01, 0xD0...0xD8:
            step = .marker
        default:
            if kind == .unknown, (0xC0...0xCF).contains(code), ![0xC4, 0xC8, 0xCC].contains(code) {
                kind = [0xC2, 0xC6, 0xCA, 0xCE].contains(code) ? .progressive : .sequential
            }
            marker = code
            step = .lengthHigh
        }
    }

    /// After a segment: a start-of-scan header is followed by the scan's entropy-coded data.
    private mutating func endSegment() {
        step = marker == 0xDA ? .entropy : .marker
    }
}
