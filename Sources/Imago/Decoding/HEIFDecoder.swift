#if os(Linux)  // with the other Linux codecs; Apple platforms use ImageIO
import CImagoCodecs
import Foundation

/// Decodes the primary image of a HEIF/HEIC file with libheif (Debian: libheif1, which brings the
/// libde265 HEVC decoder), rotation and mirroring applied, to RGBA; or, when the context prefers
/// it (``DecodingContext/prefersEmbeddedThumbnail``), the largest thumbnail embedded in the file.
///
/// The limits are checked twice before any pixel memory exists: against the `ispe` of the boxes
/// (``ISOBMFFHeader``), then against the size libheif reports for the image decoded.
struct HEIFDecoder: ImageDecoding {
    func canDecode(_ format: ImageFormat) -> Bool { format == .heif }

    func decode(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ImageContainer {
        let boxes = try ISOBMFFHeader.checked(data, context: context)
        let choice: Choice = context.prefersEmbeddedThumbnail ? .thumbnailElsePrimary : .primary
        guard let container = try Self.decode(data, boxes: boxes, format: .heif, choice: choice, context: context) else {
            throw .decodingFailed(context.url, .heif, reason: "libheif decoded no image")
        }
        return container
    }

    /// Which image of the file to decode.
    enum Choice {
        case primary
        /// The largest embedded thumbnail, or the primary image when there is none.
        case thumbnailElsePrimary
        /// The largest embedded thumbnail, or nothing (`nil`) when there is none.
        case thumbnailOnly
    }

    /// Decodes the image `choice` names of the ISOBMFF file `data` (HEIF, or AVIF when libheif has
    /// an AV1 decoder), after the file's `boxes` were checked against the limits; `nil` for
    /// ``Choice/thumbnailOnly`` when the file has no thumbnail. A thumbnail is read in its own
    /// colour (its `colr` property, as libheif reports it) when it declares one, and in the
    /// primary image's, which it is a smaller copy of, when it declares none.
    static func decode(
        _ data: Data, boxes: ISOBMFFHeader, format: ImageFormat, choice: Choice, context: DecodingContext
    ) throws(ImagePipeline.Error) -> ImageContainer? {
        try data.withBytes { bytes throws(ImagePipeline.Error) -> ImageContainer? in
            var message = [CChar](repeating: 0, count: Int(IMAGO_MESSAGE_CAPACITY))
            var status: Int32 = 0
            func failure(_ status: Int32) -> ImagePipeline.Error {
                let words = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if status == IMAGO_CODEC_MISSING {
                    return .unsupportedFormat(
                        context.url,
                        detail: "libheif has no decoder for this file's codec (\(words)); install libheif1 with "
                            + "libde265-0 (Debian 12) or libheif-plugin-libde265 (Debian 13)")
                }
                return .decodingFailed(context.url, format, reason: "libheif: \(words)")
            }
            guard let base = bytes.baseAddress,
                let decoder = imago_heif_decoder_create(base, bytes.count, &message, &status)
            else { throw failure(status) }
            defer { imago_heif_decoder_destroy(decoder) }
            let isThumbnail = choice != .primary && imago_heif_select_thumbnail(decoder, &message) == 1
            if choice == .thumbnailOnly && !isThumbnail {
                return nil
            }

            var width: Int32 = 0, height: Int32 = 0, hasAlpha: Int32 = 0
            imago_heif_info(decoder, &width, &height, &hasAlpha)
            guard width > 0, height > 0 else {
                throw .decodingFailed(context.url, format, reason: "libheif reports a \(width)x\(height) image")
            }
            try context.limits.check(width: Int(width), height: Int(height), url: context.url)
            let bytesPerRow = Int(width) * Bitmap.bytesPerPixel
            let pixels = [UInt8].filled(count: bytesPerRow * Int(height)) { buffer in
                status = imago_heif_read_pixels(decoder, buffer, bytesPerRow, width, height, &message)
                return status == IMAGO_DECODED
            }
            guard let pixels else { throw failure(status) }
            let bitmap = Bitmap(
                width: Int(width), height: Int(height), alphaMode: hasAlpha != 0 ? .straight : .opaque, pixels: pixels)
            var container = try ImageContainer(bitmap: bitmap, format: format)
            let maximumProfileSize = context.limits.maximumColorProfileSize
            let colour = (isThumbnail ? ownColor(decoder, maximumProfileSize: maximumProfileSize) : nil)
                ?? EmbeddedColor.read(boxes, maximumProfileSize: maximumProfileSize)
            ColorConversion.apply(colour, to: &container, source: .unknown, context: context)
            return container
        }
    }

    /// The colour the image `decoder` has selected declares itself, or `nil` when it declares none;
    /// a profile larger than `maximumProfileSize` bytes is refused as a problem, never read.
    private static func ownColor(_ decoder: OpaquePointer, maximumProfileSize: Int) -> EmbeddedColor.Reading? {
        var primaries: Int32 = 0, transfer: Int32 = 0, matrix: Int32 = 0, fullRange: Int32 = 0
        var profileSize = 0
        switch imago_heif_color(decoder, &primaries, &transfer, &matrix, &fullRange, &profileSize) {
        case IMAGO_HEIF_COLOR_NCLX:
            return EmbeddedColor.Reading(color: .codePoints(ColorCodePoints(
                primaries: Int(primaries), transfer: Int(transfer), matrix: Int(matrix), fullRange: fullRange != 0)))
        case IMAGO_HEIF_COLOR_ICC:
            guard profileSize <= maximumProfileSize else {
                return EmbeddedColor.Reading(color: nil, problems: [EmbeddedColor.tooLarge(profileSize, maximumProfileSize)])
            }
            let profile = [UInt8].filled(count: profileSize) { imago_heif_copy_icc(decoder, $0, profileSize) == 1 }
            return profile.map { EmbeddedColor.Reading(color: .icc(Data($0))) }
        default:
            return nil
        }
    }
}
#endif
