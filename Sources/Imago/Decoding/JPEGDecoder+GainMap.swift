#if os(Linux)
import Foundation

extension JPEGDecoder {
    /// Decodes the HDR gain map of `data` (``JPEGGainMapReader``) into `container`, or lists in its
    /// repairs why a gain map the file declares was not kept (``ImageContainer/Repair/Kind/ignoredGainMap(_:)``).
    ///
    /// The map is decoded by libjpeg at the DCT scale the base was decoded at (n/8 of its own
    /// size, never below 1 pixel: libjpeg rounds up), as stored, with no colour conversion (its
    /// values are gains, not colours), and turned by the base image's EXIF orientation, which it
    /// shares. A map larger than the base, or one that needed repairs, is not kept.
    func attachGainMap(from data: Data, to container: inout ImageContainer, context: DecodingContext) {
        let found: JPEGGainMapReader.Found
        switch JPEGGainMapReader.read(data) {
        case .none: return
        case .ignored(let problem):
            container.repairs.append(ImageContainer.Repair(.ignoredGainMap(problem.description)))
            return
        case .found(let value): found = value
        }
        switch decodeGainMap(found, in: data, context: context) {
        case .success(let bitmap): container.gainMap = GainMap(bitmap: bitmap, metadata: found.metadata)
        case .failure(let problem): container.repairs.append(ImageContainer.Repair(.ignoredGainMap(problem.description)))
        }
    }

    private func decodeGainMap(
        _ found: JPEGGainMapReader.Found, in data: Data, context: DecodingContext
    ) -> Result<Bitmap, GainMapProblem> {
        let mapData = data.subdata(in: (data.startIndex + found.range.lowerBound)..<(data.startIndex + found.range.upperBound))
        guard let base = ImageHeader.probe(data), let map = ImageHeader.probe(mapData), map.format == .jpeg else {
            return .failure(GainMapProblem("the gain map image has no readable JPEG header"))
        }
        guard max(map.width, map.height) <= max(base.width, base.height), min(map.width, map.height) <= min(base.width, base.height) else {
            return .failure(GainMapProblem("the gain map (\(map.width)x\(map.height)) is larger than the image (\(base.width)x\(base.height))"))
        }
        // The base's DCT scale, n/8, asked of the map through the longer side it gives.
        let scale = Self.scaleNumerator(width: base.width, height: base.height, target: context.maximumPixelSize)
        let mapContext = DecodingContext(
            format: .jpeg, url: context.url, limits: context.limits,
            maximumPixelSize: scale == 8 ? nil : (max(map.width, map.height) * scale + 7) / 8,
            decodesAllFrames: false, colorProfileHandling: .keep, policy: .strict)
        do {
            let decoded = try JPEGDecoder(selectsScans: false, readsGainMap: false).decode(mapData, context: mapContext)
            guard decoded.repairs.isEmpty else {
                return .failure(GainMapProblem("the gain map image is damaged: \(decoded.repairs.map(\.description).joined(separator: "; "))"))
            }
            let orientation = EXIFOrientation(jpeg: data) ?? .up
            return .success(orientation.apply(to: decoded.image.pixels))
        } catch {
            return .failure(GainMapProblem("the gain map image did not decode: \(error.description)"))
        }
    }
}
#endif
