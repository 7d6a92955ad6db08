#if os(Linux)
import Foundation
import Imago

extension ImageProxy {
    /// ``produce(_:format:)``, or, when the source cannot be fetched or decoded and a fallback
    /// image is configured or named by the path (`fiu`), that image processed with the same
    /// options, answered with the fallback's status and never kept in the response tier.
    func produceOrFallback(_ parsed: ProcessingPath, format: ImageFormat?) async throws(ProxyError) -> EncodedImage {
        do {
            return try await produce(parsed, format: format)
        } catch {
            guard Self.fallbackCodes.contains(error.code), let source = fallbackSource(for: parsed) else { throw error }
            var fallback = parsed
            fallback.source = source
            fallback.options.fallbackImageURL = nil
            let settings = configuration.fallbackImage ?? FallbackImage()
            do {
                var image = try await produce(fallback, format: format)
                image.isStorable = false
                image.fallbackStatus = settings.statusCode == 0 ? error.status : settings.statusCode
                image.fallbackTTL = settings.ttl > 0 ? settings.ttl : nil
                configuration.logger.notice("\(error.status) \(error.code): answered with the fallback image; \(error.detail ?? error.message)")
                return image
            } catch let fallbackError {
                configuration.logger.notice("the fallback image failed too: \(fallbackError.detail ?? fallbackError.message)")
                throw error
            }
        }
    }

    /// The failures a fallback image stands in for: the source could not be fetched or decoded.
    static let fallbackCodes: Set<String> = [
        "source_not_found", "source_refused", "source_failed", "source_timeout", "source_too_large", "not_an_image", "undecodable",
        "forbidden_source",
    ]

    /// The path's `fiu` (when the source policy allows it), else the configured fallback's URL.
    private func fallbackSource(for parsed: ProcessingPath) -> URL? {
        if let url = parsed.options.fallbackImageURL {
            return sourcePolicy.refusal(for: url) == nil ? url : nil
        }
        switch configuration.fallbackImage?.source {
        case .data?: return FallbackImage.dataURL
        case .url(let url)?: return url
        case nil: return nil
        }
    }
}
#endif
