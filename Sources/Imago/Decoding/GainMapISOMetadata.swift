/// Reads the binary gain map metadata of ISO 21496-1, as JPEG carries it: the payload of an `APP2`
/// segment after `urn:iso:std:iso:ts:21496:-1\0`.
///
/// Big-endian: `minimum_version` and `writer_version` (u16 each; a primary image's segment stops
/// there, saying only that a gain map follows), flags (u8: bit 7 multichannel, bit 6 use the base
/// colour space, bit 2 backward direction, bit 3 one common denominator), then the base and
/// alternate headrooms and, per channel, gain map min, max, gamma, base and alternate offsets, each
/// a rational (signed numerators where a value may be negative). As libultrahdr writes and reads
/// it. Every read is bounded; a short, unknown-version or zero-denominator payload is an error.
enum GainMapISOMetadata {
    /// The `APP2` identifier, with its terminating NUL.
    static let identifier: [UInt8] = Array("urn:iso:std:iso:ts:21496:-1".utf8) + [0]

    /// What a payload says.
    enum Reading: Equatable {
        /// Only the versions: the primary image's marker that a gain map follows.
        case versionOnly
        /// The metadata.
        case metadata(GainMap.Metadata)
    }

    /// The metadata in `payload` (the bytes after ``identifier``), or why it cannot be read.
    static func read(_ payload: ArraySlice<UInt8>) -> Result<Reading, GainMapProblem> {
        var reader = BigEndianReader(payload)
        guard let minimumVersion = reader.u16(), let _ = reader.u16() else {
            return .failure(GainMapProblem("the ISO 21496-1 metadata is \(payload.count) bytes, too short for its versions"))
        }
        guard minimumVersion == 0 else {
            return .failure(GainMapProblem("the ISO 21496-1 metadata needs a reader of version \(minimumVersion); Imago reads version 0"))
        }
        guard let flags = reader.u8() else { return .success(.versionOnly) }
        let channelCount = flags & 0x80 != 0 ? 3 : 1
        let common = flags & 0x08 != 0
        let short = GainMapProblem("the ISO 21496-1 metadata ends early (\(payload.count) bytes for \(channelCount) channel\(channelCount == 1 ? "" : "s"))")

        // With a common denominator each value is a numerator alone; otherwise numerator, denominator.
        var denominator: UInt32?
        if common {
            guard let value = reader.u32() else { return .failure(short) }
            denominator = value
        }
        func unsigned(_ name: String) -> Result<Double, GainMapProblem> {
            guard let numerator = reader.u32(), let divisor = denominator ?? reader.u32() else { return .failure(short) }
            return fraction(Double(numerator), divisor, name)
        }
        func signed(_ name: String) -> Result<Double, GainMapProblem> {
            guard let numerator = reader.u32(), let divisor = denominator ?? reader.u32() else { return .failure(short) }
            return fraction(Double(Int32(bitPattern: numerator)), divisor, name)
        }
        do throws(GainMapProblem) {
            let base = try unsigned("base headroom").get()
            let alternate = try unsigned("alternate headroom").get()
            var channels: [GainMap.Metadata.Channel] = []
            for _ in 0..<channelCount {
                let minimum = try signed("gain map minimum").get()
                let maximum = try signed("gain map maximum").get()
                let gamma = try unsigned("gamma").get()
                let baseOffset = try signed("base offset").get()
                let alternateOffset = try signed("alternate offset").get()
                channels.append(.init(gainMapMin: minimum, gainMapMax: maximum, gamma: gamma, baseOffset: baseOffset, alternateOffset: alternateOffset))
            }
            let metadata = GainMap.Metadata(
                channels: channels, baseHeadroom: base, alternateHeadroom: alternate,
                baseRenditionIsHDR: flags & 0x04 != 0, usesBaseColorSpace: flags & 0x40 != 0, sources: [.iso21496])
            if let problem = metadata.problem { return .failure(GainMapProblem("the ISO 21496-1 metadata: \(problem)")) }
            return .success(.metadata(metadata))
        } catch {
            return .failure(error)
        }
    }

    private static func fraction(_ numerator: Double, _ denominator: UInt32, _ name: String) -> Result<Double, GainMapProblem> {
        guard denominator != 0 else { return .failure(GainMapProblem("the ISO 21496-1 metadata's \(name) has a denominator of 0")) }
        return .success(numerator / Double(denominator))
    }
}

/// Why a gain map was not kept: the file declares one, but what describes it cannot be used.
/// The decoder reports it as ``ImageContainer/Repair/Kind/ignoredGainMap(_:)``.
struct GainMapProblem: Error, Equatable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Bounded big-endian reads over bytes: each returns `nil`, and reads nothing, past the end.
struct BigEndianReader {
    private let bytes: ArraySlice<UInt8>
    private(set) var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
    }

    mutating func u8() -> UInt8? {
        guard position < bytes.endIndex else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func u16() -> UInt16? {
        guard bytes.endIndex - position >= 2 else { return nil }
        defer { position += 2 }
        return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    }

    mutating func u32() -> UInt32? {
        guard bytes.endIndex - position >= 4 else { return nil }
        defer { position += 4 }
        return (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[position + $1]) }
    }
}
