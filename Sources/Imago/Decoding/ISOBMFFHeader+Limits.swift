import Foundation

extension ISOBMFFHeader {
    /// Parses the boxes of a HEIF or AVIF file and checks ``DecodingLimits`` against what they
    /// declare, before any codec sees the bytes: a bomb's `ispe` is refused here (when an embedded
    /// thumbnail is preferred and the file lists one, against the source limits: the decoder
    /// checks what it decodes).
    ///
    /// - Throws: `decodingFailed` naming the malformed box, or `limitExceeded`.
    static func checked(_ data: Data, context: DecodingContext) throws(ImagePipeline.Error) -> ISOBMFFHeader {
        let header: ISOBMFFHeader
        do throws(Failure) {
            header = try parse(data)
        } catch {
            throw .decodingFailed(context.url, context.format, reason: error.description)
        }
        let limits = context.limits
        if context.prefersEmbeddedThumbnail && header.thumbnailCount > 0 {
            // What is decoded may be a thumbnail of its own size, checked once libheif reports it
            // (and so is the primary image when the thumbnail cannot be read): the primary is a
            // source here.
            try limits.checkSource(width: header.width, height: header.height, url: context.url)
        } else {
            try limits.check(width: header.width, height: header.height, url: context.url)
        }
        if context.decodesAllFrames, let frames = header.frameCount, frames > 1 {
            if frames > limits.maximumFrameCount {
                throw .limitExceeded(context.url, .frameCount(count: frames, limit: limits.maximumFrameCount))
            }
            let total = (header.width * header.height).multipliedReportingOverflow(by: frames)
            if total.overflow || total.partialValue > limits.maximumTotalFramePixels {
                let count = total.overflow ? Int.max : total.partialValue
                throw .limitExceeded(
                    context.url, .totalFramePixels(count: count, limit: limits.maximumTotalFramePixels))
            }
        }
        return header
    }
}
