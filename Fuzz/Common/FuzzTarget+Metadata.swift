import Foundation

@testable import Imago

extension FuzzTarget {
    /// The metadata readers (`ImageMetadata.read`: JPEG segments, PNG chunks, WebP chunks, the
    /// Photoshop resources in APP13) on the bytes as a file, then the filters (EXIF's IFD0, IPTC
    /// records, the XMP reader and namespace filter) on what was read and on the raw bytes as each
    /// block. What `keepingCopyright` keeps must be what it claims (an XMP packet that reads back,
    /// an EXIF with Artist or Copyright, IPTC records that parse), and written into a JPEG, PNG and
    /// WebP, it must read back the same. Tests/ImagoTests/Fuzz/FuzzCorpus+Metadata.swift replays
    /// the same calls.
    static func metadata(_ data: Data) {
        let bytes = [UInt8](data)
        _ = PhotoshopResources.iptc(in: bytes)
        let candidates = [ImageMetadata.read(from: data), ImageMetadata(exif: bytes, xmp: bytes, iptc: bytes)]
        for metadata in candidates.compactMap({ $0 }) {
            _ = metadata.uprighted()
            let kept = metadata.keepingCopyright()
            if let xmp = kept.xmp { precondition(XMPElement.parse(xmp) != nil, "a kept XMP packet that does not read back") }
            if let exif = kept.exif {
                precondition(EXIFFilter.ifd0(exif, tags: [EXIFFilter.artistTag, EXIFFilter.copyrightTag])?.isEmpty == false, "a kept EXIF without authorship")
            }
            if let iptc = kept.iptc { precondition(IPTCFilter.records(iptc) != nil, "kept IPTC records that do not parse") }
            guard !kept.isEmpty, kept.byteCount < 60_000 else { continue }
            for (format, encoded) in metadataCarriers() {
                guard let written = try? MetadataEmbedder.embed(kept, in: encoded, format: format) else {
                    preconditionFailure("metadata that could not be written into \(format)")
                }
                let read = ImageMetadata.read(from: written)
                precondition(read?.exif == kept.exif && read?.xmp == kept.xmp, "\(format): blocks that do not read back")
                precondition(read?.iptc == (format == .jpeg ? kept.iptc : nil), "\(format): IPTC that does not read back")
            }
        }
    }

    /// A 2x2 JPEG, PNG and WebP (lossy) to write metadata into.
    static func metadataCarriers() -> [(ImageFormat, Data)] {
        let bitmap = Bitmap(width: 2, height: 2, fill: RGBA(10, 20, 30))
        var carriers: [(ImageFormat, Data)] = []
        if let jpeg = try? JPEGEncoder().encode(bitmap) { carriers.append((.jpeg, jpeg)) }
        if let png = try? PNGEncoder().encode(bitmap) { carriers.append((.png, png)) }
        if let webp = try? WebPEncoder().encode(bitmap) { carriers.append((.webp, webp)) }
        return carriers
    }
}
