/// Writes ISO 21496-1 gain map metadata, the inverse of ``GainMapISOMetadata/read(_:)``: versions
/// 0 and 0, the flags, then each value as a rational with its own denominator (a power of two as
/// large as the numerator's range allows, 1 for whole numbers), as libultrahdr writes it.
extension GainMapISOMetadata {
    /// The primary image's payload: versions only, saying that a gain map follows.
    static let versionOnlyPayload: [UInt8] = [0, 0, 0, 0]

    /// The gain map image's payload for `metadata`, or `nil` when a value cannot be stored (not
    /// finite, a negative headroom or gamma, or beyond a 32-bit numerator).
    static func payload(for metadata: GainMap.Metadata) -> [UInt8]? {
        guard metadata.problem == nil else { return nil }
        var flags: UInt8 = 0
        if metadata.channels.count == 3 { flags |= 0x80 }
        if metadata.usesBaseColorSpace { flags |= 0x40 }
        if metadata.baseRenditionIsHDR { flags |= 0x04 }
        var bytes = versionOnlyPayload + [flags]
        func append(_ value: Double, signed: Bool) -> Bool {
            guard let (numerator, denominator) = fraction(value, signed: signed) else { return false }
            for word in [numerator, denominator] {
                bytes += [UInt8(word >> 24), UInt8(word >> 16 & 0xFF), UInt8(word >> 8 & 0xFF), UInt8(word & 0xFF)]
            }
            return true
        }
        guard append(metadata.baseHeadroom, signed: false), append(metadata.alternateHeadroom, signed: false) else { return nil }
        for channel in metadata.channels {
            guard append(channel.gainMapMin, signed: true), append(channel.gainMapMax, signed: true),
                append(channel.gamma, signed: false), append(channel.baseOffset, signed: true),
                append(channel.alternateOffset, signed: true)
            else { return nil }
        }
        return bytes
    }

    /// `value` as numerator (two's complement when `signed`) over a power-of-two denominator, or
    /// `nil` when it does not fit.
    static func fraction(_ value: Double, signed: Bool) -> (UInt32, UInt32)? {
        let range = signed ? Double(Int32.min)...Double(Int32.max) : 0...Double(UInt32.max)
        guard value.isFinite, range.contains(value) else { return nil }
        var shift = value == value.rounded() ? 0 : 30
        while shift > 0, !range.contains((value * Double(UInt32(1) << shift)).rounded()) { shift -= 1 }
        let scaled = (value * Double(UInt32(1) << shift)).rounded()
        let numerator: UInt32?
        if signed {
            numerator = Int32(exactly: scaled).map { UInt32(bitPattern: $0) }
        } else {
            numerator = UInt32(exactly: scaled)
        }
        guard let numerator else { return nil }
        return (numerator, UInt32(1) << shift)
    }
}
