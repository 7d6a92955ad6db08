import Foundation

extension ImageHeader {
    /// Everything `imago inspect` reports about an image, read from its header and container
    /// structure without decoding a single pixel: frames are counted by walking chunks and blocks
    /// (a GIF's image data is skipped sub-block by sub-block, never decompressed).
    ///
    /// A figure the format does not state, or that this reader does not look for, is nil.
    public struct Details: Sendable, Hashable {
        /// Format and declared pixel size.
        public var header: ImageHeader
        /// Frames in the file: 1 for a still image; nil when the container was cut short before
        /// it could be counted.
        public var frameCount: Int?
        /// The EXIF orientation (1–8) when the file states one.
        public var orientation: Int?
        /// How pixels are stored: `gray`, `gray+alpha`, `rgb`, `rgba`, `indexed`, `ycbcr`, `cmyk`,
        /// `yuv` (lossy WebP) or `argb` (lossless WebP).
        public var colorModel: String?
        /// Bits per channel (for `indexed`, bits per palette index).
        public var bitDepth: Int?
        /// Whether the image declares transparency.
        public var hasAlpha: Bool?
        /// The ICC profile the file embeds (JPEG `APP2`, PNG `iCCP`, WebP `ICCP`, HEIF/AVIF `colr`),
        /// when it embeds a readable one.
        public var colorProfile: ColorProfile?
        /// What the file declares about its colour, in words: "ICC profile", "CICP 12/13/6
        /// (Display P3 primaries, sRGB transfer)", "sRGB chunk", "gAMA 0.55556, cHRM"; nil when it
        /// declares nothing (read as sRGB).
        public var colorDeclaration: String?
        /// Why a declared profile cannot be used (it is then read as sRGB), when one cannot.
        public var colorProblem: String?
        /// The HDR gain map the file carries (a JPEG's MPF image with ISO 21496-1 or `hdrgm`
        /// metadata), found without decoding it; nil without one.
        public var gainMap: GainMapDetails?
        /// Why a gain map the file declares cannot be used (the base then decodes alone), when
        /// one cannot.
        public var gainMapProblem: String?

        /// A gain map found by ``ImageHeader/details(_:)``.
        public struct GainMapDetails: Sendable, Hashable {
            /// The map's size, as its own header declares it.
            public var pixelSize: PixelSize
            /// How its values become gains, and where that was read from.
            public var metadata: GainMap.Metadata
        }
    }

    /// Reads the details of `data`; nil when ``probe(_:)`` finds no header. Never traps on any
    /// input, and its work is bounded by the input's size.
    public static func details(_ data: Data) -> Details? {
        guard let header = probe(data) else { return nil }
        let bytes = ByteReader(data)
        var details = Details(header: header)
        switch header.format {
        case .png: readPNG(bytes, into: &details)
        case .jpeg: readJPEG(bytes, data: data, into: &details)
        case .gif: readGIF(bytes, into: &details)
        case .webp: readWebP(bytes, into: &details)
        case .heif, .avif:
            details.frameCount = (try? ISOBMFFHeader.parse(data)).map { $0.frameCount ?? 1 }
        default: break
        }
        readColor(data, into: &details)
        if header.format == .jpeg { readGainMap(data, into: &details) }
        return details
    }

    /// The gain map's metadata and its own JPEG header's size (``JPEGGainMapReader``, bounded).
    private static func readGainMap(_ data: Data, into details: inout Details) {
        switch JPEGGainMapReader.read(data) {
        case .none:
            break
        case .found(let found):
            if let map = found.mapImage(in: data)?.header {
                details.gainMap = Details.GainMapDetails(pixelSize: PixelSize(width: map.width, height: map.height), metadata: found.metadata)
            } else {
                details.gainMapProblem = JPEGGainMapReader.Found.unreadableHeader
            }
        case .ignored(let problem):
            details.gainMapProblem = problem.description
        }
    }

    private static func readColor(_ data: Data, into details: inout Details) {
        let reading = EmbeddedColor.read(
            data, format: details.header.format, maximumProfileSize: DecodingLimits().maximumColorProfileSize)
        var problems = reading.problems
        switch reading.color {
        case .icc(let profile):
            details.colorDeclaration = "ICC profile"
            do { details.colorProfile = try ColorProfile(iccData: profile) } catch { problems.append(error.description) }
        case .codePoints(let points):
            let named = [points.chromaticities.map { "\($0.name) primaries" }, points.transferCurve?.name].compactMap { $0 }
            details.colorDeclaration = "\(points)" + (named.isEmpty ? "" : " (\(named.joined(separator: ", ")))")
        case .chromaticities(let gamma, let points):
            details.colorDeclaration = [gamma.map { String(format: "gAMA %.5f", $0) }, points.map { _ in "cHRM" }]
                .compactMap { $0 }.joined(separator: ", ")
        case .sRGB:
            details.colorDeclaration = "sRGB chunk"
        case nil:
            break
        }
        details.colorProblem = problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    // MARK: - PNG

    private static func readPNG(_ bytes: ByteReader, into details: inout Details) {
        if let depth = bytes.byte(at: 24), let colorType = bytes.byte(at: 25) {
            details.bitDepth = Int(depth)
            switch colorType {
            case 0: (details.colorModel, details.hasAlpha) = ("gray", false)
            case 2: (details.colorModel, details.hasAlpha) = ("rgb", false)
            case 3: (details.colorModel, details.hasAlpha) = ("indexed", false)
            case 4: (details.colorModel, details.hasAlpha) = ("gray+alpha", true)
            case 6: (details.colorModel, details.hasAlpha) = ("rgba", true)
            default: break
            }
        }
        // Chunks: length (4), type (4), data, CRC (4). `acTL` before `IDAT` makes an APNG; `tRNS`
        // gives a palette or a colour key transparency.
        details.frameCount = 1
        var offset = 8
        // `Int(exactly:)`: on a 32-bit platform a length past Int.max ends the walk instead of trapping.
        while let length = bytes.uint32BE(at: offset).flatMap({ Int(exactly: $0) }),
            let type = bytes.ascii(at: offset + 4, count: 4)
        {
            switch type {
            case "acTL":
                if let frames = bytes.uint32BE(at: offset + 8).flatMap({ Int(exactly: $0) }) { details.frameCount = frames }
            case "tRNS":
                details.hasAlpha = true
            case "IDAT", "IEND":
                return
            default: break
            }
            // 12 bytes of framing plus the data; an absurd length simply ends the walk.
            let (framed, overflowFramed) = length.addingReportingOverflow(12)
            guard !overflowFramed else { return }
            let (next, overflow) = offset.addingReportingOverflow(framed)
            guard !overflow, next > offset else { return }
            offset = next
        }
    }

    // MARK: - JPEG

    private static func readJPEG(_ bytes: ByteReader, data: Data, into details: inout Details) {
        details.frameCount = 1
        details.hasAlpha = false
        details.orientation = EXIFOrientation(jpeg: data).map(\.rawValue)
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes.byte(at: offset) == 0xFF, let marker = bytes.byte(at: offset + 1) else { return }
            if marker == 0xFF {
                offset += 1
                continue
            }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
                offset += 2
                continue
            }
            guard let length = bytes.uint16BE(at: offset + 2), length >= 2 else { return }
            let isStartOfFrame = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
            if isStartOfFrame {
                details.bitDepth = bytes.byte(at: offset + 4).map(Int.init)
                switch bytes.byte(at: offset + 9) {
                case 1: details.colorModel = "gray"
                case 3: details.colorModel = "ycbcr"
                case 4: details.colorModel = "cmyk"
                default: break
                }
                return
            }
            if marker == 0xDA || marker == 0xD9 { return }
            offset += 2 + Int(length)
        }
    }

    // MARK: - GIF

    /// Most blocks walked before giving up: a real GIF with this many is far past every limit.
    static let maximumGIFBlocks = 1_000_000

    private static func readGIF(_ bytes: ByteReader, into details: inout Details) {
        details.colorModel = "indexed"
        details.hasAlpha = false
        guard let packed = bytes.byte(at: 10) else { return }
        // Bits per palette index: the global table's size, else the colour resolution.
        details.bitDepth = Int(packed & 0x80 != 0 ? (packed & 0x07) + 1 : ((packed >> 4) & 0x07) + 1)
        var offset = 13
        if packed & 0x80 != 0 { offset += 3 << (Int(packed & 0x07) + 1) }
        var frames = 0
        var blocks = 0
        while blocks < maximumGIFBlocks, let introducer = bytes.byte(at: offset) {
            blocks += 1
            switch introducer {
            case 0x21:  // extension: label, then sub-blocks
                guard let label = bytes.byte(at: offset + 1) else { return }
                if label == 0xF9, let flags = bytes.byte(at: offset + 3), flags & 0x01 != 0 { details.hasAlpha = true }
                guard let end = skipSubBlocks(bytes, from: offset + 2) else { return }
                offset = end
            case 0x2C:  // image descriptor (10 bytes), local table, LZW code size, data sub-blocks
                guard let localPacked = bytes.byte(at: offset + 9) else { return }
                var next = offset + 10
                if localPacked & 0x80 != 0 { next += 3 << (Int(localPacked & 0x07) + 1) }
                guard bytes.byte(at: next) != nil, let end = skipSubBlocks(bytes, from: next + 1) else { return }
                frames += 1
                details.frameCount = frames
                offset = end
            case 0x3B:  // trailer
                details.frameCount = frames
                return
            default:
                return
            }
        }
    }

    /// The offset after the sub-blocks starting at `offset` (each a length byte and that many
    /// bytes, ended by a zero length); nil when the data ends first.
    private static func skipSubBlocks(_ bytes: ByteReader, from start: Int) -> Int? {
        var offset = start
        while let length = bytes.byte(at: offset) {
            offset += 1
            if length == 0 { return offset }
            offset += Int(length)
        }
        return nil
    }

    // MARK: - WebP

    private static func readWebP(_ bytes: ByteReader, into details: inout Details) {
        details.bitDepth = 8
        details.frameCount = 1
        switch bytes.ascii(at: 12, count: 4) ?? "" {
        case "VP8 ":
            (details.colorModel, details.hasAlpha) = ("yuv", false)
        case "VP8L":
            details.colorModel = "argb"
            details.hasAlpha = bytes.byte(at: 24).map { $0 & 0x10 != 0 }
        case "VP8X":
            guard let flags = bytes.byte(at: 20) else { return }
            details.hasAlpha = flags & 0x10 != 0
            if flags & 0x02 != 0 { details.frameCount = countChunks("ANMF", bytes) }
            // The first image chunk says how pixels are stored.
            details.colorModel = firstChunk(in: bytes, among: ["VP8 ", "VP8L", "ANMF"]) == "VP8L" ? "argb" : "yuv"
        default: break
        }
    }

    /// Calls `body` with each top-level RIFF chunk's type and offset, from offset 12; stops when the
    /// bytes end or `body` returns false.
    private static func forEachChunk(_ bytes: ByteReader, _ body: (String, Int) -> Bool) {
        var offset = 12
        while let type = bytes.ascii(at: offset, count: 4), let size = bytes.uint32LE(at: offset + 4).flatMap({ Int(exactly: $0) }) {
            guard body(type, offset) else { return }
            // 8 bytes of framing, the data, and a pad byte to an even size.
            let (padded, overflow) = size.addingReportingOverflow(8 + (size & 1))
            guard !overflow else { return }
            let (next, overflowNext) = offset.addingReportingOverflow(padded)
            guard !overflowNext, next > offset else { return }
            offset = next
        }
    }

    private static func countChunks(_ type: String, _ bytes: ByteReader) -> Int {
        var count = 0
        forEachChunk(bytes) { chunk, _ in
            if chunk == type { count += 1 }
            return true
        }
        return count
    }

    /// The type of the first chunk among `types`; for an `ANMF` chunk, the type of its image data.
    private static func firstChunk(in bytes: ByteReader, among types: Set<String>) -> String? {
        var found: String?
        forEachChunk(bytes) { chunk, offset in
            guard types.contains(chunk) else { return true }
            // An ANMF frame carries a 16-byte header, then its own chunks.
            found = chunk == "ANMF" ? bytes.ascii(at: offset + 24, count: 4) : chunk
            return false
        }
        return found
    }
}

extension ImageHeader.Details {
    /// Details with only the header known.
    init(header: ImageHeader) {
        self.header = header
    }
}

extension ByteReader {
    /// The byte at `offset`, or nil past the end (or before the start).
    func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < count ? self[offset] : nil
    }

    /// A little-endian 32-bit integer, or nil past the end.
    fileprivate func uint32LE(at offset: Int) -> UInt32? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        return (0..<4).reduce(UInt32(0)) { $0 | UInt32(self[offset + $1]) << (8 * $1) }
    }
}
