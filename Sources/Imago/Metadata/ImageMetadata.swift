import Foundation

/// The metadata blocks of a source image that an output may carry on: its EXIF (a TIFF
/// structure, without JPEG's `Exif\0\0` prefix), its XMP packet, and its IPTC-IIM records (the
/// payload of Photoshop's image resource 0x0404, without the `8BIM` wrapping).
///
/// Read from the source's bytes (``read(from:)``) by the pipeline when a request asks for it
/// (``ImageRequest/readsMetadata``), carried with the decoded image through processing
/// (``ImageContainer/metadata``), filtered (``keepingCopyright()``, ``uprighted()``) and written by
/// ``MetadataEmbedder`` into JPEG, PNG and WebP output. Blocks larger than
/// ``maximumBlockSize`` are not kept, so a decoded original holds at most three small blocks.
package struct ImageMetadata: Sendable, Hashable {
    /// The EXIF TIFF structure (`II*\0` or `MM\0*`…), or `nil`.
    package var exif: [UInt8]?
    /// The XMP packet (UTF-8 XML), or `nil`.
    package var xmp: [UInt8]?
    /// IPTC-IIM records (`1C` record dataset length value…), or `nil`.
    package var iptc: [UInt8]?

    package init(exif: [UInt8]? = nil, xmp: [UInt8]? = nil, iptc: [UInt8]? = nil) {
        self.exif = exif
        self.xmp = xmp
        self.iptc = iptc
    }

    /// The largest block kept: 1 MiB (a JPEG segment holds 64 KiB; larger XMP is rare and is
    /// dropped rather than held in every decoded original).
    package static let maximumBlockSize = 1 << 20

    /// Bytes held.
    package var byteCount: Int { (exif?.count ?? 0) + (xmp?.count ?? 0) + (iptc?.count ?? 0) }

    /// Whether no block is present.
    package var isEmpty: Bool { exif == nil && xmp == nil && iptc == nil }

    /// What survives imgproxy's `keep_copyright` (with `strip_metadata`): EXIF with only IFD0's
    /// `Copyright` (0x8298) and `Artist` (0x013B), IPTC with only records 2:80 (by-line), 2:110
    /// (credit) and 2:116 (copyright notice) of record 2 (other records kept), XMP with only the
    /// `dc` properties `rights`, `creator`, `contributor`, `publisher` and the `xmpRights` and
    /// `cc` namespaces. A block that cannot be read with certainty is dropped.
    package func keepingCopyright() -> ImageMetadata {
        ImageMetadata(
            exif: exif.flatMap(EXIFFilter.copyright), xmp: xmp.flatMap(XMPFilter.copyright),
            iptc: iptc.flatMap(IPTCFilter.copyright))
    }

    /// The blocks as they are, except an EXIF `Orientation` other than 1, which is written as 1:
    /// the pixels an encoder writes are already turned upright.
    package func uprighted() -> ImageMetadata {
        var copy = self
        copy.exif = exif.flatMap(EXIFFilter.uprighted)
        return copy
    }

    /// `self`, or `nil` when empty.
    package var nonEmpty: ImageMetadata? { isEmpty ? nil : self }

    /// A block of `bytes`, or `nil` when empty or over ``maximumBlockSize``.
    static func block<C: Collection<UInt8>>(_ bytes: C) -> [UInt8]? {
        bytes.isEmpty || bytes.count > maximumBlockSize ? nil : Array(bytes)
    }
}
