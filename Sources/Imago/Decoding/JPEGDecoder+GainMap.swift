#if os(Linux)
import Foundation

extension JPEGDecoder {
    /// Decodes the HDR gain map of `data` into `container` (``JPEGGainMapReader/attach(from:to:decodeMap:)``).
    ///
    /// libjpeg decodes the map at the DCT scale the base was decoded at (n/8 of its own size, never
    /// below 1 pixel: libjpeg rounds up), with no colour conversion. A map that needed repairs is
    /// not kept.
    func attachGainMap(from data: Data, to container: inout ImageContainer, context: DecodingContext) {
        JPEGGainMapReader.attach(from: data, to: &container) { mapData, base, map in
            // The base's DCT scale, n/8, asked of the map through the longer side it gives.
            let scale = Self.scaleNumerator(width: base.width, height: base.height, target: context.maximumPixelSize)
            let mapContext = DecodingContext(
                format: .jpeg, url: context.url, limits: context.limits,
                maximumPixelSize: scale == 8 ? nil : (max(map.width, map.height) * scale + 7) / 8,
                decodesAllFrames: false, colorProfileHandling: .keep, policy: .strict)
            do throws(ImagePipeline.Error) {
                let decoded = try JPEGDecoder(selectsScans: false, readsGainMap: false).decode(mapData, context: mapContext)
                guard decoded.repairs.isEmpty else {
                    return .failure(GainMapProblem("the gain map image is damaged: \(decoded.repairs.map(\.description).joined(separator: "; "))"))
                }
                return .success(decoded.image.pixels)
            } catch {
                return .failure(GainMapProblem("the gain map image did not decode: \(error.description)"))
            }
        }
    }
}
#endif
