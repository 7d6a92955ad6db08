import Foundation

extension ImagePipeline {
    /// Whether `request` shows previews: asked for (by the request or the configuration) and
    /// decodable by Imago's own JPEG reader (not when a registered decoder handles JPEG).
    func decodesPreviews(for request: ImageRequest) -> Bool {
        guard request.decodesPreviews ?? configuration.decodesPreviews else { return false }
        return configuration.decoders.decoder(for: .jpeg) is ImageDecoder
    }

    /// The renderer of the previews of `request`'s image, handing them to the image work's callers;
    /// `nil` when the request shows none.
    func previewRenderer(
        for request: ImageRequest, context: InFlightTable<WorkKey, ImageResponse>.Context
    ) -> PreviewRenderer? {
        guard decodesPreviews(for: request) else { return nil }
        let metrics = self.metrics
        return PreviewRenderer(
            maximumScans: configuration.decodingLimits.maximumProgressiveScans,
            priority: context.priority.taskPriority,
            render: { prefix throws(Error) in try self.renderPreview(prefix, for: request) },
            deliver: { preview in context.send(.preview(preview)) },
            onDecode: { shown in (shown ? metrics.previewsShown : metrics.previewDecodes).increment() })
    }

    /// A preview from the first bytes of a progressive JPEG (they end where a scan ends), decoded
    /// at the scale the final image is decoded at and processed as the request asks. Never cached.
    func renderPreview(_ prefix: Data, for request: ImageRequest) throws(Error) -> ImageContainer {
        var context = DecodingContext(
            format: .jpeg, url: request.url, limits: configuration.decodingLimits,
            maximumPixelSize: request.thumbnailSize, colorProfileHandling: request.colorProfileHandling, policy: .strict)
        context.defersColorConversion = request.thumbnailSize != nil
        #if os(Linux)
        let decoded = try JPEGDecoder().preview(prefix, context: context).container
        #elseif canImport(ImageIO)
        let decoded = try ImageIODecoder().preview(prefix, context: context)
        #else
        throw .unsupportedFormat(request.url, detail: "no previews on this platform")
        #endif
        try context.checkCancellation()
        return try process(decoded, for: request)
    }
}
