#if os(Linux)
import Foundation

/// Turns what a file declares about its colour into pixels in sRGB (or kept, with the profile
/// carried), for the Linux decoders; on Apple platforms ImageIO and CoreGraphics do it.
///
/// It runs on the decoded bitmap, that is after shrink-on-load (DCT scaling, box reduction,
/// libwebp's scaled decode), so a thumbnail pays for the pixels it keeps, not the source's.
/// Anything unusable (a malformed or mismatched profile, code points Imago does not know) leaves
/// the pixels as read, as sRGB, and is listed in ``ImageContainer/repairs``: a picture is never
/// refused for its profile.
enum ColorConversion {
    /// The colour model of the decoded pixels' source, which a profile must match.
    enum SourceModel: Sendable {
        /// Colour pixels (RGB, YCbCr, palette).
        case rgb
        /// Gray pixels, delivered as R = G = B.
        case gray
        /// Gray or colour: the decoder does not say (a gray profile then needs R = G = B throughout).
        case unknown
    }

    /// Reads the colour `data` declares and converts `container`'s pixels (every frame) accordingly.
    static func apply(
        to container: inout ImageContainer, data: Data, source: SourceModel, context: DecodingContext,
        cache: ColorTransformCache = .shared
    ) {
        let reading = EmbeddedColor.read(data, format: context.format, maximumProfileSize: context.limits.maximumColorProfileSize)
        apply(reading, to: &container, source: source, context: context, cache: cache)
    }

    /// Converts as `context` says: now, or, for a still when the context defers it, left in
    /// ``ImageContainer/pendingColorConversion`` for after the thumbnail.
    static func apply(
        _ reading: EmbeddedColor.Reading, to container: inout ImageContainer, source: SourceModel,
        context: DecodingContext, cache: ColorTransformCache = .shared
    ) {
        apply(
            reading, to: &container, source: source, handling: context.colorProfileHandling,
            defers: context.defersColorConversion, cache: cache)
    }

    static func apply(
        _ reading: EmbeddedColor.Reading, to container: inout ImageContainer, source: SourceModel,
        handling: ColorProfileHandling, defers: Bool = false, cache: ColorTransformCache = .shared
    ) {
        container.repairs += reading.problems.map { ImageContainer.Repair(.ignoredColorProfile($0)) }
        guard let color = reading.color else { return }
        let profile: ColorProfile
        switch resolve(color) {
        case .none: return
        case .failure(let failure):
            container.repairs.append(ImageContainer.Repair(.ignoredColorProfile(failure.description)))
            return
        case .profile(let resolved): profile = resolved
        }
        let layout: ColorTransform.Layout
        switch profile.colorSpace {
        case .rgb:
            layout = .rgba8
        case .gray where source != .rgb && container.allFramesAreGray:
            layout = .grayInRGBA8
        default:
            container.repairs.append(ImageContainer.Repair(.ignoredColorProfile(
                "the profile is for \(profile.colorSpace.rawValue) pixels, the image's are \(source == .gray ? "gray" : "colour")")))
            return
        }
        container.colorProfile = profile
        if handling == .keep && layout == .rgba8 {
            container.colorProfileHandling = .keep
            return
        }
        switch cache.transform(profile: profile.data, layout: layout) {
        case .failure(let failure):
            container.colorProfile = nil
            container.repairs.append(ImageContainer.Repair(.ignoredColorProfile(failure.description)))
        case .success(let transform):
            container.colorProfileHandling = .convertToSRGB
            if defers && container.frames.isEmpty {
                container.pendingColorConversion = transform
            } else {
                container.convertPixels(with: transform)
            }
        }
    }

    enum Resolution {
        case none
        case profile(ColorProfile)
        case failure(ColorProfile.Failure)
    }

    /// The profile a declaration stands for; `.none` for sRGB itself.
    static func resolve(_ color: EmbeddedColor) -> Resolution {
        switch color {
        case .sRGB:
            return .none
        case .icc(let data):
            do { return .profile(try ColorProfile(iccData: data)) } catch { return .failure(error) }
        case .codePoints(let points):
            if points.isSRGB { return .none }
            guard let primaries = points.chromaticities else {
                return .failure(ColorProfile.Failure(description: "\(points): colour primaries \(points.primaries) are not supported"))
            }
            guard let transfer = points.transferCurve else {
                return .failure(ColorProfile.Failure(
                    description: "\(points): transfer characteristics \(points.transfer) (PQ, HLG and others) are not converted"))
            }
            return built(.init(
                points: primaries.points, curve: transfer.curve,
                name: "\(primaries.name) primaries, \(transfer.name) (\(points))"))
        case .chromaticities(let gamma, let points):
            let sRGBPoints = ColorCodePoints(primaries: 1, transfer: 13, matrix: 0, fullRange: true).chromaticities?.points ?? []
            let chosen = points ?? sRGBPoints
            // An encoding gamma near 1/2.2 with sRGB's primaries is sRGB, as browsers read it.
            let exponent = gamma.map { 1 / $0 }
            let gammaIsSRGB = exponent.map { abs($0 - 2.2) < 0.05 } ?? true
            let pointsAreSRGB = zip(chosen, sRGBPoints).allSatisfy { abs($0 - $1) < 0.0015 }
            if gammaIsSRGB && pointsAreSRGB { return .none }
            guard chosen.count == 8 else { return .failure(ColorProfile.Failure(description: "the cHRM chunk is malformed")) }
            let curve: ColorCodePoints.TransferCurve = exponent.map { gammaIsSRGB ? .sRGB : .gamma($0) } ?? .sRGB
            let name = "PNG gAMA \(gamma.map { String(format: "%.5f", $0) } ?? "none"), cHRM \(points == nil ? "none" : "given")"
            return built(.init(points: chosen, curve: curve, name: name))
        }
    }

    private static func built(_ recipe: ColorProfileBuilder.Recipe) -> Resolution {
        switch ColorProfileBuilder.profile(recipe) {
        case .success(let profile): .profile(profile)
        case .failure(let failure): .failure(failure)
        }
    }
}

extension ImageContainer {
    /// Runs the conversion the decoder deferred, if any: after the thumbnail, at the output size.
    mutating func completeColorConversion() {
        guard let transform = pendingColorConversion else { return }
        pendingColorConversion = nil
        convertPixels(with: transform)
    }

    /// Whether every pixel of every frame has R = G = B (a gray image delivered as RGBA).
    fileprivate var allFramesAreGray: Bool {
        let bitmaps = frames.isEmpty ? [image.pixels] : frames.map(\.image.pixels)
        return bitmaps.allSatisfy { bitmap in
            bitmap.pixels.withUnsafeBufferPointer { pixels in
                var index = 0
                while index + 3 < pixels.count {
                    if pixels[index] != pixels[index + 1] || pixels[index] != pixels[index + 2] { return false }
                    index += 4
                }
                return true
            }
        }
    }

    /// Converts the image and every frame in place through `transform`.
    fileprivate mutating func convertPixels(with transform: ColorTransform) {
        var bitmap = image.pixels
        if frames.isEmpty {
            // A still: drop the container's reference first, so the pixels convert in place
            // instead of being copied (48 MB for a 12-megapixel photo).
            image = PlatformImage(Bitmap(width: 0, height: 0))
            transform.apply(to: &bitmap)
            image = PlatformImage(bitmap)
            return
        }
        transform.apply(to: &bitmap)
        let converted = PlatformImage(bitmap)
        let firstFrameIsImage = frames.first.map { $0.image == image } ?? false
        image = converted
        for index in frames.indices {
            if index == 0 && firstFrameIsImage {
                frames[index].image = converted
                continue
            }
            var frame = frames[index].image.pixels
            transform.apply(to: &frame)
            frames[index].image = PlatformImage(frame)
        }
    }
}
#endif
