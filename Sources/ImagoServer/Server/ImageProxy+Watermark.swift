#if os(Linux)
import Foundation
import Imago

extension ImageProxy {
    /// The watermark `options` ask for, with its image: the path's `wmu` (under the source
    /// policy, as any source), else the server's; `nil` when the path has no `wm`, its opacity
    /// is 0, or no image is named (imgproxy then ignores `wm`).
    func resolvedWatermark(for options: ProcessingOptions) async throws(ProxyError) -> ProxyWatermark? {
        guard let settings = options.watermark, settings.opacity * configuration.watermarkOpacity > 0 else { return nil }
        let image: WatermarkImage
        if let url = options.watermarkURL {
            if let reason = sourcePolicy.refusal(for: url) {
                throw ProxyError(
                    status: 403, code: "forbidden_source",
                    message: SourcePolicy.clientMessage(forLoaderReason: reason) ?? SourcePolicy.refusalMarker, detail: reason)
            }
            image = .url(url)
        } else if let configured = configuration.watermark {
            image = configured
        } else {
            return nil
        }
        let bitmap: Bitmap
        switch image {
        case .bitmap(let pixels, _):
            bitmap = pixels
        case .url(let url):
            // Through the pipeline: its caches keep the decoded watermark for the next request.
            var request = ImageRequest(url: url)
            if url.scheme?.lowercased() == LocalFileDataLoader.scheme {
                request.cachePolicy = ImageRequest.CachePolicy(readsDisk: false, writesDisk: false)  // as a local source
            }
            do {
                bitmap = try await pipeline.image(for: request).container.bitmap()
            } catch {
                throw ProxyError(error)
            }
        }
        return ProxyWatermark(
            image: bitmap, imageIdentifier: image.identifier, options: settings, baseOpacity: configuration.watermarkOpacity)
    }
}
#endif
