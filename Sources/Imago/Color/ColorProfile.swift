import Foundation

/// The colour profile an image file declares for its pixels: an ICC profile, as the file carried it
/// or as Imago built it from the file's colour tags (a CICP/`nclx` colour, a PNG's `gAMA` and `cHRM`).
///
/// ``ImageContainer/colorProfile`` holds it whatever ``ColorProfileHandling`` was chosen: with
/// ``ColorProfileHandling/convertToSRGB`` (the default) the pixels were converted through it, with
/// ``ColorProfileHandling/keep`` they are still in its space and encoders write it back.
public struct ColorProfile: Sendable, Hashable, CustomStringConvertible {
    /// The colour space of the pixels the profile describes.
    public enum ColorSpace: String, Sendable, Hashable, Codable {
        case rgb, gray, cmyk
        /// Any other (Lab, XYZ, multi-ink…): never used to convert.
        case other
    }

    /// The ICC profile's bytes.
    public let data: Data
    /// The profile's own description (its `desc` tag), such as "Display P3" or "Adobe RGB (1998)";
    /// `nil` when it has none.
    public let name: String?
    /// The colour space of the pixels it describes.
    public let colorSpace: ColorSpace
    /// The ICC version it was written to, as "major.minor" ("2.1", "4.3").
    public let version: String

    /// Reads an ICC profile's header and description.
    ///
    /// - Throws: ``Failure`` with what is wrong: shorter than its header, a size field that claims
    ///   more bytes than there are, no `acsp` signature, a tag table that runs past the end.
    public init(iccData: Data) throws(Failure) {
        let header = try ICCProfileReader.read(iccData)
        self.data = header.data
        self.name = header.description
        self.colorSpace = header.colorSpace
        self.version = header.version
    }

    /// Why bytes are not a usable ICC profile, in words.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// `encoded` (a JPEG, PNG or WebP file) with this profile written in: JPEG `APP2` segments, a PNG
    /// `iCCP` chunk (in place of `sRGB`, `gAMA`, `cHRM`), a WebP `ICCP` chunk. For an encoder of
    /// your own whose pixels are in this profile's space; ``ImageContainer/encoded(as:quality:)``
    /// does it by itself for a container that kept its profile. Other formats come back unchanged.
    ///
    /// - Throws: ``ImagePipeline/Error/encodingFailed(_:reason:)`` when `encoded` is not a file of
    ///   `format`, or the profile is too large for it (255 JPEG segments: about 16 MB).
    public func embedded(in encoded: Data, format: ImageFormat) throws(ImagePipeline.Error) -> Data {
        try ColorProfileEmbedder.embed(data, in: encoded, format: format)
    }

    /// `"Display P3" (ICC 4.0, rgb, 536 bytes)`.
    public var description: String {
        "\(name.map { "\"\($0)\"" } ?? "unnamed profile") (ICC \(version), \(colorSpace.rawValue), "
            + "\(ByteCountDescription.format(data.count)))"
    }
}

/// What to do with the colour profile an image declares.
public enum ColorProfileHandling: String, Sendable, Hashable, Codable, CaseIterable {
    /// Convert the pixels to sRGB through the profile, as browsers, imgproxy and libvips'
    /// thumbnails do: the default. Encoders then write sRGB without a profile.
    case convertToSRGB
    /// Keep the pixel values as the file stores them and carry the profile, for a caller that
    /// manages colour itself; encoders write the profile back into the file (JPEG `APP2`, PNG
    /// `iCCP`, WebP `ICCP`). CMYK and gray images are converted to sRGB all the same, since a
    /// ``Bitmap`` holds RGB: their ``ImageContainer/colorProfileHandling`` says so.
    case keep
}
