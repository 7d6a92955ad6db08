#if os(Linux)
import Imago

extension ImageProxy {
    /// The format of a response whose path and client name none (imgproxy's choice among
    /// `IMGPROXY_PREFERRED_FORMATS`): the `source`'s own format when it is preferred (an opaque
    /// PNG stays PNG; a JPEG stays JPEG, flattened); else the first preferred format that can
    /// carry an `animated` or `transparent` result (GIF or WebP for an animation, anything but
    /// JPEG for alpha); else the first preferred. Formats this build cannot write are passed over;
    /// with none left, JPEG or PNG by the alpha.
    func preferredFormat(source: ImageFormat, animated: Bool, transparent: Bool) -> ImageFormat {
        let writable = writablePreferredFormats
        guard let first = writable.first else { return transparent ? .png : .jpeg }
        if writable.contains(source) { return source }
        return writable.first { format in
            (!animated || Self.animatedFormat(format) != nil) && (!transparent || format != .jpeg)
        } ?? first
    }

    /// The preferred formats this build writes, in their order.
    var writablePreferredFormats: [ImageFormat] {
        configuration.preferredFormats.filter { format in
            switch format {
            case .jpeg, .png, .gif: true
            case .webp: canWriteWebP
            case .avif: canWriteAVIF
            case .jxl: canWriteJXL
            default: false
            }
        }
    }

    /// Whether a response in a preferred format may be an animation (one of them is GIF or WebP).
    var preferredFormatsAnimate: Bool {
        writablePreferredFormats.contains { Self.animatedFormat($0) != nil }
    }
}
#endif
