#if os(Linux)
import CImagoCodecs
import Foundation

/// A Little CMS transform from one profile to sRGB for one pixel layout (or, for
/// ``Layout/srgbToProfileRGBA8``, from sRGB to the profile).
///
/// Immutable once built, and built without Little CMS's one-pixel cache, so one transform converts
/// pixels on any number of threads at once. ``ColorTransformCache`` keeps the recent ones, so a
/// batch of photos from one camera pays for one.
final class ColorTransform: @unchecked Sendable {
    // @unchecked: the handle is only read after init, and Little CMS's transforms built with
    // cmsFLAGS_NOCACHE may be applied concurrently.

    /// How the pixels handed to ``apply(input:inputStride:output:outputStride:width:rows:)`` are laid out.
    enum Layout: Sendable, Hashable {
        case rgba8, grayInRGBA8, cmyk8, cmyk8Inverted, rgb16BE, rgba16BE
        /// The other way: sRGB RGBA8 into the (RGB) profile's RGBA8, for what is drawn in sRGB onto
        /// pixels kept in the profile.
        case srgbToProfileRGBA8

        var cValue: imago_color_layout {
            switch self {
            case .rgba8: IMAGO_COLOR_RGBA8
            case .grayInRGBA8: IMAGO_COLOR_GRAY_IN_RGBA8
            case .cmyk8: IMAGO_COLOR_CMYK8
            case .cmyk8Inverted: IMAGO_COLOR_CMYK8_INVERTED
            case .rgb16BE: IMAGO_COLOR_RGB16BE
            case .rgba16BE: IMAGO_COLOR_RGBA16BE
            case .srgbToProfileRGBA8: IMAGO_COLOR_SRGB_TO_PROFILE_RGBA8
            }
        }
    }

    private let handle: OpaquePointer
    let layout: Layout

    /// Builds the transform, or says in Little CMS's words why it cannot be built.
    static func make(profile: Data, layout: Layout) -> Result<ColorTransform, ColorProfile.Failure> {
        var message = [CChar](repeating: 0, count: 256)
        let handle = profile.withUnsafeBytes { bytes in
            message.withUnsafeMutableBufferPointer { text in
                imago_color_transform_create(
                    bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, layout.cValue, text.baseAddress, text.count)
            }
        }
        guard let handle else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return .failure(ColorProfile.Failure(description: text.isEmpty ? "Little CMS refused the profile" : text))
        }
        return .success(ColorTransform(handle: handle, layout: layout))
    }

    private init(handle: OpaquePointer, layout: Layout) {
        self.handle = handle
        self.layout = layout
    }

    deinit { imago_color_transform_destroy(handle) }

    /// Converts `rows` rows of `width` pixels from `input` into 8-bit sRGB RGBA at `output`.
    func apply(
        input: UnsafeRawPointer, inputStride: Int, output: UnsafeMutablePointer<UInt8>, outputStride: Int,
        width: Int, rows: Int
    ) {
        imago_color_transform_apply(handle, input, inputStride, output, outputStride, width, rows)
    }

    /// Converts an RGBA8 bitmap (gray in R = G = B for ``Layout/grayInRGBA8``) in place.
    func apply(to bitmap: inout Bitmap) {
        let width = bitmap.width, height = bitmap.height, stride = bitmap.bytesPerRow
        bitmap.pixels.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            apply(input: base, inputStride: stride, output: base, outputStride: stride, width: width, rows: height)
        }
    }
}

/// The transforms built recently, by profile and layout: at most ``capacity``, the least recently
/// used dropped first. A profile Little CMS refused is remembered too, so it is not read again.
final class ColorTransformCache: Sendable {
    /// The cache the decoders share.
    static let shared = ColorTransformCache(capacity: 16)

    /// The profile's bytes as an array: a `Data` held in a process-wide cache keeps its storage
    /// behind a pointer tagged in its spare bits, which LeakSanitizer cannot follow.
    struct Key: Hashable, Sendable {
        var profile: [UInt8]
        var layout: ColorTransform.Layout
    }

    /// One built transform or the reason it was refused. Optionals rather than a `Result`: a
    /// process-wide cache must hold its objects behind plain pointers, which LeakSanitizer follows
    /// (it cannot follow a reference stored in a multi-payload enum, tagged in spare bits).
    private struct Entry {
        var transform: ColorTransform?
        var failure: String?
        var lastUse: UInt64

        var result: Result<ColorTransform, ColorProfile.Failure> {
            if let transform { return .success(transform) }
            return .failure(ColorProfile.Failure(description: failure ?? "Little CMS refused the profile"))
        }
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var clock: UInt64 = 0
        var builds = 0
    }

    let capacity: Int
    private let state = Locked(State())

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// The transform for `profile` and `layout`, built on first use (outside the lock).
    func transform(profile: Data, layout: ColorTransform.Layout) -> Result<ColorTransform, ColorProfile.Failure> {
        let key = Key(profile: [UInt8](profile), layout: layout)
        let cached = state.withLock { state -> Result<ColorTransform, ColorProfile.Failure>? in
            state.clock &+= 1
            guard let entry = state.entries[key] else { return nil }
            state.entries[key]?.lastUse = state.clock
            return entry.result
        }
        if let cached { return cached }
        let built = ColorTransform.make(profile: profile, layout: layout)
        state.withLock { state in
            state.builds += 1
            state.clock &+= 1
            switch built {
            case .success(let transform): state.entries[key] = Entry(transform: transform, failure: nil, lastUse: state.clock)
            case .failure(let failure): state.entries[key] = Entry(transform: nil, failure: failure.description, lastUse: state.clock)
            }
            if state.entries.count > capacity, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.entries.removeValue(forKey: oldest.key)
            }
        }
        return built
    }

    /// How many transforms were built since the cache was made (for tests).
    var buildCount: Int { state.withLock { $0.builds } }

    /// How many are held now.
    var count: Int { state.withLock { $0.entries.count } }
}
#endif
