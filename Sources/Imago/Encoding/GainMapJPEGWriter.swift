import Foundation

/// Writes a gain-map JPEG (Ultra HDR, ISO 21496-1) from an encoded SDR base and its
/// ``GainMap``, laid out as libultrahdr writes it, so that libultrahdr, libvips, Chromium and
/// Apple's ImageIO read the map:
///
/// ```
/// primary image: SOI, APP1 XMP (hdrgm:Version, Container:Directory: Primary + GainMap with its
///                length), APP2 ISO 21496-1 (versions only), APP2 MPF (two images), the base's
///                own segments and scans, EOI
/// gain map:      SOI, APP1 XMP (the hdrgm fields), APP2 ISO 21496-1 (the metadata), the map
///                JPEG's segments and scans (one component for a single-channel map), EOI
/// ```
///
/// The MPF offset of the gain map counts from the MPF segment's TIFF header. Every size and
/// offset is checked: a segment over 65,535 bytes or a file over 4 GB is not written.
package enum GainMapJPEGWriter {
    /// `base` (a JPEG) with `gainMap` attached, its map encoded at `quality` (0...1). The base
    /// alone when the metadata cannot be written (a value ISO 21496-1 cannot store); an error when
    /// the map does not encode.
    package static func write(_ gainMap: GainMap, base: Data, quality: Double) throws(ImagePipeline.Error) -> Data {
        var encoder = JPEGEncoder(quality: quality)
        encoder.isGrayscale = gainMap.metadata.channels.count == 1
        let map = try encoder.encode(gainMap.bitmap)
        guard let joined = assemble(base: base, gainMap: map, metadata: gainMap.metadata) else { return base }
        return joined
    }

    /// The two JPEGs joined with their metadata, or `nil` when either is not a JPEG or a size
    /// does not fit its field.
    static func assemble(base: Data, gainMap: Data, metadata: GainMap.Metadata) -> Data? {
        let startOfImage: [UInt8] = [0xFF, 0xD8]
        guard base.starts(with: startOfImage), gainMap.starts(with: startOfImage),
            let isoPayload = GainMapISOMetadata.payload(for: metadata),
            let mapXMP = segment(0xE1, GainMapXMP.identifier + Array(GainMapXMP.gainMapPacket(for: metadata).utf8)),
            let mapISO = segment(0xE2, GainMapISOMetadata.identifier + isoPayload),
            let primaryISO = segment(0xE2, GainMapISOMetadata.identifier + GainMapISOMetadata.versionOnlyPayload)
        else { return nil }
        let (mapLength, mapOverflow) = (startOfImage.count + mapXMP.count + mapISO.count).addingReportingOverflow(gainMap.count - 2)
        guard !mapOverflow,
            let primaryXMP = segment(0xE1, GainMapXMP.identifier + Array(GainMapXMP.primaryPacket(gainMapLength: mapLength).utf8))
        else { return nil }
        // The primary image: everything before the base's own segments, then the base after its SOI.
        let head = startOfImage.count + primaryXMP.count + primaryISO.count
        let (primarySize, primaryOverflow) = (head + MPFIndex.twoImageSegmentSize).addingReportingOverflow(base.count - 2)
        guard !primaryOverflow else { return nil }
        let tiffStart = head + MPFIndex.tiffHeaderOffset
        guard let mpf = MPFIndex.twoImageSegment(primarySize: primarySize, gainMapSize: mapLength, gainMapOffset: primarySize - tiffStart),
            mpf.count == MPFIndex.twoImageSegmentSize, UInt32(exactly: primarySize + mapLength) != nil
        else { return nil }
        var file = Data(capacity: primarySize + mapLength)
        file.append(contentsOf: startOfImage + primaryXMP + primaryISO + mpf)
        file.append(base.dropFirst(2))
        file.append(contentsOf: startOfImage + mapXMP + mapISO)
        file.append(gainMap.dropFirst(2))
        return file.count == primarySize + mapLength ? file : nil
    }

    /// A marker segment: `FF marker`, the big-endian length (counting itself), `body`; `nil` when
    /// the body is too long for one segment.
    static func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8]? {
        guard let length = UInt16(exactly: body.count + 2) else { return nil }
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + body
    }
}
