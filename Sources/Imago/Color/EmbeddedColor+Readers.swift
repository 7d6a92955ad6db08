import CZlib
import Foundation

extension EmbeddedColor {
    /// JPEG: the ICC profile in `APP2` segments tagged `ICC_PROFILE\0`, each with its sequence
    /// number and the count of segments (a profile over 65,519 bytes spans several). Every number
    /// from 1 to the count must appear once, all with the same count, or the profile is dropped.
    static func readJPEG(_ data: Data, maximumProfileSize: Int) -> Reading {
        let bytes = ByteReader(data)
        let signature = Array("ICC_PROFILE\0".utf8)
        var segments: [(number: Int, count: Int, payload: Range<Int>)] = []
        var total = 0
        var offset = 2
        guard bytes.uint16BE(at: 0) == 0xFFD8 else { return Reading() }
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0xDA || marker == 0xD9 { break }  // image data: no more metadata
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { offset += 2; continue }  // no length
            guard let length = bytes.uint16BE(at: offset + 2).map(Int.init), length >= 2 else { break }
            let payload = (offset + 4)..<min(offset + 2 + length, bytes.count)
            if marker == 0xE2, payload.count >= signature.count + 2,
                signature.indices.allSatisfy({ bytes[payload.lowerBound + $0] == signature[$0] })
            {
                let number = Int(bytes[payload.lowerBound + 12])
                let count = Int(bytes[payload.lowerBound + 13])
                let body = (payload.lowerBound + 14)..<payload.upperBound
                segments.append((number, count, body))
                total += body.count
                if total > maximumProfileSize { return Reading(problems: [tooLarge(total, maximumProfileSize)]) }
            }
            offset += 2 + length
        }
        guard !segments.isEmpty else { return Reading() }
        let count = segments[0].count
        let numbers = segments.map(\.number).sorted()
        guard count >= 1, segments.allSatisfy({ $0.count == count }), numbers == Array(1...count) else {
            let found = segments.map { "\($0.number)/\($0.count)" }.joined(separator: ", ")
            return Reading(problems: [
                "the ICC profile's APP2 segments are numbered wrongly (\(found)): each of 1 to the count must appear once"
            ])
        }
        var profile = Data(capacity: total)
        for segment in segments.sorted(by: { $0.number < $1.number }) {
            profile.append(data[(data.startIndex + segment.payload.lowerBound)..<(data.startIndex + segment.payload.upperBound)])
        }
        return Reading(color: .icc(profile))
    }

    /// PNG: the chunks before the image data, with the precedence of the PNG specification (third
    /// edition): `cICP`, then `iCCP`, then `sRGB`, then `gAMA` and `cHRM`.
    static func readPNG(_ data: Data, maximumProfileSize: Int) -> Reading {
        let bytes = ByteReader(data)
        var codePoints: ColorCodePoints?
        var profile: Reading?
        var isSRGB = false
        var gamma: Double?
        var points: [Double]?
        var offset = 8
        while let length = bytes.uint32BE(at: offset).flatMap({ Int(exactly: $0) }),
            let type = bytes.ascii(at: offset + 4, count: 4)
        {
            let start = offset + 8
            let (end, overflow) = start.addingReportingOverflow(length)
            guard !overflow, end <= bytes.count, type != "IDAT" else { break }
            switch type {
            case "cICP" where length == 4:
                codePoints = ColorCodePoints(
                    primaries: Int(bytes[start]), transfer: Int(bytes[start + 1]), matrix: Int(bytes[start + 2]),
                    fullRange: bytes[start + 3] != 0)
            case "iCCP" where profile == nil:
                profile = readICCP(data, start..<end, maximumProfileSize: maximumProfileSize)
            case "sRGB":
                isSRGB = true
            case "gAMA" where length == 4:
                if let value = bytes.uint32BE(at: start), value > 0 { gamma = Double(value) / 100_000 }
            case "cHRM" where length == 32:
                points = (0..<8).compactMap { bytes.uint32BE(at: start + $0 * 4).map { Double($0) / 100_000 } }
            default:
                break
            }
            let (next, overflowNext) = end.addingReportingOverflow(4)  // the CRC
            guard !overflowNext else { break }
            offset = next
        }
        if let codePoints { return Reading(color: .codePoints(codePoints), problems: profile?.problems ?? []) }
        if let profile, profile.color != nil || !isSRGB && gamma == nil && points == nil { return profile }
        let problems = profile?.problems ?? []
        if isSRGB { return Reading(color: .sRGB, problems: problems) }
        if gamma != nil || points != nil { return Reading(color: .chromaticities(gamma: gamma, points: points), problems: problems) }
        return Reading(problems: problems)
    }

    /// An `iCCP` chunk: a name of 1–79 bytes, a zero, compression method 0, then the zlib stream.
    private static func readICCP(_ data: Data, _ chunk: Range<Int>, maximumProfileSize: Int) -> Reading {
        let bytes = ByteReader(data)
        guard let zero = chunk.prefix(80).first(where: { bytes[$0] == 0 }), zero > chunk.lowerBound,
            zero + 2 <= chunk.upperBound, bytes[zero + 1] == 0
        else { return Reading(problems: ["the iCCP chunk is malformed (no profile name or an unknown compression)"]) }
        let compressed = data[(data.startIndex + zero + 2)..<(data.startIndex + chunk.upperBound)]
        switch inflate(compressed, limit: maximumProfileSize) {
        case .success(let profile): return Reading(color: .icc(profile))
        case .failure(let problem): return Reading(problems: ["the iCCP chunk's profile \(problem)"])
        }
    }

    /// WebP: the `ICCP` chunk of an extended (`VP8X`) file.
    static func readWebP(_ data: Data, maximumProfileSize: Int) -> Reading {
        let bytes = ByteReader(data)
        guard bytes.ascii(at: 0, count: 4) == "RIFF", bytes.ascii(at: 8, count: 4) == "WEBP" else { return Reading() }
        var offset = 12
        while let type = bytes.ascii(at: offset, count: 4), let size = bytes.uint32LEValue(at: offset + 4) {
            let start = offset + 8
            let (end, overflow) = start.addingReportingOverflow(size)
            guard !overflow, end <= bytes.count else { break }
            if type == "ICCP" {
                guard size <= maximumProfileSize else { return Reading(problems: [tooLarge(size, maximumProfileSize)]) }
                return Reading(color: .icc(data[(data.startIndex + start)..<(data.startIndex + end)]))
            }
            if type == "VP8 " || type == "VP8L" || type == "ANMF" { break }  // the profile comes before the image
            offset = end + (size & 1)
        }
        return Reading()
    }

    enum InflateProblem: Error, CustomStringConvertible {
        case tooLarge(Int)
        case corrupt(String)

        var description: String {
            switch self {
            case .tooLarge(let limit): "inflates to more than DecodingLimits.maximumColorProfileSize (\(limit) bytes)"
            case .corrupt(let reason): "does not inflate: \(reason)"
            }
        }
    }

    /// Inflates a zlib stream to at most `limit` bytes.
    static func inflate(_ compressed: Data, limit: Int) -> Result<Data, InflateProblem> {
        var stream = z_stream()
        guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return .failure(.corrupt("zlib could not start"))
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let input = Array(compressed)
        return input.withUnsafeBufferPointer { inputBuffer -> Result<Data, InflateProblem> in
            stream.next_in = UnsafeMutablePointer(mutating: inputBuffer.baseAddress)
            stream.avail_in = uInt(clamping: inputBuffer.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { buffer -> (Int32, Int) in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, buffer.count - Int(stream.avail_out))
                }
                output.append(contentsOf: chunk[0..<produced])
                if output.count > limit { return .failure(.tooLarge(limit)) }
                switch status {
                case Z_STREAM_END: return .success(output)
                case Z_OK where produced > 0 || stream.avail_in > 0: continue
                case Z_OK, Z_BUF_ERROR: return .failure(.corrupt("the compressed data ends early"))
                default:
                    let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                    return .failure(.corrupt(message))
                }
            }
        }
    }
}

extension ByteReader {
    /// A little-endian 32-bit integer as an `Int`, or nil past the end.
    func uint32LEValue(at offset: Int) -> Int? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        return (0..<4).reduce(0) { $0 | Int(self[offset + $1]) << (8 * $1) }
    }
}
