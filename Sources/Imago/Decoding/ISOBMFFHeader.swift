import Foundation

/// What the boxes of a HEIF or AVIF file (ISO base media file format) declare, read without
/// decoding: the primary image's size from its `ispe` property (turned by `irot`), and for image
/// sequences the track size and sample count; the primary image's colour (its `colr` property:
/// an ICC profile or `nclx` code points); and how many thumbnails it lists (`thmb` references).
///
/// The parser treats every size field as hostile: sizes are checked against what is left of the
/// enclosing box with overflow-checked arithmetic, nesting is bounded, and a malformed or cut-short
/// file is a ``Failure`` that says which box and why, never a trap.
struct ISOBMFFHeader: Sendable, Hashable {
    /// The `ftyp` major brand followed by the compatible brands.
    var brands: [String]
    /// The primary image's displayed size (after a 90° or 270° `irot`), or the sequence track's.
    var width: Int
    var height: Int
    /// Samples in the largest track of an image sequence (`stsz`); `nil` for a still image.
    var frameCount: Int?
    /// The primary image's `colr` property (the first one in the file when none is associated with
    /// it, as a grid's tiles carry theirs); `nil` when there is none or it cannot be read.
    var color: EmbeddedColor?
    /// The items the file lists as thumbnails of the primary image (`thmb` references in `iref`),
    /// known before any decode: with none, a preferred embedded thumbnail is the primary image.
    var thumbnailCount = 0

    struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        var description: String
    }

    /// Deepest nesting followed; real files need 6 (moov/trak/mdia/minf/stbl/stsz).
    static let maximumDepth = 8

    static func parse(_ data: Data) throws(Failure) -> ISOBMFFHeader {
        let bytes = ByteReader(data)
        var state = ParseState()
        try walk(bytes, range: 0..<bytes.count, depth: 0, path: "", state: &state)
        guard let brands = state.brands else { throw Failure(description: "the file has no 'ftyp' box") }
        var size = state.primarySize()
        if size == nil, let track = state.trackSize { size = track }
        guard let (width, height) = size else {
            if !state.sawMeta && !state.sawMovie {
                throw Failure(description: "the file ends before its 'meta' box")
            }
            throw Failure(description: "no image size: the primary item has no 'ispe' property")
        }
        guard width > 0, height > 0 else {
            throw Failure(description: "the 'ispe' property declares a \(width)x\(height) image")
        }
        return ISOBMFFHeader(
            brands: brands, width: width, height: height, frameCount: state.sampleCount, color: state.primaryColor(),
            thumbnailCount: state.thumbnailCount())
    }

    /// What the walk collected.
    private struct ParseState {
        var brands: [String]?
        var sawMeta = false
        var sawMovie = false
        var primaryItem: UInt32?
        /// `ipco` children in order (1-based indices in `ipma`): an `ispe` size, an `irot` angle, or nothing.
        var properties: [Property] = []
        /// Item ID → property indices (1-based), from `ipma`.
        var associations: [UInt32: [Int]] = [:]
        var trackSize: (Int, Int)?
        var sampleCount: Int?
        /// The item each `thmb` reference points to (the image it is a thumbnail of), once per thumbnail.
        var thumbnailTargets: [UInt32] = []

        enum Property { case size(Int, Int), rotation(Int), color(EmbeddedColor), other }

        /// The primary item's colour; an ICC profile wins over code points when it has both, as
        /// in browsers (files may carry a profile and an `nclx` for the matrix).
        func primaryColor() -> EmbeddedColor? {
            func color(_ property: Property) -> EmbeddedColor? { if case .color(let color) = property { color } else { nil } }
            func preferred(_ colors: [EmbeddedColor]) -> EmbeddedColor? {
                colors.first { if case .icc = $0 { true } else { false } } ?? colors.first
            }
            if let item = primaryItem, let indices = associations[item],
                let found = preferred(indices.filter { $0 >= 1 && $0 <= properties.count }.compactMap { color(properties[$0 - 1]) })
            {
                return found
            }
            return preferred(properties.compactMap(color))
        }

        /// The thumbnails of the primary item (of any item when the file names no primary one).
        func thumbnailCount() -> Int {
            guard let item = primaryItem else { return thumbnailTargets.count }
            return thumbnailTargets.count(where: { $0 == item })
        }

        func primarySize() -> (Int, Int)? {
            var size: (Int, Int)?
            var quarterTurns = 0
            if let item = primaryItem, let indices = associations[item] {
                for index in indices where index >= 1 && index <= properties.count {
                    switch properties[index - 1] {
                    case .size(let w, let h): size = (w, h)
                    case .rotation(let turns): quarterTurns = turns
                    case .color, .other: break
                    }
                }
            }
            if size == nil {  // no association: the largest declared size, to stay on the safe side
                size = properties.compactMap { if case .size(let w, let h) = $0 { (w, h) } else { nil } }
                    .max { $0.0.multipliedReportingOverflow(by: $0.1).partialValue
                        < $1.0.multipliedReportingOverflow(by: $1.1).partialValue }
            }
            guard let (w, h) = size else { return nil }
            return quarterTurns % 2 == 1 ? (h, w) : (w, h)
        }
    }

    /// One box: its type, where its payload lies, and where the next box starts.
    private struct Box {
        var type: String
        var payload: Range<Int>
    }

    /// Reads the box header at `offset` inside `range`.
    private static func readBox(
        in bytes: ByteReader, at offset: Int, within range: Range<Int>, path: String
    ) throws(Failure) -> Box {
        guard offset + 8 <= range.upperBound, let size32 = bytes.uint32BE(at: offset),
            let type = bytes.ascii(at: offset + 4, count: 4)
        else { throw Failure(description: "the file ends inside a box header\(path.isEmpty ? "" : " in '\(path)'")") }
        var headerLength = 8
        var size: Int
        switch size32 {
        case 0:
            size = range.upperBound - offset  // extends to the end of its parent
        case 1:
            guard offset + 16 <= range.upperBound, let high = bytes.uint32BE(at: offset + 8),
                let low = bytes.uint32BE(at: offset + 12)
            else { throw Failure(description: "the file ends inside the 64-bit size of '\(type)'") }
            let large = UInt64(high) << 32 | UInt64(low)
            guard let checked = Int(exactly: large), checked <= Int(Int32.max) * 16 else {
                throw Failure(description: "the box '\(type)' declares an absurd size of \(large) bytes")
            }
            size = checked
            headerLength = 16
        default:
            size = Int(size32)
        }
        guard size >= headerLength else {
            throw Failure(description: "the box '\(type)' declares \(size) bytes, less than its own header")
        }
        let (end, overflow) = offset.addingReportingOverflow(size)
        guard !overflow, end <= range.upperBound else {
            throw Failure(
                description: "the file ends inside its '\(type)' box (declared \(size) bytes, "
                    + "\(range.upperBound - offset) present)")
        }
        return Box(type: type, payload: (offset + headerLength)..<end)
    }

    private static func walk(
        _ bytes: ByteReader, range: Range<Int>, depth: Int, path: String, state: inout ParseState
    ) throws(Failure) {
        guard depth <= maximumDepth else { throw Failure(description: "boxes nest deeper than \(maximumDepth) levels") }
        var offset = range.lowerBound
        while offset < range.upperBound {
            let box = try readBox(in: bytes, at: offset, within: range, path: path)
            let here = path.isEmpty ? box.type : path + "/" + box.type
            try visit(box, bytes, depth: depth, path: here, state: &state)
            offset = box.payload.upperBound
            if depth == 0 && state.brands == nil {
                throw Failure(description: "the first box is '\(box.type)', not 'ftyp'")
            }
        }
    }

    private static func visit(
        _ box: Box, _ bytes: ByteReader, depth: Int, path: String, state: inout ParseState
    ) throws(Failure) {
        let p = box.payload
        switch box.type {
        case "ftyp":
            guard p.count >= 8 else { throw Failure(description: "the 'ftyp' box is \(p.count) bytes, too short") }
            var brands: [String] = []
            for offset in stride(from: p.lowerBound, to: p.upperBound - 3, by: 4) where offset != p.lowerBound + 4 {
                brands.append(bytes.ascii(at: offset, count: 4) ?? "")
            }
            state.brands = brands
        case "meta":
            state.sawMeta = true
            guard p.count >= 4 else { throw Failure(description: "the 'meta' box is too short") }
            try walk(bytes, range: (p.lowerBound + 4)..<p.upperBound, depth: depth + 1, path: path, state: &state)
        case "iprp", "moov", "trak", "mdia", "minf", "stbl":
            if box.type == "moov" { state.sawMovie = true }
            try walk(bytes, range: p, depth: depth + 1, path: path, state: &state)
        case "ipco":
            try readProperties(p, bytes, depth: depth, path: path, state: &state)
        case "pitm":
            // Full box: version 0 has a 16-bit item ID, version 1 a 32-bit one.
            guard !p.isEmpty else { throw Failure(description: "the 'pitm' box is empty") }
            let wide = bytes[p.lowerBound] != 0
            let item = wide ? bytes.uint32BE(at: p.lowerBound + 4) : bytes.uint16BE(at: p.lowerBound + 4).map(UInt32.init)
            guard let item, p.lowerBound + (wide ? 8 : 6) <= p.upperBound else {
                throw Failure(description: "the 'pitm' box is cut short")
            }
            state.primaryItem = item
        case "ipma":
            try readAssociations(p, bytes, state: &state)
        case "iref":
            try readThumbnailReferences(p, bytes, path: path, state: &state)
        case "tkhd":
            // Full box; version 1 has 64-bit times. Width and height are 16.16 fixed point at the end.
            guard p.count >= 8, let width = bytes.uint32BE(at: p.upperBound - 8),
                let height = bytes.uint32BE(at: p.upperBound - 4)
            else { throw Failure(description: "the 'tkhd' box is cut short") }
            let size = (Int(width >> 16), Int(height >> 16))
            if size.0 > 0 && size.1 > 0 && state.trackSize == nil { state.trackSize = size }
        case "stsz":
            guard p.count >= 12, let count = bytes.uint32BE(at: p.lowerBound + 8) else {
                throw Failure(description: "the 'stsz' box is cut short")
            }
            state.sampleCount = max(state.sampleCount ?? 0, Int(count))
        default:
            break
        }
    }

    private static func readProperties(
        _ range: Range<Int>, _ bytes: ByteReader, depth: Int, path: String, state: inout ParseState
    ) throws(Failure) {
        var offset = range.lowerBound
        while offset < range.upperBound {
            let property = try readBox(in: bytes, at: offset, within: range, path: path)
            let p = property.payload
            switch property.type {
            case "ispe":
                guard p.count >= 12, let width = bytes.uint32BE(at: p.lowerBound + 4),
                    let height = bytes.uint32BE(at: p.lowerBound + 8)
                else { throw Failure(description: "the 'ispe' property is cut short") }
                state.properties.append(.size(Int(width), Int(height)))
            case "irot":
                guard p.count >= 1 else { throw Failure(description: "the 'irot' property is empty") }
                state.properties.append(.rotation(Int(bytes[p.lowerBound] & 0x03)))
            case "colr":
                // A colour that cannot be read is no colour: the pixels are then read as sRGB.
                state.properties.append(readColor(p, bytes).map { .color($0) } ?? .other)
            default:
                state.properties.append(.other)
            }
            offset = p.upperBound
        }
    }

    /// A `colr` property: `nclx` code points (three 16-bit values and a range bit) or an ICC
    /// profile (`prof`, `rICC`).
    private static func readColor(_ p: Range<Int>, _ bytes: ByteReader) -> EmbeddedColor? {
        switch bytes.ascii(at: p.lowerBound, count: 4) {
        case "nclx":
            guard p.count >= 11, let primaries = bytes.uint16BE(at: p.lowerBound + 4),
                let transfer = bytes.uint16BE(at: p.lowerBound + 6), let matrix = bytes.uint16BE(at: p.lowerBound + 8)
            else { return nil }
            return .codePoints(ColorCodePoints(
                primaries: Int(primaries), transfer: Int(transfer), matrix: Int(matrix),
                fullRange: bytes[p.lowerBound + 10] & 0x80 != 0))
        case "prof", "rICC":
            guard p.count > 4 else { return nil }
            return .icc(bytes.slice((p.lowerBound + 4)..<p.upperBound))
        default:
            return nil
        }
    }

    /// `iref`: the `thmb` references among the item references (full box; item IDs of 16 bits in
    /// version 0, 32 in version 1): the thumbnail item, a count, then the items it is a thumbnail of.
    private static func readThumbnailReferences(
        _ p: Range<Int>, _ bytes: ByteReader, path: String, state: inout ParseState
    ) throws(Failure) {
        guard p.count >= 4 else { throw Failure(description: "the 'iref' box is too short") }
        let idSize = bytes[p.lowerBound] == 0 ? 2 : 4
        let cutShort = Failure(description: "a 'thmb' reference in 'iref' is cut short")
        var offset = p.lowerBound + 4
        while offset < p.upperBound {
            let reference = try readBox(in: bytes, at: offset, within: offset..<p.upperBound, path: path)
            offset = reference.payload.upperBound
            guard reference.type == "thmb" else { continue }
            let r = reference.payload
            guard r.count >= idSize + 2, let count = bytes.uint16BE(at: r.lowerBound + idSize) else { throw cutShort }
            var target = r.lowerBound + idSize + 2
            for _ in 0..<Int(count) {
                guard target + idSize <= r.upperBound,
                    let item = idSize == 2 ? bytes.uint16BE(at: target).map(UInt32.init) : bytes.uint32BE(at: target)
                else { throw cutShort }
                state.thumbnailTargets.append(item)
                target += idSize
            }
        }
    }

    /// `ipma`: for each item, the indices of its properties (7 or 15 bits each, by the flags).
    private static func readAssociations(_ p: Range<Int>, _ bytes: ByteReader, state: inout ParseState) throws(Failure) {
        let cutShort = Failure(description: "the 'ipma' box is cut short")
        guard p.count >= 8, let flags = bytes.uint32BE(at: p.lowerBound), let entries = bytes.uint32BE(at: p.lowerBound + 4)
        else { throw cutShort }
        let version = flags >> 24
        let wideIndices = flags & 1 != 0
        var offset = p.lowerBound + 8
        for _ in 0..<entries {
            let item: UInt32
            if version < 1 {
                guard let id = bytes.uint16BE(at: offset), offset + 2 <= p.upperBound else { throw cutShort }
                item = UInt32(id)
                offset += 2
            } else {
                guard let id = bytes.uint32BE(at: offset), offset + 4 <= p.upperBound else { throw cutShort }
                item = id
                offset += 4
            }
            guard offset < p.upperBound else { throw cutShort }
            let count = Int(bytes[offset])
            offset += 1
            var indices: [Int] = []
            for _ in 0..<count {
                if wideIndices {
                    guard let value = bytes.uint16BE(at: offset), offset + 2 <= p.upperBound else { throw cutShort }
                    indices.append(Int(value & 0x7FFF))
                    offset += 2
                } else {
                    guard offset < p.upperBound else { throw cutShort }
                    indices.append(Int(bytes[offset] & 0x7F))
                    offset += 1
                }
            }
            state.associations[item, default: []].append(contentsOf: indices)
        }
    }
}
