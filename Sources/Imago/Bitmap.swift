/// A decoded image as plain pixels: 8-bit RGBA, row after row, top row first.
///
/// `Bitmap` is the image type on Linux and the common currency of the processors on every
/// platform. It is a `Sendable` value whose pixels are copied on write, so passing it around or
/// caching it costs nothing until someone mutates a copy.
public struct Bitmap: Sendable, Hashable, CustomStringConvertible {
    /// How the colour channels relate to the alpha channel.
    public enum AlphaMode: String, Sendable, Hashable, Codable {
        /// Every pixel has alpha 255; nothing is transparent.
        case opaque
        /// Colour channels are independent of alpha (PNG, GIF and WebP deliver this).
        case straight
        /// Colour channels are already multiplied by alpha (what compositors want).
        case premultiplied
    }

    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// How colour relates to alpha in ``pixels``.
    public var alphaMode: AlphaMode
    /// `width * height * 4` bytes: R, G, B, A for each pixel, rows top to bottom, no padding.
    public var pixels: [UInt8]

    /// Bytes per pixel: always 4 (RGBA8).
    public static let bytesPerPixel = 4

    /// Wraps `pixels` (exactly `width * height * 4` bytes of RGBA8).
    public init(width: Int, height: Int, alphaMode: AlphaMode, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0, "Bitmap dimensions must not be negative")
        precondition(
            pixels.count == width * height * Bitmap.bytesPerPixel,
            "Bitmap of \(width)x\(height) needs \(width * height * 4) bytes, got \(pixels.count)")
        self.width = width
        self.height = height
        self.alphaMode = alphaMode
        self.pixels = pixels
    }

    /// A bitmap filled with one colour.
    public init(width: Int, height: Int, fill: RGBA = RGBA(0, 0, 0, 0)) {
        var pixels = [UInt8](repeating: 0, count: width * height * Bitmap.bytesPerPixel)
        if fill != RGBA(0, 0, 0, 0) {
            for index in stride(from: 0, to: pixels.count, by: 4) {
                pixels[index] = fill.r
                pixels[index + 1] = fill.g
                pixels[index + 2] = fill.b
                pixels[index + 3] = fill.a
            }
        }
        self.init(width: width, height: height, alphaMode: fill.a == 255 ? .opaque : .straight, pixels: pixels)
    }

    /// `Bitmap(640x480, opaque, 1.2 MB)`: the size and alpha, never the pixel bytes.
    public var description: String {
        "Bitmap(\(width)x\(height), \(alphaMode.rawValue), \(ByteCountDescription.format(byteCount)))"
    }

    /// Bytes in one row.
    public var bytesPerRow: Int { width * Bitmap.bytesPerPixel }

    /// The memory the pixels occupy, used as the memory cache's cost.
    public var byteCount: Int { pixels.count }

    /// The pixel at column `x`, row `y` (top-left is 0, 0).
    public subscript(x: Int, y: Int) -> RGBA {
        get {
            let index = (y * width + x) * 4
            return RGBA(pixels[index], pixels[index + 1], pixels[index + 2], pixels[index + 3])
        }
        set {
            let index = (y * width + x) * 4
            pixels[index] = newValue.r
            pixels[index + 1] = newValue.g
            pixels[index + 2] = newValue.b
            pixels[index + 3] = newValue.a
        }
    }
}

/// One RGBA8 pixel.
public struct RGBA: Sendable, Hashable, CustomStringConvertible {
    /// Red, 0...255.
    public var r: UInt8
    /// Green, 0...255.
    public var g: UInt8
    /// Blue, 0...255.
    public var b: UInt8
    /// Alpha, 0 (transparent) to 255 (opaque).
    public var a: UInt8

    /// A pixel of these channels; opaque unless `a` says otherwise.
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    /// `rgba(255, 128, 0, 255)`.
    public var description: String { "rgba(\(r), \(g), \(b), \(a))" }
}
