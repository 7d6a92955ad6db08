import Foundation

/// Counts the scans of a JPEG by walking its markers, without decoding anything, so
/// ``DecodingLimits/maximumProgressiveScans`` holds for decoders that cannot be stopped between
/// scans (ImageIO on Apple platforms). libjpeg-turbo on Linux enforces the same limit itself, scan
/// by scan; both count every start-of-scan (`SOS`) segment, so both refuse the same files.
///
/// The walk reads segment lengths and skips entropy-coded data (where `FF 00` is a stuffed byte
/// and `FF D0`…`FF D7` are restart markers). It stops at the end of the image, at the first scan
/// over the limit, or where the bytes stop making sense: a malformed file is the decoder's to
/// refuse, this only counts. Every step moves forward, so it ends in time linear in the data.
enum JPEGScanCounter {
    /// The number of scans, counted up to `limit + 1` at most (enough to know the limit is
    /// exceeded); 0 for bytes that do not start like a JPEG.
    static func scanCount(of data: Data, stoppingAfter limit: Int) -> Int {
        data.withUnsafeBytes { raw in scanCount(of: raw.bindMemory(to: UInt8.self), stoppingAfter: limit) }
    }

    /// Throws ``ImagePipeline/Error/limitExceeded(_:_:)`` with
    /// ``DecodingLimits/Violation/progressiveScans(limit:)`` when `data` has more scans than
    /// `limits` allow.
    static func check(_ data: Data, limits: DecodingLimits, url: URL?) throws(ImagePipeline.Error) {
        let limit = limits.maximumProgressiveScans
        if scanCount(of: data, stoppingAfter: limit) > limit {
            throw .limitExceeded(url, .progressiveScans(limit: limit))
        }
    }

    private static func scanCount(of bytes: UnsafeBufferPointer<UInt8>, stoppingAfter limit: Int) -> Int {
        let end = bytes.count
        guard end >= 2, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return 0 }
        var scans = 0
        var index = 2
        while index + 1 < end {
            guard bytes[index] == 0xFF else {  // junk between segments: look for the next marker
                index += 1
                continue
            }
            let marker = bytes[index + 1]
            if marker == 0xFF {  // fill byte before a marker
                index += 1
                continue
            }
            index += 2
            switch marker {
            case 0xD9:  // end of image
                return scans
            case 0x00, 0x01, 0xD0...0xD7:  // stuffed byte, TEM, restart: no length follows
                continue
            default:
                break
            }
            guard index + 1 < end else { return scans }
            let length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
            guard length >= 2 else { return scans }
            index += length  // at most 65,535 past an index inside the buffer: no overflow
            guard marker == 0xDA else { continue }
            scans += 1
            if scans > limit { return scans }
            // Entropy-coded data runs to the next marker that is not a stuffed byte or a restart.
            while index + 1 < end {
                if bytes[index] == 0xFF {
                    let next = bytes[index + 1]
                    if next != 0x00 && !(0xD0...0xD7).contains(next) && next != 0xFF { break }
                    if next == 0xFF {
                        index += 1
                        continue
                    }
                    index += 2
                } else {
                    index += 1
                }
            }
        }
        return scans
    }
}
